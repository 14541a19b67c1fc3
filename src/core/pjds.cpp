// pjds: host builder, refresh and reference products, and the record (pjds.hpp); the parameters
// and the byte model: pjds_model.cpp.
#include "pjds.hpp"
#include "format_record.hpp"
#include <memory>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <string>
#include <unordered_set>

namespace gpumat {

namespace {

void check(bool ok, const std::string &what) {
  if (!ok) throw std::invalid_argument("pjds: " + what);
}

} // namespace

template <typename T>
void pjds_short_rows(const CsrView<T> &A, std::int64_t long_row, std::vector<index_t> &rows, std::vector<index_t> &len) {
  rows.clear();
  len.clear();
  for (index_t r = 0; r < A.nrows; ++r) {
    const index_t n = A.rowptr[r + 1] - A.rowptr[r];
    if (n <= long_row) {
      rows.push_back(r);
      len.push_back(n);
    }
  }
}

template <typename T>
std::int64_t Pjds<T>::padding() const {
  std::int64_t n = 0;
  for (index_t l : rowlen) n += l;
  return padded() - n;
}

template <typename T>
bool Pjds<T>::reads_rowlen() const {
  return !positional() && pjds_reads_rowlen(padded(), padding(), nrows_pj, single() ? std::int64_t(sizeof(float)) : std::int64_t(sizeof(T)));
}

template <typename T>
std::size_t Pjds<T>::read_bytes() const {
  return bytes() - (reads_rowlen() ? 0 : rowlen.size() * sizeof(index_t));
}

template <typename T>
std::size_t Pjds<T>::bytes() const {
  const std::size_t columns = positional() ? poff.size() * sizeof(index_t) + poff_start.size() * sizeof(std::int64_t)
                              : coded()    ? code.size() + (dict.size() + dict_start.size()) * sizeof(index_t)
                                           : col.size() * sizeof(index_t);
  const std::size_t values  = tabled() ? val.size() * std::size_t(code_bytes()) + table.size() * sizeof(T) : single() ? val32.size() * sizeof(float) : val.size() * sizeof(T);
  return values + columns + (perm.size() + rowlen.size()) * sizeof(index_t) + block_start.size() * sizeof(std::int64_t) + this->long_bytes();
}

namespace {

// The padded part's columns as dictionary codes (pjds.hpp) where `mode` asks and every block's
// offsets fit (auto: and that reads fewer bytes); else B keeps its 32-bit columns.
template <typename T>
void code_columns(Pjds<T> &B, PjdsColumns mode) {
  if (mode == PjdsColumns::Plain || mode == PjdsColumns::Positional || B.positional() || B.padded() == 0 || (mode == PjdsColumns::Auto && !pjds_dictionary_wide(B.padded(), B.nrows_pj))) return;
  const std::int64_t   nb = B.nblocks();
  std::vector<index_t> start(std::size_t(nb) + 1, 0), dict;
  std::vector<index_t> offs;
  for (std::int64_t b = 0; b < nb; ++b) { // each block's distinct offsets, ascending
    const std::int64_t n = B.block_start[std::size_t(b) + 1] - B.block_start[std::size_t(b)];
    offs.clear();
    for (std::int64_t k = 0; k < n; ++k) offs.push_back(B.block_offset(b, k));
    std::sort(offs.begin(), offs.end());
    offs.erase(std::unique(offs.begin(), offs.end()), offs.end());
    if (offs.size() > std::size_t(kPjdsDictMax)) return; // a block the codes cannot index
    dict.insert(dict.end(), offs.begin(), offs.end());
    start[std::size_t(b) + 1] = index_t(dict.size());
  }
  if (mode == PjdsColumns::Auto && !pjds_dictionary_pays(B.padded(), std::int64_t(dict.size()), nb, B.nrows_pj)) return;
  B.code.assign(std::size_t(B.padded()), 0);
  for (std::int64_t b = 0; b < nb; ++b) {
    const std::int64_t bs = B.block_start[std::size_t(b)], n = B.block_start[std::size_t(b) + 1] - bs;
    const auto         d0 = dict.begin() + start[std::size_t(b)], d1 = dict.begin() + start[std::size_t(b) + 1];
    for (std::int64_t k = 0; k < n; ++k) B.code[std::size_t(bs + k)] = std::uint8_t(std::lower_bound(d0, d1, B.block_offset(b, k)) - d0); // col still there
  }
  B.dict.swap(dict);
  B.dict_start.swap(start);
  std::vector<index_t>().swap(B.col);
}

// Block b's distinct offsets of its nonzeros from their group's first row (groups of g rows),
// ascending, into u; B's 32-bit columns as built.
template <typename T>
void block_offsets(const Pjds<T> &B, std::int64_t b, index_t g, std::vector<index_t> &u) {
  const std::int64_t rows = B.block_rows(b), bs = B.block_start[std::size_t(b)];
  u.clear();
  for (std::int64_t lane = 0; lane < rows; ++lane) {
    const std::int64_t i = b * B.p.block_rows + lane;
    const index_t      r = B.row(i), base = r - r % g;
    for (std::int64_t j = 0; j < B.rowlen[std::size_t(i)]; ++j) u.push_back(B.col[std::size_t(bs + j * rows + lane)] - base);
  }
  std::sort(u.begin(), u.end());
  u.erase(std::unique(u.begin(), u.end()), u.end());
}

// Positional columns (pjds.hpp) from the layout with 32-bit columns as built (before the long part:
// the slots of the padded part's entries are moved, the long part's are not yet assigned); the group
// of kPjdsPositionalGroups that stores the fewest entries on the sample of blocks
// (pjds_positional_sample_stride), the first of equals, then its entries over every block; the
// padding the sentinel, a value with its bits the canonical NaN (pjds_unpad). Asked for (`by_auto`
// false): where they would not store fewer bytes (pjds_positional_pays; unless positional_always)
// the 32-bit columns stay and positional_declined says how many positions they would have stored.
// Tried by auto: kept where pjds_positional_auto_pays holds on the sample of blocks (where it is not
// every block) and then over every block (against the dictionary layout's bytes where `tabled`; else
// against the 32-bit layout's, its values fp32 where that storage is asked), else the 32-bit columns
// stay, unremarked.
template <typename T>
void position_columns(Pjds<T> &B, bool by_auto, bool tabled = false) {
  const std::int64_t nb = B.nblocks(), padded = B.padded();
  if (padded == 0) return;
  std::vector<index_t> u;
  // the entries group g stores over every stride-th block
  const auto stored = [&](index_t g, std::int64_t stride) {
    std::int64_t n = 0;
    for (std::int64_t b = 0; b < nb; b += stride) {
      block_offsets(B, b, g, u);
      n += B.block_rows(b) * std::int64_t(u.size());
    }
    return n;
  };
  const std::int64_t stride = pjds_positional_sample_stride(nb), vb = pjds_stored_value_bytes<T>(B.p.fp32); // (unread where tabled)
  index_t            g      = 1;
  std::int64_t       least  = -1;
  for (index_t cand : kPjdsPositionalGroups) {
    const std::int64_t n = stored(cand, stride);
    if (least < 0 || n < least) least = n, g = cand;
  }
  if (by_auto && stride > 1) { // auto: judged on the sample first, so that a pattern that cannot pay is not counted whole
    std::int64_t sampled = 0, nsampled = 0;
    for (std::int64_t b = 0; b < nb; b += stride) sampled += B.block_start[std::size_t(b) + 1] - B.block_start[std::size_t(b)], ++nsampled;
    if (!pjds_positional_auto_pays(sampled, least, nsampled, vb, tabled)) return;
  }
  if (stride > 1) least = stored(g, 1);
  if (by_auto) {
    if (least > INT_MAX || !pjds_positional_auto_pays(padded, least, nb, vb, tabled)) return;
  } else if (!B.p.positional_always && !pjds_positional_pays(padded, least, nb, std::int64_t(sizeof(T)))) { // the 32-bit columns stay
    B.positional_declined = least;
    return;
  }
  check(least <= INT_MAX, "positional columns would store " + std::to_string(least) + " entries, beyond the 32-bit positions of the index; use plain columns");
  std::vector<std::int64_t> entry(std::size_t(padded), -1); // the CSR entry at each position as built
  for (std::size_t q = 0; q < B.slot.size(); ++q)
    if (B.slot[q] >= 0 && B.slot[q] < padded) entry[std::size_t(B.slot[q])] = std::int64_t(q);
  std::vector<std::int64_t> start(std::size_t(nb) + 1, 0), pstart(std::size_t(nb) + 1, 0);
  std::vector<index_t>      poff;
  std::vector<T>            val(std::size_t(least), pjds_pad<T>()); // the padding: the sentinel
  for (std::int64_t b = 0; b < nb; ++b) {
    const std::int64_t rows = B.block_rows(b), bs = B.block_start[std::size_t(b)];
    block_offsets(B, b, g, u);
    poff.insert(poff.end(), u.begin(), u.end());
    pstart[std::size_t(b) + 1] = std::int64_t(poff.size());
    start[std::size_t(b) + 1]  = start[std::size_t(b)] + rows * std::int64_t(u.size());
    for (std::int64_t lane = 0; lane < rows; ++lane) {
      const std::int64_t i = b * B.p.block_rows + lane;
      const index_t      r = B.row(i), base = r - r % g;
      for (std::int64_t j = 0; j < B.rowlen[std::size_t(i)]; ++j) {
        const std::int64_t old = bs + j * rows + lane, k = std::lower_bound(u.begin(), u.end(), B.col[std::size_t(old)] - base) - u.begin();
        const std::int64_t pos = start[std::size_t(b)] + k * rows + lane;
        val[std::size_t(pos)]  = pjds_unpad(B.val[std::size_t(old)]);
        if (entry[std::size_t(old)] >= 0) B.slot[std::size_t(entry[std::size_t(old)])] = pos;
      }
    }
  }
  B.block_start.swap(start);
  B.val.swap(val);
  B.poff.swap(poff);
  B.poff_start.swap(pstart);
  B.pgroup = g;
  std::vector<index_t>().swap(B.col);
}

// The codes of B's padded values into its table (tabled(); 8-bit codes up to kPjdsTableMax
// entries, else 16-bit); false where a value is not in it.
template <typename T>
bool code_values_in_table(Pjds<T> &B) {
  std::vector<std::uint64_t> keys(B.table.size());
  for (std::size_t t = 0; t < keys.size(); ++t) keys[t] = value_bits(B.table[t]);
  const bool wide = B.table.size() > std::size_t(kPjdsTableMax);
  B.vcode.assign(wide ? 0 : B.val.size(), 0);
  B.vcode16.assign(wide ? B.val.size() : 0, 0);
  for (std::size_t k = 0; k < B.val.size(); ++k) {
    const std::uint64_t b  = value_bits(B.val[k]);
    const auto          it = std::lower_bound(keys.begin(), keys.end(), b);
    if (it == keys.end() || *it != b) return false;
    if (wide) B.vcode16[k] = std::uint16_t(it - keys.begin());
    else B.vcode[k] = std::uint8_t(it - keys.begin());
  }
  return true;
}

// The padded part's values as codes into a table of their distinct values (pjds.hpp) where `mode`
// asks and they fit (auto: and that reads fewer bytes). The distinct bit patterns are gathered in a
// set that stops once it holds one more than the largest table that can result (auto: 256 or
// pjds_table16_cap, the device builder's limit too; table: kPjdsTable16Max): a matrix of many values
// costs at most that many insertions.
template <typename T>
void code_values(Pjds<T> &B, PjdsValues mode) {
  if (mode == PjdsValues::Plain || B.padded() == 0) return;
  const std::size_t cap =
      std::size_t(mode == PjdsValues::Auto ? std::max<std::int64_t>(kPjdsTableMax, pjds_table16_cap(B.padded(), std::int64_t(sizeof(T)))) : kPjdsTable16Max);
  std::unordered_set<std::uint64_t> seen;
  for (std::size_t k = 0; k < B.val.size() && seen.size() <= cap; ++k) seen.insert(value_bits(B.val[k]));
  if (seen.size() > cap) return;
  if (mode == PjdsValues::Auto && !pjds_table_pays(B.padded(), std::int64_t(seen.size()), std::int64_t(sizeof(T)))) return;
  std::vector<std::uint64_t> keys(seen.begin(), seen.end());
  std::sort(keys.begin(), keys.end());
  B.table.resize(keys.size());
  for (std::size_t t = 0; t < keys.size(); ++t) B.table[t] = value_from_bits<T>(keys[t]);
  code_values_in_table(B); // every value is in its own table
}

// fp32 storage (pjds.hpp): the padded values rounded to float (pjds_round: the sentinel to fp32's,
// NaNs to the canonical one) where p.fp32 asks, T is wider and no value table is built; called
// after every build and refresh.
template <typename T>
void round_values(Pjds<T> &B) {
  if (!B.p.fp32 || sizeof(T) <= sizeof(float) || B.tabled() || B.padded() == 0) return;
  B.val32.resize(B.val.size());
  for (std::size_t k = 0; k < B.val.size(); ++k) B.val32[k] = pjds_round(B.val[k]);
}
} // namespace

template <typename T>
void pjds_build(const CsrView<T> &A, const PjdsParams &q, Pjds<T> &B) {
  B                = Pjds<T>();
  PjdsParams p     = pjds_resolve(q);
  if (p.sigma == 0) p.sigma = pjds_all_rows;
  if (p.long_row == 0) p.long_row = INT_MAX;
  B.p     = p;
  B.nrows = A.nrows;
  B.ncols = A.ncols;
  const int br = p.block_rows;
  std::vector<index_t> len;
  pjds_short_rows(A, p.long_row, B.perm, len);
  B.nrows_pj = index_t(B.perm.size());
  // the order: by length, descending, stable, within windows of sigma rows
  if (p.sigma > 1) {
    const std::size_t    n = B.perm.size(), w = std::size_t(std::min<std::int64_t>(p.sigma, std::int64_t(n) > 0 ? std::int64_t(n) : 1));
    std::vector<index_t> idx(n);
    std::iota(idx.begin(), idx.end(), 0);
    for (std::size_t s = 0; s < n; s += w) {
      const std::size_t e = std::min(n, s + w);
      std::stable_sort(idx.begin() + std::ptrdiff_t(s), idx.begin() + std::ptrdiff_t(e), [&](index_t a, index_t b) { return len[std::size_t(a)] > len[std::size_t(b)]; });
    }
    std::vector<index_t> perm(n), l2(n);
    for (std::size_t i = 0; i < n; ++i) perm[i] = B.perm[std::size_t(idx[i])], l2[i] = len[std::size_t(idx[i])];
    B.perm.swap(perm);
    len.swap(l2);
  }
  B.rowlen = len;
  // blocks
  const std::int64_t nb = (std::int64_t(B.nrows_pj) + br - 1) / br;
  B.block_start.assign(std::size_t(nb) + 1, 0);
  for (std::int64_t b = 0; b < nb; ++b) {
    index_t mx = 0;
    for (std::int64_t i = b * br; i < std::min<std::int64_t>(B.nrows_pj, (b + 1) * br); ++i) mx = std::max(mx, len[std::size_t(i)]);
    B.block_start[std::size_t(b) + 1] = B.block_start[std::size_t(b)] + std::int64_t(mx) * std::min<std::int64_t>(br, B.nrows_pj - b * br);
  }
  const std::int64_t padded = B.block_start.back();
  check(padded <= INT_MAX, "the padded part holds " + std::to_string(padded) + " entries, beyond the 32-bit positions of its index; use more MPI ranks, or a smaller sorting window or long-row threshold");
  B.col.assign(std::size_t(padded), 0);
  B.val.assign(std::size_t(padded), T(0));
  B.slot.assign(std::size_t(A.nnz()), -1);
  for (std::int64_t i = 0; i < B.nrows_pj; ++i) {
    const index_t      r = B.row(i), q0 = A.rowptr[r], n = len[std::size_t(i)];
    const std::int64_t b = i / br, base = B.block_start[std::size_t(b)] + i % br, rows = B.block_rows(b);
    const std::int64_t bl = (B.block_start[std::size_t(b) + 1] - B.block_start[std::size_t(b)]) / rows;
    for (std::int64_t j = 0; j < bl; ++j) {
      const std::int64_t pos = base + j * rows;
      if (j < n) {
        B.col[std::size_t(pos)]            = A.colidx[q0 + j];
        B.val[std::size_t(pos)]            = A.val[q0 + j];
        B.slot[std::size_t(q0 + j)]        = pos;
      } else B.col[std::size_t(pos)] = n > 0 ? A.colidx[q0 + n - 1] : 0;
    }
  }
  if (B.nrows_pj == A.nrows && p.sigma == 1) std::vector<index_t>().swap(B.perm); // the identity
  if (p.columns == PjdsColumns::Positional) position_columns(B, false);
  // auto: the values first, on the 32-bit layout, which decides whether positional columns are
  // tried (pjds_positional_auto_tries: values without a table, fp64 or fp32 storage, or an 8-bit
  // table with room for the sentinel); where they are kept over a table, the table is made anew on the positional
  // layout (its padding the sentinel, not 0: at most kPjdsTableMax entries, so 8-bit codes); elsewhere
  // the order does not matter
  const bool values_first = p.columns == PjdsColumns::Auto;
  if (values_first) code_values(B, p.values);
  const bool tabled = B.tabled();
  if (values_first && pjds_positional_auto_tries(p.sigma == 1, !tabled, tabled && B.table.size() < std::size_t(kPjdsTableMax), B.padded(), B.nrows_pj)) {
    position_columns(B, true, tabled);
    if (tabled && B.positional()) {
      B.drop_table();
      code_values(B, PjdsValues::Table);
    }
  }
  code_columns(B, p.columns);
  if (!values_first) code_values(B, p.values);
  round_values(B);
  B.build_long(A, p.long_row, B.padded(), B.slot, "pjds");
}

template <typename T>
void pjds_refresh(const CsrView<T> &A, Pjds<T> &B) {
  check(std::int64_t(B.slot.size()) == std::int64_t(A.nnz()), "refresh with another pattern (" + std::to_string(A.nnz()) + " nonzeros, built with " + std::to_string(B.slot.size()) + ")");
  const std::int64_t padded = B.padded();
  const bool         unpad  = B.positional(); // a value with the sentinel's bits: the canonical NaN
  for (std::size_t q = 0; q < B.slot.size(); ++q) {
    const std::int64_t s = B.slot[q];
    if (s < padded) B.val[std::size_t(s)] = unpad ? pjds_unpad(A.val[q]) : A.val[q];
    else B.long_val[std::size_t(s - padded)] = A.val[q];
  }
  if (B.tabled() && !code_values_in_table(B)) { // a value outside the table: the values are read
    B.drop_table();
    ++B.table_drops;
  }
  if (B.single()) round_values(B);
}

template <typename T>
void pjds_apply(const Pjds<T> &B, Op op, const T *x, const T *z, T *y) {
  const int br = B.p.block_rows;
  if (op == Op::NoTrans) { // every row is written once, by its part
    for (std::int64_t i = 0; i < B.nrows_pj; ++i) {
      const std::int64_t base = B.block_start[std::size_t(i / br)] + i % br, rows = B.block_rows(i / br);
      const std::int64_t n    = B.positional() ? B.block_width(i / br) : B.rowlen[std::size_t(i)]; // positional: the padding too
      T                  s    = T(0);
      for (std::int64_t j = 0; j < n; ++j) {
        const std::int64_t pos = base + j * rows;
        if (B.positional() && B.pad(pos)) continue; // a position the row has no entry at (pjds.hpp)
        s += B.value(pos) * x[B.column(pos, i)];
      }
      const index_t r = B.row(i);
      y[r]            = z ? z[r] + s : s;
    }
    B.apply_long(op, x, z, y);
    return;
  }
  for (index_t c = 0; c < B.ncols; ++c) y[c] = z ? z[c] : T(0);
  for (std::int64_t i = 0; i < B.nrows_pj; ++i) {
    const std::int64_t base = B.block_start[std::size_t(i / br)] + i % br, rows = B.block_rows(i / br);
    const T            xr   = x[B.row(i)];
    const std::int64_t n    = B.positional() ? B.block_width(i / br) : B.rowlen[std::size_t(i)];
    for (std::int64_t j = 0; j < n; ++j) {
      const std::int64_t pos = base + j * rows;
      if (B.positional() && B.pad(pos)) continue;
      y[B.column(pos, i)] += B.value(pos) * xr;
    }
  }
  B.apply_long(op, x, z, y);
}


#define GPUMAT_PJDS_INSTANTIATE(T)                                                  \
  template struct Pjds<T>;                                                          \
  template void         pjds_short_rows<T>(const CsrView<T> &, std::int64_t, std::vector<index_t> &, std::vector<index_t> &); \
  template void         pjds_build<T>(const CsrView<T> &, const PjdsParams &, Pjds<T> &); \
  template void         pjds_refresh<T>(const CsrView<T> &, Pjds<T> &);             \
  template void         pjds_apply<T>(const Pjds<T> &, Op, const T *, const T *, T *);
GPUMAT_PJDS_INSTANTIATE(double)
GPUMAT_PJDS_INSTANTIATE(float)
#undef GPUMAT_PJDS_INSTANTIATE

} // namespace gpumat

