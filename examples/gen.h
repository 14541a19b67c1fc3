/* Deterministic generated matrices for the examples and tests (PETSc, any number of ranks).
   Every row is a function of its global index and the seed only, so a matrix is the same on any
   number of ranks. Values make the matrices diagonally dominant (Jacobi-preconditioned Krylov
   methods converge); stencils are SPD M-matrices. */
#pragma once
#include <petscmat.h>

/* Kinds, by name:
     lap2d     2D 5-point Laplacian on an n x n grid                (rows n^2,  5 per row)
     lap3d     3D 7-point Laplacian on an n^3 grid                  (rows n^3,  7 per row)
     lap3d27   3D 27-point stencil on an n^3 grid                   (rows n^3, 27 per row)
     powerlaw  n rows, Pareto(alpha=1.2) row lengths, mean ~12, random columns, max 50000 per row
     uniform   n rows, 4 nonzeros per row (diagonal + 3 random columns)
   The matrix is created with type `type` (NULL: MATAIJ) and assembled. */
PETSC_EXTERN PetscErrorCode GenCreate(MPI_Comm comm, const char *kind, PetscInt n, PetscInt seed, MatType type, Mat *A);
/* Whether the kind is symmetric positive definite (CG applies). */
PETSC_EXTERN PetscErrorCode GenIsSPD(const char *kind, PetscBool *spd);

/* max|a-b| / max|b| over the local parts, reduced over the communicator; a and b may be of
   different vector types (host and CUDA): compared through host arrays. */
PETSC_EXTERN PetscErrorCode GenRelDiff(Vec a, Vec b, PetscReal *diff);
