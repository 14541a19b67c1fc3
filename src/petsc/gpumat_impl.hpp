// What a format adapter implements (gpumat::Format, one class per format in src/petsc/<f>.cxx)
// and what adapters use besides: the registry's lookup, CUDA errors as PETSc errors, the disk cache
// of tuning decisions. A format's name, options, capabilities and gpuauto byte model are its record
// (src/core/format_record.hpp, <root>_record() in src/core/<root>.cpp); the machinery that runs every
// format (the AIJ subclasses, seq and MPI) is declared in machinery.hpp; docs/design.md draws the whole.
#pragma once
#include <petscgpumat.h>
#include <petsc/private/matimpl.h>
#include <cstddef>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>
#include "core/csr.hpp"
#include "core/tuning_cache.hpp"

#if defined(GPUMAT_WITH_CUDA)
  #include <petscdevice_cuda.h>
  #include "cuda/primitives.cuh" // cuda::DeviceCsrView
#else
typedef struct CUstream_st *cudaStream_t; // host-only builds never dereference it
#endif

#if defined(PETSC_USE_COMPLEX)
  #error "petsc-gpumat supports real PETSc builds only"
#endif

namespace gpumat {

using Scalar = PetscScalar;

// Key -> value facts of a format's storage (Format::Describe).
using Properties = std::vector<std::pair<std::string, std::string>>;
struct OptionRecord; // src/core/format_record.hpp

// A format's storage for one sequential block. Every CSR argument is the block's matrix as the
// format is to store it: the AIJ matrix's own host arrays (32-bit indices), or their compressed
// form (nonempty rows only, src/core/compressed.hpp) when the machinery compresses the block; the
// format never knows which. The machinery calls Build after a new nonzero pattern, Refresh after
// new values only (same pattern, same arrays), Apply for products: y = op(A) x (+ z), y may alias
// z, x never aliases y. Host and device calls take the same arguments (the device ones a stream
// besides, and device pointers). A device refresh is told where A's values are: on the host (the
// AIJ arrays), or on the device (Mem::Device: a device COO assembly's, read in place, no copy
// through the host; A's row pointer and column indices stay the host's).
class Format {
public:
  virtual ~Format() = default;
  // Options under -mat_<name>_; PetscOptionsObject is open (inside PetscOptionsBegin/End).
  virtual PetscErrorCode SetFromOptions(PetscOptionItems PetscOptionsObject) = 0;
  virtual std::unique_ptr<Format> CloneSettings() const = 0; // same options, no storage

  // Host reference (CPU builds, tests, -mat_gpumat_host_reference).
  virtual PetscErrorCode HostBuild(const CsrView<Scalar> &A)   = 0;
  virtual PetscErrorCode HostRefresh(const CsrView<Scalar> &A) = 0;
  virtual PetscErrorCode HostApply(const CsrView<Scalar> &A, Op op, const Scalar *x, const Scalar *z, Scalar *y) = 0;

  // Device (CUDA builds). The defaults say the library was built without CUDA; a format
  // overrides them inside #if defined(GPUMAT_WITH_CUDA).
  virtual PetscErrorCode DeviceBuild(const CsrView<Scalar> &A, cudaStream_t s);
  virtual PetscErrorCode DeviceRefresh(const CsrView<Scalar> &A, Mem values, cudaStream_t s);
  virtual PetscErrorCode DeviceApply(Op op, const Scalar *x, const Scalar *z, Scalar *y, cudaStream_t s);
  virtual void           DeviceRelease() {}
  virtual std::size_t    DeviceBytes() const { return 0; }
  // The bytes one device product reads from the format's storage by its byte model, as the device
  // stores it (Describe's format_bytes); NaN where the format has no such model or the device does
  // not hold it. The machinery compares it with the CSR's (matproduct.cxx: a dense operand's route).
  virtual double ReadBytes() const { return std::numeric_limits<double>::quiet_NaN(); }
#if defined(GPUMAT_WITH_CUDA)
  // *yes: DeviceBuildOnDevice would build A (A as it takes it), asked before the machinery readies
  // the block's CSR on the device for it; false: the machinery uploads A (DeviceBuild).
  virtual PetscErrorCode BuildsOnDevice(const CsrView<Scalar> &A, bool *yes)
  {
    (void)A;
    *yes = false;
    return PETSC_SUCCESS;
  }
  // A device build from the block's CSR already on the device (dev: device arrays of the matrix A
  // is, with its newest values; A: its host arrays, read by host-side choices, with A.val null where
  // the host's values are older): no upload. *done false where the format has no such build;
  // nothing is then built and the machinery uploads A (DeviceBuild).
  virtual PetscErrorCode DeviceBuildOnDevice(const CsrView<Scalar> &A, const cuda::DeviceCsrView<Scalar> &dev, cudaStream_t s, bool *done)
  {
    (void)A, (void)dev, (void)s;
    *done = false;
    return PETSC_SUCCESS;
  }
#endif

  // Optional capabilities; without them the machinery falls back to the parent's (host) operation.
  virtual bool HasDeviceTranspose() const { return false; } // DeviceApply(Op::Trans, ...)
  // d[rowmap ? rowmap[r] : r] = A(r, rowmap ? rowmap[r] : r) for the format's rows r (rowmap: the
  // compressed block's row list on the device); other entries are set by the machinery.
  virtual bool           HasDeviceDiagonal() const { return false; }
  virtual PetscErrorCode DeviceDiagonal(const index_t *rowmap, Scalar *d, cudaStream_t s);
  // fp32 value storage (-mat_gpumat_values fp32) on or off for the next builds; false where the
  // format has none (the machinery then refuses the option, naming the format).
  virtual bool SetFp32Values(bool on) { return !on; }
  // A format whose kernel serializes on long runs of empty rows asks for the compressed form of
  // such blocks even below the machinery's empty-row ratio (A: the full block).
  virtual bool WantsCompressedRows(const CsrView<Scalar> &A) const { return false; }

  // The block size of the matrix the next Build stores (MatGetBlockSizes when row and column block
  // sizes agree, 1 otherwise and for compressed blocks): a hint for formats with blocks of values.
  void SetBlockSize(int bs) { block_size_ = bs > 0 ? bs : 1; }
  int  BlockSize() const { return block_size_; }
  // The length of the longest row of the matrix the next Build stores (counted by the machinery
  // with the empty rows; -1: unknown): a hint for formats whose work is split along rows.
  void    SetLongestRow(index_t n) { longest_row_ = n; }
  index_t LongestRow() const { return longest_row_; }

  // The directory of the disk cache of tuning decisions (-mat_gpumat_tuning_cache, its default, or
  // "" with -mat_gpumat_tuning_cache_disable), set before each build: a format that tunes looks its
  // decision up with TuningCacheLookup and stores a new one with TuningCacheStore.
  void               SetTuningCacheDir(std::string dir) { tuning_cache_dir_ = std::move(dir); }
  const std::string &TuningCacheDir() const { return tuning_cache_dir_; }

  // The format that stores the block: empty for this one; gpuauto: the candidate it chose (empty
  // before its first build).
  virtual const std::string &StoredAs() const
  {
    static const std::string self;
    return self;
  }

  // A few summary lines for MatView(-mat_view ::ascii_info): parameters and statistics of the
  // matrix the format stores (A, as Build got it).
  virtual PetscErrorCode ViewInfo(PetscViewer v, const CsrView<Scalar> &A) const = 0;
  // The facts ViewInfo prints, machine-readable (MatGpuMatGetProperty): keys and values as text
  // (numbers in plain decimal), appended to out (a format that ViewInfo says is not built yet
  // appends nothing, or its settings only). Each adapter documents its keys. May throw
  // (std::bad_alloc; a core function's exception): callers wrap it in PetscCallCXX.
  virtual void Describe(Properties &out, const CsrView<Scalar> &A) const {}

private:
  int         block_size_  = 1;
  index_t     longest_row_ = -1;
  std::string tuning_cache_dir_;
};

// A format's options, read through their records (src/core/format_record.hpp; options.cxx) inside
// an open options block: PetscOptionsInt, Real, Bool, Enum or String with the record's name, help
// and manual page, `shown` the value -help shows and *value's when the option is not given. A given
// value outside the record's range or allowed values is PETSC_ERR_ARG_OUTOFRANGE with the record's
// message ("-mat_csrspec_w must be in [0, 64] (0 chooses the default), got 65"). No record (o null:
// FormatRecord::option found no such key) or a kind other than the record's is PETSC_ERR_PLIB. set
// may be null.
PetscErrorCode ReadOption(PetscOptionItems PetscOptionsObject, const OptionRecord *o, PetscInt shown, PetscInt *value, PetscBool *set);
PetscErrorCode ReadOption(PetscOptionItems PetscOptionsObject, const OptionRecord *o, PetscReal shown, PetscReal *value, PetscBool *set);
PetscErrorCode ReadOption(PetscOptionItems PetscOptionsObject, const OptionRecord *o, PetscBool shown, PetscBool *value, PetscBool *set);
PetscErrorCode ReadOption(PetscOptionItems PetscOptionsObject, const OptionRecord *o, PetscEnum shown, PetscEnum *value, PetscBool *set);
PetscErrorCode ReadOption(PetscOptionItems PetscOptionsObject, const OptionRecord *o, const char *shown, char *value, size_t size, PetscBool *set);

// A CUDA error as a PETSc error; out of device memory says what did not fit and what to do.
PetscErrorCode CheckDevice(int cuda_error, const char *what, const CsrView<Scalar> &A);

// A format whose device storage is one PETSc-free object Dev (src/cuda/) with diagonal(rowmap, d,
// s), release() and device_bytes(), and (the device classes of our own kernels) refresh(values, s),
// apply(op, x, z, y, s) with transposed products on the GPU, and Dev::kName: the forwarding of
// those device operations, written once (the cuSPARSE adapters, whose library reports its own
// errors and has no transposed product for their formats, override refresh, apply and transpose).
// A format derives from GPUMAT_DEVICE_FORMAT(its device class), which is plain Format in builds
// without CUDA (the device class is then never named).
#if defined(GPUMAT_WITH_CUDA)
template <class Dev>
class DeviceFormat : public Format {
public:
  PetscErrorCode DeviceRefresh(const CsrView<Scalar> &A, Mem values, cudaStream_t s) override
  {
    PetscFunctionBegin;
    PetscCall(CheckDevice(dev_.refresh(A.val, s, values), Dev::kName, A));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode DeviceApply(Op op, const Scalar *x, const Scalar *z, Scalar *y, cudaStream_t s) override
  {
    PetscFunctionBegin;
    PetscCallCUDA(dev_.apply(op, x, z, y, s));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  bool           HasDeviceTranspose() const override { return true; }
  bool           HasDeviceDiagonal() const override { return true; }
  PetscErrorCode DeviceDiagonal(const index_t *rowmap, Scalar *d, cudaStream_t s) override
  {
    PetscFunctionBegin;
    PetscCallCUDA(dev_.diagonal(rowmap, d, s));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  void        DeviceRelease() override { dev_.release(); }
  std::size_t DeviceBytes() const override { return dev_.device_bytes(); }

protected:
  // A device build's result: the device class's why() where it refused the matrix (an index width
  // exceeded, say: a clear error the user can act on), else CheckDevice's errors.
  PetscErrorCode CheckBuild(int err, const CsrView<Scalar> &A) const
  {
    PetscFunctionBegin;
    PetscCheck(err != cudaErrorInvalidValue || dev_.why().empty(), PETSC_COMM_SELF, PETSC_ERR_SUP, "%s", dev_.why().c_str());
    PetscCall(CheckDevice(err, Dev::kName, A));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  Dev dev_;
};
  #define GPUMAT_DEVICE_FORMAT(Dev) gpumat::DeviceFormat<Dev>

// The cuSPARSE formats (cusparsecsr, cusparsesell, cusparsebsr): their device class wraps
// cuSPARSE (failed_call(), failed_status() name the cuSPARSE call that failed), and no
// transposed product runs on the device (the machinery's host fallback). Refresh, apply and the
// error report written once; the adapter says what its parameters were (CusparseParams: appended
// to cuSPARSE's errors) and builds.
template <class Dev>
class CusparseFormat : public DeviceFormat<Dev> {
public:
  PetscErrorCode DeviceRefresh(const CsrView<Scalar> &A, Mem values, cudaStream_t s) override
  {
    PetscFunctionBegin;
    PetscCall(CheckCusparse(this->dev_.refresh(A.val, s, values), A));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode DeviceApply(Op op, const Scalar *x, const Scalar *z, Scalar *y, cudaStream_t s) override
  {
    PetscFunctionBegin;
    PetscCheck(op == Op::NoTrans, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s has no device transpose", Dev::kName);
    const cudaError_t err = this->dev_.apply(op, x, z, y, s);
    PetscCheck(err == cudaSuccess || !this->dev_.failed_call(), PETSC_COMM_SELF, PETSC_ERR_LIB, "%s: %s failed: %s", Dev::kName, this->dev_.failed_call(), this->dev_.failed_status());
    PetscCallCUDA(err);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  bool HasDeviceTranspose() const override { return false; }

protected:
  virtual std::string CusparseParams() const = 0; // e.g. "slice size 32, -mat_cusparsesell_slice"
  // A device call's result: a failed cuSPARSE call named with the parameters, else CheckDevice's.
  PetscErrorCode CheckCusparse(cudaError_t err, const CsrView<Scalar> &A) const
  {
    PetscFunctionBegin;
    if (err != cudaSuccess && err != cudaErrorMemoryAllocation && this->dev_.failed_call()) {
      const std::string p = CusparseParams();
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "%s: %s failed: %s (%s)", Dev::kName, this->dev_.failed_call(), this->dev_.failed_status(), p.c_str());
    }
    PetscCall(CheckDevice(err, Dev::kName, A));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};
  #define GPUMAT_CUSPARSE_FORMAT(Dev) gpumat::CusparseFormat<Dev>
#else
  #define GPUMAT_DEVICE_FORMAT(Dev)   gpumat::Format
  #define GPUMAT_CUSPARSE_FORMAT(Dev) gpumat::Format
#endif

// The host reference side of a format whose core object Host refreshes from the values array and
// applies on its own (Host::refresh(values), Host::apply(op, x, z, y): the cuSPARSE formats' sliced
// ELL and BSR): HostRefresh and HostApply forwarded to host_, written once. Base is the format's
// device base (GPUMAT_CUSPARSE_FORMAT(Dev), ...); the adapter builds host_ in its HostBuild.
template <class Base, class Host>
class WithHostObject : public Base {
public:
  PetscErrorCode HostRefresh(const CsrView<Scalar> &A) override
  {
    PetscFunctionBegin;
    PetscCallCXX(host_.refresh(A.val));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode HostApply(const CsrView<Scalar> &, Op op, const Scalar *x, const Scalar *z, Scalar *y) override
  {
    PetscFunctionBegin;
    PetscCallCXX(host_.apply(op, x, z, y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

protected:
  Host host_;
};

// The same for a format whose core layer refreshes and applies through free functions
// (Refresh(A, host), Apply(host, op, x, z, y): bccoo, pjds, bce).
template <class Base, class Host, void (*Refresh)(const CsrView<Scalar> &, Host &), void (*Apply)(const Host &, Op, const Scalar *, const Scalar *, Scalar *)>
class WithHostFunctions : public Base {
public:
  PetscErrorCode HostRefresh(const CsrView<Scalar> &A) override
  {
    PetscFunctionBegin;
    PetscCallCXX(Refresh(A, host_));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode HostApply(const CsrView<Scalar> &, Op op, const Scalar *x, const Scalar *z, Scalar *y) override
  {
    PetscFunctionBegin;
    PetscCallCXX(Apply(host_, op, x, z, y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

protected:
  Host host_;
};

struct FormatInfo {
  const char *name;                    // the root type name, e.g. "csrspec"
  const char *title;                   // one line for MatView and help
  std::unique_ptr<Format> (*create)(); // a format with default settings
};

// registry.cxx
const std::vector<FormatInfo> &Formats();
const FormatInfo             *FindFormat(const char *mattype); // by root, aij<root>, seqaij<root>, mpiaij<root>

// The disk cache of tuning decisions (src/core/tuning_cache.hpp), for formats that tune.
// The identity of the GPU products run on, part of every key: "<name> cc<major>.<minor> <n>sm" of
// the current CUDA device (name, compute capability, multiprocessors: a MIG slice or a part with
// fewer SMs is another device); "host" in builds without CUDA.
PetscErrorCode TuningDeviceIdentity(std::string *id);
// The key of A's pattern on this device in PetscScalar's precision, for `format` with its schema.
PetscErrorCode TuningKeyFor(const CsrView<Scalar> &A, const char *format, int schema, TuningKey *key);
// Looks key up in dir ("" = no cache: a miss). *values holds the stored decisions on a hit.
// Hits and misses are PetscInfo (on obj, which may be null); a damaged or unreadable entry is
// PetscInfo and a one-line WARNING on PETSC_COMM_SELF naming the file, and a miss: the caller
// decides afresh and stores, which replaces the entry. A malformed key is an error (a bug).
PetscErrorCode TuningCacheLookup(PetscObject obj, const std::string &dir, const TuningKey &key, std::optional<TuningValues> *values);
// Stores values under key in dir (nothing when dir is ""). A failure (read-only or full file
// system, ...) is no error: PetscInfo, plus a WARNING the first time for a directory in this process.
PetscErrorCode TuningCacheStore(PetscObject obj, const std::string &dir, const TuningKey &key, const TuningValues &values);

} // namespace gpumat
