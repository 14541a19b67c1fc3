/* Diagnostic (not part of the project): PETSc alone, no petsc-gpumat. A 7-point Laplacian on an
   n^3 grid, rows split evenly over the ranks, solved with CG + GAMG twice in one process: first at
   -n1 (default 8), then at -n2 (default 128), each with a matrix and KSP of its own, the type from
   -mat_type (e.g. aijcusparse) and vectors from MatCreateVecs. Does the second GAMG set-up of a
   2-rank process finish? -csr: assembled as examples/gen.c does (MatMPIAIJSetPreallocationCSR);
   -upblocks: KSPSetUpOnBlocks after KSPSetUp and KSPSetTolerances(1e-10, ..., 10000) before
   KSPSetFromOptions, as examples/solve does. */
#include <petscksp.h>

static PetscBool csr = PETSC_FALSE, upblocks = PETSC_FALSE;

static PetscErrorCode Solve(PetscInt n)
{
  Mat            A;
  Vec            x, b;
  KSP            ksp;
  PetscInt       rs, re, its;
  PetscLogDouble t0, t1;
  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, n * n * n, n * n * n));
  PetscCall(MatSetFromOptions(A));
  PetscCall(MatSetUp(A));
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  PetscInt *ai, *aj, nz = 0;
  PetscScalar *aa;
  PetscCall(PetscMalloc3(re - rs + 1, &ai, 7 * (re - rs), &aj, 7 * (re - rs), &aa));
  ai[0] = 0;
  for (PetscInt r = rs; r < re; r++) {
    const PetscInt i = r % n, j = (r / n) % n, k = r / (n * n);
    PetscInt       c[7], m = 0;
    PetscScalar    v[7];
    if (k > 0) c[m] = r - n * n, v[m++] = -1;
    if (j > 0) c[m] = r - n, v[m++] = -1;
    if (i > 0) c[m] = r - 1, v[m++] = -1;
    c[m] = r, v[m++] = 6;
    if (i < n - 1) c[m] = r + 1, v[m++] = -1;
    if (j < n - 1) c[m] = r + n, v[m++] = -1;
    if (k < n - 1) c[m] = r + n * n, v[m++] = -1;
    for (PetscInt t = 0; t < m; t++) aj[nz] = c[t], aa[nz++] = v[t];
    ai[r - rs + 1] = nz;
  }
  if (csr) {
    PetscCall(MatSeqAIJSetPreallocationCSR(A, ai, aj, aa));
    PetscCall(MatMPIAIJSetPreallocationCSR(A, ai, aj, aa));
  } else {
    PetscCall(MatSeqAIJSetPreallocation(A, 7, NULL));
    PetscCall(MatMPIAIJSetPreallocation(A, 7, NULL, 3, NULL));
    for (PetscInt r = rs; r < re; r++) PetscCall(MatSetValues(A, 1, &r, ai[r - rs + 1] - ai[r - rs], aj + ai[r - rs], aa + ai[r - rs], INSERT_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(PetscFree3(ai, aj, aa));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSet(b, 1.0));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  if (upblocks) PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_CURRENT, PETSC_CURRENT, 10000));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSetUp(ksp));
  if (upblocks) PetscCall(KSPSetUpOnBlocks(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(PetscTime(&t1));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "twice: n = %" PetscInt_FMT ", %" PetscInt_FMT " iterations, set-up + solve %.3f s\n", n, its, t1 - t0));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt n1 = 8, n2 = 128;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n1", &n1, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n2", &n2, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-csr", &csr, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-upblocks", &upblocks, NULL));
  PetscCall(Solve(n1));
  PetscCall(Solve(n2));
  PetscCall(PetscFinalize());
  return 0;
}
