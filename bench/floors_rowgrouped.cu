// The floors of the row-grouped formats, pjds (src/core/pjds.hpp) and bce (src/core/bce.hpp), for
// one matrix on this GPU. Each format's layout as its type builds it by default (pjds_model's
// parameters and pjds_build; bce_build with the defaults), built on the host, every array its GPU
// product reads copied to the device once:
//   pjds: padded entries x (8 B value + 4 B column) + 4 B rowlen (where its product reads it: the
//         padding's bytes above the lengths') + 4 B perm (unless the identity) per row of the pJDS
//         part + 8 B per block start + the long part (12 B per entry, 4 B per long row and per row
//         pointer);
//   bce:  padded entries x 12 B + 4 B row_no per row + the block table (width, rows, pos 4 B and
//         start 8 B per block) + 4 B per warp of 32 rows (its block) + the long part;
// = the format's bytes (PjdsDevice::format_bytes, Bce::bytes), + x + y once (8 B per column and per
// row). Three floors each:
//   floor:<format>-stream  those arrays by grid-stride loops of 16-byte loads, four in flight per
//                          thread, coalesced and streaming, x read once in order, y written once:
//                          the format's bytes at the GPU's streaming rate;
//   floor:<format>-gather  the product's reads without its row order: launched as the product is
//                          (a thread per position of the grouped part in 256-thread blocks, not a
//                          persistent loop, after blocks for the long part; positions in 32 bits,
//                          6 resident blocks per SM allowed), a position's entries
//                          8 at a time with their loads in flight (ld.global.cs) and x gathered
//                          through L1 (ld.global.nc), its sum written to y at its position (no
//                          permutation, no z: coalesced); the long part's entries 16 a thread
//                          with x gathered, no row sums, no chunk tables, no atomics;
//   floor:<format>-gather-perm  the same with y written where the product writes it, at the
//                          position's matrix row (pjds's perm, bce's row_no, read as the product
//                          reads them): what the layout's scattered stores of y add.
// Every memory access of the gather floor is one the product makes too (y's stores coalesced where
// the product's go through the permutation), with the product's launch shape and loads in flight,
// so a product over the same layout cannot be faster with the same x-gather path; the gap between
// the stream and gather floors is the price of the layout's x gathers. Before timing, y of one gather run is
// compared with the CSR product of the grouped rows (the floor's sums are the product's).
#include "floors.h"
#include "timing.cuh"
#include "core/bce.hpp"
#include "core/compress_model.hpp"
#include "core/pjds.hpp"
#include "cuda/pjds_index.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

