// Device COO assembly, both levels (CUDA builds; the same maps on the host with
// -mat_gpumat_coo_host_reference, for the tests).
//
// Seq: MatSetPreallocationCOO runs SeqAIJ's, then maps every COO entry onto its nonzero
// (src/core/coo.hpp); MatSetValuesCOO with a device array sums the entries into a device copy of
// the block's CSR values with one kernel through that map (uploaded once per pattern,
// src/cuda/coo.cuh), and the format refreshes from there (Mem::Device): no copy through the host, no
// rebuild. The AIJ host array is then older than the device copy (BlockState::host_stale) until a
// host reader asks: PETSc's value accessors are hooked (values.hpp) and the host operations that read
// the array copy the values back first (SyncHost). Host arrays given to MatSetValuesCOO take
// SeqAIJ's path (then the usual refresh).
//
// MPI: MatSetPreallocationCOO runs MPIAIJ's (the blocks, the host maps), then maps once per pattern
// every COO entry of this rank onto its block's nonzero, and the entries of rows owned elsewhere
// onto their owner through a PetscSF of our own (their indices sent once, so the owner maps them
// onto its blocks). MatSetValuesCOO with a device array then gathers the entries to send on the
// device, reduces them through the SF with device memory types, sums the local entries into both
// blocks' device values meanwhile, then the received ones: no block's values go through the host.
// Host arrays take MPIAIJ's path.
#include "block.hpp"
#include "mpi.hpp"
#include "coo.hpp"
#include "values.hpp"
#include <petscdevice.h>
#include <vector>

