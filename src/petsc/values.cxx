// Mat_SeqAIJ's value accessors hooked (values.hpp): the newest values copied back to the host for
// PETSc's readers, the device copy outdated by its writers.
#include "values.hpp"
#include <petscversion.h>

namespace gpumat {
namespace {

#if PETSC_VERSION_MAJOR == 3 && PETSC_VERSION_MINOR == 26
  #define GPUMAT_KNOWN_SEQAIJ_LAYOUT 1

// PETSc 3.26's Mat_SeqAIJOps: the operations through which MatSeqAIJGetArray, ...Read, ...Write,
// their Restore and MatSeqAIJGetCSRAndMemType reach a subclass (null: the arrays themselves).
struct AccessOps {
  PetscErrorCode (*getarray)(Mat, PetscScalar **);
  PetscErrorCode (*restorearray)(Mat, PetscScalar **);
  PetscErrorCode (*getarrayread)(Mat, const PetscScalar **);
  PetscErrorCode (*restorearrayread)(Mat, const PetscScalar **);
  PetscErrorCode (*getarraywrite)(Mat, PetscScalar **);
  PetscErrorCode (*restorearraywrite)(Mat, PetscScalar **);
  PetscErrorCode (*getcsrandmemtype)(Mat, const PetscInt **, const PetscInt **, PetscScalar **, PetscMemType *);
};

// The leading members of PETSc 3.26's Mat_SeqAIJ (its SEQAIJHEADER), up to the accessors: what
// the hooks read (the CSR arrays, for the check) and write (ops).
struct SeqAIJHead {
  PetscBool         roworiented;
  PetscInt          nonew, nounused, maxnz;
  PetscInt         *imax, *ilen, *ipre;
  PetscBool         free_imax_ilen;
  PetscInt          reallocs, rmax;
  PetscBool         keepnonzeropattern, ignorezeroentries, free_ij, free_a;
  Mat_CompressedRow compressedrow;
  PetscInt          nz;
  PetscInt         *i, *j, *diag;
  PetscObjectState  diagNonzeroState;
  PetscBool         diagDense;
  PetscInt          nonzerorowcnt;
  MatScalar        *a;
  PetscScalar      *solve_work;
  IS                row, col, icol;
  PetscBool         pivotinblocks;
  Mat               parent;
  void             *submatis1;
  AccessOps         ops;
};

SeqAIJHead *Head(Mat A) { return static_cast<SeqAIJHead *>(A->data); }

PetscErrorCode GetArray(Mat A, PetscScalar **a)
{
  PetscFunctionBegin;
  PetscCall(SeqValuesHostAccess(A, true, true));
  *a = Head(A)->a;
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode GetArrayRead(Mat A, const PetscScalar **a)
{
  PetscFunctionBegin;
  PetscCall(SeqValuesHostAccess(A, true, false));
  *a = Head(A)->a;
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode GetArrayWrite(Mat A, PetscScalar **a)
{
  PetscFunctionBegin;
  PetscCall(SeqValuesHostAccess(A, false, true));
  *a = Head(A)->a;
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode RestoreArray(Mat, PetscScalar **a)
{
  *a = nullptr; // MatSeqAIJRestoreArray raises the object state itself
  return PETSC_SUCCESS;
}
PetscErrorCode RestoreArrayRead(Mat, const PetscScalar **a)
{
  *a = nullptr;
  return PETSC_SUCCESS;
}
PetscErrorCode GetCSRAndMemType(Mat A, const PetscInt **i, const PetscInt **j, PetscScalar **a, PetscMemType *mtype)
{
  PetscFunctionBegin;
  // the values are the caller's to read (or write) on the host; the machinery reading the pattern copies nothing
  if (a && !SeqValuesInternal(A)) PetscCall(SeqValuesHostAccess(A, true, true));
  if (i) *i = Head(A)->i;
  if (j) *j = Head(A)->j;
  if (a) *a = Head(A)->a;
  if (mtype) *mtype = PETSC_MEMTYPE_HOST;
  PetscFunctionReturn(PETSC_SUCCESS);
}

const AccessOps kOurs = {GetArray, RestoreArray, GetArrayRead, RestoreArrayRead, GetArrayWrite, RestoreArray, GetCSRAndMemType};

bool IsOurs(const AccessOps &o) { return o.getarray == kOurs.getarray && o.getcsrandmemtype == kOurs.getcsrandmemtype; }
bool IsEmpty(const AccessOps &o)
{
  return !o.getarray && !o.restorearray && !o.getarrayread && !o.restorearrayread && !o.getarraywrite && !o.restorearraywrite && !o.getcsrandmemtype;
}
#endif

} // namespace

PetscErrorCode HookValueAccess(Mat A, bool *ok)
{
  PetscFunctionBegin;
  *ok = false;
#if defined(GPUMAT_KNOWN_SEQAIJ_LAYOUT)
  PetscBool seqaij;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQAIJ, &seqaij));
  if (!seqaij || !A->data || !A->preallocated || A->structure_only) PetscFunctionReturn(PETSC_SUCCESS);
  SeqAIJHead *h = Head(A);
  if (IsOurs(h->ops)) {
    *ok = true;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  // the layout must be PETSc's: the CSR arrays where the public accessor (not yet hooked: plain
  // SeqAIJ answers with its own arrays) finds them, the nonzero count at its place, no accessors
  const PetscInt *ai, *aj;
  PetscScalar    *aa;
  PetscMemType    mt;
  if (!IsEmpty(h->ops)) {
    PetscCall(PetscInfo(A, "petsc-gpumat: Mat_SeqAIJ's value accessors are already set; device COO values take the host path\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatSeqAIJGetCSRAndMemType(A, &ai, &aj, &aa, &mt));
  const bool match = PetscMemTypeHost(mt) && h->i == ai && h->j == aj && h->a == aa && h->nz == (ai ? ai[A->rmap->n] : 0);
  if (!match) {
    PetscCall(PetscInfo(A, "petsc-gpumat: Mat_SeqAIJ's layout is not PETSc 3.26's as known; device COO values take the host path\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  h->ops = kOurs;
  *ok    = true;
#else
  PetscCall(PetscInfo(A, "petsc-gpumat: Mat_SeqAIJ's layout is known for PETSc 3.26 only; device COO values take the host path\n"));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

void UnhookValueAccess(Mat A)
{
#if defined(GPUMAT_KNOWN_SEQAIJ_LAYOUT)
  if (A->data && IsOurs(Head(A)->ops)) Head(A)->ops = AccessOps{};
#else
  (void)A;
#endif
}

PetscScalar *HookedHostValues(Mat A)
{
#if defined(GPUMAT_KNOWN_SEQAIJ_LAYOUT)
  return A->data && IsOurs(Head(A)->ops) ? Head(A)->a : nullptr;
#else
  (void)A;
  return nullptr;
#endif
}

} // namespace gpumat
