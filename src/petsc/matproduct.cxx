// Sparse products (MatProduct: AB, AtB, ABt, PtAP, RARt, ABC) with our matrices as operands.
// PETSc's dispatch (MatProductSetFromOptions_Private, src/mat/interface/matproduct.c) calls A's
// ops->productsetfromoptions where every operand has the same one: all ours, of any format, since
// one function serves every format. Otherwise it looks up MatProductSetFromOptions_<A>_<B>_C on
// the operands: composed here for a plain AIJ partner on either side. Both reach AIJ's own choice
// (the parent's operation: SeqAIJ's or MPIAIJ's algorithms, on the host), with its symbolic phase
// wrapped so that the result takes A's type, PETSc's rule, where AIJ's code makes it another (its
// RARt makes R's type, its MPI AtB B's). A three-operand product of mixed types goes to PETSc's
// pairwise ABC (MatProductSymbolic_Unsafe), whose pairs come here. With A ours and B dense (composed
// too: seqdense, mpidense, and their CUDA types) the product is dense: on the device the shadow's
// dense product or PETSc's loop over B's columns (-mat_gpumat_dense_products, DenseDevice below),
// on the host AIJ's dense algorithms (composed on B).
#include "block.hpp"
#include "mpi.hpp"
#include "coo.hpp"
#include "shadow.hpp"
#include <algorithm>
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

// AIJ's symbolic phase, then the result made A's type where AIJ made it another: ours where A is
// ours; plain AIJ where A is and AIJ's code made it ours (its RARt computes R (A R^T), whose result
// takes R's type)
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
  PetscCall(PetscObjectTypeCompare((PetscObject)C, ((PetscObject)A)->type_name, &same));
  if (same) PetscFunctionReturn(PETSC_SUCCESS);
  if (!f) { // A is plain AIJ: a result of ours goes back to it, in place (a seq result is not assembled yet: no MatConvert)
    bool cmpi = false;
    if (OursAt(C, &cmpi)) {
      if (cmpi) PetscCall(MatConvert(C, ((PetscObject)A)->type_name, MAT_INPLACE_MATRIX, &C));
      else PetscCall(SeqUninstall(C));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscObjectTypeCompare((PetscObject)C, mpi ? MATMPIAIJ : MATSEQAIJ, &same));
  PetscCheck(same, PetscObjectComm((PetscObject)C), PETSC_ERR_SUP, "the product of %s made a %s, which cannot become %s", ((PetscObject)A)->type_name, ((PetscObject)C)->type_name, ((PetscObject)A)->type_name);
  if (mpi) PetscCall(MPIInstall(C, f));
  else PetscCall(SeqInstall(C, f));
  PetscFunctionReturn(PETSC_SUCCESS);
}


#if defined(GPUMAT_WITH_CUDA)
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

// Whether X is aijcusparse (seq or MPI)
bool Cusparse(Mat X, bool *mpi)
{
  PetscBool seq = PETSC_FALSE, par = PETSC_FALSE;
  if (PetscObjectTypeCompare((PetscObject)X, MATSEQAIJCUSPARSE, &seq) || PetscObjectTypeCompare((PetscObject)X, MATMPIAIJCUSPARSE, &par)) return false;
  *mpi = par;
  return seq || par;
}

// Whether the user asked for PETSc's CPU algorithm for this product, by the options aijcusparse and
// mpiaijcusparse read: -matmatmult_backend_cpu, -mattransposematmult_backend_cpu,
// -matptap_backend_cpu, -matrart_backend_cpu, -matmatmatmult_backend_cpu for the products made
// through MatMatMult and its siblings, -mat_product_algorithm_backend_cpu for MatProduct's API.
PetscErrorCode BackendCpu(Mat C, PetscBool *cpu)
{
  static const struct {
    MatProductType type;
    const char    *api, *option;
  } kApis[] = {
    {MATPRODUCT_AB, "MatMatMult", "-matmatmult_backend_cpu"},      {MATPRODUCT_AtB, "MatTransposeMatMult", "-mattransposematmult_backend_cpu"}, {MATPRODUCT_PtAP, "MatPtAP", "-matptap_backend_cpu"},
    {MATPRODUCT_RARt, "MatRARt", "-matrart_backend_cpu"},          {MATPRODUCT_ABC, "MatMatMatMult", "-matmatmatmult_backend_cpu"},
  };
  Mat_Product *p = C->product;
  PetscFunctionBegin;
  *cpu = PETSC_FALSE;
  for (const auto &k : kApis) {
    if (k.type != p->type) continue;
    PetscOptionsBegin(PetscObjectComm((PetscObject)C), ((PetscObject)C)->prefix, p->api_user ? k.api : "MatProduct", "Mat");
    PetscCall(PetscOptionsBool(p->api_user ? k.option : "-mat_product_algorithm_backend_cpu", "Use CPU code", k.api, *cpu, cpu, nullptr));
    PetscOptionsEnd();
  }
  PetscFunctionReturn(PETSC_SUCCESS);
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

// A product with a dense operand on the device (A ours, held to neither the host nor the CPU, B dense
// CUDA of A's level, not bound to the CPU): aijcusparse's on the shadow (kDeviceSpmm) or PETSc's loop
// over B's columns, a product of A's format per column (kDeviceLoop), as A's diagonal block's
// -mat_gpumat_dense_products says (docs/options.md: the shadow by default); kDeviceNone: neither
// applies. An MPI A^T B is always the loop: MPIAIJ's multiplies by a MAIJ of A's shadow on the host,
// whose kernels read the blocks' host values without asking for the newest. A B^T and B A B^T are
// always the shadow's: PETSc has no loop for them.
enum DenseDeviceRoute { kDeviceNone, kDeviceSpmm, kDeviceLoop };
DenseDeviceRoute DenseDevice(Mat C)
{
  Mat_Product *p   = C->product;
  bool         mpi = false;
  PetscBool    dense = PETSC_FALSE;
  if (!OursAt(p->A, &mpi) || p->A->boundtocpu || p->B->boundtocpu) return kDeviceNone;
  if (PetscObjectTypeCompare((PetscObject)p->B, mpi ? MATMPIDENSECUDA : MATSEQDENSECUDA, &dense) || !dense) return kDeviceNone;
  Mat blk = p->A;
  if (mpi && MatMPIAIJGetSeqAIJ(p->A, &blk, nullptr, nullptr) != PETSC_SUCCESS) return kDeviceNone;
  if (!blk || !blk->spptr || Data(blk)->opt.force_host) return kDeviceNone;
  if (mpi && p->type == MATPRODUCT_AtB) return kDeviceLoop;
  if (p->type == MATPRODUCT_ABt || p->type == MATPRODUCT_RARt) return kDeviceSpmm;
  return (DenseProducts)Data(blk)->opt.dense_products == kDenseLoop ? kDeviceLoop : kDeviceSpmm;
}
#endif

// Whether B is dense (a product with it gives a dense result)
bool Dense(Mat B)
{
  PetscBool dense = PETSC_FALSE;
  return !PetscObjectTypeCompareAny((PetscObject)B, &dense, MATSEQDENSE, MATMPIDENSE, MATSEQDENSECUDA, MATMPIDENSECUDA, "") && dense;
}

} // namespace

PetscErrorCode ProductSetFromOptions(Mat C)
{
  Mat_Product *p   = C->product;
  bool         mpi = false;
  Mat          X   = OursAt(p->A, &mpi) ? p->A : p->B; // ours: A, or else B (a composed pair)
  PetscErrorCode (*aij)(Mat);
  PetscFunctionBegin;
  PetscCheck(OursAt(X, &mpi), PETSC_COMM_SELF, PETSC_ERR_PLIB, "a product with no operand of ours reached petsc-gpumat");
  PetscBool cpu = PETSC_FALSE; // the CPU backend asked for (aijcusparse's options)
#if defined(GPUMAT_WITH_CUDA)
  PetscCall(BackendCpu(C, &cpu));
  Mat cusp = nullptr; // the first aijcusparse operand, if any
  for (Mat Y : {p->A, p->B, p->type == MATPRODUCT_ABC ? p->C : nullptr}) {
    bool ympi;
    if (!cusp && Y && Cusparse(Y, &ympi)) cusp = Y;
  }
  const DenseDeviceRoute dense = !cpu && p->type != MATPRODUCT_ABC ? DenseDevice(C) : kDeviceNone;
  if (dense == kDeviceSpmm) {
    bool done = false;
    PetscCall(DenseSetFromOptions(C, &done));
    PetscCall(PetscInfo(C, "MatProduct %s with %s and %s: %s\n", MatProductTypes[p->type], ((PetscObject)X)->type_name, ((PetscObject)p->B)->type_name, done ? "aijcusparse's dense product on the shadow, on the GPU" : "none on the shadow (PETSc's fallbacks follow)"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (dense == kDeviceLoop) { // no symbolic phase: PETSc's basic product, our MatMult (MatMultTranspose) per column
    PetscCall(PetscInfo(C, "MatProduct %s with %s and %s: PETSc's loop over the dense operand's columns, a product of ours per column, on the GPU\n", MatProductTypes[p->type], ((PetscObject)X)->type_name, ((PetscObject)p->B)->type_name));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (DeviceRoute(C) && (!cpu || cusp)) { // an aijcusparse operand's host array may be stale: its products stay on the GPU
    PetscCall(PetscInfo(C, "MatProduct %s with %s: cuSPARSE on aijcusparse shadows, on the GPU%s\n", MatProductTypes[p->type], ((PetscObject)X)->type_name, cpu ? " (the CPU backend asked for, but an operand is aijcusparse)" : ""));
    C->ops->productsymbolic = DeviceProductSymbolic;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (cusp) { // AIJ's host algorithm would read its host array, which may be stale: no symbolic phase (PETSc says the product is not supported)
    PetscCall(PetscInfo(C, "MatProduct %s with %s and %s: on the GPU only (A of our type, nothing bound to the CPU or under -mat_gpumat_host)\n", MatProductTypes[p->type], ((PetscObject)X)->type_name, ((PetscObject)cusp)->type_name));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  if (X == p->A && Dense(p->B)) { // AIJ's choice with a dense B is composed on B (MatProductSetFromOptions_<level>aij_<B's type>_C); its result is dense
    const std::string name = std::string("MatProductSetFromOptions_") + (mpi ? "mpiaij_" : "seqaij_") + ((PetscObject)p->B)->type_name + "_C";
    PetscCall(PetscObjectQueryFunction((PetscObject)p->B, name.c_str(), &aij));
    // with CUDA, A B alone: AIJ's other dense products multiply by a MAIJ of A, whose kernels read
    // its host values without asking for the newest (the device may hold them); PETSc's loop over
    // B's columns runs them through our format
    if (aij && (!PetscDefined(HAVE_CUDA) || p->type == MATPRODUCT_AB)) PetscCall((*aij)(C));
    PetscCall(PetscInfo(C, "MatProduct %s with %s and %s: %s\n", MatProductTypes[p->type], ((PetscObject)X)->type_name, ((PetscObject)p->B)->type_name, C->ops->productsymbolic ? "AIJ's dense algorithm, on the host" : "none of AIJ's (PETSc's fallbacks follow)"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  aij = mpi ? MPIDataOf(X)->parent.productsetfromoptions : Data(X)->parent.productsetfromoptions;
  PetscCheck(aij, PETSC_COMM_SELF, PETSC_ERR_PLIB, "AIJ without MatProductSetFromOptions");
  PetscCall((*aij)(C));
  PetscCall(PetscInfo(C, "MatProduct %s with %s: AIJ's algorithm, on the host%s\n", MatProductTypes[p->type], ((PetscObject)X)->type_name, cpu ? " (the CPU backend asked for)" : ""));
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
  PetscCall(PetscObjectComposeFunction((PetscObject)A, ("MatProductSetFromOptions_" + self + "_" + lv + "dense_C").c_str(), fn));
#if defined(GPUMAT_WITH_CUDA)
  PetscCall(PetscObjectComposeFunction((PetscObject)A, ("MatProductSetFromOptions_" + self + "_" + lv + "densecuda_C").c_str(), fn));
  const std::string cusparse = lv + "aijcusparse";
  PetscCall(PetscObjectComposeFunction((PetscObject)A, ("MatProductSetFromOptions_" + self + "_" + cusparse + "_C").c_str(), fn));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, ("MatProductSetFromOptions_" + cusparse + "_" + self + "_C").c_str(), fn));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpumat
