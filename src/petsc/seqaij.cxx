// The sequential AIJ subclass shared by every format (the aijsell / aijcusparse pattern):
// MatCreate_SeqAIJ + saved parent operations + overrides. The format is built lazily at the first
// product after an assembly, keyed on (object state, nonzero state): a new nonzero state means a
// full build, a new object state with the same nonzero state a value refresh.
#include "gpumat_impl.hpp"
#include <petsctime.h>

namespace gpumat {
namespace {

struct SeqData {
  const FormatInfo       *info = nullptr;
  std::unique_ptr<Format> fmt;
  HostCsr                 csr;

  // parent operations we chain to
  PetscErrorCode (*assemblyend)(Mat, MatAssemblyType)           = nullptr;
  PetscErrorCode (*destroy)(Mat)                                = nullptr;
  PetscErrorCode (*duplicate)(Mat, MatDuplicateOption, Mat *)   = nullptr;
  PetscErrorCode (*view)(Mat, PetscViewer)                      = nullptr;
  PetscErrorCode (*setfromoptions)(Mat, PetscOptionItems)       = nullptr;
  PetscErrorCode (*mult)(Mat, Vec, Vec)                         = nullptr;
  PetscErrorCode (*multadd)(Mat, Vec, Vec, Vec)                 = nullptr;
  PetscErrorCode (*multtranspose)(Mat, Vec, Vec)                = nullptr;
  PetscErrorCode (*multtransposeadd)(Mat, Vec, Vec, Vec)        = nullptr;
  PetscErrorCode (*multhermitiantranspose)(Mat, Vec, Vec)       = nullptr;
  PetscErrorCode (*multhermitiantransposeadd)(Mat, Vec, Vec, Vec) = nullptr;

  PetscBool eager = PETSC_FALSE, force_host = PETSC_FALSE;

  // what the host and device storage were built for (-1: never)
  PetscObjectState host_nzstate = -1;
  PetscObjectState dev_nzstate = -1, dev_state = -1;

  // statistics for MatView
  PetscLogDouble build_seconds = 0, refresh_seconds = 0;
  PetscInt       builds = 0, refreshes = 0, host_builds = 0;
};

SeqData *Data(Mat A) { return static_cast<SeqData *>(A->spptr); }

PetscErrorCode ReadOptions(Mat A, Mat options_source)
{
  PetscFunctionBegin;
  PetscObjectOptionsBegin((PetscObject)options_source);
  PetscCall(SeqSetFromOptionsItems(A, PetscOptionsObject));
  PetscOptionsEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

// Options of the machinery and of the format, within an open options block.
PetscErrorCode SeqSetFromOptionsItems(Mat A, PetscOptionItems PetscOptionsObject)
{
  SeqData *d = Data(A);
  std::string head = std::string("petsc-gpumat ") + d->info->name + " options";
  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, head.c_str());
  PetscCall(PetscOptionsBool("-mat_gpumat_eager", "Build the GPU format in MatAssemblyEnd instead of at the first product", "MatAssemblyEnd", d->eager, &d->eager, nullptr));
  PetscCall(PetscOptionsBool("-mat_gpumat_host", "Run products on the host kernels even for CUDA vectors", "MatMult", d->force_host, &d->force_host, nullptr));
  PetscCall(d->fmt->SetFromOptions(PetscOptionsObject));
  PetscOptionsHeadEnd();
  // new settings: build again at the next product
  d->host_nzstate = d->dev_nzstate = d->dev_state = -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode HostCsr::Get(Mat A)
{
  const PetscInt *ai, *aj;
  PetscScalar    *aa;
  PetscMemType    mtype;
  PetscFunctionBegin;
  PetscCall(MatSeqAIJGetCSRAndMemType(A, &ai, &aj, &aa, &mtype));
  PetscCheck(PetscMemTypeHost(mtype), PETSC_COMM_SELF, PETSC_ERR_PLIB, "Expected the AIJ arrays on the host");
  view_.nrows = (index_t)A->rmap->n;
  view_.ncols = (index_t)A->cmap->n;
  view_.val   = aa;
#if defined(PETSC_USE_64BIT_INDICES)
  if (nzstate_ != A->nonzerostate) { // the 32-bit copies change with the pattern only
    const PetscInt nnz = ai[A->rmap->n];
    PetscCheck(A->rmap->n < PETSC_INT32_MAX && A->cmap->n < PETSC_INT32_MAX && nnz < PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP,
               "petsc-gpumat formats use 32-bit indices: this block has %" PetscInt_FMT " rows, %" PetscInt_FMT " columns and %" PetscInt_FMT " nonzeros; use more MPI ranks", A->rmap->n, A->cmap->n, nnz);
    i_.assign(ai, ai + A->rmap->n + 1);
    j_.assign(aj, aj + nnz);
    view_.rowptr = i_.data();
    view_.colidx = j_.data();
    nzstate_     = A->nonzerostate;
  }
#else
  view_.rowptr = ai;
  view_.colidx = aj;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

namespace {

PetscErrorCode EnsureHost(Mat A)
{
  SeqData *d = Data(A);
  PetscFunctionBegin;
  PetscCall(d->csr.Get(A));
  if (d->host_nzstate != A->nonzerostate) {
    PetscCall(d->fmt->HostBuild(d->csr.view()));
    d->host_nzstate = A->nonzerostate;
    d->host_builds++;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(GPUMAT_WITH_CUDA)
PetscErrorCode EnsureDevice(Mat A, cudaStream_t stream)
{
  SeqData         *d = Data(A);
  const TypeNames &n = Names(d->info);
  PetscObjectState state;
  PetscFunctionBegin;
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  if (d->dev_nzstate == A->nonzerostate && d->dev_state == state) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(d->csr.Get(A));
  const CsrView<Scalar> &csr = d->csr.view();
  PetscLogDouble         t0, t1;
  PetscCall(PetscTime(&t0));
  if (d->dev_nzstate != A->nonzerostate) {
    PetscCall(PetscLogEventBegin(n.build, A, 0, 0, 0));
    PetscCall(d->fmt->DeviceBuild(csr, stream));
    PetscCallCUDA(cudaStreamSynchronize(stream)); // once per pattern: the build time is reported
    PetscCall(PetscLogCpuToGpu((PetscLogDouble)(csr.nrows + 1 + csr.nnz()) * sizeof(index_t) + (PetscLogDouble)csr.nnz() * sizeof(Scalar)));
    PetscCall(PetscLogEventEnd(n.build, A, 0, 0, 0));
    PetscCall(PetscTime(&t1));
    d->build_seconds = t1 - t0;
    d->builds++;
  } else {
    PetscCall(PetscLogEventBegin(n.refresh, A, 0, 0, 0));
    PetscCall(d->fmt->DeviceRefresh(csr, stream));
    PetscCall(PetscLogCpuToGpu((PetscLogDouble)csr.nnz() * sizeof(Scalar)));
    PetscCall(PetscLogEventEnd(n.refresh, A, 0, 0, 0));
    PetscCall(PetscTime(&t1));
    d->refresh_seconds += t1 - t0;
    d->refreshes++;
  }
  d->dev_nzstate = A->nonzerostate;
  d->dev_state   = state;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Device path when every vector offers device memory. Returns *done = PETSC_FALSE (and touches
// nothing) when one of them is a host vector.
PetscErrorCode DeviceApply(Mat A, Op op, Vec x, Vec z, Vec y, PetscBool *done)
{
  SeqData           *d = Data(A);
  const PetscScalar *xa, *za = nullptr;
  PetscScalar       *ya;
  PetscMemType       mx, mz = PETSC_MEMTYPE_DEVICE, my;
  PetscBool          xcuda, ycuda, zcuda = PETSC_TRUE;
  PetscFunctionBegin;
  *done = PETSC_FALSE;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)x, &xcuda, VECSEQCUDA, VECMPICUDA, ""));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)y, &ycuda, VECSEQCUDA, VECMPICUDA, ""));
  if (z && z != y) PetscCall(PetscObjectTypeCompareAny((PetscObject)z, &zcuda, VECSEQCUDA, VECMPICUDA, ""));
  if (!xcuda || !ycuda || !zcuda) PetscFunctionReturn(PETSC_SUCCESS);
  for (Vec v : {x, y, z}) { // a CUDA vector bound to the CPU keeps its values on the host
    PetscBool bound = PETSC_FALSE;
    if (v) PetscCall(VecBoundToCPU(v, &bound));
    if (bound) PetscFunctionReturn(PETSC_SUCCESS);
  }

  cudaStream_t stream;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(EnsureDevice(A, stream));
  PetscCall(VecGetArrayReadAndMemType(x, &xa, &mx));
  if (z == y) {
    PetscCall(VecGetArrayAndMemType(y, &ya, &my));
    za = ya;
  } else {
    if (z) PetscCall(VecGetArrayReadAndMemType(z, &za, &mz));
    PetscCall(VecGetArrayWriteAndMemType(y, &ya, &my));
  }
  PetscCheck(PetscMemTypeDevice(mx) && PetscMemTypeDevice(my) && PetscMemTypeDevice(mz), PETSC_COMM_SELF, PETSC_ERR_PLIB, "CUDA vectors gave host memory");
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(d->fmt->DeviceApply(op, xa, za, ya, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(VecRestoreArrayReadAndMemType(x, &xa));
  if (z == y) PetscCall(VecRestoreArrayAndMemType(y, &ya));
  else {
    if (z) PetscCall(VecRestoreArrayReadAndMemType(z, &za));
    PetscCall(VecRestoreArrayWriteAndMemType(y, &ya));
  }
  PetscCall(PetscLogGpuFlops(2.0 * d->csr.view().nnz()));
  *done = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

PetscErrorCode HostApply(Mat A, Op op, Vec x, Vec z, Vec y)
{
  SeqData           *d = Data(A);
  const PetscScalar *xa, *za = nullptr;
  PetscScalar       *ya;
  PetscFunctionBegin;
  PetscCall(EnsureHost(A));
  PetscCall(VecGetArrayRead(x, &xa));
  if (z == y) {
    PetscCall(VecGetArray(y, &ya));
    za = ya;
  } else {
    if (z) PetscCall(VecGetArrayRead(z, &za));
    PetscCall(VecGetArrayWrite(y, &ya));
  }
  PetscCall(d->fmt->HostApply(d->csr.view(), op, xa, za, ya));
  PetscCall(VecRestoreArrayRead(x, &xa));
  if (z == y) PetscCall(VecRestoreArray(y, &ya));
  else {
    if (z) PetscCall(VecRestoreArrayRead(z, &za));
    PetscCall(VecRestoreArrayWrite(y, &ya));
  }
  PetscCall(PetscLogFlops(2.0 * d->csr.view().nnz()));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Mult(Mat A, Vec x, Vec y) { return SeqApply(A, Op::NoTrans, x, nullptr, y); }
PetscErrorCode MultAdd(Mat A, Vec x, Vec z, Vec y) { return SeqApply(A, Op::NoTrans, x, z, y); }
PetscErrorCode MultTranspose(Mat A, Vec x, Vec y) { return SeqApply(A, Op::Trans, x, nullptr, y); }
PetscErrorCode MultTransposeAdd(Mat A, Vec x, Vec z, Vec y) { return SeqApply(A, Op::Trans, x, z, y); }

void InstallProducts(Mat A)
{
  A->ops->mult                      = Mult;
  A->ops->multadd                   = MultAdd;
  A->ops->multtranspose             = MultTranspose;
  A->ops->multtransposeadd          = MultTransposeAdd;
  A->ops->multhermitiantranspose    = MultTranspose; // real scalars only
  A->ops->multhermitiantransposeadd = MultTransposeAdd;
}

PetscErrorCode Build(Mat A)
{
  PetscFunctionBegin;
#if defined(GPUMAT_WITH_CUDA)
  if (!Data(A)->force_host && !A->boundtocpu) {
    cudaStream_t stream;
    PetscCall(PetscGetCurrentCUDAStream(&stream));
    PetscCall(EnsureDevice(A, stream));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  PetscCall(EnsureHost(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AssemblyEnd(Mat A, MatAssemblyType mode)
{
  SeqData *d = Data(A);
  PetscFunctionBegin;
  PetscCall(d->assemblyend(A, mode));
  if (mode == MAT_FLUSH_ASSEMBLY) PetscFunctionReturn(PETSC_SUCCESS);
  InstallProducts(A); // the parent may have installed its inode products
  if (d->eager) {
    PetscCall(Build(A));
    // MatAssemblyEnd() increases the object state after this returns: the build is for that state.
    if (d->dev_nzstate == A->nonzerostate) d->dev_state += 1;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ComposeConverters(Mat A, const FormatInfo *f, PetscErrorCode (*to_us)(Mat, MatType, MatReuse, Mat *), PetscErrorCode (*from_us)(Mat, MatType, MatReuse, Mat *), const char *seq_or_mpi)
{
  // MatConvert() looks for MatConvert_<from type>_<prefix><to type>_C on both matrices, prefix
  // being "seq", "mpi" or "": compose the names under which users reach us and we reach others.
  const std::string self = std::string(seq_or_mpi) + "aij" + f->name;
  std::vector<std::string> sources = {std::string(seq_or_mpi) + "aij", std::string(seq_or_mpi) + "aijcusparse"};
  for (const FormatInfo &g : Formats())
    if (&g != f) sources.push_back(std::string(seq_or_mpi) + "aij" + g.name);
  PetscFunctionBegin;
  for (const std::string &src : sources) {
    PetscCall(PetscObjectComposeFunction((PetscObject)A, ("MatConvert_" + src + "_" + self + "_C").c_str(), to_us));
    PetscCall(PetscObjectComposeFunction((PetscObject)A, ("MatConvert_" + src + "_" + f->name + "_C").c_str(), to_us));
    PetscCall(PetscObjectComposeFunction((PetscObject)A, ("MatConvert_" + self + "_" + src + "_C").c_str(), from_us));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DecomposeConverters(Mat A, const FormatInfo *f, const char *seq_or_mpi)
{
  PetscFunctionBegin;
  PetscCall(ComposeConverters(A, f, nullptr, nullptr, seq_or_mpi));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Uninstall(Mat A); // back to plain SeqAIJ

PetscErrorCode Destroy(Mat A)
{
  PetscFunctionBegin;
  PetscCall(Uninstall(A));
  PetscCall((*A->ops->destroy)(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Duplicate(Mat A, MatDuplicateOption op, Mat *B)
{
  SeqData *d = Data(A);
  PetscFunctionBegin;
  PetscCall(d->duplicate(A, op, B)); // creates *B with our type name, so *B is ours with defaults
  SeqData *e = Data(*B);
  e->fmt        = d->fmt->CloneSettings();
  e->eager      = d->eager;
  e->force_host = d->force_host;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SetFromOptions(Mat A, PetscOptionItems PetscOptionsObject)
{
  SeqData *d = Data(A);
  PetscFunctionBegin;
  if (d->setfromoptions) PetscCall(d->setfromoptions(A, PetscOptionsObject));
  PetscCall(SeqSetFromOptionsItems(A, PetscOptionsObject));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode View(Mat A, PetscViewer viewer)
{
  SeqData          *d = Data(A);
  PetscBool         ascii;
  PetscViewerFormat format;
  PetscFunctionBegin;
  PetscCall(d->view(A, viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerGetFormat(viewer, &format));
  if (format != PETSC_VIEWER_ASCII_INFO && format != PETSC_VIEWER_ASCII_INFO_DETAIL) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(d->csr.Get(A));
  const CsrView<Scalar> &csr       = d->csr.view();
  const double           csr_bytes = (double)(csr.nrows + 1 + csr.nnz()) * sizeof(index_t) + (double)csr.nnz() * sizeof(Scalar);
  PetscCall(PetscViewerASCIIPrintf(viewer, "petsc-gpumat %s: %s\n", d->info->name, d->info->title));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  PetscCall(d->fmt->ViewInfo(viewer, csr));
  // one build per nonzero pattern, value changes refresh (tests/petsc/test_products.cxx reads this)
  PetscCall(PetscViewerASCIIPrintf(viewer, "builds: host %" PetscInt_FMT ", device %" PetscInt_FMT "; device value refreshes: %" PetscInt_FMT "\n", d->host_builds, d->builds, d->refreshes));
  const std::size_t dev = d->fmt->DeviceBytes();
  if (dev) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "device memory: %zu bytes, %.3f bytes per nonzero (CSR with 32-bit indices: %.3f)\n", dev, csr.nnz() ? (double)dev / csr.nnz() : 0.0, csr.nnz() ? csr_bytes / csr.nnz() : 0.0));
    PetscCall(PetscViewerASCIIPrintf(viewer, "device build: %" PetscInt_FMT " time(s), last %.3g ms; value refreshes: %" PetscInt_FMT ", %.3g ms in all\n", d->builds, 1e3 * d->build_seconds, d->refreshes, 1e3 * d->refresh_seconds));
  } else {
    PetscCall(PetscViewerASCIIPrintf(viewer, "not built on the device (products so far ran on the host, or none ran)\n"));
  }
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ToSeqAIJ(Mat A, MatType, MatReuse reuse, Mat *newmat)
{
  Mat B = *newmat;
  PetscFunctionBegin;
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  else if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(A, *newmat, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(PETSC_SUCCESS);
  } else B = A;
  PetscCall(Uninstall(B));
  *newmat = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// From us to any other type: through plain SeqAIJ.
PetscErrorCode FromUs(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  PetscBool seqaij;
  PetscFunctionBegin;
  PetscCall(PetscStrcmpAny(type, &seqaij, MATSEQAIJ, MATAIJ, ""));
  if (seqaij || reuse == MAT_REUSE_MATRIX) {
    PetscCall(ToSeqAIJ(A, type, reuse, newmat));
  } else if (reuse == MAT_INPLACE_MATRIX) {
    PetscCall(ToSeqAIJ(A, type, reuse, newmat));
    PetscCall(MatConvert(*newmat, type, MAT_INPLACE_MATRIX, newmat));
  } else {
    Mat B;
    PetscCall(ToSeqAIJ(A, MATSEQAIJ, MAT_INITIAL_MATRIX, &B));
    PetscCall(MatConvert(B, type, MAT_INPLACE_MATRIX, &B));
    *newmat = B;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Uninstall(Mat A)
{
  SeqData *d = Data(A);
  PetscFunctionBegin;
  if (!d) PetscFunctionReturn(PETSC_SUCCESS);
  A->ops->assemblyend               = d->assemblyend;
  A->ops->destroy                   = d->destroy;
  A->ops->duplicate                 = d->duplicate;
  A->ops->view                      = d->view;
  A->ops->setfromoptions            = d->setfromoptions;
  A->ops->mult                      = d->mult;
  A->ops->multadd                   = d->multadd;
  A->ops->multtranspose             = d->multtranspose;
  A->ops->multtransposeadd          = d->multtransposeadd;
  A->ops->multhermitiantranspose    = d->multhermitiantranspose;
  A->ops->multhermitiantransposeadd = d->multhermitiantransposeadd;
  PetscCall(DecomposeConverters(A, d->info, "seq"));
  PetscCall(d->fmt->DeviceRelease());
  PetscCallCXX(delete d);
  A->spptr = nullptr;
  PetscCall(MatSetVecType(A, VECSTANDARD));
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, MATSEQAIJ));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

PetscErrorCode SeqIsOurs(Mat A, const FormatInfo *f, PetscBool *ours)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, Names(f).seq.c_str(), ours));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SeqInstallWithOptions(Mat A, const FormatInfo *f, Mat options_source)
{
  PetscBool ours, seqaij;
  PetscFunctionBegin;
  PetscCall(SeqIsOurs(A, f, &ours));
  if (ours) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJ, &seqaij));
  PetscCheck(seqaij, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s can only be made from a plain seqaij matrix, not %s", Names(f).seq.c_str(), ((PetscObject)A)->type_name);
  PetscCheck(!A->spptr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "seqaij matrix already carries spptr");
  SeqData *d;
  PetscCallCXX(d = new SeqData);
  d->info                      = f;
  PetscCallCXX(d->fmt = f->create());
  d->assemblyend               = A->ops->assemblyend;
  d->destroy                   = A->ops->destroy;
  d->duplicate                 = A->ops->duplicate;
  d->view                      = A->ops->view;
  d->setfromoptions            = A->ops->setfromoptions;
  d->mult                      = A->ops->mult;
  d->multadd                   = A->ops->multadd;
  d->multtranspose             = A->ops->multtranspose;
  d->multtransposeadd          = A->ops->multtransposeadd;
  d->multhermitiantranspose    = A->ops->multhermitiantranspose;
  d->multhermitiantransposeadd = A->ops->multhermitiantransposeadd;
  A->spptr                     = d;

  A->ops->assemblyend    = AssemblyEnd;
  A->ops->destroy        = Destroy;
  A->ops->duplicate      = Duplicate;
  A->ops->view           = View;
  A->ops->setfromoptions = SetFromOptions;
  InstallProducts(A);
  PetscCall(ComposeConverters(A, f, MatConvert_SeqAIJ_Gpu, FromUs, "seq"));
#if defined(GPUMAT_WITH_CUDA)
  // MatCreate() binds every matrix to the CPU in device builds, and MatCreateVecs() passes that on
  // to the vectors: unbind (as aijcusparse does), so our vectors are CUDA vectors on the GPU.
  A->boundtocpu = PETSC_FALSE;
  PetscCall(MatSetVecType(A, VECCUDA));
#endif
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, Names(f).seq.c_str()));
  PetscCall(ReadOptions(A, options_source));
  if (A->assembled && d->eager) PetscCall(Build(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SeqInstall(Mat A, const FormatInfo *f) { return SeqInstallWithOptions(A, f, A); }

// Into one of ours from seqaij, seqaijcusparse or another format of ours (MatConvert, MatSetType).
PetscErrorCode MatConvert_SeqAIJ_Gpu(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  const FormatInfo *f = FindFormat(type);
  Mat               B = *newmat;
  PetscBool         seqaij;
  PetscFunctionBegin;
  PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "Not a petsc-gpumat type: %s", type);
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(A, B, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  else B = A;
  PetscCall(PetscObjectTypeCompare((PetscObject)B, MATSEQAIJ, &seqaij));
  if (!seqaij) PetscCall(MatConvert(B, MATSEQAIJ, MAT_INPLACE_MATRIX, &B));
  PetscCall(SeqInstall(B, f));
  *newmat = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

std::size_t SeqDeviceBytes(Mat A)
{
  // blocks of an MPI matrix are plain seqaij until its first assembly
  if (!A || !FindFormat(((PetscObject)A)->type_name) || !A->spptr) return 0;
  return Data(A)->fmt->DeviceBytes();
}

PetscErrorCode SeqApply(Mat A, Op op, Vec x, Vec z, Vec y)
{
  PetscFunctionBegin;
  PetscCheck(A->spptr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "not a petsc-gpumat matrix");
#if defined(GPUMAT_WITH_CUDA)
  if (!A->boundtocpu && !Data(A)->force_host) {
    PetscBool done;
    PetscCall(DeviceApply(A, op, x, z, y, &done));
    if (done) PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  PetscCall(HostApply(A, op, x, z, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpumat
