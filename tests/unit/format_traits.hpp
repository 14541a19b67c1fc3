// The formats of the host unit tests, each described once: for every format registered in
// src/formats.def a FormatTraits specialization gives the uniform calls the shared scenarios of
// test_formats_host.cpp need (the host reference built from a CsrView with given parameters,
// refresh, apply, bytes, the layout's invariants) and the variants worth running (parameter sets,
// block shapes, slice sizes) with their matrices. The CUDA side extends them (DeviceTraits,
// format_traits_cuda.cuh).
//
// The list of formats comes from src/formats.def through its X-macro: a registered format without
// a FormatTraits specialization stops the compilation (the primary template's static_assert).
// Only the record's first field (the root name) is read, and nothing depends on the records' order.
#pragma once
#include "core/bccoo.hpp"
#include "core/bce.hpp"
#include "core/csr.hpp"
#include "core/csrspec.hpp"
#include "core/cusparsebsr.hpp"
#include "core/cusparsecsr.hpp"
#include "core/cusparsesell.hpp"
#include "core/pjds.hpp"
#include "bccoo_params.hpp"
#include "bce_params.hpp"
#include "matgen.hpp"
#include "params.hpp"
#include "pjds_params.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace gpumat_test {

// One tag type per registered format, named by its root: fmt::csrspec, fmt::bccoo, ...
namespace fmt {
#define GPUMAT_FORMAT(root, ...) struct root {};
#include "formats.def"
#undef GPUMAT_FORMAT
} // namespace fmt

template <typename Tag> constexpr bool kNoTraits = false;

// Specialized below for every registered format.
template <typename Tag> struct FormatTraits {
  static_assert(kNoTraits<Tag>, "a format of src/formats.def has no FormatTraits in tests/unit/format_traits.hpp");
};

// A matrix and the variant a scenario runs it with.
template <typename Variant> struct MatrixCase {
  matgen::Csr M;
  Variant     v;
};

// The matrices of the empty and small scenario: no rows, no columns, no nonzeros, runs of empty
// rows (leading, trailing, of every length), a single entry, a single row and a single column.
inline std::vector<matgen::Csr> empty_and_small_matrices() {
  std::vector<gpumat::index_t> alternate(400, 1);
  for (std::size_t r = 0; r < alternate.size(); r += 2) alternate[r] = 0;
  return {matgen::no_nonzeros("empty_0x0", 0, 0),
          matgen::no_nonzeros("rows_no_cols_7x0", 7, 0),
          matgen::no_nonzeros("cols_no_rows_0x9", 0, 9),
          matgen::no_nonzeros("no_rows_0x7", 0, 7),
          matgen::no_nonzeros("all_empty_500x40", 500, 40),
          matgen::no_nonzeros("no_nonzeros_300x50", 300, 50),
          matgen::random_rows("with_empty", 3000, 500, 1, 20, 0.3, 14),
          matgen::empty_runs(15),
          matgen::leading_trailing_empty(16),
          matgen::from_lengths("one_by_one", 1, {1}, 14),
          matgen::from_lengths("single_row", 3000, {2000}, 24),
          matgen::from_lengths("single_column", 1, alternate, 25)};
}

// ---- the layouts' invariants (also called by the formats' own tests on their special cases) ----

// bccoo: one row stop per segment, the stop ends it, padding flags are 1, decompressed columns are
// block columns of the matrix inside the segment's slice, first_segment and no_scan agree with the
// flags.
template <typename T>
void check_bccoo_layout(const gpumat::Bccoo<T> &B, const std::string &where) {
  using gpumat::index_t;
  if (B.nblocks == 0) return;
  std::int64_t stops = 0;
  for (std::int64_t k = 0; k < B.padded_blocks; ++k) {
    if (k >= B.nblocks) {
      ASSERT_TRUE(B.flag(k)) << where << ": padding block " << k << " is a row stop";
      continue;
    }
    const index_t c = B.block_col(k);
    ASSERT_GE(c, 0) << where;
    ASSERT_LT(c, B.nbcols) << where;
    const std::int64_t slice = stops / B.nbrows;
    ASSERT_EQ(c / B.slice_bcols, index_t(slice)) << where << ": block " << k << " outside its slice";
    stops += !B.flag(k);
  }
  ASSERT_EQ(stops, B.nsegments) << where;
  ASSERT_TRUE(!B.flag(B.nblocks - 1)) << where << ": the last block is no row stop";
  std::int64_t seen = 0;
  for (std::int64_t t = 0; t < B.thread_tiles(); ++t) {
    ASSERT_EQ(B.first_segment[std::size_t(t)], seen) << where << ": tile " << t;
    bool any = false;
    for (std::int64_t k = t * B.p.tile; k < (t + 1) * B.p.tile; ++k)
      if (!B.flag(k)) any = true, ++seen;
    if (!any) {
      ASSERT_EQ(B.no_scan[std::size_t(t / B.p.group)], 0) << where << ": tile " << t;
    }
  }
  for (std::int64_t g = 0; g < B.groups(); ++g) {
    bool all = true;
    for (std::int64_t t = g * B.p.group; t < (g + 1) * B.p.group; ++t) {
      bool any = false;
      for (std::int64_t k = t * B.p.tile; k < (t + 1) * B.p.tile; ++k) any |= !B.flag(k);
      all &= any;
    }
    ASSERT_EQ(B.no_scan[std::size_t(g)], all ? 1 : 0) << where << ": group " << g;
  }
}

// pjds's columns as stored: with p.columns plain, 32-bit; else dictionary codes exactly where every
// block has at most kPjdsDictMax distinct offsets (column - row; counted here from the decoded
// columns, or the stored ones) and, auto, that the rows are wide and it reads fewer bytes (pjds_dictionary_pays); each
// block's dictionary strictly ascending, every code within it.
template <typename T>
void check_pjds_columns(const gpumat::Pjds<T> &B, const std::string &where) {
  using gpumat::index_t;
  std::int64_t entries = 0;
  bool         fits    = true;
  for (std::int64_t b = 0; b < B.nblocks(); ++b) {
    const std::int64_t rows = B.block_rows(b), bs = B.block_start[std::size_t(b)], n = B.block_start[std::size_t(b) + 1] - bs;
    std::set<index_t>  offs;
    for (std::int64_t k = 0; k < n; ++k) offs.insert(B.column(bs + k, b * B.p.block_rows + k % rows) - B.row(b * B.p.block_rows + k % rows));
    fits &= offs.size() <= std::size_t(gpumat::kPjdsDictMax);
    entries += std::int64_t(offs.size());
    if (B.coded()) {
      const std::vector<index_t> d(B.dict.begin() + B.dict_start[std::size_t(b)], B.dict.begin() + B.dict_start[std::size_t(b) + 1]);
      ASSERT_TRUE(std::vector<index_t>(offs.begin(), offs.end()) == d) << where << ": block " << b << "'s dictionary is its offsets, ascending";
    }
  }
  const bool want = B.p.columns == gpumat::PjdsColumns::Dictionary ? fits
                    : B.p.columns == gpumat::PjdsColumns::Auto     ? fits && B.padded() > 0 && gpumat::pjds_dictionary_pays(B.padded(), entries, B.nblocks(), B.nrows_pj)
                                                                   : false;
  ASSERT_EQ(B.coded(), want && B.padded() > 0) << where << ": dictionary columns where asked and they fit";
  if (B.coded()) {
    ASSERT_TRUE(B.col.empty()) << where;
    ASSERT_EQ(B.code.size(), std::size_t(B.padded())) << where;
    ASSERT_EQ(B.dict_start.size(), std::size_t(B.nblocks()) + 1) << where;
    ASSERT_EQ(std::size_t(B.dict_start.back()), B.dict.size()) << where;
  } else {
    ASSERT_EQ(B.col.size(), std::size_t(B.padded())) << where;
  }
}

// pjds's values as the product reads them: with p.values plain, as stored; else a table exactly
// where the padded part has at most kPjdsTable16Max distinct values (bit patterns) and, auto, that
// reads fewer bytes (pjds_table_pays), unless a refresh dropped it; 8-bit codes where the table has
// at most kPjdsTableMax entries, else 16-bit ones; the table strictly ascending by bit pattern,
// every code's value the stored one, bit for bit.
template <typename T>
void check_pjds_values(const gpumat::Pjds<T> &B, const std::string &where) {
  auto bits = [](T v) {
    std::uint64_t b = 0;
    std::memcpy(&b, &v, sizeof(T));
    return b;
  };
  std::set<std::uint64_t> distinct;
  for (const T &v : B.val) distinct.insert(bits(v));
  const bool fits = distinct.size() <= std::size_t(gpumat::kPjdsTable16Max) && B.padded() > 0;
  const bool want = B.p.values == gpumat::PjdsValues::Table ? fits
                    : B.p.values == gpumat::PjdsValues::Auto ? fits && gpumat::pjds_table_pays(B.padded(), std::int64_t(distinct.size()), std::int64_t(sizeof(T)))
                                                             : false;
  if (B.table_drops == 0) {
    ASSERT_EQ(B.tabled(), want) << where << ": a value table where asked and the values fit";
  }
  if (!B.tabled()) return;
  const bool wide = B.table.size() > std::size_t(gpumat::kPjdsTableMax);
  ASSERT_EQ(B.vcode.size(), wide ? 0 : B.val.size()) << where << ": 8-bit codes up to 256 entries";
  ASSERT_EQ(B.vcode16.size(), wide ? B.val.size() : 0) << where << ": 16-bit codes beyond";
  ASSERT_EQ(B.code_bytes(), wide ? 2 : 1) << where;
  for (std::size_t t = 1; t < B.table.size(); ++t) ASSERT_LT(bits(B.table[t - 1]), bits(B.table[t])) << where << ": the table ascending by bit pattern";
  for (std::int64_t k = 0; k < B.padded(); ++k) ASSERT_EQ(bits(B.value(k)), bits(B.val[std::size_t(k)])) << where << ": entry " << k;
}

// Block b's distinct offsets from groups of g rows, counted from M in B's row order (the 32-bit
// layout's blocks and positional ones hold the same rows).
template <typename T>
std::set<gpumat::index_t> pjds_block_offsets(const matgen::Csr &M, const gpumat::Pjds<T> &B, std::int64_t b, gpumat::index_t g) {
  std::set<gpumat::index_t> u;
  for (std::int64_t i = b * B.p.block_rows; i < b * B.p.block_rows + B.block_rows(b); ++i) {
    const gpumat::index_t r = B.row(i);
    for (gpumat::index_t q = M.rowptr[std::size_t(r)]; q < M.rowptr[std::size_t(r) + 1]; ++q) u.insert(M.colidx[std::size_t(q)] - (r - r % g));
  }
  return u;
}
// The entries group g stores over every stride-th block.
template <typename T>
std::int64_t pjds_positions(const matgen::Csr &M, const gpumat::Pjds<T> &B, gpumat::index_t g, std::int64_t stride) {
  std::int64_t n = 0;
  for (std::int64_t b = 0; b < B.nblocks(); b += stride) n += B.block_rows(b) * std::int64_t(pjds_block_offsets(M, B, b, g).size());
  return n;
}
// The group positional columns take: the one of kPjdsPositionalGroups storing the fewest entries on
// every pjds_positional_sample_stride-th block, the first of equals.
template <typename T>
gpumat::index_t pjds_positional_group(const matgen::Csr &M, const gpumat::Pjds<T> &B) {
  const std::int64_t stride = gpumat::pjds_positional_sample_stride(B.nblocks());
  std::int64_t       least  = -1;
  gpumat::index_t    g      = 0;
  for (gpumat::index_t cand : gpumat::kPjdsPositionalGroups) {
    const std::int64_t n = pjds_positions(M, B, cand, stride);
    if (least < 0 || n < least) least = n, g = cand;
  }
  return g;
}
// Whether auto (PjdsColumns::Auto) keeps positional columns, counted from M, its values v and B's
// rows: the rows in the matrix's order; on the 32-bit layout (each block as wide as its longest
// row) either values without a table (stored as they are or rounded to fp32) and rows too short for
// dictionary columns (the share counted with the values' stored bytes), or a value table (B.tabled(): where auto keeps positional columns over a table,
// it makes the table anew on them) of at most kPjdsTableMax - 1 entries (the 32-bit layout's
// distinct values, its padding's 0 among them) and rows wide enough for dictionary columns; and the
// positions of the chosen group at most the share pjds_positional_auto_pays allows of the layout
// they replace, on the sample of blocks first where it is not every block
// (pjds_positional_auto_tries, pjds_positional_auto_pays).
template <typename T>
bool pjds_auto_positional(const matgen::Csr &M, const std::vector<T> &v, const gpumat::Pjds<T> &B) {
  if (B.p.columns != gpumat::PjdsColumns::Auto || B.nrows_pj == 0) return false;
  auto entries = [&](std::int64_t b) { // block b's in the 32-bit layout: as wide as its longest row
    gpumat::index_t mx = 0;
    for (std::int64_t i = b * B.p.block_rows; i < b * B.p.block_rows + B.block_rows(b); ++i) mx = std::max(mx, B.rowlen[std::size_t(i)]);
    return std::int64_t(mx) * B.block_rows(b);
  };
  std::int64_t padded = 0, held = 0;
  for (std::int64_t b = 0; b < B.nblocks(); ++b) padded += entries(b);
  std::set<std::uint64_t> values; // the 32-bit layout's distinct values
  for (std::int64_t i = 0; i < B.nrows_pj; ++i) {
    const gpumat::index_t r = B.row(i);
    for (gpumat::index_t q = M.rowptr[std::size_t(r)]; q < M.rowptr[std::size_t(r) + 1]; ++q) values.insert(gpumat::value_bits(v[std::size_t(q)])), ++held;
  }
  if (held < padded) values.insert(gpumat::value_bits(T(0)));
  const bool tabled = B.tabled(), room = tabled && values.size() < std::size_t(gpumat::kPjdsTableMax);
  if (!gpumat::pjds_positional_auto_tries(B.p.sigma == 1, !tabled, room, padded, B.nrows_pj)) return false;
  const std::int64_t vb = gpumat::pjds_stored_value_bytes<T>(B.p.fp32); // (unread where tabled)
  const gpumat::index_t g      = pjds_positional_group(M, B);
  const std::int64_t    stride = gpumat::pjds_positional_sample_stride(B.nblocks());
  if (stride > 1) { // judged on the sample of blocks first
    std::int64_t sampled = 0, nsampled = 0;
    for (std::int64_t b = 0; b < B.nblocks(); b += stride) sampled += entries(b), ++nsampled;
    if (!gpumat::pjds_positional_auto_pays(sampled, pjds_positions(M, B, g, stride), nsampled, vb, tabled)) return false;
  }
  const std::int64_t least = pjds_positions(M, B, g, 1);
  return least <= INT_MAX && gpumat::pjds_positional_auto_pays(padded, least, B.nblocks(), vb, tabled);
}

// pjds's positional columns (pjds.hpp): no column per entry; the group the one of
// kPjdsPositionalGroups storing the fewest entries on every pjds_positional_sample_stride-th block
// (the first of equals), the stored entries its count over every block; each block's offsets its
// nonzeros' distinct offsets from their group's first row, ascending, and its rows as wide as
// they are many; every CSR entry's slot in its row's lane of its block, at its offset's place (so
// its column decodes to its own); every other stored value the padding sentinel (pjds_pad), no
// stored value the sentinel (a value with its bits: the canonical NaN).
template <typename T>
void check_pjds_positional(const matgen::Csr &M, const gpumat::Pjds<T> &B, const std::string &where) {
  using gpumat::index_t;
  ASSERT_TRUE(B.col.empty() && B.code.empty() && B.dict_start.empty()) << where << ": no column per entry";
  ASSERT_EQ(B.poff_start.size(), std::size_t(B.nblocks()) + 1) << where;
  ASSERT_EQ(std::size_t(B.poff_start.back()), B.poff.size()) << where;
  const index_t g = pjds_positional_group(M, B);
  ASSERT_EQ(B.pgroup, g) << where << ": the group storing the fewest entries on the sample, the first of equals";
  ASSERT_EQ(B.padded(), pjds_positions(M, B, g, 1)) << where;
  for (std::int64_t b = 0; b < B.nblocks(); ++b) {
    const std::set<index_t> u = pjds_block_offsets(M, B, b, g);
    ASSERT_TRUE(std::vector<index_t>(u.begin(), u.end()) == std::vector<index_t>(B.poff.begin() + B.poff_start[std::size_t(b)], B.poff.begin() + B.poff_start[std::size_t(b) + 1]))
        << where << ": block " << b << "'s offsets, ascending";
    ASSERT_EQ(B.block_start[std::size_t(b) + 1] - B.block_start[std::size_t(b)], B.block_rows(b) * std::int64_t(u.size())) << where << ": block " << b;
  }
  std::vector<char> held(std::size_t(B.padded()), 0);
  for (std::int64_t i = 0; i < B.nrows_pj; ++i) {
    const std::int64_t b = i / B.p.block_rows, bs = B.block_start[std::size_t(b)], rows = B.block_rows(b);
    const index_t      r = B.row(i);
    for (index_t q = M.rowptr[std::size_t(r)]; q < M.rowptr[std::size_t(r) + 1]; ++q) {
      const std::int64_t pos = B.slot[std::size_t(q)];
      ASSERT_TRUE(pos >= bs && pos < B.block_start[std::size_t(b) + 1] && (pos - bs) % rows == i % B.p.block_rows) << where << ": position " << i << " entry " << q;
      ASSERT_EQ(B.column(pos, i), M.colidx[std::size_t(q)]) << where << ": position " << i << " entry " << q;
      held[std::size_t(pos)] = 1;
    }
  }
  for (std::int64_t k = 0; k < B.padded(); ++k)
    if (!held[std::size_t(k)]) {
      ASSERT_TRUE(gpumat::is_pjds_pad(B.val[std::size_t(k)])) << where << ": stored entry " << k << " holds no entry: the sentinel, not " << B.val[std::size_t(k)];
    } else {
      ASSERT_FALSE(gpumat::is_pjds_pad(B.val[std::size_t(k)])) << where << ": stored entry " << k << " holds an entry, not the sentinel";
    }
  if (B.single()) {
    for (std::int64_t k = 0; k < B.padded(); ++k) ASSERT_EQ(gpumat::is_pjds_pad(B.val32[std::size_t(k)]), !held[std::size_t(k)]) << where << ": fp32 entry " << k;
  }
}

// pjds: perm and the long rows together are every row once; each window is sorted by length,
// descending, stably; blocks are padded to their longest row (with positional columns:
// check_pjds_positional); padding has value 0 and a column of its row; every CSR entry has one slot
// holding its value (positional columns: a value with the sentinel's bits as the canonical NaN);
// pjds_padding agrees with the build.
template <typename T>
void check_pjds_layout(const matgen::Csr &M, const std::vector<T> &v, const gpumat::Pjds<T> &B, const std::string &where) {
  using gpumat::index_t;
  std::vector<int> seen(std::size_t(M.nrows), 0);
  if (B.p.sigma == 1 && B.long_rows.empty()) {
    EXPECT_TRUE(B.perm.empty()) << where << ": the identity is not stored";
  } else {
    EXPECT_EQ(B.perm.size(), std::size_t(B.nrows_pj)) << where;
  }
  for (std::int64_t i = 0; i < B.nrows_pj; ++i) ++seen[std::size_t(B.row(i))];
  for (index_t r : B.long_rows) {
    ++seen[std::size_t(r)];
    ASSERT_GT(M.rowptr[std::size_t(r) + 1] - M.rowptr[std::size_t(r)], B.p.long_row) << where;
  }
  for (index_t r = 0; r < M.nrows; ++r) ASSERT_EQ(seen[std::size_t(r)], 1) << where << ": row " << r;
  const int          br = B.p.block_rows;
  const std::int64_t n = B.nrows_pj, w = std::min<std::int64_t>(B.p.sigma, std::max<std::int64_t>(n, 1));
  for (std::int64_t i = 0; i < n; ++i) {
    const index_t r = B.row(i);
    ASSERT_EQ(B.rowlen[std::size_t(i)], M.rowptr[std::size_t(r) + 1] - M.rowptr[std::size_t(r)]) << where;
    ASSERT_LE(B.rowlen[std::size_t(i)], B.p.long_row) << where;
    if (B.p.sigma > 1 && i % w != 0) { // same window as i - 1: descending, and stable among equals
      ASSERT_GE(B.rowlen[std::size_t(i) - 1], B.rowlen[std::size_t(i)]) << where << ": position " << i;
      if (B.rowlen[std::size_t(i) - 1] == B.rowlen[std::size_t(i)]) {
        ASSERT_LT(B.row(i - 1), r) << where;
      }
    }
    if (B.p.sigma == 1 && i > 0) {
      ASSERT_LT(B.row(i - 1), r) << where << ": sigma 1 keeps the order";
    }
  }
  ASSERT_EQ(B.positional(), (B.p.columns == gpumat::PjdsColumns::Positional || pjds_auto_positional(M, v, B)) && B.nrows_pj > 0 &&
                                std::int64_t(M.nnz()) > std::int64_t(B.long_val.size()))
      << where << ": positional columns where asked or auto takes them (and the pJDS part holds entries)";
  if (B.positional()) check_pjds_positional(M, B, where);
  for (std::int64_t b = 0; b < B.nblocks() && !B.positional(); ++b) {
    index_t mx = 0;
    for (std::int64_t i = b * br; i < std::min<std::int64_t>(n, (b + 1) * br); ++i) mx = std::max(mx, B.rowlen[std::size_t(i)]);
    ASSERT_EQ(B.block_start[std::size_t(b) + 1] - B.block_start[std::size_t(b)], std::int64_t(mx) * B.block_rows(b)) << where << ": block " << b;
  }
  for (std::int64_t i = 0; i < n && !B.positional(); ++i) {
    const std::int64_t rows = B.block_rows(i / br), base = B.block_start[std::size_t(i / br)] + i % br,
                       bl = (B.block_start[std::size_t(i / br) + 1] - B.block_start[std::size_t(i / br)]) / rows;
    const index_t r = B.row(i);
    for (std::int64_t j = B.rowlen[std::size_t(i)]; j < bl; ++j) {
      const std::int64_t pos = base + j * rows;
      ASSERT_EQ(B.val[std::size_t(pos)], T(0)) << where;
      if (B.rowlen[std::size_t(i)] > 0) {
        ASSERT_EQ(B.column(pos, i), M.colidx[std::size_t(M.rowptr[std::size_t(r) + 1]) - 1]) << where;
      }
    }
    for (std::int64_t j = 0; j < B.rowlen[std::size_t(i)]; ++j) { // every entry's column, as stored or decoded
      ASSERT_EQ(B.column(base + j * rows, i), M.colidx[std::size_t(M.rowptr[std::size_t(r)] + j)]) << where << ": position " << i << " entry " << j;
    }
  }
  if (!B.positional()) check_pjds_columns(B, where);
  check_pjds_values(B, where);
  ASSERT_EQ(B.slot.size(), std::size_t(M.nnz())) << where;
  for (std::size_t q = 0; q < B.slot.size(); ++q) {
    const std::int64_t s = B.slot[q];
    ASSERT_GE(s, 0) << where;
    const T got  = s < B.padded() ? B.val[std::size_t(s)] : B.long_val[std::size_t(s - B.padded())];
    const T want = s < B.padded() && B.positional() ? gpumat::pjds_unpad(v[q]) : v[q];
    ASSERT_TRUE(got == want || gpumat::value_bits(got) == gpumat::value_bits(want)) << where << ": entry " << q << ": " << got << ", not " << want;
  }
  if (!B.positional()) {
    ASSERT_EQ(B.padding(), gpumat::pjds_padding(M.view(v), B.p)) << where << ": pjds_padding agrees with the build";
  }
}

// bce: every row at one position; groups in increasing width, consecutive positions; each row in
// the narrowest group that holds it (the binary search), in matrix order within its group; padding
// zeros with the row's last column; the slot map onto the values.
template <typename T>
void check_bce_layout(const matgen::Csr &M, const std::vector<T> &v, const gpumat::Bce<T> &B, const std::string &where) {
  using gpumat::index_t;
  const int            k = B.groups();
  std::vector<index_t> long_rows;
  for (index_t r = 0; r < M.nrows; ++r)
    if (M.rowptr[std::size_t(r) + 1] - M.rowptr[std::size_t(r)] > B.p.long_row) long_rows.push_back(r);
  ASSERT_TRUE(B.long_rows == long_rows) << where << ": the long rows";
  ASSERT_EQ(B.row_no.size(), std::size_t(M.nrows) - long_rows.size()) << where;
  std::vector<char> seen(std::size_t(M.nrows), 0);
  for (index_t r : long_rows) seen[std::size_t(r)] = 1;
  for (index_t r : B.row_no) {
    ASSERT_TRUE(r >= 0 && r < M.nrows && !seen[std::size_t(r)]) << where;
    seen[std::size_t(r)] = 1;
  }
  const int nb = B.blocks();
  ASSERT_EQ(B.start.size(), std::size_t(nb) + 1) << where;
  for (int g = 1; g < k; ++g) ASSERT_LT(B.group_width[std::size_t(g) - 1], B.group_width[std::size_t(g)]) << where;
  std::int64_t prev_window = -1;
  for (int b = 0; b < nb; ++b) {
    const std::size_t bb = std::size_t(b);
    if (b > 0) {
      ASSERT_EQ(B.pos[bb], B.pos[bb - 1] + B.rows[bb - 1]) << where;
    }
    ASSERT_GT(B.rows[bb], 0) << where << ": an empty block";
    ASSERT_EQ(B.start[bb + 1] - B.start[bb], std::int64_t(B.rows[bb]) * B.width[bb]) << where;
    const std::int64_t window = B.row_no[std::size_t(B.pos[bb])] / B.p.window;
    if (window == prev_window) {
      ASSERT_LT(B.width[bb - 1], B.width[bb]) << where << ": groups in increasing width within a window";
    } else {
      ASSERT_GT(window, prev_window) << where << ": windows in order";
    }
    prev_window = window;
    for (index_t i = 0; i < B.rows[bb]; ++i) {
      const index_t r = B.row_no[std::size_t(B.pos[bb] + i)], n = M.rowptr[std::size_t(r) + 1] - M.rowptr[std::size_t(r)];
      ASSERT_EQ(r / B.p.window, window) << where << ": row " << r << " in the block of window " << window;
      const auto g = std::lower_bound(B.group_width.begin(), B.group_width.end(), n);
      ASSERT_TRUE(g != B.group_width.end() && *g == B.width[bb]) << where << ": row " << r << " of " << n << " in block " << b << " of width " << B.width[bb];
      if (i > 0) {
        ASSERT_LT(B.row_no[std::size_t(B.pos[bb] + i - 1)], r) << where << ": matrix order within a block";
      }
      for (index_t j = n; j < B.width[bb]; ++j) {
        const std::size_t at = std::size_t(B.start[bb] + std::int64_t(j) * B.rows[bb] + i);
        ASSERT_EQ(B.val[at], T(0)) << where;
        ASSERT_EQ(B.col[at], n > 0 ? M.colidx[std::size_t(M.rowptr[std::size_t(r) + 1]) - 1] : 0) << where;
      }
    }
  }
  ASSERT_EQ(B.slot.size(), std::size_t(M.nnz())) << where;
  for (std::size_t q = 0; q < B.slot.size(); ++q) {
    const std::int64_t s = B.slot[q];
    ASSERT_EQ(s < B.padded() ? B.val[std::size_t(s)] : B.long_val[std::size_t(s - B.padded())], v[q]) << where << ": entry " << q;
  }
}

// cusparsesell: slice widths, the position of every entry, padding (column -1, value 0).
template <typename T>
void check_sell_layout(const gpumat::SellLayout &L, const std::vector<T> &stored, const matgen::Csr &M, const std::vector<T> &vals, int S,
                       const std::string &what) {
  using gpumat::index_t;
  const std::int64_t nslices = (std::int64_t(M.nrows) + S - 1) / S;
  ASSERT_EQ(std::int64_t(L.slices()), nslices) << what;
  ASSERT_EQ(L.slice_offsets[0], 0) << what;
  for (std::int64_t s = 0; s < nslices; ++s) {
    index_t w = 0;
    for (std::int64_t r = s * S; r < std::min<std::int64_t>(M.nrows, (s + 1) * S); ++r) w = std::max(w, M.rowptr[r + 1] - M.rowptr[r]);
    ASSERT_EQ(L.slice_offsets[std::size_t(s) + 1] - L.slice_offsets[std::size_t(s)], w * S) << what << " slice " << s;
  }
  ASSERT_EQ(L.padded(), std::int64_t(L.slice_offsets.back())) << what;
  ASSERT_EQ(stored.size(), L.colidx.size()) << what;
  std::vector<char> used(L.colidx.size(), 0);
  for (index_t r = 0; r < M.nrows; ++r)
    for (index_t k = M.rowptr[r]; k < M.rowptr[r + 1]; ++k) {
      const index_t p = L.slot[std::size_t(k)];
      ASSERT_EQ(p, L.slice_offsets[std::size_t(r / S)] + (k - M.rowptr[r]) * S + r % S) << what << " entry " << k;
      ASSERT_EQ(L.colidx[std::size_t(p)], M.colidx[std::size_t(k)]) << what;
      ASSERT_EQ(stored[std::size_t(p)], vals[std::size_t(k)]) << what;
      used[std::size_t(p)] = 1;
    }
  for (std::size_t p = 0; p < used.size(); ++p)
    if (!used[p]) {
      ASSERT_EQ(L.colidx[p], -1) << what << " padding at " << p;
      ASSERT_EQ(stored[p], T(0)) << what << " padding at " << p;
    }
}

// cusparsebsr: the set of blocks of each block row, ascending, every entry at its in-block
// position, the rest of every block zero.
template <typename T>
void check_bsr_layout(const gpumat::BsrLayout &L, const std::vector<T> &stored, const matgen::Csr &M, const std::vector<T> &vals, int bs, bool row_major,
                      const std::string &what) {
  using gpumat::index_t;
  const index_t mb = (M.nrows + bs - 1) / bs, nb = (M.ncols + bs - 1) / bs;
  ASSERT_EQ(L.mb, mb) << what;
  ASSERT_EQ(L.nb, nb) << what;
  ASSERT_EQ(L.rowptr.size(), std::size_t(mb) + 1) << what;
  ASSERT_EQ(L.rowptr[0], 0) << what;
  for (index_t I = 0; I < mb; ++I) {
    std::set<index_t> want;
    for (index_t r = I * bs; r < std::min<index_t>(M.nrows, (I + 1) * bs); ++r)
      for (index_t k = M.rowptr[r]; k < M.rowptr[r + 1]; ++k) want.insert(M.colidx[std::size_t(k)] / bs);
    const std::vector<index_t> got(L.colidx.begin() + L.rowptr[std::size_t(I)], L.colidx.begin() + L.rowptr[std::size_t(I) + 1]);
    ASSERT_EQ(got, std::vector<index_t>(want.begin(), want.end())) << what << " block row " << I;
  }
  ASSERT_EQ(stored.size(), std::size_t(L.stored())) << what;
  std::vector<char> used(stored.size(), 0);
  for (index_t r = 0; r < M.nrows; ++r)
    for (index_t k = M.rowptr[r]; k < M.rowptr[r + 1]; ++k) {
      const index_t c = M.colidx[std::size_t(k)], I = r / bs, i = r % bs, j = c % bs;
      const auto    b = std::lower_bound(L.colidx.begin() + L.rowptr[std::size_t(I)], L.colidx.begin() + L.rowptr[std::size_t(I) + 1], c / bs) - L.colidx.begin();
      const index_t p = index_t(b) * bs * bs + (row_major ? i * bs + j : j * bs + i);
      ASSERT_EQ(L.slot[std::size_t(k)], p) << what << " entry " << k;
      ASSERT_EQ(stored[std::size_t(p)], vals[std::size_t(k)]) << what;
      used[std::size_t(p)] = 1;
    }
  for (std::size_t p = 0; p < used.size(); ++p)
    if (!used[p]) {
      ASSERT_EQ(stored[p], T(0)) << what << " fill at " << p;
    }
}

