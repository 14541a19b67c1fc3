// The MPI product's ghosts: the ghost vector and its scatter (MPIAIJ's own where it serves, set up
// once at assembly as aijcusparse's is; ours of the same graph where -mat_gpumat_gpu_aware_mpi asks
// for another way of moving device buffers than PETSc's), the side stream's halo messages planned
// from that scatter's graph, and the probe of whether this MPI takes device buffers.
#include "mpi.hpp"
#include <petsc/private/sfimpl.h> // PetscSF::use_gpu_aware_mpi, per scatter
#if defined(OPEN_MPI) && OPEN_MPI
  #include <mpi-ext.h> // MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support
#endif
#include <cstring>
#include <string>
#include <vector>

namespace gpumat {
namespace {

// Whether this process's MPI moves device (CUDA) buffers in point-to-point messages; if not, why.
// - Open MPI: built with CUDA (mpi-ext.h's MPIX_CUDA_AWARE_SUPPORT, as compiled against) and
//   enabled at run time (MPIX_Query_cuda_support);
// - MPICH and its derivatives: GPU support built and enabled (MPIX_GPU_query_support); or else its
//   ch4:ucx device with the ucx netmod and local ranks through UCX as well (MPIR_CVAR_NOLOCAL=1,
//   read through MPI_T), where UCX recognises device memory: the cudampich configuration. MPICH's
//   own shared memory and its ofi netmod would copy the device buffer on the host (a SEGV);
// - another MPI: not known here, taken at its word (as PETSc's -use_gpu_aware_mpi 1 is).
bool MPIMovesDeviceBuffers(std::string *why)
{
#if defined(OPEN_MPI) && OPEN_MPI
  #if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  if (MPIX_Query_cuda_support()) return true;
  *why = "Open MPI reports no CUDA support at run time (MPIX_Query_cuda_support() is 0)";
  #else
  *why = "the Open MPI this library was compiled against has no CUDA support (mpi-ext.h: MPIX_CUDA_AWARE_SUPPORT is 0)";
  #endif
  return false;
#elif defined(MPICH_VERSION)
  int gpu = 0;
  #if defined(MPIX_GPU_SUPPORT_CUDA)
  if (MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &gpu) != MPI_SUCCESS) gpu = 0;
  #endif
  if (gpu) return true;
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int  len = 0, provided = 0, idx = 0, count = 0, nolocal = 0;
  if (MPI_Get_library_version(version, &len) != MPI_SUCCESS) version[0] = 0;
  const char *netmod = getenv("MPIR_CVAR_CH4_NETMOD");
  const bool  ucx    = strstr(version, "ch4:ucx") && (!netmod || !netmod[0] || !strcmp(netmod, "ucx"));
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS) {
    MPI_T_cvar_handle h;
    if (MPI_T_cvar_get_index("MPIR_CVAR_NOLOCAL", &idx) == MPI_SUCCESS && MPI_T_cvar_handle_alloc(idx, nullptr, &h, &count) == MPI_SUCCESS) {
      if (count != 1 || MPI_T_cvar_read(h, &nolocal) != MPI_SUCCESS) nolocal = 0;
      (void)MPI_T_cvar_handle_free(&h);
    }
    (void)MPI_T_finalize();
  }
  if (ucx && nolocal) return true;
  *why = !ucx ? "MPICH without GPU support (MPIX_GPU_query_support) moves device buffers only through its ch4:ucx device's ucx netmod, which this run does not use"
              : "MPICH without GPU support (MPIX_GPU_query_support) copies device buffers between local ranks on the host through its shared memory: set MPIR_CVAR_NOLOCAL=1 so that UCX moves them (the cudampich configuration's GPUMAT_GPU_AWARE_MPI_ENV)";
  return false;
#else
  (void)why;
  return true;
#endif
}

// -mat_gpumat_gpu_aware_mpi 1 with device vectors: refused on every rank, with the reason, where an
// MPI cannot take device buffers (it would crash inside MPI). PETSc's own flag set means PETSc's
// start-up check passed or the user vouched for the MPI.
PetscErrorCode CheckDeviceBuffersInMPI(MPI_Comm comm)
{
  std::string why;
  PetscMPIInt size, ok, all;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (use_gpu_aware_mpi || size == 1) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallCXX(ok = MPIMovesDeviceBuffers(&why) ? 1 : 0);
  PetscCallMPI(MPIU_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm));
  PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "-mat_gpumat_gpu_aware_mpi 1: this MPI cannot take device buffers: %s. Use -mat_gpumat_gpu_aware_mpi 0 (the halo through host buffers) or a CUDA-aware MPI", why.c_str());
  PetscCheck(all, comm, PETSC_ERR_SUP_SYS, "-mat_gpumat_gpu_aware_mpi 1: the MPI of another rank cannot take device buffers (its message says why). Use -mat_gpumat_gpu_aware_mpi 0 (the halo through host buffers) or a CUDA-aware MPI");
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

namespace {

// The ghosts' vector type for products whose column-space vector is `like`: its own kind.
PetscErrorCode GhostType(Vec like, VecType *ltype, PetscBool *device)
{
  PetscFunctionBegin;
  *ltype = VECSEQ;
  PetscCall(IsDeviceVec(like, device));
  if (*device) {
    PetscBool kokkos;
    PetscCall(PetscObjectTypeCompareAny((PetscObject)like, &kokkos, VECSEQKOKKOS, VECMPIKOKKOS, ""));
    *ltype = kokkos ? VECSEQKOKKOS : VECSEQCUDA;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// MPIAIJ's own scatter (MatGetMultPetscSF: garray to its ghost vector, the graph ours would have)
// where it moves the memory as asked: host vectors, or its device-buffer flag (PETSc's
// -use_gpu_aware_mpi when it was made, the same on every rank) equal to ours. Then no scatter of ours
// is set up: with millions of ghosts that takes seconds. Otherwise (*mv null:
// -mat_gpumat_gpu_aware_mpi other than PETSc's) ours, of the same graph.
PetscErrorCode ParentScatter(Mat A, PetscInt nghost, PetscBool device, PetscBool aware, PetscSF *mv)
{
  PetscFunctionBegin;
  *mv = nullptr;
  PetscCall(MatGetMultPetscSF(A, mv));
  if (*mv) {
    PetscInt nleaves;
    PetscCall(PetscSFGetGraph(*mv, nullptr, &nleaves, nullptr, nullptr));
    if (nleaves != nghost || (device && (*mv)->use_gpu_aware_mpi != aware)) *mv = nullptr;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// A new ghost vector of type ltype and its scatter: mv referenced, or one of ours made from garray.
PetscErrorCode MakeGhosts(Mat A, Vec like, const PetscInt *garray, PetscInt nghost, VecType ltype, PetscBool aware, PetscSF mv)
{
  Ghosts &g = MPIDataOf(A)->gh;
  PetscFunctionBegin;
  PetscCall(VecScatterDestroy(&g.sct));
  PetscCall(VecDestroy(&g.lvec));
  PetscCall(VecCreate(PETSC_COMM_SELF, &g.lvec));
  PetscCall(VecSetSizes(g.lvec, nghost, nghost));
  PetscCall(VecSetType(g.lvec, ltype));
  if (mv) {
    PetscCall(PetscObjectReference((PetscObject)mv)); // held: MPIAIJ makes a new one (never this address) when it disassembles
    g.sct = mv;
  } else {
    IS from, to;
    PetscCall(ISCreateGeneral(PETSC_COMM_SELF, nghost, garray, PETSC_COPY_VALUES, &from));
    PetscCall(ISCreateStride(PETSC_COMM_SELF, nghost, 0, 1, &to));
    PetscCall(VecScatterCreate(like, from, g.lvec, to, &g.sct));
    // The SF reads its flag when it makes its first communication link (PetscSFLinkCreate_MPI), so
    // set before any: device buffers straight to MPI, or PETSc's host staging
    g.sct->use_gpu_aware_mpi = aware;
    PetscCall(ISDestroy(&from));
    PetscCall(ISDestroy(&to));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

// The ghost vector for products whose column-space vector is `like`, for the off-diagonal block
// (its object, pattern and ghost count) and the memory of `like`.
PetscErrorCode EnsureGhosts(Mat A, Vec like)
{
  MPIData        *d = MPIDataOf(A);
  Ghosts         &g = d->gh;
  Mat             Ao;
  const PetscInt *garray;
  VecType         ltype;
  PetscBool       device, same;
  PetscSF         mv;
  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, nullptr, &Ao, &garray));
  PetscCall(GhostType(like, &ltype, &device));
  const PetscInt  nghost = Ao->cmap->n;
  const PetscBool aware  = device && d->set.gpu_aware ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(ParentScatter(A, nghost, device, aware, &mv));
  PetscCall(PetscStrcmp(g.type, ltype, &same));
  if (g.sct && g.block == ((PetscObject)Ao)->id && g.nzstate == A->nonzerostate && g.nghost == nghost && same && g.aware == aware && g.parent == (mv != nullptr) && (!mv || mv == g.sct)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventBegin(MachineryEventIds().scatter, A, 0, 0, 0));
  if (aware) PetscCall(CheckDeviceBuffersInMPI(PetscObjectComm((PetscObject)A)));
#if defined(GPUMAT_WITH_CUDA)
  d->halo.Release();
#endif
  PetscCall(MakeGhosts(A, like, garray, nghost, ltype, aware, mv));
  g.parent = mv != nullptr;
  g.aware  = aware;
  {
    PetscMPIInt mine = nghost > 0, any;
    PetscBool   cuda; // Kokkos ghosts take PETSc's order
    PetscCallMPI(MPIU_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, PetscObjectComm((PetscObject)A)));
    PetscCall(PetscStrcmp(ltype, VECSEQCUDA, &cuda));
    g.side = any && cuda ? PETSC_TRUE : PETSC_FALSE;
  }
  g.block   = ((PetscObject)Ao)->id;
  g.nzstate = A->nonzerostate;
  g.nghost  = nghost;
  g.type    = ltype;
  PetscCall(PetscLogEventEnd(MachineryEventIds().scatter, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(GPUMAT_WITH_CUDA)
PetscErrorCode EnsureSideStream(MPIData *d)
{
  PetscFunctionBegin;
  if (!d->side.stream) PetscCallCUDA(cudaStreamCreateWithFlags(&d->side.stream, cudaStreamNonBlocking));
  if (!d->side.ready) PetscCallCUDA(cudaEventCreateWithFlags(&d->side.ready, cudaEventDisableTiming));
  if (!d->side.done) PetscCallCUDA(cudaEventCreateWithFlags(&d->side.done, cudaEventDisableTiming));
  PetscFunctionReturn(PETSC_SUCCESS);
}

namespace {

// The graph the halo is planned from: the scatter where its type gives its ranks and it moves single
// entries (MPIAIJ's, or ours: set up already); otherwise a basic SF of the same graph (*sf0, to be
// destroyed). Both conditions are the same on every rank (the SF type and the scatter's block size
// are agreed), as the set-up is collective.
PetscErrorCode HaloGraph(Mat A, PetscSF *src, PetscSF *sf0)
{
  Mat             Ao;
  const PetscInt *garray;
  PetscFunctionBegin;
  *sf0 = nullptr;
  *src = MPIDataOf(A)->gh.sct;
  if (*src && (*src)->vscat.bs == 1 && (*src)->ops->GetLeafRanks) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatMPIAIJGetSeqAIJ(A, nullptr, &Ao, &garray));
  PetscCall(PetscSFCreate(PetscObjectComm((PetscObject)A), sf0));
  PetscCall(PetscSFSetType(*sf0, PETSCSFBASIC));
  PetscCall(PetscSFSetGraphLayout(*sf0, A->cmap, Ao->cmap->n, nullptr, PETSC_COPY_VALUES, garray));
  PetscCall(PetscSFSetUp(*sf0));
  *src = *sf0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The messages: who needs which owned entries (the graph's leaf ranks: per neighbour, in the order
// that neighbour receives them: the pack's indices) and where each received entry goes (its root
// ranks, rmine: the unpack's, where the receive order is not the ghosts').
PetscErrorCode PlanHalo(Mat A, PetscSF src, PetscInt nghost, cudaStream_t s)
{
  Halo              &h = MPIDataOf(A)->halo;
  const PetscInt    *ioffset, *irootloc, *roffset, *rmine;
  const PetscMPIInt *iranks, *ranks;
  PetscMPIInt        niranks, nranks;
  PetscFunctionBegin;
  PetscCall(PetscSFGetLeafRanks(src, &niranks, &iranks, &ioffset, &irootloc));
  PetscCall(PetscSFGetRootRanks(src, &nranks, &ranks, &roffset, &rmine, nullptr));
  PetscCheck(roffset[nranks] == nghost, PETSC_COMM_SELF, PETSC_ERR_PLIB, "halo: %" PetscInt_FMT " leaves for %" PetscInt_FMT " ghosts", roffset[nranks], nghost);
  const PetscInt nsend = ioffset[niranks];
  h.to.assign(iranks, iranks + niranks);
  h.from.assign(ranks, ranks + nranks);
  h.soff.assign(ioffset, ioffset + niranks + 1);
  h.roff.assign(roffset, roffset + nranks + 1);
  h.scount.resize((size_t)niranks);
  h.rcount.resize((size_t)nranks);
  for (PetscMPIInt k = 0; k < niranks; k++) PetscCall(PetscMPIIntCast(ioffset[k + 1] - ioffset[k], &h.scount[k]));
  for (PetscMPIInt k = 0; k < nranks; k++) PetscCall(PetscMPIIntCast(roffset[k + 1] - roffset[k], &h.rcount[k]));
  h.req.resize((size_t)(niranks + nranks));
  bool in_place = true; // the j-th entry received is ghost j
  for (PetscInt j = 0; rmine && j < nghost && in_place; j++) in_place = rmine[j] == j;
  std::vector<std::int64_t> idx((size_t)nsend);
  for (PetscInt i = 0; i < nsend; i++) idx[i] = irootloc[i];
  PetscCallCUDA(h.pack.upload(idx.data(), nsend, (std::int64_t)A->cmap->n, s));
  if (!in_place) { // ghost rmine[j] = received j: ghost i takes received inv[i]
    idx.assign((size_t)nghost, 0);
    for (PetscInt j = 0; j < nghost; j++) idx[rmine[j]] = j;
    PetscCallCUDA(h.unpack.upload(idx.data(), nghost, nghost, s));
    PetscCallCUDA(cudaMalloc(reinterpret_cast<void **>(&h.rbuf), (size_t)PetscMax(nghost, 1) * sizeof(Scalar)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

// The side-stream product's halo for the current ghosts (Halo), made once per scatter from its graph.
PetscErrorCode EnsureHalo(Mat A, cudaStream_t s)
{
  MPIData *d = MPIDataOf(A);
  Halo    &h = d->halo;
  Mat      Ao;
  PetscSF  src, sf0;
  PetscFunctionBegin;
  if (h.buf) PetscFunctionReturn(PETSC_SUCCESS);
  h.Release(); // what a failed earlier attempt left
  PetscCall(PetscLogEventBegin(MachineryEventIds().halo, A, 0, 0, 0));
  PetscCall(MatMPIAIJGetSeqAIJ(A, nullptr, &Ao, nullptr));
  const PetscInt nghost = Ao->cmap->n;
  PetscCall(HaloGraph(A, &src, &sf0));
  PetscCall(PlanHalo(A, src, nghost, s));
  PetscCall(PetscSFDestroy(&sf0));
  const PetscInt nsend = h.soff.back();
  if (!d->gh.aware) {
    PetscCallCUDA(cudaMallocHost(reinterpret_cast<void **>(&h.hsend), (size_t)PetscMax(nsend, 1) * sizeof(Scalar)));
    PetscCallCUDA(cudaMallocHost(reinterpret_cast<void **>(&h.hrecv), (size_t)PetscMax(nghost, 1) * sizeof(Scalar)));
  }
  PetscCall(PetscObjectGetNewTag((PetscObject)A, &h.tag)); // the same on every rank: A's tags are taken collectively
  PetscCallCUDA(cudaMalloc(reinterpret_cast<void **>(&h.buf), (size_t)PetscMax(nsend, 1) * sizeof(Scalar)));
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)(h.pack.device_bytes() + h.unpack.device_bytes())));
  PetscCall(PetscLogEventEnd(MachineryEventIds().halo, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The ghosts ga (device memory) from the neighbours' halo buffers, each already packed on stream s:
// the pack (and through the host its copy) waited for, receives and sends posted, all waited for,
// then through the host the copy into place, and where the receive order is not the ghosts' the
// spread, queued on s.
PetscErrorCode HaloExchange(Mat A, Scalar *ga, cudaStream_t s)
{
  MPIData       *d    = MPIDataOf(A);
  MPI_Comm       comm = PetscObjectComm((PetscObject)A);
  const size_t   nto = d->halo.to.size(), nfrom = d->halo.from.size();
  Scalar        *rbuf = d->halo.hrecv ? d->halo.hrecv : d->halo.rbuf ? d->halo.rbuf : ga;
  const Scalar  *sbuf = d->halo.hsend ? d->halo.hsend : d->halo.buf;
  const size_t   send_bytes = (size_t)d->halo.soff.back() * sizeof(Scalar), recv_bytes = (size_t)d->halo.roff.back() * sizeof(Scalar);
  PetscFunctionBegin;
  if (d->halo.hsend && send_bytes) {
    PetscCallCUDA(cudaMemcpyAsync(d->halo.hsend, d->halo.buf, send_bytes, cudaMemcpyDeviceToHost, s));
    PetscCall(PetscLogGpuToCpu((PetscLogDouble)send_bytes));
  }
  // The pack done, and whatever s still runs that reads the ghosts (the last product's off-diagonal
  // block) before MPI may write them; the diagonal product runs on the side stream meanwhile
  PetscCallCUDA(cudaStreamSynchronize(s));
  for (size_t k = 0; k < nfrom; k++) PetscCallMPI(MPI_Irecv(rbuf + d->halo.roff[k], d->halo.rcount[k], MPIU_SCALAR, d->halo.from[k], d->halo.tag, comm, &d->halo.req[k]));
  for (size_t k = 0; k < nto; k++) PetscCallMPI(MPI_Isend(sbuf + d->halo.soff[k], d->halo.scount[k], MPIU_SCALAR, d->halo.to[k], d->halo.tag, comm, &d->halo.req[nfrom + k]));
  PetscCallMPI(MPI_Waitall((PetscMPIInt)(nto + nfrom), d->halo.req.data(), MPI_STATUSES_IGNORE));
  Scalar *dst = d->halo.rbuf ? d->halo.rbuf : ga;
  if (d->halo.hrecv && recv_bytes) {
    PetscCallCUDA(cudaMemcpyAsync(dst, d->halo.hrecv, recv_bytes, cudaMemcpyHostToDevice, s));
    PetscCall(PetscLogCpuToGpu((PetscLogDouble)recv_bytes));
  }
  if (d->halo.rbuf) PetscCallCUDA(d->halo.unpack.apply(d->halo.rbuf, ga, s));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

} // namespace gpumat
