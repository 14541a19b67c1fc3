// bccoo's product kernels (yaSpMV's one-kernel product, Yan et al. 2014 section 3; the algorithm is
// described at the top of bccoo.cu) and their launchers. Included only by the units that
// instantiate them: bccoo_h1.cu .. bccoo_h4.cu (the products, transposes and diagonals of one block
// height) and bccoo_stages.cu (the ablation's steps); bccoo.cu sees the declarations of
// bccoo_launch.cuh.
#pragma once
#include "bccoo_launch.cuh"
#include "common.cuh"

namespace gpumat {
namespace cuda {
namespace bccoo_kernels {

// blocks decoded per step by one thread: all their loads in flight, registers bounded
template <int H, int W>
constexpr int chunk() {
  return H * W <= 2 ? 8 : (H * W <= 4 ? 4 : 2);
}

// U blocks of one thread: values, columns, x. j0: the first block's index in the tile.
template <typename T, int H, int W, bool COMP, int U>
struct Chunk {
  T       v[U][H][W];
  T       xv[U][W];
  index_t c[U];

  __device__ __forceinline__ void load(const SpmvArgs<T> &a, long long base, int G, int j0, index_t &c_run, index_t &e) {
    std::int16_t d[U];
    index_t      cc[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const long long p = base + (long long)(j0 + u) * G;
      if (COMP) d[u] = __ldcs(a.dcol + p);
      else cc[u] = __ldcs(a.col + p);
#pragma unroll
      for (int i = 0; i < H; ++i) {
        const T *src = a.val + i * a.plane + p * W;
        if constexpr (W == 2 && sizeof(T) == 8) {
          const double2 t = __ldcs(reinterpret_cast<const double2 *>(src));
          v[u][i][0] = t.x, v[u][i][1] = t.y;
        } else if constexpr (W == 4 && sizeof(T) == 8) {
          const double2 t0 = __ldcs(reinterpret_cast<const double2 *>(src)), t1 = __ldcs(reinterpret_cast<const double2 *>(src) + 1);
          v[u][i][0] = t0.x, v[u][i][1] = t0.y, v[u][i][2] = t1.x, v[u][i][3] = t1.y;
        } else if constexpr (W == 2 && sizeof(T) == 4) {
          const float2 t = __ldcs(reinterpret_cast<const float2 *>(src));
          v[u][i][0] = t.x, v[u][i][1] = t.y;
        } else if constexpr (W == 4 && sizeof(T) == 4) {
          const float4 t = __ldcs(reinterpret_cast<const float4 *>(src));
          v[u][i][0] = t.x, v[u][i][1] = t.y, v[u][i][2] = t.z, v[u][i][3] = t.w;
        } else {
#pragma unroll
          for (int j = 0; j < W; ++j) v[u][i][j] = __ldcs(src + j);
        }
      }
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if (COMP) c_run = d[u] == kEscape ? __ldg(a.escape + e++) : c_run + d[u];
      else c_run = cc[u];
      c[u] = c_run;
    }
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
      for (int j = 0; j < W; ++j) {
        const long long xc = (long long)c[u] * W + j;
        xv[u][j]           = (W == 1 || xc < a.ncols) ? __ldg(a.x + xc) : T(0);
      }
  }
};

template <typename T>
__device__ __forceinline__ void store_sum(const SpmvArgs<T> &a, long long seg, int H, int i, T s) {
  if (a.slices > 1) {
    a.part[seg * H + i] = s;
    return;
  }
  const long long r = seg * H + i; // one slice: segment = block row
  if (r < a.nrows) a.y[r] = a.z ? a.z[r] + s : s;
}

// SYNC and SKIP: the production product (true, true) or a step of the ablation (BccooStage,
// bccoo.cuh): SKIP = false runs the group scan even where no_scan says it can be skipped;
// SYNC = false takes the group id from blockIdx.x (nothing waits, so no ticket), publishes the
// group's carry-out in grp_val without waiting for its predecessor, and leaves the carries across
// groups to bccoo_group_carry. Compile-time flags: the production instantiation is the code it
// was before them.
template <typename T, int H, int W, bool COMP, bool SYNC = true, bool SKIP = true>
__global__ void __launch_bounds__(512) bccoo_spmv(SpmvArgs<T> a) {
  using V                 = Vec<T, H>;
  constexpr int U         = chunk<H, W>();
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ unsigned s_group;
  __shared__ V        s_carry;
  const int           tid = threadIdx.x, G = blockDim.x;
  if (SYNC && tid == 0) s_group = atomicAdd(a.ticket, 1u);
  if (SYNC) __syncthreads();
  const long long g      = SYNC ? (long long)s_group : (long long)blockIdx.x;
  const long long t      = g * G + tid;
  const index_t   fs     = a.first_segment[t];
  const index_t   seg_lo = a.first_segment[g * G];
  Seg<V>         *agg    = reinterpret_cast<Seg<V> *>(smem);                 // scan: warp totals
  V              *tails  = reinterpret_cast<V *>(smem);                      // no_scan: the threads' partial sums
  T              *cache  = reinterpret_cast<T *>(smem + (std::size_t)G * sizeof(V) + 32 * sizeof(Seg<V>));

  auto emit = [&](long long seg, const V &s) {
    const long long q = seg - seg_lo;
    if (q < a.cache) {
#pragma unroll
      for (int i = 0; i < H; ++i) cache[q * H + i] = s[i];
    } else {
#pragma unroll
      for (int i = 0; i < H; ++i) store_sum(a, seg, H, i, s[i]);
    }
  };

  // 2. the thread tile: sequential segmented sum
  V acc, head;
#pragma unroll
  for (int i = 0; i < H; ++i) acc[i] = head[i] = T(0);
  int                  nstop = 0;
  index_t              c_run = COMP ? bccoo_tile_base(fs, a.nbrows, H, W, a.nbcols) : 0, e = COMP ? a.escape_start[t] : 0;
  const long long      base  = g * G * (long long)a.T_ + tid;
  const unsigned char *fl    = a.flags + t * (a.T_ / 8);
  for (int j0 = 0; j0 < a.T_; j0 += U) {
    const unsigned           fb = (unsigned)__ldg(fl + (j0 >> 3)) >> (j0 & 7);
    Chunk<T, H, W, COMP, U> ch;
    ch.load(a, base, G, j0, c_run, e);
#pragma unroll
    for (int u = 0; u < U; ++u) {
#pragma unroll
      for (int i = 0; i < H; ++i)
#pragma unroll
        for (int j = 0; j < W; ++j) acc[i] += ch.v[u][i][j] * ch.xv[u][j];
      if (!((fb >> u) & 1u)) { // row stop
        if (nstop == 0) head = acc;
        else emit((long long)fs + nstop, acc);
        ++nstop;
#pragma unroll
        for (int i = 0; i < H; ++i) acc[i] = T(0);
      }
    }
  }

  // 3. the group's segmented scan of the threads' last partial sums
  V zero;
#pragma unroll
  for (int i = 0; i < H; ++i) zero[i] = T(0);
  Seg<V> excl, total;
  if (SKIP && a.no_scan[g]) {
    tails[tid] = acc;
    __syncthreads();
    excl  = tid ? Seg<V>{1, tails[tid - 1]} : Seg<V>{0, zero};
    total = Seg<V>{G, tails[G - 1]};
  } else block_seg_scan(Seg<V>{nstop > 0, acc}, Seg<V>{0, zero}, false, agg, excl, total);

  // 4. adjacent synchronization
  if (!SYNC && tid == 0) { // the carry-out for bccoo_group_carry, nothing awaited
#pragma unroll
    for (int i = 0; i < H; ++i) a.grp_val[g * H + i] = total.v[i];
  }
  if (SYNC && tid == 0) {
    auto publish = [&](const V &v) {
      volatile T *gv = a.grp_val + g * H;
#pragma unroll
      for (int i = 0; i < H; ++i) gv[i] = v[i];
      __threadfence();
      atomicExch(a.grp_status + g, a.epoch);
    };
    V carry = zero;
    if (total.k > 0 || g == 0) publish(total.v);
    if (g > 0) {
      const volatile unsigned *st = a.grp_status + g - 1;
      while (*st != a.epoch) {
      }
      __threadfence();
      const volatile T *gv = a.grp_val + (g - 1) * H;
#pragma unroll
      for (int i = 0; i < H; ++i) carry[i] = gv[i];
      if (total.k == 0) publish(carry + total.v);
    }
    s_carry = carry;
  }
  __syncthreads();

  // 5. the first stop of each thread, then the result cache to y
  if (nstop > 0) emit(fs, SYNC && excl.k == 0 ? head + excl.v + s_carry : head + excl.v);
  __syncthreads();
  const long long seg_hi = a.first_segment[min((g + 1) * G, a.ntiles)];
  const long long n      = min(seg_hi - seg_lo, (long long)a.cache) * H;
  for (long long q = tid; q < n; q += G) store_sum(a, seg_lo + q / H, H, int(q % H), cache[q]);
  if (SYNC && tid == 0 && atomicAdd(a.ticket + 1, 1u) == unsigned(a.ngroups - 1)) { // the last group resets the tickets
    a.ticket[0] = 0;
    a.ticket[1] = 0;
  }
}

// The separate_carry step of the ablation: the carries across work groups by a second kernel
// instead of the adjacent synchronization. One thread per group g that holds a row stop: its first
// stop ended segment first_segment[g G] without the partial sums of the groups before it, which
// are the carry-outs (grp_val) of the groups back to the previous one with a row stop (or group
// 0), added in the order the adjacent synchronization chains them (earliest first). Each group
// walks back alone: a row spanning k groups costs its ending group k loads; O(groups) in all.
template <typename T, int H>
__global__ void bccoo_group_carry(SpmvArgs<T> a, int G) {
  const long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (g == 0 || g >= a.ngroups) return;
  const long long seg = a.first_segment[g * G];
  if (a.first_segment[(g + 1) * G] == seg) return; // no row stop: g's sum is carried on
  long long d = g - 1;
  while (d > 0 && a.first_segment[d * G] == a.first_segment[(d + 1) * G]) --d;
  T c[H];
#pragma unroll
  for (int i = 0; i < H; ++i) c[i] = a.grp_val[d * H + i];
  for (long long e = d + 1; e < g; ++e)
#pragma unroll
    for (int i = 0; i < H; ++i) c[i] += a.grp_val[e * H + i];
#pragma unroll
  for (int i = 0; i < H; ++i) {
    const long long r = seg * H + i; // slices: the segment's partial sums; one slice: segment = block row
    if (a.slices > 1) a.part[r] += c[i];
    else if (r < a.nrows) a.y[r] += c[i];
  }
}

// A walk of one thread tile in block order: f(seg, c, v) for each block (c: block column, v: its
// values), the segment advancing at row stops, up to the last segment (the padding blocks after it
// belong to no row). For the transpose and the diagonal.
template <typename T, int H, int W, bool COMP, typename F>
__device__ __forceinline__ void walk_tile(const SpmvArgs<T> &a, long long t, F &&f) {
  const int       G = blockDim.x;
  const long long g = t / G, base = g * G * (long long)a.T_ + (t - g * G);
  long long       seg   = a.first_segment[t];
  index_t         c_run = COMP ? bccoo_tile_base(seg, a.nbrows, H, W, a.nbcols) : 0, e = COMP ? a.escape_start[t] : 0;
  for (int j = 0; j < a.T_ && seg < a.nsegments; ++j) {
    const long long p = base + (long long)j * G;
    if (COMP) {
      const std::int16_t d = a.dcol[p];
      c_run                = d == kEscape ? a.escape[e++] : c_run + d;
    } else c_run = a.col[p];
    T v[H][W];
#pragma unroll
    for (int i = 0; i < H; ++i)
#pragma unroll
      for (int k = 0; k < W; ++k) v[i][k] = a.val[i * a.plane + p * W + k];
    f(seg, c_run, v);
    if (!((a.flags[(t * a.T_ + j) >> 3] >> ((t * a.T_ + j) & 7)) & 1u)) ++seg;
  }
}

template <typename T, int H, int W, bool COMP>
__global__ void bccoo_trans(SpmvArgs<T> a) {
  const long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  walk_tile<T, H, W, COMP>(a, t, [&](long long seg, index_t c, const T(&v)[H][W]) {
    const long long br = seg % a.nbrows;
    T               xr[H];
#pragma unroll
    for (int i = 0; i < H; ++i) xr[i] = br * H + i < a.nrows ? __ldg(a.x + br * H + i) : T(0);
#pragma unroll
    for (int k = 0; k < W; ++k) {
      const long long col = (long long)c * W + k;
      T               s   = T(0);
#pragma unroll
      for (int i = 0; i < H; ++i) s += v[i][k] * xr[i];
      if (col < a.ncols && s != T(0)) atomicAdd(a.y + col, s);
    }
  });
}

template <typename T, int H, int W, bool COMP>
__global__ void bccoo_diag(SpmvArgs<T> a) {
  const long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  walk_tile<T, H, W, COMP>(a, t, [&](long long seg, index_t c, const T(&v)[H][W]) {
    const long long br = seg % a.nbrows;
#pragma unroll
    for (int i = 0; i < H; ++i) {
      const long long r = br * H + i;
      if (r >= a.nrows) continue;
      const long long target = a.rowmap ? a.rowmap[r] : r;
      const long long k      = target - (long long)c * W;
      if (k >= 0 && k < W) a.y[target] = v[i][k];
    }
  });
}

template <typename T, int H, int W>
cudaError_t launch_hw(int kind, bool comp, dim3 grid, dim3 block, std::size_t smem, cudaStream_t s, const SpmvArgs<T> &a) {
  switch (kind) {
  case kSpmv:
    if (comp) bccoo_spmv<T, H, W, true><<<grid, block, smem, s>>>(a);
    else bccoo_spmv<T, H, W, false><<<grid, block, smem, s>>>(a);
    break;
  case kTrans:
    if (comp) bccoo_trans<T, H, W, true><<<grid, block, 0, s>>>(a);
    else bccoo_trans<T, H, W, false><<<grid, block, 0, s>>>(a);
    break;
  case kDiag:
    if (comp) bccoo_diag<T, H, W, true><<<grid, block, 0, s>>>(a);
    else bccoo_diag<T, H, W, false><<<grid, block, 0, s>>>(a);
    break;
  default: return cudaErrorInvalidValue;
  }
  return launched();
}

template <typename T, int H, int W>
cudaError_t launch_stage_hw(int kind, bool comp, dim3 grid, dim3 block, std::size_t smem, cudaStream_t s, const SpmvArgs<T> &a) {
  switch (kind) {
  case kSpmvNoSkip:
    if (comp) bccoo_spmv<T, H, W, true, true, false><<<grid, block, smem, s>>>(a);
    else bccoo_spmv<T, H, W, false, true, false><<<grid, block, smem, s>>>(a);
    break;
  case kSpmvSeparateCarry:
    if (comp) bccoo_spmv<T, H, W, true, false, false><<<grid, block, smem, s>>>(a);
    else bccoo_spmv<T, H, W, false, false, false><<<grid, block, smem, s>>>(a);
    break;
  default: return cudaErrorInvalidValue;
  }
  return launched();
}

template <typename T, int H>
cudaError_t launch_h(int w, int kind, bool comp, dim3 grid, dim3 block, std::size_t smem, cudaStream_t s, const SpmvArgs<T> &a) {
  switch (w) {
  case 1: return launch_hw<T, H, 1>(kind, comp, grid, block, smem, s, a);
  case 2: return launch_hw<T, H, 2>(kind, comp, grid, block, smem, s, a);
  default: return launch_hw<T, H, 4>(kind, comp, grid, block, smem, s, a);
  }
}

template <typename T, int H>
cudaError_t launch_stage_h(int w, int kind, bool comp, dim3 grid, dim3 block, std::size_t smem, cudaStream_t s, const SpmvArgs<T> &a) {
  switch (w) {
  case 1: return launch_stage_hw<T, H, 1>(kind, comp, grid, block, smem, s, a);
  case 2: return launch_stage_hw<T, H, 2>(kind, comp, grid, block, smem, s, a);
  default: return launch_stage_hw<T, H, 4>(kind, comp, grid, block, smem, s, a);
  }
}

template <typename T, int H>
cudaError_t launch_group_carry(unsigned grid, int threads, cudaStream_t s, const SpmvArgs<T> &a, int G) {
  bccoo_group_carry<T, H><<<grid, threads, 0, s>>>(a, G);
  return launched();
}

} // namespace bccoo_kernels
} // namespace cuda
} // namespace gpumat

// The launchers of one block height H for both scalars (in bccoo_h<H>.cu).
#define GPUMAT_BCCOO_INSTANTIATE_HEIGHT(H)                                                                                                      \
  namespace gpumat {                                                                                                                            \
  namespace cuda {                                                                                                                              \
  namespace bccoo_kernels {                                                                                                                     \
  template cudaError_t launch_h<double, H>(int, int, bool, dim3, dim3, std::size_t, cudaStream_t, const SpmvArgs<double> &);                     \
  template cudaError_t launch_h<float, H>(int, int, bool, dim3, dim3, std::size_t, cudaStream_t, const SpmvArgs<float> &);                       \
  }                                                                                                                                             \
  }                                                                                                                                             \
  }
