// COO assembly (MatSetPreallocationCOO + MatSetValuesCOO) of a petsc-gpumat type against AIJ
// assembled from the same COO arrays, on any number of ranks (a seq type on one rank, the MPI type
// on several). Each rank's COO array holds its share of a global matrix's nonzeros with repeats
// (an entry's value split over up to 3 copies), ignored entries (a negative row or column, with a
// huge value) and, on several ranks, entries of rows another rank owns; in a shuffled order.
// Cases: a square matrix of varying row lengths with empty rows and one long row; a rectangular
// one; a 20000-row band with a few far couplings (its off-diagonal blocks are compressed); rank 1
// owning no rows (several ranks). Per case four assemblies: INSERT_VALUES, INSERT_VALUES, ADD_VALUES,
// INSERT_VALUES, each checked with MatMult, MatMultAdd and MatMultTranspose against AIJ; the format
// built once (its Build events) and refreshed after; MatZeroEntries then ADD_VALUES (with device
// values on one rank no host<->device copy); then the host readers: MatGetDiagonal,
// MatGetRow, MatConvert to aij, MatView (the numbers of its text), host products, and a KSP
// (GMRES + ILU on one rank, block Jacobi + ILU on several) with AIJ's iterations.
//   -type <csrspec>    the type under test
//   -values <host|device>  where the values given to MatSetValuesCOO live (device: a CUDA vector's
//                      array, CUDA PETSc): with device values, on one rank the value updates and
//                      the products after them make no host<->device copy, and no rank copies more
//                      than aijcusparse assembled and multiplied the same way (MPI's staging)
//   -vec_type <type>   vectors for the type under test (default: the matrix's)
//   -tol <1e-12>       relative tolerance
//   -ignore_off_proc   MAT_IGNORE_OFF_PROC_ENTRIES on both matrices: entries of other ranks' rows dropped
//   -misuse <none|no_preallocation|pattern_changed>  a misuse that must fail with a clear error
#include "vec_check.hpp"
#include <petscgpumat.h>
#include <petscksp.h>
#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

PetscReal   tol = PetscDefined(USE_REAL_SINGLE) ? 1e-5 : 1e-12;
char        vectype[64];
PetscBool   has_vectype = PETSC_FALSE, device_values = PETSC_FALSE, ignore_off_proc = PETSC_FALSE;
PetscInt    checks      = 0;
PetscMPIInt rank, size;

using RowFn    = std::function<void(PetscInt, std::vector<PetscInt> &)>; // the columns of global row i
using LayoutFn = std::function<PetscInt(PetscInt)>;                      // global size -> this rank's share

struct Case {
  std::string name;
  PetscInt    M, N;
  RowFn       row;
  LayoutFn    rows, cols;
};

PetscInt Split(PetscInt N)
{
  return N / size + (rank < N % size ? 1 : 0);
}
PetscInt SplitWithoutRank1(PetscInt N) // rank 1 owns nothing
{
  if (size == 1) return N;
  const PetscInt others = size - 1, idx = rank == 0 ? 0 : rank - 1;
  return rank == 1 ? 0 : N / others + (idx < N % others ? 1 : 0);
}

std::uint64_t Hash(std::uint64_t a, std::uint64_t b = 0, std::uint64_t c = 0)
{
  std::uint64_t h = 1469598103934665603ull;
  for (std::uint64_t x : {a, b, c}) {
    h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 1099511628211ull;
  }
  return h;
}

// Varying rows with one long row; empty rows in a rectangular matrix, rows of the diagonal alone
// in a square one (which has its diagonal in every row: ILU needs it).
void VaryingRow(PetscInt M, PetscInt N, PetscInt i, std::vector<PetscInt> &cols)
{
  cols.clear();
  if (M == N) cols.push_back(i);
  if (i % 7 == 3) return;
  PetscInt len = 1 + (i * 37) % 13;
  if (i == M / 2) len = PetscMin(600, N);
  for (PetscInt k = 0; k < len; k++) cols.push_back((i * 131 + k * 997) % N);
  std::sort(cols.begin(), cols.end());
  cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
}