namespace {

constexpr int kThreads   = 256;
constexpr int kUnroll    = 8;  // entries of a row loaded at once, as the products (pjds.cu, bce.cu)
constexpr int kLongPer   = 16; // long-part entries per thread of the gather floor
constexpr int kMaxArrays = 16;

// The arrays of a format, streamed by floor:<format>-stream.
struct Arrays {
  const uint4 *p[kMaxArrays];
  long long    n16[kMaxArrays]; // whole 16-byte words
  const unsigned *tail[kMaxArrays];
  int          ntail[kMaxArrays]; // the last 0..3 4-byte words
  int          n;
};

__global__ void __launch_bounds__(kThreads) rg_stream_floor(Arrays a, const double *__restrict__ x, long long ncols, double *__restrict__ y, long long nrows, double *sink) {
  const long long stride = (long long)gridDim.x * blockDim.x, t0 = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  unsigned        acc = 0;
  for (int k = 0; k < a.n; ++k) {
    const uint4    *p = a.p[k];
    const long long n = a.n16[k];
    long long       i = t0;
    for (; i + 3 * stride < n; i += 4 * stride) {
      uint4 v[4];
#pragma unroll
      for (int u = 0; u < 4; ++u) v[u] = __ldcs(p + i + u * stride);
#pragma unroll
      for (int u = 0; u < 4; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
    }
    for (; i < n; i += stride) {
      const uint4 v = __ldcs(p + i);
      acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (t0 < a.ntail[k]) acc ^= __ldcs(a.tail[k] + t0);
  }
  double s = 0;
  for (long long i = t0; i < ncols; i += stride) s += __ldcs(x + i);
  for (long long i = t0; i < nrows; i += stride) y[i] = (double)i;
  if (acc == 0x9e3779b9u && s == 1.2345e-300) *sink = s; // never true in practice; the compiler cannot know
}

// The long part (long_rows.hpp): its entries with x gathered.
struct LongDev {
  const double *val;
  const int    *col;
  long long     nnz;
};

// The gather floors' first lblocks CUDA blocks: the long part's entries, grid-stride over those
// blocks, each entry's value times x at its column summed (the sum kept only through sink).
__device__ __forceinline__ void long_part_floor(const LongDev &lg, long long lblocks, const double *__restrict__ x, double *sink) {
  const long long stride = lblocks * kThreads;
  double          acc    = 0;
  for (long long k = (long long)blockIdx.x * kThreads + threadIdx.x; k < lg.nnz; k += stride) acc += __ldcs(lg.val + k) * __ldg(x + __ldcs(lg.col + k));
  if (acc == 1.2345e-300) *sink = acc;
}

// The CUDA blocks the gather floors give the long part (kLongPer entries a thread, at most 65,535).
inline long long long_blocks(const LongDev &lg) { return lg.nnz ? std::min<long long>((lg.nnz + kThreads * kLongPer - 1) / (kThreads * kLongPer), 65535) : 0; }

// In 32 bits, as the products: the builds keep the padded entries below 2^31.
struct Pos {
  unsigned p;      // the first entry
  unsigned stride; // between a row's consecutive entries (its block's rows)
  int      n;      // entries to read
  unsigned out;    // its position (y index of the floor)
  unsigned row;    // its matrix row (the product's y index): perm / row_no, for the permuted variant
};

// pjds: position i of the pJDS part, as pjds_row (pjds.cu) finds it.
struct PjdsLayout {
  const double    *val;
  const int       *col, *rowlen, *perm; // perm: null for the identity
  const std::int64_t *block_start;
  int              npj, br;
  bool             read_rowlen;
  long long        threads() const { return npj; }
  __device__ bool  at(unsigned i, Pos &q) const {
    if (i >= unsigned(npj)) return false;
    const gpumat::cuda::PjdsPos b  = gpumat::cuda::pjds_pos(i, unsigned(br), unsigned(npj));
    const long long             bs = block_start[b.b];
    q.p                            = unsigned(bs) + b.lane;
    q.stride                       = b.rows;
    q.n                            = read_rowlen ? rowlen[i] : int(gpumat::cuda::pjds_width(block_start[b.b + 1] - bs, b.rows));
    q.out                          = i;
    q.row                          = perm ? unsigned(perm[i]) : i;
    return true;
  }
};

// bce: thread t of the group part, as group_row (bce.cu) finds it: warp t / 32 in block wblock[w],
// its row (w - warp[g]) x 32 + lane of the block if the block has that many.
struct BceLayout {
  const double    *val;
  const int       *col, *width, *rows, *pos, *warp, *wblock, *row_no;
  const std::int64_t *start;
  long long        warps;
  long long        threads() const { return 32 * warps; }
  __device__ bool  at(unsigned t, Pos &q) const {
    const unsigned w = t >> 5;
    if (w >= warps) return false;
    const int g = wblock[w], i = int((w - unsigned(warp[g])) * 32 + (t & 31));
    if (i >= rows[g]) return false;
    q.p      = unsigned(start[g]) + i;
    q.stride = rows[g];
    q.n      = width[g];
    q.out    = pos[g] + i;
    q.row    = unsigned(row_no[q.out]);
    return true;
  }
};

// Permuted: y written at the position's matrix row (perm, row_no) as the product writes it, the
// permutation read: floor:<format>-gather-perm, the gather floor plus the product's scattered stores.
template <class L, bool Permuted>
__global__ void __launch_bounds__(kThreads, 6) rg_gather_floor(L a, LongDev lg, long long lblocks, const double *__restrict__ x, double *__restrict__ y, double *sink) {
  if (blockIdx.x < lblocks) {
    long_part_floor(lg, lblocks, x, sink);
    return;
  }
  Pos q;
  if (!a.at(unsigned(blockIdx.x - lblocks) * kThreads + threadIdx.x, q)) return;
  double   s0 = 0, s1 = 0;
  unsigned p  = q.p; // may wrap after the last step, unused
  for (int j = 0; j < q.n; j += kUnroll, p += kUnroll * q.stride) {
    int    c[kUnroll];
    double v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const bool ok = j + u < q.n;
      c[u]          = ok ? __ldcs(a.col + p + u * q.stride) : 0;
      v[u]          = ok ? __ldcs(a.val + p + u * q.stride) : 0.0;
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (j + u < q.n) (u & 1 ? s1 : s0) += v[u] * __ldg(x + c[u]);
  }
  y[Permuted ? q.row : q.out] = s0 + s1;
}

// pjds with positional offsets (a layout pjds does not store yet; src/core/compress_model.hpp,
// pjds_compressed): block b's rows are all u_b = off_start[b + 1] - off_start[b] wide, entry j of a
// row at column base + offs[off_start[b] + j] (base: the row less its remainder modulo g), its value
// at val_start[b] + j rows_b + lane (0 where the row has no such entry): fp64 values (kVal64), 8-bit
// codes into a table of at most 256 values in shared memory (kCode8), or 16-bit codes into a table
// of at most 65,536 read through L1 (kCode16). No column per entry: the block's offsets are the
// same for its 32 rows (one load a warp). The column is clamped into the matrix, so a zero of a row
// at its edge reads a valid x.
struct PosLayout {
  const double       *val;   // !Table
  const std::uint8_t  *code;   // kCode8: 8-bit codes, the table in shared memory
  const std::uint16_t *code16; // kCode16: 16-bit codes, the table read through L1
  const double        *table;  // its ntable values
  const int          *offs, *perm;
  const std::int64_t *off_start, *val_start;
  int                 npj, br, g, ncols, ntable;
  int                 tile; // consecutive 256-position slices a CUDA block walks (x's lines reused in its L1)
  long long           threads() const { return (npj + tile - 1) / tile; }
};

enum ValMode { kVal64, kCode8, kCode16 };

template <int Mode>
__global__ void __launch_bounds__(kThreads, 6) pos_gather_floor(PosLayout a, LongDev lg, long long lblocks, const double *__restrict__ x, double *__restrict__ y, double *sink) {
  __shared__ double tab[Mode == kCode8 ? 256 : 1];
  if (Mode == kCode8) {
    for (int t = threadIdx.x; t < a.ntable; t += kThreads) tab[t] = a.table[t];
    __syncthreads();
  }
  if (blockIdx.x < lblocks) {
    long_part_floor(lg, lblocks, x, sink);
    return;
  }
  for (int t = 0; t < a.tile; ++t) {
    const unsigned i = (unsigned(blockIdx.x - lblocks) * unsigned(a.tile) + unsigned(t)) * kThreads + threadIdx.x;
    if (i >= unsigned(a.npj)) return;
    const gpumat::cuda::PjdsPos b    = gpumat::cuda::pjds_pos(i, unsigned(a.br), unsigned(a.npj));
    const long long             os   = a.off_start[b.b], vs = a.val_start[b.b];
    const int                   u    = int(a.off_start[b.b + 1] - os);
    const int                   r    = a.perm ? a.perm[i] : int(i);
    const int                   base = r - r % a.g;
    double                      s0 = 0, s1 = 0;
    for (int j = 0; j < u; j += kUnroll) {
      double v[kUnroll];
      int    c[kUnroll];
#pragma unroll
      for (int q = 0; q < kUnroll; ++q) {
        const bool      ok  = j + q < u;
        const long long pos = vs + (long long)(j + q) * b.rows + b.lane;
        if (Mode == kCode8) v[q] = ok ? tab[__ldcs(a.code + pos)] : 0.0;
        else if (Mode == kCode16) v[q] = ok ? __ldg(a.table + __ldcs(a.code16 + pos)) : 0.0;
        else v[q] = ok ? __ldcs(a.val + pos) : 0.0;
        c[q] = ok ? min(max(base + __ldg(a.offs + os + j + q), 0), a.ncols - 1) : 0;
      }
#pragma unroll
      for (int q = 0; q < kUnroll; ++q)
        if (j + q < u) (q & 1 ? s1 : s0) += v[q] * __ldg(x + c[q]);
    }
    y[i] = s0 + s1;
  }
}

// The positional layout with 8-bit codes packed four to a word: word g of a row holds its entries
// 4g .. 4g + 3 (the first in the low byte), at w_start[b] + g rows_b + lane; the block's offsets
// padded to a multiple of four (int4 loads, o4_start in int4s). A thread issues one 32-bit load per
// four codes and one 16-byte load per four offsets, where kCode8 issues one load per code and per
// offset: the same bytes, a quarter of the loads and of their registers
// (floor:pjds-pos-table-w4-*).
struct PosPacked {
  const std::uint32_t *w;
  const int4          *offs4;
  const std::int64_t  *w_start, *o4_start, *off_start;
  const double        *table;
  const int           *perm;
  int                  npj, br, g, ncols, ntable;
  long long            threads() const { return npj; }
};

// R rows a thread (positions i, i + 256, ... of a CUDA block of R x 256), every row's word and
// offset loads issued before any x is read: R times the bytes in flight per thread
// (floor:pjds-pos-table-w4-r2-*).
template <int R>
__global__ void __launch_bounds__(kThreads, R == 1 ? 6 : 4) posw4_gather_floor(PosPacked a, LongDev lg, long long lblocks, const double *__restrict__ x, double *__restrict__ y, double *sink) {
  __shared__ double tab[256];
  for (int t = threadIdx.x; t < a.ntable; t += kThreads) tab[t] = a.table[t];
  __syncthreads();
  if (blockIdx.x < lblocks) {
    long_part_floor(lg, lblocks, x, sink);
    return;
  }
  const unsigned first = unsigned(blockIdx.x - lblocks) * (R * kThreads) + threadIdx.x;
  long long      ws[R], o4[R];
  int            ng[R], u[R], base[R], lane[R], rows[R];
  int            gmax = 0;
#pragma unroll
  for (int k = 0; k < R; ++k) {
    const unsigned i = first + unsigned(k * kThreads);
    ng[k] = u[k] = base[k] = lane[k] = rows[k] = 0, ws[k] = o4[k] = 0;
    if (i >= unsigned(a.npj)) continue;
    const gpumat::cuda::PjdsPos b = gpumat::cuda::pjds_pos(i, unsigned(a.br), unsigned(a.npj));
    ws[k] = a.w_start[b.b], o4[k] = a.o4_start[b.b];
    ng[k] = int(a.o4_start[b.b + 1] - o4[k]), u[k] = int(a.off_start[b.b + 1] - a.off_start[b.b]);
    const int r = a.perm ? a.perm[i] : int(i);
    base[k] = r - r % a.g, lane[k] = int(b.lane), rows[k] = int(b.rows);
    gmax    = max(gmax, ng[k]);
  }
  double s0[R], s1[R];
#pragma unroll
  for (int k = 0; k < R; ++k) s0[k] = s1[k] = 0;
  for (int g = 0; g < gmax; g += 2) {
    unsigned w[R][2];
    int4     o[R][2];
#pragma unroll
    for (int k = 0; k < R; ++k)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const bool ok = g + h < ng[k];
        w[k][h]       = ok ? __ldcs(a.w + ws[k] + (long long)(g + h) * rows[k] + lane[k]) : 0u;
        o[k][h]       = ok ? __ldg(a.offs4 + o4[k] + g + h) : make_int4(0, 0, 0, 0);
      }
#pragma unroll
    for (int k = 0; k < R; ++k)
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int j = 4 * (g + h) + e;
          if (j < u[k]) {
            const int off = e == 0 ? o[k][h].x : e == 1 ? o[k][h].y : e == 2 ? o[k][h].z : o[k][h].w;
            const int c   = min(max(base[k] + off, 0), a.ncols - 1);
            (e & 1 ? s1[k] : s0[k]) += tab[(w[k][h] >> (8 * e)) & 0xffu] * __ldg(x + c);
          }
        }
  }
#pragma unroll
  for (int k = 0; k < R; ++k) {
    const unsigned i = first + unsigned(k * kThreads);
    if (i < unsigned(a.npj)) y[i] = s0[k] + s1[k];
  }
}

// pjds's plain layout (32-bit columns) with its values as 8-bit codes packed four to a word: word
// g of a row holds its entries 4g .. 4g + 3, at w_start[b] + g rows_b + lane; the table (at most
// 256 values) in shared memory. One 32-bit load per four codes where the type loads each code
// alone (floor:pjds-table-w4-*).
struct PjdsW4 {
  const int           *col, *rowlen;
  const std::uint32_t *w;
  const std::int64_t  *block_start, *w_start;
  const double        *table;
  int                  npj, br, ntable;
  bool                 read_rowlen;
  long long            threads() const { return npj; }
};

__global__ void __launch_bounds__(kThreads, 6) pjw4_gather_floor(PjdsW4 a, LongDev lg, long long lblocks, const double *__restrict__ x, double *__restrict__ y, double *sink) {
  __shared__ double tab[256];
  for (int t = threadIdx.x; t < a.ntable; t += kThreads) tab[t] = a.table[t];
  __syncthreads();
  if (blockIdx.x < lblocks) {
    long_part_floor(lg, lblocks, x, sink);
    return;
  }
  const unsigned i = unsigned(blockIdx.x - lblocks) * kThreads + threadIdx.x;
  if (i >= unsigned(a.npj)) return;
  const gpumat::cuda::PjdsPos b  = gpumat::cuda::pjds_pos(i, unsigned(a.br), unsigned(a.npj));
  const long long             bs = a.block_start[b.b], ws = a.w_start[b.b];
  const int                   n  = a.read_rowlen ? a.rowlen[i] : int(gpumat::cuda::pjds_width(a.block_start[b.b + 1] - bs, b.rows));
  double                      s0 = 0, s1 = 0;
  for (int j = 0; j < n; j += 8) {
    unsigned w[2];
    int      c[8];
#pragma unroll
    for (int h = 0; h < 2; ++h) w[h] = j + 4 * h < n ? __ldcs(a.w + ws + (long long)(j / 4 + h) * b.rows + b.lane) : 0u;
#pragma unroll
    for (int q = 0; q < 8; ++q) c[q] = j + q < n ? __ldcs(a.col + bs + (long long)(j + q) * b.rows + b.lane) : 0;
#pragma unroll
    for (int q = 0; q < 8; ++q)
      if (j + q < n) (q & 1 ? s1 : s0) += tab[(w[q / 4] >> (8 * (q % 4))) & 0xffu] * __ldg(x + c[q]);
  }
  y[i] = s0 + s1;
}

// pjds's plain layout (32-bit columns) with its values as 16-bit codes into a table of at most
// 65,536 values read through L1: floor:pjds-table16-*, the layout of a value table wider than the
// type's 8-bit one.
template <class L>
__global__ void __launch_bounds__(kThreads, 6) t16_gather_floor(L a, const std::uint16_t *__restrict__ code16, const double *__restrict__ table, LongDev lg, long long lblocks, const double *__restrict__ x,
                                                                double *__restrict__ y, double *sink) {
  if (blockIdx.x < lblocks) {
    long_part_floor(lg, lblocks, x, sink);
    return;
  }
  Pos q;
  if (!a.at(unsigned(blockIdx.x - lblocks) * kThreads + threadIdx.x, q)) return;
  double   s0 = 0, s1 = 0;
  unsigned p  = q.p;
  for (int j = 0; j < q.n; j += kUnroll, p += kUnroll * q.stride) {
    int    c[kUnroll];
    double v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const bool ok = j + u < q.n;
      c[u]          = ok ? __ldcs(a.col + p + u * q.stride) : 0;
      v[u]          = ok ? __ldg(table + __ldcs(code16 + p + u * q.stride)) : 0.0;
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (j + u < q.n) (u & 1 ? s1 : s0) += v[u] * __ldg(x + c[u]);
  }
  y[q.out] = s0 + s1;
}

// The device side of one format's floors: the uploads (freed at the end), the two timings, the
// check of the gather floor's sums.
class Floors {
public:
  Floors(int reps, int warmup, char *err, int errlen) : reps_(reps), warmup_(warmup), err_(err), errlen_(errlen) {}
  ~Floors() {
    if (e0_) cudaEventDestroy(e0_);
    if (e1_) cudaEventDestroy(e1_);
    if (s_) cudaStreamDestroy(s_);
    for (void *d : dev_) cudaFree(d);
  }
  // a copy of v on the device, streamed by the stream floor (unless stream is false), not read otherwise
  template <typename V>
  bool up(const std::vector<V> &v, bool stream = true) {
    const V *d;
    return up(v, &d, stream);
  }
  // a copy of v on the device, also streamed by the stream floor unless stream is false
  template <typename V>
  bool up(const std::vector<V> &v, const V **d, bool stream = true) {
    void        *p     = nullptr;
    const size_t bytes = v.size() * sizeof(V);
    if (!ok(cudaMalloc(&p, std::max<size_t>(bytes, 256)), "cudaMalloc")) return false;
    dev_.push_back(p);
    *d = static_cast<const V *>(p);
    if (bytes && !ok(cudaMemcpy(p, v.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy")) return false;
    if (stream && bytes) {
      if (arrays_.n == kMaxArrays) return fail("too many arrays");
      arrays_.p[arrays_.n]     = static_cast<const uint4 *>(p);
      arrays_.n16[arrays_.n]   = (long long)(bytes / 16);
      arrays_.tail[arrays_.n]  = static_cast<const unsigned *>(p) + 4 * (bytes / 16);
      arrays_.ntail[arrays_.n] = int(bytes % 16 / 4);
      ++arrays_.n;
    }
    return true;
  }
  // x (ones and small variations), y and the sink; the stream and the events
  bool vectors(int nrows, int ncols) {
    nrows_ = nrows, ncols_ = ncols;
    hx_.resize((size_t)std::max(ncols, 1));
    for (size_t i = 0; i < hx_.size(); ++i) hx_[i] = 1.0 + 1e-7 * (double)(i % 1000);
    const double *dx;
    if (!up(hx_, &dx, false)) return false;
    x_ = dx;
    if (!ok(cudaMalloc((void **)&y_, sizeof(double) * (size_t)std::max(nrows, 1)), "cudaMalloc")) return false;
    dev_.push_back(y_);
    if (!ok(cudaMalloc((void **)&sink_, sizeof(double)), "cudaMalloc")) return false;
    dev_.push_back(sink_);
    return ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize") && ok(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking), "cudaStreamCreate") && ok(cudaEventCreate(&e0_), "cudaEventCreate") &&
           ok(cudaEventCreate(&e1_), "cudaEventCreate");
  }
  const std::vector<double> &x() const { return hx_; }
  // floor:<name>-stream alone (a layout whose gather floor has no kernel here: the uploaded arrays
  // at the streaming rate, x and y once)
  bool stream_only(const char *name, BenchFloor *res, int maxres, int *nres) {
    int dev = 0, sms = 0, per_sm = 0;
    if (*nres >= maxres) return true;
    if (!ok(cudaGetDevice(&dev), "cudaGetDevice") || !ok(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), "cudaDeviceGetAttribute") ||
        !ok(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, rg_stream_floor, kThreads, 0), "cudaOccupancyMaxActiveBlocksPerMultiprocessor"))
      return false;
    const int sgrid = std::max(1, per_sm) * sms;
    snprintf(res[*nres].name, sizeof(res[*nres].name), "floor:%s-stream", name);
    auto launch = [&] {
      rg_stream_floor<<<sgrid, kThreads, 0, s_>>>(arrays_, x_, ncols_, y_, nrows_, sink_);
      return cudaSuccess;
    };
    if (!ok(gpumat_bench::time_reps(launch, s_, e0_, e1_, warmup_, reps_, &res[*nres].median_ms, &res[*nres].min_ms), res[*nres].name)) return false;
    ++*nres;
    return true;
  }
  // floor:<name>-stream and floor:<name>-gather into res; ref(y) checks the gather floor's y
  template <class L, class Check>
  bool run(const char *name, const L &layout, LongDev lg, Check ref, BenchFloor *res, int maxres, int *nres) {
    int dev = 0, sms = 0, per_sm = 0;
    if (!ok(cudaGetDevice(&dev), "cudaGetDevice") || !ok(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), "cudaDeviceGetAttribute") ||
        !ok(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, rg_stream_floor, kThreads, 0), "cudaOccupancyMaxActiveBlocksPerMultiprocessor"))
      return false;
    const int       sgrid   = std::max(1, per_sm) * sms;
    const long long lblocks = long_blocks(lg);
    const long long grid    = lblocks + (layout.threads() + kThreads - 1) / kThreads;
    auto            gather  = [&](bool permuted) {
      if (grid > 0 && permuted) rg_gather_floor<L, true><<<(unsigned)grid, kThreads, 0, s_>>>(layout, lg, lblocks, x_, y_, sink_);
      else if (grid > 0) rg_gather_floor<L, false><<<(unsigned)grid, kThreads, 0, s_>>>(layout, lg, lblocks, x_, y_, sink_);
      return cudaSuccess;
    };
    // the check: one run, y at the positions against the CSR product of their rows
    std::vector<double> hy((size_t)std::max(nrows_, 1));
    if (!ok(cudaMemsetAsync(y_, 0, hy.size() * sizeof(double), s_), "cudaMemsetAsync") || !ok(gather(false), "gather floor") || !ok(cudaGetLastError(), "gather floor") ||
        !ok(cudaMemcpyAsync(hy.data(), y_, hy.size() * sizeof(double), cudaMemcpyDeviceToHost, s_), "cudaMemcpyAsync") || !ok(cudaStreamSynchronize(s_), "cudaStreamSynchronize"))
      return false;
    std::string why = ref(hy);
    if (!why.empty()) return fail((std::string(name) + " floors: the gather floor's sums differ from the CSR product: " + why).c_str());
    const struct {
      const char *kind;
      int         what; // 0 stream, 1 gather, 2 gather with the product's permuted stores
    } kinds[] = {{"stream", 0}, {"gather", 1}, {"gather-perm", 2}};
    for (const auto &k : kinds) {
      if (*nres >= maxres) break;
      snprintf(res[*nres].name, sizeof(res[*nres].name), "floor:%s-%s", name, k.kind);
      auto launch = [&] {
        if (k.what == 0) rg_stream_floor<<<sgrid, kThreads, 0, s_>>>(arrays_, x_, ncols_, y_, nrows_, sink_);
        else gather(k.what == 2);
        return cudaSuccess;
      };
      if (!ok(gpumat_bench::time_reps(launch, s_, e0_, e1_, warmup_, reps_, &res[*nres].median_ms, &res[*nres].min_ms), res[*nres].name)) return false;
      ++*nres;
    }
    return true;
  }
  // floor:<name>-stream and floor:<name>-gather of a layout whose gather kernel gather(grid,
  // lblocks) launches on the stream given; y checked as run() checks it
  template <class Gather, class Check>
  bool run_custom(const char *name, long long threads, LongDev lg, Gather gather_on, Check ref, BenchFloor *res, int maxres, int *nres) {
    int dev = 0, sms = 0, per_sm = 0;
    if (!ok(cudaGetDevice(&dev), "cudaGetDevice") || !ok(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), "cudaDeviceGetAttribute") ||
        !ok(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, rg_stream_floor, kThreads, 0), "cudaOccupancyMaxActiveBlocksPerMultiprocessor"))
      return false;
    const int       sgrid   = std::max(1, per_sm) * sms;
    const long long lblocks = long_blocks(lg);
    const long long grid    = lblocks + (threads + kThreads - 1) / kThreads;
    auto            gather  = [&] {
      if (grid > 0) gather_on((unsigned)grid, lblocks, s_, x_, y_, sink_);
      return cudaSuccess;
    };
    std::vector<double> hy((size_t)std::max(nrows_, 1));
    if (!ok(cudaMemsetAsync(y_, 0, hy.size() * sizeof(double), s_), "cudaMemsetAsync") || !ok(gather(), name) || !ok(cudaGetLastError(), name) ||
        !ok(cudaMemcpyAsync(hy.data(), y_, hy.size() * sizeof(double), cudaMemcpyDeviceToHost, s_), "cudaMemcpyAsync") || !ok(cudaStreamSynchronize(s_), "cudaStreamSynchronize"))
      return false;
    std::string why = ref(hy);
    if (!why.empty()) return fail((std::string(name) + " floors: the gather floor's sums differ from the CSR product: " + why).c_str());
    for (int what = 0; what < 2 && *nres < maxres; ++what) {
      snprintf(res[*nres].name, sizeof(res[*nres].name), "floor:%s-%s", name, what ? "gather" : "stream");
      auto launch = [&] {
        if (what == 0) rg_stream_floor<<<sgrid, kThreads, 0, s_>>>(arrays_, x_, ncols_, y_, nrows_, sink_);
        else gather();
        return cudaSuccess;
      };
      if (!ok(gpumat_bench::time_reps(launch, s_, e0_, e1_, warmup_, reps_, &res[*nres].median_ms, &res[*nres].min_ms), res[*nres].name)) return false;
      ++*nres;
    }
    return true;
  }
  bool fail(const char *what) {
    snprintf(err_, (size_t)errlen_, "%s", what);
    rc_ = -1;
    return false;
  }
  int rc() const { return rc_; }

