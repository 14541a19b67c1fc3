// MPI integration test of a petsc-gpumat type against MPIAIJ, on any number of ranks (1, 2, 3 in
// CTest). Rank 1 owns no rows when there are several ranks. Assembly routes: MatMPIAIJSetPreallocation
// + MatSetValues, MatSetUp without preallocation (hash assembly), COO (MatSetPreallocationCOO +
// MatSetValuesCOO), MatConvert from mpiaij, MatSetType on an assembled mpiaij, and a DMDA matrix
// (-dm_mat_type route) re-assembled with new values three times, as a Newton solve does.
//   -type <csrspec>   -tol <1e-12>   -vec_type <type> (default: the matrix's)
#include <petscgpumat.h>
#include <petscdmda.h>
#include <functional>
#include <string>
#include <vector>

namespace {

PetscReal   tol = PetscDefined(USE_REAL_SINGLE) ? 1e-5 : 1e-12;
char        vectype[64];
PetscBool   has_vectype = PETSC_FALSE;
PetscInt    checks      = 0;

// The global test matrix: rows of varying length with empty rows, couplings across all ranks.
PetscInt    Mglobal = 900, Nglobal = 700;
void Row(PetscInt i, std::vector<PetscInt> &cols, std::vector<PetscScalar> &vals)
{
  cols.clear();
  vals.clear();
  if (i % 7 == 3) return; // empty rows
  PetscInt len = 1 + (i * 37) % 13;
  if (i == 450) len = 600; // one long row
  for (PetscInt k = 0; k < len; k++) {
    PetscInt c = (i * 131 + k * 997) % Nglobal;
    bool     dup = false;
    for (PetscInt e : cols) dup |= e == c;
    if (dup) continue;
    cols.push_back(c);
    vals.push_back(1.0 + 0.001 * ((i + 3 * k) % 101) - (k % 2 ? 2.0 : 0.0));
  }
}

PetscErrorCode Layout(PetscInt N, PetscInt *nlocal)
{
  PetscMPIInt rank, size;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (size == 1) *nlocal = N;
  else { // rank 1 owns nothing, the others split N
    PetscInt others = size - 1, idx = rank == 0 ? 0 : rank - 1;
    *nlocal = rank == 1 ? 0 : N / others + (idx < N % others ? 1 : 0);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

enum class Route { Prealloc, Hash, COO };

PetscErrorCode Build(MatType type, Route route, Mat *A)
{
  PetscInt                 m, n, rstart, rend;
  std::vector<PetscInt>    cols;
  std::vector<PetscScalar> vals;
  PetscFunctionBegin;
  PetscCall(Layout(Mglobal, &m));
  PetscCall(Layout(Nglobal, &n));
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, m, n, Mglobal, Nglobal));
  PetscCall(MatSetType(*A, type));
  PetscCallMPI(MPI_Scan(&m, &rend, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  rstart = rend - m;
  if (route == Route::Prealloc) {
    std::vector<PetscInt> dnnz(m), onnz(m);
    PetscInt              cstart, cend;
    PetscCallMPI(MPI_Scan(&n, &cend, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    cstart = cend - n;
    for (PetscInt i = rstart; i < rend; i++) {
      Row(i, cols, vals);
      for (PetscInt c : cols) (c >= cstart && c < cend ? dnnz : onnz)[i - rstart]++;
    }
    PetscCall(MatMPIAIJSetPreallocation(*A, 0, dnnz.data(), 0, onnz.data()));
    PetscCall(MatSeqAIJSetPreallocation(*A, 0, dnnz.data()));
  } else if (route == Route::Hash) {
    PetscCall(MatSetUp(*A));
  }
  if (route == Route::COO) {
    std::vector<PetscInt>    ci, cj;
    std::vector<PetscScalar> cv;
    for (PetscInt i = rstart; i < rend; i++) {
      Row(i, cols, vals);
      for (std::size_t k = 0; k < cols.size(); k++) {
        ci.push_back(i);
        cj.push_back(cols[k]);
        cv.push_back(vals[k]);
      }
    }
    PetscCall(MatSetPreallocationCOO(*A, (PetscCount)ci.size(), ci.data(), cj.data()));
    PetscCall(MatSetValuesCOO(*A, cv.data(), INSERT_VALUES));
  } else {
    for (PetscInt i = rstart; i < rend; i++) {
      Row(i, cols, vals);
      if (!cols.empty()) PetscCall(MatSetValues(*A, 1, &i, (PetscInt)cols.size(), cols.data(), vals.data(), INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Fill(Vec v, PetscInt seed)
{
  PetscInt     lo, hi;
  PetscScalar *a;
  PetscFunctionBegin;
  PetscCall(VecGetOwnershipRange(v, &lo, &hi));
  PetscCall(VecGetArrayWrite(v, &a));
  for (PetscInt i = lo; i < hi; i++) a[i - lo] = 0.5 + ((i * 7919 + seed * 104729) % 1000) / 1000.0; // never zero
  PetscCall(VecRestoreArrayWrite(v, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Expect(Vec got, Vec ref, const std::string &what)
{
  const PetscScalar *a, *b;
  PetscInt           n;
  PetscReal          m[2] = {0, 0};
  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(ref, &n));
  PetscCall(VecGetArrayRead(got, &a));
  PetscCall(VecGetArrayRead(ref, &b));
  for (PetscInt i = 0; i < n; i++) {
    m[0] = PetscMax(m[0], PetscIsInfOrNanScalar(a[i]) ? PETSC_INFINITY : PetscAbsScalar(a[i] - b[i]));
    m[1] = PetscMax(m[1], PetscAbsScalar(b[i]));
  }
  PetscCall(VecRestoreArrayRead(got, &a));
  PetscCall(VecRestoreArrayRead(ref, &b));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, m, 2, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  checks++;
  PetscCheck(m[0] <= tol * PetscMax(m[1], 1e-300), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s differs from MPIAIJ by %g relative (tolerance %g)", what.c_str(), (double)(m[0] / m[1]), (double)tol);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Products(Mat B, Mat A, const std::string &where)
{
  Vec x, y, z, xt, yt, zt, rx, ry, rz, rxt, ryt, rzt;
  PetscFunctionBegin;
  PetscCall(MatCreateVecs(B, &x, &y));
  PetscCall(MatCreateVecs(B, &yt, &xt));
  if (has_vectype)
    for (Vec v : {x, y, xt, yt}) PetscCall(VecSetType(v, vectype));
  PetscCall(VecDuplicate(y, &z));
  PetscCall(VecDuplicate(yt, &zt));
  PetscCall(MatCreateVecs(A, &rx, &ry));
  PetscCall(MatCreateVecs(A, &ryt, &rxt));
  PetscCall(VecDuplicate(ry, &rz));
  PetscCall(VecDuplicate(ryt, &rzt));
  PetscCall(Fill(rx, 1));
  PetscCall(Fill(rz, 2));
  PetscCall(Fill(rxt, 3));
  PetscCall(Fill(rzt, 4));
  PetscCall(VecCopy(rx, x));
  PetscCall(VecCopy(rz, z));
  PetscCall(VecCopy(rxt, xt));
  PetscCall(VecCopy(rzt, zt));

  PetscCall(MatMult(A, rx, ry));
  PetscCall(VecSet(y, PETSC_MAX_REAL));
  PetscCall(MatMult(B, x, y));
  PetscCall(Expect(y, ry, where + ": MatMult"));
  PetscCall(MatMultAdd(A, rx, rz, ry));
  PetscCall(MatMultAdd(B, x, z, y));
  PetscCall(Expect(y, ry, where + ": MatMultAdd"));
  PetscCall(VecCopy(rz, y));
  PetscCall(MatMultAdd(B, x, y, y));
  PetscCall(Expect(y, ry, where + ": MatMultAdd in place"));
  PetscCall(MatMultTranspose(A, rxt, ryt));
  PetscCall(VecSet(yt, PETSC_MAX_REAL));
  PetscCall(MatMultTranspose(B, xt, yt));
  PetscCall(Expect(yt, ryt, where + ": MatMultTranspose"));
  PetscCall(MatMultTransposeAdd(A, rxt, rzt, ryt));
  PetscCall(MatMultTransposeAdd(B, xt, zt, yt));
  PetscCall(Expect(yt, ryt, where + ": MatMultTransposeAdd"));
  for (Vec *v : {&x, &y, &z, &xt, &yt, &zt, &rx, &ry, &rz, &rxt, &ryt, &rzt}) PetscCall(VecDestroy(v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ExpectOurs(Mat B, const std::string &root, const std::string &where)
{
  PetscBool ok;
  Mat       Ad, Ao;
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)B, ("mpiaij" + root).c_str(), &ok));
  if (!ok) PetscCall(PetscObjectTypeCompare((PetscObject)B, ("seqaij" + root).c_str(), &ok));
  MatType t;
  PetscCall(MatGetType(B, &t));
  PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: type is %s", where.c_str(), t);
  PetscCall(PetscStrbeginswith(t, "mpi", &ok));
  if (ok) { // the blocks must be ours too, so that the local products run our kernels
    PetscCall(MatMPIAIJGetSeqAIJ(B, &Ad, &Ao, nullptr));
    for (Mat b : {Ad, Ao}) {
      PetscCall(PetscObjectTypeCompare((PetscObject)b, ("seqaij" + root).c_str(), &ok));
      PetscCall(MatGetType(b, &t));
      PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: a block is %s", where.c_str(), t);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// A DMDA 5-point operator assembled with values depending on `round` (a Newton step).
PetscErrorCode FillStencil(DM da, Mat A, PetscInt round)
{
  DMDALocalInfo info;
  PetscFunctionBegin;
  PetscCall(DMDAGetLocalInfo(da, &info));
  for (PetscInt j = info.ys; j < info.ys + info.ym; j++)
    for (PetscInt i = info.xs; i < info.xs + info.xm; i++) {
      MatStencil  row = {0, j, i, 0}, col[5];
      PetscScalar v[5];
      PetscInt    k = 0;
      const PetscScalar off = -1.0 - 0.1 * round - 0.01 * ((i + 2 * j) % 5);
      if (j > 0) { col[k] = {0, j - 1, i, 0}; v[k++] = off; }
      if (i > 0) { col[k] = {0, j, i - 1, 0}; v[k++] = off; }
      col[k] = row; v[k++] = 4.5 + round;
      if (i < info.mx - 1) { col[k] = {0, j, i + 1, 0}; v[k++] = off; }
      if (j < info.my - 1) { col[k] = {0, j + 1, i, 0}; v[k++] = off; }
      PetscCall(MatSetValuesStencil(A, 1, &row, k, col, v, INSERT_VALUES));
    }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

int main(int argc, char **argv)
{
  char root[64] = MATCSRSPEC;
  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, nullptr, nullptr));
  PetscCall(PetscGpuMatInitialize());
  PetscCall(PetscOptionsGetString(nullptr, nullptr, "-type", root, sizeof(root), nullptr));
  PetscCall(PetscOptionsGetString(nullptr, nullptr, "-vec_type", vectype, sizeof(vectype), &has_vectype));
  PetscCall(PetscOptionsGetReal(nullptr, nullptr, "-tol", &tol, nullptr));
  const std::string r(root);

  Mat A;
  PetscCall(Build(MATAIJ, Route::Prealloc, &A));
  const std::pair<Route, const char *> routes[] = {{Route::Prealloc, "MatMPIAIJSetPreallocation"}, {Route::Hash, "MatSetUp without preallocation"}, {Route::COO, "COO assembly"}};
  for (const auto &route : routes) {
    Mat B;
    PetscCall(Build(root, route.first, &B));
    PetscCall(ExpectOurs(B, r, route.second));
    PetscCall(Products(B, A, route.second));
    // values change, same pattern (refresh); then the same again after MatScale
    PetscCall(MatScale(A, 1.5));
    PetscCall(MatScale(B, 1.5));
    PetscCall(Products(B, A, std::string(route.second) + " after MatScale"));
    PetscCall(MatScale(A, 1 / 1.5));
    PetscCall(MatScale(B, 1 / 1.5));
    {
      Mat D;
      PetscCall(MatDuplicate(B, MAT_COPY_VALUES, &D));
      PetscCall(ExpectOurs(D, r, std::string(route.second) + " MatDuplicate"));
      PetscCall(Products(D, A, std::string(route.second) + " MatDuplicate"));
      PetscCall(MatDestroy(&D));
    }
    PetscCall(MatDestroy(&B));
  }
  { // MatConvert both ways and MatSetType in place
    Mat B, C;
    PetscCall(MatConvert(A, root, MAT_INITIAL_MATRIX, &B));
    PetscCall(ExpectOurs(B, r, "MatConvert"));
    PetscCall(Products(B, A, "MatConvert from mpiaij"));
    PetscCall(MatConvert(B, MATAIJ, MAT_INPLACE_MATRIX, &B));
    PetscCall(Products(B, A, "MatConvert back to mpiaij"));
    PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &C));
    PetscCall(MatSetType(C, root));
    PetscCall(ExpectOurs(C, r, "MatSetType on an assembled mpiaij"));
    PetscCall(Products(C, A, "MatSetType on an assembled mpiaij"));
    PetscCall(MatDestroy(&B));
    PetscCall(MatDestroy(&C));
  }
  { // DM-created matrices, re-assembled every "Newton step"
    DM  da;
    Mat Ad, Bd;
    PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, 37, 29, PETSC_DECIDE, PETSC_DECIDE, 1, 1, nullptr, nullptr, &da));
    PetscCall(DMSetFromOptions(da));
    PetscCall(DMSetUp(da));
    PetscCall(DMSetMatType(da, MATAIJ));
    PetscCall(DMCreateMatrix(da, &Ad));
    PetscCall(DMSetMatType(da, root));
    PetscCall(DMCreateMatrix(da, &Bd));
    for (PetscInt round = 0; round < 3; round++) {
      PetscCall(FillStencil(da, Ad, round));
      PetscCall(FillStencil(da, Bd, round));
      PetscCall(ExpectOurs(Bd, r, "DMCreateMatrix"));
      PetscCall(Products(Bd, Ad, "DMDA matrix, assembly round " + std::to_string(round)));
    }
    PetscCall(MatDestroy(&Ad));
    PetscCall(MatDestroy(&Bd));
    PetscCall(DMDestroy(&da));
  }
  PetscCall(MatDestroy(&A));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "test_mpi: %s agrees with mpiaij in all %" PetscInt_FMT " checks\n", root, checks));
  PetscCall(PetscFinalize());
  return 0;
}
