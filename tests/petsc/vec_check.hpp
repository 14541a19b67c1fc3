// Vector helpers the PETSc-level tests share (test_mpi, test_coo): distinct nonzero values, and a
// product checked against the reference type's at a relative tolerance over all ranks.
#pragma once
#include <petscvec.h>
#include <string>

namespace vec_check {

// v[i] = 0.5 + ((i * 7919 + seed * 104729) mod 1000) / 1000 at global index i: never zero, the same
// on any layout.
inline PetscErrorCode Fill(Vec v, PetscInt seed)
{
  PetscInt     lo, hi;
  PetscScalar *a;
  PetscFunctionBegin;
  PetscCall(VecGetOwnershipRange(v, &lo, &hi));
  PetscCall(VecGetArrayWrite(v, &a));
  for (PetscInt i = lo; i < hi; i++) a[i - lo] = 0.5 + (PetscReal)((i * 7919 + seed * 104729) % 1000) / 1000.0;
  PetscCall(VecRestoreArrayWrite(v, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// got against ref (same layout): max |got - ref| <= tol max |ref| over every rank (a NaN or Inf in
// got fails), counted in *checks; the error names `what` and the reference type `refname`.
inline PetscErrorCode Expect(Vec got, Vec ref, PetscReal tol, const std::string &what, const char *refname, PetscInt *checks)
{
  const PetscScalar *a, *b;
  PetscInt           n, ng;
  PetscReal          m[2] = {0, 0};
  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(ref, &n));
  PetscCall(VecGetLocalSize(got, &ng));
  PetscCheck(n == ng, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: local sizes %" PetscInt_FMT " and %" PetscInt_FMT, what.c_str(), ng, n);
  PetscCall(VecGetArrayRead(got, &a));
  PetscCall(VecGetArrayRead(ref, &b));
  for (PetscInt i = 0; i < n; i++) {
    m[0] = PetscMax(m[0], PetscIsInfOrNanScalar(a[i]) ? PETSC_INFINITY : PetscAbsScalar(a[i] - b[i]));
    m[1] = PetscMax(m[1], PetscAbsScalar(b[i]));
  }
  PetscCall(VecRestoreArrayRead(got, &a));
  PetscCall(VecRestoreArrayRead(ref, &b));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, m, 2, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  (*checks)++;
  PetscCheck(m[0] <= tol * PetscMax(m[1], 1e-300), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s differs from %s by %g relative (tolerance %g)", what.c_str(), refname, (double)(m[0] / PetscMax(m[1], 1e-300)), (double)tol);
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace vec_check
