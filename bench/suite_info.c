static char help[] = "Sizes of the benchmark's matrices: rows, columns, nonzeros, nonzeros per row, CSR bytes.\n"
                     "  suite_info [-suite <file>] [-dir <folder>] [-load] [-annotate | -check] [-specs <list>]\n"
                     "  -suite <file>   a suite (lines 'name spec [spd|nonsym] [notes] [# comment]')\n"
                     "  -dir <.>        folder of the suite's relative file names\n"
                     "  -load           build gen: matrices too (default: counted by GenCount, nothing built)\n"
                     "  -annotate       print the suite again with every comment replaced by the sizes\n"
                     "  -check          compare the sizes with the suite's comments (error on a difference)\n"
                     "  -specs <list>   matrices as BenchLoadMatrix takes them (file.mtx[.gz], file.bin, gen:kind:n),\n"
                     "                  comma-separated\n"
                     "Otherwise prints a markdown table. CSR bytes: 12 per nonzero + 4 per row (fp64, 32-bit\n"
                     "indices); 'GPU GB' is five such copies (aijcusparse x2, sellcuda, ours, spare), the budget per\n"
                     "matrix of the MatMult benchmark. Files that do not exist are reported and skipped. One rank.\n";

#include <petscmat.h>
#include <string.h>
#include "mmio.h"
#include "gen.h"

typedef struct {
  PetscBool  found;
  PetscInt   M, N, minrow, maxrow;
  PetscInt64 nnz;
} Sizes;

static PetscErrorCode MatrixSizes(const char *spec, PetscBool load, Sizes *s)
{
  PetscBool gen;
  PetscFunctionBegin;
  s->found = PETSC_TRUE;
  PetscCall(PetscStrncmp(spec, "gen:", 4, &gen));
  if (gen && !load) { /* gen:<kind>:<n>[:<seed>] */
    char     kind[64];
    PetscInt n, seed;
    PetscCall(BenchParseGenSpec(spec, &gen, kind, sizeof(kind), &n, &seed));
    PetscCall(GenCount(kind, n, seed, &s->M, &s->N, &s->nnz, &s->minrow, &s->maxrow));
  } else {
    Mat A;
    if (!gen) PetscCall(PetscTestFile(spec, 'r', &s->found));
    if (!s->found) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(BenchLoadMatrix(PETSC_COMM_SELF, spec, &A));
    PetscCall(MatGetSize(A, &s->M, &s->N));
    s->nnz    = 0;
    s->minrow = PETSC_INT_MAX;
    s->maxrow = 0;
    for (PetscInt i = 0; i < s->M; i++) {
      PetscInt nc;
      PetscCall(MatGetRow(A, i, &nc, NULL, NULL));
      s->nnz += nc;
      s->minrow = PetscMin(s->minrow, nc);
      s->maxrow = PetscMax(s->maxrow, nc);
      PetscCall(MatRestoreRow(A, i, &nc, NULL, NULL));
    }
    PetscCall(MatDestroy(&A));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static double CsrGB(const Sizes *s) { return (12.0 * (double)s->nnz + 4.0 * ((double)s->M + 1)) / 1e9; }

/* The suite's comment for these sizes; -check reads back rows= and nnz=. */
static PetscErrorCode Comment(const Sizes *s, char *buf, size_t len)
{
  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(buf, len, "rows=%" PetscInt_FMT " cols=%" PetscInt_FMT " nnz=%" PetscInt64_FMT " per_row=%" PetscInt_FMT "/%.1f/%" PetscInt_FMT " csr_gb=%.2f", s->M, s->N, s->nnz, s->minrow, (double)s->nnz / s->M, s->maxrow, CsrGB(s)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TableHeader(void)
{
  PetscFunctionBegin;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "| matrix | spec | class | rows | cols | nnz | nnz/row min / mean / max | CSR GB | GPU GB |\n"));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "|---|---|---|---:|---:|---:|---|---:|---:|\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TableRow(const char *name, const char *spec, const char *cls, const Sizes *s)
{
  PetscFunctionBegin;
  if (!s->found) PetscCall(PetscPrintf(PETSC_COMM_SELF, "| %s | %s | %s | missing | | | | | |\n", name, spec, cls));
  else
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "| %s | %s | %s | %" PetscInt_FMT " | %" PetscInt_FMT " | %" PetscInt64_FMT " | %" PetscInt_FMT " / %.1f / %" PetscInt_FMT " | %.2f | %.1f |\n", name, spec, cls, s->M, s->N, s->nnz, s->minrow, (double)s->nnz / s->M, s->maxrow, CsrGB(s), 5 * CsrGB(s)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One suite line: "name spec [class] [notes] [# comment]"; blank and comment-only lines are echoed by -annotate. */
static PetscErrorCode SuiteLine(char *line, const char *dir, PetscBool load, PetscBool annotate, PetscBool check, PetscInt *mismatches)
{
  char   *hash = strchr(line, '#'), *name, *spec, *cls, *rest, path[PETSC_MAX_PATH_LEN], comment[256];
  size_t  len;
  Sizes   s;
  PetscFunctionBegin;
  PetscCall(PetscStrlen(line, &len));
  while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = 0;
  if (hash) *hash = 0;
  name = strtok(line, " \t");
  if (!name) { /* blank or comment only */
    if (annotate) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s%s\n", hash ? "#" : "", hash ? hash + 1 : ""));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  spec = strtok(NULL, " \t");
  PetscCheck(spec, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Suite line for '%s' has no spec", name);
  cls  = strtok(NULL, " \t");
  rest = strtok(NULL, "");
  cls  = cls ? cls : (char *)"";
  if (!strncmp(spec, "gen:", 4) || spec[0] == '/') PetscCall(PetscStrncpy(path, spec, sizeof(path)));
  else PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", dir, spec));
  PetscCall(MatrixSizes(path, load, &s));
  if (s.found) PetscCall(Comment(&s, comment, sizeof(comment)));
  if (annotate) {
    while (rest && (*rest == ' ' || *rest == '\t')) rest++;
    while (rest && *rest && (rest[strlen(rest) - 1] == ' ' || rest[strlen(rest) - 1] == '\t')) rest[strlen(rest) - 1] = 0;
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-18s %-26s %-7s %-44s # %s\n", name, spec, cls, rest ? rest : "", s.found ? comment : (hash ? hash + 1 : "")));
  } else if (check) {
    const char *rows = hash ? strstr(hash + 1, "rows=") : NULL, *nnz = hash ? strstr(hash + 1, "nnz=") : NULL;
    PetscCheck(rows && nnz, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Suite line for '%s' has no '# rows=... nnz=...' comment to check", name);
    if (!s.found) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-18s missing: %s\n", name, path));
    else if (strtoll(rows + 5, NULL, 10) != s.M || strtoll(nnz + 4, NULL, 10) != s.nnz) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-18s DIFFERS: %s, the comment says %s\n", name, comment, hash + 1));
      (*mismatches)++;
    } else PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-18s ok: %s\n", name, comment));
  } else PetscCall(TableRow(name, spec, cls, &s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char        suite[PETSC_MAX_PATH_LEN] = "", dir[PETSC_MAX_PATH_LEN] = ".";
  PetscBool   load = PETSC_FALSE, annotate = PETSC_FALSE, check = PETSC_FALSE;
  PetscInt    mismatches = 0;
  PetscMPIInt size;
  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCheck(size == 1, PETSC_COMM_WORLD, PETSC_ERR_SUP, "suite_info runs on one rank");
  PetscCall(PetscOptionsGetString(NULL, NULL, "-suite", suite, sizeof(suite), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-dir", dir, sizeof(dir), NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-load", &load, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-annotate", &annotate, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-check", &check, NULL));
  PetscCheck(!(annotate && check), PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "Use -annotate or -check, not both");
  PetscCheck(suite[0] || !(annotate || check), PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-annotate and -check need -suite");
  if (!annotate && !check) PetscCall(TableHeader());
  if (suite[0]) {
    FILE *f;
    char  line[1024];
    PetscCall(PetscFOpen(PETSC_COMM_SELF, suite, "r", &f));
    while (fgets(line, sizeof(line), f)) PetscCall(SuiteLine(line, dir, load, annotate, check, &mismatches));
    PetscCall(PetscFClose(PETSC_COMM_SELF, f));
  }
  {
    char     *specs[64];
    PetscInt  nspecs = (PetscInt)PETSC_STATIC_ARRAY_LENGTH(specs);
    PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-specs", specs, &nspecs, NULL));
    for (PetscInt i = 0; i < nspecs; i++) {
      Sizes s;
      PetscCall(MatrixSizes(specs[i], load, &s));
      PetscCall(TableRow(specs[i], specs[i], "", &s));
      PetscCall(PetscFree(specs[i]));
    }
  }
  PetscCheck(!mismatches, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%" PetscInt_FMT " suite lines differ from their comments", mismatches);
  PetscCall(PetscFinalize());
  return 0;
}
