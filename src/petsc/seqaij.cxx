// The sequential AIJ subclass shared by every format (the aijsell / aijcusparse pattern):
// MatCreate_SeqAIJ + the parent's operations saved + ours from one table (kSeqOps).
//
// State: one per block. `nzstate` is the nonzero pattern (PETSc's nonzerostate) that the format's
// storage, the compressed-row list and the 32-bit index copies belong to; `valstate` the object
// state whose values the sides in `current` (host, device: an offload mask) hold. A product makes
// its side current: a new pattern builds, new values refresh, nothing else rebuilds.
//
// Products: with CUDA vectors on the GPU through the format (PETSc's stream, no synchronization);
// with host vectors PETSc's own SeqAIJ kernels (the parent's operations), or the format's host
// reference kernel with -mat_gpumat_host_reference. An operation the format lacks on the device
// (an optional capability) falls back to the parent's.
//
// Compressed rows: a block with at least -mat_gpumat_compressed_rows_ratio (0.6, PETSc's rule) of
// its rows empty, or whose format asks for it, is stored as the CSR of its nonempty rows; the
// machinery adds the result into y through the row list (src/core/compressed.hpp,
// src/cuda/rowmap.cuh), so every format pays for nonzeros and nonempty rows only.
#include "gpumat_impl.hpp"
#include "core/compressed.hpp"
#include <petsctime.h>
#if defined(GPUMAT_WITH_CUDA)
  #include "cuda/rowmap.cuh"
#endif

namespace gpumat {
namespace {

enum Side : unsigned { kHost = 1u, kDevice = 2u };
enum Compress { kCompressAuto, kCompressAlways, kCompressNever };
const char *const kCompressNames[] = {"auto", "always", "never", "MatGpuMatCompressedRows", "MAT_GPUMAT_COMPRESSED_ROWS_", nullptr};

struct Options {
  PetscBool eager          = PETSC_FALSE; // build in MatAssemblyEnd
  PetscBool force_host     = PETSC_FALSE; // host products even with CUDA vectors
  PetscBool host_reference = PETSC_FALSE; // the format's host kernel instead of SeqAIJ's for host products
  PetscEnum compress       = (PetscEnum)kCompressAuto;
  PetscReal compress_ratio = 0.6; // PETSc's SeqAIJ ratio (MatCheckCompressedRow)
  // the disk cache of tuning decisions: its directory (default_tuning_dir() unless set), off
  std::string tuning_cache;
  PetscBool   tuning_cache_disable = PETSC_FALSE;
};

struct SeqData {
  const FormatInfo       *info = nullptr;
  std::unique_ptr<Format> fmt;
  struct _MatOps          parent; // the parent's operations, kept up to date by ReinstallOps
  Options                 opt;
  HostCsr                 csr;

  // the one state of the block
  PetscObjectState nzstate = -1, valstate = -1;
  unsigned         built = 0, current = 0; // sides with storage for nzstate / with the values of valstate

  // compressed rows (for nzstate)
  index_t             empty_rows = 0;
  bool                compressed = false;
  CompressedRows      cr;
  std::vector<Scalar> hwork; // host work vector of the compressed products
#if defined(GPUMAT_WITH_CUDA)
  cuda::RowMapDevice<Scalar> dmap;
#endif

  // statistics for MatView, per side
  PetscLogDouble build_seconds[2] = {0, 0}, refresh_seconds[2] = {0, 0};
  PetscInt       builds[2] = {0, 0}, refreshes[2] = {0, 0};
};

SeqData *Data(Mat A) { return static_cast<SeqData *>(A->spptr); }
int      SideIndex(unsigned side) { return side == kHost ? 0 : 1; }

// The matrix the format stores: the block, or its nonempty rows.
CsrView<Scalar> Stored(const SeqData *d) { return d->compressed ? d->cr.view(d->csr.view()) : d->csr.view(); }

// Makes `side` hold the current pattern and values of A.
PetscErrorCode Ensure(Mat A, unsigned side, cudaStream_t stream)
{
  SeqData         *d = Data(A);
  const TypeNames &n = Names(d->info);
  PetscObjectState state;
  PetscFunctionBegin;
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  const bool new_pattern = d->nzstate != A->nonzerostate;
  if (!new_pattern && d->valstate == state && (d->current & side)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(d->csr.Get(A, new_pattern));
  if (new_pattern) {
    const CsrView<Scalar> &full = d->csr.view();
    RowStats rs;
    PetscCallCXX(rs = row_stats(full));
    d->empty_rows = rs.empty;
    d->fmt->SetLongestRow(rs.longest);
    switch ((Compress)d->opt.compress) {
    case kCompressAlways: d->compressed = true; break;
    case kCompressNever: d->compressed = false; break;
    default: d->compressed = compressed_rows_pay(full.nrows, d->empty_rows, d->opt.compress_ratio) || (d->empty_rows > 0 && d->fmt->WantsCompressedRows(full));
    }
    if (d->compressed) PetscCallCXX(compress_rows(full, d->cr));
    else PetscCallCXX(d->cr = CompressedRows());
    {
      PetscInt rbs, cbs;
      PetscCall(MatGetBlockSizes(A, &rbs, &cbs));
      d->fmt->SetBlockSize(!d->compressed && rbs == cbs ? (int)rbs : 1);
    }
    PetscCallCXX(d->fmt->SetTuningCacheDir(d->opt.tuning_cache_disable ? std::string() : d->opt.tuning_cache));
    PetscCallCXX(d->hwork.assign(d->compressed ? (std::size_t)d->cr.size() : 0, Scalar(0)));
    d->built = d->current = 0;
    d->nzstate            = A->nonzerostate;
  }
  if (d->valstate != state) {
    d->valstate = state;
    d->current  = 0;
  }
  if (d->current & side) PetscFunctionReturn(PETSC_SUCCESS);

  const CsrView<Scalar> stored = Stored(d);
  const bool            build  = !(d->built & side);
  const int             s      = SideIndex(side);
  PetscLogDouble        t0, t1;
  PetscCall(PetscTime(&t0));
  PetscCall(PetscLogEventBegin(build ? n.build : n.refresh, A, 0, 0, 0));
  if (side == kHost) {
    PetscCall(build ? d->fmt->HostBuild(stored) : d->fmt->HostRefresh(stored));
  } else {
#if defined(GPUMAT_WITH_CUDA)
    if (build) {
      PetscCall(d->fmt->DeviceBuild(stored, stream));
      if (d->compressed) PetscCall(CheckDevice(d->dmap.build(d->cr.rows.data(), d->cr.size(), stream), "compressed rows", stored));
      else d->dmap.release();
      PetscCallCUDA(cudaStreamSynchronize(stream)); // once per pattern: the build time is reported
      // the CSR bytes the build reads from the host (a format may store fewer or more)
      PetscCall(PetscLogCpuToGpu((PetscLogDouble)(stored.nrows + 1 + stored.nnz()) * sizeof(index_t) + (PetscLogDouble)stored.nnz() * sizeof(Scalar) + (PetscLogDouble)d->cr.size() * sizeof(index_t)));
    } else {
      PetscCall(d->fmt->DeviceRefresh(stored, stream));
      PetscCall(PetscLogCpuToGpu((PetscLogDouble)stored.nnz() * sizeof(Scalar)));
    }
#else
    (void)stream;
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "device storage requested in a build without CUDA");
#endif
  }
  PetscCall(PetscLogEventEnd(build ? n.build : n.refresh, A, 0, 0, 0));
  PetscCall(PetscTime(&t1));
  if (build) {
    d->build_seconds[s] = t1 - t0;
    d->builds[s]++;
  } else {
    d->refresh_seconds[s] += t1 - t0;
    d->refreshes[s]++;
  }
  d->built |= side;
  d->current |= side;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// PETSc's flop count of a product (MatMult_SeqAIJ: 2 nnz, less one per nonempty row without z).
PetscLogDouble ProductFlops(Mat A, Op op, bool add)
{
  const SeqData *d = Data(A);
  return 2.0 * (PetscLogDouble)d->csr.view().nnz() - (add || op == Op::Trans ? 0.0 : (PetscLogDouble)(A->rmap->n - d->empty_rows));
}

// Whether products with these vectors run on the device: every vector a CUDA vector not bound to
// the CPU, the matrix not bound and not forced to the host.
PetscErrorCode OnDevice(Mat A, std::initializer_list<Vec> vecs, PetscBool *dev)
{
  PetscFunctionBegin;
  *dev = PETSC_FALSE;
#if defined(GPUMAT_WITH_CUDA)
  if (A->boundtocpu || Data(A)->opt.force_host) PetscFunctionReturn(PETSC_SUCCESS);
  for (Vec v : vecs) {
    PetscBool cuda, bound;
    if (!v) continue;
    PetscCall(PetscObjectTypeCompareAny((PetscObject)v, &cuda, VECSEQCUDA, VECMPICUDA, ""));
    if (!cuda) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(VecBoundToCPU(v, &bound)); // a CUDA vector bound to the CPU keeps its values on the host
    if (bound) PetscFunctionReturn(PETSC_SUCCESS);
  }
  *dev = PETSC_TRUE;
#else
  (void)A;
  (void)vecs;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(GPUMAT_WITH_CUDA)
PetscErrorCode DeviceApply(Mat A, Op op, Vec x, Vec z, Vec y)
{
  SeqData           *d = Data(A);
  const PetscScalar *xa, *za = nullptr;
  PetscScalar       *ya;
  PetscMemType       mx, mz = PETSC_MEMTYPE_DEVICE, my;
  cudaStream_t       stream;
  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(Ensure(A, kDevice, stream));
  PetscCall(VecGetArrayReadAndMemType(x, &xa, &mx));
  if (z == y) {
    PetscCall(VecGetArrayAndMemType(y, &ya, &my));
    za = ya;
  } else {
    if (z) PetscCall(VecGetArrayReadAndMemType(z, &za, &mz));
    PetscCall(VecGetArrayWriteAndMemType(y, &ya, &my));
  }
  PetscCheck(PetscMemTypeDevice(mx) && PetscMemTypeDevice(my) && PetscMemTypeDevice(mz), PETSC_COMM_SELF, PETSC_ERR_PLIB, "CUDA vectors gave host memory");
  const CsrView<Scalar> stored = Stored(d);
  PetscCall(PetscLogGpuTimeBegin());
  if (!d->compressed) PetscCall(d->fmt->DeviceApply(op, xa, za, ya, stream));
  else if (op == Op::NoTrans) { // w = Ac x; y = z (or 0); y[rows] += w
    PetscCall(d->fmt->DeviceApply(Op::NoTrans, xa, nullptr, d->dmap.work(), stream));
    PetscCall(CheckDevice(cuda::init_output(ya, za, (index_t)A->rmap->n, stream), "compressed rows", stored));
    PetscCall(CheckDevice(d->dmap.scatter_add(d->dmap.work(), ya, stream), "compressed rows", stored));
  } else { // w = x[rows]; y = z + Ac^T w
    PetscCall(CheckDevice(d->dmap.gather(xa, d->dmap.work(), stream), "compressed rows", stored));
    PetscCall(d->fmt->DeviceApply(Op::Trans, d->dmap.work(), za, ya, stream));
  }
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(VecRestoreArrayReadAndMemType(x, &xa));
  if (z == y) PetscCall(VecRestoreArrayAndMemType(y, &ya));
  else {
    if (z) PetscCall(VecRestoreArrayReadAndMemType(z, &za));
    PetscCall(VecRestoreArrayWriteAndMemType(y, &ya));
  }
  PetscCall(PetscLogGpuFlops(ProductFlops(A, op, z != nullptr)));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

// The format's host reference kernel (tests, -mat_gpumat_host_reference).
PetscErrorCode HostReferenceApply(Mat A, Op op, Vec x, Vec z, Vec y)
{
  SeqData           *d = Data(A);
  const PetscScalar *xa, *za = nullptr;
  PetscScalar       *ya;
  PetscFunctionBegin;
  PetscCall(Ensure(A, kHost, nullptr));
  PetscCall(VecGetArrayRead(x, &xa));
  if (z == y) {
    PetscCall(VecGetArray(y, &ya));
    za = ya;
  } else {
    if (z) PetscCall(VecGetArrayRead(z, &za));
    PetscCall(VecGetArrayWrite(y, &ya));
  }
  const CsrView<Scalar> stored = Stored(d);
  const index_t         k      = d->cr.size();
  if (!d->compressed) PetscCall(d->fmt->HostApply(stored, op, xa, za, ya));
  else if (op == Op::NoTrans) {
    PetscCall(d->fmt->HostApply(stored, Op::NoTrans, xa, nullptr, d->hwork.data()));
    if (za != ya) {
      for (PetscInt i = 0; i < A->rmap->n; i++) ya[i] = za ? za[i] : 0;
    }
    scatter_add_rows(k, d->cr.rows.data(), d->hwork.data(), ya);
  } else {
    gather_rows(k, d->cr.rows.data(), xa, d->hwork.data());
    PetscCall(d->fmt->HostApply(stored, Op::Trans, d->hwork.data(), za, ya));
  }
  PetscCall(VecRestoreArrayRead(x, &xa));
  if (z == y) PetscCall(VecRestoreArray(y, &ya));
  else {
    if (z) PetscCall(VecRestoreArrayRead(z, &za));
    PetscCall(VecRestoreArrayWrite(y, &ya));
  }
  PetscCall(PetscLogFlops(ProductFlops(A, op, z != nullptr)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// PETSc's SeqAIJ kernels (the parent's operations, inode variants included).
PetscErrorCode ParentApply(Mat A, Op op, Vec x, Vec z, Vec y)
{
  const struct _MatOps &p = Data(A)->parent;
  PetscFunctionBegin;
  if (op == Op::NoTrans) PetscCall(z ? p.multadd(A, x, z, y) : p.mult(A, x, y));
  else PetscCall(z ? p.multtransposeadd(A, x, z, y) : p.multtranspose(A, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Mult(Mat A, Vec x, Vec y) { return SeqApply(A, Op::NoTrans, x, nullptr, y); }
PetscErrorCode MultAdd(Mat A, Vec x, Vec z, Vec y) { return SeqApply(A, Op::NoTrans, x, z, y); }
PetscErrorCode MultTranspose(Mat A, Vec x, Vec y) { return SeqApply(A, Op::Trans, x, nullptr, y); }
PetscErrorCode MultTransposeAdd(Mat A, Vec x, Vec z, Vec y) { return SeqApply(A, Op::Trans, x, z, y); }

PetscErrorCode GetDiagonal(Mat A, Vec v)
{
  SeqData  *d = Data(A);
  PetscBool dev;
  PetscFunctionBegin;
  PetscCall(OnDevice(A, {v}, &dev));
  if (!dev || !d->fmt->HasDeviceDiagonal()) {
    PetscCall(d->parent.getdiagonal(A, v));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#if defined(GPUMAT_WITH_CUDA)
  cudaStream_t stream;
  PetscScalar *va;
  PetscMemType mv;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(Ensure(A, kDevice, stream));
  PetscCall(VecGetArrayWriteAndMemType(v, &va, &mv));
  PetscCheck(PetscMemTypeDevice(mv), PETSC_COMM_SELF, PETSC_ERR_PLIB, "CUDA vector gave host memory");
  if (d->compressed) { // rows not in the list are empty: 0 on the diagonal
    PetscCallCUDA(cudaMemsetAsync(va, 0, (size_t)A->rmap->n * sizeof(PetscScalar), stream));
    PetscCall(d->fmt->DeviceDiagonal(d->dmap.rows(), va, stream));
  } else PetscCall(d->fmt->DeviceDiagonal(nullptr, va, stream));
  PetscCall(VecRestoreArrayWriteAndMemType(v, &va));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AssemblyEnd(Mat A, MatAssemblyType mode);
PetscErrorCode Destroy(Mat A);
PetscErrorCode Duplicate(Mat A, MatDuplicateOption op, Mat *B);
PetscErrorCode View(Mat A, PetscViewer viewer);
PetscErrorCode SetFromOptions(Mat A, PetscOptionItems PetscOptionsObject);

// Every operation a seq type of ours overrides: install, reinstall and uninstall walk this table.
const OpSlot kSeqOps[] = {
  GPUMAT_OP(assemblyend, AssemblyEnd),
  GPUMAT_OP(destroy, Destroy),
  GPUMAT_OP(duplicate, Duplicate),
  GPUMAT_OP(view, View),
  GPUMAT_OP(setfromoptions, SetFromOptions),
  GPUMAT_OP(mult, Mult),
  GPUMAT_OP(multadd, MultAdd),
  GPUMAT_OP(multtranspose, MultTranspose),
  GPUMAT_OP(multtransposeadd, MultTransposeAdd),
  GPUMAT_OP(multhermitiantranspose, MultTranspose), // real scalars only
  GPUMAT_OP(multhermitiantransposeadd, MultTransposeAdd),
  GPUMAT_OP(getdiagonal, GetDiagonal),
};
constexpr OpTable kSeqTable = {kSeqOps, sizeof(kSeqOps) / sizeof(kSeqOps[0])};

// The side the products will run on when nothing says otherwise (eager builds).
unsigned DefaultSide(Mat A)
{
#if defined(GPUMAT_WITH_CUDA)
  if (!Data(A)->opt.force_host && !A->boundtocpu) return kDevice;
#endif
  (void)A;
  return kHost;
}

PetscErrorCode BuildEagerly(Mat A)
{
  const unsigned side   = DefaultSide(A);
  cudaStream_t   stream = nullptr;
  PetscFunctionBegin;
#if defined(GPUMAT_WITH_CUDA)
  if (side == kDevice) PetscCall(PetscGetCurrentCUDAStream(&stream));
#endif
  PetscCall(Ensure(A, side, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AssemblyEnd(Mat A, MatAssemblyType mode)
{
  SeqData             *d      = Data(A);
  const struct _MatOps before = *A->ops;
  PetscFunctionBegin;
  PetscCall(d->parent.assemblyend(A, mode));
  ReinstallOps(A, kSeqTable, before, &d->parent); // the parent may have chosen its inode products
  if (mode == MAT_FLUSH_ASSEMBLY) PetscFunctionReturn(PETSC_SUCCESS);
  if (d->opt.eager) {
    PetscCall(BuildEagerly(A));
    // MatAssemblyEnd() increases the object state once, after this returns (matrix.c): the
    // storage just built holds the values of that state.
    d->valstate += 1;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Uninstall(Mat A); // back to plain SeqAIJ

PetscErrorCode Destroy(Mat A)
{
  PetscErrorCode (*destroy)(Mat) = Data(A)->parent.destroy; // not A->ops->destroy: it may chain to us
  PetscFunctionBegin;
  PetscCall(Uninstall(A));
  PetscCall(destroy(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Duplicate(Mat A, MatDuplicateOption op, Mat *B)
{
  SeqData *d = Data(A);
  PetscFunctionBegin;
  PetscCall(d->parent.duplicate(A, op, B)); // creates *B with our type name, so *B is ours with defaults
  SeqData *e = Data(*B);
  e->fmt     = d->fmt->CloneSettings();
  e->opt     = d->opt;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SetFromOptions(Mat A, PetscOptionItems PetscOptionsObject)
{
  SeqData *d = Data(A);
  PetscFunctionBegin;
  if (d->parent.setfromoptions) PetscCall(d->parent.setfromoptions(A, PetscOptionsObject));
  PetscCall(SeqSetFromOptionsItems(A, PetscOptionsObject));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode View(Mat A, PetscViewer viewer)
{
  SeqData          *d = Data(A);
  PetscBool         ascii;
  PetscViewerFormat format;
  PetscFunctionBegin;
  PetscCall(d->parent.view(A, viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerGetFormat(viewer, &format));
  if (format != PETSC_VIEWER_ASCII_INFO && format != PETSC_VIEWER_ASCII_INFO_DETAIL) PetscFunctionReturn(PETSC_SUCCESS);
  // MatView is no product: it builds nothing and changes no state; the storage's statistics are
  // shown only while they describe the current pattern
  const bool new_pattern = d->nzstate != A->nonzerostate, built = d->built && !new_pattern;
  PetscCall(d->csr.Get(A, new_pattern));
  if (!built) { // the block size hint the next build of the full block gets (Ensure), so ViewInfo describes that build
    PetscInt rbs, cbs;
    PetscCall(MatGetBlockSizes(A, &rbs, &cbs));
    d->fmt->SetBlockSize(rbs == cbs ? (int)rbs : 1);
    PetscCallCXX(d->fmt->SetLongestRow(row_stats(d->csr.view()).longest));
  }
  const CsrView<Scalar> &full      = d->csr.view();
  const double           csr_bytes = (double)(full.nrows + 1 + full.nnz()) * sizeof(index_t) + (double)full.nnz() * sizeof(Scalar);
  PetscCall(PetscViewerASCIIPrintf(viewer, "petsc-gpumat %s: %s\n", d->info->name, d->info->title));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  if (built && d->compressed) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "compressed rows: %d of %d (the format stores the nonempty rows; products add through the row list)\n", (int)d->cr.size(), (int)full.nrows));
    PetscCall(d->fmt->ViewInfo(viewer, d->cr.view(full)));
  } else {
    if (built) PetscCall(PetscViewerASCIIPrintf(viewer, "compressed rows: no (%d of %d rows empty)\n", (int)d->empty_rows, (int)full.nrows));
    PetscCall(d->fmt->ViewInfo(viewer, full));
  }
  const char *host = d->opt.host_reference ? "the format's host reference kernel" : "PETSc's SeqAIJ kernels";
  PetscCall(PetscViewerASCIIPrintf(viewer, "products: CUDA vectors on the GPU (this format), host vectors with %s%s\n", host, d->opt.force_host ? " (-mat_gpumat_host: every product on the host)" : ""));
  PetscCall(PetscViewerASCIIPrintf(viewer, "builds: host %" PetscInt_FMT ", device %" PetscInt_FMT "; value refreshes: host %" PetscInt_FMT ", device %" PetscInt_FMT "\n", d->builds[0], d->builds[1], d->refreshes[0], d->refreshes[1]));
  std::size_t dev = d->fmt->DeviceBytes();
#if defined(GPUMAT_WITH_CUDA)
  dev += d->dmap.device_bytes();
#endif
  if (dev) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "device memory: %zu bytes, %.3f bytes per nonzero (CSR with 32-bit indices: %.3f)\n", dev, full.nnz() ? (double)dev / full.nnz() : 0.0, full.nnz() ? csr_bytes / full.nnz() : 0.0));
    PetscCall(PetscViewerASCIIPrintf(viewer, "device build: last %.3g ms; value refreshes: %.3g ms in all\n", 1e3 * d->build_seconds[1], 1e3 * d->refresh_seconds[1]));
  }
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ToSeqAIJ(Mat A, MatReuse reuse, Mat *newmat)
{
  Mat B = *newmat;
  PetscFunctionBegin;
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  else if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(A, *newmat, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(PETSC_SUCCESS);
  } else B = A;
  PetscCall(Uninstall(B));
  *newmat = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// From us to any other type: through plain SeqAIJ.
PetscErrorCode FromUs(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  PetscBool seqaij;
  PetscFunctionBegin;
  PetscCall(PetscStrcmpAny(type, &seqaij, MATSEQAIJ, MATAIJ, ""));
  if (seqaij || reuse == MAT_REUSE_MATRIX) {
    PetscCall(ToSeqAIJ(A, reuse, newmat));
  } else if (reuse == MAT_INPLACE_MATRIX) {
    PetscCall(ToSeqAIJ(A, reuse, newmat));
    PetscCall(MatConvert(*newmat, type, MAT_INPLACE_MATRIX, newmat));
  } else {
    Mat B;
    PetscCall(ToSeqAIJ(A, MAT_INITIAL_MATRIX, &B));
    PetscCall(MatConvert(B, type, MAT_INPLACE_MATRIX, &B));
    *newmat = B;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Uninstall(Mat A)
{
  SeqData *d = Data(A);
  PetscFunctionBegin;
  if (!d) PetscFunctionReturn(PETSC_SUCCESS);
  UninstallOps(A, kSeqTable, &d->parent);
  PetscCall(ComposeConverters(A, d->info, "seq", nullptr, nullptr));
  d->fmt->DeviceRelease();
  PetscCallCXX(delete d);
  A->spptr = nullptr;
  PetscCall(MatSetVecType(A, VECSTANDARD));
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, MATSEQAIJ));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

// Options of the machinery and of the format, within an open options block.
PetscErrorCode SeqSetFromOptionsItems(Mat A, PetscOptionItems PetscOptionsObject)
{
  SeqData    *d    = Data(A);
  std::string head = std::string("petsc-gpumat ") + d->info->name + " options";
  Options    &o    = d->opt;
  PetscBool   set;
  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, head.c_str());
  PetscCall(PetscOptionsBool("-mat_gpumat_eager", "Build the GPU format in MatAssemblyEnd instead of at the first product", "MatAssemblyEnd", o.eager, &o.eager, nullptr));
  PetscCall(PetscOptionsBool("-mat_gpumat_host", "Run products on the host even for CUDA vectors", "MatMult", o.force_host, &o.force_host, nullptr));
  PetscCall(PetscOptionsBool("-mat_gpumat_host_reference", "Host products with the format's host reference kernel instead of PETSc's SeqAIJ kernels", "MatMult", o.host_reference, &o.host_reference, nullptr));
  PetscCall(PetscOptionsEnum("-mat_gpumat_compressed_rows", "Store only the nonempty rows of a block: auto (when the empty-row ratio is reached), always, never", "MatMult", kCompressNames, o.compress, &o.compress, nullptr));
  PetscCall(PetscOptionsReal("-mat_gpumat_compressed_rows_ratio", "Fraction of empty rows from which auto compresses a block (0..1)", "MatMult", o.compress_ratio, &o.compress_ratio, &set));
  PetscCheck(!set || (o.compress_ratio >= 0 && o.compress_ratio <= 1), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_gpumat_compressed_rows_ratio must be in [0, 1], got %g", (double)o.compress_ratio);
  {
    char dir[PETSC_MAX_PATH_LEN];
    if (o.tuning_cache.empty()) PetscCallCXX(o.tuning_cache = default_tuning_dir());
    PetscCall(PetscStrncpy(dir, o.tuning_cache.c_str(), sizeof(dir)));
    PetscCall(PetscOptionsString("-mat_gpumat_tuning_cache", "Directory of the disk cache of tuning decisions (default: $PETSC_GPUMAT_TUNING_DIR, else $XDG_CACHE_HOME/petsc-gpumat/tuning, else ~/.cache/petsc-gpumat/tuning)", "MatMult", dir, dir, sizeof(dir), &set));
    if (set) {
      PetscCheck(dir[0], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-mat_gpumat_tuning_cache needs a directory (-mat_gpumat_tuning_cache_disable turns the cache off)");
      char full[PETSC_MAX_PATH_LEN];
      PetscCall(PetscGetFullPath(dir, full, sizeof(full))); // ~ expanded, relative to the current directory now
      PetscCallCXX(o.tuning_cache = full);
    }
    PetscCall(PetscOptionsBool("-mat_gpumat_tuning_cache_disable", "Neither read nor write the disk cache of tuning decisions (a format that tunes decides afresh for every new nonzero pattern)", "MatMult", o.tuning_cache_disable, &o.tuning_cache_disable, nullptr));
  }
  PetscCall(d->fmt->SetFromOptions(PetscOptionsObject));
  PetscOptionsHeadEnd();
  // new settings: decide and build again at the next product
  d->nzstate = -1;
  d->built = d->current = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

namespace {
PetscErrorCode ReadOptions(Mat A, Mat options_source)
{
  PetscFunctionBegin;
  PetscObjectOptionsBegin((PetscObject)options_source);
  PetscCall(SeqSetFromOptionsItems(A, PetscOptionsObject));
  PetscOptionsEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace

PetscErrorCode SeqInstallWithOptions(Mat A, const FormatInfo *f, Mat options_source)
{
  PetscBool ours, seqaij;
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, Names(f).seq.c_str(), &ours));
  if (ours) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJ, &seqaij));
  PetscCheck(seqaij, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s can only be made from a plain seqaij matrix, not %s", Names(f).seq.c_str(), ((PetscObject)A)->type_name);
  PetscCheck(!A->spptr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "seqaij matrix already carries spptr");
  SeqData *d;
  PetscCallCXX(d = new SeqData);
  d->info = f;
  PetscCallCXX(d->fmt = f->create());
  A->spptr = d;
  InstallOps(A, kSeqTable, &d->parent);
  PetscCall(ComposeConverters(A, f, "seq", MatConvert_SeqAIJ_Gpu, FromUs));
#if defined(GPUMAT_WITH_CUDA)
  // MatCreate() binds every matrix to the CPU in device builds, and MatCreateVecs() passes that on
  // to the vectors: unbind (as aijcusparse does), so our vectors are CUDA vectors on the GPU.
  A->boundtocpu = PETSC_FALSE;
  PetscCall(MatSetVecType(A, VECCUDA));
#endif
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, Names(f).seq.c_str()));
  PetscCall(ReadOptions(A, options_source));
  if (A->assembled && d->opt.eager) PetscCall(BuildEagerly(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SeqInstall(Mat A, const FormatInfo *f) { return SeqInstallWithOptions(A, f, A); }

// Into one of ours from seqaij, seqaijcusparse or another format of ours (MatConvert, MatSetType).
PetscErrorCode MatConvert_SeqAIJ_Gpu(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  const FormatInfo *f = FindFormat(type);
  Mat               B = *newmat;
  PetscBool         seqaij;
  PetscFunctionBegin;
  PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "Not a petsc-gpumat type: %s", type);
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(A, B, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  else B = A;
  PetscCall(PetscObjectTypeCompare((PetscObject)B, MATSEQAIJ, &seqaij));
  if (!seqaij) PetscCall(MatConvert(B, MATSEQAIJ, MAT_INPLACE_MATRIX, &B));
  PetscCall(SeqInstall(B, f));
  *newmat = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

std::size_t SeqDeviceBytes(Mat A)
{
  // blocks of an MPI matrix are plain seqaij until its first assembly
  if (!A || !FindFormat(((PetscObject)A)->type_name) || !A->spptr) return 0;
  std::size_t b = Data(A)->fmt->DeviceBytes();
#if defined(GPUMAT_WITH_CUDA)
  b += Data(A)->dmap.device_bytes();
#endif
  return b;
}

const char *SeqStoredAs(Mat A)
{
  if (!A || !FindFormat(((PetscObject)A)->type_name) || !A->spptr) return nullptr;
  const SeqData *d = Data(A);
  if (!d->built) return nullptr;
  return d->fmt->StoredAs().empty() ? d->info->name : d->fmt->StoredAs().c_str();
}

PetscErrorCode SeqApply(Mat A, Op op, Vec x, Vec z, Vec y)
{
  SeqData  *d = Data(A);
  PetscBool dev;
  PetscFunctionBegin;
  PetscCheck(d, PETSC_COMM_SELF, PETSC_ERR_PLIB, "not a petsc-gpumat matrix");
  PetscCall(OnDevice(A, {x, y, z}, &dev));
#if defined(GPUMAT_WITH_CUDA)
  if (dev && (op == Op::NoTrans || d->fmt->HasDeviceTranspose())) {
    PetscCall(DeviceApply(A, op, x, z, y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  if (d->opt.host_reference) PetscCall(HostReferenceApply(A, op, x, z, y));
  else PetscCall(ParentApply(A, op, x, z, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpumat
