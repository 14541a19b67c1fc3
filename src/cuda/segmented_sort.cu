// sort_segments and sort_segment_keys (primitives.cuh): CUB's segmented sort in a CUDA module of its
// own, loaded only by the first build that sorts (a matrix with unsorted rows, pjds's positional
// columns).
#include "primitives.cuh"

#include <cub/device/device_segmented_sort.cuh>

namespace gpumat {
namespace cuda {

cudaError_t sort_segments(const index_t *keys_in, index_t *keys_out, const index_t *vals_in, index_t *vals_out, std::int64_t n, std::int64_t nseg,
                          const index_t *off, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  std::size_t bytes = 0;
  cudaError_t err   = cub::DeviceSegmentedSort::SortPairs(nullptr, bytes, keys_in, keys_out, vals_in, vals_out, n, nseg, off, off + 1, s);
  void       *tmp   = nullptr;
  if (err == cudaSuccess && (err = cudaMallocAsync(&tmp, bytes > 0 ? bytes : 1, s)) != cudaSuccess) {
    (void)cudaGetLastError();
    return err;
  }
  if (err == cudaSuccess) err = cub::DeviceSegmentedSort::SortPairs(tmp, bytes, keys_in, keys_out, vals_in, vals_out, n, nseg, off, off + 1, s);
  if (tmp) {
    const cudaError_t fr = cudaFreeAsync(tmp, s);
    if (err == cudaSuccess) err = fr;
  }
  return err;
}

cudaError_t sort_segment_keys(const index_t *keys_in, index_t *keys_out, std::int64_t n, std::int64_t nseg, const index_t *off, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  std::size_t bytes = 0;
  cudaError_t err   = cub::DeviceSegmentedSort::SortKeys(nullptr, bytes, keys_in, keys_out, n, nseg, off, off + 1, s);
  void       *tmp   = nullptr;
  if (err == cudaSuccess && (err = cudaMallocAsync(&tmp, bytes > 0 ? bytes : 1, s)) != cudaSuccess) {
    (void)cudaGetLastError();
    return err;
  }
  if (err == cudaSuccess) err = cub::DeviceSegmentedSort::SortKeys(tmp, bytes, keys_in, keys_out, n, nseg, off, off + 1, s);
  if (tmp) {
    const cudaError_t fr = cudaFreeAsync(tmp, s);
    if (err == cudaSuccess) err = fr;
  }
  return err;
}

} // namespace cuda
} // namespace gpumat
