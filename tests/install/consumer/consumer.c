static char help[] = "Uses the installed petsc-gpumat: converts an AIJ matrix to csrspec and multiplies.\n";
#include <petscgpumat.h>

/* y = A x for the 1D Laplacian tridiag(-1, 2, -1) of order n and x_i = (i+1)^2: y_i = -2 except
   y_{n-1} = n^2 + 2n - 1, so sum(y) = n^2 + 1 and |y|_1 = n^2 + 4n - 3 (exact in floating point). */
int main(int argc, char **argv)
{
  Mat         A;
  Vec         x, y;
  PetscInt    n = 100, rstart, rend;
  PetscScalar sum;
  PetscReal   norm1;
  MatType     type;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGpuMatInitialize());
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, 3, NULL, 1, NULL, &A));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) {
    if (i > 0) PetscCall(MatSetValue(A, i, i - 1, -1.0, INSERT_VALUES));
    PetscCall(MatSetValue(A, i, i, 2.0, INSERT_VALUES));
    if (i < n - 1) PetscCall(MatSetValue(A, i, i + 1, -1.0, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatConvert(A, MATCSRSPEC, MAT_INPLACE_MATRIX, &A));

  PetscCall(MatCreateVecs(A, &x, &y)); /* the type's default vectors: CUDA vectors with a CUDA PETSc */
  for (PetscInt i = rstart; i < rend; i++) PetscCall(VecSetValue(x, i, (PetscScalar)((i + 1) * (i + 1)), INSERT_VALUES));
  PetscCall(VecAssemblyBegin(x));
  PetscCall(VecAssemblyEnd(x));
  PetscCall(MatMult(A, x, y));
  PetscCall(VecSum(y, &sum));
  PetscCall(VecNorm(y, NORM_1, &norm1));
  PetscCall(MatGetType(A, &type));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "petsc-gpumat consumer: type %s, checksum %.1f, norm1 %.1f\n", type, (double)PetscRealPart(sum), (double)norm1));
  PetscCheck(PetscRealPart(sum) == (PetscReal)(n * n + 1) && norm1 == (PetscReal)(n * n + 4 * n - 3), PETSC_COMM_WORLD, PETSC_ERR_PLIB,
             "wrong product: expected checksum %" PetscInt_FMT ", norm1 %" PetscInt_FMT, n * n + 1, n * n + 4 * n - 3);
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
