// The ablation of the bccoo product (yaSpMV, Yan et al. 2014, Figure 14) on one matrix on this GPU:
// the chain of its optimizations, each step timed on the same matrix and the same x, and its y
// checked against the production product's. fp64 values, 32-bit indices; y = A x (no z).
//
//   (a) COO: the nonzeros in row order, 32-bit row and column and the value each (16 B), a
//       tree-based segmented sum: CUB's block scan (BLOCK_SCAN_RAKING, the work-efficient
//       reduce-then-scan; CUB has no Blelloch tree) over one nonzero per thread, 256 threads, a
//       chunk of 4096 nonzeros per thread block (16 scans carried by CUB's block prefix callback);
//       a row ending in the chunk is stored to y from its scan value, except that the first of the
//       chunk still lacks the partial sum of the chunks before it, which a second kernel adds (the
//       carries across blocks). y is zeroed first (rows without nonzeros are never stored).
//   (b) BCCOO as built by BccooDevice with the model's parameters but 32-bit block columns (16-bit
//       differences are decoded in sequence per thread tile, which a tree-based sum does not have),
//       the same tree-based sum with every block one element of the scan (no sequential per-thread
//       tile sum): one thread block of 256 threads per work-group tile of G x T blocks, scanned in
//       block order, the segment of a row stop counted by the same scan; the carries across
//       work-group tiles by a second kernel. Under the offline transpose (block j of thread tile i
//       at j G + i) the 256 consecutive blocks of a step are T runs of 256 / T consecutive
//       positions: whole 32-byte sectors of values for T <= 64, more requests than a coalesced
//       read but the same bytes.
//   (c) BCCOO (32-bit columns) with the production kernel's matrix-based segmented sum (sequential
//       per-thread tile sums, the group's scan, the result cache) but no adjacent synchronization: a
//       second kernel adds the carries across work groups (BccooStage::separate_carry); the group
//       scan always runs.
//   (d) + the adjacent synchronization: one kernel (BccooStage::adjacent_sync), still 32-bit columns
//       and the group scan always run.
//   (e) + the fine-grain optimizations: the model's column compression (16-bit differences where it
//       chooses them) and the no_scan skip: the production product (apply).
//   strategy 1: (e) without the result cache (the paper's strategy 1, -mat_bccoo_strategy 1):
//       every complete segment sum is stored to y by the thread that forms it.
// Byte models per product (B, what each step reads and writes; x once, 8 B per column, y once, 8 B
// per row, as the floors count them):
//   (a) 16 nnz + x + 2 y (zeroed, then stored) + 16 per chunk (carry and target, stored and read);
//   (b) padded blocks x (h w 8 + 4 + 1/8) + 4 per work-group tile (first_segment) + x + y
//       + 2 (8 h + 8) per tile (carries);
//   (c) the 32-bit format's bytes (BccooDevice::format_bytes: it counts no_scan, 1 B per group, which
//       (c) and (d) do not read) + x + y + 2 x 8 h per group (carry-outs stored, then read);
//   (d) the 32-bit format's bytes + x + y;  (e), strategy 1: the format's bytes + x + y.
#include "ablation.h"
#include "floors_bccoo.hpp"
#include "timing.cuh"

#include "core/bccoo.hpp"
#include "cuda/bccoo.cuh"
#include "cuda/common.cuh"

#include <cub/block/block_scan.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <limits>
#include <new>
#include <random>
#include <vector>

