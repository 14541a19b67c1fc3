/* Deterministic generated matrices for the examples, tests and benchmarks (PETSc, any number of
   ranks). Every row is a function of its global index and the seed only (counter-based random
   numbers), so a matrix is the same on any number of ranks. Values make the square matrices
   diagonally dominant, so Jacobi-preconditioned Krylov methods converge; stencils are SPD
   M-matrices. Generation is two passes over the local rows (lengths, then entries) into CSR arrays
   handed to Mat{Seq,MPI}AIJSetPreallocationCSR: about 15 s for 200M nonzeros on one core. */
#pragma once
#include <petscmat.h>

/* Kinds, by name: rows x columns, and nonzeros per row as min / mean / max, for the parameter n
   (means and maxima of the random kinds measured at the sizes in brackets; examples in
   bench/suite.txt). Classes of the test sets of the SpMV papers (Bell-Garland, Liu-Vinter, yaSpMV,
   BCE) in parentheses.
   stencils (SPD)
     lap2d     2D 5-point Laplacian on an n x n grid        n^2 x n^2    3 / 5 / 5
     lap3d     3D 7-point Laplacian on an n^3 grid          n^3 x n^3    4 / 7 / 7
     lap3d27   3D 27-point stencil on an n^3 grid           n^3 x n^3    8 / 27 / 27
     lap3dv    lap3d's pattern with variable coefficients: symmetric values of the pair in
               [-1, -0.1], the diagonal their magnitudes' sum plus one   n^3 x n^3    4 / 7 / 7
   FEM-like (SPD: symmetric pattern and values; block size d, whole nodes per rank): dense d x d
   blocks on the node graph of an n^3 grid; a node is coupled to itself, to its 6 face neighbours,
   and to its edge / corner neighbours with a probability (a hash of the unordered node pair)
     fem3      d = 3, edges 3/4, corners 1/2               3n^3 x 3n^3  12 / 59 / 81     (FEM/Cantilever, Spheres)
     fem6      d = 6, edges 1/2, no corners                6n^3 x 6n^3  24 / 76 / 114    (FEM/Ship, shells)
     fem3c     fem3's pattern with constant coefficients: off-diagonals -1, the diagonal the row's
               length (a value per distinct row length: a few dozen distinct values)
   sampled (nonsymmetric): the diagonal plus random columns; "stratified": k columns out of a range
   are drawn one in each of k equal parts of it, so a row is sorted and duplicate-free by
   construction and its length is known before its columns
     uniform   diagonal + 3 random columns, duplicates merged    n x n   1 / 4 / 4     (legacy)
     powerlaw  Pareto(1.2) lengths, min 2, at most 50000, random columns, duplicates merged
                                                                 n x n   1 / 10 / 50000 [n = 2M: 10.1, 49403] (legacy)
     short4    diagonal + 3 stratified columns                   n x n   4 / 4 / 4      (Epidemiology)
     random    diagonal + 15 stratified columns                  n x n   16 / 16 / 16
     econ      diagonal + Lomax(alpha 4, scale 16.5) off-diagonals, at most 1000: half of them
               stratified in a window of +-max(64, their count) around the diagonal, half
               stratified outside it                             n x n   1 / 6 / ~16.5 n^(1/4) [n = 207K: 332] (Economics, Circuit)
     web       diagonal + Lomax(alpha 1.7, scale 1.75) off-diagonals, at most 50000: a quarter
               outside, the rest in a window of +-max(512, their count)
                                                                 n x n   1 / 3.1 / 10^4..   [n = 1M: 13326, 40M: 24451] (Webbase)
     circuit   like econ with Lomax(alpha 2.5, scale 6.75), at most 1000, plus 8 hub rows (rows
               (2k+1) n / 16, k < 8) of n / (5 2^k) stratified off-diagonals (supply nets)
                                                                 n x n   1 / 5.4 / n/5 + 1  (circuit5M)
     lp        1 + Lomax(alpha 2, scale 0.64 n) stratified columns, at most 16 n; no diagonal
                                                                 n x 256n  1 / 0.63 n / 16 n  (LP rail4284: n = 4096)
     dense     every entry; symmetric values (SPD)               n x n   n / n / n      (Dense)
     emptyrows like random on every 100th row, the other 99 empty (singular: no KSP)
                                                                 n x n   0 / 0.16 / 16   (rows removed for
               boundary conditions, rectangular coupling blocks)
   Off-diagonal values are in [-1, -0.1]; the diagonal is the sum of their magnitudes plus one, so
   square matrices are strictly diagonally dominant, except the legacy powerlaw and uniform rows
   whose random columns hit the diagonal (then their value is added to it); lap2d, lap3d and lap3d27
   are weakly dominant. Distinct values: lap2d, lap3d and lap3d27 two, fem3c a few dozen, the
   others about one per nonzero. The matrix is created with type `type`, or where `type` is NULL with the type and
   options MatSetFromOptions reads (-mat_type, default MATAIJ; the type's options, listed by
   -help), and assembled. */
#define GEN_KINDS "lap2d, lap3d, lap3d27, lap3dv, powerlaw, uniform, fem3, fem6, fem3c, short4, random, econ, web, circuit, lp, dense, emptyrows"

PETSC_EXTERN PetscErrorCode GenCreate(MPI_Comm comm, const char *kind, PetscInt n, PetscInt seed, MatType type, Mat *A);
/* Global rows M and columns N of a kind for the parameter n (an error when they overflow PetscInt). */
PETSC_EXTERN PetscErrorCode GenSizes(const char *kind, PetscInt n, PetscInt *M, PetscInt *N);
/* Whether the kind is symmetric positive definite (CG applies). */
PETSC_EXTERN PetscErrorCode GenIsSPD(const char *kind, PetscBool *spd);
/* Sizes and nonzero counts without building the matrix (the first, length pass over all rows, on
   the calling process): rows, columns, nonzeros, shortest and longest row. Any output may be NULL. */
PETSC_EXTERN PetscErrorCode GenCount(const char *kind, PetscInt n, PetscInt seed, PetscInt *M, PetscInt *N, PetscInt64 *nnz, PetscInt *minrow, PetscInt *maxrow);

/* max|a-b| / max|b| over the local parts, reduced over the communicator; a and b may be of
   different vector types (host and CUDA): compared through host arrays. */
PETSC_EXTERN PetscErrorCode GenRelDiff(Vec a, Vec b, PetscReal *diff);
/* Whether v is a device vector (CUDA or Kokkos): the examples' "ran on the GPU". */
PETSC_EXTERN PetscErrorCode GenIsDeviceVec(Vec v, PetscBool *dev);
