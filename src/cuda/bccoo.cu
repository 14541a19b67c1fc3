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
//
// This file: the builder and BccooDevice. The product kernels are in bccoo_spmv.cuh, compiled per
// block height (bccoo_h<H>.cu) so that a process loads only the CUDA modules it runs
// (bccoo_launch.cuh says why).
#include "bccoo.cuh"
#include "bccoo_launch.cuh"
#include "common.cuh"
#include "primitives.cuh"
#include "rowmap.cuh"

#include <algorithm>
#include <climits>
#include <vector>

namespace gpumat {
namespace cuda {

namespace {

using namespace bccoo_kernels;

constexpr int          kThreads      = 256;
constexpr int          kCacheBytes   = 24 * 1024; // result cache per group: 8 groups of 256 fit an SM

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
// Products: the kernels are in bccoo_spmv.cuh (one module per block height); the combine step of
// BCCOO+ and the diagonal's zeroing run with every product and stay in this module.
// BCCOO+: y = z + the slices' partial sums
template <typename T>
__global__ void bccoo_combine(const T *__restrict__ part, long long stride, int slices, index_t nrows, const T *z, T *y) {
  const long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (r >= nrows) return;
  T s = z ? z[r] : T(0);
  for (int k = 0; k < slices; ++k) s += part[k * stride + r];
  y[r] = s;
}

template <typename T>
__global__ void diag_zero(const index_t *rowmap, index_t nrows, T *d) {
  const long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (r < nrows) d[rowmap ? rowmap[r] : r] = T(0);
}

// The launchers of bccoo_launch.cuh by block height: the production kernels (kSpmv, kTrans, kDiag)
// from bccoo_h<H>.cu, the ablation's steps from bccoo_stages.cu.
template <typename T>
cudaError_t launch(int h, int w, int kind, bool comp, dim3 grid, dim3 block, std::size_t smem, cudaStream_t s, const SpmvArgs<T> &a) {
  const bool stage = kind == kSpmvNoSkip || kind == kSpmvSeparateCarry;
  switch (h) {
  case 1: return stage ? launch_stage_h<T, 1>(w, kind, comp, grid, block, smem, s, a) : launch_h<T, 1>(w, kind, comp, grid, block, smem, s, a);
  case 2: return stage ? launch_stage_h<T, 2>(w, kind, comp, grid, block, smem, s, a) : launch_h<T, 2>(w, kind, comp, grid, block, smem, s, a);
  case 3: return stage ? launch_stage_h<T, 3>(w, kind, comp, grid, block, smem, s, a) : launch_h<T, 3>(w, kind, comp, grid, block, smem, s, a);
  default: return stage ? launch_stage_h<T, 4>(w, kind, comp, grid, block, smem, s, a) : launch_h<T, 4>(w, kind, comp, grid, block, smem, s, a);
  }
}

template <typename T>
cudaError_t group_carry(int h, unsigned grid, cudaStream_t s, const SpmvArgs<T> &a, int G) {
  switch (h) {
  case 1: return launch_group_carry<T, 1>(grid, kThreads, s, a, G);
  case 2: return launch_group_carry<T, 2>(grid, kThreads, s, a, G);
  case 3: return launch_group_carry<T, 3>(grid, kThreads, s, a, G);
  default: return launch_group_carry<T, 4>(grid, kThreads, s, a, G);
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
  return build_uploaded(A, s, [&](const DeviceCsrView<T> &v, PhaseTimer &clock) { return build_from(v, params, s, clock); });
}

template <typename T>
cudaError_t BccooDevice<T>::build(const DeviceCsrView<T> &A, const BccooParams &params, cudaStream_t s) {
  return build_on_device(A, s, [&](const DeviceCsrView<T> &v, PhaseTimer &clock) { return build_from(v, params, s, clock); });
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
  StreamTemps     tmp{s};
  const index_t  *rowptr = A.rowptr, *colidx = A.colidx;
  const T        *aval   = A.val;
  index_t        *row    = tmp.get<index_t>(nnz);
  int            *flag   = tmp.get<int>(1);
  GPUMAT_CUDA_TRY(tmp.err);
  GPUMAT_CUDA_TRY(cudaMemsetAsync(flag, 0, sizeof(int), s));
  GPUMAT_CUDA_TRY(entry_rows(rowptr, nrows_, nnz, row, s));
  if (nnz > 1) check_sorted<<<grid_for(nnz, nt), nt, 0, s>>>(row, colidx, nnz, flag);
  GPUMAT_CUDA_TRY(launched());
  int unsorted = 0;
  GPUMAT_CUDA_TRY(cudaMemcpyAsync(&unsorted, flag, sizeof(int), cudaMemcpyDeviceToHost, s));
  GPUMAT_CUDA_TRY(cudaStreamSynchronize(s));

  // block order: within each block row by column (sorted rows merged when h > 1, a segmented sort
  // of the block rows when some row is unsorted)
  index_t       *order = nullptr, *sorted = nullptr;
  const index_t *scol  = colidx;
  if (nnz > 0 && h > 1 && !unsorted) {
    order = tmp.get<index_t>(nnz), sorted = tmp.get<index_t>(nnz), scol = sorted;
    GPUMAT_CUDA_TRY(tmp.err);
    merge_block_rows<<<grid_for(nnz, nt), nt, 0, s>>>(rowptr, row, colidx, geo, order, sorted);
    GPUMAT_CUDA_TRY(launched());
  } else if (nnz > 0 && unsorted) {
    index_t *off = tmp.get<index_t>(nbrows_ + 1), *iv = tmp.get<index_t>(nnz);
    order = tmp.get<index_t>(nnz), sorted = tmp.get<index_t>(nnz), scol = sorted;
    GPUMAT_CUDA_TRY(tmp.err);
    block_row_offsets<<<grid_for(nbrows_ + 1LL, nt), nt, 0, s>>>(rowptr, geo, off);
    fill_iota<<<grid_for(nnz, nt), nt, 0, s>>>(iv, nnz);
    GPUMAT_CUDA_TRY(launched());
    GPUMAT_CUDA_TRY(sort_segments(colidx, sorted, iv, order, nnz, nbrows_, off, s));
  }

  clock.mark("order");

  // blocks: heads, their ranks, blocks per segment
  // rank[i] = heads at positions <= i (the block of position i, from 1): an exclusive sum over
  // nnz + 1 heads, the last 0, read one entry on
  int     *head = tmp.get<int>(nnz + 1), *rank1 = tmp.get<int>(nnz + 1), *count = tmp.get<int>(nsegments_), *rank = rank1 + 1;
  index_t *gfirst = tmp.get<index_t>(nsegments_), *len = tmp.get<index_t>(nsegments_ + 1), *seg_start = tmp.get<index_t>(nsegments_ + 1);
  GPUMAT_CUDA_TRY(tmp.err);
  GPUMAT_CUDA_TRY(cudaMemsetAsync(count, 0, sizeof(int) * nsegments_, s));
  if (nnz > 0) {
    GPUMAT_CUDA_TRY(cudaMemsetAsync(head + nnz, 0, sizeof(int), s));
    mark_heads<<<grid_for(nnz, nt), nt, 0, s>>>(geo, row, scol, head, count);
    GPUMAT_CUDA_TRY(launched());
    GPUMAT_CUDA_TRY(exclusive_sum(head, rank1, nnz + 1, s));
    segment_first_rank<<<grid_for(nnz, nt), nt, 0, s>>>(geo, row, scol, rank, gfirst);
    GPUMAT_CUDA_TRY(launched());
  }
  segment_lengths<<<grid_for(nsegments_ + 1, nt), nt, 0, s>>>(count, nsegments_, len);
  GPUMAT_CUDA_TRY(launched());
  GPUMAT_CUDA_TRY(exclusive_sum(len, seg_start, nsegments_ + 1, s));
  index_t nb = 0, real = 0;
  GPUMAT_CUDA_TRY(cudaMemcpyAsync(&nb, seg_start + nsegments_, sizeof(index_t), cudaMemcpyDeviceToHost, s));
  if (nnz > 0) GPUMAT_CUDA_TRY(cudaMemcpyAsync(&real, rank + nnz - 1, sizeof(index_t), cudaMemcpyDeviceToHost, s));
  clock.mark("blocks");
  GPUMAT_CUDA_TRY(cudaStreamSynchronize(s));
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
  GPUMAT_CUDA_TRY(device_alloc(flags_, flag_words));
  GPUMAT_CUDA_TRY(device_alloc(val_, std::size_t(plane) * h));
  if (p_.compress_col) {
    GPUMAT_CUDA_TRY(device_alloc(dcol_, std::size_t(padded_)));
    GPUMAT_CUDA_TRY(device_alloc(escape_start_, std::size_t(ntiles_) + 1));
  } else GPUMAT_CUDA_TRY(device_alloc(col_, std::size_t(padded_)));
  GPUMAT_CUDA_TRY(device_alloc(first_segment_, std::size_t(ntiles_) + 1));
  GPUMAT_CUDA_TRY(device_alloc(no_scan_, std::size_t(ngroups_)));
  GPUMAT_CUDA_TRY(device_alloc(slot_, std::size_t(nnz)));
  if (p_.slices > 1) GPUMAT_CUDA_TRY(device_alloc(part_, std::size_t(nsegments_) * h));
  GPUMAT_CUDA_TRY(device_alloc(grp_val_, std::size_t(ngroups_) * h));
  GPUMAT_CUDA_TRY(device_alloc(grp_status_, std::size_t(ngroups_)));
  GPUMAT_CUDA_TRY(device_alloc(ticket_, 2));
  index_t *bcol = tmp.get<index_t>(padded_), *nesc = tmp.get<index_t>(ntiles_ + 1), *gseg = tmp.get<index_t>(ngroups_);
  int     *gmax = tmp.get<int>(1);
  GPUMAT_CUDA_TRY(tmp.err);
  GPUMAT_CUDA_TRY(cudaMemsetAsync(flags_, 0xff, flag_words * sizeof(unsigned), s));
  GPUMAT_CUDA_TRY(cudaMemsetAsync(val_, 0, sizeof(T) * plane * h, s));
  GPUMAT_CUDA_TRY(cudaMemsetAsync(bcol, 0, sizeof(index_t) * padded_, s));
  GPUMAT_CUDA_TRY(cudaMemsetAsync(grp_status_, 0, sizeof(unsigned) * ngroups_, s));
  GPUMAT_CUDA_TRY(cudaMemsetAsync(ticket_, 0, 2 * sizeof(unsigned), s));
  epoch_ = 0;
  clock.mark("allocate");
  if (nnz > 0) {
    place<T><<<grid_for(nnz, nt), nt, 0, s>>>(geo, row, scol, order, rank, gfirst, seg_start, aval, plane, val_, slot_, bcol);
    GPUMAT_CUDA_TRY(launched());
  }
  clock.mark("place");
  segment_ends<<<grid_for(nsegments_, nt), nt, 0, s>>>(geo, count, seg_start, bcol, flags_);
  first_segments<<<grid_for(ntiles_ + 1, nt), nt, 0, s>>>(seg_start, nsegments_, ntiles_, TT, first_segment_);
  compress_columns<<<grid_for(ntiles_, nt), nt, 0, s>>>(geo, bcol, first_segment_, ntiles_, dcol_, nesc, col_);
  group_info<<<grid_for(ngroups_, nt), nt, 0, s>>>(first_segment_, ngroups_, G, no_scan_, gseg);
  GPUMAT_CUDA_TRY(launched());
  GPUMAT_CUDA_TRY(reduce_max(gseg, ngroups_, gmax, s));
  index_t nescapes = 0;
  int     maxseg   = 0;
  if (p_.compress_col) {
    GPUMAT_CUDA_TRY(cudaMemsetAsync(nesc + ntiles_, 0, sizeof(index_t), s));
    GPUMAT_CUDA_TRY(exclusive_sum(nesc, escape_start_, ntiles_ + 1, s));
    GPUMAT_CUDA_TRY(cudaMemcpyAsync(&nescapes, escape_start_ + ntiles_, sizeof(index_t), cudaMemcpyDeviceToHost, s));
  }
  GPUMAT_CUDA_TRY(cudaMemcpyAsync(&maxseg, gmax, sizeof(int), cudaMemcpyDeviceToHost, s));
  GPUMAT_CUDA_TRY(cudaStreamSynchronize(s));
  nescapes_ = nescapes;
  cache_    = std::min<int>(maxseg, kCacheBytes / int(h * sizeof(T)));
  if (nescapes_ > 0) {
    GPUMAT_CUDA_TRY(device_alloc(escape_, std::size_t(nescapes_)));
    write_escapes<<<grid_for(ntiles_, nt), nt, 0, s>>>(geo, bcol, first_segment_, ntiles_, escape_start_, escape_);
    GPUMAT_CUDA_TRY(launched());
  }
  clock.mark("columns");
  GPUMAT_CUDA_TRY(tmp.err);
  GPUMAT_CUDA_TRY(cudaStreamSynchronize(s)); // the temporaries' frees follow; the times are read now
  build_phases_ = clock.times();
  return cudaSuccess;
}

template <typename T>
cudaError_t BccooDevice<T>::refresh(const T *val, cudaStream_t s, Mem where) {
  return refresh_through_slots(val, nnz_, slot_, val_, s, where);
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
    GPUMAT_CUDA_TRY(init_output(y, z, nout, s));
    return launch<T>(p_.h, p_.w, kTrans, p_.compress_col, grid, block, 0, s, a);
  }
  const int kind = v.stage == BccooStage::production ? kSpmv : v.stage == BccooStage::adjacent_sync ? kSpmvNoSkip : kSpmvSeparateCarry;
  if (kind != kSpmvSeparateCarry) { // the adjacent synchronization's epoch
    a.epoch = ++epoch_;
    if (a.epoch == 0) a.epoch = ++epoch_; // 0 marks "never published"
  }
  GPUMAT_CUDA_TRY(launch<T>(p_.h, p_.w, kind, p_.compress_col, grid, block, spmv_smem<T>(p_.h, p_.group, a.cache), s, a));
  if (kind == kSpmvSeparateCarry && ngroups_ > 1) { // the second kernel: carries across groups
    const unsigned cg = grid_for(ngroups_, kThreads);
    GPUMAT_CUDA_TRY(group_carry<T>(p_.h, cg, s, a, p_.group));
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
  GPUMAT_CUDA_TRY(launched());
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
  GPUMAT_CUDA_TRY(settled());
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
  GPUMAT_CUDA_TRY(get(B.flags, reinterpret_cast<const unsigned char *>(flags_), std::size_t((padded_ + 7) / 8)));
  GPUMAT_CUDA_TRY(get(B.val, val_, std::size_t(padded_) * p_.w * p_.h));
  if (p_.compress_col) {
    GPUMAT_CUDA_TRY(get(B.dcol, dcol_, std::size_t(padded_)));
    GPUMAT_CUDA_TRY(get(B.escape, escape_, std::size_t(nescapes_)));
    GPUMAT_CUDA_TRY(get(B.escape_start, escape_start_, std::size_t(ntiles_)));
  } else GPUMAT_CUDA_TRY(get(B.col, col_, std::size_t(padded_)));
  GPUMAT_CUDA_TRY(get(B.first_segment, first_segment_, std::size_t(ntiles_)));
  GPUMAT_CUDA_TRY(get(B.no_scan, no_scan_, std::size_t(ngroups_)));
  return cudaSuccess;
}

template class BccooDevice<double>;
template class BccooDevice<float>;

} // namespace cuda
} // namespace gpumat
