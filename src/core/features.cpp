#include "features.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <utility>
#include <vector>

namespace gpumat {

namespace {

constexpr int kWarp = 32;

// Distinct values among v[0..n) (n <= 32), v reordered.
int distinct(index_t *v, int n) {
  std::sort(v, v + n);
  return int(std::unique(v, v + n) - v);
}

// Distinct block columns per block row of bs rows, a stamp per block column; block_col(c) is c /
// bs (a constant divisor for the usual sizes: no division instruction per entry).
template <typename T, class BlockCol>
std::int64_t count_grid_blocks(const CsrView<T> &A, index_t bs, BlockCol block_col) {
  std::vector<index_t> stamp(std::size_t(A.ncols) / std::size_t(bs) + 2, 0);
  std::int64_t         blocks = 0;
  for (index_t br = 0; br * bs < A.nrows; ++br) {
    const index_t r1 = std::min<index_t>(A.nrows, (br + 1) * bs);
    for (index_t k = A.rowptr[br * bs]; k < A.rowptr[r1]; ++k) {
      index_t &s = stamp[std::size_t(block_col(A.colidx[k]))];
      if (s != br + 1) s = br + 1, ++blocks;
    }
  }
  return blocks;
}

} // namespace

double sorted_padding(const std::vector<std::pair<index_t, double>> &runs) {
  std::vector<double> start; // run starts (positions)
  double              pos = 0, pad = 0;
  for (const auto &[L, c] : runs) {
    const double q = std::floor(pos / kWarp) * kWarp; // the block holding this run's first row
    if (q < pos) {                                    // it started in an earlier, longer run
      const std::size_t j = std::size_t(std::upper_bound(start.begin(), start.end(), q) - start.begin()) - 1;
      pad += (std::min(q + kWarp, pos + c) - pos) * double(runs[j].first - L);
    }
    start.push_back(pos);
    pos += c;
  }
  return pad;
}

template <typename T>
std::int64_t grid_blocks(const CsrView<T> &A, int bs) {
  switch (bs) {
  case 1: return A.nrows ? std::int64_t(A.rowptr[A.nrows]) - A.rowptr[0] : 0;
  case 2: return count_grid_blocks(A, 2, [](index_t c) { return unsigned(c) / 2u; });
  case 3: return count_grid_blocks(A, 3, [](index_t c) { return unsigned(c) / 3u; });
  case 4: return count_grid_blocks(A, 4, [](index_t c) { return unsigned(c) / 4u; });
  case 5: return count_grid_blocks(A, 5, [](index_t c) { return unsigned(c) / 5u; });
  case 6: return count_grid_blocks(A, 6, [](index_t c) { return unsigned(c) / 6u; });
  case 8: return count_grid_blocks(A, 8, [](index_t c) { return unsigned(c) / 8u; });
  default: return count_grid_blocks(A, bs, [bs](index_t c) { return c / bs; });
  }
}
template std::int64_t grid_blocks<double>(const CsrView<double> &, int);
template std::int64_t grid_blocks<float>(const CsrView<float> &, int);

std::int64_t warp_sectors(const index_t *idx, std::int64_t n) {
  index_t      g[kWarp];
  std::int64_t sectors = 0;
  for (std::int64_t k = 0; k < n; k += kWarp) {
    const int m = int(std::min<std::int64_t>(kWarp, n - k));
    for (int i = 0; i < m; ++i) g[i] = idx[k + i] >> 2;
    sectors += distinct(g, m);
  }
  return sectors;
}

template <typename T>
MatrixFeatures matrix_features(const CsrView<T> &A) {
  MatrixFeatures f;
  f.nrows = A.nrows, f.ncols = A.ncols;
  const index_t n = A.nrows;
  if (n == 0) return f;
  f.nnz = std::int64_t(A.rowptr[n]) - A.rowptr[0];
  auto len = [&](index_t r) { return A.rowptr[r + 1] - A.rowptr[r]; };

  // row lengths: empty rows, longest, mean and spread; the histogram for the sorted padding
  double sq = 0;
  for (index_t r = 0; r < n; ++r) {
    const index_t l = len(r);
    f.empty_rows += l == 0;
    f.max_row = std::max(f.max_row, l);
    sq += double(l) * double(l);
  }
  f.mean_row = double(f.nnz) / double(n);
  f.cv_row   = f.mean_row > 0 ? std::sqrt(std::max(0.0, sq / double(n) - f.mean_row * f.mean_row)) / f.mean_row : 0.0;
  std::vector<std::int64_t> hist(std::size_t(f.max_row) + 1, 0);
  for (index_t r = 0; r < n; ++r) ++hist[std::size_t(len(r))];

  // sliced ELL in the matrix's order, slices of a warp's 32 rows: each padded to its longest row;
  // the sectors of x its steps gather (step j: the j-th entries of the slice's rows that have one)
  std::int64_t sell = 0, sec_ell = 0;
  index_t      g[kWarp];
  for (index_t s = 0; s < n; s += kWarp) {
    const index_t e = std::min<index_t>(n, s + kWarp);
    index_t       m = 0;
    for (index_t r = s; r < e; ++r) m = std::max(m, len(r));
    sell += std::int64_t(m) * (e - s);
    // the rows longest first: step j takes the prefix still longer than j (time linear in the
    // slice's entries, not its width x 32: one long row among short ones costs its own length)
    index_t order[kWarp];
    int     active = int(e - s);
    for (int i = 0; i < active; ++i) order[i] = s + i;
    std::sort(order, order + active, [&](index_t a, index_t b) { return len(a) > len(b); });
    for (index_t j = 0; j < m; ++j) {
      while (active > 0 && len(order[active - 1]) <= j) --active;
      for (int i = 0; i < active; ++i) g[i] = A.colidx[A.rowptr[order[i]] + j] >> 2;
      sec_ell += distinct(g, active);
    }
  }
  // sorted by length (descending), in blocks of 32
  std::vector<std::pair<index_t, double>> runs;
  for (index_t L = f.max_row + 1; L-- > 0;)
    if (hist[std::size_t(L)] > 0) runs.emplace_back(L, double(hist[std::size_t(L)]));
  const double sorted_pad = sorted_padding(runs);
  if (f.nnz > 0) {
    f.padding_sell   = double(sell - f.nnz) / double(f.nnz);
    f.padding_sorted = sorted_pad / double(f.nnz);
  }

  // grid-aligned blocks of bs x bs
  for (int bs = 2; bs <= 4; ++bs) f.blocks_bs[bs - 2] = grid_blocks(A, bs);

  // sectors of x (4 fp64 values each) per 32 entries: CSR order here, ELL order with the slices above
  const std::int64_t sec_csr = warp_sectors(A.colidx + A.rowptr[0], f.nnz);
  if (f.nnz > 0) f.sectors_csr = double(sec_csr) * kWarp / double(f.nnz); // per 32 entries (the last group scaled)
  if (f.nnz > 0) f.sectors_ell = double(sec_ell) * kWarp / double(f.nnz);

  // distance from the diagonal
  if (f.nnz > 0 && A.ncols > 0) {
    const double scale = double(A.ncols) / double(n);
    double       d     = 0;
    for (index_t r = 0; r < n; ++r)
      for (index_t k = A.rowptr[r]; k < A.rowptr[r + 1]; ++k) d += std::fabs(double(A.colidx[k]) - double(r) * scale);
    f.diag_distance = d / double(f.nnz) / double(A.ncols);
  }
  return f;
}

template MatrixFeatures matrix_features<double>(const CsrView<double> &);
template MatrixFeatures matrix_features<float>(const CsrView<float> &);

} // namespace gpumat
