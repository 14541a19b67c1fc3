// The MPI type: MPIAIJ whose diagonal and off-diagonal blocks are our sequential type (mpi.hpp).
//
// PETSc's Mat_MPIAIJ (and so its ghost vector lvec) is private, and its COO and hash assembly
// paths recreate the blocks as plain seqaij with a host lvec. So this type converts the blocks in
// place after every final assembly, whatever path assembled them, and keeps its own ghost vector
// (CUDA when the input is; halo.cxx). The products follow MatMult_MPIAIJ: start the scatter, local
// product, finish the scatter, off-diagonal product added in place, so communication overlaps the
// local product (Kreutzer et al.'s task mode); with CUDA vectors the diagonal product runs on a
// stream of the matrix's own while the halo exchange and the off-diagonal product use PETSc's stream
// (-mat_gpumat_side_stream, ApplyOnSide): PETSc's VecScatterBegin returns only once its pack (and,
// through the host, its copy) is done, and a pack queued behind the diagonal product waits for the
// multiprocessors that product holds. -mat_gpumat_overlap 0 finishes the scatter first (their
// vector mode), for measuring what the overlap gains. The blocks are reached through one seam,
// BlockProductBegin/End (products.cxx).
#include "mpi.hpp"
#include "values.hpp"
#include <petscdevice.h>

