// aijcusparse shadows of our matrices (shadow.hpp): how they are made, kept and fed.
#include "shadow.hpp"
#include "values.hpp"
#include "coo.hpp"

namespace gpumat {
// A sequential block's host CSR pattern and rows: SeqAIJ's own arrays (MatGetRowIJ without shift or
// symmetrization hands them out, and its restore leaves them)
PetscErrorCode HostPattern(Mat blk, PetscInt *m, const PetscInt **ia, const PetscInt **ja)
{
  const PetscInt *i, *j;
  PetscBool       done;
  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(blk, 0, PETSC_FALSE, PETSC_FALSE, m, &i, &j, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "no CSR of %s", ((PetscObject)blk)->type_name);
  *ia = i, *ja = j;
  PetscCall(MatRestoreRowIJ(blk, 0, PETSC_FALSE, PETSC_FALSE, m, &i, &j, &done)); // nulls i and j, and *m
  PetscCall(MatGetLocalSize(blk, m, nullptr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpumat

#if defined(GPUMAT_WITH_CUDA)
namespace gpumat {
// The COO entries of a sequential or MPI AIJ matrix (of any AIJ type with host CSR), as stored
PetscErrorCode StoredEntries(Mat X, bool mpi, std::vector<PetscInt> *rows, std::vector<PetscInt> *cols)
{
  Mat             blk[2] = {X, nullptr};
  const PetscInt *garray = nullptr;
  PetscInt        rstart = 0, cstart = 0;
  PetscFunctionBegin;
  rows->clear();
  cols->clear();
  if (mpi) {
    PetscCall(MatMPIAIJGetSeqAIJ(X, &blk[0], &blk[1], &garray));
    rstart = X->rmap->rstart;
    cstart = X->cmap->rstart;
  }
  for (int b = 0; b < 2; b++) {
    const PetscInt *ia, *ja;
    PetscInt        m;
    if (!blk[b]) continue;
    PetscCall(HostPattern(blk[b], &m, &ia, &ja));
    PetscCallCXX(rows->reserve(rows->size() + (size_t)ia[m]));
    PetscCallCXX(cols->reserve(cols->size() + (size_t)ia[m]));
    for (PetscInt i = 0; i < m; i++)
      for (PetscInt k = ia[i]; k < ia[i + 1]; k++) {
        rows->push_back(rstart + i);
        cols->push_back(b == 0 ? cstart + ja[k] : garray[ja[k]]);
      }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// A sequential block's stored entries
PetscErrorCode Nonzeros(Mat blk, PetscCount *nz)
{
  const PetscInt *ia = nullptr, *ja = nullptr;
  PetscInt        m;
  PetscFunctionBegin;
  PetscCall(HostPattern(blk, &m, &ia, &ja));
  *nz = ia[m];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BlockNonzeros(Mat X, PetscCount *nd, PetscCount *no)
{
  Mat blk[2];
  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(X, &blk[0], &blk[1], nullptr));
  PetscCall(Nonzeros(blk[0], nd));
  PetscCall(Nonzeros(blk[1], no));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// A block's device copy of its CSR values where it holds the current ones (the result of a device
// product or COO assembly: no copy back to the host), else null
const PetscScalar *DeviceCopy(Mat blk)
{
  SeqData         *d = Ours(blk);
  PetscObjectState state;
  PetscInt         nnz;
  if (!d || !d->dv.val || PetscObjectStateGet((PetscObject)blk, &state) || !d->st.DeviceValuesCurrent(state)) return nullptr;
  if (HostNonzeros(blk, &nnz) || nnz != d->dv.n) return nullptr;
  return d->dv.val;
}

namespace {

const char *const kShadow = "GpumatProductShadow";

// An operand's shadow (composed on the operand as kShadow)
struct Shadow {
  Mat              m      = nullptr;
  PetscObjectState values = -1, nz = -1; // the operand's object state last fed, its nonzero state at creation
  // seq: the operand's host arrays the shadow shares
  const PetscInt    *ia = nullptr, *ja = nullptr;
  const PetscScalar *aa = nullptr;
  bool               uploaded = false; // aijcusparse's device structure made (the shadow used on the device once)
  bool               adopted  = false; // a matrix of its own arrays (a device product's inner result: ShadowAdopt), not sharing the operand's
  PetscInt           served   = 0;     // seq, adopted: the operand's products run through it (ShadowFirst)

  PetscErrorCode Release()
  {
    PetscFunctionBegin;
    PetscCall(MatDestroy(&m));
    values   = nz = -1;
    uploaded = adopted = false;
    served   = 0;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};

PetscErrorCode ShadowDestroy(PetscCtxRt ctx) // ctx: the address of the container's pointer
{
  Shadow *s = *static_cast<Shadow **>(ctx);
  PetscFunctionBegin;
  PetscCall(s->Release());
  delete s;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The host arrays of a sequential operand: its CSR pattern and values, read without copying device
// values back
PetscErrorCode HostArrays(Mat X, const PetscInt **ia, const PetscInt **ja, const PetscScalar **aa)
{
  PetscInt m;
  PetscFunctionBegin;
  PetscCall(HostPattern(X, &m, ia, ja));
  *aa = HookedHostValues(X); // hooked: the raw array, whatever side is newer
  if (!*aa) {                // not hooked: the host is the only side of the AIJ values
    const PetscScalar *a;
    PetscCall(MatSeqAIJGetArrayRead(X, &a));
    *aa = a; // SeqAIJ's own array, which the restore leaves
    PetscCall(MatSeqAIJRestoreArrayRead(X, &a));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// A SeqAIJ on the arrays ia, ja, aa (shared), made without PETSc's inode check (the shadow
// becomes aijcusparse, whose device products use no inodes; the check walks every row): its
// creation reads a private options database that holds -mat_no_inode, not the user's.
PetscErrorCode WithArrays(PetscInt m, PetscInt n, const PetscInt *ia, const PetscInt *ja, const PetscScalar *aa, Mat *S)
{
  PetscOptions   opts;
  PetscErrorCode err;
  PetscFunctionBegin;
  PetscCall(PetscOptionsCreate(&opts));
  PetscCall(PetscOptionsSetValue(opts, "-mat_no_inode", "true"));
  PetscCall(PetscOptionsPush(opts));
  err = MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, m, n, const_cast<PetscInt *>(ia), const_cast<PetscInt *>(ja), const_cast<PetscScalar *>(aa), S);
  PetscCall(PetscOptionsPop()); // the user's options again, whatever the creation returned
  PetscCall(PetscOptionsDestroy(&opts));
  PetscCall(err);
  PetscFunctionReturn(PETSC_SUCCESS);
}

// S (seqaijcusparse, of the seq block X's pattern) fed X's current values: from our device copy of
// them where it holds the current ones (a device-to-device copy; aijcusparse's device structure,
// which the write needs, comes with S's first upload: *uploaded says whether S had one, and becomes
// true); else, S sharing X's host arrays, its host side marked the newer (no copy back into it); or,
// S of arrays of its own (adopted), X's host values uploaded into S's device values.
PetscErrorCode FeedBlock(Mat X, Mat S, bool adopted, bool *uploaded)
{
  const PetscScalar *dev = DeviceCopy(X);
  PetscScalar       *w;
  PetscInt           nnz;
  cudaStream_t       stream;
  PetscFunctionBegin;
  if (!dev && !adopted) {
    PetscCall(MatSeqAIJGetArrayWrite(S, &w));
    PetscCall(MatSeqAIJRestoreArrayWrite(S, &w));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(HostNonzeros(X, &nnz));
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  if (!*uploaded) {
    const PetscScalar *r;
    PetscCall(MatSeqAIJCUSPARSEGetArrayRead(S, &r));
    PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(S, &r));
    *uploaded = true;
  }
  PetscCall(MatSeqAIJCUSPARSEGetArrayWrite(S, &w));
  if (dev) {
    if (nnz) PetscCallCUDA(cudaMemcpyAsync(w, dev, (size_t)nnz * sizeof(PetscScalar), cudaMemcpyDeviceToDevice, stream));
  } else {
    const PetscInt    *ia, *ja;
    const PetscScalar *aa;
    PetscCall(HostArrays(X, &ia, &ja, &aa));
    if (nnz) PetscCallCUDA(cudaMemcpyAsync(w, aa, (size_t)nnz * sizeof(PetscScalar), cudaMemcpyHostToDevice, stream));
    PetscCallCUDA(cudaStreamSynchronize(stream)); // before the host array can change
    PetscCall(PetscLogCpuToGpu((PetscLogDouble)nnz * sizeof(PetscScalar)));
  }
  PetscCall(MatSeqAIJCUSPARSERestoreArrayWrite(S, &w));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// A seqaijcusparse on the host arrays of the sequential block X (shared, no copy)
PetscErrorCode SharedCusparse(Mat X, Mat *S)
{
  const PetscInt    *ia, *ja;
  const PetscScalar *aa;
  PetscFunctionBegin;
  PetscCall(HostArrays(X, &ia, &ja, &aa));
  PetscCall(WithArrays(X->rmap->n, X->cmap->n, ia, ja, aa, S));
  PetscCall(MatConvert(*S, MATSEQAIJCUSPARSE, MAT_INPLACE_MATRIX, S));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The shadow of a sequential operand: made on its arrays, fed its current values
PetscErrorCode SeqShadowCurrent(Mat X, Shadow &s)
{
  const PetscInt    *ia, *ja;
  const PetscScalar *aa;
  PetscObjectState   state;
  PetscFunctionBegin;
  PetscCall(HostArrays(X, &ia, &ja, &aa));
  if (s.m && (s.nz != X->nonzerostate || (!s.adopted && (s.ia != ia || s.ja != ja || s.aa != aa)))) PetscCall(s.Release());
  if (!s.m) {
    PetscCall(SharedCusparse(X, &s.m));
    s.nz = X->nonzerostate, s.ia = ia, s.ja = ja, s.aa = aa;
  }
  PetscCall(PetscObjectStateGet((PetscObject)X, &state));
  if (state == s.values) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FeedBlock(X, s.m, s.adopted, &s.uploaded));
  s.values = state;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// X's shadow record, composed on X at its first use
PetscErrorCode Record(Mat X, Shadow **s)
{
  PetscFunctionBegin;
  *s = nullptr;
  PetscCall(PetscObjectContainerQuery((PetscObject)X, kShadow, (PetscCtxRt)s));
  if (!*s) {
    PetscCallCXX(*s = new Shadow);
    PetscCall(PetscObjectContainerCompose((PetscObject)X, kShadow, *s, ShadowDestroy));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The seq shadow of X, made current (SeqShadowCurrent)
PetscErrorCode SeqShadow(Mat X, Mat *S)
{
  Shadow *s;
  PetscFunctionBegin;
  PetscCall(Record(X, &s));
  PetscCall(SeqShadowCurrent(X, *s));
  s->uploaded = true; // every caller uses it on the device, which uploads it if it is not yet
  *S = s->m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The shadow of an MPI operand: an mpiaijcusparse whose diagonal and off-diagonal blocks are the
// seq shadows of the operand's blocks (SeqShadow: the same matrices, so the CSR a block's device
// build read, or a device product's result left, serves the MPI products too), with the operand's
// column map (MatCreateMPIAIJWithSeqAIJ takes both blocks, referenced, and a copy of garray: no COO
// preallocation, no sort). Made again, collectively, where a block's shadow is another matrix on any
// rank (a new pattern, new host arrays). Each block's shadow is fed as a seq shadow is, by the block's
// own object state (which every change of its values raises: PETSc's public operations on the blocks,
// MPIAIJ's assembly, the machinery's device writes); the MPI shadow's state is raised on every rank
// where any rank's operand has new values (object states are per rank, and a product on the shadow is
// collective).
PetscErrorCode MPIShadowCurrent(Mat X, Shadow &s)
{
  PetscObjectState state;
  Mat              blk[2], sb[2], cur[2] = {nullptr, nullptr};
  const PetscInt  *garray;
  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(X, &blk[0], &blk[1], &garray));
  PetscCall(PetscObjectStateGet((PetscObject)X, &state));
  int fresh = s.m && state == s.values;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &fresh, 1, MPI_INT, MPI_LAND, PetscObjectComm((PetscObject)X)));
  for (int b = 0; b < 2; b++) PetscCall(SeqShadow(blk[b], &sb[b]));
  if (s.m) PetscCall(MatMPIAIJGetSeqAIJ(s.m, &cur[0], &cur[1], nullptr));
  int same = s.m && s.nz == X->nonzerostate && cur[0] == sb[0] && cur[1] == sb[1];
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &same, 1, MPI_INT, MPI_LAND, PetscObjectComm((PetscObject)X)));
  if (!same) {
    PetscInt *g, nb;
    PetscCall(s.Release());
    PetscCall(MatGetLocalSize(blk[1], nullptr, &nb));
    PetscCall(PetscMalloc1(PetscMax(nb, 1), &g)); // the shadow's own, freed with it (never null: null asks MPIAIJ for global columns)
    PetscCall(PetscArraycpy(g, garray, nb));
    for (int b = 0; b < 2; b++) PetscCall(PetscObjectReference((PetscObject)sb[b])); // the MPI shadow's, and still the block's
    PetscCall(MatCreateMPIAIJWithSeqAIJ(PetscObjectComm((PetscObject)X), X->rmap->N, X->cmap->N, sb[0], sb[1], g, &s.m));
    s.nz = X->nonzerostate;
  } else if (!fresh) PetscCall(PetscObjectStateIncrease((PetscObject)s.m));
  s.values = state;
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

PetscErrorCode ShadowOf(Mat X, bool mpi, Mat *S)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MachineryEventIds().shadow, X, 0, 0, 0));
  if (mpi) {
    Shadow *s;
    PetscCall(Record(X, &s));
    PetscCall(MPIShadowCurrent(X, *s));
    *S = s->m;
  } else PetscCall(SeqShadow(X, S));
  PetscCall(PetscLogEventEnd(MachineryEventIds().shadow, X, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ShadowOnDevice(Mat X, bool make, Mat *S)
{
  Shadow *s = nullptr;
  PetscFunctionBegin;
  *S = nullptr;
  PetscCall(PetscObjectContainerQuery((PetscObject)X, kShadow, (PetscCtxRt)&s));
  const bool has = s && s->m && s->uploaded && s->nz == X->nonzerostate;
  if (!has && !make) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(ShadowOf(X, false, S));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ShadowAdopt(Mat X, Mat S)
{
  Shadow *s;
  PetscFunctionBegin;
  PetscCall(Record(X, &s));
  PetscCall(s->Release());
  PetscCall(PetscObjectReference((PetscObject)S));
  s->m        = S;
  s->nz       = X->nonzerostate;
  s->adopted  = true;
  s->uploaded = true; // its device structure is the inner product's
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdoptedShadow(Mat X, Mat *S)
{
  Shadow *s = nullptr;
  PetscFunctionBegin;
  *S = nullptr;
  PetscCall(PetscObjectContainerQuery((PetscObject)X, kShadow, (PetscCtxRt)&s));
  if (s && s->m && s->adopted && s->nz == X->nonzerostate) *S = s->m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ShadowFirst(Mat X, PetscInt limit, bool take, Mat *S)
{
  Shadow *s = nullptr;
  PetscFunctionBegin;
  *S = nullptr;
  PetscCall(PetscObjectContainerQuery((PetscObject)X, kShadow, (PetscCtxRt)&s));
  if (!s || !s->m || !s->adopted || s->nz != X->nonzerostate || s->served >= limit) PetscFunctionReturn(PETSC_SUCCESS);
  if (take) {
    PetscCall(ShadowOf(X, false, S)); // its values made current
    s->served++;
  } else *S = s->m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscInt ShadowServed(Mat X)
{
  Shadow *s = nullptr;
  if (PetscObjectContainerQuery((PetscObject)X, kShadow, (PetscCtxRt)&s) != PETSC_SUCCESS || !s) return 0;
  return s->served;
}

PetscErrorCode ShadowHolds(Mat Y, Mat S)
{
  Shadow *s = nullptr;
  PetscFunctionBegin;
  PetscCall(PetscObjectContainerQuery((PetscObject)Y, kShadow, (PetscCtxRt)&s));
  if (s && s->m == S) PetscCall(PetscObjectStateGet((PetscObject)Y, &s->values));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ShadowValuesBack(Mat Y, Mat S)
{
  const PetscScalar *v;
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MachineryEventIds().shadow_back, Y, 0, 0, 0));
  PetscCall(MatSeqAIJCUSPARSEGetArrayRead(S, &v));
  PetscCall(SeqSetDeviceCsrValues(Y, v));
  PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(S, &v));
  PetscCall(ShadowHolds(Y, S)); // the shadow holds them already
  PetscCall(PetscLogEventEnd(MachineryEventIds().shadow_back, Y, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpumat
#endif