private:
  bool ok(cudaError_t e, const char *what) {
    if (e == cudaSuccess) return true;
    snprintf(err_, (size_t)errlen_, "%s failed: %s", what, cudaGetErrorString(e));
    rc_ = (int)e;
    return false;
  }
  int                 reps_, warmup_, errlen_, rc_ = 0, nrows_ = 0, ncols_ = 0;
  char               *err_;
  std::vector<void *> dev_;
  std::vector<double> hx_;
  Arrays              arrays_{};
  const double       *x_ = nullptr;
  double             *y_ = nullptr, *sink_ = nullptr;
  cudaStream_t        s_  = nullptr;
  cudaEvent_t         e0_ = nullptr, e1_ = nullptr;
};

// The check of a gather floor: y[pos] against row(pos)'s CSR product with x, relative to the
// row's sum of |a x|; "" when every position agrees.
template <class RowOf>
std::string check_rows(const int *rowptr, const int *colidx, const double *val, const std::vector<double> &x, const std::vector<double> &y, long long positions, RowOf row_of) {
  for (long long i = 0; i < positions; ++i) {
    const int r = row_of(i);
    double    s = 0, m = 0;
    for (int k = rowptr[r]; k < rowptr[r + 1]; ++k) s += val[k] * x[(size_t)colidx[k]], m += std::fabs(val[k] * x[(size_t)colidx[k]]);
    if (std::fabs(y[(size_t)i] - s) > 1e-12 * std::max(m, 1e-300) + 1e-300) {
      char b[160];
      snprintf(b, sizeof(b), "position %lld (row %d): %.17g, CSR %.17g", i, r, y[(size_t)i], s);
      return b;
    }
  }
  return "";
}

