static char help[] = "Self-test of the benchmark's matrix sources: Matrix Market reader (plain and gzip, general,\n"
                     "symmetric, skew-symmetric, integer, pattern, rejected files), PETSc binary and gen: specs,\n"
                     "and every generated kind (sizes, row lengths, diagonal dominance, symmetry, and the same\n"
                     "matrix on any number of ranks). Run on 1 and several ranks. Writes its files in -dir.\n"
                     "  -dir <.>          folder for the temporary files (removed at the end)\n"
                     "  -files <list>     also load these matrix specs (e.g. bench/tutorial_matrices.sh output)\n"
                     "                    on all ranks and on each rank alone, and compare\n";

#include <petscmat.h>
#include <string.h>
#include <zlib.h>
#include "mmio.h"
#include "gen.h"

/* ---- Matrix Market ------------------------------------------------------------------------- */

typedef struct {
  const char *name, *text; /* file name (in -dir) and contents */
  PetscInt    M, N;        /* expected matrix, dense row-major (entries absent from the pattern: 0) */
  PetscInt    nnz;         /* expected stored nonzeros after mirroring and merging */
  PetscReal   dense[16];
} MMCase;

static const MMCase good[] = {
  {"general.mtx",
   "%%MatrixMarket matrix coordinate real general\n% a comment\n%\n3 4 6\n1 1 1.5\n3 4 -2e-1\n\n2 2 3\n1 3 4.25\n1 1 0.5\n3 1 7\r\n",
   3, 4, 5, {2.0, 0, 4.25, 0, 0, 3, 0, 0, 7, 0, 0, -0.2}},
  {"sympattern.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n4 4 5\n1 1\n2 1\n3 2\n4 4\n4 1\n", 4, 4, 8, {1, 1, 0, 1, 1, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1}},
  {"integer.mtx", "%%MatrixMarket matrix coordinate integer general\n2 2 3\n1 2 -3\n2 1 5\n2 2 7\n", 2, 2, 3, {0, -3, 5, 7}},
  {"skew.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 3\n2 1 1.5\n3 1 -2\n3 2 0.25\n", 3, 3, 6, {0, -1.5, 2, 1.5, 0, -0.25, -2, 0.25, 0}},
  {"general.mtx.gz", NULL, 3, 4, 5, {2.0, 0, 4.25, 0, 0, 3, 0, 0, 7, 0, 0, -0.2}}, /* gzip of the first */
};

typedef struct {
  const char *name, *text, *message; /* the error message must contain `message` */
} BadCase;

static const BadCase bad[] = {
  {"bad_banner.mtx", "MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1\n", "is not a Matrix Market file"},
  {"bad_array.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", "format 'array' is not supported"},
  {"bad_complex.mtx", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", "field 'complex' is not supported"},
  {"bad_hermitian.mtx", "%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n", "symmetry 'hermitian' is not supported"},
  {"bad_range.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n4 1 1\n", "bad_range.mtx:4: entry (4, 1) is outside the 3 x 3 matrix"},
  {"bad_zero.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1\n0 1 1\n", "entry (0, 1) is outside the 3 x 3 matrix (indices are 1-based)"},
  {"bad_short.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n2 2 1\n", "the file ends after 2 of the 3 entries"},
  {"bad_long.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 1\n2 2 1\n", "bad_long.mtx:4: more entries than the 1 of the size line"},
  {"bad_value.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 x\n", "bad_value.mtx:3: expected 'row column value'"},
  {"bad_extra.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1 2\n", "unexpected '2' after 'row column value'"},
  {"bad_upper.mtx", "%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 1\n", "above the diagonal"},
  {"bad_skewdiag.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 1\n", "on or above the diagonal"},
  {"bad_square.mtx", "%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n", "must be square"},
  {"bad_size.mtx", "%%MatrixMarket matrix coordinate real general\n% only comments\n", "ends before the size line"},
  {"bad_missing.mtx", NULL, "Cannot open Matrix Market file"}, /* not written */
};

static PetscErrorCode Path(const char *dir, const char *name, char path[PETSC_MAX_PATH_LEN])
{
  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(path, PETSC_MAX_PATH_LEN, "%s/test_readers_%s", dir, name));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode WriteText(const char *path, const char *text, PetscBool gzip)
{
  PetscFunctionBegin;
  if (gzip) {
    gzFile f = gzopen(path, "wb");
    PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot write %s", path);
    PetscCheck(gzputs(f, text) >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot write %s", path);
    PetscCheck(gzclose(f) == Z_OK, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot write %s", path);
  } else {
    FILE *f;
    PetscCall(PetscFOpen(PETSC_COMM_SELF, path, "w", &f));
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "%s", text));
    PetscCall(PetscFClose(PETSC_COMM_SELF, f));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every local row of A against the dense expectation, and the global nonzero count. */
static PetscErrorCode CheckEntries(Mat A, const MMCase *c, const char *path)
{
  PetscInt M, N, rstart, rend;
  MatInfo  info;
  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &M, &N));
  PetscCheck(M == c->M && N == c->N, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: size %" PetscInt_FMT " x %" PetscInt_FMT ", expected %" PetscInt_FMT " x %" PetscInt_FMT, path, M, N, c->M, c->N);
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
  PetscCheck((PetscInt)info.nz_used == c->nnz, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %g nonzeros, expected %" PetscInt_FMT, path, info.nz_used, c->nnz);
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) {
    PetscInt           nc, k = 0;
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscCall(MatGetRow(A, i, &nc, &cols, &vals));
    for (PetscInt j = 0; j < N; j++) {
      PetscScalar v = 0;
      if (k < nc && cols[k] == j) v = vals[k++];
      PetscCheck(v == c->dense[i * N + j], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: entry (%" PetscInt_FMT ", %" PetscInt_FMT ") is %g, expected %g", path, i, j, (double)PetscRealPart(v), (double)c->dense[i * N + j]);
    }
    PetscCall(MatRestoreRow(A, i, &nc, &cols, &vals));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestMatrixMarket(MPI_Comm comm, const char *dir)
{
  PetscMPIInt rank;
  char        path[PETSC_MAX_PATH_LEN];
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(good); i++) {
      PetscBool gz;
      PetscCall(Path(dir, good[i].name, path));
      PetscCall(PetscStrendswith(path, ".gz", &gz));
      PetscCall(WriteText(path, good[i].text ? good[i].text : good[0].text, gz));
    }
    for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(bad); i++) {
      PetscCall(Path(dir, bad[i].name, path));
      if (bad[i].text) PetscCall(WriteText(path, bad[i].text, PETSC_FALSE));
    }
  }
  PetscCallMPI(MPI_Barrier(comm));
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(good); i++) {
    Mat A;
    PetscCall(Path(dir, good[i].name, path));
    PetscCall(BenchLoadMatrix(comm, path, &A));
    PetscCall(CheckEntries(A, &good[i], path));
    PetscCall(MatDestroy(&A));
  }
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(bad); i++) {
    Mat            A = NULL;
    PetscErrorCode err;
    const char    *msg;
    PetscCall(Path(dir, bad[i].name, path));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    err = BenchLoadMatrix(comm, path, &A);
    PetscCall(PetscPopErrorHandler());
    PetscCheck(err != PETSC_SUCCESS && !A, comm, PETSC_ERR_PLIB, "%s: read without an error", path);
    PetscCall(PetscErrorMessage(err, NULL, &msg));
    PetscCheck(strstr(msg, bad[i].message), comm, PETSC_ERR_PLIB, "%s: error message '%s' does not contain '%s'", path, msg, bad[i].message);
    PetscCall(PetscPrintf(comm, "rejected %-20s %s\n", bad[i].name, msg));
  }
  PetscCallMPI(MPI_Barrier(comm));
  if (rank == 0) {
    for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(good); i++) {
      PetscCall(Path(dir, good[i].name, path));
      PetscCheck(!remove(path), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot remove %s", path);
    }
    for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(bad); i++) {
      PetscCall(Path(dir, bad[i].name, path));
      PetscCheck(!bad[i].text || !remove(path), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot remove %s", path);
    }
  }
  PetscCall(PetscPrintf(comm, "Matrix Market: %d files read and checked, %d malformed files rejected\n", (int)PETSC_STATIC_ARRAY_LENGTH(good), (int)PETSC_STATIC_ARRAY_LENGTH(bad)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- comparisons independent of the distribution ------------------------------------------ */

/* Order-independent digest of rows [rstart, rend): the sum of a hash of every entry. */
static uint64_t Hash(uint64_t z)
{
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static PetscErrorCode Digest(Mat A, uint64_t *digest)
{
  PetscInt rstart, rend;
  PetscFunctionBegin;
  *digest = 0;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) {
    PetscInt           nc;
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscCall(MatGetRow(A, i, &nc, &cols, &vals));
    for (PetscInt k = 0; k < nc; k++) {
      uint64_t bits;
      PetscCall(PetscMemcpy(&bits, &vals[k], sizeof(bits)));
      *digest += Hash(Hash((uint64_t)i * 0x9e3779b97f4a7c15ULL + (uint64_t)cols[k]) ^ bits);
    }
    PetscCall(MatRestoreRow(A, i, &nc, &cols, &vals));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether A and B have the same entries, whatever their distributions. */
static PetscErrorCode SameEntries(Mat A, Mat B, PetscBool *same)
{
  uint64_t d[2];
  PetscInt MA, NA, MB, NB;
  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &MA, &NA));
  PetscCall(MatGetSize(B, &MB, &NB));
  PetscCall(Digest(A, &d[0]));
  PetscCall(Digest(B, &d[1]));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, d, 2, MPI_UINT64_T, MPI_SUM, PetscObjectComm((PetscObject)A)));
  *same = (MA == MB && NA == NB && d[0] == d[1]) ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- PETSc binary and gen: specs ------------------------------------------------------------ */

static PetscErrorCode TestSpecs(MPI_Comm comm, const char *dir)
{
  Mat         A, B;
  PetscViewer viewer;
  PetscBool   eq;
  PetscInt    bs;
  char        path[PETSC_MAX_PATH_LEN], info[PETSC_MAX_PATH_LEN + 8];
  PetscMPIInt rank;
  const char *badspecs[] = {"gen:nosuch:10", "gen:lap2d", "gen:lap2d:x", "matrix.txt"};
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  /* binary round trip; fem3 has block size 3, written to the .info file, which the load ignores */
  PetscCall(GenCreate(comm, "fem3", 5, 2, MATAIJ, &A));
  PetscCall(Path(dir, "fem3.petsc", path));
  PetscCall(PetscViewerBinaryOpen(comm, path, FILE_MODE_WRITE, &viewer));
  PetscCall(MatView(A, viewer));
  PetscCall(PetscViewerDestroy(&viewer));
  PetscCall(BenchLoadMatrix(comm, path, &B));
  PetscCall(SameEntries(A, B, &eq));
  PetscCheck(eq, comm, PETSC_ERR_PLIB, "%s: the loaded matrix differs from the written one", path);
  PetscCall(MatGetBlockSize(B, &bs));
  PetscCheck(bs == 1, comm, PETSC_ERR_PLIB, "%s: block size %" PetscInt_FMT " taken from the .info file", path, bs);
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&A));
  if (rank == 0) {
    PetscCheck(!remove(path), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot remove %s", path);
    PetscCall(PetscSNPrintf(info, sizeof(info), "%s.info", path));
    (void)remove(info); /* written unless -viewer_binary_skip_info */
  }
  /* gen: spec, with and without a seed */
  PetscCall(BenchLoadMatrix(comm, "gen:econ:3000:7", &A));
  PetscCall(GenCreate(comm, "econ", 3000, 7, MATAIJ, &B));
  PetscCall(SameEntries(A, B, &eq));
  PetscCheck(eq, comm, PETSC_ERR_PLIB, "gen:econ:3000:7 differs from GenCreate(econ, 3000, seed 7)");
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscCall(BenchLoadMatrix(comm, "gen:lap2d:7", &A));
  PetscCall(GenCreate(comm, "lap2d", 7, 1, MATAIJ, &B));
  PetscCall(SameEntries(A, B, &eq));
  PetscCheck(eq, comm, PETSC_ERR_PLIB, "gen:lap2d:7 differs from GenCreate(lap2d, 7, seed 1)");
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(badspecs); i++) {
    PetscErrorCode err;
    A = NULL;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    err = BenchLoadMatrix(comm, badspecs[i], &A);
    PetscCall(PetscPopErrorHandler());
    PetscCheck(err != PETSC_SUCCESS, comm, PETSC_ERR_PLIB, "Spec '%s' accepted", badspecs[i]);
    PetscCall(MatDestroy(&A));
  }
  PetscCall(PetscPrintf(comm, "PETSc binary and gen: specs: checked, %d bad specs rejected\n", (int)PETSC_STATIC_ARRAY_LENGTH(badspecs)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- generated kinds ------------------------------------------------------------------------ */

typedef struct {
  const char *kind;
  PetscInt    n;
  PetscInt    minlen, maxlen;   /* every row length in [minlen, maxlen] */
  PetscReal   minmean, maxmean; /* nonzeros per row on average */
  PetscInt    dominance;        /* 2: strictly diagonally dominant, 1: weakly (stencils), 0: not checked
                                   (powerlaw, uniform: a random column that hits the diagonal adds its
                                   negative value there; kept so that their matrices do not change) */
} KindCase;

static const KindCase kinds[] = {
  {"lap2d", 30, 3, 5, 4.5, 5, 1},
  {"lap3d", 10, 4, 7, 6, 7, 1},
  {"lap3d27", 8, 8, 27, 18, 27, 1},
  {"powerlaw", 5000, 1, 5000, 6, 16, 0},
  {"uniform", 5000, 1, 4, 3.9, 4, 0},
  {"fem3", 6, 12, 81, 40, 70, 2},
  {"fem6", 5, 24, 114, 50, 90, 2},
  {"short4", 5000, 4, 4, 4, 4, 2},
  {"random", 5000, 16, 16, 16, 16, 2},
  {"econ", 20000, 1, 1000, 5, 7, 2},
  {"web", 20000, 1, 20000, 2.5, 3.6, 2},
  {"circuit", 20000, 1, 4001, 4.5, 6.5, 2},
  {"lp", 64, 1, 1024, 10, 128, 2},
  {"dense", 50, 50, 50, 50, 50, 2},
};

static PetscErrorCode TestKind(MPI_Comm comm, const KindCase *c)
{
  Mat        A, S;
  PetscInt   M, N, gM, gN, cmin, cmax, rstart, rend, lmin = PETSC_INT_MAX, lmax = 0;
  PetscInt64 cnnz;
  PetscBool  spd, sym;
  MatInfo    info;
  uint64_t   dpar, dseq;
  PetscFunctionBegin;
  PetscCall(GenCreate(comm, c->kind, c->n, 1, NULL, &A));
  PetscCall(MatGetSize(A, &M, &N));
  PetscCall(GenSizes(c->kind, c->n, &gM, &gN));
  PetscCall(GenCount(c->kind, c->n, 1, NULL, NULL, &cnnz, &cmin, &cmax));
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
  PetscCheck(M == gM && N == gN, comm, PETSC_ERR_PLIB, "%s: size %" PetscInt_FMT " x %" PetscInt_FMT ", GenSizes says %" PetscInt_FMT " x %" PetscInt_FMT, c->kind, M, N, gM, gN);
  PetscCheck((PetscInt64)info.nz_used == cnnz, comm, PETSC_ERR_PLIB, "%s: %g nonzeros, GenCount says %" PetscInt64_FMT, c->kind, info.nz_used, cnnz);
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) {
    PetscInt           nc;
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscReal          off = 0, diag = 0;
    PetscCall(MatGetRow(A, i, &nc, &cols, &vals));
    lmin = PetscMin(lmin, nc);
    lmax = PetscMax(lmax, nc);
    for (PetscInt k = 0; k < nc; k++) {
      PetscCheck(k == 0 || cols[k] > cols[k - 1], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: row %" PetscInt_FMT " is not sorted and unique", c->kind, i);
      if (cols[k] == i) diag = PetscAbsScalar(vals[k]);
      else off += PetscAbsScalar(vals[k]);
    }
    PetscCheck(M != N || diag > off || (c->dominance == 1 && diag == off) || c->dominance == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: row %" PetscInt_FMT " is not diagonally dominant: |diagonal| %g, off-diagonal sum %g", c->kind, i, (double)diag, (double)off);
    PetscCall(MatRestoreRow(A, i, &nc, &cols, &vals));
  }
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &lmin, 1, MPIU_INT, MPI_MIN, comm));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &lmax, 1, MPIU_INT, MPI_MAX, comm));
  PetscCheck(lmin == cmin && lmax == cmax, comm, PETSC_ERR_PLIB, "%s: row lengths %" PetscInt_FMT "..%" PetscInt_FMT ", GenCount says %" PetscInt_FMT "..%" PetscInt_FMT, c->kind, lmin, lmax, cmin, cmax);
  PetscCheck(lmin >= c->minlen && lmax <= c->maxlen && info.nz_used / M >= c->minmean && info.nz_used / M <= c->maxmean, comm, PETSC_ERR_PLIB, "%s n=%" PetscInt_FMT ": row lengths %" PetscInt_FMT "..%" PetscInt_FMT " mean %g, expected within %" PetscInt_FMT "..%" PetscInt_FMT " mean %g..%g", c->kind,
             c->n, lmin, lmax, info.nz_used / M, c->minlen, c->maxlen, (double)c->minmean, (double)c->maxmean);
  PetscCall(GenIsSPD(c->kind, &spd));
  if (spd) {
    PetscCall(MatIsSymmetric(A, 0.0, &sym));
    PetscCheck(sym, comm, PETSC_ERR_PLIB, "%s: GenIsSPD says SPD but the matrix is not symmetric", c->kind);
  }
  /* the same matrix generated on one rank: rows are independent of the distribution */
  PetscCall(Digest(A, &dpar));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &dpar, 1, MPI_UINT64_T, MPI_SUM, comm));
  PetscCall(GenCreate(PETSC_COMM_SELF, c->kind, c->n, 1, NULL, &S));
  PetscCall(Digest(S, &dseq));
  PetscCheck(dpar == dseq, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the matrix on this communicator differs from the one generated on one rank", c->kind);
  PetscCall(PetscPrintf(comm, "%-8s n=%-6" PetscInt_FMT " %7" PetscInt_FMT " x %-8" PetscInt_FMT " nnz %-8.0f per row %" PetscInt_FMT " / %.2f / %" PetscInt_FMT "%s\n", c->kind, c->n, M, N, info.nz_used, lmin, info.nz_used / M, lmax, spd ? ", symmetric" : ""));
  PetscCall(MatDestroy(&S));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A matrix spec loads on comm, and gives the same entries as loaded on one rank. */
static PetscErrorCode TestFile(MPI_Comm comm, const char *spec)
{
  Mat      A, S;
  PetscInt M, N;
  MatInfo  info;
  uint64_t d[2];
  PetscFunctionBegin;
  PetscCall(BenchLoadMatrix(comm, spec, &A));
  PetscCall(BenchLoadMatrix(PETSC_COMM_SELF, spec, &S));
  PetscCall(Digest(A, &d[0]));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &d[0], 1, MPI_UINT64_T, MPI_SUM, comm));
  PetscCall(Digest(S, &d[1]));
  PetscCheck(d[0] == d[1], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: loaded on this communicator and on one rank, the entries differ", spec);
  PetscCall(MatGetSize(A, &M, &N));
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
  PetscCall(PetscPrintf(comm, "%s: %" PetscInt_FMT " x %" PetscInt_FMT ", %.0f nonzeros, the same on every distribution\n", spec, M, N, info.nz_used));
  PetscCall(MatDestroy(&S));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char     dir[PETSC_MAX_PATH_LEN] = ".", *files[16];
  PetscInt nfiles = (PetscInt)PETSC_STATIC_ARRAY_LENGTH(files);
  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-dir", dir, sizeof(dir), NULL));
  {
    PetscMPIInt rank;
    PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
    if (!rank) PetscCall(PetscMkdir(dir)); /* the scratch folder, if it does not exist */
    PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  }
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-files", files, &nfiles, NULL));
  PetscCall(TestMatrixMarket(PETSC_COMM_WORLD, dir));
  PetscCall(TestSpecs(PETSC_COMM_WORLD, dir));
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(kinds); i++) PetscCall(TestKind(PETSC_COMM_WORLD, &kinds[i]));
  for (PetscInt i = 0; i < nfiles; i++) {
    PetscCall(TestFile(PETSC_COMM_WORLD, files[i]));
    PetscCall(PetscFree(files[i]));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "All checks passed\n"));
  PetscCall(PetscFinalize());
  return 0;
}
