// Host-callable device primitives shared by the formats' builders and refreshes (PETSc-free;
// included by host C++ through the formats' headers, needs only cuda_runtime.h). The device-side
// building blocks (warp search, block segmented scan) are in common.cuh; y = z or 0 for the
// products is init_output in rowmap.cuh.
#pragma once
#include "../core/csr.hpp"
#include <cuda_runtime.h>
#include <cstdint>

namespace gpumat {
namespace cuda {

// out[i] = in[0] + ... + in[i-1], i < n (device arrays; CUB's DeviceScan, its temporary storage
// stream-ordered on s; out may not alias in). Asynchronous. Out of memory: cudaErrorMemoryAllocation.
cudaError_t exclusive_sum(const index_t *in, index_t *out, std::int64_t n, cudaStream_t s);

// dst[slot[k]] = src[k], k < n (the value of CSR entry k into the format's position); S is the
// slot type (index_t, or unsigned where a format's value array may exceed 2^31 entries).
template <typename T, typename S>
cudaError_t scatter_slots(std::int64_t n, const S *slot, const T *src, T *dst, cudaStream_t s);

} // namespace cuda
} // namespace gpumat
