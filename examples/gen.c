#include "gen.h"
#include <math.h>

/* splitmix64: a counter-based generator, so row r's entries depend on (seed, r) only */
static uint64_t Mix(uint64_t z)
{
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
static double Uniform01(uint64_t seed, uint64_t row, uint64_t k) { return (double)(Mix(Mix(seed * 0x100000001b3ULL + row) + k) >> 11) * (1.0 / 9007199254740992.0); }

typedef enum { K_LAP2D, K_LAP3D, K_LAP3D27, K_POWERLAW, K_UNIFORM } Kind;

static PetscErrorCode ParseKind(const char *kind, Kind *k)
{
  PetscBool f;
  PetscFunctionBegin;
  PetscCall(PetscStrcmp(kind, "lap2d", &f));    if (f) { *k = K_LAP2D; PetscFunctionReturn(PETSC_SUCCESS); }
  PetscCall(PetscStrcmp(kind, "lap3d", &f));    if (f) { *k = K_LAP3D; PetscFunctionReturn(PETSC_SUCCESS); }
  PetscCall(PetscStrcmp(kind, "lap3d27", &f));  if (f) { *k = K_LAP3D27; PetscFunctionReturn(PETSC_SUCCESS); }
  PetscCall(PetscStrcmp(kind, "powerlaw", &f)); if (f) { *k = K_POWERLAW; PetscFunctionReturn(PETSC_SUCCESS); }
  PetscCall(PetscStrcmp(kind, "uniform", &f));  if (f) { *k = K_UNIFORM; PetscFunctionReturn(PETSC_SUCCESS); }
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown matrix kind '%s': use lap2d, lap3d, lap3d27, powerlaw or uniform", kind);
}

PetscErrorCode GenIsSPD(const char *kind, PetscBool *spd)
{
  Kind k;
  PetscFunctionBegin;
  PetscCall(ParseKind(kind, &k));
  *spd = (k == K_LAP2D || k == K_LAP3D || k == K_LAP3D27) ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Row `r` of the matrix into cols/vals (sorted, unique); returns its length. */
static PetscInt Row(Kind k, PetscInt n, PetscInt N, PetscInt seed, PetscInt r, PetscInt *cols, PetscScalar *vals, PetscInt cap)
{
  PetscInt len = 0;
  if (k == K_LAP2D) {
    PetscInt i = r % n, j = r / n;
    if (j > 0) { cols[len] = r - n; vals[len++] = -1; }
    if (i > 0) { cols[len] = r - 1; vals[len++] = -1; }
    cols[len] = r; vals[len++] = 4;
    if (i < n - 1) { cols[len] = r + 1; vals[len++] = -1; }
    if (j < n - 1) { cols[len] = r + n; vals[len++] = -1; }
  } else if (k == K_LAP3D || k == K_LAP3D27) {
    PetscInt i = r % n, j = (r / n) % n, l = r / (n * n);
    for (PetscInt dl = -1; dl <= 1; dl++)
      for (PetscInt dj = -1; dj <= 1; dj++)
        for (PetscInt di = -1; di <= 1; di++) {
          PetscInt nz = (di != 0) + (dj != 0) + (dl != 0);
          if (k == K_LAP3D && nz > 1) continue;
          if (i + di < 0 || i + di >= n || j + dj < 0 || j + dj >= n || l + dl < 0 || l + dl >= n) continue;
          cols[len]   = r + di + dj * n + dl * n * n;
          vals[len++] = nz == 0 ? (k == K_LAP3D ? 6.0 : 26.0) : -1.0;
        }
  } else {
    PetscInt want;
    if (k == K_UNIFORM) want = 4;
    else { /* Pareto(1.2) with minimum 2: mean 12 before the cap */
      double u = Uniform01((uint64_t)seed, (uint64_t)r, 0);
      double l = 2.0 / pow(1.0 - u, 1.0 / 1.2);
      want     = (PetscInt)PetscMin(l, (double)PetscMin(50000, N));
      if (want < 1) want = 1;
    }
    PetscReal sum = 0;
    cols[len]     = r;
    vals[len++]   = 0; /* the diagonal, set below */
    for (PetscInt t = 1; t < want && len < cap; t++) {
      cols[len] = (PetscInt)(Uniform01((uint64_t)seed, (uint64_t)r, (uint64_t)t) * N);
      if (cols[len] >= N) cols[len] = N - 1;
      vals[len++] = -(0.1 + 0.9 * Uniform01((uint64_t)seed + 1, (uint64_t)r, (uint64_t)t));
    }
    PetscCallAbort(PETSC_COMM_SELF, PetscSortIntWithScalarArray(len, cols, vals));
    PetscInt u = 0; /* merge duplicates */
    for (PetscInt t = 0; t < len; t++) {
      if (u > 0 && cols[u - 1] == cols[t]) vals[u - 1] += vals[t];
      else { cols[u] = cols[t]; vals[u++] = vals[t]; }
    }
    len = u;
    for (PetscInt t = 0; t < len; t++) if (cols[t] != r) sum += PetscAbsScalar(vals[t]);
    for (PetscInt t = 0; t < len; t++) if (cols[t] == r) vals[t] += sum + 1.0;
  }
  return len;
}

PetscErrorCode GenCreate(MPI_Comm comm, const char *kind, PetscInt n, PetscInt seed, MatType type, Mat *A)
{
  Kind         k;
  PetscInt     N, rstart, rend, cap, *ai, *aj, nnz = 0;
  PetscScalar *aa;
  PetscFunctionBegin;
  PetscCall(ParseKind(kind, &k));
  PetscCheck(n > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "Matrix size must be positive, got %" PetscInt_FMT, n);
  N   = k == K_LAP2D ? n * n : (k == K_LAP3D || k == K_LAP3D27) ? n * n * n : n;
  cap = k == K_POWERLAW ? PetscMin(50000, N) + 1 : 27;
  {
    PetscInt nlocal = PETSC_DECIDE;
    PetscCall(PetscSplitOwnership(comm, &nlocal, &N));
    PetscCallMPI(MPI_Scan(&nlocal, &rend, 1, MPIU_INT, MPI_SUM, comm));
    rstart = rend - nlocal;
    PetscCall(MatCreate(comm, A));
    PetscCall(MatSetSizes(*A, nlocal, nlocal, N, N));
  }
  PetscCall(MatSetType(*A, type ? type : MATAIJ));
  /* two passes: lengths, then entries */
  PetscCall(PetscMalloc1(rend - rstart + 1, &ai));
  {
    PetscInt    *c;
    PetscScalar *v;
    PetscCall(PetscMalloc2(cap, &c, cap, &v));
    ai[0] = 0;
    for (PetscInt r = rstart; r < rend; r++) ai[r - rstart + 1] = ai[r - rstart] + Row(k, n, N, seed, r, c, v, cap);
    PetscCall(PetscFree2(c, v));
  }
  nnz = ai[rend - rstart];
  PetscCall(PetscMalloc2(nnz, &aj, nnz, &aa));
  for (PetscInt r = rstart; r < rend; r++) (void)Row(k, n, N, seed, r, aj + ai[r - rstart], aa + ai[r - rstart], cap);
  PetscCall(MatSeqAIJSetPreallocationCSR(*A, ai, aj, aa));
  PetscCall(MatMPIAIJSetPreallocationCSR(*A, ai, aj, aa));
  PetscCall(PetscFree(ai));
  PetscCall(PetscFree2(aj, aa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GenRelDiff(Vec a, Vec b, PetscReal *diff)
{
  const PetscScalar *pa, *pb;
  PetscInt           n, nb;
  PetscReal          m[2] = {0, 0};
  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(a, &n));
  PetscCall(VecGetLocalSize(b, &nb));
  PetscCheck(n == nb, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Local sizes differ: %" PetscInt_FMT " and %" PetscInt_FMT, n, nb);
  PetscCall(VecGetArrayRead(a, &pa));
  PetscCall(VecGetArrayRead(b, &pb));
  for (PetscInt i = 0; i < n; i++) {
    m[0] = PetscMax(m[0], PetscAbsScalar(pa[i] - pb[i]));
    m[1] = PetscMax(m[1], PetscAbsScalar(pb[i]));
    if (PetscIsInfOrNanScalar(pa[i])) m[0] = PETSC_INFINITY;
  }
  PetscCall(VecRestoreArrayRead(a, &pa));
  PetscCall(VecRestoreArrayRead(b, &pb));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, m, 2, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)a)));
  *diff = m[1] > 0 ? m[0] / m[1] : m[0];
  PetscFunctionReturn(PETSC_SUCCESS);
}
