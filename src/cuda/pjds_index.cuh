// Position arithmetic of the pJDS part on the device, shared by the product kernels (pjds.cu) and
// the benchmark's floors (bench/floors_rowgrouped.cu): in 32 bits (rows and padded entries stay below
// 2^31) and by shifts for the default b_r = 32, where 64-bit divisions cost about 0.05 ms a product
// on 20M rows (measured on the H100: lap2d_4500 0.685 ms with two per thread).
#pragma once
#include <cuda_runtime.h>

namespace gpumat {
namespace cuda {

struct PjdsPos {
  unsigned b;    // block of the position
  unsigned lane; // its row within the block
  unsigned rows; // rows of the block (b_r, fewer in the last)
};

__device__ __forceinline__ PjdsPos pjds_pos(unsigned i, unsigned br, unsigned npj) {
  const unsigned b = br == 32 ? i >> 5 : i / br;
  return {b, i - b * br, min(br, npj - b * br)};
}

// Entries per row of a block of `size` stored entries and `rows` rows.
__device__ __forceinline__ unsigned pjds_width(long long size, unsigned rows) { return rows == 32 ? unsigned(size) >> 5 : unsigned(size) / rows; }

} // namespace cuda
} // namespace gpumat
