// The device side of compressed rows (src/core/compressed.hpp): the row list of a block's nonempty
// rows, a work vector of that length, and the kernels that add a compressed product into y and
// gather x for a compressed transpose. Owned by the machinery, shared by every format.
// PETSc-free; included by host C++, needs only cuda_runtime.h.
#pragma once
#include "../core/csr.hpp"
#include <cuda_runtime.h>
#include <cstddef>

namespace gpumat {
namespace cuda {

// y = z (z != y) or 0 (z null), n entries; nothing when z == y.
template <typename T>
cudaError_t init_output(T *y, const T *z, index_t n, cudaStream_t s);

template <typename T>
class RowMapDevice {
public:
  RowMapDevice() = default;
  RowMapDevice(const RowMapDevice &)            = delete;
  RowMapDevice &operator=(const RowMapDevice &) = delete;
  ~RowMapDevice() { release(); }

  // Uploads the k rows (host array) and allocates a work vector of k entries.
  cudaError_t build(const index_t *rows, index_t k, cudaStream_t s);
  // y[rows[i]] += w[i]
  cudaError_t scatter_add(const T *w, T *y, cudaStream_t s) const;
  // w[i] = x[rows[i]]
  cudaError_t gather(const T *x, T *w, cudaStream_t s) const;

  const index_t *rows() const { return rows_; }
  T             *work() const { return work_; }
  index_t        size() const { return k_; }
  std::size_t    device_bytes() const { return std::size_t(k_) * (sizeof(index_t) + sizeof(T)); }
  void           release();

private:
  index_t *rows_ = nullptr;
  T       *work_ = nullptr;
  index_t  k_    = 0;
};

} // namespace cuda
} // namespace gpumat
