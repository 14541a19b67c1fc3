static char help[] = "A plain PETSc program that does not link petsc-gpumat: solves a 2D Laplacian with the\n"
                     "matrix type from -mat_type. With -dll_append libpetscgpumat.so it gains our types.\n";
#include <petscksp.h>

int main(int argc, char **argv)
{
  Mat      A;
  Vec      x, b;
  KSP      ksp;
  PetscInt n = 30, N, rstart, rend, its;
  MatType  type;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  N = n * n;
  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, N, N));
  PetscCall(MatSetFromOptions(A));
  PetscCall(MatMPIAIJSetPreallocation(A, 5, NULL, 2, NULL));
  PetscCall(MatSeqAIJSetPreallocation(A, 5, NULL));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt r = rstart; r < rend; r++) {
    PetscInt i = r % n, j = r / n;
    if (j > 0) PetscCall(MatSetValue(A, r, r - n, -1.0, INSERT_VALUES));
    if (i > 0) PetscCall(MatSetValue(A, r, r - 1, -1.0, INSERT_VALUES));
    PetscCall(MatSetValue(A, r, r, 4.0, INSERT_VALUES));
    if (i < n - 1) PetscCall(MatSetValue(A, r, r + 1, -1.0, INSERT_VALUES));
    if (j < n - 1) PetscCall(MatSetValue(A, r, r + n, -1.0, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSetFromOptions(x)); /* -vec_type overrides the matrix's default vector type */
  PetscCall(VecSetFromOptions(b));
  PetscCall(VecSet(b, 1.0));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(MatGetType(A, &type));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "matrix type %s, %" PetscInt_FMT " iterations\n", type, its));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
