// Floors of y = A x for one matrix on this GPU: what moving the product's bytes costs with the
// row structure taken away. Each kernel is a persistent loop (one wave of resident 256-thread
// blocks, several independent loads per thread in flight) that reads the format's arrays once,
// coalesced and streaming, and writes y once. fp64 values throughout.
//
// CSR (32-bit indices): a grid-stride loop with U nonzeros per thread per step reads val and
// colidx, then rowptr:
//   floor:stream          x read once, coalesced (x[i] with y[i]): the CSR byte model
//                         12 B/nnz + 4 B/row + x + y at the GPU's streaming rate;
//   floor:gather          x[colidx[k]] for every nonzero k in CSR order (the gathers of any CSR-order
//                         product: cuSPARSE CSR, csrspec), through L1 (ld.global.nc) or L2 only
//                         (floor:gather:l2only, ld.cg); floor:gather:u8 with 8 nonzeros per step.
// bccoo (src/core/bccoo.hpp; h x w blocks, built on the host by gpumat::bccoo_build with the
// parameters bench_matmult's -floor_bccoo gives, by default the byte model's first shape, slices 1,
// tile 16, group 256, 16-bit columns; the per-block arrays offline-transposed within work-group
// tiles, as the product reads them). Both read every array the bccoo product reads once:
//   padded blocks x (h w 8 B of values + 1/8 B of flag + 2 B of column difference, 4 B
//   uncompressed) + 4 B per escape + 4 B per thread tile for first_segment and 4 B for
//   escape_start (compressed) + 1 B per work-group tile (no_scan) = Bccoo::bytes(), + x + y once
//   (8 B per column and per row; with slices a real product adds more y traffic, not counted):
//   floor:bccoo-stream    those arrays by grid-stride loops (blocks: U per thread per step, the h
//                         value planes and the column differences; then flags, escapes, the tile
//                         arrays, x), coalesced and streaming, no decompression: the bccoo bytes at
//                         the GPU's streaming rate;
//   floor:bccoo-gather    one thread per thread tile, as the product (grid-stride over the tiles):
//                         its T blocks in order, U at a time with their loads in flight (column
//                         entries and value planes at the transposed positions, so that the threads
//                         of a work-group tile read consecutive addresses), the columns decompressed
//                         in sequence as the product does (first block of the tile relative to 0,
//                         the others to the previous column (the first to the tile's base,
//                         bccoo_tile_base), an escape -32768 taking the tile's next
//                         escape from escape_start[tile] on), and x[w c .. w c + w - 1] gathered
//                         through L1 (ld.global.nc) for each block's column c; the tile's T flag
//                         bits, first_segment and escape_start once per tile, no_scan once per
//                         work-group tile. x is padded with zeros to whole block columns (at most
//                         w - 1 values more).
// Before timing, a run of the gather kernel writes its decompressed columns and the host compares
// them with the layout's, block by block.
// Nothing is segmented, no row sum is formed, so a real product over the same arrays cannot be
// faster than the gather floor with the same x-gather path; the gap between stream and gather is
// the price of the matrix's column pattern (and, for bccoo, of the sequential decompression). The
// products' sums are kept live by a data-dependent store.
#include "floors.h"
#include "floors_bccoo.hpp"
#include "timing.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <vector>

namespace {

enum Mode { kStream, kGatherL1, kGatherL2, kCheck };

template <int M>
__device__ __forceinline__ double xval(const double *__restrict__ x, int c) {
  if constexpr (M == kStream) return (double)c;
  else if constexpr (M == kGatherL1) return __ldg(x + c);
  else return __ldcg(x + c);
}

template <int M, int U>
__global__ void __launch_bounds__(256) floor_kernel(const int *__restrict__ rowptr, const int *__restrict__ col,
                                                    const double *__restrict__ val, const double *__restrict__ x,
                                                    double *__restrict__ y, long long nnz, int nrows, int ncols,
                                                    double *sink) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  long long k            = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  double acc             = 0;
  for (; k + (U - 1) * stride < nnz; k += U * stride) {
    double v[U];
    int c[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      v[u] = __ldcs(val + k + u * stride);
      c[u] = __ldcs(col + k + u * stride);
    }
#pragma unroll
    for (int u = 0; u < U; ++u) acc += v[u] * xval<M>(x, c[u]);
  }
  for (; k < nnz; k += stride) acc += __ldcs(val + k) * xval<M>(x, __ldcs(col + k));
  const long long t0 = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  for (long long i = t0; i < nrows; i += stride) {
    double r = (double)__ldcs(rowptr + i);
    if (M == kStream && i < ncols) r += __ldcs(x + i);
    y[i] = r;
  }
  if (M == kStream)
    for (long long i = nrows + t0; i < ncols; i += stride) acc += __ldcs(x + i);
  if (acc == 1.2345e-300) *sink = acc; // never true in practice; the compiler cannot know
}

struct Variant {
  const char *name;
  void (*kernel)(const int *, const int *, const double *, const double *, double *, long long, int, int, double *);
};

const Variant kVariants[] = {
    {"floor:stream", floor_kernel<kStream, 4>},
    {"floor:gather", floor_kernel<kGatherL1, 4>},
    {"floor:gather:u8", floor_kernel<kGatherL1, 8>},
    {"floor:gather:l2only", floor_kernel<kGatherL2, 4>},
};

// ---- bccoo ---------------------------------------------------------------------------------------

// The device copies of the arrays a bccoo product reads (gpumat::Bccoo, uploaded unchanged: the
// per-block arrays offline-transposed within work-group tiles, the flags in block order).
struct BccooDev {
  const double        *val;           // h planes of npad * w values
  const std::uint32_t *flags;         // npad / 32 words (npad is a multiple of 32)
  const std::int16_t  *dcol;          // compressed: npad column differences
  const int           *col;           // uncompressed: npad block columns
  const int           *escape;        // compressed: nescapes block columns
  const int           *escape_start;  // compressed: per thread tile
  const int           *first_segment; // per thread tile
  const std::uint8_t  *no_scan;       // per work-group tile
  long long npad, plane, nflagwords, nescapes, ntiles, ngroups;
  int       tile;  // blocks per thread tile, T (a multiple of 8)
  int       group; // threads per work-group tile, G
  int       compress;
  int       nrows, ncols, nbrows, nbcols;
};

// Blocks per thread per step: about 8 values in flight (up to umax blocks of 1 x 1, one of 4 x 4);
// a power of two, so that it divides the tile (a multiple of 8) for umax <= 8.
constexpr int bccoo_u(int h, int w, int umax) { return 8 / (h * w) < 1 ? 1 : 8 / (h * w) > umax ? umax : 8 / (h * w); }

// W consecutive values of a value plane, streaming (16-byte loads for W >= 2).
template <int W>
__device__ __forceinline__ void load_values(const double *p, double (&v)[W]) {
  if constexpr (W == 1) v[0] = __ldcs(p);
  else {
#pragma unroll
    for (int j = 0; j < W; j += 2) {
      const double2 t = __ldcs(reinterpret_cast<const double2 *>(p) + j / 2);
      v[j]            = t.x;
      v[j + 1]        = t.y;
    }
  }
}

// x[W c .. W c + W - 1] through L1 (ld.global.nc; x padded to whole block columns).
template <int W>
__device__ __forceinline__ void gather_x(const double *__restrict__ x, int c, double (&v)[W]) {
  if constexpr (W == 1) v[0] = __ldg(x + c);
  else {
#pragma unroll
    for (int j = 0; j < W; j += 2) {
      const double2 t = __ldg(reinterpret_cast<const double2 *>(x + (long long)c * W) + j / 2);
      v[j]            = t.x;
      v[j + 1]        = t.y;
    }
  }
}

// floor:bccoo-stream, blocks k, k + stride, ..., k + (U - 1) stride: values and column entries,
// the column entry standing in for x.
template <int H, int W, int U>
__device__ __forceinline__ void bccoo_stream_blocks(const BccooDev &a, long long k, long long stride, double &acc) {
  double v[U][H][W];
  int d[U];
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const long long b = k + u * stride;
    d[u]              = a.compress ? (int)__ldcs(a.dcol + b) : __ldcs(a.col + b);
#pragma unroll
    for (int i = 0; i < H; ++i) load_values<W>(a.val + i * a.plane + b * W, v[u][i]);
  }
#pragma unroll
  for (int u = 0; u < U; ++u)
#pragma unroll
    for (int i = 0; i < H; ++i)
#pragma unroll
      for (int j = 0; j < W; ++j) acc += v[u][i][j] * (double)(d[u] + j);
}

template <int H, int W, int U>
__global__ void __launch_bounds__(256) bccoo_stream_floor_kernel(BccooDev a, const double *__restrict__ x, double *__restrict__ y,
                                                                 double *sink, int *) {
  const long long stride = (long long)gridDim.x * blockDim.x, t0 = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  long long k            = t0;
  double acc             = 0;
  unsigned live          = 0;
  for (; k + (U - 1) * stride < a.npad; k += U * stride) bccoo_stream_blocks<H, W, U>(a, k, stride, acc); // order irrelevant
  for (; k < a.npad; k += stride) bccoo_stream_blocks<H, W, 1>(a, k, stride, acc);
  for (long long i = t0; i < a.nflagwords; i += stride) live ^= __ldcs(a.flags + i);
  for (long long i = t0; i < a.nescapes; i += stride) live += (unsigned)__ldcs(a.escape + i);
  for (long long i = t0; i < a.ntiles; i += stride) {
    live += (unsigned)__ldcs(a.first_segment + i);
    if (a.compress) live ^= (unsigned)__ldcs(a.escape_start + i);
  }
  for (long long i = t0; i < a.ngroups; i += stride) live += __ldcs(a.no_scan + i);
  for (long long i = t0; i < a.ncols; i += stride) acc += __ldcs(x + i);
  for (long long i = t0; i < a.nrows; i += stride) y[i] = acc;
  if (acc == 1.2345e-300 || live == 0x9e3779b9u) *sink = acc + live; // data-dependent, never in practice
}

// The T flag bits of thread tile t (T / 8 bytes from byte t T / 8), in the widest loads that stay
// aligned; folded into one word (the floor uses them only to keep the loads).
__device__ __forceinline__ unsigned tile_flags(const BccooDev &a, long long t) {
  unsigned f = 0;
  if (a.tile % 32 == 0) {
    const std::uint32_t *p = a.flags + t * (a.tile / 32);
    for (int q = 0; q < a.tile / 32; ++q) f ^= __ldcs(p + q);
  } else if (a.tile % 16 == 0) {
    const unsigned short *p = reinterpret_cast<const unsigned short *>(a.flags) + t * (a.tile / 16);
    for (int q = 0; q < a.tile / 16; ++q) f ^= (unsigned)__ldcs(p + q) << (16 * (q & 1));
  } else {
    const unsigned char *p = reinterpret_cast<const unsigned char *>(a.flags) + t * (a.tile / 8);
    for (int q = 0; q < a.tile / 8; ++q) f ^= (unsigned)__ldcs(p + q) << (8 * (q & 3));
  }
  return f;
}

// floor:bccoo-gather: one thread per thread tile t (grid-stride over the tiles), as the product:
// its T blocks in order, U at a time with their loads in flight (the column entries and h planes of
// w values at bccoo_floor_pos: the G threads of a work-group tile read consecutive addresses), the
// columns decompressed in sequence (first block of the tile relative to 0, the others to the
// previous column; an escape -32768 takes the next escape from escape_start[t] on), then x gathered
// for the U blocks. Its T flag bits, first_segment[t] and escape_start[t] read once; no_scan[g] by
// the group's thread 0. M == kCheck writes the columns to cols (block order).
template <int M, int H, int W, int U>
__global__ void __launch_bounds__(256) bccoo_gather_floor_kernel(BccooDev a, const double *__restrict__ x, double *__restrict__ y,
                                                                 double *sink, int *cols) {
  const long long stride = (long long)gridDim.x * blockDim.x, t0 = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  double          acc  = 0;
  unsigned        live = 0;
  for (long long t = t0; t < a.ntiles; t += stride) {
    const long long g = t / a.group, base = gpumat_floors::bccoo_floor_pos(t, 0, a.tile, a.group); // block j at base + j G
    live ^= tile_flags(a, t);
    if (t == g * a.group) live += __ldcs(a.no_scan + g);
    const int fs = __ldcs(a.first_segment + t);
    int e = a.compress ? __ldcs(a.escape_start + t) : 0, c = a.compress ? gpumat::bccoo_tile_base(fs, a.nbrows, H, W, a.nbcols) : 0;
    const std::int16_t *dp = a.dcol + base;
    const int          *cp = a.col + base;
    const double       *vp = a.val + base * W;
    for (int j0 = 0; j0 < a.tile; j0 += U) {
      int    d[U];
      double v[U][H][W];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int off = (j0 + u) * a.group; // < T G <= 65536
        d[u]          = a.compress ? (int)__ldcs(dp + off) : __ldcs(cp + off);
#pragma unroll
        for (int i = 0; i < H; ++i) load_values<W>(vp + i * a.plane + off * W, v[u][i]);
      }
      int cu[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        if (!a.compress) c = d[u];
        else if (d[u] == -32768) c = __ldg(a.escape + e++);
        else c = c + d[u];
        cu[u] = c;
      }
      if constexpr (M == kCheck)
#pragma unroll
        for (int u = 0; u < U; ++u) cols[t * a.tile + j0 + u] = cu[u];
      double xv[U][W];
#pragma unroll
      for (int u = 0; u < U; ++u) gather_x<W>(x, cu[u], xv[u]);
#pragma unroll
      for (int u = 0; u < U; ++u)
#pragma unroll
        for (int i = 0; i < H; ++i)
#pragma unroll
          for (int j = 0; j < W; ++j) acc += v[u][i][j] * xv[u][j];
    }
  }
  for (long long i = t0; i < a.nrows; i += stride) y[i] = acc;
  if (acc == 1.2345e-300 || live == 0x9e3779b9u) *sink = acc + live; // data-dependent, never in practice
}

using BccooKernel = void (*)(BccooDev, const double *, double *, double *, int *);

// The kernel of mode M for h x w blocks.
template <int M, int H, int W>
BccooKernel bccoo_kernel() {
  if constexpr (M == kStream) return bccoo_stream_floor_kernel<H, W, bccoo_u(H, W, 4)>;
  else return bccoo_gather_floor_kernel<M, H, W, bccoo_u(H, W, 8)>;
}

template <int M, int H>
BccooKernel bccoo_kernel(int w) {
  return w == 1 ? bccoo_kernel<M, H, 1>() : w == 2 ? bccoo_kernel<M, H, 2>() : bccoo_kernel<M, H, 4>();
}

template <int M>
BccooKernel bccoo_kernel(int h, int w) {
  switch (h) {
  case 1: return bccoo_kernel<M, 1>(w);
  case 2: return bccoo_kernel<M, 2>(w);
  case 3: return bccoo_kernel<M, 3>(w);
  default: return bccoo_kernel<M, 4>(w);
  }
}

// One wave of resident 256-thread blocks of kernel f.
template <typename F>
cudaError_t wave(F f, int *grid) {
  int dev, sms, per_sm = 0;
  cudaError_t rc;
  if ((rc = cudaGetDevice(&dev)) != cudaSuccess) return rc;
  if ((rc = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess) return rc;
  if ((rc = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, 256, 0)) != cudaSuccess) return rc;
  *grid = std::max(1, per_sm) * sms;
  return cudaSuccess;
}

// warmup + reps launches, each between two events on s; median and min of the reps into r.
template <typename L>
cudaError_t time_reps(L launch, cudaStream_t s, cudaEvent_t e0, cudaEvent_t e1, int warmup, int reps, const char *name, BenchFloor &r) {
  snprintf(r.name, sizeof(r.name), "%s", name);
  return gpumat_bench::time_reps([&] { launch(); return cudaSuccess; }, s, e0, e1, warmup, reps, &r.median_ms, &r.min_ms);
}

} // namespace

// A CUDA call of the floors: on failure, the call and its error into err, then the cleanup.
#define FLOOR_CALL(call)                                                                                    \
  do {                                                                                                      \
    rc = (call);                                                                                            \
    if (rc != cudaSuccess) {                                                                                \
      snprintf(err, (size_t)errlen, "%s failed: %s", #call, cudaGetErrorString(rc));                      \
      goto done;                                                                                            \
    }                                                                                                       \
  } while (0)

extern "C" int BenchFloors(int nrows, int ncols, long long nnz, const int *rowptr, const int *colidx, const double *val, int reps,
                           int warmup, BenchFloor *res, int maxres, int *nres, char *err, int errlen) {
  int *d_rowptr = nullptr, *d_col = nullptr;
  double *d_val = nullptr, *d_x = nullptr, *d_y = nullptr, *d_sink = nullptr;
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  cudaStream_t s = nullptr;
  cudaError_t rc = cudaSuccess;
  *nres          = 0;
  {
    FLOOR_CALL(cudaMalloc(&d_rowptr, sizeof(int) * ((size_t)nrows + 1)));
    FLOOR_CALL(cudaMalloc(&d_col, sizeof(int) * (size_t)std::max(nnz, 1LL)));
    FLOOR_CALL(cudaMalloc(&d_val, sizeof(double) * (size_t)std::max(nnz, 1LL)));
    FLOOR_CALL(cudaMalloc(&d_x, sizeof(double) * (size_t)std::max(ncols, 1)));
    FLOOR_CALL(cudaMalloc(&d_y, sizeof(double) * (size_t)std::max(nrows, 1)));
    FLOOR_CALL(cudaMalloc(&d_sink, sizeof(double)));
    FLOOR_CALL(cudaMemcpy(d_rowptr, rowptr, sizeof(int) * ((size_t)nrows + 1), cudaMemcpyHostToDevice));
    FLOOR_CALL(cudaMemcpy(d_col, colidx, sizeof(int) * (size_t)nnz, cudaMemcpyHostToDevice));
    FLOOR_CALL(cudaMemcpy(d_val, val, sizeof(double) * (size_t)nnz, cudaMemcpyHostToDevice));
    {
      std::vector<double> hx((size_t)std::max(ncols, 1));
      for (size_t i = 0; i < hx.size(); ++i) hx[i] = 1.0 + 1e-7 * (double)(i % 1000);
      FLOOR_CALL(cudaMemcpy(d_x, hx.data(), sizeof(double) * hx.size(), cudaMemcpyHostToDevice));
    }
    FLOOR_CALL(cudaDeviceSynchronize()); // the pageable uploads have landed before s (non-blocking) reads them
    FLOOR_CALL(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    FLOOR_CALL(cudaEventCreate(&e0));
    FLOOR_CALL(cudaEventCreate(&e1));
    for (const Variant &v : kVariants) {
      if (*nres >= maxres) break;
      int grid;
      FLOOR_CALL(wave(v.kernel, &grid));
      FLOOR_CALL(time_reps([&] { v.kernel<<<grid, 256, 0, s>>>(d_rowptr, d_col, d_val, d_x, d_y, nnz, nrows, ncols, d_sink); }, s, e0, e1,
                           warmup, reps, v.name, res[*nres]));
      ++*nres;
    }
  }
done:
  if (e0) cudaEventDestroy(e0);
  if (e1) cudaEventDestroy(e1);
  if (s) cudaStreamDestroy(s);
  cudaFree(d_rowptr);
  cudaFree(d_col);
  cudaFree(d_val);
  cudaFree(d_x);
  cudaFree(d_y);
  cudaFree(d_sink);
  return rc == cudaSuccess ? 0 : (int)rc;
}

extern "C" int BenchFloorsBccoo(int nrows, int ncols, long long nnz, const int *rowptr, const int *colidx, const double *val,
                                const BenchBccooParams *p, int reps, int warmup, BenchFloor *res, int maxres, int *nres,
                                BenchBccooInfo *info, char *err, int errlen) {
  gpumat_floors::BccooPlan plan;
  std::vector<void *> dev; // every device allocation, freed at the end
  double *d_x = nullptr, *d_y = nullptr, *d_sink = nullptr;
  int *d_cols = nullptr;
  BccooDev a{};
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  cudaStream_t s = nullptr;
  cudaError_t rc = cudaSuccess;
  int host_rc    = 0;
  *nres          = 0;
  if (nnz != (long long)(nrows ? rowptr[nrows] : 0)) {
    snprintf(err, (size_t)errlen, "bccoo floors: nnz %lld is not rowptr[nrows] (32-bit indices only)", nnz);
    return -1;
  }
  try {
    const gpumat::CsrView<double> A{nrows, ncols, rowptr, colidx, val};
    gpumat_floors::bccoo_plan(A, *p, plan);
  } catch (const std::exception &e) {
    snprintf(err, (size_t)errlen, "bccoo floors: %s", e.what());
    return -1;
  }
  *info                          = plan.info;
  const gpumat::Bccoo<double> &B = plan.B;
  const int h = B.p.h, w = B.p.w;
  auto alloc = [&](size_t bytes, void **d) {
    cudaError_t r = cudaMalloc(d, std::max<size_t>(bytes, 256));
    if (r == cudaSuccess) dev.push_back(*d);
    return r;
  };
  {
    // the arrays of the product, as gpumat_floors::bccoo_arrays lists them
    const void *d_arr[8] = {};
    int ai               = 0;
    for (const gpumat_floors::BccooArray &arr : gpumat_floors::bccoo_arrays(B)) {
      void *d = nullptr;
      FLOOR_CALL(alloc(arr.bytes, &d));
      if (arr.bytes) FLOOR_CALL(cudaMemcpy(d, arr.data, arr.bytes, cudaMemcpyHostToDevice));
      d_arr[ai++] = d;
    }
    a.val           = static_cast<const double *>(d_arr[0]);
    a.flags         = static_cast<const std::uint32_t *>(d_arr[1]);
    a.dcol          = static_cast<const std::int16_t *>(d_arr[2]);
    a.col           = static_cast<const int *>(d_arr[3]);
    a.escape        = static_cast<const int *>(d_arr[4]);
    a.escape_start  = static_cast<const int *>(d_arr[5]);
    a.first_segment = static_cast<const int *>(d_arr[6]);
    a.no_scan       = static_cast<const std::uint8_t *>(d_arr[7]);
    a.npad          = B.padded_blocks;
    a.plane         = B.padded_blocks * w;
    a.nflagwords    = B.padded_blocks / 32;
    a.nescapes      = (long long)B.escape.size();
    a.ntiles        = B.thread_tiles();
    a.nbrows        = B.nbrows;
    a.nbcols        = B.nbcols;
    a.ngroups       = (long long)B.no_scan.size();
    a.tile          = B.p.tile;
    a.group         = B.p.group;
    a.compress      = B.p.compress_col;
    a.nrows         = nrows;
    a.ncols         = ncols;
    const size_t nx = (size_t)std::max<long long>((long long)B.nbcols * w, std::max(ncols, 1)); // whole block columns
    {
      std::vector<double> hx(nx, 0.0);
      for (int i = 0; i < ncols; ++i) hx[(size_t)i] = 1.0 + 1e-7 * (double)(i % 1000);
      FLOOR_CALL(alloc(sizeof(double) * nx, (void **)&d_x));
      FLOOR_CALL(cudaMemcpy(d_x, hx.data(), sizeof(double) * nx, cudaMemcpyHostToDevice));
    }
    FLOOR_CALL(alloc(sizeof(double) * (size_t)std::max(nrows, 1), (void **)&d_y));
    FLOOR_CALL(alloc(sizeof(double), (void **)&d_sink));
    FLOOR_CALL(cudaDeviceSynchronize()); // the pageable uploads have landed before s (non-blocking) reads them
    FLOOR_CALL(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    FLOOR_CALL(cudaEventCreate(&e0));
    FLOOR_CALL(cudaEventCreate(&e1));

    // the gather kernel's columns against the host layout's
    {
      const BccooKernel f = bccoo_kernel<kCheck>(h, w);
      int grid;
      FLOOR_CALL(wave(f, &grid));
      FLOOR_CALL(alloc(sizeof(int) * (size_t)B.padded_blocks, (void **)&d_cols));
      f<<<grid, 256, 0, s>>>(a, d_x, d_y, d_sink, d_cols);
      FLOOR_CALL(cudaGetLastError());
      FLOOR_CALL(cudaStreamSynchronize(s));
      std::vector<int> got((size_t)B.padded_blocks);
      if (!got.empty()) FLOOR_CALL(cudaMemcpy(got.data(), d_cols, sizeof(int) * got.size(), cudaMemcpyDeviceToHost));
      const std::vector<gpumat::index_t> want = gpumat_floors::bccoo_columns(B);
      for (size_t k = 0; k < got.size(); ++k)
        if (got[k] != want[k]) {
          snprintf(err, (size_t)errlen, "bccoo floors: the gather kernel decompressed block %zu (tile %zu) to column %d, the layout has %d", k,
                   k / (size_t)B.p.tile, got[k], want[k]);
          host_rc = -1;
          goto done;
        }
    }
    const struct {
      const char *name;
      BccooKernel f;
    } kinds[] = {{"floor:bccoo-stream", bccoo_kernel<kStream>(h, w)}, {"floor:bccoo-gather", bccoo_kernel<kGatherL1>(h, w)}};
    for (const auto &kd : kinds) {
      if (*nres >= maxres) break;
      int grid;
      FLOOR_CALL(wave(kd.f, &grid));
      FLOOR_CALL(time_reps([&] { kd.f<<<grid, 256, 0, s>>>(a, d_x, d_y, d_sink, nullptr); }, s, e0, e1, warmup, reps, kd.name, res[*nres]));
      ++*nres;
    }
  }
done:
#undef FLOOR_CALL
  if (e0) cudaEventDestroy(e0);
  if (e1) cudaEventDestroy(e1);
  if (s) cudaStreamDestroy(s);
  for (void *d : dev) cudaFree(d);
  return rc != cudaSuccess ? (int)rc : host_rc;
}