std::vector<Case> Cases()
{
  std::vector<Case> cs;
  cs.push_back({"square 900", 900, 900, [](PetscInt i, std::vector<PetscInt> &c) { VaryingRow(900, 900, i, c); }, Split, Split});
  cs.push_back({"rectangular 700 x 1100", 700, 1100, [](PetscInt i, std::vector<PetscInt> &c) { VaryingRow(700, 1100, i, c); }, Split, Split});
  {
    const PetscInt N = 20000;
    cs.push_back({"band 20000 with far couplings", N, N,
                  [N](PetscInt i, std::vector<PetscInt> &c) {
                    c.clear();
                    for (PetscInt j = PetscMax(i - 2, 0); j <= PetscMin(i + 2, N - 1); j++) c.push_back(j);
                    if (i % 4001 == 17) c.push_back((i + N / 2) % N);
                    std::sort(c.begin(), c.end());
                  },
                  Split, Split});
  }
  if (size > 1) cs.push_back({"rank 1 without rows", 900, 900, [](PetscInt i, std::vector<PetscInt> &c) { VaryingRow(900, 900, i, c); }, SplitWithoutRank1, SplitWithoutRank1});
  return cs;
}

// One rank's COO array of a case: entries (i, j) with the nonzero's copy k of ncopies, or ignored.
struct Coo {
  std::vector<PetscInt> i, j;
  std::vector<int>      copy, ncopies; // copy < 0: an ignored entry
};

// The value of nonzero (i, j) at assembly `round` (diagonally dominant for square matrices).
PetscScalar Value(PetscInt i, PetscInt j, PetscInt round)
{
  if (i == j) return 40.0 + round;
  return -(0.5 + 0.001 * (PetscReal)((i * 7 + j * 13 + round * 5) % 97));
}
// The share of copy k of n: sums to 1 exactly.
PetscScalar Share(int k, int n)
{
  static const PetscScalar w[3][3] = {{1, 0, 0}, {0.25, 0.75, 0}, {0.5, 0.25, 0.25}};
  return w[n - 1][k];
}

// variant 1: another pattern (a fifth of the off-diagonal nonzeros left out, other ones' copies elsewhere)
PetscErrorCode MakeCoo(const Case &c, Coo *coo, int variant = 0)
{
  std::vector<PetscInt> counts(size), start(size + 1, 0), cols;
  const PetscInt        m = c.rows(c.M);
  PetscFunctionBegin;
  PetscCallMPI(MPI_Allgather(&m, 1, MPIU_INT, counts.data(), 1, MPIU_INT, PETSC_COMM_WORLD));
  for (PetscMPIInt r = 0; r < size; r++) start[r + 1] = start[r] + counts[r];
  PetscMPIInt owner = 0;
  for (PetscInt i = 0; i < c.M; i++) {
    while (i >= start[owner + 1]) owner++;
    c.row(i, cols);
    for (PetscInt j : cols) {
      if (variant && i != j && Hash(i, j, 99) % 5 == 0) continue;
      const int n = 1 + (int)(Hash(i, j) % 3);
      for (int k = 0; k < n; k++) {
        const std::uint64_t h    = Hash(i, j, k + 11 + 7 * variant);
        PetscMPIInt         mine = owner;
        if (size > 1 && h % 5 == 0 && i != j) mine = (owner + 1 + (PetscMPIInt)((h / 5) % (size - 1))) % size; // a remote entry (the diagonal stays: -ignore_off_proc keeps it)
        if (mine != rank) continue;
        coo->i.push_back(i);
        coo->j.push_back(j);
        coo->copy.push_back(k);
        coo->ncopies.push_back(n);
      }
    }
  }
  for (int k = 0; k < 5; k++) { // ignored: a negative row or column
    coo->i.push_back(k % 2 ? -1 : (PetscInt)(Hash(rank, k) % c.M));
    coo->j.push_back(k % 2 ? (PetscInt)(Hash(rank, k) % c.N) : -3);
    coo->copy.push_back(-1);
    coo->ncopies.push_back(0);
  }
  // shuffled
  std::vector<size_t> p(coo->i.size());
  for (size_t k = 0; k < p.size(); k++) p[k] = k;
  std::shuffle(p.begin(), p.end(), std::mt19937_64(77 + rank));
  Coo s;
  for (size_t k : p) {
    s.i.push_back(coo->i[k]);
    s.j.push_back(coo->j[k]);
    s.copy.push_back(coo->copy[k]);
    s.ncopies.push_back(coo->ncopies[k]);
  }
  *coo = s;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The COO values of a round: INSERT rounds the values, the ADD round a tenth of them.
std::vector<PetscScalar> Values(const Coo &coo, PetscInt round, bool add)
{
  std::vector<PetscScalar> v(coo.i.size());
  for (size_t k = 0; k < v.size(); k++) v[k] = coo.copy[k] < 0 ? 1e30 : (add ? 0.1 : 1.0) * Value(coo.i[k], coo.j[k], round) * Share(coo.copy[k], coo.ncopies[k]);
  return v;
}

PetscErrorCode Create(const Case &c, MatType type, const Coo &coo, Mat *A)
{
  std::vector<PetscInt> ci(coo.i), cj(coo.j); // the preallocation may change them
  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, c.rows(c.M), c.cols(c.N), c.M, c.N));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSetFromOptions(*A));
  if (ignore_off_proc) PetscCall(MatSetOption(*A, MAT_IGNORE_OFF_PROC_ENTRIES, PETSC_TRUE)); // other ranks' entries dropped
  PetscCall(MatSetPreallocationCOO(*A, (PetscCount)ci.size(), ci.data(), cj.data()));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The values of a round for the matrix under test: host, or a CUDA vector's device array (made
