// What the seq and MPI levels share in PETSc's object model: the operation tables, the composed
// functions (converters, hypre's among them; the COO chain), CUDA errors as PETSc errors and the
// Format defaults of builds without CUDA.
#include "machinery.hpp"
#include <petscdevice.h>
#include <cstring>

namespace gpumat {

namespace {
AnyOp &Slot(struct _MatOps *ops, std::size_t offset) { return *reinterpret_cast<AnyOp *>(reinterpret_cast<char *>(ops) + offset); }
AnyOp  Slot(const struct _MatOps *ops, std::size_t offset) { return *reinterpret_cast<const AnyOp *>(reinterpret_cast<const char *>(ops) + offset); }
} // namespace

void InstallOps(Mat A, OpTable t, struct _MatOps *parent)
{
  std::memcpy(parent, A->ops, sizeof(*parent));
  for (std::size_t i = 0; i < t.n; i++) Slot(A->ops, t.slots[i].offset) = t.slots[i].ours;
}

void ReinstallOps(Mat A, OpTable t, const struct _MatOps &before, struct _MatOps *parent)
{
  for (std::size_t i = 0; i < t.n; i++) {
    AnyOp &cur = Slot(A->ops, t.slots[i].offset);
    if (cur == Slot(&before, t.slots[i].offset)) continue;
    Slot(parent, t.slots[i].offset) = cur; // the parent chose again (e.g. inode products)
    cur                             = t.slots[i].ours;
  }
}

void UninstallOps(Mat A, OpTable t, const struct _MatOps *parent)
{
  for (std::size_t i = 0; i < t.n; i++) {
    AnyOp &cur = Slot(A->ops, t.slots[i].offset);
    if (cur == t.slots[i].ours) cur = Slot(parent, t.slots[i].offset);
  }
}

PetscErrorCode ComposeCoo(Mat A, bool on, CooChain *parent, const CooChain &ours)
{
  PetscFunctionBegin;
  if (on) {
    PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatSetPreallocationCOO_C", &parent->preallocation));
    PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatSetValuesCOO_C", &parent->setvalues));
    PetscCheck(parent->preallocation && parent->setvalues, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s without its COO assembly", ((PetscObject)A)->type_name);
    PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatSetPreallocationCOO_C", ours.preallocation));
    PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatSetValuesCOO_C", ours.setvalues));
  } else if (parent->preallocation) {
    PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatSetPreallocationCOO_C", parent->preallocation));
    PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatSetValuesCOO_C", parent->setvalues));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

namespace {
// PETSc's AIJ-to-hypre converter (MatConvert_AIJ_HYPRE, the same function for seq and MPI), as
// found on the first matrix made ours; null where PETSc has no hypre.
PetscErrorCode (*aij_to_hypre)(Mat, MatType, MatReuse, Mat *) = nullptr;

// MatConvert_<our type>_hypre_C: PETSc's AIJ converter (MatConvert_AIJ_HYPRE) on our matrix.
// Where hypre runs on the GPU (PETSC_HAVE_HYPRE_DEVICE) that converter puts hypre's matrix where
// MatGetCurrentMemType says the matrix lives: on the host for our types (their AIJ arrays are on
// the host; our device storage is our format, not a device CSR). But our matrices give CUDA vectors
// (MatCreateVecs, as aijcusparse's), and PCApply_HYPRE zeroes BoomerAMG's initial guess on the GPU,
// then hands hypre the vector's host array through a write-only access that copies nothing back:
// host hypre would start each application from a stale iterate (no fixed linear operator; the
// iteration counts in docs/results/h200-2026-11-26c-kokkos). So an unbound matrix of ours goes to a
// GPU hypre as aijcusparse's does, through a temporary aijcusparse copy (the CSR and values uploaded
// once per conversion, a new copy for each MAT_REUSE_MATRIX): hypre's matrix, its BoomerAMG and its
// vectors on the GPU, the iterations of aijcusparse. A matrix bound to the CPU (MatBindToCPU; its
// vectors are host vectors) goes as aij's: host arrays, host hypre. Without a GPU hypre the
// converter is used as it is (hypre on the host, host arrays).
PetscErrorCode ToHypre(Mat A, MatType type, MatReuse reuse, Mat *B)
{
  PetscFunctionBegin;
  PetscCheck(aij_to_hypre, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "This PETSc has no hypre converter for AIJ matrices");
#if defined(PETSC_HAVE_HYPRE_DEVICE) && defined(GPUMAT_WITH_CUDA)
  if (!A->boundtocpu) {
    Mat C, H = reuse == MAT_REUSE_MATRIX ? *B : nullptr;
    PetscCall(MatConvert(A, MATAIJCUSPARSE, MAT_INITIAL_MATRIX, &C));
    PetscCall(MatConvert(C, type, H ? MAT_REUSE_MATRIX : MAT_INITIAL_MATRIX, &H));
    PetscCall(MatDestroy(&C));
    if (reuse == MAT_INPLACE_MATRIX) PetscCall(MatHeaderReplace(A, &H));
    else *B = H;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
#if defined(PETSC_HAVE_DEVICE)
  const PetscBool bound = A->boundtocpu;
  A->boundtocpu         = PETSC_TRUE; // host arrays (the converter's copy of the pattern reads them as such)
  const PetscErrorCode ierr = aij_to_hypre(A, type, reuse, B);
  A->boundtocpu         = bound;
  PetscCall(ierr);
#else
  PetscCall(aij_to_hypre(A, type, reuse, B));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace

PetscErrorCode ConvertIntoOurs(Mat A, MatType type, MatReuse reuse, Mat *newmat, MatType base, PetscErrorCode (*install)(Mat, const FormatInfo *))
{
  const FormatInfo *f = FindFormat(type);
  Mat               B;
  PetscBool         plain;
  PetscFunctionBegin;
  PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "Not a petsc-gpumat type: %s", type);
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(A, *newmat, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  else B = A;
  PetscCall(PetscObjectTypeCompare((PetscObject)B, base, &plain));
  if (!plain) PetscCall(MatConvert(B, base, MAT_INPLACE_MATRIX, &B));
  PetscCall(install(B, f));
  *newmat = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ComposeConverters(Mat A, const FormatInfo *f, const char *level, PetscErrorCode (*to_us)(Mat, MatType, MatReuse, Mat *), PetscErrorCode (*from_us)(Mat, MatType, MatReuse, Mat *))
{
  // MatConvert() looks for MatConvert_<from type>_<prefix><to type>_C on both matrices, prefix
  // being "seq", "mpi" or "": compose the names under which users reach us and we reach others.
  const std::string        lv(level), self = lv + "aij" + f->name;
  std::vector<std::string> sources = {lv + "aij", lv + "aijcusparse"};
  for (const FormatInfo &g : Formats())
    if (&g != f) sources.push_back(lv + "aij" + g.name);
  PetscFunctionBegin;
  for (const std::string &src : sources) {
    PetscCall(PetscObjectComposeFunction((PetscObject)A, ("MatConvert_" + src + "_" + self + "_C").c_str(), to_us));
    PetscCall(PetscObjectComposeFunction((PetscObject)A, ("MatConvert_" + src + "_" + f->name + "_C").c_str(), to_us));
    PetscCall(PetscObjectComposeFunction((PetscObject)A, ("MatConvert_" + self + "_" + src + "_C").c_str(), from_us));
  }
  // hypre (-pc_type hypre): PCSetUp_HYPRE hands the preconditioning matrix to hypre with
  // MatConvert(pmat, MATHYPRE, MAT_INITIAL_MATRIX, then MAT_REUSE_MATRIX for new values).
  // MatConvert looks converters up by the exact type name: MatConvert_<our type>_hypre_C on the
  // matrix, then on a new MATHYPRE (which composes none from AIJ types and has no convertfrom),
  // then the matrix's ops->convert (none for AIJ), and at last MatConvert_Basic, a MatGetRow and a
  // MatSetValues per row into hypre's IJ matrix (it works, but took 0.11 s against AIJ's 0.05-0.06
  // for a 60^3 7-point Laplacian on one core). PETSc's converter for AIJ is MatConvert_AIJ_HYPRE
  // (src/mat/impls/hypre/mhypre.c; not exported), composed by MatCreate_SeqAIJ and MatCreate_MPIAIJ
  // as MatConvert_seqaij_hypre_C and MatConvert_mpiaij_hypre_C when PETSc has hypre. It takes any
  // AIJ subclass: it tests base types (PetscObjectBaseTypeCompare; MatMPIAIJGetSeqAIJ accepts any
  // type name starting with mpiaij), copies each block's CSR pattern (Mat_SeqAIJ i and j, the
  // off-diagonal block's garray) into hypre's ParCSR and its values through a COO delegate
  // (MatSeqAIJGetCSRAndMemType: our AIJ arrays, on the host). Our matrices keep plain AIJ data, so
  // our type takes that same function, found on the matrix itself under AIJ's name: hypre gets the
  // matrix exactly as from AIJ (none if PETSc has no hypre; removed when we are uninstalled),
  // through ToHypre (above: where hypre runs on the GPU an unbound matrix goes as aijcusparse's).
  PetscErrorCode (*found)(Mat, MatType, MatReuse, Mat *) = nullptr;
  if (to_us) PetscCall(PetscObjectQueryFunction((PetscObject)A, ("MatConvert_" + lv + "aij_hypre_C").c_str(), &found));
  if (found) aij_to_hypre = found;
  PetscCall(PetscObjectComposeFunction((PetscObject)A, ("MatConvert_" + self + "_hypre_C").c_str(), found ? ToHypre : nullptr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CheckDevice(int cuda_error, const char *what, const CsrView<Scalar> &A)
{
  PetscFunctionBegin;
#if defined(GPUMAT_WITH_CUDA)
  const cudaError_t err = (cudaError_t)cuda_error;
  PetscCheck(err != cudaErrorMemoryAllocation, PETSC_COMM_SELF, PETSC_ERR_MEM,
             "%s: out of GPU memory for a block of %d x %d with %d nonzeros (%.1f MB as CSR); use more GPUs (MPI ranks) or a smaller problem", what, (int)A.nrows, (int)A.ncols, (int)A.nnz(),
             1e-6 * ((double)(A.nrows + 1 + A.nnz()) * sizeof(index_t) + (double)A.nnz() * sizeof(Scalar)));
  PetscCheck(err != cudaErrorInvalidValue, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s: the GPU rejected the format's parameters for this block (%s)", what, cudaGetErrorString(err));
  PetscCallCUDA(err);
#else
  PetscCheck(cuda_error == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: CUDA error %d in a build without CUDA", what, cuda_error);
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

namespace {
PetscErrorCode NoCuda() { SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "petsc-gpumat was built without CUDA (or this format has no device path)"); }
} // namespace
PetscErrorCode Format::DeviceBuild(const CsrView<Scalar> &, cudaStream_t) { return NoCuda(); }
PetscErrorCode Format::DeviceRefresh(const CsrView<Scalar> &, Mem, cudaStream_t) { return NoCuda(); }
PetscErrorCode Format::DeviceApply(Op, const Scalar *, const Scalar *, Scalar *, cudaStream_t) { return NoCuda(); }
PetscErrorCode Format::DeviceDiagonal(const index_t *, Scalar *, cudaStream_t) { return NoCuda(); }

} // namespace gpumat
