// compress_model.hpp: one pass over the slices for the index streams, one over the values.
#include "compress_model.hpp"
#include "pjds.hpp"

#include <algorithm>
#include <cstring>
#include <unordered_set>
#include <vector>

namespace gpumat {

namespace {

// The width in bits that holds the difference d between consecutive columns of a row (unsigned;
// a decreasing pair, unsorted columns, needs 32)
int difference_width(std::int64_t d) {
  if (d < 0 || d >= 65536) return 32;
  return d < 256 ? 8 : 16;
}

} // namespace

template <typename T>
CompressModel compress_model(const CsrView<T> &A, index_t slice_rows) {
  CompressModel m;
  m.slice_rows = std::max<index_t>(slice_rows, 1);
  m.rows       = A.nrows;
  m.nnz        = A.nnz();
  if (m.nnz == 0) return m;

  double              delta_bytes = 0, dict_bytes = 0, best_bytes = 0;
  std::vector<std::int64_t> offsets;
  for (index_t r0 = 0; r0 < A.nrows; r0 += m.slice_rows) {
    const index_t r1 = std::min<index_t>(A.nrows, r0 + m.slice_rows);
    ++m.slices;
    int          w = 8;
    std::int64_t nonempty = 0, entries = 0;
    offsets.clear();
    for (index_t r = r0; r < r1; ++r) {
      const index_t b = A.rowptr[r], e = A.rowptr[r + 1];
      if (e > b) ++nonempty;
      entries += e - b;
      for (index_t k = b; k < e; ++k) {
        if (k > b) w = std::max(w, difference_width(std::int64_t(A.colidx[k]) - A.colidx[k - 1]));
        offsets.push_back(std::int64_t(A.colidx[k]) - r);
      }
    }
    if (entries == 0) { // an empty slice stores no index bytes (its width counts as the narrowest)
      ++m.slices_w8;
      ++m.slices_dict;
      continue;
    }
    (w == 8 ? m.slices_w8 : w == 16 ? m.slices_w16 : m.slices_w32)++;
    const double delta = 4.0 * double(nonempty) + double(entries - nonempty) * w / 8.0;
    std::sort(offsets.begin(), offsets.end());
    const std::int64_t distinct = std::unique(offsets.begin(), offsets.end()) - offsets.begin();
    const bool         fits     = distinct <= kPjdsDictMax;
    const double       dict     = fits ? 4.0 * double(distinct) + double(entries) : delta;
    if (fits) ++m.slices_dict;
    delta_bytes += delta;
    dict_bytes += dict;
    best_bytes += std::min(delta, dict);
  }

  std::unordered_set<std::uint64_t> seen;
  seen.reserve(1024);
  for (std::int64_t k = 0; k < m.nnz; ++k) {
    const double v = double(A.val[k]);
    if (double(float(v)) == v) ++m.fp32_exact;
    if (std::int64_t(seen.size()) <= CompressModel::kDistinctCap) {
      std::uint64_t bits;
      std::memcpy(&bits, &v, sizeof bits);
      seen.insert(bits);
    }
  }
  m.distinct = std::min<std::int64_t>(std::int64_t(seen.size()), CompressModel::kDistinctCap + 1);

  const double n = double(m.nnz);
  m.idx32        = 4.0;
  m.delta        = delta_bytes / n;
  m.dict         = dict_bytes / n;
  m.best         = best_bytes / n;
  m.val64        = 8.0;
  m.val32        = 4.0;
  if (m.distinct <= CompressModel::kDistinctCap) m.table = double(pjds_code_bytes(m.distinct)) + 8.0 * double(m.distinct) / n;
  else m.table = 8.0;
  m.table = std::min(m.table, 8.0); // a table that would read more than fp64 is not used
  return m;
}

template <typename T>
PjdsCompressed pjds_compressed(const Pjds<T> &B, std::int64_t distinct) {
  PjdsCompressed c;
  c.plain = double(B.bytes());
  c.blocks = B.nblocks();
  const std::int64_t entries = distinct + 1; // the padding's 0 (at most one more entry)
  const double       vb      = double(sizeof(T));
  const double       code    = entries <= kPjdsTable16Max ? double(pjds_code_bytes(entries)) : vb;
  const double       table   = code < vb ? vb * double(entries) : 0; // the table's own bytes, where codes are used
  double columns = 0; // the padded part's column bytes with the dictionaries
  std::vector<std::int64_t> offsets;
  for (std::int64_t b = 0; b < B.nblocks(); ++b) {
    const std::int64_t rows = B.block_rows(b), bs = B.block_start[std::size_t(b)], n = B.block_start[std::size_t(b) + 1] - bs;
    if (rows <= 0 || n == 0) continue;
    offsets.clear();
    for (std::int64_t k = 0; k < n; ++k) offsets.push_back(B.block_offset(b, k));
    std::sort(offsets.begin(), offsets.end());
    const std::int64_t d = std::unique(offsets.begin(), offsets.end()) - offsets.begin();
    if (d <= kPjdsDictMax && double(n) + 4.0 * double(d) < 4.0 * double(n)) { // the dictionary where it reads fewer bytes
      ++c.blocks_dict;
      columns += double(n) + 4.0 * double(d);
    } else columns += 4.0 * double(n);
  }
  c.dict = c.plain - 4.0 * double(B.padded()) + columns;
  const double plain = vb * double(B.padded()); // the padded part's values as stored
  c.dict_table       = c.dict - plain + std::min(code * double(B.padded()) + vb * double(entries), plain);

  // positional offsets, relative to each row's first row of its group of g (g = 1: the row)
  c.diag = c.diag_table = c.plain;
  for (index_t g : kPjdsPositionalGroups) {
    double       diag = 0, diag_table = 0;
    std::int64_t blocks_diag = 0;
    for (std::int64_t b = 0; b < B.nblocks(); ++b) {
      const std::int64_t rows = B.block_rows(b), bs = B.block_start[std::size_t(b)], n = B.block_start[std::size_t(b) + 1] - bs;
      if (rows <= 0 || n == 0) continue;
      offsets.clear();
      for (std::int64_t k = 0; k < n; ++k) {
        const std::int64_t i = b * B.p.block_rows + k % rows; // the entry's position (row of the pJDS part)
        if (k / rows >= B.rowlen[std::size_t(i)]) continue;   // padding
        const index_t r = B.row(i);
        offsets.push_back(std::int64_t(B.column(bs + k, i)) - (r - r % g));
      }
      std::sort(offsets.begin(), offsets.end());
      const std::int64_t u        = std::unique(offsets.begin(), offsets.end()) - offsets.begin();
      const double       stored   = (4.0 + vb) * double(n), positional = vb * double(u * rows) + 4.0 * double(u) + 4.0;
      if (positional < stored) ++blocks_diag;
      diag += std::min(stored, positional);
      diag_table += std::min((4.0 + code) * double(n), code * double(u * rows) + 4.0 * double(u) + 4.0);
    }
    const double total = c.plain - (4.0 + vb) * double(B.padded()) + diag;
    if (total < c.diag) {
      c.diag        = total;
      c.blocks_diag = blocks_diag;
      c.diag_group  = g;
      c.diag_table  = c.plain - (4.0 + vb) * double(B.padded()) + diag_table + table;
    }
  }
  c.diag_table = std::min({c.diag_table, c.diag, c.dict_table});
  return c;
}

template CompressModel  compress_model<double>(const CsrView<double> &, index_t);
template CompressModel  compress_model<float>(const CsrView<float> &, index_t);
template PjdsCompressed pjds_compressed<double>(const Pjds<double> &, std::int64_t);
template PjdsCompressed pjds_compressed<float>(const Pjds<float> &, std::int64_t);

} // namespace gpumat
