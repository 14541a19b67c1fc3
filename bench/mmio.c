#include "mmio.h"
#include "gen.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

/* The state of one read on rank 0; MMReaderDestroy() frees whatever a failed read left. */
typedef struct {
  const char  *path;
  gzFile       f;
  char         line[4096];
  PetscInt64   lineno;
  PetscBool    pattern, symmetric, skew;
  PetscInt     M, N;
  PetscInt64   nstored;      /* entries announced by the size line */
  PetscInt    *ti, *tj;      /* the entries as read, 0-based */
  PetscScalar *tv;
  PetscInt    *ai, *aj, *pos; /* CSR of the whole matrix; pos: fill positions */
  PetscScalar *aa;
} MMReader;

static PetscErrorCode MMReaderDestroy(MMReader *rd)
{
  PetscFunctionBegin;
  if (rd->f) (void)gzclose(rd->f);
  rd->f = NULL;
  PetscCall(PetscFree3(rd->ti, rd->tj, rd->tv));
  PetscCall(PetscFree2(rd->ai, rd->pos));
  PetscCall(PetscFree2(rd->aj, rd->aa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The next line, without its end of line, in rd->line; *eof at the end of the file. A comment
   longer than the buffer is skipped; any other line that long is an error. */
static PetscErrorCode MMNextLine(MMReader *rd, PetscBool *eof)
{
  size_t len;
  PetscFunctionBegin;
  *eof = PETSC_FALSE;
  if (!gzgets(rd->f, rd->line, (int)sizeof(rd->line))) {
    int         err;
    const char *msg = gzerror(rd->f, &err);
    PetscCheck(err == Z_OK, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "%s: read error after line %" PetscInt64_FMT ": %s", rd->path, rd->lineno, err == Z_ERRNO ? strerror(errno) : msg);
    *eof = PETSC_TRUE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  rd->lineno++;
  len = strlen(rd->line);
  if (len > 0 && rd->line[len - 1] == '\n') rd->line[--len] = 0;
  else if (!gzeof(rd->f)) {
    int c;
    PetscCheck(rd->line[0] == '%', PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s:%" PetscInt64_FMT ": line longer than %zu characters", rd->path, rd->lineno, sizeof(rd->line) - 2);
    while ((c = gzgetc(rd->f)) != -1 && c != '\n') continue;
  }
  if (len > 0 && rd->line[len - 1] == '\r') rd->line[--len] = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The next line that is neither a comment nor blank; *eof at the end of the file. */
static PetscErrorCode MMNextDataLine(MMReader *rd, PetscBool *eof)
{
  PetscFunctionBegin;
  for (;;) {
    const char *p = rd->line;
    PetscCall(MMNextLine(rd, eof));
    if (*eof) break;
    while (*p == ' ' || *p == '\t') p++;
    if (*p && *p != '%') break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A whitespace-separated integer at *p, advanced past it. */
static PetscErrorCode MMParseInt(MMReader *rd, char **p, const char *what, PetscInt64 *v)
{
  char *end;
  PetscFunctionBegin;
  errno = 0;
  *v    = strtoll(*p, &end, 10);
  PetscCheck(end != *p && errno == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s:%" PetscInt64_FMT ": expected the %s, an integer, in '%s'", rd->path, rd->lineno, what, rd->line);
  *p = end;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Nothing but white space may follow the last expected token. */
static PetscErrorCode MMCheckEnd(MMReader *rd, const char *p, const char *expected)
{
  PetscFunctionBegin;
  while (*p == ' ' || *p == '\t') p++;
  PetscCheck(!*p, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s:%" PetscInt64_FMT ": unexpected '%s' after %s", rd->path, rd->lineno, p, expected);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The banner "%%MatrixMarket matrix coordinate <field> <symmetry>" and the size line. */
static PetscErrorCode MMReadHeader(MMReader *rd)
{
  char       object[64], format[64], field[64], symmetry[64];
  char      *p;
  PetscBool  eof;
  PetscInt64 M, N, nz;
  PetscFunctionBegin;
  PetscCall(MMNextLine(rd, &eof));
  PetscCheck(!eof && !strncasecmp(rd->line, "%%MatrixMarket", 14), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s is not a Matrix Market file: the first line must begin with %%%%MatrixMarket", rd->path);
  PetscCheck(sscanf(rd->line + 14, "%63s %63s %63s %63s", object, format, field, symmetry) == 4, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s:1: expected '%%%%MatrixMarket matrix coordinate <field> <symmetry>', got '%s'", rd->path, rd->line);
  PetscCheck(!strcasecmp(object, "matrix"), PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: object '%s' is not supported, only 'matrix'", rd->path, object);
  PetscCheck(!strcasecmp(format, "coordinate"), PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: format '%s' is not supported, only 'coordinate' (sparse); 'array' is dense storage", rd->path, format);
  if (!strcasecmp(field, "pattern")) rd->pattern = PETSC_TRUE;
  else PetscCheck(!strcasecmp(field, "real") || !strcasecmp(field, "double") || !strcasecmp(field, "integer"), PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: field '%s' is not supported, only real, integer or pattern (petsc-gpumat is real)", rd->path, field);
  if (!strcasecmp(symmetry, "symmetric")) rd->symmetric = PETSC_TRUE;
  else if (!strcasecmp(symmetry, "skew-symmetric")) rd->skew = PETSC_TRUE;
  else PetscCheck(!strcasecmp(symmetry, "general"), PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: symmetry '%s' is not supported, only general, symmetric or skew-symmetric", rd->path, symmetry);

  PetscCall(MMNextDataLine(rd, &eof));
  PetscCheck(!eof, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: the file ends before the size line 'rows columns entries'", rd->path);
  p = rd->line;
  PetscCall(MMParseInt(rd, &p, "number of rows", &M));
  PetscCall(MMParseInt(rd, &p, "number of columns", &N));
  PetscCall(MMParseInt(rd, &p, "number of entries", &nz));
  PetscCall(MMCheckEnd(rd, p, "the size line 'rows columns entries'"));
  PetscCheck(M > 0 && N > 0 && nz >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s:%" PetscInt64_FMT ": sizes must be positive and the entry count non-negative, got %" PetscInt64_FMT " %" PetscInt64_FMT " %" PetscInt64_FMT, rd->path, rd->lineno, M, N, nz);
  PetscCheck(M <= PETSC_INT_MAX && N <= PETSC_INT_MAX && nz <= PETSC_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: %" PetscInt64_FMT " x %" PetscInt64_FMT " with %" PetscInt64_FMT " entries does not fit PetscInt (%" PetscInt_FMT "); use a PETSc with 64-bit indices", rd->path, M, N, nz, PETSC_INT_MAX);
  PetscCheck(!(rd->symmetric || rd->skew) || M == N, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: a %s matrix must be square, got %" PetscInt64_FMT " x %" PetscInt64_FMT, rd->path, symmetry, M, N);
  rd->M       = (PetscInt)M;
  rd->N       = (PetscInt)N;
  rd->nstored = nz;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The entries, checked against the size line, into ti/tj/tv. */
static PetscErrorCode MMReadEntries(MMReader *rd)
{
  const char *expected = rd->pattern ? "'row column'" : "'row column value'";
  PetscBool   eof;
  PetscFunctionBegin;
  PetscCall(PetscMalloc3(rd->nstored, &rd->ti, rd->nstored, &rd->tj, rd->nstored, &rd->tv));
  for (PetscInt64 k = 0; k < rd->nstored; k++) {
    PetscInt64 i, j;
    char      *p;
    PetscCall(MMNextDataLine(rd, &eof));
    PetscCheck(!eof, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: the file ends after %" PetscInt64_FMT " of the %" PetscInt64_FMT " entries of its size line", rd->path, k, rd->nstored);
    p = rd->line;
    PetscCall(MMParseInt(rd, &p, "row index", &i));
    PetscCall(MMParseInt(rd, &p, "column index", &j));
    PetscCheck(i >= 1 && i <= rd->M && j >= 1 && j <= rd->N, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s:%" PetscInt64_FMT ": entry (%" PetscInt64_FMT ", %" PetscInt64_FMT ") is outside the %" PetscInt_FMT " x %" PetscInt_FMT " matrix (indices are 1-based)", rd->path, rd->lineno, i, j, rd->M, rd->N);
    PetscCheck(!rd->symmetric || i >= j, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s:%" PetscInt64_FMT ": entry (%" PetscInt64_FMT ", %" PetscInt64_FMT ") above the diagonal: a symmetric file stores the lower triangle only", rd->path, rd->lineno, i, j);
    PetscCheck(!rd->skew || i > j, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s:%" PetscInt64_FMT ": entry (%" PetscInt64_FMT ", %" PetscInt64_FMT ") on or above the diagonal: a skew-symmetric file stores the strict lower triangle only", rd->path, rd->lineno, i, j);
    rd->ti[k] = (PetscInt)(i - 1);
    rd->tj[k] = (PetscInt)(j - 1);
    if (rd->pattern) rd->tv[k] = 1.0;
    else {
      char *end;
      rd->tv[k] = (PetscScalar)strtod(p, &end);
      PetscCheck(end != p, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s:%" PetscInt64_FMT ": expected %s, got '%s'", rd->path, rd->lineno, expected, rd->line);
      p = end;
    }
    PetscCall(MMCheckEnd(rd, p, expected));
  }
  PetscCall(MMNextDataLine(rd, &eof));
  PetscCheck(eof, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s:%" PetscInt64_FMT ": more entries than the %" PetscInt64_FMT " of the size line", rd->path, rd->lineno, rd->nstored);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* CSR from the entries: counting pass, fill pass (mirroring the symmetric ones), then every row
   sorted and its duplicates summed, compacted in place. */
static PetscErrorCode MMBuildCSR(MMReader *rd)
{
  const PetscBool mirror = rd->symmetric || rd->skew;
  PetscInt64      total  = rd->nstored;
  PetscInt        w      = 0;
  PetscFunctionBegin;
  PetscCall(PetscCalloc2(rd->M + 1, &rd->ai, rd->M, &rd->pos));
  for (PetscInt64 k = 0; k < rd->nstored; k++) {
    rd->ai[rd->ti[k] + 1]++;
    if (mirror && rd->ti[k] != rd->tj[k]) {
      rd->ai[rd->tj[k] + 1]++;
      total++;
    }
  }
  PetscCheck(total <= PETSC_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: %" PetscInt64_FMT " nonzeros with the mirrored triangle do not fit PetscInt; use a PETSc with 64-bit indices", rd->path, total);
  for (PetscInt i = 0; i < rd->M; i++) {
    rd->ai[i + 1] += rd->ai[i];
    rd->pos[i] = rd->ai[i];
  }
  PetscCall(PetscMalloc2(total, &rd->aj, total, &rd->aa));
  for (PetscInt64 k = 0; k < rd->nstored; k++) {
    const PetscInt i = rd->ti[k], j = rd->tj[k];
    rd->aj[rd->pos[i]]   = j;
    rd->aa[rd->pos[i]++] = rd->tv[k];
    if (mirror && i != j) {
      rd->aj[rd->pos[j]]   = i;
      rd->aa[rd->pos[j]++] = rd->skew ? -rd->tv[k] : rd->tv[k];
    }
  }
  PetscCall(PetscFree3(rd->ti, rd->tj, rd->tv));
  for (PetscInt i = 0; i < rd->M; i++) {
    const PetscInt start = rd->ai[i], len = rd->ai[i + 1] - start;
    PetscBool      sorted;
    PetscCall(PetscSortedInt(len, rd->aj + start, &sorted));
    if (!sorted) PetscCall(PetscSortIntWithScalarArray(len, rd->aj + start, rd->aa + start));
    rd->ai[i] = w;
    for (PetscInt k = start; k < start + len; k++) {
      if (w > rd->ai[i] && rd->aj[w - 1] == rd->aj[k]) rd->aa[w - 1] += rd->aa[k];
      else {
        rd->aj[w]   = rd->aj[k];
        rd->aa[w++] = rd->aa[k];
      }
    }
  }
  rd->ai[rd->M] = w;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MMRead(MMReader *rd)
{
  PetscFunctionBegin;
  errno = 0;
  rd->f = gzopen(rd->path, "rb"); /* reads uncompressed files as they are */
  PetscCheck(rd->f, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open Matrix Market file %s: %s", rd->path, errno ? strerror(errno) : "out of memory");
  PetscCheck(gzbuffer(rd->f, 1 << 20) == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "zlib: gzbuffer failed on %s", rd->path);
  PetscCall(MMReadHeader(rd));
  PetscCall(MMReadEntries(rd));
  (void)gzclose(rd->f);
  rd->f = NULL;
  PetscCall(MMBuildCSR(rd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* An assembled MATAIJ from local CSR rows (global column indices). */
static PetscErrorCode CreateFromCSR(MPI_Comm comm, PetscInt m, PetscInt M, PetscInt N, const PetscInt ai[], const PetscInt aj[], const PetscScalar aa[], Mat *A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, m, M == N ? m : PETSC_DECIDE, M, N));
  PetscCall(MatSetType(*A, MATAIJ));
  PetscCall(MatSeqAIJSetPreallocationCSR(*A, ai, aj, aa));
  PetscCall(MatMPIAIJSetPreallocationCSR(*A, ai, aj, aa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BenchReadMatrixMarket(MPI_Comm comm, const char *path, Mat *A)
{
  MMReader       rd = {0};
  PetscMPIInt    rank, size;
  PetscInt64     info[3] = {0, 0, 0}; /* error code, rows, columns */
  char           msg[1024] = "";
  PetscLayout    rows;
  const PetscInt *ranges;
  PetscInt       m;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (rank == 0) {
    /* errors are collected here and raised on every rank below */
    PetscErrorCode rerr;
    rd.path = path;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    rerr = MMRead(&rd);
    PetscCall(PetscPopErrorHandler());
    if (rerr) {
      const char *specific;
      PetscCall(PetscErrorMessage(rerr, NULL, &specific));
      PetscCall(PetscStrncpy(msg, specific, sizeof(msg)));
      PetscCall(MMReaderDestroy(&rd));
    }
    info[0] = rerr;
    info[1] = rd.M;
    info[2] = rd.N;
  }
  PetscCallMPI(MPI_Bcast(info, 3, MPIU_INT64, 0, comm));
  if (info[0]) {
    PetscCallMPI(MPI_Bcast(msg, (PetscMPIInt)sizeof(msg), MPI_CHAR, 0, comm));
    SETERRQ(comm, (PetscErrorCode)info[0], "%s", msg);
  }

  PetscCall(PetscLayoutCreateFromSizes(comm, PETSC_DECIDE, (PetscInt)info[1], 1, &rows));
  PetscCall(PetscLayoutGetLocalSize(rows, &m));
  PetscCall(PetscLayoutGetRanges(rows, &ranges));
  if (size == 1) PetscCall(CreateFromCSR(comm, m, (PetscInt)info[1], (PetscInt)info[2], rd.ai, rd.aj, rd.aa, A));
  else {
    PetscMPIInt *counts = NULL, *displs = NULL, nrecv;
    PetscInt    *ai, *aj;
    PetscScalar *aa;
    /* row pointers: rows [r0, r1) need ai[r0..r1], so the ranks' pieces overlap by one */
    if (rank == 0) {
      PetscCall(PetscMalloc2(size, &counts, size, &displs));
      for (PetscMPIInt r = 0; r < size; r++) {
        PetscCall(PetscMPIIntCast(ranges[r + 1] - ranges[r] + 1, &counts[r]));
        PetscCall(PetscMPIIntCast(ranges[r], &displs[r]));
      }
    }
    PetscCall(PetscMalloc1(m + 1, &ai));
    PetscCall(PetscMPIIntCast(m + 1, &nrecv));
    PetscCallMPI(MPI_Scatterv(rd.ai, counts, displs, MPIU_INT, ai, nrecv, MPIU_INT, 0, comm));
    for (PetscInt i = m; i >= 0; i--) ai[i] -= ai[0];
    if (rank == 0)
      for (PetscMPIInt r = 0; r < size; r++) {
        PetscCall(PetscMPIIntCast(rd.ai[ranges[r + 1]] - rd.ai[ranges[r]], &counts[r]));
        PetscCall(PetscMPIIntCast(rd.ai[ranges[r]], &displs[r]));
      }
    PetscCall(PetscMPIIntCast(ai[m], &nrecv));
    PetscCall(PetscMalloc2(ai[m], &aj, ai[m], &aa));
    PetscCallMPI(MPI_Scatterv(rd.aj, counts, displs, MPIU_INT, aj, nrecv, MPIU_INT, 0, comm));
    PetscCallMPI(MPI_Scatterv(rd.aa, counts, displs, MPIU_SCALAR, aa, nrecv, MPIU_SCALAR, 0, comm));
    PetscCall(CreateFromCSR(comm, m, (PetscInt)info[1], (PetscInt)info[2], ai, aj, aa, A));
    PetscCall(PetscFree(ai));
    PetscCall(PetscFree2(aj, aa));
    PetscCall(PetscFree2(counts, displs));
  }
  PetscCall(PetscLayoutDestroy(&rows));
  PetscCall(MMReaderDestroy(&rd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BenchParseGenSpec(const char *spec, PetscBool *gen, char kind[], size_t len, PetscInt *n, PetscInt *seed)
{
  char buf[256], *k = buf + 4, *ns, *seeds;
  PetscFunctionBegin;
  PetscCall(PetscStrncmp(spec, "gen:", 4, gen));
  if (!*gen) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscStrncpy(buf, spec, sizeof(buf)));
  ns = strchr(k, ':');
  PetscCheck(ns, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Matrix spec '%s': expected gen:<kind>:<n>[:<seed>]", spec);
  *ns++ = 0;
  *seed = 1;
  seeds = strchr(ns, ':');
  if (seeds) {
    *seeds++ = 0;
    PetscCall(PetscOptionsStringToInt(seeds, seed));
  }
  PetscCall(PetscOptionsStringToInt(ns, n));
  PetscCall(PetscStrncpy(kind, k, len));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BenchLoadMatrix(MPI_Comm comm, const char *spec, Mat *A)
{
  PetscBool gen, mtx, mtxgz, bin, petsc;
  PetscFunctionBegin;
  PetscCall(PetscStrncmp(spec, "gen:", 4, &gen));
  PetscCall(PetscStrendswith(spec, ".mtx", &mtx));
  PetscCall(PetscStrendswith(spec, ".mtx.gz", &mtxgz));
  PetscCall(PetscStrendswith(spec, ".bin", &bin));
  PetscCall(PetscStrendswith(spec, ".petsc", &petsc));
  if (gen) {
    char     kind[64];
    PetscInt n, seed;
    PetscCall(BenchParseGenSpec(spec, &gen, kind, sizeof(kind), &n, &seed));
    PetscCall(GenCreate(comm, kind, n, seed, MATAIJ, A));
  } else if (mtx || mtxgz) PetscCall(BenchReadMatrixMarket(comm, spec, A));
  else if (bin || petsc) {
    PetscViewer viewer;
    PetscCall(PetscViewerCreate(comm, &viewer));
    PetscCall(PetscViewerSetType(viewer, PETSCVIEWERBINARY));
    PetscCall(PetscViewerBinarySetSkipInfo(viewer, PETSC_TRUE));
    PetscCall(PetscViewerFileSetMode(viewer, FILE_MODE_READ));
    PetscCall(PetscViewerFileSetName(viewer, spec));
    PetscCall(MatCreate(comm, A));
    PetscCall(MatSetType(*A, MATAIJ));
    PetscCall(MatLoad(*A, viewer));
    PetscCall(PetscViewerDestroy(&viewer));
  } else SETERRQ(comm, PETSC_ERR_ARG_WRONG, "Matrix spec '%s': use file.mtx, file.mtx.gz, file.bin, file.petsc or gen:<kind>:<n>[:<seed>]", spec);
  PetscFunctionReturn(PETSC_SUCCESS);
}
