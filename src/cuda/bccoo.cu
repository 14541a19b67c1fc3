// bccoo on the GPU: the builder (CSR in, the arrays of src/core/bccoo.hpp out, with CUB for the
// sort and the scans) and the products of yaSpMV (Yan et al. 2014, section 3).
//
// y = A x (+ z): one kernel, bccoo_spmv, one work group of G threads per work-group tile of G x T
// blocks, one thread per thread tile of T blocks:
//   1. the group's id from a launch-order ticket (an atomic counter that the last group to finish
//      resets), so that a group only ever waits for a group that is already running;
//   2. each thread reads its T blocks (offline-transposed: the G threads read consecutive
//      addresses), U at a time with all their loads in flight: the T flag bits, the 16-bit
//      column differences (decompressed in sequence from the tile's base, bccoo_tile_base;
//      escapes from the escape array), h planes of
//      w values, and gathers x; a sequential segmented sum over the tile with the row stops
//      ending segments. The m-th stop of a thread ends segment first_segment[t] + m; from the
//      second stop on, the sum is complete and goes to the group's result cache (strategy 2 of
//      the paper: shared memory, stored to y coalesced at the end) or, past the cache, to y;
//   3. the threads' last partial sums are scanned across the group (a block-wide segmented scan
//      carrying h sums; skipped when every thread tile holds a row stop, no_scan: the previous
//      thread's partial sum is then all there is);
//   4. adjacent synchronization (section 3.2.4): the group's carry-out is published in grp_val
//      with the launch's epoch in grp_status. A group with a row stop publishes at once; a group
//      without one waits for its predecessor and publishes predecessor + own sum. The first stop
//      of the group adds the predecessor's carry. No second kernel, no global barrier;
//   5. the first stop of each thread completes its segment (+ the scan's carry), then the result
//      cache is written to y (or, with slices, to the per-slice partial sums).
// BCCOO+ (slices > 1): bccoo_combine adds the slices' partial sums (and z) into y, the paper's
// combine step.
// y = A^T x (+ z): y = z (or 0), then bccoo_trans walks the same tiles and adds each block's
// contribution to y atomically.
//
// Byte model of y = A x (fp64, DRAM, per product): blocks x (h w 8 B of values + 2 B of column
// difference (4 B uncompressed) + 1/8 B of flag) + 4 B per escape + 4 B per thread tile (first
// segment; escape start when compressed) + 1 B per group + x (w values per block; once per
// distinct column from L2) + y once (slices: + 2 x 8 B per row and slice for the partial sums).
#include "bccoo.cuh"
#include "common.cuh"
#include "primitives.cuh"
#include "rowmap.cuh"

#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <climits>
#include <vector>

namespace gpumat {
namespace cuda {

namespace {

constexpr int          kThreads      = 256;
constexpr std::int16_t kEscape       = -32768;
constexpr int          kCacheBytes   = 24 * 1024; // result cache per group: 8 groups of 256 fit an SM

// ---------------------------------------------------------------------------------------------
// Temporaries of the build: stream-ordered allocations, freed at the end of the build.
struct Tmp {
  cudaStream_t       s;
  std::vector<void *> ptrs;
  cudaError_t        err = cudaSuccess;
  template <typename U>
  U *get(std::size_t n) {
    if (err != cudaSuccess) return nullptr;
    void *p = nullptr;
    if (n == 0) n = 1;
    err = cudaMallocAsync(&p, n * sizeof(U), s);
    if (err != cudaSuccess) {
      (void)cudaGetLastError();
      return nullptr;
    }
    ptrs.push_back(p);
    return static_cast<U *>(p);
  }
  ~Tmp() {
    for (void *p : ptrs) cudaFreeAsync(p, s);
  }
};

#define BCCOO_TRY(call)                     \
  do {                                      \
    const cudaError_t e_ = (call);          \
    if (e_ != cudaSuccess) return e_;       \
  } while (0)

// ---------------------------------------------------------------------------------------------
// Builder kernels. Positions i index the nonzeros in block order: within a block row (the CSR
// range of its h rows) sorted by column; order[i] is the CSR entry at position i (identity when
// h == 1 and the columns are sorted).
struct BuildGeo {
  index_t nrows, ncols, nbrows, nbcols, slice_bcols;
  int     h, w, T, G, slices;
  long long nnz, nsegments;
};

// unsorted = 1 when some row has a column after a larger one
__global__ void check_sorted(const index_t *__restrict__ row, const index_t *__restrict__ col, long long nnz, int *unsorted) {
  const long long q = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (q + 1 < nnz && row[q] == row[q + 1] && col[q] > col[q + 1]) *unsorted = 1;
}

__global__ void block_row_offsets(const index_t *__restrict__ rowptr, BuildGeo g, index_t *__restrict__ off) {
  const long long b = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (b <= g.nbrows) off[b] = rowptr[min((long long)g.nrows, b * g.h)];
}

// The positions of the block rows when their h rows are sorted: the rows merged by column (a
// column present in several rows: the upper row first). One thread per CSR entry q: its position is
// the start of its block row + its rank in its own row + the entries of the block row's other rows
// before it (a binary search in each). O(nnz (h - 1) log(row length)), no sort.
__global__ void merge_block_rows(const index_t *__restrict__ rowptr, const index_t *__restrict__ row, const index_t *__restrict__ col, BuildGeo g,
                                 index_t *__restrict__ order, index_t *__restrict__ scol) {
  const long long q = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (q >= g.nnz) return;
  const index_t r = row[q], c = col[q], r0 = r - r % g.h, r1 = min(g.nrows, r0 + g.h);
  long long     pos = (long long)rowptr[r0] + (q - rowptr[r]);
  for (index_t o = r0; o < r1; ++o) {
    if (o == r) continue;
    const index_t key = o < r ? c + 1 : c; // entries of row o before (r, c): columns < key
    index_t       lo = rowptr[o], hi = rowptr[o + 1];
    const index_t start = lo;
    while (lo < hi) {
      const index_t mid = lo + (hi - lo) / 2;
      if (col[mid] < key) lo = mid + 1;
      else hi = mid;
    }
    pos += lo - start;
  }
  order[pos] = index_t(q);
  scol[pos]  = c;
}

__global__ void fill_iota(index_t *__restrict__ a, long long n) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) a[i] = index_t(i);
}

struct PosInfo {
  index_t br, bc;
  int     s;
};
__device__ __forceinline__ PosInfo pos_info(const BuildGeo &g, const index_t *row, const index_t *scol, long long i) {
  PosInfo p;
  p.br = row[i] / g.h; // the block row of position i is the one of CSR entry i (same ranges)
  p.bc = scol[i] / g.w;
  p.s  = int(p.bc / g.slice_bcols);
  return p;
}

// head[i] = 1 when position i starts a block; count[seg] += heads
__global__ void mark_heads(BuildGeo g, const index_t *__restrict__ row, const index_t *__restrict__ scol, int *__restrict__ head,
                           int *__restrict__ count) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= g.nnz) return;
  const PosInfo a = pos_info(g, row, scol, i);
  bool          h = i == 0;
  if (!h) {
    const PosInfo b = pos_info(g, row, scol, i - 1);
    h               = b.br != a.br || b.bc != a.bc;
  }
  head[i] = h;
  if (h) atomicAdd(count + (long long)a.s * g.nbrows + a.br, 1);
}

// gfirst[seg] = block rank of the first block of segment seg (positions that start a segment)
__global__ void segment_first_rank(BuildGeo g, const index_t *__restrict__ row, const index_t *__restrict__ scol,
                                   const int *__restrict__ rank, index_t *__restrict__ gfirst) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= g.nnz) return;
  const PosInfo a = pos_info(g, row, scol, i);
  bool          first = i == 0;
  if (!first) {
    const PosInfo b = pos_info(g, row, scol, i - 1);
    first           = b.br != a.br || b.s != a.s;
  }
  if (first) gfirst[(long long)a.s * g.nbrows + a.br] = rank[i] - 1;
}

__global__ void segment_lengths(const int *__restrict__ count, long long nseg, index_t *__restrict__ len) {
  const long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (k < nseg) len[k] = max(1, count[k]);
  else if (k == nseg) len[k] = 0;
}

// values, slot map and block columns of every nonzero
template <typename T>
__global__ void place(BuildGeo g, const index_t *__restrict__ row, const index_t *__restrict__ scol, const index_t *__restrict__ order,
                      const int *__restrict__ rank, const index_t *__restrict__ gfirst, const index_t *__restrict__ seg_start,
                      const T *__restrict__ aval, long long plane, T *__restrict__ val, unsigned *__restrict__ slot,
                      index_t *__restrict__ bcol) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= g.nnz) return;
  const PosInfo     a   = pos_info(g, row, scol, i);
  const long long   seg = (long long)a.s * g.nbrows + a.br;
  const long long   blk = seg_start[seg] + (rank[i] - 1) - gfirst[seg];
  const long long   q   = order ? order[i] : i;
  const index_t     r = row[q], c = scol[i];
  const long long   pos = (long long)(r - a.br * g.h) * plane + bccoo_phys(blk, g.T, g.G) * g.w + (c - a.bc * g.w);
  slot[q] = unsigned(pos);
  val[pos] = aval[q];
  if (i == 0 || rank[i - 1] != rank[i]) bcol[blk] = a.bc;
}

// the padding block of each empty segment, and the row stop ending each segment
__global__ void segment_ends(BuildGeo g, const int *__restrict__ count, const index_t *__restrict__ seg_start, index_t *__restrict__ bcol,
                             unsigned *__restrict__ flags) {
  const long long seg = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (seg >= g.nsegments) return;
  if (count[seg] == 0) {
    const long long s = seg / g.nbrows;
    bcol[seg_start[seg]] = index_t(min(s * g.slice_bcols, (long long)g.nbcols - 1));
  }
  const long long last = seg_start[seg + 1] - 1;
  atomicAnd(flags + (last >> 5), ~(1u << (last & 31)));
}

// per thread tile: 16-bit differences (at the transposed positions) and the escape count; or the
// uncompressed columns
__global__ void compress_columns(BuildGeo g, const index_t *__restrict__ bcol, const index_t *__restrict__ fs, long long ntiles,
                                 std::int16_t *__restrict__ dcol, index_t *__restrict__ nesc, index_t *__restrict__ col) {
  const long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (t >= ntiles) return;
  const int T = g.T, G = g.G;
  index_t   prev = bccoo_tile_base(fs[t], g.nbrows, g.h, g.w, g.nbcols), n = 0;
  for (long long k = t * T; k < (t + 1) * T; ++k) {
    const index_t   c = bcol[k];
    const long long p = bccoo_phys(k, T, G);
    if (col) col[p] = c;
    else {
      const long long d = (long long)c - prev;
      if (d >= -32767 && d <= 32767) dcol[p] = std::int16_t(d);
      else {
        dcol[p] = kEscape;
        ++n;
      }
    }
    prev = c;
  }
  if (!col) nesc[t] = n;
}

__global__ void write_escapes(BuildGeo g, const index_t *__restrict__ bcol, const index_t *__restrict__ fs, long long ntiles,
                              const index_t *__restrict__ escape_start, index_t *__restrict__ escape) {
  const long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (t >= ntiles) return;
  const int T = g.T;
  index_t   prev = bccoo_tile_base(fs[t], g.nbrows, g.h, g.w, g.nbcols), e = escape_start[t];
  for (long long k = t * T; k < (t + 1) * T; ++k) {
    const index_t   c = bcol[k];
    const long long d = (long long)c - prev;
    if (d < -32767 || d > 32767) escape[e++] = c;
    prev = c;
  }
}

// first_segment[t] = segments ending before block t T = #{seg : seg_start[seg + 1] <= t T}
__global__ void first_segments(const index_t *__restrict__ seg_start, long long nseg, long long ntiles, int T, index_t *__restrict__ fs) {
  const long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (t > ntiles) return;
  const long long key = t * T;
  long long       lo = 0, hi = nseg; // count of seg in [0, nseg) with seg_start[seg+1] <= key
  while (lo < hi) {
    const long long mid = (lo + hi) / 2;
    if (seg_start[mid + 1] <= key) lo = mid + 1;
    else hi = mid;
  }
  fs[t] = index_t(lo);
}

// per work group: every thread tile holds a row stop (no_scan), and the segments ending in it
__global__ void group_info(const index_t *__restrict__ fs, long long ngroups, int G, unsigned char *__restrict__ no_scan,
                           index_t *__restrict__ gseg) {
  const long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (g >= ngroups) return;
  bool all = true;
  for (long long t = g * G; t < (g + 1) * G; ++t) all &= fs[t + 1] > fs[t];
  no_scan[g] = all;
  gseg[g]    = fs[(g + 1) * G] - fs[g * G];
}

// ---------------------------------------------------------------------------------------------
// Products.
template <typename T>
struct SpmvArgs {
  const unsigned char *flags;
  const T             *val;
  const std::int16_t  *dcol;
  const index_t       *col, *escape, *escape_start, *first_segment;
  const unsigned char *no_scan;
  const T             *x, *z;
  T                   *y, *part;
  T                   *grp_val;
  unsigned            *grp_status, *ticket;
  unsigned             epoch;
  long long            plane; // padded blocks x w: the distance between value planes
  long long            ntiles, ngroups, nsegments;
  index_t              nrows, ncols, nbrows, nbcols;
  int                  T_, slices, cache;
  const index_t       *rowmap; // diagonal only
};

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

// BCCOO+: y = z + the slices' partial sums
template <typename T>
__global__ void bccoo_combine(const T *__restrict__ part, long long stride, int slices, index_t nrows, const T *z, T *y) {
  const long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (r >= nrows) return;
  T s = z ? z[r] : T(0);
  for (int k = 0; k < slices; ++k) s += part[k * stride + r];
  y[r] = s;
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

template <typename T>
__global__ void diag_zero(const index_t *rowmap, index_t nrows, T *d) {
  const long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (r < nrows) d[rowmap ? rowmap[r] : r] = T(0);
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

// One launcher per kernel family, dispatching (h, w, compressed) to the instantiation.
enum Kind { kSpmv, kTrans, kDiag, kSpmvNoSkip, kSpmvSeparateCarry }; // the last two: the ablation's steps
template <typename T, int H, int W>
cudaError_t launch_hw(int kind, bool comp, dim3 grid, dim3 block, std::size_t smem, cudaStream_t s, const SpmvArgs<T> &a) {
  switch (kind) {
  case kSpmv:
    if (comp) bccoo_spmv<T, H, W, true><<<grid, block, smem, s>>>(a);
    else bccoo_spmv<T, H, W, false><<<grid, block, smem, s>>>(a);
    break;
  case kSpmvNoSkip:
    if (comp) bccoo_spmv<T, H, W, true, true, false><<<grid, block, smem, s>>>(a);
    else bccoo_spmv<T, H, W, false, true, false><<<grid, block, smem, s>>>(a);
    break;
  case kSpmvSeparateCarry:
    if (comp) bccoo_spmv<T, H, W, true, false, false><<<grid, block, smem, s>>>(a);
    else bccoo_spmv<T, H, W, false, false, false><<<grid, block, smem, s>>>(a);
    break;
  case kTrans:
    if (comp) bccoo_trans<T, H, W, true><<<grid, block, 0, s>>>(a);
    else bccoo_trans<T, H, W, false><<<grid, block, 0, s>>>(a);
    break;
  default: // kDiag
    if (comp) bccoo_diag<T, H, W, true><<<grid, block, 0, s>>>(a);
    else bccoo_diag<T, H, W, false><<<grid, block, 0, s>>>(a);
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

template <typename T>
cudaError_t launch(int h, int w, int kind, bool comp, dim3 grid, dim3 block, std::size_t smem, cudaStream_t s, const SpmvArgs<T> &a) {
  switch (h) {
  case 1: return launch_h<T, 1>(w, kind, comp, grid, block, smem, s, a);
  case 2: return launch_h<T, 2>(w, kind, comp, grid, block, smem, s, a);
  case 3: return launch_h<T, 3>(w, kind, comp, grid, block, smem, s, a);
  default: return launch_h<T, 4>(w, kind, comp, grid, block, smem, s, a);
  }
}

template <typename T>
std::size_t spmv_smem(int h, int G, int cache) {
  // tails (G x h) or the scan's warp totals, then the result cache (cache x h)
  const std::size_t seg = sizeof(int) + std::size_t(h) * sizeof(T);
  const std::size_t a   = std::size_t(G) * h * sizeof(T) + 32 * ((seg + alignof(T) - 1) / alignof(T) * alignof(T));
  return a + std::size_t(cache) * h * sizeof(T);
}

} // namespace

template <typename T>
std::size_t BccooDevice<T>::format_bytes() const {
  const std::size_t pb = std::size_t(padded_);
  return pb / 8 + pb * p_.h * p_.w * sizeof(T) + (p_.compress_col ? pb * 2 + std::size_t(nescapes_ + ntiles_) * 4 : pb * 4) +
         std::size_t(ntiles_ + 1) * 4 + std::size_t(ngroups_);
}

template <typename T>
std::size_t BccooDevice<T>::device_bytes() const {
  if (!val_ && !first_segment_) return 0;
  return format_bytes() + std::size_t(nnz_) * sizeof(unsigned) + (part_ ? std::size_t(nsegments_) * p_.h * sizeof(T) : 0) +
         std::size_t(ngroups_) * (p_.h * sizeof(T) + sizeof(unsigned)) + 2 * sizeof(unsigned);
}

template <typename T>
void BccooDevice<T>::release() {
  device_free(flags_);
  device_free(val_);
  device_free(dcol_);
  device_free(col_);
  device_free(escape_);
  device_free(escape_start_);
  device_free(first_segment_);
  device_free(no_scan_);
  device_free(slot_);
  device_free(part_);
  device_free(grp_val_);
  device_free(grp_status_);
  device_free(ticket_);
  nblocks_ = padded_ = pad_blocks_ = nescapes_ = ntiles_ = ngroups_ = nsegments_ = 0;
  nrows_ = ncols_ = nnz_ = 0;
}

template <typename T>
cudaError_t BccooDevice<T>::build(const CsrView<T> &A, const BccooParams &params, cudaStream_t s) {
  release();
  DeviceCsr<T> csr; // the CSR on the device, freed stream-ordered after the build
  PhaseTimer   clock(s);
  BCCOO_TRY(csr.upload(A, s));
  clock.mark("upload");
  return build_from(csr.view(), params, s, clock);
}

template <typename T>
cudaError_t BccooDevice<T>::build(const DeviceCsrView<T> &A, const BccooParams &params, cudaStream_t s) {
  PhaseTimer clock(s);
  return build_from(A, params, s, clock);
}

template <typename T>
cudaError_t BccooDevice<T>::build_from(const DeviceCsrView<T> &A, const BccooParams &params, cudaStream_t s, PhaseTimer &clock) {
  release();
  why_ = "";
  p_   = params;
  const int h = p_.h, w = p_.w;
  nrows_ = A.nrows, ncols_ = A.ncols, nnz_ = index_t(A.nnz);
  nbrows_ = (A.nrows + h - 1) / h;
  nbcols_ = (A.ncols + w - 1) / w;
  if (nbcols_ > 0) {
    slice_bcols_ = (nbcols_ + p_.slices - 1) / p_.slices;
    p_.slices    = int((nbcols_ + slice_bcols_ - 1) / slice_bcols_); // slices past the last column dropped
  }
  if (A.nrows == 0 || A.ncols == 0) return cudaSuccess; // products: y = z or 0
  nsegments_   = (long long)p_.slices * nbrows_;
  if (nsegments_ >= INT_MAX) return fail("bccoo: " + std::to_string(nsegments_) + " segments (slices x block rows) exceed the 32-bit segment index; use fewer slices or a taller block");
  const int       TT = p_.tile, G = p_.group;
  const long long gt = (long long)TT * G, nnz = nnz_;
  BuildGeo        geo{nrows_, ncols_, nbrows_, nbcols_, slice_bcols_, h, w, TT, G, p_.slices, nnz, nsegments_};
  const int       nt = kThreads;
  Tmp             tmp{s, {}};
  const index_t  *rowptr = A.rowptr, *colidx = A.colidx;
  const T        *aval   = A.val;
  index_t        *row    = tmp.get<index_t>(nnz);
  int            *flag   = tmp.get<int>(1);
  BCCOO_TRY(tmp.err);
  BCCOO_TRY(cudaMemsetAsync(flag, 0, sizeof(int), s));
  BCCOO_TRY(entry_rows(rowptr, nrows_, nnz, row, s));
  if (nnz > 1) check_sorted<<<grid_for(nnz, nt), nt, 0, s>>>(row, colidx, nnz, flag);
  BCCOO_TRY(launched());
  int unsorted = 0;
  BCCOO_TRY(cudaMemcpyAsync(&unsorted, flag, sizeof(int), cudaMemcpyDeviceToHost, s));
  BCCOO_TRY(cudaStreamSynchronize(s));

  // block order: within each block row by column (sorted rows merged when h > 1, a segmented sort
  // of the block rows when some row is unsorted)
  index_t       *order = nullptr, *sorted = nullptr;
  const index_t *scol  = colidx;
  if (nnz > 0 && h > 1 && !unsorted) {
    order = tmp.get<index_t>(nnz), sorted = tmp.get<index_t>(nnz), scol = sorted;
    BCCOO_TRY(tmp.err);
    merge_block_rows<<<grid_for(nnz, nt), nt, 0, s>>>(rowptr, row, colidx, geo, order, sorted);
    BCCOO_TRY(launched());
  } else if (nnz > 0 && unsorted) {
    index_t *off = tmp.get<index_t>(nbrows_ + 1), *iv = tmp.get<index_t>(nnz);
    order = tmp.get<index_t>(nnz), sorted = tmp.get<index_t>(nnz), scol = sorted;
    BCCOO_TRY(tmp.err);
    block_row_offsets<<<grid_for(nbrows_ + 1LL, nt), nt, 0, s>>>(rowptr, geo, off);
    fill_iota<<<grid_for(nnz, nt), nt, 0, s>>>(iv, nnz);
    BCCOO_TRY(launched());
    std::size_t bytes = 0;
    BCCOO_TRY(cub::DeviceSegmentedSort::SortPairs(nullptr, bytes, colidx, sorted, iv, order, nnz, nbrows_, off, off + 1, s));
    void *work = tmp.get<unsigned char>(bytes);
    BCCOO_TRY(tmp.err);
    BCCOO_TRY(cub::DeviceSegmentedSort::SortPairs(work, bytes, colidx, sorted, iv, order, nnz, nbrows_, off, off + 1, s));
  }

  clock.mark("order");

  // blocks: heads, their ranks, blocks per segment
  int     *head = tmp.get<int>(nnz), *rank = tmp.get<int>(nnz), *count = tmp.get<int>(nsegments_);
  index_t *gfirst = tmp.get<index_t>(nsegments_), *len = tmp.get<index_t>(nsegments_ + 1), *seg_start = tmp.get<index_t>(nsegments_ + 1);
  BCCOO_TRY(tmp.err);
  BCCOO_TRY(cudaMemsetAsync(count, 0, sizeof(int) * nsegments_, s));
  if (nnz > 0) {
    mark_heads<<<grid_for(nnz, nt), nt, 0, s>>>(geo, row, scol, head, count);
    BCCOO_TRY(launched());
    std::size_t bytes = 0;
    BCCOO_TRY(cub::DeviceScan::InclusiveSum(nullptr, bytes, head, rank, nnz, s));
    void *work = tmp.get<unsigned char>(bytes);
    BCCOO_TRY(tmp.err);
    BCCOO_TRY(cub::DeviceScan::InclusiveSum(work, bytes, head, rank, nnz, s));
    segment_first_rank<<<grid_for(nnz, nt), nt, 0, s>>>(geo, row, scol, rank, gfirst);
    BCCOO_TRY(launched());
  }
  segment_lengths<<<grid_for(nsegments_ + 1, nt), nt, 0, s>>>(count, nsegments_, len);
  BCCOO_TRY(launched());
  BCCOO_TRY(exclusive_sum(len, seg_start, nsegments_ + 1, s));
  index_t nb = 0, real = 0;
  BCCOO_TRY(cudaMemcpyAsync(&nb, seg_start + nsegments_, sizeof(index_t), cudaMemcpyDeviceToHost, s));
  if (nnz > 0) BCCOO_TRY(cudaMemcpyAsync(&real, rank + nnz - 1, sizeof(index_t), cudaMemcpyDeviceToHost, s));
  clock.mark("blocks");
  BCCOO_TRY(cudaStreamSynchronize(s));
  nblocks_    = nb;
  pad_blocks_ = nb - real;
  padded_     = (nblocks_ + gt - 1) / gt * gt;
  ntiles_     = padded_ / TT;
  ngroups_    = padded_ / gt;
  const long long plane = padded_ * w;
  if ((unsigned long long)plane * h > 0xffffffffull)
    return fail("bccoo: " + std::to_string(plane * h) + " stored values exceed the 32-bit slot map; use a smaller block or split the matrix over more ranks");

  // the format's arrays
  const std::size_t flag_words = std::size_t((padded_ + 31) / 32);
  BCCOO_TRY(device_alloc(flags_, flag_words));
  BCCOO_TRY(device_alloc(val_, std::size_t(plane) * h));
  if (p_.compress_col) {
    BCCOO_TRY(device_alloc(dcol_, std::size_t(padded_)));
    BCCOO_TRY(device_alloc(escape_start_, std::size_t(ntiles_) + 1));
  } else BCCOO_TRY(device_alloc(col_, std::size_t(padded_)));
  BCCOO_TRY(device_alloc(first_segment_, std::size_t(ntiles_) + 1));
  BCCOO_TRY(device_alloc(no_scan_, std::size_t(ngroups_)));
  BCCOO_TRY(device_alloc(slot_, std::size_t(nnz)));
  if (p_.slices > 1) BCCOO_TRY(device_alloc(part_, std::size_t(nsegments_) * h));
  BCCOO_TRY(device_alloc(grp_val_, std::size_t(ngroups_) * h));
  BCCOO_TRY(device_alloc(grp_status_, std::size_t(ngroups_)));
  BCCOO_TRY(device_alloc(ticket_, 2));
  index_t *bcol = tmp.get<index_t>(padded_), *nesc = tmp.get<index_t>(ntiles_ + 1), *gseg = tmp.get<index_t>(ngroups_);
  int     *gmax = tmp.get<int>(1);
  BCCOO_TRY(tmp.err);
  BCCOO_TRY(cudaMemsetAsync(flags_, 0xff, flag_words * sizeof(unsigned), s));
  BCCOO_TRY(cudaMemsetAsync(val_, 0, sizeof(T) * plane * h, s));
  BCCOO_TRY(cudaMemsetAsync(bcol, 0, sizeof(index_t) * padded_, s));
  BCCOO_TRY(cudaMemsetAsync(grp_status_, 0, sizeof(unsigned) * ngroups_, s));
  BCCOO_TRY(cudaMemsetAsync(ticket_, 0, 2 * sizeof(unsigned), s));
  epoch_ = 0;
  clock.mark("allocate");
  if (nnz > 0) {
    place<T><<<grid_for(nnz, nt), nt, 0, s>>>(geo, row, scol, order, rank, gfirst, seg_start, aval, plane, val_, slot_, bcol);
    BCCOO_TRY(launched());
  }
  clock.mark("place");
  segment_ends<<<grid_for(nsegments_, nt), nt, 0, s>>>(geo, count, seg_start, bcol, flags_);
  first_segments<<<grid_for(ntiles_ + 1, nt), nt, 0, s>>>(seg_start, nsegments_, ntiles_, TT, first_segment_);
  compress_columns<<<grid_for(ntiles_, nt), nt, 0, s>>>(geo, bcol, first_segment_, ntiles_, dcol_, nesc, col_);
  group_info<<<grid_for(ngroups_, nt), nt, 0, s>>>(first_segment_, ngroups_, G, no_scan_, gseg);
  BCCOO_TRY(launched());
  {
    std::size_t bytes = 0;
    BCCOO_TRY(cub::DeviceReduce::Max(nullptr, bytes, gseg, gmax, ngroups_, s));
    void *work = tmp.get<unsigned char>(bytes);
    BCCOO_TRY(tmp.err);
    BCCOO_TRY(cub::DeviceReduce::Max(work, bytes, gseg, gmax, ngroups_, s));
  }
  index_t nescapes = 0;
  int     maxseg   = 0;
  if (p_.compress_col) {
    BCCOO_TRY(cudaMemsetAsync(nesc + ntiles_, 0, sizeof(index_t), s));
    BCCOO_TRY(exclusive_sum(nesc, escape_start_, ntiles_ + 1, s));
    BCCOO_TRY(cudaMemcpyAsync(&nescapes, escape_start_ + ntiles_, sizeof(index_t), cudaMemcpyDeviceToHost, s));
  }
  BCCOO_TRY(cudaMemcpyAsync(&maxseg, gmax, sizeof(int), cudaMemcpyDeviceToHost, s));
  BCCOO_TRY(cudaStreamSynchronize(s));
  nescapes_ = nescapes;
  cache_    = std::min<int>(maxseg, kCacheBytes / int(h * sizeof(T)));
  if (nescapes_ > 0) {
    BCCOO_TRY(device_alloc(escape_, std::size_t(nescapes_)));
    write_escapes<<<grid_for(ntiles_, nt), nt, 0, s>>>(geo, bcol, first_segment_, ntiles_, escape_start_, escape_);
    BCCOO_TRY(launched());
  }
  clock.mark("columns");
  BCCOO_TRY(tmp.err);
  BCCOO_TRY(cudaStreamSynchronize(s)); // the temporaries' frees follow; the times are read now
  build_phases_ = clock.times();
  return cudaSuccess;
}

template <typename T>
cudaError_t BccooDevice<T>::refresh(const T *host_val, cudaStream_t s) {
  if (nnz_ == 0) return cudaSuccess;
  T          *in  = nullptr;
  cudaError_t err = cudaMallocAsync(reinterpret_cast<void **>(&in), sizeof(T) * nnz_, s);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return err;
  }
  err = cudaMemcpyAsync(in, host_val, sizeof(T) * nnz_, cudaMemcpyHostToDevice, s);
  if (err == cudaSuccess) err = scatter_slots(nnz_, slot_, in, val_, s);
  cudaFreeAsync(in, s);
  return err;
}

template <typename T>
cudaError_t BccooDevice<T>::apply(Op op, const T *x, const T *z, T *y, cudaStream_t s) const {
  return product(op, BccooVariant{}, x, z, y, s);
}

template <typename T>
cudaError_t BccooDevice<T>::apply_variant(const BccooVariant &v, const T *x, const T *z, T *y, cudaStream_t s) const {
  if (v.strategy < 0 || v.strategy > 2) return cudaErrorInvalidValue;
  return product(Op::NoTrans, v, x, z, y, s);
}

template <typename T>
cudaError_t BccooDevice<T>::product(Op op, const BccooVariant &v, const T *x, const T *z, T *y, cudaStream_t s) const {
  const index_t nout = op == Op::Trans ? ncols_ : nrows_;
  if (nblocks_ == 0) return init_output(y, z, nout, s);
  SpmvArgs<T> a{};
  a.flags = reinterpret_cast<const unsigned char *>(flags_), a.val = val_, a.dcol = dcol_, a.col = col_, a.escape = escape_, a.escape_start = escape_start_;
  a.first_segment = first_segment_, a.no_scan = no_scan_, a.x = x, a.z = z, a.y = y, a.part = part_;
  a.grp_val = grp_val_, a.grp_status = grp_status_, a.ticket = ticket_;
  a.plane = padded_ * p_.w, a.ntiles = ntiles_, a.ngroups = ngroups_, a.nsegments = nsegments_;
  a.nrows = nrows_, a.ncols = ncols_, a.nbrows = nbrows_, a.nbcols = nbcols_, a.T_ = p_.tile, a.slices = p_.slices;
  a.cache = (v.strategy ? v.strategy : p_.strategy) == 1 ? 0 : cache_; // strategy 1: no result cache
  const dim3 grid{unsigned(ngroups_)}, block{unsigned(p_.group)};
  if (op == Op::Trans) {
    BCCOO_TRY(init_output(y, z, nout, s));
    return launch<T>(p_.h, p_.w, kTrans, p_.compress_col, grid, block, 0, s, a);
  }
  const int kind = v.stage == BccooStage::production ? kSpmv : v.stage == BccooStage::adjacent_sync ? kSpmvNoSkip : kSpmvSeparateCarry;
  if (kind != kSpmvSeparateCarry) { // the adjacent synchronization's epoch
    a.epoch = ++epoch_;
    if (a.epoch == 0) a.epoch = ++epoch_; // 0 marks "never published"
  }
  BCCOO_TRY(launch<T>(p_.h, p_.w, kind, p_.compress_col, grid, block, spmv_smem<T>(p_.h, p_.group, a.cache), s, a));
  if (kind == kSpmvSeparateCarry && ngroups_ > 1) { // the second kernel: carries across groups
    const unsigned cg = grid_for(ngroups_, kThreads);
    switch (p_.h) {
    case 1: bccoo_group_carry<T, 1><<<cg, kThreads, 0, s>>>(a, p_.group); break;
    case 2: bccoo_group_carry<T, 2><<<cg, kThreads, 0, s>>>(a, p_.group); break;
    case 3: bccoo_group_carry<T, 3><<<cg, kThreads, 0, s>>>(a, p_.group); break;
    default: bccoo_group_carry<T, 4><<<cg, kThreads, 0, s>>>(a, p_.group);
    }
    BCCOO_TRY(launched());
  }
  if (p_.slices > 1) {
    bccoo_combine<T><<<grid_for(nrows_, kThreads), kThreads, 0, s>>>(part_, (long long)nbrows_ * p_.h, p_.slices, nrows_, z, y);
    return launched();
  }
  return cudaSuccess;
}

template <typename T>
BccooDeviceView<T> BccooDevice<T>::view() const {
  BccooDeviceView<T> v{};
  v.flags = reinterpret_cast<const unsigned char *>(flags_), v.val = val_, v.dcol = dcol_, v.col = col_, v.escape = escape_, v.escape_start = escape_start_;
  v.first_segment = first_segment_, v.no_scan = no_scan_;
  v.plane = padded_ * p_.w, v.padded_blocks = padded_, v.thread_tiles = ntiles_, v.groups = ngroups_, v.segments = nsegments_;
  v.nrows = nrows_, v.ncols = ncols_, v.nbrows = nbrows_, v.nbcols = nbcols_;
  return v;
}

template <typename T>
cudaError_t BccooDevice<T>::diagonal(const index_t *rowmap, T *d, cudaStream_t s) const {
  if (nrows_ == 0) return cudaSuccess;
  diag_zero<T><<<grid_for(nrows_, kThreads), kThreads, 0, s>>>(rowmap, nrows_, d);
  BCCOO_TRY(launched());
  if (nblocks_ == 0) return cudaSuccess;
  SpmvArgs<T> a{};
  a.flags = reinterpret_cast<const unsigned char *>(flags_), a.val = val_, a.dcol = dcol_, a.col = col_, a.escape = escape_, a.escape_start = escape_start_;
  a.first_segment = first_segment_, a.y = d, a.rowmap = rowmap;
  a.plane = padded_ * p_.w, a.ntiles = ntiles_, a.ngroups = ngroups_, a.nsegments = nsegments_;
  a.nrows = nrows_, a.ncols = ncols_, a.nbrows = nbrows_, a.nbcols = nbcols_, a.T_ = p_.tile, a.slices = p_.slices;
  return launch<T>(p_.h, p_.w, kDiag, p_.compress_col, dim3(unsigned(ngroups_)), dim3(unsigned(p_.group)), 0, s, a);
}

template <typename T>
cudaError_t BccooDevice<T>::download(Bccoo<T> &B) const {
  B               = Bccoo<T>();
  B.p             = p_;
  B.nrows         = nrows_;
  B.ncols         = ncols_;
  B.nbrows        = nbrows_;
  B.nbcols        = nbcols_;
  B.slice_bcols   = slice_bcols_;
  B.nblocks       = nblocks_;
  B.padded_blocks = padded_;
  B.nsegments     = nsegments_;
  B.pad_blocks    = pad_blocks_;
  B.nnz           = nnz_;
  if (nblocks_ == 0) return cudaSuccess;
  auto get = [](auto &vec, const auto *src, std::size_t n) {
    vec.resize(n);
    return n ? cudaMemcpy(vec.data(), src, n * sizeof(*src), cudaMemcpyDeviceToHost) : cudaSuccess;
  };
  BCCOO_TRY(get(B.flags, reinterpret_cast<const unsigned char *>(flags_), std::size_t((padded_ + 7) / 8)));
  BCCOO_TRY(get(B.val, val_, std::size_t(padded_) * p_.w * p_.h));
  if (p_.compress_col) {
    BCCOO_TRY(get(B.dcol, dcol_, std::size_t(padded_)));
    BCCOO_TRY(get(B.escape, escape_, std::size_t(nescapes_)));
    BCCOO_TRY(get(B.escape_start, escape_start_, std::size_t(ntiles_)));
  } else BCCOO_TRY(get(B.col, col_, std::size_t(padded_)));
  BCCOO_TRY(get(B.first_segment, first_segment_, std::size_t(ntiles_)));
  BCCOO_TRY(get(B.no_scan, no_scan_, std::size_t(ngroups_)));
  return cudaSuccess;
}

template class BccooDevice<double>;
template class BccooDevice<float>;

} // namespace cuda
} // namespace gpumat