namespace gpumat {
namespace {

extern const OpTable kMPITable;

PetscErrorCode Preallocation(Mat A, PetscInt d_nz, const PetscInt d_nnz[], PetscInt o_nz, const PetscInt o_nnz[])
{
  PetscFunctionBegin;
  PetscCall(MPIDataOf(A)->preallocation(A, d_nz, d_nnz, o_nz, o_nnz));
  PetscCall(MPIConvertBlocks(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SetOption(Mat A, MatOption op, PetscBool flg)
{
  PetscFunctionBegin;
  if (op == MAT_IGNORE_OFF_PROC_ENTRIES) MPIDataOf(A)->ignore_remote = flg ? true : false; // MPIAIJ's COO assembly drops such entries too
  PetscCall(MPIDataOf(A)->parent.setoption(A, op, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The MPI product's settings (-mat_gpumat_overlap, _gpu_aware_mpi, _side_stream), within an open
// options block.
PetscErrorCode ReadMPISettings(MPIData *d, PetscOptionItems PetscOptionsObject)
{
  std::string head = "petsc-gpumat " + Names(d->info).mpi + " options";
  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, head.c_str());
  PetscCall(ReadOption(PetscOptionsObject, Machinery("-mat_gpumat_overlap"), d->set.overlap, &d->set.overlap, nullptr));
  PetscCall(ReadOption(PetscOptionsObject, Machinery("-mat_gpumat_gpu_aware_mpi"), d->set.gpu_aware, &d->set.gpu_aware, nullptr));
  PetscCall(ReadOption(PetscOptionsObject, Machinery("-mat_gpumat_side_stream"), d->set.side_stream, &d->set.side_stream, nullptr));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

// MatSetFromOptions: MPIAIJ's options, the MPI product's settings, then the blocks' options, read
// inside this one options block so that -help lists them and a bad value is refused here. The
// diagonal block reads them (with -help's lines) and the off-diagonal block the same without;
// before the preallocation, when there are no blocks yet, scratch settings read them (the blocks
// read them when they are made: MPIConvertBlocks).
PetscErrorCode SetFromOptions(Mat A, PetscOptionItems PetscOptionsObject)
{
  MPIData  *d  = MPIDataOf(A);
  Mat       Ad = nullptr, Ao = nullptr;
  PetscBool ours_d = PETSC_FALSE, ours_o = PETSC_FALSE;
  PetscFunctionBegin;
  if (d->parent.setfromoptions) PetscCall(d->parent.setfromoptions(A, PetscOptionsObject));
  PetscCall(ReadMPISettings(d, PetscOptionsObject));
  if (A->preallocated) PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, nullptr));
  if (Ad) PetscCall(PetscObjectTypeCompare((PetscObject)Ad, Names(d->info).seq.c_str(), &ours_d));
  if (Ao) PetscCall(PetscObjectTypeCompare((PetscObject)Ao, Names(d->info).seq.c_str(), &ours_o));
  if (ours_d) PetscCall(SeqSetFromOptionsItems(Ad, PetscOptionsObject));
  else PetscCall(BlockOptionsCheck(d->info, PetscOptionsObject));
  if (ours_o) {
    const PetscBool printed = PetscOptionsObject->alreadyprinted;
    PetscOptionsObject->alreadyprinted = PETSC_TRUE; // the lines are the diagonal block's
    PetscCall(SeqSetFromOptionsItems(Ao, PetscOptionsObject));
    PetscOptionsObject->alreadyprinted = printed;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// MPIAIJ's operations that read their blocks' AIJ arrays themselves (not through the accessors):
// the newest values copied back into both blocks first (HostReader)
PetscErrorCode SyncBlocks(Mat A)
{
  Mat Ad, Ao;
  PetscFunctionBegin;
  if (A->preallocated) {
    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, nullptr));
    for (Mat b : {Ad, Ao})
      if (b) PetscCall(SeqValuesHostAccess(b, true, false));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
const struct _MatOps &ParentOps(Mat A) { return MPIDataOf(A)->parent; }
#define MPI_HOST_READER(member) GPUMAT_HOST_READER(SyncBlocks, ParentOps, member)

PetscErrorCode AssemblyEnd(Mat A, MatAssemblyType mode)
{
  PetscFunctionBegin;
  const struct _MatOps before = *A->ops;
  PetscCall(MPIDataOf(A)->parent.assemblyend(A, mode));
  ReinstallOps(A, kMPITable, before, &MPIDataOf(A)->parent);
  if (mode == MAT_FINAL_ASSEMBLY) PetscCall(MPIConvertBlocks(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(GPUMAT_WITH_CUDA)
// y = A x (+ z) with the diagonal block's product on the side stream (CUDA vectors, the overlap):
// our pack on PETSc's stream, then the diagonal product queued on the side stream behind it, then
// the halo and the off-diagonal block's own product (of a block stored as its nonempty rows: into
// its work vector) on PETSc's stream while the diagonal product runs; PETSc's stream then waits for
// the diagonal product and adds the off-diagonal part into y. Every rank comes here or none (the
// conditions are the same on all), and the exchange is the same whether or not the diagonal
// product could go on the side stream (where not: it runs in order, after the exchange).
PetscErrorCode ApplyOnSide(Mat A, Mat Ad, Mat Ao, Vec x, Vec z, Vec y)
{
  MPIData           *d = MPIDataOf(A);
  const PetscScalar *xa;
  PetscScalar       *ga;
  PetscMemType       mx, mg;
  cudaStream_t       s;
  BlockProduct       pd, po;
  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&s));
  PetscCall(EnsureSideStream(d));
  PetscCall(EnsureHalo(A, s));
  PetscCall(VecGetArrayReadAndMemType(x, &xa, &mx));
  PetscCheck(PetscMemTypeDevice(mx), PETSC_COMM_SELF, PETSC_ERR_PLIB, "a CUDA vector gave host memory");
  PetscCallCUDA(d->halo.pack.apply(xa, d->halo.buf, s)); // before the diagonal product holds the GPU
  PetscCall(VecRestoreArrayReadAndMemType(x, &xa));
  pd.x = x, pd.z = z, pd.y = y, pd.split = Split::kOnSide, pd.side = &d->side;
  PetscCall(BlockProductBegin(Ad, &pd));
  PetscCall(VecGetArrayWriteAndMemType(d->gh.lvec, &ga, &mg));
  PetscCheck(PetscMemTypeDevice(mg), PETSC_COMM_SELF, PETSC_ERR_PLIB, "a CUDA ghost vector gave host memory");
  PetscCall(HaloExchange(A, ga, s));
  PetscCall(VecRestoreArrayWriteAndMemType(d->gh.lvec, &ga));
  po.x = d->gh.lvec, po.z = y, po.y = y, po.split = Split::kSplit;
  PetscCall(BlockProductBegin(Ao, &po));
  PetscCall(BlockProductEnd(Ad, &pd));
  PetscCall(BlockProductEnd(Ao, &po));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

// y = A x (+ z). With the overlap and device vectors the diagonal block's product goes on the side
// stream (ApplyOnSide, -mat_gpumat_side_stream); otherwise scatter begin, diagonal product, scatter
// end, off-diagonal product, all on PETSc's stream (PETSc's VecScatterBegin returns once its pack,
// and through the host its copy, are done and the messages posted).
PetscErrorCode Apply(Mat A, Vec x, Vec z, Vec y)
{
  MPIData *d = MPIDataOf(A);
  Mat      Ad, Ao;
  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, nullptr));
  PetscCall(EnsureGhosts(A, x));
#if defined(GPUMAT_WITH_CUDA)
  if (d->set.overlap && d->set.side_stream && d->gh.side) {
    PetscCall(ApplyOnSide(A, Ad, Ao, x, z, y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  PetscCall(VecScatterBegin(d->gh.sct, x, d->gh.lvec, INSERT_VALUES, SCATTER_FORWARD));
  if (!d->set.overlap) PetscCall(VecScatterEnd(d->gh.sct, x, d->gh.lvec, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(BlockApply(Ad, Op::NoTrans, x, z, y));
  if (d->set.overlap) PetscCall(VecScatterEnd(d->gh.sct, x, d->gh.lvec, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(BlockApply(Ao, Op::NoTrans, d->gh.lvec, y, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// y = A^T x (+ z): off-diagonal transpose into the ghosts, local transpose, reverse scatter-add.
PetscErrorCode ApplyTranspose(Mat A, Vec x, Vec z, Vec y)
{
  MPIData *d = MPIDataOf(A);
  Mat      Ad, Ao;
  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, nullptr));
  PetscCall(EnsureGhosts(A, y));
  PetscCall(BlockApply(Ao, Op::Trans, x, nullptr, d->gh.lvec));
  PetscCall(BlockApply(Ad, Op::Trans, x, z, y));
  PetscCall(VecScatterBegin(d->gh.sct, d->gh.lvec, y, ADD_VALUES, SCATTER_REVERSE));
  PetscCall(VecScatterEnd(d->gh.sct, d->gh.lvec, y, ADD_VALUES, SCATTER_REVERSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Mult(Mat A, Vec x, Vec y) { return Apply(A, x, nullptr, y); }
PetscErrorCode MultAdd(Mat A, Vec x, Vec z, Vec y) { return Apply(A, x, z, y); }
PetscErrorCode MultTranspose(Mat A, Vec x, Vec y) { return ApplyTranspose(A, x, nullptr, y); }
PetscErrorCode MultTransposeAdd(Mat A, Vec x, Vec z, Vec y) { return ApplyTranspose(A, x, z, y); }

PetscErrorCode Uninstall(Mat A, bool blocks);

PetscErrorCode Destroy(Mat A)
{
  PetscErrorCode (*destroy)(Mat) = MPIDataOf(A)->parent.destroy; // not A->ops->destroy: it may chain to us
  PetscFunctionBegin;
  PetscCall(Uninstall(A, false)); // the blocks are destroyed next
  PetscCall(destroy(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// MPIAIJ's duplicate copies the blocks (ours, with their settings) without a preallocation, so the
// product's settings are copied here.
PetscErrorCode Duplicate(Mat A, MatDuplicateOption op, Mat *B)
{
  PetscFunctionBegin;
  PetscCall(MPIDataOf(A)->parent.duplicate(A, op, B)); // *B is ours with default settings
  MPIDataOf(*B)->set = MPIDataOf(A)->set;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Every operation an MPI type of ours overrides: install and uninstall walk this table.
const OpSlot kMPIOps[] = {
  GPUMAT_OP(assemblyend, AssemblyEnd),
  GPUMAT_OP(destroy, Destroy),
  GPUMAT_OP(duplicate, Duplicate),
  GPUMAT_OP(view, MPIView),
  GPUMAT_OP(mult, Mult),
  GPUMAT_OP(multadd, MultAdd),
  GPUMAT_OP(multtranspose, MultTranspose),
  GPUMAT_OP(multtransposeadd, MultTransposeAdd),
  GPUMAT_OP(multhermitiantranspose, MultTranspose), // real scalars only
  GPUMAT_OP(multhermitiantransposeadd, MultTransposeAdd),
  GPUMAT_OP(setoption, SetOption),
  GPUMAT_OP(setfromoptions, SetFromOptions),
  GPUMAT_OP(productsetfromoptions, ProductSetFromOptions),
  GPUMAT_OP(axpy, MPIAXPY),
  MPI_HOST_READER(getcolumnreductions),
  MPI_HOST_READER(createsubmatrices),
  MPI_HOST_READER(createsubmatrix),
};
const OpTable kMPITable = {kMPIOps, sizeof(kMPIOps) / sizeof(kMPIOps[0])};

PetscErrorCode FromUs(Mat A, MatType type, MatReuse reuse, Mat *newmat);

PetscErrorCode Compose(Mat A, const FormatInfo *f, bool on)
{
  PetscFunctionBegin;
  PetscCall(ComposeConverters(A, f, "mpi", on ? MatConvert_MPIAIJ_Gpu : nullptr, on ? FromUs : nullptr));
  PetscCall(ComposeProducts(A, f, "mpi", on));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatMPIAIJSetPreallocation_C", on ? Preallocation : MPIDataOf(A)->preallocation));
  PetscCall(MPIComposeCOO(A, on));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Uninstall(Mat A, bool blocks)
{
  MPIData *d = MPIDataOf(A);
  Mat      Ad, Ao;
  PetscFunctionBegin;
  if (!d) PetscFunctionReturn(PETSC_SUCCESS);
  UninstallOps(A, kMPITable, &d->parent);
  PetscCall(Compose(A, d->info, false));
  PetscCall(VecScatterDestroy(&d->gh.sct));
  PetscCall(VecDestroy(&d->gh.lvec));
  d->coo.Release();
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

// Make the blocks ours (they may be plain seqaij after COO or hash assembly), reading the
// format's options and the product's settings with the MPI matrix's prefix.
PetscErrorCode MPIConvertBlocks(Mat A)
{
  MPIData *d = MPIDataOf(A);
  Mat      Ad, Ao;
  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, nullptr));
  if (Ad) PetscCall(SeqInstallWithOptions(Ad, d->info, A));
  if (Ao) PetscCall(SeqInstallWithOptions(Ao, d->info, A));
  PetscObjectOptionsBegin((PetscObject)A);
  PetscCall(ReadMPISettings(d, PetscOptionsObject));
  PetscOptionsEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

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
  if (A->preallocated) PetscCall(MPIConvertBlocks(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Into one of ours from mpiaij, mpiaijcusparse or another format of ours.
PetscErrorCode MatConvert_MPIAIJ_Gpu(Mat A, MatType type, MatReuse reuse, Mat *newmat) { return ConvertIntoOurs(A, type, reuse, newmat, MATMPIAIJ, MPIInstall); }

PetscErrorCode MPIGetInfo(Mat A, MatGpuMatInfo *info)
{
  const MPIData *d = MPIDataOf(A);
  PetscFunctionBegin;
  if (!d) PetscFunctionReturn(PETSC_SUCCESS);
  info->overlap       = d->set.overlap;
  info->side_stream   = d->set.side_stream;
  info->gpu_aware_mpi = d->set.gpu_aware;
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpumat
