// cusparsesell on the GPU: cuSPARSE's sliced ELL built on the device from the CSR, products by
// cusparseSpMV (CUSPARSE_SPMV_SELL_ALG1). PETSc-free (raw pointers + stream); included by host C++
// (the PETSc adapter) and by cusparsesell.cu.
#pragma once
#include "../core/cusparsesell.hpp"
#include "cusparse_spmv.cuh"
#include <cuda_runtime.h>
#include <vector>

namespace gpumat {
namespace cuda {

// Owns its device memory and its cuSPARSE handle. Every call returns the first CUDA error it met
// (cudaErrorMemoryAllocation when the device or cuSPARSE is out of memory), never aborts; a failed
// cuSPARSE call is named by failed_call() / failed_status().
template <typename T>
class SellDevice {
public:
  static constexpr const char *kName = "cusparsesell"; // the format, in messages
  SellDevice() = default;
  SellDevice(const SellDevice &)            = delete;
  SellDevice &operator=(const SellDevice &) = delete;
  ~SellDevice() { release(); }

  // Uploads the CSR (host arrays) and builds the layout of src/core/cusparsesell.hpp on the GPU:
  // slice widths (a thread per slice), slice offsets (CUB exclusive sum), column indices and slot
  // map (a thread per row), values (scattered through the slot map); then the cuSPARSE descriptor,
  // its SpMV buffer and one cusparseSpMV_preprocess. The CSR copies are freed; the slot map and a
  // staging array of the CSR values are kept for refresh. cudaErrorInvalidValue for S outside
  // [sell_min_slice, sell_max_slice] or a padded size beyond 32-bit positions (host check, one pass
  // over rowptr). Synchronizes s. Replaces any previous content.
  cudaError_t build(const CsrView<T> &A, int S, cudaStream_t s);
  // New values, same pattern: one host-to-device copy of the CSR values into the staging array,
  // one scatter kernel; device values (where = Mem::Device) scattered in place, no copy.
  cudaError_t refresh(const T *val, cudaStream_t s, Mem where = Mem::Host);
  // y = A x (+ z), device pointers, y may equal z; asynchronous on s. Op::Trans: cudaErrorNotSupported
  // (the format offers no device transpose; the machinery falls back).
  cudaError_t apply(Op op, const T *x, const T *z, T *y, cudaStream_t s) const;
  // d[rowmap ? rowmap[r] : r] = A(r, rowmap ? rowmap[r] : r) for every row r; other entries untouched.
  cudaError_t diagonal(const index_t *rowmap, T *d, cudaStream_t s) const;
  // The layout and values as built (tests). Synchronous.
  cudaError_t download(SellLayout &L, std::vector<T> &values) const;

  int          slice() const { return S_; }
  index_t      slices() const { return nslices_; }
  std::int64_t padded() const { return padded_; }
  std::size_t  buffer_bytes() const { return spmv_.buffer_bytes(); }
  bool         preprocessed() const { return spmv_.preprocessed(); }
  const char  *failed_call() const { return spmv_.failed_call(); }
  const char  *failed_status() const { return spmv_.failed_status(); }
  std::size_t  device_bytes() const; // everything held: layout, slot map, staging, cuSPARSE buffer
  void         release();

private:
  void free_storage();

  index_t         nrows_ = 0, ncols_ = 0, nnz_ = 0, nslices_ = 0;
  int             S_      = 0;
  std::int64_t    padded_ = 0;
  index_t        *offsets_ = nullptr, *col_ = nullptr, *slot_ = nullptr;
  T              *val_ = nullptr, *staging_ = nullptr;
  CusparseSpmv<T> spmv_;
};

} // namespace cuda
} // namespace gpumat
