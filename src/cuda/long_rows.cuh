// The long part of a row-grouped format (pjds, bce) on the GPU, shared: rows with more than
// long_row nonzeros, their CSR entries (layout: src/core/long_rows.hpp) cut into chunks, each
// summed by a group of lanes inside the format's own product kernel (long_rows_kernels.cuh). A
// format holds one LongRowsDevice, calls classify() and fill() from its build, and launches its
// product with the chunks in its first blocks. PETSc-free; includable by host C++.
#pragma once
#include "../core/long_rows.hpp"
#include "primitives.cuh"

#include <algorithm>
#include <cstdint>
#include <cuda_runtime.h>
#include <vector>

namespace gpumat {
namespace cuda {

// The chunk shape (LongShape, long_shape, long_shape_valid, kLongLoads, kLongMaxPasses) is the
// host layer's (src/core/long_rows.hpp): the adapters validate the user's shape without CUDA.
using gpumat::kLongLoads;
using gpumat::kLongMaxPasses;
using gpumat::long_shape;
using gpumat::long_shape_valid;
using gpumat::LongShape;

// The long part on the device. Owns its arrays except the values, which live in the format's value
// array after its other entries (one refresh through one slot map). Every call returns the first
// CUDA error it met, never aborts.
template <typename T>
class LongRowsDevice {
public:
  LongRowsDevice() = default;
  LongRowsDevice(const LongRowsDevice &)            = delete;
  LongRowsDevice &operator=(const LongRowsDevice &) = delete;
  ~LongRowsDevice() { release(); }

  // The rows of A longer than long_row: their list and CSR pointer, and short_pos[r] = the position
  // of row r among the short rows (r minus the long rows before it; nrows + 1 entries, the last =
  // the short rows' count) for the format's own layout. Synchronizes the stream once (the counts).
  cudaError_t classify(const DeviceCsrView<T> &A, long long long_row, index_t *short_pos, StreamTemps &tmp, cudaStream_t s);
  // After classify: the shape (user's fields where set), the chunks, and the long rows' entries:
  // columns into this object, values into vals[base + position], slot[q] = base + position for
  // their CSR entries q. Synchronizes once (the chunk count).
  cudaError_t fill(const DeviceCsrView<T> &A, LongShape user, T *vals, long long base, unsigned *slot, StreamTemps &tmp, cudaStream_t s);
  // d[rowmap ? rowmap[r] : r] = 0 for the long rows r (their diagonal entries are then written by
  // the chunks that hold them).
  cudaError_t zero_diagonal(const index_t *rowmap, T *d, cudaStream_t s) const;
  // The list, pointer and columns on the host (tests; the values are the format's).
  cudaError_t download(std::vector<index_t> &rows, std::vector<index_t> &ptr, std::vector<index_t> &col) const;
  void        release();

  index_t          count() const { return nlong_; }
  std::int64_t     entries() const { return nnz_; }
  std::int64_t     chunks() const { return nchunks_; }
  const LongShape &shape() const { return shape_; } // as built (0, 0 without long rows)
  // Bytes a product reads (12 B per entry in fp64, the row list and pointer), and all it holds.
  std::size_t format_bytes() const { return std::size_t(nnz_) * (sizeof(T) + sizeof(index_t)) + std::size_t(nlong_) * sizeof(index_t) + std::size_t(nlong_ + 1) * sizeof(index_t); }
  std::size_t device_bytes() const;

  // The kernels' view (long_rows_kernels.cuh's LongArgs), chunks taken by groups of `lanes` lanes
  // (0: the built shape's) in the first blocks of a launch of `threads` threads per block.
  template <class Args>
  Args args(const T *vals, int lanes, int threads) const;

private:
  index_t      nlong_ = 0, longest_ = 0;
  std::int64_t nnz_ = 0, nchunks_ = 0;
  LongShape    shape_{};
  index_t     *rows_ = nullptr, *ptr_ = nullptr, *col_ = nullptr; // nlong_, nlong_ + 1, nnz_
  index_t     *chunk_first_ = nullptr; // nlong_ + 1: the first chunk of each long row
  index_t     *chunk_row_ = nullptr;   // nchunks_: the long row of each chunk
  index_t     *chunk_beg_ = nullptr;   // nchunks_ + 1: each chunk's first entry
  T           *partial_ = nullptr;     // nchunks_: chunk sums of rows of several chunks
  unsigned    *arrived_ = nullptr;     // nlong_: chunks of the row done in this product (reset by its last)
};

} // namespace cuda
} // namespace gpumat
