// Diagnostic (session 14, not part of the project): GAMG's smoothed prolongator with A aijcusparse
// and P of ours or aijcusparse (-ptype), then T^T A T, each step against plain AIJ: entries (host
// copies) and products (MatMult with a CUDA vector vs AIJ's).
#include <petscmat.h>
#include <petscgpumat.h>
#include "gen.h"
static PetscErrorCode Interp(Mat A, Mat *P)
{
  PetscInt M, rs, re, cols;
  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &M, nullptr));
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  cols = (M + 1) / 2;
  PetscCall(MatCreate(PETSC_COMM_WORLD, P));
  PetscCall(MatSetSizes(*P, re - rs, PETSC_DECIDE, M, cols));
  PetscCall(MatSetType(*P, MATAIJ));
  PetscCall(MatSeqAIJSetPreallocation(*P, 2, nullptr));
  PetscCall(MatMPIAIJSetPreallocation(*P, 2, nullptr, 2, nullptr));
  for (PetscInt i = rs; i < re; i++) {
    const PetscInt    c[2] = {i / 2, (i / 2 + 1) % cols};
    const PetscScalar v[2] = {1.0 + 0.01 * (i % 7), 0.5 - 0.02 * (i % 5)};
    PetscCall(MatSetValues(*P, 1, &i, c[0] == c[1] ? 1 : 2, c, v, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*P, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode Diff(const char *what, Mat X, Mat R)
{
  Mat       Xc, Rc;
  Vec       x, y, yr, xr;
  PetscReal e, n, pe, pn;
  MatType   t;
  PetscFunctionBegin;
  PetscCall(MatGetType(X, &t));
  PetscCall(MatConvert(X, MATAIJ, MAT_INITIAL_MATRIX, &Xc));
  PetscCall(MatConvert(R, MATAIJ, MAT_INITIAL_MATRIX, &Rc));
  PetscCall(MatAXPY(Xc, -1.0, Rc, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(Xc, NORM_FROBENIUS, &e));
  PetscCall(MatNorm(Rc, NORM_FROBENIUS, &n));
  PetscCall(MatCreateVecs(X, &x, &y));
  PetscCall(MatCreateVecs(R, &xr, &yr));
  PetscCall(VecSetRandom(xr, nullptr));
  PetscCall(VecCopy(xr, x));
  PetscCall(MatMult(X, x, y));
  PetscCall(MatMult(R, xr, yr));
  PetscCall(VecAXPY(y, -1.0, yr));
  PetscCall(VecNorm(y, NORM_2, &pe));
  PetscCall(VecNorm(yr, NORM_2, &pn));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-40s %-16s entries rel %.3e  product rel %.3e\n", what, t, (double)(e / n), (double)(pe / pn)));
  PetscCall(MatDestroy(&Xc));
  PetscCall(MatDestroy(&Rc));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&xr));
  PetscCall(VecDestroy(&yr));
  PetscFunctionReturn(PETSC_SUCCESS);
}
int main(int argc, char **argv)
{
  Mat       Aaij, Paij, A, P, T0, T1, G0, G1, Tc, Gc;
  Vec       d;
  char      ptype[64] = "aijpjds", atype[64] = "aijcusparse";
  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, nullptr, nullptr));
  PetscCall(PetscGpuMatInitialize());
  PetscCall(PetscOptionsGetString(nullptr, nullptr, "-ptype", ptype, sizeof(ptype), nullptr));
  PetscCall(PetscOptionsGetString(nullptr, nullptr, "-atype", atype, sizeof(atype), nullptr));
  PetscCall(GenCreate(PETSC_COMM_WORLD, "lap2d", 20, 1, MATAIJ, &Aaij));
  PetscCall(MatConvert(Aaij, atype, MAT_INITIAL_MATRIX, &A));
  PetscCall(Interp(Aaij, &Paij));
  PetscCall(MatConvert(Paij, ptype, MAT_INITIAL_MATRIX, &P));
  PetscBool prescale = PETSC_FALSE, api = PETSC_FALSE;
  PetscCall(PetscOptionsGetBool(nullptr, nullptr, "-prescale", &prescale, nullptr));
  PetscCall(PetscOptionsGetBool(nullptr, nullptr, "-product_api", &api, nullptr));
  if (prescale) { // as test_matproduct's earlier cases leave A and P: scaled and back (on the GPU for aijcusparse)
    PetscCall(MatScale(A, 2.0));
    PetscCall(MatScale(P, -0.5));
    PetscCall(MatScale(A, 0.5));
    PetscCall(MatScale(P, -2.0));
  }
  PetscCall(MatMatMult(A, P, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &T0));
  PetscCall(MatMatMult(Aaij, Paij, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &T1));
  PetscCall(Diff("T = A P", T0, T1));
  PetscCall(MatPtAP(A, T0, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &G0));
  PetscCall(MatPtAP(Aaij, T1, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &G1));
  PetscCall(Diff("G = T^T A T, T = A P", G0, G1));
  PetscCall(MatDestroy(&G0));
  PetscCall(MatDestroy(&G1));
  PetscCall(MatCreateVecs(Aaij, nullptr, &d));
  PetscCall(MatGetDiagonal(Aaij, d));
  PetscCall(VecReciprocal(d));
  {
    Vec dc;
    PetscCall(MatCreateVecs(A, nullptr, &dc));
    PetscCall(VecCopy(d, dc));
    PetscCall(MatDiagonalScale(T0, dc, nullptr));
    PetscCall(VecDestroy(&dc));
  }
  PetscCall(MatDiagonalScale(T1, d, nullptr));
  PetscCall(Diff("T = D^-1 A P", T0, T1));
  PetscCall(MatPtAP(A, T0, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &G0));
  PetscCall(MatPtAP(Aaij, T1, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &G1));
  PetscCall(Diff("G with T = D^-1 A P", G0, G1));
  PetscCall(MatDestroy(&G0));
  PetscCall(MatDestroy(&G1));
  PetscCall(MatAYPX(T0, -0.6, P, SUBSET_NONZERO_PATTERN));
  PetscCall(MatAYPX(T1, -0.6, Paij, SUBSET_NONZERO_PATTERN));
  PetscCall(Diff("T = P - w D^-1 A P", T0, T1));
  PetscCall(MatConvert(T0, atype, MAT_INITIAL_MATRIX, &Tc));
  if (api) {
    PetscCall(MatProductCreate(A, T0, nullptr, &G0));
    PetscCall(MatProductSetType(G0, MATPRODUCT_PtAP));
    PetscCall(MatProductSetFromOptions(G0));
    PetscCall(MatProductSymbolic(G0));
    PetscCall(MatProductNumeric(G0));
  } else PetscCall(MatPtAP(A, T0, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &G0));
  PetscCall(MatPtAP(Aaij, T1, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &G1));
  PetscCall(MatPtAP(A, Tc, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &Gc));
  PetscCall(Diff("G with the smoothed T", G0, G1));
  PetscCall(Diff("G with a fresh copy of the smoothed T", Gc, G1));
  PetscCall(MatDestroy(&G0));
  PetscCall(MatDestroy(&G1));
  PetscCall(MatDestroy(&Gc));
  PetscCall(MatDestroy(&Tc));
  PetscCall(MatDestroy(&T0));
  PetscCall(MatDestroy(&T1));
  PetscCall(VecDestroy(&d));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&P));
  PetscCall(MatDestroy(&Aaij));
  PetscCall(MatDestroy(&Paij));
  PetscCall(PetscFinalize());
  return 0;
}
