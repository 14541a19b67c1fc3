// The AIJ value array of a sequential block whose newest values may be on the device (a device
// COO assembly writes them there, src/petsc/seqaij.cxx): PETSc's readers and writers of the array
// reach it through Mat_SeqAIJ's accessors (MatSeqAIJGetArray, ...Read, ...Write and their
// Restore, MatSeqAIJGetCSRAndMemType: MatSetValues, MatGetRow, MatView, MatDuplicate, MatConvert,
// MatCopy, the host products and factorizations, the MPIAIJ kernels), as aijcusparse's do, so the
// machinery hooks them (values.cxx): a reader gets the values copied back first, a writer marks
// the device copy outdated. Mat_SeqAIJ is PETSc's private type (src/mat/impls/aij/seq/aij.h, not
// installed): the hooks need its layout up to the accessors, known for PETSc 3.26 and checked on
// each matrix against PETSc's public accessors before anything is written; where it does not
// match, no hooks, and device COO values take the host path (copied to the host, SeqAIJ's
// MatSetValuesCOO).
#pragma once
#include "machinery.hpp"

namespace gpumat {

// Installs the hooks on a preallocated SeqAIJ block (once; *ok: whether they are installed).
PetscErrorCode HookValueAccess(Mat A, bool *ok);
// Removes them (nothing when not installed).
void UnhookValueAccess(Mat A);
// The AIJ value array of a hooked block, read without the hooks (null when not hooked).
PetscScalar *HookedHostValues(Mat A);

// Defined by the seq type (seqaij.cxx), called by the hooks: a host reader (read) or writer
// (write) of A's AIJ values is about to use them; a call made by the machinery itself to read
// the pattern (SeqValuesInternal) copies nothing back.
PetscErrorCode SeqValuesHostAccess(Mat A, bool read, bool write);
bool           SeqValuesInternal(Mat A);

} // namespace gpumat
