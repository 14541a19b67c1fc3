// bccoo host side: parameters, the builder from CSR and the host reference product (the layout is
// described in bccoo.hpp).
//
// Byte model of y = A x (fp64, per product): blocks x (h w 8 B of values + 1/8 B of flag + 2 B of
// column difference, or 4 B uncompressed) + 4 B per escape + 4 B per thread tile (first segment,
// escape start) + x (w columns per block; once per distinct column from L2) + y once (more with
// slices: each slice's segment sums are added into y). Against CSR's 12 B per nonzero: a full 3x3
// block stores 9 nonzeros in 72 + 2.1 B = 8.2 B per nonzero, a 1x1 block in 10.1 B per nonzero.
#include "bccoo.hpp"
#include "bccoo_tune.hpp"
#include "format_record.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace gpumat {

namespace {

constexpr int kDefaultTile = 16, kDefaultGroup = 256, kMaxTile = 128, kMaxSlices = 32;
constexpr std::int16_t kEscape = -32768;

void check(bool ok, const std::string &what) {
  if (!ok) throw std::invalid_argument("bccoo: " + what);
}

} // namespace

BccooParams bccoo_resolve(BccooParams p) {
  if (p.h == 0) p.h = 1;
  if (p.w == 0) p.w = 1;
  if (p.slices == 0) p.slices = 1;
  if (p.tile == 0) p.tile = kDefaultTile;
  if (p.group == 0) p.group = kDefaultGroup;
  if (p.compress_col < 0) p.compress_col = 1;
  if (p.strategy == 0) p.strategy = 2;
  check(p.h >= 1 && p.h <= 4, "block height must be in [1,4] (or 0 for the default), got " + std::to_string(p.h));
  check(p.w == 1 || p.w == 2 || p.w == 4, "block width must be 1, 2 or 4 (or 0 for the default), got " + std::to_string(p.w));
  check(p.slices >= 1 && p.slices <= kMaxSlices, "slices must be in [1,32] (or 0 for the default), got " + std::to_string(p.slices));
  check(p.tile >= 8 && p.tile <= kMaxTile && p.tile % 8 == 0, "tile must be a multiple of 8 in [8,128] blocks per thread (or 0 for the default), got " + std::to_string(p.tile));
  check(p.group >= 32 && p.group <= 512 && p.group % 32 == 0, "group must be a multiple of 32 in [32,512] threads (or 0 for the default), got " + std::to_string(p.group));
  check(p.compress_col == 0 || p.compress_col == 1, "compress_col must be 0 or 1, got " + std::to_string(p.compress_col));
  check(p.strategy == 1 || p.strategy == 2, "strategy must be 1 (no result cache) or 2 (result cache) (or 0 for the default), got " + std::to_string(p.strategy));
  return p;
}

template <typename T>
void Bccoo<T>::tile_columns(std::int64_t t, index_t *out) const {
  const std::int64_t k0 = t * p.tile;
  if (!p.compress_col) {
    for (int j = 0; j < p.tile; ++j) out[j] = col[std::size_t(phys(k0 + j))];
    return;
  }
  index_t c = bccoo_tile_base(first_segment[std::size_t(t)], nbrows, p.h, p.w, nbcols), e = escape_start[std::size_t(t)];
  for (int j = 0; j < p.tile; ++j) {
    const std::int16_t d = dcol[std::size_t(phys(k0 + j))];
    out[j] = c = d == kEscape ? escape[std::size_t(e++)] : index_t(c + d);
  }
}

template <typename T>
index_t Bccoo<T>::block_col(std::int64_t k) const {
  index_t cols[kMaxTile];
  tile_columns(k / p.tile, cols);
  return cols[k % p.tile];
}

template <typename T>
std::size_t Bccoo<T>::bytes() const {
  return flags.size() + val.size() * sizeof(T) + dcol.size() * sizeof(std::int16_t) +
         (col.size() + escape.size() + escape_start.size() + first_segment.size()) * sizeof(index_t) + no_scan.size();
}

template <typename T>
void bccoo_build(const CsrView<T> &A, const BccooParams &params, Bccoo<T> &B) {
  B           = Bccoo<T>();
  B.p         = bccoo_resolve(params);
  const int h = B.p.h, w = B.p.w;
  B.nrows     = A.nrows;
  B.ncols     = A.ncols;
  B.nnz       = A.nnz();
  B.nbrows    = (A.nrows + h - 1) / h;
  B.nbcols    = (A.ncols + w - 1) / w;
  B.slice_bcols = B.nbcols > 0 ? (B.nbcols + B.p.slices - 1) / B.p.slices : 0;
  // slices that would start past the last block column are dropped (as built: B.p.slices)
  if (B.nbcols > 0) B.p.slices = int((B.nbcols + B.slice_bcols - 1) / B.slice_bcols);
  const int S = B.p.slices;
  B.slot.assign(std::size_t(B.nnz), -1);
  const std::int64_t group_blocks = std::int64_t(B.p.tile) * B.p.group;
  if (A.nrows == 0 || A.ncols == 0) { // nothing to multiply: y = z or 0
    B.first_segment.clear();
    return;
  }
  B.nsegments = std::int64_t(S) * B.nbrows;

  // The distinct block columns of block row br, sorted (the columns of a row may be unsorted).
  std::vector<index_t> bcs;
  auto block_columns = [&](index_t br) {
    bcs.clear();
    const index_t r1 = std::min<index_t>(A.nrows, (br + 1) * h);
    for (index_t r = br * h; r < r1; ++r)
      for (index_t q = A.rowptr[r]; q < A.rowptr[r + 1]; ++q) bcs.push_back(A.colidx[q] / w);
    std::sort(bcs.begin(), bcs.end());
    bcs.erase(std::unique(bcs.begin(), bcs.end()), bcs.end());
  };
  auto slice_range = [&](int s) { // [first, last) of bcs in slice s
    const index_t lo = index_t(std::int64_t(s) * B.slice_bcols), hi = index_t(std::min<std::int64_t>(B.nbcols, std::int64_t(s + 1) * B.slice_bcols));
    return std::make_pair(std::lower_bound(bcs.begin(), bcs.end(), lo) - bcs.begin(), std::lower_bound(bcs.begin(), bcs.end(), hi) - bcs.begin());
  };

  // Pass 1: blocks per segment (slice-major), an empty segment counts one zero block.
  std::vector<std::int64_t> seg_start(std::size_t(B.nsegments) + 1, 0);
  for (index_t br = 0; br < B.nbrows; ++br) {
    block_columns(br);
    for (int s = 0; s < S; ++s) {
      const auto rg = slice_range(s);
      seg_start[std::size_t(std::int64_t(s) * B.nbrows + br) + 1] = std::max<std::int64_t>(1, rg.second - rg.first);
      B.pad_blocks += rg.second == rg.first;
    }
  }
  for (std::size_t i = 1; i < seg_start.size(); ++i) seg_start[i] += seg_start[i - 1];
  B.nblocks       = seg_start.back();
  B.padded_blocks = (B.nblocks + group_blocks - 1) / group_blocks * group_blocks;

  // Pass 2: block columns, values (through slot), flags.
  const std::size_t npad = std::size_t(B.padded_blocks);
  std::vector<index_t> bcol(npad, 0);
  B.val.assign(npad * std::size_t(w) * std::size_t(h), T(0));
  B.flags.assign((npad + 7) / 8, 0xffu);
  const std::size_t plane = npad * std::size_t(w); // one value array per block row
  for (index_t br = 0; br < B.nbrows; ++br) {
    block_columns(br);
    for (int s = 0; s < S; ++s) {
      const auto          rg = slice_range(s);
      const std::int64_t  k0 = seg_start[std::size_t(std::int64_t(s) * B.nbrows + br)];
      const std::int64_t  n  = std::max<std::int64_t>(1, rg.second - rg.first);
      for (std::int64_t i = 0; i < n; ++i)
        bcol[std::size_t(k0 + i)] = rg.second > rg.first ? bcs[std::size_t(rg.first + i)] : std::min<index_t>(index_t(std::int64_t(s) * B.slice_bcols), B.nbcols - 1);
      const std::int64_t last = k0 + n - 1; // row stop
      B.flags[std::size_t(last >> 3)] &= std::uint8_t(~(1u << (last & 7)));
    }
    const index_t r1 = std::min<index_t>(A.nrows, (br + 1) * h);
    for (index_t r = br * h; r < r1; ++r)
      for (index_t q = A.rowptr[r]; q < A.rowptr[r + 1]; ++q) {
        const index_t c = A.colidx[q], bc = c / w;
        const int     s = int(bc / B.slice_bcols);
        const auto    rg = slice_range(s);
        const std::int64_t k = seg_start[std::size_t(std::int64_t(s) * B.nbrows + br)] +
                               (std::lower_bound(bcs.begin() + rg.first, bcs.begin() + rg.second, bc) - (bcs.begin() + rg.first));
        const std::int64_t pos = std::int64_t(r - br * h) * std::int64_t(plane) + B.phys(k) * w + (c - bc * w);
        B.slot[std::size_t(q)] = pos;
        B.val[std::size_t(pos)] += A.val[q]; // duplicates in a row add up, as PETSc's ADD_VALUES
      }
  }

  // Auxiliary data: the segment of each thread tile's first result; groups that need no scan.
  const std::int64_t ntiles = B.padded_blocks / B.p.tile;
  B.first_segment.assign(std::size_t(ntiles), 0);
  B.no_scan.assign(std::size_t(B.groups()), 1);
  std::int64_t stops = 0;
  for (std::int64_t t = 0; t < ntiles; ++t) {
    B.first_segment[std::size_t(t)] = index_t(stops);
    bool stop = false;
    for (std::int64_t k = t * B.p.tile; k < (t + 1) * B.p.tile; ++k)
      if (!B.flag(k)) {
        stop = true;
        ++stops;
      }
    if (!stop) B.no_scan[std::size_t(t / B.p.group)] = 0;
  }
  // Columns: 16-bit differences within each thread tile (from the tile's base) with escapes, or 32-bit.
  if (B.p.compress_col) {
    B.dcol.assign(npad, 0);
    B.escape_start.assign(std::size_t(ntiles), 0);
    for (std::int64_t t = 0; t < ntiles; ++t) {
      B.escape_start[std::size_t(t)] = index_t(B.escape.size());
      index_t prev = bccoo_tile_base(B.first_segment[std::size_t(t)], B.nbrows, h, w, B.nbcols);
      for (std::int64_t k = t * B.p.tile; k < (t + 1) * B.p.tile; ++k) {
        const std::int64_t d = std::int64_t(bcol[std::size_t(k)]) - prev;
        if (d >= -32767 && d <= 32767) B.dcol[std::size_t(B.phys(k))] = std::int16_t(d);
        else {
          B.dcol[std::size_t(B.phys(k))] = kEscape;
          B.escape.push_back(bcol[std::size_t(k)]);
        }
        prev = bcol[std::size_t(k)];
      }
    }
  } else {
    B.col.assign(npad, 0);
    for (std::size_t k = 0; k < npad; ++k) B.col[std::size_t(B.phys(std::int64_t(k)))] = bcol[k];
  }
}

template <typename T>
void bccoo_refresh(const CsrView<T> &A, Bccoo<T> &B) {
  if (std::int64_t(A.nnz()) != B.nnz) throw std::logic_error("bccoo: refresh with another number of nonzeros than the build");
  std::fill(B.val.begin(), B.val.end(), T(0));
  for (std::int64_t q = 0; q < B.nnz; ++q) B.val[std::size_t(B.slot[std::size_t(q)])] += A.val[q];
}

template <typename T>
void bccoo_apply(const Bccoo<T> &B, Op op, const T *x, const T *z, T *y) {
  const int         h = B.p.h, w = B.p.w;
  const index_t     nout = op == Op::Trans ? B.ncols : B.nrows;
  const std::size_t plane = std::size_t(B.padded_blocks) * std::size_t(w);
  if (op == Op::Trans || B.p.slices > 1 || B.nblocks == 0) // y = z or 0 first, then sums added
    for (index_t i = 0; i < nout; ++i) y[i] = z ? z[i] : T(0);
  if (B.nblocks == 0) return;
  // The thread tiles in order, each decompressing its columns from its own start; the partial sums
  // of the segment open at a tile's end carry into the next tile (the GPU's scan of last partial
  // sums and its adjacent synchronization between groups).
  T             acc[4] = {T(0), T(0), T(0), T(0)};
  std::int64_t  seg    = 0;
  const std::int64_t ntiles = B.thread_tiles();
  for (std::int64_t t = 0; t < ntiles; ++t) {
    if (B.first_segment[std::size_t(t)] != seg) throw std::logic_error("bccoo: first_segment disagrees with the row stops");
    index_t cols[kMaxTile];
    B.tile_columns(t, cols);
    for (std::int64_t k = t * B.p.tile; k < (t + 1) * B.p.tile; ++k) {
      const index_t c = cols[k - t * B.p.tile];
      if (k >= B.nblocks) break; // padding: all flags 1, nothing to add
      const index_t br = index_t(seg % B.nbrows);
      for (int i = 0; i < h; ++i) {
        const T *v = B.val.data() + std::size_t(i) * plane + std::size_t(B.phys(k)) * std::size_t(w);
        if (op == Op::NoTrans) {
          for (int j = 0; j < w; ++j)
            if (c * w + j < B.ncols) acc[i] += v[j] * x[c * w + j];
        } else if (br * h + i < B.nrows) {
          const T xi = x[br * h + i];
          for (int j = 0; j < w; ++j)
            if (c * w + j < B.ncols) y[c * w + j] += v[j] * xi;
        }
      }
      if (!B.flag(k)) { // row stop: segment seg is complete
        if (op == Op::NoTrans)
          for (int i = 0; i < h; ++i) {
            const index_t r = br * h + i;
            if (r < B.nrows) y[r] = B.p.slices > 1 ? y[r] + acc[i] : (z ? z[r] + acc[i] : acc[i]);
            acc[i] = T(0);
          }
        ++seg;
      }
    }
  }
  if (seg != B.nsegments) throw std::logic_error("bccoo: the row stops do not end every segment");
}

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

