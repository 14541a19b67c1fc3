// sort_pairs and sort_set_keys (primitives.cuh): CUB's radix sort in a CUDA module of its own,
// loaded only by the first build that sorts (pjds's rows by length, its distinct values for a table
// of 16-bit codes).
#include "primitives.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>

#include <algorithm>

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

namespace {
// Whether a hash set's slot holds a key (is not the empty mark).
struct Occupied {
  std::uint64_t empty;
  __host__ __device__ __forceinline__ bool operator()(const std::uint64_t &k) const { return k != empty; }
};
} // namespace

cudaError_t sort_set_keys(const std::uint64_t *slots, std::int64_t nslots, std::uint64_t empty, std::uint64_t *keys, std::uint64_t *sorted, int *count, std::int64_t n,
                          int end_bit, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  if (end_bit < 1) end_bit = 1;
  std::size_t select_bytes = 0, sort_bytes = 0;
  cudaError_t err = cub::DeviceSelect::If(nullptr, select_bytes, slots, keys, count, nslots, Occupied{empty}, s);
  if (err == cudaSuccess) err = cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, keys, sorted, n, 0, end_bit, s);
  const std::size_t bytes = std::max(select_bytes, sort_bytes);
  void             *tmp   = nullptr;
  if (err == cudaSuccess && (err = cudaMallocAsync(&tmp, bytes > 0 ? bytes : 1, s)) != cudaSuccess) {
    (void)cudaGetLastError();
    return err;
  }
  std::size_t b = select_bytes;
  if (err == cudaSuccess) err = cub::DeviceSelect::If(tmp, b, slots, keys, count, nslots, Occupied{empty}, s);
  b = sort_bytes;
  if (err == cudaSuccess) err = cub::DeviceRadixSort::SortKeys(tmp, b, keys, sorted, n, 0, end_bit, s);
  if (tmp) {
    const cudaError_t fr = cudaFreeAsync(tmp, s);
    if (err == cudaSuccess) err = fr;
  }
  return err;
}

} // namespace cuda
} // namespace gpumat
