// bccoo: blocked compressed COO (yaSpMV, Yan et al. 2014), host side: the layout, its builder from
// CSR, statistics and the host reference product that emulates the GPU's tile algorithm.
//
// Layout (the paper's section 2, with the choices this project makes):
// - Blocks. Rows are grouped in block rows of h (1..4) rows, columns in block columns of w (1, 2, 4)
//   columns; a nonzero block is an h x w block with at least one nonzero. The last block row and
//   column may stick out of the matrix: their outside entries are zero and never read or written.
// - Slices (BCCOO+). The block columns are cut into `slices` (1..32) vertical slices of equal
//   block-column count, stacked top-down: the blocks are ordered by (slice, block row, block
//   column). Each (slice, block row) pair is a segment whose sum goes to the rows of the block row;
//   with several slices the segment sums of a row are added by a combine step (the paper's second
//   kernel; here part of the same product).
// - Every segment holds at least one block: an empty (slice, block row) pair gets one explicit
//   zero block (block column = the slice's first), so that the k-th row stop always ends segment k
//   and no row map is needed. The machinery's compressed rows keep this padding small (blocks with
//   many empty rows are handed over as their nonempty rows).
// - Bit flags: one bit per block, 0 = row stop (the block is the last of its segment), 1 = not.
//   Packed LSB first (block k is bit k % 8 of byte k / 8), so a tile of T blocks is read as a
//   8/16/32-bit word; padded with 1 bits up to a whole number of work-group tiles.
// - Values: h arrays (one per row of the block), each with w values per block: value[i][k*w + j] is
//   the entry (row i, column j) of block k.
// - Column indices: the block column in the original matrix (slices change the order, not the
//   columns). Compressed as 16-bit differences within each thread tile of T blocks: the first block
//   of a tile relative to the tile's base (bccoo_tile_base: the block column of the diagonal of the
//   block row the tile starts in, so that the first difference is small wherever the columns lie
//   near the diagonal: stencils, FEM; relative to 0 it would escape in every tile of a matrix wider
//   than 32,767 block columns), the others to the previous block; a difference outside
//   [-32767, 32767] is the escape -32768 and the column comes from an escape array (32-bit), at
//   escape_start[tile] plus the number of escapes before it in the tile. Uncompressed: 32-bit
//   block columns.
// - Offline transpose: the per-block arrays (values, column differences, columns) are stored
//   transposed within each work-group tile of G threads x T blocks: block j of thread i's tile is
//   at position j G + i of its work-group tile (bccoo_phys), so that the G threads of a work group
//   read their j-th blocks from consecutive addresses (coalesced). The bit flags stay in block
//   order: a thread's T flags are one T-bit word, and the words of consecutive threads are
//   consecutive. Block k below always means the k-th block in (slice, block row, block column)
//   order; its values sit at bccoo_phys(k).
// - Auxiliary per thread tile: first_segment[t], the number of row stops before the tile (the
//   segment of its first result); per work-group tile: no_scan[g], every thread tile of the group
//   holds a row stop, so its parallel segmented scan can be skipped.
#pragma once
#include "csr.hpp"

#include <cstdint>
#include <vector>

namespace gpumat {

// Position of block k in the per-block arrays (offline transpose, see above): T blocks per thread
// tile, G threads per work group. The identity when G == 1.
constexpr std::int64_t bccoo_phys(std::int64_t k, int T, int G) {
  const std::int64_t gt = std::int64_t(T) * G, base = k / gt * gt, r = k - base;
  return base + (r % T) * G + r / T;
}

// The column the first difference of a thread tile is relative to: the block column holding
// column br h, the diagonal of block row br = first_segment % nbrows (the block row of the tile's
// first block), clipped to the matrix.
constexpr index_t bccoo_tile_base(std::int64_t first_segment, index_t nbrows, int h, int w, index_t nbcols) {
  if (nbrows <= 0 || nbcols <= 0) return 0;
  const std::int64_t bc = std::int64_t(first_segment % nbrows) * h / w;
  return index_t(bc < nbcols ? bc : nbcols - 1);
}

struct BccooParams {
  int  h            = 0; // block height 1..4 (0 = default 1)
  int  w            = 0; // block width 1, 2, 4 (0 = default 1)
  int  slices       = 0; // vertical slices 1..32 (0 = default 1)
  int  tile         = 0; // blocks per thread tile, T: a multiple of 8 in 8..128 (0 = default 16)
  int  group        = 0; // threads per work group: a multiple of 32, 32..512 (0 = default 256)
  int  compress_col = -1; // 16-bit column differences: 1 yes, 0 no (-1 = default yes)
  // How a work group's complete segment sums reach y (the paper's section 3.2.2): 2, through the
  // group's result cache in shared memory, stored to y coalesced at the end of the group (sums past
  // the cache go straight to y); 1, no result cache: every sum goes straight to y from the thread
  // that forms it (strategy 1 without its per-thread array of intermediate sums: a sum is stored
  // when it is complete, which is what that array's later pass stores), no shared memory for it.
  // 0 = default 2. The products' values are the same; the host product ignores it.
  int  strategy     = 0;
};

// The one place where parameters are validated and defaults chosen; throws std::invalid_argument
// naming the parameter and its range.
BccooParams bccoo_resolve(BccooParams p);

// The format for one matrix (host arrays; the device layer uploads them unchanged).
template <typename T>
struct Bccoo {
  BccooParams          p{};                       // as built (slices past the last block column dropped)
  index_t              nrows = 0, ncols = 0;
  index_t              nbrows = 0, nbcols = 0;     // block rows, block columns
  index_t              slice_bcols = 0;            // block columns per slice
  std::int64_t         nblocks = 0;                // blocks stored (padding blocks included)
  std::int64_t         padded_blocks = 0;          // nblocks rounded up to whole work-group tiles
  std::int64_t         nsegments = 0;              // slices x block rows
  std::int64_t         pad_blocks = 0;             // explicit zero blocks of empty segments
  std::int64_t         nnz = 0;                    // nonzeros of the CSR input
  std::vector<std::uint8_t> flags;                 // padded_blocks bits
  std::vector<T>       val;                        // h arrays of padded_blocks * w, one after the other (at bccoo_phys)
  std::vector<std::int16_t> dcol;                  // compressed: padded_blocks differences (at bccoo_phys)
  std::vector<index_t> col;                        // uncompressed: padded_blocks block columns (at bccoo_phys)
  std::vector<index_t> escape;                     // compressed: the escaped block columns
  std::vector<index_t> escape_start;               // compressed: per thread tile, first escape
  std::vector<index_t> first_segment;              // per thread tile
  std::vector<std::uint8_t> no_scan;               // per work-group tile
  std::vector<std::int64_t> slot;                  // host only: CSR entry -> position in val (refresh)

  std::int64_t thread_tiles() const { return padded_blocks / p.tile; }
  std::int64_t groups() const { return padded_blocks / (std::int64_t(p.tile) * p.group); }
  std::int64_t phys(std::int64_t k) const { return bccoo_phys(k, p.tile, p.group); }
  bool         flag(std::int64_t k) const { return flags[std::size_t(k >> 3)] >> (k & 7) & 1u; }
  // The decompressed block columns of thread tile t (out: p.tile entries, block order): the one
  // decoder of the host side (block_col, the host product, the benchmark's floor check).
  void         tile_columns(std::int64_t t, index_t *out) const;
  index_t      block_col(std::int64_t k) const; // decompressed column of block k
  std::size_t  bytes() const;                     // every array the product reads
};

// Builds the format of A (CSR, sorted or unsorted columns per row) with resolved parameters.
template <typename T>
void bccoo_build(const CsrView<T> &A, const BccooParams &p, Bccoo<T> &B);
// New values, same pattern and parameters: rewrites val only (A as at the build).
template <typename T>
void bccoo_refresh(const CsrView<T> &A, Bccoo<T> &B);

// y = op(A) x (+ z), by the tile algorithm: thread tiles in order, a sequential segmented sum in
// each, the row stops ending segments, slices combined. y may equal z.
template <typename T>
void bccoo_apply(const Bccoo<T> &B, Op op, const T *x, const T *z, T *y);

// Block shapes by the bytes a product reads. For each of the 12 shapes h x w: its nonzero blocks
// (one pass over A per shape, O(nnz log row length)) and the bytes of values, flags and compressed
// columns it would store (fp of `value_bytes`); sorted by bytes, fewest first. The model's block
// shape is the first one (the paper's tuner times the four first); `block_size` (MatGetBlockSize,
// 1 when unknown) breaks ties towards shapes that tile the matrix's own blocks.
struct BccooShape {
  int          h = 1, w = 1;
  std::int64_t blocks = 0;  // nonzero blocks
  double       fill   = 0;  // nonzeros / (blocks h w)
  double       bytes  = 0;  // values + flags + 16-bit columns (+ empty-segment padding)
};
template <typename T>
std::vector<BccooShape> bccoo_shapes(const CsrView<T> &A, int block_size = 1);

// What the model knows of A and the GPU beyond the CSR: the matrix's block size (MatGetBlockSize,
// 1 when unknown: the shapes' tie-break), its longest row (the machinery counts it with the empty
// rows; -1: unknown, counted here in one pass over the row pointer) and the GPU's L2 cache (0:
// kModelL2Bytes; CPU builds have no GPU to ask).
struct BccooHints {
  int     block_size  = 1;
  index_t longest_row = -1;
  double  l2_bytes    = 0;
  BccooHints(int bs = 1, index_t longest = -1, double l2 = 0) : block_size(bs), longest_row(longest), l2_bytes(l2) {}
};

// The model's parameters for A, in time independent of A's size beyond a sample (and the longest
// row): the block shape with the fewest bytes (bccoo_shapes) measured on up to `max_windows`
// windows of 12 consecutive rows spread evenly over A (all rows of smaller matrices), fewer where
// the windows would hold more than about kModelSampleEntries nonzeros (but at least
// kModelMinWindows); then, on the same sample (bccoo_model.cpp says what each rule measured):
// - slices: the count of 1..32 with the fewest bytes per product by a byte model of the blocks,
//   the empty segments' zero blocks, the partial sums of each slice and the gathers of x far from
//   the diagonal (from memory, L2 or L1 by the share of a slice's x the cache holds), taken when it
//   saves kModelSliceGain over one slice;
// - tile and group: below kModelLatencyBlocks blocks tiles of 16 or 8 and groups of 256, 128 or 64
//   by the threads that leaves; 1 x 1 blocks tile 24, group 256 (segments of 48 blocks or more:
//   group 512; of 64 or more: tile 40, group 512; a segment longer than kModelHopGroups groups:
//   group 512);
//   larger blocks tile 32, group 128 for block rows of 20 blocks or more, else 16 and 256;
// - columns: 32-bit for 1 x 1 blocks; 16-bit differences for larger blocks on matrices of at least
//   kModelLatencyBlocks blocks while fewer than a tenth of the sampled differences escape;
// - strategy 2 (the result cache; 1 is left to the user).
// Every parameter the user set (nonzero; compress_col >= 0) is kept, and the block shape is then
// the best one with the user's height or width.
constexpr double  kModelSampleEntries = 16384;
constexpr index_t kModelMinWindows    = 4;
constexpr double  kModelL2Bytes       = 50e6;   // an H100's (and H200's) L2
constexpr double  kModelL1Bytes       = 128e3;  // of x an SM's L1 holds beside the product's other traffic
constexpr double  kModelL2XShare      = 0.4;    // of the L2 that holds x for the gathers: half (one partition) less the streamed arrays
constexpr double  kModelNearShare     = 0.25;   // near the diagonal: within this share of the columns the L2 holds of x
constexpr double  kModelSliceGain     = 0.05;
constexpr double  kModelLatencyBlocks = 2.5e6;
constexpr double  kModelHopGroups     = 6;      // a segment longer than this many groups of 256 (tile 24): groups of 512
struct BccooChoice {
  BccooParams             p;             // resolved
  std::vector<BccooShape> shapes;        // of the sample, fewest bytes first
  double                  escape_share = 0; // escaped differences per block with 16-bit columns (sample)
  double                  blocks       = 0; // A's nonzero blocks of the chosen shape: nnz x the sample's blocks per nonzero
  index_t                 sampled_rows = 0;
};
template <typename T>
BccooChoice bccoo_model(const CsrView<T> &A, const BccooParams &user, const BccooHints &hints = BccooHints(), index_t max_windows = 4096);
// The same model on a sample made elsewhere (gpuauto's, src/core/gpuauto.hpp): S holds whole
// windows of 12 consecutive rows of a matrix of nrows x ncols with nnz nonzeros, in its own
// columns (values not read), window i starting at the matrix's row wstart[i]; a row of S may hold
// only part of the matrix's row (evenly spread runs of its entries: the blocks, the far gathers
// and the slices are then judged on those). hints.longest_row: the matrix's longest row (-1: 0).
// bccoo_model is its sampling followed by this.
template <typename T>
BccooChoice bccoo_model_sampled(const CsrView<T> &S, const std::vector<index_t> &wstart, index_t nrows, index_t ncols, std::int64_t nnz, const BccooParams &user, const BccooHints &hints);

} // namespace gpumat
