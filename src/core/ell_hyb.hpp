// The stored size of ELL and HYB for a CSR matrix, from its row lengths: the baselines that BCE's
// paper (and Bell & Garland) compare against. Shared by bce's MatView and the benchmark's footprint.
#pragma once
#include "csr.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace gpumat {

struct EllHyb {
  index_t      nrows     = 0;
  index_t      ell_width = 0; // the longest row
  index_t      hyb_width = 0; // K: the largest length that max(4096, rows / 3) rows (at most all) reach
  std::int64_t hyb_coo   = 0; // entries beyond K, stored as COO
  double       ell_bytes() const;
  double       hyb_bytes() const;
};
inline double EllHyb::ell_bytes() const { return 12.0 * double(nrows) * double(ell_width); }          // fp64 + 32-bit columns
inline double EllHyb::hyb_bytes() const { return 12.0 * double(nrows) * double(hyb_width) + 16.0 * double(hyb_coo); } // ELL x K + COO 16 B each

// One pass over the row pointers: a histogram of lengths, its suffix sums (rows reaching each
// length), K, and the entries beyond K.
template <typename T>
EllHyb ell_hyb(const CsrView<T> &A) {
  EllHyb e;
  e.nrows = A.nrows;
  e.ell_width = longest_row(A);
  std::vector<std::int64_t> reach(std::size_t(e.ell_width) + 2, 0);
  for (index_t r = 0; r < A.nrows; ++r) ++reach[std::size_t(A.rowptr[r + 1] - A.rowptr[r])];
  for (index_t L = e.ell_width; L > 0; --L) reach[std::size_t(L) - 1] += reach[std::size_t(L)]; // rows of >= L entries
  const std::int64_t need = std::min<std::int64_t>(A.nrows, std::max<std::int64_t>(4096, A.nrows / 3));
  while (e.hyb_width < e.ell_width && reach[std::size_t(e.hyb_width) + 1] >= need) ++e.hyb_width;
  for (index_t r = 0; r < A.nrows; ++r) e.hyb_coo += std::max<std::int64_t>(0, A.rowptr[r + 1] - A.rowptr[r] - e.hyb_width);
  return e;
}

} // namespace gpumat
