// cusparsecsr on the GPU: the CSR uploaded as it is, products by cusparseSpMV
// (CUSPARSE_SPMV_CSR_ALG1 or ALG2). PETSc-free (raw pointers + stream); included by host C++ (the
// PETSc adapter) and by cusparsecsr.cu.
#pragma once
#include "../core/cusparsecsr.hpp"
#include "cusparse_spmv.cuh"
#include <cuda_runtime.h>
#include <vector>

namespace gpumat {
namespace cuda {

// Owns its device memory and its cuSPARSE handle. Every call returns the first CUDA error it met
// (cudaErrorMemoryAllocation when the device or cuSPARSE is out of memory), never aborts; a failed
// cuSPARSE call is named by failed_call() / failed_status().
template <typename T>
class CusparseCsrDevice {
public:
  static constexpr const char *kName = "cusparsecsr"; // the format, in messages
  CusparseCsrDevice() = default;
  CusparseCsrDevice(const CusparseCsrDevice &)            = delete;
  CusparseCsrDevice &operator=(const CusparseCsrDevice &) = delete;
  ~CusparseCsrDevice() { release(); }

  // Uploads the CSR (host arrays: row pointer, column indices, values), then the cuSPARSE CSR
  // descriptor on those arrays, its SpMV buffer and one cusparseSpMV_preprocess with algorithm
  // `alg` (1: CUSPARSE_SPMV_CSR_ALG1, 2: CUSPARSE_SPMV_CSR_ALG2). No descriptor without nonzeros
  // (products are then y = z or 0). cudaErrorInvalidValue for an alg outside [csr_min_alg,
  // csr_max_alg], nothing kept. Synchronizes s. Replaces any previous content.
  cudaError_t build(const CsrView<T> &A, int alg, cudaStream_t s);
  // New values, same pattern: one copy of the CSR values (from the host, or device to device with
  // where = Mem::Device) into the array the descriptor points at (descriptor, buffer and
  // preprocessing kept). Asynchronous on s.
  cudaError_t refresh(const T *val, cudaStream_t s, Mem where = Mem::Host);
  // y = A x (+ z), device pointers, y may equal z; asynchronous on s. Op::Trans: cudaErrorNotSupported
  // (the format offers no device transpose; the machinery falls back).
  cudaError_t apply(Op op, const T *x, const T *z, T *y, cudaStream_t s) const;
  // d[rowmap ? rowmap[r] : r] = A(r, rowmap ? rowmap[r] : r) for every row r; other entries untouched.
  cudaError_t diagonal(const index_t *rowmap, T *d, cudaStream_t s) const;
  // The arrays as stored (tests). Synchronous.
  cudaError_t download(std::vector<index_t> &rowptr, std::vector<index_t> &colidx, std::vector<T> &values) const;

  int         alg() const { return alg_; }
  index_t     nrows() const { return nrows_; }
  index_t     nnz() const { return nnz_; }
  std::size_t buffer_bytes() const { return spmv_.buffer_bytes(); }
  bool        preprocessed() const { return spmv_.preprocessed(); }
  const char *failed_call() const { return spmv_.failed_call(); }
  const char *failed_status() const { return spmv_.failed_status(); }
  std::size_t device_bytes() const; // everything held: csr_bytes of the arrays, cuSPARSE buffer
  void        release();

private:
  void free_storage();

  index_t         nrows_ = 0, ncols_ = 0, nnz_ = 0;
  int             alg_    = 0;
  index_t        *rowptr_ = nullptr, *colidx_ = nullptr;
  T              *val_    = nullptr;
  CusparseSpmv<T> spmv_;
};

} // namespace cuda
} // namespace gpumat