#define GPUMAT_BCCOO_INSTANTIATE(T)                                                         \
  template struct Bccoo<T>;                                                                 \
  template void bccoo_build<T>(const CsrView<T> &, const BccooParams &, Bccoo<T> &);         \
  template void bccoo_refresh<T>(const CsrView<T> &, Bccoo<T> &);                           \
  template void bccoo_apply<T>(const Bccoo<T> &, Op, const T *, const T *, T *);            \
  template std::vector<BccooShape> bccoo_shapes<T>(const CsrView<T> &, int);                \
  template BccooChoice bccoo_model<T>(const CsrView<T> &, const BccooParams &, const BccooHints &, index_t); \
  template BccooChoice bccoo_model_sampled<T>(const CsrView<T> &, const std::vector<index_t> &, index_t, index_t, std::int64_t, const BccooParams &, const BccooHints &);
GPUMAT_BCCOO_INSTANTIATE(double)
GPUMAT_BCCOO_INSTANTIATE(float)
#undef GPUMAT_BCCOO_INSTANTIATE

} // namespace gpumat

// ---- the record (src/core/format_record.hpp) ------------------------------------------------
namespace gpumat {

namespace {

// gpuauto's byte model: bccoo's own model (bccoo_model_sampled) on the sampled rows in the
// matrix's columns, in the matrix's precision
template <typename T>
bool bccoo_auto_shape_of(const AutoHints &h, const AutoSample &s, AutoShape &sh) {
  const MatrixFeatures &f = s.f;
  const double          n = f.nrows, z = double(f.nnz);
  char                  buf[160];
  CsrView<T>            B; // the sampled rows in the matrix's columns (auto_sample)
  B.nrows = index_t(s.bccoo_rowptr.size() - 1), B.ncols = f.ncols, B.rowptr = s.bccoo_rowptr.data(), B.colidx = s.bccoo_col.data();
  const BccooChoice ch   = bccoo_model_sampled(B, s.bccoo_wstart, f.nrows, f.ncols, f.nnz, BccooParams{}, BccooHints(h.block_size, f.max_row));
  const BccooShape *best = nullptr;
  for (const auto &x : ch.shapes)
    if (x.h == ch.p.h && x.w == ch.p.w) {
      best = &x;
      break;
    }
  if (!best && !ch.shapes.empty()) best = &ch.shapes.front();
  const double sampled = best ? best->fill * double(best->blocks) * best->h * best->w : 0;
  // the shapes' bytes count 16-bit columns; 32-bit ones (1 x 1 blocks) take 2 B more a block
  const double cols32 = ch.p.compress_col == 0 && best ? 2.0 * double(best->blocks) : 0.0;
  sh.bytes            = best && sampled > 0 ? (best->bytes + cols32) / sampled * z : 12 * z;
  sh.slices           = std::max(1, ch.p.slices);
  sh.bytes += sh.slices > 1 ? 16 * n * sh.slices : 0;
  sh.excess = z / 32 * std::max(0.0, f.sectors_csr / std::max(1, ch.p.w) - 8);
  // the longest row in one slice (its entries spread over the columns) covers that many blocks of
  // width w, tile blocks a thread and group threads a work group: one hop from each of its groups
  // to the next
  const double per_group  = double(ch.p.tile) * ch.p.group;
  const double row_blocks = std::ceil(double(f.max_row) / sh.slices / std::max(1, ch.p.w));
  sh.hops                 = std::max(0.0, std::ceil(row_blocks / per_group) - 1);
  std::snprintf(buf, sizeof buf, "%dx%d blocks, %d slice%s, %.0f hops", ch.p.h, ch.p.w, ch.p.slices, ch.p.slices > 1 ? "s" : "", sh.hops);
  sh.detail = buf;
  return true;
}

bool bccoo_auto_shape(const AutoHints &h, const AutoSample &s, AutoShape &sh) {
  return s.value_bytes == int(sizeof(float)) ? bccoo_auto_shape_of<float>(h, s, sh) : bccoo_auto_shape_of<double>(h, s, sh);
}

} // namespace

const FormatRecord &bccoo_record() {
  static const FormatRecord r = [] {
    FormatRecord r("bccoo");
    r.caps.device_transpose = true;
    r.caps.block_size_hint  = true;
    struct {
      const char *key, *help;
      int         hi, step;
    } opts[] = {
      {"block_height", "Block height h: 1..4 (0 = chosen by the model: the block shape with the fewest bytes)", 4, 1},
      {"block_width", "Block width w: 1, 2 or 4 (0 = chosen by the model)", 4, 1},
      {"slices", "Vertical slices (BCCOO+): 1..32 (0 = the model: the count with the fewest bytes per product by its byte model of the blocks, partial sums and far gathers of x against the GPU's L2 and L1, if it saves 5 %; else 1)", 32, 1},
      {"tile", "Blocks per thread, T: a multiple of 8 in 8..128 (0 = the model: 16 or 8 below 2.5M blocks; 1 x 1 blocks 24, 40 for segments of 64 blocks or more; larger blocks 32 for block rows of 20 blocks or more, else 16)", 128, 8},
      {"group", "Threads per work group: a multiple of 32 in 32..512 (0 = the model: 256; 128 or 64 when fewer than 64k or 32k threads; 512 for 1 x 1 segments of 48 blocks or more or a row longer than 6 groups of 256; 128 with tiles of 32 of larger blocks)", 512, 32},
      {"strategy", "Segment sums to y through the group's result cache in shared memory (2) or straight from the threads (1), the paper's strategies 2 and 1 (0 = the model: 2)", 2, 1},
    };
    for (const auto &o : opts) {
      OptionRecord &x = r.add(OptionKind::Int, o.key, o.help, "0");
      x.lo = 0, x.hi = o.hi, x.step = o.step;
      x.range_error = "{name}: {help}; got {value}";
    }
    r.options[1].allowed = {{0, 2}, {4, 4}}; // block_width
    {
      OptionRecord &o = r.add(OptionKind::Enum, "compress_columns", "16-bit column differences: auto (the model: 32-bit for 1 x 1 blocks and below 2.5M blocks, 16-bit for larger blocks unless a tenth would escape), yes, no", "auto");
      o.choices = {"auto", "yes", "no"}, o.enum_type = "BccooCompress", o.enum_prefix = "BCCOO_COMPRESS_";
    }
    r.add(OptionKind::Bool, "tune", "Choose the parameters left to the model by timing candidates on the GPU at the device build (the paper's auto-tuner, pruned; cached on disk); CPU builds use the model's", "false");
    {
      OptionRecord &o = r.add(OptionKind::Int, "tune_reps", "Timed products per candidate of -mat_bccoo_tune (their median counts): 1..1000", std::to_string(kBccooTuneDefaultReps));
      o.lo = 1, o.hi = kBccooTuneMaxReps;
      o.range_error = "{name}: timed products per candidate of the tuner must be in [{lo}, {hi}]; got {value}";
    }
    r.gpuauto.model = bccoo_auto_shape;
    // g 0.94, not the 0.92 its ratios on the gather-bound matrices alone gave: on a tie with
    // cuSPARSE CSR (powerlaw_2M: bccoo predicted 2 % ahead, measured 4.4 % behind, twice) the
    // choice goes to CSR; no suite choice where bccoo was more than 5 % ahead changes
    // (bench/calibrate.py --replay on docs/results/h100-2026-11-25d-suite)
    r.gpuauto.constants = {{"bccoo", {1.10, 0.0, 0.94}}};
    return r;
  }();
  return r;
}

} // namespace gpumat
