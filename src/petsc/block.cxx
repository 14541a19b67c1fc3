// One sequential block's storage made current (block.hpp): built after a new nonzero pattern,
// refreshed after new values, on the side the product runs on.
//
// Compressed rows: a block with at least -mat_gpumat_compressed_rows_ratio (0.6, PETSc's rule) of
// its rows empty, or whose format asks for it, is stored as the CSR of its nonempty rows; the
// products add the result into y through the row list (src/core/compressed.hpp,
// src/cuda/rowmap.cuh), so every format pays for nonzeros and nonempty rows only. The compressed
// matrix shares the block's values (empty rows own none), so a refresh reads the same array.
#include "block.hpp"
#include "shadow.hpp"
#include "values.hpp"
#include <petsctime.h>

namespace gpumat {

SeqData *Ours(Mat A) { return A && A->spptr && FindFormat(((PetscObject)A)->type_name) ? Data(A) : nullptr; }

std::size_t SeqData::DeviceBytes() const
{
  std::size_t b = fmt->DeviceBytes();
#if defined(GPUMAT_WITH_CUDA)
  b += dmap.device_bytes() + dv.DeviceBytes();
#endif
  return b;
}

PetscErrorCode GetCsr(Mat A, bool pattern_changed)
{
  SeqData *d = Data(A);
  PetscFunctionBegin;
  d->st.internal++;
  const PetscErrorCode err = d->csr.Get(A, pattern_changed);
  d->st.internal--;
  PetscCall(err);
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(GPUMAT_WITH_CUDA)
PetscErrorCode HostNonzeros(Mat A, PetscInt *nnz)
{
  const PetscInt *ai;
  PetscFunctionBegin;
  PetscCall(MatSeqAIJGetCSRAndMemType(A, &ai, nullptr, nullptr, nullptr));
  *nnz = A->rmap->n ? ai[A->rmap->n] : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

PetscErrorCode SyncHost(Mat A)
{
  PetscFunctionBegin;
#if defined(GPUMAT_WITH_CUDA)
  SeqData *d = Ours(A);
  if (!d || !d->st.host_stale) PetscFunctionReturn(PETSC_SUCCESS);
  DeviceValues &v = d->dv;
  PetscScalar  *h = HookedHostValues(A); // null also for a block without nonzeros
  PetscCheck(h || !v.n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "device values newer than the host's without the hooked accessors");
  PetscInt nnz;
  PetscCall(HostNonzeros(A, &nnz));
  PetscCheck(nnz == v.n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "device values for %" PetscInt_FMT " nonzeros, the host array holds %" PetscInt_FMT, v.n, nnz);
  cudaStream_t stream;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  if (v.n) {
    PetscCallCUDA(cudaMemcpyAsync(h, v.val, (size_t)v.n * sizeof(Scalar), cudaMemcpyDeviceToHost, stream));
    PetscCallCUDA(cudaStreamSynchronize(stream));
  }
  PetscCall(PetscLogGpuToCpu((PetscLogDouble)v.n * sizeof(Scalar)));
  PetscCall(PetscInfo(A, "copied %" PetscInt_FMT " device values back to the host for a host reader\n", v.n));
  d->st.host_stale = false; // both sides hold them now
#else
  (void)A;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

CsrView<Scalar> Stored(const SeqData *d) { return d->compressed ? d->cr.view(d->csr.view()) : d->csr.view(); }

namespace {

// A new pattern (the host CSR just read): row statistics, the compressed form decided and made, the
// format's hints for its next build.
PetscErrorCode NewPattern(Mat A)
{
  SeqData               *d    = Data(A);
  const CsrView<Scalar> &full = d->csr.view();
  RowStats               rs;
  PetscInt               rbs, cbs;
  PetscFunctionBegin;
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
  PetscCall(MatGetBlockSizes(A, &rbs, &cbs));
  d->fmt->SetBlockSize(!d->compressed && rbs == cbs ? (int)rbs : 1);
  PetscCallCXX(d->fmt->SetTuningCacheDir(d->opt.tuning_cache_disable ? std::string() : d->opt.tuning_cache));
  PetscCallCXX(d->hwork.assign(d->compressed ? (std::size_t)d->cr.size() : 0, Scalar(0)));
  d->st.NewPattern(A->nonzerostate);
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(GPUMAT_WITH_CUDA)
// A build from the block's CSR on the device, read in place (*done: built): its aijcusparse shadow's
// (shadow.hpp), where the block has one on the device (a device product's result, or a shadow an
// operation or an earlier build uploaded), or, with -mat_gpumat_device_csr, one made now and uploaded
// by aijcusparse: the one copy of the CSR to the device that the format's build, PETSc's GPU
// operations on the shadow (sparse products, MatScale, MatAXPY, factorizations) and later value
// refreshes share. Not for a block stored as its nonempty rows (the shadow's CSR is the whole
// block's), with 64-bit PetscInt (aijcusparse's indices are PetscInt), or where the format has no
// such build (it then uploads the CSR itself).
PetscErrorCode BuildOnDevice(Mat A, const CsrView<Scalar> &stored, cudaStream_t stream, bool *done)
{
  SeqData           *d    = Data(A);
  CsrView<Scalar>    host = stored;
  Mat                S;
  const PetscInt    *i, *j;
  const PetscScalar *v;
  PetscFunctionBegin;
  *done = false;
  if (sizeof(PetscInt) != sizeof(index_t) || d->compressed) PetscFunctionReturn(PETSC_SUCCESS);
  if (d->st.host_stale) host.val = nullptr; // the host's values are older: the format's host-side choices do not read them
  bool yes;
  PetscCall(d->fmt->BuildsOnDevice(host, &yes));
  if (!yes) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(ShadowOnDevice(A, d->opt.device_csr, &S));
  if (!S) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatSeqAIJCUSPARSEGetIJ(S, PETSC_FALSE, &i, &j));
  PetscCall(MatSeqAIJCUSPARSEGetArrayRead(S, &v));
  cuda::DeviceCsrView<Scalar> dev;
  dev.nrows  = stored.nrows;
  dev.ncols  = stored.ncols;
  dev.nnz    = stored.nnz();
  dev.rowptr = reinterpret_cast<const index_t *>(i);
  dev.colidx = reinterpret_cast<const index_t *>(j);
  dev.val    = v;
  PetscCall(d->fmt->DeviceBuildOnDevice(host, dev, stream, done));
  PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(S, &v));
  PetscCall(MatSeqAIJCUSPARSERestoreIJ(S, PETSC_FALSE, &i, &j));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The device storage built or refreshed. The newest values may be on the device (a device COO
// assembly): refreshed from there, in place (the compressed matrix shares the block's value array).
// New host values reach the format through the block's shadow where it keeps one on the device
// (uploaded there once, by aijcusparse, for both); else the format uploads them itself.
PetscErrorCode DeviceStore(Mat A, bool build, PetscObjectState state, cudaStream_t stream)
{
  SeqData              *d      = Data(A);
  const CsrView<Scalar> stored = Stored(d);
  const bool            from_device = d->dv.val && d->st.DeviceValuesCurrent(state);
  CsrView<Scalar>       on_device   = stored;
  PetscFunctionBegin;
  on_device.val = from_device ? d->dv.val : nullptr;
  PetscCheck(!from_device || d->dv.n == stored.nnz(), PETSC_COMM_SELF, PETSC_ERR_PLIB, "device values for %" PetscInt_FMT " nonzeros, the block has %d", d->dv.n, (int)stored.nnz());
  if (build) {
    bool on_device_build = false;
    PetscCall(BuildOnDevice(A, stored, stream, &on_device_build));
    if (on_device_build) {
      d->device_csr_builds++;
      d->dmap.release(); // not compressed
    } else {
      PetscCall(d->fmt->DeviceBuild(stored, stream));
      if (d->compressed) PetscCall(CheckDevice(d->dmap.build(d->cr.rows.data(), d->cr.size(), stream), "compressed rows", stored));
      else d->dmap.release();
      // the host's values are older: the new storage takes the device's (a refresh, part of the build)
      if (from_device && d->st.host_stale) PetscCall(d->fmt->DeviceRefresh(on_device, Mem::Device, stream));
      // the CSR bytes the build reads from the host (a format may store fewer or more)
      PetscCall(PetscLogCpuToGpu((PetscLogDouble)(stored.nrows + 1 + stored.nnz()) * sizeof(index_t) + (PetscLogDouble)stored.nnz() * sizeof(Scalar) + (PetscLogDouble)d->cr.size() * sizeof(index_t)));
    }
    PetscCallCUDA(cudaStreamSynchronize(stream)); // once per pattern: the build time is reported
  } else if (from_device) {
    PetscCall(d->fmt->DeviceRefresh(on_device, Mem::Device, stream));
  } else {
    Mat S;
    PetscCall(ShadowOnDevice(A, false, &S));
    if (S) { // the compressed matrix shares the block's value array, and so the shadow's
      const PetscScalar *v;
      PetscCall(MatSeqAIJCUSPARSEGetArrayRead(S, &v));
      on_device.val = v;
      PetscCall(d->fmt->DeviceRefresh(on_device, Mem::Device, stream));
      PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(S, &v));
    } else {
      PetscCall(d->fmt->DeviceRefresh(stored, Mem::Host, stream));
      PetscCall(PetscLogCpuToGpu((PetscLogDouble)stored.nnz() * sizeof(Scalar)));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

// The storage of `side` built (build) or refreshed, timed for MatView and counted.
PetscErrorCode Store(Mat A, unsigned side, bool build, PetscObjectState state, cudaStream_t stream)
{
  SeqData         *d = Data(A);
  const TypeNames &n = Names(d->info);
  const int        s = SideIndex(side);
  PetscLogDouble   t0, t1;
  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  PetscCall(PetscLogEventBegin(build ? n.build : n.refresh, A, 0, 0, 0));
  if ((ValueStorage)d->opt.values == kValuesFp32) PetscCall(PetscLogEventBegin(MachineryEventIds().fp32, A, 0, 0, 0));
  if (side == kHost) {
    const CsrView<Scalar> stored = Stored(d);
    PetscCall(build ? d->fmt->HostBuild(stored) : d->fmt->HostRefresh(stored));
  } else {
#if defined(GPUMAT_WITH_CUDA)
    PetscCall(DeviceStore(A, build, state, stream));
#else
    (void)state;
    (void)stream;
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "device storage requested in a build without CUDA");
#endif
  }
  if ((ValueStorage)d->opt.values == kValuesFp32) PetscCall(PetscLogEventEnd(MachineryEventIds().fp32, A, 0, 0, 0));
  PetscCall(PetscLogEventEnd(build ? n.build : n.refresh, A, 0, 0, 0));
  PetscCall(PetscTime(&t1));
  if (build) {
    d->build_seconds[s] = t1 - t0;
    d->builds[s]++;
  } else {
    d->refresh_seconds[s] += t1 - t0;
    d->refreshes[s]++;
  }
  d->st.Stored(side);
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

PetscErrorCode Ensure(Mat A, unsigned side, cudaStream_t stream)
{
  SeqData         *d = Data(A);
  PetscObjectState state;
  PetscFunctionBegin;
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  if (d->st.Current(A->nonzerostate, state, side)) PetscFunctionReturn(PETSC_SUCCESS);
  const bool new_pattern = d->st.pattern != A->nonzerostate;
  if (side == kHost) PetscCall(SyncHost(A)); // the format's host storage reads the AIJ values
  PetscCall(GetCsr(A, new_pattern));
  if (new_pattern) PetscCall(NewPattern(A));
  d->st.NewValues(state);
  if (d->st.current & side) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(Store(A, side, !(d->st.built & side), state, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscLogDouble ProductFlops(Mat A, Op op, bool add)
{
  const SeqData *d = Data(A);
  return 2.0 * (PetscLogDouble)d->csr.view().nnz() - (add || op == Op::Trans ? 0.0 : (PetscLogDouble)(A->rmap->n - d->empty_rows));
}

// Every vector a device vector not bound to the CPU (CUDA vectors, or Kokkos vectors where PETSc's
// Kokkos has the CUDA backend: their arrays are CUDA memory on PETSc's stream, reached by the
// memory-type-aware VecGetArray*AndMemType of the device products), the matrix not bound and not
// forced to the host.
PetscErrorCode OnDevice(Mat A, std::initializer_list<Vec> vecs, PetscBool *dev)
{
  PetscFunctionBegin;
  *dev = PETSC_FALSE;
#if defined(GPUMAT_WITH_CUDA)
  if (A->boundtocpu || Data(A)->opt.force_host) PetscFunctionReturn(PETSC_SUCCESS);
  for (Vec v : vecs) {
    PetscBool cuda, bound;
    if (!v) continue;
    PetscCall(IsDeviceVec(v, &cuda));
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

PetscErrorCode BuildEagerly(Mat A)
{
  unsigned     side   = kHost;
  cudaStream_t stream = nullptr;
  PetscFunctionBegin;
#if defined(GPUMAT_WITH_CUDA)
  if (!Data(A)->opt.force_host && !A->boundtocpu) {
    side = kDevice;
    PetscCall(PetscGetCurrentCUDAStream(&stream));
  }
#endif
  PetscCall(Ensure(A, side, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode HostCsr::Get(Mat A, bool pattern_changed)
{
  const PetscInt *ai, *aj;
  PetscScalar    *aa;
  PetscMemType    mtype;
  PetscFunctionBegin;
  PetscCall(MatSeqAIJGetCSRAndMemType(A, &ai, &aj, &aa, &mtype));
  PetscCheck(PetscMemTypeHost(mtype), PETSC_COMM_SELF, PETSC_ERR_PLIB, "Expected the AIJ arrays on the host");
  view_.nrows = (index_t)A->rmap->n;
  view_.ncols = (index_t)A->cmap->n;
  view_.val   = aa;
#if defined(PETSC_USE_64BIT_INDICES)
  if (pattern_changed || !view_.rowptr) { // the 32-bit copies change with the pattern only
    const PetscInt nnz = ai[A->rmap->n];
    PetscCheck(A->rmap->n < PETSC_INT32_MAX && A->cmap->n < PETSC_INT32_MAX && nnz < PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP,
               "petsc-gpumat formats use 32-bit indices: this block has %" PetscInt_FMT " rows, %" PetscInt_FMT " columns and %" PetscInt_FMT " nonzeros; use more MPI ranks", A->rmap->n, A->cmap->n, nnz);
    i_.assign(ai, ai + A->rmap->n + 1);
    j_.assign(aj, aj + nnz);
    view_.rowptr = i_.data();
    view_.colidx = j_.data();
  }
#else
  (void)pattern_changed;
  view_.rowptr = ai;
  view_.colidx = aj;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpumat
