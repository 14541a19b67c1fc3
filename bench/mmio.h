/* Matrices for the benchmark suite: Matrix Market files, PETSc binary files, generated kinds. */
#pragma once
#include <petscmat.h>

/* Reads a Matrix Market file (.mtx, or gzip-compressed .mtx.gz) into an assembled MATAIJ on comm,
   distributed by rows as PETSc decides (PetscSplitOwnership).
   Supported: 'matrix coordinate' with field real, double, integer or pattern (values 1) and
   symmetry general, symmetric or skew-symmetric (stored triangle mirrored; the stored entries
   must be on or below the diagonal, strictly below for skew-symmetric); duplicates are summed.
   Rejected with an error naming the file and line: array (dense) format, complex and hermitian,
   indices outside the size line, fewer or more entries than it announces, malformed lines.
   Rank 0 reads the whole file into CSR (entries kept once as read, then a counting pass and a fill
   pass, rows sorted and merged) and sends every rank its rows (MPI_Scatterv); it holds the
   whole matrix meanwhile (about 28 bytes per stored entry, 40 for symmetric files). An error on
   rank 0 is raised on every rank of comm with rank 0's message. Collective. */
PETSC_EXTERN PetscErrorCode BenchReadMatrixMarket(MPI_Comm comm, const char *path, Mat *A);

/* A matrix by specification, assembled, type MATAIJ:
     *.mtx, *.mtx.gz      Matrix Market (BenchReadMatrixMarket)
     *.bin, *.petsc       PETSc binary (MatLoad; the .info file is ignored, so a block size
                          written there is not applied, and one load does not change the next)
     gen:<kind>:<n>[:<seed>]  a generated matrix (GenCreate of examples/gen.h, seed 1 by default)
   Collective. */
PETSC_EXTERN PetscErrorCode BenchLoadMatrix(MPI_Comm comm, const char *spec, Mat *A);

/* Whether spec is gen:<kind>:<n>[:<seed>], and its parts (kind: a buffer of len bytes; seed 1 by
   default). Error on a malformed gen: spec. */
PETSC_EXTERN PetscErrorCode BenchParseGenSpec(const char *spec, PetscBool *gen, char kind[], size_t len, PetscInt *n, PetscInt *seed);
