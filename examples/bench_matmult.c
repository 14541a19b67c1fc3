static char help[] = "MatMult benchmark: one generated matrix, every type in one process on one GPU.\n"
                     "  -kind <powerlaw>   lap2d, lap3d, lap3d27, powerlaw, uniform (examples/gen.h)\n"
                     "  -n <2000000>       grid points per dimension (stencils) or rows\n"
                     "  -types <list>      default: aij,aijcusparse:alg1,aijcusparse:alg2,csrspec,sellcuda\n"
                     "                     (aijcusparse:algN sets -mat_cusparse_spmv_alg CSRMV_ALGN;\n"
                     "                      csrspec:w=4:warps=16 sets -mat_csrspec_w 4 -mat_csrspec_warps 16)\n"
                     "  -reps <100>        timed products per type (median, min, max reported)\n"
                     "  -warmup <10>       untimed products before timing\n"
                     "  -reps_host <10>    timed products for host (CPU) types, which are 100x slower\n"
                     "Byte model (CSR minimal, fp64 value + 32-bit index): 12 B/nnz + 4 B/row pointer + x once + y once.\n"
                     "GPU products are timed with CUDA events on PETSc's stream; host products with PetscTime.\n";

#include <petscmat.h>
#include <petscgpumat.h>
#include "gen.h"
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice_cuda.h>
#endif

