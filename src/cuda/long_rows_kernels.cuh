// Device side of the long part (long_rows.cuh), included by the kernels of the formats that have
// one (pjds.cu, bce.cu): a product's first blocks call long_chunks, the transpose's long_chunk_t,
// the diagonal's long_chunk_diag.
#pragma once
#include "long_rows.cuh"

namespace gpumat {
namespace cuda {

template <typename T>
struct LongArgs {
  const index_t *rows, *col, *chunk_first, *chunk_row, *chunk_beg;
  const T       *val;
  T             *partial;
  unsigned      *arrived;
  long long      nchunks;
  long long      blocks; // the launch's first `blocks` blocks take the chunks
  int            lanes;  // lanes per chunk
};

template <typename T>
template <class Args>
Args LongRowsDevice<T>::args(const T *vals, int lanes, int threads) const {
  if (lanes == 0) lanes = shape_.lanes ? shape_.lanes : 32;
  return Args{rows_, col_, chunk_first_, chunk_row_, chunk_beg_, vals, partial_, arrived_, nchunks_, (nchunks_ * lanes + threads - 1) / threads, lanes};
}

// The sum over a group of `lanes` lanes (a power of two dividing 32), on every lane of the group,
// added in the same order on every run; every lane of the warp takes part.
template <typename T>
__device__ __forceinline__ T group_sum(T v, int lanes) {
  for (int o = lanes >> 1; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// The entries [q0, q1) that chunk c covers, its row k and the row's chunks [first, first + cnt).
struct ChunkSpan {
  index_t   k, first, cnt;
  long long q0, q1;
};
template <typename T>
__device__ __forceinline__ ChunkSpan chunk_span(const LongArgs<T> &a, long long c) {
  ChunkSpan h;
  h.k     = a.chunk_row[c];
  h.first = a.chunk_first[h.k];
  h.cnt   = a.chunk_first[h.k + 1] - h.first;
  h.q0    = a.chunk_beg[c]; // not through the row: the entries' loads wait for one round trip
  h.q1    = a.chunk_beg[c + 1];
  return h;
}

// y = z + A x for the long rows, every lane of the launch's first a.blocks blocks calling it: the
// group of a.lanes lanes of chunk c = (block x threads + thread) / lanes loads kLongLoads entries
// per lane at once (predicated), a pass at a time, the matrix streamed past the caches, and sums
// by shuffles; the sum into y (a one-chunk row), or into partial[c], the row's last-arriving group
// adding the partials in chunk order (deterministic; no second kernel).
template <typename T>
__device__ __forceinline__ void long_chunks(const LongArgs<T> &a, const T *__restrict__ x, const T *z, T *y) {
  const int       G = a.lanes, lane = threadIdx.x & 31, sub = lane & (G - 1);
  const long long c   = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / G;
  const bool      own = c < a.nchunks, lead = own && sub == 0;
  ChunkSpan       h{0, 0, 0, 0, 0};
  if (own) h = chunk_span(a, c);
  const index_t r = lead ? a.rows[h.k] : 0; // in flight with the entries
  T             s0 = T(0), s1 = T(0);
  for (long long q0 = h.q0 + sub; q0 < h.q1; q0 += (long long)G * kLongLoads) {
    index_t cc[kLongLoads];
    T       v[kLongLoads];
#pragma unroll
    for (int u = 0; u < kLongLoads; ++u) {
      const long long q  = q0 + (long long)u * G;
      const bool      ok = q < h.q1;
      cc[u]              = ok ? __ldcs(a.col + q) : 0;
      v[u]               = ok ? __ldcs(a.val + q) : T(0);
    }
#pragma unroll
    for (int u = 0; u < kLongLoads; ++u)
      if (q0 + (long long)u * G < h.q1) (u & 1 ? s1 : s0) += v[u] * __ldg(x + cc[u]);
  }
  const T  s    = group_sum(s0 + s1, G);
  unsigned last = 0;
  if (lead) {
    if (h.cnt == 1) y[r] = z ? z[r] + s : s;
    else {
      __stcg(a.partial + c, s);
      __threadfence(); // the partial before the arrival
      last = atomicAdd(a.arrived + h.k, 1u) == unsigned(h.cnt - 1);
    }
  }
  last = __shfl_sync(0xffffffffu, last, lane & ~(G - 1)); // the group's leader's
  if (!__any_sync(0xffffffffu, last)) return;
  if (last) __threadfence(); // the other chunks' partials after their arrivals
  T             t0 = T(0), t1 = T(0);
  const index_t m  = last ? h.cnt : 0;
  index_t       q  = sub;
  for (; q + G < m; q += 2 * G) t0 += __ldcg(a.partial + h.first + q), t1 += __ldcg(a.partial + h.first + q + G);
  if (q < m) t0 += __ldcg(a.partial + h.first + q);
  const T t = group_sum(t0 + t1, G);
  if (lead && last) {
    y[r]           = z ? z[r] + t : t;
    a.arrived[h.k] = 0; // ready for the next product (kernels on the stream do not overlap)
  }
}

// y += A^T x for the long rows (args with lanes 32: a warp per chunk), atomics.
template <typename T>
__device__ __forceinline__ void long_chunk_t(const LongArgs<T> &a, const T *__restrict__ x, T *__restrict__ y) {
  const long long c = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (c >= a.nchunks) return;
  const ChunkSpan h  = chunk_span(a, c);
  const T         xr = x[a.rows[h.k]];
  for (long long q = h.q0 + (threadIdx.x & 31); q < h.q1; q += 32) atomicAdd(y + a.col[q], a.val[q] * xr);
}

// The long rows' diagonal entries (args with lanes 32; d preset to 0 by zero_diagonal).
template <typename T>
__device__ __forceinline__ void long_chunk_diag(const LongArgs<T> &a, const index_t *__restrict__ rowmap, T *__restrict__ d) {
  const long long c = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (c >= a.nchunks) return;
  const ChunkSpan h = chunk_span(a, c);
  const index_t   r = a.rows[h.k], cr = rowmap ? rowmap[r] : r;
  for (long long q = h.q0 + (threadIdx.x & 31); q < h.q1; q += 32)
    if (a.col[q] == cr) d[cr] = a.val[q];
}

} // namespace cuda
} // namespace gpumat
