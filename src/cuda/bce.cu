// bce on the GPU (see bce.cuh; the layout and the time model: src/core/bce.hpp).
//
// Build, from the CSR on the device:
//   split   the long rows apart (LongRowsDevice::classify);
//   DF      the longest short row (CUB max), a count per length up to it (atomics), read back;
//           merging and the dynamic program on the host (bce_groups_from: the host's code);
//   order   each short row's group by a binary search of its length in the widths (the paper's
//           Algorithm 3), a stable radix sort of (window, group): rows in matrix order within
//           their block (the host's order); the blocks from the runs of equal keys (a scan), read
//           back, their table (widths, rows, positions, starts, first warps) uploaded;
//   fill    a thread per position writes its row column by column within its group (consecutive
//           rows at consecutive addresses), its padding (value 0, the row's last column) and the
//           slot map; the long rows' chunks and entries (LongRowsDevice::fill).
// Product (one kernel): the first blocks take the long rows' chunks (long_rows_kernels.cuh), the
// others a warp per 32 rows of one block (its block by a binary search of the warp in the blocks'
// first warps, the same for every lane), a thread per row walking the group's width, eight loads in
// flight, the matrix streamed past the caches so that x keeps them, y written through row_no.
// Byte model (fp64, 32-bit indices): 12 B per stored entry (padding included) + 4 B per short row
// (row_no) + the group table + the long part (12 B per entry, 8 B per long row) + x + y.
#include "bce.cuh"
#include "common.cuh"
#include "long_rows_kernels.cuh"
#include "rowmap.cuh"

#include <algorithm>
#include <climits>
#include <string>

namespace gpumat {
namespace cuda {

namespace {

constexpr int kThreads = 256;
constexpr int kUnroll  = 8; // entries of a row loaded at once by the product

// The block table's arrays (bce.cuh: width[k], rows[k], pos[k], start[k + 1], warp[k + 1] for k
// blocks).
struct BlockTable {
  const index_t *width, *rows, *pos, *start, *warp;
  int            k;
};
inline BlockTable block_table(const index_t *table, int k) { return {table, table + k, table + 2 * k, table + 3 * k, table + 4 * k + 1, k}; }

// The last g with v[g] <= x in v[0..n) (v increasing, v[0] <= x).
__device__ __forceinline__ int last_at_most(const index_t *__restrict__ v, int n, long long x) {
  int lo = 0, hi = n;
  while (hi - lo > 1) {
    const int mid = (lo + hi) >> 1;
    if (__ldg(v + mid) <= x) lo = mid;
    else hi = mid;
  }
  return lo;
}

// The longest short row: len[r] for short rows, 0 for long ones (then reduce_max).
__global__ void __launch_bounds__(kThreads) bce_short_len(const index_t *__restrict__ rowptr, index_t nrows, long long long_row, index_t *__restrict__ len) {
  const long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= nrows) return;
  const index_t n = rowptr[r + 1] - rowptr[r];
  len[r]          = n <= long_row ? n : 0;
}

// count[m] = short rows of m nonzeros (count zeroed before).
__global__ void __launch_bounds__(kThreads) bce_histogram(const index_t *__restrict__ rowptr, index_t nrows, long long long_row, unsigned long long *__restrict__ count) {
  const long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= nrows) return;
  const index_t n = rowptr[r + 1] - rowptr[r];
  if (n <= long_row) atomicAdd(count + n, 1ull);
}

// Short row r at its place among the short rows (short_pos): its row number and its key (its
// window, then its group: the narrowest group at least as wide as the row, a binary search of its
// length in the k group widths).
__global__ void __launch_bounds__(kThreads) bce_keys(const index_t *__restrict__ rowptr, index_t nrows, long long long_row, const index_t *__restrict__ short_pos,
                                                     const index_t *__restrict__ gw, int k, long long window, int gbits, std::uint64_t *__restrict__ keys,
                                                     index_t *__restrict__ rows) {
  const long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= nrows) return;
  const index_t n = rowptr[r + 1] - rowptr[r];
  if (n > long_row) return;
  int lo = -1, hi = k - 1; // the first g with gw[g] >= n (the widest group holds every short row)
  while (hi - lo > 1) {
    const int mid = (lo + hi) >> 1;
    if (gw[mid] >= n) hi = mid;
    else lo = mid;
  }
  const index_t i = short_pos[r];
  keys[i]         = (std::uint64_t(r / window) << gbits) | std::uint64_t(hi);
  rows[i]         = index_t(r);
}

// flag[i] = position i starts a block (its key differs from the previous one); flag[n] = 0.
__global__ void __launch_bounds__(kThreads) bce_block_flags(const std::uint64_t *__restrict__ keys, index_t n, index_t *__restrict__ flag) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i > n) return;
  flag[i] = i < n && (i == 0 || keys[i] != keys[i - 1]);
}

// The blocks' first positions and keys.
__global__ void __launch_bounds__(kThreads) bce_block_starts(const std::uint64_t *__restrict__ keys, index_t n, const index_t *__restrict__ flag,
                                                             const index_t *__restrict__ idx, index_t *__restrict__ first, std::uint64_t *__restrict__ bkey) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || !flag[i]) return;
  first[idx[i]] = index_t(i);
  bkey[idx[i]]  = keys[i];
}

// A thread per position: its row's entries column by column within its group, the padding, the slot map.
template <typename T>
__global__ void __launch_bounds__(kThreads) bce_fill(const index_t *__restrict__ rowptr, const index_t *__restrict__ colidx, const T *__restrict__ aval,
                                                     const index_t *__restrict__ row_no, index_t nshort, BlockTable G, index_t *__restrict__ col, T *__restrict__ val,
                                                     unsigned *__restrict__ slot) {
  const long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= nshort) return;
  const int     g = last_at_most(G.pos, G.k, p);
  const index_t r = row_no[p], q0 = rowptr[r], n = rowptr[r + 1] - q0, w = G.width[g], rows = G.rows[g];
  const index_t last = n > 0 ? colidx[q0 + n - 1] : 0;
  long long     at   = G.start[g] + (p - G.pos[g]);
  for (index_t j = 0; j < w; ++j, at += rows) {
    if (j < n) {
      col[at]      = colidx[q0 + j];
      val[at]      = aval[q0 + j];
      slot[q0 + j] = unsigned(at);
    } else {
      col[at] = last;
      val[at] = T(0);
    }
  }
}

// wblock[w] = the block of warp w (the last b with warp[b] <= w): the product's warps find their
// block in one load instead of a binary search over the blocks' first warps (about 10 dependent
// loads before the first entry on 1000 blocks).
__global__ void __launch_bounds__(kThreads) bce_warp_blocks(BlockTable G, long long warps, index_t *__restrict__ wblock) {
  const long long w = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (w < warps) wblock[w] = last_at_most(G.warp, G.k + 1, w);
}

template <typename T>
struct BceArgs {
  BlockTable     G;
  const index_t *wblock; // warps: each warp's block
  const index_t *row_no, *col;
  const T       *val;
  LongArgs<T>    lg; // the long part, in the kernel's first lg.blocks blocks
};

// The row of this thread in the group part: CUDA block b (after the long part's) holds warps
// 8 (b - lg.blocks) .. + 7; warp w is in block g = wblock[w]; its lane is the block's row
// (w - warp[g]) x 32 + lane, if the block has that many.
// In 32 bits: the build keeps the padded entries (and so the rows and warps) below 2^31 (as pjds's
// product; 64-bit positions cost bce 5-10 % against pjds on web_1M and web_40M, H100).
struct GroupRow {
  int      g;
  index_t  i, rows, width; // the row within the block; the block's rows and width
  unsigned at;             // its first entry
};
// This thread's row in the group part, or false (past the last warp, or past its block's rows).
template <typename T>
__device__ __forceinline__ bool group_row(const BceArgs<T> &a, long long warps, GroupRow &h) {
  const unsigned w = (unsigned(blockIdx.x - a.lg.blocks) * kThreads + threadIdx.x) >> 5;
  if (w >= warps) return false;
  h.g    = a.wblock[w];
  h.rows = a.G.rows[h.g];
  h.i    = index_t((w - unsigned(a.G.warp[h.g])) * 32 + (threadIdx.x & 31));
  if (h.i >= h.rows) return false;
  h.width = a.G.width[h.g];
  h.at    = unsigned(a.G.start[h.g] + h.i);
  return true;
}

template <typename T, int MinBlocks>
__global__ void __launch_bounds__(kThreads, MinBlocks) bce_spmv(BceArgs<T> a, long long warps, const T *__restrict__ x, const T *z, T *y) {
  if (blockIdx.x < a.lg.blocks) {
    long_chunks(a.lg, x, z, y);
    return;
  }
  GroupRow h;
  if (!group_row(a, warps, h)) return;
  const unsigned rows = unsigned(h.rows);
  const index_t  n    = h.width;
  T              s0 = T(0), s1 = T(0);
  unsigned       p  = h.at; // positions below 2^31; p may wrap after the last step, unused
  for (index_t j = 0; j < n; j += kUnroll, p += kUnroll * rows) {
    index_t c[kUnroll];
    T       v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const bool ok = j + u < n;
      c[u]          = ok ? __ldcs(a.col + p + u * rows) : 0;
      v[u]          = ok ? __ldcs(a.val + p + u * rows) : T(0);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (j + u < n) (u & 1 ? s1 : s0) += v[u] * __ldg(x + c[u]);
  }
  const T       s = s0 + s1;
  const index_t r = a.row_no[a.G.pos[h.g] + h.i];
  y[r]            = z ? z[r] + s : s;
}

// y += A^T x (y set to z or 0 before).
template <typename T>
__global__ void __launch_bounds__(kThreads) bce_spmv_t(BceArgs<T> a, long long warps, const T *__restrict__ x, T *__restrict__ y) {
  if (blockIdx.x < a.lg.blocks) {
    long_chunk_t(a.lg, x, y);
    return;
  }
  GroupRow h;
  if (!group_row(a, warps, h)) return;
  const T   xr = x[a.row_no[a.G.pos[h.g] + h.i]];
  long long p  = h.at;
  for (index_t j = 0; j < h.width; ++j, p += h.rows) atomicAdd(y + a.col[p], a.val[p] * xr);
}

// The diagonal: a thread per row of the groups; the long rows' entries by chunk (d preset to 0).
template <typename T>
__global__ void __launch_bounds__(kThreads) bce_diag(BceArgs<T> a, long long warps, const index_t *__restrict__ rowmap, T *__restrict__ d) {
  if (blockIdx.x < a.lg.blocks) {
    long_chunk_diag(a.lg, rowmap, d);
    return;
  }
  GroupRow h;
  if (!group_row(a, warps, h)) return;
  const index_t r = a.row_no[a.G.pos[h.g] + h.i], cr = rowmap ? rowmap[r] : r;
  T             v = T(0);
  long long     p = h.at;
  for (index_t j = 0; j < h.width; ++j, p += h.rows)
    if (a.col[p] == cr) { // the first match: the row's entry (its padding repeats its last column with 0)
      v = a.val[p];
      break;
    }
  d[cr] = v;
}

} // namespace

template <typename T>
std::size_t BceDevice<T>::format_bytes() const {
  if (!table_) return 0; // not built
  const std::size_t k = width_.size();
  return std::size_t(padded_) * (sizeof(T) + sizeof(index_t)) + std::size_t(nshort_) * sizeof(index_t) + k * 3 * sizeof(index_t) + (k + 1) * sizeof(std::int64_t) + std::size_t(warps_) * sizeof(index_t) + lr_.format_bytes();
}

template <typename T>
std::size_t BceDevice<T>::device_bytes() const {
  if (!table_) return 0;
  return std::size_t(padded_) * (sizeof(T) + sizeof(index_t)) + std::size_t(nshort_) * sizeof(index_t) + (5 * width_.size() + 2) * sizeof(index_t) + std::size_t(warps_) * sizeof(index_t) + lr_.device_bytes() +
         std::size_t(nnz_) * sizeof(unsigned);
}

template <typename T>
void BceDevice<T>::release() {
  device_free(table_);
  device_free(wblock_);
  device_free(row_no_);
  device_free(col_);
  device_free(val_);
  device_free(slot_);
  lr_.release();
  width_.clear(), rows_.clear(), group_width_.clear();
  nrows_ = ncols_ = nnz_ = nshort_ = 0;
  padded_ = warps_ = 0;
  sets_df_ = sets_ = 0;
}

template <typename T>
cudaError_t BceDevice<T>::build(const CsrView<T> &A, const BceParams &params, cudaStream_t s) {
  release();
  return build_uploaded(A, s, [&](const DeviceCsrView<T> &v, PhaseTimer &clock) { return build_from(v, params, s, clock); });
}

template <typename T>
cudaError_t BceDevice<T>::build(const DeviceCsrView<T> &A, const BceParams &params, cudaStream_t s) {
  return build_on_device(A, s, [&](const DeviceCsrView<T> &v, PhaseTimer &clock) { return build_from(v, params, s, clock); });
}

template <typename T>
cudaError_t BceDevice<T>::build_from(const DeviceCsrView<T> &A, const BceParams &params, cudaStream_t s, PhaseTimer &clock) {
  release();
  why_ = "";
  phases_.clear();
  try {
    p_ = bce_resolve(params);
  } catch (const std::exception &e) {
    return fail(e.what());
  }
  nrows_ = A.nrows, ncols_ = A.ncols, nnz_ = index_t(A.nnz);
  const int       nt = kThreads;
  const long long n  = nrows_;
  GPUMAT_CUDA_TRY(device_alloc(table_, 2)); // marks a built object; an empty matrix has no groups
  GPUMAT_CUDA_TRY(cudaMemsetAsync(table_, 0, 2 * sizeof(index_t), s));
  if (n == 0) {
    if (p_.long_row == 0) p_.long_row = default_long_row(0, A.nnz, 0); // as the host's bce_build
    return cudaSuccess;
  }

  StreamTemps tmp{s};
  index_t    *short_pos = tmp.get<index_t>(n + 1), *len = tmp.get<index_t>(n), *maxlen = tmp.get<index_t>(1);
  GPUMAT_CUDA_TRY(tmp.err);
  // the longest row of those up to `below` entries (every row: LLONG_MAX)
  auto longest = [&](long long below, index_t &mx) {
    bce_short_len<<<grid_for(n, nt), nt, 0, s>>>(A.rowptr, nrows_, below, len);
    GPUMAT_CUDA_TRY(launched());
    GPUMAT_CUDA_TRY(reduce_max(len, n, maxlen, s));
    GPUMAT_CUDA_TRY(cudaMemcpyAsync(&mx, maxlen, sizeof(index_t), cudaMemcpyDeviceToHost, s));
    return cudaStreamSynchronize(s);
  };
  index_t mx = 0, mx_all = -1;
  if (p_.long_row == 0) { // the default (default_long_row): 32, or every row where none is far longer than the mean
    GPUMAT_CUDA_TRY(longest(LLONG_MAX, mx_all));
    p_.long_row = default_long_row(n, A.nnz, mx_all);
  }
  GPUMAT_CUDA_TRY(lr_.classify(A, p_.long_row, short_pos, tmp, s));
  nshort_ = index_t(n - lr_.count());
  clock.mark("split");

  // the distribution function: a count per length up to the longest short row (known when no
  // row is long)
  if (mx_all >= 0 && mx_all <= p_.long_row) mx = mx_all;
  else GPUMAT_CUDA_TRY(longest(p_.long_row, mx));
  std::vector<BceSet> df;
  if (nshort_ > 0) {
    if (std::int64_t(mx) <= 8 * std::int64_t(n) + 1024) {
      unsigned long long *count = tmp.get<unsigned long long>(std::size_t(mx) + 1);
      GPUMAT_CUDA_TRY(tmp.err);
      GPUMAT_CUDA_TRY(cudaMemsetAsync(count, 0, (std::size_t(mx) + 1) * sizeof(unsigned long long), s));
      bce_histogram<<<grid_for(n, nt), nt, 0, s>>>(A.rowptr, nrows_, p_.long_row, count);
      GPUMAT_CUDA_TRY(launched());
      std::vector<unsigned long long> h(std::size_t(mx) + 1);
      GPUMAT_CUDA_TRY(cudaMemcpyAsync(h.data(), count, h.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost, s));
      GPUMAT_CUDA_TRY(cudaStreamSynchronize(s));
      for (std::size_t m = 0; m < h.size(); ++m)
        if (h[m]) df.push_back({std::int64_t(m), std::int64_t(h[m]), std::int64_t(m) * std::int64_t(h[m])});
    } else { // few rows, a user's long_row far above them: the host's DF of the row pointers
      std::vector<index_t> rp(std::size_t(n) + 1);
      GPUMAT_CUDA_TRY(cudaMemcpyAsync(rp.data(), A.rowptr, rp.size() * sizeof(index_t), cudaMemcpyDeviceToHost, s));
      GPUMAT_CUDA_TRY(cudaStreamSynchronize(s));
      df = bce_distribution(CsrView<T>{nrows_, ncols_, rp.data(), nullptr, nullptr}, p_.long_row);
    }
  }
  const BceGroups G = bce_groups_from(df, p_);
  sets_df_ = G.sets_before_merge, sets_ = G.sets;
  group_width_     = G.width;
  const int k      = int(group_width_.size());
  clock.mark("groups");

  // the order: rows by (window, group), matrix order within a block (a stable sort of the keys),
  // the blocks from the runs of equal keys
  GPUMAT_CUDA_TRY(device_alloc(row_no_, std::size_t(nshort_)));
  std::vector<index_t>       first;
  std::vector<std::uint64_t> bkey;
  const int                  gbits = k > 0 ? bit_width((unsigned long long)(k - 1)) : 0; // group numbers 0..k-1
  if (nshort_ > 0) {
    std::uint64_t *keys = tmp.get<std::uint64_t>(std::size_t(nshort_)), *keys_sorted = tmp.get<std::uint64_t>(std::size_t(nshort_));
    index_t       *rows = tmp.get<index_t>(std::size_t(nshort_)), *gw = tmp.get<index_t>(std::size_t(k));
    index_t       *flag = tmp.get<index_t>(std::size_t(nshort_) + 1), *idx = tmp.get<index_t>(std::size_t(nshort_) + 1);
    GPUMAT_CUDA_TRY(tmp.err);
    GPUMAT_CUDA_TRY(cudaMemcpyAsync(gw, group_width_.data(), std::size_t(k) * sizeof(index_t), cudaMemcpyHostToDevice, s));
    bce_keys<<<grid_for(n, nt), nt, 0, s>>>(A.rowptr, nrows_, p_.long_row, short_pos, gw, k, (long long)p_.window, gbits, keys, rows);
    GPUMAT_CUDA_TRY(launched());
    const int bits = gbits + bit_width((unsigned long long)((n - 1) / p_.window));
    if (bits > 0) GPUMAT_CUDA_TRY(sort_pairs(keys, keys_sorted, rows, row_no_, nshort_, bits, s));
    else {
      GPUMAT_CUDA_TRY(cudaMemcpyAsync(row_no_, rows, std::size_t(nshort_) * sizeof(index_t), cudaMemcpyDeviceToDevice, s));
      GPUMAT_CUDA_TRY(cudaMemcpyAsync(keys_sorted, keys, std::size_t(nshort_) * sizeof(std::uint64_t), cudaMemcpyDeviceToDevice, s));
    }
    bce_block_flags<<<grid_for(nshort_ + 1, nt), nt, 0, s>>>(keys_sorted, nshort_, flag);
    GPUMAT_CUDA_TRY(launched());
    GPUMAT_CUDA_TRY(exclusive_sum(flag, idx, nshort_ + 1, s));
    index_t nb = 0;
    GPUMAT_CUDA_TRY(cudaMemcpyAsync(&nb, idx + nshort_, sizeof(index_t), cudaMemcpyDeviceToHost, s));
    GPUMAT_CUDA_TRY(cudaStreamSynchronize(s));
    index_t       *dfirst = tmp.get<index_t>(std::size_t(nb));
    std::uint64_t *dkey   = tmp.get<std::uint64_t>(std::size_t(nb));
    GPUMAT_CUDA_TRY(tmp.err);
    bce_block_starts<<<grid_for(nshort_, nt), nt, 0, s>>>(keys_sorted, nshort_, flag, idx, dfirst, dkey);
    GPUMAT_CUDA_TRY(launched());
    first.resize(std::size_t(nb)), bkey.resize(std::size_t(nb));
    GPUMAT_CUDA_TRY(cudaMemcpyAsync(first.data(), dfirst, first.size() * sizeof(index_t), cudaMemcpyDeviceToHost, s));
    GPUMAT_CUDA_TRY(cudaMemcpyAsync(bkey.data(), dkey, bkey.size() * sizeof(std::uint64_t), cudaMemcpyDeviceToHost, s));
    GPUMAT_CUDA_TRY(cudaStreamSynchronize(s));
  }
  const int              nb = int(first.size());
  std::vector<index_t>   table(5 * std::size_t(nb) + 2, 0);
  std::vector<long long> start(std::size_t(nb) + 1, 0);
  width_.assign(std::size_t(nb), 0), rows_.assign(std::size_t(nb), 0);
  for (int b = 0; b < nb; ++b) {
    width_[std::size_t(b)]         = group_width_[std::size_t(bkey[std::size_t(b)] & ((std::uint64_t(1) << gbits) - 1))];
    rows_[std::size_t(b)]          = (b + 1 < nb ? first[std::size_t(b) + 1] : nshort_) - first[std::size_t(b)];
    table[std::size_t(b)]          = width_[std::size_t(b)];
    table[std::size_t(nb + b)]     = rows_[std::size_t(b)];
    table[std::size_t(2 * nb + b)] = first[std::size_t(b)];
    start[std::size_t(b) + 1]      = start[std::size_t(b)] + (long long)rows_[std::size_t(b)] * width_[std::size_t(b)];
  }
  const std::vector<std::int64_t> warp = bce_block_warps(rows_);
  padded_ = start[std::size_t(nb)], warps_ = warp[std::size_t(nb)];
  if (padded_ + lr_.entries() > INT_MAX)
    return fail("bce: the padded groups hold " + std::to_string(padded_) + " entries, beyond the 32-bit positions of its index; use more MPI ranks, or a smaller long-row threshold (-mat_bce_long_row)");
  if (warps_ >= (std::int64_t(1) << 27)) // the product's thread numbers are 32-bit
    return fail("bce: " + std::to_string(warps_) + " warps of rows (blocks of fewer than 32 rows each take a warp), beyond the product's 32-bit thread numbers; use a larger window (-mat_bce_window) or more MPI ranks");
  for (int b = 0; b <= nb; ++b) table[std::size_t(3 * nb + b)] = index_t(start[std::size_t(b)]), table[std::size_t(4 * nb + 1 + b)] = index_t(warp[std::size_t(b)]);
  device_free(table_);
  GPUMAT_CUDA_TRY(device_alloc(table_, table.size()));
  GPUMAT_CUDA_TRY(cudaMemcpyAsync(table_, table.data(), table.size() * sizeof(index_t), cudaMemcpyHostToDevice, s));
  const BlockTable Gd = block_table(table_, nb);
  GPUMAT_CUDA_TRY(device_alloc(wblock_, std::size_t(warps_)));
  if (warps_ > 0) bce_warp_blocks<<<grid_for(warps_, nt), nt, 0, s>>>(Gd, warps_, wblock_);
  GPUMAT_CUDA_TRY(launched());
  clock.mark("order");

  GPUMAT_CUDA_TRY(device_alloc(col_, std::size_t(padded_)));
  GPUMAT_CUDA_TRY(device_alloc(val_, std::size_t(padded_ + lr_.entries())));
  GPUMAT_CUDA_TRY(device_alloc(slot_, std::size_t(nnz_)));
  if (nshort_ > 0) bce_fill<T><<<grid_for(nshort_, nt), nt, 0, s>>>(A.rowptr, A.colidx, A.val, row_no_, nshort_, Gd, col_, val_, slot_);
  GPUMAT_CUDA_TRY(launched());
  clock.mark("fill");
  if (lr_.count() > 0) {
    GPUMAT_CUDA_TRY(lr_.fill(A, user_shape_, val_, padded_, slot_, tmp, s));
    clock.mark("long");
  }
  GPUMAT_CUDA_TRY(tmp.err);
  GPUMAT_CUDA_TRY(cudaStreamSynchronize(s));
  phases_ = clock.times();
  return cudaSuccess;
}

template <typename T>
cudaError_t BceDevice<T>::refresh(const T *val, cudaStream_t s, Mem where) {
  return refresh_through_slots(val, std::int64_t(nnz_), slot_, val_, s, where);
}

template <typename T>
template <class Args>
Args BceDevice<T>::kernel_args(int lanes) const {
  return Args{block_table(table_, int(width_.size())), wblock_, row_no_, col_, val_, lr_.template args<LongArgs<T>>(val_ ? val_ + padded_ : nullptr, lanes, kThreads)};
}

template <typename T>
cudaError_t BceDevice<T>::apply(Op op, const T *x, const T *z, T *y, cudaStream_t s) const {
  const long long gblocks = (warps_ * 32 + kThreads - 1) / kThreads;
  if (op == Op::NoTrans) {
    const auto      a      = kernel_args<BceArgs<T>>(0);
    const long long blocks = a.lg.blocks + gblocks;
    if (blocks == 0) return cudaSuccess; // no rows
    if (kernel_occupancy() == 6) bce_spmv<T, 6><<<unsigned(blocks), kThreads, 0, s>>>(a, warps_, x, z, y);
    else bce_spmv<T, 4><<<unsigned(blocks), kThreads, 0, s>>>(a, warps_, x, z, y);
    return launched();
  }
  GPUMAT_CUDA_TRY(init_output(y, z, ncols_, s));
  const auto      a      = kernel_args<BceArgs<T>>(32);
  const long long blocks = a.lg.blocks + gblocks;
  if (blocks == 0) return cudaSuccess;
  bce_spmv_t<T><<<unsigned(blocks), kThreads, 0, s>>>(a, warps_, x, y);
  return launched();
}

