static char help[] = "MatMult and KSP benchmark: one matrix, every type, in one process on one GPU.\n"
                     "  -matrix <spec>     gen:<kind>:<n>[:<seed>], a .mtx/.mtx.gz or PETSc binary file (bench/mmio.h)\n"
                     "  -kind <powerlaw> -n <2000000>   the same as -matrix gen:<kind>:<n>\n"
                     "  -name <text>       the matrix's name in the table and the CSV (default: the spec)\n"
                     "  -class <spd|nonsym> the KSP: CG+Jacobi (spd) or GMRES+Jacobi (default: spd for stencils\n"
                     "                     and FEM kinds, nonsym otherwise); rectangular matrices skip the KSP\n"
                     "  -types <list>      default: aijcusparse:alg1,aijcusparse:alg2,csrspec,sellcuda,aij (and\n"
                     "                     aijkokkos with a Kokkos PETSc); max relerr is against the first type\n"
                     "                     aijcusparse:algN sets -mat_cusparse_spmv_alg CSRMV_ALGN;\n"
                     "                     csrspec:w=4:warps=16 sets -mat_csrspec_w 4 -mat_csrspec_warps 16\n"
                     "  -reps <100>        timed products per GPU type (median, min, max reported)\n"
                     "  -reps_host <10>    timed products for host (CPU) types, which are 100x slower\n"
                     "  -warmup <10>       untimed products before timing\n"
                     "  -ksp_its <50>      fixed iteration count of the KSP measurement, GPU types (0: no KSP)\n"
                     "  -csv <file>        append one row per type (bench/plot.py reads it)\n"
                     "  -floors <1>        also time the floors of bench/floors.cu (GPU builds): the CSR bytes\n"
                     "                     streamed (floor:stream) and with x gathered in CSR order (floor:gather*)\n"
                     "Byte models (fp64 value + 32-bit index): CSR minimal = 12 B/nnz + 4 B/row pointer + x once\n"
                     "+ y once; format = the type's device bytes + x + y (ours: measured; aijcusparse: CSR;\n"
                     "other peers: 12 B per allocated entry + 4 B per row). GPU times: CUDA events on PETSc's\n"
                     "stream; host times: PetscTime. Build cost = first product after assembly minus a steady\n"
                     "one; refresh cost = (all values rewritten on the host + product) minus a steady product:\n"
                     "MatSeqAIJGetArrayWrite/Restore for the AIJ family, one MatSetValue + assembly otherwise.\n";

#include <petscksp.h>
#include <petscgpumat.h>
#include "gen.h"
#include "mmio.h"
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice_cuda.h>
  #include "floors.h"
#endif