static int CmpDouble(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
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

static PetscErrorCode Sync(void)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  PetscCallCUDA(cudaDeviceSynchronize());
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char        kind[64] = "powerlaw", list[512] = "aij,aijcusparse:alg1,aijcusparse:alg2,csrspec,sellcuda";
  PetscInt    n = 2000000, reps = 100, reps_host = 10, warmup = 10, M, N, nnz;
  Mat         A0;
  Vec         x0, yref = NULL;
  double      copy_gbs = 0, csr_bytes, *t;
  MatInfo     info;
  PetscMPIInt size;
  int         variant = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGpuMatInitialize());
  setvbuf(stdout, NULL, _IOLBF, 0); /* each row as soon as it is measured, also into a pipe */
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCheck(size == 1, PETSC_COMM_WORLD, PETSC_ERR_SUP, "The benchmark runs on one rank (one GPU)");
  PetscCall(PetscOptionsGetString(NULL, NULL, "-kind", kind, sizeof(kind), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-types", list, sizeof(list), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-warmup", &warmup, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps_host", &reps_host, NULL));
  PetscCheck(reps >= 1 && reps_host >= 1 && warmup >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-reps must be >= 1 and -warmup >= 0");
#if defined(PETSC_HAVE_CUDA)
  PetscCall(CopyBandwidth(&copy_gbs));
#endif

  PetscCall(GenCreate(PETSC_COMM_WORLD, kind, n, 1, MATAIJ, &A0));
  PetscCall(MatGetSize(A0, &M, &N));
  PetscCall(MatGetInfo(A0, MAT_GLOBAL_SUM, &info));
  nnz       = (PetscInt)info.nz_used;
  csr_bytes = 12.0 * nnz + 4.0 * (M + 1) + 8.0 * N + 8.0 * M;
  PetscCall(MatCreateVecs(A0, &x0, NULL));
  {
    PetscRandom rnd;
    PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
    PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
    PetscCall(PetscRandomSetSeed(rnd, 7));
    PetscCall(PetscRandomSeed(rnd));
    PetscCall(VecSetRandom(x0, rnd)); /* never zeros: they hide unwritten outputs */
    PetscCall(PetscRandomDestroy(&rnd));
  }
  PetscCall(PetscMalloc1(reps, &t));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "matrix %s n=%" PetscInt_FMT ": %" PetscInt_FMT " x %" PetscInt_FMT ", %" PetscInt_FMT " nonzeros (%.1f per row), CSR %.1f MB\n", kind, n, M, N, nnz, (double)nnz / M, 1e-6 * (12.0 * nnz + 4.0 * (M + 1))));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "device copy bandwidth (read+write): %.0f GB/s\n", copy_gbs));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-20s %10s %10s %10s %9s %6s %10s %10s %10s %11s\n", "type", "median ms", "min ms", "max ms", "CSR GB/s", "%copy", "fmt MB", "build ms", "build/mult", "max rel err"));

  char *type = list, *next;
  for (; type && *type; type = next) {
    Mat       A;
    Vec       x, y;
    char      base[64], *colon;
    PetscBool gpu, ours;
    size_t    dev_bytes;
    double    first, med, err = 0;
    next = strchr(type, ',');
    if (next) *next++ = 0;
    PetscCall(PetscStrncpy(base, type, sizeof(base)));
    colon = strchr(base, ':');
    if (colon) *colon = 0;
    if (colon) colon = strchr(type, ':'); /* the variant part, in the original (unmodified) string */
    {
      PetscBool sell;
      PetscCall(PetscStrcmp(base, MATSELLCUDA, &sell));
      if (sell) { /* through SELL, in place as MatSetType does: no direct aij -> sellcuda converter */
        PetscCall(MatConvert(A0, MATSELL, MAT_INITIAL_MATRIX, &A));
        PetscCall(MatConvert(A, MATSELLCUDA, MAT_INPLACE_MATRIX, &A));
      } else PetscCall(MatConvert(A0, base, MAT_INITIAL_MATRIX, &A));
    }
    if (colon) { /* variants: :alg1 / :alg2 for aijcusparse, :key=value for -mat_<type>_<key> value */
      char prefix[32], var[256], *tok = var, *tnext;
      PetscCall(PetscStrncpy(var, colon + 1, sizeof(var))); /* tokenized below; the row keeps the name */
      PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "bench%d_", variant++));
      PetscCall(MatSetOptionsPrefix(A, prefix));
      for (; tok && *tok; tok = tnext) {
        char opt[128], *eq;
        tnext = strchr(tok, ':');
        if (tnext) *tnext++ = 0;
        eq = strchr(tok, '=');
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
      PetscCall(MatSetFromOptions(A));
    }
    PetscCall(MatCreateVecs(A, &x, &y));
    PetscCall(VecCopy(x0, x));
    PetscCall(PetscObjectTypeCompareAny((PetscObject)x, &gpu, VECSEQCUDA, VECMPICUDA, ""));
    /* first product: builds the format (and copies to the GPU) */
    PetscCall(Sync());
    {
      PetscLogDouble t0, t1;
      PetscCall(PetscTime(&t0));
      PetscCall(MatMult(A, x, y));
      PetscCall(Sync());
      PetscCall(PetscTime(&t1));
      first = 1e3 * (t1 - t0);
    }
    const PetscInt nrep = gpu ? reps : PetscMin(reps, reps_host);
    for (PetscInt i = 0; i < (gpu ? warmup : PetscMin(warmup, 1)); i++) PetscCall(MatMult(A, x, y));
    for (PetscInt i = 0; i < nrep; i++) PetscCall(TimedMult(A, x, y, gpu, &t[i]));
    qsort(t, (size_t)nrep, sizeof(double), CmpDouble);
    med = t[nrep / 2];
    /* agreement with the first type (the reference) */
    if (!yref) {
      PetscCall(VecDuplicate(y, &yref));
      PetscCall(VecCopy(y, yref));
    } else {
      PetscReal e;
      PetscCall(GenRelDiff(y, yref, &e));
      err = e;
    }
    PetscCall(MatGpuMatGetDeviceBytes(A, &ours, &dev_bytes));
    {
      char fmt_mb[32] = "-";
      if (ours) PetscCall(PetscSNPrintf(fmt_mb, sizeof(fmt_mb), "%.1f", 1e-6 * dev_bytes));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-20s %10.4f %10.4f %10.4f %9.0f %6.1f %10s %10.2f %10.1f %11.2e\n", type, med, t[0], t[nrep - 1], csr_bytes / (med * 1e-3) / 1e9, copy_gbs > 0 ? 100.0 * csr_bytes / (med * 1e-3) / 1e9 / copy_gbs : 0.0, fmt_mb, first - med, (first - med) / med, err));
    }
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
    PetscCall(MatDestroy(&A));
  }
  PetscCall(PetscFree(t));
  PetscCall(VecDestroy(&yref));
  PetscCall(VecDestroy(&x0));
  PetscCall(MatDestroy(&A0));
  PetscCall(PetscFinalize());
  return 0;
}
