// The value operations of the seq type (MatScale, MatDiagonalScale, MatAXPY): where the block's
// newest values are on the device (the result of a device product, operation or COO assembly), the
// operation runs there, as aijcusparse's does, on the block's aijcusparse shadow (shadow.hpp):
// PETSc's own GPU code (cuBLAS scal and axpy, Thrust scaling, cuSPARSE csrgeam2 for a subset
// pattern), whose values then become the block's (ShadowValuesBack). Elsewhere, and in builds
// without CUDA, SeqAIJ's operation runs on the host array, as before: a host-current block stays on
// the host, with no upload for one cheap pass over its values. A MatAXPY called with
// DIFFERENT_NONZERO_PATTERN on equal patterns runs as SAME_NONZERO_PATTERN on either side, as
// aijcusparse's does (SeqAIJ's would build Y anew row by row). MPI matrices reach these through
// MPIAIJ's operations on their blocks; a MatAXPY called with a different pattern whose blocks and
// ghost columns are equal on every rank runs as the same pattern there too (MPIAIJ's own would
// build Y anew, aijcusparse's included).
#include "block.hpp"
#include "mpi.hpp"
#include "shadow.hpp"
#include <cstring>

namespace gpumat {
namespace {

// Whether X and Y have the same host CSR pattern
PetscErrorCode SamePattern(Mat Y, Mat X, bool *same)
{
  const PetscInt *yi, *yj, *xi, *xj;
  PetscInt        my, mx;
  PetscFunctionBegin;
  PetscCall(HostPattern(Y, &my, &yi, &yj));
  PetscCall(HostPattern(X, &mx, &xi, &xj));
  *same = my == mx && !std::memcmp(yi, xi, (size_t)(my + 1) * sizeof(PetscInt)) && !std::memcmp(yj, xj, (size_t)yi[my] * sizeof(PetscInt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(GPUMAT_WITH_CUDA)
// Whether Y's operation runs on its shadow: Y on the device route, its newest values on the device
bool OnShadow(Mat Y) { return !Y->boundtocpu && !Data(Y)->opt.force_host && DeviceCopy(Y); }

// X's matrix for an operation on Y's shadow: X itself (seqaijcusparse, on the GPU) or its shadow
// (ours, not held to the host); null: X cannot join Y on the device
PetscErrorCode DevicePartner(Mat X, Mat *S)
{
  PetscBool cusparse;
  PetscFunctionBegin;
  *S = nullptr;
  if (X->boundtocpu) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompare((PetscObject)X, MATSEQAIJCUSPARSE, &cusparse));
  if (cusparse) *S = X;
  else if (Ours(X) && !Data(X)->opt.force_host) PetscCall(ShadowOf(X, false, S));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

} // namespace

PetscErrorCode Scale(Mat Y, PetscScalar a)
{
  PetscFunctionBegin;
#if defined(GPUMAT_WITH_CUDA)
  if (OnShadow(Y)) {
    Mat S;
    PetscCall(ShadowOf(Y, false, &S));
    PetscCall(MatScale(S, a));
    PetscCall(ShadowValuesBack(Y, S));
    PetscCall(PetscInfo(Y, "MatScale: aijcusparse's on the shadow, on the GPU\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  PetscCall(Data(Y)->parent.scale(Y, a));
  PetscCall(PetscInfo(Y, "MatScale: SeqAIJ's, on the host\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DiagonalScale(Mat Y, Vec l, Vec r)
{
  PetscFunctionBegin;
#if defined(GPUMAT_WITH_CUDA)
  bool lok, rok;
  PetscCall(CudaVec(l, &lok));
  PetscCall(CudaVec(r, &rok));
  if (OnShadow(Y) && lok && rok) {
    Mat S;
    PetscCall(ShadowOf(Y, false, &S));
    // the operation itself, as MPIAIJ calls its blocks' with the MPI vectors (whose local parts
    // are the block's rows and columns); the public MatDiagonalScale would ask for one communicator
    PetscCall((*S->ops->diagonalscale)(S, l, r));
    PetscCall(PetscObjectStateIncrease((PetscObject)S));
    PetscCall(ShadowValuesBack(Y, S));
    PetscCall(PetscInfo(Y, "MatDiagonalScale: aijcusparse's on the shadow, on the GPU\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  PetscCall(Data(Y)->parent.diagonalscale(Y, l, r));
  PetscCall(PetscInfo(Y, "MatDiagonalScale: SeqAIJ's, on the host\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AXPY(Mat Y, PetscScalar a, Mat X, MatStructure str)
{
  PetscFunctionBegin;
  if (str == DIFFERENT_NONZERO_PATTERN) { // the same pattern all the same (GAMG's graph plus its transpose, say): an axpy of the values, not SeqAIJ's rebuild of Y row by row
    bool same;
    PetscCall(SamePattern(Y, X, &same));
    if (same) str = SAME_NONZERO_PATTERN;
  }
#if defined(GPUMAT_WITH_CUDA)
  if (OnShadow(Y)) {
    Mat SX = nullptr;
  #if PetscDefined(USE_64BIT_INDICES)
    const bool subset = false; // aijcusparse's csrgeam2 path takes 32-bit indices only
  #else
    const bool subset = str == SUBSET_NONZERO_PATTERN && Y->cmap->n > 1; // aijcusparse's rule for its csrgeam2 path
  #endif
    if (str == SAME_NONZERO_PATTERN || subset) PetscCall(DevicePartner(X, &SX));
    if (SX) { // aijcusparse's AXPY then keeps Y's pattern: cuBLAS axpy (same) or csrgeam2 (subset)
      Mat S;
      PetscCall(ShadowOf(Y, false, &S));
      PetscCall(MatAXPY(S, a, SX, str));
      PetscCall(ShadowValuesBack(Y, S));
      PetscCall(PetscInfo(Y, "MatAXPY (%s): aijcusparse's on the shadows, on the GPU\n", MatStructures[str]));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
#endif
  PetscCall(Data(Y)->parent.axpy(Y, a, X, str));
  PetscCall(PetscInfo(Y, "MatAXPY (%s): SeqAIJ's, on the host\n", MatStructures[str]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MPIAXPY(Mat Y, PetscScalar a, Mat X, MatStructure str)
{
  PetscFunctionBegin;
  if (str == DIFFERENT_NONZERO_PATTERN) { // X is ours too (MatAXPY calls Y's operation for X of the same operation)
    Mat             yb[2], xb[2];
    const PetscInt *yg, *xg;
    bool            same[2];
    PetscCall(MatMPIAIJGetSeqAIJ(Y, &yb[0], &yb[1], &yg));
    PetscCall(MatMPIAIJGetSeqAIJ(X, &xb[0], &xb[1], &xg));
    PetscCall(SamePattern(yb[0], xb[0], &same[0]));
    PetscCall(SamePattern(yb[1], xb[1], &same[1]));
    int equal = same[0] && same[1] && yb[1]->cmap->n == xb[1]->cmap->n && (!yb[1]->cmap->n || !std::memcmp(yg, xg, (size_t)yb[1]->cmap->n * sizeof(PetscInt)));
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &equal, 1, MPI_INT, MPI_LAND, PetscObjectComm((PetscObject)Y))); // the different path is collective
    if (equal) str = SAME_NONZERO_PATTERN;
  }
  PetscCall(MPIDataOf(Y)->parent.axpy(Y, a, X, str));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpumat
