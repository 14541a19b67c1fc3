// Shared device primitives (primitives.cuh).
#include "primitives.cuh"
#include "common.cuh"

#include <cub/device/device_scan.cuh>

namespace gpumat {
namespace cuda {

namespace {

constexpr int kThreads = 256;

template <typename T, typename S>
__global__ void __launch_bounds__(kThreads) scatter_slots_kernel(std::int64_t n, const S *__restrict__ slot, const T *__restrict__ src,
                                                                 T *__restrict__ dst) {
  const std::int64_t k = (std::int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) dst[slot[k]] = src[k];
}

} // namespace

cudaError_t exclusive_sum(const index_t *in, index_t *out, std::int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  std::size_t bytes = 0;
  cudaError_t err   = cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, n, s);
  void       *tmp   = nullptr;
  if (err == cudaSuccess && (err = cudaMallocAsync(&tmp, bytes > 0 ? bytes : 1, s)) != cudaSuccess) {
    (void)cudaGetLastError(); // reported here, not again by a later call
    return err;
  }
  if (err == cudaSuccess) err = cub::DeviceScan::ExclusiveSum(tmp, bytes, in, out, n, s);
  if (tmp) {
    const cudaError_t fr = cudaFreeAsync(tmp, s); // stream-ordered: after the scan
    if (err == cudaSuccess) err = fr;
  }
  return err;
}

template <typename T, typename S>
cudaError_t scatter_slots(std::int64_t n, const S *slot, const T *src, T *dst, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  scatter_slots_kernel<T, S><<<grid_for(n, kThreads), kThreads, 0, s>>>(n, slot, src, dst);
  return launched();
}

template cudaError_t scatter_slots<double, index_t>(std::int64_t, const index_t *, const double *, double *, cudaStream_t);
template cudaError_t scatter_slots<float, index_t>(std::int64_t, const index_t *, const float *, float *, cudaStream_t);
template cudaError_t scatter_slots<double, unsigned>(std::int64_t, const unsigned *, const double *, double *, cudaStream_t);
template cudaError_t scatter_slots<float, unsigned>(std::int64_t, const unsigned *, const float *, float *, cudaStream_t);

} // namespace cuda
} // namespace gpumat
