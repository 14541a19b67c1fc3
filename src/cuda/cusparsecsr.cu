// cusparsecsr on the GPU (see cusparsecsr.cuh; the host side: src/core/cusparsecsr.hpp).
//
// Build: three host-to-device copies (row pointer, column indices, values) and cuSPARSE's CSR
// descriptor on them, no kernel of ours; the diagonal is the shared csr_diagonal (primitives.cuh).
// Byte model of a product (cuSPARSE's kernel, fp64): 12 B per nonzero, 4 B per row pointer, x
// gathered, y written once: the CSR byte model of the benchmark.
#include "cusparsecsr.cuh"
#include "common.cuh"
#include "primitives.cuh"
#include "rowmap.cuh"

namespace gpumat {
namespace cuda {

template <typename T>
cudaError_t CusparseCsrDevice<T>::build(const CsrView<T> &A, int alg, cudaStream_t s) {
  free_storage();
  spmv_.clear_failure();
  if (!csr_alg_valid(alg)) return cudaErrorInvalidValue;
  const index_t     nnz = A.nnz();
  const std::size_t nrp = A.nrows > 0 ? std::size_t(A.nrows) + 1 : 0;
  nrows_                = A.nrows;
  ncols_                = A.ncols;
  nnz_                  = nnz;
  alg_                  = alg;
  cudaError_t err       = cudaSuccess;
  auto        finish    = [&](cudaError_t e) {
    if (e == cudaSuccess) e = cudaStreamSynchronize(s); // the host arrays are read until then
    else (void)cudaStreamSynchronize(s);
    if (e != cudaSuccess) free_storage();
    return e;
  };
  if ((err = device_alloc(rowptr_, nrp)) != cudaSuccess || (err = device_alloc(colidx_, std::size_t(nnz))) != cudaSuccess ||
      (err = device_alloc(val_, std::size_t(nnz))) != cudaSuccess)
    return finish(err);
  if (nrp && (err = cudaMemcpyAsync(rowptr_, A.rowptr, nrp * sizeof(index_t), cudaMemcpyHostToDevice, s)) != cudaSuccess) return finish(err);
  if (nnz && (err = cudaMemcpyAsync(colidx_, A.colidx, std::size_t(nnz) * sizeof(index_t), cudaMemcpyHostToDevice, s)) != cudaSuccess) return finish(err);
  if (nnz && (err = cudaMemcpyAsync(val_, A.val, std::size_t(nnz) * sizeof(T), cudaMemcpyHostToDevice, s)) != cudaSuccess) return finish(err);
  if (nnz == 0) return finish(cudaSuccess); // products are y = z (or 0): no cuSPARSE matrix
  cusparseSpMatDescr_t   mat = nullptr;
  const cusparseStatus_t cst = cusparseCreateCsr(&mat, nrows_, ncols_, nnz, rowptr_, colidx_, val_, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                                 CUSPARSE_INDEX_BASE_ZERO, cusparse_value_type<T>());
  if (cst != CUSPARSE_STATUS_SUCCESS) return finish(spmv_.record_failure("cusparseCreateCsr", cst));
  return finish(spmv_.setup(mat, nrows_, ncols_, alg == 2 ? CUSPARSE_SPMV_CSR_ALG2 : CUSPARSE_SPMV_CSR_ALG1, s));
}

template <typename T>
cudaError_t CusparseCsrDevice<T>::refresh(const T *val, cudaStream_t s, Mem where) {
  if (nnz_ == 0) return cudaSuccess;
  return cudaMemcpyAsync(val_, val, std::size_t(nnz_) * sizeof(T), where == Mem::Device ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice, s);
}

template <typename T>
cudaError_t CusparseCsrDevice<T>::apply(Op op, const T *x, const T *z, T *y, cudaStream_t s) const {
  if (op == Op::Trans) return cudaErrorNotSupported;
  if (nrows_ == 0) return cudaSuccess;
  if (nnz_ == 0) return init_output(y, z, nrows_, s);
  return spmv_.multiply_add(x, z, y, nrows_, s);
}

template <typename T>
cudaError_t CusparseCsrDevice<T>::diagonal(const index_t *rowmap, T *d, cudaStream_t s) const {
  if (nrows_ == 0) return cudaSuccess;
  return csr_diagonal(rowptr_, colidx_, val_, rowmap, nrows_, d, s);
}

template <typename T>
cudaError_t CusparseCsrDevice<T>::download(std::vector<index_t> &rowptr, std::vector<index_t> &colidx, std::vector<T> &values) const {
  GPUMAT_CUDA_TRY(settled());
  rowptr.resize(rowptr_ ? std::size_t(nrows_) + 1 : 0);
  colidx.resize(std::size_t(nnz_));
  values.resize(std::size_t(nnz_));
  cudaError_t err = cudaSuccess;
  if (!rowptr.empty()) err = cudaMemcpy(rowptr.data(), rowptr_, rowptr.size() * sizeof(index_t), cudaMemcpyDeviceToHost);
  if (err == cudaSuccess && nnz_) err = cudaMemcpy(colidx.data(), colidx_, colidx.size() * sizeof(index_t), cudaMemcpyDeviceToHost);
  if (err == cudaSuccess && nnz_) err = cudaMemcpy(values.data(), val_, values.size() * sizeof(T), cudaMemcpyDeviceToHost);
  return err;
}

template <typename T>
std::size_t CusparseCsrDevice<T>::device_bytes() const {
  if (!rowptr_) return 0;
  return csr_bytes(nrows_, nnz_, sizeof(T)) + spmv_.buffer_bytes();
}

template <typename T>
void CusparseCsrDevice<T>::free_storage() {
  spmv_.reset(); // the descriptor points at the arrays below
  device_free(rowptr_);
  device_free(colidx_);
  device_free(val_);
  nrows_ = ncols_ = nnz_ = 0;
  alg_                   = 0;
}

template <typename T>
void CusparseCsrDevice<T>::release() {
  free_storage();
  spmv_.release();
}

template class CusparseCsrDevice<double>;
template class CusparseCsrDevice<float>;

} // namespace cuda
} // namespace gpumat
