// csrspec on the GPU: the speculative segmented sum of Liu & Vinter (2015) over unmodified CSR
// arrays, with the paper's CPU-side steps (synchronization, dirty-tile fix-up) done on the GPU.
// The decomposition is the one of src/core/csrspec.cpp (see its header comment): tiles of
// TS = bunches*32*W nonzeros, S = tiles_per_block tiles per block, tile t owns the rows
// [first(t), first(t+1)) that start in it.
//
// y = A x (+ z), two kernels on the caller's stream, no atomics, deterministic:
//  csrspec_tiles  one block per S consecutive tiles. Per tile:
//    1. boundaries first(t) by a warp-cooperative 32-ary binary search of rowptr (Alg. 1 l. 3-6),
//       all S+1 of the block at its start;
//    2. val/colidx loaded warp-striped (fully coalesced, streaming), x gathered through the
//       read-only path, the products exchanged through padded shared memory so that each thread
//       owns W consecutive nonzeros (l. 22-26);
//    3. segment descriptor: the rows owned by the tile are read in chunks of blockDim rows (a
//       tile may own any number of empty rows); a nonempty row sets the bit of its first
//       nonzero, an empty row gets y = 0 (or z) at once and makes the tile dirty (l. 14-21);
//    4. per thread a sequential segmented sum over its W products, then a block-wide exclusive
//       segmented scan of (head count, partial sum) carried in from the previous tile of the
//       block (the transmitter, l. 27-33);
//    5. every segment completed in a thread is stored by that thread: y[r] = sum (+ z[r]). Clean
//       tile: the k-th head of the tile belongs to row first(t)+k, the speculative compact slot
//       (l. 34-52); those sums are staged in shared memory at slot k and stored by the whole
//       block, coalesced, after the next barrier (one L2 request per 4 rows, not one per row).
//       Dirty tile: the rows are taken from a map head position -> row built on chip by a second
//       pass over the tile's rows, and the scan carries the row of the last head instead of a
//       count (the paper's checking-prediction stage, done inside the tile);
//    6. the row entering the block from the left (it contains the block's first nonzero but
//       starts earlier) is not stored: its partial sum goes to the synchronizer slot
//       (sync_row_[b], sync_val_[b]) (l. 39-43).
//  csrspec_sync   adds the synchronizer into y (l. 62-68). A block without an entering row writes
//       (its first row, 0) so that sync_row_ is non-decreasing: runs of equal rows are
//       contiguous and the first entry of each run sums it (a warp for runs longer than 32).
// y = A^T x (+ z): y = z (or 0), then csrspec_trans: each warp takes 32*8 consecutive nonzeros,
// finds their rows by one 32-ary search plus galloping, and atomically adds val*x[row] to y[col].
//
// Byte model of y = A x (fp64, per apply, DRAM): 12 B per nonzero (val + colidx, read once,
// coalesced, streaming), 4 B per row (rowptr, read once by the descriptor pass; rowptr[r+1] and
// the second pass of a dirty tile hit L1/L2), 8 B per row of y written once, x once per distinct
// column (L2-resident up to ~6M columns on H100/H200), 12 B per block for the synchronizer plus
// a read-modify-write of y per synchronizer run. That is the project's CSR model
// (12 B/nnz + 4 B/row + x + y) plus < 0.1 % at the defaults (4096 nonzeros per block). On the L2
// side the boundary search adds ~log32(nrows) steps of 32 probes per boundary (1.5 boundaries per
// tile at S = 2), ~5 KB per 24 KB tile for 27M rows, mostly hits on the upper levels shared by all
// blocks.
// Latency hiding (measured, docs/csrspec-tuning.md): the default fp64 W = 8 kernel is capped at
// 96 registers and takes ~11 KB of shared memory per 64-thread block, so 10 blocks (20 warps) per
// SM; each thread has the next tile's 8 val + 8 colidx loads and the next rows' pointers in flight
// while the current tile is scanned and stored, and gathers its 8 x values before the descriptor
// pass. Outcome on the H200: 68 % of the copy bandwidth on the 7-point Laplacian (cuSPARSE ALG1
// 66 %), and on random-column power-law rows within ~8 % of the floor set by one 32-byte L2
// request per nonzero for x (bench/floors.cu), where ALG1 is within ~4 %.
#include "csrspec.cuh"
#include "common.cuh"
#include "primitives.cuh"
#include "rowmap.cuh"

#include <stdexcept>

namespace gpumat {
namespace cuda {

namespace {

constexpr int kMaxThreads = 16 * kWarp; // csrspec_resolve: bunches <= 16
constexpr int kTransPerLane = 8;        // nonzeros per lane of the transpose kernel
constexpr int kAuxThreads   = 256;      // block size of the sync and transpose kernels

// Shared-memory layout of csrspec_tiles (dynamic, computed on the host, passed by value).
struct TileLayout {
  int warp_buf = 0;         // elements of T in one warp's exchange buffer (padded)
  int nwords   = 0;         // 32-bit words of the segment descriptor
  // agg: warp totals of the scan; buf: exchange buffers; ysum: the row sums of a clean tile,
  // stored to y coalesced; rowmap: head position -> row (dirty tiles); bits: segment descriptor;
  // first: the block's tile boundaries
  unsigned agg_off = 0, buf_off = 0, ysum_off = 0, rowmap_off = 0, bits_off = 0, first_off = 0, bytes = 0;
};

// One padding element per 128 bytes of products: the striped writes stay contiguous and the
// blocked reads (stride W) of a half-warp (fp64) or warp (fp32) hit distinct banks for W = 4..16.
template <typename T>
__host__ __device__ constexpr int exchange_index(int e) {
  return e + e / int(128 / sizeof(T));
}

template <typename T>
TileLayout tile_layout(int nwarps, int W, int S) {
  auto up = [](unsigned v, unsigned a) { return (v + a - 1) / a * a; };
  const int ts = nwarps * kWarp * W;
  TileLayout L;
  L.warp_buf     = exchange_index<T>(kWarp * W - 1) + 1;
  L.nwords       = (ts + 31) / 32 + 2; // +2: a thread's W bits are read as up to 3 words
  L.agg_off      = 0;
  L.buf_off      = up(unsigned(nwarps * sizeof(Seg<T>)), 16);
  L.ysum_off     = up(L.buf_off + unsigned(nwarps * L.warp_buf * sizeof(T)), 16);
  L.rowmap_off   = up(L.ysum_off + unsigned(ts * sizeof(T)), 16);
  L.bits_off     = L.rowmap_off + unsigned(ts * sizeof(index_t));
  L.first_off    = L.bits_off + unsigned(L.nwords * sizeof(unsigned));
  L.bytes        = L.first_off + unsigned((S + 1) * sizeof(index_t));
  return L;
}

template <typename T>
struct TileArgs {
  const index_t *rowptr, *colidx;
  const T *val, *x, *z;
  T *y;
  index_t *sync_row;
  T *sync_val;
  index_t nrows, nnz;
  int W, S;
  long long ntiles;
  TileLayout L;
};

template <typename T, int WC>
__device__ __forceinline__ void csrspec_tiles_body(const TileArgs<T> &a) {
  extern __shared__ __align__(16) unsigned char smem[];
  const int W    = WC > 0 ? WC : a.W;
  const int tid  = threadIdx.x, lane = tid & (kWarp - 1), warp = tid / kWarp;
  const int nthr = blockDim.x;
  const int ts   = nthr * W;
  Seg<T> *agg      = reinterpret_cast<Seg<T> *>(smem + a.L.agg_off);
  T *wbuf          = reinterpret_cast<T *>(smem + a.L.buf_off) + warp * a.L.warp_buf;
  index_t *rowmap  = reinterpret_cast<index_t *>(smem + a.L.rowmap_off);
  unsigned *bits   = reinterpret_cast<unsigned *>(smem + a.L.bits_off);
  index_t *first   = reinterpret_cast<index_t *>(smem + a.L.first_off);
  T *ysum          = reinterpret_cast<T *>(smem + a.L.ysum_off);

  // 1. Boundaries of the block's tiles (Alg. 1 l. 3-6). The block's two ends by a warp each, a
  // 32-ary search over all rows; the interior ones, one thread each, by a binary search inside the
  // block's own row range (short, and in L1/L2 after the end searches), so that a block running
  // many tiles pays the long search latency once.
  const long long tile0 = (long long)blockIdx.x * a.S;
  const int nt          = int(min((long long)a.S, a.ntiles - tile0));
  auto boundary_search  = [&](long long t, long long lo, long long hi) -> long long { // first(t), warp-wide
    if (t == 0) return 0;
    if (t >= a.ntiles) return a.nrows;
    return warp_rightmost_le(a.rowptr, lo, hi, t * ts - 1) + 1;
  };
  for (int k = warp; k < 2; k += nthr / kWarp) { // a block of one warp does both
    const int i       = k == 0 ? 0 : nt;
    const long long f = boundary_search(tile0 + i, 0, a.nrows + 1LL);
    if (lane == 0) first[i] = index_t(f);
  }
  for (int w = tid; w < a.L.nwords; w += nthr) bits[w] = 0u;
  __syncthreads();
  for (int i = 1 + tid; i < nt; i += nthr) { // rightmost r in [first[0]-1, first[nt]] with rowptr[r] <= key
    const long long key = (tile0 + i) * ts - 1;
    long long lo = max(first[0] - 1, 0), hi = first[nt] + 1LL;
    while (hi - lo > 1) {
      const long long mid = (lo + hi) / 2;
      if (__ldg(a.rowptr + mid) <= key) lo = mid;
      else hi = mid;
    }
    first[i] = index_t(lo + 1);
  }
  __syncthreads();

  // The row entering the block from the left, and the synchronizer slot of the block.
  const long long blo     = tile0 * ts;
  const bool carry_in     = blo > 0 && __ldg(a.rowptr + first[0]) > blo;
  const index_t enter_row = carry_in ? first[0] - 1 : -1;
  if (tid == 0) {
    a.sync_row[blockIdx.x] = carry_in ? first[0] - 1 : first[0];
    if (!carry_in) a.sync_val[blockIdx.x] = T(0);
  }
  // Stores one complete segment sum; y may alias z (same thread, same entry). In a clean tile
  // the rows from the tile's first owned row on (ystage: first(i)) are staged in ysum and stored
  // by the whole block, coalesced, after the next barrier (flush): one scattered 8-byte store per
  // row costs an L2 request per row (measured: 4 % of the time on power-law rows, version 6 of
  // docs/csrspec-tuning.md).
  auto emit = [&](index_t row, T s, index_t ystage) { // ystage: first(i), or nrows for none
    if (row < 0) return; // the empty segment before the block's first head
    if (row == enter_row) a.sync_val[blockIdx.x] = s;
    else if (row >= ystage) ysum[row - ystage] = s;
    else a.y[row] = a.z ? a.z[row] + s : s;
  };

  // Rows owned by tile i, in chunks of blockDim: f(row, rowptr[row], rowptr[row + 1]).
  auto for_tile_rows = [&](int i, auto &&f) {
    for (long long r = first[i] + tid; r < first[i + 1]; r += nthr) f(index_t(r), __ldg(a.rowptr + r), __ldg(a.rowptr + r + 1));
  };

  // val/colidx of one tile, striped (coalesced, read once: streaming loads), for compile-time W.
  T vr[WC > 0 ? WC : 1];
  index_t cr[WC > 0 ? WC : 1];
  auto load_tile = [&](int i) {
    if constexpr (WC > 0) {
      const long long lo = (tile0 + i) * ts;
      const int n        = int(min((long long)ts, (long long)a.nnz - lo));
      const int q0       = warp * kWarp * W + lane;
#pragma unroll
      for (int j = 0; j < WC; ++j) {
        const int q = q0 + j * kWarp;
        vr[j]       = q < n ? __ldcs(a.val + lo + q) : T(0);
        cr[j]       = q < n ? __ldcs(a.colidx + lo + q) : 0;
      }
    }
  };
  // Row pointers of the first blockDim rows owned by a tile (most tiles own fewer), requested one
  // tile ahead like val/colidx, so that the descriptor pass waits for nothing.
  index_t pb = 0, pe = 0;
  auto load_rows = [&](int i) {
    const long long r = first[i] + tid;
    if (r < first[i + 1]) {
      pb = __ldg(a.rowptr + r);
      pe = __ldg(a.rowptr + r + 1);
    }
  };
  if (nt > 0) {
    load_tile(0);
    load_rows(0);
  }

  index_t trans_row = enter_row; // transmitter: the segment open at the end of the previous tile
  // After clean tile i, ysum holds the sums of rows first(i) .. first(i) + heads - 2 and the
  // transmitter's row is first(i) + heads - 1 (a row before first(i) when the tile has no head):
  // the staged count is trans_row - first(i), no register of its own.
  bool staged = false;
  auto flush  = [&](int i) {
    const int n = staged ? int(trans_row - first[i]) : 0;
    for (int k = tid; k < n; k += nthr) a.y[first[i] + k] = a.z ? a.z[first[i] + k] + ysum[k] : ysum[k];
  };
  T trans_val       = T(0);
  for (int i = 0; i < nt; ++i) {
    if (i > 0) { // the previous tile is done with the shared memory; its staged sums are stored
      __syncthreads();
      flush(i - 1);
    }
    const long long lo = (tile0 + i) * ts;
    const int n        = int(min((long long)ts, (long long)a.nnz - lo)); // nonzeros in this tile
    const int q0       = warp * kWarp * W + lane;                         // first striped position
    const index_t *col = a.colidx + lo;
    const T *val       = a.val + lo;

    // 2a. Gather x for the tile's nonzeros (their val/colidx are in registers, loaded during the
    // previous tile); the gathers are in flight during the descriptor pass.
    T xv[WC > 0 ? WC : 1];
    if constexpr (WC > 0) {
#pragma unroll
      for (int j = 0; j < WC; ++j) xv[j] = q0 + j * kWarp < n ? __ldg(a.x + cr[j]) : T(0);
    }
    // 3. Segment descriptor and empty rows: the first chunk of rows from the prefetched row
    // pointers, any further chunks (tiles owning more than blockDim rows) from memory.
    bool dirty      = false;
    auto descriptor = [&](index_t r, index_t b, index_t e) {
      if (b == e) {
        a.y[r] = a.z ? a.z[r] : T(0);
        dirty  = true;
      } else {
        const int pos = int(b - lo);
        atomicOr(bits + pos / 32, 1u << (pos % 32));
      }
    };
    if (first[i] + tid < first[i + 1]) descriptor(index_t(first[i] + tid), pb, pe);
    for (long long r = first[i] + nthr + tid; r < first[i + 1]; r += nthr) descriptor(index_t(r), __ldg(a.rowptr + r), __ldg(a.rowptr + r + 1));
    // 2b. Products, written in striped order into the warp's buffer; each thread reads its W
    // consecutive ones back (blocked) after the barrier below, once before and once after the
    // scan (re-reading shared memory is cheaper than holding W products across the scan). Then
    // the next tile's val/colidx are requested: they arrive while this tile is scanned and stored.
    if constexpr (WC > 0) {
#pragma unroll
      for (int j = 0; j < WC; ++j) wbuf[exchange_index<T>(j * kWarp + lane)] = vr[j] * xv[j];
      if (i + 1 < nt) load_tile(i + 1);
    }
    if (i + 1 < nt) load_rows(i + 1);
    if constexpr (WC == 0) {
      for (int j0 = 0; j0 < W; j0 += 8) { // 8 loads in flight per step
#pragma unroll
        for (int j = j0; j < j0 + 8; ++j) {
          const int q = q0 + j * kWarp;
          if (j < W) wbuf[exchange_index<T>(j * kWarp + lane)] = q < n ? __ldcs(val + q) * __ldg(a.x + __ldcs(col + q)) : T(0);
        }
      }
    }
    auto prod = [&](int j) { return wbuf[exchange_index<T>(lane * W + j)]; };
    dirty = __syncthreads_or(dirty);
    // 5 (dirty). Map head position -> row, the second pass over the tile's rows.
    if (dirty) {
      for_tile_rows(i, [&](index_t r, index_t b, index_t e) {
        if (b != e) rowmap[b - lo] = r;
      });
      __syncthreads();
    }

    // 4. This thread's W head bits, then its sequential segmented sum: v is the sum from its
    // last head (or of all W products when it has none).
    const int bit0 = tid * W;
    unsigned long long hb;
    {
      const int wd = bit0 / 32, sh = bit0 % 32;
      hb = ((unsigned long long)bits[wd] | (unsigned long long)bits[wd + 1] << 32) >> sh;
      if (W > 32 && sh > 0) hb |= (unsigned long long)bits[wd + 2] << (64 - sh);
      if (W < 64) hb &= (1ull << W) - 1;
    }
    const int cnt  = __popcll(hb);
    const int last = cnt ? 63 - __clzll(hb) : 0;
    Seg<T> e{0, T(0)};
#pragma unroll
    for (int j = 0; j < W; ++j)
      if (j >= last) e.v += prod(j);
    if (dirty) e.k = cnt ? rowmap[bit0 + last] + 1 : 0;
    else e.k = cnt;
    const Seg<T> init{dirty ? trans_row + 1 : 0, trans_val};
    Seg<T> excl, total;
    block_seg_scan(e, init, dirty, agg, excl, total);

    // 5. Store the segments completed in this thread: the one entering it (ends at its first
    // head) and those between its heads. Clean: rows first(t)+k (speculative compact slots).
    if (cnt) {
      index_t row = dirty ? excl.k - 1 : (excl.k > 0 ? first[i] + excl.k - 1 : trans_row);
      index_t hr  = first[i] + excl.k;
      T acc       = excl.v;
      const index_t ystage = dirty ? a.nrows : first[i];
#pragma unroll
      for (int j = 0; j < W; ++j) {
        if (hb >> j & 1ull) {
          emit(row, acc, ystage);
          acc = T(0);
          row = dirty ? rowmap[bit0 + j] : hr++;
        }
        acc += prod(j);
      }
    }
    // Staged rows of a clean tile: first(i) .. first(i) + heads - 2 (the last head's row is open).
    staged = !dirty;
    // Transmitter for the next tile (every thread holds the same total).
    trans_val = total.v;
    trans_row = dirty ? total.k - 1 : (total.k > 0 ? first[i] + total.k - 1 : trans_row);
    if (i + 1 < nt) // the scan's barrier ordered every read of the descriptor before this
      for (int w = tid; w < a.L.nwords; w += nthr) bits[w] = 0u;
  }
  __syncthreads();
  if (nt > 0) flush(nt - 1);
  if (tid == 0) emit(trans_row, trans_val, a.nrows); // the segment open at the end of the block
}

// The kernels. Register caps keep the compile-time shapes at their occupancy (fp64, 2-warp
// blocks: W = 8 at 96 registers is 10 blocks per SM, 9 at the 98-102 ptxas picks unbounded, ~10 %
// on stream-bound matrices); the generic W only needs to fit 512 threads.
template <typename T>
__global__ void __maxnreg__(96) csrspec_tiles_w8(const TileArgs<T> a) {
  csrspec_tiles_body<T, 8>(a);
}
template <typename T>
__global__ void __maxnreg__(64) csrspec_tiles_w4(const TileArgs<T> a) {
  csrspec_tiles_body<T, 4>(a);
}
template <typename T>
__global__ void __launch_bounds__(kMaxThreads) csrspec_tiles(const TileArgs<T> a) {
  csrspec_tiles_body<T, 0>(a);
}

// Adds the synchronizer into y. Entry i belongs to block i; rows are non-decreasing, so each
// run of equal rows is summed by the thread of its first entry, or by the whole warp when it is
// longer than 32 entries (at most one such run starts in a warp: it covers the warp's end).
template <typename T>
__global__ void __launch_bounds__(kAuxThreads) csrspec_sync(const index_t *__restrict__ srow, const T *__restrict__ sval,
                                                            long long n, T *__restrict__ y) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const int lane    = threadIdx.x & (kWarp - 1);
  const index_t r   = i < n ? srow[i] : -1;
  const bool start  = i < n && (i == 0 || srow[i - 1] != r);
  const bool longrun = start && i + kWarp < n && srow[i + kWarp] == r;
  if (start && !longrun) {
    T s = sval[i];
    for (long long j = i + 1; j < n && srow[j] == r; ++j) s += sval[j];
    y[r] += s;
  }
  const unsigned m = __ballot_sync(kFull, longrun);
  if (m) {
    const int src       = __ffs(m) - 1;
    const long long i0  = __shfl_sync(kFull, i, src);
    const index_t r0    = __shfl_sync(kFull, r, src);
    const long long end = warp_rightmost_le(srow, i0, n, r0) + 1;
    T s                 = T(0);
    for (long long k = i0 + lane; k < end; k += kWarp) s += sval[k];
#pragma unroll
    for (int d = kWarp / 2; d > 0; d >>= 1) s += __shfl_xor_sync(kFull, s, d);
    if (lane == src) y[r0] += s;
  }
}

// Rightmost row r' >= r with rowptr[r'] <= q, given rowptr[r] <= q < nnz: galloping search.
__device__ __forceinline__ long long advance_row(const index_t *__restrict__ rowptr, long long r, long long nrows,
                                                 long long q) {
  long long hi, step = 1;
  for (;;) {
    hi = r + step;
    if (hi >= nrows || __ldg(rowptr + hi) > q) break;
    r = hi;
    step <<= 1;
  }
  hi = min(hi, nrows); // rowptr[nrows] = nnz > q
  while (hi - r > 1) {
    const long long mid = (r + hi) / 2;
    if (__ldg(rowptr + mid) <= q) r = mid;
    else hi = mid;
  }
  return r;
}

// y[col] += val * x[row] over the nonzeros, 32*kTransPerLane consecutive ones per warp.
template <typename T>
__global__ void __launch_bounds__(kAuxThreads) csrspec_trans(const index_t *__restrict__ rowptr,
                                                             const index_t *__restrict__ colidx,
                                                             const T *__restrict__ val, const T *__restrict__ x,
                                                             T *__restrict__ y, index_t nrows, index_t nnz) {
  const int lane       = threadIdx.x & (kWarp - 1);
  const long long base = ((long long)blockIdx.x * blockDim.x + threadIdx.x - lane) * kTransPerLane;
  if (base >= nnz) return; // whole warp
  long long r = warp_rightmost_le(rowptr, 0, nrows + 1LL, base);
#pragma unroll
  for (int j = 0; j < kTransPerLane; ++j) {
    const long long q = base + j * kWarp + lane;
    if (q < nnz) {
      r = advance_row(rowptr, r, nrows, q);
      atomicAdd(y + __ldg(colidx + q), __ldg(val + q) * __ldg(x + r));
    }
  }
}

template <typename T>
using TileKernel = void (*)(TileArgs<T>);

// Compile-time W for the default (8) and 4, at the register caps above without spills. Any other
// W takes the generic kernel (W = 16 compiled would need 114 registers in fp64 and spill in fp32).
template <typename T>
TileKernel<T> tile_kernel(int W) {
  switch (W) {
  case 4: return csrspec_tiles_w4<T>;
  case 8: return csrspec_tiles_w8<T>;
  default: return csrspec_tiles<T>;
  }
}

} // namespace

template <typename T>
cudaError_t CsrSpecDevice<T>::allocate(index_t nrows, index_t ncols, index_t nnz, const CsrSpecParams &user) {
  release();
  CsrSpecParams p;
  try {
    p = csrspec_resolve<T>(user); // validates; S chosen below when the user left it to us
  } catch (const std::invalid_argument &) {
    return cudaErrorInvalidValue;
  }
  cudaError_t err = cudaSuccess;
  if (nnz > 0) { // the tile kernel's shared memory may need the opt-in above 48 KB
    int dev = 0, optin = 0, nsm = 0, per_sm = 0;
    err = cudaGetDevice(&dev);
    if (err == cudaSuccess) err = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    if (err == cudaSuccess) err = cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev);
    const TileKernel<T> kernel = tile_kernel<T>(p.W);
    const bool auto_s          = user.tiles_per_block == 0;
    const TileLayout Lmax      = tile_layout<T>(p.bunches, p.W, auto_s ? csrspec_max_tiles_per_block : p.tiles_per_block);
    if (err == cudaSuccess && Lmax.bytes > unsigned(optin)) err = cudaErrorInvalidValue;
    if (err == cudaSuccess && Lmax.bytes > 48u * 1024u) err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin);
    if (err == cudaSuccess && auto_s) err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, p.bunches * kWarp, Lmax.bytes);
    if (err != cudaSuccess) {
      (void)cudaGetLastError();
      return err;
    }
    p = csrspec_resolve<T>(user, nnz, (long long)nsm * (per_sm > 0 ? per_sm : 1));
  }
  const long long ts     = (long long)p.bunches * kWarp * p.W;
  const long long ntiles = (nnz + ts - 1) / ts;
  const index_t nblocks = index_t((ntiles + p.tiles_per_block - 1) / p.tiles_per_block);
  const std::size_t nrp = nrows > 0 ? std::size_t(nrows) + 1 : 0;
  if ((err = device_alloc(rowptr_, nrp)) != cudaSuccess || (err = device_alloc(colidx_, std::size_t(nnz))) != cudaSuccess ||
      (err = device_alloc(val_, std::size_t(nnz))) != cudaSuccess ||
      (err = device_alloc(sync_row_, std::size_t(nblocks))) != cudaSuccess ||
      (err = device_alloc(sync_val_, std::size_t(nblocks))) != cudaSuccess) {
    release();
    return err;
  }
  nrows_   = nrows;
  ncols_   = ncols;
  nnz_     = nnz;
  nblocks_ = nblocks;
  p_       = p;
  return cudaSuccess;
}

template <typename T>
cudaError_t CsrSpecDevice<T>::fill(const index_t *rowptr, const index_t *colidx, const T *val, Mem where, cudaStream_t s) {
  const cudaMemcpyKind kind = where == Mem::Device ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice;
  const std::size_t    nrp  = nrows_ > 0 ? std::size_t(nrows_) + 1 : 0;
  cudaError_t          err  = cudaSuccess;
  if (nrp) err = cudaMemcpyAsync(rowptr_, rowptr, nrp * sizeof(index_t), kind, s);
  if (err == cudaSuccess && nnz_) err = cudaMemcpyAsync(colidx_, colidx, std::size_t(nnz_) * sizeof(index_t), kind, s);
  if (err == cudaSuccess) err = refresh(val, s, where);
  if (err != cudaSuccess) release();
  return err;
}

template <typename T>
cudaError_t CsrSpecDevice<T>::build(const CsrView<T> &A, const CsrSpecParams &user, cudaStream_t s) {
  const cudaError_t err = allocate(A.nrows, A.ncols, A.nnz(), user);
  return err == cudaSuccess ? fill(A.rowptr, A.colidx, A.val, Mem::Host, s) : err;
}

template <typename T>
cudaError_t CsrSpecDevice<T>::build(const DeviceCsrView<T> &A, const CsrSpecParams &user, cudaStream_t s) {
  const cudaError_t err = allocate(A.nrows, A.ncols, index_t(A.nnz), user);
  return err == cudaSuccess ? fill(A.rowptr, A.colidx, A.val, Mem::Device, s) : err;
}