// current on the device here, so that MatSetValuesCOO reads it without a copy).
struct Values_ {
  std::vector<PetscScalar> host;
  Vec                      dev = nullptr;
};
PetscErrorCode Stage(const std::vector<PetscScalar> &v, Values_ *out)
{
  PetscFunctionBegin;
  out->host = v;
#if defined(PETSC_HAVE_CUDA)
  if (device_values) {
    PetscScalar       *a;
    const PetscScalar *d;
    PetscMemType       mt;
    PetscCall(VecCreate(PETSC_COMM_SELF, &out->dev));
    PetscCall(VecSetSizes(out->dev, (PetscInt)v.size(), (PetscInt)v.size()));
    PetscCall(VecSetType(out->dev, VECSEQCUDA));
    PetscCall(VecGetArrayWrite(out->dev, &a));
    for (size_t k = 0; k < v.size(); k++) a[k] = v[k];
    PetscCall(VecRestoreArrayWrite(out->dev, &a));
    PetscCall(VecGetArrayReadAndMemType(out->dev, &d, &mt)); // now on the device
    PetscCheck(v.empty() || PetscMemTypeDevice(mt), PETSC_COMM_SELF, PETSC_ERR_PLIB, "a CUDA vector's array is not on the device");
    PetscCall(VecRestoreArrayReadAndMemType(out->dev, &d));
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode SetValues(Mat B, Values_ *v, InsertMode mode)
{
  PetscFunctionBegin;
  if (v->dev) {
    const PetscScalar *d;
    PetscMemType       mt;
    PetscCall(VecGetArrayReadAndMemType(v->dev, &d, &mt));
    PetscCall(MatSetValuesCOO(B, d, mode));
    PetscCall(VecRestoreArrayReadAndMemType(v->dev, &d));
  } else PetscCall(MatSetValuesCOO(B, v->host.data(), mode));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Fill(Vec v, PetscInt seed) { return vec_check::Fill(v, seed); }

PetscErrorCode Expect(Vec got, Vec ref, const std::string &what) { return vec_check::Expect(got, ref, tol, what, "AIJ", &checks); }

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

// MatMult, MatMultAdd (in place), MatMultTranspose of B against A.
PetscErrorCode Products(Mat B, Mat A, const std::string &where)
{
  Vec x, y, xt, yt, rx, ry, rxt, ryt;
  PetscFunctionBegin;
  PetscCall(Vecs(B, &x, &y));
  PetscCall(Vecs(B, &yt, &xt));
  PetscCall(MatCreateVecs(A, &rx, &ry));
  PetscCall(MatCreateVecs(A, &ryt, &rxt));
  PetscCall(Fill(rx, 1));
  PetscCall(Fill(rxt, 2));
  PetscCall(VecCopy(rx, x));
  PetscCall(VecCopy(rxt, xt));
  PetscCall(MatMult(A, rx, ry));
  PetscCall(VecSet(y, PETSC_MAX_REAL));
  PetscCall(MatMult(B, x, y));
  PetscCall(Expect(y, ry, where + ": MatMult"));
  PetscCall(MatMultAdd(A, rx, ry, ry));
  PetscCall(MatMultAdd(B, x, y, y));
  PetscCall(Expect(y, ry, where + ": MatMultAdd in place"));
  PetscCall(MatMultTranspose(A, rxt, ryt));
  PetscCall(VecSet(yt, PETSC_MAX_REAL));
  PetscCall(MatMultTranspose(B, xt, yt));
  PetscCall(Expect(yt, ryt, where + ": MatMultTranspose"));
  for (Vec *v : {&x, &y, &xt, &yt, &rx, &ry, &rxt, &ryt}) PetscCall(VecDestroy(v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

std::vector<PetscLogStage> update_stages; // the stages of UpdateCopies: their events count too

// The format's Build and Refresh events so far (in the main stage and UpdateCopies'), summed over the ranks.
PetscErrorCode BuildCounts(const char *root, PetscInt *builds, PetscInt *refreshes)
{
  std::string   ev(root);
  PetscLogEvent b, r;
  PetscInt      n[2] = {0, 0};
  PetscFunctionBegin;
  ev[0] = (char)std::toupper((unsigned char)ev[0]);
  PetscCall(PetscLogEventGetId((ev + "Build").c_str(), &b));
  PetscCall(PetscLogEventGetId((ev + "Refresh").c_str(), &r));
  std::vector<PetscLogStage> stages(update_stages);
  stages.push_back(0); // the main stage
  for (PetscLogStage st : stages) {
    PetscEventPerfInfo ib, ir;
    PetscCall(PetscLogEventGetPerfInfo(st, b, &ib));
    PetscCall(PetscLogEventGetPerfInfo(st, r, &ir));
    n[0] += ib.count;
    n[1] += ir.count;
  }
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, n, 2, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  *builds    = n[0];
  *refreshes = n[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
// A value update (with `zero`, MatZeroEntries first) and one device product in a log stage of its
// own: its host<->device copies, maxima over the ranks (count and bytes each way).
PetscErrorCode UpdateCopies(Mat B, Values_ *v, InsertMode mode, const char *name, double copies[4], bool zero = false)
{
  static int         stages = 0;
  PetscLogStage      stage;
  PetscEventPerfInfo info;
  Vec                x, y;
  PetscFunctionBegin;
  PetscCall(MatCreateVecs(B, &x, &y)); // the matrix's vectors: CUDA ones
  PetscCall(VecSet(x, 1.0));
  PetscCall(VecSet(y, 0.0));
  PetscCall(PetscLogStageRegister((std::string(name) + " " + std::to_string(stages++)).c_str(), &stage));
  update_stages.push_back(stage);
  PetscCall(PetscLogStagePush(stage));
  if (zero) PetscCall(MatZeroEntries(B));
  PetscCall(SetValues(B, v, mode));
  PetscCall(MatMult(B, x, y));
  PetscCall(PetscLogStagePop());
  PetscCall(PetscLogStageGetPerfInfo(stage, &info));
  copies[0] = info.CpuToGpuCount;
  copies[1] = info.GpuToCpuCount;
  copies[2] = info.CpuToGpuSize;
  copies[3] = info.GpuToCpuSize;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, copies, 4, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

// The numbers in MatView's default text of M (rank 0 prints it).
PetscErrorCode ViewNumbers(Mat M, std::vector<double> *nums)
{
  PetscViewer v;
  char        name[PETSC_MAX_PATH_LEN] = "/tmp/gpumat-coo-view-XXXXXX";
  PetscFunctionBegin;
  if (rank == 0) {
    const int fd = mkstemp(name);
    PetscCheck(fd >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "mkstemp failed");
    close(fd);
  }
  PetscCallMPI(MPI_Bcast(name, sizeof(name), MPI_CHAR, 0, PETSC_COMM_WORLD));
  PetscCall(PetscViewerASCIIOpen(PETSC_COMM_WORLD, name, &v));
  PetscCall(MatView(M, v));
  PetscCall(PetscViewerDestroy(&v));
  nums->clear();
  if (rank == 0) {
    std::ifstream in(name);
    std::string   text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (char &ch : text)
      if (!(std::isdigit((unsigned char)ch) || ch == '.' || ch == '-' || ch == 'e' || ch == '+')) ch = ' ';
    std::istringstream ss(text);
    std::string        w;
    while (ss >> w) {
      char        *end;
      const double x = std::strtod(w.c_str(), &end);
      if (end != w.c_str()) nums->push_back(x);
    }
    std::remove(name);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Whether PETSc's value accessors are hooked on each of B's sequential blocks on this rank.
PetscErrorCode BlocksHooked(Mat B, bool *all)
{
  MatGpuMatInfo d, o;
  PetscBool     mpi;
  PetscFunctionBegin;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)B, MATMPIAIJ, &mpi));
  PetscCall(MatGpuMatGetInfo(B, MAT_GPUMAT_DIAGONAL_BLOCK, &d));
  PetscCall(MatGpuMatGetInfo(B, MAT_GPUMAT_OFFDIAGONAL_BLOCK, &o));
  *all = d.values_hooked && (!mpi || o.values_hooked);
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The host readers of B's values (after its last assembly) against A.
PetscErrorCode HostReaders(const Case &c, Mat B, Mat A, const std::string &w)
{
  PetscFunctionBegin;
  if (c.M == c.N) { // MatGetDiagonal into a host vector and into B's own
    Vec dA, dB, dh;
    PetscCall(MatCreateVecs(A, nullptr, &dA));
    PetscCall(MatCreateVecs(B, nullptr, &dB));
    PetscCall(VecDuplicate(dA, &dh));
    PetscCall(MatGetDiagonal(A, dA));
    PetscCall(MatGetDiagonal(B, dB));
    PetscCall(Expect(dB, dA, w + ": MatGetDiagonal"));
    PetscCall(MatGetDiagonal(B, dh));
    PetscCall(Expect(dh, dA, w + ": MatGetDiagonal into a host vector"));
    for (Vec *v : {&dA, &dB, &dh}) PetscCall(VecDestroy(v));
  }
  { // MatGetRow
    PetscInt  lo, hi;
    PetscReal err = 0, big = 0;
    PetscCall(MatGetOwnershipRange(A, &lo, &hi));
    for (PetscInt i = lo; i < hi; i++) {
      PetscInt           na, nb;
      const PetscInt    *ja, *jb;
      const PetscScalar *va, *vb;
      PetscCall(MatGetRow(A, i, &na, &ja, &va));
      PetscCall(MatGetRow(B, i, &nb, &jb, &vb));
      PetscCheck(na == nb, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: MatGetRow %" PetscInt_FMT ": %" PetscInt_FMT " entries, AIJ %" PetscInt_FMT, w.c_str(), i, nb, na);
      for (PetscInt k = 0; k < na; k++) {
        PetscCheck(ja[k] == jb[k], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: MatGetRow %" PetscInt_FMT ": column %" PetscInt_FMT ", AIJ %" PetscInt_FMT, w.c_str(), i, jb[k], ja[k]);
        err = PetscMax(err, PetscAbsScalar(va[k] - vb[k]));
        big = PetscMax(big, PetscAbsScalar(va[k]));
      }
      PetscCall(MatRestoreRow(B, i, &nb, &jb, &vb));
      PetscCall(MatRestoreRow(A, i, &na, &ja, &va));
    }
    PetscCheck(err <= tol * PetscMax(big, 1e-300), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: MatGetRow values differ from AIJ by %g", w.c_str(), (double)err);
    checks++;
  }
  { // MatConvert to aij, compared entry by entry
    Mat       C;
    PetscReal nd, na;
    PetscCall(MatConvert(B, MATAIJ, MAT_INITIAL_MATRIX, &C));
    PetscCall(MatAXPY(C, -1.0, A, SAME_NONZERO_PATTERN));
    PetscCall(MatNorm(C, NORM_INFINITY, &nd));
    PetscCall(MatNorm(A, NORM_INFINITY, &na));
    PetscCheck(nd <= tol * na, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: MatConvert to aij differs from AIJ by %g", w.c_str(), (double)(nd / na));
    checks++;
    PetscCall(MatDestroy(&C));
  }
  if (c.M <= 1000) { // MatView's text: the same numbers
    std::vector<double> a, b;
    PetscCall(ViewNumbers(A, &a));
    PetscCall(ViewNumbers(B, &b));
    if (rank == 0) {
      PetscCheck(a.size() == b.size(), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: MatView prints %zu numbers, AIJ %zu", w.c_str(), b.size(), a.size());
      for (size_t k = 0; k < a.size(); k++) PetscCheck(PetscAbsReal(a[k] - b[k]) <= 1e-4 * PetscMax(1.0, PetscAbsReal(a[k])), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: MatView's number %zu is %g, AIJ's %g", w.c_str(), k, b[k], a[k]);
    }
    checks++;
  }
  { // host products (PETSc's kernels, or the format's host reference)
    Vec x, y, rx, ry;
    PetscCall(MatCreateVecs(A, &rx, &ry));
    PetscCall(VecDuplicate(rx, &x));
    PetscCall(VecDuplicate(ry, &y));
    PetscCall(Fill(rx, 5));
    PetscCall(VecCopy(rx, x));
    PetscCall(MatMult(A, rx, ry));
    PetscCall(MatMult(B, x, y));
    PetscCall(Expect(y, ry, w + ": MatMult with host vectors"));
    for (Vec *v : {&x, &y, &rx, &ry}) PetscCall(VecDestroy(v));
  }
  if (c.M == c.N) { // a preconditioned solve: ILU reads the values on the host
    PetscInt its[2];
    Vec      sol[2];
    Mat      ops[2] = {A, B};
    for (int k = 0; k < 2; k++) {
      KSP ksp;
      PC  pc;
      Vec b;
      PetscCall(MatCreateVecs(ops[k], &sol[k], &b));
      if (k == 1 && has_vectype) {
        PetscCall(VecSetType(sol[k], vectype));
        PetscCall(VecSetType(b, vectype));
      }
      PetscCall(VecSet(b, 1.0));
      PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
      PetscCall(KSPSetOperators(ksp, ops[k], ops[k]));
      PetscCall(KSPSetType(ksp, KSPGMRES));
      PetscCall(KSPGetPC(ksp, &pc));
      PetscCall(PCSetType(pc, size == 1 ? PCILU : PCBJACOBI));
      PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_CURRENT, PETSC_CURRENT, 200));
      PetscCall(KSPSolve(ksp, b, sol[k]));
      PetscCall(KSPGetIterationNumber(ksp, &its[k]));
      PetscCall(KSPDestroy(&ksp));
      PetscCall(VecDestroy(&b));
    }
    PetscCheck(its[0] == its[1], PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: GMRES + %s took %" PetscInt_FMT " iterations, AIJ %" PetscInt_FMT, w.c_str(), size == 1 ? "ILU" : "block Jacobi/ILU", its[1], its[0]);
    const PetscReal keep = tol;
    tol                  = PetscMax(tol, 1e-8); // solutions to the solver's tolerance
    PetscCall(Expect(sol[1], sol[0], w + ": the preconditioned solution"));
    tol = keep;
    PetscCall(VecDestroy(&sol[0]));
    PetscCall(VecDestroy(&sol[1]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode RunCase(const Case &c, const char *root, const std::string &type)
{
  Coo         coo;
  Mat         A, B;
  PetscInt    builds0 = 0, refreshes0 = 0, builds, refreshes;
  PetscBool   host_reference = PETSC_FALSE, coo_host_reference = PETSC_FALSE;
  const char *modes[]        = {"INSERT_VALUES", "INSERT_VALUES", "ADD_VALUES", "INSERT_VALUES"};
  PetscFunctionBegin;
  PetscCall(PetscOptionsGetBool(nullptr, nullptr, "-mat_gpumat_host_reference", &host_reference, nullptr));
  PetscCall(PetscOptionsGetBool(nullptr, nullptr, "-mat_gpumat_coo_host_reference", &coo_host_reference, nullptr));
  PetscCall(MakeCoo(c, &coo));
  PetscCall(Create(c, MATAIJ, coo, &A));
  PetscCall(Create(c, type.c_str(), coo, &B));
  for (PetscInt round = 0; round < 4; round++) {
    const bool               add  = round == 2;
    const InsertMode         mode = add ? ADD_VALUES : INSERT_VALUES;
    const std::string        w    = c.name + ", assembly " + std::to_string(round) + " (" + modes[round] + (device_values ? ", device values)" : ", host values)");
    const std::vector<PetscScalar> v = Values(coo, round, add);
    Values_                  vb;
    PetscCall(MatSetValuesCOO(A, v.data(), mode));
    PetscCall(Stage(v, &vb));
#if defined(PETSC_HAVE_CUDA)
    if (device_values && round > 0) { // the value update and a product: no copy between host and device (one rank)
      double copies[4], ref[4];
      Mat    S;
      PetscCall(UpdateCopies(B, &vb, mode, ("COO update " + type).c_str(), copies));
      // aijcusparse assembled the same way: the copies MPI's staging makes on several ranks
      PetscCall(Create(c, MATAIJCUSPARSE, coo, &S));
      {
        Values_ first;
        PetscCall(Stage(Values(coo, 0, false), &first));
        PetscCall(SetValues(S, &first, INSERT_VALUES));
        PetscCall(VecDestroy(&first.dev));
      }
      PetscCall(UpdateCopies(S, &vb, mode, "COO update aijcusparse", ref));
      PetscCall(MatDestroy(&S));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: value update + product: %g CPU->GPU (%g B), %g GPU->CPU (%g B) copies; aijcusparse %g (%g B), %g (%g B)\n", w.c_str(), copies[0], copies[2], copies[1], copies[3], ref[0], ref[2], ref[1], ref[3]));
      if (size == 1) PetscCheck(copies[0] == 0 && copies[1] == 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: the value update copied between host and device (%g CPU->GPU, %g GPU->CPU)", w.c_str(), copies[0], copies[1]);
      else PetscCheck(copies[0] <= ref[0] && copies[1] <= ref[1] && copies[2] <= ref[2] && copies[3] <= ref[3], PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: the value update copied more between host and device than aijcusparse's", w.c_str());
    } else PetscCall(SetValues(B, &vb, mode));
#else
    PetscCall(SetValues(B, &vb, mode));
#endif
    PetscCall(VecDestroy(&vb.dev));
    PetscCall(Products(B, A, w));
    PetscCall(BuildCounts(root, &builds, &refreshes));
    if (round == 0 && (PetscDefined(HAVE_CUDA) || coo_host_reference)) { // the machinery's maps, with PETSc's value accessors hooked
      bool ok;
      int  bad;
      PetscCall(BlocksHooked(B, &ok));
      bad = ok ? 0 : 1;
      PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD));
      PetscCheck(!bad, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: a block's value accessors are not hooked (MatGpuMatGetInfo)", w.c_str());
      checks++;
    }
    if (round == 0) {
      builds0    = builds;
      refreshes0 = refreshes;
    } else {
      // new values, same pattern: the format refreshed, never built again (host vectors without
      // the host reference run PETSc's kernels: nothing built)
      PetscCheck(builds == builds0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: the value update rebuilt the format (%" PetscInt_FMT " builds, %" PetscInt_FMT " before)", w.c_str(), builds, builds0);
      PetscCheck(!(device_values || host_reference) || builds0 > 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: no format was built", w.c_str());
      PetscCheck(builds0 == 0 || refreshes > refreshes0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: the new values were not refreshed", w.c_str());
      refreshes0 = refreshes;
    }
  }
  { // MatZeroEntries, then ADD_VALUES onto the zeros (a Newton step's re-assembly): AIJ's values; with
    // device values on one rank no copy between host and device (the device copy zeroed on the GPU)
    const std::string              w = c.name + ", MatZeroEntries then ADD_VALUES" + (device_values ? " (device values)" : " (host values)");
    const std::vector<PetscScalar> v = Values(coo, 6, true);
    Values_                        vb;
    PetscCall(MatZeroEntries(A));
    PetscCall(MatSetValuesCOO(A, v.data(), ADD_VALUES));
    PetscCall(Stage(v, &vb));
#if defined(PETSC_HAVE_CUDA)
    if (device_values) {
      double copies[4];
      PetscCall(UpdateCopies(B, &vb, ADD_VALUES, ("zero + COO add " + type).c_str(), copies, true));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %g CPU->GPU (%g B), %g GPU->CPU (%g B) copies\n", w.c_str(), copies[0], copies[2], copies[1], copies[3]));
      if (size == 1) PetscCheck(copies[0] == 0 && copies[1] == 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: copied between host and device (%g CPU->GPU, %g GPU->CPU)", w.c_str(), copies[0], copies[1]);
    } else {
      PetscCall(MatZeroEntries(B));
      PetscCall(SetValues(B, &vb, ADD_VALUES));
    }
#else
    PetscCall(MatZeroEntries(B));
    PetscCall(SetValues(B, &vb, ADD_VALUES));
#endif
    PetscCall(VecDestroy(&vb.dev));
    PetscCall(Products(B, A, w));
  }
  PetscCall(HostReaders(c, B, A, c.name + (device_values ? " (device values)" : " (host values)")));
  // the host readers may have built the other side once (in a CUDA build MatCreateVecs gives CUDA
  // vectors, and MatGetDiagonal into one runs on the GPU): the builds counted from here
  PetscInt builds_read = 0;
  PetscCall(BuildCounts(root, &builds_read, &refreshes));
  // values again after the host readers copied them back: still no rebuild
  {
    const std::vector<PetscScalar> v = Values(coo, 5, false);
    Values_                        vb;
    PetscCall(MatSetValuesCOO(A, v.data(), INSERT_VALUES));
    PetscCall(Stage(v, &vb));
    PetscCall(SetValues(B, &vb, INSERT_VALUES));
    PetscCall(VecDestroy(&vb.dev));
    PetscCall(Products(B, A, c.name + ", after the host readers"));
    PetscCall(BuildCounts(root, &builds, &refreshes));
    PetscCheck(builds == builds_read, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: a value update after the host readers rebuilt the format", c.name.c_str());
  }
  { // MatSetPreallocationCOO again with another pattern: new maps, a new build where one was made
    Coo                            coo2;
    std::vector<PetscInt>          ai, aj, bi, bj;
    Values_                        vb;
    PetscCall(MakeCoo(c, &coo2, 1));
    ai = bi = coo2.i;
    aj = bj = coo2.j;
    PetscCall(MatSetPreallocationCOO(A, (PetscCount)ai.size(), ai.data(), aj.data()));
    PetscCall(MatSetPreallocationCOO(B, (PetscCount)bi.size(), bi.data(), bj.data()));
    for (PetscInt round = 0; round < 2; round++) {
      const std::vector<PetscScalar> v = Values(coo2, 7 + round, round == 1);
      const InsertMode               mode = round == 1 ? ADD_VALUES : INSERT_VALUES;
      PetscCall(MatSetValuesCOO(A, v.data(), mode));
      PetscCall(Stage(v, &vb));
      PetscCall(SetValues(B, &vb, mode));
      PetscCall(VecDestroy(&vb.dev));
      PetscCall(Products(B, A, c.name + ", another pattern, assembly " + std::to_string(round)));
    }
    PetscCall(BuildCounts(root, &builds, &refreshes));
    PetscCheck(builds0 == 0 || builds > builds0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: another pattern was not built", c.name.c_str());
  }
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Misuse that must fail with a clear error (the test's PASS_REGEX).
PetscErrorCode Misuse(const char *what, const std::string &type)
{
  Mat                      B;
  std::vector<PetscScalar> v(10, 1.0);
  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_WORLD, &B));
  PetscCall(MatSetSizes(B, PETSC_DECIDE, PETSC_DECIDE, 10, 10));
  PetscCall(MatSetType(B, type.c_str()));
  if (!std::strcmp(what, "no_preallocation")) { // host values: PETSc's own check; device values (-values device): ours
    Values_ vb;
    PetscCall(Stage(v, &vb));
    PetscCall(SetValues(B, &vb, INSERT_VALUES));
    PetscCall(VecDestroy(&vb.dev));
  } else if (!std::strcmp(what, "pattern_changed")) { // device values after the pattern changed
    PetscInt    lo, hi;
    Values_     vb;
    std::vector<PetscInt> ci, cj;
    PetscCall(MatGetOwnershipRange(B, &lo, &hi));
    for (PetscInt i = lo; i < hi; i++) {
      ci.push_back(i);
      cj.push_back(i);
    }
    PetscCall(MatSetPreallocationCOO(B, (PetscCount)ci.size(), ci.data(), cj.data()));
    PetscCall(Stage(std::vector<PetscScalar>(ci.size(), 2.0), &vb));
    PetscCall(SetValues(B, &vb, INSERT_VALUES));
    PetscCall(MatSetOption(B, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    if (lo < hi) PetscCall(MatSetValue(B, lo, (lo + 1) % 10, 1.0, INSERT_VALUES)); // a new nonzero
    PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
    PetscCall(SetValues(B, &vb, INSERT_VALUES));
    PetscCall(VecDestroy(&vb.dev));
  } else SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-misuse %s: no such misuse", what);
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

int main(int argc, char **argv)
{
  char      root[64] = MATCSRSPEC, values[16] = "host", misuse[32] = "none";
  PetscBool set;
  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, nullptr, nullptr));
  PetscCall(PetscGpuMatInitialize());
  PetscCall(PetscLogDefaultBegin()); // build/refresh counts and copies come from the log
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetString(nullptr, nullptr, "-type", root, sizeof(root), nullptr));
  PetscCall(PetscOptionsGetString(nullptr, nullptr, "-vec_type", vectype, sizeof(vectype), &has_vectype));
  PetscCall(PetscOptionsGetReal(nullptr, nullptr, "-tol", &tol, nullptr));
  PetscCall(PetscOptionsGetString(nullptr, nullptr, "-values", values, sizeof(values), &set));
  PetscCall(PetscOptionsGetString(nullptr, nullptr, "-misuse", misuse, sizeof(misuse), nullptr));
  PetscCall(PetscOptionsGetBool(nullptr, nullptr, "-ignore_off_proc", &ignore_off_proc, nullptr));
  PetscCheck(!std::strcmp(values, "host") || !std::strcmp(values, "device"), PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-values must be host or device, not %s", values);
  device_values = std::strcmp(values, "device") ? PETSC_FALSE : PETSC_TRUE;
#if !defined(PETSC_HAVE_CUDA)
  PetscCheck(!device_values, PETSC_COMM_WORLD, PETSC_ERR_SUP, "-values device needs a CUDA PETSc");
#endif
  const std::string type = std::string("aij") + root; // seqaij<root> on one rank, mpiaij<root> on several
  if (std::strcmp(misuse, "none")) {
    PetscCall(Misuse(misuse, type));
  } else {
    for (const Case &c : Cases()) PetscCall(RunCase(c, root, type));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "test_coo: %s (%s values) agrees with aij in all %" PetscInt_FMT " checks\n", root, values, checks));
  }
  PetscCall(PetscFinalize());
  return 0;
}
