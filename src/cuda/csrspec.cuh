// csrspec on the GPU: PETSc-free device storage and kernels (raw pointers + stream).
// Included by host C++ (the PETSc adapter) and by csrspec.cu; needs only cuda_runtime.h.
#pragma once
#include "../core/csrspec.hpp"
#include "primitives.cuh"
#include <cuda_runtime.h>

namespace gpumat {
namespace cuda {

// Device copy of the unmodified CSR arrays plus the small auxiliary arrays of the speculative
// segmented sum. Owns its device memory. Every call returns the first CUDA error it met
// (cudaErrorMemoryAllocation when the device is out of memory), never aborts.
template <typename T>
class CsrSpecDevice {
public:
  static constexpr const char *kName = "csrspec"; // the format, in messages
  CsrSpecDevice() = default;
  CsrSpecDevice(const CsrSpecDevice &) = delete;
  CsrSpecDevice &operator=(const CsrSpecDevice &) = delete;
  ~CsrSpecDevice() { release(); }

  // Upload pattern and values (host arrays), allocate the auxiliary arrays. p: the user's
  // parameters, resolved here by csrspec_resolve with this GPU's resident blocks (tiles_per_block
  // 0: one wave of blocks); cudaErrorInvalidValue for parameters it rejects. Replaces any previous
  // content.
  cudaError_t build(const CsrView<T> &A, const CsrSpecParams &p, cudaStream_t s);
  // The same from a CSR already on the device (device arrays, copied device to device): no upload.
  cudaError_t build(const DeviceCsrView<T> &A, const CsrSpecParams &p, cudaStream_t s);
  // New values, same pattern: one copy of the value array, from the host or (where = Mem::Device)
  // from device memory.
  cudaError_t refresh(const T *val, cudaStream_t s, Mem where = Mem::Host);
  // y = op(A) x (+ z); device pointers; y may equal z; asynchronous on s, no synchronization.
  cudaError_t apply(Op op, const T *x, const T *z, T *y, cudaStream_t s) const;
  // d[rowmap ? rowmap[r] : r] = A(r, rowmap ? rowmap[r] : r) for every row r (the diagonal; with a
  // row map, of the full matrix whose nonempty rows these are); other entries of d untouched.
  cudaError_t diagonal(const index_t *rowmap, T *d, cudaStream_t s) const;

  const CsrSpecParams &params() const { return p_; } // as built (resolved)
  std::size_t device_bytes() const; // everything this object holds on the device
  std::size_t aux_bytes() const;    // the part that is not the CSR arrays
  void        release();

private:
  // The parameters resolved for nnz nonzeros and the arrays allocated (nothing copied yet).
  cudaError_t allocate(index_t nrows, index_t ncols, index_t nnz, const CsrSpecParams &user);
  // The arrays copied from rowptr, colidx, val (host or device memory: where; the values by refresh).
  cudaError_t fill(const index_t *rowptr, const index_t *colidx, const T *val, Mem where, cudaStream_t s);

  index_t nrows_ = 0, ncols_ = 0, nnz_ = 0;
  CsrSpecParams p_{};
  index_t *rowptr_ = nullptr, *colidx_ = nullptr;
  T       *val_ = nullptr;
  // synchronizer: one (row, partial sum) slot per block for the row that enters it from the left
  index_t *sync_row_ = nullptr;
  T       *sync_val_ = nullptr;
  index_t  nblocks_ = 0;
};

} // namespace cuda
} // namespace gpumat
