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

/* Random streams of the new kinds, as offsets of the seed: row shape (length, split), local and
   far columns, values by position, FEM node links, symmetric values by (row, column) pair. */
enum { S_SHAPE = 0, S_VALUE = 1, S_LINK = 2, S_PAIR = 3, S_LOCAL = 4, S_FAR = 5 };

/* The legacy kinds (LegacyRow) come first, up to K_UNIFORM. */
typedef enum { K_LAP2D, K_LAP3D, K_LAP3D27, K_LAP3DV, K_POWERLAW, K_UNIFORM, K_FEM3, K_FEM6, K_FEM3C, K_SHORT4, K_RANDOM, K_ECON, K_WEB, K_CIRCUIT, K_LP, K_DENSE, K_EMPTYROWS } Kind;
static const char *const KindNames[] = {"lap2d", "lap3d", "lap3d27", "lap3dv", "powerlaw", "uniform", "fem3", "fem6", "fem3c", "short4", "random", "econ", "web", "circuit", "lp", "dense", "emptyrows"};

/* The FEM-like kinds and their degrees of freedom per node (fem3c: fem3's pattern) */
static PetscBool IsFem(Kind k) { return k == K_FEM3 || k == K_FEM6 || k == K_FEM3C ? PETSC_TRUE : PETSC_FALSE; }
static PetscInt  FemDofs(Kind k) { return k == K_FEM6 ? 6 : 3; }

static PetscErrorCode ParseKind(const char *kind, Kind *k)
{
  PetscFunctionBegin;
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(KindNames); i++) {
    PetscBool f;
    PetscCall(PetscStrcmp(kind, KindNames[i], &f));
    if (f) {
      *k = (Kind)i;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown matrix kind '%s': use one of " GEN_KINDS, kind);
}

PetscErrorCode GenIsSPD(const char *kind, PetscBool *spd)
{
  Kind k;
  PetscFunctionBegin;
  PetscCall(ParseKind(kind, &k));
  *spd = (k == K_LAP2D || k == K_LAP3D || k == K_LAP3D27 || k == K_LAP3DV || IsFem(k) || k == K_DENSE) ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One generator: the kind, its parameter, sizes and seed. */
typedef struct {
  Kind     k;
  PetscInt n, M, N, seed;
  PetscInt cap; /* scratch entries for a row of a legacy kind (generated, then merged) */
} Gen;

static PetscErrorCode GenSetUp(const char *kind, PetscInt n, PetscInt seed, Gen *g)
{
  double M, N, nd = (double)n; /* exact below 2^53, enough to reject what PetscInt cannot hold */
  PetscFunctionBegin;
  PetscCall(ParseKind(kind, &g->k));
  PetscCheck(n > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Matrix size must be positive, got %" PetscInt_FMT, n);
  switch (g->k) {
  case K_LAP2D:
    M = nd * nd;
    break;
  case K_LAP3D:
  case K_LAP3D27:
  case K_LAP3DV:
    M = nd * nd * nd;
    break;
  case K_FEM3:
  case K_FEM3C:
    M = 3 * nd * nd * nd;
    break;
  case K_FEM6:
    M = 6 * nd * nd * nd;
    break;
  default:
    M = nd;
  }
  N = g->k == K_LP ? 256 * nd : M;
  PetscCheck(M <= PETSC_INT_MAX && N <= PETSC_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Kind %s with n = %" PetscInt_FMT " has %g rows and %g columns, more than PetscInt holds (%" PetscInt_FMT ")", kind, n, M, N, PETSC_INT_MAX);
  g->n    = n;
  g->M    = (PetscInt)M;
  g->N    = (PetscInt)N;
  g->seed = seed;
  g->cap  = g->k == K_POWERLAW ? PetscMin(50000, g->N) + 1 : g->k <= K_UNIFORM ? 27 : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GenSizes(const char *kind, PetscInt n, PetscInt *M, PetscInt *N)
{
  Gen g;
  PetscFunctionBegin;
  PetscCall(GenSetUp(kind, n, 0, &g));
  if (M) *M = g.M;
  if (N) *N = g.N;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Row `r` of a legacy kind (stencils, powerlaw, uniform) into cols/vals (sorted, unique; room for
   `cap` entries); returns its length. */
static PetscInt LegacyRow(Kind k, PetscInt n, PetscInt N, PetscInt seed, PetscInt r, PetscInt *cols, PetscScalar *vals, PetscInt cap)
{
  PetscInt len = 0;
  if (k == K_LAP2D) {
    PetscInt i = r % n, j = r / n;
    if (j > 0) { cols[len] = r - n; vals[len++] = -1; }
    if (i > 0) { cols[len] = r - 1; vals[len++] = -1; }
    cols[len] = r; vals[len++] = 4;
    if (i < n - 1) { cols[len] = r + 1; vals[len++] = -1; }
    if (j < n - 1) { cols[len] = r + n; vals[len++] = -1; }
  } else if (k == K_LAP3D || k == K_LAP3D27 || k == K_LAP3DV) {
    PetscInt  i = r % n, j = (r / n) % n, l = r / (n * n), idiag = 0;
    PetscReal sum = 0;
    for (PetscInt dl = -1; dl <= 1; dl++)
      for (PetscInt dj = -1; dj <= 1; dj++)
        for (PetscInt di = -1; di <= 1; di++) {
          PetscInt nz = (di != 0) + (dj != 0) + (dl != 0);
          if (k != K_LAP3D27 && nz > 1) continue;
          if (i + di < 0 || i + di >= n || j + dj < 0 || j + dj >= n || l + dl < 0 || l + dl >= n) continue;
          cols[len] = r + di + dj * n + dl * n * n;
          if (nz == 0) idiag = len;
          if (k == K_LAP3DV) { /* a symmetric value of the pair in [-1, -0.1] */
            const PetscInt c = cols[len];
            vals[len]        = nz == 0 ? 0.0 : -(0.1 + 0.9 * Uniform01((uint64_t)seed + S_PAIR, (uint64_t)PetscMin(r, c), (uint64_t)PetscMax(r, c)));
            sum += PetscAbsScalar(vals[len]);
            len++;
          } else vals[len++] = nz == 0 ? (k == K_LAP3D ? 6.0 : 26.0) : -1.0;
        }
    if (k == K_LAP3DV) vals[idiag] = sum + 1.0;
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

/* ---- FEM-like kinds: d x d blocks on the node graph of an n^3 grid ---------------------------- */

/* Whether nodes a and b, neighbours in the 27-point box that differ in `dims` coordinates, are
   coupled: a function of the unordered pair, so the pattern is symmetric. */
static PetscBool FemLinked(const Gen *g, PetscInt a, PetscInt b, PetscInt dims)
{
  const double p2 = FemDofs(g->k) == 3 ? 0.75 : 0.5, p3 = FemDofs(g->k) == 3 ? 0.5 : 0.0;
  if (dims <= 1) return PETSC_TRUE;
  return Uniform01((uint64_t)g->seed + S_LINK, (uint64_t)PetscMin(a, b), (uint64_t)PetscMax(a, b)) < (dims == 2 ? p2 : p3) ? PETSC_TRUE : PETSC_FALSE;
}

/* The columns of row r (cols may be NULL: count only); returns the row length. Neighbour nodes are
   visited in increasing index, so the columns come out sorted. */
static PetscInt FemRow(const Gen *g, PetscInt r, PetscInt *cols)
{
  const PetscInt d = FemDofs(g->k), n = g->n, node = r / d, i = node % n, j = (node / n) % n, l = node / (n * n);
  PetscInt       len = 0;
  for (PetscInt dl = -1; dl <= 1; dl++)
    for (PetscInt dj = -1; dj <= 1; dj++)
      for (PetscInt di = -1; di <= 1; di++) {
        const PetscInt m = node + di + dj * n + dl * n * n;
        if (i + di < 0 || i + di >= n || j + dj < 0 || j + dj >= n || l + dl < 0 || l + dl >= n) continue;
        if (!FemLinked(g, node, m, (di != 0) + (dj != 0) + (dl != 0))) continue;
        if (cols)
          for (PetscInt c = 0; c < d; c++) cols[len + c] = m * d + c;
        len += d;
      }
  return len;
}

/* Symmetric off-diagonal value of the pair (r, c), r != c. */
static PetscScalar PairValue(const Gen *g, PetscInt r, PetscInt c)
{
  return -(0.1 + 0.9 * Uniform01((uint64_t)g->seed + S_PAIR, (uint64_t)PetscMin(r, c), (uint64_t)PetscMax(r, c)));
}

/* ---- sampled kinds: diagonal + stratified columns near it (window) and anywhere else ----------- */

typedef struct {
  PetscInt  nloc, nfar; /* off-diagonal columns inside the window, outside it */
  PetscInt  wlo, whi;   /* the window [wlo, whi) around the diagonal (empty without one) */
  PetscBool diag;
} Shape;

/* A Lomax (Pareto II) draw from u in [0, 1): scale * ((1-u)^(-1/alpha) - 1), floored, at most cap */
static PetscInt Lomax(double u, double alpha, double scale, PetscInt cap)
{
  const double y = scale * (pow(1.0 - u, -1.0 / alpha) - 1.0);
  return y >= (double)cap ? cap : (PetscInt)y;
}

static void RowShape(const Gen *g, PetscInt r, Shape *s)
{
  const double u0 = Uniform01((uint64_t)g->seed + S_SHAPE, (uint64_t)r, 0), u1 = Uniform01((uint64_t)g->seed + S_SHAPE, (uint64_t)r, 1);
  const PetscInt64 N = g->N;
  PetscInt64       off = 0, nfar = 0, w = 0;
  s->diag = PETSC_TRUE;
  switch (g->k) {
  case K_SHORT4:
    off = nfar = 3;
    break;
  case K_RANDOM:
    off = nfar = 15;
    break;
  case K_EMPTYROWS: /* one row in 100 holds entries */
    if (r % 100) s->diag = PETSC_FALSE;
    else off = nfar = 15;
    break;
  case K_DENSE:
    off = N - 1;
    w   = N;
    break;
  case K_ECON:
    off  = Lomax(u0, 4.0, 16.5, 1000);
    nfar = (PetscInt64)(0.5 * off + u1);
    w    = 64;
    break;
  case K_WEB:
    off  = Lomax(u0, 1.7, 1.75, 50000);
    nfar = (PetscInt64)(0.25 * off + u1);
    w    = 512;
    break;
  case K_CIRCUIT:
    for (PetscInt64 k = 0; k < 8; k++) /* hub rows: all their columns far */
      if (r == (2 * k + 1) * N / 16) {
        off = nfar = N / (5 << k);
        break;
      }
    if (!off) {
      off  = Lomax(u0, 2.5, 6.75, 1000);
      nfar = (PetscInt64)(0.5 * off + u1);
      w    = 64;
    }
    break;
  case K_LP:
    s->diag = PETSC_FALSE;
    off = nfar = 1 + Lomax(u0, 2.0, 0.64 * g->n, 16 * g->n - 1);
    break;
  default: /* not a sampled kind */
    break;
  }
  if (s->diag) {
    const PetscInt64 nloc = off - nfar, ww = PetscMax(w, nloc), lo = PetscMax(0, r - ww), hi = PetscMin(N, r + ww + 1);
    s->wlo  = (PetscInt)lo;
    s->whi  = (PetscInt)hi;
    s->nloc = (PetscInt)PetscMin(nloc, hi - lo - 1);
    s->nfar = (PetscInt)PetscMin(nfar, N - (hi - lo));
  } else {
    s->wlo = s->whi = s->nloc = 0;
    s->nfar                   = (PetscInt)PetscMin(nfar, N);
  }
}

/* Slot of stratum t when L slots are drawn out of S >= L (strata of S/L consecutive slots). */
static PetscInt Stratum(double u, PetscInt t, PetscInt L, PetscInt S)
{
  const uint64_t lo = (uint64_t)t * (uint64_t)S / (uint64_t)L, hi = ((uint64_t)t + 1) * (uint64_t)S / (uint64_t)L;
  const uint64_t s  = lo + (uint64_t)(u * (double)(hi - lo));
  return (PetscInt)(s < hi ? s : hi - 1);
}

/* Row r of a sampled kind: far columns below the window, the window's (with the diagonal), far
   columns above it; all sorted and distinct. */
static PetscErrorCode SampledRow(const Gen *g, PetscInt r, const Shape *s, PetscInt *cols, PetscScalar *vals)
{
  const PetscInt S = s->whi - s->wlo, len = s->nloc + s->nfar + (s->diag ? 1 : 0);
  PetscInt       below = 0, p, idiag = -1;
  PetscReal      sum   = 0;
  PetscFunctionBegin;
  for (PetscInt t = 0; t < s->nfar; t++) { /* slots of the columns outside the window */
    const PetscInt c = Stratum(Uniform01((uint64_t)g->seed + S_FAR, (uint64_t)r, (uint64_t)t), t, s->nfar, g->N - S);
    if (c < s->wlo) {
      cols[t] = c;
      below++;
    } else cols[t] = c + S;
  }
  PetscCall(PetscArraymove(cols + len - (s->nfar - below), cols + below, s->nfar - below));
  p = below;
  for (PetscInt t = 0; t < s->nloc; t++) {
    PetscInt c = s->wlo + Stratum(Uniform01((uint64_t)g->seed + S_LOCAL, (uint64_t)r, (uint64_t)t), t, s->nloc, S - 1);
    if (c >= r) c++; /* the window's slots skip the diagonal */
    if (idiag < 0 && c > r) cols[idiag = p++] = r;
    cols[p++] = c;
  }
  if (s->diag && idiag < 0) cols[idiag = p] = r;
  for (PetscInt t = 0; t < len; t++) {
    if (t == idiag) continue;
    vals[t] = g->k == K_DENSE ? PairValue(g, r, cols[t]) : -(0.1 + 0.9 * Uniform01((uint64_t)g->seed + S_VALUE, (uint64_t)r, (uint64_t)t));
    sum += PetscAbsScalar(vals[t]);
  }
  if (idiag >= 0) vals[idiag] = sum + 1.0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- all kinds ---------------------------------------------------------------------------------- */

/* Length of row r; c, v: scratch of g->cap entries (legacy kinds). */
static PetscInt RowLength(const Gen *g, PetscInt r, PetscInt *c, PetscScalar *v)
{
  Shape s;
  if (g->k <= K_UNIFORM) return LegacyRow(g->k, g->n, g->N, g->seed, r, c, v, g->cap);
  if (IsFem(g->k)) return FemRow(g, r, NULL);
  RowShape(g, r, &s);
  return s.nloc + s.nfar + (s.diag ? 1 : 0);
}

/* Row r into cols/vals, which have room for its length exactly; c, v: scratch as above. */
static PetscErrorCode RowFill(const Gen *g, PetscInt r, PetscInt *c, PetscScalar *v, PetscInt *cols, PetscScalar *vals)
{
  PetscFunctionBegin;
  if (g->k <= K_UNIFORM) { /* generated with duplicates, then merged: through the scratch */
    const PetscInt len = LegacyRow(g->k, g->n, g->N, g->seed, r, c, v, g->cap);
    PetscCall(PetscArraycpy(cols, c, len));
    PetscCall(PetscArraycpy(vals, v, len));
  } else if (IsFem(g->k)) {
    const PetscInt len = FemRow(g, r, cols);
    PetscInt       idiag = -1;
    PetscReal      sum   = 0;
    for (PetscInt t = 0; t < len; t++) {
      if (cols[t] == r) {
        idiag = t;
        continue;
      }
      vals[t] = g->k == K_FEM3C ? -1.0 : PairValue(g, r, cols[t]);
      sum += PetscAbsScalar(vals[t]);
    }
    vals[idiag] = sum + 1.0;
  } else {
    Shape s;
    RowShape(g, r, &s);
    PetscCall(SampledRow(g, r, &s, cols, vals));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GenCount(const char *kind, PetscInt n, PetscInt seed, PetscInt *M, PetscInt *N, PetscInt64 *nnz, PetscInt *minrow, PetscInt *maxrow)
{
  Gen          g;
  PetscInt    *c, lmin = PETSC_INT_MAX, lmax = 0;
  PetscScalar *v;
  PetscInt64   nz = 0;
  PetscFunctionBegin;
  PetscCall(GenSetUp(kind, n, seed, &g));
  PetscCall(PetscMalloc2(g.cap, &c, g.cap, &v));
  for (PetscInt r = 0; r < g.M; r++) {
    const PetscInt len = RowLength(&g, r, c, v);
    nz += len;
    lmin = PetscMin(lmin, len);
    lmax = PetscMax(lmax, len);
  }
  PetscCall(PetscFree2(c, v));
  if (M) *M = g.M;
  if (N) *N = g.N;
  if (nnz) *nnz = nz;
  if (minrow) *minrow = lmin;
  if (maxrow) *maxrow = lmax;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GenCreate(MPI_Comm comm, const char *kind, PetscInt n, PetscInt seed, MatType type, Mat *A)
{
  Gen          g;
  PetscInt     m = PETSC_DECIDE, rstart, rend, *ai, *aj, *c;
  PetscScalar *aa, *v;
  PetscInt64   nz = 0, nzmax;
  PetscFunctionBegin;
  PetscCall(GenSetUp(kind, n, seed, &g));
  if (IsFem(g.k)) { /* whole nodes per rank, block size d */
    const PetscInt d = FemDofs(g.k);
    PetscInt       nodes = g.M / d;
    PetscCall(PetscSplitOwnership(comm, &m, &nodes));
    m *= d;
  } else PetscCall(PetscSplitOwnership(comm, &m, &g.M));
  PetscCallMPI(MPI_Scan(&m, &rend, 1, MPIU_INT, MPI_SUM, comm));
  rstart = rend - m;
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, m, g.M == g.N ? m : PETSC_DECIDE, g.M, g.N));
  if (IsFem(g.k)) PetscCall(MatSetBlockSize(*A, FemDofs(g.k)));
  if (type) PetscCall(MatSetType(*A, type));
  else PetscCall(MatSetFromOptions(*A)); /* -mat_type (default MATAIJ) and the matrix's options */
  /* two passes: lengths, then entries */
  PetscCall(PetscMalloc1(m + 1, &ai));
  PetscCall(PetscMalloc2(g.cap, &c, g.cap, &v));
  ai[0] = 0;
  for (PetscInt r = rstart; r < rend; r++) {
    ai[r - rstart + 1] = RowLength(&g, r, c, v);
    nz += ai[r - rstart + 1];
  }
  PetscCallMPI(MPIU_Allreduce(&nz, &nzmax, 1, MPIU_INT64, MPI_MAX, comm));
  PetscCheck(nzmax <= PETSC_INT_MAX, comm, PETSC_ERR_SUP, "Kind %s with n = %" PetscInt_FMT ": %" PetscInt64_FMT " nonzeros on one rank exceed PetscInt; use more ranks or a PETSc with 64-bit indices", kind, n, nzmax);
  for (PetscInt i = 0; i < m; i++) ai[i + 1] += ai[i];
  PetscCall(PetscMalloc2(ai[m], &aj, ai[m], &aa));
  for (PetscInt r = rstart; r < rend; r++) PetscCall(RowFill(&g, r, c, v, aj + ai[r - rstart], aa + ai[r - rstart]));
  PetscCall(PetscFree2(c, v));
  PetscCall(MatSeqAIJSetPreallocationCSR(*A, ai, aj, aa));
  PetscCall(MatMPIAIJSetPreallocationCSR(*A, ai, aj, aa));
  PetscCall(PetscFree(ai));
  PetscCall(PetscFree2(aj, aa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GenIsDeviceVec(Vec v, PetscBool *dev)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)v, dev, VECSEQCUDA, VECMPICUDA, VECSEQKOKKOS, VECMPIKOKKOS, ""));
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