// ---- the formats ----------------------------------------------------------------------------
// Each specialization gives:
//   has_storage                 false only for a format without storage of its own (gpuauto)
//   Variant, describe(v)        what a build takes besides the matrix (parameters, block shape,
//                               slice size, algorithm), and its words in messages
//   variants<T>()               the variants the products run on the matrices matrices(v)
//   default_variants<T>()       the variants of the other scenarios (empty and small matrices)
//   refresh_cases()             the matrices and variants of refresh-equals-rebuild
//   Host<T>                     the host reference: build(A, v), refresh(A with new values),
//                               apply(op, x, z, y), stored() (the values as stored, part by part:
//                               a refresh must leave what a rebuild lays out), bytes() (the core
//                               layer's bytes of the arrays), check(M, vals, where) (the layout's
//                               invariants; nothing for a format that keeps the CSR as given).
// Host<T> keeps the CsrView it was built from (the caller keeps its arrays alive).

template <> struct FormatTraits<fmt::csrspec> {
  static constexpr bool has_storage = true;
  using Variant                     = gpumat::CsrSpecParams;
  static std::string describe(const Variant &p) { return gpumat_test::describe(p); }
  // param_sets() resolved for the precision (W and tiles_per_block chosen as the host does).
  template <typename T> static std::vector<Variant> variants() {
    std::vector<Variant> v;
    for (const Variant &p : param_sets()) v.push_back(gpumat::csrspec_resolve<T>(p));
    return v;
  }
  template <typename T> static std::vector<Variant> default_variants() { return {gpumat::csrspec_resolve<T>({})}; }
  // The standard set with its tile-boundary matrix at the variant's tile (bunches x T x W nonzeros).
  static const std::vector<matgen::Csr> &matrices(const Variant &p) { return matgen::standard_set_cached(gpumat::index_t(p.bunches * p.T * p.W)); }
  // At the defaults as the host resolves them (tiles_per_block 2; W and the warps are the same in
  // both precisions).
  static std::vector<MatrixCase<Variant>> refresh_cases() {
    const Variant p = gpumat::csrspec_resolve<double>({});
    return {{matgen::random_rows("random_with_empty", 4000, 3000, 1, 12, 0.15, 12), p}, {matgen::heavy_row(17), p}};
  }
  template <typename T> class Host {
  public:
    void build(const gpumat::CsrView<T> &A, const Variant &p) {
      A_ = A;
      p_ = gpumat::csrspec_resolve<T>(p);
      H_.setup(A, p_);
    }
    void refresh(const gpumat::CsrView<T> &A) { A_.val = A.val; } // the product reads the CSR's values
    void apply(gpumat::Op op, const T *x, const T *z, T *y) const { H_.apply(A_, op, x, z, y); }
    std::vector<std::vector<T>> stored() const { return {std::vector<T>(A_.val, A_.val + A_.nnz())}; }
    std::size_t bytes() const {
      return gpumat::csr_bytes(A_.nrows, A_.nnz(), sizeof(T)) + gpumat::csrspec_stats(A_, p_).aux_bytes;
    }
    void check(const matgen::Csr &, const std::vector<T> &, const std::string &) const {}

  private:
    gpumat::CsrView<T>     A_{};
    gpumat::CsrSpecParams  p_{};
    gpumat::CsrSpecHost<T> H_;
  };
};

template <> struct FormatTraits<fmt::bccoo> {
  static constexpr bool has_storage = true;
  using Variant                     = gpumat::BccooParams;
  static std::string describe(const Variant &p) { return gpumat_test::describe(p); }
  // Every block shape, each with a few (slices, tile, group, compression) choices, and the defaults.
  template <typename T> static std::vector<Variant> variants() { return bccoo_param_sets(); }
  template <typename T> static std::vector<Variant> default_variants() { return {Variant{}}; }
  static const std::vector<matgen::Csr> &matrices(const Variant &) { return matgen::standard_set_cached(512); }
  static std::vector<MatrixCase<Variant>> refresh_cases() {
    const matgen::Csr M = matgen::random_rows("refresh", 2000, 1800, 0, 12, 0.1, 85);
    return {{M, bp(1, 1, 1, 16, 256, 1)}, {M, bp(3, 2, 4, 8, 32, 1)}};
  }
  template <typename T> class Host {
  public:
    void build(const gpumat::CsrView<T> &A, const Variant &p) { gpumat::bccoo_build(A, p, B_); }
    void refresh(const gpumat::CsrView<T> &A) { gpumat::bccoo_refresh(A, B_); }
    void apply(gpumat::Op op, const T *x, const T *z, T *y) const { gpumat::bccoo_apply(B_, op, x, z, y); }
    std::vector<std::vector<T>> stored() const { return {B_.val}; }
    std::size_t bytes() const { return B_.bytes(); }
    void check(const matgen::Csr &, const std::vector<T> &, const std::string &where) const { check_bccoo_layout(B_, where); }

  private:
    gpumat::Bccoo<T> B_;
  };
};

template <> struct FormatTraits<fmt::pjds> {
  static constexpr bool has_storage = true;
  using Variant                     = gpumat::PjdsParams;
  static std::string describe(const Variant &p) { return gpumat_test::describe(p); }
  // b_r in {1, 4, 32, 128} x sigma in {1, 256, all rows} x long_row in {the model's, 8}.
  template <typename T> static std::vector<Variant> variants() { return pjds_param_sets(); }
  template <typename T> static std::vector<Variant> default_variants() { return {Variant{}}; }
  static const std::vector<matgen::Csr> &matrices(const Variant &) { return matgen::standard_set_cached(512); }
  // A power law with long rows (long_row 64): both parts refreshed; and positional columns (their
  // padding the sentinel). The values plain: the new values are outside any value table the first
  // build makes (its random values fit one of 16-bit codes), which a refresh then drops where a
  // build from them makes one (the table's refreshes: test_pjds_host's PjdsValueTable tests).
  static std::vector<MatrixCase<Variant>> refresh_cases() {
    const matgen::Csr M     = matgen::power_law(5000, 5000, 1.3, 2.0, 3000, 36);
    const auto        plain = gpumat::PjdsValues::Plain;
    return {{M, pp(32, 512, 64, gpumat::PjdsColumns::Auto, plain)},
            {M, pp(32, gpumat::pjds_all_rows, 64, gpumat::PjdsColumns::Auto, plain)},
            {M, pp(32, 1, 64, gpumat::PjdsColumns::Positional, plain)}};
  }
  template <typename T> class Host {
  public:
    void build(const gpumat::CsrView<T> &A, const Variant &p) { gpumat::pjds_build(A, p, B_); }
    void refresh(const gpumat::CsrView<T> &A) { gpumat::pjds_refresh(A, B_); }
    void apply(gpumat::Op op, const T *x, const T *z, T *y) const { gpumat::pjds_apply(B_, op, x, z, y); }
    std::vector<std::vector<T>> stored() const { return {B_.val, B_.long_val}; }
    // the values the product reads: a value table's entries where it has one
    std::vector<std::vector<T>> read_values() const { return {B_.tabled() ? B_.table : B_.val, B_.long_val}; }
    std::size_t bytes() const { return B_.bytes(); }
    void check(const matgen::Csr &M, const std::vector<T> &vals, const std::string &where) const {
      check_pjds_layout(M, vals, B_, where);
    }

  private:
    gpumat::Pjds<T> B_;
  };
};

template <> struct FormatTraits<fmt::bce> {
  static constexpr bool has_storage = true;
  using Variant                     = gpumat::BceParams;
  static std::string describe(const Variant &p) { return gpumat_test::describe(p); }
  template <typename T> static std::vector<Variant> variants() { return bce_param_sets(); }
  template <typename T> static std::vector<Variant> default_variants() { return {Variant{}}; }
  static const std::vector<matgen::Csr> &matrices(const Variant &) { return matgen::standard_set_cached(512); }
  // A power law whose rows over 32 entries go to the long part: both parts refreshed.
  static std::vector<MatrixCase<Variant>> refresh_cases() { return {{matgen::power_law(5000, 5000, 1.3, 2.0, 3000, 17), Variant{}}}; }
  template <typename T> class Host {
  public:
    void build(const gpumat::CsrView<T> &A, const Variant &p) { gpumat::bce_build(A, p, B_); }
    void refresh(const gpumat::CsrView<T> &A) { gpumat::bce_refresh(A, B_); }
    void apply(gpumat::Op op, const T *x, const T *z, T *y) const { gpumat::bce_apply(B_, op, x, z, y); }
    std::vector<std::vector<T>> stored() const { return {B_.val, B_.long_val}; }
    std::size_t bytes() const { return B_.bytes(); }
    void check(const matgen::Csr &M, const std::vector<T> &vals, const std::string &where) const {
      check_bce_layout(M, vals, B_, where);
    }

  private:
    gpumat::Bce<T> B_;
  };
};

template <> struct FormatTraits<fmt::cusparsesell> {
  static constexpr bool has_storage = true;
  using Variant                     = int; // the slice size
  static std::string describe(int S) { return "slice " + std::to_string(S); }
  template <typename T> static std::vector<Variant> variants() { return {1, 2, 3, 7, 32, 64}; }
  template <typename T> static std::vector<Variant> default_variants() { return {gpumat::sell_default_slice}; }
  // The standard set plus a row count that no tested slice size divides (1021, prime) with one long row.
  static const std::vector<matgen::Csr> &matrices(int) {
    static const std::vector<matgen::Csr> m = [] {
      std::vector<matgen::Csr> v = matgen::standard_set_cached(512);
      v.push_back(matgen::rows_1021_one_long(1500));
      return v;
    }();
    return m;
  }
  static std::vector<MatrixCase<Variant>> refresh_cases() {
    return {{matgen::random_rows("random_with_empty", 4000, 3000, 1, 12, 0.15, 12), 32}, {matgen::heavy_row(17), 32}};
  }
  template <typename T> class Host {
  public:
    void build(const gpumat::CsrView<T> &A, int S) {
      A_ = A, S_ = S;
      H_.build(A, S);
    }
    void refresh(const gpumat::CsrView<T> &A) { H_.refresh(A.val); }
    void apply(gpumat::Op op, const T *x, const T *z, T *y) const { H_.apply(op, x, z, y); }
    std::vector<std::vector<T>> stored() const { return {H_.values()}; }
    std::size_t bytes() const { return gpumat::sell_stats(A_, S_).layout_bytes(sizeof(T)); }
    // The layout, and sell_stats (no build) agreeing with it.
    void check(const matgen::Csr &M, const std::vector<T> &vals, const std::string &where) const {
      check_sell_layout(H_.layout(), H_.values(), M, vals, S_, where);
      const gpumat::SellStats st = gpumat::sell_stats(M.view(vals), S_);
      EXPECT_EQ(st.padded, H_.layout().padded()) << where;
      EXPECT_EQ(st.slices, std::int64_t(H_.layout().slices())) << where;
    }

  private:
    gpumat::CsrView<T>   A_{};
    int                  S_ = 0;
    gpumat::SellHost<T> H_;
  };
};

template <> struct FormatTraits<fmt::cusparsecsr> {
  static constexpr bool has_storage = true;
  using Variant                     = int; // cuSPARSE's SpMV algorithm (the host reference has one)
  static std::string describe(int alg) { return "alg " + std::to_string(alg); }
  template <typename T> static std::vector<Variant> variants() { return {gpumat::csr_default_alg}; }
  template <typename T> static std::vector<Variant> default_variants() { return {gpumat::csr_default_alg}; }
  // The standard set plus a row count no warp divides (1021, prime) with one long row.
  static const std::vector<matgen::Csr> &matrices(int) {
    static const std::vector<matgen::Csr> m = [] {
      std::vector<matgen::Csr> v = matgen::standard_set_cached(512);
      v.push_back(matgen::rows_1021_one_long(1500));
      return v;
    }();
    return m;
  }
  static std::vector<MatrixCase<Variant>> refresh_cases() {
    std::vector<MatrixCase<Variant>> c;
    for (int alg : {1, 2})
      for (const matgen::Csr &M : {matgen::random_rows("random_with_empty", 4000, 3000, 1, 12, 0.15, 12), matgen::heavy_row(17), matgen::no_nonzeros("all_empty", 50, 40)})
        c.push_back({M, alg});
    return c;
  }
  template <typename T> class Host {
  public:
    void build(const gpumat::CsrView<T> &A, int) { A_ = A; }
    void refresh(const gpumat::CsrView<T> &A) { A_.val = A.val; } // the product reads the CSR's values
    void apply(gpumat::Op op, const T *x, const T *z, T *y) const { gpumat::csr_apply(A_, op, x, z, y); }
    std::vector<std::vector<T>> stored() const { return {std::vector<T>(A_.val, A_.val + A_.nnz())}; }
    std::size_t bytes() const { return gpumat::csr_bytes(A_.nrows, A_.nnz(), sizeof(T)); }
    void check(const matgen::Csr &, const std::vector<T> &, const std::string &) const {}

  private:
    gpumat::CsrView<T> A_{};
  };
};

template <> struct FormatTraits<fmt::cusparsebsr> {
  static constexpr bool has_storage = true;
  struct Variant {
    int  bs        = 2;
    bool row_major = false;
  };
  static std::string describe(const Variant &v) { return "bs " + std::to_string(v.bs) + (v.row_major ? " row-major" : " column-major"); }
  // Block sizes 2, 3, 5, 7 in double and 2, 4 in float, each in both block orders.
  template <typename T> static std::vector<Variant> variants() {
    std::vector<Variant> v;
    for (int bs : std::is_same<T, double>::value ? std::vector<int>{2, 3, 5, 7} : std::vector<int>{2, 4})
      for (bool row_major : {false, true}) v.push_back({bs, row_major});
    return v;
  }
  template <typename T> static std::vector<Variant> default_variants() { return {Variant{2, false}}; }
  // The standard set without its largest random pattern (each nonzero its own block at bs up to 7
  // would store millions of values), plus a 1021 x 1013 matrix (no tested bs divides either) with
  // one long row.
  static const std::vector<matgen::Csr> &matrices(const Variant &) {
    static const std::vector<matgen::Csr> m = [] {
      std::vector<matgen::Csr> v;
      for (const matgen::Csr &M : matgen::standard_set_cached(512))
        if (M.name != "power_law") v.push_back(M);
      v.push_back(matgen::rows_1021_one_long(1013));
      return v;
    }();
    return m;
  }
  // Random rows (4000 x 3000, and 4001 x 3001: padded block rows and columns) and dense 3 x 3
  // blocks, at bs 3 in both orders.
  static std::vector<MatrixCase<Variant>> refresh_cases() {
    std::vector<MatrixCase<Variant>> c;
    for (bool row_major : {false, true})
      for (const matgen::Csr &M : {matgen::random_rows("random_with_empty", 4000, 3000, 1, 12, 0.15, 12), matgen::random_rows("random_with_empty", 4001, 3001, 1, 12, 0.15, 12),
                                   matgen::dense_blocks(50, 3, 4, 3), matgen::dense_blocks(200, 3, 4, 3)})
        c.push_back({M, {3, row_major}});
    return c;
  }
  template <typename T> class Host {
  public:
    void build(const gpumat::CsrView<T> &A, const Variant &v) {
      A_ = A, v_ = v;
      H_.build(A, v.bs, v.row_major);
    }
    void refresh(const gpumat::CsrView<T> &A) { H_.refresh(A.val); }
    void apply(gpumat::Op op, const T *x, const T *z, T *y) const { H_.apply(op, x, z, y); }
    std::vector<std::vector<T>> stored() const { return {H_.values()}; }
    std::size_t bytes() const { return gpumat::bsr_bytes(A_.nrows, A_.ncols, A_.nnz(), H_.layout().nnzb(), v_.bs, sizeof(T)); }
    // The layout, and bsr_block_count (no build) agreeing with it.
    void check(const matgen::Csr &M, const std::vector<T> &vals, const std::string &where) const {
      check_bsr_layout(H_.layout(), H_.values(), M, vals, v_.bs, v_.row_major, where);
      EXPECT_EQ(gpumat::bsr_block_count(M.view(vals), v_.bs), H_.layout().nnzb()) << where;
    }

  private:
    gpumat::CsrView<T> A_{};
    Variant            v_{};
    gpumat::BsrHost<T> H_;
  };
};

// gpuauto stores nothing of its own: it becomes one of the formats above (its decision is tested
// in test_gpuauto_host.cpp).
template <> struct FormatTraits<fmt::gpuauto> {
  static constexpr bool has_storage = false;
};

// ---- the lists ------------------------------------------------------------------------------

template <typename... Ts> struct TypeList {};
template <typename... Ls> struct Concat;
template <> struct Concat<> {
  using type = TypeList<>;
};
template <typename... A> struct Concat<TypeList<A...>> {
  using type = TypeList<A...>;
};
template <typename... A, typename... B, typename... Rest> struct Concat<TypeList<A...>, TypeList<B...>, Rest...> {
  using type = typename Concat<TypeList<A..., B...>, Rest...>::type;
};

template <typename Tag> using IfStored = std::conditional_t<FormatTraits<Tag>::has_storage, TypeList<Tag>, TypeList<>>;

// The registered formats with storage of their own, as tags, in the order of src/formats.def.
using StoredFormats = typename Concat<TypeList<>
#define GPUMAT_FORMAT(root, ...) , IfStored<fmt::root>
#include "formats.def"
#undef GPUMAT_FORMAT
                                      >::type;

// A typed test's parameter: one format in one precision.
template <typename Tag, typename T> struct On {
  using tag        = Tag;
  using value_type = T;
};

template <typename L> struct InBothPrecisions;
template <typename... Tags> struct InBothPrecisions<TypeList<Tags...>> {
  using type = typename Concat<TypeList<On<Tags, double>, On<Tags, float>>...>::type;
};

template <typename L> struct GtestTypes;
template <typename... Ts> struct GtestTypes<TypeList<Ts...>> {
  using type = ::testing::Types<Ts...>;
};

// Every stored format in double and float, for TYPED_TEST_SUITE.
using FormatCases = typename GtestTypes<typename InBothPrecisions<StoredFormats>::type>::type;

// The root of a tag, for the typed tests' names: csrspec_double, csrspec_float, ...
template <typename Tag> const char *root_name();
#define GPUMAT_FORMAT(root, ...) \
  template <> inline const char *root_name<fmt::root>() { return #root; }
#include "formats.def"
#undef GPUMAT_FORMAT

struct FormatCaseName {
  template <typename C> static std::string GetName(int) {
    return std::string(root_name<typename C::tag>()) + (std::is_same<typename C::value_type, double>::value ? "_double" : "_float");
  }
};

} // namespace gpumat_test
