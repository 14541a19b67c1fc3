// A block's products y = op(A) x (+ z) and its diagonal: with device vectors on the GPU through the
// format (PETSc's stream, no synchronization), or, for a device product's result with a CSR on the
// GPU already, through cuSPARSE on that CSR (its adopted shadow: the transposed products always, the
// others until -mat_gpumat_shadow_products of them ran, before the format's build); with host
// vectors PETSc's own SeqAIJ kernels (the parent's operations), or the format's host reference
// kernel with -mat_gpumat_host_reference. An operation the format lacks on the device (an optional
// capability) falls back to the parent's.
// The MPI product reaches its blocks through one seam, BlockProductBegin/End (machinery.hpp).
#include "block.hpp"
#include "shadow.hpp"
#include <petsc/private/logimpl.h> // PetscLogGpuTimeFlag

namespace gpumat {
namespace {

// Whether y = op(A) x (+ z) runs on the GPU: device vectors (OnDevice) and, transposed, a format
// with a device transpose; otherwise the host (the parent's product or the host reference).
PetscErrorCode DevicePath(Mat A, Op op, Vec x, Vec z, Vec y, PetscBool *dev)
{
  SeqData *d = Data(A);
  PetscFunctionBegin;
  PetscCheck(d, PETSC_COMM_SELF, PETSC_ERR_PLIB, "not a petsc-gpumat matrix");
  PetscCall(OnDevice(A, {x, y, z}, dev));
  if (*dev && op != Op::NoTrans && !d->fmt->HasDeviceTranspose()) *dev = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// A product's vector arrays (z may be y): where their memory types say (device products), or
// on the host (host == true: the host reference, which reads device vectors' arrays there too).
struct Arrays {
  const PetscScalar *x = nullptr, *z = nullptr;
  PetscScalar       *y = nullptr;
  PetscMemType       mx = PETSC_MEMTYPE_HOST, mz = PETSC_MEMTYPE_DEVICE, my = PETSC_MEMTYPE_HOST;
  bool               host = false;
};
PetscErrorCode GetArrays(Vec x, Vec z, Vec y, Arrays *a)
{
  PetscFunctionBegin;
  if (a->host) {
    PetscCall(VecGetArrayRead(x, &a->x));
    if (z == y) {
      PetscCall(VecGetArray(y, &a->y));
      a->z = a->y;
    } else {
      if (z) PetscCall(VecGetArrayRead(z, &a->z));
      PetscCall(VecGetArrayWrite(y, &a->y));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VecGetArrayReadAndMemType(x, &a->x, &a->mx));
  if (z == y) {
    PetscCall(VecGetArrayAndMemType(y, &a->y, &a->my));
    a->z = a->y;
  } else {
    if (z) PetscCall(VecGetArrayReadAndMemType(z, &a->z, &a->mz));
    PetscCall(VecGetArrayWriteAndMemType(y, &a->y, &a->my));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode RestoreArrays(Vec x, Vec z, Vec y, Arrays *a)
{
  PetscFunctionBegin;
  if (a->host) {
    PetscCall(VecRestoreArrayRead(x, &a->x));
    if (z == y) PetscCall(VecRestoreArray(y, &a->y));
    else {
      if (z) PetscCall(VecRestoreArrayRead(z, &a->z));
      PetscCall(VecRestoreArrayWrite(y, &a->y));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VecRestoreArrayReadAndMemType(x, &a->x));
  if (z == y) PetscCall(VecRestoreArrayAndMemType(y, &a->y));
  else {
    if (z) PetscCall(VecRestoreArrayReadAndMemType(z, &a->z));
    PetscCall(VecRestoreArrayWriteAndMemType(y, &a->y));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(GPUMAT_WITH_CUDA)
// The format's device product of the stored matrix, through the row list where it is compressed.
PetscErrorCode DeviceKernels(Mat A, Op op, const Arrays &a, cudaStream_t stream)
{
  SeqData              *d      = Data(A);
  const CsrView<Scalar> stored = Stored(d);
  PetscFunctionBegin;
  if (!d->compressed) PetscCall(d->fmt->DeviceApply(op, a.x, a.z, a.y, stream));
  else if (op == Op::NoTrans) { // w = Ac x; y = z (or 0); y[rows] += w
    PetscCall(d->fmt->DeviceApply(Op::NoTrans, a.x, nullptr, d->dmap.work(), stream));
    PetscCall(CheckDevice(cuda::init_output(a.y, a.z, (index_t)A->rmap->n, stream), "compressed rows", stored));
    PetscCall(CheckDevice(d->dmap.scatter_add(d->dmap.work(), a.y, stream), "compressed rows", stored));
  } else { // w = x[rows]; y = z + Ac^T w
    PetscCall(CheckDevice(d->dmap.gather(a.x, d->dmap.work(), stream), "compressed rows", stored));
    PetscCall(d->fmt->DeviceApply(Op::Trans, d->dmap.work(), a.z, a.y, stream));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// y = op(A) x (+ z) on the GPU, on PETSc's stream; with `side`, on side->stream behind what PETSc's
// stream holds so far (side->ready recorded there after the vectors' arrays were taken, so their
// uploads come first), side->done recorded after the product.
PetscErrorCode DeviceApply(Mat A, Op op, Vec x, Vec z, Vec y, const SideStream *side = nullptr)
{
  Arrays       a;
  cudaStream_t stream;
  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(Ensure(A, kDevice, stream));
  PetscCall(GetArrays(x, z, y, &a));
  PetscCheck(PetscMemTypeDevice(a.mx) && PetscMemTypeDevice(a.my) && PetscMemTypeDevice(a.mz), PETSC_COMM_SELF, PETSC_ERR_PLIB, "CUDA vectors gave host memory");
  if (side) {
    PetscCallCUDA(cudaEventRecord(side->ready, stream));
    PetscCallCUDA(cudaStreamWaitEvent(side->stream, side->ready, 0));
    stream = side->stream;
  } else PetscCall(PetscLogGpuTimeBegin()); // PETSc's GPU timers time its own stream
  PetscCall(DeviceKernels(A, op, a, stream));
  if (side) PetscCallCUDA(cudaEventRecord(side->done, side->stream));
  else PetscCall(PetscLogGpuTimeEnd());
  PetscCall(RestoreArrays(x, z, y, &a));
  PetscCall(PetscLogGpuFlops(ProductFlops(A, op, z != nullptr)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// kSplit's first part: w = Ac x queued on PETSc's stream where A is stored compressed (*split).
PetscErrorCode CompressedBegin(Mat A, Vec x, PetscBool *split)
{
  SeqData           *d = Data(A);
  const PetscScalar *xa;
  PetscMemType       mx;
  cudaStream_t       stream;
  PetscFunctionBegin;
  *split = PETSC_FALSE;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(Ensure(A, kDevice, stream));
  if (!d->compressed) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecGetArrayReadAndMemType(x, &xa, &mx));
  PetscCheck(PetscMemTypeDevice(mx), PETSC_COMM_SELF, PETSC_ERR_PLIB, "CUDA vectors gave host memory");
  PetscCall(d->fmt->DeviceApply(Op::NoTrans, xa, nullptr, d->dmap.work(), stream));
  PetscCall(VecRestoreArrayReadAndMemType(x, &xa));
  *split = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// kSplit's second part: y[rows] += w on PETSc's stream.
PetscErrorCode CompressedEnd(Mat A, Vec y)
{
  SeqData     *d = Data(A);
  PetscScalar *ya;
  PetscMemType my;
  cudaStream_t stream;
  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(VecGetArrayAndMemType(y, &ya, &my));
  PetscCheck(PetscMemTypeDevice(my), PETSC_COMM_SELF, PETSC_ERR_PLIB, "CUDA vectors gave host memory");
  PetscCall(CheckDevice(d->dmap.scatter_add(d->dmap.work(), ya, stream), "compressed rows", Stored(d)));
  PetscCall(VecRestoreArrayAndMemType(y, &ya));
  PetscCall(PetscLogGpuFlops(ProductFlops(A, Op::NoTrans, true)));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

// The format's host reference kernel (tests, -mat_gpumat_host_reference).
PetscErrorCode HostReferenceApply(Mat A, Op op, Vec x, Vec z, Vec y)
{
  SeqData *d = Data(A);
  Arrays   a;
  PetscFunctionBegin;
  a.host = true;
  PetscCall(Ensure(A, kHost, nullptr));
  PetscCall(GetArrays(x, z, y, &a));
  const CsrView<Scalar> stored = Stored(d);
  const index_t         k      = d->cr.size();
  if (!d->compressed) PetscCall(d->fmt->HostApply(stored, op, a.x, a.z, a.y));
  else if (op == Op::NoTrans) {
    PetscCall(d->fmt->HostApply(stored, Op::NoTrans, a.x, nullptr, d->hwork.data()));
    if (a.z != a.y) {
      for (PetscInt i = 0; i < A->rmap->n; i++) a.y[i] = a.z ? a.z[i] : 0;
    }
    scatter_add_rows(k, d->cr.rows.data(), d->hwork.data(), a.y);
  } else {
    gather_rows(k, d->cr.rows.data(), a.x, d->hwork.data());
    PetscCall(d->fmt->HostApply(stored, Op::Trans, d->hwork.data(), a.z, a.y));
  }
  PetscCall(RestoreArrays(x, z, y, &a));
  PetscCall(PetscLogFlops(ProductFlops(A, op, z != nullptr)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// PETSc's SeqAIJ kernels (the parent's operations, inode variants included: those read the AIJ
// array directly, so the newest values first).
PetscErrorCode ParentApply(Mat A, Op op, Vec x, Vec z, Vec y)
{
  const struct _MatOps &p = Data(A)->parent;
  PetscFunctionBegin;
  PetscCall(SyncHost(A));
  if (op == Op::NoTrans) PetscCall(z ? p.multadd(A, x, z, y) : p.mult(A, x, y));
  else PetscCall(z ? p.multtransposeadd(A, x, z, y) : p.multtranspose(A, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(GPUMAT_WITH_CUDA)
// y = A^T x (+ z) with device vectors through cuSPARSE's transposed product on A's adopted shadow,
// where A has one (a device product's result: its CSR is on the device already), as aijcusparse
// runs its own: the formats' transposed products scatter into y with atomics, slow where many
// entries meet in few columns (GAMG's restriction with a prolongator). *done: it ran.
PetscErrorCode ShadowTranspose(Mat A, Vec x, Vec z, Vec y, PetscBool *done)
{
  Mat       S;
  PetscBool dev;
  PetscFunctionBegin;
  *done = PETSC_FALSE;
  PetscCall(OnDevice(A, {x, y, z}, &dev));
  if (!dev) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(AdoptedShadow(A, &S));
  if (!S) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(ShadowOf(A, false, &S)); // its values made current
  if (z) PetscCall((*S->ops->multtransposeadd)(S, x, z, y));
  else PetscCall((*S->ops->multtranspose)(S, x, y));
  *done = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

#if defined(GPUMAT_WITH_CUDA)
// Whether y = A x (+ z) runs through cuSPARSE on A's adopted shadow instead of the format
// (ShadowFirst, -mat_gpumat_shadow_products): device vectors, the format not built for A's pattern,
// and A a device product's result with fewer of its products run so. With `take`, *S holds A's
// current values and the product is counted.
PetscErrorCode ShadowFirstOf(Mat A, Vec x, Vec z, Vec y, bool take, Mat *S)
{
  const SeqData *d = Data(A);
  PetscBool      dev;
  PetscFunctionBegin;
  *S = nullptr;
  if ((d->st.built & kDevice) && d->st.pattern == A->nonzerostate) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(OnDevice(A, {x, y, z}, &dev));
  if (dev) PetscCall(ShadowFirst(A, d->opt.shadow_products, take, S));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// y = A x (+ z) through the shadow where ShadowFirstOf says so (*done).
PetscErrorCode ShadowFirstApply(Mat A, Vec x, Vec z, Vec y, PetscBool *done)
{
  Mat S;
  PetscFunctionBegin;
  PetscCall(ShadowFirstOf(A, x, z, y, true, &S));
  *done = S ? PETSC_TRUE : PETSC_FALSE;
  if (!S) PetscFunctionReturn(PETSC_SUCCESS);
  if (z) PetscCall((*S->ops->multadd)(S, x, z, y));
  else PetscCall((*S->ops->mult)(S, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

// y = op(A) x (+ z); z may be y.
PetscErrorCode SeqApply(Mat A, Op op, Vec x, Vec z, Vec y)
{
  PetscBool dev;
  PetscFunctionBegin;
#if defined(GPUMAT_WITH_CUDA)
  {
    PetscBool done;
    if (op == Op::NoTrans) PetscCall(ShadowFirstApply(A, x, z, y, &done));
    else PetscCall(ShadowTranspose(A, x, z, y, &done));
    if (done) PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  PetscCall(DevicePath(A, op, x, z, y, &dev));
#if defined(GPUMAT_WITH_CUDA)
  if (dev) {
    PetscCall(DeviceApply(A, op, x, z, y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  if (Data(A)->opt.host_reference) PetscCall(HostReferenceApply(A, op, x, z, y));
  else PetscCall(ParentApply(A, op, x, z, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(GPUMAT_WITH_CUDA)
// kOnSide: queued on the side stream where the product runs on the GPU and PETSc's GPU timers are
// off (they wait for PETSc's stream at every event, so nothing would overlap).
PetscErrorCode BeginOnSide(Mat A, BlockProduct *p)
{
  PetscBool dev, active;
  Mat       S = nullptr;
  PetscFunctionBegin;
  PetscCall(DevicePath(A, p->op, p->x, p->z, p->y, &dev));
  PetscCall(PetscLogIsActive(&active));
  if (dev && p->op == Op::NoTrans) PetscCall(ShadowFirstOf(A, p->x, p->z, p->y, false, &S)); // then in order, on PETSc's stream (cuSPARSE's)
  if (!dev || S || (active && PetscLogGpuTimeFlag)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(DeviceApply(A, p->op, p->x, p->z, p->y, p->side));
  p->pending = BlockProduct::kSideQueued;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// kSplit: w = Ac x queued where A is compressed and x and y are device vectors.
PetscErrorCode BeginSplit(Mat A, BlockProduct *p)
{
  PetscBool dev, split;
  Mat       S = nullptr;
  PetscFunctionBegin;
  PetscCall(OnDevice(A, {p->x, p->y}, &dev)); // the ghosts are device ones; y may be a host vector
  if (!dev || p->op != Op::NoTrans || p->z != p->y) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(ShadowFirstOf(A, p->x, p->z, p->y, false, &S)); // then in order, through the shadow
  if (S) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(CompressedBegin(A, p->x, &split));
  if (split) p->pending = BlockProduct::kSplitQueued;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

} // namespace

PetscErrorCode BlockProductBegin(Mat A, BlockProduct *p)
{
  PetscFunctionBegin;
  p->pending = BlockProduct::kInOrder;
#if defined(GPUMAT_WITH_CUDA)
  if (p->split == Split::kOnSide) PetscCall(BeginOnSide(A, p));
  else if (p->split == Split::kSplit) PetscCall(BeginSplit(A, p));
#endif
  if (p->split == Split::kNow) {
    PetscCall(SeqApply(A, p->op, p->x, p->z, p->y));
    p->pending = BlockProduct::kDone;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BlockProductEnd(Mat A, BlockProduct *p)
{
  PetscFunctionBegin;
  switch (p->pending) {
  case BlockProduct::kDone: break;
  case BlockProduct::kInOrder: PetscCall(SeqApply(A, p->op, p->x, p->z, p->y)); break;
#if defined(GPUMAT_WITH_CUDA)
  case BlockProduct::kSideQueued: { // y is the side stream's until now
    cudaStream_t stream;
    PetscCall(PetscGetCurrentCUDAStream(&stream));
    PetscCallCUDA(cudaStreamWaitEvent(stream, p->side->done, 0));
  } break;
  case BlockProduct::kSplitQueued: PetscCall(CompressedEnd(A, p->y)); break;
#else
  default: SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "a device product pending in a build without CUDA");
#endif
  }
  p->pending = BlockProduct::kDone;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BlockApply(Mat A, Op op, Vec x, Vec z, Vec y)
{
  BlockProduct p;
  PetscFunctionBegin;
  p.op = op, p.x = x, p.z = z, p.y = y;
  PetscCall(BlockProductBegin(A, &p));
  PetscCall(BlockProductEnd(A, &p));
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
#if defined(GPUMAT_WITH_CUDA)
  PetscObjectState state;
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  // the format's device storage where it holds the current values, else the newest values where
  // they are: the device copy (its shadow's diagonal, aijcusparse's kernel) or the host array. A
  // matrix read only for its diagonal (GAMG's graph) is not built for it.
  const bool stored = dev && d->fmt->HasDeviceDiagonal() && d->st.Current(A->nonzerostate, state, kDevice);
  if (dev && !stored && DeviceCopy(A)) {
    Mat S;
    PetscCall(ShadowOf(A, false, &S));
    PetscCall((*S->ops->getdiagonal)(S, v)); // as MPIAIJ calls its block's, with its MPI vector
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!stored) {
    PetscCall(d->parent.getdiagonal(A, v));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
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
#else
  PetscCall(d->parent.getdiagonal(A, v));
  (void)dev;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpumat
