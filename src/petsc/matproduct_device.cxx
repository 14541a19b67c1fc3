// The GPU side of the sparse products (CUDA builds): the device route, PETSc's cuSPARSE code run on
// aijcusparse shadows of our operands (DeviceProductSymbolic), and a dense operand's product run on
// A's shadow (DenseSetFromOptions). matproduct.cxx decides which product goes where.
#include "matproduct.hpp"
#include "mpi.hpp"
#include "coo.hpp"
#include "shadow.hpp"
#include <algorithm>
#include <string>
#include <vector>

#if defined(GPUMAT_WITH_CUDA)
namespace gpumat {
namespace {

// ---- the device route (docs/design.md, "Sparse products") -----------------------------------------
// The product runs with PETSc's code (cuSPARSE; at the MPI level MPIAIJCUSPARSE's) on aijcusparse
// shadows of our operands (shadow.hpp) and on aijcusparse operands as they are. Its values go to
// the result, of A's type: a result of ours takes the inner result's CSR patterns (MPI: each
// block's, and its column map) and device copies of its values; an aijcusparse result (or an MPI
// one whose column map would differ) is preallocated by COO in the order of the inner result's
// storage and takes its values through MatSetValuesCOO with a device array.

// A seq three-operand product as two pairs, the way PETSc's MatProductSymbolic_ABC_Basic splits it
// (PtAP: P^T (A P); RARt: R (A R^T); ABC: A (B C)): the first pair's operands and type, then the
// second's first operand and type (its second operand is the first pair's product).
struct Pairs {
  int            x, y, z; // indices into dp->sh
  MatProductType first, second;
};
bool SplitSeq(MatProductType t, Pairs *p)
{
  switch (t) {
  case MATPRODUCT_PtAP: *p = {0, 1, 1, MATPRODUCT_AB, MATPRODUCT_AtB}; return true;
  case MATPRODUCT_RARt: *p = {0, 1, 1, MATPRODUCT_ABt, MATPRODUCT_AB}; return true;
  case MATPRODUCT_ABC: *p = {1, 2, 0, MATPRODUCT_AB, MATPRODUCT_AB}; return true;
  default: return false;
  }
}

// A product on the device: its operands (ours shadowed, aijcusparse as they are), the inner product
struct DeviceProduct {
  Mat              of[3] = {nullptr, nullptr, nullptr}; // the operands of ours (not referenced: the product holds them)
  PetscObjectState nz[3] = {-1, -1, -1};                // their nonzero states at the symbolic phase
  Mat              sh[3] = {nullptr, nullptr, nullptr}; // the inner product's operands (each operand's shadow, or itself)
  Mat          inner = nullptr;                     // the product of the shadows (seq PtAP, RARt, ABC: its second pair, whose B is mid)
  Mat          mid   = nullptr;                     // seq PtAP, RARt, ABC: the first pair's product (InnerSymbolic)
  Pairs        pairs = {};                          // with mid: the split
  PetscObjectState mid_of[2] = {-1, -1};            // mid's operands' states when the symbolic phase computed its values
  bool         mpi   = false;
  bool         csr   = false;     // a result of ours made with the inner result's CSR patterns (else by COO)
  PetscScalar *staged = nullptr; // an MPI result by COO: its values, both blocks in a row (device)
  PetscCount   nd = 0, no = 0;   // the inner result's nonzeros per block
};

PetscErrorCode DeviceProductDestroy(PetscCtxRt ctx) // ctx: the address of product->data
{
  void         **data = static_cast<void **>(ctx);
  DeviceProduct *dp   = static_cast<DeviceProduct *>(*data);
  PetscFunctionBegin;
  if (dp->inner && dp->csr) PetscCall(MatProductClear(dp->inner)); // it may live on as the result's shadow: without the operands' shadows
  PetscCall(MatDestroy(&dp->inner));
  PetscCall(MatDestroy(&dp->mid));
  if (dp->staged) PetscCallCUDA(cudaFree(dp->staged));
  delete dp;
  *data = nullptr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The inner product's values into the result: its blocks' device copies (the inner result's
// patterns), else MatSetValuesCOO (preallocated by COO in their order)
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
  if (dp->csr) {
    Mat cb[2];
    PetscCall(MatMPIAIJGetSeqAIJ(C, &cb[0], &cb[1], nullptr));
    for (int b = 0; b < 2; b++) {
      PetscCall(MatSeqAIJCUSPARSEGetArrayRead(blk[b], &v));
      PetscCall(SeqSetDeviceCsrValues(cb[b], v));
      PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(blk[b], &v));
      PetscCall(ShadowHolds(cb[b], blk[b]));
    }
    PetscCall(PetscObjectStateIncrease((PetscObject)C));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
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

// A product of the shadows (or of a shadow and mid) of this type, as C's: its symbolic phase done
PetscErrorCode PairSymbolic(Mat C, Mat a, Mat b, Mat c, MatProductType type, Mat *D)
{
  PetscFunctionBegin;
  PetscCall(MatProductCreate(a, b, c, D));
  (*D)->product->api_user = C->product->api_user; // MatMatMult, MatPtAP, ...: the symbolic phase's values kept for the first numeric phase, as aijcusparse's own
  PetscCall(MatProductSetType(*D, type));
  PetscCall(MatProductSetAlgorithm(*D, MATPRODUCTALGORITHMDEFAULT));
  PetscCall(MatProductSetFill(*D, C->product->fill));
  PetscCall(MatProductSetFromOptions(*D));
  PetscCall(MatProductSymbolic(*D));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// mid's operands' object states (its values are current for them)
void MidStates(const DeviceProduct *dp, PetscObjectState st[2])
{
  (void)PetscObjectStateGet((PetscObject)dp->sh[dp->pairs.x], &st[0]);
  (void)PetscObjectStateGet((PetscObject)dp->sh[dp->pairs.y], &st[1]);
}

// The inner product of the shadows dp->sh, its symbolic phase done. A seq three-operand product is
// made of two pairs here rather than by PETSc's MatProductSymbolic_ABC_Basic, which runs the second
// pair's symbolic phase on the first pair's product before any numeric phase: that product is then
// uploaded from its host values, which its symbolic phase leaves uninitialized, and cuSPARSE's
// SpGEMM computes with them (a reduction that never ends was seen there: docs/design.md, "Sparse
// products"). Here the first pair's numeric phase runs first, so the second reads its values on the
// device and nothing is uploaded; the first numeric phase after this one skips it where its
// operands kept their values.
PetscErrorCode InnerSymbolic(Mat C, DeviceProduct *dp)
{
  const Pairs &q = dp->pairs;
  PetscFunctionBegin;
  if (dp->mpi || !SplitSeq(C->product->type, &dp->pairs)) {
    PetscCall(PairSymbolic(C, dp->sh[0], dp->sh[1], dp->sh[2], C->product->type, &dp->inner));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PairSymbolic(C, dp->sh[q.x], dp->sh[q.y], nullptr, q.first, &dp->mid));
  PetscCall(MatProductNumeric(dp->mid));
  MidStates(dp, dp->mid_of);
  PetscCall(PairSymbolic(C, dp->sh[q.z], dp->mid, nullptr, q.second, &dp->inner));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The inner product's numeric phase (seq three-operand products: both pairs', the first skipped
// where its operands are those of the symbolic phase's numeric phase, with the same values)
PetscErrorCode InnerNumeric(DeviceProduct *dp, bool replaced)
{
  PetscFunctionBegin;
  if (dp->mid) {
    PetscObjectState st[2];
    MidStates(dp, st);
    if (replaced || st[0] != dp->mid_of[0] || st[1] != dp->mid_of[1]) PetscCall(MatProductNumeric(dp->mid));
    dp->mid_of[0] = dp->mid_of[1] = -1; // once: a numeric phase on the same values computes them again
  }
  PetscCall(MatProductNumeric(dp->inner));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The numeric phase with these operands: the symbolic phase's, or others of the same types and
// patterns that MatProductReplaceMats put in (as PETSc's own numeric phases, the patterns are
// trusted; an operand of the symbolic phase whose own pattern changed since is refused)
PetscErrorCode DeviceNumeric(Mat C, Mat a, Mat b, Mat c)
{
  DeviceProduct *dp       = static_cast<DeviceProduct *>(C->product->data);
  const Mat      ops[3]   = {a, b, c};
  bool           replaced = false;
  PetscFunctionBegin;
  for (int k = 0; k < 3; k++) {
    Mat S;
    if (!ops[k]) continue;
    if (!dp->of[k]) { // aijcusparse: itself
      if (ops[k] != dp->sh[k]) replaced = true;
      dp->sh[k] = ops[k];
      continue;
    }
    PetscCheck(ops[k] != dp->of[k] || ops[k]->nonzerostate == dp->nz[k], PetscObjectComm((PetscObject)C), PETSC_ERR_ARG_WRONGSTATE, "an operand's nonzero pattern changed after the symbolic phase: call MatProductSymbolic again");
    PetscCall(ShadowOf(ops[k], dp->mpi, &S));
    if (S != dp->sh[k]) replaced = true;
    dp->of[k] = ops[k], dp->nz[k] = ops[k]->nonzerostate, dp->sh[k] = S;
  }
  if (replaced && !dp->mpi) {
    const Pairs &q = dp->pairs;
    if (dp->mid) {
      PetscCall(MatProductReplaceMats(dp->sh[q.x], dp->sh[q.y], nullptr, dp->mid));
      PetscCall(MatProductReplaceMats(dp->sh[q.z], nullptr, nullptr, dp->inner));
    } else PetscCall(MatProductReplaceMats(dp->sh[0], dp->sh[1], dp->sh[2], dp->inner));
  }
  if (replaced && dp->mpi) { // MPIAIJ's device products keep their blocks' products on the symbolic phase's operands: a new symbolic phase, whose result has the same pattern
    PetscCount nd, no;
    PetscCall(MatDestroy(&dp->inner));
    PetscCall(InnerSymbolic(C, dp));
    PetscCall(BlockNonzeros(dp->inner, &nd, &no));
    PetscCheck(nd == dp->nd && no == dp->no, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "the operands MatProductReplaceMats put in give a product of another pattern: call MatProductSymbolic again");
  }
  PetscCall(InnerNumeric(dp, replaced));
  PetscCall(DeviceResultValues(C, dp));
  if (dp->csr) PetscCall(ShadowHolds(C, dp->inner));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DeviceProductNumeric(Mat C)
{
  Mat_Product *p = C->product;
  return DeviceNumeric(C, p->A, p->B, p->type == MATPRODUCT_ABC ? p->C : nullptr);
}

// The same numeric phase through the pairwise slots PETSc's three-operand fallbacks call
// (MatProductNumeric_{ABC,PtAP,RARt}_Unsafe: C->ops->matmultnumeric and the transposed ones, with
// the pair's operands; the product's own stay the user's)
PetscErrorCode DeviceProductNumericPair(Mat a, Mat b, Mat C) { return DeviceNumeric(C, a, b, nullptr); }

// The seq result C takes the pattern of the inner result's host CSR (m rows ia, ja): its row
// lengths, then its column indices copied at once (MatSeqAIJSetPreallocationCSR would insert them
// row by row through MatSetValues, several times slower), assembled. Its host values are undefined
// until the numeric phase writes them on the device (as aijcusparse's own symbolic result's are):
// setting them would touch every page of a host array no one reads before then.
PetscErrorCode SetPattern(Mat C, PetscInt m, const PetscInt *ia, const PetscInt *ja)
{
  std::vector<PetscInt> nnz;
  PetscFunctionBegin;
  PetscCallCXX(nnz.resize((size_t)m));
  for (PetscInt i = 0; i < m; i++) nnz[(size_t)i] = ia[i + 1] - ia[i];
  PetscCall(MatSeqAIJSetPreallocation(C, 0, nnz.data()));
  PetscCall(MatSeqAIJSetColumnIndices(C, const_cast<PetscInt *>(ja))); // copied
  PetscCall(MatAssemblyBegin(C, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(C, MAT_FINAL_ASSEMBLY));
  PetscCall(MatSetOption(C, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The MPI result C takes the inner result's block patterns: its row lengths per block, the diagonal
// block's (local) columns and the off-diagonal block's global ones (through the inner result's
// column map) copied at once, assembled: MPIAIJ's assembly turns the latter into C's column map and
// local columns. Where C's column map is then the inner result's on every rank (so both
// off-diagonal blocks order their entries alike), the blocks adopt the inner result's as their
// shadows and *same is true; else C has the pattern but its values must come by COO.
PetscErrorCode MPISetPattern(Mat C, Mat inner, bool *same)
{
  Mat                   ib[2], cb[2];
  const PetscInt       *gin, *ia[2], *ja[2];
  PetscInt              m, n[2];
  std::vector<PetscInt> nnz[2], gj;
  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(inner, &ib[0], &ib[1], &gin));
  for (int b = 0; b < 2; b++) {
    PetscCall(HostPattern(ib[b], &m, &ia[b], &ja[b]));
    PetscCall(MatGetLocalSize(ib[b], nullptr, &n[b]));
    PetscCallCXX(nnz[b].resize((size_t)m));
    for (PetscInt i = 0; i < m; i++) nnz[b][(size_t)i] = ia[b][i + 1] - ia[b][i];
  }
  PetscCallCXX(gj.resize((size_t)ia[1][m]));
  for (PetscInt k = 0; k < ia[1][m]; k++) gj[(size_t)k] = gin[ja[1][k]];
  PetscCall(MatMPIAIJSetPreallocation(C, 0, nnz[0].data(), 0, nnz[1].data()));
  PetscCall(MatSetOption(C, MAT_USE_INODES, PETSC_FALSE)); // before the assembly: PETSc's inode kernels read the host array without the accessors
  PetscCall(MatMPIAIJGetSeqAIJ(C, &cb[0], &cb[1], nullptr));
  if (ia[0][m]) PetscCall(MatSeqAIJSetColumnIndices(cb[0], const_cast<PetscInt *>(ja[0]))); // copied
  if (ia[1][m]) PetscCall(MatSeqAIJSetColumnIndices(cb[1], gj.data()));
  PetscCall(MatAssemblyBegin(C, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(C, MAT_FINAL_ASSEMBLY));
  PetscCall(MatSetOption(C, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
  {
    const PetscInt *gc;
    PetscInt        nc;
    PetscCall(MatMPIAIJGetSeqAIJ(C, &cb[0], &cb[1], &gc)); // the assembly may have remade them
    PetscCall(MatGetLocalSize(cb[1], nullptr, &nc));
    int eq = nc == n[1] && (nc == 0 || std::equal(gc, gc + nc, gin));
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &eq, 1, MPI_INT, MPI_LAND, PetscObjectComm((PetscObject)C)));
    *same = eq;
  }
  if (*same)
    for (int b = 0; b < 2; b++) PetscCall(ShadowAdopt(cb[b], ib[b]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// A seq aijcusparse operand that is itself a product whose symbolic phase ran and whose values
// were never computed (PETSc's MatProductSymbolic_ABC_Basic makes its first pair so, then calls the
// second pair's symbolic phase: ours, where A is ours and B, C aijcusparse) gets its numeric phase
// now: cuSPARSE would otherwise upload it from the host values that symbolic phase left
// uninitialized and compute with them (docs/design.md, "Sparse products"). PETSc's own numeric
// phase computes them again later.
PetscErrorCode ComputedOperand(Mat X)
{
  PetscBool seq;
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)X, MATSEQAIJCUSPARSE, &seq));
  if (seq && X->product && X->ops->productnumeric && X->offloadmask == PETSC_OFFLOAD_UNALLOCATED) {
    PetscCall(PetscInfo(X, "an operand's values computed before the symbolic phase reads them (its own symbolic phase left them uninitialized)\n"));
    PetscCall(MatProductNumeric(X));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

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
    if (cusparse) {
      dp->sh[k] = ops[k];
      PetscCall(ComputedOperand(ops[k]));
    } else {
      dp->of[k] = ops[k];
      dp->nz[k] = ops[k]->nonzerostate;
      PetscCall(ShadowOf(ops[k], dp->mpi, &dp->sh[k]));
    }
  }
  PetscCall(InnerSymbolic(C, dp));
  PetscCall(MatGetType(p->A, &ctype));
  PetscCall(MatSetSizes(C, dp->inner->rmap->n, dp->inner->cmap->n, dp->inner->rmap->N, dp->inner->cmap->N));
  PetscCall(MatSetBlockSizesFromMats(C, dp->inner, dp->inner));
  PetscCall(MatSetType(C, ctype));
  {
    bool at_mpi = false;
    dp->csr     = dp->mpi ? OursAt(C, &at_mpi) != nullptr : Ours(C) != nullptr;
  }
  if (dp->mpi) PetscCall(BlockNonzeros(dp->inner, &dp->nd, &dp->no)); // a later symbolic phase (MatProductReplaceMats) must find the same
  if (dp->csr && dp->mpi) {
    bool same = false;
    PetscCall(MPISetPattern(C, dp->inner, &same));
    dp->csr = same;
    if (same) PetscCall(ShadowAdopt(C, dp->inner)); // the MPI shadow of C when a product takes it
  }
  if (dp->csr && !dp->mpi) { // the inner result's host pattern (cuSPARSE's symbolic phase keeps one), its values written on the device
    const PetscInt *ia, *ja;
    PetscInt        m;
    PetscCall(HostPattern(dp->inner, &m, &ia, &ja));
    PetscCall(MatSetOption(C, MAT_USE_INODES, PETSC_FALSE)); // before the assembly: PETSc's inode kernels read the host array without the accessors
    PetscCall(SetPattern(C, m, ia, ja));
    PetscCall(ShadowAdopt(C, dp->inner)); // the operations that run on C's shadow find its pattern on the device already
  } else if (!dp->csr) {
    std::vector<PetscInt> rows, cols;
    PetscCall(StoredEntries(dp->inner, dp->mpi, &rows, &cols));
    if (dp->mpi) PetscCallCUDA(cudaMalloc((void **)&dp->staged, (size_t)PetscMax(dp->nd + dp->no, 1) * sizeof(PetscScalar)));
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

namespace {

// ---- products with a dense operand on the device ---------------------------------------------------
// Where DenseDevice (below) picks the shadow, A B, A^T B, A B^T, B^T A B and B A B^T with A ours and
// B dense CUDA (at the MPI level A B, the one MPIAIJ computes on the device) are aijcusparse's own,
// run on A's shadow: each phase (the choice of algorithm, the symbolic and the numeric phase) runs
// with the shadow put in the product's A and the user's A back after it. So the product's data, its
// result (dense CUDA) and its work (cuSPARSE's SpMM, one pass over A for all of B's columns; at the
// MPI level the blocks' SpMM and the dense halo) are aijcusparse's, and the user's product keeps its
// operands.
const char *const kDensePhases = "GpumatDenseProduct";

struct DensePhases {
  PetscErrorCode (*symbolic)(Mat) = nullptr; // the shadow's phases, as its choice installed them
  PetscErrorCode (*numeric)(Mat)  = nullptr;
  Mat              of = nullptr;              // the user's A at the symbolic phase (not referenced)
  PetscObjectState nz = -1;                   // its nonzero state then
};

PetscErrorCode DensePhasesDestroy(PetscCtxRt ctx)
{
  PetscFunctionBegin;
  delete *static_cast<DensePhases **>(ctx);
  PetscFunctionReturn(PETSC_SUCCESS);
}

// C's phase `phase` run with A's shadow (current values) as the product's A; A of ours, else as it is
PetscErrorCode OnShadow(Mat C, PetscErrorCode (*phase)(Mat))
{
  Mat  A   = C->product->A, S = A;
  bool mpi = false;
  PetscFunctionBegin;
  if (OursAt(A, &mpi)) PetscCall(ShadowOf(A, mpi, &S));
  C->product->A = S;
  const PetscErrorCode ierr = (*phase)(C);
  if (C->product) C->product->A = A;
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DenseNumeric(Mat C)
{
  DensePhases *d = nullptr;
  PetscFunctionBegin;
  PetscCall(PetscObjectContainerQuery((PetscObject)C, kDensePhases, (PetscCtxRt)&d));
  PetscCheck(d && d->numeric, PETSC_COMM_SELF, PETSC_ERR_PLIB, "a dense product without its numeric phase");
  Mat A = C->product->A;
  PetscCheck(A != d->of || A->nonzerostate == d->nz, PetscObjectComm((PetscObject)C), PETSC_ERR_ARG_WRONGSTATE, "an operand's nonzero pattern changed after the symbolic phase: call MatProductSymbolic again");
  PetscCall(OnShadow(C, d->numeric));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DenseSymbolic(Mat C)
{
  DensePhases *d = nullptr;
  PetscFunctionBegin;
  PetscCall(PetscObjectContainerQuery((PetscObject)C, kDensePhases, (PetscCtxRt)&d));
  PetscCheck(d && d->symbolic, PETSC_COMM_SELF, PETSC_ERR_PLIB, "a dense product without its symbolic phase");
  d->of = C->product->A;
  d->nz = C->product->A->nonzerostate;
  PetscCall(OnShadow(C, d->symbolic));
  d->numeric             = C->ops->productnumeric;
  C->ops->productnumeric = d->numeric ? DenseNumeric : nullptr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

// The shadow's choice for this product, found as PETSc's dispatch finds aijcusparse's with a dense
// B (MatProductSetFromOptions_<shadow's type>_<B's type>_C, composed on the shadow or on B); where it
// has a symbolic phase, the phases are wrapped to run on the shadow (*done), else nothing is set
PetscErrorCode DenseSetFromOptions(Mat C, bool *done)
{
  Mat          A = C->product->A, B = C->product->B, S;
  bool         mpi = false;
  DensePhases *d   = nullptr;
  PetscErrorCode (*f)(Mat) = nullptr;
  PetscFunctionBegin;
  *done = false;
  OursAt(A, &mpi);
  PetscCall(ShadowOf(A, mpi, &S));
  const std::string name = std::string("MatProductSetFromOptions_") + ((PetscObject)S)->type_name + "_" + ((PetscObject)B)->type_name + "_C";
  PetscCall(PetscObjectQueryFunction((PetscObject)S, name.c_str(), &f));
  if (!f) PetscCall(PetscObjectQueryFunction((PetscObject)B, name.c_str(), &f));
  if (!f) PetscFunctionReturn(PETSC_SUCCESS);
  C->ops->productsymbolic = nullptr;
  PetscCall(OnShadow(C, f));
  if (!C->ops->productsymbolic) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallCXX(d = new DensePhases);
  d->symbolic = C->ops->productsymbolic;
  PetscCall(PetscObjectContainerCompose((PetscObject)C, kDensePhases, d, DensePhasesDestroy));
  C->ops->productsymbolic = DenseSymbolic;
  *done                   = true;
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpumat
#endif
