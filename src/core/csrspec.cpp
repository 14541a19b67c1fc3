// csrspec host side: parameter resolution, decomposition statistics and the sequential
// emulation of the speculative segmented sum (Liu & Vinter 2015, section 3.2, Algorithm 1).
//
// Decomposition (shared with src/cuda/csrspec.cu): a tile is TS = bunches * T * W consecutive
// nonzeros (the block-wide tile: every thread of the block owns W of them), a block runs
// tiles_per_block (S) consecutive tiles. Tile t covers nonzeros [t*TS, min((t+1)*TS, nnz)) and
// owns the rows that START in it: rows [first(t), first(t+1)) with
//   first(0) = 0, first(ntiles) = nrows, else first(t) = R(t*TS - 1) + 1,
// where R(p) is the binary search of the paper (rightmost r with rowptr[r] <= p). So every row,
// empty rows included, is owned by exactly one tile; leading empty rows belong to tile 0 and
// trailing ones (rowptr == nnz) to the last tile.
#include "csrspec.hpp"
#include "format_record.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace gpumat {

namespace {

// Defaults, measured on an H200 (fp64, docs/notes in the benchmark; conf/device.sh BENCH_SET=sweep):
// W = 8 with 2 warps per block was the fastest of W in {4, 8, 16} x warps in {1, 2, 4, 8, 16} on
// both a 1.5 GB 3D 7-point Laplacian and a random-column power-law matrix (block barriers couple
// the warps' load latencies: small blocks, many of them resident, run best). The GPU kernel holds
// a thread's W values and column indices in registers while the previous tile is processed
// (94 registers at W = 8, fp64, no spills). S: the host emulation runs 2 tiles per block; the
// GPU path chooses S so that its grid is one wave of resident blocks (src/cuda/csrspec.cu).
constexpr int kDefaultW = 8;
constexpr int kDefaultBunches       = 2;
constexpr int kDefaultTilesPerBlock = 2;
constexpr int kMaxW = 64, kMaxBunches = 16, kMaxTilesPerBlock = csrspec_max_tiles_per_block, kMaxBunchesTimesW = 256;

void check_range(const char *name, int v, int lo, int hi, bool zero_is_default) {
  if (v >= lo && v <= hi) return;
  throw std::invalid_argument("csrspec: " + std::string(name) + " must be in [" + std::to_string(lo) + "," +
                              std::to_string(hi) + "]" + (zero_is_default ? " (or 0 for the default)" : "") +
                              ", got " + std::to_string(v));
}

// Tile/block counts of a pattern with nnz nonzeros.
struct Decomp {
  std::int64_t tile_nnz = 0, tiles = 0, blocks = 0;
};
Decomp decompose(std::int64_t nnz, const CsrSpecParams &p) {
  Decomp d;
  d.tile_nnz = std::int64_t(p.bunches) * p.T * p.W;
  d.tiles    = (nnz + d.tile_nnz - 1) / d.tile_nnz;
  d.blocks   = (d.tiles + p.tiles_per_block - 1) / p.tiles_per_block;
  return d;
}

// R(p) restricted to [lo, hi): rightmost r with a[r] <= key, given a[lo] <= key (the paper's
// binary search returning the rightmost match among equal row pointers).
index_t rightmost_le(const index_t *a, index_t lo, std::int64_t hi, std::int64_t key) {
  return index_t(std::upper_bound(a + lo, a + hi, key) - a - 1);
}

// first(t) of the header comment.
index_t tile_first_row(const index_t *rowptr, index_t nrows, const Decomp &d, std::int64_t t) {
  if (t == 0) return 0;
  if (t == d.tiles) return nrows;
  return rightmost_le(rowptr, 0, std::int64_t(nrows) + 1, t * d.tile_nnz - 1) + 1;
}

} // namespace

template <typename T>
CsrSpecParams csrspec_resolve(CsrSpecParams p, std::int64_t nnz, long long resident_blocks) {
  if (p.W == 0) p.W = kDefaultW;
  if (p.bunches == 0) p.bunches = kDefaultBunches;
  if (p.tiles_per_block == 0) {
    if (resident_blocks > 0) {
      const std::int64_t ts = std::int64_t(p.bunches) * p.T * p.W, ntiles = ts > 0 ? (nnz + ts - 1) / ts : 0;
      p.tiles_per_block     = int(std::min<std::int64_t>(kMaxTilesPerBlock, std::max<std::int64_t>(1, (ntiles + resident_blocks - 1) / resident_blocks)));
    } else p.tiles_per_block = kDefaultTilesPerBlock;
  }
  if (p.T != 32)
    throw std::invalid_argument("csrspec: T must be 32 (threads per thread-bunch = the warp size), got " +
                                std::to_string(p.T));
  check_range("W", p.W, 1, kMaxW, true);
  check_range("warps", p.bunches, 1, kMaxBunches, true);
  check_range("tiles_per_block", p.tiles_per_block, 1, kMaxTilesPerBlock, true);
  if (p.bunches * p.W > kMaxBunchesTimesW)
    throw std::invalid_argument("csrspec: warps*W must be <= " + std::to_string(kMaxBunchesTimesW) +
                                " (a tile of warps*32*W nonzeros is staged in shared memory), got warps=" +
                                std::to_string(p.bunches) + ", W=" + std::to_string(p.W));
  return p;
}

template <typename T>
CsrSpecStats csrspec_stats(const CsrView<T> &A, const CsrSpecParams &params) {
  const CsrSpecParams p = csrspec_resolve<T>(params);
  const std::int64_t nnz = A.nnz();
  CsrSpecStats s;
  for (index_t r = 0; r < A.nrows; ++r) s.empty_rows += A.rowptr[r] == A.rowptr[r + 1];
  if (nnz == 0) return s;
  const Decomp d = decompose(nnz, p);
  const std::int64_t block_nnz = d.tile_nnz * p.tiles_per_block;
  s.tiles     = d.tiles;
  s.blocks    = d.blocks;
  s.aux_bytes = std::size_t(d.blocks) * (sizeof(index_t) + sizeof(T));
  std::int64_t last_dirty = -1;
  for (index_t r = 0; r < A.nrows; ++r) {
    const std::int64_t b = A.rowptr[r], e = A.rowptr[r + 1];
    if (b == e) { // an empty row makes its owner tile dirty (rowptr == nnz: the last tile)
      const std::int64_t t = std::min(b / d.tile_nnz, d.tiles - 1);
      s.dirty_tiles += t != last_dirty;
      last_dirty = t;
    } else {
      s.cross_rows += b / block_nnz != (e - 1) / block_nnz;
    }
  }
  return s;
}

template <typename T>
void CsrSpecHost<T>::setup(const CsrView<T> &A, const CsrSpecParams &p) {
  p_ = csrspec_resolve<T>(p);
  const std::size_t nblocks = std::size_t(decompose(A.nnz(), p_).blocks);
  sync_val_.assign(nblocks, T(0));
  sync_row_.assign(nblocks, 0);
}

template <typename T>
void CsrSpecHost<T>::apply(const CsrView<T> &A, Op op, const T *x, const T *z, T *y) const {
  const index_t *rp = A.rowptr;
  const std::int64_t nnz = A.nnz();
  if (op == Op::Trans) { // y = z + A^T x, row by row (only the no-transpose product is tiled)
    for (index_t c = 0; c < A.ncols; ++c) y[c] = z ? z[c] : T(0);
    for (index_t r = 0; r < A.nrows; ++r)
      for (index_t k = rp[r]; k < rp[r + 1]; ++k) y[A.colidx[k]] += A.val[k] * x[r];
    return;
  }
  if (nnz == 0) {
    for (index_t r = 0; r < A.nrows; ++r) y[r] = z ? z[r] : T(0);
    return;
  }
  const Decomp d = decompose(nnz, p_);
  const int S = p_.tiles_per_block;
  if (sync_val_.size() != std::size_t(d.blocks))
    throw std::logic_error("csrspec: CsrSpecHost::apply on a pattern it was not set up for");
  const std::size_t ts = std::size_t(d.tile_nnz);
  std::vector<index_t> first(S + 1);
  std::vector<std::uint32_t> desc((ts + 31) / 32); // segment descriptor, one bit per nonzero
  std::vector<T> part;                             // the tile's partial sums in compact order
  std::vector<index_t> head;                       // tile-local position of each segment head

  for (std::int64_t blk = 0; blk < d.blocks; ++blk) {
    const std::int64_t tile0 = blk * S;
    const int nt = int(std::min<std::int64_t>(S, d.tiles - tile0));
    // Algorithm 1 lines 3-6: binary search of the tile boundaries in the row pointer.
    for (int i = 0; i <= nt; ++i) first[i] = tile_first_row(rp, A.nrows, d, tile0 + i);
    // A row entering the block from the left (it contains the block's first nonzero but starts
    // before it) sends its partial sum through the synchronizer (lines 39-43). A block without
    // one records its first row with a zero so that the synchronizer rows stay non-decreasing.
    const std::int64_t blo = tile0 * d.tile_nnz;
    const bool carry_in = blo > 0 && rp[first[0]] > blo;
    const index_t enter_row = carry_in ? first[0] - 1 : -1;
    sync_row_[blk] = carry_in ? first[0] - 1 : first[0];
    sync_val_[blk] = T(0);
    auto emit = [&](index_t row, T s) { // store one complete segment sum
      if (row < 0) return;              // the (empty) segment before the block's first head
      if (row == enter_row) sync_val_[blk] = s;
      else y[row] = z ? z[row] + s : s;
    };
    // Transmitter (lines 27-31): the segment still open at the end of the previous tile.
    index_t trans_row = enter_row;
    T trans_val = T(0);
    for (int i = 0; i < nt; ++i) {
      const std::int64_t lo = (tile0 + i) * d.tile_nnz;
      const std::int64_t n  = std::min<std::int64_t>(d.tile_nnz, nnz - lo);
      // Lines 14-21: segment descriptor from the row pointers of the rows starting in the tile;
      // an empty row (equal consecutive row pointers) is written at once and makes the tile dirty.
      std::fill(desc.begin(), desc.end(), 0u);
      bool dirty = false;
      for (index_t r = first[i]; r < first[i + 1]; ++r) {
        if (rp[r] == rp[r + 1]) {
          y[r] = z ? z[r] : T(0);
          dirty = true;
        } else {
          const std::size_t pos = std::size_t(rp[r] - lo);
          desc[pos / 32] |= 1u << (pos % 32);
        }
      }
      // Lines 22-33: products and segmented sum. part[0] is the segment entering the tile (the
      // transmitter's), part[k] the one started by the k-th head, in compact order.
      part.clear();
      head.clear();
      T acc = trans_val;
      for (std::int64_t j = 0; j < n; ++j) {
        if (desc[j / 32] >> (j % 32) & 1u) {
          part.push_back(acc);
          head.push_back(index_t(j));
          acc = T(0);
        }
        acc += A.val[lo + j] * x[A.colidx[lo + j]];
      }
      // Lines 34-52: store the complete partial sums. A clean tile holds exactly the rows
      // first(t), first(t)+1, ... in order, so head k goes to the speculative compact slot
      // first(t) + k. A dirty tile (checking-prediction stage) takes the slow path: the true row
      // of each head by a binary search of its position in the tile's row range.
      auto head_row = [&](std::size_t k) {
        return dirty ? rightmost_le(rp, first[i], first[i + 1], lo + head[k]) : index_t(first[i] + k);
      };
      for (std::size_t k = 0; k < part.size(); ++k) emit(k == 0 ? trans_row : head_row(k - 1), part[k]);
      if (!head.empty()) trans_row = head_row(head.size() - 1);
      trans_val = acc;
    }
    emit(trans_row, trans_val); // the segment open at the end of the block
  }
  // Lines 62-68: synchronization pass, rows entering a block from the left.
  for (std::size_t b = 0; b < sync_val_.size(); ++b) y[sync_row_[b]] += sync_val_[b];
}

#define GPUMAT_CSRSPEC_INSTANTIATE(T)                                                                     \
  template CsrSpecParams csrspec_resolve<T>(CsrSpecParams, std::int64_t, long long);                                               \
  template CsrSpecStats  csrspec_stats<T>(const CsrView<T> &, const CsrSpecParams &);                      \
  template class CsrSpecHost<T>;
GPUMAT_CSRSPEC_INSTANTIATE(double)
GPUMAT_CSRSPEC_INSTANTIATE(float)
#undef GPUMAT_CSRSPEC_INSTANTIATE

} // namespace gpumat

// ---- the record (src/core/format_record.hpp) ------------------------------------------------
namespace gpumat {

const FormatRecord &csrspec_record() {
  static const FormatRecord r = [] {
    FormatRecord r("csrspec");
    r.caps.device_transpose = true;
    const char *zero_default = "{name} must be in [{lo}, {hi}] (0 chooses the default), got {value}";
    struct {
      const char *key, *help;
      int         hi;
    } opts[] = {
      {"w", "Nonzeros per thread per tile, W: 0..64 (0 = the default, 8; warps*W <= 256)", 64},
      {"warps", "Warps per block: 0..16 (0 = the default, 2; warps*W <= 256)", 16},
      {"tiles_per_block", "Tiles each block processes in sequence, S: 0..1024 (0 = the default: on the GPU one wave of resident blocks, on the host 2)", csrspec_max_tiles_per_block},
    };
    for (const auto &o : opts) {
      OptionRecord &x = r.add(OptionKind::Int, o.key, o.help, "0");
      x.lo = 0, x.hi = o.hi, x.range_error = zero_default;
    }
    // plain CSR: the CSR byte model; its constants measured on the H100 as cuSPARSE CSR's
    r.gpuauto.model        = auto_csr_shape;
    r.gpuauto.constants    = {{"csrspec", {1.00, 10.0, 0.94}}};
    // build (ns per nonzero, ns per row, us): the fit to 24 builds, |relative error| median 6 %
    r.gpuauto.build = {1.55, 1.43, 276};
    r.gpuauto.small_blocks = true; // its build is the upload, its transposed product on the GPU
    return r;
  }();
  return r;
}

} // namespace gpumat
