// The factorizations of our sequential types (CUDA builds): aijcusparse's (MATSOLVERCUSPARSE: LU,
// ILU, Cholesky, ICC), registered for each of our seq types as PETSc registers them for
// aijcusparse. A factorization of our matrix with no solver type named (PCLU, PCILU, PCCHOLESKY,
// PCICC; GAMG's coarse solve; block Jacobi's blocks at any number of ranks) then factors and solves
// where aijcusparse's would: the triangular solves on the GPU, with no copy of the vectors.
//
// The factor is PETSc's own aijcusparse factor matrix, made by aijcusparse's creator. Its symbolic
// and numeric phases read the matrix they factor as an aijcusparse one (its device CSR, its
// settings), so they get our matrix's shadow (shadow.hpp: aijcusparse with our current values) in
// its place; a matrix bound to the CPU when the factor is made is given as it is (the creator chose
// SeqAIJ's host phases then, which read any AIJ matrix). The entry of aijcusparse itself is wrapped
// too: `-pc_factor_mat_solver_type cusparse` finds a solver by the matrix type's prefix, and our
// cuSPARSE-named types (seqaijcusparsecsr, ...) would reach aijcusparse's creator directly.
//
// aijcusparse's triangular solves take their vectors as CUDA vectors (VecCUDAGetArray*, unchecked
// in PETSc's optimized builds). Our types also serve host vectors (and Kokkos ones), so a solve
// whose vectors are not CUDA ones, or are bound to the CPU, goes through two CUDA vectors of the
// factor's: the right-hand side copied in, the solution copied out (PetscInfo says so once).
#include "machinery.hpp"
#include "shadow.hpp"

#if defined(GPUMAT_WITH_CUDA)
namespace gpumat {
namespace {
using Creator      = PetscErrorCode (*)(Mat, MatFactorType, Mat *);
using LUSymbolic   = PetscErrorCode (*)(Mat, Mat, IS, IS, const MatFactorInfo *);
using CholSymbolic = PetscErrorCode (*)(Mat, Mat, IS, const MatFactorInfo *);
using Numeric      = PetscErrorCode (*)(Mat, Mat, const MatFactorInfo *);
using Solve        = PetscErrorCode (*)(Mat, Vec, Vec);

constexpr MatFactorType kFactorTypes[] = {MAT_FACTOR_LU, MAT_FACTOR_CHOLESKY, MAT_FACTOR_ILU, MAT_FACTOR_ICC};

// aijcusparse's creator for each factor type (MatFactorType indexes it), as PETSc registered it
Creator cusparse_creator[MAT_FACTOR_NUM_TYPES] = {};

// The phases aijcusparse installed on one factor matrix (its creator the symbolic ones, a symbolic
// phase the numeric one), called with the matrix they read
struct Phases {
  bool         shadow = true; // they read our matrix's shadow (false: the matrix, bound to the CPU)
  LUSymbolic   lu = nullptr, ilu = nullptr;
  CholSymbolic cholesky = nullptr, icc = nullptr;
  Numeric      lu_numeric = nullptr, cholesky_numeric = nullptr;
  Solve        solve = nullptr, solve_transpose = nullptr;
  Vec          staged_b = nullptr, staged_x = nullptr; // CUDA vectors for solves with other vectors
  bool         told = false;                           // PetscInfo said a solve was staged
  ~Phases()
  {
    (void)VecDestroy(&staged_b);
    (void)VecDestroy(&staged_x);
  }
};
constexpr char kPhases[] = "GpumatFactorPhases";

PetscErrorCode PhasesDestroy(PetscCtxRt ctx) // ctx: the address of the container's pointer
{
  delete *static_cast<Phases **>(ctx);
  return PETSC_SUCCESS;
}

PetscErrorCode PhasesOf(Mat F, Phases **p)
{
  PetscFunctionBegin;
  *p = nullptr;
  PetscCall(PetscObjectContainerQuery((PetscObject)F, kPhases, (PetscCtxRt)p));
  PetscCheck(*p, PETSC_COMM_SELF, PETSC_ERR_PLIB, "factor matrix without the phases aijcusparse installed");
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The matrix aijcusparse's phases read in place of A
PetscErrorCode Operand(const Phases *p, Mat A, Mat *S)
{
  PetscFunctionBegin;
  if (p->shadow) PetscCall(ShadowOf(A, false, S));
  else *S = A;
  PetscFunctionReturn(PETSC_SUCCESS);
}

void Take(Mat F, Phases *p);

// n values from x to y, each read or written where its array is current: a copy on the GPU where
// both are there (CUDA or Kokkos vectors), else through the host side (logged as a transfer) and
// finished before it returns
PetscErrorCode CopyValues(Vec x, Vec y)
{
  const PetscScalar *src;
  PetscScalar       *dst;
  PetscMemType       mx, my;
  PetscInt           n, m;
  cudaStream_t       stream;
  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecGetLocalSize(y, &m));
  PetscCheck(n == m, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "a factor's solve with vectors of %" PetscInt_FMT " and %" PetscInt_FMT " entries", n, m);
  PetscCall(VecGetArrayReadAndMemType(x, &src, &mx));
  PetscCall(VecGetArrayWriteAndMemType(y, &dst, &my));
  if (n > 0) {
    const size_t bytes = (size_t)n * sizeof(PetscScalar);
    PetscCall(PetscGetCurrentCUDAStream(&stream));
    PetscCallCUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream));
    if (!PetscMemTypeDevice(mx) || !PetscMemTypeDevice(my)) PetscCallCUDA(cudaStreamSynchronize(stream));
    if (!PetscMemTypeDevice(mx) && PetscMemTypeDevice(my)) PetscCall(PetscLogCpuToGpu((PetscLogDouble)bytes));
    if (PetscMemTypeDevice(mx) && !PetscMemTypeDevice(my)) PetscCall(PetscLogGpuToCpu((PetscLogDouble)bytes));
  }
  PetscCall(VecRestoreArrayWriteAndMemType(y, &dst));
  PetscCall(VecRestoreArrayReadAndMemType(x, &src));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// aijcusparse's solve kept in `slot`, on b and x where both are CUDA vectors, else on two CUDA
// vectors of F's (b copied in, the solution copied out to x)
template <Solve Phases::*slot>
PetscErrorCode Staged(Mat F, Vec b, Vec x)
{
  Phases *p;
  bool    bok, xok;
  PetscFunctionBegin;
  PetscCall(PhasesOf(F, &p));
  PetscCall(CudaVec(b, &bok));
  PetscCall(CudaVec(x, &xok));
  if (bok && xok) {
    PetscCall((p->*slot)(F, b, x));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!p->staged_b) {
    PetscInt n;
    PetscCall(VecGetLocalSize(b, &n));
    PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, n, &p->staged_b));
    PetscCall(VecDuplicate(p->staged_b, &p->staged_x));
  }
  if (!p->told) {
    PetscCall(PetscInfo(F, "the factor's triangular solves (cuSPARSE) read CUDA vectors: a solve with %s and %s vectors copies them through two CUDA vectors\n", ((PetscObject)b)->type_name, ((PetscObject)x)->type_name));
    p->told = true;
  }
  PetscCall(CopyValues(b, p->staged_b));
  PetscCall((p->*slot)(F, p->staged_b, p->staged_x));
  PetscCall(CopyValues(p->staged_x, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The phase of F kept in `slot` (one of aijcusparse's, with its own arguments after the two
// matrices) called on the matrix it reads in place of A; then the phases it installed taken.
template <auto slot>
struct OnOperand;
template <typename... Args, PetscErrorCode (*Phases::*slot)(Mat, Mat, Args...)>
struct OnOperand<slot> {
  static PetscErrorCode Call(Mat F, Mat A, Args... args)
  {
    Phases *p;
    Mat     S;
    PetscFunctionBegin;
    PetscCall(PhasesOf(F, &p));
    PetscCall(Operand(p, A, &S));
    PetscCall((p->*slot)(F, S, args...));
    Take(F, p);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};

// One slot of F's operations: aijcusparse's phase (newly installed there) kept in `saved`, ours put
// in its place
template <typename Fn>
void TakeSlot(Fn &slot, Fn &saved, Fn ours)
{
  if (slot && slot != ours) {
    saved = slot;
    slot  = ours;
  }
}

// The phases aijcusparse installed on F since the last look become ours
void Take(Mat F, Phases *p)
{
  TakeSlot(F->ops->lufactorsymbolic, p->lu, &OnOperand<&Phases::lu>::Call);
  TakeSlot(F->ops->ilufactorsymbolic, p->ilu, &OnOperand<&Phases::ilu>::Call);
  TakeSlot(F->ops->choleskyfactorsymbolic, p->cholesky, &OnOperand<&Phases::cholesky>::Call);
  TakeSlot(F->ops->iccfactorsymbolic, p->icc, &OnOperand<&Phases::icc>::Call);
  TakeSlot(F->ops->lufactornumeric, p->lu_numeric, &OnOperand<&Phases::lu_numeric>::Call);
  TakeSlot(F->ops->choleskyfactornumeric, p->cholesky_numeric, &OnOperand<&Phases::cholesky_numeric>::Call);
  if (!p->shadow) return; // bound to the CPU: SeqAIJ's host solves, which read any vector
  TakeSlot(F->ops->solve, p->solve, &Staged<&Phases::solve>);
  TakeSlot(F->ops->solvetranspose, p->solve_transpose, &Staged<&Phases::solve_transpose>);
}

// aijcusparse's factor matrix for our seq matrix A, its phases reading A's shadow
PetscErrorCode OurFactor(Mat A, MatFactorType ftype, Mat *F)
{
  Phases *p;
  PetscFunctionBegin;
  PetscCheck(cusparse_creator[ftype], PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "aijcusparse has no %s factorization (MATSOLVERCUSPARSE) for %s to take", MatFactorTypes[ftype], ((PetscObject)A)->type_name);
  PetscCall(cusparse_creator[ftype](A, ftype, F));
  PetscCallCXX(p = new Phases);
  p->shadow = !A->boundtocpu;
  PetscCall(PetscObjectContainerCompose((PetscObject)*F, kPhases, p, PhasesDestroy));
  Take(*F, p);
  PetscCall(PetscInfo(A, "%s factorization: aijcusparse's (cuSPARSE), on %s\n", MatFactorTypes[ftype], p->shadow ? "the matrix's aijcusparse shadow" : "the matrix, bound to the CPU"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The creator registered for aijcusparse and for ours: ours to OurFactor, any other to aijcusparse's
PetscErrorCode CusparseFactor(Mat A, MatFactorType ftype, Mat *F)
{
  PetscFunctionBegin;
  if (Ours(A)) PetscCall(OurFactor(A, ftype, F));
  else {
    PetscCheck(cusparse_creator[ftype], PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "aijcusparse has no %s factorization", MatFactorTypes[ftype]);
    PetscCall(cusparse_creator[ftype](A, ftype, F));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace

PetscErrorCode RegisterFactors(const std::vector<const char *> &seq_types)
{
  PetscFunctionBegin;
  for (MatFactorType t : kFactorTypes) {
    Creator c = nullptr;
    PetscCall(MatSolverTypeGet(MATSOLVERCUSPARSE, MATSEQAIJCUSPARSE, t, nullptr, nullptr, &c));
    if (c != &CusparseFactor) cusparse_creator[t] = c; // PETSc's own (registered again at each PetscInitialize)
    if (!cusparse_creator[t]) continue;
    PetscCall(MatSolverTypeRegister(MATSOLVERCUSPARSE, MATSEQAIJCUSPARSE, t, CusparseFactor));
    for (const char *s : seq_types) PetscCall(MatSolverTypeRegister(MATSOLVERCUSPARSE, s, t, CusparseFactor));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpumat
#endif
