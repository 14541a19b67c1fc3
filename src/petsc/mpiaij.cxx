// The MPI type: MPIAIJ whose diagonal and off-diagonal blocks are our sequential type.
//
// PETSc's Mat_MPIAIJ (and so its ghost vector lvec) is private, and its COO and hash assembly
// paths recreate the blocks as plain seqaij with a host lvec. So this type converts the blocks in
// place after every final assembly, whatever path assembled them, and keeps its own ghost vector
// (CUDA when the input is) and scatter, built from the public garray (MatMPIAIJGetSeqAIJ). The
// products follow MatMult_MPIAIJ: start the scatter, local product, finish the scatter,
// off-diagonal product added in place, so communication overlaps the local product.
#include "gpumat_impl.hpp"

namespace gpumat {
namespace {

struct MPIData {
  const FormatInfo *info = nullptr;
  struct _MatOps    parent; // the parent's (MPIAIJ's) operations
  PetscErrorCode (*preallocation)(Mat, PetscInt, const PetscInt[], PetscInt, const PetscInt[]) = nullptr;

  // our ghost vector and scatter, for one (off-diagonal nonzero state, ghost count, memory kind)
  Vec              lvec = nullptr;
  VecScatter       sct  = nullptr;
  PetscObjectId    sct_block   = 0; // the off-diagonal block (COO preallocation makes a new one: its state alone may repeat)
  PetscObjectState sct_nzstate = -1;
  PetscInt         sct_nghost  = -1;
  PetscBool        sct_device  = PETSC_FALSE;
};

MPIData *Data(Mat A) { return static_cast<MPIData *>(A->spptr); }
extern const OpTable kMPITable;

// Make the blocks ours (they may be plain seqaij after COO or hash assembly), reading the
// format's options with the MPI matrix's prefix.
PetscErrorCode ConvertBlocks(Mat A)
{
  Mat Ad, Ao;
  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, nullptr));
  if (Ad) PetscCall(SeqInstallWithOptions(Ad, Data(A)->info, A));
  if (Ao) PetscCall(SeqInstallWithOptions(Ao, Data(A)->info, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Preallocation(Mat A, PetscInt d_nz, const PetscInt d_nnz[], PetscInt o_nz, const PetscInt o_nnz[])
{
  PetscFunctionBegin;
  PetscCall(Data(A)->preallocation(A, d_nz, d_nnz, o_nz, o_nnz));
  PetscCall(ConvertBlocks(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AssemblyEnd(Mat A, MatAssemblyType mode)
{
  PetscFunctionBegin;
  const struct _MatOps before = *A->ops;
  PetscCall(Data(A)->parent.assemblyend(A, mode));
  ReinstallOps(A, kMPITable, before, &Data(A)->parent);
  if (mode == MAT_FINAL_ASSEMBLY) PetscCall(ConvertBlocks(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The ghost vector for products whose column-space vector is `like`, for the off-diagonal block
// (its object, pattern and ghost count) and the memory of `like`.
PetscErrorCode EnsureGhosts(Mat A, Vec like)
{
  MPIData        *d = Data(A);
  Mat             Ad, Ao;
  const PetscInt *garray;
  PetscBool       device = PETSC_FALSE;
  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, &garray));
#if defined(GPUMAT_WITH_CUDA)
  PetscCall(PetscObjectTypeCompareAny((PetscObject)like, &device, VECSEQCUDA, VECMPICUDA, ""));
#endif
  const PetscInt nghost = Ao->cmap->n;
  if (d->sct && d->sct_block == ((PetscObject)Ao)->id && d->sct_nzstate == Ao->nonzerostate && d->sct_nghost == nghost && d->sct_device == device) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecScatterDestroy(&d->sct));
  PetscCall(VecDestroy(&d->lvec));
  PetscCall(VecCreate(PETSC_COMM_SELF, &d->lvec));
  PetscCall(VecSetSizes(d->lvec, nghost, nghost));
  PetscCall(VecSetType(d->lvec, device ? VECSEQCUDA : VECSEQ));
  IS from, to;
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, nghost, garray, PETSC_COPY_VALUES, &from));
  PetscCall(ISCreateStride(PETSC_COMM_SELF, nghost, 0, 1, &to));
  PetscCall(VecScatterCreate(like, from, d->lvec, to, &d->sct));
  PetscCall(ISDestroy(&from));
  PetscCall(ISDestroy(&to));
  d->sct_block   = ((PetscObject)Ao)->id;
  d->sct_nzstate = Ao->nonzerostate;
  d->sct_nghost  = nghost;
  d->sct_device  = device;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// y = A x (+ z)
PetscErrorCode Apply(Mat A, Vec x, Vec z, Vec y)
{
  MPIData *d = Data(A);
  Mat      Ad, Ao;
  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, nullptr));
  PetscCall(EnsureGhosts(A, x));
  PetscCall(VecScatterBegin(d->sct, x, d->lvec, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(SeqApply(Ad, Op::NoTrans, x, z, y));
  PetscCall(VecScatterEnd(d->sct, x, d->lvec, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(SeqApply(Ao, Op::NoTrans, d->lvec, y, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// y = A^T x (+ z): off-diagonal transpose into the ghosts, local transpose, reverse scatter-add.
PetscErrorCode ApplyTranspose(Mat A, Vec x, Vec z, Vec y)
{
  MPIData *d = Data(A);
  Mat      Ad, Ao;
  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, nullptr));
  PetscCall(EnsureGhosts(A, y));
  PetscCall(SeqApply(Ao, Op::Trans, x, nullptr, d->lvec));
  PetscCall(SeqApply(Ad, Op::Trans, x, z, y));
  PetscCall(VecScatterBegin(d->sct, d->lvec, y, ADD_VALUES, SCATTER_REVERSE));
  PetscCall(VecScatterEnd(d->sct, d->lvec, y, ADD_VALUES, SCATTER_REVERSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Mult(Mat A, Vec x, Vec y) { return Apply(A, x, nullptr, y); }
PetscErrorCode MultAdd(Mat A, Vec x, Vec z, Vec y) { return Apply(A, x, z, y); }
PetscErrorCode MultTranspose(Mat A, Vec x, Vec y) { return ApplyTranspose(A, x, nullptr, y); }
PetscErrorCode MultTransposeAdd(Mat A, Vec x, Vec z, Vec y) { return ApplyTranspose(A, x, z, y); }

PetscErrorCode View(Mat A, PetscViewer viewer)
{
  MPIData          *d = Data(A);
  PetscBool         ascii;
  PetscViewerFormat format;
  PetscFunctionBegin;
  PetscCall(d->parent.view(A, viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerGetFormat(viewer, &format));
  if (format != PETSC_VIEWER_ASCII_INFO && format != PETSC_VIEWER_ASCII_INFO_DETAIL) PetscFunctionReturn(PETSC_SUCCESS);
  Mat         Ad, Ao;
  PetscMPIInt rank;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, nullptr));
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)A), &rank));
  PetscCall(PetscViewerASCIIPrintf(viewer, "petsc-gpumat %s blocks, each rank (diagonal block, then off-diagonal block):\n", d->info->name));
  PetscCall(PetscViewerASCIIPushSynchronized(viewer));
  PetscViewer sub;
  PetscCall(PetscViewerGetSubViewer(viewer, PETSC_COMM_SELF, &sub));
  PetscCall(PetscViewerASCIIPrintf(sub, "[%d] diagonal block\n", rank));
  PetscCall(MatView(Ad, sub));
  PetscCall(PetscViewerASCIIPrintf(sub, "[%d] off-diagonal block\n", rank));
  PetscCall(MatView(Ao, sub));
  PetscCall(PetscViewerRestoreSubViewer(viewer, PETSC_COMM_SELF, &sub));
  PetscCall(PetscViewerFlush(viewer));
  PetscCall(PetscViewerASCIIPopSynchronized(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Uninstall(Mat A, bool blocks);

PetscErrorCode Destroy(Mat A)
{
  PetscErrorCode (*destroy)(Mat) = Data(A)->parent.destroy; // not A->ops->destroy: it may chain to us
  PetscFunctionBegin;
  PetscCall(Uninstall(A, false)); // the blocks are destroyed next
  PetscCall(destroy(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Every operation an MPI type of ours overrides: install and uninstall walk this table.
const OpSlot kMPIOps[] = {
  GPUMAT_OP(assemblyend, AssemblyEnd),
  GPUMAT_OP(destroy, Destroy),
  GPUMAT_OP(view, View),
  GPUMAT_OP(mult, Mult),
  GPUMAT_OP(multadd, MultAdd),
  GPUMAT_OP(multtranspose, MultTranspose),
  GPUMAT_OP(multtransposeadd, MultTransposeAdd),
  GPUMAT_OP(multhermitiantranspose, MultTranspose), // real scalars only
  GPUMAT_OP(multhermitiantransposeadd, MultTransposeAdd),
};
const OpTable kMPITable = {kMPIOps, sizeof(kMPIOps) / sizeof(kMPIOps[0])};

PetscErrorCode FromUs(Mat A, MatType type, MatReuse reuse, Mat *newmat);

PetscErrorCode Compose(Mat A, const FormatInfo *f, bool on)
{
  PetscFunctionBegin;
  PetscCall(ComposeConverters(A, f, "mpi", on ? MatConvert_MPIAIJ_Gpu : nullptr, on ? FromUs : nullptr));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatMPIAIJSetPreallocation_C", on ? Preallocation : Data(A)->preallocation));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Uninstall(Mat A, bool blocks)
{
  MPIData *d = Data(A);
  Mat      Ad, Ao;
  PetscFunctionBegin;
  if (!d) PetscFunctionReturn(PETSC_SUCCESS);
  UninstallOps(A, kMPITable, &d->parent);
  PetscCall(Compose(A, d->info, false));
  PetscCall(VecScatterDestroy(&d->sct));
  PetscCall(VecDestroy(&d->lvec));
  if (blocks && A->preallocated) {
    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, nullptr));
    if (Ad) PetscCall(MatConvert(Ad, MATSEQAIJ, MAT_INPLACE_MATRIX, &Ad));
    if (Ao) PetscCall(MatConvert(Ao, MATSEQAIJ, MAT_INPLACE_MATRIX, &Ao));
  }
  PetscCallCXX(delete d);
  A->spptr = nullptr;
  PetscCall(MatSetVecType(A, VECSTANDARD));
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, MATMPIAIJ));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FromUs(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat       B;
  PetscBool mpiaij;
  PetscFunctionBegin;
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(A, *newmat, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  else B = A;
  PetscCall(Uninstall(B, true));
  PetscCall(PetscStrcmpAny(type, &mpiaij, MATMPIAIJ, MATAIJ, ""));
  if (!mpiaij) PetscCall(MatConvert(B, type, MAT_INPLACE_MATRIX, &B));
  *newmat = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

PetscErrorCode MPIInstall(Mat A, const FormatInfo *f)
{
  PetscBool mpiaij;
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATMPIAIJ, &mpiaij));
  PetscCheck(mpiaij, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "%s can only be made from a plain mpiaij matrix, not %s", Names(f).mpi.c_str(), ((PetscObject)A)->type_name);
  PetscCheck(!A->spptr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "mpiaij matrix already carries spptr");
  MPIData *d;
  PetscCallCXX(d = new MPIData);
  d->info = f;
  PetscCall(PetscObjectQueryFunction((PetscObject)A, "MatMPIAIJSetPreallocation_C", &d->preallocation));
  PetscCheck(d->preallocation, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MPIAIJ without MatMPIAIJSetPreallocation_C");
  A->spptr = d;
  InstallOps(A, kMPITable, &d->parent);
  PetscCall(Compose(A, f, true));
#if defined(GPUMAT_WITH_CUDA)
  A->boundtocpu = PETSC_FALSE; // see SeqInstallWithOptions
  PetscCall(MatSetVecType(A, VECCUDA));
#endif
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, Names(f).mpi.c_str()));
  if (A->preallocated) PetscCall(ConvertBlocks(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Into one of ours from mpiaij, mpiaijcusparse or another format of ours.
PetscErrorCode MatConvert_MPIAIJ_Gpu(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  const FormatInfo *f = FindFormat(type);
  Mat               B;
  PetscBool         mpiaij;
  PetscFunctionBegin;
  PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "Not a petsc-gpumat type: %s", type);
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(A, *newmat, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  else B = A;
  PetscCall(PetscObjectTypeCompare((PetscObject)B, MATMPIAIJ, &mpiaij));
  if (!mpiaij) PetscCall(MatConvert(B, MATMPIAIJ, MAT_INPLACE_MATRIX, &B));
  PetscCall(MPIInstall(B, f));
  *newmat = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpumat
