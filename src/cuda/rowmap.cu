// Row-list kernels of compressed rows (rowmap.cuh). Byte model per product: 4 B (row) + 8 B (w)
// read and 8 B of y read-modify-written per nonempty row (fp64); the gather reads 4 + 8 B and
// writes 8 B per row.
#include "rowmap.cuh"
#include "common.cuh"

namespace gpumat {
namespace cuda {

namespace {

constexpr int kThreads = 256;

template <typename T>
__global__ void __launch_bounds__(kThreads) scatter_add_kernel(index_t k, const index_t *__restrict__ rows,
                                                               const T *__restrict__ w, T *__restrict__ y) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < k) y[rows[i]] += w[i];
}

template <typename T>
__global__ void __launch_bounds__(kThreads) gather_kernel(index_t k, const index_t *__restrict__ rows,
                                                          const T *__restrict__ x, T *__restrict__ w) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < k) w[i] = x[rows[i]];
}

} // namespace

template <typename T>
cudaError_t init_output(T *y, const T *z, index_t n, cudaStream_t s) {
  if (z == y || n == 0) return cudaSuccess;
  const std::size_t bytes = std::size_t(n) * sizeof(T);
  return z ? cudaMemcpyAsync(y, z, bytes, cudaMemcpyDeviceToDevice, s) : cudaMemsetAsync(y, 0, bytes, s);
}

template <typename T>
cudaError_t RowMapDevice<T>::build(const index_t *rows, index_t k, cudaStream_t s) {
  release();
  cudaError_t err;
  if ((err = device_alloc(rows_, std::size_t(k))) != cudaSuccess || (err = device_alloc(work_, std::size_t(k))) != cudaSuccess) {
    release();
    return err;
  }
  k_ = k;
  if (k) err = cudaMemcpyAsync(rows_, rows, std::size_t(k) * sizeof(index_t), cudaMemcpyHostToDevice, s);
  if (err != cudaSuccess) release();
  return err;
}

template <typename T>
cudaError_t RowMapDevice<T>::scatter_add(const T *w, T *y, cudaStream_t s) const {
  if (k_ == 0) return cudaSuccess;
  scatter_add_kernel<T><<<grid_for(k_, kThreads), kThreads, 0, s>>>(k_, rows_, w, y);
  return launched();
}

template <typename T>
cudaError_t RowMapDevice<T>::gather(const T *x, T *w, cudaStream_t s) const {
  if (k_ == 0) return cudaSuccess;
  gather_kernel<T><<<grid_for(k_, kThreads), kThreads, 0, s>>>(k_, rows_, x, w);
  return launched();
}

template <typename T>
void RowMapDevice<T>::release() {
  device_free(rows_);
  device_free(work_);
  k_ = 0;
}

template cudaError_t init_output<double>(double *, const double *, index_t, cudaStream_t);
template cudaError_t init_output<float>(float *, const float *, index_t, cudaStream_t);
template class RowMapDevice<double>;
template class RowMapDevice<float>;

} // namespace cuda
} // namespace gpumat
