// aijcusparse shadows of our matrices (CUDA builds): how PETSc's own GPU code for aijcusparse
// (cuSPARSE products, MatScale, MatDiagonalScale, MatAXPY) runs on our matrices' values.
//
// Each matrix of ours that such an operation reaches keeps an aijcusparse shadow of its own level
// (composed on it) until its nonzero pattern changes:
// - seq: a SeqAIJ made on the matrix's own host CSR arrays (MatCreateSeqAIJWithArrays: no copy)
//   and turned aijcusparse, so its upload is aijcusparse's own copy to the GPU; new values come
//   from our device copy of the CSR values where it holds the current ones (a device-to-device
//   copy into the shadow), else from the shared host array (uploaded by aijcusparse when the shadow
//   is next used); a seq result of a device product of ours adopts the product's inner result
//   instead (ShadowAdopt: its pattern is on the device already), fed from our device copy or, where
//   the host holds the newest values, by an upload of them; a device build of the block reads it
//   (ShadowOnDevice, -mat_gpumat_device_csr): one upload of the CSR for the format and for PETSc's
//   GPU operations;
// - MPI: an mpiaijcusparse whose two blocks are the seq shadows of the matrix's diagonal and
//   off-diagonal blocks (joined with a copy of its column map by MatCreateMPIAIJWithSeqAIJ: no COO
//   preallocation), or, for an MPI result of a device product whose blocks took the inner result's
//   patterns, that inner result (ShadowAdopt), whose blocks are its blocks' shadows; each block fed
//   as a seq shadow is.
// A shadow is fed before every use (ShadowOf), so its own record of which side is newer is right
// whenever PETSc's code reads it; nothing else touches it.
#pragma once
#include "block.hpp"
#include <vector>

namespace gpumat {
// A sequential block's host CSR pattern and rows: SeqAIJ's own arrays (any AIJ type with a host CSR).
PetscErrorCode HostPattern(Mat blk, PetscInt *m, const PetscInt **ia, const PetscInt **ja);
} // namespace gpumat

#if defined(GPUMAT_WITH_CUDA)
namespace gpumat {

// The shadow of X (ours; seq, or MPI with `mpi`), holding X's current values.
PetscErrorCode ShadowOf(Mat X, bool mpi, Mat *S);
// The seq matrix X's shadow, fed with X's current values, whose device CSR is X's host CSR entry for
// entry: the one X has there (adopted, or uploaded by an earlier use) or, with `make`, one made now;
// else null. The caller reads it through aijcusparse (MatSeqAIJCUSPARSEGetIJ/GetArrayRead), which
// uploads what the shadow's host side holds newer.
PetscErrorCode ShadowOnDevice(Mat X, bool make, Mat *S);
// After an operation changed the values (not the pattern) of Y's seq shadow S on the device: they
// become Y's, in Y's device copy of its CSR values (SeqSetDeviceCsrValues).
PetscErrorCode ShadowValuesBack(Mat Y, Mat S);
// S (aijcusparse of X's level and pattern in arrays of its own: a device product's inner result;
// MPI: blocks of the same patterns and the same column map) becomes the shadow of X (referenced),
// instead of one made on X's host arrays and uploaded: fed from X's device copies of its values, or
// from its host arrays where those hold the newest.
PetscErrorCode ShadowAdopt(Mat X, Mat S);
// The seq matrix X's shadow where it was adopted (ShadowAdopt) for X's current pattern, else null:
// its device CSR (MatSeqAIJCUSPARSEGetIJ) is X's pattern on the device, entry for entry as X's host
// CSR.
PetscErrorCode AdoptedShadow(Mat X, Mat *S);
// The seq matrix X's adopted shadow (AdoptedShadow) while fewer than `limit` products of X ran
// through it, else null; with `take` its values made current (ShadowOf) and one more product
// counted. A format's build pays back only over many products, and a device product's result (GAMG's
// coarse operators and prolongators) may take a few dozen in all: its first products run on the
// CSR it has on the device already, through cuSPARSE, as aijcusparse's do.
PetscErrorCode ShadowFirst(Mat X, PetscInt limit, bool take, Mat *S);
// How many of X's products ran through its adopted shadow (ShadowFirst) since it was adopted.
PetscInt ShadowServed(Mat X);
// Y's current values are the ones its shadow S holds (Y's values were just copied from S).
PetscErrorCode ShadowHolds(Mat Y, Mat S);
// A seq block's device copy of its CSR values where it holds the current ones (the result of a
// device product, operation or COO assembly), else null.
const PetscScalar *DeviceCopy(Mat blk);

// A sequential block's stored entries.
PetscErrorCode Nonzeros(Mat blk, PetscCount *nz);
// The stored entries of an MPI matrix's diagonal and off-diagonal blocks.
PetscErrorCode BlockNonzeros(Mat X, PetscCount *nd, PetscCount *no);
// The COO entries of a sequential or MPI AIJ matrix as stored (MPI: the diagonal block's, then the
// off-diagonal one's, each in CSR order, with global row and column indices).
PetscErrorCode StoredEntries(Mat X, bool mpi, std::vector<PetscInt> *rows, std::vector<PetscInt> *cols);

} // namespace gpumat
#endif
