// The MPI type: MPIAIJ whose diagonal and off-diagonal blocks are our sequential type.
//
// PETSc's Mat_MPIAIJ (and so its ghost vector lvec) is private, and its COO and hash assembly
// paths recreate the blocks as plain seqaij with a host lvec. So this type converts the blocks in
// place after every final assembly, whatever path assembled them, and keeps its own ghost vector
// (CUDA when the input is). The ghosts come through MPIAIJ's own scatter (MatGetMultPetscSF), set
// up once at assembly as aijcusparse's is, unless -mat_gpumat_gpu_aware_mpi asks for another way of
// moving device buffers than PETSc's: then through a scatter of ours of the same graph (the public
// garray, MatMPIAIJGetSeqAIJ). The products follow MatMult_MPIAIJ: start the scatter, local product, finish the scatter,
// off-diagonal product added in place, so communication overlaps the local product
// (Kreutzer et al.'s task mode); with CUDA vectors the diagonal product runs on a stream of the
// matrix's own while the halo exchange and the off-diagonal product use PETSc's stream
// (-mat_gpumat_side_stream, ApplyOnSide): PETSc's VecScatterBegin returns only once its pack (and,
// through the host, its copy) is done, and a pack queued behind the diagonal product waits for
// the multiprocessors that product holds.
// -mat_gpumat_overlap 0 finishes the scatter first (their vector mode), for measuring what the
// overlap gains. -mat_gpumat_gpu_aware_mpi sets, for this scatter
// alone, whether device vectors' ghost values go to MPI in device memory or through host buffers
// (PETSc's -use_gpu_aware_mpi decides for PETSc's own scatters, aijcusparse's among them): an MPI
// that moves device buffers in point-to-point messages but fails PETSc's start-up check (a
// reduction on device memory), as the cudampich configuration's MPICH on UCX, serves our halo.
//
// Device COO assembly (CUDA builds): MatSetPreallocationCOO runs MPIAIJ's (the blocks, the host
// maps), then maps once per pattern every COO entry of this rank onto its block's nonzero, and
// the entries of rows owned elsewhere onto their owner through a PetscSF of our own (their indices
// sent once, so the owner maps them onto its blocks). MatSetValuesCOO with a device array then
// gathers the entries to send on the device, reduces them through the SF with device memory types
// (PETSc stages them through the host where MPI is not GPU-aware, as for mpiaijcusparse), sums
// the local entries into both blocks' device values meanwhile, then the received ones
// (seqaij.cxx's SeqCooDevice*): no block's values go through the host. Host arrays take MPIAIJ's
// path.
#include "gpumat_impl.hpp"
#include "values.hpp"
#include <petscdevice.h>
#include <petscsf.h>
#include <petsc/private/sfimpl.h> // PetscSF::use_gpu_aware_mpi, per scatter
#if defined(OPEN_MPI) && OPEN_MPI
  #include <mpi-ext.h> // MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support
#endif
#include <algorithm>
#include <cstring>
#include <vector>
#if defined(GPUMAT_WITH_CUDA)
  #include "cuda/coo.cuh"
#endif

namespace gpumat {
namespace {

struct MPIData {
  const FormatInfo *info = nullptr;
  struct _MatOps    parent; // the parent's (MPIAIJ's) operations
  PetscErrorCode (*preallocation)(Mat, PetscInt, const PetscInt[], PetscInt, const PetscInt[]) = nullptr;

  // our ghost vector and scatter, for one (off-diagonal block, nonzero state, ghost count, memory
  // kind). Making them is collective, so every key must change on all ranks at once: the block's
  // object (a new one on every rank: COO preallocation, MPIAIJ's disassembly) and the MPI matrix's
  // nonzero state (MPIAIJ sums the blocks' over the ranks at assembly), not the off-diagonal
  // block's own, which a new nonzero at a column its rank already has raises on that rank alone
  Vec              lvec = nullptr;
  VecScatter       sct  = nullptr;
  PetscObjectId    sct_block   = 0; // the off-diagonal block (COO preallocation makes a new one: its state alone may repeat)
  PetscObjectState sct_nzstate = -1; // the MPI matrix's
  PetscInt         sct_nghost  = -1;
  VecType          sct_type    = VECSEQ; // the ghosts' vector type (the kind of the vectors multiplied)
  PetscBool        sct_aware   = PETSC_FALSE; // the scatter hands device buffers to MPI
  PetscBool        sct_side    = PETSC_FALSE; // CUDA ghosts and some rank has ghosts: the side-stream path may apply (the same on every rank)
  bool             sct_parent  = false;       // sct is MPIAIJ's own (MatGetMultPetscSF), referenced, not made by us

  bool ignore_remote = false; // MAT_IGNORE_OFF_PROC_ENTRIES set through MatSetOption
  // -mat_gpumat_overlap: the halo exchange overlapped with the diagonal block's product (default),
  // or finished before it (read with the blocks' options at every block conversion)
  PetscBool overlap = PETSC_TRUE;
  // -mat_gpumat_gpu_aware_mpi: device vectors' ghost values passed to MPI in device memory, or
  // staged through host buffers; default PETSc's -use_gpu_aware_mpi (read as overlap is)
  PetscBool gpu_aware = use_gpu_aware_mpi;
  // -mat_gpumat_side_stream (CUDA builds, CUDA vectors, with the overlap): the diagonal block's
  // product on a stream of this matrix's own while our pack, the halo exchange and the off-diagonal
  // rows run on PETSc's (ApplyOnSide; default); 0: PETSc's order on its stream (read as overlap is)
  PetscBool side_stream = PETSC_TRUE;
#if defined(GPUMAT_WITH_CUDA)
  SideStream side; // created at its first use
  // The side-stream product's halo (EnsureHalo), made for the scatter `sct` of the same state, from
  // its graph (no set-up of another PetscSF: with millions of ghosts one takes seconds): the owned
  // entries of x each neighbour needs, gathered by our own kernel into one device buffer in the
  // order that neighbour takes them (contiguous per neighbour), sent in one message per neighbour
  // and received in one per owner straight into the ghosts where they lie in the scatter's receive
  // order (MPIAIJ's: garray is sorted), else into a buffer our second kernel spreads into the
  // ghosts; no pack or unpack kernel of PETSc's. Device buffers go to MPI as the scatter's do
  // (sct_aware), else through pinned host buffers of our own
  std::vector<PetscMPIInt>   halo_to, halo_from;     // ranks sent to, received from
  std::vector<PetscMPIInt>   halo_scount, halo_rcount; // entries per message (MPI's int, checked once)
  std::vector<PetscInt>      halo_soff, halo_roff;   // where each message starts in the send buffer, the receive order (last: the totals)
  std::vector<MPI_Request>   halo_req;
  PetscMPIInt                halo_tag = 0;
  cuda::GatherDevice<Scalar> halo_pack;               // x -> halo_buf
  cuda::GatherDevice<Scalar> halo_unpack;             // halo_rbuf -> ghosts, where the receive order is not the ghosts' (else empty)
  Scalar                    *halo_rbuf  = nullptr;    // device, with halo_unpack
  Scalar                    *halo_hsend = nullptr, *halo_hrecv = nullptr; // pinned host buffers: the halo through the host
  Scalar                    *halo_buf   = nullptr;    // allocated last: the halo is complete

