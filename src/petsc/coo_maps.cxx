// The maps of a device COO assembly (coo.cxx): every COO entry of a sequential block onto its
// nonzero; in an MPI matrix, this rank's entries onto its two blocks and the entries of rows owned
// elsewhere onto their owner's blocks, sent through a PetscSF of our own (their indices once per
// pattern, so the owner maps them onto its blocks).
#include "coo.hpp"
#include "values.hpp"
#include <petscdevice.h>
#include <algorithm>
#include <vector>

namespace gpumat {
namespace {

// The maps of the block's current pattern: `local` over every nonzero (entries of the COO array),
// `remote` over the nonzeros that entries received from other ranks hit; the value accessors
// hooked (CUDA builds need them; builds without CUDA hook them as well, which the host reference's
// tests check).
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
  bool ok;
  PetscCall(HookValueAccess(A, &ok));
  d->coo.hooked = ok ? 1 : -1;
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

// This rank's COO entries placed: onto its blocks (posA, posB), or to their rows' owners, grouped by
// owner stably (sendidx: their places in the COO array; first: where each owner's start).
struct CooPlacement {
  std::vector<index_t>      posA, posB;
  std::vector<std::int64_t> sendidx;
  std::vector<PetscInt>     count, first;
};
PetscErrorCode PlaceEntries(Mat A, const BlockPatterns &bp, PetscMPIInt size, PetscCount n, const PetscInt *ci, const PetscInt *cj, CooPlacement *pl)
{
  std::vector<PetscMPIInt> owner;
  PetscFunctionBegin;
  PetscCallCXX(pl->posA.assign((size_t)n, -1));
  PetscCallCXX(pl->posB.assign((size_t)n, -1));
  PetscCallCXX(owner.assign((size_t)n, -1));
  PetscCallCXX(pl->count.assign((size_t)size, 0));
  PetscCallCXX(pl->first.assign((size_t)size + 1, 0));
  for (PetscCount e = 0; e < n; e++) {
    const PetscInt i = ci[e], j = cj[e];
    if (i < 0 || j < 0) continue; // ignored, as MPIAIJ ignores it
    if (i >= A->rmap->rstart && i < A->rmap->rend) PetscCall(bp.Place(i, j, &pl->posA[e], &pl->posB[e]));
    else if (!MPIDataOf(A)->ignore_remote) {
      PetscCall(PetscLayoutFindOwner(A->rmap, i, &owner[e]));
      pl->count[owner[e]]++;
    }
  }
  for (PetscMPIInt r = 0; r < size; r++) pl->first[r + 1] = pl->first[r] + pl->count[r];
  PetscCallCXX(pl->sendidx.resize((size_t)pl->first[size]));
  std::vector<PetscInt> next(pl->first.begin(), pl->first.end() - 1);
  for (PetscCount e = 0; e < n; e++)
    if (owner[e] >= 0) pl->sendidx[(size_t)next[owner[e]]++] = (std::int64_t)e;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The SF of the entries to their owners (d->coo.sf): each owner receives from the ranks in rank
// order; each sender is told where its entries start. *nrecv: the entries this rank receives.
PetscErrorCode MakeCooSF(Mat A, const CooPlacement &pl, PetscInt *nrecv)
{
  MPIData              *d     = MPIDataOf(A);
  MPI_Comm              comm  = PetscObjectComm((PetscObject)A);
  const PetscMPIInt     size  = (PetscMPIInt)pl.count.size();
  const PetscInt        nsend = pl.first[size];
  std::vector<PetscInt> rcount(size), roff(size), myoff(size);
  PetscSFNode          *iremote;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Alltoall(pl.count.data(), 1, MPIU_INT, rcount.data(), 1, MPIU_INT, comm));
  *nrecv = 0;
  for (PetscMPIInt r = 0; r < size; r++) {
    roff[r] = *nrecv;
    *nrecv += rcount[r];
  }
  PetscCallMPI(MPI_Alltoall(roff.data(), 1, MPIU_INT, myoff.data(), 1, MPIU_INT, comm));
  PetscCall(PetscMalloc1(nsend, &iremote));
  for (PetscMPIInt r = 0; r < size; r++)
    for (PetscInt l = pl.first[r]; l < pl.first[r + 1]; l++) {
      iremote[l].rank  = r;
      iremote[l].index = myoff[r] + (l - pl.first[r]);
    }
  PetscCall(PetscSFDestroy(&d->coo.sf));
  PetscCall(PetscSFCreate(comm, &d->coo.sf));
  PetscCall(PetscSFSetGraph(d->coo.sf, *nrecv, nsend, nullptr, PETSC_COPY_VALUES, iremote, PETSC_OWN_POINTER));
  PetscCall(PetscSFSetUp(d->coo.sf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The owners learn the entries they receive (once per pattern) and place them onto their blocks.
PetscErrorCode PlaceReceived(Mat A, const BlockPatterns &bp, const CooPlacement &pl, PetscInt nrecv, const PetscInt *ci, const PetscInt *cj, std::vector<index_t> *rposA, std::vector<index_t> *rposB)
{
  PetscSF               sf    = MPIDataOf(A)->coo.sf;
  const PetscInt        nsend = (PetscInt)pl.sendidx.size();
  std::vector<PetscInt> si(nsend), sj(nsend), ri(nrecv), rj(nrecv);
  PetscFunctionBegin;
  for (PetscInt l = 0; l < nsend; l++) {
    si[l] = ci[pl.sendidx[l]];
    sj[l] = cj[pl.sendidx[l]];
  }
  PetscCall(PetscSFReduceBegin(sf, MPIU_INT, si.data(), ri.data(), MPI_REPLACE));
  PetscCall(PetscSFReduceEnd(sf, MPIU_INT, si.data(), ri.data(), MPI_REPLACE));
  PetscCall(PetscSFReduceBegin(sf, MPIU_INT, sj.data(), rj.data(), MPI_REPLACE));
  PetscCall(PetscSFReduceEnd(sf, MPIU_INT, sj.data(), rj.data(), MPI_REPLACE));
  PetscCallCXX(rposA->assign((size_t)nrecv, -1));
  PetscCallCXX(rposB->assign((size_t)nrecv, -1));
  for (PetscInt k = 0; k < nrecv; k++) {
    PetscCheck(ri[k] >= A->rmap->rstart && ri[k] < A->rmap->rend, PETSC_COMM_SELF, PETSC_ERR_PLIB, "received COO row %" PetscInt_FMT " is not this rank's", ri[k]);
    PetscCall(bp.Place(ri[k], rj[k], &(*rposA)[k], &(*rposB)[k]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

// The maps of a device COO assembly (see the top of this file), from the COO entries as given;
// collective.
PetscErrorCode BuildCooMaps(Mat A, PetscCount n, const PetscInt *ci, const PetscInt *cj)
{
  MPIData             *d = MPIDataOf(A);
  PetscMPIInt          size;
  Mat                  Ad, Ao;
  BlockPatterns        bp;
  CooPlacement         pl;
  PetscInt             nrecv = 0;
  std::vector<index_t> rposA, rposB;
  CooMap               lA, lB, rA, rB;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, &bp.garray));
  PetscCall(MatSeqAIJGetCSRAndMemType(Ad, &bp.ai, &bp.aj, nullptr, nullptr));
  PetscCall(MatSeqAIJGetCSRAndMemType(Ao, &bp.bi, &bp.bj, nullptr, nullptr));
  bp.rstart = A->rmap->rstart;
  bp.cstart = A->cmap->rstart;
  bp.cend   = A->cmap->rend;
  bp.nghost = Ao->cmap->n;
  const PetscInt nnzA = Ad->rmap->n ? bp.ai[Ad->rmap->n] : 0, nnzB = Ao->rmap->n ? bp.bi[Ao->rmap->n] : 0;
  PetscCall(PlaceEntries(A, bp, size, n, ci, cj, &pl));
  PetscCall(MakeCooSF(A, pl, &nrecv));
  PetscCall(PlaceReceived(A, bp, pl, nrecv, ci, cj, &rposA, &rposB));
  PetscCallCXX(lA = coo_map(nnzA, pl.posA.data(), (std::int64_t)n, true));
  PetscCallCXX(lB = coo_map(nnzB, pl.posB.data(), (std::int64_t)n, true));
  PetscCallCXX(rA = coo_map(nnzA, rposA.data(), (std::int64_t)nrecv, false));
  PetscCallCXX(rB = coo_map(nnzB, rposB.data(), (std::int64_t)nrecv, false));
  PetscCall(SeqCooSetMaps(Ad, n, std::move(lA), std::move(rA)));
  PetscCall(SeqCooSetMaps(Ao, n, std::move(lB), std::move(rB)));
  d->coo.nsend    = (PetscInt)pl.sendidx.size();
  d->coo.send_idx = std::move(pl.sendidx);
  d->coo.nrecv    = nrecv;
  d->coo.n        = n;
#if defined(GPUMAT_WITH_CUDA)
  { // every rank's blocks ready (hooked accessors), or the host path everywhere: the SF is collective
    bool okA, okB;
    int  ok;
    PetscCall(SeqCooDeviceReady(Ad, &okA));
    PetscCall(SeqCooDeviceReady(Ao, &okB));
    ok = okA && okB;
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, PetscObjectComm((PetscObject)A)));
    d->coo.device = ok != 0;
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CooEntriesOnHost(PetscCount n, PetscInt coo_i[], PetscInt coo_j[], std::vector<PetscInt> *ci, std::vector<PetscInt> *cj, std::vector<PetscInt> *si, std::vector<PetscInt> *sj, PetscInt **pi, PetscInt **pj)
{
  PetscMemType mt = PETSC_MEMTYPE_HOST;
  PetscFunctionBegin;
  *pi = coo_i, *pj = coo_j;
  PetscCallCXX(ci->resize((size_t)n));
  PetscCallCXX(cj->resize((size_t)n));
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetMemType(coo_i, &mt));
  if (PetscMemTypeDevice(mt)) {
#if defined(GPUMAT_WITH_CUDA)
    PetscCallCUDA(cudaMemcpy(ci->data(), coo_i, (size_t)n * sizeof(PetscInt), cudaMemcpyDeviceToHost));
    PetscCallCUDA(cudaMemcpy(cj->data(), coo_j, (size_t)n * sizeof(PetscInt), cudaMemcpyDeviceToHost));
#else
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "device COO arrays in a build without CUDA");
#endif
    PetscCallCXX(*si = *ci);
    PetscCallCXX(*sj = *cj);
    *pi = si->data(), *pj = sj->data();
  } else {
    std::copy(coo_i, coo_i + n, ci->begin());
    std::copy(coo_j, coo_j + n, cj->begin());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

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

#if defined(GPUMAT_WITH_CUDA)
PetscErrorCode SeqCooDeviceReady(Mat A, bool *ready)
{
  const SeqData *d = Ours(A);
  PetscFunctionBegin;
  *ready = d && d->coo.n >= 0 && d->coo.nzstate == A->nonzerostate && d->coo.hooked == 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

} // namespace gpumat
