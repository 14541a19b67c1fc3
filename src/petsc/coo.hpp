// Device COO assembly (coo.cxx sums the values; coo_maps.cxx makes the maps of the COO entries onto
// the blocks' nonzeros): what the two files share.
#pragma once
#include "block.hpp"
#include "mpi.hpp"

namespace gpumat {

// The COO entries as given (MatSetPreallocationCOO's coo_i, coo_j, host or device memory) copied to
// the host into *ci, *cj, and the arrays to hand the parent's preallocation, which may reorder them
// and reads them on the host: the caller's own host arrays, or host copies (*si, *sj) of device ones.
PetscErrorCode CooEntriesOnHost(PetscCount n, PetscInt coo_i[], PetscInt coo_j[], std::vector<PetscInt> *ci, std::vector<PetscInt> *cj, std::vector<PetscInt> *si, std::vector<PetscInt> *sj, PetscInt **pi, PetscInt **pj);
// The maps of a sequential block A from its COO entries (i[e], j[e]); A preallocated by them.
PetscErrorCode SetLocalMap(Mat A, PetscCount n, const PetscInt *ci, const PetscInt *cj);
// The maps of an MPI matrix's blocks and the SF of other ranks' entries; collective.
PetscErrorCode BuildCooMaps(Mat A, PetscCount n, const PetscInt *ci, const PetscInt *cj);
#if defined(GPUMAT_WITH_CUDA)
// Whether a block's device assembly can run (maps for the current pattern, hooked accessors).
PetscErrorCode SeqCooDeviceReady(Mat A, bool *ready);
// Every value of a sequential block of ours, in CSR order, from device memory into its device copy
// (no COO map: the order is the block's own), as a device COO assembly leaves them: the device copy
// the newest, host readers get them copied back through the hooked accessors (where they cannot be
// hooked, the values go to the host array instead).
PetscErrorCode SeqSetDeviceCsrValues(Mat A, const PetscScalar v[]);
#endif

} // namespace gpumat