  void ReleaseHalo()
  {
    halo_pack.release();
    halo_unpack.release();
    for (Scalar **p : {&halo_buf, &halo_rbuf})
      if (*p) (void)cudaFree(*p);
    for (Scalar **p : {&halo_hsend, &halo_hrecv})
      if (*p) (void)cudaFreeHost(*p);
    halo_buf = halo_rbuf = halo_hsend = halo_hrecv = nullptr;
  }
#endif

  // MPIAIJ's COO assembly (composed), ours chained to it
  CooChain coo_parent; // the parent's COO assembly (ours chained to it)
  // COO assembly through our maps (CUDA builds, or -mat_gpumat_coo_host_reference), of the pattern
  // of the last MatSetPreallocationCOO: the COO array's length, the entries this rank sends (their
  // places in the COO array: on the host until uploaded), the SF to their owners; host buffers
  // (host reference); whether every rank's blocks can be filled on the device, and device buffers
  PetscCount                coo_n              = -1;
  bool                      coo_host_reference = false;
  std::vector<std::int64_t> coo_send_idx;
  PetscSF                   coo_sf    = nullptr;
  PetscInt                  coo_nsend = 0, coo_nrecv = 0;
  std::vector<Scalar>       coo_hsend, coo_hrecv;
#if defined(GPUMAT_WITH_CUDA)
  bool                       coo_device = false;
  cuda::GatherDevice<Scalar> coo_send;
  Scalar                    *coo_sendbuf = nullptr, *coo_recvbuf = nullptr;
#endif

  ~MPIData()
  {
#if defined(GPUMAT_WITH_CUDA)
    if (side.ready) (void)cudaEventDestroy(side.ready);
    if (side.done) (void)cudaEventDestroy(side.done);
    if (side.stream) (void)cudaStreamDestroy(side.stream); // its work completes first
    ReleaseHalo();
#endif
  }