template <typename T>
cudaError_t BceDevice<T>::diagonal(const index_t *rowmap, T *d, cudaStream_t s) const {
  const auto a = kernel_args<BceArgs<T>>(32);
  GPUMAT_CUDA_TRY(lr_.zero_diagonal(rowmap, d, s));
  const long long blocks = a.lg.blocks + (warps_ * 32 + kThreads - 1) / kThreads;
  if (blocks == 0) return cudaSuccess;
  bce_diag<T><<<unsigned(blocks), kThreads, 0, s>>>(a, warps_, rowmap, d);
  return launched();
}

template <typename T>
cudaError_t BceDevice<T>::download(Bce<T> &B) const {
  GPUMAT_CUDA_TRY(settled());
  B                   = Bce<T>();
  B.p                 = p_;
  B.nrows             = nrows_;
  B.ncols             = ncols_;
  B.sets_before_merge = sets_df_;
  B.sets              = sets_;
  B.start.assign(1, 0);
  if (!table_) return cudaSuccess;
  const std::size_t k = width_.size();
  B.group_width       = group_width_;
  B.width             = width_;
  B.rows              = rows_;
  B.pos.assign(k, 0);
  B.start.assign(k + 1, 0);
  for (std::size_t g = 0; g < k; ++g) {
    if (g > 0) B.pos[g] = B.pos[g - 1] + B.rows[g - 1];
    B.start[g + 1] = B.start[g] + std::int64_t(B.rows[g]) * B.width[g];
  }
  auto get = [](auto &v, const auto *d, std::size_t n) {
    v.resize(n);
    return n ? cudaMemcpy(v.data(), d, n * sizeof(*d), cudaMemcpyDeviceToHost) : cudaSuccess;
  };
  GPUMAT_CUDA_TRY(get(B.row_no, row_no_, std::size_t(nshort_)));
  GPUMAT_CUDA_TRY(get(B.col, col_, std::size_t(padded_)));
  std::vector<T> all;
  GPUMAT_CUDA_TRY(get(all, val_, std::size_t(padded_ + lr_.entries())));
  B.val.assign(all.begin(), all.begin() + padded_);
  B.long_val.assign(all.begin() + padded_, all.end());
  GPUMAT_CUDA_TRY(lr_.download(B.long_rows, B.long_ptr, B.long_col));
  std::vector<unsigned> slot;
  GPUMAT_CUDA_TRY(get(slot, slot_, std::size_t(nnz_)));
  B.slot.assign(slot.begin(), slot.end());
  return cudaSuccess;
}

template class BceDevice<double>;
template class BceDevice<float>;

} // namespace cuda
} // namespace gpumat
