// pjds on the GPU: PETSc-free device storage, builder and kernels (raw pointers + stream).
// Included by host C++ (the PETSc adapter, tests) and by pjds.cu; needs only cuda_runtime.h.
#pragma once
#include "../core/pjds.hpp"
#include "primitives.cuh"
#include <algorithm>
#include <cstdint>
#include <cuda_runtime.h>
#include <string>
#include <utility>
#include <vector>

namespace gpumat {
namespace cuda {

// The long part's chunks: a chunk of a long row is summed by `lanes` lanes of a warp (4, 8, 16 or
// 32: a warp holds 32 / lanes chunks), each lane loading kPjdsLoads entries at once per pass, in
// `passes` passes: lanes x kPjdsLoads x passes entries. Short long rows (fem's 33-81 entries) take a
// quarter warp and one chunk, not a warp mostly idle; rows of thousands a warp and several passes,
// so that a chunk's fixed costs (its bounds, and for a row of several chunks a partial sum, a fence
// and an atomic) are paid per 1,024 entries, not per 256.
constexpr int kPjdsLoads          = 8;   // entries per lane and pass (all loads of a pass in flight)
constexpr int kPjdsChunksPerBlock = 8;   // warps of a product block
constexpr int kPjdsMaxPasses      = 64;  // -mat_pjds_passes's bound
struct PjdsLongShape {
  int          lanes = 0, passes = 0; // 0 = by the long rows' mean length (pjds_long_shape)
  std::int64_t entries() const { return std::int64_t(lanes) * kPjdsLoads * passes; }
};
// Whether a user's shape is valid: lanes 0, 4, 8, 16 or 32; passes 0..kPjdsMaxPasses.
inline bool pjds_long_shape_valid(const PjdsLongShape &u) { return (u.lanes == 0 || u.lanes == 4 || u.lanes == 8 || u.lanes == 16 || u.lanes == 32) && u.passes >= 0 && u.passes <= kPjdsMaxPasses; }
// The shape for long rows of mean length m = long_nnz / long_rows: lanes = m / kPjdsLoads rounded up
// to a power of two within 4..32 (every lane one pass of loads on a row of mean length), passes =
// m / (lanes x kPjdsLoads) rounded up within 1..4 (a row of 12,000 entries: 32 lanes, 4 passes);
// the user's lanes or passes where set (non-zero).
inline PjdsLongShape pjds_long_shape(std::int64_t long_rows, std::int64_t long_nnz, PjdsLongShape user) {
  const std::int64_t m = long_rows > 0 ? (long_nnz + long_rows - 1) / long_rows : 0;
  PjdsLongShape      s = user;
  if (!s.lanes) {
    s.lanes = 4;
    while (s.lanes < 32 && std::int64_t(s.lanes) * kPjdsLoads < m) s.lanes *= 2;
  }
  if (!s.passes) {
    const std::int64_t per = std::int64_t(s.lanes) * kPjdsLoads;
    s.passes               = int(std::min<std::int64_t>(4, std::max<std::int64_t>(1, (m + per - 1) / per)));
  }
  return s;
}

// The device copy of a Pjds<T> (src/core/pjds.hpp), built on the GPU from the CSR arrays: the same
// arrays, entry for entry, as the host builder's (download() returns them in the host's form for
// the tests), with the long part's values after the padded values in one array (the refresh
// scatters into both through one slot map), plus the long rows' chunks: each long row is cut into
// chunks of long_shape().entries() entries, long_shape().lanes lanes each, whose partial sums the
// row's last-arriving group adds in chunk order (deterministic; no second kernel). Owns its device memory. Every call returns the
// first CUDA error it met (cudaErrorMemoryAllocation when out of memory; cudaErrorInvalidValue with
// why() for a matrix the format cannot index), never aborts. One stream at a time (the long rows'
// arrival counters are shared by products).
template <typename T>
class PjdsDevice {
public:
  PjdsDevice() = default;
  PjdsDevice(const PjdsDevice &)            = delete;
  PjdsDevice &operator=(const PjdsDevice &) = delete;
  ~PjdsDevice() { release(); }

  // Uploads the CSR (host arrays; columns in any order within a row) and builds the layout with
  // parameters p as pjds_build takes them (pjds_resolve'd or pjds_model's; sigma 0 = all rows,
  // long_row 0 = none). Replaces any previous content. Synchronizes the stream three times (the
  // long rows' count, the padded size, the chunks) and once at the end (build_phases()).
  cudaError_t build(const CsrView<T> &A, const PjdsParams &p, cudaStream_t s);
  // The same from a CSR already on the device (read only until the stream reaches the build's end).
  cudaError_t build(const DeviceCsrView<T> &A, const PjdsParams &p, cudaStream_t s);
  // New values, same pattern: copied in chunks through a staging buffer, scattered by the slot map.
  cudaError_t refresh(const T *host_val, cudaStream_t s);
  // y = op(A) x (+ z); device pointers; y may equal z; asynchronous on s. The product is one kernel
  // (the long rows' chunks in its first blocks); the transpose adds with atomics.
  cudaError_t apply(Op op, const T *x, const T *z, T *y, cudaStream_t s) const;
  // d[rowmap ? rowmap[r] : r] = A(r, rowmap ? rowmap[r] : r) for every row r; other entries untouched.
  cudaError_t diagonal(const index_t *rowmap, T *d, cudaStream_t s) const;
  // The layout in the host builder's form (perm empty for the identity; slot as host positions).
  cudaError_t download(Pjds<T> &B) const;

  // The product kernel's instance: compiled for `blocks` resident blocks of 256 threads per SM,
  // 4 (up to 64 registers a thread, more loads of each thread in flight) or 6 (up to 40, more
  // threads); 0 = by the layout (kernel_occupancy). Returns false (nothing changed) for another value.
  bool set_occupancy(int blocks) {
    if (blocks != 0 && blocks != 4 && blocks != 6) return false;
    occupancy_ = blocks;
    return true;
  }
  int occupancy() const { return occupancy_; } // as set (0: by the layout)
  // The long part's chunk shape for the next builds (0 = by the long rows, pjds_long_shape).
  // Returns false (nothing changed) for an invalid one (pjds_long_shape_valid).
  bool set_long_shape(PjdsLongShape u) {
    if (!pjds_long_shape_valid(u)) return false;
    user_shape_ = u;
    return true;
  }
  // The shape as built (lanes and passes 0 before a build, or without long rows).
  const PjdsLongShape &long_shape() const { return shape_; }
  // The instance the product runs: as set, else 6 without a long part and 4 with one (measured on
  // the H100, one run: 6 took 15 % less time on the 2D 5-point stencil, 8 % on the 7-point 300^3,
  // 2-3 % on the 27-point and FEM matrices, and 6-23 % more on econ, web, circuit, power law and
  // LP, the matrices with long rows).
  int kernel_occupancy() const { return occupancy_ ? occupancy_ : (nchunks_ == 0 ? 6 : 4); }
  const PjdsParams  &params() const { return p_; } // as built (sigma rounded, long_row set)
  const std::string &why() const { return why_; }
  index_t            pjds_rows() const { return npj_; }
  index_t            long_rows() const { return nlong_; }
  std::int64_t       long_entries() const { return long_nnz_; }
  std::int64_t       padded() const { return padded_; }
  std::int64_t       padding() const { return padded_ - (std::int64_t(nnz_) - long_nnz_); }
  std::int64_t       chunks() const { return nchunks_; }
  // Whether the product reads the row lengths (ELLPACK-R) or walks each block's width, adding the
  // padding's zeros: the lengths are read where the padding's bytes exceed theirs.
  bool               reads_rowlen() const { return padded_ > 0 && std::int64_t(padding()) * std::int64_t(sizeof(T) + sizeof(index_t)) > std::int64_t(npj_) * std::int64_t(sizeof(index_t)); }
  std::size_t        format_bytes() const; // the arrays a product reads (Pjds::bytes of the host, less rowlen when not read)
  std::size_t        device_bytes() const; // everything this object holds on the device
  const std::vector<std::pair<const char *, float>> &build_phases() const { return phases_; }
  void               release();

private:
  template <class Args>
  Args        kernel_args(int lanes) const; // pjds.cu
  cudaError_t build_from(const DeviceCsrView<T> &A, const PjdsParams &p, cudaStream_t s, PhaseTimer &clock);
  cudaError_t fail(std::string why) {
    why_ = std::move(why);
    release();
    return cudaErrorInvalidValue;
  }

  PjdsParams   p_{};
  int          occupancy_ = 0;
  PjdsLongShape user_shape_{}, shape_{};
  std::string  why_;
  index_t      nrows_ = 0, ncols_ = 0, nnz_ = 0, npj_ = 0, nlong_ = 0;
  std::int64_t nblocks_ = 0, padded_ = 0, long_nnz_ = 0, nchunks_ = 0;
  // pJDS part
  index_t      *perm_ = nullptr;        // position -> row (null: the identity)
  index_t      *rowlen_ = nullptr;      // npj_
  std::int64_t *block_start_ = nullptr; // nblocks_ + 1
  index_t      *col_ = nullptr;         // padded_
  T            *val_ = nullptr;         // padded_ + long_nnz_: the long part's values follow
  // long part
  index_t  *long_rows_ = nullptr, *long_ptr_ = nullptr, *long_col_ = nullptr; // nlong_, nlong_ + 1, long_nnz_
  index_t  *chunk_first_ = nullptr;     // nlong_ + 1: the first chunk of each long row
  index_t  *chunk_row_ = nullptr;       // nchunks_: the long row of each chunk
  index_t  *chunk_beg_ = nullptr;       // nchunks_ + 1: each chunk's first entry in the long part
  T        *partial_ = nullptr;         // nchunks_: chunk sums of rows of several chunks
  unsigned *arrived_ = nullptr;         // nlong_: chunks of the row done in this product (reset by its last)
  unsigned *slot_ = nullptr;            // nnz_: CSR entry -> position in val_
  std::vector<std::pair<const char *, float>> phases_;
};

} // namespace cuda
} // namespace gpumat
