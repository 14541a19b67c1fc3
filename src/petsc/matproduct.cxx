// Sparse products (MatProduct: AB, AtB, ABt, PtAP, RARt, ABC) with our matrices as operands.
// PETSc's dispatch (MatProductSetFromOptions_Private, src/mat/interface/matproduct.c) calls A's
// ops->productsetfromoptions where every operand has the same one: all ours, of any format, since
// one function serves every format. Otherwise it looks up MatProductSetFromOptions_<A>_<B>_C on
// the operands: composed here for a plain AIJ partner on either side. Both reach AIJ's own choice
// (the parent's operation: SeqAIJ's or MPIAIJ's algorithms, on the host), with its symbolic phase
// wrapped so that the result takes A's type, PETSc's rule, where AIJ's code makes it another (its
// RARt makes R's type, its MPI AtB B's). A three-operand product of mixed types goes to PETSc's
// pairwise ABC (MatProductSymbolic_Unsafe), whose pairs come here.
#include "block.hpp"
#include "mpi.hpp"
#include "values.hpp"
#include "coo.hpp"
#include <string>
#include <vector>

namespace gpumat {
namespace {

const char *const kAIJSymbolic = "GpumatProductSymbolicAIJ_C"; // AIJ's symbolic phase, composed on the result

// The format and level of one of our matrices (null: not ours)
const FormatInfo *OursAt(Mat X, bool *mpi)
{
  const FormatInfo *f = X ? FindFormat(((PetscObject)X)->type_name) : nullptr;
  if (f) *mpi = Names(f).mpi == ((PetscObject)X)->type_name;
  return f && (*mpi || Names(f).seq == ((PetscObject)X)->type_name) ? f : nullptr;
}

// AIJ's symbolic phase, then the result made A's type where A is ours and AIJ made it another
PetscErrorCode ProductSymbolic(Mat C)
{
  PetscErrorCode (*aij)(Mat) = nullptr;
  Mat               A        = C->product->A;
  bool              mpi      = false;
  const FormatInfo *f        = OursAt(A, &mpi);
  PetscBool         same;
  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)C, kAIJSymbolic, &aij));
  PetscCheck(aij, PETSC_COMM_SELF, PETSC_ERR_PLIB, "product without AIJ's symbolic phase");
  PetscCall((*aij)(C));
  PetscCall(PetscObjectComposeFunction((PetscObject)C, kAIJSymbolic, nullptr));
  if (!f) PetscFunctionReturn(PETSC_SUCCESS); // A is AIJ: AIJ's rule
  PetscCall(PetscObjectTypeCompare((PetscObject)C, ((PetscObject)A)->type_name, &same));
  if (same) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompare((PetscObject)C, mpi ? MATMPIAIJ : MATSEQAIJ, &same));
  PetscCheck(same, PetscObjectComm((PetscObject)C), PETSC_ERR_SUP, "the product of %s made a %s, which cannot become %s", ((PetscObject)A)->type_name, ((PetscObject)C)->type_name, ((PetscObject)A)->type_name);
  if (mpi) PetscCall(MPIInstall(C, f));
  else PetscCall(SeqInstall(C, f));
  PetscFunctionReturn(PETSC_SUCCESS);
}


#if defined(GPUMAT_WITH_CUDA)
// ---- the device route: aijcusparse shadows (docs/design.md, "Sparse products") -------------------
// Each sparse operand of ours gets an aijcusparse shadow of its own level, kept on it (composed,
// kShadow) for every product it enters until its nonzero pattern changes:
// - seq: a SeqAIJ made on the operand's own host CSR arrays (MatCreateSeqAIJWithArrays: no copy)
//   and turned aijcusparse, so its upload is aijcusparse's own copy to the GPU; new values come
//   from our device copy of the CSR values where it holds them (a device product's result: a
//   device-to-device copy into the shadow), else from the shared host array (re-uploaded by
//   aijcusparse when the shadow is next used);
// - MPI: an mpiaijcusparse preallocated by COO with the operand's entries as its blocks store them
//   (the diagonal block's, then the off-diagonal one's, each in CSR order, global indices) and fed
//   both blocks' values in that order through a device staging buffer.
// The product runs on the shadows with PETSc's code (cuSPARSE; at the MPI level MPIAIJCUSPARSE's).
// Its values go to the result, of A's type: a seq result of ours takes the inner result's CSR
// pattern and a device copy of its values (SeqSetDeviceCsrValues); others are preallocated by COO
// in the order of the inner result's storage and take its values through MatSetValuesCOO with a
// device array (our device COO path; for an aijcusparse result, aijcusparse's).

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
  const PetscInt *ia, *ja;
  PetscInt        m;
  PetscFunctionBegin;
  PetscCall(HostPattern(blk, &m, &ia, &ja));
  *nz = ia[m];
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

const char *const kShadow = "GpumatProductShadow";

// An operand's shadow (composed on the operand as kShadow)
struct Shadow {
  Mat              m      = nullptr;
  PetscObjectState values = -1, nz = -1; // the operand's object state last fed, its nonzero state at creation
  // seq: the operand's host arrays the shadow shares
  const PetscInt    *ia = nullptr, *ja = nullptr;
  const PetscScalar *aa = nullptr;
  // MPI: both blocks' values in a row (device), their counts
  PetscScalar *staged = nullptr;
  PetscCount   nd = 0, no = 0;

  PetscErrorCode Release()
  {
    PetscFunctionBegin;
    PetscCall(MatDestroy(&m));
    if (staged) PetscCallCUDA(cudaFree(staged));
    staged = nullptr;
    values = nz = -1;
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

// The shadow of a sequential operand: made on its arrays, fed its current values
PetscErrorCode SeqShadowCurrent(Mat X, Shadow &s)
{
  const PetscInt    *ia, *ja;
  const PetscScalar *aa, *dev;
  PetscObjectState   state;
  PetscFunctionBegin;
  PetscCall(HostArrays(X, &ia, &ja, &aa));
  if (s.m && (s.nz != X->nonzerostate || s.ia != ia || s.ja != ja || s.aa != aa)) PetscCall(s.Release());
  if (!s.m) {
    PetscCall(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, X->rmap->n, X->cmap->n, const_cast<PetscInt *>(ia), const_cast<PetscInt *>(ja), const_cast<PetscScalar *>(aa), &s.m));
    PetscCall(MatConvert(s.m, MATSEQAIJCUSPARSE, MAT_INPLACE_MATRIX, &s.m));
    s.nz = X->nonzerostate, s.ia = ia, s.ja = ja, s.aa = aa;
  }
  PetscCall(PetscObjectStateGet((PetscObject)X, &state));
  if (state == s.values) PetscFunctionReturn(PETSC_SUCCESS);
  if ((dev = DeviceCopy(X))) {
    PetscScalar *w;
    PetscInt     nnz;
    cudaStream_t stream;
    PetscCall(HostNonzeros(X, &nnz));
    PetscCall(PetscGetCurrentCUDAStream(&stream));
    PetscCall(MatSeqAIJCUSPARSEGetArrayWrite(s.m, &w));
    if (nnz) PetscCallCUDA(cudaMemcpyAsync(w, dev, (size_t)nnz * sizeof(PetscScalar), cudaMemcpyDeviceToDevice, stream));
    PetscCall(MatSeqAIJCUSPARSERestoreArrayWrite(s.m, &w));
  } else { // the shared host array holds them: the shadow's host side is the newer (no copy back into it)
    PetscScalar *w;
    PetscCall(MatSeqAIJGetArrayWrite(s.m, &w));
    PetscCall(MatSeqAIJRestoreArrayWrite(s.m, &w));
  }
  s.values = state;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The shadow of an MPI operand: preallocated by COO with its stored entries, fed both blocks' values
PetscErrorCode MPIShadowCurrent(Mat X, Shadow &s)
{
  PetscObjectState state;
  Mat              blk[2];
  cudaStream_t     stream;
  PetscFunctionBegin;
  if (s.m && s.nz != X->nonzerostate) PetscCall(s.Release());
  PetscCall(MatMPIAIJGetSeqAIJ(X, &blk[0], &blk[1], nullptr));
  if (!s.m) {
    std::vector<PetscInt> rows, cols;
    PetscCall(StoredEntries(X, true, &rows, &cols));
    PetscCall(MatCreate(PetscObjectComm((PetscObject)X), &s.m));
    PetscCall(MatSetSizes(s.m, X->rmap->n, X->cmap->n, X->rmap->N, X->cmap->N));
    PetscCall(MatSetType(s.m, MATMPIAIJCUSPARSE));
    PetscCall(MatSetPreallocationCOO(s.m, (PetscCount)rows.size(), rows.data(), cols.data()));
    PetscCall(Nonzeros(blk[0], &s.nd));
    PetscCall(Nonzeros(blk[1], &s.no));
    PetscCallCUDA(cudaMalloc((void **)&s.staged, (size_t)PetscMax(s.nd + s.no, 1) * sizeof(PetscScalar)));
    s.nz = X->nonzerostate;
  }
  PetscCall(PetscObjectStateGet((PetscObject)X, &state));
  { // object states are per rank; MatSetValuesCOO is collective: fed where any rank has new values
    int fresh = state == s.values;
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &fresh, 1, MPI_INT, MPI_LAND, PetscObjectComm((PetscObject)X)));
    if (fresh) PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  for (int b = 0; b < 2; b++) {
    const PetscCount   n   = b ? s.no : s.nd;
    PetscScalar       *to  = s.staged + (b ? s.nd : 0);
    const PetscScalar *dev = n ? DeviceCopy(blk[b]) : nullptr, *a;
    if (!n) continue;
    if (dev) PetscCallCUDA(cudaMemcpyAsync(to, dev, (size_t)n * sizeof(PetscScalar), cudaMemcpyDeviceToDevice, stream));
    else {
      PetscCall(MatSeqAIJGetArrayRead(blk[b], &a));
      PetscCallCUDA(cudaMemcpyAsync(to, a, (size_t)n * sizeof(PetscScalar), cudaMemcpyHostToDevice, stream));
      PetscCallCUDA(cudaStreamSynchronize(stream)); // before the host array is given back
      PetscCall(MatSeqAIJRestoreArrayRead(blk[b], &a));
      PetscCall(PetscLogCpuToGpu((PetscLogDouble)n * sizeof(PetscScalar)));
    }
  }
  PetscCall(MatSetValuesCOO(s.m, s.staged, INSERT_VALUES));
  s.values = state;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The operand's shadow, current (made once per nonzero pattern, fed once per value state)
PetscErrorCode ShadowOf(Mat X, bool mpi, Mat *S)
{
  Shadow *s = nullptr;
  PetscFunctionBegin;
  PetscCall(PetscObjectContainerQuery((PetscObject)X, kShadow, (PetscCtxRt)&s));
  if (!s) {
    PetscCallCXX(s = new Shadow);
    PetscCall(PetscObjectContainerCompose((PetscObject)X, kShadow, s, ShadowDestroy));
  }
  if (mpi) PetscCall(MPIShadowCurrent(X, *s));
  else PetscCall(SeqShadowCurrent(X, *s));
  *S = s->m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// A product on the device: its operands (ours shadowed, aijcusparse as they are), the inner product
struct DeviceProduct {
  Mat          of[3] = {nullptr, nullptr, nullptr}; // the operands of ours (not referenced: the product holds them)
  Mat          sh[3] = {nullptr, nullptr, nullptr}; // the inner product's operands (each operand's shadow, or itself)
  Mat          inner = nullptr;                     // the product of the shadows
  bool         mpi   = false;
  bool         csr   = false;     // a seq result of ours made with the inner result's CSR pattern (else by COO)
  PetscScalar *staged = nullptr; // an MPI result's values, both blocks in a row (device)
  PetscCount   nd = 0, no = 0;   // their counts per block
};

PetscErrorCode DeviceProductDestroy(PetscCtxRt ctx) // ctx: the address of product->data
{
  void         **data = static_cast<void **>(ctx);
  DeviceProduct *dp   = static_cast<DeviceProduct *>(*data);
  PetscFunctionBegin;
  PetscCall(MatDestroy(&dp->inner));
  if (dp->staged) PetscCallCUDA(cudaFree(dp->staged));
  delete dp;
  *data = nullptr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The inner product's values into the result (preallocated by COO in their order)
PetscErrorCode DeviceResultValues(Mat C, DeviceProduct *dp)
{
  const PetscScalar *v;
  PetscFunctionBegin;
  if (!dp->mpi) {
    PetscCall(MatSeqAIJCUSPARSEGetArrayRead(dp->inner, &v));
    if (dp->csr) PetscCall(SeqSetDeviceCsrValues(C, v));
    else PetscCall(MatSetValuesCOO(C, v, INSERT_VALUES));
    PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(dp->inner, &v));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  Mat          blk[2];
  cudaStream_t stream;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(MatMPIAIJGetSeqAIJ(dp->inner, &blk[0], &blk[1], nullptr));
  for (int b = 0; b < 2; b++) {
    const PetscCount n = b ? dp->no : dp->nd;
    if (!n) continue;
    PetscCall(MatSeqAIJCUSPARSEGetArrayRead(blk[b], &v));
    PetscCallCUDA(cudaMemcpyAsync(dp->staged + (b ? dp->nd : 0), v, (size_t)n * sizeof(PetscScalar), cudaMemcpyDeviceToDevice, stream));
    PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(blk[b], &v));
  }
  PetscCall(MatSetValuesCOO(C, dp->staged, INSERT_VALUES));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DeviceProductNumeric(Mat C)
{
  DeviceProduct *dp = static_cast<DeviceProduct *>(C->product->data);
  PetscFunctionBegin;
  for (int k = 0; k < 3; k++) {
    Mat S;
    if (!dp->of[k]) continue;
    PetscCall(ShadowOf(dp->of[k], dp->mpi, &S));
    PetscCheck(S == dp->sh[k], PetscObjectComm((PetscObject)C), PETSC_ERR_ARG_WRONGSTATE, "an operand's nonzero pattern changed after the symbolic phase: call MatProductSymbolic again");
  }
  PetscCall(MatProductNumeric(dp->inner));
  PetscCall(DeviceResultValues(C, dp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The same numeric phase through the pairwise slots PETSc's three-operand fallbacks call
// (MatProductNumeric_{ABC,PtAP,RARt}_Unsafe: C->ops->matmultnumeric and the transposed ones)
PetscErrorCode DeviceProductNumericPair(Mat, Mat, Mat C) { return DeviceProductNumeric(C); }

PetscErrorCode DeviceProductSymbolic(Mat C)
{
  Mat_Product   *p      = C->product;
  Mat            ops[3] = {p->A, p->B, p->type == MATPRODUCT_ABC ? p->C : nullptr};
  PetscBool      par    = PETSC_FALSE;
  DeviceProduct *dp     = nullptr;
  MatType        ctype;
  PetscFunctionBegin;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)p->A, MATMPIAIJ, &par)); // every subclass of MPIAIJ, ours and aijcusparse
  PetscCallCXX(dp = new DeviceProduct);
  dp->mpi = par;
  for (int k = 0; k < 3; k++) {
    PetscBool cusparse;
    if (!ops[k]) continue;
    PetscCall(PetscObjectTypeCompareAny((PetscObject)ops[k], &cusparse, MATSEQAIJCUSPARSE, MATMPIAIJCUSPARSE, ""));
    if (cusparse) dp->sh[k] = ops[k];
    else {
      dp->of[k] = ops[k];
      PetscCall(ShadowOf(ops[k], dp->mpi, &dp->sh[k]));
    }
  }
  PetscCall(MatProductCreate(dp->sh[0], dp->sh[1], dp->sh[2], &dp->inner));
  PetscCall(MatProductSetType(dp->inner, p->type));
  PetscCall(MatProductSetAlgorithm(dp->inner, MATPRODUCTALGORITHMDEFAULT));
  PetscCall(MatProductSetFill(dp->inner, p->fill));
  PetscCall(MatProductSetFromOptions(dp->inner));
  PetscCall(MatProductSymbolic(dp->inner));
  PetscCall(MatGetType(p->A, &ctype));
  PetscCall(MatSetSizes(C, dp->inner->rmap->n, dp->inner->cmap->n, dp->inner->rmap->N, dp->inner->cmap->N));
  PetscCall(MatSetBlockSizesFromMats(C, dp->inner, dp->inner));
  PetscCall(MatSetType(C, ctype));
  dp->csr = !dp->mpi && Ours(C);
  if (dp->csr) { // the inner result's host pattern (cuSPARSE's symbolic phase keeps one), its values written on the device
    const PetscInt *ia, *ja;
    PetscInt        m;
    PetscCall(HostPattern(dp->inner, &m, &ia, &ja));
    PetscCall(MatSetOption(C, MAT_USE_INODES, PETSC_FALSE)); // before the assembly: PETSc's inode kernels read the host array without the accessors
    PetscCall(MatSeqAIJSetPreallocationCSR(C, ia, ja, nullptr));
    PetscCheck(C->preallocated && C->assembled, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: no MatSeqAIJSetPreallocationCSR", ((PetscObject)C)->type_name);
  } else {
    std::vector<PetscInt> rows, cols;
    PetscCall(StoredEntries(dp->inner, dp->mpi, &rows, &cols));
    if (dp->mpi) {
      Mat blk[2];
      PetscCall(MatMPIAIJGetSeqAIJ(dp->inner, &blk[0], &blk[1], nullptr));
      PetscCall(Nonzeros(blk[0], &dp->nd));
      PetscCall(Nonzeros(blk[1], &dp->no));
      PetscCallCUDA(cudaMalloc((void **)&dp->staged, (size_t)PetscMax(dp->nd + dp->no, 1) * sizeof(PetscScalar)));
    }
    PetscCall(MatSetPreallocationCOO(C, (PetscCount)rows.size(), rows.data(), cols.data()));
  }
  p->data                         = dp;
  p->destroy                      = DeviceProductDestroy;
  C->ops->productnumeric          = DeviceProductNumeric;
  C->ops->matmultnumeric          = DeviceProductNumericPair;
  C->ops->transposematmultnumeric = DeviceProductNumericPair;
  C->ops->mattransposemultnumeric = DeviceProductNumericPair;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Whether X is aijcusparse (seq or MPI)
bool Cusparse(Mat X, bool *mpi)
{
  PetscBool seq = PETSC_FALSE, par = PETSC_FALSE;
  if (PetscObjectTypeCompare((PetscObject)X, MATSEQAIJCUSPARSE, &seq) || PetscObjectTypeCompare((PetscObject)X, MATMPIAIJCUSPARSE, &par)) return false;
  *mpi = par;
  return seq || par;
}

// The device route applies where every sparse operand is ours or aijcusparse, one at least ours,
// all at one level, none bound to the CPU or held to host products (-mat_gpumat_host; an MPI
// matrix: its diagonal block's setting). The result is A's type, PETSc's rule: ours or aijcusparse.
bool DeviceRoute(Mat C)
{
  Mat_Product *p      = C->product;
  Mat          ops[3] = {p->A, p->B, p->type == MATPRODUCT_ABC ? p->C : nullptr};
  bool         level = false, ours = false, first = true;
  for (Mat X : ops) {
    bool mpi = false;
    if (!X) continue;
    if (X->boundtocpu) return false;
    if (!Cusparse(X, &mpi)) {
      if (!OursAt(X, &mpi)) return false;
      Mat blk = X;
      if (mpi && MatMPIAIJGetSeqAIJ(X, &blk, nullptr, nullptr) != PETSC_SUCCESS) return false;
      if (!blk || !blk->spptr || Data(blk)->opt.force_host) return false;
      ours = true;
    }
    if (!first && mpi != level) return false;
    level = mpi, first = false;
  }
  return ours;
}
#endif

} // namespace

PetscErrorCode ProductSetFromOptions(Mat C)
{
  Mat_Product *p   = C->product;
  bool         mpi = false;
  Mat          X   = OursAt(p->A, &mpi) ? p->A : p->B; // ours: A, or else B (a composed pair)
  PetscErrorCode (*aij)(Mat);
  PetscFunctionBegin;
  PetscCheck(OursAt(X, &mpi), PETSC_COMM_SELF, PETSC_ERR_PLIB, "a product with no operand of ours reached petsc-gpumat");
#if defined(GPUMAT_WITH_CUDA)
  if (DeviceRoute(C)) {
    PetscCall(PetscInfo(C, "MatProduct %s with %s: cuSPARSE on aijcusparse shadows, on the GPU\n", MatProductTypes[p->type], ((PetscObject)X)->type_name));
    C->ops->productsymbolic = DeviceProductSymbolic;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (Mat Y : {p->A, p->B, p->type == MATPRODUCT_ABC ? p->C : nullptr}) {
    bool ympi;
    if (Y && Cusparse(Y, &ympi)) { // AIJ's host algorithm would read its host array, which may be stale: no symbolic phase (PETSc says the product is not supported)
      PetscCall(PetscInfo(C, "MatProduct %s with %s and %s: on the GPU only (A of our type, nothing bound to the CPU or under -mat_gpumat_host)\n", MatProductTypes[p->type], ((PetscObject)X)->type_name, ((PetscObject)Y)->type_name));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
#endif
  aij = mpi ? MPIDataOf(X)->parent.productsetfromoptions : Data(X)->parent.productsetfromoptions;
  PetscCheck(aij, PETSC_COMM_SELF, PETSC_ERR_PLIB, "AIJ without MatProductSetFromOptions");
  PetscCall((*aij)(C));
  PetscCall(PetscInfo(C, "MatProduct %s with %s: AIJ's algorithm, on the host\n", MatProductTypes[p->type], ((PetscObject)X)->type_name));
  if (C->ops->productsymbolic) {
    PetscCall(PetscObjectComposeFunction((PetscObject)C, kAIJSymbolic, C->ops->productsymbolic));
    C->ops->productsymbolic = ProductSymbolic;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ComposeProducts(Mat A, const FormatInfo *f, const char *level, bool on)
{
  const std::string lv(level), self = lv + "aij" + f->name, aij = lv + "aij";
  PetscErrorCode (*fn)(Mat) = on ? ProductSetFromOptions : nullptr;
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)A, ("MatProductSetFromOptions_" + self + "_" + aij + "_C").c_str(), fn));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, ("MatProductSetFromOptions_" + aij + "_" + self + "_C").c_str(), fn));
#if defined(GPUMAT_WITH_CUDA)
  const std::string cusparse = lv + "aijcusparse";
  PetscCall(PetscObjectComposeFunction((PetscObject)A, ("MatProductSetFromOptions_" + self + "_" + cusparse + "_C").c_str(), fn));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, ("MatProductSetFromOptions_" + cusparse + "_" + self + "_C").c_str(), fn));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpumat
