// The list of formats, their PETSc type names and events, and the registration entry points.
#include "machinery.hpp"
#include <cctype>
#include <utility>

namespace gpumat {

// Adapters (one file each in this folder), declared and listed from the registry.
#define GPUMAT_FORMAT(root, factory, title) std::unique_ptr<Format> factory();
#include "formats.def"
#undef GPUMAT_FORMAT

const std::vector<FormatInfo> &Formats()
{
  static const std::vector<FormatInfo> formats = {
#define GPUMAT_FORMAT(root, factory, title) {#root, title, factory},
#include "formats.def"
#undef GPUMAT_FORMAT
  };
  return formats;
}

namespace {

std::vector<TypeNames> &AllNames()
{
  static std::vector<TypeNames> names = [] {
    std::vector<TypeNames> v;
    for (const FormatInfo &f : Formats()) {
      TypeNames n;
      n.root = f.name;
      n.aij  = std::string("aij") + f.name;
      n.seq  = std::string("seqaij") + f.name;
      n.mpi  = std::string("mpiaij") + f.name;
      v.push_back(n);
    }
    return v;
  }();
  return names;
}

std::size_t IndexOf(const FormatInfo *f) { return (std::size_t)(f - Formats().data()); }

// MatRegister() takes plain function pointers: one instance per registry index.
template <std::size_t I>
PetscErrorCode CreateSeq(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_SeqAIJ(A));
  PetscCall(SeqInstall(A, &Formats()[I]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <std::size_t I>
PetscErrorCode CreateMPI(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_MPIAIJ(A));
  PetscCall(MPIInstall(A, &Formats()[I]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

MachineryEvents &MachineryEventStore()
{
  static MachineryEvents ev;
  return ev;
}

constexpr std::size_t kMaxFormats = 8;

template <std::size_t... I>
PetscErrorCode RegisterAll(std::index_sequence<I...>)
{
  using Creator = PetscErrorCode (*)(Mat);
  static const Creator seq[] = {CreateSeq<I>...};
  static const Creator mpi[] = {CreateMPI<I>...};
  PetscFunctionBegin;
  PetscCheck(Formats().size() <= kMaxFormats, PETSC_COMM_SELF, PETSC_ERR_PLIB, "raise kMaxFormats");
  for (std::size_t i = 0; i < Formats().size(); i++) {
    TypeNames &n = AllNames()[i];
    PetscCall(MatRegister(n.seq.c_str(), seq[i]));
    PetscCall(MatRegister(n.mpi.c_str(), mpi[i]));
    PetscCall(MatRegisterRootName(n.root.c_str(), n.seq.c_str(), n.mpi.c_str()));
    PetscCall(MatRegisterRootName(n.aij.c_str(), n.seq.c_str(), n.mpi.c_str()));
    std::string ev = n.root;
    ev[0]          = (char)std::toupper((unsigned char)ev[0]);
    PetscCall(PetscLogEventRegister((ev + "Build").c_str(), MAT_CLASSID, &n.build));
    PetscCall(PetscLogEventRegister((ev + "Refresh").c_str(), MAT_CLASSID, &n.refresh));
  }
#if defined(GPUMAT_WITH_CUDA)
  {
    std::vector<const char *> seq_types;
    for (const TypeNames &n : AllNames()) seq_types.push_back(n.seq.c_str());
    PetscCall(RegisterFactors(seq_types));
  }
#endif
  PetscCall(PetscLogEventRegister("GpumatScatter", MAT_CLASSID, &MachineryEventStore().scatter));
  PetscCall(PetscLogEventRegister("GpumatHalo", MAT_CLASSID, &MachineryEventStore().halo));
  PetscCall(PetscLogEventRegister("GpumatShadow", MAT_CLASSID, &MachineryEventStore().shadow));
  PetscCall(PetscLogEventRegister("GpumatShadowBack", MAT_CLASSID, &MachineryEventStore().shadow_back));
  PetscCall(PetscLogEventRegister("GpumatFp32", MAT_CLASSID, &MachineryEventStore().fp32));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

const TypeNames &Names(const FormatInfo *f) { return AllNames()[IndexOf(f)]; }

const MachineryEvents &MachineryEventIds() { return MachineryEventStore(); }

const FormatInfo *FindFormat(const char *mattype)
{
  if (!mattype) return nullptr;
  std::string t(mattype);
  for (const char *prefix : {"seqaij", "mpiaij", "aij"})
    if (t.rfind(prefix, 0) == 0 && FindFormat(t.c_str() + std::char_traits<char>::length(prefix))) return FindFormat(t.c_str() + std::char_traits<char>::length(prefix));
  for (const FormatInfo &f : Formats())
    if (t == f.name) return &f;
  return nullptr;
}

} // namespace gpumat

static PetscBool gpumat_registered = PETSC_FALSE;

static PetscErrorCode PetscGpuMatFinalize(void)
{
  gpumat_registered = PETSC_FALSE; // PetscFinalize() empties the type lists
  return PETSC_SUCCESS;
}

PetscErrorCode PetscGpuMatInitialize(void)
{
  PetscFunctionBegin;
  if (gpumat_registered) PetscFunctionReturn(PETSC_SUCCESS);
  gpumat_registered = PETSC_TRUE;
  PetscCall(MatInitializePackage());
  PetscCall(PetscRegisterFinalize(PetscGpuMatFinalize));
  PetscCall(gpumat::RegisterAll(std::make_index_sequence<gpumat::kMaxFormats>{}));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PetscDLLibraryRegister_petscgpumat(void)
{
  return PetscGpuMatInitialize();
}

namespace {
// The sequential block of A a query is about (null where A has no such block, or is not ours).
PetscErrorCode QueriedBlock(Mat A, MatGpuMatBlock block, Mat *B)
{
  PetscBool mpi;
  PetscFunctionBegin;
  *B = nullptr;
  if (!gpumat::FindFormat(((PetscObject)A)->type_name)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscStrbeginswith(((PetscObject)A)->type_name, "mpi", &mpi));
  if (mpi) {
    Mat Ad, Ao;
    if (!A->preallocated) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, nullptr));
    *B = block == MAT_GPUMAT_OFFDIAGONAL_BLOCK ? Ao : Ad;
  } else if (block == MAT_GPUMAT_DIAGONAL_BLOCK) *B = A;
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace

PetscErrorCode MatGpuMatGetInfo(Mat A, MatGpuMatBlock block, MatGpuMatInfo *info)
{
  Mat       B;
  PetscBool mpi;
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(info, 3);
  PetscCheck(block == MAT_GPUMAT_DIAGONAL_BLOCK || block == MAT_GPUMAT_OFFDIAGONAL_BLOCK, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "block must be MAT_GPUMAT_DIAGONAL_BLOCK or MAT_GPUMAT_OFFDIAGONAL_BLOCK, got %d", (int)block);
  PetscCall(QueriedBlock(A, block, &B));
  PetscCall(gpumat::SeqGetInfo(B, info));
  if (!gpumat::FindFormat(((PetscObject)A)->type_name)) PetscFunctionReturn(PETSC_SUCCESS);
  info->ours = PETSC_TRUE;
  PetscCall(PetscStrbeginswith(((PetscObject)A)->type_name, "mpi", &mpi));
  if (mpi) PetscCall(gpumat::MPIGetInfo(A, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatGpuMatGetProperty(Mat A, MatGpuMatBlock block, const char *key, const char **value)
{
  Mat B;
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(key, 3);
  PetscAssertPointer(value, 4);
  *value = nullptr;
  PetscCall(QueriedBlock(A, block, &B));
  if (B) PetscCall(gpumat::SeqGetProperty(B, key, value));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatGpuMatGetProperties(Mat A, MatGpuMatBlock block, PetscInt *n, const char *const **keys, const char *const **values)
{
  Mat B;
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(n, 3);
  *n = 0;
  PetscCall(QueriedBlock(A, block, &B));
  if (B) PetscCall(gpumat::SeqGetProperties(B, n, keys, values));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatGpuMatGetDeviceBytes(Mat A, PetscBool *ours, size_t *bytes)
{
  MatGpuMatInfo d, o;
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCall(MatGpuMatGetInfo(A, MAT_GPUMAT_DIAGONAL_BLOCK, &d));
  PetscCall(MatGpuMatGetInfo(A, MAT_GPUMAT_OFFDIAGONAL_BLOCK, &o));
  *ours  = d.ours;
  *bytes = d.device_bytes + o.device_bytes;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatGpuMatGetStoredAs(Mat A, const char **diag, const char **offdiag)
{
  MatGpuMatInfo d, o;
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCall(MatGpuMatGetInfo(A, MAT_GPUMAT_DIAGONAL_BLOCK, &d));
  PetscCall(MatGpuMatGetInfo(A, MAT_GPUMAT_OFFDIAGONAL_BLOCK, &o));
  if (diag) *diag = d.format;
  if (offdiag) *offdiag = o.format;
  PetscFunctionReturn(PETSC_SUCCESS);
}
