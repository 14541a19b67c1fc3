// The other operations of a PETSc matrix (GAMG's set-up and users' codes) on one of our types,
// checked against the same operation on AIJ, at any number of ranks. After each operation the two
// matrices must hold the same entries (relative Frobenius norm of the difference at most 1e-12) and
// give the same product through our matrix's own storage (its format's kernel: the device on a GPU
// build with CUDA vectors, the host reference kernel with -mat_gpumat_host_reference), so an
// operation that changed the values without our storage following would show.
//   -type <csrspec>        our type
//   -kind <lap2d> -n <20>  the matrix (examples/gen.h), square
//   -ops <list>            which of the operations below (default all)
//   -values host|device    where our matrix's newest values are before each operation: as
//                          MatConvert leaves them (host), or written again by MatSetValuesCOO with
//                          the vector memory of MatCreateVecs (device on a CUDA build)
//   -expect_solver <s>     the factor_* cases: our factors' solver type (default cusparse on a CUDA
//                          build, petsc without CUDA); -ours_pc_factor_mat_solver_type names one
//                          (-ours_sub_pc_... at several ranks)
//   -expect_device         the operations aijcusparse runs on the GPU (scale, diagonal_scale with
//                          CUDA vectors, axpy_same_ours, and axpy_subset_ours on one rank) wrote
//                          our values on the GPU (MatGpuMatGetInfo's count of device writes rose)
// Exits non-zero, with the reason, when a check fails.
#include <petscksp.h>
#include <petscgpumat.h>
#include <cstring>
#include <functional>
#include <string>
#include <vector>
#include "gen.h"
#include "same_as_aij.hpp"
#include "vec_check.hpp"

namespace {

char      type[64]      = "csrspec";
char      kind[64]      = "lap2d";
char      values[16]    = "host";
PetscInt  n             = 20;
PetscBool expect_device = PETSC_FALSE;
char      expect_solver[32] = ""; // our factors' solver type (default: aijcusparse's on a CUDA build, else PETSc's)

// M's values written again by COO from R's rows (M's own entries), the values in the memory of a
// vector of M's (device memory for CUDA vectors: the device COO path)
PetscErrorCode ValuesByCOO(Mat M, Mat R)
{
  std::vector<PetscInt>    ci, cj;
  std::vector<PetscScalar> cv;
  PetscInt                 lo, hi;
  Vec                      v;
  const PetscScalar       *a;
  PetscMemType             mt;
  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(R, &lo, &hi));
  for (PetscInt i = lo; i < hi; i++) {
    PetscInt           nc;
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscCall(MatGetRow(R, i, &nc, &cols, &vals));
    for (PetscInt k = 0; k < nc; k++) {
      ci.push_back(i);
      cj.push_back(cols[k]);
      cv.push_back(vals[k]);
    }
    PetscCall(MatRestoreRow(R, i, &nc, &cols, &vals));
  }
  PetscCall(MatSetPreallocationCOO(M, (PetscCount)ci.size(), ci.data(), cj.data()));
  {
    VecType vt;
    PetscCall(MatCreateVecs(M, nullptr, &v));
    PetscCall(VecGetType(v, &vt));
    const bool cuda = std::strstr(vt, "cuda") != nullptr;
    PetscCall(VecDestroy(&v));
    PetscCall(VecCreate(PETSC_COMM_SELF, &v));
    PetscCall(VecSetSizes(v, (PetscInt)cv.size(), PETSC_DECIDE));
    PetscCall(VecSetType(v, cuda ? VECCUDA : VECSTANDARD));
  }
  for (size_t k = 0; k < cv.size(); k++) PetscCall(VecSetValue(v, (PetscInt)k, cv[k], INSERT_VALUES));
  PetscCall(VecAssemblyBegin(v));
  PetscCall(VecAssemblyEnd(v));
  PetscCall(VecGetArrayReadAndMemType(v, &a, &mt));
  PetscCall(MatSetValuesCOO(M, a, INSERT_VALUES));
  PetscCall(VecRestoreArrayReadAndMemType(v, &a));
  PetscCall(VecDestroy(&v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// A new matrix of our type and its AIJ twin, both used once (their first product) so that our
// storage exists before the operation
PetscErrorCode Pair(MPI_Comm comm, Mat *M, Mat *R)
{
  PetscFunctionBegin;
  PetscCall(GenCreate(comm, kind, n, 1, MATAIJ, R));
  PetscCall(MatConvert(*R, type, MAT_INITIAL_MATRIX, M));
  if (!std::strcmp(values, "device")) PetscCall(ValuesByCOO(*M, *R));
  PetscCall(SameAsAIJ(*M, *R, "before"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The writes of the diagonal block's values on the GPU so far
PetscErrorCode DeviceWrites(Mat M, PetscInt *w)
{
  MatGpuMatInfo info;
  PetscFunctionBegin;
  PetscCall(MatGpuMatGetInfo(M, MAT_GPUMAT_DIAGONAL_BLOCK, &info));
  *w = info.coo_device_assemblies;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// A vector with varied entries in the layout of M's rows
PetscErrorCode Varied(Mat M, Vec *v)
{
  PetscInt           lo, hi;
  PetscScalar       *a;
  PetscFunctionBegin;
  PetscCall(MatCreateVecs(M, nullptr, v));
  PetscCall(VecGetOwnershipRange(*v, &lo, &hi));
  PetscCall(VecGetArray(*v, &a));
  for (PetscInt i = lo; i < hi; i++) a[i - lo] = 1.0 + 0.1 * (i % 7);
  PetscCall(VecRestoreArray(*v, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// An operation applied to both: (ours, AIJ's) -> the matrices to compare (ours is checked to
// stay of our type where the operation keeps the type)
// The address of a seq matrix's CSR row offsets (MatGetRowIJ): which arrays hold its pattern
PetscErrorCode RowOffsets(Mat A, const PetscInt **ia)
{
  const PetscInt *i, *j;
  PetscInt        n;
  PetscBool       done;
  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &i, &j, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "no CSR of this matrix");
  *ia = i;
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &i, &j, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// MatAXPY onto both with X: R's pattern and values scaled (same), or R's diagonal alone (subset);
// X is AIJ for both, or (ours) our type for M
PetscErrorCode Axpy(Mat &M, Mat &R, MatStructure str, bool ours)
{
  Mat               X, Xm = nullptr;
  const PetscScalar a = str == SAME_NONZERO_PATTERN ? 3.0 : -0.5;
  PetscFunctionBegin;
  if (str == SAME_NONZERO_PATTERN) {
    PetscCall(MatDuplicate(R, MAT_COPY_VALUES, &X));
    PetscCall(MatScale(X, 0.25));
  } else {
    Vec d;
    PetscCall(MatCreateVecs(R, nullptr, &d));
    PetscCall(MatGetDiagonal(R, d));
    PetscCall(MatCreateDiagonal(d, &X));
    PetscCall(MatConvert(X, MATAIJ, MAT_INPLACE_MATRIX, &X));
    PetscCall(VecDestroy(&d));
  }
  if (ours) PetscCall(MatConvert(X, type, MAT_INITIAL_MATRIX, &Xm));
  PetscCall(MatAXPY(M, a, ours ? Xm : X, str));
  PetscCall(MatAXPY(R, a, X, str));
  PetscCall(MatDestroy(&X));
  PetscCall(MatDestroy(&Xm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The factor-based preconditioner `pctype` (PCLU, PCILU, PCCHOLESKY, PCICC) of each matrix, at
// several ranks block Jacobi's with one block per rank factored so (GAMG's coarse solve), applied
// once to the same right-hand side (KSPPREONLY); then both matrices shifted (new values, the same
// pattern) and applied again, which factors anew numerically (PCSetUp on the same factor, as GAMG's
// re-set-up and SNES do). Each time the same result (vec_check::Expect at 1e-10); our factor
// of the solver type aijcusparse's would be of (cuSPARSE's on a CUDA build, PETSc's own without
// CUDA: MatFactorGetSolverType).
PetscErrorCode Factored(Mat M, Mat R, PCType pctype)
{
  const MPI_Comm comm = PetscObjectComm((PetscObject)M);
  PetscMPIInt    size;
  Vec            x[2][2]; // [before, after the shift][ours, AIJ's]
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  for (int k = 0; k < 2; k++) {
    Mat           X = k ? R : M, F;
    KSP           ksp;
    PC            pc, fpc;
    Vec           b;
    MatSolverType st;
    PetscCall(Varied(X, &b));
    PetscCall(VecDuplicate(b, &x[0][k]));
    PetscCall(VecDuplicate(b, &x[1][k]));
    PetscCall(KSPCreate(comm, &ksp));
    PetscCall(KSPSetOperators(ksp, X, X));
    PetscCall(KSPSetType(ksp, KSPPREONLY));
    PetscCall(KSPGetPC(ksp, &pc));
    if (!k) PetscCall(KSPSetOptionsPrefix(ksp, "ours_")); // -ours_pc_factor_mat_solver_type, -ours_sub_... reach ours alone
    fpc = pc;
    if (size == 1) {
      PetscCall(PCSetType(pc, pctype));
      PetscCall(KSPSetFromOptions(ksp));
    } else {
      KSP     *sub;
      PetscInt nl;
      PetscCall(PCSetType(pc, PCBJACOBI));
      PetscCall(KSPSetFromOptions(ksp));
      PetscCall(KSPSetUp(ksp));
      PetscCall(PCBJacobiGetSubKSP(pc, &nl, nullptr, &sub));
      PetscCheck(nl == 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%" PetscInt_FMT " blocks on this rank, not one", nl);
      PetscCall(KSPSetType(sub[0], KSPPREONLY));
      PetscCall(KSPGetPC(sub[0], &fpc));
      PetscCall(PCSetType(fpc, pctype));
      PetscCall(PCSetFromOptions(fpc)); // -ours_sub_pc_factor_mat_solver_type, read for the new type
    }
    PetscCall(KSPSolve(ksp, b, x[0][k]));
    PetscCall(PCFactorGetMatrix(fpc, &F));
    PetscCall(MatFactorGetSolverType(F, &st));
  #if defined(PETSC_HAVE_CUDA)
    const char *want = k ? MATSOLVERPETSC : MATSOLVERCUSPARSE;
  #else
    const char *want = MATSOLVERPETSC;
  #endif
    if (!k && expect_solver[0]) want = expect_solver;
    MatType xt;
    PetscCall(MatGetType(X, &xt));
    PetscCheck(!std::strcmp(st, want), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %s's factor is %s's, not %s's", pctype, xt, st, want);
    PetscCall(MatShift(X, 1.0));
    PetscCall(KSPSolve(ksp, b, x[1][k]));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&b));
  }
  for (int t = 0; t < 2; t++) {
    PetscInt checks = 0;
    PetscCall(vec_check::Expect(x[t][0], x[t][1], 1e-10, std::string(pctype) + ": our result" + (t ? " after the shift (the numeric factorization again)" : ""), "AIJ's", &checks));
    PetscCall(VecDestroy(&x[t][0]));
    PetscCall(VecDestroy(&x[t][1]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

enum OnDevice { kHost, kDevice, kDeviceOneRank }; // where aijcusparse runs it, given device values
struct Op {
  const char                                  *name;
  std::function<PetscErrorCode(Mat &, Mat &)> apply;
  bool                                         keeps_type;
  OnDevice                                     device = kHost;
};

PetscErrorCode Run(MPI_Comm comm, const Op &op)
{
  Mat       M, R;
  PetscBool same;
  PetscFunctionBegin;
  PetscInt    w0, w1;
  PetscMPIInt size;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(Pair(comm, &M, &R));
  PetscCall(DeviceWrites(M, &w0));
  PetscCall(op.apply(M, R));
  if (expect_device && (op.device == kDevice || (op.device == kDeviceOneRank && size == 1))) {
    PetscCall(DeviceWrites(M, &w1));
    PetscCheck(w1 > w0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: our values were not written on the GPU (%" PetscInt_FMT " device writes before and after)", op.name, w0);
  }
  if (op.keeps_type) {
    PetscMPIInt       size;
    const char       *got;
    const std::string want = std::string("aij") + type;
    PetscCallMPI(MPI_Comm_size(comm, &size));
    PetscCall(PetscObjectGetType((PetscObject)M, &got));
    PetscCall(PetscStrcmp(got, ((size == 1 ? "seq" : "mpi") + want).c_str(), &same));
    PetscCheck(same, comm, PETSC_ERR_PLIB, "%s: the matrix became %s, not %s%s", op.name, got, size == 1 ? "seq" : "mpi", want.c_str());
  }
  PetscCall(SameAsAIJ(M, R, op.name));
  PetscCall(SameAsAIJ(M, R, (std::string(op.name) + ", a second product").c_str()));
  PetscCall(PetscPrintf(comm, "%s: equals AIJ's\n", op.name));
  PetscCall(MatDestroy(&M));
  PetscCall(MatDestroy(&R));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

int main(int argc, char **argv)
{
  char list[512] = "scale,shift,diagonal_scale,diagonal_set,axpy_same,axpy_subset,axpy_different,axpy_equal_ours,axpy_same_ours,axpy_subset_ours,copy,into_aij,duplicate,transpose,zero_rows,zero_rows_columns,eliminate_zeros,convert_back,factor_lu,factor_ilu,factor_cholesky,factor_icc,set_values";
  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, nullptr, nullptr));
  PetscCall(PetscGpuMatInitialize());
  PetscCall(ReadMatrixOptions(type, sizeof(type), kind, sizeof(kind), &n));
  PetscCall(PetscOptionsGetString(nullptr, nullptr, "-ops", list, sizeof(list), nullptr));
  PetscCall(PetscOptionsGetString(nullptr, nullptr, "-values", values, sizeof(values), nullptr));
  PetscCall(PetscOptionsGetBool(nullptr, nullptr, "-expect_device", &expect_device, nullptr));
  PetscCall(PetscOptionsGetString(nullptr, nullptr, "-expect_solver", expect_solver, sizeof(expect_solver), nullptr));
  PetscCheck(!std::strcmp(values, "host") || !std::strcmp(values, "device"), PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-values must be host or device, not '%s'", values);
  const MPI_Comm comm = PETSC_COMM_WORLD;

  // Rows this rank owns, every third one, for MatZeroRows(Columns)
  auto some_rows = [](Mat M, std::vector<PetscInt> *rows) -> PetscErrorCode {
    PetscInt lo, hi;
    PetscFunctionBegin;
    PetscCall(MatGetOwnershipRange(M, &lo, &hi));
    rows->clear();
    for (PetscInt i = lo; i < hi; i += 3) rows->push_back(i);
    PetscFunctionReturn(PETSC_SUCCESS);
  };
  const std::vector<Op> ops = {
    {"scale", [](Mat &M, Mat &R) -> PetscErrorCode { PetscFunctionBegin; PetscCall(MatScale(M, -1.5)); PetscCall(MatScale(R, -1.5)); PetscFunctionReturn(PETSC_SUCCESS); }, true, kDevice},
    {"shift", [](Mat &M, Mat &R) -> PetscErrorCode { PetscFunctionBegin; PetscCall(MatShift(M, 2.5)); PetscCall(MatShift(R, 2.5)); PetscFunctionReturn(PETSC_SUCCESS); }, true},
    {"diagonal_scale",
     [](Mat &M, Mat &R) -> PetscErrorCode {
       Vec l, r;
       PetscFunctionBegin;
       PetscCall(Varied(M, &l));
       PetscCall(Varied(M, &r));
       PetscCall(VecScale(r, 0.5));
       PetscCall(MatDiagonalScale(M, l, r));
       PetscCall(MatDiagonalScale(R, l, r));
       PetscCall(VecDestroy(&l));
       PetscCall(VecDestroy(&r));
       PetscFunctionReturn(PETSC_SUCCESS);
     },
     true, kDevice},
    {"diagonal_set",
     [](Mat &M, Mat &R) -> PetscErrorCode {
       Vec d;
       PetscFunctionBegin;
       PetscCall(Varied(M, &d));
       PetscCall(MatDiagonalSet(M, d, ADD_VALUES));
       PetscCall(MatDiagonalSet(R, d, ADD_VALUES));
       PetscCall(VecDestroy(&d));
       PetscFunctionReturn(PETSC_SUCCESS);
     },
     true},
    {"axpy_same", [](Mat &M, Mat &R) -> PetscErrorCode { return Axpy(M, R, SAME_NONZERO_PATTERN, false); }, true},
    {"axpy_subset", [](Mat &M, Mat &R) -> PetscErrorCode { return Axpy(M, R, SUBSET_NONZERO_PATTERN, false); }, true},
    {"axpy_same_ours", [](Mat &M, Mat &R) -> PetscErrorCode { return Axpy(M, R, SAME_NONZERO_PATTERN, true); }, true, kDevice},
    // MPIAIJ's subset AXPY is MatAXPY_Basic, on the host, for aijcusparse too
    {"axpy_subset_ours", [](Mat &M, Mat &R) -> PetscErrorCode { return Axpy(M, R, SUBSET_NONZERO_PATTERN, true); }, true, kDeviceOneRank},
    {"axpy_different",
     [](Mat &M, Mat &R) -> PetscErrorCode { // X = R^T shifted: a pattern other than R's where R is not symmetric
       Mat X;
       PetscFunctionBegin;
       PetscCall(MatTranspose(R, MAT_INITIAL_MATRIX, &X));
       PetscCall(MatShift(X, 1.0));
       PetscCall(MatAXPY(M, 0.75, X, DIFFERENT_NONZERO_PATTERN));
       PetscCall(MatAXPY(R, 0.75, X, DIFFERENT_NONZERO_PATTERN));
       PetscCall(MatDestroy(&X));
       PetscFunctionReturn(PETSC_SUCCESS);
     },
     true},
    {"axpy_equal_ours",
     [](Mat &M, Mat &R) -> PetscErrorCode { // X of our type with M's pattern, called different (GAMG's graph plus its transpose): M keeps its pattern's arrays (not built anew)
       Mat             X, XR, blk;
       PetscMPIInt     size;
       const PetscInt *before, *after;
       PetscFunctionBegin;
       PetscCall(MatDuplicate(M, MAT_COPY_VALUES, &X));
       PetscCall(MatScale(X, 0.5));
       PetscCall(MatDuplicate(R, MAT_COPY_VALUES, &XR));
       PetscCall(MatScale(XR, 0.5));
       PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)M), &size));
       blk = M;
       if (size > 1) PetscCall(MatMPIAIJGetSeqAIJ(M, &blk, nullptr, nullptr));
       PetscCall(RowOffsets(blk, &before));
       PetscCall(MatAXPY(M, 2.0, X, DIFFERENT_NONZERO_PATTERN));
       PetscCall(MatAXPY(R, 2.0, XR, DIFFERENT_NONZERO_PATTERN));
       if (size > 1) PetscCall(MatMPIAIJGetSeqAIJ(M, &blk, nullptr, nullptr));
       PetscCall(RowOffsets(blk, &after));
       PetscCheck(after == before, PETSC_COMM_SELF, PETSC_ERR_PLIB, "axpy_equal_ours: equal patterns called different were built anew");
       PetscCall(MatDestroy(&X));
       PetscCall(MatDestroy(&XR));
       PetscFunctionReturn(PETSC_SUCCESS);
     },
     true},
    {"copy",
     [](Mat &M, Mat &R) -> PetscErrorCode { // new values into ours from AIJ, same pattern
       Mat X;
       PetscFunctionBegin;
       PetscCall(MatDuplicate(R, MAT_COPY_VALUES, &X));
       PetscCall(MatScale(X, 4.0));
       PetscCall(MatCopy(X, M, SAME_NONZERO_PATTERN));
       PetscCall(MatCopy(X, R, SAME_NONZERO_PATTERN));
       PetscCall(MatDestroy(&X));
       PetscFunctionReturn(PETSC_SUCCESS);
     },
     true},
    {"into_aij",
     [](Mat &M, Mat &R) -> PetscErrorCode { // ours as the source of AIJ's own operations: Y = 2 R + 0.5 M (MatAXPY into AIJ from ours) and Z = M + 1.5 R (MatCopy from ours into AIJ), both 2.5 R; then Y into ours and R scaled
       Mat Y, Z;
       PetscFunctionBegin;
       PetscCall(MatDuplicate(R, MAT_COPY_VALUES, &Y));
       PetscCall(MatScale(Y, 2.0));
       PetscCall(MatAXPY(Y, 0.5, M, SAME_NONZERO_PATTERN));
       PetscCall(MatDuplicate(R, MAT_DO_NOT_COPY_VALUES, &Z));
       PetscCall(MatCopy(M, Z, SAME_NONZERO_PATTERN));
       PetscCall(MatAXPY(Z, 1.5, R, SAME_NONZERO_PATTERN));
       PetscCall(MatScale(R, 2.5));
       PetscCall(SameAsAIJ(Y, R, "into_aij: AIJ's MatAXPY from ours"));
       PetscCall(SameAsAIJ(Z, R, "into_aij: AIJ's MatCopy from ours"));
       PetscCall(MatCopy(Y, M, SAME_NONZERO_PATTERN));
       PetscCall(MatDestroy(&Y));
       PetscCall(MatDestroy(&Z));
       PetscFunctionReturn(PETSC_SUCCESS);
     },
     true},
    {"duplicate",
     [](Mat &M, Mat &R) -> PetscErrorCode {
       Mat X;
       PetscFunctionBegin;
       PetscCall(MatDuplicate(M, MAT_COPY_VALUES, &X));
       PetscCall(MatDestroy(&M));
       M = X;
       PetscFunctionReturn(PETSC_SUCCESS);
     },
     true},
    {"transpose",
     [](Mat &M, Mat &R) -> PetscErrorCode {
       Mat X;
       PetscFunctionBegin;
       PetscCall(MatTranspose(M, MAT_INITIAL_MATRIX, &X));
       PetscCall(MatDestroy(&M));
       M = X;
       PetscCall(MatTranspose(R, MAT_INPLACE_MATRIX, &R));
       PetscFunctionReturn(PETSC_SUCCESS);
     },
     false},
    {"zero_rows",
     [&some_rows](Mat &M, Mat &R) -> PetscErrorCode {
       std::vector<PetscInt> rows;
       PetscFunctionBegin;
       PetscCall(some_rows(M, &rows));
       PetscCall(MatZeroRows(M, (PetscInt)rows.size(), rows.data(), 7.0, nullptr, nullptr));
       PetscCall(MatZeroRows(R, (PetscInt)rows.size(), rows.data(), 7.0, nullptr, nullptr));
       PetscFunctionReturn(PETSC_SUCCESS);
     },
     true},
    {"zero_rows_columns",
     [&some_rows](Mat &M, Mat &R) -> PetscErrorCode {
       std::vector<PetscInt> rows;
       PetscFunctionBegin;
       PetscCall(some_rows(M, &rows));
       PetscCall(MatZeroRowsColumns(M, (PetscInt)rows.size(), rows.data(), 7.0, nullptr, nullptr));
       PetscCall(MatZeroRowsColumns(R, (PetscInt)rows.size(), rows.data(), 7.0, nullptr, nullptr));
       PetscFunctionReturn(PETSC_SUCCESS);
     },
     true},
    {"eliminate_zeros",
     [&some_rows](Mat &M, Mat &R) -> PetscErrorCode { // zeroed rows (diagonal kept), then their zeros removed
       std::vector<PetscInt> rows;
       PetscFunctionBegin;
       PetscCall(some_rows(M, &rows));
       PetscCall(MatZeroRows(M, (PetscInt)rows.size(), rows.data(), 1.0, nullptr, nullptr));
       PetscCall(MatZeroRows(R, (PetscInt)rows.size(), rows.data(), 1.0, nullptr, nullptr));
       PetscCall(MatEliminateZeros(M, PETSC_TRUE));
       PetscCall(MatEliminateZeros(R, PETSC_TRUE));
       PetscFunctionReturn(PETSC_SUCCESS);
     },
     true},
    {"convert_back",
     [](Mat &M, Mat &R) -> PetscErrorCode { // to AIJ, new values there, and back to our type
       PetscFunctionBegin;
       PetscCall(MatConvert(M, MATAIJ, MAT_INPLACE_MATRIX, &M));
       PetscCall(MatScale(M, 2.0));
       PetscCall(MatScale(R, 2.0));
       PetscCall(MatConvert(M, type, MAT_INPLACE_MATRIX, &M));
       PetscFunctionReturn(PETSC_SUCCESS);
     },
     true},
    {"factor_lu", [](Mat &M, Mat &R) -> PetscErrorCode { return Factored(M, R, PCLU); }, true},
    {"factor_ilu", [](Mat &M, Mat &R) -> PetscErrorCode { return Factored(M, R, PCILU); }, true},
    {"factor_cholesky", [](Mat &M, Mat &R) -> PetscErrorCode { return Factored(M, R, PCCHOLESKY); }, true},
    {"factor_icc", [](Mat &M, Mat &R) -> PetscErrorCode { return Factored(M, R, PCICC); }, true},
    {"set_values",
     [](Mat &M, Mat &R) -> PetscErrorCode { // MatSetValues on existing entries (the diagonal), ADD, then assembly
       PetscInt lo, hi;
       PetscFunctionBegin;
       PetscCall(MatGetOwnershipRange(M, &lo, &hi));
       for (PetscInt i = lo; i < hi; i += 2) {
         const PetscScalar v = 0.5 + 0.01 * i;
         PetscCall(MatSetValue(M, i, i, v, ADD_VALUES));
         PetscCall(MatSetValue(R, i, i, v, ADD_VALUES));
       }
       for (Mat X : {M, R}) {
         PetscCall(MatAssemblyBegin(X, MAT_FINAL_ASSEMBLY));
         PetscCall(MatAssemblyEnd(X, MAT_FINAL_ASSEMBLY));
       }
       PetscFunctionReturn(PETSC_SUCCESS);
     },
     true},
  };
  PetscInt ran = 0;
  for (const Op &op : ops) {
    if (!Listed(list, op.name)) continue;
    PetscCall(Run(comm, op));
    ran++;
  }
  PetscCheck(ran > 0, comm, PETSC_ERR_ARG_WRONG, "-ops '%s' names no operation", list);
  PetscCall(PetscPrintf(comm, "test_ops: %" PetscInt_FMT " operations equal AIJ's\n", ran));
  PetscCall(PetscFinalize());
  return 0;
}