namespace {

using gpumat::index_t;
using gpumat::cuda::Seg;
using gpumat::cuda::Vec;

constexpr int kNT       = 256;        // threads of the tree-based kernels
constexpr int kCooChunk = 16 * kNT;   // (a): nonzeros per thread block

// The segmented sum's operator (heads: k counts segment heads, v sums since the last one).
template <typename V>
struct SegSum {
  __device__ __forceinline__ Seg<V> operator()(const Seg<V> &a, const Seg<V> &b) const { return gpumat::cuda::seg_op(a, b, false); }
};

// CUB's block prefix callback: the running aggregate of the chunk's previous scans. Called by the
// first warp, lane 0's value is used: thread 0's `run` is the chunk's aggregate at the end.
template <typename V>
struct RunningPrefix {
  Seg<V> run;
  __device__ __forceinline__ Seg<V> operator()(const Seg<V> &block_aggregate) {
    const Seg<V> old = run;
    run              = gpumat::cuda::seg_op(old, block_aggregate, false);
    return old;
  }
};

// (a) A chunk of kCooChunk nonzeros per thread block. Element k: {head: a row starts at k (not at
// the chunk's first element), value val[k] x[col[k]]}; after the inclusive scan, an element that
// ends its row (the last nonzero, or the next nonzero's row differs) holds the row's sum since the
// chunk began. carry_v: the chunk's partial sum after its last row end (0 when it ends with one);
// carry_to: the row of its first row end (-1: none), the row the carries of earlier chunks go to.
__global__ void __launch_bounds__(kNT) coo_tree_spmv(const int *__restrict__ row, const int *__restrict__ col, const double *__restrict__ val,
                                                     long long nnz, const double *__restrict__ x, double *__restrict__ y, double *__restrict__ carry_v,
                                                     long long *__restrict__ carry_to) {
  using S    = Seg<double>;
  using Scan = cub::BlockScan<S, kNT, cub::BLOCK_SCAN_RAKING>;
  __shared__ typename Scan::TempStorage tmp;
  __shared__ long long s_first;
  const long long k0 = blockIdx.x * (long long)kCooChunk, k1 = min(nnz, k0 + kCooChunk);
  if (threadIdx.x == 0) s_first = -1; // ordered before any store to it by the scan's barrier
  RunningPrefix<double> pre{S{0, 0.0}};
  for (long long base = k0; base < k1; base += kNT) { // the same trip count in every thread
    const long long k    = base + threadIdx.x;
    S               e    = {0, 0.0};
    bool            stop = false;
    int             r    = 0;
    if (k < k1) {
      r      = __ldg(row + k);
      e.v    = __ldcs(val + k) * __ldg(x + __ldcs(col + k));
      e.k    = k > k0 && __ldg(row + k - 1) != r;
      stop   = k + 1 == nnz || __ldg(row + k + 1) != r;
    }
    Scan(tmp).InclusiveScan(e, e, SegSum<double>(), pre);
    if (stop) {
      y[r] = e.v;
      if (e.k == 0) s_first = r; // no row started before k in the chunk: its first row end
    }
    __syncthreads(); // tmp is reused; s_first read below
  }
  if (threadIdx.x == 0) {
    const bool ends = k1 == nnz || row[k1] != row[k1 - 1];
    carry_v[blockIdx.x]  = ends ? 0.0 : pre.run.v;
    carry_to[blockIdx.x] = s_first;
  }
}

// (b) One thread block per work-group tile g of the BCCOO (G x T blocks), its blocks in block order
// kNT at a time (block k at bccoo_phys(k)). Element k: {head: block k - 1 is a row stop (not at the
// tile's first block), the block's h row sums}; after the scan, a row stop at k holds its segment's
// sum since the tile began, and k (heads before k) counts the stops before k in the tile: its
// segment is first_segment[g G] + k. Carries as (a)'s, per tile, the target a segment (h rows).
template <int H, int W>
__global__ void __launch_bounds__(kNT) bccoo_tree_spmv(gpumat::cuda::BccooDeviceView<double> a, int T, int G, const double *__restrict__ x,
                                                       double *__restrict__ y, double *__restrict__ carry_v, long long *__restrict__ carry_to) {
  using V    = Vec<double, H>;
  using S    = Seg<V>;
  using Scan = cub::BlockScan<S, kNT, cub::BLOCK_SCAN_RAKING>;
  __shared__ typename Scan::TempStorage tmp;
  __shared__ long long s_first;
  const long long g = blockIdx.x, k0 = g * (long long)G * T, k1 = k0 + (long long)G * T; // G T: a multiple of kNT
  const long long seg0 = a.first_segment[g * G];
  if (threadIdx.x == 0) s_first = -1;
  V zero;
#pragma unroll
  for (int i = 0; i < H; ++i) zero[i] = 0.0;
  RunningPrefix<V> pre{S{0, zero}};
  for (long long base = k0; base < k1; base += kNT) {
    const long long k    = base + threadIdx.x, p = gpumat::bccoo_phys(k, T, G);
    const bool      stop = !((__ldg(a.flags + (k >> 3)) >> (k & 7)) & 1u);
    S               e;
    e.k             = k > k0 && !((__ldg(a.flags + ((k - 1) >> 3)) >> ((k - 1) & 7)) & 1u);
    const index_t c = __ldcs(a.col + p);
    double        xv[W];
#pragma unroll
    for (int j = 0; j < W; ++j) {
      const long long xc = (long long)c * W + j; // the last block column may stick out of the matrix
      xv[j]              = (W == 1 || xc < a.ncols) ? __ldg(x + xc) : 0.0;
    }
#pragma unroll
    for (int i = 0; i < H; ++i) {
      double s = 0.0;
#pragma unroll
      for (int j = 0; j < W; ++j) s += __ldcs(a.val + i * a.plane + p * W + j) * xv[j];
      e.v[i] = s;
    }
    Scan(tmp).InclusiveScan(e, e, SegSum<V>(), pre);
    if (stop) {
      const long long seg = seg0 + e.k; // one slice: segment = block row
#pragma unroll
      for (int i = 0; i < H; ++i)
        if (seg * H + i < a.nrows) y[seg * H + i] = e.v[i];
      if (e.k == 0) s_first = seg;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    const bool ends = !((a.flags[(k1 - 1) >> 3] >> ((k1 - 1) & 7)) & 1u);
#pragma unroll
    for (int i = 0; i < H; ++i) carry_v[g * H + i] = ends ? 0.0 : pre.run.v[i];
    carry_to[g] = s_first;
  }
}

// The second kernel of (a) and (b): one thread per chunk c with a row end; its first row end (rows
// to[c] H .. to[c] H + H - 1) gets the partial sums of the chunks back to the previous one with a
// row end (or chunk 0), earliest first.
template <int H>
__global__ void tree_carry(long long nchunks, const long long *__restrict__ to, const double *__restrict__ cv, long long nrows, double *__restrict__ y) {
  const long long c = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (c == 0 || c >= nchunks || to[c] < 0) return;
  long long d = c - 1;
  while (d > 0 && to[d] < 0) --d;
  double s[H];
#pragma unroll
  for (int i = 0; i < H; ++i) s[i] = cv[d * H + i];
  for (long long e = d + 1; e < c; ++e)
#pragma unroll
    for (int i = 0; i < H; ++i) s[i] += cv[e * H + i];
#pragma unroll
  for (int i = 0; i < H; ++i)
    if (to[c] * H + i < nrows) y[to[c] * H + i] += s[i];
}

template <int H>
cudaError_t launch_tree_carry(long long nchunks, const long long *to, const double *cv, long long nrows, double *y, cudaStream_t s) {
  if (nchunks > 1) tree_carry<H><<<unsigned((nchunks + kNT - 1) / kNT), kNT, 0, s>>>(nchunks, to, cv, nrows, y);
  return cudaGetLastError();
}

// (b) for h x w blocks: the tree-based kernel, then the carries.
template <int H, int W>
cudaError_t launch_bccoo_tree(const gpumat::cuda::BccooDeviceView<double> &v, int T, int G, const double *x, double *y, double *cv, long long *to,
                              cudaStream_t s) {
  bccoo_tree_spmv<H, W><<<unsigned(v.groups), kNT, 0, s>>>(v, T, G, x, y, cv, to);
  const cudaError_t rc = cudaGetLastError();
  return rc != cudaSuccess ? rc : launch_tree_carry<H>(v.groups, to, cv, v.nrows, y, s);
}

template <int H>
cudaError_t launch_bccoo_tree(int w, const gpumat::cuda::BccooDeviceView<double> &v, int T, int G, const double *x, double *y, double *cv,
                              long long *to, cudaStream_t s) {
  switch (w) {
  case 1: return launch_bccoo_tree<H, 1>(v, T, G, x, y, cv, to, s);
  case 2: return launch_bccoo_tree<H, 2>(v, T, G, x, y, cv, to, s);
  default: return launch_bccoo_tree<H, 4>(v, T, G, x, y, cv, to, s);
  }
}

cudaError_t launch_bccoo_tree(int h, int w, const gpumat::cuda::BccooDeviceView<double> &v, int T, int G, const double *x, double *y, double *cv,
                              long long *to, cudaStream_t s) {
  switch (h) {
  case 1: return launch_bccoo_tree<1>(w, v, T, G, x, y, cv, to, s);
  case 2: return launch_bccoo_tree<2>(w, v, T, G, x, y, cv, to, s);
  case 3: return launch_bccoo_tree<3>(w, v, T, G, x, y, cv, to, s);
  default: return launch_bccoo_tree<4>(w, v, T, G, x, y, cv, to, s);
  }
}

// max |y - ref| / max |ref| (a NaN or infinite y entry: infinity)
double rel_err(const std::vector<double> &y, const std::vector<double> &ref) {
  double d = 0, m = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    if (!std::isfinite(y[i])) return std::numeric_limits<double>::infinity();
    d = std::max(d, std::fabs(y[i] - ref[i]));
    m = std::max(m, std::fabs(ref[i]));
  }
  return m > 0 ? d / m : d;
}

} // namespace

// A CUDA call of the ablation: on failure, the call and its error into err, then the cleanup.
#define ABL_CALL(call)                                                                                      \
  do {                                                                                                      \
    rc = (call);                                                                                            \
    if (rc != cudaSuccess) {                                                                                \
      snprintf(err, (size_t)errlen, "ablation: %s failed: %s", #call, cudaGetErrorString(rc));            \
      goto done;                                                                                            \
    }                                                                                                       \
  } while (0)

extern "C" int BenchAblationBccoo(int nrows, int ncols, long long nnz, const int *rowptr, const int *colidx, const double *val, int block_size,
                                  int reps, int warmup, BenchAblationRow *res, int maxres, int *nres, BenchAblationInfo *info, char *err,
                                  int errlen) {
  using gpumat::cuda::BccooDevice;
  using gpumat::cuda::BccooStage;
  using gpumat::cuda::BccooVariant;
  std::vector<void *>       dev; // every plain device allocation, freed at the end
  BccooDevice<double>       D, D32;
  const BccooDevice<double> *d32 = &D32;
  double                   *d_x = nullptr, *d_y = nullptr, *d_cv = nullptr, *d_val = nullptr;
  long long                *d_to = nullptr;
  int                      *d_row = nullptr, *d_col = nullptr;
  cudaEvent_t               e0 = nullptr, e1 = nullptr;
  cudaStream_t              s  = nullptr;
  cudaError_t               rc = cudaSuccess;
  int                       host_rc = 0;
  gpumat::BccooParams       p, p32;
  std::vector<double>       hx, yref, yhost, ycheck;
  std::vector<int>          hrow;
  long long                 nchunks = 0;
  *nres = 0;
  *info = BenchAblationInfo{};
  if (nrows <= 0 || ncols <= 0 || nnz <= 0 || nnz != (long long)rowptr[nrows]) {
    snprintf(err, (size_t)errlen, "ablation: needs a matrix with nonzeros, and nnz = rowptr[nrows] (32-bit indices); got %d x %d, nnz %lld", nrows, ncols, nnz);
    return -1;
  }
  const gpumat::CsrView<double> A{nrows, ncols, rowptr, colidx, val};
  try {
    p        = gpumat::bccoo_model(A, gpumat::BccooParams{}, std::max(block_size, 1)).p;
    p.slices = 1; // BCCOO, not BCCOO+: the model takes one slice anyway
    p32      = p;
    p32.compress_col = 0;
    // x, the host product (long double sums), the COO row of every nonzero
    std::mt19937_64                        gen(7);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    hx.resize((size_t)ncols);
    for (double &v : hx) v = u(gen);
    yhost.resize((size_t)nrows);
    hrow.resize((size_t)nnz);
    for (int r = 0; r < nrows; ++r) {
      long double acc = 0;
      for (int k = rowptr[r]; k < rowptr[r + 1]; ++k) {
        acc += (long double)val[k] * hx[(size_t)colidx[k]];
        hrow[(size_t)k] = r;
      }
      yhost[(size_t)r] = (double)acc;
    }
    yref.resize((size_t)nrows);
    ycheck.resize((size_t)nrows);
  } catch (const std::bad_alloc &) {
    snprintf(err, (size_t)errlen, "ablation: out of host memory");
    return -1;
  } catch (const std::exception &e) {
    snprintf(err, (size_t)errlen, "ablation: %s", e.what());
    return -1;
  }
  {
    auto alloc = [&](size_t bytes, void **d) {
      cudaError_t r = cudaMalloc(d, std::max<size_t>(bytes, 256));
      if (r == cudaSuccess) dev.push_back(*d);
      return r;
    };
    ABL_CALL(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    ABL_CALL(cudaEventCreate(&e0));
    ABL_CALL(cudaEventCreate(&e1));
    for (BccooDevice<double> *b : {&D, &D32}) {
      if (b == &D32 && !p.compress_col) {
        d32 = &D; // the model's columns are 32-bit already
        break;
      }
      if ((rc = b->build(A, b == &D ? p : p32, s)) != cudaSuccess) {
        snprintf(err, (size_t)errlen, "ablation: the bccoo build failed: %s", b->why().empty() ? cudaGetErrorString(rc) : b->why().c_str());
        goto done;
      }
    }
    ABL_CALL(alloc(sizeof(double) * (size_t)ncols, (void **)&d_x));
    ABL_CALL(alloc(sizeof(double) * (size_t)nrows, (void **)&d_y));
    ABL_CALL(alloc(sizeof(int) * (size_t)nnz, (void **)&d_row));
    ABL_CALL(alloc(sizeof(int) * (size_t)nnz, (void **)&d_col));
    ABL_CALL(alloc(sizeof(double) * (size_t)nnz, (void **)&d_val));
    nchunks = (nnz + kCooChunk - 1) / kCooChunk;
    {
      const long long ncarry = std::max<long long>(nchunks, d32->view().groups);
      ABL_CALL(alloc(sizeof(double) * (size_t)ncarry * (size_t)p.h, (void **)&d_cv));
      ABL_CALL(alloc(sizeof(long long) * (size_t)ncarry, (void **)&d_to));
    }
    ABL_CALL(cudaMemcpy(d_x, hx.data(), sizeof(double) * (size_t)ncols, cudaMemcpyHostToDevice));
    ABL_CALL(cudaMemcpy(d_row, hrow.data(), sizeof(int) * (size_t)nnz, cudaMemcpyHostToDevice));
    ABL_CALL(cudaMemcpy(d_col, colidx, sizeof(int) * (size_t)nnz, cudaMemcpyHostToDevice));
    ABL_CALL(cudaMemcpy(d_val, val, sizeof(double) * (size_t)nnz, cudaMemcpyHostToDevice));
    ABL_CALL(cudaDeviceSynchronize()); // pageable copies may return before their DMA lands; s does not wait for the legacy stream
    std::vector<int>().swap(hrow);

    // the production product: the reference of every step, checked against the host's
    ABL_CALL(D.apply_variant(BccooVariant{}, d_x, nullptr, d_y, s));
    ABL_CALL(cudaStreamSynchronize(s));
    ABL_CALL(cudaMemcpy(yref.data(), d_y, sizeof(double) * (size_t)nrows, cudaMemcpyDeviceToHost));
    info->relerr_host = rel_err(yref, yhost);
    info->p = gpumat_floors::to_bench(p);
    info->p.block_size = block_size, info->p.model = 1;
    info->blocks  = D.blocks();
    info->padded  = D.padded_blocks();
    info->escapes = D.escapes();
    info->groups  = D.view().groups;
    info->cache   = D.cache_segments();

    const double xy = 8.0 * ncols + 8.0 * nrows;
    const gpumat::cuda::BccooDeviceView<double> v32 = d32->view();
    const double pad = (double)v32.padded_blocks, groups = (double)v32.groups;
    const int    h = p.h, w = p.w, T = p.tile, G = p.group;
    struct Step {
      const char                  *name, *what;
      double                       bytes;
      std::function<cudaError_t()> run;
    };
    const Step steps[] = {
        {"a:coo-tree", "COO, CUB raking block scan per nonzero, chunks of 4096, carry kernel", 16.0 * nnz + xy + 8.0 * nrows + 16.0 * nchunks,
         [&]() -> cudaError_t {
           cudaError_t r = cudaMemsetAsync(d_y, 0, sizeof(double) * (size_t)nrows, s);
           if (r != cudaSuccess) return r;
           coo_tree_spmv<<<unsigned(nchunks), kNT, 0, s>>>(d_row, d_col, d_val, nnz, d_x, d_y, d_cv, d_to);
           if ((r = cudaGetLastError()) != cudaSuccess) return r;
           return launch_tree_carry<1>(nchunks, d_to, d_cv, nrows, d_y, s);
         }},
        {"b:bccoo-tree", "BCCOO 32-bit columns, CUB raking block scan per block, carry kernel",
         pad * (8.0 * h * w + 4.0 + 0.125) + 4.0 * groups + xy + 2.0 * (8.0 * h + 8.0) * groups,
         [&]() { return launch_bccoo_tree(h, w, v32, T, G, d_x, d_y, d_cv, d_to, s); }},
        {"c:seg-sum+carry-kernel", "BCCOO 32-bit columns, tile sums + group scan, carry kernel", (double)d32->format_bytes() + xy + 16.0 * h * groups,
         [&]() { return d32->apply_variant(BccooVariant{BccooStage::separate_carry, 2}, d_x, nullptr, d_y, s); }},
        {"d:+adjacent-sync", "one kernel, adjacent synchronization, 32-bit columns, scan always", (double)d32->format_bytes() + xy,
         [&]() { return d32->apply_variant(BccooVariant{BccooStage::adjacent_sync, 2}, d_x, nullptr, d_y, s); }},
        {"e:+fine-grain", "the production product: model's columns, no_scan skip", (double)D.format_bytes() + xy,
         [&]() { return D.apply_variant(BccooVariant{BccooStage::production, 2}, d_x, nullptr, d_y, s); }},
        {"strategy-1", "(e) without the result cache: sums straight to y", (double)D.format_bytes() + xy,
         [&]() { return D.apply_variant(BccooVariant{BccooStage::production, 1}, d_x, nullptr, d_y, s); }},
    };
    for (const Step &st : steps) {
      if (*nres >= maxres) break;
      BenchAblationRow &row = res[*nres];
      row                   = BenchAblationRow{};
      snprintf(row.name, sizeof(row.name), "%s", st.name);
      snprintf(row.what, sizeof(row.what), "%s", st.what);
      row.bytes = st.bytes;
      for (int check = 0; check < 2; ++check) { // before the timed launches (y poisoned: NaN) and after them
        if (check == 0) {
          ABL_CALL(cudaMemsetAsync(d_y, 0xff, sizeof(double) * (size_t)nrows, s));
          ABL_CALL(st.run());
        } else ABL_CALL(gpumat_bench::time_reps(st.run, s, e0, e1, warmup, reps, &row.median_ms, &row.min_ms));
        ABL_CALL(cudaStreamSynchronize(s));
        ABL_CALL(cudaMemcpy(ycheck.data(), d_y, sizeof(double) * (size_t)nrows, cudaMemcpyDeviceToHost));
        row.relerr = std::max(row.relerr, rel_err(ycheck, yref));
      }
      ++*nres;
    }
  }
done:
#undef ABL_CALL
  if (e0) cudaEventDestroy(e0);
  if (e1) cudaEventDestroy(e1);
  D.release();
  D32.release();
  if (s) cudaStreamDestroy(s);
  for (void *d : dev) cudaFree(d);
  return rc != cudaSuccess ? (int)rc : host_rc;
}
