// The AIJ-subclass machinery shared by every format, seq and MPI: what its files declare to each
// other. Who does what (docs/design.md draws it):
//   registry.cxx  the types, names and events from src/formats.def; the public queries
//   seqaij.cxx    the sequential type: install and uninstall, conversions, options, assembly
//   block.cxx     one state record per sequential block (block.hpp): build and refresh
//   products.cxx  a block's products and diagonal; the begin/end seam of the MPI product
//   mpiaij.cxx    the MPI type (MPIAIJ with our blocks, mpi.hpp) and its product
//   halo.cxx      the MPI product's ghosts: the scatter, the side stream's messages, the MPI probe
//   coo.cxx       device COO assembly, both levels
//   view.cxx      MatView, both levels
//   ops.cxx       operation tables and composed functions (converters, COO)
//   tuning.cxx    the tuning cache's PETSc side
//   values.cxx    PETSc's AIJ value accessors hooked (values.hpp)
//   factor.cxx    aijcusparse's factorizations for our seq types (CUDA builds)
#pragma once
#include "gpumat_impl.hpp"

namespace gpumat {

// Type names and events of one registered format.
struct TypeNames {
  std::string   root, aij, seq, mpi;
  PetscLogEvent build = 0, refresh = 0;
};
const TypeNames &Names(const FormatInfo *f);
// Events of the machinery, one for all formats: GpumatScatter (the ghost vector and its scatter,
// MPIAIJ's or ours, chosen: EnsureGhosts) and GpumatHalo (the side stream's halo planned:
// EnsureHalo), both once per nonzero pattern; GpumatShadow (an aijcusparse shadow made or fed its
// values: ShadowOf) and GpumatShadowBack (a shadow's new values made the matrix's: ShadowValuesBack),
// CUDA builds; GpumatFp32 (a build or refresh of a block under -mat_gpumat_values fp32, within its
// <Format>Build or <Format>Refresh: -log_view's count of them).
struct MachineryEvents {
  PetscLogEvent scatter = 0, halo = 0, shadow = 0, shadow_back = 0, fp32 = 0;
};
const MachineryEvents &MachineryEventIds();

// ---- ops.cxx -------------------------------------------------------------------------------
// One table of overridden operations: each slot an offset into struct _MatOps and our function.
// Install saves the parent's whole table and writes ours into the slots. Reinstall, after a parent
// operation that may choose its own operations again (SeqAIJ's assembly picks its inode
// products), takes the operations as they were before that call: every slot the call changed
// becomes the parent's new choice and ours again; slots others changed earlier (PETSc's
// submatrices chain their destroy to ours) stay theirs. Uninstall gives back the slots that still
// hold ours.
using AnyOp = void (*)(void);
struct OpSlot {
  std::size_t offset;
  AnyOp       ours;
};
#define GPUMAT_OP(member, fn) \
  gpumat::OpSlot { offsetof(struct _MatOps, member), reinterpret_cast<gpumat::AnyOp>(static_cast<decltype(_MatOps::member)>(fn)) }
struct OpTable {
  const OpSlot *slots;
  std::size_t   n;
};
// An operation of the parent that reads the AIJ value arrays itself, not through the accessors
// (so device COO values would go unseen): Sync(A) brings the newest values to the host, then the
// parent's operation runs, found in the level's kept table Parent(A) at Offset. Each level names
// its Sync and Parent (seq: its block; MPI: both blocks); the table slot is
// GPUMAT_HOST_READER(Sync, Parent, member).
template <PetscErrorCode (*Sync)(Mat), const struct _MatOps &(*Parent)(Mat), std::size_t Offset, typename F>
struct HostReader;
template <PetscErrorCode (*Sync)(Mat), const struct _MatOps &(*Parent)(Mat), std::size_t Offset, typename... Args>
struct HostReader<Sync, Parent, Offset, PetscErrorCode (*)(Mat, Args...)> {
  static PetscErrorCode Op(Mat A, Args... args)
  {
    PetscErrorCode (*parent)(Mat, Args...);
    PetscFunctionBegin;
    std::memcpy(&parent, reinterpret_cast<const char *>(&Parent(A)) + Offset, sizeof(parent));
    PetscCheck(parent, PETSC_COMM_SELF, PETSC_ERR_SUP, "operation not supported by the parent type");
    PetscCall(Sync(A));
    PetscCall(parent(A, args...));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};
#define GPUMAT_HOST_READER(sync, parent, member) \
  GPUMAT_OP(member, (gpumat::HostReader<sync, parent, offsetof(struct _MatOps, member), decltype(_MatOps::member)>::Op))
void InstallOps(Mat A, OpTable t, struct _MatOps *parent);
void ReinstallOps(Mat A, OpTable t, const struct _MatOps &before, struct _MatOps *parent);
void UninstallOps(Mat A, OpTable t, const struct _MatOps *parent);

// The composed MatConvert_<from>_<to>_C functions under which users reach a format (to_us) and it
// reaches the other AIJ types (from_us), at one level ("seq" or "mpi"); null functions remove them.
PetscErrorCode ComposeConverters(Mat A, const FormatInfo *f, const char *level, PetscErrorCode (*to_us)(Mat, MatType, MatReuse, Mat *), PetscErrorCode (*from_us)(Mat, MatType, MatReuse, Mat *));
// A converter into one of ours at one level (MatConvert_SeqAIJ_Gpu, MatConvert_MPIAIJ_Gpu): new
// values into *newmat (MAT_REUSE_MATRIX), or a copy of A (MAT_INITIAL_MATRIX) or A itself
// (MAT_INPLACE_MATRIX) made plain `base` first where it is another subclass, then `install`ed.
PetscErrorCode ConvertIntoOurs(Mat A, MatType type, MatReuse reuse, Mat *newmat, MatType base, PetscErrorCode (*install)(Mat, const FormatInfo *));

// The COO assembly of the parent (SeqAIJ's or MPIAIJ's, composed as MatSetPreallocationCOO_C and
// MatSetValuesCOO_C) and ours chained to it, one level's pair of functions.
struct CooChain {
  PetscErrorCode (*preallocation)(Mat, PetscCount, PetscInt[], PetscInt[]) = nullptr;
  PetscErrorCode (*setvalues)(Mat, const PetscScalar[], InsertMode)        = nullptr;
};
// on: keeps the parent's pair in *parent and composes ours; off: gives the parent's back.
PetscErrorCode ComposeCoo(Mat A, bool on, CooChain *parent, const CooChain &ours);

// ---- matproduct.cxx: sparse products (MatProduct) with our operands --------------------------
PetscErrorCode ProductSetFromOptions(Mat C); // the product's route: on the GPU (matproduct.hpp) or AIJ's algorithms
// MatProductSetFromOptions_<ours>_<level>aij_C and _<level>aij_<ours>_C, with CUDA the same with
// <level>aijcusparse, and _<ours>_<level>dense(cuda)_C (on: composed; off: removed)
PetscErrorCode ComposeProducts(Mat A, const FormatInfo *f, const char *level, bool on);

// ---- seqaij.cxx: the sequential type -----------------------------------------------------------
PetscErrorCode SeqInstall(Mat A, const FormatInfo *f);                                // make an (un)assembled SeqAIJ one of ours, in place
PetscErrorCode SeqInstallWithOptions(Mat A, const FormatInfo *f, Mat options_source); // options read with its prefix
PetscErrorCode SeqUninstall(Mat A);                                                   // back to plain SeqAIJ
// The record of one of the machinery's options (src/core/format_record.cpp; null where none)
const OptionRecord *Machinery(const char *name);
// A block's options (the machinery's and the format's), within an open options block; the same
// options read into scratch settings (-help's lines, bad values refused, nothing kept)
PetscErrorCode SeqSetFromOptionsItems(Mat A, PetscOptionItems PetscOptionsObject);
PetscErrorCode BlockOptionsCheck(const FormatInfo *f, PetscOptionItems PetscOptionsObject);
PetscErrorCode IsDeviceVec(Vec v, PetscBool *dev); // CUDA, or Kokkos on CUDA: the device products read it
PetscErrorCode CudaVec(Vec v, bool *ok);           // CUDA and not bound to the CPU (null counts): aijcusparse's kernels read it
PetscErrorCode MatConvert_SeqAIJ_Gpu(Mat A, MatType type, MatReuse reuse, Mat *newmat);
// The public queries of one block (null or not ours: *info says so)
PetscErrorCode SeqGetInfo(Mat A, MatGpuMatInfo *info);
PetscErrorCode SeqGetProperty(Mat A, const char *key, const char **value);
PetscErrorCode SeqGetProperties(Mat A, PetscInt *n, const char *const **keys, const char *const **values);

// ---- mpiaij.cxx: the MPI type ------------------------------------------------------------------
PetscErrorCode MPIInstall(Mat A, const FormatInfo *f); // make an (un)assembled MPIAIJ one of ours (converts assembled blocks)
PetscErrorCode MatConvert_MPIAIJ_Gpu(Mat A, MatType type, MatReuse reuse, Mat *newmat);
PetscErrorCode MPIGetInfo(Mat A, MatGpuMatInfo *info); // the MPI product's settings

// ---- factor.cxx: the factorizations --------------------------------------------------------------
#if defined(GPUMAT_WITH_CUDA)
// aijcusparse's factorizations (MATSOLVERCUSPARSE) registered for these seq types, the default where
// no solver type is named, as for aijcusparse
PetscErrorCode RegisterFactors(const std::vector<const char *> &seq_types);
#endif

// ---- products.cxx: the seam between the MPI product and its blocks ------------------------------
#if defined(GPUMAT_WITH_CUDA)
// The MPI matrix's own stream for its diagonal block's product (created at its first use): `ready`
// is recorded on PETSc's stream and waited for by `stream`, `done` recorded after the product.
struct SideStream {
  cudaStream_t stream = nullptr;
  cudaEvent_t  ready = nullptr, done = nullptr;
};
#else
struct SideStream {};
#endif
// How a block's product y = op(A) x (+ z) is split around the MPI product's halo exchange:
// - kNow: all of it in Begin;
// - kOnSide: the diagonal block's product queued on side->stream behind PETSc's stream (CUDA
//   vectors, PETSc's GPU timers off); End makes PETSc's stream wait for it. Where it cannot go there,
//   Begin does nothing and End runs it in order;
// - kSplit: the off-diagonal block of a side-stream product: where A is stored as its nonempty rows
//   and x is a device vector, Begin queues w = Ac x (into the block's work vector) on PETSc's stream
//   and End adds w into y through the row list; otherwise End runs the whole product.
// End is called once after every Begin, in the order the caller needs y.
enum class Split { kNow, kOnSide, kSplit };
struct BlockProduct {
  Op                op = Op::NoTrans;
  Vec               x = nullptr, z = nullptr, y = nullptr;
  Split             split = Split::kNow;
  const SideStream *side  = nullptr;
  enum { kDone, kInOrder, kSideQueued, kSplitQueued } pending = kDone;
};
PetscErrorCode BlockProductBegin(Mat A, BlockProduct *p);
PetscErrorCode BlockProductEnd(Mat A, BlockProduct *p);
// Both at once (kNow).
PetscErrorCode BlockApply(Mat A, Op op, Vec x, Vec z, Vec y);

// Host CSR of a SeqAIJ matrix with 32-bit indices (a view of PETSc's arrays when PetscInt is 32
// bits, a checked copy otherwise, made when `pattern_changed`).
class HostCsr {
public:
  PetscErrorCode          Get(Mat A, bool pattern_changed);
  const CsrView<Scalar> &view() const { return view_; }

private:
  CsrView<Scalar>      view_{};
  std::vector<index_t> i_, j_;
};

} // namespace gpumat

// Not declared in PETSc's public headers, but exported.
PETSC_EXTERN PetscErrorCode MatCreate_SeqAIJ(Mat);
PETSC_EXTERN PetscErrorCode MatCreate_MPIAIJ(Mat);
