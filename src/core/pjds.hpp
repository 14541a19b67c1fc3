// pjds: padded jagged diagonals (Kreutzer et al. 2012), host side: the layout, its builder from
// CSR, the value refresh, the host reference products and the model that chooses its parameters.
//
// Layout. The rows are split in two parts:
// - Long rows (more than `long_row` nonzeros: circuit hubs, LP rows of thousands) keep their CSR
//   entries in a part of their own (long_rows, long_ptr, long_col, long_val), one row per thread
//   group on the GPU, so that no block is padded to a hub and no thread walks a million entries.
// - The other rows (empty ones included) are ordered by nonzero count, descending, within windows
//   of `sigma` rows (sigma = 1: the matrix's order, sliced ELL; one window of all rows: pJDS
//   proper; the order within equal counts is the matrix's, so the sort is stable). perm[i] is the
//   matrix row at position i (no perm array when that is i itself). Blocks of `block_rows` (b_r) consecutive positions are padded to
//   their longest row and stored column by column: entry j of position i (block b = i / b_r,
//   holding rows_b = min(b_r, positions left) rows) is at block_start[b] + j rows_b + i % b_r, in
//   val and col (the last block is not padded to b_r rows). Padding entries have value 0 and the
//   column of the row's last entry (0 for an empty row), so a kernel that reads them gathers an x
//   it already holds; rowlen[i] (ELLPACK-R) lets it skip them.
// x is read through the matrix's own column indices and y written through perm: no permuted
// vector is ever visible outside the product.
// Dictionary columns (PjdsParams::columns): where every block has at most kPjdsDictMax distinct
// offsets (column - matrix row of the entry's position; a stencil's few, however far apart its
// planes), the padded part stores an 8-bit code per entry (code) into its block's dictionary
// (dict[dict_start[b] .. dict_start[b + 1]), the block's distinct offsets ascending) instead of
// 32-bit columns (col then empty): column = row(i) + dict[dict_start[b] + code[pos]]. Lossless;
// the same entries summed in the same order.
// Positional columns (PjdsColumns::Positional, -mat_pjds_columns positional, where they store fewer
// bytes: pjds_positional_pays; and by auto where pjds_positional_auto_tries and
// pjds_positional_auto_pays say so): no column per entry. Block b's rows all take the width of its nonzeros' distinct offsets from
// their group's first row (column - (row - row % pgroup)), ascending in poff[poff_start[b] ..
// poff_start[b + 1]); entry j of every row of the block is that row's entry at offset j, or the
// padding sentinel (pjds_pad: a NaN of a payload of its own) where the row has none (its column
// clamped into the matrix). pgroup, of kPjdsPositionalGroups, stores the fewest entries (on a sample of
// the blocks: kPjdsPositionalSample): the dof per node of a vector problem, whose node's rows then share their offsets. rowlen keeps the rows'
// nonzero counts; block_start the blocks' widths. The products add nothing for exactly the sentinel
// (the GPU product reads x there too, at the column clamped into x, and drops that product; the host
// products read none), so a non-finite x at a column the row does not hold never reaches its sum, and take every other
// value, a stored zero included (0 x Inf = NaN, as AIJ's product), as the 32-bit layout does. A
// stored value with the sentinel's bits is stored as the canonical quiet NaN (pjds_unpad; in fp32
// storage, pjds_round), so no value is taken for padding. Lossless: the same entries summed in the
// same (column) order. The GPU product walks each block's width (never rowlen) and reads 4 B per
// offset per block and 8 B per block start instead of 4 B per stored entry.
//
// Bytes of y = A x (fp64, 32-bit indices): (nnz + padding) x (8 + 4) B (with dictionary columns
// 8 + 1 B, plus 4 B per dictionary entry and per block; with a value table 1 B (2 B beyond 256
// entries) instead of 8, plus the table; with fp32 storage 4 B instead of 8) + 4 B (rowlen) + 4 B (perm, unless the
// identity) per row of the pJDS part + 8 B per block (start) + the long part's CSR (12 B per entry +
// 8 B per long row) + x gathered + y once (through perm).
#pragma once
#include "csr.hpp"
#include "long_rows.hpp"
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace gpumat {

// How the padded part stores its columns: auto (the default: dictionary columns where every
// block's offsets fit in kPjdsDictMax and that reads fewer bytes with rows of at least
// kPjdsDictMinWidth stored entries on average: pjds_dictionary_pays; positional ones where
// pjds_positional_auto_tries and pjds_positional_auto_pays: shorter rows of values stored as they
// are, or wider rows of values in an 8-bit table), plain (32-bit columns), or
// dictionary (wherever every block's offsets fit, whatever the bytes), or positional (no column per
// entry, see the layout above; where pjds_positional_pays). The width: on an H200 the
// coded product was 11-20 % faster on rows of 27 and 81 entries (27-point stencil, 3-dof FEM) but
// 3 % slower on a 5-point stencil and, with a value table, 8-13 % slower than the table alone on
// 5- and 7-point stencils (docs/results/h200-2026-11-28i-compressed): a short row does not repay
// the code's dependent read of the dictionary.
enum class PjdsColumns : int { Auto = 0, Plain = 1, Dictionary = 2, Positional = 3 };
constexpr index_t kPjdsPositionalGroups[] = {1, 2, 3, 4, 5, 6, 8}; // the groups positional columns try
// Positional columns choose their group on a sample of the blocks: every
// pjds_positional_sample_stride(nblocks)-th block from the first, at most kPjdsPositionalSample
// blocks (all of them in a smaller layout), each group's stored entries counted there, the fewest
// kept (the first of equals); then only the chosen group's offsets are counted and kept over every
// block (pjds_positional_pays judges that count). One full count instead of one per group: each is
// a segmented sort of the padded part on the GPU. Host and device builders sample alike.
constexpr std::int64_t kPjdsPositionalSample = 4096;
constexpr std::int64_t pjds_positional_sample_stride(std::int64_t nblocks) {
  return nblocks <= kPjdsPositionalSample ? 1 : (nblocks + kPjdsPositionalSample - 1) / kPjdsPositionalSample;
}
constexpr int          kPjdsDictMax      = 256; // offsets a block's dictionary holds (8-bit codes)
constexpr std::int64_t kPjdsDictMinWidth = 16;  // stored entries per row below which auto keeps 32-bit columns

// How the product reads the padded part's values: auto (the default: codes into one table of the
// padded part's distinct values, the padding's 0 (positional columns: its sentinel) included, where
// they are at most kPjdsTable16Max and that reads fewer bytes: pjds_table_pays), plain (as stored),
// or table (wherever they fit). The codes are 8-bit (vcode) where the table has at most
// kPjdsTableMax entries, else 16-bit (vcode16; the GPU reads that table through L1 rather than
// shared memory). The values themselves are kept: a refresh writes them and re-derives the codes,
// and a new value outside the table turns the table off until the next build (the product then
// reads the values; table_drops counts it). Lossless: the same values summed in the same order.
enum class PjdsValues : int { Auto = 0, Plain = 1, Table = 2 };
constexpr int kPjdsTableMax   = 256;   // entries of a table of 8-bit codes
constexpr int kPjdsTable16Max = 65536; // entries of a table of 16-bit codes, the most a table holds
// The bytes of a code into a table of `entries`.
constexpr std::int64_t pjds_code_bytes(std::int64_t entries) { return entries <= kPjdsTableMax ? 1 : 2; }

// fp32 storage (PjdsParams::fp32, -mat_gpumat_values fp32; lossy, only when asked): where no value
// table is built and T is wider than float, the products read the padded part's values rounded to
// float (val32: 4 B instead of 8 a stored entry), converted back to T before they are multiplied,
// so x, y and the sums stay T. The long part keeps its T values. val is kept: a refresh writes it and
// rounds val32 again. The host reference reads the same rounded values, so host and device products
// are the same sums. A value table is lossless and reads fewer bytes: where one is built, it wins.
// A padded value's bytes under fp32 storage: float's where T is wider, else T's.
template <typename T>
constexpr std::int64_t pjds_single_bytes() {
  return std::int64_t(sizeof(T) > sizeof(float) ? sizeof(float) : sizeof(T));
}
// A padded value's bytes as stored without a table: pjds_single_bytes where fp32 storage is asked
// (PjdsParams::fp32), else T's.
template <typename T>
constexpr std::int64_t pjds_stored_value_bytes(bool fp32) {
  return fp32 ? pjds_single_bytes<T>() : std::int64_t(sizeof(T));
}

// The positional layout's padding sentinel (above), for host and device code: quiet NaNs whose
// payloads spell "padded" (fp64) and "pd" (fp32), compared by bits; the canonical quiet NaNs that
// stand for a stored value with a sentinel's bits.
constexpr std::uint64_t kPjdsPadBits64 = 0x7FF8706164646564ull;
constexpr std::uint32_t kPjdsPadBits32 = 0x7FC07064u;
constexpr std::uint64_t kPjdsNaNBits64 = 0x7FF8000000000000ull;
constexpr std::uint32_t kPjdsNaNBits32 = 0x7FC00000u;
#if defined(__CUDACC__)
#define GPUMAT_PJDS_HD __host__ __device__ __forceinline__
#else
#define GPUMAT_PJDS_HD inline
#endif
GPUMAT_PJDS_HD std::uint64_t pjds_bits(double v) {
#if defined(__CUDA_ARCH__)
  return std::uint64_t(__double_as_longlong(v));
#else
  std::uint64_t b;
  std::memcpy(&b, &v, 8);
  return b;
#endif
}
GPUMAT_PJDS_HD std::uint32_t pjds_bits(float v) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(v);
#else
  std::uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
#endif
}
GPUMAT_PJDS_HD double pjds_double(std::uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double((long long)b);
#else
  double v;
  std::memcpy(&v, &b, 8);
  return v;
#endif
}
GPUMAT_PJDS_HD float pjds_float(std::uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(b);
#else
  float v;
  std::memcpy(&v, &b, 4);
  return v;
#endif
}
// The sentinel and the canonical NaN of T (double or float).
template <typename T>
GPUMAT_PJDS_HD T pjds_pad() {
  if constexpr (sizeof(T) == 8) return pjds_double(kPjdsPadBits64);
  else return pjds_float(kPjdsPadBits32);
}
template <typename T>
GPUMAT_PJDS_HD T pjds_nan() {
  if constexpr (sizeof(T) == 8) return pjds_double(kPjdsNaNBits64);
  else return pjds_float(kPjdsNaNBits32);
}
// Whether v is the sentinel (its bits; any other NaN is not).
template <typename T>
GPUMAT_PJDS_HD bool is_pjds_pad(T v) {
  if constexpr (sizeof(T) == 8) return pjds_bits(v) == kPjdsPadBits64;
  else return pjds_bits(v) == kPjdsPadBits32;
}
// A stored value as the positional layout holds it: the canonical NaN for the sentinel's bits.
template <typename T>
GPUMAT_PJDS_HD T pjds_unpad(T v) {
  return is_pjds_pad(v) ? pjds_nan<T>() : v;
}
// fp32 storage's rounding of a padded entry: the sentinel to fp32's, any NaN to the canonical fp32
// NaN (so no stored value rounds to the sentinel, and host and device round NaNs alike), the rest
// rounded to nearest.
template <typename T>
GPUMAT_PJDS_HD float pjds_round(T v) {
  return is_pjds_pad(v) ? pjds_pad<float>() : v != v ? pjds_nan<float>() : float(v);
}