// ---- the record (src/core/format_record.hpp) ------------------------------------------------
namespace gpumat {

namespace {

// gpuauto's byte model: pjds_model's rule on the sampled padding: the matrix's order where its
// padding is at most kPjdsPadTarget, else rows sorted (the sorted padding: the least a window can
// reach); rows over the long threshold go to the long part, which permutes y too
bool pjds_auto_shape(const AutoHints &h, const AutoSample &s, AutoShape &sh) {
  const MatrixFeatures &f = s.f;
  const double          n = f.nrows, z = double(f.nnz);
  char                  buf[160];
  const std::int64_t    lr     = default_long_row(f.nrows, f.nnz, f.max_row);
  const bool            sorted = f.padding_sell > kPjdsPadTarget;
  const double          pad    = (sorted ? f.padding_sorted : f.padding_sell) * z;
  sh.permuted                  = sorted || std::int64_t(f.max_row) > lr;
  const bool rowlen            = pjds_reads_rowlen(std::int64_t(z + pad), std::int64_t(pad), std::int64_t(n), s.value_bytes);
  // the compressed layouts the build's auto chooses (pjds.hpp), judged on the sample: a value table
  // where the sampled whole rows hold few distinct values (at most the table, the padding's 0 among
  // them, where the sample is the matrix; at most a quarter of it otherwise, as a sample sees fewer
  // values than the matrix holds), with 8-bit codes where they fit kPjdsTableMax, else 16-bit ones
  // where the values repeat kPjdsTable16MinRepeat times on average: in the matrix where the sample
  // is the matrix, else in the sample, which sees fewer repeats than the matrix holds), dictionary
  // columns where the rows are wide and every sampled
  // block's offsets fit (blocks in matrix order: where the rows are sorted by length, the sort is
  // stable, so a block's rows of one length keep their order; the build checks every block)
  const double stored  = z * (1 - s.long_share) + pad, nblocks = std::ceil(n / 32), blong = 12 * z * s.long_share;
  const int    entries = s.distinct_values + 1;
  const bool   fits8   = s.exact ? entries <= kPjdsTableMax : 4 * entries <= kPjdsTableMax;
  const bool   fits16  = s.exact ? entries <= kPjdsTable16Max && stored >= double(kPjdsTable16MinRepeat * entries)
                                 : 4 * entries <= kPjdsTable16Max && kPjdsTable16MinRepeat * std::int64_t(s.distinct_values) <= s.values_sampled;
  const double code    = fits8 ? 1 : 2; // a code's bytes
  const bool   table   = s.distinct_values >= 0 && s.distinct_values <= kAutoDistinctMax && (fits8 || fits16) && code * stored + 8.0 * entries < 8 * stored;
  const bool   wide    = table && !fits8; // 16-bit codes
  const double dict_entries = s.block_offsets() * nblocks;
  const bool   dict = s.block_offsets() >= 0 && s.block_offsets_max <= kPjdsDictMax &&
                    pjds_dictionary_pays(std::int64_t(stored), std::int64_t(dict_entries), std::int64_t(nblocks), std::int64_t(n));
  // fp32 storage where asked and no table (pjds.hpp): 4 B a value; its key's constants are plain
  // pjds's until measured (no such line: the format's)
  const bool   single = h.fp32 && !table && s.value_bytes > 4;
  // positional columns where the build's auto tries and keeps them (pjds_positional_auto_tries and
  // _pays), for values without a table (fp64, or fp32 where asked) or in an 8-bit table with room
  // for the sentinel (the sample's values and the padding's 0 at most kPjdsTableMax - 1 where the
  // sample is the matrix, a quarter of that otherwise): the sampled blocks' distinct offsets from the
  // first row of each group of kPjdsPositionalGroups rows, the group of the fewest, times the rows
  // are the positions, each a value or a value code, against the 32-bit layout's entries (no table)
  // or the dictionary layout's (a table); no column and no rowlen read
  double width = -1;
  for (index_t g : kPjdsPositionalGroups)
    if (g <= kAutoOffsetGroups && s.group_offsets[g - 1] >= 0 && (width < 0 || s.group_offsets[g - 1] < width)) width = s.group_offsets[g - 1];
  const bool   room       = table && !wide && (s.exact ? entries < kPjdsTableMax : 4 * entries < kPjdsTableMax);
  const double positions  = width * n;
  const int    vb         = single ? 4 : s.value_bytes; // a stored value's bytes
  const bool   positional = width >= 0 && pjds_positional_auto_tries(!sorted, !table, room, std::int64_t(stored), std::int64_t(n)) &&
                          pjds_positional_auto_pays(std::int64_t(stored), std::int64_t(positions), std::int64_t(nblocks), vb, table);
  const double vbytes = positional && !table ? double(vb) * positions
                        : positional        ? positions + 8.0 * entries
                        : table             ? code * stored + 8.0 * entries
                                            : (single ? 4 : 8) * stored,
               cbytes = positional ? 4 * width * nblocks : dict ? stored + 4 * (dict_entries + nblocks + 1) : 4 * stored;
  sh.bytes      = vbytes + cbytes + blong + (rowlen && !positional ? 4 * n : 0) + (sh.permuted ? 4 * n : 0) + 8 * (n / 32);
  sh.excess     = z / 32 * std::max(0.0, f.sectors_ell - 8);
  sh.long_share = s.long_share;
  sh.key        = positional     ? (table ? "pjds:positional+table" : single ? "pjds:positional+fp32" : "pjds:positional")
                  : dict && table ? (wide ? "pjds:dict+table16" : "pjds:dict+table")
                  : dict          ? (single ? "pjds:dict+fp32" : "pjds:dict")
                  : table         ? (wide ? "pjds:table16" : "pjds:table")
                  : single        ? "pjds:fp32"
                                  : "pjds";
  std::snprintf(buf, sizeof buf, "%s, padding %.1f %%, long part %.1f %%%s%s", sorted ? "rows sorted by length" : "matrix order", 100 * pad / std::max(1.0, z), 100 * s.long_share,
                positional ? ", positional columns" : dict ? ", dictionary columns" : "", table ? (wide ? ", value table (16-bit codes)" : ", value table") : single ? ", fp32 values" : "");
  sh.detail = buf;
  return true;
}

} // namespace

static_assert(kAutoDistinctMax == kPjdsTable16Max, "gpuauto counts the sampled values up to the largest value table");

const FormatRecord &pjds_record() {
  static const FormatRecord r = [] {
    FormatRecord r("pjds");
    r.caps.device_transpose = true;
    r.caps.long_part        = true;
    struct {
      const char  *key, *help;
      std::int64_t hi;
    } opts[] = {
      {"block_rows", "Rows per padded block, b_r: 1..1024 (0 = 32, the warp)", pjds_max_block_rows},
      {"sigma", "Sorting window in rows: 1 = no sorting (sliced ELL), n = rows sorted by length within windows of n rows (rounded up to a multiple of b_r; the row count or more: all rows, pJDS proper), 0 = the model: the smallest of 1, 4096, 16384, 65536, 262144, 1048576 and all rows whose padding is at most 4.5 % of the nonzeros", kOptionIntMax},
      {"long_row", "Rows with more nonzeros than this go to the long part, cut into chunks summed by groups of lanes (0 = the model: 32, or no long part where the longest row has at most 128 entries and at most 3 times the mean; halved down to 32 while sorted padding stays above 4.5 %)", kOptionIntMax},
      {"occupancy", "Product blocks of 256 threads resident per multiprocessor the GPU kernel is compiled for: 4 (up to 64 registers a thread) or 6 (up to 40); 0 = measured: the first 6 products after a build alternate between the two, timed by CUDA events, and the faster is kept (until they have finished: 6 without a long part, 4 with one)", 6},
      {"lanes", "GPU product: lanes summing one chunk of a long row, 4, 8, 16 or 32 (0 = the long rows' mean length / 8 rounded up to a power of two within 4..32)", 32},
      {"passes", "GPU product: passes of 8 loads per lane in a chunk of a long row, 1..64 (a chunk is lanes x 8 x passes entries; 0 = the longest long row / (8 lanes) rounded up within 1..4)", kLongMaxPasses},
    };
    for (const auto &o : opts) {
      OptionRecord &x = r.add(OptionKind::Int, o.key, o.help, "0");
      x.lo = 0, x.hi = double(o.hi);
      x.range_error = "{name} must be in [{lo}, {hi}] (0 chooses the default), got {value}";
    }
    {
      OptionRecord &o = r.options[3]; // occupancy
      o.allowed       = {{0, 0}, {4, 4}, {6, 6}};
      o.allowed_error = "{name} must be 0 (measured), 4 or 6 (blocks per multiprocessor), got {value}";
    }
    {
      OptionRecord &o = r.options[4]; // lanes: long_shape_valid's
      o.allowed       = {{0, 0}, {4, 4}, {8, 8}, {16, 16}, {32, 32}};
      o.allowed_error = "{name} must be 0 (by the long rows), 4, 8, 16 or 32, got {value}";
    }
    {
      OptionRecord &o = r.add(OptionKind::Enum, "columns",
                              "The padded part's columns: auto (8-bit codes into a dictionary per block of its offsets column - row, where every block has at most 256, the rows hold at least 16 stored entries on average and that reads fewer bytes; positional columns in the matrix's order: on shorter rows with values in no table (fp64, or fp32 where asked), where they store at most 0.75 of the 32-bit columns' bytes, and on wider rows with values in a table of at most 255 entries, where they store at most 0.6 of the dictionary columns' bytes), plain (32-bit), dictionary (the codes wherever every block's offsets fit), positional (no column per entry: each block's rows as wide as its distinct offsets from their node's first row, a padding value that adds nothing where a row has none; where that stores fewer bytes than 32-bit columns)",
                              "auto");
      o.choices = {"auto", "plain", "dictionary", "positional"}, o.enum_type = "PjdsColumns", o.enum_prefix = "PJDS_COLUMNS_";
    }
    {
      OptionRecord &o = r.add(OptionKind::Enum, "values",
                              "The padded part's values as the product reads them: auto (codes into one table of the distinct values, 8-bit where they are at most 256, 16-bit where at most 65,536, where that reads fewer bytes), plain (as stored), table (the codes wherever the values fit); a refresh with a value outside the table turns it off until the next build",
                              "auto");
      o.choices = {"auto", "plain", "table"}, o.enum_type = "PjdsValues", o.enum_prefix = "PJDS_VALUES_";
    }
    r.gpuauto.model = pjds_auto_shape;
    // the long part (rows over default_long_row, summed in chunks by warps): 6 % over cuSPARSE's
    // CSR on the matrices that are all long rows (lp_4096, lp_16384, dense_12000, H100,
    // docs/results/h100-2026-11-25d-suite)
    // the compressed layouts (H200, docs/results/h200-2026-11-28i-compressed, call 2: each layout's
    // median time against the plain layout's on the regular matrices, over their byte models' ratio,
    // times the plain layout's factors; not measured on an H100): their products run well below
    // their bytes' rate (the table's shared-memory lookups, the dictionary's dependent loads)
    // pjds:table16 and pjds:dict+table16 (16-bit codes, the table read through L1) carry the 8-bit
    // table's constants, pjds:table's and pjds:dict+table's: not measured yet, to be measured.
    // pjds:positional alike from the one matrix auto gives it among the measured (H200,
    // docs/results/h200-2026-11-29i-positional-select, calls 3 and 7: lap3dv 300^3 and 200^3, its
    // time 0.785 and 0.793 of the plain layout's for 0.681 of the bytes): 1.16 times plain's factors.
    // pjds:positional+table from the two matrices it was measured on by request, with the rows auto
    // gives it (H200, docs/results/h200-2026-11-29j-auto-positional: lap3d27 160^3 and ex19's
    // operator, 3.61 and 3.58 times their bytes, x and y included, at the H200's 4014 GB/s after the
    // launch), g in dict+table's ratio to k
    r.gpuauto.constants = {{"pjds", {1.00, 0.0, 0.88}},        {"pjds:long", {1.06, 0.0, 0.985}}, {"pjds:table", {1.49, 0.0, 1.31}},
                           {"pjds:dict", {1.05, 0.0, 0.92}}, {"pjds:dict+table", {2.73, 0.0, 2.40}},
                           {"pjds:table16", {1.49, 0.0, 1.31}}, {"pjds:dict+table16", {2.73, 0.0, 2.40}},
                           {"pjds:positional", {1.16, 0.0, 1.02}}, {"pjds:positional+table", {3.60, 0.0, 3.17}}};
    // build (ns per nonzero, ns per row, us): the fit to 24 builds, |relative error| median 6 %
    r.gpuauto.build = {1.54, 2.75, 1740};
    return r;
  }();
  return r;
}

} // namespace gpumat
