// bce on the GPU: PETSc-free device storage, builder and kernels (raw pointers + stream).
// Included by host C++ (the PETSc adapter, tests) and by bce.cu; needs only cuda_runtime.h.
#pragma once
#include "../core/bce.hpp"
#include "long_rows.cuh"
#include "primitives.cuh"

#include <cuda_runtime.h>
#include <string>
#include <utility>
#include <vector>

namespace gpumat {
namespace cuda {

// The device copy of a Bce<T> (src/core/bce.hpp), built on the GPU from the CSR arrays: the same
// arrays, entry for entry, as the host builder's (download() returns them in the host's form for
// the tests), with the long part's values after the groups' in one array (one slot map refreshes
// both), plus each group's first warp: the product runs every group in one launch, a thread per
// row, each group starting on a warp of its own (a warp never spans two widths), the long rows'
// chunks in its first blocks (long_rows.cuh). The distribution function is counted on the device
// and read back (a count per length up to the longest short row), the dynamic program runs on the
// host (at most kBceMaxSets sets: about a millisecond), the rows are put in group order by a
// stable radix sort of their group numbers. Owns its device memory. Every call returns the first
// CUDA error it met (cudaErrorMemoryAllocation when out of memory; cudaErrorInvalidValue with why()
// for a matrix the format cannot index), never aborts. One stream at a time.
template <typename T>
class BceDevice {
public:
  static constexpr const char *kName = "bce"; // the format, in messages
  BceDevice() = default;
  BceDevice(const BceDevice &)            = delete;
  BceDevice &operator=(const BceDevice &) = delete;
  ~BceDevice() { release(); }

  // Uploads the CSR (host arrays) and builds with parameters p as bce_build takes them.
  cudaError_t build(const CsrView<T> &A, const BceParams &p, cudaStream_t s);
  // The same from a CSR already on the device.
  cudaError_t build(const DeviceCsrView<T> &A, const BceParams &p, cudaStream_t s);
  // New values, same pattern (refresh_through_slots): the CSR values in host or device memory.
  cudaError_t refresh(const T *val, cudaStream_t s, Mem where = Mem::Host);
  // y = op(A) x (+ z); device pointers; y may equal z; asynchronous on s.
  cudaError_t apply(Op op, const T *x, const T *z, T *y, cudaStream_t s) const;
  // d[rowmap ? rowmap[r] : r] = A(r, rowmap ? rowmap[r] : r) for every row r; other entries untouched.
  cudaError_t diagonal(const index_t *rowmap, T *d, cudaStream_t s) const;
  // The layout in the host builder's form.
  cudaError_t download(Bce<T> &B) const;

  // The long part's chunk shape for the next builds (0 = by the long rows); false for an invalid one.
  bool set_long_shape(LongShape u) {
    if (!long_shape_valid(u)) return false;
    user_shape_ = u;
    return true;
  }
  const LongShape &long_shape() const { return lr_.shape(); }
  // The product kernel's instance: 6 resident blocks per SM (40 registers) without a long part,
  // 4 (64) with one, as pjds measured.
  int kernel_occupancy() const { return lr_.chunks() == 0 ? 6 : 4; }

  const BceParams            &params() const { return p_; } // as built (long_row set)
  const std::string          &why() const { return why_; }
  const std::vector<index_t> &group_widths() const { return group_width_; } // the partition, increasing
  const std::vector<index_t> &widths() const { return width_; }             // per block (window, group)
  const std::vector<index_t> &block_rows() const { return rows_; }
  int                         groups() const { return int(group_width_.size()); }
  int                         blocks() const { return int(width_.size()); }
  int                         sets_before_merge() const { return sets_df_; }
  int                         sets() const { return sets_; }
  index_t                     long_rows() const { return lr_.count(); }
  std::int64_t                long_entries() const { return lr_.entries(); }
  std::int64_t                chunks() const { return lr_.chunks(); }
  std::int64_t                padded() const { return padded_; }
  std::int64_t                padding() const { return padded_ - (std::int64_t(nnz_) - lr_.entries()); }
  std::size_t                 format_bytes() const; // the arrays a product reads (Bce::bytes of the host)
  std::size_t                 device_bytes() const; // everything this object holds on the device
  const std::vector<std::pair<const char *, float>> &build_phases() const { return phases_; }
  void                                                release();

private:
  cudaError_t build_from(const DeviceCsrView<T> &A, const BceParams &p, cudaStream_t s, PhaseTimer &clock);
  cudaError_t fail(std::string why) {
    why_ = std::move(why);
    release();
    return cudaErrorInvalidValue;
  }
  template <class Args>
  Args kernel_args(int lanes) const; // bce.cu

  BceParams            p_{};
  LongShape            user_shape_{};
  std::string          why_;
  index_t              nrows_ = 0, ncols_ = 0, nnz_ = 0, nshort_ = 0;
  std::int64_t         padded_ = 0, warps_ = 0;
  int                  sets_df_ = 0, sets_ = 0;
  std::vector<index_t> group_width_;  // the partition's k widths
  std::vector<index_t> width_, rows_; // host copies of the block table
  // device
  index_t *table_ = nullptr;  // 5b + 2 for b blocks: width[b], rows[b], pos[b], start[b + 1], warp[b + 1]
  index_t *wblock_ = nullptr; // warps_: each warp's block
  index_t *row_no_ = nullptr; // nshort_: position -> matrix row
  index_t *col_ = nullptr;    // padded_
  T       *val_ = nullptr;    // padded_ + the long part's entries
  unsigned *slot_ = nullptr;  // nnz_
  LongRowsDevice<T> lr_;
  std::vector<std::pair<const char *, float>> phases_;
};

} // namespace cuda
} // namespace gpumat
