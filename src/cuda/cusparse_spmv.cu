// cuSPARSE generic SpMV wrapper (see cusparse_spmv.cuh).
#include "cusparse_spmv.cuh"
#include "common.cuh"

namespace gpumat {
namespace cuda {

cudaError_t cusparse_to_cuda(cusparseStatus_t st) {
  switch (st) {
  case CUSPARSE_STATUS_SUCCESS: return cudaSuccess;
  case CUSPARSE_STATUS_ALLOC_FAILED:
  case CUSPARSE_STATUS_INSUFFICIENT_RESOURCES: return cudaErrorMemoryAllocation;
  case CUSPARSE_STATUS_INVALID_VALUE: return cudaErrorInvalidValue;
  case CUSPARSE_STATUS_NOT_SUPPORTED:
  case CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED:
  case CUSPARSE_STATUS_ARCH_MISMATCH: return cudaErrorNotSupported;
  default: return cudaErrorUnknown;
  }
}

template <typename T>
cudaError_t CusparseSpmv<T>::record_failure(const char *call, cusparseStatus_t st) const {
  failed_call_   = call;
  failed_status_ = st;
  return cusparse_to_cuda(st);
}

template <typename T>
const char *CusparseSpmv<T>::failed_status() const {
  return failed_call_ ? cusparseGetErrorString(failed_status_) : nullptr;
}

template <typename T>
cudaError_t CusparseSpmv<T>::setup(cusparseSpMatDescr_t mat, std::int64_t m, std::int64_t n, cusparseSpMVAlg_t alg, cudaStream_t s) {
  reset();
  mat_         = mat;
  alg_         = alg;
  failed_call_ = nullptr;
  cusparseStatus_t st;
  if (!handle_ && (st = cusparseCreate(&handle_)) != CUSPARSE_STATUS_SUCCESS) {
    handle_ = nullptr;
    reset();
    return record_failure("cusparseCreate", st);
  }
  if ((st = cusparseSetStream(handle_, s)) != CUSPARSE_STATUS_SUCCESS) {
    reset();
    return record_failure("cusparseSetStream", st);
  }
  // Temporary x and y for the descriptors of the sizing and the preprocessing; multiply points the
  // descriptors at the caller's vectors.
  T          *tx = nullptr, *ty = nullptr;
  cudaError_t err = device_alloc(tx, std::size_t(n > 0 ? n : 1));
  if (err == cudaSuccess) err = device_alloc(ty, std::size_t(m > 0 ? m : 1));
  if (err == cudaSuccess) err = cudaMemsetAsync(tx, 0, std::size_t(n > 0 ? n : 1) * sizeof(T), s);
  const T one = T(1), zero = T(0);
  if (err == cudaSuccess && (st = cusparseCreateDnVec(&vx_, n, tx, cusparse_value_type<T>())) != CUSPARSE_STATUS_SUCCESS) err = record_failure("cusparseCreateDnVec", st);
  if (err == cudaSuccess && (st = cusparseCreateDnVec(&vy_, m, ty, cusparse_value_type<T>())) != CUSPARSE_STATUS_SUCCESS) err = record_failure("cusparseCreateDnVec", st);
  if (err == cudaSuccess &&
      (st = cusparseSpMV_bufferSize(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat_, vx_, &zero, vy_, cusparse_value_type<T>(), alg_, &buffer_bytes_)) !=
        CUSPARSE_STATUS_SUCCESS)
    err = record_failure("cusparseSpMV_bufferSize", st);
  if (err == cudaSuccess && buffer_bytes_) {
    unsigned char *b = nullptr;
    err              = device_alloc(b, buffer_bytes_);
    buffer_          = b;
  }
  if (err == cudaSuccess) {
    st = cusparseSpMV_preprocess(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat_, vx_, &zero, vy_, cusparse_value_type<T>(), alg_, buffer_);
    if (st == CUSPARSE_STATUS_SUCCESS) preprocessed_ = true;
    else if (st != CUSPARSE_STATUS_NOT_SUPPORTED) err = record_failure("cusparseSpMV_preprocess", st);
  }
  const cudaError_t sync = cudaStreamSynchronize(s); // tx, ty are read on s
  if (err == cudaSuccess) err = sync;
  device_free(tx);
  device_free(ty);
  if (err != cudaSuccess) reset();
  return err;
}

template <typename T>
cudaError_t CusparseSpmv<T>::multiply(const T *x, T *y, bool accumulate, cudaStream_t s) const {
  if (!mat_) return cudaErrorInvalidValue; // no pattern built
  const T          one = T(1), beta = accumulate ? T(1) : T(0);
  cusparseStatus_t st;
  if ((st = cusparseSetStream(handle_, s)) != CUSPARSE_STATUS_SUCCESS) return record_failure("cusparseSetStream", st);
  // cuSPARSE only reads through the x descriptor (passed as a const descriptor to cusparseSpMV)
  if ((st = cusparseDnVecSetValues(vx_, const_cast<T *>(x))) != CUSPARSE_STATUS_SUCCESS) return record_failure("cusparseDnVecSetValues", st);
  if ((st = cusparseDnVecSetValues(vy_, y)) != CUSPARSE_STATUS_SUCCESS) return record_failure("cusparseDnVecSetValues", st);
  if ((st = cusparseSpMV(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat_, vx_, &beta, vy_, cusparse_value_type<T>(), alg_, buffer_)) !=
      CUSPARSE_STATUS_SUCCESS)
    return record_failure("cusparseSpMV", st);
  return cudaSuccess;
}

template <typename T>
cudaError_t CusparseSpmv<T>::multiply_add(const T *x, const T *z, T *y, std::int64_t m, cudaStream_t s) const {
  if (z && z != y) {
    const cudaError_t err = cudaMemcpyAsync(y, z, std::size_t(m) * sizeof(T), cudaMemcpyDeviceToDevice, s);
    if (err != cudaSuccess) return err;
  }
  return multiply(x, y, z != nullptr, s);
}

template <typename T>
void CusparseSpmv<T>::reset() {
  if (mat_) cusparseDestroySpMat(mat_);
  if (vx_) cusparseDestroyDnVec(vx_);
  if (vy_) cusparseDestroyDnVec(vy_);
  mat_ = nullptr;
  vx_ = vy_ = nullptr;
  if (buffer_) cudaFree(buffer_);
  buffer_       = nullptr;
  buffer_bytes_ = 0;
  preprocessed_ = false;
}

template <typename T>
void CusparseSpmv<T>::release() {
  reset();
  if (handle_) cusparseDestroy(handle_);
  handle_ = nullptr;
}

template class CusparseSpmv<double>;
template class CusparseSpmv<float>;

} // namespace cuda
} // namespace gpumat