bool nnz_ok(int nrows, long long nnz, const int *rowptr, const char *name, char *err, int errlen) {
  if (nnz == (long long)(nrows ? rowptr[nrows] : 0)) return true;
  snprintf(err, (size_t)errlen, "%s floors: nnz %lld is not rowptr[nrows] (32-bit indices only)", name, nnz);
  return false;
}

} // namespace

// A table of the distinct values of vals (bit patterns, ascending) and each value's code, where they
// are at most `max`; false otherwise.
bool value_table(const std::vector<double> &vals, std::size_t max, std::vector<double> &table, std::vector<std::uint32_t> &codes) {
  std::vector<std::uint64_t> bits(vals.size());
  for (std::size_t k = 0; k < bits.size(); ++k) std::memcpy(&bits[k], &vals[k], sizeof(double));
  std::vector<std::uint64_t> keys(bits);
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  if (keys.empty() || keys.size() > max) return false;
  table.resize(keys.size());
  for (std::size_t t = 0; t < keys.size(); ++t) std::memcpy(&table[t], &keys[t], sizeof(double));
  codes.resize(bits.size());
  for (std::size_t k = 0; k < bits.size(); ++k) codes[k] = std::uint32_t(std::lower_bound(keys.begin(), keys.end(), bits[k]) - keys.begin());
  return true;
}

// The positional layout (PosLayout) of a pjds with plain columns and values, offsets from groups of
// g rows; its values' table (zeros included) where they are at most 65,536.
struct PositionalHost {
  std::vector<int>           offs;
  std::vector<std::int64_t>  off_start{0}, val_start{0};
  std::vector<double>        val, table;
  std::vector<std::uint32_t> codes; // into table (empty: no table)
};
void positional_build(const gpumat::Pjds<double> &B, int g, PositionalHost &P) {
  std::vector<int> u;
  for (std::int64_t b = 0; b < B.nblocks(); ++b) {
    const std::int64_t rows = B.block_rows(b), bs = B.block_start[(size_t)b];
    u.clear();
    for (std::int64_t lane = 0; lane < rows; ++lane) {
      const std::int64_t i = b * B.p.block_rows + lane;
      const int          r = B.row(i), base = r - r % g;
      for (std::int64_t j = 0; j < B.rowlen[(size_t)i]; ++j) u.push_back(B.col[(size_t)(bs + j * rows + lane)] - base);
    }
    std::sort(u.begin(), u.end());
    u.erase(std::unique(u.begin(), u.end()), u.end());
    P.offs.insert(P.offs.end(), u.begin(), u.end());
    P.off_start.push_back((std::int64_t)P.offs.size());
    const size_t v0 = P.val.size();
    P.val.resize(v0 + (size_t)rows * u.size(), 0.0);
    for (std::int64_t lane = 0; lane < rows; ++lane) {
      const std::int64_t i = b * B.p.block_rows + lane;
      const int          r = B.row(i), base = r - r % g;
      for (std::int64_t j = 0; j < B.rowlen[(size_t)i]; ++j) {
        const size_t pos = (size_t)(bs + j * rows + lane);
        const size_t k   = size_t(std::lower_bound(u.begin(), u.end(), B.col[pos] - base) - u.begin());
        P.val[v0 + k * (size_t)rows + (size_t)lane] = B.val[pos];
      }
    }
    P.val_start.push_back((std::int64_t)P.val.size());
  }
  if (!value_table(P.val, 65536, P.table, P.codes)) P.table.clear(), P.codes.clear();
}

extern "C" int BenchFloorsPjds(int nrows, int ncols, long long nnz, const int *rowptr, const int *colidx, const double *val, int reps, int warmup, BenchFloor *res, int maxres, int *nres,
                               BenchPjdsInfo *info, char *err, int errlen) {
  *nres = 0;
  if (!nnz_ok(nrows, nnz, rowptr, "pjds", err, errlen)) return -1;
  gpumat::Pjds<double> B;
  try {
    const gpumat::CsrView<double> A{nrows, ncols, rowptr, colidx, val};
    gpumat::PjdsParams q;
    q.columns = gpumat::PjdsColumns::Plain; // the floor of the plain layout (its kernel reads col and val)
    q.values  = gpumat::PjdsValues::Plain;
    gpumat::pjds_build(A, gpumat::pjds_model(A, q).p, B);
  } catch (const std::exception &e) {
    snprintf(err, (size_t)errlen, "pjds floors: %s", e.what());
    return -1;
  }
  // the product reads rowlen only where the padding's bytes exceed the lengths' (as PjdsDevice)
  const bool read_rowlen = B.reads_rowlen();
  info->block_rows   = B.p.block_rows;
  info->sigma        = B.p.sigma;
  info->long_row     = B.p.long_row;
  info->padding      = B.padding();
  info->long_rows    = (long long)B.long_rows.size();
  info->long_entries = (long long)B.long_val.size();
  info->format_bytes = (double)B.read_bytes();
  info->bytes        = info->format_bytes + 8.0 * ncols + 8.0 * nrows;
  Floors     F(reps, warmup, err, errlen);
  PjdsLayout L{};
  LongDev    lg{};
  const int *perm = nullptr, *lrows = nullptr, *lptr = nullptr;
  if (!F.up(B.val, &L.val) || !F.up(B.col, &L.col) || !F.up(B.rowlen, &L.rowlen, read_rowlen) || !F.up(B.block_start, &L.block_start) || !F.up(B.long_val, &lg.val) || !F.up(B.long_col, &lg.col) ||
      !F.up(B.long_rows, &lrows) || !F.up(B.long_ptr, &lptr) || (!B.perm.empty() && !F.up(B.perm, &perm)) || !F.vectors(nrows, ncols))
    return F.rc();
  L.npj = B.nrows_pj, L.br = B.p.block_rows, L.read_rowlen = read_rowlen, L.perm = perm;
  lg.nnz = (long long)B.long_val.size();
  auto ref = [&](const std::vector<double> &y) { return check_rows(rowptr, colidx, val, F.x(), y, B.nrows_pj, [&](long long i) { return B.perm.empty() ? int(i) : B.perm[(size_t)i]; }); };
  if (!F.run("pjds", L, lg, ref, res, maxres, nres)) return F.rc();
  // the stream floors of the compressed layouts: the type's default (auto columns and values:
  // floor:pjds-auto-stream) and fp32 storage (-mat_gpumat_values fp32, no table:
  // floor:pjds-fp32-stream), every array their products read
  info->auto_bytes = info->fp32_bytes = 0;
  for (int v = 0; v < 2; ++v) {
    gpumat::Pjds<double> C;
    try {
      const gpumat::CsrView<double> A{nrows, ncols, rowptr, colidx, val};
      gpumat::PjdsParams            q;
      if (v == 1) q.values = gpumat::PjdsValues::Plain, q.fp32 = true;
      gpumat::pjds_build(A, gpumat::pjds_model(A, q).p, C);
    } catch (const std::exception &e) {
      snprintf(err, (size_t)errlen, "pjds floors: %s", e.what());
      return -1;
    }
    (v ? info->fp32_bytes : info->auto_bytes) = (double)C.read_bytes() + 8.0 * ncols + 8.0 * nrows;
    Floors G(reps, warmup, err, errlen);
    bool   okay = G.up(C.rowlen, C.reads_rowlen()) && G.up(C.block_start) && G.up(C.long_val) && G.up(C.long_col) && G.up(C.long_rows) && G.up(C.long_ptr) && (C.perm.empty() || G.up(C.perm));
    okay        = okay && (C.coded() ? G.up(C.code) && G.up(C.dict) && G.up(C.dict_start) : G.up(C.col));
    okay        = okay && (C.tabled() ? (C.vcode16.empty() ? G.up(C.vcode) : G.up(C.vcode16)) && G.up(C.table) : C.single() ? G.up(C.val32) : G.up(C.val));
    if (!okay || !G.vectors(nrows, ncols) || !G.stream_only(v ? "pjds-fp32" : "pjds-auto", res, maxres, nres)) return G.rc();
  }
  auto positions_ref = [&](const Floors &G) { // the gather floor's y at the positions, against the CSR product of their rows
    const Floors *g = &G;
    return [&, g](const std::vector<double> &y) { return check_rows(rowptr, colidx, val, g->x(), y, B.nrows_pj, [&](long long i) { return B.perm.empty() ? int(i) : B.perm[(size_t)i]; }); };
  };
  // 16-bit value codes on the plain layout, where its padded values number 257 to 65,536 (the type's
  // own table holds 256): floor:pjds-table16-stream and -gather
  info->table16_bytes = 0;
  std::vector<double>        vtable; // the plain layout's distinct values (at most 65,536) and their codes
  std::vector<std::uint32_t> vcodes;
  const bool                 vtabled = value_table(B.val, 65536, vtable, vcodes);
  {
    const std::vector<double>        &table = vtable;
    const std::vector<std::uint32_t> &codes = vcodes;
    if (vtabled && table.size() > 256) {
      const std::vector<std::uint16_t> c16(codes.begin(), codes.end());
      info->table16_bytes = (double)B.read_bytes() - 8.0 * (double)B.val.size() + 2.0 * (double)c16.size() + 8.0 * (double)table.size() + 8.0 * ncols + 8.0 * nrows;
      Floors               G(reps, warmup, err, errlen);
      PjdsLayout           L2{};
      LongDev              lg2{};
      const std::uint16_t *dc = nullptr;
      const double        *dt = nullptr;
      const int           *lr = nullptr, *lp = nullptr, *pm = nullptr;
      if (!G.up(B.col, &L2.col) || !G.up(c16, &dc) || !G.up(table, &dt) || !G.up(B.rowlen, &L2.rowlen, read_rowlen) || !G.up(B.block_start, &L2.block_start) || !G.up(B.long_val, &lg2.val) ||
          !G.up(B.long_col, &lg2.col) || !G.up(B.long_rows, &lr) || !G.up(B.long_ptr, &lp) || (!B.perm.empty() && !G.up(B.perm, &pm)) || !G.vectors(nrows, ncols))
        return G.rc();
      L2.npj = B.nrows_pj, L2.br = B.p.block_rows, L2.read_rowlen = read_rowlen, L2.perm = pm;
      lg2.nnz      = (long long)B.long_val.size();
      auto gather2 = [&](unsigned grid, long long lb, cudaStream_t st, const double *x, double *y, double *sink) { t16_gather_floor<PjdsLayout><<<grid, kThreads, 0, st>>>(L2, dc, dt, lg2, lb, x, y, sink); };
      if (!G.run_custom("pjds-table16", L2.threads(), lg2, gather2, positions_ref(G), res, maxres, nres)) return G.rc();
    }
  }
  // the plain layout with 8-bit codes packed four to a word, where the values number at most 256:
  // floor:pjds-table-w4-*
  info->table_w4_bytes = 0;
  {
    const std::vector<double>        &table = vtable;
    const std::vector<std::uint32_t> &codes = vcodes;
    if (vtabled && table.size() <= 256) {
      std::vector<std::uint32_t> w;
      std::vector<std::int64_t>  w_start{0};
      for (std::int64_t b = 0; b < B.nblocks(); ++b) {
        const std::int64_t rows = B.block_rows(b), bs = B.block_start[(size_t)b], width = rows ? (B.block_start[(size_t)b + 1] - bs) / rows : 0, ng = (width + 3) / 4;
        const size_t       w0 = w.size();
        w.resize(w0 + (size_t)(ng * rows), 0u);
        for (std::int64_t j = 0; j < width; ++j)
          for (std::int64_t lane = 0; lane < rows; ++lane) w[w0 + (size_t)((j / 4) * rows + lane)] |= codes[(size_t)(bs + j * rows + lane)] << (8 * (j % 4));
        w_start.push_back((std::int64_t)w.size());
      }
      info->table_w4_bytes = (double)B.read_bytes() - 8.0 * (double)B.val.size() + 4.0 * (double)w.size() + 8.0 * (double)(w_start.size() + table.size()) + 8.0 * ncols + 8.0 * nrows;
      Floors     G(reps, warmup, err, errlen);
      PjdsW4     L4{};
      LongDev    lg4{};
      const int *lr = nullptr, *lp = nullptr;
      if (!G.up(B.col, &L4.col) || !G.up(w, &L4.w) || !G.up(w_start, &L4.w_start) || !G.up(table, &L4.table) || !G.up(B.rowlen, &L4.rowlen, read_rowlen) || !G.up(B.block_start, &L4.block_start) ||
          !G.up(B.long_val, &lg4.val) || !G.up(B.long_col, &lg4.col) || !G.up(B.long_rows, &lr) || !G.up(B.long_ptr, &lp) || !G.vectors(nrows, ncols))
        return G.rc();
      L4.npj = B.nrows_pj, L4.br = B.p.block_rows, L4.ntable = int(table.size()), L4.read_rowlen = read_rowlen;
      lg4.nnz      = (long long)B.long_val.size();
      auto gather4 = [&](unsigned grid, long long lb, cudaStream_t st, const double *x, double *y, double *sink) { pjw4_gather_floor<<<grid, kThreads, 0, st>>>(L4, lg4, lb, x, y, sink); };
      if (!G.run_custom("pjds-table-w4", L4.threads(), lg4, gather4, positions_ref(G), res, maxres, nres)) return G.rc();
    }
  }
  // positional offsets (src/core/compress_model.hpp), where every block of the plain layout reads
  // fewer bytes so: floor:pjds-pos-stream and -gather (fp64 values), and with the table of its values
  // (zeros included) floor:pjds-pos-table-* (8-bit codes, at most 256 values) or
  // floor:pjds-pos-table16-* (16-bit codes, at most 65,536)
  info->pos_bytes = info->pos_table_bytes = 0;
  info->pos_group                         = 0;
  const gpumat::PjdsCompressed pc         = gpumat::pjds_compressed(B, 0);
  if (pc.diag_group > 0 && pc.blocks_diag == pc.blocks && pc.blocks > 0) {
    PositionalHost P;
    try {
      positional_build(B, int(pc.diag_group), P);
    } catch (const std::exception &e) {
      snprintf(err, (size_t)errlen, "pjds floors: %s", e.what());
      return -1;
    }
    const int    mode   = P.table.empty() ? kVal64 : P.table.size() <= 256 ? kCode8 : kCode16;
    info->pos_group     = int(pc.diag_group);
    const double shared = 4.0 * P.offs.size() + 8.0 * (P.off_start.size() + P.val_start.size()) + 4.0 * B.perm.size() + (double)B.long_bytes() + 8.0 * ncols + 8.0 * nrows;
    info->pos_bytes     = shared + 8.0 * P.val.size();
    info->pos_table_bytes = mode == kVal64 ? 0 : shared + (mode == kCode8 ? 1.0 : 2.0) * P.codes.size() + 8.0 * P.table.size();
    const std::vector<std::uint8_t>  c8 = mode == kCode8 ? std::vector<std::uint8_t>(P.codes.begin(), P.codes.end()) : std::vector<std::uint8_t>();
    const std::vector<std::uint16_t> c16 = mode == kCode16 ? std::vector<std::uint16_t>(P.codes.begin(), P.codes.end()) : std::vector<std::uint16_t>();
    // each variant also with CUDA blocks of 4 and 16 consecutive 256-position slices
    // (floor:pjds-pos-tile4-*, ...): a stencil's x lines one grid line apart then come from L1
    for (int tv = 0; tv < 6; ++tv) {
      const int t = tv % 2, tile = tv < 2 ? 1 : tv < 4 ? 4 : 16;
      if (mode == kVal64 && t == 1) continue;
      Floors    G(reps, warmup, err, errlen);
      PosLayout Lp{};
      LongDev   lgp{};
      const int *lr = nullptr, *lp = nullptr;
      bool okay = G.up(P.offs, &Lp.offs) && G.up(P.off_start, &Lp.off_start) && G.up(P.val_start, &Lp.val_start) && G.up(B.long_val, &lgp.val) && G.up(B.long_col, &lgp.col) && G.up(B.long_rows, &lr) &&
                  G.up(B.long_ptr, &lp) && (B.perm.empty() || G.up(B.perm, &Lp.perm));
      if (t == 0) okay = okay && G.up(P.val, &Lp.val);
      else okay = okay && G.up(P.table, &Lp.table) && (mode == kCode8 ? G.up(c8, &Lp.code) : G.up(c16, &Lp.code16));
      if (!okay || !G.vectors(nrows, ncols)) return G.rc();
      Lp.npj = B.nrows_pj, Lp.br = B.p.block_rows, Lp.g = int(pc.diag_group), Lp.ncols = ncols, Lp.ntable = int(P.table.size()), Lp.tile = tile;
      lgp.nnz    = (long long)B.long_val.size();
      const int m = t == 0 ? int(kVal64) : mode;
      auto gather = [&](unsigned grid, long long lb, cudaStream_t st, const double *x, double *y, double *sink) {
        if (m == kVal64) pos_gather_floor<kVal64><<<grid, kThreads, 0, st>>>(Lp, lgp, lb, x, y, sink);
        else if (m == kCode8) pos_gather_floor<kCode8><<<grid, kThreads, 0, st>>>(Lp, lgp, lb, x, y, sink);
        else pos_gather_floor<kCode16><<<grid, kThreads, 0, st>>>(Lp, lgp, lb, x, y, sink);
      };
      char name[48];
      snprintf(name, sizeof(name), "%s%s", m == kVal64 ? "pjds-pos" : m == kCode8 ? "pjds-pos-table" : "pjds-pos-table16", tile == 1 ? "" : tile == 4 ? "-tile4" : "-tile16");
      if (!G.run_custom(name, Lp.threads(), lgp, gather, positions_ref(G), res, maxres, nres)) return G.rc();
    }
    if (mode == kCode8) { // the codes four to a word, the offsets four to an int4: floor:pjds-pos-table-w4-*
      std::vector<std::uint32_t> w;
      std::vector<int>           o;
      std::vector<std::int64_t>  w_start{0}, o4_start{0};
      for (std::int64_t b = 0; b < B.nblocks(); ++b) {
        const std::int64_t rows = B.block_rows(b), u = P.off_start[(size_t)b + 1] - P.off_start[(size_t)b], ng = (u + 3) / 4, v0 = P.val_start[(size_t)b];
        for (std::int64_t j = 0; j < 4 * ng; ++j) o.push_back(j < u ? P.offs[(size_t)(P.off_start[(size_t)b] + j)] : 0);
        o4_start.push_back((std::int64_t)o.size() / 4);
        const size_t w0 = w.size();
        w.resize(w0 + (size_t)(ng * rows), 0u);
        for (std::int64_t j = 0; j < u; ++j)
          for (std::int64_t lane = 0; lane < rows; ++lane) w[w0 + (size_t)((j / 4) * rows + lane)] |= P.codes[(size_t)(v0 + j * rows + lane)] << (8 * (j % 4));
        w_start.push_back((std::int64_t)w.size());
      }
      std::vector<int4> o4(o.size() / 4);
      for (size_t k = 0; k < o4.size(); ++k) o4[k] = make_int4(o[4 * k], o[4 * k + 1], o[4 * k + 2], o[4 * k + 3]);
      Floors    G(reps, warmup, err, errlen);
      PosPacked Lw{};
      LongDev   lgw{};
      const int *lr = nullptr, *lp = nullptr;
      if (!G.up(w, &Lw.w) || !G.up(o4, &Lw.offs4) || !G.up(w_start, &Lw.w_start) || !G.up(o4_start, &Lw.o4_start) || !G.up(P.off_start, &Lw.off_start) || !G.up(P.table, &Lw.table) ||
          !G.up(B.long_val, &lgw.val) || !G.up(B.long_col, &lgw.col) || !G.up(B.long_rows, &lr) || !G.up(B.long_ptr, &lp) || (!B.perm.empty() && !G.up(B.perm, &Lw.perm)) || !G.vectors(nrows, ncols))
        return G.rc();
      Lw.npj = B.nrows_pj, Lw.br = B.p.block_rows, Lw.g = int(pc.diag_group), Lw.ncols = ncols, Lw.ntable = int(P.table.size());
      lgw.nnz     = (long long)B.long_val.size();
      auto gather = [&](unsigned grid, long long lb, cudaStream_t st, const double *x, double *y, double *sink) { posw4_gather_floor<1><<<grid, kThreads, 0, st>>>(Lw, lgw, lb, x, y, sink); };
      if (!G.run_custom("pjds-pos-table-w4", Lw.threads(), lgw, gather, positions_ref(G), res, maxres, nres)) return G.rc();
      auto gather2 = [&](unsigned grid, long long lb, cudaStream_t st, const double *x, double *y, double *sink) { posw4_gather_floor<2><<<grid, kThreads, 0, st>>>(Lw, lgw, lb, x, y, sink); };
      if (!G.run_custom("pjds-pos-table-w4-r2", (Lw.threads() + 1) / 2, lgw, gather2, positions_ref(G), res, maxres, nres)) return G.rc();
    }
  }
  return 0;
}

extern "C" int BenchFloorsBce(int nrows, int ncols, long long nnz, const int *rowptr, const int *colidx, const double *val, int reps, int warmup, BenchFloor *res, int maxres, int *nres,
                              BenchBceInfo *info, char *err, int errlen) {
  *nres = 0;
  if (!nnz_ok(nrows, nnz, rowptr, "bce", err, errlen)) return -1;
  gpumat::Bce<double> B;
  try {
    gpumat::bce_build(gpumat::CsrView<double>{nrows, ncols, rowptr, colidx, val}, gpumat::BceParams{}, B);
  } catch (const std::exception &e) {
    snprintf(err, (size_t)errlen, "bce floors: %s", e.what());
    return -1;
  }
  // the GPU product's warps: block b's rows in warps warp[b] .. warp[b + 1] - 1, wblock[w] = b
  const std::vector<std::int64_t> warps = gpumat::bce_block_warps(B.rows);
  std::vector<int>                warp(warps.begin(), warps.end()), wblock;
  for (int b = 0; b < B.blocks(); ++b) wblock.resize((size_t)warp[(size_t)b + 1], b);
  info->groups       = B.groups();
  info->blocks       = B.blocks();
  info->window       = B.p.window;
  info->long_row     = B.p.long_row;
  info->padding      = B.padding();
  info->long_rows    = (long long)B.long_rows.size();
  info->long_entries = (long long)B.long_val.size();
  info->format_bytes = (double)B.bytes();
  info->bytes        = info->format_bytes + 8.0 * ncols + 8.0 * nrows;
  Floors           F(reps, warmup, err, errlen);
  BceLayout        L{};
  LongDev          lg{};
  const std::int64_t *start = nullptr;
  const int       *row_no = nullptr, *lrows = nullptr, *lptr = nullptr;
  if (!F.up(B.val, &L.val) || !F.up(B.col, &L.col) || !F.up(B.width, &L.width) || !F.up(B.rows, &L.rows) || !F.up(B.pos, &L.pos) || !F.up(warp, &L.warp, false) || !F.up(wblock, &L.wblock) ||
      !F.up(B.start, &start) || !F.up(B.row_no, &row_no) || !F.up(B.long_val, &lg.val) || !F.up(B.long_col, &lg.col) || !F.up(B.long_rows, &lrows) || !F.up(B.long_ptr, &lptr) || !F.vectors(nrows, ncols))
    return F.rc();
  L.start = start, L.row_no = row_no, L.warps = (long long)wblock.size();
  lg.nnz  = (long long)B.long_val.size();
  auto ref = [&](const std::vector<double> &y) { return check_rows(rowptr, colidx, val, F.x(), y, (long long)B.row_no.size(), [&](long long i) { return B.row_no[(size_t)i]; }); };
  return F.run("bce", L, lg, ref, res, maxres, nres) ? 0 : F.rc();
}