static int CmpDouble(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static PetscErrorCode Sync(void)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  PetscCallCUDA(cudaDeviceSynchronize());
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Now(PetscLogDouble *t)
{
  PetscFunctionBegin;
  PetscCall(Sync());
  PetscCall(PetscTime(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
/* Device copy bandwidth (bytes read + written per second) in this run, 1 GiB buffers. */
static PetscErrorCode CopyBandwidth(double *gbs)
{
  size_t      bytes = (size_t)1 << 30;
  void       *a, *b;
  cudaEvent_t e0, e1;
  float       ms;
  double      t[20];
  PetscFunctionBegin;
  PetscCallCUDA(cudaMalloc(&a, bytes));
  PetscCallCUDA(cudaMalloc(&b, bytes));
  PetscCallCUDA(cudaMemset(a, 1, bytes));
  PetscCallCUDA(cudaEventCreate(&e0));
  PetscCallCUDA(cudaEventCreate(&e1));
  for (int i = 0; i < 23; i++) {
    PetscCallCUDA(cudaEventRecord(e0, 0));
    PetscCallCUDA(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, 0));
    PetscCallCUDA(cudaEventRecord(e1, 0));
    PetscCallCUDA(cudaEventSynchronize(e1));
    PetscCallCUDA(cudaEventElapsedTime(&ms, e0, e1));
    if (i >= 3) t[i - 3] = ms;
  }
  qsort(t, 20, sizeof(double), CmpDouble);
  *gbs = 2.0 * bytes / (t[10] * 1e-3) / 1e9;
  PetscCallCUDA(cudaEventDestroy(e0));
  PetscCallCUDA(cudaEventDestroy(e1));
  PetscCallCUDA(cudaFree(a));
  PetscCallCUDA(cudaFree(b));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* One product, timed: CUDA events for device matrices, the host clock otherwise. */
static PetscErrorCode TimedMult(Mat A, Vec x, Vec y, PetscBool gpu, double *ms)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  if (gpu) {
    static cudaEvent_t e0, e1;
    cudaStream_t       s;
    float              f;
    if (!e0) {
      PetscCallCUDA(cudaEventCreate(&e0));
      PetscCallCUDA(cudaEventCreate(&e1));
    }
    PetscCall(PetscGetCurrentCUDAStream(&s));
    PetscCallCUDA(cudaEventRecord(e0, s));
    PetscCall(MatMult(A, x, y));
    PetscCallCUDA(cudaEventRecord(e1, s));
    PetscCallCUDA(cudaEventSynchronize(e1));
    PetscCallCUDA(cudaEventElapsedTime(&f, e0, e1));
    *ms = f;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  {
    PetscLogDouble t0, t1;
    PetscCall(PetscTime(&t0));
    PetscCall(MatMult(A, x, y));
    PetscCall(PetscTime(&t1));
    *ms = 1e3 * (t1 - t0);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
/* The floors of bench/floors.cu for the assembled AIJ A0 (32-bit PetscInt only), one line each. */
static PetscErrorCode PrintFloors(Mat A0, PetscInt reps, int warmup, double csr_bytes, double copy_gbs)
{
  const PetscInt    *ia, *ja;
  const PetscScalar *va;
  PetscInt           m, N;
  PetscBool          done;
  BenchFloor         fl[8];
  int                nfl = 0, rc;
  char               err[256] = "";
  PetscFunctionBegin;
  if (sizeof(PetscInt) != sizeof(int) || sizeof(PetscScalar) != sizeof(double)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGetSize(A0, NULL, &N));
  PetscCall(MatGetRowIJ(A0, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatGetRowIJ failed for the floors");
  PetscCall(MatSeqAIJGetArrayRead(A0, &va));
  rc = BenchFloors((int)m, (int)N, (long long)ia[m], (const int *)ia, (const int *)ja, (const double *)va, (int)reps, warmup, fl, (int)PETSC_STATIC_ARRAY_LENGTH(fl), &nfl, err, (int)sizeof(err));
  PetscCall(MatSeqAIJRestoreArrayRead(A0, &va));
  PetscCall(MatRestoreRowIJ(A0, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
  PetscCheck(rc == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "Floor kernels: %s", err);
  for (int i = 0; i < nfl; i++) {
    double gbs = csr_bytes / (fl[i].median_ms * 1e-3) / 1e9;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-22s %9.4f %9.4f %9s %8.0f %6.1f   (no row sums: a lower bound)\n", fl[i].name, fl[i].median_ms, fl[i].min_ms, "-", gbs, copy_gbs > 0 ? 100.0 * gbs / copy_gbs : 0.0));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* The matrix of type spec (base type and :variants) converted from the assembled AIJ A0. */
static PetscErrorCode ConvertTo(Mat A0, const char *spec, int variant, Mat *A)
{
  char      base[64], var[256] = "", *colon, *tok, *tnext;
  PetscBool sell;
  PetscFunctionBegin;
  PetscCall(PetscStrncpy(base, spec, sizeof(base)));
  colon = strchr(base, ':');
  if (colon) {
    *colon = 0;
    PetscCall(PetscStrncpy(var, strchr(spec, ':') + 1, sizeof(var)));
  }
  PetscCall(PetscStrcmp(base, MATSELLCUDA, &sell));
  if (sell) { /* through SELL, in place as MatSetType does: no direct aij -> sellcuda converter */
    PetscCall(MatConvert(A0, MATSELL, MAT_INITIAL_MATRIX, A));
    PetscCall(MatConvert(*A, MATSELLCUDA, MAT_INPLACE_MATRIX, A));
  } else PetscCall(MatConvert(A0, base, MAT_INITIAL_MATRIX, A));
  if (!var[0]) PetscFunctionReturn(PETSC_SUCCESS);
  /* variants: :alg1 / :alg2 for aijcusparse, :key=value for -mat_<type>_<key> value */
  char prefix[32];
  PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "bench%d_", variant));
  PetscCall(MatSetOptionsPrefix(*A, prefix));
  for (tok = var; tok && *tok; tok = tnext) {
    char opt[128], *eq = strchr(tok, '=');
    tnext = strchr(tok, ':');
    if (tnext) *tnext++ = 0;
    if (!strcmp(tok, "alg1") || !strcmp(tok, "alg2")) {
      PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%smat_cusparse_spmv_alg", prefix));
      PetscCall(PetscOptionsSetValue(NULL, opt, !strcmp(tok, "alg1") ? "CSRMV_ALG1" : "CSRMV_ALG2"));
    } else {
      PetscCheck(eq, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "Unknown variant '%s': use alg1, alg2 or key=value", tok);
      *eq = 0;
      PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%smat_%s_%s", prefix, base, tok));
      PetscCall(PetscOptionsSetValue(NULL, opt, eq + 1));
    }
  }
  PetscCall(MatSetFromOptions(*A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  char   type[96];
  double median, min, max, first, refresh, err, format_bytes;
  double ksp_first_ms, ksp_ms_per_it; /* first solve (builds included) and per iteration after */
  PetscBool gpu;
} Result;

/* A fixed number of KSP iterations (no convergence test) from x = 0: the first solve includes
   the format build and the PC setup, the second is the steady per-iteration time. */
static PetscErrorCode TimeKSP(Mat A, Vec b, PetscBool spd, PetscInt its, double *first_ms, double *ms_per_it)
{
  KSP            ksp;
  PC             pc;
  Vec            x;
  PetscLogDouble t0, t1, t2;
  PetscFunctionBegin;
  PetscCall(VecDuplicate(b, &x));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, spd ? KSPCG : KSPGMRES));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetTolerances(ksp, 0.0, 0.0, PETSC_CURRENT, its));
  PetscCall(KSPSetConvergenceTest(ksp, KSPConvergedSkip, NULL, NULL));
  PetscCall(KSPSetNormType(ksp, KSP_NORM_NONE));
  PetscCall(VecSet(x, 0.0));
  PetscCall(Now(&t0));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(Now(&t1));
  PetscCall(VecSet(x, 0.0));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(Now(&t2));
  *first_ms  = 1e3 * (t1 - t0);
  *ms_per_it = 1e3 * (t2 - t1) / its;
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char        kind[64] = "powerlaw", spec[PETSC_MAX_PATH_LEN] = "", name[PETSC_MAX_PATH_LEN] = "", cls[16] = "", csv[PETSC_MAX_PATH_LEN] = "";
  char        list[1024] = "aijcusparse:alg1,aijcusparse:alg2,csrspec,sellcuda,aij";
  PetscInt    n = 2000000, reps = 100, reps_host = 10, warmup = 10, ksp_its = 50, M, N, nnz, ntypes = 0;
  Mat         A0;
  Vec         x0, b0, yref = NULL;
  double      copy_gbs = 0, csr_bytes, *t;
  MatInfo     info;
  PetscMPIInt size;
  PetscBool   spd = PETSC_FALSE, has_spec, has_cls, floors = PETSC_TRUE;
  Result      res[32];

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGpuMatInitialize());
  setvbuf(stdout, NULL, _IOLBF, 0); /* each row as soon as it is measured, also into a pipe */
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCheck(size == 1, PETSC_COMM_WORLD, PETSC_ERR_SUP, "The benchmark runs on one rank (one GPU)");
  PetscCall(PetscOptionsGetString(NULL, NULL, "-kind", kind, sizeof(kind), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-matrix", spec, sizeof(spec), &has_spec));
  if (!has_spec) PetscCall(PetscSNPrintf(spec, sizeof(spec), "gen:%s:%" PetscInt_FMT, kind, n));
  PetscCall(PetscStrncpy(name, spec, sizeof(name)));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-name", name, sizeof(name), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-class", cls, sizeof(cls), &has_cls));
#if defined(PETSC_HAVE_KOKKOS_KERNELS)
  PetscCall(PetscStrlcat(list, ",aijkokkos", sizeof(list)));
#endif
  PetscCall(PetscOptionsGetString(NULL, NULL, "-types", list, sizeof(list), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-csv", csv, sizeof(csv), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps_host", &reps_host, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-warmup", &warmup, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-ksp_its", &ksp_its, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-floors", &floors, NULL));
  PetscCheck(reps >= 1 && reps_host >= 1 && warmup >= 0 && ksp_its >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-reps and -reps_host must be >= 1, -warmup and -ksp_its >= 0");
  if (has_cls) {
    PetscCheck(!strcmp(cls, "spd") || !strcmp(cls, "nonsym"), PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-class must be spd or nonsym, not %s", cls);
    spd = !strcmp(cls, "spd") ? PETSC_TRUE : PETSC_FALSE;
  } else {
    char      k[64];
    PetscInt  gn, gseed;
    PetscBool gen;
    PetscCall(BenchParseGenSpec(spec, &gen, k, sizeof(k), &gn, &gseed));
    if (gen) PetscCall(GenIsSPD(k, &spd));
  }
#if defined(PETSC_HAVE_CUDA)
  PetscCall(CopyBandwidth(&copy_gbs));
#endif

  PetscCall(BenchLoadMatrix(PETSC_COMM_WORLD, spec, &A0));
  PetscCall(MatGetSize(A0, &M, &N));
  PetscCall(MatGetInfo(A0, MAT_GLOBAL_SUM, &info));
  nnz       = (PetscInt)info.nz_used;
  csr_bytes = 12.0 * nnz + 4.0 * (M + 1) + 8.0 * N + 8.0 * M;
  if (M != N) ksp_its = 0;
  PetscCall(MatCreateVecs(A0, &x0, &b0));
  {
    PetscRandom rnd;
    PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
    PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
    PetscCall(PetscRandomSetSeed(rnd, 7));
    PetscCall(PetscRandomSeed(rnd));
    PetscCall(VecSetRandom(x0, rnd)); /* never zeros: they hide unwritten outputs */
    PetscCall(VecSetRandom(b0, rnd));
    PetscCall(PetscRandomDestroy(&rnd));
  }
  PetscCall(PetscMalloc1(reps, &t));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "matrix %s (%s): %" PetscInt_FMT " x %" PetscInt_FMT ", %" PetscInt_FMT " nonzeros (%.1f per row), CSR %.1f MB, KSP %s\n", name, spec, M, N, nnz, (double)nnz / M, 1e-6 * (12.0 * nnz + 4.0 * (M + 1)),
                        ksp_its ? (spd ? "CG+Jacobi" : "GMRES+Jacobi") : "none"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "device copy bandwidth (read+write): %.0f GB/s\n", copy_gbs));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-22s %9s %9s %9s %8s %6s %9s %8s %9s %8s %9s %9s %9s %8s %9s\n", "type", "median ms", "min ms", "max ms", "CSR GB/s", "%copy", "fmt GB/s", "fmt MB", "build ms", "build/mv", "refresh", "max relerr", "ksp ms/it", "ksp ms", "breakeven"));

#if defined(PETSC_HAVE_CUDA)
  if (floors) PetscCall(PrintFloors(A0, reps, (int)warmup, csr_bytes, copy_gbs));
#else
  (void)floors;
#endif

  char *type = list, *next;
  for (; type && *type && ntypes < 32; type = next) {
    Result *r = &res[ntypes];
    Mat     A;
    Vec     x, y;
    PetscBool ours;
    size_t    dev_bytes;
    next = strchr(type, ',');
    if (next) *next++ = 0;
    PetscCall(PetscMemzero(r, sizeof(*r)));
    PetscCall(PetscStrncpy(r->type, type, sizeof(r->type)));
    PetscCall(ConvertTo(A0, type, (int)ntypes, &A));
    PetscCall(MatCreateVecs(A, &x, &y));
    PetscCall(VecCopy(x0, x));
    PetscCall(PetscObjectTypeCompareAny((PetscObject)x, &r->gpu, VECSEQCUDA, VECMPICUDA, ""));
    { /* first product: builds the format (and copies to the GPU) */
      PetscLogDouble t0, t1;
      PetscCall(Now(&t0));
      PetscCall(MatMult(A, x, y));
      PetscCall(Now(&t1));
      r->first = 1e3 * (t1 - t0);
    }
    const PetscInt nrep = r->gpu ? reps : PetscMin(reps, reps_host);
    for (PetscInt i = 0; i < (r->gpu ? warmup : PetscMin(warmup, 1)); i++) PetscCall(MatMult(A, x, y));
    for (PetscInt i = 0; i < nrep; i++) PetscCall(TimedMult(A, x, y, r->gpu, &t[i]));
    qsort(t, (size_t)nrep, sizeof(double), CmpDouble);
    r->median = t[nrep / 2];
    r->min    = t[0];
    r->max    = t[nrep - 1];
    /* agreement with the first type's product, through host arrays */
    if (!yref) {
      PetscCall(VecDuplicate(y, &yref));
      PetscCall(VecCopy(y, yref));
    } else {
      PetscReal e;
      PetscCall(GenRelDiff(y, yref, &e));
      r->err = e;
    }
    { /* value refresh: every value rewritten on the host, then a product (a Newton step's
         re-assembly): for the AIJ family the host value array taken for writing and given back;
         for other types (sellcuda) one MatSetValue and an assembly */
      PetscLogDouble t0, t1;
      PetscBool      aijfamily;
      PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQAIJ, &aijfamily));
      PetscCall(Now(&t0));
      if (aijfamily) {
        PetscScalar *v;
        PetscCall(MatSeqAIJGetArrayWrite(A, &v)); /* the values are now the host's */
        PetscCall(MatSeqAIJRestoreArrayWrite(A, &v));
      } else {
        const PetscInt *cols;
        PetscInt        ncols, row = M / 2;
        PetscCall(MatGetRow(A0, row, &ncols, &cols, NULL));
        if (ncols) PetscCall(MatSetValue(A, row, cols[0], 0.0, ADD_VALUES));
        PetscCall(MatRestoreRow(A0, row, &ncols, &cols, NULL));
        PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
        PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
      }
      PetscCall(MatMult(A, x, y));
      PetscCall(Now(&t1));
      r->refresh = 1e3 * (t1 - t0) - r->median;
    }
    PetscCall(MatGpuMatGetDeviceBytes(A, &ours, &dev_bytes));
    if (ours) r->format_bytes = (double)dev_bytes;
    else if (!strncmp(type, "aijcusparse", 11)) r->format_bytes = 12.0 * nnz + 4.0 * (M + 1);
    else {
      MatInfo ai;
      PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &ai));
      r->format_bytes = 12.0 * ai.nz_allocated + 4.0 * M;
    }
    if (ksp_its && r->gpu) { /* host types: minutes per solve on the suite's sizes, left out */
      Vec b;
      PetscCall(MatDestroy(&A)); /* a fresh copy: the first solve includes the build */
      PetscCall(ConvertTo(A0, type, (int)ntypes, &A));
      PetscCall(MatCreateVecs(A, NULL, &b));
      PetscCall(VecCopy(b0, b));
      PetscCall(TimeKSP(A, b, spd, ksp_its, &r->ksp_first_ms, &r->ksp_ms_per_it));
      PetscCall(VecDestroy(&b));
    }
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
    PetscCall(MatDestroy(&A));
    ntypes++;
  }

  /* the table and the CSV, with break-even iterations against the best aijcusparse */
  PetscInt best = -1;
  for (PetscInt i = 0; i < ntypes; i++)
    if (!strncmp(res[i].type, "aijcusparse", 11) && ksp_its && (best < 0 || res[i].ksp_ms_per_it < res[best].ksp_ms_per_it)) best = i;
  FILE *f = NULL;
  if (csv[0]) {
    PetscBool exists;
    PetscCall(PetscTestFile(csv, 'r', &exists));
    PetscCall(PetscFOpen(PETSC_COMM_WORLD, csv, "a", &f));
    if (!exists) PetscCall(PetscFPrintf(PETSC_COMM_WORLD, f, "matrix,type,rows,cols,nnz,median_ms,min_ms,max_ms,gbs_csr,gbs_format,copy_gbs,format_bytes,build_ms,build_mults,refresh_ms,refresh_mults,max_rel_err,ksp_its,ksp_ms_per_it,ksp_total_ms,breakeven_its\n"));
  }
  for (PetscInt i = 0; i < ntypes; i++) {
    Result *r        = &res[i];
    double  gbs      = csr_bytes / (r->median * 1e-3) / 1e9;
    double  fmt_gbs  = (r->format_bytes + 8.0 * (M + N)) / (r->median * 1e-3) / 1e9;
    double  build    = r->first - r->median;
    double  ksp_build = r->ksp_first_ms - ksp_its * r->ksp_ms_per_it; /* first solve beyond its iterations */
    char    be[32]   = "-";
    if (best >= 0 && i != best && r->ksp_ms_per_it > 0) { /* k with build_i + k it_i <= build_best + k it_best */
      double bb = res[best].ksp_first_ms - ksp_its * res[best].ksp_ms_per_it, d = res[best].ksp_ms_per_it - r->ksp_ms_per_it;
      if (ksp_build <= bb && d >= 0) PetscCall(PetscStrncpy(be, "0", sizeof(be)));
      else if (d > 0) PetscCall(PetscSNPrintf(be, sizeof(be), "%.0f", PetscCeilReal((ksp_build - bb) / d)));
      else PetscCall(PetscStrncpy(be, "never", sizeof(be)));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-22s %9.4f %9.4f %9.4f %8.0f %6.1f %9.0f %8.1f %9.2f %8.1f %9.2f %9.2e %9.4f %8.2f %9s\n", r->type, r->median, r->min, r->max, gbs, copy_gbs > 0 ? 100.0 * gbs / copy_gbs : 0.0, fmt_gbs, 1e-6 * r->format_bytes, build, build / r->median,
                          r->refresh, r->err, r->ksp_ms_per_it, r->ksp_first_ms, be));
    if (f) PetscCall(PetscFPrintf(PETSC_COMM_WORLD, f, "%s,%s,%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ",%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.3g,%" PetscInt_FMT ",%.6g,%.6g,%s\n", name, r->type, M, N, nnz, r->median, r->min, r->max, gbs, fmt_gbs, copy_gbs, r->format_bytes, build,
                                 build / r->median, r->refresh, r->refresh / r->median, r->err, r->ksp_ms_per_it > 0 ? ksp_its : 0, r->ksp_ms_per_it > 0 ? r->ksp_ms_per_it : NAN, r->ksp_ms_per_it > 0 ? r->ksp_first_ms : NAN,
                                 strcmp(be, "never") ? be : "inf"));
  }
  if (f) PetscCall(PetscFClose(PETSC_COMM_WORLD, f));
  PetscCall(PetscFree(t));
  PetscCall(VecDestroy(&yref));
  PetscCall(VecDestroy(&x0));
  PetscCall(VecDestroy(&b0));
  PetscCall(MatDestroy(&A0));
  PetscCall(PetscFinalize());
  return 0;
}
