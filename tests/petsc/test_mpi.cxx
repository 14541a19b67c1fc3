// MPI integration test of a petsc-gpumat type against MPIAIJ, on any number of ranks (1 to 4 in
// CTest). Each case is a global matrix (a function of global indices only, the same at every rank
// count) with a row and column layout:
//   default                          PETSc's split (PETSC_DECIDE) of a 900 x 700 matrix of varying
//                                    row lengths, empty rows and one long row
//   rank without rows                the same matrix; rank 1 owns no rows and no columns
//   uneven                           a square one; rank r owns a share proportional to (r+1)^2
//   off-diagonal >99% empty          a 40000-row band (|i-j| <= 2) with 5 long-range couplings:
//                                    over 99% of each rank's off-diagonal rows are empty (checked)
//   no off-diagonal entries on a rank  block diagonal, each rank owning whole blocks, plus one
//                                    coupling of row 0 to the last column (checked: rank 1's
//                                    off-diagonal block is empty, rank 0's holds one entry)
// For each case, assembly routes: MatMPIAIJSetPreallocation + MatSetValues, MatSetUp without
// preallocation (hash assembly), COO (MatSetPreallocationCOO + MatSetValuesCOO); then MatScale (a
// value refresh), MatDuplicate, MatConvert back to aij (in place and to a new matrix), the round
// trip aij -> the type under test, MatConvert from mpiaij and MatSetType on an assembled mpiaij.
// Every matrix is checked with the six products (MatMult, MatMultAdd, MatMultTranspose,
// MatMultTransposeAdd, MatMultHermitianTranspose, MatMultHermitianTransposeAdd; the Add ones with
// a separate z and in place) against MPIAIJ; outputs are poisoned first, inputs must be left
// untouched. Once, a DMDA matrix (-dm_mat_type route) re-assembled with new values three times,
// as a Newton solve does. Once, a new nonzero in one rank's off-diagonal block at a column it
// already has (RunNewNonzeroOnOneRank). Once, the PetscSF set-ups of the first products (RunSetUps).
//   -type <csrspec>   -tol <1e-12>   -vec_type <type> (default: the matrix's)
// Other options (-mat_gpumat_*, -mat_csrspec_*) reach the matrices through the options database.
#include "vec_check.hpp"
#include <petscgpumat.h>
#include <petscdmda.h>
#include <petsc/private/petscimpl.h> // use_gpu_aware_mpi: PETSc's choice, MPIAIJ's scatter's
#include <functional>
#include <string>
#include <vector>

namespace {

PetscReal tol = PetscDefined(USE_REAL_SINGLE) ? 1e-5 : 1e-12;
char      vectype[64];
PetscBool has_vectype = PETSC_FALSE;
PetscInt  checks      = 0;

using RowFn    = std::function<void(PetscInt, std::vector<PetscInt> &, std::vector<PetscScalar> &)>;
using LayoutFn = std::function<PetscErrorCode(PetscInt, PetscInt *)>; // global size -> local size on this rank
using CheckFn  = std::function<PetscErrorCode(Mat)>;                   // a property of the reference mpiaij

struct Case {
  std::string name;
  PetscInt    M, N;
  RowFn       row;
  LayoutFn    rows, cols;
  PetscBool   decide = PETSC_FALSE; // MatSetSizes with PETSC_DECIDE (`rows`/`cols` predict the split)
  CheckFn     check;                // may be empty
};

// Rows of varying length with empty rows and one long row, couplings across all ranks.
void VaryingRow(PetscInt N, PetscInt i, std::vector<PetscInt> &cols, std::vector<PetscScalar> &vals)
{
  cols.clear();
  vals.clear();
  if (i % 7 == 3) return; // empty rows
  PetscInt len = 1 + (i * 37) % 13;
  if (i == 450) len = 600; // one long row
  for (PetscInt k = 0; k < len; k++) {
    PetscInt c   = (i * 131 + k * 997) % N;
    bool     dup = false;
    for (PetscInt e : cols) dup |= e == c;
    if (dup) continue;
    cols.push_back(c);
    vals.push_back(1.0 + 0.001 * ((i + 3 * k) % 101) - (k % 2 ? 2.0 : 0.0));
  }
}

PetscErrorCode RankSize(PetscMPIInt *rank, PetscMPIInt *size)
{
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, size));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// A check that may fail on some ranks only: each failing rank prints its message, then all fail
// together (a rank failing alone would leave the others waiting in the next collective call).
PetscErrorCode CheckAllRanks(bool ok, const char *msg)
{
  PetscMPIInt rank;
  int         bad = ok ? 0 : 1;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (bad) PetscCall(PetscFPrintf(PETSC_COMM_SELF, PETSC_STDERR, "[%d] %s\n", rank, msg));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD));
  PetscCheck(!bad, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "a check failed on some rank: %s", ok ? "(see the failing ranks' messages above)" : msg);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DefaultLayout(PetscInt N, PetscInt *nlocal)
{
  PetscInt global = N;
  PetscFunctionBegin;
  *nlocal = PETSC_DECIDE;
  PetscCall(PetscSplitOwnership(PETSC_COMM_WORLD, nlocal, &global));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Rank 1 owns nothing, the others split N.
PetscErrorCode RankWithoutRows(PetscInt N, PetscInt *nlocal)
{
  PetscMPIInt rank, size;
  PetscFunctionBegin;
  PetscCall(RankSize(&rank, &size));
  if (size == 1) *nlocal = N;
  else {
    PetscInt others = size - 1, idx = rank == 0 ? 0 : rank - 1;
    *nlocal = rank == 1 ? 0 : N / others + (idx < N % others ? 1 : 0);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Rank r owns [N W(r) / W(size), N W(r+1) / W(size)) with W(r) = sum_{q<r} (q+1)^2.
PetscErrorCode Uneven(PetscInt N, PetscInt *nlocal)
{
  PetscMPIInt rank, size;
  PetscFunctionBegin;
  PetscCall(RankSize(&rank, &size));
  auto W = [](PetscInt r) { return r * (r + 1) * (2 * r + 1) / 6; };
  *nlocal = N * W(rank + 1) / W(size) - N * W(rank) / W(size);
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The block-diagonal case: 12 blocks of different sizes; rank r owns blocks [12 r / size, 12 (r+1) / size).
constexpr PetscInt nblocks = 12;
PetscInt           BlockStart(PetscInt b)
{
  PetscInt s = 0;
  for (PetscInt q = 0; q < b; q++) s += 40 + (q * 53) % 97;
  return s;
}
PetscErrorCode WholeBlocks(PetscInt N, PetscInt *nlocal)
{
  PetscMPIInt rank, size;
  PetscFunctionBegin;
  PetscCall(RankSize(&rank, &size));
  PetscCheck(N == BlockStart(nblocks), PETSC_COMM_SELF, PETSC_ERR_PLIB, "block layout of a matrix of the wrong size");
  *nlocal = BlockStart(nblocks * (rank + 1) / size) - BlockStart(nblocks * rank / size);
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Nonzeros of the off-diagonal block of a (reference) mpiaij on this rank: rows, empty rows, entries.
PetscErrorCode OffDiagonal(Mat A, PetscInt *rows, PetscInt *empty, PetscInt *nnz)
{
  Mat             Ao;
  const PetscInt *ia, *ja;
  PetscInt        n;
  PetscBool       done;
  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, nullptr, &Ao, nullptr));
  PetscCall(MatGetRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatGetRowIJ on the off-diagonal block failed");
  *rows  = n;
  *empty = 0;
  for (PetscInt i = 0; i < n; i++) *empty += ia[i + 1] == ia[i];
  *nnz = ia[n];
  PetscCall(MatRestoreRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

std::vector<Case> Cases()
{
  std::vector<Case> cs;
  const RowFn       varying900x700 = [](PetscInt i, std::vector<PetscInt> &c, std::vector<PetscScalar> &v) { VaryingRow(700, i, c, v); };
  cs.push_back({"default", 900, 700, varying900x700, DefaultLayout, DefaultLayout, PETSC_TRUE, {}});
  cs.push_back({"rank without rows", 900, 700, varying900x700, RankWithoutRows, RankWithoutRows, PETSC_FALSE, {}});
  cs.push_back({"uneven", 1000, 1000, [](PetscInt i, std::vector<PetscInt> &c, std::vector<PetscScalar> &v) { VaryingRow(1000, i, c, v); }, Uneven, Uneven, PETSC_FALSE, {}});
  {
    const PetscInt N = 40000;
    const RowFn    band = [N](PetscInt i, std::vector<PetscInt> &c, std::vector<PetscScalar> &v) {
      c.clear();
      v.clear();
      for (PetscInt j = PetscMax(i - 2, 0); j <= PetscMin(i + 2, N - 1); j++) {
        c.push_back(j);
        v.push_back(j == i ? 4.0 + 0.001 * (i % 13) : -1.0 - 0.01 * ((i + 2 * j) % 7));
      }
      for (PetscInt r : {3, 9001, 17777, 25000, 39998})
        if (i == r) {
          c.push_back((i + N / 2) % N);
          v.push_back(0.25 + 0.001 * (i % 10));
        }
    };
    const CheckFn mostly_empty = [](Mat A) {
      PetscMPIInt rank, size;
      PetscInt    rows, empty, nnz;
      PetscFunctionBegin;
      PetscCall(RankSize(&rank, &size));
      if (size == 1) PetscFunctionReturn(PETSC_SUCCESS);
      PetscCall(OffDiagonal(A, &rows, &empty, &nnz));
      PetscCall(PetscInfo(nullptr, "[%d] %" PetscInt_FMT " of %" PetscInt_FMT " off-diagonal rows empty, %" PetscInt_FMT " entries\n", rank, empty, rows, nnz));
      char msg[256];
      PetscCall(PetscSNPrintf(msg, sizeof(msg), "only %" PetscInt_FMT " of %" PetscInt_FMT " off-diagonal rows are empty, the case needs over 99%%", empty, rows));
      PetscCall(CheckAllRanks(rows == 0 || empty > 0.99 * rows, msg));
      PetscFunctionReturn(PETSC_SUCCESS);
    };
    cs.push_back({"off-diagonal >99% empty", N, N, band, DefaultLayout, DefaultLayout, PETSC_FALSE, mostly_empty});
  }
  {
    const PetscInt N = BlockStart(nblocks);
    const RowFn    blocks = [N](PetscInt i, std::vector<PetscInt> &c, std::vector<PetscScalar> &v) {
      c.clear();
      v.clear();
      PetscInt b = 0;
      while (BlockStart(b + 1) <= i) b++;
      const PetscInt lo = BlockStart(b), hi = BlockStart(b + 1);
      if (i % 11 != 5) { // empty rows
        for (PetscInt j = PetscMax(i - 3, lo); j <= PetscMin(i + 3, hi - 1); j++) {
          c.push_back(j);
          v.push_back(j == i ? 8.0 + 0.01 * (i % 9) : 0.5 - 0.1 * ((i + j) % 6));
        }
        PetscInt far = lo + (i * 17) % (hi - lo); // a coupling farther inside the block
        if (far < i - 3 || far > i + 3) {
          c.push_back(far);
          v.push_back(-0.3);
        }
      }
      if (i == 0) { // the one coupling out of rank 0's columns (when there are several ranks)
        c.push_back(N - 1);
        v.push_back(0.7);
      }
    };
    const CheckFn no_offdiag = [](Mat A) {
      PetscMPIInt rank, size;
      PetscInt    rows, empty, nnz;
      PetscFunctionBegin;
      PetscCall(RankSize(&rank, &size));
      if (size == 1) PetscFunctionReturn(PETSC_SUCCESS);
      PetscCall(OffDiagonal(A, &rows, &empty, &nnz));
      PetscCall(PetscInfo(nullptr, "[%d] the off-diagonal block holds %" PetscInt_FMT " entries in %" PetscInt_FMT " rows\n", rank, nnz, rows));
      char msg[256];
      PetscCall(PetscSNPrintf(msg, sizeof(msg), "the off-diagonal block holds %" PetscInt_FMT " entries, expected %d", nnz, rank == 0 ? 1 : 0));
      PetscCall(CheckAllRanks(nnz == (rank == 0 ? 1 : 0), msg));
      PetscFunctionReturn(PETSC_SUCCESS);
    };
    cs.push_back({"no off-diagonal entries on a rank", N, N, blocks, WholeBlocks, WholeBlocks, PETSC_FALSE, no_offdiag});
  }
  return cs;
}

enum class Route { Prealloc, Hash, COO };

PetscErrorCode Build(const Case &c, MatType type, bool from_options, Route route, Mat *A)
{
  PetscInt                 m, n, rstart, rend, cstart, cend;
  std::vector<PetscInt>    cols;
  std::vector<PetscScalar> vals;
  PetscFunctionBegin;
  PetscCall(c.rows(c.M, &m));
  PetscCall(c.cols(c.N, &n));
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, c.decide ? PETSC_DECIDE : m, c.decide ? PETSC_DECIDE : n, c.M, c.N));
  PetscCall(MatSetType(*A, type));
  if (from_options) PetscCall(MatSetFromOptions(*A));
  PetscCallMPI(MPI_Scan(&m, &rend, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  rstart = rend - m;
  PetscCallMPI(MPI_Scan(&n, &cend, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  cstart = cend - n;
  if (route == Route::Prealloc) {
    std::vector<PetscInt> dnnz(m), onnz(m);
    for (PetscInt i = rstart; i < rend; i++) {
      c.row(i, cols, vals);
      for (PetscInt j : cols) (j >= cstart && j < cend ? dnnz : onnz)[i - rstart]++;
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
      c.row(i, cols, vals);
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
      c.row(i, cols, vals);
      if (!cols.empty()) PetscCall(MatSetValues(*A, 1, &i, (PetscInt)cols.size(), cols.data(), vals.data(), INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  }
  { // the layout is the one the case means
    PetscInt lo, hi, clo, chi;
    PetscCall(MatGetOwnershipRange(*A, &lo, &hi));
    PetscCall(MatGetOwnershipRangeColumn(*A, &clo, &chi));
    char msg[512];
    PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s: rows [%" PetscInt_FMT ", %" PetscInt_FMT ") columns [%" PetscInt_FMT ", %" PetscInt_FMT "), expected rows [%" PetscInt_FMT ", %" PetscInt_FMT ") columns [%" PetscInt_FMT ", %" PetscInt_FMT ")", c.name.c_str(), lo, hi, clo, chi, rstart, rend, cstart, cend));
    PetscCall(CheckAllRanks(lo == rstart && hi == rend && clo == cstart && chi == cend, msg));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Fill(Vec v, PetscInt seed) { return vec_check::Fill(v, seed); }

PetscErrorCode Expect(Vec got, Vec ref, const std::string &what) { return vec_check::Expect(got, ref, tol, what, "MPIAIJ", &checks); }

// y = A x, y = z + A x and, in place, y = y + A x with B's vectors x, z, y against the reference
// A's with rx, rz (x and z hold their values; ry is overwritten)
PetscErrorCode Forward(Mat B, Mat A, Vec x, Vec z, Vec y, Vec rx, Vec rz, Vec ry, const std::string &where)
{
  PetscFunctionBegin;
  PetscCall(MatMult(A, rx, ry));
  PetscCall(VecSet(y, PETSC_MAX_REAL));
  PetscCall(MatMult(B, x, y));
  PetscCall(Expect(y, ry, where + ": MatMult"));
  PetscCall(MatMultAdd(A, rx, rz, ry));
  PetscCall(VecSet(y, PETSC_MAX_REAL));
  PetscCall(MatMultAdd(B, x, z, y));
  PetscCall(Expect(y, ry, where + ": MatMultAdd"));
  PetscCall(VecCopy(rz, y));
  PetscCall(MatMultAdd(B, x, y, y));
  PetscCall(Expect(y, ry, where + ": MatMultAdd in place"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The six products of B against those of the reference A (same global matrix and layout).
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

  PetscCall(Forward(B, A, x, z, y, rx, rz, ry, where));
  // y = A^T x and y = A^H x; y = z + A^T x and y = z + A^H x, then in place
  const struct {
    PetscErrorCode (*mult)(Mat, Vec, Vec);
    PetscErrorCode (*multadd)(Mat, Vec, Vec, Vec);
    const char *name;
  } transposes[] = {{MatMultTranspose, MatMultTransposeAdd, "MatMultTranspose"}, {MatMultHermitianTranspose, MatMultHermitianTransposeAdd, "MatMultHermitianTranspose"}};
  for (const auto &t : transposes) {
    const std::string name(t.name);
    PetscCall(t.mult(A, rxt, ryt));
    PetscCall(VecSet(yt, PETSC_MAX_REAL));
    PetscCall(t.mult(B, xt, yt));
    PetscCall(Expect(yt, ryt, where + ": " + name));
    PetscCall(t.multadd(A, rxt, rzt, ryt));
    PetscCall(VecSet(yt, PETSC_MAX_REAL));
    PetscCall(t.multadd(B, xt, zt, yt));
    PetscCall(Expect(yt, ryt, where + ": " + name + "Add"));
    PetscCall(VecCopy(rzt, yt));
    PetscCall(t.multadd(B, xt, yt, yt));
    PetscCall(Expect(yt, ryt, where + ": " + name + "Add in place"));
  }

  // Mixed vectors: x of the matrix's own vector type (CUDA on a CUDA build) with y and z of the
  // reference's (host), and the other way round, as a multigrid level's prolongator meets a KSP's
  // host vectors (MatInterpolateAdd); the products must run where both sides can be read
  {
    Vec own_x, own_y, own_z, host_x, host_y, host_z;
    PetscCall(MatCreateVecs(B, &own_x, &own_y));
    PetscCall(VecDuplicate(own_y, &own_z));
    PetscCall(VecDuplicate(rx, &host_x));
    PetscCall(VecDuplicate(ry, &host_y));
    PetscCall(VecDuplicate(rz, &host_z));
    PetscCall(VecCopy(rx, own_x));
    PetscCall(VecCopy(rx, host_x));
    PetscCall(VecCopy(rz, own_z));
    PetscCall(VecCopy(rz, host_z));
    PetscCall(Forward(B, A, own_x, host_z, host_y, rx, rz, ry, where + " (x the matrix's vector type, z and y host vectors)"));
    PetscCall(Forward(B, A, host_x, own_z, own_y, rx, rz, ry, where + " (x a host vector, z and y the matrix's vector type)"));
    for (Vec *v : {&own_x, &own_y, &own_z, &host_x, &host_y, &host_z}) PetscCall(VecDestroy(v));
  }

  // the products left their inputs alone
  PetscCall(Expect(x, rx, where + ": x unchanged by the products"));
  PetscCall(Expect(z, rz, where + ": z unchanged by the products"));
  PetscCall(Expect(xt, rxt, where + ": x unchanged by the transposed products"));
  PetscCall(Expect(zt, rzt, where + ": z unchanged by the transposed products"));
  for (Vec *v : {&x, &y, &z, &xt, &yt, &zt, &rx, &ry, &rz, &rxt, &ryt, &rzt}) PetscCall(VecDestroy(v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// B is the type under test (mpiaij<root> with blocks seqaij<root>, or seqaij<root> on one rank).
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

// B was converted back: plain mpiaij with seqaij blocks (seqaij on one rank).
PetscErrorCode ExpectAIJ(Mat B, const std::string &where)
{
  PetscMPIInt size;
  MatType     t;
  PetscBool   ok;
  Mat         Ad, Ao;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(MatGetType(B, &t));
  PetscCall(PetscStrcmp(t, size > 1 ? MATMPIAIJ : MATSEQAIJ, &ok));
  PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: type is %s, not %s", where.c_str(), t, size > 1 ? MATMPIAIJ : MATSEQAIJ);
  if (size > 1) {
    PetscCall(MatMPIAIJGetSeqAIJ(B, &Ad, &Ao, nullptr));
    for (Mat b : {Ad, Ao}) {
      PetscCall(MatGetType(b, &t));
      PetscCall(PetscStrcmp(t, MATSEQAIJ, &ok));
      PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: a block is %s", where.c_str(), t);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Everything the file checks on one case.
PetscErrorCode RunCase(const Case &c, const char *root)
{
  const std::string r(root);
  Mat               A;
  PetscFunctionBegin;
  PetscCall(Build(c, MATAIJ, false, Route::Prealloc, &A));
  if (c.check) PetscCall(c.check(A));
  const std::pair<Route, const char *> routes[] = {{Route::Prealloc, "MatMPIAIJSetPreallocation"}, {Route::Hash, "MatSetUp without preallocation"}, {Route::COO, "COO assembly"}};
  for (const auto &route : routes) {
    const std::string w = c.name + ", " + route.second;
    Mat               B, D, E;
    PetscCall(Build(c, root, true, route.first, &B));
    PetscCall(ExpectOurs(B, r, w));
    PetscCall(Products(B, A, w));
    // values change, same pattern (refresh); then back
    PetscCall(MatScale(A, 1.5));
    PetscCall(MatScale(B, 1.5));
    PetscCall(Products(B, A, w + " after MatScale"));
    PetscCall(MatScale(A, 1 / 1.5));
    PetscCall(MatScale(B, 1 / 1.5));
    PetscCall(Products(B, A, w + " after MatScale back"));
    PetscCall(MatDuplicate(B, MAT_COPY_VALUES, &D));
    PetscCall(ExpectOurs(D, r, w + ", MatDuplicate"));
    PetscCall(Products(D, A, w + ", MatDuplicate"));
    // back to aij into a new matrix, then into the type under test again (round trip)
    PetscCall(MatConvert(D, MATAIJ, MAT_INITIAL_MATRIX, &E));
    PetscCall(ExpectOurs(D, r, w + ", MatDuplicate after MatConvert to a new aij"));
    PetscCall(ExpectAIJ(E, w + ", MatConvert to a new aij"));
    PetscCall(Products(E, A, w + ", MatConvert to a new aij"));
    PetscCall(Products(D, A, w + ", MatDuplicate after MatConvert to a new aij"));
    PetscCall(MatConvert(E, root, MAT_INPLACE_MATRIX, &E));
    PetscCall(ExpectOurs(E, r, w + ", round trip through aij"));
    PetscCall(Products(E, A, w + ", round trip through aij"));
    // back to aij in place
    PetscCall(MatConvert(B, MATAIJ, MAT_INPLACE_MATRIX, &B));
    PetscCall(ExpectAIJ(B, w + ", MatConvert back to aij in place"));
    PetscCall(Products(B, A, w + ", MatConvert back to aij in place"));
    // in place both ways on the duplicate
    PetscCall(MatConvert(D, MATAIJ, MAT_INPLACE_MATRIX, &D));
    PetscCall(ExpectAIJ(D, w + ", MatDuplicate converted back to aij in place"));
    PetscCall(MatConvert(D, root, MAT_INPLACE_MATRIX, &D));
    PetscCall(ExpectOurs(D, r, w + ", MatDuplicate in place round trip through aij"));
    PetscCall(Products(D, A, w + ", MatDuplicate in place round trip through aij"));
    PetscCall(MatDestroy(&B));
    PetscCall(MatDestroy(&D));
    PetscCall(MatDestroy(&E));
  }
  { // MatConvert from mpiaij and MatSetType on an assembled mpiaij
    Mat B, C;
    PetscCall(MatConvert(A, root, MAT_INITIAL_MATRIX, &B));
    PetscCall(ExpectOurs(B, r, c.name + ", MatConvert from mpiaij"));
    PetscCall(Products(B, A, c.name + ", MatConvert from mpiaij"));
    PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &C));
    PetscCall(MatSetType(C, root));
    PetscCall(ExpectOurs(C, r, c.name + ", MatSetType on an assembled mpiaij"));
    PetscCall(Products(C, A, c.name + ", MatSetType on an assembled mpiaij"));
    PetscCall(MatConvert(C, MATAIJ, MAT_INPLACE_MATRIX, &C));
    PetscCall(ExpectAIJ(C, c.name + ", MatSetType on an assembled mpiaij, converted back"));
    PetscCall(Products(C, A, c.name + ", MatSetType on an assembled mpiaij, converted back"));
    PetscCall(MatDestroy(&B));
    PetscCall(MatDestroy(&C));
  }
  PetscCall(MatDestroy(&A));
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
      MatStencil        row = {0, j, i, 0}, col[5];
      PetscScalar       v[5];
      PetscInt          k   = 0;
      const PetscScalar off = -1.0 - 0.1 * round - 0.01 * ((i + 2 * j) % 5);
      if (j > 0) {
        col[k] = {0, j - 1, i, 0};
        v[k++] = off;
      }
      if (i > 0) {
        col[k] = {0, j, i - 1, 0};
        v[k++] = off;
      }
      col[k] = row;
      v[k++] = 4.5 + round;
      if (i < info.mx - 1) {
        col[k] = {0, j, i + 1, 0};
        v[k++] = off;
      }
      if (j < info.my - 1) {
        col[k] = {0, j + 1, i, 0};
        v[k++] = off;
      }
      PetscCall(MatSetValuesStencil(A, 1, &row, k, col, v, INSERT_VALUES));
    }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// DM-created matrices, re-assembled every "Newton step"
PetscErrorCode RunDMDA(const char *root)
{
  const std::string r(root);
  DM                da;
  Mat               Ad, Bd;
  PetscFunctionBegin;
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
  PetscFunctionReturn(PETSC_SUCCESS);
}

// A new nonzero in one rank's off-diagonal block at a column that rank already has a ghost for
// (MPIAIJ neither disassembles nor tells the other ranks; only the MPI matrix's nonzero state,
// summed over the ranks at assembly, changes everywhere): every rank must rebuild the same
// collective objects, or the next product hangs.
PetscErrorCode RunNewNonzeroOnOneRank(const char *root)
{
  const std::string r(root);
  Mat               A, B;
  PetscMPIInt       rank, size;
  PetscInt          rstart, rend;
  PetscFunctionBegin;
  PetscCall(RankSize(&rank, &size));
  const PetscInt N = 12 * size;
  for (Mat *M : {&A, &B}) {
    PetscCall(MatCreate(PETSC_COMM_WORLD, M));
    PetscCall(MatSetSizes(*M, PETSC_DECIDE, PETSC_DECIDE, N, N));
    PetscCall(MatSetType(*M, M == &A ? MATAIJ : root));
    PetscCall(MatSeqAIJSetPreallocation(*M, 4, nullptr));
    PetscCall(MatMPIAIJSetPreallocation(*M, 4, nullptr, 2, nullptr));
    PetscCall(MatSetOption(*M, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE)); // assembly squeezed the spare room out
    PetscCall(MatGetOwnershipRange(*M, &rstart, &rend));
    for (PetscInt i = rstart; i < rend; i++)
      for (PetscInt j = PetscMax(i - 1, 0); j <= PetscMin(i + 1, N - 1); j++) PetscCall(MatSetValue(*M, i, j, i == j ? 4.0 : -1.0 - 0.01 * (i % 7), INSERT_VALUES));
    PetscCall(MatAssemblyBegin(*M, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*M, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(ExpectOurs(B, r, "tridiagonal"));
  PetscCall(Products(B, A, "tridiagonal"));
  for (Mat M : {A, B}) {
    // rank 0's row rend-2 gains column rend, whose ghost row rend-1 already brings (one rank:
    // column rend-4, a new nonzero of the diagonal block)
    if (rank == 0) PetscCall(MatSetValue(M, rend - 2, size > 1 ? rend : rend - 4, 0.5, INSERT_VALUES));
    PetscCall(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(ExpectOurs(B, r, "tridiagonal plus a nonzero on rank 0"));
  PetscCall(Products(B, A, "tridiagonal plus a new nonzero in rank 0's off-diagonal block at a column it already has"));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Our products set up no PetscSF of their own: the ghosts come through MPIAIJ's scatter
// (MatGetMultPetscSF) and, for CUDA vectors on the side stream, through messages planned from its
// graph. Only a device-buffer choice other than PETSc's (-mat_gpumat_gpu_aware_mpi against
// -use_gpu_aware_mpi, device vectors, several ranks) makes a scatter of ours: one set-up. With
// millions of ghosts each set-up takes seconds.
PetscErrorCode RunSetUps(const char *root)
{
  const std::string  r(root);
  Mat                A, B;
  Vec                x, y;
  PetscLogEvent      ev;
  PetscEventPerfInfo before, after;
  PetscBool          active, aware = use_gpu_aware_mpi;
  PetscMemType       mt;
  const PetscScalar *xa;
  PetscMPIInt        rank, size;
  PetscFunctionBegin;
  PetscCall(RankSize(&rank, &size));
  PetscCall(PetscLogIsActive(&active));
  if (!active) PetscCall(PetscLogDefaultBegin());
  PetscCall(PetscLogEventGetId("SFSetUp", &ev));
  PetscCall(Build(Cases()[0], MATAIJ, false, Route::Prealloc, &A));
  PetscCall(MatConvert(A, root, MAT_INITIAL_MATRIX, &B));
  PetscCall(ExpectOurs(B, r, "set-up count"));
  PetscCall(MatCreateVecs(B, &x, &y));
  if (has_vectype)
    for (Vec v : {x, y}) PetscCall(VecSetType(v, vectype));
  PetscCall(VecSet(x, 1.0));
  PetscCall(VecGetArrayReadAndMemType(x, &xa, &mt));
  PetscCall(VecRestoreArrayReadAndMemType(x, &xa));
  PetscCall(PetscOptionsGetBool(nullptr, nullptr, "-mat_gpumat_gpu_aware_mpi", &aware, nullptr));
  const PetscInt expect = size > 1 && PetscMemTypeDevice(mt) && aware != use_gpu_aware_mpi ? 1 : 0;
  for (int k = 0; k < 2; k++) {
    PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, ev, &before));
    PetscCall(MatMult(B, x, y));
    PetscCall(MatMultTranspose(B, y, x));
    PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, ev, &after));
    const PetscInt made = after.count - before.count, want = k ? 0 : expect;
    PetscCheck(made == want, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the %s products set up %" PetscInt_FMT " PetscSF, expected %" PetscInt_FMT " (device vectors: %d, -mat_gpumat_gpu_aware_mpi %d, PETSc's %d)", root, k ? "second" : "first", made, want, (int)PetscMemTypeDevice(mt), (int)aware, (int)use_gpu_aware_mpi);
    checks++;
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
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
  for (const Case &c : Cases()) {
    const PetscInt before = checks;
    PetscCall(RunCase(c, root));
    PetscCall(PetscInfo(nullptr, "case %s: %" PetscInt_FMT " checks\n", c.name.c_str(), checks - before));
  }
  PetscCall(RunDMDA(root));
  PetscCall(RunNewNonzeroOnOneRank(root));
  PetscCall(RunSetUps(root));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "test_mpi: %s agrees with mpiaij in all %" PetscInt_FMT " checks\n", root, checks));
  PetscCall(PetscFinalize());
  return 0;
}
