static char help[] = "Bratu (solid fuel ignition) on a DMDA: -lap(u) - lambda exp(u) = f, u = 0 on the boundary,\n"
                     "5-point (2D) or 7-point (3D) finite differences. Newton re-assembles the Jacobian every step, as\n"
                     "a PETSc application does: the matrix type comes from -dm_mat_type (aij, aijcusparse, csrspec,\n"
                     "...), vectors from -dm_vec_type. The Jacobian omits the (zero) boundary values from interior\n"
                     "rows, so it is symmetric: with -lambda 0 -snes_type ksponly -ksp_type cg this is a Poisson solve.\n"
                     "Prints the Newton and Krylov iterations, the Jacobian's type, SNESSetUp's time (the Jacobian's\n"
                     "creation and preallocation, the work vectors) and SNESSolve's in three phases: assembly (the\n"
                     "Jacobian evaluations, SNESJacobianEval), set-up (the preconditioner's, PCSetUp) and the rest\n"
                     "(the linear solves, residuals and line search), the largest over the ranks.\n"
                     "  -dim <2>             2 or 3\n"
                     "  -lambda <6.0>        the Bratu parameter (0 .. 6.8)\n"
                     "  -f <0.0>             a constant source\n"
                     "  -da_grid_x/y/z <400 in 2D, 128 in 3D> the grid\n";

#include <petscsnes.h>
#include <petscdmda.h>
#include <petscgpumat.h>

typedef struct {
  PetscReal lambda, f;
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
      f[j][i] = uxx + uyy - sc * PetscExpScalar(u) - hx * hy * user->f;
    }
  PetscCall(PetscLogFlops(11.0 * info->ym * info->xm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Final assembly of the preconditioning matrix P and of J when it is another matrix. */
static PetscErrorCode AssembleJacobian(Mat J, Mat P)
{
  PetscFunctionBeginUser;
  PetscCall(MatAssemblyBegin(P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(P, MAT_FINAL_ASSEMBLY));
  if (J != P) {
    PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  }
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
      PetscInt k = 0; /* the boundary neighbours are fixed (zero): left out, J stays symmetric */
      if (j > 1) { col[k] = (MatStencil){0, j - 1, i, 0}; v[k++] = -hxdhy; }
      if (i > 1) { col[k] = (MatStencil){0, j, i - 1, 0}; v[k++] = -hydhx; }
      col[k] = row; v[k++] = 2.0 * (hydhx + hxdhy) - sc * PetscExpScalar(x[j][i]);
      if (i < info->mx - 2) { col[k] = (MatStencil){0, j, i + 1, 0}; v[k++] = -hydhx; }
      if (j < info->my - 2) { col[k] = (MatStencil){0, j + 1, i, 0}; v[k++] = -hxdhy; }
      PetscCall(MatSetValuesStencil(P, 1, &row, k, col, v, INSERT_VALUES));
    }
  PetscCall(AssembleJacobian(J, P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FormFunctionLocal3(DMDALocalInfo *info, PetscScalar ***x, PetscScalar ***f, AppCtx *user)
{
  const PetscReal hx = 1.0 / (info->mx - 1), hy = 1.0 / (info->my - 1), hz = 1.0 / (info->mz - 1), vol = hx * hy * hz;
  const PetscReal cx = hy * hz / hx, cy = hx * hz / hy, cz = hx * hy / hz;
  PetscFunctionBeginUser;
  for (PetscInt k = info->zs; k < info->zs + info->zm; k++)
    for (PetscInt j = info->ys; j < info->ys + info->ym; j++)
      for (PetscInt i = info->xs; i < info->xs + info->xm; i++) {
        if (i == 0 || j == 0 || k == 0 || i == info->mx - 1 || j == info->my - 1 || k == info->mz - 1) {
          f[k][j][i] = x[k][j][i];
          continue;
        }
        const PetscScalar u = x[k][j][i];
        f[k][j][i] = cx * (2.0 * u - x[k][j][i - 1] - x[k][j][i + 1]) + cy * (2.0 * u - x[k][j - 1][i] - x[k][j + 1][i]) + cz * (2.0 * u - x[k - 1][j][i] - x[k + 1][j][i]) - vol * (user->lambda * PetscExpScalar(u) + user->f);
      }
  PetscCall(PetscLogFlops(16.0 * info->zm * info->ym * info->xm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FormJacobianLocal3(DMDALocalInfo *info, PetscScalar ***x, Mat J, Mat P, AppCtx *user)
{
  const PetscReal hx = 1.0 / (info->mx - 1), hy = 1.0 / (info->my - 1), hz = 1.0 / (info->mz - 1), vol = hx * hy * hz;
  const PetscReal cx = hy * hz / hx, cy = hx * hz / hy, cz = hx * hy / hz;
  PetscFunctionBeginUser;
  for (PetscInt k = info->zs; k < info->zs + info->zm; k++)
    for (PetscInt j = info->ys; j < info->ys + info->ym; j++)
      for (PetscInt i = info->xs; i < info->xs + info->xm; i++) {
        MatStencil  row = {k, j, i, 0}, col[7];
        PetscScalar v[7];
        PetscInt    n = 0;
        if (i == 0 || j == 0 || k == 0 || i == info->mx - 1 || j == info->my - 1 || k == info->mz - 1) {
          v[0] = 1.0;
          PetscCall(MatSetValuesStencil(P, 1, &row, 1, &row, v, INSERT_VALUES));
          continue;
        }
        /* the boundary neighbours are fixed (zero): left out, J stays symmetric */
        if (k > 1) { col[n] = (MatStencil){k - 1, j, i, 0}; v[n++] = -cz; }
        if (j > 1) { col[n] = (MatStencil){k, j - 1, i, 0}; v[n++] = -cy; }
        if (i > 1) { col[n] = (MatStencil){k, j, i - 1, 0}; v[n++] = -cx; }
        col[n] = row; v[n++] = 2.0 * (cx + cy + cz) - vol * user->lambda * PetscExpScalar(x[k][j][i]);
        if (i < info->mx - 2) { col[n] = (MatStencil){k, j, i + 1, 0}; v[n++] = -cx; }
        if (j < info->my - 2) { col[n] = (MatStencil){k, j + 1, i, 0}; v[n++] = -cy; }
        if (k < info->mz - 2) { col[n] = (MatStencil){k + 1, j, i, 0}; v[n++] = -cz; }
        PetscCall(MatSetValuesStencil(P, 1, &row, n, col, v, INSERT_VALUES));
      }
  PetscCall(AssembleJacobian(J, P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Seconds logged so far in the named event (the current stage), the largest over the ranks */
static PetscErrorCode EventSeconds(const char *name, PetscLogDouble *s)
{
  PetscLogEvent      ev;
  PetscEventPerfInfo info;
  PetscFunctionBeginUser;
  PetscCall(PetscLogEventGetId(name, &ev));
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, ev, &info));
  *s = info.time;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, s, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  DM             da;
  SNES           snes;
  Vec            u;
  Mat            J;
  AppCtx         user = {6.0, 0.0};
  PetscInt       its, lits, dim = 2;
  MatType        type;
  PetscLogDouble t0, ts, t1, jac[2], pcs[2];

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGpuMatInitialize());
  PetscCall(PetscLogDefaultBegin()); /* the events' times, for the phases (as with -log_view) */
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-lambda", &user.lambda, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-f", &user.f, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCheck(user.lambda >= 0 && user.lambda <= 6.8, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-lambda must be in [0, 6.8], got %g", (double)user.lambda);
  PetscCheck(dim == 2 || dim == 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-dim must be 2 or 3, got %" PetscInt_FMT, dim);
  if (dim == 2) PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, 400, 400, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, &da));
  else PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, 128, 128, 128, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &da));
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(SNESCreate(PETSC_COMM_WORLD, &snes));
  PetscCall(SNESSetDM(snes, da));
  if (dim == 2) {
    PetscCall(DMDASNESSetFunctionLocal(da, INSERT_VALUES, (PetscErrorCode (*)(DMDALocalInfo *, void *, void *, void *))FormFunctionLocal, &user));
    PetscCall(DMDASNESSetJacobianLocal(da, (PetscErrorCode (*)(DMDALocalInfo *, void *, Mat, Mat, void *))FormJacobianLocal, &user));
  } else {
    PetscCall(DMDASNESSetFunctionLocal(da, INSERT_VALUES, (PetscErrorCode (*)(DMDALocalInfo *, void *, void *, void *))FormFunctionLocal3, &user));
    PetscCall(DMDASNESSetJacobianLocal(da, (PetscErrorCode (*)(DMDALocalInfo *, void *, Mat, Mat, void *))FormJacobianLocal3, &user));
  }
  PetscCall(SNESSetFromOptions(snes));
  PetscCall(DMCreateGlobalVector(da, &u));
  PetscCall(VecSet(u, 0.0));
  PetscCall(EventSeconds("SNESJacobianEval", &jac[0]));
  PetscCall(EventSeconds("PCSetUp", &pcs[0]));
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscCall(PetscTime(&t0));
  PetscCall(SNESSetUp(snes)); /* the Jacobian's creation and preallocation (DMCreateMatrix), the work vectors */
  PetscCall(PetscTime(&ts));
  PetscCall(SNESSolve(snes, NULL, u));
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscCall(PetscTime(&t1));
  PetscCall(EventSeconds("SNESJacobianEval", &jac[1]));
  PetscCall(EventSeconds("PCSetUp", &pcs[1]));
  PetscCall(SNESGetIterationNumber(snes, &its));
  PetscCall(SNESGetLinearSolveIterations(snes, &lits));
  PetscCall(SNESGetJacobian(snes, &J, NULL, NULL, NULL));
  PetscCall(MatGetType(J, &type));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bratu: Jacobian %s, %" PetscInt_FMT " Newton steps, %" PetscInt_FMT " linear iterations, SNESSolve %.4f s\n", type, its, lits, t1 - ts));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bratu: phases: assembly %.4f s, set-up %.4f s, solve %.4f s\n", jac[1] - jac[0], pcs[1] - pcs[0], (t1 - ts) - (jac[1] - jac[0]) - (pcs[1] - pcs[0])));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bratu: SNESSetUp %.4f s\n", ts - t0));
  PetscCall(VecDestroy(&u));
  PetscCall(SNESDestroy(&snes));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}
