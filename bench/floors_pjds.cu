// The floors of pjds's compressed layouts (src/core/pjds.hpp, src/core/compress_model.hpp) for one
// matrix on this GPU, after BenchFloorsPjds has timed its layout with 32-bit columns and fp64 values
// (bench/floors_rowgrouped.cu, which calls pjds_compressed_floors here). Each layout is built on the
// host (the first two from the CSR by pjds_model and pjds_build, the others from that pjds), every
// array its floors read copied to the device once; BenchPjdsInfo holds the bytes they move, x and y
// included:
//   floor:pjds-auto-stream, floor:pjds-fp32-stream  the type's default layout (its compressed
//                          columns and values where it codes them) and fp32 storage
//                          (-mat_gpumat_values fp32): stream floors only, every array their
//                          products read at the streaming rate;
//   floor:pjds-table16-*   the 32-bit-column layout with its values as 16-bit codes into a table
//                          read through L1, where they number 257 to 65,536;
//   floor:pjds-table-w4-*  the same with 8-bit codes packed four to a word and the table in shared
//                          memory, where they number at most 256;
//   floor:pjds-pos-*       positional offsets (pjds_compressed), where every block of the 32-bit
//                          layout reads fewer bytes so: one offset list per block, no column per
//                          entry; fp64 values (pjds-pos), 8-bit codes into a table in shared memory
//                          (pjds-pos-table) or 16-bit codes into one read through L1
//                          (pjds-pos-table16); each also with CUDA blocks that walk 4 and 16
//                          consecutive 256-position slices (-tile4, -tile16);
//   floor:pjds-pos-table-w4-*  the positional layout with its 8-bit codes four to a word and its
//                          offsets four to a 16-byte load; -w4-r2 with two rows a thread;
//   floor:pjds-pos-table-skip-*, -mask-*  the positional product's skip of the padding (the
//                          sentinel tested after the code's table entry; or a 32-bit mask of
//                          each position's entries read once per row), where every block has at
//                          most 32 offsets (pos_skip_floor).
// Each but the first two times its -stream floor (the uploaded arrays by floors_rowgrouped.cu's
// stream kernel) and its -gather floor (the long part's CUDA blocks first, then the positions, as
// floor:pjds-gather), y of one gather run compared with the CSR product of the rows first
// (Floors::run_custom).
#include "floors_rowgrouped.cuh"
#include "core/compress_model.hpp"
#include "core/pjds.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

using namespace gpumat_floors;

namespace {

// pjds with positional offsets as the byte model counts them (src/core/compress_model.hpp,
// pjds_compressed; the type stores them under -mat_pjds_columns positional, its padding a NaN
// sentinel where these floors store 0): block b's rows are all u_b = off_start[b + 1] - off_start[b] wide, entry j of a
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

// The start of a gather floor of a thread per pjds position: the first lblocks CUDA blocks gather the
// long part and stop (false); every other thread takes position i and its block b, false beyond npj.
__device__ __forceinline__ bool floor_position(const LongDev &lg, long long lblocks, const double *x, double *sink, int npj, int br, unsigned &i, gpumat::cuda::PjdsPos &b) {
  if (blockIdx.x < lblocks) {
    long_part_floor(lg, lblocks, x, sink);
    return false;
  }
  i = unsigned(blockIdx.x - lblocks) * kThreads + threadIdx.x;
  if (i >= unsigned(npj)) return false;
  b = gpumat::cuda::pjds_pos(i, unsigned(br), unsigned(npj));
  return true;
}

enum ValMode { kVal64, kCode8, kCode16 };

// The table of a layout's 8-bit codes (at most 256 values) in shared memory: every thread of the
// CUDA block copies part of it (the long part's blocks too, which return after the barrier).
__device__ __forceinline__ const double *shared_table(const double *table, int ntable) {
  __shared__ double tab[256];
  for (int t = threadIdx.x; t < ntable; t += kThreads) tab[t] = table[t];
  __syncthreads();
  return tab;
}

template <int Mode>
__global__ void __launch_bounds__(kThreads, 6) pos_gather_floor(PosLayout a, LongDev lg, long long lblocks, const double *__restrict__ x, double *__restrict__ y, double *sink) {
  const double *tab = Mode == kCode8 ? shared_table(a.table, a.ntable) : nullptr;
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
  const double *tab = shared_table(a.table, a.ntable);
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

// The positional product's skip of the padding (pjds_row_positional, src/cuda/pjds.cu) over the
// floor's positional layout with 8-bit codes, each sum its row's entries alone and the two sums
// swapping after each entry as the product's do:
//   Mask false (floor:pjds-pos-table-skip-*): the padding coded as the sentinel (pjds_pad, one more
//     table entry), each entry's x read only once its value says it is not the sentinel (code ->
//     table -> test -> x), as the product does;
//   Mask true (floor:pjds-pos-table-mask-*): a 32-bit word per position, bit k set where its row has
//     an entry at offset k (blocks of at most 32 offsets), read once per row, so that x waits for
//     the offset and the mask only. 4 B per position more than -skip.
// Four CUDA blocks per SM (64 registers: no spills, as the product's occupancy-4 instance).
struct PosSkip {
  const int           *offs, *perm;
  const std::uint8_t  *code;
  const std::uint32_t *mask;
  const std::int64_t  *off_start, *val_start;
  const double        *table;
  int                  npj, br, g, ntable;
  long long            threads() const { return npj; }
};

template <bool Mask>
__global__ void __launch_bounds__(kThreads, 4) pos_skip_floor(PosSkip a, LongDev lg, long long lblocks, const double *__restrict__ x, double *__restrict__ y, double *sink) {
  const double          *tab = shared_table(a.table, a.ntable);
  unsigned               i;
  gpumat::cuda::PjdsPos b;
  if (!floor_position(lg, lblocks, x, sink, a.npj, a.br, i, b)) return;
  const long long os   = a.off_start[b.b];
  const int       u    = int(a.off_start[b.b + 1] - os);
  const int       r    = a.perm ? a.perm[i] : int(i);
  const int       base = r - r % a.g;
  const unsigned  m    = Mask ? __ldcs(a.mask + i) : 0u;
  unsigned        p    = unsigned(a.val_start[b.b]) + b.lane;
  double          s0 = 0, s1 = 0;
  for (int j = 0; j < u; j += kUnroll, p += kUnroll * b.rows) {
    double v[kUnroll];
    int    c[kUnroll];
#pragma unroll
    for (int q = 0; q < kUnroll; ++q) {
      const bool ok = j + q < u;
      v[q]          = ok ? tab[__ldcs(a.code + p + q * b.rows)] : 0.0;
      c[q]          = ok ? base + __ldg(a.offs + os + j + q) : 0;
    }
#pragma unroll
    for (int q = 0; q < kUnroll; ++q)
      if (j + q < u && (Mask ? ((m >> (j + q)) & 1u) != 0u : !gpumat::is_pjds_pad(v[q]))) {
        s0             = s0 + v[q] * __ldg(x + c[q]);
        const double t = s0;
        s0             = s1;
        s1             = t;
      }
  }
  y[i] = s0 + s1;
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
  const double          *tab = shared_table(a.table, a.ntable);
  unsigned               i;
  gpumat::cuda::PjdsPos b;
  if (!floor_position(lg, lblocks, x, sink, a.npj, a.br, i, b)) return;
  const long long bs = a.block_start[b.b];
  const int       n  = a.read_rowlen ? a.rowlen[i] : int(gpumat::cuda::pjds_width(a.block_start[b.b + 1] - bs, b.rows));
  // 32-bit positions, as the products and rg_gather_floor (the layout is below 2^31 entries and words)
  unsigned p = unsigned(bs) + b.lane, pw = unsigned(a.w_start[b.b]) + b.lane;
  double   s0 = 0, s1 = 0;
  for (int j = 0; j < n; j += 8, p += 8 * b.rows, pw += 2 * b.rows) {
    unsigned w[2];
    int      c[8];
#pragma unroll
    for (int h = 0; h < 2; ++h) w[h] = j + 4 * h < n ? __ldcs(a.w + pw + h * b.rows) : 0u;
#pragma unroll
    for (int q = 0; q < 8; ++q) c[q] = j + q < n ? __ldcs(a.col + p + q * b.rows) : 0;
#pragma unroll
    for (int q = 0; q < 8; ++q)
      if (j + q < n) (q & 1 ? s1 : s0) += tab[(w[q / 4] >> (8 * (q % 4))) & 0xffu] * __ldg(x + c[q]);
  }
  y[i] = s0 + s1;
}

// pjds's plain layout (32-bit columns) with its values as 16-bit codes into a table of at most
// 65,536 values read through L1 (the values of rg_gather_floor): floor:pjds-table16-*, the layout of
// a value table wider than the type's 8-bit one.
struct Table16Values {
  const std::uint16_t *code16;
  const double        *table;
  __device__ __forceinline__ double at(const double *, unsigned p, unsigned k) const { return __ldg(table + __ldcs(code16 + p + k)); }
};

} // namespace

namespace gpumat_floors {

bool Floors::stream_only(const char *name, BenchFloor *res, int maxres, int *nres) {
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


} // namespace gpumat_floors

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
  // position i's entries: bit k set where its row has an entry at its block's offset k; empty where
  // a block has more than 32 offsets
  std::vector<std::uint32_t> mask;
};
void positional_build(const gpumat::Pjds<double> &B, int g, PositionalHost &P) {
  std::vector<int> u;
  bool             narrow = true; // every block's offsets at most 32: the masks kept
  P.mask.assign((size_t)B.nrows_pj, 0u);
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
        if (k < 32) P.mask[(size_t)i] |= 1u << k;
      }
    }
    narrow = narrow && u.size() <= 32;
    P.val_start.push_back((std::int64_t)P.val.size());
  }
  if (!narrow) P.mask.clear();
  if (!value_table(P.val, 65536, P.table, P.codes)) P.table.clear(), P.codes.clear();
}

int gpumat_floors::pjds_compressed_floors(const gpumat::Pjds<double> &B, bool read_rowlen, int nrows, int ncols, const int *rowptr, const int *colidx, const double *val, int reps, int warmup,
                                          BenchFloor *res, int maxres, int *nres, BenchPjdsInfo *info, char *err, int errlen) {
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
      auto gather2 = [&](unsigned grid, long long lb, cudaStream_t st, const double *x, double *y, double *sink) { rg_gather_floor<PjdsLayout, false><<<grid, kThreads, 0, st>>>(L2, lg2, lb, x, y, sink, Table16Values{dc, dt}); };
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
    if (mode == kCode8 && !P.mask.empty() && P.table.size() < 256) { // the product's skip of the padding: floor:pjds-pos-table-skip-*, -mask-*
      std::vector<double>       table = P.table;
      std::vector<std::uint8_t> skip(c8);
      table.push_back(gpumat::pjds_pad<double>()); // the sentinel, coded where a position holds no entry
      for (std::int64_t b = 0; b < B.nblocks(); ++b) {
        const std::int64_t rows = B.block_rows(b), u = P.off_start[(size_t)b + 1] - P.off_start[(size_t)b], v0 = P.val_start[(size_t)b];
        for (std::int64_t k = 0; k < u; ++k)
          for (std::int64_t lane = 0; lane < rows; ++lane)
            if (!((P.mask[(size_t)(b * B.p.block_rows + lane)] >> k) & 1u)) skip[(size_t)(v0 + k * rows + lane)] = std::uint8_t(table.size() - 1);
      }
      for (int masked = 0; masked < 2; ++masked) {
        Floors     G(reps, warmup, err, errlen);
        PosSkip    Ls{};
        LongDev    lgs{};
        const int *lr = nullptr, *lp = nullptr;
        if (!G.up(P.offs, &Ls.offs) || !G.up(P.off_start, &Ls.off_start) || !G.up(P.val_start, &Ls.val_start) || !G.up(masked ? P.table : table, &Ls.table) ||
            !G.up(masked ? c8 : skip, &Ls.code) || (masked && !G.up(P.mask, &Ls.mask)) || !G.up(B.long_val, &lgs.val) || !G.up(B.long_col, &lgs.col) || !G.up(B.long_rows, &lr) ||
            !G.up(B.long_ptr, &lp) || (!B.perm.empty() && !G.up(B.perm, &Ls.perm)) || !G.vectors(nrows, ncols))
          return G.rc();
        Ls.npj = B.nrows_pj, Ls.br = B.p.block_rows, Ls.g = int(pc.diag_group), Ls.ntable = int(masked ? P.table.size() : table.size());
        lgs.nnz     = (long long)B.long_val.size();
        auto gather = [&](unsigned grid, long long lb, cudaStream_t st, const double *x, double *y, double *sink) {
          if (masked) pos_skip_floor<true><<<grid, kThreads, 0, st>>>(Ls, lgs, lb, x, y, sink);
          else pos_skip_floor<false><<<grid, kThreads, 0, st>>>(Ls, lgs, lb, x, y, sink);
        };
        if (!G.run_custom(masked ? "pjds-pos-table-mask" : "pjds-pos-table-skip", Ls.threads(), lgs, gather, positions_ref(G), res, maxres, nres)) return G.rc();
      }
    }
  }
  return 0;
}
