// pjds on the GPU, the builder's pieces shared by its units (pjds_build.cu: the layout, dictionary
// columns and the refresh; pjds_positional.cu: positional columns; pjds_values.cu: the value
// table): the launch sizes, and the value codes' kernels, which the value table's build and the
// refresh both launch. Included only by those three units. In an unnamed namespace, as each unit's
// own kernels: a unit compiles its own instance of what it uses, in its own module.
#pragma once
#include "pjds.cuh"

#include <cstdint>

namespace gpumat {
namespace cuda {

namespace {

constexpr int kThreads   = 256;
constexpr int kDictWarps = 8; // warps (blocks of the layout) per CUDA block of the dictionary and positional offsets' kernels
// The CUDA blocks of those kernels over n blocks of the layout and the one past them (a warp each:
// the last writes the counts' closing 0).
inline unsigned dict_warp_grid(long long n) { return unsigned((n + 1 + kDictWarps - 1) / kDictWarps); }

// A value's bit pattern (a float's zero-extended), the value table's key.
template <typename T>
__device__ __forceinline__ std::uint64_t value_bits(T v) {
  if constexpr (sizeof(T) == 8) return std::uint64_t(__double_as_longlong(v));
  else return std::uint64_t(__float_as_uint(v));
}

// vcode[k] = the position of val[k]'s bits in the table; *ok = 0 where one is not there.
template <typename T>
__global__ void __launch_bounds__(kThreads) pj_table_codes(const T *__restrict__ val, long long n, const T *__restrict__ table, int ntable, std::uint8_t *__restrict__ vcode, int *ok) {
  __shared__ std::uint64_t tb[kPjdsTableMax];
  for (int t = threadIdx.x; t < ntable; t += blockDim.x) tb[t] = value_bits(table[t]);
  __syncthreads();
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (long long)gridDim.x * blockDim.x) {
    const std::uint64_t b  = value_bits(val[k]);
    int                 lo = 0, hi = ntable - 1;
    while (lo < hi) {
      const int mid = (lo + hi) >> 1;
      if (tb[mid] < b) lo = mid + 1;
      else hi = mid;
    }
    if (tb[lo] == b) vcode[k] = std::uint8_t(lo);
    else *ok = 0;
  }
}

// vcode16[k] = the position of val[k]'s bits in the table (ntable entries ascending by bit
// pattern, read through the non-coherent path); *ok = 0 where one is not there.
template <typename T>
__global__ void __launch_bounds__(kThreads) pj_table_codes16(const T *__restrict__ val, long long n, const T *__restrict__ table, int ntable, std::uint16_t *__restrict__ vcode16,
                                                             int *ok) {
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (long long)gridDim.x * blockDim.x) {
    const std::uint64_t b  = value_bits(val[k]);
    int                 lo = 0, hi = ntable - 1;
    while (lo < hi) {
      const int mid = (lo + hi) >> 1;
      if (value_bits(__ldg(table + mid)) < b) lo = mid + 1;
      else hi = mid;
    }
    if (value_bits(__ldg(table + lo)) == b) vcode16[k] = std::uint16_t(lo);
    else *ok = 0;
  }
}

} // namespace

} // namespace cuda
} // namespace gpumat
