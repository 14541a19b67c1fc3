// The sequential AIJ subclass shared by every format (the aijsell / aijcusparse pattern):
// MatCreate_SeqAIJ + the parent's operations saved + ours from one table (kSeqOps). Its block's
// state, builds and refreshes: block.cxx; products: products.cxx; COO assembly: coo.cxx; MatView:
// view.cxx.
#include "block.hpp"
#include "shadow.hpp"
#include "values.hpp"
#include "core/format_record.hpp"
#include <petscdevice.h>
#include <cstring>

namespace gpumat {
namespace {

// SeqAIJ's operations that read the AIJ value array itself (MatSOR's inode variant, the column
// reductions): the newest values copied back first (HostReader)
const struct _MatOps &ParentOps(Mat A) { return Data(A)->parent; }
#define SEQ_HOST_READER(member) GPUMAT_HOST_READER(SyncHost, ParentOps, member)

PetscErrorCode AssemblyEnd(Mat A, MatAssemblyType mode);
PetscErrorCode Destroy(Mat A);
PetscErrorCode Duplicate(Mat A, MatDuplicateOption op, Mat *B);
PetscErrorCode SetFromOptions(Mat A, PetscOptionItems PetscOptionsObject);
PetscErrorCode TransposeSymbolic(Mat A, Mat *B);
PetscErrorCode ZeroEntries(Mat A);

// Every operation a seq type of ours overrides: install, reinstall and uninstall walk this table.
const OpSlot kSeqOps[] = {
  GPUMAT_OP(assemblyend, AssemblyEnd),
  GPUMAT_OP(destroy, Destroy),
  GPUMAT_OP(duplicate, Duplicate),
  GPUMAT_OP(view, SeqView),
  GPUMAT_OP(setfromoptions, SetFromOptions),
  GPUMAT_OP(mult, Mult),
  GPUMAT_OP(multadd, MultAdd),
  GPUMAT_OP(multtranspose, MultTranspose),
  GPUMAT_OP(multtransposeadd, MultTransposeAdd),
  GPUMAT_OP(multhermitiantranspose, MultTranspose), // real scalars only
  GPUMAT_OP(multhermitiantransposeadd, MultTransposeAdd),
  GPUMAT_OP(getdiagonal, GetDiagonal),
  GPUMAT_OP(scale, Scale),
  GPUMAT_OP(diagonalscale, DiagonalScale),
  GPUMAT_OP(axpy, AXPY),
  GPUMAT_OP(productsetfromoptions, ProductSetFromOptions),
  GPUMAT_OP(transposesymbolic, TransposeSymbolic),
  GPUMAT_OP(zeroentries, ZeroEntries),
  SEQ_HOST_READER(sor),
  SEQ_HOST_READER(getcolumnreductions),
};
constexpr OpTable kSeqTable = {kSeqOps, sizeof(kSeqOps) / sizeof(kSeqOps[0])};

PetscErrorCode AssemblyEnd(Mat A, MatAssemblyType mode)
{
  SeqData             *d      = Data(A);
  const struct _MatOps before = *A->ops;
  PetscObjectState     state;
  PetscFunctionBegin;
  PetscCall(d->parent.assemblyend(A, mode));
  ReinstallOps(A, kSeqTable, before, &d->parent); // the parent may have chosen its inode products
  if (mode == MAT_FLUSH_ASSEMBLY) PetscFunctionReturn(PETSC_SUCCESS);
  // MatAssemblyEnd() raises the object state once, after this returns (matrix.c): the values a
  // device COO assembly wrote, and the storage an eager build makes now, are those of that state
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  d->st.AssemblyEnded(state + 1);
  if (d->opt.eager) {
    PetscCall(BuildEagerly(A));
    d->st.values += 1;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Destroy(Mat A)
{
  PetscErrorCode (*destroy)(Mat) = Data(A)->parent.destroy; // not A->ops->destroy: it may chain to us
  PetscFunctionBegin;
  PetscCall(SeqUninstall(A));
  PetscCall(destroy(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Duplicate(Mat A, MatDuplicateOption op, Mat *B)
{
  SeqData *d = Data(A);
  PetscFunctionBegin;
  PetscCall(d->parent.duplicate(A, op, B)); // creates *B with our type name, so *B is ours with defaults
  SeqData *e = Data(*B);
  e->fmt     = d->fmt->CloneSettings();
  e->opt     = d->opt;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SetFromOptions(Mat A, PetscOptionItems PetscOptionsObject)
{
  SeqData *d = Data(A);
  PetscFunctionBegin;
  if (d->parent.setfromoptions) PetscCall(d->parent.setfromoptions(A, PetscOptionsObject));
  PetscCall(SeqSetFromOptionsItems(A, PetscOptionsObject));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// MatZeroEntries: SeqAIJ's on the host array and, where the block keeps a device copy of its values
// for this pattern (a device COO assembly or a device product wrote one), that copy too, on the GPU,
// as aijcusparse zeroes its own: both sides then hold the zeros, so the next product refreshes the
// format from the device copy and a device ADD_VALUES assembly adds onto it, neither uploading.
PetscErrorCode ZeroEntries(Mat A)
{
  SeqData *d = Data(A);
  PetscFunctionBegin;
  PetscCall(d->parent.zeroentries(A)); // a writer of every host value (no copy back)
#if defined(GPUMAT_WITH_CUDA)
  PetscInt nnz;
  PetscCall(HostNonzeros(A, &nnz));
  if (d->dv.val && d->dv.n == nnz && !A->boundtocpu && !d->opt.force_host) {
    cudaStream_t     stream;
    PetscObjectState state;
    PetscCall(PetscGetCurrentCUDAStream(&stream));
    if (nnz) PetscCallCUDA(cudaMemsetAsync(d->dv.val, 0, (size_t)nnz * sizeof(Scalar), stream));
    PetscCall(PetscObjectStateGet((PetscObject)A, &state));
    d->st.host_stale = d->st.pending = false;
    d->st.dev_values = state + 1; // MatZeroEntries raises the state once more after this: the device copy holds that state's values, as the host does
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

// SeqAIJ's symbolic transpose (the pattern, no values), returned as plain SeqAIJ. Only AIJ's
// product algorithms ask for it, and each gives it the type it needs with MatSetType: ours where the
// product's A is ours (MatSetType converts a SeqAIJ to a subclass in place), plain AIJ where A is
// (AIJ's ABt with our B); MatSetType from ours to plain AIJ would destroy the pattern instead.
PetscErrorCode TransposeSymbolic(Mat A, Mat *B)
{
  PetscFunctionBegin;
  PetscCall(Data(A)->parent.transposesymbolic(A, B));
  if (Ours(*B)) PetscCall(SeqUninstall(*B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// -mat_gpumat_tuning_cache and -mat_gpumat_tuning_cache_disable, within an open options block.
PetscErrorCode TuningCacheOptions(Options &o, PetscOptionItems PetscOptionsObject)
{
  char      dir[PETSC_MAX_PATH_LEN];
  PetscBool set;
  PetscFunctionBegin;
  if (o.tuning_cache.empty()) PetscCallCXX(o.tuning_cache = default_tuning_dir());
  PetscCall(PetscStrncpy(dir, o.tuning_cache.c_str(), sizeof(dir)));
  PetscCall(ReadOption(PetscOptionsObject, Machinery("-mat_gpumat_tuning_cache"), dir, dir, sizeof(dir), &set));
  if (set) {
    PetscCheck(dir[0], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-mat_gpumat_tuning_cache needs a directory (-mat_gpumat_tuning_cache_disable turns the cache off)");
    char full[PETSC_MAX_PATH_LEN];
    PetscCall(PetscGetFullPath(dir, full, sizeof(full))); // ~ expanded, relative to the current directory now
    PetscCallCXX(o.tuning_cache = full);
  }
  PetscCall(ReadOption(PetscOptionsObject, Machinery("-mat_gpumat_tuning_cache_disable"), o.tuning_cache_disable, &o.tuning_cache_disable, nullptr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ReadOptions(Mat A, Mat options_source)
{
  PetscFunctionBegin;
  PetscObjectOptionsBegin((PetscObject)options_source);
  PetscCall(SeqSetFromOptionsItems(A, PetscOptionsObject));
  PetscOptionsEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ToSeqAIJ(Mat A, MatReuse reuse, Mat *newmat)
{
  Mat B = *newmat;
  PetscFunctionBegin;
  PetscCall(SyncHost(A)); // plain SeqAIJ reads its array itself
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  else if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(A, *newmat, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(PETSC_SUCCESS);
  } else B = A;
  PetscCall(SeqUninstall(B));
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
    PetscCall(ToSeqAIJ(A, reuse, newmat));
  } else if (reuse == MAT_INPLACE_MATRIX) {
    PetscCall(ToSeqAIJ(A, reuse, newmat));
    PetscCall(MatConvert(*newmat, type, MAT_INPLACE_MATRIX, newmat));
  } else {
    Mat B;
    PetscCall(ToSeqAIJ(A, MAT_INITIAL_MATRIX, &B));
    PetscCall(MatConvert(B, type, MAT_INPLACE_MATRIX, &B));
    *newmat = B;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

PetscErrorCode SeqUninstall(Mat A)
{
  SeqData *d = Data(A);
  PetscFunctionBegin;
  if (!d) PetscFunctionReturn(PETSC_SUCCESS);
  UninstallOps(A, kSeqTable, &d->parent);
  PetscCall(ComposeConverters(A, d->info, "seq", nullptr, nullptr));
  PetscCall(ComposeProducts(A, d->info, "seq", false));
  PetscCall(SeqComposeCOO(A, false));
  UnhookValueAccess(A); // the device values go (the caller copied them back where A lives on)
  SeqReleaseCOO(d);
  d->fmt->DeviceRelease();
  PetscCallCXX(delete d);
  A->spptr = nullptr;
  PetscCall(MatSetVecType(A, VECSTANDARD));
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, MATSEQAIJ));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Whether v is a vector whose array the device products read: CUDA, or Kokkos with the CUDA backend.
PetscErrorCode IsDeviceVec(Vec v, PetscBool *dev)
{
  PetscFunctionBegin;
  *dev = PETSC_FALSE;
#if defined(GPUMAT_WITH_CUDA)
  PetscCall(PetscObjectTypeCompareAny((PetscObject)v, dev, VECSEQCUDA, VECMPICUDA, ""));
  #if defined(PETSC_HAVE_KOKKOS) && defined(PETSC_HAVE_MACRO_KOKKOS_ENABLE_CUDA)
  if (!*dev) PetscCall(PetscObjectTypeCompareAny((PetscObject)v, dev, VECSEQKOKKOS, VECMPIKOKKOS, ""));
  #endif
#else
  (void)v;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Whether v is a CUDA vector not bound to the CPU (aijcusparse's kernels read it through
// VecCUDAGetArray*, which PETSc's optimized builds hand any vector without a check); null counts
PetscErrorCode CudaVec(Vec v, bool *ok)
{
  PetscBool cuda = PETSC_TRUE, bound = PETSC_FALSE;
  PetscFunctionBegin;
#if defined(GPUMAT_WITH_CUDA)
  if (v) {
    PetscCall(PetscObjectTypeCompareAny((PetscObject)v, &cuda, VECSEQCUDA, VECMPICUDA, ""));
    if (cuda) PetscCall(VecBoundToCPU(v, &bound));
  }
#else
  cuda = v ? PETSC_FALSE : PETSC_TRUE;
#endif
  *ok = cuda && !bound;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SeqValuesHostAccess(Mat A, bool read, bool write)
{
  SeqData *d = Ours(A);
  PetscFunctionBegin;
  if (!d) PetscFunctionReturn(PETSC_SUCCESS);
  if (read) PetscCall(SyncHost(A));
  else d->st.host_stale = false; // a writer of every value: the host's are the newest from now
  if (write) d->st.HostWritten();
  PetscFunctionReturn(PETSC_SUCCESS);
}

bool SeqValuesInternal(Mat A)
{
  const SeqData *d = Ours(A);
  return d && d->st.internal > 0;
}

// The machinery's options of a block and its format's, within an open options block, into `o` and
// `fmt`: a block's own, or scratch ones (an MPI matrix before its blocks exist).
static PetscErrorCode ReadBlockOptions(Options &o, Format &fmt, const char *name, PetscOptionItems PetscOptionsObject)
{
  std::string head = std::string("petsc-gpumat ") + name + " options";
  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, head.c_str());
  PetscCall(ReadOption(PetscOptionsObject, Machinery("-mat_gpumat_eager"), o.eager, &o.eager, nullptr));
  PetscCall(ReadOption(PetscOptionsObject, Machinery("-mat_gpumat_host"), o.force_host, &o.force_host, nullptr));
  PetscCall(ReadOption(PetscOptionsObject, Machinery("-mat_gpumat_host_reference"), o.host_reference, &o.host_reference, nullptr));
  PetscCall(ReadOption(PetscOptionsObject, Machinery("-mat_gpumat_compressed_rows"), o.compress, &o.compress, nullptr));
  PetscCall(ReadOption(PetscOptionsObject, Machinery("-mat_gpumat_compressed_rows_ratio"), o.compress_ratio, &o.compress_ratio, nullptr));
  PetscCall(TuningCacheOptions(o, PetscOptionsObject));
  PetscCall(ReadOption(PetscOptionsObject, Machinery("-mat_gpumat_coo_host_reference"), o.coo_host_reference, &o.coo_host_reference, nullptr));
  PetscCall(ReadOption(PetscOptionsObject, Machinery("-mat_gpumat_shadow_products"), o.shadow_products, &o.shadow_products, nullptr));
  PetscCall(ReadOption(PetscOptionsObject, Machinery("-mat_gpumat_device_csr"), o.device_csr, &o.device_csr, nullptr));
  PetscCall(ReadOption(PetscOptionsObject, Machinery("-mat_gpumat_values"), o.values, &o.values, nullptr));
  PetscCall(ReadOption(PetscOptionsObject, Machinery("-mat_gpumat_dense_products"), o.dense_products, &o.dense_products, nullptr));
  PetscCall(fmt.SetFromOptions(PetscOptionsObject));
  PetscCheck(fmt.SetFp32Values((ValueStorage)o.values == kValuesFp32), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-mat_gpumat_values fp32: %s has no fp32 value storage; pjds has (-mat_type pjds)", name);
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Options of the machinery and of the format, within an open options block.
PetscErrorCode SeqSetFromOptionsItems(Mat A, PetscOptionItems PetscOptionsObject)
{
  SeqData *d = Data(A);
  PetscFunctionBegin;
  PetscCall(ReadBlockOptions(d->opt, *d->fmt, d->info->name, PetscOptionsObject));
  d->st.Forget(); // new settings: decide and build again at the next product
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BlockOptionsCheck(const FormatInfo *f, PetscOptionItems PetscOptionsObject)
{
  Options                 o;
  std::unique_ptr<Format> fmt;
  PetscFunctionBegin;
  PetscCallCXX(fmt = f->create());
  PetscCall(ReadBlockOptions(o, *fmt, f->name, PetscOptionsObject));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SeqInstallWithOptions(Mat A, const FormatInfo *f, Mat options_source)
{
  PetscBool ours, seqaij;
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, Names(f).seq.c_str(), &ours));
  if (ours) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJ, &seqaij));
  PetscCheck(seqaij, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s can only be made from a plain seqaij matrix, not %s", Names(f).seq.c_str(), ((PetscObject)A)->type_name);
  PetscCheck(!A->spptr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "seqaij matrix already carries spptr");
  SeqData *d;
  PetscCallCXX(d = new SeqData);
  d->info = f;
  PetscCallCXX(d->fmt = f->create());
  A->spptr = d;
  InstallOps(A, kSeqTable, &d->parent);
  PetscCall(ComposeConverters(A, f, "seq", MatConvert_SeqAIJ_Gpu, FromUs));
  PetscCall(ComposeProducts(A, f, "seq", true));
  PetscCall(SeqComposeCOO(A, true));
#if defined(GPUMAT_WITH_CUDA)
  // MatCreate() binds every matrix to the CPU in device builds, and MatCreateVecs() passes that on
  // to the vectors: unbind (as aijcusparse does), so our vectors are CUDA vectors on the GPU.
  A->boundtocpu = PETSC_FALSE;
  PetscCall(MatSetVecType(A, VECCUDA));
#endif
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, Names(f).seq.c_str()));
  PetscCall(ReadOptions(A, options_source));
  if (A->assembled && d->opt.eager) PetscCall(BuildEagerly(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SeqInstall(Mat A, const FormatInfo *f) { return SeqInstallWithOptions(A, f, A); }

// Into one of ours from seqaij, seqaijcusparse or another format of ours (MatConvert, MatSetType).
PetscErrorCode MatConvert_SeqAIJ_Gpu(Mat A, MatType type, MatReuse reuse, Mat *newmat) { return ConvertIntoOurs(A, type, reuse, newmat, MATSEQAIJ, SeqInstall); }

PetscErrorCode SeqGetInfo(Mat A, MatGpuMatInfo *info)
{
  const SeqData *d = Ours(A);
  PetscFunctionBegin;
  PetscCall(PetscMemzero(info, sizeof(*info)));
  if (!d) PetscFunctionReturn(PETSC_SUCCESS);
  info->ours             = PETSC_TRUE;
  info->format           = d->st.built ? (d->fmt->StoredAs().empty() ? d->info->name : d->fmt->StoredAs().c_str()) : nullptr;
  info->compressed       = d->st.built && d->compressed ? PETSC_TRUE : PETSC_FALSE;
  info->rows             = A->rmap->n;
  info->empty_rows       = d->empty_rows;
  info->host_builds      = d->builds[0];
  info->device_builds    = d->builds[1];
  info->device_csr_builds = d->device_csr_builds;
#if defined(GPUMAT_WITH_CUDA)
  info->shadow_products = ShadowServed(A);
#endif
  info->host_refreshes   = d->refreshes[0];
  info->device_refreshes = d->refreshes[1];
#if defined(GPUMAT_WITH_CUDA)
  info->coo_device_assemblies = d->dv.assemblies;
#endif
  info->values_hooked  = d->coo.hooked > 0 ? PETSC_TRUE : PETSC_FALSE;
  info->device_bytes   = d->DeviceBytes();
  info->host_products  = d->opt.force_host;
  info->host_reference = d->opt.host_reference;
  info->eager          = d->opt.eager;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SeqGetProperties(Mat A, PetscInt *n, const char *const **keys, const char *const **values)
{
  SeqData *d = Ours(A);
  PetscFunctionBegin;
  *n = 0;
  if (!d || !d->st.built || d->st.pattern != A->nonzerostate) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(GetCsr(A, false));
  d->props.clear();
  d->prop_keys.clear();
  d->prop_values.clear();
  PetscCallCXX(d->fmt->Describe(d->props, Stored(d)));
  for (const auto &[k, v] : d->props) {
    PetscCallCXX(d->prop_keys.push_back(k.c_str()));
    PetscCallCXX(d->prop_values.push_back(v.c_str()));
  }
  *n = (PetscInt)d->props.size();
  if (keys) *keys = d->prop_keys.data();
  if (values) *values = d->prop_values.data();
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SeqGetProperty(Mat A, const char *key, const char **value)
{
  PetscInt           n;
  const char *const *k, *const *v;
  PetscFunctionBegin;
  *value = nullptr;
  PetscCall(SeqGetProperties(A, &n, &k, &v));
  for (PetscInt i = 0; i < n; i++)
    if (!std::strcmp(k[i], key)) *value = v[i];
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpumat
