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
// src/cuda/rowmap.cuh), so every format pays for nonzeros and nonempty rows only. The compressed
// matrix shares the block's values (empty rows own none), so a refresh reads the same array.
//
// Device COO assembly (CUDA builds): MatSetPreallocationCOO runs SeqAIJ's, then maps every COO
// entry onto its nonzero (src/core/coo.hpp); MatSetValuesCOO with a device array sums the entries
// into a device copy of the block's CSR values with one kernel through that map (uploaded once
// per pattern, src/cuda/coo.cuh), and the format refreshes from there (Mem::Device): no copy
// through the host, no rebuild. The AIJ host array is then older than the device copy
// (DeviceValues::host_stale) until a host reader asks: PETSc's value accessors are hooked
// (values.hpp) and the host operations here that read the array copy the values back first
// (SyncHost). Host arrays given to MatSetValuesCOO take SeqAIJ's path (then the usual refresh).
// The MPI type fills its two blocks the same way (mpiaij.cxx, SeqCooDevice*).
#include "gpumat_impl.hpp"
#include "values.hpp"
#include <petscdevice.h>
#include <petsc/private/logimpl.h> // PetscLogGpuTimeFlag (SeqApplyOnSide)
#include "core/compressed.hpp"
#include "core/coo.hpp"
#include <petsctime.h>
#include <cstring>
#if defined(GPUMAT_WITH_CUDA)
  #include "cuda/rowmap.cuh"
  #include "cuda/coo.cuh"
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
  PetscBool   coo_host_reference   = PETSC_FALSE; // host COO arrays through our COO maps (tests)
};

// The COO maps of the pattern `nzstate` (CUDA builds, or -mat_gpumat_coo_host_reference): the
// entries of the COO array onto every nonzero (local) and, in an MPI matrix's block, the entries
// received from other ranks onto the nonzeros they hit (remote). On the host until uploaded.
struct CooMaps {
  PetscObjectState nzstate = -1;
  PetscCount       n       = -1; // entries of the COO array; -1: no maps
  CooMap           local, remote;
  bool             has_remote = false;
  int              hooked     = 0; // PETSc's value accessors (values.hpp): 1 hooked, -1 not possible, 0 not tried

  void Release()
  {
    nzstate = -1;
    n       = -1;
    local = remote = CooMap();
    has_remote     = false;
  }
};

#if defined(GPUMAT_WITH_CUDA)
// The block's values on the device: what a device COO assembly writes and the format refreshes
// from. host_stale: the AIJ host array is older (the device copy is the truth) until SyncHost;
// otherwise the device copy holds the values of object state `state` (-1: none). `pending`: a
// device COO assembly wrote them, and the MatAssemblyEnd that MatSetValuesCOO runs next gives them
// their state (the one it ends with).
struct DeviceValues {
  Scalar          *val        = nullptr; // n values in CSR order
  PetscInt         n          = 0;
  bool             host_stale = false, pending = false;
  PetscObjectState state      = -1;
  int              internal   = 0; // > 0: the machinery reads the host CSR's pattern (no copy back)
  PetscInt         assemblies = 0; // device COO assemblies (MatView)
  cuda::CooDevice<Scalar> dlocal, dremote; // the COO maps (CooMaps) on the device, once uploaded

  void ReleaseValues()
  {
    if (val) cudaFree(val);
    val        = nullptr;
    n          = 0;
    host_stale = pending = false;
    state                = -1;
  }
  void ReleaseMaps()
  {
    dlocal.release();
    dremote.release();
  }
  std::size_t DeviceBytes() const { return std::size_t(n) * sizeof(Scalar) + dlocal.device_bytes() + dremote.device_bytes(); }
};
#endif

struct SeqData {
  const FormatInfo       *info = nullptr;
  std::unique_ptr<Format> fmt;
  struct _MatOps          parent; // the parent's operations, kept up to date by ReinstallOps
  Options                 opt;
  HostCsr                 csr;
  // SeqAIJ's COO assembly (composed functions), ours chained to them, and our maps
  CooChain coo_parent; // the parent's COO assembly (ours chained to it)
  CooMaps coo;

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
  DeviceValues               dv;
#endif

  // statistics for MatView, per side
  PetscLogDouble build_seconds[2] = {0, 0}, refresh_seconds[2] = {0, 0};
  PetscInt       builds[2] = {0, 0}, refreshes[2] = {0, 0};
};

SeqData *Data(Mat A) { return static_cast<SeqData *>(A->spptr); }
int      SideIndex(unsigned side) { return side == kHost ? 0 : 1; }

#if defined(GPUMAT_WITH_CUDA)
// A of ours (a block of an MPI matrix is plain seqaij until its first assembly), else null.
SeqData *Ours(Mat A) { return A && A->spptr && FindFormat(((PetscObject)A)->type_name) ? Data(A) : nullptr; }
#endif

// The host CSR of A for the machinery: the pattern (and the host values' address), with no copy
// of device values back to the host.
PetscErrorCode GetCsr(Mat A, bool pattern_changed)
{
  SeqData *d = Data(A);
  PetscFunctionBegin;
#if defined(GPUMAT_WITH_CUDA)
  d->dv.internal++;
  const PetscErrorCode err = d->csr.Get(A, pattern_changed);
  d->dv.internal--;
  PetscCall(err);
#else
  PetscCall(d->csr.Get(A, pattern_changed));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(GPUMAT_WITH_CUDA)
// The nonzeros of A's host CSR (its row pointer's last entry; no values touched).
PetscErrorCode HostNonzeros(Mat A, PetscInt *nnz)
{
  const PetscInt *ai;
  PetscFunctionBegin;
  PetscCall(MatSeqAIJGetCSRAndMemType(A, &ai, nullptr, nullptr, nullptr));
  *nnz = A->rmap->n ? ai[A->rmap->n] : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

// Makes the AIJ host array hold the newest values (copied back from the device after a device COO
// assembly). Nothing to do in builds without CUDA.
PetscErrorCode SyncHost(Mat A)
{
  PetscFunctionBegin;
#if defined(GPUMAT_WITH_CUDA)
  SeqData *d = Ours(A);
  if (!d || !d->dv.host_stale) PetscFunctionReturn(PETSC_SUCCESS);
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
  v.host_stale = false; // both sides hold them now
#else
  (void)A;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(GPUMAT_WITH_CUDA)
// Whether the device copy of A's values is current for object state `state`.
bool DeviceValuesCurrent(SeqData *d, PetscObjectState state) { return d->dv.val && (d->dv.host_stale || d->dv.state == state); }
#endif

// The matrix the format stores: the block, or its nonempty rows.
CsrView<Scalar> Stored(const SeqData *d) { return d->compressed ? d->cr.view(d->csr.view()) : d->csr.view(); }

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
    PetscCheck(!v.host_stale, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the pattern changed while the device held the newest values");
    v.ReleaseValues();
  }
  if (!v.val) {
    const cudaError_t err = cudaMalloc(reinterpret_cast<void **>(&v.val), (size_t)PetscMax(nnz, 1) * sizeof(Scalar));
    if (err != cudaSuccess) {
      (void)cudaGetLastError();
      v.val = nullptr;
      PetscCheck(err != cudaErrorMemoryAllocation, PETSC_COMM_SELF, PETSC_ERR_MEM, "device COO assembly: out of GPU memory for the %" PetscInt_FMT " values of a block; use more GPUs (MPI ranks) or a smaller problem", nnz);
      PetscCallCUDA(err);
    }
    v.n     = nnz;
    v.state = -1;
  }
  if (keep && !(v.host_stale || v.state == state)) { // ADD_VALUES onto values only the host holds
    PetscCall(GetCsr(A, false));
    if (nnz) PetscCallCUDA(cudaMemcpyAsync(v.val, d->csr.view().val, (size_t)nnz * sizeof(Scalar), cudaMemcpyHostToDevice, stream));
    PetscCall(PetscLogCpuToGpu((PetscLogDouble)nnz * sizeof(Scalar)));
    v.state = state;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// After a device COO assembly wrote them: the device copy holds the newest values.
void DeviceValuesWritten(SeqData *d)
{
  // the storage no longer holds the newest values, though the object state has not moved (a
  // device COO assembly writes through no accessor; MatAssemblyEnd raises the state only after an
  // eager build has run): the next Ensure refreshes, the eager one of MatAssemblyEnd included
  d->current       = 0;
  d->dv.host_stale = true;
  d->dv.pending    = true; // their state: the one the following MatAssemblyEnd ends with
  d->dv.state      = -1;
  d->dv.assemblies++;
}

#endif

// The COO maps of A's pattern from its COO entries (i[e], j[e]); A preallocated by them.
PetscErrorCode SetLocalMap(Mat A, PetscCount n, const PetscInt *ci, const PetscInt *cj)
{
  SeqData *d = Data(A);
  PetscFunctionBegin;
  PetscCall(GetCsr(A, true));
  const CsrView<Scalar> &c = d->csr.view();
  std::vector<index_t>   pos;
  PetscCallCXX(pos.resize((size_t)n));
  for (PetscCount e = 0; e < n; e++) {
    if (ci[e] < 0 || cj[e] < 0) {
      pos[e] = -1; // ignored, as SeqAIJ ignores it
      continue;
    }
    pos[e] = csr_position(c.rowptr, c.colidx, (index_t)ci[e], (index_t)cj[e]);
    PetscCheck(pos[e] >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "COO entry (%" PetscInt_FMT ", %" PetscInt_FMT ") is not in the pattern its preallocation made", ci[e], cj[e]);
  }
  CooMap m;
  PetscCallCXX(m = coo_map(c.nnz(), pos.data(), (std::int64_t)n, true));
  PetscCall(SeqCooSetMaps(A, n, std::move(m), CooMap()));
  d->coo.nzstate = A->nonzerostate + 1; // MatSetPreallocationCOO() raises it once after this returns
  PetscFunctionReturn(PETSC_SUCCESS);
}

// MatSetPreallocationCOO: SeqAIJ's (pattern, host map), then our map of the entries onto the
// nonzeros (CUDA builds: for device assemblies; -mat_gpumat_coo_host_reference: for its host ones).
PetscErrorCode SetPreallocationCOO(Mat A, PetscCount n, PetscInt coo_i[], PetscInt coo_j[])
{
  SeqData     *d  = Data(A);
  PetscFunctionBegin;
  // a new pattern: the old one's maps and device values go (the new values come after this)
  d->coo.Release();
#if defined(GPUMAT_WITH_CUDA)
  d->dv.ReleaseValues();
  d->dv.ReleaseMaps();
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
PetscErrorCode SetValuesCOO(Mat A, const PetscScalar v[], InsertMode mode)
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

// Our COO assembly composed over SeqAIJ's (on) or SeqAIJ's back (off).
PetscErrorCode ComposeCOO(Mat A, bool on)
{
  PetscFunctionBegin;
  SeqData *d = Data(A);
  PetscCall(ComposeCoo(A, on, &d->coo_parent, CooChain{SetPreallocationCOO, SetValuesCOO}));
  PetscFunctionReturn(PETSC_SUCCESS);
}

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
  if (side == kHost) PetscCall(SyncHost(A)); // the format's host storage reads the AIJ values
  PetscCall(GetCsr(A, new_pattern));
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
    // the newest values may be on the device (a device COO assembly): refreshed from there, in
    // place (the compressed matrix shares the block's value array)
    const bool      from_device = DeviceValuesCurrent(d, state);
    CsrView<Scalar> on_device   = stored;
    on_device.val               = from_device ? d->dv.val : nullptr;
    PetscCheck(!from_device || d->dv.n == stored.nnz(), PETSC_COMM_SELF, PETSC_ERR_PLIB, "device values for %" PetscInt_FMT " nonzeros, the block has %d", d->dv.n, (int)stored.nnz());
    if (build) {
      PetscCall(d->fmt->DeviceBuild(stored, stream));
      if (d->compressed) PetscCall(CheckDevice(d->dmap.build(d->cr.rows.data(), d->cr.size(), stream), "compressed rows", stored));
      else d->dmap.release();
      // the host's values are older: the new storage takes the device's (a refresh, part of the build)
      if (from_device && d->dv.host_stale) PetscCall(d->fmt->DeviceRefresh(on_device, Mem::Device, stream));
      PetscCallCUDA(cudaStreamSynchronize(stream)); // once per pattern: the build time is reported
      // the CSR bytes the build reads from the host (a format may store fewer or more)
      PetscCall(PetscLogCpuToGpu((PetscLogDouble)(stored.nrows + 1 + stored.nnz()) * sizeof(index_t) + (PetscLogDouble)stored.nnz() * sizeof(Scalar) + (PetscLogDouble)d->cr.size() * sizeof(index_t)));
    } else if (from_device) {
      PetscCall(d->fmt->DeviceRefresh(on_device, Mem::Device, stream));
    } else {
      PetscCall(d->fmt->DeviceRefresh(stored, Mem::Host, stream));
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

// Whether products with these vectors run on the device: every vector a device vector not bound
// to the CPU (CUDA vectors, or Kokkos vectors where PETSc's Kokkos has the CUDA backend: their
// arrays are CUDA memory on PETSc's stream, reached by the memory-type-aware VecGetArray*AndMemType
// of DeviceApply), the matrix not bound and not forced to the host.
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

#if defined(GPUMAT_WITH_CUDA)
// y = op(A) x (+ z) on the GPU, on PETSc's stream; with `side`, on side->stream behind what PETSc's
// stream holds so far (side->ready recorded there after the vectors' arrays were taken, so their
// uploads come first), side->done recorded after the product (SeqApplyOnSide)
PetscErrorCode DeviceApply(Mat A, Op op, Vec x, Vec z, Vec y, const SideStream *side = nullptr)
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
  if (side) {
    PetscCallCUDA(cudaEventRecord(side->ready, stream));
    PetscCallCUDA(cudaStreamWaitEvent(side->stream, side->ready, 0));
    stream = side->stream;
  } else PetscCall(PetscLogGpuTimeBegin()); // PETSc's GPU timers time its own stream
  if (!d->compressed) PetscCall(d->fmt->DeviceApply(op, xa, za, ya, stream));
  else if (op == Op::NoTrans) { // w = Ac x; y = z (or 0); y[rows] += w
    PetscCall(d->fmt->DeviceApply(Op::NoTrans, xa, nullptr, d->dmap.work(), stream));
    PetscCall(CheckDevice(cuda::init_output(ya, za, (index_t)A->rmap->n, stream), "compressed rows", stored));
    PetscCall(CheckDevice(d->dmap.scatter_add(d->dmap.work(), ya, stream), "compressed rows", stored));
  } else { // w = x[rows]; y = z + Ac^T w
    PetscCall(CheckDevice(d->dmap.gather(xa, d->dmap.work(), stream), "compressed rows", stored));
    PetscCall(d->fmt->DeviceApply(Op::Trans, d->dmap.work(), za, ya, stream));
  }
  if (side) PetscCallCUDA(cudaEventRecord(side->done, side->stream));
  else PetscCall(PetscLogGpuTimeEnd());
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

// SeqAIJ's operations that read the AIJ value array itself (MatSOR's inode variant, the column
// reductions): the newest values copied back first (HostReader)
const struct _MatOps &ParentOps(Mat A) { return Data(A)->parent; }
#define SEQ_HOST_READER(member) GPUMAT_HOST_READER(SyncHost, ParentOps, member)

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
  SEQ_HOST_READER(sor),
  SEQ_HOST_READER(getcolumnreductions),
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
#if defined(GPUMAT_WITH_CUDA)
  if (d->dv.pending) { // the values a device COO assembly wrote are those of the state this assembly ends with
    PetscObjectState state;
    PetscCall(PetscObjectStateGet((PetscObject)A, &state));
    d->dv.state   = state + 1; // MatAssemblyEnd() raises it once after this returns (as below)
    d->dv.pending = false;
  }
#endif
  if (d->opt.eager) {
    // (a device COO assembly, which moves no state before this, outdated the storage itself:
    // DeviceValuesWritten; every other writer raised the state)
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
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  PetscCall(PetscViewerGetFormat(viewer, &format));
  const bool info = ascii && (format == PETSC_VIEWER_ASCII_INFO || format == PETSC_VIEWER_ASCII_INFO_DETAIL);
  if (!info) PetscCall(SyncHost(A)); // SeqAIJ's viewers print the AIJ array itself
  PetscCall(d->parent.view(A, viewer));
  if (!info) PetscFunctionReturn(PETSC_SUCCESS);
  // MatView is no product: it builds nothing and changes no state; the storage's statistics are
  // shown only while they describe the current pattern
  const bool new_pattern = d->nzstate != A->nonzerostate, built = d->built && !new_pattern;
  PetscCall(GetCsr(A, new_pattern));
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
  dev += d->dmap.device_bytes() + d->dv.DeviceBytes();
  if (d->coo.n >= 0 || d->dv.assemblies) {
    const DeviceValues &v = d->dv;
    PetscCall(PetscViewerASCIIPrintf(viewer, "COO assembly: %" PetscInt_FMT " device assemblies (summed on the GPU through a map of %" PetscInt64_FMT " entries%s, %zu device bytes, into a device copy of the values, %zu bytes); host values %s\n", v.assemblies,
                                     (PetscInt64)(v.dlocal.uploaded() ? v.dlocal.entries() : d->coo.local.entries()), d->coo.has_remote ? " and the entries of other ranks" : "", v.dlocal.device_bytes() + v.dremote.device_bytes(), (size_t)v.n * sizeof(Scalar),
                                     v.host_stale ? "older (copied back when a host reader asks)" : "current"));
  }
#else
  if (d->coo.n >= 0 && d->opt.coo_host_reference) PetscCall(PetscViewerASCIIPrintf(viewer, "COO assembly: through a map of %" PetscInt64_FMT " entries on the host (-mat_gpumat_coo_host_reference)\n", (PetscInt64)d->coo.local.entries()));
#endif
  if (d->coo.hooked) PetscCall(PetscViewerASCIIPrintf(viewer, "AIJ value accessors: %s\n", d->coo.hooked > 0 ? "hooked (host readers get device values copied back)" : "not hooked (Mat_SeqAIJ's layout is not the one known: device COO values go through the host)"));
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
  PetscCall(SyncHost(A)); // plain SeqAIJ reads its array itself
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
  PetscCall(ComposeCOO(A, false));
  UnhookValueAccess(A); // the device values go (the caller copied them back where A lives on)
#if defined(GPUMAT_WITH_CUDA)
  d->dv.ReleaseValues();
  d->dv.ReleaseMaps();
#endif
  d->coo.Release();
  d->fmt->DeviceRelease();
  PetscCallCXX(delete d);
  A->spptr = nullptr;
  PetscCall(MatSetVecType(A, VECSTANDARD));
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, MATSEQAIJ));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

// Whether v is a vector whose array the device products read: CUDA, or Kokkos with the CUDA backend.
PetscErrorCode IsDeviceVec(Vec v, PetscBool *dev)
{
  PetscFunctionBegin;
  *dev = PETSC_FALSE;
#if defined(GPUMAT_WITH_CUDA)
  PetscCall(PetscObjectTypeCompareAny((PetscObject)v, dev, VECSEQCUDA, VECMPICUDA, ""));
  #if defined(PETSC_HAVE_KOKKOS) && defined(PETSC_HAVE_MACRO_KOKKOS_ENABLE_CUDA)
  if (!*dev) PetscCall(PetscObjectTypeCompareAny((PetscObject)v, dev, VECSEQKOKKOS, VECMPIKOKKOS, ""));
  #endif
#else
  (void)v;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SeqValuesHostAccess(Mat A, bool read, bool write)
{
  PetscFunctionBegin;
#if defined(GPUMAT_WITH_CUDA)
  SeqData *d = Ours(A);
  if (!d) PetscFunctionReturn(PETSC_SUCCESS);
  if (read) PetscCall(SyncHost(A));
  else d->dv.host_stale = false; // a writer of every value: the host's are the newest from now
  if (write) {                   // the device copy no longer holds them
    d->dv.state   = -1;
    d->dv.pending = false;
  }
#else
  (void)A;
  (void)read;
  (void)write;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

bool SeqValuesInternal(Mat A)
{
#if defined(GPUMAT_WITH_CUDA)
  const SeqData *d = Ours(A);
  return d && d->dv.internal > 0;
#else
  (void)A;
  return false;
#endif
}

PetscErrorCode SeqCooSetMaps(Mat A, PetscCount n, CooMap &&local, CooMap &&remote)
{
  SeqData *d = Data(A);
  PetscFunctionBegin;
  PetscCheck(d && FindFormat(((PetscObject)A)->type_name), PETSC_COMM_SELF, PETSC_ERR_PLIB, "COO maps for a matrix that is not one of ours");
  d->coo.Release();
  d->coo.has_remote = !remote.jmap.empty();
  PetscCallCXX(d->coo.local = std::move(local));
  PetscCallCXX(d->coo.remote = std::move(remote));
  d->coo.n       = n;
  d->coo.nzstate = A->nonzerostate;
#if defined(GPUMAT_WITH_CUDA)
  d->dv.ReleaseMaps();
#endif
  { // CUDA builds need them; builds without CUDA hook them as well (the host reference's tests check them)
    bool ok;
    PetscCall(HookValueAccess(A, &ok));
    d->coo.hooked = ok ? 1 : -1;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

bool SeqCooHostReference(Mat A)
{
  const SeqData *d = Data(A);
  return d && FindFormat(((PetscObject)A)->type_name) && d->opt.coo_host_reference;
}

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
PetscErrorCode SeqCooDeviceReady(Mat A, bool *ready)
{
  const SeqData *d = Ours(A);
  PetscFunctionBegin;
  *ready = d && d->coo.n >= 0 && d->coo.nzstate == A->nonzerostate && d->coo.hooked == 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

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
  DeviceValuesWritten(Data(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

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
  PetscCall(PetscOptionsBool("-mat_gpumat_coo_host_reference", "MatSetValuesCOO with host arrays through the machinery's COO maps on the host (the host reference of the device COO assembly) instead of SeqAIJ's", "MatSetValuesCOO", o.coo_host_reference, &o.coo_host_reference, nullptr));
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
  PetscCall(ComposeCOO(A, true));
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
  b += Data(A)->dmap.device_bytes() + Data(A)->dv.DeviceBytes();
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

#if defined(GPUMAT_WITH_CUDA)
PetscErrorCode SeqApplyCompressedBegin(Mat A, Vec x, PetscBool *split)
{
  SeqData           *d = Data(A);
  const PetscScalar *xa;
  PetscMemType       mx;
  cudaStream_t       stream;
  PetscBool          dev;
  PetscFunctionBegin;
  *split = PETSC_FALSE;
  PetscCheck(d, PETSC_COMM_SELF, PETSC_ERR_PLIB, "not a petsc-gpumat matrix");
  PetscCall(OnDevice(A, {x}, &dev));
  if (!dev) PetscFunctionReturn(PETSC_SUCCESS);
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

PetscErrorCode SeqApplyCompressedEnd(Mat A, Vec y)
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

PetscErrorCode SeqApplyOnSide(Mat A, Op op, Vec x, Vec z, Vec y, const SideStream &side, PetscBool *started)
{
  PetscBool dev, active;
  PetscFunctionBegin;
  *started = PETSC_FALSE;
  PetscCall(DevicePath(A, op, x, z, y, &dev));
  if (!dev) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogIsActive(&active)); // PETSc's GPU timers wait for its stream per event:
  if (active && PetscLogGpuTimeFlag) PetscFunctionReturn(PETSC_SUCCESS); // nothing would overlap
  PetscCall(DeviceApply(A, op, x, z, y, &side));
  *started = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

PetscErrorCode SeqApply(Mat A, Op op, Vec x, Vec z, Vec y)
{
  SeqData  *d = Data(A);
  PetscBool dev;
  PetscFunctionBegin;
  PetscCall(DevicePath(A, op, x, z, y, &dev));
#if defined(GPUMAT_WITH_CUDA)
  if (dev) {
    PetscCall(DeviceApply(A, op, x, z, y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  if (d->opt.host_reference) PetscCall(HostReferenceApply(A, op, x, z, y));
  else PetscCall(ParentApply(A, op, x, z, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpumat
