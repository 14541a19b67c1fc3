// cuSPARSE's generic SpMV for the formats that are cuSPARSE's own storage (cusparsesell,
// cusparsecsr, cusparsebsr): one handle per object bound to the caller's stream, the matrix and
// vector descriptors, the external buffer (sized once, preprocessed once per pattern, kept).
// PETSc-free; included by host C++ (through the formats' headers), needs cuda_runtime.h and
// cusparse.h.
#pragma once
#include "../core/csr.hpp"
#include "primitives.cuh" // exclusive_sum, scatter_slots: the builders' shared primitives
#include <cuda_runtime.h>
#include <cusparse.h>
#include <cstddef>
#include <cstdint>

namespace gpumat {
namespace cuda {

// cuSPARSE's value type of T (fp64 or fp32): the matrix and vector descriptors of every format.
template <typename T>
constexpr cudaDataType cusparse_value_type() {
  return sizeof(T) == 8 ? CUDA_R_64F : CUDA_R_32F;
}

// cuSPARSE status as the CUDA error the formats return: out of memory as
// cudaErrorMemoryAllocation (the machinery turns it into PETSC_ERR_MEM), invalid or unsupported
// arguments as cudaErrorInvalidValue / cudaErrorNotSupported, anything else as cudaErrorUnknown.
cudaError_t cusparse_to_cuda(cusparseStatus_t st);

// y = A x (+ y) with A a cuSPARSE matrix descriptor (owned from setup on), algorithm `alg`.
template <typename T>
class CusparseSpmv {
public:
  CusparseSpmv() = default;
  CusparseSpmv(const CusparseSpmv &)            = delete;
  CusparseSpmv &operator=(const CusparseSpmv &) = delete;
  ~CusparseSpmv() { release(); }

  // Takes ownership of `mat` (destroyed by reset even when setup fails), an m x n matrix; creates
  // the handle on first use, sizes and allocates the external buffer and runs
  // cusparseSpMV_preprocess once (CUSPARSE_STATUS_NOT_SUPPORTED from it only means no
  // preprocessing). Synchronizes s (the preprocess reads temporary vectors freed here).
  cudaError_t setup(cusparseSpMatDescr_t mat, std::int64_t m, std::int64_t n, cusparseSpMVAlg_t alg, cudaStream_t s);
  // y = A x, or y = A x + y with accumulate; device pointers of n and m entries; asynchronous on s.
  cudaError_t multiply(const T *x, T *y, bool accumulate, cudaStream_t s) const;
  // y = A x (+ z) for the formats' apply: z (m entries, may be y) copied into y first when it is
  // another vector, then accumulated (beta = 1 with z, 0 without).
  cudaError_t multiply_add(const T *x, const T *z, T *y, std::int64_t m, cudaStream_t s) const;

  bool        ready() const { return mat_ != nullptr; }
  bool        preprocessed() const { return preprocessed_; }
  std::size_t buffer_bytes() const { return buffer_bytes_; }
  // The cuSPARSE call that failed last and its status string, or nullptr when none did.
  const char *failed_call() const { return failed_call_; }
  const char *failed_status() const;
  // Records a failed cuSPARSE call (the formats' own descriptor creation) and returns its CUDA error.
  cudaError_t record_failure(const char *call, cusparseStatus_t st) const;
  void        clear_failure() { failed_call_ = nullptr; }

  void reset();   // descriptors and buffer (the handle stays for the next pattern)
  void release(); // everything, the handle too

private:

  cusparseHandle_t     handle_ = nullptr;
  cusparseSpMatDescr_t mat_    = nullptr;
  cusparseDnVecDescr_t vx_ = nullptr, vy_ = nullptr;
  cusparseSpMVAlg_t    alg_          = CUSPARSE_SPMV_ALG_DEFAULT;
  void                *buffer_       = nullptr;
  std::size_t          buffer_bytes_ = 0;
  bool                 preprocessed_ = false;
  mutable const char  *failed_call_  = nullptr;
  mutable cusparseStatus_t failed_status_ = CUSPARSE_STATUS_SUCCESS;
};

} // namespace cuda
} // namespace gpumat
