// One sequential block of ours (a seq matrix, or a block of an MPI matrix): its format, its options,
// and one state record of what is current where.
//
// The block's values live in up to four places: the AIJ host arrays (PETSc's), a device copy of the
// CSR values (written by a device COO assembly), and the format's storage on the host (the host
// reference) and on the device. BlockState says which of them hold the current pattern and values,
// as PETSc's offload mask does for aijcusparse; its transitions are its member functions.
#pragma once
#include "machinery.hpp"
#include "core/compressed.hpp"
#include "core/coo.hpp"
#if defined(GPUMAT_WITH_CUDA)
  #include "cuda/rowmap.cuh"
  #include "cuda/coo.cuh"
#endif

namespace gpumat {

enum Side : unsigned { kHost = 1u, kDevice = 2u };
inline int SideIndex(unsigned side) { return side == kHost ? 0 : 1; }

enum Compress { kCompressAuto, kCompressAlways, kCompressNever };
enum ValueStorage { kValuesFp64, kValuesFp32 }; // -mat_gpumat_values, in its choices' order
enum DenseProducts { kDenseAuto, kDenseSpmm, kDenseLoop }; // -mat_gpumat_dense_products, likewise

// The machinery's options of a block (-mat_gpumat_*).
struct Options {
  PetscBool eager          = PETSC_FALSE; // build in MatAssemblyEnd
  PetscBool force_host     = PETSC_FALSE; // host products even with CUDA vectors
  PetscBool host_reference = PETSC_FALSE; // the format's host kernel instead of SeqAIJ's for host products
  PetscEnum compress       = (PetscEnum)kCompressAuto;
  PetscReal compress_ratio = 0.6; // PETSc's SeqAIJ ratio (MatCheckCompressedRow)
  // the disk cache of tuning decisions: its directory (default_tuning_dir() unless set), off
  std::string tuning_cache;
  PetscBool   tuning_cache_disable = PETSC_FALSE;
  PetscBool   coo_host_reference   = PETSC_FALSE; // host COO arrays through our COO maps (tests)
  PetscInt    shadow_products      = 100;         // a device product's result: products through its adopted shadow before the format's build
  PetscBool   device_csr           = PETSC_FALSE; // device builds read the CSR aijcusparse uploads and keeps for the block's shadow (block.cxx)
  PetscEnum   values               = (PetscEnum)kValuesFp64; // -mat_gpumat_values (Format::SetFp32Values)
  PetscEnum   dense_products       = (PetscEnum)kDenseAuto;  // -mat_gpumat_dense_products (matproduct.cxx)
};

// What is current where. States are PETSc's: `A->nonzerostate` for the pattern, the object state
// (PetscObjectStateGet) for the values.
struct BlockState {
  // The format's storage: built for pattern `pattern` on the sides in `built`; holding the values of
  // object state `values` on the sides in `current`.
  PetscObjectState pattern = -1, values = -1;
  unsigned         built = 0, current = 0;
  // The device copy of the CSR values (device COO assembly). `dev_values`: the object state whose
  // values it holds (-1: none, or not known yet). `host_stale`: it is newer than the AIJ host array,
  // which a host reader must get copied back (SyncHost). `pending`: written by a device COO assembly
  // whose MatAssemblyEnd has not run yet; that assembly's final state becomes `dev_values`.
  PetscObjectState dev_values = -1;
  bool             host_stale = false, pending = false;
  // > 0 while the machinery itself reads the host CSR's pattern (no copy back for that)
  int internal = 0;

  bool Current(PetscObjectState nz, PetscObjectState state, unsigned side) const { return pattern == nz && values == state && (current & side); }
  // A new pattern: every storage must be built again.
  void NewPattern(PetscObjectState nz)
  {
    pattern = nz;
    built = current = 0;
  }
  // New values (a new object state): every storage must be refreshed.
  void NewValues(PetscObjectState state)
  {
    if (values != state) current = 0;
    values = state;
  }
  void Stored(unsigned side)
  {
    built |= side;
    current |= side;
  }
  // New options: decide and build again at the next product.
  void Forget() { pattern = -1, built = current = 0; }
  // A device COO assembly wrote the device copy: newer than everything else. The object state has
  // not moved (no accessor was used; MatAssemblyEnd raises it only after an eager build has run),
  // so the storage is marked outdated here.
  void DeviceValuesWritten()
  {
    current    = 0;
    host_stale = true;
    pending    = true;
    dev_values = -1;
  }
  // MatAssemblyEnd after such an assembly: the device copy holds the values of `final_state`.
  void AssemblyEnded(PetscObjectState final_state)
  {
    if (!pending) return;
    dev_values = final_state;
    pending    = false;
  }
  // The device copy holds the current values of object state `state`.
  bool DeviceValuesCurrent(PetscObjectState state) const { return host_stale || dev_values == state; }
  // A host writer of the AIJ array: the device copy no longer holds the values.
  void HostWritten()
  {
    dev_values = -1;
    pending    = false;
  }
  // The device copy's values are gone (released, or a new pattern).
  void DeviceValuesDropped() { host_stale = pending = false, dev_values = -1; }
};

// The COO maps of the pattern `nzstate` (CUDA builds, or -mat_gpumat_coo_host_reference): the
// entries of the COO array onto every nonzero (local) and, in an MPI matrix's block, the entries
// received from other ranks onto the nonzeros they hit (remote). On the host until uploaded.
struct CooMaps {
  PetscObjectState nzstate = -1;
  PetscCount       n       = -1; // entries of the COO array; -1: no maps
  CooMap           local, remote;
  bool             has_remote = false;
  int              hooked     = 0; // PETSc's value accessors (values.hpp): 1 hooked, -1 not possible, 0 not tried

  void Release()
  {
    nzstate = -1;
    n       = -1;
    local = remote = CooMap();
    has_remote     = false;
  }
};

#if defined(GPUMAT_WITH_CUDA)
// The device copy of the block's CSR values (its state: BlockState) and the COO maps on the device.
struct DeviceValues {
  Scalar                 *val        = nullptr; // n values in CSR order
  PetscInt                n          = 0;
  PetscInt                assemblies = 0; // device COO assemblies (MatView, MatGpuMatGetInfo)
  cuda::CooDevice<Scalar> dlocal, dremote;   // the COO maps (CooMaps) on the device, once uploaded

  void ReleaseValues()
  {
    if (val) cudaFree(val);
    val = nullptr;
    n   = 0;
  }
  void ReleaseMaps()
  {
    dlocal.release();
    dremote.release();
  }
  std::size_t DeviceBytes() const { return std::size_t(n) * sizeof(Scalar) + dlocal.device_bytes() + dremote.device_bytes(); }
};
#endif

struct SeqData {
  const FormatInfo       *info = nullptr;
  std::unique_ptr<Format> fmt;
  struct _MatOps          parent; // the parent's operations, kept up to date by ReinstallOps
  Options                 opt;
  HostCsr                 csr;
  BlockState              st;
  CooChain                coo_parent; // SeqAIJ's COO assembly (ours chained to it)
  CooMaps                 coo;

  // compressed rows (for st.pattern)
  index_t             empty_rows = 0;
  bool                compressed = false;
  CompressedRows      cr;
  std::vector<Scalar> hwork; // host work vector of the compressed products
#if defined(GPUMAT_WITH_CUDA)
  cuda::RowMapDevice<Scalar> dmap;
  DeviceValues               dv;
#endif

  // statistics for MatView and MatGpuMatGetInfo, per side
  PetscLogDouble build_seconds[2] = {0, 0}, refresh_seconds[2] = {0, 0};
  PetscInt       builds[2] = {0, 0}, refreshes[2] = {0, 0};
  PetscInt       device_csr_builds = 0; // device builds from the block's CSR on the device (no upload)
  // MatGpuMatGetProperty's answers (Format::Describe), kept until the next query
  Properties               props;
  std::vector<const char *> prop_keys, prop_values; // props' strings, for MatGpuMatGetProperties

  std::size_t DeviceBytes() const;
};

inline SeqData *Data(Mat A) { return static_cast<SeqData *>(A->spptr); }
// A of ours (a block of an MPI matrix is plain seqaij until its first assembly), else null.
SeqData *Ours(Mat A);

// block.cxx
// The host CSR of A for the machinery: the pattern (and the host values' address), with no copy of
// device values back to the host.
PetscErrorCode GetCsr(Mat A, bool pattern_changed);
// Makes the AIJ host array hold the newest values (copied back from the device after a device COO
// assembly). Nothing to do in builds without CUDA.
PetscErrorCode SyncHost(Mat A);
// The matrix the format stores: the block, or its nonempty rows.
CsrView<Scalar> Stored(const SeqData *d);
// Makes `side` hold the current pattern and values of A (build or refresh).
PetscErrorCode Ensure(Mat A, unsigned side, cudaStream_t stream);
// The side the products run on when nothing says otherwise (eager builds), and such a build.
PetscErrorCode BuildEagerly(Mat A);
// Whether products with these vectors run on the device.
PetscErrorCode OnDevice(Mat A, std::initializer_list<Vec> vecs, PetscBool *dev);
// PETSc's flop count of a product (MatMult_SeqAIJ: 2 nnz, less one per nonempty row without z).
PetscLogDouble ProductFlops(Mat A, Op op, bool add);
#if defined(GPUMAT_WITH_CUDA)
// The nonzeros of A's host CSR (its row pointer's last entry; no values touched).
PetscErrorCode HostNonzeros(Mat A, PetscInt *nnz);
#endif

// products.cxx: the operations of the seq type
PetscErrorCode Mult(Mat A, Vec x, Vec y);
PetscErrorCode MultAdd(Mat A, Vec x, Vec z, Vec y);
PetscErrorCode MultTranspose(Mat A, Vec x, Vec y);
PetscErrorCode MultTransposeAdd(Mat A, Vec x, Vec z, Vec y);
PetscErrorCode GetDiagonal(Mat A, Vec v);

// valueops.cxx: the value operations of the seq type (on the device where its newest values are)
PetscErrorCode Scale(Mat Y, PetscScalar a);
PetscErrorCode DiagonalScale(Mat Y, Vec l, Vec r);
PetscErrorCode AXPY(Mat Y, PetscScalar a, Mat X, MatStructure str);

// coo.cxx: the seq type's COO assembly composed over SeqAIJ's (on) or SeqAIJ's back (off), and the
// block's maps and device values released
PetscErrorCode SeqComposeCOO(Mat A, bool on);
void           SeqReleaseCOO(SeqData *d);

// view.cxx
PetscErrorCode SeqView(Mat A, PetscViewer viewer);

} // namespace gpumat
