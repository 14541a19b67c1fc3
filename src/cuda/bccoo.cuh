// bccoo on the GPU: PETSc-free device storage, builder and kernels (raw pointers + stream).
// Included by host C++ (the PETSc adapter, tests) and by bccoo.cu; needs only cuda_runtime.h.
#pragma once
#include "../core/bccoo.hpp"
#include "primitives.cuh"
#include <cuda_runtime.h>
#include <string>
#include <utility>
#include <vector>

namespace gpumat {
namespace cuda {

// The steps of the ablation of the product (the paper's Figure 14; bench/ablation_bccoo.cu times
// them), each the production kernel with the optimizations of the later steps switched off:
//   separate_carry  the per-thread sequential tile sums and the work group's segmented scan, run in
//                   every group (no no_scan skip), with no waiting between groups: each group stores
//                   its carry-out and a second kernel adds the carries into the first segment sum
//                   of every group that holds a row stop (walking back to the previous such group);
//   adjacent_sync   one kernel: the adjacent synchronization between groups, still no no_scan skip;
//   production      + the no_scan skip: the product of apply().
// The 16-bit column differences, the other fine-grain optimization of the paper, belong to the
// format: the ablation builds its separate_carry and adjacent_sync steps with compress_col = 0.
enum class BccooStage { separate_carry, adjacent_sync, production };

struct BccooVariant {
  BccooStage stage    = BccooStage::production;
  int        strategy = 0; // 0: the parameters' (BccooParams::strategy); 1: no result cache; 2: the result cache
};

// The arrays of a built BccooDevice and its geometry (device pointers; the layout of
// src/core/bccoo.hpp): for kernels outside this layer that read the format (the benchmark's
// ablation). Valid until the next build or release.
template <typename T>
struct BccooDeviceView {
  const unsigned char *flags;          // padded_blocks bits, block k at bit k % 8 of byte k / 8
  const T             *val;            // h planes of plane values
  const std::int16_t  *dcol;           // compressed columns (null when uncompressed)
  const index_t       *col;            // uncompressed block columns (null when compressed)
  const index_t       *escape, *escape_start;
  const index_t       *first_segment;  // thread_tiles + 1 entries, the last = segments
  const unsigned char *no_scan;        // per group
  long long            plane, padded_blocks, thread_tiles, groups, segments;
  index_t              nrows, ncols, nbrows, nbcols;
};

// The device copy of a Bccoo<T> (src/core/bccoo.hpp), built on the GPU from the CSR arrays: the
// same arrays, bit for bit, as the host builder's (download() returns them for the tests), plus
// what the kernels and the refresh need: the slot map (CSR entry -> value position), the
// adjacent-synchronization state, the per-slice partial sums of BCCOO+. Owns its device memory.
// Every call returns the first CUDA error it met (cudaErrorMemoryAllocation when the device is
// out of memory; cudaErrorInvalidValue with why() for a matrix the format cannot index), never
// aborts. One stream at a time: concurrent products with the same object on two streams would
// share the synchronization state.
template <typename T>
class BccooDevice {
public:
  static constexpr const char *kName = "bccoo"; // the format, in messages
  BccooDevice() = default;
  BccooDevice(const BccooDevice &) = delete;
  BccooDevice &operator=(const BccooDevice &) = delete;
  ~BccooDevice() { release(); }

  // Uploads the CSR (host arrays; columns sorted or not within a row, no duplicates as in PETSc's
  // AIJ) and builds the format with resolved parameters p (bccoo_resolve). Replaces any previous
  // content. Synchronizes the stream four times: the sortedness flag, the block count and the escape
  // count size what follows; the last ends the build (build_phases() reads its events).
  cudaError_t build(const CsrView<T> &A, const BccooParams &p, cudaStream_t s);
  // The same from a CSR already on the device (read only; it must stay valid until the stream
  // reaches the end of the build): no upload phase. The tuner builds all its candidates from one
  // upload.
  cudaError_t build(const DeviceCsrView<T> &A, const BccooParams &p, cudaStream_t s);
  // New values, same pattern: host values copied to the device in chunks of at most 4M values
  // through one staging buffer, each chunk scattered through the slot map; device values (where =
  // Mem::Device) scattered in place.
  cudaError_t refresh(const T *val, cudaStream_t s, Mem where = Mem::Host);
  // y = op(A) x (+ z); device pointers; y may equal z; asynchronous on s.
  cudaError_t apply(Op op, const T *x, const T *z, T *y, cudaStream_t s) const;
  // y = A x (+ z) by a step of the ablation (BccooVariant above; the default one is apply's
  // product), same arguments. cudaErrorInvalidValue for a strategy out of 0..2.
  cudaError_t apply_variant(const BccooVariant &v, const T *x, const T *z, T *y, cudaStream_t s) const;
  // d[rowmap ? rowmap[r] : r] = A(r, rowmap ? rowmap[r] : r) for every row r; other entries of d
  // untouched.
  cudaError_t diagonal(const index_t *rowmap, T *d, cudaStream_t s) const;
  // The format's arrays as the host builder lays them out (tests; slot stays empty). Synchronous.
  cudaError_t download(Bccoo<T> &B) const;

  const BccooParams &params() const { return p_; } // as built
  std::int64_t       blocks() const { return nblocks_; }
  std::int64_t       pad_blocks() const { return pad_blocks_; }
  std::int64_t       padded_blocks() const { return padded_; }
  std::int64_t       escapes() const { return nescapes_; }
  std::int64_t       segments() const { return nsegments_; }
  int                cache_segments() const { return p_.strategy == 1 ? 0 : cache_; } // result cache per work group
  BccooDeviceView<T> view() const;
  std::size_t        format_bytes() const; // the arrays a product reads (the byte model's format part)
  std::size_t        device_bytes() const; // everything this object holds on the device
  const std::string &why() const { return why_; }
  // The device time of the last build's phases (ms): upload, order, blocks, allocate, place,
  // columns (see build); empty when the events failed or before a build.
  const std::vector<std::pair<const char *, float>> &build_phases() const { return build_phases_; }
  void               release();

private:
  // both builds: the format from A on the device, phases timed on clock
  cudaError_t build_from(const DeviceCsrView<T> &A, const BccooParams &p, cudaStream_t s, PhaseTimer &clock);
  // apply and apply_variant: y = op(A) x (+ z), the variant for Op::NoTrans
  cudaError_t product(Op op, const BccooVariant &v, const T *x, const T *z, T *y, cudaStream_t s) const;
  cudaError_t fail(const std::string &w) {
    why_ = w;
    return cudaErrorInvalidValue;
  }

  BccooParams  p_{};
  index_t      nrows_ = 0, ncols_ = 0, nbrows_ = 0, nbcols_ = 0, slice_bcols_ = 0, nnz_ = 0;
  std::int64_t nsegments_ = 0, nblocks_ = 0, padded_ = 0, pad_blocks_ = 0, nescapes_ = 0, ntiles_ = 0, ngroups_ = 0;
  int          cache_ = 0; // segments of the result cache (strategy 2)
  std::string  why_;
  std::vector<std::pair<const char *, float>> build_phases_;
  // the format (bccoo.hpp)
  unsigned      *flags_ = nullptr;  // padded_ bits (block k: bit k % 32 of word k / 32; read as bytes)
  T             *val_   = nullptr;  // h planes of padded_ * w
  std::int16_t  *dcol_  = nullptr;  // compressed columns
  index_t       *col_   = nullptr;  // uncompressed columns
  index_t       *escape_ = nullptr, *escape_start_ = nullptr;
  index_t       *first_segment_ = nullptr; // ntiles_ + 1 entries, the last = nsegments_
  unsigned char *no_scan_ = nullptr;
  // refresh, BCCOO+ and the adjacent synchronization between work groups
  unsigned *slot_ = nullptr;        // CSR entry -> position in val_
  T        *part_ = nullptr;        // slices > 1: per (slice, row) segment sums, combined into y
  T        *grp_val_ = nullptr;     // per work group: the partial sum it passes on (h values)
  unsigned *grp_status_ = nullptr;  // per work group: the epoch of the launch that published it
  unsigned *ticket_ = nullptr;      // [0]: launch-order work-group ticket, [1]: groups done
  mutable unsigned epoch_ = 0;
};

} // namespace cuda
} // namespace gpumat
