/* A Poisson problem assembled as PETSc's FEM programs assemble theirs (SNES ex12/ex13): the
   Laplacian on a DMPlex box of n x n x n hexahedra, tensor-product Lagrange elements of order 1 or
   2 (Q1, Q2), the boundary's dofs eliminated (Dirichlet), the operator assembled by PETSc's FEM
   machinery (DMCreateMatrix, DMPlexSNESComputeJacobianFEM: element matrices through
   MatSetValuesClosure). SPD; rows (n-1)^3 for Q1, (2n-1)^3 for Q2. */
#pragma once
#include <petscdm.h>

/* The mesh, distributed over comm's ranks, with its discretization and boundary condition */
PETSC_EXTERN PetscErrorCode PlexPoissonCreate(MPI_Comm comm, PetscInt n, PetscInt order, DM *dm);
/* The operator: a matrix of `type` (NULL: the DM's, -dm_mat_type) made by DMCreateMatrix and filled
   by the FEM assembly */
PETSC_EXTERN PetscErrorCode PlexPoissonAssemble(DM dm, MatType type, Mat *A);
