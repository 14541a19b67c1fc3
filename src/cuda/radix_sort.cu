// sort_pairs (primitives.cuh): CUB's radix sort in a CUDA module of its own, loaded only by the
// first build that sorts (pjds's rows by length).
#include "primitives.cuh"

#include <cub/device/device_radix_sort.cuh>

namespace gpumat {
namespace cuda {

cudaError_t sort_pairs(const std::uint64_t *keys_in, std::uint64_t *keys_out, const index_t *vals_in, index_t *vals_out, std::int64_t n, int end_bit,
                       cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  if (end_bit < 1) end_bit = 1;
  std::size_t bytes = 0;
  cudaError_t err   = cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys_in, keys_out, vals_in, vals_out, n, 0, end_bit, s);
  void       *tmp   = nullptr;
  if (err == cudaSuccess && (err = cudaMallocAsync(&tmp, bytes > 0 ? bytes : 1, s)) != cudaSuccess) {
    (void)cudaGetLastError();
    return err;
  }
  if (err == cudaSuccess) err = cub::DeviceRadixSort::SortPairs(tmp, bytes, keys_in, keys_out, vals_in, vals_out, n, 0, end_bit, s);
  if (tmp) {
    const cudaError_t fr = cudaFreeAsync(tmp, s);
    if (err == cudaSuccess) err = fr;
  }
  return err;
}

} // namespace cuda
} // namespace gpumat