struct PjdsParams {
  int          block_rows = 0; // b_r: rows per padded block, 1..1024 (0 = 32, the warp)
  std::int64_t sigma      = 0; // sorting window in rows: 1 = no sorting; > 1: windows of sigma rows
                               // (rounded up to a multiple of b_r; >= the row count: all rows);
                               // 0 = chosen by pjds_model
  std::int64_t long_row   = 0; // rows with more nonzeros go to the long part (0 = chosen by pjds_model)
  PjdsColumns  columns    = PjdsColumns::Auto;
  PjdsValues   values     = PjdsValues::Auto;
  bool         fp32       = false; // the padded values stored rounded to float for the products (above)
  // positional columns even where pjds_positional_pays says no (the kernels' tests on arbitrary
  // patterns); the PETSc adapter never sets it
  bool         positional_always = false;
};

constexpr int          pjds_max_block_rows = 1024;
constexpr std::int64_t pjds_all_rows        = INT64_MAX / 2; // a window that holds every row

// Validates p and fills in the defaults that need no matrix (b_r 32; sigma and long_row: 0 stays
// 0 for pjds_model, or becomes "all rows" / "none" when resolved without a model); throws
// std::invalid_argument naming the parameter and its range.
PjdsParams pjds_resolve(PjdsParams p);

// The model's choice for A (every parameter the user set, nonzero, is kept), in time linear in the
// rows:
// - long_row: the longest row a thread of the pJDS part may walk alone (default_long_row,
//   long_rows.hpp: 32, or every row where none is far longer than the mean and the longest has at
//   most 128 entries): a longer row goes to the long part, whose chunks groups of lanes sum
//   (measured on the H100: rows of up to 1024 entries walked by one thread each made products
//   4-14x slower than aijcusparse on matrices of 1-20M nonzeros, the walk of the longest row
//   outlasting the whole stream of the matrix);
// - sigma (with positional columns 1: the matrix's order): the smallest window of kPjdsWindows
//   (1: no sorting, the matrix's order and its x locality kept; then 4096 .. 1M rows: rows move
//   only within a window, so the x a warp gathers stays within a window's span of columns on
//   matrices with locality; all rows) whose padding is
//   at most kPjdsPadTarget of the nonzeros (4.5 %: a target of 5 % with a margin for sampled
//   estimates); all rows when none is, and then, unless the user set long_row, the threshold
//   halved (down to kPjdsLongLow, a warp's worth of a row) until the sorted padding is within the
//   target: a power law's tail goes to the long part.
// Matrices of more than kPjdsModelRows rows are judged on windows spread evenly (kPjdsModelWindows
// of kPjdsLocalWindow rows for sigma 1 and for all rows; for the others about kPjdsModelRows rows
// in windows of the window's rows, at least 4; all rows once those cover the matrix), the counts
// scaled to the matrix.
constexpr std::int64_t kPjdsModelRows    = 1 << 20;
constexpr std::int64_t kPjdsModelWindows = 256;
constexpr std::int64_t kPjdsLongLow      = kLongRow; // the default long_row (long_rows.hpp), the floor of its halving
constexpr std::int64_t kPjdsLocalWindow  = 4096;
constexpr double       kPjdsPadTarget    = 0.045; // 5 % less a margin for the sampled estimates
constexpr int          kPjdsNumWindows   = 7;
constexpr std::int64_t kPjdsWindows[kPjdsNumWindows] = {1, 4096, 16384, 65536, 262144, 1048576, pjds_all_rows};
struct PjdsChoice {
  PjdsParams   p; // resolved, sigma and long_row set
  // padding entries with each window of kPjdsWindows (-1: not evaluated; the last, all rows, at the
  // final long_row; estimates on large matrices, see above)
  std::int64_t padding[kPjdsNumWindows] = {-1, -1, -1, -1, -1, -1, -1};
};
template <typename T>
PjdsChoice pjds_model(const CsrView<T> &A, const PjdsParams &user);

// Padding entries of the pJDS part for a parameter set (long rows excluded), without building.
template <typename T>
std::int64_t pjds_padding(const CsrView<T> &A, const PjdsParams &resolved);

// The rows of the pJDS part, those with at most long_row nonzeros, in the matrix's order, and their
// lengths (pjds_padding's and pjds_build's).
template <typename T>
void pjds_short_rows(const CsrView<T> &A, std::int64_t long_row, std::vector<index_t> &rows, std::vector<index_t> &len);

template <typename T>
struct Pjds : LongPart<T> { // the long part: long_rows, long_ptr, long_col, long_val (long_rows.hpp)
  PjdsParams   p{};      // as built (sigma rounded, long_row set)
  index_t      nrows = 0, ncols = 0;
  // pJDS part
  index_t                   nrows_pj = 0; // rows in the pJDS part
  std::vector<index_t>      perm;         // position -> matrix row (nrows_pj); empty when that is
                                          // the identity (sigma 1, no long rows: 4 B per row saved)
  std::vector<index_t>      rowlen;       // position -> nonzeros (nrows_pj)
  std::vector<std::int64_t> block_start;  // nblocks + 1 offsets into val/col
  std::vector<index_t>      col;          // padded entries
  std::vector<T>            val;
  // dictionary columns (coded(); col then empty): code per padded entry, each block's offsets
  std::vector<std::uint8_t> code;
  std::vector<index_t>      dict;
  std::vector<index_t>      dict_start; // nblocks + 1 offsets into dict; empty: plain columns
  // positional columns (positional(); col then empty): each block's offsets, ascending
  std::vector<index_t>      poff;
  std::vector<std::int64_t> poff_start; // nblocks + 1 offsets into poff; empty: not positional
  index_t                   pgroup = 0; // rows per group the offsets start from
  // positional columns asked for and declined (pjds_positional_pays): the positions they would have
  // stored (the 32-bit columns kept); 0 otherwise
  std::int64_t              positional_declined = 0;
  // value table (tabled()): the padded part's distinct values ascending by bit pattern, a code
  // per padded entry: 8-bit (vcode) where the table has at most kPjdsTableMax entries, else 16-bit
  // (vcode16; the other vector empty); val kept (refreshes write it)
  std::vector<T>             table;
  std::vector<std::uint8_t>  vcode;
  std::vector<std::uint16_t> vcode16;
  std::int64_t              table_drops = 0; // refreshes that met a value outside the table
  // fp32 storage (single()): the padded values rounded to float, what the products read; val kept
  std::vector<float>        val32;
  // refresh: CSR entry q -> position in val (< val.size()) or val.size() + position in long_val
  std::vector<std::int64_t> slot;

  index_t      row(std::int64_t i) const { return perm.empty() ? index_t(i) : perm[std::size_t(i)]; } // the matrix row at position i
  bool         coded() const { return !dict_start.empty(); }
  bool         positional() const { return !poff_start.empty(); }
  bool         tabled() const { return !table.empty(); }
  void         drop_table() { table.clear(), vcode.clear(), vcode16.clear(); } // the values read as stored (PjdsDevice::drop_table on the device)
  bool         single() const { return !val32.empty(); }
  int          code_bytes() const { return tabled() ? int(pjds_code_bytes(std::int64_t(table.size()))) : 0; } // a value code's bytes (0: no table)
  // padded entry pos's code into the table (tabled())
  std::size_t  table_code(std::int64_t pos) const { return vcode16.empty() ? std::size_t(vcode[std::size_t(pos)]) : std::size_t(vcode16[std::size_t(pos)]); }
  // padded entry pos's value as the products read it
  T            value(std::int64_t pos) const { return tabled() ? table[table_code(pos)] : single() ? T(val32[std::size_t(pos)]) : val[std::size_t(pos)]; }
  // whether padded entry pos is the positional layout's padding: the sentinel as the products read
  // it (a table's entry, the fp32 or the stored value), which the products skip
  bool         pad(std::int64_t pos) const {
    return tabled() ? is_pjds_pad(table[table_code(pos)]) : single() ? is_pjds_pad(val32[std::size_t(pos)]) : is_pjds_pad(val[std::size_t(pos)]);
  }
  // the column of padded entry pos, which belongs to position i
  index_t      column(std::int64_t pos, std::int64_t i) const {
    if (positional()) {
      const std::int64_t b = i / p.block_rows, j = (pos - block_start[std::size_t(b)]) / block_rows(b);
      const index_t      r = row(i), c = r - r % pgroup + poff[std::size_t(poff_start[std::size_t(b)] + j)];
      return std::min(std::max(c, index_t(0)), ncols - 1);
    }
    return coded() ? row(i) + dict[std::size_t(dict_start[std::size_t(i / p.block_rows)]) + code[std::size_t(pos)]] : col[std::size_t(pos)];
  }
  // the entries block b stores per row: its longest row's count, or with positional columns its
  // offsets'
  std::int64_t block_width(std::int64_t b) const { return (block_start[std::size_t(b) + 1] - block_start[std::size_t(b)]) / std::max<std::int64_t>(block_rows(b), 1); }
  // the offset (column - matrix row) of stored entry k of block b, padding included: what a
  // block's dictionary holds
  index_t      block_offset(std::int64_t b, std::int64_t k) const {
    const std::int64_t i = b * p.block_rows + k % block_rows(b);
    return column(block_start[std::size_t(b)] + k, i) - row(i);
  }
  std::int64_t nblocks() const { return std::int64_t(block_start.size()) - 1; }
  std::int64_t block_rows(std::int64_t b) const { return std::min<std::int64_t>(p.block_rows, std::int64_t(nrows_pj) - b * p.block_rows); }
  std::int64_t padded() const { return std::int64_t(val.size()); }
  std::int64_t padding() const; // padded entries beyond the pJDS part's nonzeros
  std::size_t  bytes() const;   // the arrays a product reads (the byte model's format part)
  // Whether the GPU product reads rowlen (pjds_reads_rowlen with the stored values' bytes: fp32's
  // where single(); never with positional columns, whose product walks the widths), and the bytes
  // it then reads: bytes() less rowlen where it walks the widths (PjdsDevice::format_bytes of the
  // same layout)
  bool         reads_rowlen() const;
  std::size_t  read_bytes() const;
};

// Whether the GPU product reads the row lengths of the pJDS part's `rows` positions: where the
// `padding` entries' bytes (fp value + column of `value_bytes` + 4) exceed the lengths' (4 B a row);
// else it walks each block's width, the padding adding zeros. No padded entries: nothing to read.
constexpr bool pjds_reads_rowlen(std::int64_t padded, std::int64_t padding, std::int64_t rows, std::int64_t value_bytes) {
  return padded > 0 && padding * (value_bytes + std::int64_t(sizeof(index_t))) > rows * std::int64_t(sizeof(index_t));
}

// Whether positional columns are kept where asked for: their `positions` (`nblocks` blocks) store
// fewer bytes than the 32-bit layout's `padded` entries, values of `value_bytes` (the stored type's,
// before any table or fp32 rounding) and 8 B a block start against value and 4 B column an entry
// (each block's offsets, at most one per b_r positions, left out). A pattern without a few offsets
// shared by a block's rows makes every row of the block as wide as all their distinct offsets:
// on PETSc's ex13 operator (Q2, 61 entries a row) the positional layout with a value table read
// 4,230 MB against the 32-bit layout's 551 MB and its product was 8x slower (H200,
// docs/results/h200-2026-11-29g-positional-tests). Host and device builders decide alike.
constexpr bool pjds_positional_pays(std::int64_t padded, std::int64_t positions, std::int64_t nblocks, std::int64_t value_bytes) {
  return positions * value_bytes + 8 * nblocks < padded * (value_bytes + std::int64_t(sizeof(index_t)));
}

// Whether the padded part's rows are wide enough for auto to code their columns: `padded` entries
// in `rows` rows, at least kPjdsDictMinWidth a row on average (checked before any coding work).
constexpr bool pjds_dictionary_wide(std::int64_t padded, std::int64_t rows) { return padded >= kPjdsDictMinWidth * rows; }

// Whether auto codes the columns: the rows are wide (pjds_dictionary_wide) and dictionary columns
// read fewer bytes than 32-bit ones (`padded` entries, `entries` in all dictionaries, `nblocks`
// blocks: 1 B a code, 4 B a dictionary entry and a block's start).
constexpr bool pjds_dictionary_pays(std::int64_t padded, std::int64_t entries, std::int64_t nblocks, std::int64_t rows) {
  return pjds_dictionary_wide(padded, rows) && padded + 4 * entries + 4 * (nblocks + 1) < 4 * padded;
}

// Whether auto (PjdsColumns::Auto) tries positional columns on the 32-bit layout of `padded`
// entries in `rows` rows, kept in the matrix's order (sigma 1: positional rows are not sorted by
// length); the value table is decided first, on the 32-bit layout. Two cases:
// - values without a table (`untabled`: stored as they are, or rounded to fp32 where asked) on rows
//   too short for dictionary columns (pjds_dictionary_wide). On an H200
//   (docs/results/h200-2026-11-29i-positional-select, -29j-auto-positional) positional columns read
//   a 7-point stencil with fp64 values 1.24-1.27x faster than 32-bit ones. With a value table on
//   such rows the gain was smaller (1.01-1.09x on 5- and 7-point stencils) against builds up to
//   150 ms longer at 27M rows: not tried.
// - values in a table of 8-bit codes with room for the padding sentinel (`table8_room`: at most
//   kPjdsTableMax - 1 entries, so the positional layout's table of the values and the sentinel
//   keeps 8-bit codes) on rows wide enough for dictionary columns, which positional ones replace:
//   the product reads a value code per position and each block's offsets once, where dictionary
//   columns read a column code and a value code per entry. On an H200 (-29j-auto-positional)
//   1.17x faster on a 27-point stencil and 1.14x on PETSc's ex19 (4 dof, 20 entries a row), their
//   positions 0.52-0.53 of the dictionary layout's bytes; 0.97x and 0.99x where they were 0.66-0.67
//   (a 3-dof FEM operator whose blocks' rows hold different offsets, PETSc's ex56 with 16-bit codes).
constexpr bool pjds_positional_auto_tries(bool matrix_order, bool untabled, bool table8_room, std::int64_t padded, std::int64_t rows) {
  return matrix_order && padded > 0 && (pjds_dictionary_wide(padded, rows) ? table8_room : untabled);
}
// Whether auto keeps the positional columns it tried: their `positions` (`nblocks` blocks) store at
// most a share of the bytes of the layout they replace (each block's offsets, at most one per b_r
// positions, left out). Values without a table: kPjdsPositionalAutoShare of the 32-bit layout's
// `padded` entries of a value (`value_bytes`: the stored type's, 4 with fp32 storage) and a 32-bit
// column (on the 7-point stencil with fp64 values 0.67: 1.26x); a pattern whose
// blocks' rows hold different offsets widens every row to them all. `tabled` (8-bit value codes):
// kPjdsPositionalTableShare of the dictionary layout's 1 B column code and 1 B value code an entry,
// against a value code a position and 8 B a block start (above: 0.52-0.53 paid, 0.66-0.67 did not).
// Judged on the sample of blocks first where it is not every block (its positions against its
// blocks' entries), so that a pattern that cannot pay is not counted whole, then over every block;
// host and device builders alike.
constexpr double kPjdsPositionalAutoShare  = 0.75;
constexpr double kPjdsPositionalTableShare = 0.6;
constexpr bool   pjds_positional_auto_pays(std::int64_t padded, std::int64_t positions, std::int64_t nblocks, std::int64_t value_bytes, bool tabled) {
  return tabled ? double(positions + 8 * nblocks) <= kPjdsPositionalTableShare * double(2 * padded)
                : double(positions * value_bytes + 8 * nblocks) <= kPjdsPositionalAutoShare * double(padded * (value_bytes + std::int64_t(sizeof(index_t))));
}

// The fewest padded entries per table entry for which auto builds a table of 16-bit codes. The
// 8-bit table sits in shared memory; the 16-bit one is read through L1 at random codes, so auto
// keeps it to values that repeat: PETSc's ex56 (68,000 entries per value) and ex13 (3,600) read
// 1.28x and 1.21x faster so in session 16's floors (docs/results/h200-2026-11-29f-positional),
// while a matrix of values seen about twice each (a variable-coefficient stencil's symmetric
// pairs) would read a table as large as its values. 16 lies between; not measured.
constexpr std::int64_t kPjdsTable16MinRepeat = 16;

// Whether a value table reads fewer bytes than the values: `padded` entries of `value_bytes`, a
// table of `entries` (pjds_code_bytes a code: 1 B up to kPjdsTableMax entries, else 2 B); never
// beyond kPjdsTable16Max entries, and with 16-bit codes only where the values repeat
// kPjdsTable16MinRepeat times on average.
constexpr bool pjds_table_pays(std::int64_t padded, std::int64_t entries, std::int64_t value_bytes) {
  return entries <= kPjdsTable16Max && (entries <= kPjdsTableMax || padded >= kPjdsTable16MinRepeat * entries) &&
         pjds_code_bytes(entries) * padded + value_bytes * entries < value_bytes * padded;
}

// The most entries of a table of 16-bit codes that pjds_table_pays accepts for `padded` entries of
// `value_bytes`: at most kPjdsTable16Max, at most padded / kPjdsTable16MinRepeat, and fewer than
// (value_bytes - 2) padded / value_bytes (the bytes). It accepts kPjdsTableMax + 1 .. this many
// entries, none where this is at most kPjdsTableMax. Auto's builders (host and device) count the
// distinct values up to it and stop beyond.
constexpr std::int64_t pjds_table16_cap(std::int64_t padded, std::int64_t value_bytes) {
  const std::int64_t code  = pjds_code_bytes(kPjdsTable16Max);
  const std::int64_t bytes = value_bytes > code && padded > 0 ? ((value_bytes - code) * padded - 1) / value_bytes : 0;
  return std::min(std::min<std::int64_t>(kPjdsTable16Max, padded / kPjdsTable16MinRepeat), bytes);
}

// Builds B from A with resolved parameters (pjds_resolve, or pjds_model's p), its columns as
// p.columns says. Throws
// std::invalid_argument when the padded part exceeds 32-bit positions of index_t (with what to do).
template <typename T>
void pjds_build(const CsrView<T> &A, const PjdsParams &p, Pjds<T> &B);
// New values, same pattern (the value table's codes re-derived, or the table dropped: see
// PjdsValues).
template <typename T>
void pjds_refresh(const CsrView<T> &A, Pjds<T> &B);
// y = op(A) x (+ z), y may equal z.
template <typename T>
void pjds_apply(const Pjds<T> &B, Op op, const T *x, const T *z, T *y);

// The paper's code balance of the ELLPACK/pJDS kernel (its equation 1), bytes per flop in fp64:
// (8 + 4 + 8 alpha + 16 / nnzr) / 2, alpha in [1/nnzr, 1] the share of x loads that go to memory;
// with this layout's padding counted as loaded entries: the stored entries per nonzero scale the
// first two terms.
double pjds_code_balance(double nnz_per_row, double alpha, double padded_per_nonzero = 1.0);

} // namespace gpumat
