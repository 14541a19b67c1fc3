/* See plex.h. */
#include <petscdmplex.h>
#include <petscds.h>
#include <petscfe.h>
#include <petscsnes.h>
#include "plex.h"

/* The Laplacian's pointwise Jacobian, grad v . grad u (SNES ex13's g3_uu) */
static void g3_uu(PetscInt dim, PetscInt Nf, PetscInt NfAux, const PetscInt uOff[], const PetscInt uOff_x[], const PetscScalar u[], const PetscScalar u_t[], const PetscScalar u_x[], const PetscInt aOff[], const PetscInt aOff_x[], const PetscScalar a[], const PetscScalar a_t[], const PetscScalar a_x[], PetscReal t, PetscReal u_tShift, const PetscReal x[], PetscInt numConstants, const PetscScalar constants[], PetscScalar g3[])
{
  for (PetscInt d = 0; d < dim; ++d) g3[d * dim + d] = 1.0;
}

static PetscErrorCode zero(PetscInt dim, PetscReal time, const PetscReal x[], PetscInt Nc, PetscScalar *u, void *ctx)
{
  for (PetscInt c = 0; c < Nc; ++c) u[c] = 0.0;
  return PETSC_SUCCESS;
}

PetscErrorCode PlexPoissonCreate(MPI_Comm comm, PetscInt n, PetscInt order, DM *dm)
{
  const PetscInt faces[3] = {n, n, n}, id = 1;
  DM             pdm = NULL;
  DMLabel        label;
  PetscFE        fe;
  PetscDS        ds;
  PetscFunctionBegin;
  PetscCheck(n >= 2, comm, PETSC_ERR_ARG_OUTOFRANGE, "plex3d: n = %" PetscInt_FMT " cells a side leaves no interior dof; take n >= 2", n);
  PetscCheck(order == 1 || order == 2, comm, PETSC_ERR_ARG_OUTOFRANGE, "plex3d: element order %" PetscInt_FMT ", not 1 or 2", order);
  PetscCall(DMPlexCreateBoxMesh(comm, 3, PETSC_FALSE, faces, NULL, NULL, NULL, PETSC_TRUE, 0, PETSC_FALSE, dm));
  PetscCall(DMCreateLabel(*dm, "wall"));
  PetscCall(DMGetLabel(*dm, "wall", &label));
  PetscCall(DMPlexMarkBoundaryFaces(*dm, 1, label));
  PetscCall(DMPlexLabelComplete(*dm, label));
  PetscCall(DMPlexDistribute(*dm, 0, NULL, &pdm));
  if (pdm) {
    PetscCall(DMDestroy(dm));
    *dm = pdm;
  }
  PetscCall(PetscFECreateLagrange(PETSC_COMM_SELF, 3, 1, PETSC_FALSE, order, PETSC_DETERMINE, &fe));
  PetscCall(DMSetField(*dm, 0, NULL, (PetscObject)fe));
  PetscCall(PetscFEDestroy(&fe));
  PetscCall(DMCreateDS(*dm));
  PetscCall(DMGetDS(*dm, &ds));
  PetscCall(PetscDSSetJacobian(ds, 0, 0, NULL, NULL, NULL, g3_uu));
  PetscCall(DMGetLabel(*dm, "wall", &label));
  PetscCall(DMAddBoundary(*dm, DM_BC_ESSENTIAL, "wall", label, 1, &id, 0, 0, NULL, (PetscVoidFn *)zero, NULL, NULL, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PlexPoissonAssemble(DM dm, MatType type, Mat *A)
{
  Vec u;
  PetscFunctionBegin;
  if (type) PetscCall(DMSetMatType(dm, type));
  PetscCall(DMCreateMatrix(dm, A));
  PetscCall(DMGetGlobalVector(dm, &u));
  PetscCall(VecSet(u, 0.0));
  PetscCall(DMPlexSNESComputeJacobianFEM(dm, u, *A, *A, NULL));
  PetscCall(DMRestoreGlobalVector(dm, &u));
  PetscFunctionReturn(PETSC_SUCCESS);
}
