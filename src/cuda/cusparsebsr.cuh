// cusparsebsr on the GPU: cuSPARSE's BSR built on the device from the CSR, products by
// cusparseSpMV (CUSPARSE_SPMV_BSR_ALG1). PETSc-free (raw pointers + stream); included by host C++
// (the PETSc adapter) and by cusparsebsr.cu.
#pragma once
#include "../core/cusparsebsr.hpp"
#include "cusparse_spmv.cuh"
#include <cuda_runtime.h>
#include <vector>

namespace gpumat {
namespace cuda {

// Owns its device memory and its cuSPARSE handle. Every call returns the first CUDA error it met
// (cudaErrorMemoryAllocation when the device or cuSPARSE is out of memory), never aborts; a failed
// cuSPARSE call is named by failed_call() / failed_status().
template <typename T>
class BsrDevice {
public:
  static constexpr const char *kName = "cusparsebsr"; // the format, in messages
  BsrDevice() = default;
  BsrDevice(const BsrDevice &)            = delete;
  BsrDevice &operator=(const BsrDevice &) = delete;
  ~BsrDevice() { release(); }

  // Uploads the CSR (host arrays) and builds the layout of src/core/cusparsebsr.hpp on the GPU: a
  // thread per block row merges its rows' sorted columns by block column and counts the blocks; a
  // CUB exclusive sum gives the block row pointer (its last entry, the block count, is read back to
  // allocate); the same merge writes the block columns and the slot map; the values follow through
  // the slot map. Then zero-padded copies of x and y when bs does not divide n or m, the cuSPARSE
  // descriptor, its SpMV buffer and one cusparseSpMV_preprocess. The CSR copies are freed; the slot
  // map and a staging array of the CSR values are kept for refresh. cudaErrorInvalidValue for bs
  // outside [bsr_min_bs, bsr_max_bs] or stored values beyond 32-bit positions. Synchronizes s.
  cudaError_t build(const CsrView<T> &A, int bs, bool row_major, cudaStream_t s);
  // New values, same pattern: one host-to-device copy of the CSR values into the staging array,
  // one scatter kernel; device values (where = Mem::Device) scattered in place, no copy.
  cudaError_t refresh(const T *val, cudaStream_t s, Mem where = Mem::Host);
  // y = A x (+ z), device pointers, y may equal z; asynchronous on s. With padding, x is copied into
  // the padded x, and cuSPARSE's padded y is added into y by one kernel. Op::Trans:
  // cudaErrorNotSupported (CUSPARSE_SPMV_BSR_ALG1 supports only the non-transposed product).
  cudaError_t apply(Op op, const T *x, const T *z, T *y, cudaStream_t s) const;
  // d[rowmap ? rowmap[r] : r] = A(r, rowmap ? rowmap[r] : r) for every row r; other entries untouched.
  cudaError_t diagonal(const index_t *rowmap, T *d, cudaStream_t s) const;
  // The layout and values as built (tests). Synchronous.
  cudaError_t download(BsrLayout &L, std::vector<T> &values) const;

  int          bs() const { return bs_; }
  bool         row_major() const { return row_major_; }
  std::int64_t nnzb() const { return nnzb_; }
  bool         padded_x() const { return xpad_ != nullptr; }
  bool         padded_y() const { return ypad_ != nullptr; }
  std::size_t  buffer_bytes() const { return spmv_.buffer_bytes(); }
  bool         preprocessed() const { return spmv_.preprocessed(); }
  const char  *failed_call() const { return spmv_.failed_call(); }
  const char  *failed_status() const { return spmv_.failed_status(); }
  std::size_t  device_bytes() const; // everything held (bsr_bytes of the core layer + the cuSPARSE buffer)
  void         release();

private:
  void free_storage();

  index_t         nrows_ = 0, ncols_ = 0, nnz_ = 0, mb_ = 0, nb_ = 0;
  int             bs_        = 0;
  bool            row_major_ = false;
  std::int64_t    nnzb_      = 0;
  index_t        *browptr_ = nullptr, *bcol_ = nullptr, *slot_ = nullptr;
  T              *val_ = nullptr, *staging_ = nullptr, *xpad_ = nullptr, *ypad_ = nullptr;
  CusparseSpmv<T> spmv_;
};

} // namespace cuda
} // namespace gpumat