namespace gpumat {
namespace {

PetscErrorCode SeqCooHostAdd(Mat A, const Scalar *src, bool remote, InsertMode mode)
{
  SeqData     *d = Data(A);
  PetscScalar *a;
  PetscFunctionBegin;
  if (remote && !d->coo.has_remote) PetscFunctionReturn(PETSC_SUCCESS);
  const CooMap   &m = remote ? d->coo.remote : d->coo.local;
  const PetscInt *ai;
  PetscCall(MatSeqAIJGetCSRAndMemType(A, &ai, nullptr, nullptr, nullptr));
  PetscCheck(remote || m.segments() == (A->rmap->n ? ai[A->rmap->n] : 0), PETSC_COMM_SELF, PETSC_ERR_PLIB, "COO map of %" PetscInt64_FMT " nonzeros for a block of %" PetscInt_FMT, (PetscInt64)m.segments(), A->rmap->n ? ai[A->rmap->n] : 0);
  PetscCall(MatSeqAIJGetArray(A, &a));
  PetscCallCXX(coo_apply(m, src, !remote && mode == INSERT_VALUES, a));
  PetscCall(MatSeqAIJRestoreArray(A, &a));
  PetscCall(PetscLogFlops((PetscLogDouble)m.entries()));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(GPUMAT_WITH_CUDA)
// The device copy of A's values, for a device COO assembly to write: allocated for the current
// pattern and, with `keep` (ADD_VALUES), holding the current values (copied from the host when
// only the host holds them: a host assembly came in between).
PetscErrorCode DeviceValuesForWrite(Mat A, bool keep, cudaStream_t stream)
{
  SeqData         *d = Data(A);
  DeviceValues    &v = d->dv;
  PetscInt         nnz;
  PetscObjectState state;
  PetscFunctionBegin;
  PetscCall(HostNonzeros(A, &nnz));
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  if (v.val && v.n != nnz) {
    PetscCheck(!d->st.host_stale, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the pattern changed while the device held the newest values");
    v.ReleaseValues();
    d->st.DeviceValuesDropped();
  }
  if (!v.val) {
    const cudaError_t err = cudaMalloc(reinterpret_cast<void **>(&v.val), (size_t)PetscMax(nnz, 1) * sizeof(Scalar));
    if (err != cudaSuccess) {
      (void)cudaGetLastError();
      v.val = nullptr;
      PetscCheck(err != cudaErrorMemoryAllocation, PETSC_COMM_SELF, PETSC_ERR_MEM, "device COO assembly: out of GPU memory for the %" PetscInt_FMT " values of a block; use more GPUs (MPI ranks) or a smaller problem", nnz);
      PetscCallCUDA(err);
    }
    v.n              = nnz;
    d->st.dev_values = -1;
  }
  if (keep && !d->st.DeviceValuesCurrent(state)) { // ADD_VALUES onto values only the host holds
    PetscCall(GetCsr(A, false));
    if (nnz) PetscCallCUDA(cudaMemcpyAsync(v.val, d->csr.view().val, (size_t)nnz * sizeof(Scalar), cudaMemcpyHostToDevice, stream));
    PetscCall(PetscLogCpuToGpu((PetscLogDouble)nnz * sizeof(Scalar)));
    d->st.dev_values = state;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

#endif

#if defined(GPUMAT_WITH_CUDA)
PetscErrorCode SeqCooDeviceAdd(Mat A, const Scalar *src, bool remote, InsertMode mode, cudaStream_t s)
{
  SeqData      *d = Data(A);
  DeviceValues &v = d->dv;
  PetscFunctionBegin;
  if (remote && !d->coo.has_remote) PetscFunctionReturn(PETSC_SUCCESS);
  if (!remote) PetscCall(DeviceValuesForWrite(A, mode != INSERT_VALUES, s));
  cuda::CooDevice<Scalar> &dm = remote ? v.dremote : v.dlocal;
  CooMap                  &hm = remote ? d->coo.remote : d->coo.local;
  if (!dm.uploaded()) { // once per pattern
    PetscCall(GetCsr(A, false));
    PetscCall(CheckDevice(dm.upload(hm, s), "device COO map", d->csr.view()));
    PetscCall(PetscLogCpuToGpu((PetscLogDouble)dm.device_bytes()));
    if (!d->opt.coo_host_reference) PetscCallCXX(hm = CooMap()); // the device holds it now
  }
  PetscCheck(remote || dm.segments() == v.n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "COO map of %" PetscInt64_FMT " nonzeros for a block of %" PetscInt_FMT, (PetscInt64)dm.segments(), v.n);
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCUDA(dm.apply(src, !remote && mode == INSERT_VALUES, v.val, s));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops((PetscLogDouble)dm.entries()));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SeqCooDeviceDone(Mat A)
{
  PetscFunctionBegin;
  SeqData *d = Data(A);
  d->st.DeviceValuesWritten();
  d->dv.assemblies++;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

// MatSetPreallocationCOO: SeqAIJ's (pattern, host map), then our map of the entries onto the
// nonzeros (CUDA builds: for device assemblies; -mat_gpumat_coo_host_reference: for its host ones).
PetscErrorCode SeqSetPreallocationCOO(Mat A, PetscCount n, PetscInt coo_i[], PetscInt coo_j[])
{
  SeqData     *d  = Data(A);
  PetscFunctionBegin;
  // a new pattern: the old one's maps and device values go (the new values come after this)
  d->coo.Release();
#if defined(GPUMAT_WITH_CUDA)
  d->dv.ReleaseValues();
  d->dv.ReleaseMaps();
  d->st.DeviceValuesDropped();
  const bool maps = true;
#else
  const bool maps = d->opt.coo_host_reference;
#endif
  if (!maps) {
    PetscCall(d->coo_parent.preallocation(A, n, coo_i, coo_j));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  // the entries as given: SeqAIJ's preallocation may reorder the arrays it gets, and reads them on the host
  std::vector<PetscInt> ci, cj, si, sj;
  PetscInt             *pi, *pj;
  PetscCall(CooEntriesOnHost(n, coo_i, coo_j, &ci, &cj, &si, &sj, &pi, &pj));
  PetscCall(d->coo_parent.preallocation(A, n, pi, pj));
#if defined(GPUMAT_WITH_CUDA)
  // PETSc's inode factorizations and products read the AIJ array without the accessors: a block
  // whose values may come from the device does without them (as aijcusparse's)
  PetscCall(MatSetOption(A, MAT_USE_INODES, PETSC_FALSE));
#endif
  PetscCall(SetLocalMap(A, n, ci.data(), cj.data()));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The maps are A's current pattern's.
PetscErrorCode CheckCooMaps(Mat A)
{
  const SeqData *d = Data(A);
  PetscFunctionBegin;
  PetscCheck(d->coo.n >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MatSetValuesCOO: no COO map of ours (MatSetPreallocationCOO was not called on this %s matrix, or MatDuplicate made it)", ((PetscObject)A)->type_name);
  PetscCheck(d->coo.nzstate == A->nonzerostate, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MatSetValuesCOO: the nonzero pattern of this %s matrix changed since MatSetPreallocationCOO; call MatSetPreallocationCOO again", ((PetscObject)A)->type_name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

// MatSetValuesCOO: device arrays summed on the device through the map, host arrays SeqAIJ's way
// (through the map on the host with -mat_gpumat_coo_host_reference).
PetscErrorCode SeqSetValuesCOO(Mat A, const PetscScalar v[], InsertMode mode)
{
  SeqData     *d  = Data(A);
  PetscMemType mt = PETSC_MEMTYPE_HOST;
  PetscFunctionBegin;
  if (v) PetscCall(PetscGetMemType(v, &mt));
  if (!PetscMemTypeDevice(mt)) {
    if (d->opt.coo_host_reference) {
      PetscCall(CheckCooMaps(A));
      PetscCall(SeqCooHostAdd(A, v, false, mode));
    } else PetscCall(d->coo_parent.setvalues(A, v, mode));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#if defined(GPUMAT_WITH_CUDA)
  bool         ready;
  cudaStream_t stream;
  PetscCall(CheckCooMaps(A));
  PetscCall(SeqCooDeviceReady(A, &ready));
  if (!ready) { // the host path: the values copied to the host, SeqAIJ's assembly
    std::vector<PetscScalar> h;
    PetscCallCXX(h.resize((size_t)d->coo.n));
    if (d->coo.n) PetscCallCUDA(cudaMemcpy(h.data(), v, (size_t)d->coo.n * sizeof(PetscScalar), cudaMemcpyDeviceToHost));
    PetscCall(PetscLogGpuToCpu((PetscLogDouble)d->coo.n * sizeof(PetscScalar)));
    PetscCall(PetscInfo(A, "device COO values taken through the host (PETSc's value accessors could not be hooked)\n"));
    PetscCall(d->coo_parent.setvalues(A, h.data(), mode));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(SeqCooDeviceAdd(A, v, false, mode, stream));
  PetscCall(SeqCooDeviceDone(A));
#else
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "device COO values in a build without CUDA");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

// MatSetPreallocationCOO: MPIAIJ's (blocks, SF, host maps), then ours (BuildCooMaps).
PetscErrorCode MPISetPreallocationCOO(Mat A, PetscCount n, PetscInt coo_i[], PetscInt coo_j[])
{
  MPIData     *d  = MPIDataOf(A);
  Mat          Ad, Ao;
  PetscBool    host_reference = PETSC_FALSE;
  PetscFunctionBegin;
  d->coo.Release();
  PetscCall(PetscOptionsGetBool(((PetscObject)A)->options, ((PetscObject)A)->prefix, "-mat_gpumat_coo_host_reference", &host_reference, nullptr));
  d->coo.host_reference = host_reference;
#if !defined(GPUMAT_WITH_CUDA)
  if (!host_reference) { // no maps to make: MPIAIJ's alone
    PetscCall(d->coo_parent.preallocation(A, n, coo_i, coo_j));
    PetscCall(MPIConvertBlocks(A));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  // the entries as given: MPIAIJ's preallocation may reorder the arrays it gets, and reads them on the host
  std::vector<PetscInt> ci, cj, si, sj;
  PetscInt             *pi, *pj;
  PetscCall(CooEntriesOnHost(n, coo_i, coo_j, &ci, &cj, &si, &sj, &pi, &pj));
  PetscCall(d->coo_parent.preallocation(A, n, pi, pj));
  PetscCall(MPIConvertBlocks(A)); // MPIAIJ made new blocks
#if defined(GPUMAT_WITH_CUDA)
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, nullptr));
  // PETSc's inode kernels read the AIJ array without the accessors (the off-diagonal block has none)
  PetscCall(MatSetOption(Ad, MAT_USE_INODES, PETSC_FALSE));
#else
  (void)Ad;
  (void)Ao;
#endif
  PetscCall(BuildCooMaps(A, n, ci.data(), cj.data()));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// MatSetValuesCOO: device arrays summed into both blocks on the device, host arrays MPIAIJ's way.
// The host reference of the device assembly below (-mat_gpumat_coo_host_reference): the same maps
// and SF, host arrays, the sums on the host (SeqCooHostAdd).
PetscErrorCode HostReferenceCOO(Mat A, const PetscScalar v[], InsertMode mode)
{
  MPIData *d = MPIDataOf(A);
  Mat      Ad, Ao;
  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, nullptr));
  PetscCallCXX(d->coo.hsend.resize((size_t)d->coo.nsend));
  PetscCallCXX(d->coo.hrecv.resize((size_t)d->coo.nrecv));
  for (PetscInt l = 0; l < d->coo.nsend; l++) d->coo.hsend[l] = v[d->coo.send_idx[l]];
  PetscCall(PetscSFReduceBegin(d->coo.sf, MPIU_SCALAR, d->coo.hsend.data(), d->coo.hrecv.data(), MPI_REPLACE));
  PetscCall(SeqCooHostAdd(Ad, v, false, mode));
  PetscCall(SeqCooHostAdd(Ao, v, false, mode));
  PetscCall(PetscSFReduceEnd(d->coo.sf, MPIU_SCALAR, d->coo.hsend.data(), d->coo.hrecv.data(), MPI_REPLACE));
  PetscCall(SeqCooHostAdd(Ad, d->coo.hrecv.data(), true, mode));
  PetscCall(SeqCooHostAdd(Ao, d->coo.hrecv.data(), true, mode));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(GPUMAT_WITH_CUDA)
// Device values where this rank's blocks cannot take them (unhooked accessors on some rank): copied
// to the host, MPIAIJ's assembly.
PetscErrorCode MPICooThroughHost(Mat A, const PetscScalar v[], PetscMemType mt, InsertMode mode)
{
  MPIData                 *d = MPIDataOf(A);
  std::vector<PetscScalar> h;
  PetscFunctionBegin;
  if (v && PetscMemTypeDevice(mt)) {
    PetscCallCXX(h.resize((size_t)d->coo.n));
    if (d->coo.n) PetscCallCUDA(cudaMemcpy(h.data(), v, (size_t)d->coo.n * sizeof(PetscScalar), cudaMemcpyDeviceToHost));
    PetscCall(PetscLogGpuToCpu((PetscLogDouble)d->coo.n * sizeof(PetscScalar)));
    v = h.data();
  }
  PetscCall(PetscInfo(A, "device COO values taken through the host (PETSc's value accessors could not be hooked on some rank)\n"));
  PetscCall(d->coo_parent.setvalues(A, v, mode));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The send map and the SF's device buffers, once per pattern.
PetscErrorCode MPICooUpload(MPIData *d, cudaStream_t s)
{
  PetscFunctionBegin;
  if (d->coo.send.uploaded()) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallCUDA(d->coo.send.upload(d->coo.send_idx.data(), d->coo.nsend, (std::int64_t)d->coo.n, s));
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)d->coo.send.device_bytes()));
  if (!d->coo.host_reference) { // the device holds it now
    d->coo.send_idx.clear();
    d->coo.send_idx.shrink_to_fit();
  }
  PetscCallCUDA(cudaMalloc(reinterpret_cast<void **>(&d->coo.sendbuf), (size_t)PetscMax(d->coo.nsend, 1) * sizeof(Scalar)));
  PetscCallCUDA(cudaMalloc(reinterpret_cast<void **>(&d->coo.recvbuf), (size_t)PetscMax(d->coo.nrecv, 1) * sizeof(Scalar)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Both blocks filled on the device: the entries to send gathered and reduced through the SF with
// device memory types (PETSc stages them through the host where MPI is not GPU-aware), this rank's
// own summed meanwhile, then the received ones.
PetscErrorCode MPICooOnDevice(Mat A, const PetscScalar v[], PetscMemType mt, InsertMode mode)
{
  MPIData     *d = MPIDataOf(A);
  Mat          Ad, Ao;
  cudaStream_t s;
  Scalar      *staged = nullptr;
  PetscFunctionBegin;
  // PETSc's stream first: it makes PETSc's device of this rank (rank % devices) current, which a
  // rank that has done no CUDA work yet would not have, and the staging buffer belongs there
  PetscCall(PetscGetCurrentCUDAStream(&s));
  if (v && !PetscMemTypeDevice(mt) && d->coo.n) { // this rank's values on the host while the others' are on the device
    PetscCallCUDA(cudaMalloc(reinterpret_cast<void **>(&staged), (size_t)d->coo.n * sizeof(Scalar)));
    PetscCallCUDA(cudaMemcpyAsync(staged, v, (size_t)d->coo.n * sizeof(Scalar), cudaMemcpyHostToDevice, s));
    PetscCall(PetscLogCpuToGpu((PetscLogDouble)d->coo.n * sizeof(Scalar)));
    v = staged;
  }
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, nullptr));
  for (Mat b : {Ad, Ao}) {
    bool ready;
    PetscCall(SeqCooDeviceReady(b, &ready));
    PetscCheck(ready, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MatSetValuesCOO: the nonzero pattern of this %s matrix changed since MatSetPreallocationCOO; call MatSetPreallocationCOO again", ((PetscObject)A)->type_name);
  }
  PetscCall(MPICooUpload(d, s));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCUDA(d->coo.send.apply(v, d->coo.sendbuf, s));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscSFReduceWithMemTypeBegin(d->coo.sf, MPIU_SCALAR, PETSC_MEMTYPE_CUDA, d->coo.sendbuf, PETSC_MEMTYPE_CUDA, d->coo.recvbuf, MPI_REPLACE));
  PetscCall(SeqCooDeviceAdd(Ad, v, false, mode, s)); // this rank's entries while the others' travel
  PetscCall(SeqCooDeviceAdd(Ao, v, false, mode, s));
  PetscCall(PetscSFReduceEnd(d->coo.sf, MPIU_SCALAR, d->coo.sendbuf, d->coo.recvbuf, MPI_REPLACE));
  PetscCall(SeqCooDeviceAdd(Ad, d->coo.recvbuf, true, mode, s));
  PetscCall(SeqCooDeviceAdd(Ao, d->coo.recvbuf, true, mode, s));
  PetscCall(SeqCooDeviceDone(Ad));
  PetscCall(SeqCooDeviceDone(Ao));
  if (staged) PetscCallCUDA(cudaFree(staged)); // synchronizes: the sums have read it
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

PetscErrorCode MPISetValuesCOO(Mat A, const PetscScalar v[], InsertMode mode)
{
  MPIData     *d  = MPIDataOf(A);
  PetscMemType mt = PETSC_MEMTYPE_HOST;
  int          dev;
  PetscFunctionBegin;
  if (v) PetscCall(PetscGetMemType(v, &mt));
  dev = v && PetscMemTypeDevice(mt) ? 1 : 0;
#if defined(GPUMAT_WITH_CUDA)
  // one path on every rank (each has its own SF): the device one when some rank's values are there
  // (a rank without entries may pass null)
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &dev, 1, MPI_INT, MPI_MAX, PetscObjectComm((PetscObject)A)));
#endif
  if (!dev) {
    PetscBool host_reference = d->coo.host_reference ? PETSC_TRUE : PETSC_FALSE;
    if (d->coo.n < 0) PetscCall(PetscOptionsGetBool(((PetscObject)A)->options, ((PetscObject)A)->prefix, "-mat_gpumat_coo_host_reference", &host_reference, nullptr)); // no preallocation read it
    if (host_reference) {
      PetscCheck(d->coo.n >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MatSetValuesCOO: no COO map of ours (MatSetPreallocationCOO was not called on this %s matrix, or MatDuplicate made it)", ((PetscObject)A)->type_name);
      PetscCall(HostReferenceCOO(A, v, mode));
    } else PetscCall(d->coo_parent.setvalues(A, v, mode));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#if defined(GPUMAT_WITH_CUDA)
  PetscCheck(d->coo.n >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MatSetValuesCOO: no COO map of ours (MatSetPreallocationCOO was not called on this %s matrix, or MatDuplicate made it)", ((PetscObject)A)->type_name);
  if (!d->coo.device) PetscCall(MPICooThroughHost(A, v, mt, mode));
  else PetscCall(MPICooOnDevice(A, v, mt, mode));
#else
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "device COO values in a build without CUDA");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

#if defined(GPUMAT_WITH_CUDA)
PetscErrorCode SeqSetDeviceCsrValues(Mat A, const PetscScalar v[])
{
  SeqData     *d = Data(A);
  PetscInt     nnz;
  cudaStream_t stream;
  PetscFunctionBegin;
  PetscCall(HostNonzeros(A, &nnz));
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  if (!d->coo.hooked) {
    bool ok;
    PetscCall(HookValueAccess(A, &ok));
    d->coo.hooked = ok ? 1 : -1;
  }
  if (d->coo.hooked < 0) { // a host reader could not get them back: through the host
    PetscScalar *h;
    PetscCall(MatSeqAIJGetArrayWrite(A, &h));
    if (nnz) PetscCallCUDA(cudaMemcpy(h, v, (size_t)nnz * sizeof(PetscScalar), cudaMemcpyDeviceToHost));
    PetscCall(MatSeqAIJRestoreArrayWrite(A, &h));
    PetscCall(PetscLogGpuToCpu((PetscLogDouble)nnz * sizeof(PetscScalar)));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(DeviceValuesForWrite(A, false, stream));
  if (nnz) PetscCallCUDA(cudaMemcpyAsync(d->dv.val, v, (size_t)nnz * sizeof(PetscScalar), cudaMemcpyDeviceToDevice, stream));
  PetscCall(SeqCooDeviceDone(A));
  PetscCall(PetscObjectStateIncrease((PetscObject)A));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

PetscErrorCode SeqComposeCOO(Mat A, bool on)
{
  PetscFunctionBegin;
  PetscCall(ComposeCoo(A, on, &Data(A)->coo_parent, CooChain{SeqSetPreallocationCOO, SeqSetValuesCOO}));
  PetscFunctionReturn(PETSC_SUCCESS);
}

void SeqReleaseCOO(SeqData *d)
{
#if defined(GPUMAT_WITH_CUDA)
  d->dv.ReleaseValues();
  d->dv.ReleaseMaps();
  d->st.DeviceValuesDropped();
#endif
  d->coo.Release();
}

PetscErrorCode MPIComposeCOO(Mat A, bool on)
{
  PetscFunctionBegin;
  PetscCall(ComposeCoo(A, on, &MPIDataOf(A)->coo_parent, CooChain{MPISetPreallocationCOO, MPISetValuesCOO}));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpumat
