static char help[] = "MatMult and KSP benchmark: one matrix, every type, on one or P ranks (one GPU shared).\n"
                     "  -matrix <spec>     gen:<kind>:<n>[:<seed>], a .mtx/.mtx.gz or PETSc binary file (bench/mmio.h)\n"
                     "  -kind <powerlaw> -n <2000000>   the same as -matrix gen:<kind>:<n>\n"
                     "  -name <text>       the matrix's name in the table and the CSV (default: the spec)\n"
                     "  -class <spd|nonsym> the KSP: CG+Jacobi (spd) or GMRES+Jacobi (default: spd for stencils\n"
                     "                     and FEM kinds, nonsym otherwise); rectangular matrices skip the KSP\n"
                     "  -types <list>      default with a CUDA PETSc: aijcusparse:alg1,aijcusparse:alg2,cusparsesell,cusparsebsr,\n"
                     "                     sellcuda,csrspec,bccoo,pjds,bce,gpuauto,aij (and aijkokkos with a Kokkos PETSc); with a\n"
                     "                     CPU PETSc: aij,csrspec,bccoo,pjds,bce,gpuauto; gpuauto's row says what it chose\n"
                     "                     (the CSV's stored_as: the format storing each type's diagonal block)\n"
                     "                     max relerr is against the first type\n"
                     "                     aijcusparse:algN sets -mat_cusparse_spmv_alg CSRMV_ALGN;\n"
                     "                     csrspec:w=4:warps=16 sets -mat_csrspec_w 4 -mat_csrspec_warps 16;\n"
                     "                     bccoo:tune=1 sets -mat_bccoo_tune: the tuner's report (MatView lines\n"
                     "                     'tuner ...': candidates, cost, the winner's and the model's time per\n"
                     "                     product) follows the type's row; its build cost includes the search\n"
                     "                     a type that cannot be made from the AIJ matrix, or whose first product\n"
                     "                     fails (its format refuses the matrix), is reported and skipped\n"
                     "  -reps <100>        timed products per GPU type (median, min, max reported)\n"
                     "  -reps_host <10>    timed products for host (CPU) types, which are 100x slower\n"
                     "  -warmup <10>       untimed products before timing\n"
                     "  -ksp_its <50>      fixed iteration count of the KSP measurement, GPU types (0: no KSP)\n"
                     "  -ksp_host <0>      also time the KSP for host types\n"
                     "  -layout <rows|nnz> P > 1: PETSc's default row distribution (rows), or contiguous row ranges\n"
                     "                     of about equal nonzeros (nnz; square matrices: the same column ranges)\n"
                     "  -csv <file>        append one row per type (bench/plot.py reads it)\n"
                     "  -coo <0>           also time a device COO assembly per GPU type of the AIJ family (ours, aijcusparse):\n"
                     "                     the type preallocated by MatSetPreallocationCOO with every local nonzero of the\n"
                     "                     matrix once, then MatSetValuesCOO with the values in a CUDA vector's array\n"
                     "                     (INSERT_VALUES) followed by a product, minus a steady product: the median of\n"
                     "                     -reps_coo (default 20) such assemblies (the first, which uploads the maps and\n"
                     "                     builds, not counted), each synchronized, the maximum over the ranks; one line\n"
                     "                     'coo <type>' per type after the table\n"
                     "  -dense <0>         k > 0: also time C = A B (and C = A^T B) with B dense of A's vector type, k columns (MatMatMult's\n"
                     "                     numeric phase, MAT_REUSE_MATRIX, each synchronized, the maximum over the ranks;\n"
                     "                     median of -reps_coo) per GPU type of the AIJ family, after a first product; one line\n"
                     "                     'dense <type>' per type after the table, its time also per column and in steady\n"
                     "                     MatMults (k products one column at a time: PETSc's basic loop)\n"
                     "  -coo_csv <file>    with -coo: append its rows to this CSV (matrix,type,ranks,layout,nnz,entries,\n"
                     "                     coo_ms,coo_min_ms,coo_max_ms,coo_mults,median_ms), apart from -csv's\n"
                     "  -view_types <0>    after each type's first product, its MatView (ascii info: a format's\n"
                     "                     parameters, bytes and, for bccoo, the time of each build phase), then the\n"
                     "                     diagonal block's properties as 'gpumat-property <type> <key> <value>' lines\n"
                     "  -floors <1>        also time the floors of bench/floors.cu (GPU builds, one rank): the CSR\n"
                     "                     bytes streamed (floor:stream) and with x gathered in CSR order (floor:gather*);\n"
                     "                     bccoo's arrays streamed (floor:bccoo-stream) and read as its product reads\n"
                     "                     them, one thread per thread tile, the 16-bit column differences decompressed\n"
                     "                     in sequence and x gathered through L1 (floor:bccoo-gather), their parameters\n"
                     "                     and bytes on their rows; a bccoo type's row adds its speed in percent of these\n"
                     "                     two floors (100: at the floor; the floors' parameters are -floor_bccoo's, not\n"
                     "                     necessarily the type's); pjds's default layout streamed (floor:pjds-stream)\n"
                     "                     and read as its product reads it, x gathered, no row order (floor:pjds-gather),\n"
                     "                     its parameters and bytes on their rows; a pjds type's row adds its speed in\n"
                     "                     percent of these two floors; bce's likewise (floor:bce-stream, floor:bce-gather);\n"
                     "                     floor:pjds-gather-perm and floor:bce-gather-perm also store y at the rows' places\n"
                     "  -floor_bccoo <h,w,slices,tile,group,compress>  the bccoo of the bccoo floors (default: model, the\n"
                     "                     parameters the bccoo type chooses by default, bccoo_model); h,w,...: these\n"
                     "                     (0 or a field left out: the byte model's first shape, 1 slice, tile 16,\n"
                     "                     group 256, 16-bit columns; -floor_bccoo 3,1 or 0,0,4); model,h,w,...: the\n"
                     "                     type's choice with these fields fixed, as -mat_bccoo_* options do;\n"
"                     off: no bccoo floors\n"
                     "  -ablation          also the yaSpMV paper's Figure-14 ablation of the bccoo product (GPU builds,\n"
                     "                     one rank; bench/ablation_bccoo.cu): (a) COO with a tree-based segmented sum\n"
                     "                     and a carry kernel, (b) bccoo with the same sum, (c) bccoo with its per-thread\n"
                     "                     tile sums and group scan and a carry kernel, (d) + adjacent synchronization,\n"
                     "                     (e) + 16-bit columns and the no_scan skip = the production product, and\n"
                     "                     strategy 1 (no result cache); the model's parameters; each step's median, its\n"
                     "                     own bytes' GB/s, speedup over (a), and its y against the production y (an\n"
                     "                     error above 1e-12)\n"
                     "  -bccoo_grid        also bccoo's parameter landscape (GPU builds, one rank; bench/grid_bccoo.cu):\n"
                     "                     up to 82 parameter sets (compression x tile x group at the model's block shape,\n"
                     "                     then slices, then the four smallest block shapes), each built from one upload\n"
                     "                     and timed as -mat_bccoo_tune times its candidates (-warmup, median of -reps);\n"
                     "                     one 'grid' line per set, the model's choice marked\n"
                     "  -footprint         also the matrix data's bytes in CSR, COO, ELL, bccoo (the yaSpMV paper's Table 3),\n"
                     "                     ELLPACK-R and pJDS (Kreutzer et al.'s Table 1, with the pjds model's parameters)\n"
                     "                     and their ratios to CSR; any build, one rank; bccoo with -floor_bccoo's\n"
                     "                     parameters and with 32-bit columns; built on the host; then the pattern's\n"
                     "                     features (row lengths, padding, block fill, x sectors per 32 entries), and the\n"
                     "                     bytes of compressed indices and values (src/core/compress_model.hpp)\n"
                     "Byte models (fp64 value + 32-bit index): CSR minimal = 12 B/nnz + 4 B/row pointer + x once\n"
                     "+ y once; format = the type's device bytes + x + y (ours: measured; aijcusparse: CSR;\n"
                     "other peers: 12 B per allocated entry + 4 B per row; the bccoo floors: every array the\n"
                     "bccoo product reads, padding included, + x + y). GPU times: CUDA events on PETSc's\n"
                     "stream; host times: PetscTime. Build cost = first product after assembly minus a steady\n"
                     "one, the median of -reps_build (default 3) conversions of the assembled AIJ each timed\n"
                     "at its first product (the first in a process pays CUDA's lazy module loading); refresh cost = (all values rewritten on the host + product) minus a steady product,\n"
                     "the median of -reps_refresh (default 5) such refreshes\n"
                     "('<noise' in the table, nan in the CSV, when within the spread of the steady products):\n"
                     "MatSeqAIJGetArrayWrite/Restore for the AIJ family (both blocks on each rank), one MatSetValue\n"
                     "(by the row's owner) + assembly otherwise.\n"
                     "P ranks (mpiexec -n P --bind-to none; with a CUDA PETSc and an MPI that is not GPU-aware add\n"
                     "-use_gpu_aware_mpi 0): a rep is a barrier, then the timed product; its time is the maximum\n"
                     "over the ranks, and median/min/max are over the reps (one rank: no barrier, as before).\n"
                     "Printed per matrix: nonzeros per rank (min, max), the off-diagonal share (nonzeros in the\n"
                     "off-diagonal blocks / all) and the ghosts (columns of the off-diagonal block, max over ranks);\n"
                     "per MPIAIJ-based type, the split of a product timed the same way: the diagonal block\n"
                     "(MatMult(Ad)), the off-diagonal block (MatMultAdd(Ao) on the ghosts) and the forward scatter\n"
                     "of x into the ghosts, and each rank's own median of its diagonal block (a line 'split <type>:\n"
                     "diagonal block by rank'). The floors and the copy bandwidth are measured by rank 0 alone.\n"
                     "  -split_alone       the split's block products timed one rank at a time, the others waiting\n"
                     "                     at a barrier (default: where two ranks share a device, whose contexts\n"
                     "                     take turns on it, so one rank's CUDA events would count the other's\n"
                     "                     kernels); the scatter, whose messages need every rank, at once\n"
                     "  -gpu_aware_halo    P ranks, CUDA PETSc: every scatter made afterwards hands device buffers to\n"
                     "                     MPI (PETSc's use_gpu_aware_mpi set after its start-up check, which\n"
                     "                     -use_gpu_aware_mpi 0 skipped), aijcusparse's halo as ours: for an MPI that moves\n"
                     "                     device buffers in point-to-point messages but fails that check (a reduction\n"
                     "                     on device memory), such as the cudampich configuration's MPICH on UCX with\n"
                     "                     MPIR_CVAR_NOLOCAL=1; the types are then compared on the same path\n";

#include <petscksp.h>
#include <petscsf.h> /* PetscSFGetGraph: the split's scatter is MPIAIJ's */
#include <petsc/private/petscimpl.h> /* use_gpu_aware_mpi (-gpu_aware_halo) */
#include <petscgpumat.h>
#include "gen.h"
#include "mmio.h"
#include "floors.h" /* -floor_bccoo is checked in every build; the floor kernels need a CUDA PETSc */
#include "ablation.h" /* -footprint in every build; -ablation needs a CUDA PETSc */
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice_cuda.h>
#endif
#include <string.h> /* memcpy */
#include <unistd.h> /* mkstemp's file: close */

static PetscMPIInt nranks = 1, myrank = 0; /* of PETSC_COMM_WORLD */
/* -split_alone: the split's block products timed one rank at a time (default: where ranks share a
   device, whose contexts time-slice, so one rank's events would count another's kernels) */
static PetscBool split_alone = PETSC_FALSE;

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

/* The start of a timed region: the device idle and, on P ranks, every rank past a barrier. */
static PetscErrorCode NowAll(PetscLogDouble *t)
{
  PetscFunctionBegin;
  PetscCall(Sync());
  if (nranks > 1) PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscCall(PetscTime(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The maximum over the ranks of n values, in place (one rank: nothing to do). */
static PetscErrorCode MaxOverRanks(double *v, PetscInt n)
{
  PetscMPIInt cnt;
  PetscFunctionBegin;
  if (nranks == 1 || n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMPIIntCast(n, &cnt));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, v, cnt, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
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

/* The ranks, the visible devices and PETSc's device of each rank (rank % visible devices), one
   line; split_alone's default: whether two ranks share a device. */
static PetscErrorCode PrintDevices(void)
{
  int  ndev = 0, dev = -1, *devs = NULL;
  char line[1024] = "";
  PetscFunctionBegin;
  PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA)); /* PETSc selects this rank's device */
  PetscCallCUDA(cudaGetDeviceCount(&ndev));
  PetscCallCUDA(cudaGetDevice(&dev));
  if (myrank == 0) PetscCall(PetscMalloc1(nranks, &devs));
  PetscCallMPI(MPI_Gather(&dev, 1, MPI_INT, devs, 1, MPI_INT, 0, PETSC_COMM_WORLD));
  for (PetscMPIInt r = 0; myrank == 0 && r < nranks; r++) {
    char item[16];
    for (PetscMPIInt q = 0; q < r; q++) split_alone = (PetscBool)(split_alone || devs[q] == devs[r]);
    PetscCall(PetscSNPrintf(item, sizeof(item), "%s%d", r ? " " : "", devs[r]));
    PetscCall(PetscStrlcat(line, item, sizeof(line)));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ranks %d, visible devices %d, device of each rank: %s\n", nranks, ndev, line));
  PetscCall(PetscFree(devs));
  PetscCallMPI(MPI_Bcast(&split_alone, 1, MPIU_BOOL, 0, PETSC_COMM_WORLD));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* The timed operations: the product, and for MPIAIJ-based matrices on P ranks its parts. */
typedef enum {
  OP_MULT,    /* y = A x */
  OP_DIAG,    /* yl = Ad xl: the diagonal block */
  OP_OFFD,    /* yl += Ao ghosts: the off-diagonal block */
  OP_SCATTER, /* ghosts = x[garray]: the forward scatter */
} BenchOp;

typedef struct {
  Mat        A, Ad, Ao;
  Vec        x, y, xl, yl, gh;
  VecScatter sct;
} BenchOps;

static PetscErrorCode RunOp(const BenchOps *o, BenchOp op)
{
  PetscFunctionBegin;
  switch (op) {
  case OP_MULT:
    PetscCall(MatMult(o->A, o->x, o->y));
    break;
  case OP_DIAG:
    PetscCall(MatMult(o->Ad, o->xl, o->yl));
    break;
  case OP_OFFD:
    PetscCall(MatMultAdd(o->Ao, o->gh, o->yl, o->yl));
    break;
  case OP_SCATTER:
    PetscCall(VecScatterBegin(o->sct, o->x, o->gh, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(o->sct, o->x, o->gh, INSERT_VALUES, SCATTER_FORWARD));
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One operation, timed: CUDA events on PETSc's stream for device matrices, the host clock
   otherwise. On P ranks (collective) every rank waits for its device and at a barrier first;
   alone, this rank waits for its device only. */
static PetscErrorCode TimedOp(const BenchOps *o, BenchOp op, PetscBool gpu, PetscBool collective, double *ms)
{
  PetscFunctionBegin;
  if (!collective) PetscCall(Sync());
  else if (nranks > 1) {
    PetscCall(Sync());
    PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  }
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
    PetscCall(RunOp(o, op));
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
    PetscCall(RunOp(o, op));
    PetscCall(PetscTime(&t1));
    *ms = 1e3 * (t1 - t0);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define MAX_SPLIT_RANKS 64

/* nwarm untimed operations, then nrep timed ones (t: room for nrep); on P ranks a rep's time is
   the maximum over the ranks. Median, min and max over the reps; own (if not NULL): this rank's
   own median, before the maximum over the ranks. Alone (an operation of this rank's own, no
   messages): the ranks take turns, each timing its reps while the others wait at a barrier. */
static PetscErrorCode TimeReps(const BenchOps *o, BenchOp op, PetscBool gpu, PetscBool alone, PetscInt nwarm, PetscInt nrep, double *t, double *median, double *min, double *max, double *own)
{
  PetscFunctionBegin;
  for (PetscMPIInt turn = 0; turn < (alone ? nranks : 1); turn++) {
    if (!alone || turn == myrank) {
      for (PetscInt i = 0; i < nwarm; i++) PetscCall(RunOp(o, op));
      for (PetscInt i = 0; i < nrep; i++) PetscCall(TimedOp(o, op, gpu, (PetscBool)!alone, &t[i]));
    }
    if (alone && nranks > 1) PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  }
  if (own) {
    double *c;
    PetscCall(PetscMalloc1(nrep, &c));
    PetscCall(PetscArraycpy(c, t, nrep));
    qsort(c, (size_t)nrep, sizeof(double), CmpDouble);
    *own = c[nrep / 2];
    PetscCall(PetscFree(c));
  }
  PetscCall(MaxOverRanks(t, nrep));
  qsort(t, (size_t)nrep, sizeof(double), CmpDouble);
  *median = t[nrep / 2];
  if (min) *min = t[0];
  if (max) *max = t[nrep - 1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The parts of a product by the MPIAIJ-based o->A: its blocks, local vectors of the blocks' vector
   types (CUDA for GPU types), and the forward scatter of o->x into a sequential ghost vector
   (garray's order): MPIAIJ's own scatter (MatGetMultPetscSF, set up at assembly), which
   aijcusparse's products use and ours where they do not send their own messages (the side stream:
   src/petsc/mpiaij.cxx). xl holds x's local values, the ghosts x's ghosts. */
static PetscErrorCode SplitCreate(BenchOps *o)
{
  const PetscScalar *xa;
  PetscScalar       *la;
  PetscInt           nghost, nleaves, n;
  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(o->A, &o->Ad, &o->Ao, NULL));
  PetscCall(MatCreateVecs(o->Ad, &o->xl, &o->yl));
  PetscCall(MatCreateVecs(o->Ao, &o->gh, NULL));
  PetscCall(VecGetLocalSize(o->gh, &nghost));
  PetscCall(MatGetMultPetscSF(o->A, &o->sct));
  PetscCall(PetscSFGetGraph(o->sct, NULL, &nleaves, NULL, NULL));
  PetscCheck(nleaves == nghost, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MPIAIJ's scatter has %" PetscInt_FMT " leaves for %" PetscInt_FMT " ghosts", nleaves, nghost);
  PetscCall(PetscObjectReference((PetscObject)o->sct)); /* SplitDestroy's VecScatterDestroy drops it */
  PetscCall(VecGetLocalSize(o->xl, &n)); /* x's local values, through host arrays */
  PetscCall(VecGetArrayRead(o->x, &xa));
  PetscCall(VecGetArrayWrite(o->xl, &la));
  PetscCall(PetscArraycpy(la, xa, n));
  PetscCall(VecRestoreArrayWrite(o->xl, &la));
  PetscCall(VecRestoreArrayRead(o->x, &xa));
  PetscCall(VecSet(o->yl, 0.0));
  PetscCall(RunOp(o, OP_SCATTER));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SplitDestroy(BenchOps *o)
{
  PetscFunctionBegin;
  PetscCall(VecScatterDestroy(&o->sct));
  PetscCall(VecDestroy(&o->xl));
  PetscCall(VecDestroy(&o->yl));
  PetscCall(VecDestroy(&o->gh));
  o->Ad = o->Ao = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
/* The floors of bench/floors.cu for the assembled AIJ A0 (32-bit PetscInt only), one line each;
   with bccoo != NULL also the bccoo floors (their medians into bccoo_ms: stream, gather), and the pjds and bce floors (pjds_ms,
   bce_ms). */
static PetscErrorCode PrintFloors(Mat A0, PetscInt reps, int warmup, double csr_bytes, double copy_gbs, const BenchBccooParams *bccoo, double *bccoo_ms, double *pjds_ms, double *bce_ms)
{
  const PetscInt    *ia, *ja;
  const PetscScalar *va;
  PetscInt           m, N;
  PetscBool          done;
  BenchFloor         fl[8], fb[2], fp[32], fe[3];
  BenchBccooInfo     info;
  BenchPjdsInfo      pinfo;
  BenchBceInfo       einfo;
  int                nfl = 0, nfb = 0, nfp = 0, nfe = 0, rc, rcb = 0, rcp = 0, rce = 0;
  char               err[256] = "", errb[256] = "", errp[256] = "", erre[256] = "", desc[512];
  double             nnz_all = 0;
  long long          nrows_all = 0;
  PetscFunctionBegin;
  if (sizeof(PetscInt) != sizeof(int) || sizeof(PetscScalar) != sizeof(double)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGetSize(A0, NULL, &N));
  PetscCall(MatGetRowIJ(A0, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatGetRowIJ failed for the floors");
  PetscCall(MatSeqAIJGetArrayRead(A0, &va));
  rc = BenchFloors((int)m, (int)N, (long long)ia[m], (const int *)ia, (const int *)ja, (const double *)va, (int)reps, warmup, fl, (int)PETSC_STATIC_ARRAY_LENGTH(fl), &nfl, err, (int)sizeof(err));
  if (rc == 0 && bccoo) rcb = BenchFloorsBccoo((int)m, (int)N, (long long)ia[m], (const int *)ia, (const int *)ja, (const double *)va, bccoo, (int)reps, warmup, fb, (int)PETSC_STATIC_ARRAY_LENGTH(fb), &nfb, &info, errb, (int)sizeof(errb));
  nnz_all  = (double)ia[m]; /* ia and m are gone after MatRestoreRowIJ */
  nrows_all = (long long)m;
  if (rc == 0 && rcb == 0) rcp = BenchFloorsPjds((int)m, (int)N, (long long)ia[m], (const int *)ia, (const int *)ja, (const double *)va, (int)reps, warmup, fp, (int)PETSC_STATIC_ARRAY_LENGTH(fp), &nfp, &pinfo, errp, (int)sizeof(errp));
  if (rc == 0 && rcb == 0 && rcp == 0) rce = BenchFloorsBce((int)m, (int)N, (long long)ia[m], (const int *)ia, (const int *)ja, (const double *)va, (int)reps, warmup, fe, (int)PETSC_STATIC_ARRAY_LENGTH(fe), &nfe, &einfo, erre, (int)sizeof(erre));
  PetscCall(MatSeqAIJRestoreArrayRead(A0, &va));
  PetscCall(MatRestoreRowIJ(A0, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
  PetscCheck(rc == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "Floor kernels: %s", err);
  PetscCheck(rcb == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "Floor kernels: %s", errb);
  PetscCheck(rcp == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "Floor kernels: %s", errp);
  PetscCheck(rce == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "Floor kernels: %s", erre);
  for (int i = 0; i < nfl; i++) {
    double gbs = csr_bytes / (fl[i].median_ms * 1e-3) / 1e9;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-22s %9.4f %9.4f %9s %8.0f %6.1f   (no row sums: a lower bound)\n", fl[i].name, fl[i].median_ms, fl[i].min_ms, "-", gbs, copy_gbs > 0 ? 100.0 * gbs / copy_gbs : 0.0));
  }
  /* bccoo: the CSR columns as for every row, then the bccoo bytes (fmt GB/s) and its format MB */
  if (nfb) BenchBccooDescribe(&info, desc, (int)sizeof(desc));
  for (int i = 0; i < nfb; i++) {
    double gbs = csr_bytes / (fb[i].median_ms * 1e-3) / 1e9, fmt_gbs = info.bytes / (fb[i].median_ms * 1e-3) / 1e9;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-22s %9.4f %9.4f %9s %8.0f %6.1f %9.0f %8.1f   (no row sums: a lower bound; %s)\n", fb[i].name, fb[i].median_ms, fb[i].min_ms, "-", gbs, copy_gbs > 0 ? 100.0 * gbs / copy_gbs : 0.0, fmt_gbs,
                          1e-6 * info.format_bytes, desc));
    if (!strcmp(fb[i].name, "floor:bccoo-stream")) bccoo_ms[0] = fb[i].median_ms;
    if (!strcmp(fb[i].name, "floor:bccoo-gather")) bccoo_ms[1] = fb[i].median_ms;
  }
  /* pjds: its default layout's bytes (fmt GB/s), format MB, parameters and padding */
  if (nfp) {
    if (pinfo.sigma >= nrows_all && pinfo.sigma > 1) snprintf(desc, sizeof(desc), "pjds b_r %d, sigma all rows, long rows > %lld: %lld rows, %lld entries; padding %lld (%.2f %% of nnz)", pinfo.block_rows, pinfo.long_row, pinfo.long_rows, pinfo.long_entries, pinfo.padding, nnz_all > 0 ? 100.0 * (double)pinfo.padding / nnz_all : 0.0);
    else snprintf(desc, sizeof(desc), "pjds b_r %d, sigma %lld, long rows > %lld: %lld rows, %lld entries; padding %lld (%.2f %% of nnz)", pinfo.block_rows, pinfo.sigma, pinfo.long_row, pinfo.long_rows, pinfo.long_entries, pinfo.padding, nnz_all > 0 ? 100.0 * (double)pinfo.padding / nnz_all : 0.0);
  }
  for (int i = 0; i < nfp; i++) {
    const double fb  = strstr(fp[i].name, "-auto-") ? pinfo.auto_bytes : strstr(fp[i].name, "-fp32-") ? pinfo.fp32_bytes : strstr(fp[i].name, "-pos-table") ? pinfo.pos_table_bytes : strstr(fp[i].name, "-pos-") ? pinfo.pos_bytes : strstr(fp[i].name, "-table16-") ? pinfo.table16_bytes : strstr(fp[i].name, "pjds-table-w4") ? pinfo.table_w4_bytes : pinfo.bytes; /* each layout's own bytes */
    double       gbs = csr_bytes / (fp[i].median_ms * 1e-3) / 1e9, fmt_gbs = fb / (fp[i].median_ms * 1e-3) / 1e9;
    char         pdesc[96] = "";
    if (strstr(fp[i].name, "-pos-")) snprintf(pdesc, sizeof(pdesc), "; positional offsets (not stored by the type yet) from groups of %d rows", pinfo.pos_group);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-22s %9.4f %9.4f %9s %8.0f %6.1f %9.0f %8.1f   (no row sums: a lower bound; %s%s)\n", fp[i].name, fp[i].median_ms, fp[i].min_ms, "-", gbs, copy_gbs > 0 ? 100.0 * gbs / copy_gbs : 0.0, fmt_gbs, 1e-6 * (fb - (pinfo.bytes - pinfo.format_bytes)), desc, pdesc));
    if (!strcmp(fp[i].name, "floor:pjds-stream")) pjds_ms[0] = fp[i].median_ms;
    if (!strcmp(fp[i].name, "floor:pjds-gather")) pjds_ms[1] = fp[i].median_ms;
  }
  /* bce: its default layout's bytes (fmt GB/s), format MB, partition and padding */
  if (nfe) snprintf(desc, sizeof(desc), "bce %d groups, %d blocks (windows of %lld rows), long rows > %lld: %lld rows, %lld entries; padding %lld (%.2f %% of nnz)", einfo.groups, einfo.blocks, einfo.window, einfo.long_row, einfo.long_rows, einfo.long_entries, einfo.padding, nnz_all > 0 ? 100.0 * (double)einfo.padding / nnz_all : 0.0);
  for (int i = 0; i < nfe; i++) {
    double gbs = csr_bytes / (fe[i].median_ms * 1e-3) / 1e9, fmt_gbs = einfo.bytes / (fe[i].median_ms * 1e-3) / 1e9;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-22s %9.4f %9.4f %9s %8.0f %6.1f %9.0f %8.1f   (no row sums: a lower bound; %s)\n", fe[i].name, fe[i].median_ms, fe[i].min_ms, "-", gbs, copy_gbs > 0 ? 100.0 * gbs / copy_gbs : 0.0, fmt_gbs, 1e-6 * einfo.format_bytes, desc));
    if (!strcmp(fe[i].name, "floor:bce-stream")) bce_ms[0] = fe[i].median_ms;
    if (!strcmp(fe[i].name, "floor:bce-gather")) bce_ms[1] = fe[i].median_ms;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* The CSR arrays of the assembled one-rank AIJ A0 for the PETSc-free tools (32-bit PetscInt and
   real double scalars only: *ok false otherwise); give them back with RestoreCSR. */
static PetscErrorCode GetCSR(Mat A0, PetscInt *m, PetscInt *N, const PetscInt **ia, const PetscInt **ja, const PetscScalar **va, PetscBool *ok)
{
  PetscBool done;
  PetscFunctionBegin;
  *ok = sizeof(PetscInt) == sizeof(int) && sizeof(PetscScalar) == sizeof(double) ? PETSC_TRUE : PETSC_FALSE;
  if (!*ok) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGetSize(A0, NULL, N));
  PetscCall(MatGetRowIJ(A0, 0, PETSC_FALSE, PETSC_FALSE, m, ia, ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatGetRowIJ failed");
  PetscCall(MatSeqAIJGetArrayRead(A0, va));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RestoreCSR(Mat A0, PetscInt m, const PetscInt **ia, const PetscInt **ja, const PetscScalar **va)
{
  PetscBool done;
  PetscFunctionBegin;
  PetscCall(MatSeqAIJRestoreArrayRead(A0, va));
  PetscCall(MatRestoreRowIJ(A0, 0, PETSC_FALSE, PETSC_FALSE, &m, ia, ja, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -footprint: the matrix data's bytes per format (bench/ablation.h, BenchFootprintCompute), one table. */
static PetscErrorCode PrintFootprint(Mat A0, const BenchBccooParams *p)
{
  const PetscInt    *ia, *ja;
  const PetscScalar *va;
  PetscInt           m, N;
  PetscBool          ok;
  BenchFootprint     f;
  char               err[256] = "", name[64];
  int                rc;
  PetscFunctionBegin;
  PetscCall(GetCSR(A0, &m, &N, &ia, &ja, &va, &ok));
  if (!ok) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "footprint: 32-bit PetscInt and double scalars only; skipped\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  const double nnz = (double)ia[m];
  BenchFeatures ft;
  rc = BenchFootprintCompute((int)m, (int)N, (long long)ia[m], (const int *)ia, (const int *)ja, (const double *)va, p, &f, err, (int)sizeof(err));
  if (rc == 0) rc = BenchFeaturesCompute((int)m, (int)N, (const int *)ia, (const int *)ja, &ft, err, (int)sizeof(err));
  PetscCall(RestoreCSR(A0, m, &ia, &ja, &va));
  PetscCheck(rc == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "%s", err);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "footprint: the matrix data a product reads (x and y excluded; fp64 values, 32-bit indices; the yaSpMV paper's Table 3)\n"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-34s %12s %8s %8s\n", "format", "MB", "B/nnz", "/CSR"));
  const struct {
    const char *what;
    double      bytes;
  } rows[] = {{"CSR (12 B/nnz + 4 B/row)", f.csr}, {"COO (16 B/nnz)", f.coo}, {NULL, f.ell}, {NULL, f.bccoo}, {NULL, f.bccoo32}, {"ELLPACK-R (ELL + 4 B/row)", f.ellr}, {NULL, f.pjds}, {NULL, f.hyb}, {NULL, f.bce}};
  for (int i = 0; i < 9; i++) {
    if (i == 2) PetscCall(PetscSNPrintf(name, sizeof(name), "ELL (12 B x rows x %d)", f.ell_width));
    else if (i == 3) PetscCall(PetscSNPrintf(name, sizeof(name), "bccoo %dx%d %s-bit columns%s", f.info.p.h, f.info.p.w, f.info.p.compress ? "16" : "32", f.info.chosen == 2 ? " (model)" : ""));
    else if (i == 4) PetscCall(PetscSNPrintf(name, sizeof(name), "bccoo %dx%d 32-bit columns", f.info32.p.h, f.info32.p.w));
    else if (i == 6) PetscCall(PetscSNPrintf(name, sizeof(name), "pJDS (model)"));
    else if (i == 7) PetscCall(PetscSNPrintf(name, sizeof(name), "HYB (ELL x %d + COO)", f.hyb_width));
    else if (i == 8) PetscCall(PetscSNPrintf(name, sizeof(name), "BCE (OPA, %d groups)", f.bce_groups));
    else PetscCall(PetscStrncpy(name, rows[i].what, sizeof(name)));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-34s %12.3f %8.3f %8.3f\n", name, 1e-6 * rows[i].bytes, nnz > 0 ? rows[i].bytes / nnz : 0.0, f.csr > 0 ? rows[i].bytes / f.csr : 0.0));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bccoo: slices %d, tile %d, group %d; %lld blocks (fill %.3f), padded to %lld, %lld escapes\n", f.info.p.slices, f.info.p.tile, f.info.p.group, f.info.stored, f.info.fill, f.info.padded, f.info.escapes));
  if (f.pjds_sigma >= (long long)m) PetscCall(PetscSNPrintf(name, sizeof(name), "sorted over all rows"));
  else if (f.pjds_sigma <= 1) PetscCall(PetscSNPrintf(name, sizeof(name), "not sorted (sliced ELL)"));
  else PetscCall(PetscSNPrintf(name, sizeof(name), "sorted within windows of %lld rows", f.pjds_sigma));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "pJDS: blocks of %d rows, %s, %lld long rows (more than %lld nonzeros), padding %lld entries (%.2f %% of the nonzeros), y stored in %.1f sectors per warp (8: coalesced)\n", f.pjds_block_rows, name, f.pjds_long_rows, f.pjds_long_row, f.pjds_padding,
                        nnz > 0 ? 100.0 * (double)f.pjds_padding / nnz : 0.0, f.pjds_y_sectors));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "pJDS x sectors per 32 entries of its padded part: %.1f as laid out (a thread per row), %.1f / %.1f / %.1f with 2 / 4 / 8 lanes per row\n", f.pjds_x_sectors[0], f.pjds_x_sectors[1], f.pjds_x_sectors[2], f.pjds_x_sectors[3]));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "HYB: ELL part %d wide, %lld entries in the COO part; BCE: %d row lengths, %d sets after merging, %d groups, rows over %lld entries in the long part (%lld entries), padding %lld entries (%.2f %% of the nonzeros), y stored in %.1f sectors per warp\n", f.hyb_width, f.hyb_coo, f.bce_sets_df, f.bce_sets,
                        f.bce_groups, f.bce_long_row, f.bce_long_nnz, f.bce_padding, nnz > 0 ? 100.0 * (double)f.bce_padding / nnz : 0.0, f.bce_y_sectors));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "features: rows of mean %.2f (cv %.2f, longest %d, %lld empty); padding: sliced ELL %.2f %%, sorted %.2f %%; BSR fill 2x2 %.3f, 3x3 %.3f, 4x4 %.3f; x sectors per 32 entries: CSR order %.1f, ELL order %.1f; distance from the diagonal %.4f\n", ft.mean_row, ft.cv_row, ft.max_row,
                        ft.empty_rows, 100.0 * ft.padding_sell, 100.0 * ft.padding_sorted, ft.fill[0], ft.fill[1], ft.fill[2], ft.sectors_csr, ft.sectors_ell, ft.diag_distance));
  const BenchCompress cm = f.compress;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "compression (src/core/compress_model.hpp, slices of 32 rows, padding left out): index B/nnz: 32-bit %.3f, differences %.3f, dictionary %.3f, best %.3f (%lld slices: %lld with 8-bit, %lld 16-bit, %lld 32-bit differences, %lld with at most 256 offsets)\n", cm.idx32, cm.delta, cm.dict, cm.best, cm.slices, cm.slices_w8,
                        cm.slices_w16, cm.slices_w32, cm.slices_dict));
  if (cm.distinct > 65536) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "compression: value B/nnz: fp64 %.3f, table %.3f (more than 65536 distinct values), fp32 %.3f (%lld of %lld exact)\n", cm.val64, cm.table, cm.val32, cm.fp32_exact, cm.nnz));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "compression: value B/nnz: fp64 %.3f, table %.3f (%lld distinct), fp32 %.3f (%lld of %lld exact)\n", cm.val64, cm.table, cm.distinct, cm.val32, cm.fp32_exact, cm.nnz));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "compression: pJDS (model) as built %.3f MB (%.3f B/nnz), with dictionary columns %.3f MB (%.3f, %lld of %lld blocks), and a value table %.3f MB (%.3f)\n", 1e-6 * cm.pjds_plain, nnz > 0 ? cm.pjds_plain / nnz : 0.0, 1e-6 * cm.pjds_dict, nnz > 0 ? cm.pjds_dict / nnz : 0.0, cm.pjds_blocks_dict,
                        cm.pjds_blocks, 1e-6 * cm.pjds_dict_table, nnz > 0 ? cm.pjds_dict_table / nnz : 0.0));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "compression: pJDS (model) with positional offsets (each block's rows as wide as its nonzeros' distinct offsets from their group of %lld rows, no column per entry; not stored yet) %.3f MB (%.3f B/nnz, %lld of %lld blocks), and a value table %.3f MB (%.3f)\n", cm.pjds_diag_group, 1e-6 * cm.pjds_diag, nnz > 0 ? cm.pjds_diag / nnz : 0.0, cm.pjds_blocks_diag, cm.pjds_blocks,
                        1e-6 * cm.pjds_diag_table, nnz > 0 ? cm.pjds_diag_table / nnz : 0.0));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "compression: pjds as stored, what its products read: by default %.3f MB (%.3f B/nnz; columns %s, values %s), with -mat_gpumat_values fp32 %.3f MB (%.3f; values %s)\n", 1e-6 * cm.pjds_auto_read, nnz > 0 ? cm.pjds_auto_read / nnz : 0.0,
                        cm.pjds_auto_coded ? "dictionary" : "32-bit", cm.pjds_auto_tabled ? "table" : "fp64", 1e-6 * cm.pjds_fp32_read, nnz > 0 ? cm.pjds_fp32_read / nnz : 0.0, cm.pjds_fp32_single ? "fp32" : cm.pjds_auto_tabled ? "table" : "fp64"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
/* -ablation: the steps of bench/ablation_bccoo.cu for the assembled one-rank AIJ A0, one table; an
   error when the production product differs from the host's, or a step's from the production
   one, by more than 1e-12 (max |dy| / max |y|). */
static PetscErrorCode PrintAblation(Mat A0, PetscInt reps, int warmup, int block_size)
{
  const PetscInt    *ia, *ja;
  const PetscScalar *va;
  PetscInt           m, N;
  PetscBool          ok;
  BenchAblationRow   res[8];
  BenchAblationInfo  info;
  int                nres = 0, rc;
  char               err[256] = "";
  const double       tol      = 1e-12;
  PetscFunctionBegin;
  PetscCall(GetCSR(A0, &m, &N, &ia, &ja, &va, &ok));
  if (!ok) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ablation: 32-bit PetscInt and double scalars only; skipped\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  rc = BenchAblationBccoo((int)m, (int)N, (long long)ia[m], (const int *)ia, (const int *)ja, (const double *)va, block_size, (int)reps, warmup, res, (int)PETSC_STATIC_ARRAY_LENGTH(res), &nres, &info, err, (int)sizeof(err));
  PetscCall(RestoreCSR(A0, m, &ia, &ja, &va));
  PetscCheck(rc == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "%s", err);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ablation (the yaSpMV paper's Figure 14; bench/ablation_bccoo.cu): bccoo %dx%d, tile %d, group %d, %s columns (the model's), %lld blocks padded to %lld, %lld escapes, %lld groups, result cache %d; production y against the host's: %.2e\n",
                        info.p.h, info.p.w, info.p.tile, info.p.group, info.p.compress ? "16-bit" : "32-bit", info.blocks, info.padded, info.escapes, info.groups, info.cache, info.relerr_host));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-24s %9s %9s %8s %9s %8s %10s  %s\n", "step", "median ms", "min ms", "GB/s", "MB", "x (a)", "relerr", "what (GB/s: the step's own bytes)"));
  for (int i = 0; i < nres; i++)
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-24s %9.4f %9.4f %8.0f %9.1f %8.2f %10.2e  %s\n", res[i].name, res[i].median_ms, res[i].min_ms, res[i].bytes / (res[i].median_ms * 1e-3) / 1e9, 1e-6 * res[i].bytes, res[0].median_ms / res[i].median_ms, res[i].relerr, res[i].what));
  PetscCheck(info.relerr_host <= tol, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Ablation: the production bccoo product differs from the host's CSR product by %.3e (relative)", info.relerr_host);
  for (int i = 0; i < nres; i++) PetscCheck(res[i].relerr <= tol, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Ablation: step %s differs from the production product by %.3e (relative)", res[i].name, res[i].relerr);
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

#if defined(PETSC_HAVE_CUDA)
/* -bccoo_grid: every parameter set of bench/grid_bccoo.cu timed on the assembled one-rank AIJ A0;
   one line each: "grid <matrix> h w slices tile group compress ms format_MB stage model ratio",
   ratio = ms / the fastest set's. */
static PetscErrorCode PrintBccooGrid(Mat A0, const char *name, PetscInt reps, int warmup, int block_size)
{
  const PetscInt    *ia, *ja;
  const PetscScalar *va;
  PetscInt           m, N;
  PetscBool          ok;
  BenchGridRow       res[96];
  BenchBccooParams   model;
  int                nres = 0, rc, best = -1;
  char               err[256] = "";
  PetscFunctionBegin;
  PetscCall(GetCSR(A0, &m, &N, &ia, &ja, &va, &ok));
  if (!ok) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bccoo grid: 32-bit PetscInt and double scalars only; skipped\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  rc = BenchBccooGrid((int)m, (int)N, (long long)ia[m], (const int *)ia, (const int *)ja, (const double *)va, block_size, (int)reps, warmup, res, (int)PETSC_STATIC_ARRAY_LENGTH(res), &nres, &model, err, (int)sizeof(err));
  PetscCall(RestoreCSR(A0, m, &ia, &ja, &va));
  PetscCheck(rc == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "%s", err);
  for (int i = 0; i < nres; i++)
    if (res[i].status == 0 && (best < 0 || res[i].ms < res[best].ms)) best = i;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bccoo grid (bench/grid_bccoo.cu): %d parameter sets, the model's %dx%d, %d slice(s), tile %d, group %d, %s columns\n", nres, model.h, model.w, model.slices, model.tile, model.group,
                        model.compress ? "16-bit" : "32-bit"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "grid %-s %s\n", "matrix", "h w slices tile group compress ms format_MB stage model ratio"));
  for (int i = 0; i < nres; i++) {
    const BenchGridRow *r = &res[i];
    if (r->status) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "grid %s %d %d %d %d %d %d nan nan %d %d nan (skipped: CUDA error %d)\n", name, r->p.h, r->p.w, r->p.slices, r->p.tile, r->p.group, r->p.compress, r->stage, r->model, r->status));
    else
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "grid %s %d %d %d %d %d %d %.5f %.2f %d %d %.4f\n", name, r->p.h, r->p.w, r->p.slices, r->p.tile, r->p.group, r->p.compress, r->ms, 1e-6 * r->format_bytes, r->stage, r->model,
                            r->ms / res[best].ms));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* -layout nnz on P ranks: contiguous row ranges of about equal nonzeros. A row goes to the rank
   whose share [r T/P, (r+1) T/P) of the T nonzeros holds the middle of the row's nonzeros (row
   counts from both blocks of each rank, prefix sums across the ranks), then MatCreateSubMatrix with
   the new row ranges; a square matrix takes the same ranges for its columns (square diagonal
   blocks), a rectangular one keeps PETSc's column layout. */
static PetscErrorCode RedistributeByNonzeros(Mat *A0)
{
  Mat             Ad, Ao, B;
  const PetscInt *ia, *ja, *ib, *jb;
  PetscInt        m, mb, M, N, cstart, cend, start = 0, *cnt;
  PetscInt64      local, offset = 0, total = 0, before;
  PetscBool       done;
  IS              isrow, iscol;
  PetscFunctionBegin;
  PetscCall(MatGetSize(*A0, &M, &N));
  PetscCall(MatGetOwnershipRangeColumn(*A0, &cstart, &cend));
  PetscCall(MatMPIAIJGetSeqAIJ(*A0, &Ad, &Ao, NULL));
  PetscCall(MatGetRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatGetRowIJ failed on the diagonal block");
  PetscCall(MatGetRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &mb, &ib, &jb, &done));
  PetscCheck(done && mb == m, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatGetRowIJ failed on the off-diagonal block");
  local = (PetscInt64)(ia[m] - ia[0]) + (PetscInt64)(ib[m] - ib[0]);
  PetscCallMPI(MPI_Exscan(&local, &offset, 1, MPIU_INT64, MPI_SUM, PETSC_COMM_WORLD));
  if (myrank == 0) offset = 0; /* MPI_Exscan leaves rank 0's result undefined */
  PetscCallMPI(MPI_Allreduce(&local, &total, 1, MPIU_INT64, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(PetscCalloc1(nranks, &cnt));
  before = offset;
  for (PetscInt i = 0; i < m; i++) {
    PetscInt64 c = (PetscInt64)(ia[i + 1] - ia[i]) + (PetscInt64)(ib[i + 1] - ib[i]);
    PetscInt   r = total > 0 ? (PetscInt)((((double)before + 0.5 * (double)c) * nranks) / (double)total) : myrank;
    cnt[PetscMax(0, PetscMin(r, nranks - 1))]++;
    before += c;
  }
  PetscCall(MatRestoreRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &mb, &ib, &jb, &done));
  PetscCall(MatRestoreRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, cnt, nranks, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  for (PetscMPIInt r = 0; r < myrank; r++) start += cnt[r];
  PetscCall(ISCreateStride(PETSC_COMM_WORLD, cnt[myrank], start, 1, &isrow));
  if (M == N) {
    PetscCall(PetscObjectReference((PetscObject)isrow));
    iscol = isrow;
  } else PetscCall(ISCreateStride(PETSC_COMM_WORLD, cend - cstart, cstart, 1, &iscol));
  PetscCall(MatCreateSubMatrix(*A0, isrow, iscol, MAT_INITIAL_MATRIX, &B));
  PetscCall(ISDestroy(&isrow));
  PetscCall(ISDestroy(&iscol));
  PetscCall(PetscFree(cnt));
  PetscCall(MatDestroy(A0));
  *A0 = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The distribution of A0 over the ranks: rows and nonzeros per rank (min, max), the share of the
   nonzeros in the off-diagonal blocks, the ghosts (columns of the off-diagonal block: max, sum). */
typedef struct {
  double rows_min, rows_max, nnz_min, nnz_max, offdiag_share, ghosts_max, ghosts_sum;
} Distribution;

/* Distinct values (bit patterns) among this rank's stored entries of the host AIJ matrix A0, up to
   cap; *count = cap + 1 where there are more (an open-addressing set of 4 cap slots, stopped there).
   What a value table (-mat_pjds_values) could hold: a constant-coefficient stencil has a handful. */
static PetscErrorCode DistinctValues(Mat A0, PetscInt cap, PetscInt *count)
{
  Mat                blk[2] = {A0, NULL};
  PetscBool          mpi;
  const PetscInt     slots = 4 * cap;
  uint64_t          *set;
  unsigned char     *used;
  PetscInt           n = 0;
  PetscFunctionBegin;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A0, MATMPIAIJ, &mpi));
  if (mpi) PetscCall(MatMPIAIJGetSeqAIJ(A0, &blk[0], &blk[1], NULL));
  PetscCall(PetscMalloc1(slots, &set));
  PetscCall(PetscCalloc1(slots, &used));
  for (int b = 0; b < 2 && n <= cap; b++) {
    const PetscScalar *a;
    PetscInt           nz;
    MatInfo            info;
    if (!blk[b]) continue;
    PetscCall(MatGetInfo(blk[b], MAT_LOCAL, &info));
    nz = (PetscInt)info.nz_used;
    PetscCall(MatSeqAIJGetArrayRead(blk[b], &a));
    for (PetscInt k = 0; k < nz && n <= cap; k++) {
      uint64_t bits = 0;
      PetscInt h;
      memcpy(&bits, &a[k], sizeof(PetscScalar) < sizeof(bits) ? sizeof(PetscScalar) : sizeof(bits));
      h = (PetscInt)(((bits * 0x9E3779B97F4A7C15ull) >> 17) % (uint64_t)slots);
      while (used[h] && set[h] != bits) h = (h + 1) % slots;
      if (!used[h]) used[h] = 1, set[h] = bits, n++;
    }
    PetscCall(MatSeqAIJRestoreArrayRead(blk[b], &a));
  }
  PetscCall(PetscFree(set));
  PetscCall(PetscFree(used));
  *count = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GetDistribution(Mat A0, Distribution *d)
{
  PetscInt m;
  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(A0, &m, NULL));
  if (nranks == 1) {
    MatInfo info;
    PetscCall(MatGetInfo(A0, MAT_LOCAL, &info));
    d->rows_min = d->rows_max = m;
    d->nnz_min = d->nnz_max = info.nz_used;
    d->offdiag_share = d->ghosts_max = d->ghosts_sum = 0;
  } else {
    Mat      Ad, Ao;
    MatInfo  id, io;
    PetscInt nghost;
    double   lo[2], hi[3], sum[3];
    PetscCall(MatMPIAIJGetSeqAIJ(A0, &Ad, &Ao, NULL));
    PetscCall(MatGetInfo(Ad, MAT_LOCAL, &id));
    PetscCall(MatGetInfo(Ao, MAT_LOCAL, &io));
    PetscCall(MatGetSize(Ao, NULL, &nghost));
    lo[0] = hi[0] = m;
    lo[1] = hi[1] = id.nz_used + io.nz_used;
    hi[2]         = nghost;
    sum[0]        = io.nz_used;
    sum[1]        = id.nz_used + io.nz_used;
    sum[2]        = nghost;
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, lo, 2, MPI_DOUBLE, MPI_MIN, PETSC_COMM_WORLD));
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, hi, 3, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, sum, 3, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD));
    d->rows_min      = lo[0];
    d->rows_max      = hi[0];
    d->nnz_min       = lo[1];
    d->nnz_max       = hi[1];
    d->ghosts_max    = hi[2];
    d->offdiag_share = sum[1] > 0 ? sum[0] / sum[1] : 0.0;
    d->ghosts_sum    = sum[2];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The matrix of type spec (base type and :variants) converted from the assembled AIJ A0. On P
   ranks A0 is MPIAIJ and sellcuda goes mpiaij -> mpisell -> mpisellcuda. */
static PetscErrorCode ConvertTo(Mat A0, const char *spec, int variant, Mat *A)
{
  char      base[64], var[256] = "", *colon, *tok, *tnext;
  PetscBool sell, mpiaij;
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
  /* variants: :alg1 / :alg2 for aijcusparse, :key=value for -mat_<type>_<key> value, :gpumat_key=value
     for the machinery's -mat_gpumat_key value */
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
      PetscCheck(eq, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "Unknown variant '%s': use alg1, alg2, key=value or gpumat_key=value", tok);
      *eq = 0;
      if (!strncmp(tok, "gpumat_", 7)) PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%smat_%s", prefix, tok));
      else PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%smat_%s_%s", prefix, base, tok));
      PetscCall(PetscOptionsSetValue(NULL, opt, eq + 1));
    }
  }
  PetscCall(MatSetFromOptions(*A));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)*A, MATMPIAIJ, &mpiaij));
  if (mpiaij) { /* MPIAIJ types do not pass these options on to their blocks (mpiaijcusparse: the SpMV
                   algorithm; mpiaijcsrspec: read when the blocks were made, before the prefix) */
    Mat Ad, Ao;
    PetscCall(MatMPIAIJGetSeqAIJ(*A, &Ad, &Ao, NULL));
    PetscCall(MatSetOptionsPrefix(Ad, prefix));
    PetscCall(MatSetFromOptions(Ad));
    PetscCall(MatSetOptionsPrefix(Ao, prefix));
    PetscCall(MatSetFromOptions(Ao));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ConvertTo with PETSc's errors returned instead of aborting: *ok is PETSC_FALSE on every rank when
   it failed on any, after one line naming the type and the error (of the lowest failing rank; its
   half-made matrix is left alone). */
static PetscErrorCode TryConvertTo(Mat A0, const char *spec, int variant, Mat *A, PetscBool *ok)
{
  PetscErrorCode ierr;
  PetscMPIInt    mine, first;
  const char    *text = NULL, *specific = NULL;
  MatType        from;
  PetscFunctionBegin;
  *A = NULL;
  PetscCall(MatGetType(A0, &from));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = ConvertTo(A0, spec, variant, A);
  PetscCall(PetscPopErrorHandler());
  mine = ierr != PETSC_SUCCESS ? myrank : nranks;
  PetscCallMPI(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD));
  *ok = first == nranks ? PETSC_TRUE : PETSC_FALSE;
  if (*ok) PetscFunctionReturn(PETSC_SUCCESS);
  *A = NULL;
  if (myrank == first) {
    PetscCall(PetscErrorMessage(ierr, &text, &specific));
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, PETSC_STDOUT, "!! type %s: cannot be made from the %s matrix on %d rank(s) (rank %d: %s%s%s); skipped\n", spec, from, nranks, myrank, text ? text : "error", specific && specific[0] ? ": " : "", specific ? specific : ""));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The first product of a converted type with PETSc's errors returned instead of aborting (a type
   that refuses the matrix only when it builds its format on the device, e.g. cuSPARSE's sliced ELL
   beyond its 32-bit positions): *ok is PETSC_FALSE on every rank when it failed on any, after one
   line naming the type and the error (of the lowest failing rank). */
static PetscErrorCode TryFirstProduct(Mat A, Vec x, Vec y, const char *spec, PetscBool *ok)
{
  PetscErrorCode ierr;
  PetscMPIInt    mine, first;
  const char    *text = NULL, *specific = NULL;
  PetscFunctionBegin;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MatMult(A, x, y);
  PetscCall(PetscPopErrorHandler());
  mine = ierr != PETSC_SUCCESS ? myrank : nranks;
  PetscCallMPI(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD));
  *ok = first == nranks ? PETSC_TRUE : PETSC_FALSE;
  if (!*ok && myrank == first) {
    PetscCall(PetscErrorMessage(ierr, &text, &specific));
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, PETSC_STDOUT, "!! type %s: its first product failed on %d rank(s) (rank %d: %s%s%s); skipped\n", spec, nranks, myrank, text ? text : "error", specific && specific[0] ? ": " : "", specific ? specific : ""));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  char   type[96];
  char   stored_as[64]; /* our types: the format storing rank 0's diagonal block (gpuauto: its choice; MPI: diag/offdiag) */
  char   tuner[1024]; /* bccoo with -mat_bccoo_tune: its tuner's report (TunerLines), printed under its row */
  double median, min, max, first, refresh, err, format_bytes;
  double read_bytes; /* the bytes a product reads by the formats' own count (ReadBytes), NAN where a format has none */
  double coo, coo_min, coo_max; /* -coo: a device COO assembly + product minus a product (NAN: not measured) */
  double dense, dense_min, dense_max; /* -dense: C = A B with a dense B, numeric phase (NAN: not measured) */
  double dense_t;                     /* -dense: C = A^T B likewise, its median */
  PetscInt coo_entries;
  double ksp_first_ms, ksp_ms_per_it; /* first solve (builds included) and per iteration after */
  double diag, offd, scatter;         /* P ranks, MPIAIJ-based types: the split of a product (NAN: none) */
  double diag_rank[MAX_SPLIT_RANKS];  /* rank 0: each rank's own median of the diagonal block (the first MAX_SPLIT_RANKS) */
  PetscBool gpu;
} Result;

/* A fixed number of KSP iterations (no convergence test) from x = 0: the first solve includes
   the format build and the PC setup, the second is the steady per-iteration time (on P ranks:
   maxima over the ranks, each solve started after a barrier). */
static PetscErrorCode TimeKSP(Mat A, Vec b, PetscBool spd, PetscInt its, double *first_ms, double *ms_per_it)
{
  KSP            ksp;
  PC             pc;
  Vec            x;
  PetscLogDouble t0, t1, t1s, t2;
  double         t[2];
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
  PetscCall(NowAll(&t0));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(Now(&t1));
  t1s = t1; /* one rank: the second solve's time includes the VecSet, as it always did */
  PetscCall(VecSet(x, 0.0));
  if (nranks > 1) PetscCall(NowAll(&t1s));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(Now(&t2));
  t[0] = 1e3 * (t1 - t0);
  t[1] = 1e3 * (t2 - t1s);
  PetscCall(MaxOverRanks(t, 2));
  *first_ms  = t[0];
  *ms_per_it = t[1] / its;
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
/* -coo (see help): A, of the AIJ family, preallocated anew by COO with A0's local nonzeros (the same
   pattern), assembled from a CUDA vector's array, timed against a steady product of `steady` ms. */
static PetscErrorCode TimeCOO(Mat A0, Mat A, Vec x, Vec y, PetscInt reps, double steady, Result *r)
{
  PetscInt           lo, hi, n = 0, k = 0, *ci, *cj;
  Vec                w;
  PetscScalar       *wa;
  const PetscScalar *dv;
  PetscMemType       mt;
  double            *t;
  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A0, &lo, &hi));
  for (PetscInt i = lo; i < hi; i++) {
    PetscInt ncols;
    PetscCall(MatGetRow(A0, i, &ncols, NULL, NULL));
    n += ncols;
    PetscCall(MatRestoreRow(A0, i, &ncols, NULL, NULL));
  }
  PetscCall(PetscMalloc2(n, &ci, n, &cj));
  PetscCall(VecCreate(PETSC_COMM_SELF, &w));
  PetscCall(VecSetSizes(w, n, n));
  PetscCall(VecSetType(w, VECSEQCUDA));
  PetscCall(VecGetArrayWrite(w, &wa));
  for (PetscInt i = lo; i < hi; i++) {
    PetscInt           ncols;
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscCall(MatGetRow(A0, i, &ncols, &cols, &vals));
    for (PetscInt c = 0; c < ncols; c++, k++) {
      ci[k] = i;
      cj[k] = cols[c];
      wa[k] = vals[c];
    }
    PetscCall(MatRestoreRow(A0, i, &ncols, &cols, &vals));
  }
  PetscCall(VecRestoreArrayWrite(w, &wa));
  PetscCall(MatSetPreallocationCOO(A, n, ci, cj));
  PetscCall(PetscFree2(ci, cj));
  PetscCall(VecGetArrayReadAndMemType(w, &dv, &mt)); /* the values on the device from here */
  PetscCheck(n == 0 || PetscMemTypeDevice(mt), PETSC_COMM_SELF, PETSC_ERR_PLIB, "a CUDA vector's array is not on the device");
  PetscCall(MatSetValuesCOO(A, dv, INSERT_VALUES)); /* the first: maps uploaded, format built */
  PetscCall(MatMult(A, x, y));
  PetscCall(PetscMalloc1(reps, &t));
  for (PetscInt rep = 0; rep < reps; rep++) {
    PetscLogDouble t0, t1;
    PetscCall(NowAll(&t0));
    PetscCall(MatSetValuesCOO(A, dv, INSERT_VALUES));
    PetscCall(MatMult(A, x, y));
    PetscCall(Now(&t1));
    t[rep] = 1e3 * (t1 - t0);
    PetscCall(MaxOverRanks(&t[rep], 1));
  }
  PetscCall(VecRestoreArrayReadAndMemType(w, &dv));
  qsort(t, (size_t)reps, sizeof(double), CmpDouble);
  r->coo         = t[reps / 2] - steady;
  r->coo_min     = t[0] - steady;
  r->coo_max     = t[reps - 1] - steady;
  r->coo_entries = n;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &r->coo_entries, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(PetscFree(t));
  PetscCall(VecDestroy(&w));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* The numeric phase of C = product(A, B) (MatMatMult or MatTransposeMatMult), MAT_REUSE_MATRIX,
   timed reps times after a first product (C made here): t sorted, in ms, maxima over the ranks */
static PetscErrorCode TimeReuse(PetscErrorCode (*product)(Mat, Mat, MatReuse, PetscReal, Mat *), Mat A, Mat B, Mat *C, PetscInt reps, double *t)
{
  PetscFunctionBegin;
  PetscCall(product(A, B, MAT_INITIAL_MATRIX, PETSC_DETERMINE, C));
  PetscCall(product(A, B, MAT_REUSE_MATRIX, PETSC_DETERMINE, C));
  for (PetscInt rep = 0; rep < reps; rep++) {
    PetscLogDouble t0, t1;
    PetscCall(NowAll(&t0));
    PetscCall(product(A, B, MAT_REUSE_MATRIX, PETSC_DETERMINE, C));
    PetscCall(Now(&t1));
    t[rep] = 1e3 * (t1 - t0);
    PetscCall(MaxOverRanks(&t[rep], 1));
  }
  qsort(t, (size_t)reps, sizeof(double), CmpDouble);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -dense (see help): C = A B and C = A^T B with B dense of A's vector type and k columns (entries
   that depend on their indices), each numeric phase timed after a first product */
static PetscErrorCode TimeDense(Mat A, PetscInt k, PetscInt reps, Result *r)
{
  Mat      B, C = NULL, Ct = NULL;
  VecType  vt;
  PetscInt n, N, lo, hi;
  double  *t;
  PetscFunctionBegin;
  PetscCall(MatGetVecType(A, &vt));
  PetscCall(MatGetLocalSize(A, NULL, &n));
  PetscCall(MatGetSize(A, NULL, &N));
  PetscCall(MatCreateDenseFromVecType(PETSC_COMM_WORLD, vt, n, PETSC_DECIDE, N, k, PETSC_DECIDE, NULL, &B));
  PetscCall(MatGetOwnershipRange(B, &lo, &hi));
  {
    PetscScalar *b;
    PetscCall(MatDenseGetArrayWrite(B, &b)); /* host array, column-major, leading dimension the local rows */
    for (PetscInt j = 0; j < k; j++)
      for (PetscInt i = lo; i < hi; i++) b[j * (hi - lo) + (i - lo)] = 1.0 + (PetscReal)((i + 3 * j) % 7) / 7.0;
    PetscCall(MatDenseRestoreArrayWrite(B, &b));
  }
  PetscCall(PetscMalloc1(reps, &t));
  PetscCall(TimeReuse(MatMatMult, A, B, &C, reps, t));
  r->dense     = t[reps / 2];
  r->dense_min = t[0];
  r->dense_max = t[reps - 1];
  PetscCall(TimeReuse(MatTransposeMatMult, A, B, &Ct, reps, t));
  r->dense_t = t[reps / 2];
  PetscCall(PetscFree(t));
  PetscCall(MatDestroy(&Ct));
  PetscCall(MatDestroy(&C));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define CSV_HEADER \
  "matrix,type,rows,cols,nnz,median_ms,min_ms,max_ms,gbs_csr,gbs_format,copy_gbs,format_bytes,build_ms,build_mults,refresh_ms,refresh_mults,max_rel_err,ksp_its,ksp_ms_per_it,ksp_total_ms,breakeven_its," \
  "ranks,layout,nnz_min_rank,nnz_max_rank,offdiag_share,ghosts_max,diag_ms,offd_ms,scatter_ms,stored_as,read_bytes"

/* The bytes a product of our matrix A reads from its formats' arrays, as the formats count them
   (property format_bytes; gpuauto: candidate.format_bytes; bccoo, pjds and bce have it), its blocks
   summed over the ranks; NAN where a block's format has no such count. */
static PetscErrorCode ReadBytes(Mat A, double *bytes)
{
  double sum = 0;
  PetscFunctionBegin;
  for (int b = 0; b < (nranks > 1 ? 2 : 1); b++) {
    const MatGpuMatBlock blk = b ? MAT_GPUMAT_OFFDIAGONAL_BLOCK : MAT_GPUMAT_DIAGONAL_BLOCK;
    const char          *v   = NULL;
    PetscCall(MatGpuMatGetProperty(A, blk, "format_bytes", &v));
    if (!v) PetscCall(MatGpuMatGetProperty(A, blk, "candidate.format_bytes", &v));
    sum += v ? atof(v) : NAN;
  }
  if (nranks > 1) PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD));
  *bytes = sum;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* An existing, non-empty CSV must have this benchmark's header (rows of other columns would not
   parse); *header: whether the header is still to be written. */
static PetscErrorCode CheckCSVHeader(const char *csv, PetscBool *header)
{
  int st[2] = {1, 1}; /* same header, header to write */
  PetscFunctionBegin;
  if (myrank == 0) {
    FILE *f = fopen(csv, "r");
    char  line[4096];
    if (f) {
      if (fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\r\n")] = 0;
        st[0]                        = !strcmp(line, CSV_HEADER);
        st[1]                        = 0;
      }
      fclose(f);
    }
  }
  PetscCallMPI(MPI_Bcast(st, 2, MPI_INT, 0, PETSC_COMM_WORLD));
  PetscCheck(st[0], PETSC_COMM_WORLD, PETSC_ERR_FILE_UNEXPECTED, "-csv %s: the file has other columns (an older bench_matmult's?); write to a new file", csv);
  *header = st[1] ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A time in ms for the table, '-' when there is none. */
static void FormatMs(char *buf, size_t len, double ms)
{
  if (PetscIsNanReal(ms)) snprintf(buf, len, "%9s", "-");
  else snprintf(buf, len, "%9.4f", ms);
}

/* A bccoo type (the base name before any ':' variant ends in "bccoo": bccoo, aijbccoo, ...), by name:
   this benchmark does not need the type to exist. */
static PetscBool IsBccoo(const char *type)
{
  size_t n = strcspn(type, ":");
  return n >= 5 && !strncmp(type + n - 5, "bccoo", 5) ? PETSC_TRUE : PETSC_FALSE;
}

static PetscBool IsPjds(const char *type)
{
  size_t n = strcspn(type, ":");
  return n >= 4 && !strncmp(type + n - 4, "pjds", 4) ? PETSC_TRUE : PETSC_FALSE;
}

static PetscBool IsBce(const char *type)
{
  size_t n = strcspn(type, ":");
  return n >= 3 && !strncmp(type + n - 3, "bce", 3) ? PETSC_TRUE : PETSC_FALSE;
}

/* bccoo's tuner report (-mat_bccoo_tune): the lines of A's MatView(::ascii_info) that start with
   "tuner" (on P ranks rank 0's diagonal block), indented, into buf on rank 0; "" on the other ranks
   and without the tuner. Through a temporary file: an ASCII viewer writes to a file or a stream. */
static PetscErrorCode TunerLines(Mat A, char *buf, size_t len)
{
  Mat       B = A;
  PetscBool mpi;
  PetscFunctionBegin;
  buf[0] = 0;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPIAIJ, &mpi));
  if (mpi) PetscCall(MatMPIAIJGetSeqAIJ(A, &B, NULL, NULL));
  if (myrank == 0) { /* B lives on rank 0 alone: a sequential block, or A on one rank */
    char        name[PETSC_MAX_PATH_LEN] = "/tmp/bench-tuner-XXXXXX", line[1024];
    PetscViewer v;
    FILE       *f;
    const int   fd = mkstemp(name);
    PetscCheck(fd >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot create a temporary file in /tmp for the tuner's report");
    close(fd);
    PetscCall(PetscViewerASCIIOpen(PetscObjectComm((PetscObject)B), name, &v));
    PetscCall(PetscViewerPushFormat(v, PETSC_VIEWER_ASCII_INFO));
    PetscCall(MatView(B, v));
    PetscCall(PetscViewerPopFormat(v));
    PetscCall(PetscViewerDestroy(&v));
    f = fopen(name, "r");
    PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot read back %s", name);
    while (fgets(line, sizeof(line), f)) {
      const char *l = line + strspn(line, " ");
      if (strncmp(l, "tuner", 5)) continue;
      PetscCall(PetscStrlcat(buf, "   ", len));
      PetscCall(PetscStrlcat(buf, l, len));
    }
    fclose(f);
    (void)remove(name);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One table cell: the value in `fmt`, or `otherwise` (right-aligned to the same width) when it does not apply. */
static void Cell(char *buf, size_t len, const char *fmt, double v, int applies, const char *otherwise)
{
  if (applies) snprintf(buf, len, fmt, v);
  else snprintf(buf, len, "%*s", atoi(fmt + 1), otherwise);
}

int main(int argc, char **argv)
{
  char         kind[64] = "powerlaw", spec[PETSC_MAX_PATH_LEN] = "", name[PETSC_MAX_PATH_LEN] = "", cls[16] = "", csv[PETSC_MAX_PATH_LEN] = "", layout[16] = "rows";
#if defined(PETSC_HAVE_CUDA)
  char list[1024] = "aijcusparse:alg1,aijcusparse:alg2,cusparsesell,cusparsebsr,sellcuda,csrspec,bccoo,pjds,bce,gpuauto,aij";
#else
  char list[1024] = "aij,csrspec,bccoo,pjds,bce,gpuauto"; /* what a CPU PETSc has: host types */
#endif
  PetscInt     n = 2000000, reps = 100, reps_host = 10, reps_refresh = 5, reps_build = 3, warmup = 10, ksp_its = 50, M, N, nnz, ntypes = 0, ntried = 0, nskipped = 0;
  Mat          A0;
  Vec          x0, b0, yref = NULL;
  double       copy_gbs = 0, csr_bytes, *t, bccoo_ms[2] = {NAN, NAN}, pjds_ms[2] = {NAN, NAN}, bce_ms[2] = {NAN, NAN}; /* the bccoo, pjds and bce floors: stream, gather */
  char         fb_spec[128] = "", fb_err[256] = "";
  BenchBccooParams fb_params;
  int          fb_on = 1;
  MatInfo      info;
  PetscBool    spd = PETSC_FALSE, has_spec, has_cls, floors = PETSC_TRUE, ksp_host = PETSC_FALSE, csv_header = PETSC_FALSE, view_types = PETSC_FALSE, ablation = PETSC_FALSE, footprint = PETSC_FALSE, grid = PETSC_FALSE;
  PetscBool    coo = PETSC_FALSE, gpu_aware_halo = PETSC_FALSE;
  PetscInt     reps_coo = 20, dense_k = 0;
  char         coo_csv[PETSC_MAX_PATH_LEN] = "";
  Result       res[32];
  Distribution dist;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGpuMatInitialize());
  setvbuf(stdout, NULL, _IOLBF, 0); /* each row as soon as it is measured, also into a pipe */
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &nranks));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &myrank));
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
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps_refresh", &reps_refresh, NULL));
  PetscCheck(reps_refresh >= 1 && reps_refresh <= 64, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-reps_refresh must be in [1, 64], got %" PetscInt_FMT, reps_refresh);
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps_build", &reps_build, NULL));
  PetscCheck(reps_build >= 1 && reps_build <= 16, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-reps_build must be in [1, 16], got %" PetscInt_FMT, reps_build);
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-ksp_its", &ksp_its, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-ksp_host", &ksp_host, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-floors", &floors, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-view_types", &view_types, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-ablation", &ablation, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-footprint", &footprint, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-bccoo_grid", &grid, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-coo", &coo, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dense", &dense_k, NULL));
  PetscCheck(dense_k >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-dense must be >= 0 (the dense operand's columns), got %" PetscInt_FMT, dense_k);
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps_coo", &reps_coo, NULL));
  PetscCheck(reps_coo >= 1 && reps_coo <= 1000, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-reps_coo must be in [1, 1000], got %" PetscInt_FMT, reps_coo);
  PetscCall(PetscOptionsGetString(NULL, NULL, "-coo_csv", coo_csv, sizeof(coo_csv), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-floor_bccoo", fb_spec, sizeof(fb_spec), NULL));
  PetscCheck(BenchBccooParse(fb_spec, &fb_params, &fb_on, fb_err, (int)sizeof(fb_err)) == 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "%s", fb_err);
  PetscCall(PetscOptionsGetString(NULL, NULL, "-layout", layout, sizeof(layout), NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-gpu_aware_halo", &gpu_aware_halo, NULL));
#if defined(PETSC_HAVE_CUDA)
  if (gpu_aware_halo) { /* every scatter from here on: matrices and vectors are made below */
    PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA)); /* PETSc's start-up check of the MPI runs now, while use_gpu_aware_mpi is off */
    use_gpu_aware_mpi = PETSC_TRUE;
  }
#endif
  PetscCheck(reps >= 1 && reps_host >= 1 && warmup >= 0 && ksp_its >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-reps and -reps_host must be >= 1, -warmup and -ksp_its >= 0");
  PetscCheck(!strcmp(layout, "rows") || !strcmp(layout, "nnz"), PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-layout must be rows or nnz, not %s", layout);
  if (csv[0]) PetscCall(CheckCSVHeader(csv, &csv_header));
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
  /* rank 0 alone (on P ranks the others wait), before PETSc chooses the devices */
  if (myrank == 0) PetscCall(CopyBandwidth(&copy_gbs));
  if (nranks > 1) PetscCallMPI(MPI_Bcast(&copy_gbs, 1, MPI_DOUBLE, 0, PETSC_COMM_WORLD));
#endif

  PetscCall(BenchLoadMatrix(PETSC_COMM_WORLD, spec, &A0));
  if (nranks > 1 && !strcmp(layout, "nnz")) PetscCall(RedistributeByNonzeros(&A0));
  PetscCall(MatGetSize(A0, &M, &N));
  PetscCall(MatGetInfo(A0, MAT_GLOBAL_SUM, &info));
  nnz       = (PetscInt)info.nz_used;
  csr_bytes = 12.0 * nnz + 4.0 * (M + 1) + 8.0 * N + 8.0 * M;
  if (M != N) ksp_its = 0;
  PetscCall(GetDistribution(A0, &dist));
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
  {
    PetscInt distinct;
    PetscCall(DistinctValues(A0, 65536, &distinct));
    if (distinct > 65536) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "values: more than 65536 distinct%s\n", nranks > 1 ? " in rank 0's rows" : ""));
    else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "values: %" PetscInt_FMT " distinct%s\n", distinct, nranks > 1 ? " in rank 0's rows" : ""));
  }
#if defined(PETSC_HAVE_CUDA)
  PetscCall(PrintDevices());
#endif
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-split_alone", &split_alone, NULL));
  if (nranks > 1) {
    double mean = (double)nnz / nranks;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "split's block products: %s\n", split_alone ? "timed one rank at a time (-split_alone)" : "timed on all ranks at once"));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "distribution: %d ranks, layout %s: rows per rank %.0f..%.0f, nonzeros per rank %.0f..%.0f (max/mean %.3f), off-diagonal share %.4f, ghosts per rank max %.0f (all ranks %.0f)\n", nranks, layout, dist.rows_min,
                          dist.rows_max, dist.nnz_min, dist.nnz_max, mean > 0 ? dist.nnz_max / mean : 0.0, dist.offdiag_share, dist.ghosts_max, dist.ghosts_sum));
  }
#if defined(PETSC_HAVE_CUDA)
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "device copy bandwidth (read+write): %.0f GB/s%s\n", copy_gbs, nranks > 1 ? " (rank 0 alone)" : ""));
  if (nranks > 1) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "halo of device vectors: %s\n", use_gpu_aware_mpi ? (gpu_aware_halo ? "device buffers handed to MPI (-gpu_aware_halo)" : "device buffers handed to MPI (-use_gpu_aware_mpi)") : "staged through host buffers (-use_gpu_aware_mpi 0)"));
#else
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "CPU build: host types, timed with the host clock (csrspec, bccoo, pjds and bce run PETSc's SeqAIJ kernels with host vectors); the GPU types (aijcusparse, the cuSPARSE formats, sellcuda, and csrspec, bccoo, pjds and bce on the GPU) need a CUDA PETSc\n"));
#endif
  { /* the matrix's block size: the bccoo byte model's tie-break, as the machinery's hint */
    PetscInt rbs, cbs;
    PetscCall(MatGetBlockSizes(A0, &rbs, &cbs));
    fb_params.block_size = rbs == cbs ? (int)rbs : 1;
  }
  if ((footprint || ablation || grid) && nranks > 1) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "-footprint, -ablation and -bccoo_grid: one rank only; skipped\n"));
  if (footprint && nranks == 1) {
    BenchBccooParams fp = fb_params; /* -floor_bccoo's bccoo; off: the default (the type's model) */
    if (!fb_on) {
      int on;
      PetscCheck(BenchBccooParse("", &fp, &on, fb_err, (int)sizeof(fb_err)) == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s", fb_err);
      fp.block_size = fb_params.block_size;
    }
    PetscCall(PrintFootprint(A0, &fp));
  }
#if defined(PETSC_HAVE_CUDA)
  if (ablation && nranks == 1) PetscCall(PrintAblation(A0, reps, (int)warmup, fb_params.block_size));
  if (grid && nranks == 1) PetscCall(PrintBccooGrid(A0, name, reps, (int)warmup, fb_params.block_size));
#else
  if (ablation) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "-ablation: GPU builds only (a CUDA PETSc); skipped\n"));
  if (grid) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "-bccoo_grid: GPU builds only (a CUDA PETSc); skipped\n"));
#endif
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-22s %9s %9s %9s %8s %6s %9s %8s %9s %8s %9s %9s %9s %8s %9s", "type", "median ms", "min ms", "max ms", "CSR GB/s", "%copy", "fmt GB/s", "fmt MB", "build ms", "build/mv", "refresh", "max relerr", "ksp ms/it", "ksp ms", "breakeven"));
  if (nranks > 1) PetscCall(PetscPrintf(PETSC_COMM_WORLD, " %9s %9s %9s", "diag ms", "offd ms", "scatter ms"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));

#if defined(PETSC_HAVE_CUDA)
  if (floors && nranks == 1) {
    PetscCall(PrintFloors(A0, reps, (int)warmup, csr_bytes, copy_gbs, fb_on ? &fb_params : NULL, bccoo_ms, pjds_ms, bce_ms));
  }
#else
  (void)floors;
  (void)fb_on;
#endif

  char *type = list, *next;
  for (; type && *type && ntypes < 32; type = next) {
    Result   *r = &res[ntypes];
    Mat       A;
    Vec       x, y;
    PetscBool ours, ok, mpiaij = PETSC_FALSE;
    size_t    dev_bytes;
    BenchOps  ops;
    next = strchr(type, ',');
    if (next) *next++ = 0;
    PetscCall(PetscMemzero(r, sizeof(*r)));
    PetscCall(PetscMemzero(&ops, sizeof(ops)));
    r->diag = r->offd = r->scatter = NAN;
    r->coo = r->coo_min = r->coo_max = NAN;
    r->dense = r->dense_min = r->dense_max = r->dense_t = NAN;
    PetscCall(PetscStrncpy(r->type, type, sizeof(r->type)));
    const int variant = (int)ntried++; /* the options prefix of this type's variants */
    PetscCall(TryConvertTo(A0, type, variant, &A, &ok));
    if (!ok) {
      nskipped++;
      continue;
    }
    PetscCall(MatCreateVecs(A, &x, &y));
    PetscCall(VecCopy(x0, x));
    /* GPU types: CUDA vectors, or Kokkos vectors (aijkokkos; on CUDA, the Kokkos execution space
       runs on PETSc's stream, which TimedOp's events bracket) */
    PetscCall(GenIsDeviceVec(x, &r->gpu));
    if (nranks > 1) PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPIAIJ, &mpiaij)); /* mpiaij, mpiaijcusparse, mpiaijcsrspec, ... */
    ops.A = A;
    ops.x = x;
    ops.y = y;
    { /* first product: builds the format (and copies to the GPU) */
      PetscLogDouble t0, t1;
      PetscCall(NowAll(&t0));
      PetscCall(TryFirstProduct(A, x, y, type, &ok));
      PetscCall(Now(&t1));
      if (!ok) {
        PetscCall(VecDestroy(&x));
        PetscCall(VecDestroy(&y));
        PetscCall(MatDestroy(&A));
        nskipped++;
        continue;
      }
      r->first = 1e3 * (t1 - t0);
      PetscCall(MaxOverRanks(&r->first, 1));
    }
    if (reps_build > 1) { /* the median of reps_build builds: fresh conversions of A0, each timed at its first product */
      double firsts[16];
      firsts[0] = r->first;
      for (PetscInt k = 1; k < reps_build; ++k) {
        Mat            B;
        PetscBool      okb;
        PetscLogDouble t0, t1;
        PetscCall(TryConvertTo(A0, type, variant, &B, &okb));
        PetscCheck(okb, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "type %s: a repeated conversion failed after the first succeeded", type);
        PetscCall(NowAll(&t0));
        PetscCall(MatMult(B, x, y));
        PetscCall(Now(&t1));
        firsts[k] = 1e3 * (t1 - t0);
        PetscCall(MaxOverRanks(&firsts[k], 1));
        PetscCall(MatDestroy(&B));
      }
      qsort(firsts, (size_t)reps_build, sizeof(double), CmpDouble);
      r->first = firsts[reps_build / 2];
    }
    if (view_types) {
      PetscCall(PetscViewerPushFormat(PETSC_VIEWER_STDOUT_WORLD, PETSC_VIEWER_ASCII_INFO));
      PetscCall(MatView(A, PETSC_VIEWER_STDOUT_WORLD));
      PetscCall(PetscViewerPopFormat(PETSC_VIEWER_STDOUT_WORLD));
      { /* the diagonal block's properties, machine-readable (bench/calibrate.py reads them) */
        PetscInt           np;
        const char *const *keys, *const *values;
        PetscCall(MatGpuMatGetProperties(A, MAT_GPUMAT_DIAGONAL_BLOCK, &np, &keys, &values));
        for (PetscInt k = 0; k < np; k++) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "gpumat-property %s %s %s\n", type, keys[k], values[k]));
      }
    }
    const PetscInt nrep = r->gpu ? reps : PetscMin(reps, reps_host), nwarm = r->gpu ? warmup : PetscMin(warmup, 1);
    PetscCall(TimeReps(&ops, OP_MULT, r->gpu, PETSC_FALSE, nwarm, nrep, t, &r->median, &r->min, &r->max, NULL));
    if (IsBccoo(type)) PetscCall(TunerLines(A, r->tuner, sizeof(r->tuner)));
    /* agreement with the first type's product, through host arrays */
    if (!yref) {
      PetscCall(VecDuplicate(y, &yref));
      PetscCall(VecCopy(y, yref));
    } else {
      PetscReal e;
      PetscCall(GenRelDiff(y, yref, &e));
      r->err = e;
    }
    if (mpiaij) { /* the split of a product: diagonal block, off-diagonal block, scatter */
      PetscBool gpu_blocks; /* the blocks' vectors are CUDA vectors: timed with events */
      PetscCall(SplitCreate(&ops));
      PetscCall(PetscObjectTypeCompare((PetscObject)ops.xl, VECSEQCUDA, &gpu_blocks));
      {
        double *all = NULL, own_median;
        PetscCall(TimeReps(&ops, OP_DIAG, gpu_blocks, split_alone, nwarm, nrep, t, &r->diag, NULL, NULL, &own_median));
        if (myrank == 0) PetscCall(PetscMalloc1(nranks, &all));
        PetscCallMPI(MPI_Gather(&own_median, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, PETSC_COMM_WORLD));
        for (PetscMPIInt k = 0; myrank == 0 && k < PetscMin(nranks, MAX_SPLIT_RANKS); k++) r->diag_rank[k] = all[k];
        PetscCall(PetscFree(all));
      }
      PetscCall(TimeReps(&ops, OP_OFFD, gpu_blocks, split_alone, nwarm, nrep, t, &r->offd, NULL, NULL, NULL));
      PetscCall(TimeReps(&ops, OP_SCATTER, gpu_blocks, PETSC_FALSE, nwarm, nrep, t, &r->scatter, NULL, NULL, NULL)); /* messages: all ranks at once */
      PetscCall(SplitDestroy(&ops));
    }
    { /* value refresh: every value rewritten on the host, then a product (a Newton step's
         re-assembly): for the AIJ family the host value arrays taken for writing and given back
         (both blocks of each rank on P ranks); for other types (sellcuda) one MatSetValue by the
         row's owner and an assembly */
      PetscLogDouble t0, t1;
      PetscBool      aijfamily;
      PetscInt       row = M / 2, rstart, rend;
      double         ms, rms[64];
      PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQAIJ, &aijfamily));
      PetscCall(MatGetOwnershipRange(A0, &rstart, &rend));
      for (PetscInt k = 0; k < reps_refresh; ++k) { /* the median of reps_refresh refreshes */
      PetscCall(NowAll(&t0));
      if (aijfamily) {
        PetscScalar *v;
        PetscCall(MatSeqAIJGetArrayWrite(A, &v)); /* the values are now the host's */
        PetscCall(MatSeqAIJRestoreArrayWrite(A, &v));
      } else if (mpiaij) {
        Mat          Ad, Ao;
        PetscScalar *v;
        PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
        PetscCall(MatSeqAIJGetArrayWrite(Ad, &v));
        PetscCall(MatSeqAIJRestoreArrayWrite(Ad, &v));
        PetscCall(MatSeqAIJGetArrayWrite(Ao, &v));
        PetscCall(MatSeqAIJRestoreArrayWrite(Ao, &v));
      } else {
        if (row >= rstart && row < rend) {
          const PetscInt *cols;
          PetscInt        ncols;
          PetscCall(MatGetRow(A0, row, &ncols, &cols, NULL));
          if (ncols) PetscCall(MatSetValue(A, row, cols[0], 0.0, ADD_VALUES));
          PetscCall(MatRestoreRow(A0, row, &ncols, &cols, NULL));
        }
        PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
        PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
      }
      PetscCall(MatMult(A, x, y));
      PetscCall(Now(&t1));
      ms = 1e3 * (t1 - t0);
      PetscCall(MaxOverRanks(&ms, 1));
      rms[k] = ms;
      }
      qsort(rms, (size_t)reps_refresh, sizeof(double), CmpDouble);
      r->refresh = rms[reps_refresh / 2] - r->median;
    }
    PetscCall(MatGpuMatGetDeviceBytes(A, &ours, &dev_bytes)); /* this rank's blocks */
    {
      const char *sd = NULL, *so = NULL;
      PetscCall(MatGpuMatGetStoredAs(A, &sd, &so));
      if (so) PetscCall(PetscSNPrintf(r->stored_as, sizeof(r->stored_as), "%s/%s", sd ? sd : "-", so));
      else PetscCall(PetscStrncpy(r->stored_as, sd ? sd : "-", sizeof(r->stored_as)));
    }
    r->read_bytes = NAN;
    if (ours && !r->gpu) r->format_bytes = 12.0 * nnz + 4.0 * (M + 1); /* host vectors: PETSc's SeqAIJ kernels on the CSR arrays */
    else if (ours) {
      PetscCall(ReadBytes(A, &r->read_bytes));
      r->format_bytes = (double)dev_bytes;
      if (nranks > 1) PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &r->format_bytes, 1, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD));
    } else if (!strncmp(type, "aijcusparse", 11)) r->format_bytes = 12.0 * nnz + 4.0 * (M + 1);
    else {
      MatInfo ai;
      PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &ai));
      r->format_bytes = 12.0 * ai.nz_allocated + 4.0 * M;
    }
    if (ksp_its && (r->gpu || ksp_host)) { /* host types: minutes per solve on the suite's sizes, left out unless -ksp_host */
      Vec b;
      PetscCall(MatDestroy(&A)); /* a fresh copy: the first solve includes the build */
      PetscCall(ConvertTo(A0, type, variant, &A));
      PetscCall(MatCreateVecs(A, NULL, &b));
      PetscCall(VecCopy(b0, b));
      PetscCall(TimeKSP(A, b, spd, ksp_its, &r->ksp_first_ms, &r->ksp_ms_per_it));
      PetscCall(VecDestroy(&b));
    }
    if (dense_k > 0 && r->gpu) {
      PetscBool aij, maij;
      PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQAIJ, &aij));
      PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPIAIJ, &maij));
      if (aij || maij) PetscCall(TimeDense(A, dense_k, reps_coo, r));
    }
    if (coo) { /* last: it preallocates A anew */
      PetscBool aij, maij;
      PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQAIJ, &aij));
      PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPIAIJ, &maij));
#if defined(PETSC_HAVE_CUDA)
      if (r->gpu && (aij || maij)) PetscCall(TimeCOO(A0, A, x, y, reps_coo, r->median, r));
#endif
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
    PetscCall(PetscFOpen(PETSC_COMM_WORLD, csv, "a", &f));
    if (csv_header) PetscCall(PetscFPrintf(PETSC_COMM_WORLD, f, "%s\n", CSV_HEADER));
  }
  for (PetscInt i = 0; i < ntypes; i++) {
    Result *r         = &res[i];
    double  gbs       = csr_bytes / (r->median * 1e-3) / 1e9;
    double  fmt_gbs   = (r->format_bytes + 8.0 * (M + N)) / (r->median * 1e-3) / 1e9;
    double  build     = r->first - r->median;
    double  ksp_build = r->ksp_first_ms - ksp_its * r->ksp_ms_per_it; /* first solve beyond its iterations */
    char    be[32]    = "-";
    if (best >= 0 && i != best && r->ksp_ms_per_it > 0) { /* k with build_i + k it_i <= build_best + k it_best */
      double bb = res[best].ksp_first_ms - ksp_its * res[best].ksp_ms_per_it, d = res[best].ksp_ms_per_it - r->ksp_ms_per_it;
      if (ksp_build <= bb && d >= 0) PetscCall(PetscStrncpy(be, "0", sizeof(be)));
      else if (d > 0) PetscCall(PetscSNPrintf(be, sizeof(be), "%.0f", PetscCeilReal((ksp_build - bb) / d)));
      else PetscCall(PetscStrncpy(be, "never", sizeof(be)));
    }
    /* a build or refresh cost within the spread of the steady products is noise, not a cost */
    const double    noise = r->max - r->min;
    const PetscBool build_ok = build > noise ? PETSC_TRUE : PETSC_FALSE, refresh_ok = r->refresh > noise ? PETSC_TRUE : PETSC_FALSE, ksp_ok = r->ksp_ms_per_it > 0 ? PETSC_TRUE : PETSC_FALSE;
    char            c_copy[16], c_build[16], c_bmv[16], c_refresh[16], c_err[16], c_kit[16], c_ksp[16];
    Cell(c_copy, sizeof(c_copy), "%6.1f", copy_gbs > 0 ? 100.0 * gbs / copy_gbs : 0, copy_gbs > 0, "-");
    Cell(c_build, sizeof(c_build), "%9.2f", build, build_ok, "<noise");
    Cell(c_bmv, sizeof(c_bmv), "%8.1f", build / r->median, build_ok, "-");
    Cell(c_refresh, sizeof(c_refresh), "%9.2f", r->refresh, refresh_ok, "<noise");
    Cell(c_err, sizeof(c_err), "%9.2e", r->err, i > 0, "reference");
    Cell(c_kit, sizeof(c_kit), "%9.4f", r->ksp_ms_per_it, ksp_ok, "-");
    Cell(c_ksp, sizeof(c_ksp), "%8.2f", r->ksp_first_ms, ksp_ok, "-");
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-22s %9.4f %9.4f %9.4f %8.0f %6s %9.0f %8.1f %9s %8s %9s %9s %9s %8s %9s", r->type, r->median, r->min, r->max, gbs, c_copy, fmt_gbs, 1e-6 * r->format_bytes, c_build, c_bmv, c_refresh, c_err, c_kit, c_ksp, be));
    if (!build_ok) build = NAN; /* the CSV says 'nan' where the table says below noise */
    if (!refresh_ok) r->refresh = NAN;
    if (nranks > 1) {
      char d[16], o[16], s[16];
      FormatMs(d, sizeof(d), r->diag);
      FormatMs(o, sizeof(o), r->offd);
      FormatMs(s, sizeof(s), r->scatter);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, " %s %s %s", d, o, s));
    }
    if (IsBccoo(r->type) && !PetscIsNanReal(bccoo_ms[1]) && r->median > 0) /* its speed against its floors */
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "   at %.1f %% of floor:bccoo-gather, %.1f %% of floor:bccoo-stream", 100.0 * bccoo_ms[1] / r->median, 100.0 * bccoo_ms[0] / r->median));
    if (IsPjds(r->type) && !PetscIsNanReal(pjds_ms[1]) && r->median > 0)
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "   at %.1f %% of floor:pjds-gather, %.1f %% of floor:pjds-stream", 100.0 * pjds_ms[1] / r->median, 100.0 * pjds_ms[0] / r->median));
    if (IsBce(r->type) && !PetscIsNanReal(bce_ms[1]) && r->median > 0)
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "   at %.1f %% of floor:bce-gather, %.1f %% of floor:bce-stream", 100.0 * bce_ms[1] / r->median, 100.0 * bce_ms[0] / r->median));
    if (PetscIsNormalReal(r->read_bytes) && nnz > 0) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "   reads %.2f B/nnz", r->read_bytes / (double)nnz));
    if (!strncmp(r->type, "gpuauto", 7)) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "   chose %s", r->stored_as));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
    if (r->tuner[0]) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s", r->tuner)); /* rank 0's */
    if (f)
      PetscCall(PetscFPrintf(PETSC_COMM_WORLD, f, "%s,%s,%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ",%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.3g,%" PetscInt_FMT ",%.6g,%.6g,%s,%d,%s,%.0f,%.0f,%.6g,%.0f,%.6g,%.6g,%.6g,%s,%.6g\n", name, r->type, M, N, nnz, r->median, r->min, r->max, gbs, fmt_gbs, copy_gbs, r->format_bytes, build,
                             build / r->median, r->refresh, r->refresh / r->median, r->err, r->ksp_ms_per_it > 0 ? ksp_its : 0, r->ksp_ms_per_it > 0 ? r->ksp_ms_per_it : NAN, r->ksp_ms_per_it > 0 ? r->ksp_first_ms : NAN, strcmp(be, "never") ? be : "inf", nranks, layout,
                             dist.nnz_min, dist.nnz_max, dist.offdiag_share, dist.ghosts_max, r->diag, r->offd, r->scatter, r->stored_as[0] ? r->stored_as : "-", r->read_bytes));
  }
  if (coo) { /* -coo: the device COO assembly of each GPU type of the AIJ family */
    FILE *g = NULL;
    if (coo_csv[0]) {
      int empty = 1; /* a new or empty file gets the header */
      if (myrank == 0) {
        FILE *e = fopen(coo_csv, "r");
        if (e) {
          empty = fgetc(e) == EOF;
          fclose(e);
        }
      }
      PetscCallMPI(MPI_Bcast(&empty, 1, MPI_INT, 0, PETSC_COMM_WORLD));
      PetscCall(PetscFOpen(PETSC_COMM_WORLD, coo_csv, "a", &g));
      if (empty) PetscCall(PetscFPrintf(PETSC_COMM_WORLD, g, "matrix,type,ranks,layout,nnz,entries,coo_ms,coo_min_ms,coo_max_ms,coo_mults,median_ms\n"));
    }
    for (PetscInt i = 0; i < ntypes; i++) {
      Result *r = &res[i];
      if (PetscIsNanReal(r->coo)) {
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "coo %s: not measured (GPU types of the AIJ family only)\n", r->type));
        continue;
      }
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "coo %s: device MatSetValuesCOO (%" PetscInt_FMT " entries, INSERT_VALUES) + product - product: median %.4f ms (min %.4f, max %.4f) = %.2f MatMults\n", r->type, r->coo_entries, r->coo, r->coo_min, r->coo_max, r->coo / r->median));
      if (g) PetscCall(PetscFPrintf(PETSC_COMM_WORLD, g, "%s,%s,%d,%s,%" PetscInt_FMT ",%" PetscInt_FMT ",%.6g,%.6g,%.6g,%.6g,%.6g\n", name, r->type, nranks, layout, nnz, r->coo_entries, r->coo, r->coo_min, r->coo_max, r->coo / r->median, r->median));
    }
    if (g) PetscCall(PetscFClose(PETSC_COMM_WORLD, g));
  }
  for (PetscInt i = 0; i < ntypes && dense_k > 0; i++) {
    Result *r = &res[i];
    if (PetscIsNanReal(r->dense)) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "dense %s: not measured (GPU types of the AIJ family only)\n", r->type));
      continue;
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "dense %s: C = A B, B dense with %" PetscInt_FMT " columns: median %.4f ms (min %.4f, max %.4f), %.4f ms per column = %.2f MatMults per column; C = A^T B: median %.4f ms\n", r->type, dense_k, r->dense, r->dense_min, r->dense_max, r->dense / dense_k, r->dense / dense_k / r->median, r->dense_t));
  }
  for (PetscInt i = 0; i < ntypes && nranks > 1; i++) { /* the parts against the whole (the scatter overlaps the diagonal block in a product) */
    Result *r = &res[i];
    if (PetscIsNanReal(r->diag)) continue;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "split %s: diag + offd + scatter = %.4f + %.4f + %.4f = %.4f ms, product %.4f ms (parts/product %.2f)\n", r->type, r->diag, r->offd, r->scatter, r->diag + r->offd + r->scatter, r->median, (r->diag + r->offd + r->scatter) / r->median));
    {
      char line[16 * MAX_SPLIT_RANKS] = "";
      for (PetscMPIInt k = 0; k < PetscMin(nranks, MAX_SPLIT_RANKS); k++) {
        char item[16];
        PetscCall(PetscSNPrintf(item, sizeof(item), " %.4f", r->diag_rank[k]));
        PetscCall(PetscStrlcat(line, item, sizeof(line)));
      }
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "split %s: diagonal block by rank (each rank's own median, ms):%s%s\n", r->type, line, nranks > MAX_SPLIT_RANKS ? " ..." : ""));
    }
  }
  if (f) PetscCall(PetscFClose(PETSC_COMM_WORLD, f));
  PetscCall(PetscFree(t));
  PetscCall(VecDestroy(&yref));
  PetscCall(VecDestroy(&x0));
  PetscCall(VecDestroy(&b0));
  PetscCall(MatDestroy(&A0));
  if (nskipped) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "!! %" PetscInt_FMT " type(s) skipped\n", nskipped));
  PetscCall(PetscFinalize());
  return nskipped ? 1 : 0;
}
