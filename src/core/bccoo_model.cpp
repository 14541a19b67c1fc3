// bccoo's parameters chosen by its byte model (bccoo_model, bccoo_model_sampled) and the block shapes
// it weighs (bccoo_shapes); the layout and the byte model are described in bccoo.hpp and
// bccoo.cpp.
#include "bccoo.hpp"
#include "bccoo_tune.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace gpumat {

namespace {
// The columns of rows [r0, r1) of A in ascending order, repeats kept, into `out` (`tmp`: scratch):
// sorted rows (PETSc's AIJ) merged in linear time, others sorted.
template <typename T>
void merged_columns(const CsrView<T> &A, index_t r0, index_t r1, std::vector<index_t> &out, std::vector<index_t> &tmp) {
  bool sorted = true;
  out.clear();
  for (index_t r = r0; r < r1; ++r) {
    const index_t *b = A.colidx + A.rowptr[r], *e = A.colidx + A.rowptr[r + 1];
    sorted           = sorted && std::is_sorted(b, e);
    if (sorted && !out.empty()) {
      tmp.swap(out);
      out.resize(tmp.size() + std::size_t(e - b));
      std::merge(tmp.begin(), tmp.end(), b, e, out.begin());
    } else out.insert(out.end(), b, e);
  }
  if (!sorted) std::sort(out.begin(), out.end());
}
} // namespace

template <typename T>
std::vector<BccooShape> bccoo_shapes(const CsrView<T> &A, int block_size) {
  std::vector<BccooShape> shapes;
  std::vector<index_t>    cols, merged; // the columns of a block row's rows, ascending (repeats kept)
  const double            nnz = double(A.nnz());
  constexpr int           widths[3] = {1, 2, 4}; // = 1 << k
  // One pass per height: a block row's rows merged by column (sorted rows, PETSc's AIJ: linear
  // merges into reused buffers; others sorted), then its distinct block columns for the three
  // widths counted on the same merged list (c / w is ascending with c).
  for (int h = 1; h <= 4; ++h) {
    std::int64_t blocks[3] = {0, 0, 0}, empty = 0;
    for (index_t br = 0; br * h < A.nrows; ++br) {
      merged_columns(A, br * h, std::min<index_t>(A.nrows, (br + 1) * h), merged, cols);
      empty += merged.empty();
      for (int k = 0; k < 3; ++k) { // widths 1, 2, 4: c / w = c >> k
        index_t prev = -1;
        for (const index_t c : merged) {
          blocks[k] += (c >> k) != prev;
          prev = c >> k;
        }
      }
    }
    for (int k = 0; k < 3; ++k) {
      BccooShape s;
      s.h                 = h;
      s.w                 = widths[k];
      s.blocks            = blocks[k];
      const double stored = double(s.blocks + empty); // an empty block row stores one zero block
      s.fill              = s.blocks ? nnz / (double(s.blocks) * h * s.w) : 0.0;
      s.bytes             = stored * (double(h) * s.w * sizeof(T) + sizeof(std::int16_t) + 1.0 / 8.0);
      shapes.push_back(s);
    }
  }
  auto tiles_blocks = [block_size](const BccooShape &s) { return block_size > 1 && block_size % s.h == 0 && block_size % s.w == 0; };
  std::stable_sort(shapes.begin(), shapes.end(), [&](const BccooShape &a, const BccooShape &b) {
    if (a.bytes != b.bytes) return a.bytes < b.bytes;
    return tiles_blocks(a) && !tiles_blocks(b);
  });
  return shapes;
}

template <typename T>
BccooChoice bccoo_model(const CsrView<T> &A, const BccooParams &user, const BccooHints &hints, index_t max_windows) {
  // the sample: windows of 12 rows (every block height divides 12), evenly spread, at most
  // max_windows of them and about kModelSampleEntries nonzeros, at least kModelMinWindows windows
  // (the model's time is bounded by the sample. 65,536 sampled nonzeros took 4-11 ms on the H100
  // machine's host, more than aijcusparse's whole build of the small suite matrices; 16,384 take
  // 1-3 ms here, with the same choice on all 22 generated suite matrices)
  const index_t        nwin = (A.nrows + 11) / 12;
  const double         per_window = A.nrows ? 12.0 * double(A.nnz()) / double(A.nrows) : 0.0;
  if (per_window > 0) max_windows = std::min<index_t>(max_windows, std::max<index_t>(kModelMinWindows, index_t(kModelSampleEntries / per_window)));
  std::vector<index_t> rp(1, 0), ci, wstart; // the sample's CSR; the first row of each window in A
  const bool           all = nwin <= max_windows;
  const index_t        take = all ? nwin : max_windows;
  for (index_t i = 0; i < take; ++i) {
    const index_t m  = all ? i : index_t(std::int64_t(i) * nwin / take);
    const index_t r1 = std::min<index_t>(A.nrows, (m + 1) * 12);
    wstart.push_back(m * 12);
    for (index_t r = m * 12; r < r1; ++r) {
      for (index_t q = A.rowptr[r]; q < A.rowptr[r + 1]; ++q) {
        ci.push_back(A.colidx[q]);
      }
      rp.push_back(index_t(ci.size()));
    }
  }
  CsrView<T> S;
  S.nrows = index_t(rp.size() - 1), S.ncols = A.ncols, S.rowptr = rp.data(), S.colidx = ci.data();
  BccooHints h = hints;
  if (h.longest_row < 0) h.longest_row = longest_row(A);
  return bccoo_model_sampled(S, wstart, A.nrows, A.ncols, std::int64_t(A.nnz()), user, h);
}

template <typename T>
BccooChoice bccoo_model_sampled(const CsrView<T> &S, const std::vector<index_t> &wstart, index_t nrows, index_t ncols, std::int64_t nnz, const BccooParams &user, const BccooHints &hints) {
  BccooChoice ch;
  struct {
    index_t      nrows, ncols;
    std::int64_t n;
    std::int64_t nnz() const { return n; }
  } A{nrows, ncols, nnz}; // the matrix's dimensions, under the name the model's formulas use
  ch.sampled_rows = S.nrows;
  ch.shapes       = bccoo_shapes(S, hints.block_size);
  BccooParams p   = user;
  for (const BccooShape &sh : ch.shapes)
    if ((user.h == 0 || user.h == sh.h) && (user.w == 0 || user.w == sh.w)) {
      p.h = sh.h, p.w = sh.w;
      break;
    }
  if (p.h == 0) p.h = 1;
  if (p.w == 0) p.w = 1;
  const int     h = p.h, w = p.w;
  const index_t nbcols = (A.ncols + w - 1) / w, nbrows = (A.nrows + h - 1) / h;
  // The sample's block rows: their distinct block columns, ascending (bcs from bstart[b]), and A's
  // block row of each (bdiag; the windows are whole block rows of A, 12 being a multiple of every
  // height).
  std::vector<index_t>     bcs, cols, tmp;
  std::vector<std::size_t> bstart;
  std::vector<index_t>     bdiag;
  for (std::size_t wi = 0; wi < wstart.size(); ++wi) {
    const index_t s0 = index_t(wi * 12), s1 = std::min<index_t>(S.nrows, s0 + 12); // the window's rows in S
    for (index_t r = s0; r < s1; r += h) {
      const std::size_t b0 = bcs.size();
      merged_columns(S, r, std::min<index_t>(s1, r + h), cols, tmp);
      for (const index_t c : cols)
        if (bcs.size() == b0 || bcs.back() != c / w) bcs.push_back(c / w);
      bstart.push_back(b0);
      bdiag.push_back((wstart[wi] + (r - s0)) / h);
    }
  }
  bstart.push_back(bcs.size());
  const std::size_t nsb   = bdiag.size();                                     // sampled block rows
  const double      scale = nsb ? double(nbrows) / double(nsb) : 0.0;         // sample -> A
  // A's nonzero blocks: its nonzeros over the sample's nonzeros per block (exact for 1 x 1 blocks;
  // the sample's row count would misjudge rows of very different lengths, LP's heavy tail)
  const double      blocks = S.nnz() > 0 ? double(A.nnz()) * double(bcs.size()) / double(S.nnz()) : 0.0;
  ch.blocks                = blocks;
  const double      l2     = hints.l2_bytes > 0 ? hints.l2_bytes : kModelL2Bytes;

  // Slices (BCCOO+): the byte model of one product for S = 1, 2, 4, ..., 32 slices, the cheapest
  // taken if it saves kModelSliceGain over one slice. Per product: the blocks (with the zero blocks
  // of empty segments, counted per sampled block row for each S) at h w 8 B + 4 B; with S > 1 the
  // per-slice partial sums, S x rows x 8 B written and read again; and the gathers of x by blocks
  // far from the diagonal (further than kModelNearShare of the columns the L2 holds of x, or 1/64
  // of A's columns: near ones hit what the neighbouring rows brought in), each a 32-byte sector from memory, from L2 (4 B) or L1
  // (1 B) by the share of the slice's x that fits the cache (kModelL2XShare of the L2: half is one
  // partition, and the matrix's streamed arrays pass through it too; 128 KB of L1). Fitted on an H100 (docs/results/h100-2026-11-23-bccoo-model, bench_matmult -bccoo_grid):
  // uniform random columns 8M x 8M, 16 per row, 4 slices 2.1x faster than 1; Pareto rows of random
  // columns 20M x 20M, 8 slices 1.65x; LP 4096 x 1M and 16384 x 4M, 32 slices 1.18x and 1.40x;
  // no gain on the short rows of short4, econ, web and circuit (the partial sums cost what the
  // gathers save) nor on the stencils and FEM matrices (no far columns).
  int slices = p.slices;
  if (user.slices == 0) {
    slices = 1;
    if (nsb > 0 && nbcols > 1) {
      const double near_cols = std::min(kModelNearShare * kModelL2XShare * l2 / double(sizeof(T)), double(A.ncols) / 64);
      double       far       = 0; // far blocks of the sample
      for (std::size_t b = 0; b < nsb; ++b) {
        const double diag = double(bdiag[b]) * h * double(A.ncols) / double(std::max<index_t>(1, A.nrows));
        for (std::size_t k = bstart[b]; k < bstart[b + 1]; ++k) far += std::abs(double(bcs[k]) * w - diag) > near_cols;
      }
      far = S.nnz() > 0 ? far * double(A.nnz()) / double(S.nnz()) : 0.0; // as the blocks: by the nonzeros
      auto cost = [&](int sl, double *nsl_out) {
        const index_t sb  = (nbcols + sl - 1) / sl;
        const index_t nsl = (nbcols + sb - 1) / sb;
        double        empty = 0; // empty segments of the sample
        for (std::size_t b = 0; b < nsb; ++b) {
          // the distinct slices of a block row's ascending block columns: a division only where a
          // column passes the current slice's end (at most nsl per block row, not one per block)
          index_t      distinct = 0;
          std::int64_t end      = 0;
          for (std::size_t k = bstart[b]; k < bstart[b + 1]; ++k)
            if (bcs[k] >= end) ++distinct, end = (std::int64_t(bcs[k] / sb) + 1) * sb;
          empty += double(nsl - distinct);
        }
        const double xs   = double(A.ncols) * sizeof(T) / double(nsl);
        const double hit2 = std::min(1.0, kModelL2XShare * l2 / xs), hit1 = std::min(1.0, kModelL1Bytes / xs);
        const double far_cost = hit1 * 1.0 + (hit2 - hit1) * 4.0 + (1.0 - hit2) * 32.0;
        *nsl_out              = double(nsl);
        return (blocks + empty * scale) * (double(h) * w * sizeof(T) + 4.0) + (nsl > 1 ? 2.0 * double(nsl) * nbrows * h * sizeof(T) : 0.0) + far * far_cost;
      };
      double nsl = 1;
      const double one = cost(1, &nsl);
      double       best = one;
      for (int sl = 2; sl <= 32; sl *= 2) {
        const double c = cost(sl, &nsl);
        if (c < best && c < (1.0 - kModelSliceGain) * one && int(nsl) == sl) best = c, slices = sl;
      }
    }
  }
  p.slices = slices;

  // Tile and group (measured on an H100 with bench_matmult -bccoo_grid, ibid.):
  // - below kModelLatencyBlocks blocks the product is short and latency-bound: threads matter
  //   more than phases per block, so tiles of 16 (8 when that leaves fewer than 64k threads) and
  //   smaller groups when the threads are few (a 2000 x 2000 dense matrix in 4 x 4 blocks: tile 8,
  //   group 64, 1.9x faster than tile 32, group 128);
  // - 1 x 1 blocks: tile 24 in groups of 256 (within 3 % of the grid's best on the stencils, web,
  //   econ, power-law and short4 matrices); very long segments (64 blocks or more: LP rows) tile
  //   40 in groups of 512, and groups of 512 from 48 blocks on (PETSc's ex13, Q2 Poisson, 62 per
  //   row: the tuner's tile 24, group 512 7 % faster than group 256; the 27-point stencil, 27 per
  //   row, 1.4 % slower with 512); a segment longer than kModelHopGroups groups of 256 (circuit's
  //   and the power laws' hub rows) groups of 512: the adjacent synchronization passes the running
  //   sum of a long segment from group to group, about 0.8 us a hop (circuit 16M: tile 16, group 256
  //   1.34x slower than tile 32, group 512; powerlaw_2M, hub of 49,403 entries, 8 groups of 256:
  //   group 512 0.1968 ms against 0.2005 in the grid, 0.1961 against 0.2001 by the tuner; web_40M's
  //   4 groups and web_1M's 2: group 512 3.5 % and 7.5 % slower, their hubs too short to pay for
  //   twice the threads a group waits on);
  // - larger blocks: tile 32 in groups of 128 for block rows of 20 blocks or more (FEM), else 16
  //   and 256.
  const double segments = double(p.slices) * nbrows;
  const double per_seg  = segments > 0 ? blocks / segments : 0.0; // blocks per segment
  const index_t longest = hints.longest_row >= 0 ? hints.longest_row : 0;
  int tile = 16, group = 256;
  if (blocks < kModelLatencyBlocks) {
    tile              = blocks / 16 >= 65536 ? 16 : 8;
    const double thr  = blocks / tile;
    group             = thr >= 65536 ? 256 : thr >= 32768 ? 128 : 64;
  } else if (h * w == 1) {
    tile = 24, group = 256;
    if (per_seg >= 64) tile = 40, group = 512;
    else if (per_seg >= 48 || double(longest) / p.slices / (24.0 * 256.0) > kModelHopGroups) group = 512;
  } else if (per_seg * p.slices >= 20) tile = 32, group = 128;
  if (user.tile == 0) p.tile = tile;
  if (user.group == 0) p.group = group;
  p = bccoo_resolve(p);
  if (user.compress_col < 0 && S.nrows > 0 && S.ncols > 0) {
    // The escapes the builder would make, counted on the sample's block rows in the builder's order
    // (slice by slice, block rows in order, block columns ascending; an empty segment holds one
    // padding block at its slice's first column), each thread tile's first difference taken from
    // the diagonal of the block row it starts in. The tiles' alignment is the sample's, not A's.
    const index_t sb  = (nbcols + p.slices - 1) / p.slices;
    const int     nsl = int((nbcols + sb - 1) / sb);
    std::int64_t  k = 0, nblk = 0, escapes = 0;
    index_t       prev = 0;
    auto          visit = [&](index_t bc, index_t br) {
      if (k % p.tile == 0) prev = bccoo_tile_base(br, nbrows, h, w, nbcols);
      const std::int64_t d = std::int64_t(bc) - prev;
      escapes += d < -32767 || d > 32767;
      prev = bc;
      ++k, ++nblk;
    };
    for (int sl = 0; sl < nsl; ++sl)
      for (std::size_t b = 0; b < nsb; ++b) {
        const auto first = bcs.begin() + (std::ptrdiff_t)bstart[b], last = bcs.begin() + (std::ptrdiff_t)bstart[b + 1];
        const auto lo = std::lower_bound(first, last, index_t(std::int64_t(sl) * sb)), hi = std::lower_bound(lo, last, index_t(std::min<std::int64_t>(nbcols, std::int64_t(sl + 1) * sb)));
        if (lo == hi) visit(std::min<index_t>(index_t(std::int64_t(sl) * sb), nbcols - 1), bdiag[b]);
        for (auto it = lo; it != hi; ++it) visit(*it, bdiag[b]);
      }
    ch.escape_share = nblk ? double(escapes) / double(nblk) : 0.0;
    // 2 B + 4 B per escape against 4 B, but the differences are decoded in a chain per thread and
    // an escape is a dependent load inside it: x's gathers wait for it. Measured on an H100
    // (bench_matmult -bccoo_grid, docs/results/h100-2026-11-23-bccoo-model): with 1 x 1 blocks, 8 B
    // of values per column, 32-bit columns were faster on every matrix, escapes or not (the 2D
    // 5-point stencil, no escape: 16-bit 1.10x slower; the 3D 7-point 1.32x); larger blocks gain
    // from compression when the product is bandwidth-bound (3-dof FEM 90^3 nodes in 3 x 1 blocks,
    // 0.016 escaping: 16-bit 4 % faster) but not below kModelLatencyBlocks (the same at 30^3: 5 %
    // slower). Compress blocks of 2 or more values on large matrices while fewer than a tenth of
    // the differences escape.
    p.compress_col = p.h * p.w > 1 && blocks >= kModelLatencyBlocks && ch.escape_share < 0.1;
  }
  ch.p = p;
  return ch;
}

#define GPUMAT_BCCOO_MODEL_INSTANTIATE(T)                                                   \
  template std::vector<BccooShape> bccoo_shapes<T>(const CsrView<T> &, int);                \
  template BccooChoice bccoo_model<T>(const CsrView<T> &, const BccooParams &, const BccooHints &, index_t); \
  template BccooChoice bccoo_model_sampled<T>(const CsrView<T> &, const std::vector<index_t> &, index_t, index_t, std::int64_t, const BccooParams &, const BccooHints &);
GPUMAT_BCCOO_MODEL_INSTANTIATE(double)
GPUMAT_BCCOO_MODEL_INSTANTIATE(float)
#undef GPUMAT_BCCOO_MODEL_INSTANTIATE

} // namespace gpumat
