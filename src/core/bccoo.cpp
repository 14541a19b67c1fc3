// bccoo host side: parameters, the builder from CSR and the host reference product (the layout is
// described in bccoo.hpp); the parameters' choice by the byte model is in bccoo_model.cpp.
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

#define GPUMAT_BCCOO_INSTANTIATE(T)                                                         \
  template struct Bccoo<T>;                                                                 \
  template void bccoo_build<T>(const CsrView<T> &, const BccooParams &, Bccoo<T> &);         \
  template void bccoo_refresh<T>(const CsrView<T> &, Bccoo<T> &);                           \
  template void bccoo_apply<T>(const Bccoo<T> &, Op, const T *, const T *, T *);
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
    // build (ns per nonzero, ns per row, us): the fit to 24 builds, |relative error| median 4 %
    r.gpuauto.build = {1.62, 1.26, 2480};
    return r;
  }();
  return r;
}

} // namespace gpumat
