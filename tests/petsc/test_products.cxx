// Sequential integration test of a petsc-gpumat type against AIJ (and aijcusparse on a GPU):
// edge-case matrices x creation routes x the four products (in-place MatMultAdd included), value
// refreshes (MatSetValues, MatScale, MatShift, MatZeroEntries, MatCopy), a pattern change,
// MatDuplicate, MatConvert both ways, MatSetType in place, MatView ascii_info.
//   -type <csrspec>     the type under test
//   -vec_type <type>    vectors for the type under test (default: the matrix's, CUDA with a CUDA PETSc)
//   -check_cusparse     also compare MatMult with aijcusparse (GPU machine)
//   -tol <1e-12>        relative tolerance (max norm, relative to max |reference|)
#include <petscgpumat.h>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <unistd.h>
#include <random>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Entry {
  PetscInt    col;
  PetscScalar val;
};
using Rows = std::vector<std::vector<Entry>>;

struct Case {
  std::string name;
  PetscInt    m, n;
  Rows        rows;
};

Rows RandomRows(PetscInt m, PetscInt n, unsigned seed, const std::function<PetscInt(PetscInt, std::mt19937 &)> &length)
{
  std::mt19937                           g(seed);
  std::uniform_real_distribution<double> v(-1, 1);
  Rows                                   rows(m);
  for (PetscInt i = 0; i < m; i++) {
    PetscInt len = std::min(length(i, g), n);
    std::vector<char> used(n, 0);
    // a dense-ish row takes the first len columns shuffled; a sparse one random columns
    for (PetscInt k = 0; k < len; k++) {
      PetscInt c = (PetscInt)(g() % (unsigned)n);
      while (used[c]) c = (c + 1) % n;
      used[c] = 1;
      rows[i].push_back({c, v(g)});
    }
  }
  return rows;
}

std::vector<Case> Cases()
{
  std::vector<Case> cs;
  cs.push_back({"empty 5x5", 5, 5, Rows(5)});
  cs.push_back({"1x1", 1, 1, Rows{{{0, 3.0}}}});
  cs.push_back({"all rows empty but the last", 40, 40, Rows(40)});
  cs.back().rows[39] = {{0, 1.0}, {39, 2.0}};
  cs.push_back({"tall 300x7", 300, 7, RandomRows(300, 7, 1, [](PetscInt, std::mt19937 &g) { return (PetscInt)(g() % 5); })});
  cs.push_back({"wide 7x3000", 7, 3000, RandomRows(7, 3000, 2, [](PetscInt, std::mt19937 &g) { return (PetscInt)(g() % 1500); })});
  cs.push_back({"runs of empty rows", 3000, 3000, RandomRows(3000, 3000, 3, [](PetscInt i, std::mt19937 &g) { return (i / 100) % 3 == 1 ? 0 : (PetscInt)(g() % 9); })});
  // a third of the rows empty in one run: below the empty-row ratio, but a run long enough that
  // csrspec asks for the compressed form (WantsCompressedRows)
  cs.push_back({"one long run of empty rows", 30000, 30000, RandomRows(30000, 30000, 10, [](PetscInt i, std::mt19937 &g) { return i >= 10000 && i < 20000 ? 0 : 1 + (PetscInt)(g() % 8); })});
  cs.push_back({"leading and trailing empty rows", 2000, 2000, RandomRows(2000, 2000, 4, [](PetscInt i, std::mt19937 &g) { return (i < 300 || i >= 1700) ? 0 : 1 + (PetscInt)(g() % 6); })});
  cs.push_back({"one row holds most nonzeros", 3000, 6000, RandomRows(3000, 6000, 5, [](PetscInt i, std::mt19937 &g) { return i == 1234 ? 5500 : (PetscInt)(g() % 3); })});
  {
    Rows r = RandomRows(2500, 2500, 6, [](PetscInt, std::mt19937 &g) { return (PetscInt)(g() % 4); });
    for (auto &row : r) {
      bool has = false;
      for (auto &e : row) has |= e.col == 17;
      if (!has) row.push_back({17, 0.5});
    }
    cs.push_back({"one dense column", 2500, 2500, r});
  }
  cs.push_back({"rows longer than a tile", 400, 5000, RandomRows(400, 5000, 7, [](PetscInt, std::mt19937 &g) { return 300 + (PetscInt)(g() % 2700); })});
  // Rows of 256 and 512 entries: row ends fall exactly on the boundaries of every power-of-two tile.
  cs.push_back({"rows ending on tile boundaries", 600, 4096, RandomRows(600, 4096, 8, [](PetscInt i, std::mt19937 &) { return i % 2 ? (PetscInt)256 : (PetscInt)512; })});
  cs.push_back({"irregular with empty rows", 20000, 20000, RandomRows(20000, 20000, 9, [](PetscInt, std::mt19937 &g) {
                   unsigned u = g() % 100;
                   return u < 20 ? (PetscInt)0 : u < 95 ? (PetscInt)(1 + g() % 10) : (PetscInt)(50 + g() % 400);
                 })});
  return cs;
}

PetscErrorCode Assemble(const Case &c, MatType type, Mat *A)
{
  PetscFunctionBegin;
  std::vector<PetscInt> nnz(c.m);
  for (PetscInt i = 0; i < c.m; i++) nnz[i] = (PetscInt)c.rows[i].size();
  PetscCall(MatCreate(PETSC_COMM_SELF, A));
  PetscCall(MatSetSizes(*A, c.m, c.n, c.m, c.n));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSeqAIJSetPreallocation(*A, 0, nnz.data()));
  for (PetscInt i = 0; i < c.m; i++)
    for (const Entry &e : c.rows[i]) PetscCall(MatSetValue(*A, i, e.col, e.val, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode RandomVec(Vec v, unsigned seed)
{
  PetscScalar *a;
  PetscInt     n;
  PetscFunctionBegin;
  std::mt19937                           g(seed);
  std::uniform_real_distribution<double> u(0.5, 1.5); // never zero
  PetscCall(VecGetLocalSize(v, &n));
  PetscCall(VecGetArrayWrite(v, &a));
  for (PetscInt i = 0; i < n; i++) a[i] = (g() % 2 ? 1 : -1) * u(g);
  PetscCall(VecRestoreArrayWrite(v, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// max|a-b| / max(max|b|, 1e-300) through host arrays (vectors may be of different types)
PetscErrorCode RelDiff(Vec a, Vec b, PetscReal *d)
{
  const PetscScalar *pa, *pb;
  PetscInt           n;
  PetscReal          num = 0, den = 0;
  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(a, &n));
  PetscCall(VecGetArrayRead(a, &pa));
  PetscCall(VecGetArrayRead(b, &pb));
  for (PetscInt i = 0; i < n; i++) {
    if (PetscIsInfOrNanScalar(pa[i])) num = PETSC_INFINITY;
    num = PetscMax(num, PetscAbsScalar(pa[i] - pb[i]));
    den = PetscMax(den, PetscAbsScalar(pb[i]));
  }
  PetscCall(VecRestoreArrayRead(a, &pa));
  PetscCall(VecRestoreArrayRead(b, &pb));
  *d = num / PetscMax(den, 1e-300);
  PetscFunctionReturn(PETSC_SUCCESS);
}

struct Checker {
  PetscReal   tol;
  char        vectype[64];
  PetscBool   has_vectype;
  PetscInt    checks = 0;
  std::string where;

  // Vectors for B: of -vec_type if given, else B's default.
  PetscErrorCode Vecs(Mat B, Vec *x, Vec *y)
  {
    PetscFunctionBegin;
    PetscCall(MatCreateVecs(B, x, y));
    if (has_vectype) {
      PetscCall(VecSetType(*x, vectype));
      PetscCall(VecSetType(*y, vectype));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode Poison(Vec v)
  {
    PetscFunctionBegin;
    PetscCall(VecSet(v, PETSC_MAX_REAL)); // an unwritten entry fails the comparison
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode Expect(Vec got, Vec ref, const char *what)
  {
    PetscReal d;
    PetscFunctionBegin;
    PetscCall(RelDiff(got, ref, &d));
    checks++;
    PetscCheck(d <= tol, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %s differs from AIJ by %g (tolerance %g)", where.c_str(), what, (double)d, (double)tol);
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  // All four products of B against those of the AIJ matrix A (host vectors).
  PetscErrorCode Products(Mat B, Mat A)
  {
    Vec x, y, z, xt, yt, zt;    // B's vectors: x,z,y in the row/column spaces
    Vec rx, ry, rz, rxt, ryt, rzt; // reference (host)
    PetscFunctionBegin;
    PetscCall(Vecs(B, &x, &y));
    PetscCall(VecDuplicate(y, &z));
    PetscCall(Vecs(B, &yt, &xt)); // transpose: x in the row space, y in the column space
    PetscCall(VecDuplicate(yt, &zt));
    PetscCall(MatCreateVecs(A, &rx, &ry));
    PetscCall(VecDuplicate(ry, &rz));
    PetscCall(MatCreateVecs(A, &ryt, &rxt));
    PetscCall(VecDuplicate(ryt, &rzt));
    PetscCall(RandomVec(rx, 1));
    PetscCall(RandomVec(rz, 2));
    PetscCall(RandomVec(rxt, 3));
    PetscCall(RandomVec(rzt, 4));
    PetscCall(VecCopy(rx, x));
    PetscCall(VecCopy(rz, z));
    PetscCall(VecCopy(rxt, xt));
    PetscCall(VecCopy(rzt, zt));

    PetscCall(MatMult(A, rx, ry));
    PetscCall(Poison(y));
    PetscCall(MatMult(B, x, y));
    PetscCall(Expect(y, ry, "MatMult"));

    PetscCall(MatMultAdd(A, rx, rz, ry));
    PetscCall(Poison(y));
    PetscCall(MatMultAdd(B, x, z, y));
    PetscCall(Expect(y, ry, "MatMultAdd"));
    PetscCall(VecCopy(rz, y));
    PetscCall(MatMultAdd(B, x, y, y));
    PetscCall(Expect(y, ry, "MatMultAdd in place (y = y + A x)"));

    PetscCall(MatMultTranspose(A, rxt, ryt));
    PetscCall(Poison(yt));
    PetscCall(MatMultTranspose(B, xt, yt));
    PetscCall(Expect(yt, ryt, "MatMultTranspose"));

    PetscCall(MatMultTransposeAdd(A, rxt, rzt, ryt));
    PetscCall(Poison(yt));
    PetscCall(MatMultTransposeAdd(B, xt, zt, yt));
    PetscCall(Expect(yt, ryt, "MatMultTransposeAdd"));
    PetscCall(VecCopy(rzt, yt));
    PetscCall(MatMultTransposeAdd(B, xt, yt, yt));
    PetscCall(Expect(yt, ryt, "MatMultTransposeAdd in place"));

    // the same product twice gives the same bits (no atomics in the forward product): our kernels;
    // cuSPARSE's CSR SpMV (cusparsecsr, or gpuauto's choice of it) promises that only with ALG2,
    // its ALG1 (the default, as aijcusparse's) may sum a long row's parts in another order, so there
    // the two products agree within the tolerance
    {
      Vec         y2;
      PetscReal   d;
      const char *stored = nullptr;
      PetscCall(VecDuplicate(y, &y2));
      PetscCall(MatMult(B, x, y));
      PetscCall(MatMult(B, x, y2));
      PetscCall(RelDiff(y2, y, &d));
      PetscCall(MatGpuMatGetStoredAs(B, &stored, nullptr));
      const bool csr_alg1 = stored && !std::strcmp(stored, "cusparsecsr");
      PetscCheck(d == 0 || (csr_alg1 && d <= tol), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: two MatMult differ by %g", where.c_str(), (double)d);
      PetscCall(VecDestroy(&y2));
    }

    for (Vec *v : {&x, &y, &z, &xt, &yt, &zt, &rx, &ry, &rz, &rxt, &ryt, &rzt}) PetscCall(VecDestroy(v));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  // Apply the same change to A and B, then compare products.
  PetscErrorCode Change(Mat B, Mat A, const char *what, const std::function<PetscErrorCode(Mat)> &f)
  {
    std::string saved = where;
    PetscFunctionBegin;
    where += std::string(" after ") + what;
    PetscCall(f(A));
    PetscCall(f(B));
    PetscCall(Products(B, A));
    where = saved;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};

PetscErrorCode Assembled(Mat M)
{
  PetscFunctionBegin;
  PetscCall(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ExpectType(Mat B, const std::string &type, const std::string &where)
{
  PetscBool same;
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)B, type.c_str(), &same));
  MatType t;
  PetscCall(MatGetType(B, &t));
  PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: expected type %s, got %s", where.c_str(), type.c_str(), t);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ViewText(Mat B, std::string *text)
{
  PetscViewer v;
  char        name[PETSC_MAX_PATH_LEN] = "/tmp/gpumat-view-XXXXXX";
  PetscFunctionBegin;
  const int fd = mkstemp(name);
  PetscCheck(fd >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "mkstemp failed");
  close(fd);
  PetscCall(PetscViewerASCIIOpen(PETSC_COMM_SELF, name, &v));
  PetscCall(PetscViewerPushFormat(v, PETSC_VIEWER_ASCII_INFO));
  PetscCall(MatView(B, v));
  PetscCall(PetscViewerPopFormat(v));
  PetscCall(PetscViewerDestroy(&v));
  std::ifstream     in(name);
  std::stringstream ss;
  ss << in.rdbuf();
  std::remove(name);
  *text = ss.str();
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ExpectView(Mat B, const char *root, const std::string &where)
{
  std::string s;
  PetscFunctionBegin;
  PetscCall(ViewText(B, &s));
  const std::string want = std::string("petsc-gpumat ") + root;
  PetscCheck(s.find(want) != std::string::npos, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: MatView ascii_info lacks '%s':\n%s", where.c_str(), want.c_str(), s.c_str());
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Builds (host + device) and value refreshes of the format so far, from PETSc's log: the events
// <Root>Build and <Root>Refresh of every matrix of the type (the test looks at differences).
PetscErrorCode BuildCounts(const char *root, PetscInt *builds, PetscInt *refreshes)
{
  std::string        ev(root);
  PetscLogEvent      b, r;
  PetscEventPerfInfo ib, ir;
  PetscFunctionBegin;
  ev[0] = (char)std::toupper((unsigned char)ev[0]);
  PetscCall(PetscLogEventGetId((ev + "Build").c_str(), &b));
  PetscCall(PetscLogEventGetId((ev + "Refresh").c_str(), &r));
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, b, &ib));
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, r, &ir));
  *builds    = (PetscInt)ib.count;
  *refreshes = (PetscInt)ir.count;
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

int main(int argc, char **argv)
{
  char      root[64] = MATCSRSPEC;
  PetscBool check_cusparse = PETSC_FALSE;
  Checker   ck;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, nullptr, nullptr));
  PetscCall(PetscGpuMatInitialize());
  PetscCall(PetscLogDefaultBegin()); // the build/refresh counts come from the log
  ck.tol = PetscDefined(USE_REAL_SINGLE) ? 1e-5 : 1e-12;
  PetscCall(PetscOptionsGetString(nullptr, nullptr, "-type", root, sizeof(root), nullptr));
  PetscCall(PetscOptionsGetString(nullptr, nullptr, "-vec_type", ck.vectype, sizeof(ck.vectype), &ck.has_vectype));
  PetscCall(PetscOptionsGetReal(nullptr, nullptr, "-tol", &ck.tol, nullptr));
  PetscCall(PetscOptionsGetBool(nullptr, nullptr, "-check_cusparse", &check_cusparse, nullptr));
  const std::string seqtype = std::string("seqaij") + root;
  // Products run the format (and so build it) with CUDA vectors or the host reference kernel;
  // with host vectors they run PETSc's SeqAIJ kernels and build nothing.
  PetscBool host_reference = PETSC_FALSE, device_vectors = PETSC_FALSE;
  PetscCall(PetscOptionsGetBool(nullptr, nullptr, "-mat_gpumat_host_reference", &host_reference, nullptr));

  for (const Case &c : Cases()) {
    Mat A, B;
    PetscCall(Assemble(c, MATSEQAIJ, &A));

    // route 1: created as our type, preallocated, MatSetValues
    ck.where = c.name + " [MatSetType " + root + "]";
    PetscCall(Assemble(c, root, &B));
    PetscCall(ExpectType(B, seqtype, ck.where));
    PetscInt base_builds, base_refreshes, builds0, builds, refreshes0, refreshes;
    PetscCall(BuildCounts(root, &base_builds, &base_refreshes));
    PetscCall(ck.Products(B, A));
    PetscCall(ExpectView(B, root, ck.where));
    {
      Vec v, w;
      PetscCall(ck.Vecs(B, &v, &w));
      PetscCall(PetscObjectTypeCompareAny((PetscObject)v, &device_vectors, VECSEQCUDA, VECMPICUDA, ""));
      PetscCall(VecDestroy(&v));
      PetscCall(VecDestroy(&w));
    }
    const PetscInt expect_builds = host_reference || device_vectors ? 1 : 0;
    PetscCall(BuildCounts(root, &builds0, &refreshes0));
    builds0 -= base_builds;
    refreshes0 -= base_refreshes;
    PetscCheck(builds0 == expect_builds, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %" PetscInt_FMT " builds after the first products, expected %" PetscInt_FMT, ck.where.c_str(), builds0, expect_builds);
    if (c.m > 0 && c.rows[c.m / 2].size() > 0) {
      const PetscInt i = c.m / 2, j = c.rows[i][0].col;
      PetscCall(ck.Change(B, A, "MatSetValues (same pattern)", [&](Mat M) -> PetscErrorCode {
        PetscFunctionBegin;
        PetscCall(MatSetValue(M, i, j, 0.25, ADD_VALUES));
        PetscCall(Assembled(M));
        PetscFunctionReturn(PETSC_SUCCESS);
      }));
    }
    PetscCall(ck.Change(B, A, "MatScale", [](Mat M) { return MatScale(M, -2.5); }));
    PetscCall(BuildCounts(root, &builds, &refreshes));
    builds -= base_builds;
    refreshes -= base_refreshes;
    // new values, same pattern: refreshed (on the device), never built again
    PetscCheck(builds == builds0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: new values rebuilt the format (%" PetscInt_FMT " builds)", ck.where.c_str(), builds);
    PetscCheck(refreshes >= refreshes0 + expect_builds, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: new values were not refreshed (%" PetscInt_FMT " refreshes)", ck.where.c_str(), refreshes);
    MatInfo info0, info1;
    PetscCall(MatGetInfo(A, MAT_LOCAL, &info0));
    if (c.m == c.n) PetscCall(ck.Change(B, A, "MatShift", [](Mat M) { return MatShift(M, 1.5); }));
    PetscCall(ck.Change(B, A, "a new nonzero (pattern change)", [&](Mat M) -> PetscErrorCode {
      PetscFunctionBegin;
      PetscCall(MatSetOption(M, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE)); // MatShift may have reset it
      PetscCall(MatSetValue(M, c.m - 1, 0, 7.0, ADD_VALUES));
      PetscCall(MatSetValue(M, 0, c.n - 1, -3.0, ADD_VALUES));
      PetscCall(Assembled(M));
      PetscFunctionReturn(PETSC_SUCCESS);
    }));
    PetscCall(BuildCounts(root, &builds, &refreshes));
    builds -= base_builds;
    refreshes -= base_refreshes;
    PetscCall(MatGetInfo(A, MAT_LOCAL, &info1)); // MatShift and the new entries may add nonzeros
    PetscCheck(info1.nz_used == info0.nz_used || builds > builds0 || !expect_builds, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: a new nonzero pattern did not rebuild the format", ck.where.c_str());
    {
      PetscBool eq;
      PetscCall(MatEqual(A, B, &eq)); // the AIJ data underneath stays the truth
      PetscCheck(eq, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: MatEqual(aij, ours) is false", ck.where.c_str());
    }

    // route 2: MatDuplicate of ours, and MatCopy into it
    {
      Mat D;
      ck.where = c.name + " [MatDuplicate]";
      PetscCall(MatDuplicate(B, MAT_COPY_VALUES, &D));
      PetscCall(ExpectType(D, seqtype, ck.where));
      PetscCall(ck.Products(D, A));
      PetscCall(MatScale(A, 0.5));
      PetscCall(MatCopy(A, D, SAME_NONZERO_PATTERN));
      ck.where = c.name + " [MatCopy into ours]";
      PetscCall(ck.Products(D, A));
      PetscCall(MatDestroy(&D));
    }
    PetscCall(ck.Change(B, A, "MatZeroEntries", [](Mat M) { return MatZeroEntries(M); }));
    PetscCall(MatDestroy(&B));

    // route 3: MatConvert from aij, both reuse modes, and back
    {
      Mat C, E;
      PetscCall(MatDestroy(&A));
      PetscCall(Assemble(c, MATSEQAIJ, &A));
      ck.where = c.name + " [MatConvert aij -> " + root + "]";
      PetscCall(MatConvert(A, root, MAT_INITIAL_MATRIX, &C));
      PetscCall(ExpectType(C, seqtype, ck.where));
      PetscCall(ck.Products(C, A));
      PetscCall(MatConvert(C, MATAIJ, MAT_INITIAL_MATRIX, &E));
      ck.where = c.name + " [MatConvert back to aij]";
      PetscCall(ExpectType(E, MATSEQAIJ, ck.where));
      PetscCall(ck.Products(E, A));
      PetscCall(MatConvert(C, MATSEQAIJ, MAT_INPLACE_MATRIX, &C));
      PetscCall(ExpectType(C, MATSEQAIJ, ck.where + " in place"));
      PetscCall(ck.Products(C, A));
      PetscCall(MatDestroy(&C));
      PetscCall(MatDestroy(&E));
    }
    // route 4: MatSetType on an assembled aij converts in place
    {
      Mat C;
      PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &C));
      PetscCall(MatSetType(C, root));
      ck.where = c.name + " [MatSetType on assembled aij]";
      PetscCall(ExpectType(C, seqtype, ck.where));
      PetscCall(ck.Products(C, A));
      PetscCall(MatDestroy(&C));
    }
#if defined(PETSC_HAVE_CUDA)
    // route 5: from aijcusparse, and agreement of MatMult with aijcusparse on the GPU
    if (check_cusparse) {
      Mat       S, C;
      Vec       x, ys, yc;
      PetscReal d;
      PetscCall(MatConvert(A, MATAIJCUSPARSE, MAT_INITIAL_MATRIX, &S));
      PetscCall(MatConvert(S, root, MAT_INITIAL_MATRIX, &C));
      ck.where = c.name + " [MatConvert aijcusparse -> " + root + "]";
      PetscCall(ExpectType(C, seqtype, ck.where));
      PetscCall(ck.Products(C, A));
      PetscCall(MatCreateVecs(S, &x, &ys));
      PetscCall(VecDuplicate(ys, &yc));
      PetscCall(RandomVec(x, 11));
      PetscCall(MatMult(S, x, ys));
      PetscCall(MatMult(C, x, yc));
      PetscCall(RelDiff(yc, ys, &d));
      PetscCheck(d <= ck.tol, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: differs from aijcusparse by %g", ck.where.c_str(), (double)d);
      for (Vec *v : {&x, &ys, &yc}) PetscCall(VecDestroy(v));
      PetscCall(MatDestroy(&S));
      PetscCall(MatDestroy(&C));
    }
#endif
    PetscCall(MatDestroy(&A));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "test_products: %s agrees with aij in all %" PetscInt_FMT " checks\n", root, ck.checks));
  PetscCall(PetscFinalize());
  return 0;
}
