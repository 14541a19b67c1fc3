// What the integration tests share: their matrix options, their lists of cases, and the check of a
// matrix of ours against AIJ's result of the same work.
#pragma once
#include <petscmat.h>
#include <string>

// The options naming the matrix: -type (ours), -kind and -n (examples/gen.h)
inline PetscErrorCode ReadMatrixOptions(char *type, size_t type_len, char *kind, size_t kind_len, PetscInt *n)
{
  PetscFunctionBegin;
  PetscCall(PetscOptionsGetString(nullptr, nullptr, "-type", type, type_len, nullptr));
  PetscCall(PetscOptionsGetString(nullptr, nullptr, "-kind", kind, kind_len, nullptr));
  PetscCall(PetscOptionsGetInt(nullptr, nullptr, "-n", n, nullptr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Whether the comma-separated list holds this name
inline bool Listed(const char *list, const char *name)
{
  const std::string l = std::string(",") + list + ",";
  return l.find(std::string(",") + name + ",") != std::string::npos;
}

// The same product and transposed product through M's own storage (M's vectors: CUDA vectors on a
// GPU build, so values that reached only the host would show), then the same entries (M converted to AIJ, so any type's
// values are compared as stored: relative Frobenius norm of the difference at most 1e-12). The
// product first: M's storage is built from the values as the operation under test left them, before
// the conversion reads them on the host.
inline PetscErrorCode SameAsAIJ(Mat M, Mat R, const char *what)
{
  Mat       D;
  Vec       x, y, xr, yr;
  PetscReal diff, ref;
  PetscFunctionBegin;
  PetscCall(MatCreateVecs(M, &x, &y));
  PetscCall(MatCreateVecs(R, &xr, &yr));
  PetscCall(VecSetRandom(xr, nullptr));
  PetscCall(VecCopy(xr, x));
  PetscCall(MatMult(M, x, y));
  PetscCall(MatMult(R, xr, yr));
  PetscCall(VecNorm(yr, NORM_2, &ref));
  PetscCall(VecDestroy(&xr));
  PetscCall(VecDuplicate(yr, &xr));
  PetscCall(VecCopy(y, xr)); // xr: M x, in a vector of R's type and row layout (M may be rectangular)
  PetscCall(VecAXPY(xr, -1.0, yr));
  PetscCall(VecNorm(xr, NORM_2, &diff));
  PetscCheck(diff <= 1e-12 * ref, PetscObjectComm((PetscObject)M), PETSC_ERR_PLIB, "%s: |M x - AIJ's| = %g, |AIJ's| = %g (M's own product)", what, (double)diff, (double)ref);
  // the transposed product likewise: x = M^T y
  PetscCall(VecSetRandom(yr, nullptr));
  PetscCall(VecCopy(yr, y));
  PetscCall(MatMultTranspose(M, y, x));
  PetscCall(VecDestroy(&xr));
  {
    Vec t;
    PetscCall(MatCreateVecs(R, &xr, nullptr));
    PetscCall(MatMultTranspose(R, yr, xr));
    PetscCall(VecNorm(xr, NORM_2, &ref));
    PetscCall(VecDuplicate(xr, &t));
    PetscCall(VecCopy(x, t)); // t: M^T y, in a vector of R's type
    PetscCall(VecAXPY(t, -1.0, xr));
    PetscCall(VecNorm(t, NORM_2, &diff));
    PetscCall(VecDestroy(&t));
  }
  PetscCheck(diff <= 1e-12 * ref, PetscObjectComm((PetscObject)M), PETSC_ERR_PLIB, "%s: |M^T y - AIJ's| = %g, |AIJ's| = %g (M's own transposed product)", what, (double)diff, (double)ref);
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&xr));
  PetscCall(VecDestroy(&yr));
  PetscCall(MatConvert(M, MATAIJ, MAT_INITIAL_MATRIX, &D));
  PetscCall(MatAXPY(D, -1.0, R, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(D, NORM_FROBENIUS, &diff));
  PetscCall(MatNorm(R, NORM_FROBENIUS, &ref));
  PetscCall(MatDestroy(&D));
  PetscCheck(diff <= 1e-12 * ref, PetscObjectComm((PetscObject)M), PETSC_ERR_PLIB, "%s: |M - AIJ's| = %g, |AIJ's| = %g", what, (double)diff, (double)ref);
  PetscFunctionReturn(PETSC_SUCCESS);
}