template <typename T>
cudaError_t CsrSpecDevice<T>::refresh(const T *val, cudaStream_t s, Mem where) {
  if (nnz_ == 0) return cudaSuccess;
  return cudaMemcpyAsync(val_, val, std::size_t(nnz_) * sizeof(T), where == Mem::Device ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice, s);
}

template <typename T>
cudaError_t CsrSpecDevice<T>::apply(Op op, const T *x, const T *z, T *y, cudaStream_t s) const {
  const index_t nout = op == Op::Trans ? ncols_ : nrows_;
  if (nout == 0) return cudaSuccess;
  if (op == Op::Trans || nnz_ == 0) { // y = z or 0 first
    const cudaError_t err = init_output(y, z, nout, s);
    if (err != cudaSuccess || nnz_ == 0) return err;
  }
  if (op == Op::Trans) {
    const long long per_block = (long long)kAuxThreads * kTransPerLane;
    const unsigned grid       = unsigned((nnz_ + per_block - 1) / per_block);
    csrspec_trans<T><<<grid, kAuxThreads, 0, s>>>(rowptr_, colidx_, val_, x, y, nrows_, nnz_);
    return launched();
  }
  const int nthr         = p_.bunches * kWarp;
  const long long ts     = (long long)nthr * p_.W;
  const TileArgs<T> args = {rowptr_, colidx_, val_, x, z, y, sync_row_, sync_val_, nrows_, nnz_, p_.W,
                            p_.tiles_per_block, (nnz_ + ts - 1) / ts,
                            tile_layout<T>(p_.bunches, p_.W, p_.tiles_per_block)};
  tile_kernel<T>(p_.W)<<<unsigned(nblocks_), nthr, args.L.bytes, s>>>(args);
  cudaError_t err = launched();
  if (err != cudaSuccess) return err;
  csrspec_sync<T><<<unsigned((nblocks_ + kAuxThreads - 1) / kAuxThreads), kAuxThreads, 0, s>>>(sync_row_, sync_val_,
                                                                                              nblocks_, y);
  return launched();
}

template <typename T>
cudaError_t CsrSpecDevice<T>::diagonal(const index_t *rowmap, T *d, cudaStream_t s) const {
  if (nrows_ == 0) return cudaSuccess;
  return csr_diagonal(rowptr_, colidx_, val_, rowmap, nrows_, d, s);
}

template <typename T>
std::size_t CsrSpecDevice<T>::aux_bytes() const {
  return std::size_t(nblocks_) * (sizeof(index_t) + sizeof(T));
}

template <typename T>
std::size_t CsrSpecDevice<T>::device_bytes() const {
  const std::size_t nrp = nrows_ > 0 ? std::size_t(nrows_) + 1 : 0;
  return nrp * sizeof(index_t) + std::size_t(nnz_) * (sizeof(index_t) + sizeof(T)) + aux_bytes();
}

template <typename T>
void CsrSpecDevice<T>::release() {
  cudaFree(rowptr_);
  cudaFree(colidx_);
  cudaFree(val_);
  cudaFree(sync_row_);
  cudaFree(sync_val_);
  rowptr_ = colidx_ = sync_row_ = nullptr;
  val_ = sync_val_ = nullptr;
  nrows_ = ncols_ = nnz_ = nblocks_ = 0;
  p_ = CsrSpecParams{};
}

template class CsrSpecDevice<double>;
template class CsrSpecDevice<float>;

} // namespace cuda
} // namespace gpumat
