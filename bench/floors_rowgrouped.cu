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
// pjds's compressed layouts (its default, fp32 storage, value tables, positional offsets) have
// their floors in bench/floors_pjds.cu; what both files share is in bench/floors_rowgrouped.cuh.
// Defined here of that: the stream floor's kernel (rg_stream_floor); in floors_pjds.cu:
// Floors::stream_only.
#include "floors_rowgrouped.cuh"
#include "core/bce.hpp"
#include "core/pjds.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

using namespace gpumat_floors;

namespace {

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


bool nnz_ok(int nrows, long long nnz, const int *rowptr, const char *name, char *err, int errlen) {
  if (nnz == (long long)(nrows ? rowptr[nrows] : 0)) return true;
  snprintf(err, (size_t)errlen, "%s floors: nnz %lld is not rowptr[nrows] (32-bit indices only)", name, nnz);
  return false;
}

} // namespace

namespace gpumat_floors {

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


} // namespace gpumat_floors

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
  return pjds_compressed_floors(B, read_rowlen, nrows, ncols, rowptr, colidx, val, reps, warmup, res, maxres, nres, info, err, errlen);
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