  void ReleaseCOO()
  {
    coo_n = -1;
    coo_send_idx.clear();
    (void)PetscSFDestroy(&coo_sf);
    coo_nsend = coo_nrecv = 0;
    coo_hsend.clear();
    coo_hrecv.clear();
#if defined(GPUMAT_WITH_CUDA)
    coo_device = false;
    coo_send.release();
    if (coo_sendbuf) cudaFree(coo_sendbuf);
    if (coo_recvbuf) cudaFree(coo_recvbuf);
    coo_sendbuf = coo_recvbuf = nullptr;
#endif
  }
};

MPIData *Data(Mat A) { return static_cast<MPIData *>(A->spptr); }
extern const OpTable kMPITable;

// Make the blocks ours (they may be plain seqaij after COO or hash assembly), reading the
// format's options with the MPI matrix's prefix.
PetscErrorCode ConvertBlocks(Mat A)
{
  Mat Ad, Ao;
  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, nullptr));
  if (Ad) PetscCall(SeqInstallWithOptions(Ad, Data(A)->info, A));
  if (Ao) PetscCall(SeqInstallWithOptions(Ao, Data(A)->info, A));
  PetscCall(PetscOptionsGetBool(((PetscObject)A)->options, ((PetscObject)A)->prefix, "-mat_gpumat_overlap", &Data(A)->overlap, nullptr));
  PetscCall(PetscOptionsGetBool(((PetscObject)A)->options, ((PetscObject)A)->prefix, "-mat_gpumat_gpu_aware_mpi", &Data(A)->gpu_aware, nullptr));
  PetscCall(PetscOptionsGetBool(((PetscObject)A)->options, ((PetscObject)A)->prefix, "-mat_gpumat_side_stream", &Data(A)->side_stream, nullptr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Preallocation(Mat A, PetscInt d_nz, const PetscInt d_nnz[], PetscInt o_nz, const PetscInt o_nnz[])
{
  PetscFunctionBegin;
  PetscCall(Data(A)->preallocation(A, d_nz, d_nnz, o_nz, o_nnz));
  PetscCall(ConvertBlocks(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SetOption(Mat A, MatOption op, PetscBool flg)
{
  PetscFunctionBegin;
  if (op == MAT_IGNORE_OFF_PROC_ENTRIES) Data(A)->ignore_remote = flg ? true : false; // MPIAIJ's COO assembly drops such entries too
  PetscCall(Data(A)->parent.setoption(A, op, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The position of column c in row r of a CSR with ascending columns per row, -1 where absent.
PetscInt RowPosition(const PetscInt *ai, const PetscInt *aj, PetscInt r, PetscInt c)
{
  const PetscInt *b = aj + ai[r], *e = aj + ai[r + 1], *p = std::lower_bound(b, e, c);
  return p != e && *p == c ? (PetscInt)(p - aj) : -1;
}

// Where entry (i, j) of an owned row goes: *posA (diagonal block) or *posB (off-diagonal block),
// the other -1.
struct BlockPatterns {
  PetscInt        rstart, cstart, cend, nghost;
  const PetscInt *ai, *aj, *bi, *bj, *garray;

  PetscErrorCode Place(PetscInt i, PetscInt j, index_t *posA, index_t *posB) const
  {
    PetscFunctionBegin;
    const PetscInt r = i - rstart;
    PetscInt       p = -1;
    *posA = *posB = -1;
    if (j >= cstart && j < cend) {
      p = RowPosition(ai, aj, r, j - cstart);
      *posA = (index_t)p;
    } else {
      const PetscInt *g = std::lower_bound(garray, garray + nghost, j);
      if (g != garray + nghost && *g == j) p = RowPosition(bi, bj, r, (PetscInt)(g - garray));
      *posB = (index_t)p;
    }
    PetscCheck(p >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "COO entry (%" PetscInt_FMT ", %" PetscInt_FMT ") is not in the pattern its preallocation made", i, j);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};

// The maps of a device COO assembly (see the top of this file), from the COO entries as given;
// collective.
PetscErrorCode BuildCooMaps(Mat A, PetscCount n, const PetscInt *ci, const PetscInt *cj)
{
  MPIData        *d = Data(A);
  MPI_Comm        comm;
  PetscMPIInt     size, rank;
  Mat             Ad, Ao;
  const PetscInt *garray;
  BlockPatterns   bp;
  PetscFunctionBegin;
  PetscCall(PetscObjectGetComm((PetscObject)A, &comm));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, &garray));
  PetscCall(MatSeqAIJGetCSRAndMemType(Ad, &bp.ai, &bp.aj, nullptr, nullptr));
  PetscCall(MatSeqAIJGetCSRAndMemType(Ao, &bp.bi, &bp.bj, nullptr, nullptr));
  bp.rstart = A->rmap->rstart;
  bp.cstart = A->cmap->rstart;
  bp.cend   = A->cmap->rend;
  bp.nghost = Ao->cmap->n;
  bp.garray = garray;
  const PetscInt nnzA = Ad->rmap->n ? bp.ai[Ad->rmap->n] : 0, nnzB = Ao->rmap->n ? bp.bi[Ao->rmap->n] : 0;

  // this rank's entries: onto its blocks, or to their rows' owners (grouped by owner, stably)
  std::vector<index_t>      posA, posB;
  std::vector<PetscMPIInt>  owner;
  std::vector<std::int64_t> sendidx;
  std::vector<PetscInt>     count(size, 0), first(size + 1, 0);
  PetscCallCXX(posA.assign((size_t)n, -1));
  PetscCallCXX(posB.assign((size_t)n, -1));
  PetscCallCXX(owner.assign((size_t)n, -1));
  for (PetscCount e = 0; e < n; e++) {
    const PetscInt i = ci[e], j = cj[e];
    if (i < 0 || j < 0) continue; // ignored, as MPIAIJ ignores it
    if (i >= A->rmap->rstart && i < A->rmap->rend) PetscCall(bp.Place(i, j, &posA[e], &posB[e]));
    else if (!d->ignore_remote) {
      PetscCall(PetscLayoutFindOwner(A->rmap, i, &owner[e]));
      count[owner[e]]++;
    }
  }
  for (PetscMPIInt r = 0; r < size; r++) first[r + 1] = first[r] + count[r];
  const PetscInt nsend = first[size];
  PetscCallCXX(sendidx.resize((size_t)nsend));
  {
    std::vector<PetscInt> next(first.begin(), first.end() - 1);
    for (PetscCount e = 0; e < n; e++)
      if (owner[e] >= 0) sendidx[(size_t)next[owner[e]]++] = (std::int64_t)e;
  }

  // the SF: each owner receives from the ranks in rank order; tell each sender where its entries start
  std::vector<PetscInt> rcount(size), roff(size), myoff(size);
  PetscCallMPI(MPI_Alltoall(count.data(), 1, MPIU_INT, rcount.data(), 1, MPIU_INT, comm));
  PetscInt nrecv = 0;
  for (PetscMPIInt r = 0; r < size; r++) {
    roff[r] = nrecv;
    nrecv += rcount[r];
  }
  PetscCallMPI(MPI_Alltoall(roff.data(), 1, MPIU_INT, myoff.data(), 1, MPIU_INT, comm));
  PetscSFNode *iremote;
  PetscCall(PetscMalloc1(nsend, &iremote));
  for (PetscMPIInt r = 0; r < size; r++)
    for (PetscInt l = first[r]; l < first[r + 1]; l++) {
      iremote[l].rank  = r;
      iremote[l].index = myoff[r] + (l - first[r]);
    }
  PetscCall(PetscSFDestroy(&d->coo_sf));
  PetscCall(PetscSFCreate(comm, &d->coo_sf));
  PetscCall(PetscSFSetGraph(d->coo_sf, nrecv, nsend, nullptr, PETSC_COPY_VALUES, iremote, PETSC_OWN_POINTER));
  PetscCall(PetscSFSetUp(d->coo_sf));

  // the owners learn the entries they receive (once per pattern) and map them onto their blocks
  std::vector<PetscInt> si(nsend), sj(nsend), ri(nrecv), rj(nrecv);
  for (PetscInt l = 0; l < nsend; l++) {
    si[l] = ci[sendidx[l]];
    sj[l] = cj[sendidx[l]];
  }
  PetscCall(PetscSFReduceBegin(d->coo_sf, MPIU_INT, si.data(), ri.data(), MPI_REPLACE));
  PetscCall(PetscSFReduceEnd(d->coo_sf, MPIU_INT, si.data(), ri.data(), MPI_REPLACE));
  PetscCall(PetscSFReduceBegin(d->coo_sf, MPIU_INT, sj.data(), rj.data(), MPI_REPLACE));
  PetscCall(PetscSFReduceEnd(d->coo_sf, MPIU_INT, sj.data(), rj.data(), MPI_REPLACE));
  std::vector<index_t> rposA(nrecv, -1), rposB(nrecv, -1);
  for (PetscInt k = 0; k < nrecv; k++) {
    PetscCheck(ri[k] >= A->rmap->rstart && ri[k] < A->rmap->rend, PETSC_COMM_SELF, PETSC_ERR_PLIB, "received COO row %" PetscInt_FMT " is not this rank's", ri[k]);
    PetscCall(bp.Place(ri[k], rj[k], &rposA[k], &rposB[k]));
  }

  CooMap lA, lB, rA, rB;
  PetscCallCXX(lA = coo_map(nnzA, posA.data(), (std::int64_t)n, true));
  PetscCallCXX(lB = coo_map(nnzB, posB.data(), (std::int64_t)n, true));
  PetscCallCXX(rA = coo_map(nnzA, rposA.data(), (std::int64_t)nrecv, false));
  PetscCallCXX(rB = coo_map(nnzB, rposB.data(), (std::int64_t)nrecv, false));
  PetscCall(SeqCooSetMaps(Ad, n, std::move(lA), std::move(rA)));
  PetscCall(SeqCooSetMaps(Ao, n, std::move(lB), std::move(rB)));
  d->coo_send_idx = std::move(sendidx);
  d->coo_nsend    = nsend;
  d->coo_nrecv    = nrecv;
  d->coo_n        = n;
#if defined(GPUMAT_WITH_CUDA)
  { // every rank's blocks ready (hooked accessors), or the host path everywhere: the SF is collective
    bool okA, okB;
    int  ok;
    PetscCall(SeqCooDeviceReady(Ad, &okA));
    PetscCall(SeqCooDeviceReady(Ao, &okB));
    ok = okA && okB;
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, comm));
    d->coo_device = ok != 0;
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

// MatSetPreallocationCOO: MPIAIJ's (blocks, SF, host maps), then ours (BuildCooMaps).
PetscErrorCode SetPreallocationCOO(Mat A, PetscCount n, PetscInt coo_i[], PetscInt coo_j[])
{
  MPIData     *d  = Data(A);
  Mat          Ad, Ao;
  PetscBool    host_reference = PETSC_FALSE;
  PetscFunctionBegin;
  d->ReleaseCOO();
  PetscCall(PetscOptionsGetBool(((PetscObject)A)->options, ((PetscObject)A)->prefix, "-mat_gpumat_coo_host_reference", &host_reference, nullptr));
  d->coo_host_reference = host_reference;
#if !defined(GPUMAT_WITH_CUDA)
  if (!host_reference) { // no maps to make: MPIAIJ's alone
    PetscCall(d->coo_parent.preallocation(A, n, coo_i, coo_j));
    PetscCall(ConvertBlocks(A));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  // the entries as given: MPIAIJ's preallocation may reorder the arrays it gets, and reads them on the host
  std::vector<PetscInt> ci, cj, si, sj;
  PetscInt             *pi, *pj;
  PetscCall(CooEntriesOnHost(n, coo_i, coo_j, &ci, &cj, &si, &sj, &pi, &pj));
  PetscCall(d->coo_parent.preallocation(A, n, pi, pj));
  PetscCall(ConvertBlocks(A)); // MPIAIJ made new blocks
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
  MPIData *d = Data(A);
  Mat      Ad, Ao;
  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, nullptr));
  PetscCallCXX(d->coo_hsend.resize((size_t)d->coo_nsend));
  PetscCallCXX(d->coo_hrecv.resize((size_t)d->coo_nrecv));
  for (PetscInt l = 0; l < d->coo_nsend; l++) d->coo_hsend[l] = v[d->coo_send_idx[l]];
  PetscCall(PetscSFReduceBegin(d->coo_sf, MPIU_SCALAR, d->coo_hsend.data(), d->coo_hrecv.data(), MPI_REPLACE));
  PetscCall(SeqCooHostAdd(Ad, v, false, mode));
  PetscCall(SeqCooHostAdd(Ao, v, false, mode));
  PetscCall(PetscSFReduceEnd(d->coo_sf, MPIU_SCALAR, d->coo_hsend.data(), d->coo_hrecv.data(), MPI_REPLACE));
  PetscCall(SeqCooHostAdd(Ad, d->coo_hrecv.data(), true, mode));
  PetscCall(SeqCooHostAdd(Ao, d->coo_hrecv.data(), true, mode));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SetValuesCOO(Mat A, const PetscScalar v[], InsertMode mode)
{
  MPIData     *d  = Data(A);
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
    PetscBool host_reference = d->coo_host_reference ? PETSC_TRUE : PETSC_FALSE;
    if (d->coo_n < 0) PetscCall(PetscOptionsGetBool(((PetscObject)A)->options, ((PetscObject)A)->prefix, "-mat_gpumat_coo_host_reference", &host_reference, nullptr)); // no preallocation read it
    if (host_reference) {
      PetscCheck(d->coo_n >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MatSetValuesCOO: no COO map of ours (MatSetPreallocationCOO was not called on this %s matrix, or MatDuplicate made it)", ((PetscObject)A)->type_name);
      PetscCall(HostReferenceCOO(A, v, mode));
    } else PetscCall(d->coo_parent.setvalues(A, v, mode));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#if defined(GPUMAT_WITH_CUDA)
  Mat                      Ad, Ao;
  cudaStream_t             s;
  std::vector<PetscScalar> h;
  Scalar                  *staged = nullptr;
  PetscCheck(d->coo_n >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MatSetValuesCOO: no COO map of ours (MatSetPreallocationCOO was not called on this %s matrix, or MatDuplicate made it)", ((PetscObject)A)->type_name);
  if (!d->coo_device) { // the host path: the values copied to the host, MPIAIJ's assembly
    if (v && PetscMemTypeDevice(mt)) {
      PetscCallCXX(h.resize((size_t)d->coo_n));
      if (d->coo_n) PetscCallCUDA(cudaMemcpy(h.data(), v, (size_t)d->coo_n * sizeof(PetscScalar), cudaMemcpyDeviceToHost));
      PetscCall(PetscLogGpuToCpu((PetscLogDouble)d->coo_n * sizeof(PetscScalar)));
      v = h.data();
    }
    PetscCall(PetscInfo(A, "device COO values taken through the host (PETSc's value accessors could not be hooked on some rank)\n"));
    PetscCall(d->coo_parent.setvalues(A, v, mode));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  // PETSc's stream first: it makes PETSc's device of this rank (rank % devices) current, which a
  // rank that has done no CUDA work yet would not have, and the staging buffer belongs there
  PetscCall(PetscGetCurrentCUDAStream(&s));
  if (v && !PetscMemTypeDevice(mt) && d->coo_n) { // this rank's values on the host while the others' are on the device
    PetscCallCUDA(cudaMalloc(reinterpret_cast<void **>(&staged), (size_t)d->coo_n * sizeof(Scalar)));
    PetscCallCUDA(cudaMemcpyAsync(staged, v, (size_t)d->coo_n * sizeof(Scalar), cudaMemcpyHostToDevice, s));
    PetscCall(PetscLogCpuToGpu((PetscLogDouble)d->coo_n * sizeof(Scalar)));
    v = staged;
  }
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, nullptr));
  for (Mat b : {Ad, Ao}) {
    bool ready;
    PetscCall(SeqCooDeviceReady(b, &ready));
    PetscCheck(ready, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MatSetValuesCOO: the nonzero pattern of this %s matrix changed since MatSetPreallocationCOO; call MatSetPreallocationCOO again", ((PetscObject)A)->type_name);
  }
  if (!d->coo_send.uploaded()) { // once per pattern
    PetscCallCUDA(d->coo_send.upload(d->coo_send_idx.data(), d->coo_nsend, (std::int64_t)d->coo_n, s));
    PetscCall(PetscLogCpuToGpu((PetscLogDouble)d->coo_send.device_bytes()));
    if (!d->coo_host_reference) { // the device holds it now
      d->coo_send_idx.clear();
      d->coo_send_idx.shrink_to_fit();
    }
    PetscCallCUDA(cudaMalloc(reinterpret_cast<void **>(&d->coo_sendbuf), (size_t)PetscMax(d->coo_nsend, 1) * sizeof(Scalar)));
    PetscCallCUDA(cudaMalloc(reinterpret_cast<void **>(&d->coo_recvbuf), (size_t)PetscMax(d->coo_nrecv, 1) * sizeof(Scalar)));
  }
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCUDA(d->coo_send.apply(v, d->coo_sendbuf, s));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscSFReduceWithMemTypeBegin(d->coo_sf, MPIU_SCALAR, PETSC_MEMTYPE_CUDA, d->coo_sendbuf, PETSC_MEMTYPE_CUDA, d->coo_recvbuf, MPI_REPLACE));
  PetscCall(SeqCooDeviceAdd(Ad, v, false, mode, s)); // this rank's entries while the others' travel
  PetscCall(SeqCooDeviceAdd(Ao, v, false, mode, s));
  PetscCall(PetscSFReduceEnd(d->coo_sf, MPIU_SCALAR, d->coo_sendbuf, d->coo_recvbuf, MPI_REPLACE));
  PetscCall(SeqCooDeviceAdd(Ad, d->coo_recvbuf, true, mode, s));
  PetscCall(SeqCooDeviceAdd(Ao, d->coo_recvbuf, true, mode, s));
  PetscCall(SeqCooDeviceDone(Ad));
  PetscCall(SeqCooDeviceDone(Ao));
  if (staged) PetscCallCUDA(cudaFree(staged)); // synchronizes: the sums have read it
#else
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "device COO values in a build without CUDA");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

// MPIAIJ's operations that read their blocks' AIJ arrays themselves (not through the accessors):
// the newest values copied back into both blocks first (HostReader)
PetscErrorCode SyncBlocks(Mat A)
{
  Mat Ad, Ao;
  PetscFunctionBegin;
  if (A->preallocated) {
    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, nullptr));
    for (Mat b : {Ad, Ao})
      if (b) PetscCall(SeqValuesHostAccess(b, true, false));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
const struct _MatOps &ParentOps(Mat A) { return Data(A)->parent; }
#define MPI_HOST_READER(member) GPUMAT_HOST_READER(SyncBlocks, ParentOps, member)

PetscErrorCode AssemblyEnd(Mat A, MatAssemblyType mode)
{
  PetscFunctionBegin;
  const struct _MatOps before = *A->ops;
  PetscCall(Data(A)->parent.assemblyend(A, mode));
  ReinstallOps(A, kMPITable, before, &Data(A)->parent);
  if (mode == MAT_FINAL_ASSEMBLY) PetscCall(ConvertBlocks(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

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

// The ghost vector for products whose column-space vector is `like`, for the off-diagonal block
// (its object, pattern and ghost count) and the memory of `like`.
PetscErrorCode EnsureGhosts(Mat A, Vec like)
{
  MPIData        *d = Data(A);
  Mat             Ad, Ao;
  const PetscInt *garray;
  VecType         ltype = VECSEQ; // the ghosts in the vector's own kind
  PetscBool       device = PETSC_FALSE, same;
  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, &garray));
  PetscCall(IsDeviceVec(like, &device));
  if (device) {
    PetscBool kokkos;
    PetscCall(PetscObjectTypeCompareAny((PetscObject)like, &kokkos, VECSEQKOKKOS, VECMPIKOKKOS, ""));
    ltype = kokkos ? VECSEQKOKKOS : VECSEQCUDA;
  }
  const PetscInt  nghost = Ao->cmap->n;
  const PetscBool aware  = device && d->gpu_aware ? PETSC_TRUE : PETSC_FALSE;
  // MPIAIJ's own scatter (MatGetMultPetscSF: garray to its ghost vector, the graph ours would have)
  // serves where it moves the memory as asked: host vectors, or its device-buffer flag (PETSc's
  // -use_gpu_aware_mpi when it was made, the same on every rank) equal to ours. Then no scatter of
  // ours is set up: with millions of ghosts that takes seconds. Otherwise (-mat_gpumat_gpu_aware_mpi
  // other than PETSc's) ours, of the same graph
  PetscSF mv = nullptr;
  PetscCall(MatGetMultPetscSF(A, &mv));
  if (mv) {
    PetscInt nleaves;
    PetscCall(PetscSFGetGraph(mv, nullptr, &nleaves, nullptr, nullptr));
    if (nleaves != nghost || (device && mv->use_gpu_aware_mpi != aware)) mv = nullptr;
  }
  PetscCall(PetscStrcmp(d->sct_type, ltype, &same));
  if (d->sct && d->sct_block == ((PetscObject)Ao)->id && d->sct_nzstate == A->nonzerostate && d->sct_nghost == nghost && same && d->sct_aware == aware && d->sct_parent == (mv != nullptr) && (!mv || mv == d->sct)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventBegin(MPIEventIds().scatter, A, 0, 0, 0));
  if (aware) PetscCall(CheckDeviceBuffersInMPI(PetscObjectComm((PetscObject)A)));
#if defined(GPUMAT_WITH_CUDA)
  d->ReleaseHalo();
#endif
  PetscCall(VecScatterDestroy(&d->sct));
  PetscCall(VecDestroy(&d->lvec));
  PetscCall(VecCreate(PETSC_COMM_SELF, &d->lvec));
  PetscCall(VecSetSizes(d->lvec, nghost, nghost));
  PetscCall(VecSetType(d->lvec, ltype));
  if (mv) {
    PetscCall(PetscObjectReference((PetscObject)mv)); // held: MPIAIJ makes a new one (never this address) when it disassembles
    d->sct = mv;
  } else {
    IS from, to;
    PetscCall(ISCreateGeneral(PETSC_COMM_SELF, nghost, garray, PETSC_COPY_VALUES, &from));
    PetscCall(ISCreateStride(PETSC_COMM_SELF, nghost, 0, 1, &to));
    PetscCall(VecScatterCreate(like, from, d->lvec, to, &d->sct));
    // The SF reads its flag when it makes its first communication link (PetscSFLinkCreate_MPI), so
    // set before any: device buffers straight to MPI, or PETSc's host staging
    d->sct->use_gpu_aware_mpi = aware;
    PetscCall(ISDestroy(&from));
    PetscCall(ISDestroy(&to));
  }
  d->sct_parent  = mv != nullptr;
  d->sct_aware   = aware;
  {
    PetscMPIInt mine = nghost > 0, any;
    PetscBool   cuda; // Kokkos ghosts take PETSc's order
    PetscCallMPI(MPIU_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, PetscObjectComm((PetscObject)A)));
    PetscCall(PetscStrcmp(ltype, VECSEQCUDA, &cuda));
    d->sct_side = any && cuda ? PETSC_TRUE : PETSC_FALSE;
  }
  d->sct_block   = ((PetscObject)Ao)->id;
  d->sct_nzstate = A->nonzerostate;
  d->sct_nghost  = nghost;
  d->sct_type    = ltype;
  PetscCall(PetscLogEventEnd(MPIEventIds().scatter, A, 0, 0, 0));
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

// The side-stream product's halo for the current ghosts (MPIData::halo_*), made once per scatter
// from its graph: who needs which owned entries (the scatter's leaf ranks: per neighbour, in the
// order that neighbour receives them) and where each received entry goes (its root ranks, rmine).
PetscErrorCode EnsureHalo(Mat A, cudaStream_t s)
{
  MPIData           *d = Data(A);
  Mat                Ao;
  const PetscInt    *garray, *ioffset, *irootloc, *roffset, *rmine;
  const PetscMPIInt *iranks, *ranks;
  PetscMPIInt        niranks, nranks;
  PetscSF            sf0 = nullptr;
  MPI_Comm           comm = PetscObjectComm((PetscObject)A);
  PetscFunctionBegin;
  if (d->halo_buf) PetscFunctionReturn(PETSC_SUCCESS);
  d->ReleaseHalo(); // what a failed earlier attempt left
  PetscCall(PetscLogEventBegin(MPIEventIds().halo, A, 0, 0, 0));
  PetscCall(MatMPIAIJGetSeqAIJ(A, nullptr, &Ao, &garray));
  const PetscInt nghost = Ao->cmap->n;
  // The scatter's ranks where its type gives them and it moves single entries (MPIAIJ's, or ours:
  // set up already); otherwise a basic SF of the same graph. Both conditions are the same on every
  // rank (the SF type and the scatter's block size are agreed), as the set-up is collective.
  PetscSF src = d->sct;
  if (!(src && src->vscat.bs == 1 && src->ops->GetLeafRanks)) {
    PetscCall(PetscSFCreate(comm, &sf0));
    PetscCall(PetscSFSetType(sf0, PETSCSFBASIC));
    PetscCall(PetscSFSetGraphLayout(sf0, A->cmap, nghost, nullptr, PETSC_COPY_VALUES, garray));
    PetscCall(PetscSFSetUp(sf0));
    src = sf0;
  }
  PetscCall(PetscSFGetLeafRanks(src, &niranks, &iranks, &ioffset, &irootloc));
  PetscCall(PetscSFGetRootRanks(src, &nranks, &ranks, &roffset, &rmine, nullptr));
  PetscCheck(roffset[nranks] == nghost, PETSC_COMM_SELF, PETSC_ERR_PLIB, "halo: %" PetscInt_FMT " leaves for %" PetscInt_FMT " ghosts", roffset[nranks], nghost);
  const PetscInt nsend = ioffset[niranks];
  d->halo_to.assign(iranks, iranks + niranks);
  d->halo_from.assign(ranks, ranks + nranks);
  d->halo_soff.assign(ioffset, ioffset + niranks + 1);
  d->halo_roff.assign(roffset, roffset + nranks + 1);
  d->halo_scount.resize((size_t)niranks);
  d->halo_rcount.resize((size_t)nranks);
  for (PetscMPIInt k = 0; k < niranks; k++) PetscCall(PetscMPIIntCast(ioffset[k + 1] - ioffset[k], &d->halo_scount[k]));
  for (PetscMPIInt k = 0; k < nranks; k++) PetscCall(PetscMPIIntCast(roffset[k + 1] - roffset[k], &d->halo_rcount[k]));
  d->halo_req.resize((size_t)(niranks + nranks));
  bool in_place = true; // the j-th entry received is ghost j
  for (PetscInt j = 0; rmine && j < nghost && in_place; j++) in_place = rmine[j] == j;
  std::vector<std::int64_t> idx((size_t)nsend);
  for (PetscInt i = 0; i < nsend; i++) idx[i] = irootloc[i];
  PetscCallCUDA(d->halo_pack.upload(idx.data(), nsend, (std::int64_t)A->cmap->n, s));
  if (!in_place) { // ghost rmine[j] = received j: ghost i takes received inv[i]
    idx.assign((size_t)nghost, 0);
    for (PetscInt j = 0; j < nghost; j++) idx[rmine[j]] = j;
    PetscCallCUDA(d->halo_unpack.upload(idx.data(), nghost, nghost, s));
    PetscCallCUDA(cudaMalloc(reinterpret_cast<void **>(&d->halo_rbuf), (size_t)PetscMax(nghost, 1) * sizeof(Scalar)));
  }
  PetscCall(PetscSFDestroy(&sf0));
  if (!d->sct_aware) {
    PetscCallCUDA(cudaMallocHost(reinterpret_cast<void **>(&d->halo_hsend), (size_t)PetscMax(nsend, 1) * sizeof(Scalar)));
    PetscCallCUDA(cudaMallocHost(reinterpret_cast<void **>(&d->halo_hrecv), (size_t)PetscMax(nghost, 1) * sizeof(Scalar)));
  }
  PetscCall(PetscObjectGetNewTag((PetscObject)A, &d->halo_tag)); // the same on every rank: A's tags are taken collectively
  PetscCallCUDA(cudaMalloc(reinterpret_cast<void **>(&d->halo_buf), (size_t)PetscMax(nsend, 1) * sizeof(Scalar)));
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)(d->halo_pack.device_bytes() + d->halo_unpack.device_bytes())));
  PetscCall(PetscLogEventEnd(MPIEventIds().halo, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The ghosts ga (device memory) from the neighbours' halo buffers, each already packed on stream s:
// the pack (and through the host its copy) waited for, receives and sends posted, all waited for,
// then through the host the copy into place, and where the receive order is not the ghosts' the
// spread, queued on s.
PetscErrorCode HaloExchange(Mat A, Scalar *ga, cudaStream_t s)
{
  MPIData       *d    = Data(A);
  MPI_Comm       comm = PetscObjectComm((PetscObject)A);
  const size_t   nto = d->halo_to.size(), nfrom = d->halo_from.size();
  Scalar        *rbuf = d->halo_hrecv ? d->halo_hrecv : d->halo_rbuf ? d->halo_rbuf : ga;
  const Scalar  *sbuf = d->halo_hsend ? d->halo_hsend : d->halo_buf;
  const size_t   send_bytes = (size_t)d->halo_soff.back() * sizeof(Scalar), recv_bytes = (size_t)d->halo_roff.back() * sizeof(Scalar);
  PetscFunctionBegin;
  if (d->halo_hsend && send_bytes) {
    PetscCallCUDA(cudaMemcpyAsync(d->halo_hsend, d->halo_buf, send_bytes, cudaMemcpyDeviceToHost, s));
    PetscCall(PetscLogGpuToCpu((PetscLogDouble)send_bytes));
  }
  // The pack done, and whatever s still runs that reads the ghosts (the last product's off-diagonal
  // block) before MPI may write them; the diagonal product runs on the side stream meanwhile
  PetscCallCUDA(cudaStreamSynchronize(s));
  for (size_t k = 0; k < nfrom; k++) PetscCallMPI(MPI_Irecv(rbuf + d->halo_roff[k], d->halo_rcount[k], MPIU_SCALAR, d->halo_from[k], d->halo_tag, comm, &d->halo_req[k]));
  for (size_t k = 0; k < nto; k++) PetscCallMPI(MPI_Isend(sbuf + d->halo_soff[k], d->halo_scount[k], MPIU_SCALAR, d->halo_to[k], d->halo_tag, comm, &d->halo_req[nfrom + k]));
  PetscCallMPI(MPI_Waitall((PetscMPIInt)(nto + nfrom), d->halo_req.data(), MPI_STATUSES_IGNORE));
  Scalar *dst = d->halo_rbuf ? d->halo_rbuf : ga;
  if (d->halo_hrecv && recv_bytes) {
    PetscCallCUDA(cudaMemcpyAsync(dst, d->halo_hrecv, recv_bytes, cudaMemcpyHostToDevice, s));
    PetscCall(PetscLogCpuToGpu((PetscLogDouble)recv_bytes));
  }
  if (d->halo_rbuf) PetscCallCUDA(d->halo_unpack.apply(d->halo_rbuf, ga, s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// y = A x (+ z) with the diagonal block's product on the side stream (CUDA vectors, the overlap):
// our pack on PETSc's stream, then the diagonal product queued on the side stream behind it, then
// the halo through the halo SF and the off-diagonal block's own product (of a block stored as its
// nonempty rows: into its work vector) on PETSc's stream while the diagonal product runs; PETSc's
// stream then waits for the diagonal product and adds the off-diagonal part into y. Every rank
// comes here or none (the conditions are the same on all), and the exchange is the same whether
// or not the diagonal product could go on the side stream (where not: it runs in order).
PetscErrorCode ApplyOnSide(Mat A, Mat Ad, Mat Ao, Vec x, Vec z, Vec y)
{
  MPIData           *d = Data(A);
  const PetscScalar *xa;
  PetscScalar       *ga;
  PetscMemType       mx, mg;
  cudaStream_t       s;
  PetscBool          started, split = PETSC_FALSE;
  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&s));
  PetscCall(EnsureSideStream(d));
  PetscCall(EnsureHalo(A, s));
  PetscCall(VecGetArrayReadAndMemType(x, &xa, &mx));
  PetscCheck(PetscMemTypeDevice(mx), PETSC_COMM_SELF, PETSC_ERR_PLIB, "a CUDA vector gave host memory");
  PetscCallCUDA(d->halo_pack.apply(xa, d->halo_buf, s)); // before the diagonal product holds the GPU
  PetscCall(VecRestoreArrayReadAndMemType(x, &xa));
  PetscCall(SeqApplyOnSide(Ad, Op::NoTrans, x, z, y, d->side, &started));
  PetscCall(VecGetArrayWriteAndMemType(d->lvec, &ga, &mg));
  PetscCheck(PetscMemTypeDevice(mg), PETSC_COMM_SELF, PETSC_ERR_PLIB, "a CUDA ghost vector gave host memory");
  PetscCall(HaloExchange(A, ga, s));
  PetscCall(VecRestoreArrayWriteAndMemType(d->lvec, &ga));
  if (started) {
    PetscCall(SeqApplyCompressedBegin(Ao, d->lvec, &split));
    PetscCallCUDA(cudaStreamWaitEvent(s, d->side.done, 0)); // y is the side stream's until now
  } else PetscCall(SeqApply(Ad, Op::NoTrans, x, z, y));
  if (split) PetscCall(SeqApplyCompressedEnd(Ao, y));
  else PetscCall(SeqApply(Ao, Op::NoTrans, d->lvec, y, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

// y = A x (+ z). With the overlap and device vectors the diagonal block's product goes on the side
// stream (ApplyOnSide, -mat_gpumat_side_stream); otherwise scatter begin, diagonal product, scatter
// end, off-diagonal product, all on PETSc's stream (PETSc's VecScatterBegin returns once its pack,
// and through the host its copy, are done and the messages posted).
PetscErrorCode Apply(Mat A, Vec x, Vec z, Vec y)
{
  MPIData *d = Data(A);
  Mat      Ad, Ao;
  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, nullptr));
  PetscCall(EnsureGhosts(A, x));
#if defined(GPUMAT_WITH_CUDA)
  if (d->overlap && d->side_stream && d->sct_side) {
    PetscCall(ApplyOnSide(A, Ad, Ao, x, z, y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  PetscCall(VecScatterBegin(d->sct, x, d->lvec, INSERT_VALUES, SCATTER_FORWARD));
  if (!d->overlap) PetscCall(VecScatterEnd(d->sct, x, d->lvec, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(SeqApply(Ad, Op::NoTrans, x, z, y));
  if (d->overlap) PetscCall(VecScatterEnd(d->sct, x, d->lvec, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(SeqApply(Ao, Op::NoTrans, d->lvec, y, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// y = A^T x (+ z): off-diagonal transpose into the ghosts, local transpose, reverse scatter-add.
PetscErrorCode ApplyTranspose(Mat A, Vec x, Vec z, Vec y)
{
  MPIData *d = Data(A);
  Mat      Ad, Ao;
  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, nullptr));
  PetscCall(EnsureGhosts(A, y));
  PetscCall(SeqApply(Ao, Op::Trans, x, nullptr, d->lvec));
  PetscCall(SeqApply(Ad, Op::Trans, x, z, y));
  PetscCall(VecScatterBegin(d->sct, d->lvec, y, ADD_VALUES, SCATTER_REVERSE));
  PetscCall(VecScatterEnd(d->sct, d->lvec, y, ADD_VALUES, SCATTER_REVERSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Mult(Mat A, Vec x, Vec y) { return Apply(A, x, nullptr, y); }
PetscErrorCode MultAdd(Mat A, Vec x, Vec z, Vec y) { return Apply(A, x, z, y); }
PetscErrorCode MultTranspose(Mat A, Vec x, Vec y) { return ApplyTranspose(A, x, nullptr, y); }
PetscErrorCode MultTransposeAdd(Mat A, Vec x, Vec z, Vec y) { return ApplyTranspose(A, x, z, y); }

PetscErrorCode View(Mat A, PetscViewer viewer)
{
  MPIData          *d = Data(A);
  PetscBool         ascii;
  PetscViewerFormat format;
  PetscFunctionBegin;
  PetscCall(d->parent.view(A, viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerGetFormat(viewer, &format));
  if (format != PETSC_VIEWER_ASCII_INFO && format != PETSC_VIEWER_ASCII_INFO_DETAIL) PetscFunctionReturn(PETSC_SUCCESS);
  Mat         Ad, Ao;
  PetscMPIInt rank;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, nullptr));
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)A), &rank));
  PetscCall(PetscViewerASCIIPrintf(viewer, "petsc-gpumat %s blocks, halo exchange %s; each rank (diagonal block, then off-diagonal block):\n", d->info->name, d->overlap ? "overlapped with the diagonal block's product" : "finished before the diagonal block's product (-mat_gpumat_overlap 0)"));
#if defined(GPUMAT_WITH_CUDA)
  if (d->overlap)
    PetscCall(PetscViewerASCIIPrintf(viewer, "diagonal block's product of CUDA vectors: %s\n",
                                     d->side_stream ? "on a stream of its own, while the halo exchange and the off-diagonal block's product run on PETSc's stream (-mat_gpumat_side_stream 1)" : "on PETSc's stream, after the halo exchange has begun (-mat_gpumat_side_stream 0)"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "ghost values of device vectors: %s\n", d->gpu_aware ? "passed to MPI in device memory (-mat_gpumat_gpu_aware_mpi 1)" : "staged through host buffers (-mat_gpumat_gpu_aware_mpi 0)"));
#endif
  PetscCall(PetscViewerASCIIPushSynchronized(viewer));
  PetscViewer sub;
  PetscCall(PetscViewerGetSubViewer(viewer, PETSC_COMM_SELF, &sub));
  PetscCall(PetscViewerASCIIPrintf(sub, "[%d] diagonal block\n", rank));
  PetscCall(MatView(Ad, sub));
  PetscCall(PetscViewerASCIIPrintf(sub, "[%d] off-diagonal block\n", rank));
  PetscCall(MatView(Ao, sub));
  PetscCall(PetscViewerRestoreSubViewer(viewer, PETSC_COMM_SELF, &sub));
  PetscCall(PetscViewerFlush(viewer));
  PetscCall(PetscViewerASCIIPopSynchronized(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Uninstall(Mat A, bool blocks);

PetscErrorCode Destroy(Mat A)
{
  PetscErrorCode (*destroy)(Mat) = Data(A)->parent.destroy; // not A->ops->destroy: it may chain to us
  PetscFunctionBegin;
  PetscCall(Uninstall(A, false)); // the blocks are destroyed next
  PetscCall(destroy(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Every operation an MPI type of ours overrides: install and uninstall walk this table.
const OpSlot kMPIOps[] = {
  GPUMAT_OP(assemblyend, AssemblyEnd),
  GPUMAT_OP(destroy, Destroy),
  GPUMAT_OP(view, View),
  GPUMAT_OP(mult, Mult),
  GPUMAT_OP(multadd, MultAdd),
  GPUMAT_OP(multtranspose, MultTranspose),
  GPUMAT_OP(multtransposeadd, MultTransposeAdd),
  GPUMAT_OP(multhermitiantranspose, MultTranspose), // real scalars only
  GPUMAT_OP(multhermitiantransposeadd, MultTransposeAdd),
  GPUMAT_OP(setoption, SetOption),
  MPI_HOST_READER(getcolumnreductions),
  MPI_HOST_READER(createsubmatrices),
  MPI_HOST_READER(createsubmatrix),
};
const OpTable kMPITable = {kMPIOps, sizeof(kMPIOps) / sizeof(kMPIOps[0])};

PetscErrorCode FromUs(Mat A, MatType type, MatReuse reuse, Mat *newmat);

PetscErrorCode Compose(Mat A, const FormatInfo *f, bool on)
{
  PetscFunctionBegin;
  PetscCall(ComposeConverters(A, f, "mpi", on ? MatConvert_MPIAIJ_Gpu : nullptr, on ? FromUs : nullptr));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatMPIAIJSetPreallocation_C", on ? Preallocation : Data(A)->preallocation));
  MPIData *d = Data(A);
  PetscCall(ComposeCoo(A, on, &d->coo_parent, CooChain{SetPreallocationCOO, SetValuesCOO}));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Uninstall(Mat A, bool blocks)
{
  MPIData *d = Data(A);
  Mat      Ad, Ao;
  PetscFunctionBegin;
  if (!d) PetscFunctionReturn(PETSC_SUCCESS);
  UninstallOps(A, kMPITable, &d->parent);
  PetscCall(Compose(A, d->info, false));
  PetscCall(VecScatterDestroy(&d->sct));
  PetscCall(VecDestroy(&d->lvec));
  d->ReleaseCOO();
  if (blocks && A->preallocated) {
    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, nullptr));
    if (Ad) PetscCall(MatConvert(Ad, MATSEQAIJ, MAT_INPLACE_MATRIX, &Ad));
    if (Ao) PetscCall(MatConvert(Ao, MATSEQAIJ, MAT_INPLACE_MATRIX, &Ao));
  }
  PetscCallCXX(delete d);
  A->spptr = nullptr;
  PetscCall(MatSetVecType(A, VECSTANDARD));
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, MATMPIAIJ));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FromUs(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat       B;
  PetscBool mpiaij;
  PetscFunctionBegin;
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(A, *newmat, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  else B = A;
  PetscCall(Uninstall(B, true));
  PetscCall(PetscStrcmpAny(type, &mpiaij, MATMPIAIJ, MATAIJ, ""));
  if (!mpiaij) PetscCall(MatConvert(B, type, MAT_INPLACE_MATRIX, &B));
  *newmat = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

PetscErrorCode MPIInstall(Mat A, const FormatInfo *f)
{
  PetscBool mpiaij;
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATMPIAIJ, &mpiaij));
  PetscCheck(mpiaij, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "%s can only be made from a plain mpiaij matrix, not %s", Names(f).mpi.c_str(), ((PetscObject)A)->type_name);
  PetscCheck(!A->spptr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "mpiaij matrix already carries spptr");
  MPIData *d;
  PetscCallCXX(d = new MPIData);
  d->info = f;
  PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatMPIAIJSetPreallocation_C", &d->preallocation));
  PetscCheck(d->preallocation, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MPIAIJ without MatMPIAIJSetPreallocation_C");
  A->spptr = d;
  InstallOps(A, kMPITable, &d->parent);
  PetscCall(Compose(A, f, true));
#if defined(GPUMAT_WITH_CUDA)
  A->boundtocpu = PETSC_FALSE; // see SeqInstallWithOptions
  PetscCall(MatSetVecType(A, VECCUDA));
#endif
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, Names(f).mpi.c_str()));
  if (A->preallocated) PetscCall(ConvertBlocks(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Into one of ours from mpiaij, mpiaijcusparse or another format of ours.
PetscErrorCode MatConvert_MPIAIJ_Gpu(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  const FormatInfo *f = FindFormat(type);
  Mat               B;
  PetscBool         mpiaij;
  PetscFunctionBegin;
  PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "Not a petsc-gpumat type: %s", type);
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(A, *newmat, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  else B = A;
  PetscCall(PetscObjectTypeCompare((PetscObject)B, MATMPIAIJ, &mpiaij));
  if (!mpiaij) PetscCall(MatConvert(B, MATMPIAIJ, MAT_INPLACE_MATRIX, &B));
  PetscCall(MPIInstall(B, f));
  *newmat = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpumat
