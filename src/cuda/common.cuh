// CUDA primitives shared by every format's kernels and builders (PETSc-free): device allocation
// that reports out-of-memory to the caller, the launch check, the warp-cooperative binary search
// of a non-decreasing array, and the block-wide segmented scan (csrspec's speculative sum, bccoo's
// bit-flag segmented sum). Include from .cu files only.
#pragma once
#include "../core/csr.hpp"
#include <cuda_runtime.h>
#include <cstddef>

namespace gpumat {
namespace cuda {

constexpr int      kWarp = 32;
constexpr unsigned kFull = 0xffffffffu;

// n elements of T on the device (nothing for n == 0). On failure p is null, the error is returned
// (cudaErrorMemoryAllocation when the device is out of memory: the machinery turns it into
// PETSC_ERR_MEM) and cleared, so it is not reported again by an unrelated later call.
template <typename T>
cudaError_t device_alloc(T *&p, std::size_t n) {
  p = nullptr;
  if (n == 0) return cudaSuccess;
  const cudaError_t err = cudaMalloc(reinterpret_cast<void **>(&p), n * sizeof(T));
  if (err != cudaSuccess) {
    p = nullptr;
    (void)cudaGetLastError();
  }
  return err;
}

// Frees and nulls.
template <typename T>
void device_free(T *&p) {
  if (p) cudaFree(p);
  p = nullptr;
}

// The error of the last launch (configuration errors), without synchronizing.
inline cudaError_t launched() { return cudaGetLastError(); }

// Before a download's copies (cudaMemcpy, on the legacy default stream): the work queued on the
// caller's stream finished. The legacy stream does not wait for non-blocking streams, so a download
// right after an asynchronous refresh could read the values it replaced (seen on an H200:
// FormatDevice/bce_*.RefreshEqualsRebuild after a refresh from device memory).
inline cudaError_t settled() { return cudaDeviceSynchronize(); }

// Blocks of `threads` threads covering n items, at least one.
inline unsigned grid_for(long long n, int threads) { return unsigned(n > 0 ? (n + threads - 1) / threads : 1); }

// Rightmost index r in [lo, hi) with a[r] <= key, for a non-decreasing a with a[lo] <= key (the
// binary search of a row pointer for the row holding nonzero `key`), 32-ary: each step the warp
// probes 32 evenly spaced entries and keeps the interval after the last probe <= key. All 32
// lanes must call it with the same arguments.
__device__ __forceinline__ long long warp_rightmost_le(const index_t *__restrict__ a, long long lo, long long hi,
                                                        long long key) {
  const int lane = threadIdx.x & (kWarp - 1);
  while (hi - lo > kWarp) {
    const long long step = (hi - lo + kWarp - 1) / kWarp;
    const long long idx  = lo + lane * step;
    const unsigned m     = __ballot_sync(kFull, idx < hi && __ldg(a + idx) <= key);
    lo += (31 - __clz(m)) * step; // lane 0 probes a[lo] <= key: m != 0
    hi = min(hi, lo + step);
  }
  const long long idx = lo + lane;
  const unsigned m    = __ballot_sync(kFull, idx < hi && __ldg(a + idx) <= key);
  return lo + (31 - __clz(m));
}

// H sums carried together (the rows of a block row): a value type for Seg.
template <typename T, int H>
struct Vec {
  T a[H];
  __device__ __forceinline__ T       &operator[](int i) { return a[i]; }
  __device__ __forceinline__ const T &operator[](int i) const { return a[i]; }
};
template <typename T, int H>
__device__ __forceinline__ Vec<T, H> operator+(const Vec<T, H> &x, const Vec<T, H> &y) {
  Vec<T, H> r;
#pragma unroll
  for (int i = 0; i < H; ++i) r.a[i] = x.a[i] + y.a[i];
  return r;
}
template <typename T>
__device__ __forceinline__ T shfl_up(T v, int d) {
  return __shfl_up_sync(kFull, v, d);
}
template <typename T, int H>
__device__ __forceinline__ Vec<T, H> shfl_up(const Vec<T, H> &v, int d) {
  Vec<T, H> r;
#pragma unroll
  for (int i = 0; i < H; ++i) r.a[i] = __shfl_up_sync(kFull, v.a[i], d);
  return r;
}

// The partial sum carried by a segmented scan: k counts segment heads (or, with max_heads, carries
// 1 + the row of the last head, 0 for none); v is the sum since the last head (a scalar, or a Vec).
template <typename V>
struct Seg {
  int k;
  V   v;
};

template <typename V>
__device__ __forceinline__ Seg<V> seg_op(const Seg<V> &a, const Seg<V> &b, bool max_heads) {
  return {max_heads ? max(a.k, b.k) : a.k + b.k, b.k > 0 ? b.v : a.v + b.v};
}

// Block-wide exclusive segmented scan of e with the carried-in value init: warp shuffles, then the
// warp totals through shared memory (agg, one entry per warp). excl = init (+) e_0 .. e_{t-1},
// total = init (+) all. blockDim.x must be a multiple of 32. Contains one __syncthreads.
template <typename V>
__device__ __forceinline__ void block_seg_scan(Seg<V> e, const Seg<V> &init, bool max_heads, Seg<V> *agg, Seg<V> &excl,
                                               Seg<V> &total) {
  const int lane = threadIdx.x & (kWarp - 1), warp = threadIdx.x / kWarp, nwarps = blockDim.x / kWarp;
#pragma unroll
  for (int d = 1; d < kWarp; d <<= 1) {
    const Seg<V> o{__shfl_up_sync(kFull, e.k, d), shfl_up(e.v, d)};
    if (lane >= d) e = seg_op(o, e, max_heads);
  }
  if (lane == kWarp - 1) agg[warp] = e;
  __syncthreads();
  Seg<V> base = init, acc = init;
  for (int w = 0; w < nwarps; ++w) {
    if (w == warp) base = acc;
    acc = seg_op(acc, agg[w], max_heads);
  }
  total = acc;
  const Seg<V> up{__shfl_up_sync(kFull, e.k, 1), shfl_up(e.v, 1)};
  excl = lane == 0 ? base : seg_op(base, up, max_heads);
}

} // namespace cuda
} // namespace gpumat
