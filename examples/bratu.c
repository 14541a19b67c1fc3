static char help[] = "Bratu (solid fuel ignition) on a 2D DMDA: -lap(u) - lambda exp(u) = 0, u = 0 on the boundary,\n"
                     "5-point finite differences. Newton re-assembles the Jacobian every step, as a PETSc application\n"
                     "does: the matrix type comes from -dm_mat_type (aij, aijcusparse, csrspec, ...), vectors from\n"
                     "-dm_vec_type. Prints the Newton and Krylov iterations and the Jacobian's type.\n"
                     "  -lambda <6.0>      the Bratu parameter (0 .. 6.8)\n"
                     "  -da_grid_x/y <400> the grid\n";

#include <petscsnes.h>
#include <petscdmda.h>
#include <petscgpumat.h>

typedef struct {
  PetscReal lambda;
} AppCtx;

static PetscErrorCode FormFunctionLocal(DMDALocalInfo *info, PetscScalar **x, PetscScalar **f, AppCtx *user)
{
  const PetscReal hx = 1.0 / (info->mx - 1), hy = 1.0 / (info->my - 1), sc = hx * hy * user->lambda, hxdhy = hx / hy, hydhx = hy / hx;
  PetscFunctionBeginUser;
  for (PetscInt j = info->ys; j < info->ys + info->ym; j++)
    for (PetscInt i = info->xs; i < info->xs + info->xm; i++) {
      if (i == 0 || j == 0 || i == info->mx - 1 || j == info->my - 1) {
        f[j][i] = x[j][i];
        continue;
      }
      const PetscScalar u = x[j][i], uxx = (2.0 * u - x[j][i - 1] - x[j][i + 1]) * hydhx, uyy = (2.0 * u - x[j - 1][i] - x[j + 1][i]) * hxdhy;
      f[j][i] = uxx + uyy - sc * PetscExpScalar(u);
    }
  PetscCall(PetscLogFlops(11.0 * info->ym * info->xm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FormJacobianLocal(DMDALocalInfo *info, PetscScalar **x, Mat J, Mat P, AppCtx *user)
{
  const PetscReal hx = 1.0 / (info->mx - 1), hy = 1.0 / (info->my - 1), sc = hx * hy * user->lambda, hxdhy = hx / hy, hydhx = hy / hx;
  PetscFunctionBeginUser;
  for (PetscInt j = info->ys; j < info->ys + info->ym; j++)
    for (PetscInt i = info->xs; i < info->xs + info->xm; i++) {
      MatStencil row = {0, j, i, 0}, col[5];
      PetscScalar v[5];
      if (i == 0 || j == 0 || i == info->mx - 1 || j == info->my - 1) {
        v[0] = 1.0;
        PetscCall(MatSetValuesStencil(P, 1, &row, 1, &row, v, INSERT_VALUES));
        continue;
      }
      PetscInt k = 0;
      col[k] = (MatStencil){0, j - 1, i, 0}; v[k++] = -hxdhy;
      col[k] = (MatStencil){0, j, i - 1, 0}; v[k++] = -hydhx;
      col[k] = row;                          v[k++] = 2.0 * (hydhx + hxdhy) - sc * PetscExpScalar(x[j][i]);
      col[k] = (MatStencil){0, j, i + 1, 0}; v[k++] = -hydhx;
      col[k] = (MatStencil){0, j + 1, i, 0}; v[k++] = -hxdhy;
      PetscCall(MatSetValuesStencil(P, 1, &row, k, col, v, INSERT_VALUES));
    }
  PetscCall(MatAssemblyBegin(P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(P, MAT_FINAL_ASSEMBLY));
  if (J != P) {
    PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  DM             da;
  SNES           snes;
  Vec            u;
  Mat            J;
  AppCtx         user = {6.0};
  PetscInt       its, lits;
  MatType        type;
  PetscLogDouble t0, t1;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGpuMatInitialize());
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-lambda", &user.lambda, NULL));
  PetscCheck(user.lambda >= 0 && user.lambda <= 6.8, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-lambda must be in [0, 6.8], got %g", (double)user.lambda);
  PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, 400, 400, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, &da));
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(SNESCreate(PETSC_COMM_WORLD, &snes));
  PetscCall(SNESSetDM(snes, da));
  PetscCall(DMDASNESSetFunctionLocal(da, INSERT_VALUES, (PetscErrorCode (*)(DMDALocalInfo *, void *, void *, void *))FormFunctionLocal, &user));
  PetscCall(DMDASNESSetJacobianLocal(da, (PetscErrorCode (*)(DMDALocalInfo *, void *, Mat, Mat, void *))FormJacobianLocal, &user));
  PetscCall(SNESSetFromOptions(snes));
  PetscCall(DMCreateGlobalVector(da, &u));
  PetscCall(VecSet(u, 0.0));
  PetscCall(PetscTime(&t0));
  PetscCall(SNESSolve(snes, NULL, u));
  PetscCall(PetscTime(&t1));
  PetscCall(SNESGetIterationNumber(snes, &its));
  PetscCall(SNESGetLinearSolveIterations(snes, &lits));
  PetscCall(SNESGetJacobian(snes, &J, NULL, NULL, NULL));
  PetscCall(MatGetType(J, &type));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bratu: Jacobian %s, %" PetscInt_FMT " Newton steps, %" PetscInt_FMT " linear iterations, SNESSolve %.4f s\n", type, its, lits, t1 - t0));
  PetscCall(VecDestroy(&u));
  PetscCall(SNESDestroy(&snes));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}
