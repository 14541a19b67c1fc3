// pjds's parameters (pjds.hpp): the user's checked and resolved (pjds_resolve), the padding a
// layout has (pjds_padding), the byte model's choice (pjds_model: padding by sorting window on the
// rows' length histograms) and the paper's code balance.
#include "pjds.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace gpumat {

namespace {

void check(bool ok, const std::string &what) {
  if (!ok) throw std::invalid_argument("pjds: " + what);
}

std::int64_t round_window(std::int64_t sigma, int br) {
  if (sigma <= 1) return 1;
  if (sigma >= pjds_all_rows) return pjds_all_rows;
  return (sigma + br - 1) / br * br;
}

// Padding of blocks of br positions over lengths taken from the largest down: a histogram of one
// window, `fill` positions already in the current block with maximum `bmax` (windows are whole
// blocks except the last, so a window starts a block).
std::int64_t pad_from_histogram(const std::vector<std::int64_t> &hist, int br) {
  std::int64_t pad = 0, fill = 0, bmax = 0;
  for (std::size_t L = hist.size(); L-- > 0;) {
    std::int64_t c = hist[L];
    while (c > 0) {
      if (fill == 0) bmax = std::int64_t(L);
      const std::int64_t t = std::min<std::int64_t>(c, br - fill);
      pad += t * (bmax - std::int64_t(L));
      fill = (fill + t) % br;
      c -= t;
    }
  }
  return pad;
}

// Padding of the pJDS part whose rows have lengths `len` (matrix order), windows of w rows (a
// multiple of br, or 1, or all), blocks of br. Windows by counting sort when their longest row is
// short against the window, else by a sort.
std::int64_t padding_of(const std::vector<index_t> &len, std::int64_t w, int br) {
  const std::int64_t n = std::int64_t(len.size());
  std::int64_t       pad = 0;
  if (w <= 1) {
    for (std::int64_t b = 0; b < n; b += br) {
      const std::int64_t e = std::min(n, b + br);
      index_t            mx = 0;
      std::int64_t       sum = 0;
      for (std::int64_t i = b; i < e; ++i) mx = std::max(mx, len[std::size_t(i)]), sum += len[std::size_t(i)];
      pad += std::int64_t(mx) * (e - b) - sum;
    }
    return pad;
  }
  std::vector<std::int64_t> hist;
  std::vector<index_t>      tmp;
  for (std::int64_t s = 0; s < n; s += std::min<std::int64_t>(w, n)) {
    const std::int64_t e  = std::min(n, s + std::min<std::int64_t>(w, n));
    const index_t      mx = *std::max_element(len.begin() + s, len.begin() + e);
    if (std::int64_t(mx) + 1 <= 4 * (e - s)) {
      hist.assign(std::size_t(mx) + 1, 0);
      for (std::int64_t i = s; i < e; ++i) ++hist[std::size_t(len[std::size_t(i)])];
      pad += pad_from_histogram(hist, br);
    } else {
      tmp.assign(len.begin() + s, len.begin() + e);
      std::sort(tmp.begin(), tmp.end(), std::greater<index_t>());
      for (std::size_t b = 0; b < tmp.size(); b += std::size_t(br)) {
        const std::size_t be = std::min(tmp.size(), b + std::size_t(br));
        for (std::size_t i = b; i < be; ++i) pad += tmp[b] - tmp[i];
      }
    }
  }
  return pad;
}
} // namespace

PjdsParams pjds_resolve(PjdsParams p) {
  if (p.block_rows == 0) p.block_rows = 32;
  check(p.block_rows >= 1 && p.block_rows <= pjds_max_block_rows, "block_rows must be in [1," + std::to_string(pjds_max_block_rows) + "] (or 0 for 32), got " + std::to_string(p.block_rows));
  check(p.sigma >= 0, "sigma must be 1 (no sorting), a window of rows, or 0 for the model; got " + std::to_string(p.sigma));
  check(p.long_row >= 0, "long_row must be a positive row length, or 0 for the model; got " + std::to_string(p.long_row));
  check(p.columns == PjdsColumns::Auto || p.columns == PjdsColumns::Plain || p.columns == PjdsColumns::Dictionary || p.columns == PjdsColumns::Positional, "columns must be auto, plain, dictionary or positional");
  check(p.values == PjdsValues::Auto || p.values == PjdsValues::Plain || p.values == PjdsValues::Table, "values must be auto, plain or table");
  if (p.sigma > 0) p.sigma = round_window(p.sigma, p.block_rows);
  return p;
}

template <typename T>
std::int64_t pjds_padding(const CsrView<T> &A, const PjdsParams &q) {
  const PjdsParams     p = pjds_resolve(q);
  std::vector<index_t> rows, len;
  pjds_short_rows(A, p.long_row > 0 ? p.long_row : std::int64_t(INT_MAX), rows, len);
  return padding_of(len, p.sigma > 0 ? p.sigma : pjds_all_rows, p.block_rows);
}

namespace {

// The length histograms of consecutive windows of `base` positions over `len` (one pass), from
// which the padding of any window size that is a multiple of `base` adds up without another pass
// over the rows: a window's histogram is the sum of its base windows'.
class WindowHistograms {
public:
  // From the CSR in one pass over the row pointers of the row ranges [first, second) (in order):
  // their rows of at most long_row nonzeros are the positions (the ranges concatenated); also
  // their nonzeros and the padding without sorting (w = 1). The histograms have a bin per length
  // up to the longest such row; where that would take more than about 4 counts per row (a long_row
  // set far above the default on a matrix with long rows), a first pass finds that
  // longest row, and if the histograms are still that large the lengths are kept instead and
  // padded window by window (padding_of).
  template <typename T>
  WindowHistograms(const CsrView<T> &A, std::int64_t long_row, std::int64_t base, int br, const std::vector<std::pair<index_t, index_t>> &ranges) : base_(base) {
    std::int64_t rows = 0;
    for (const auto &rg : ranges) rows += rg.second - rg.first;
    const std::int64_t nwin = (rows + base - 1) / base + 1, budget = 4 * rows + 4096;
    std::int64_t       mx   = std::min<std::int64_t>(long_row, std::max<std::int64_t>(A.nnz(), 0));
    if (nwin * (mx + 1) > budget) {
      mx = 0;
      for (const auto &rg : ranges)
        for (index_t r = rg.first; r < rg.second; ++r) {
          const std::int64_t n = A.rowptr[r + 1] - A.rowptr[r];
          if (n <= long_row) mx = std::max(mx, n);
        }
    }
    bins_               = std::size_t(mx) + 1;
    const bool keep_len = nwin * (mx + 1) > budget;
    if (keep_len) len_.reserve(std::size_t(rows));
    else hist_.assign(std::size_t(nwin) * bins_, 0);
    std::int64_t *h = hist_.data(), in_window = 0, in_block = 0, bmax = 0, bsum = 0;
    for (const auto &rg : ranges) {
      index_t prev = A.rowptr[rg.first];
      for (index_t r = rg.first; r < rg.second; ++r) {
        const index_t next = A.rowptr[r + 1], n = next - prev;
        prev               = next;
        if (n > long_row) continue;
        nnz_ += n;
        bmax = std::max<std::int64_t>(bmax, n), bsum += n;
        if (++in_block == br) pad1_ += bmax * br - bsum, in_block = bmax = bsum = 0;
        if (keep_len) len_.push_back(n);
        else {
          ++h[n];
          if (++in_window == base) h += bins_, in_window = 0;
        }
      }
    }
    pad1_ += bmax * in_block - bsum;
  }
  std::int64_t nnz() const { return nnz_; }
  std::int64_t padding_unsorted() const { return pad1_; }
  std::int64_t base() const { return base_; }
  // padding with windows of w positions (a multiple of base), blocks of br
  std::int64_t padding(std::int64_t w, int br) const {
    if (hist_.empty()) return padding_of(len_, w, br); // the lengths kept
    const std::size_t         per = std::size_t(w / base_), nb = hist_.size() / bins_;
    std::vector<std::int64_t> h(bins_);
    std::int64_t              pad = 0;
    for (std::size_t b0 = 0; b0 < nb; b0 += per) {
      std::fill(h.begin(), h.end(), 0);
      for (std::size_t b = b0; b < std::min(nb, b0 + per); ++b)
        for (std::size_t L = 0; L < bins_; ++L) h[L] += hist_[b * bins_ + L];
      pad += pad_from_histogram(h, br);
    }
    return pad;
  }

  // padding of one window of every position (the global sort), the counts scaled by factor
  std::int64_t padding_all(double factor, int br) const {
    std::vector<std::int64_t> h(bins_, 0);
    for (std::size_t b = 0; b < hist_.size() / bins_; ++b)
      for (std::size_t L = 0; L < bins_; ++L) h[L] += hist_[b * bins_ + L];
    for (index_t l : len_) ++h[std::size_t(l)]; // (the lengths, when they are kept instead)
    if (factor != 1.0)
      for (auto &c : h) c = std::int64_t(std::llround(double(c) * factor));
    return pad_from_histogram(h, br);
  }

private:
  std::int64_t              base_, nnz_ = 0, pad1_ = 0;
  std::size_t               bins_ = 1;
  std::vector<std::int64_t> hist_; // nwin x bins_ counts, or empty and:
  std::vector<index_t>      len_;  // the positions' lengths
};

} // namespace

template <typename T>
PjdsChoice pjds_model(const CsrView<T> &A, const PjdsParams &user) {
  PjdsChoice ch;
  PjdsParams p = pjds_resolve(user);
  if (p.long_row == 0) p.long_row = default_long_row(A.nrows, std::int64_t(A.nnz()), longest_row(A));
  // positional columns pad each block to its offsets, not to its longest row: sorting by length
  // saves them no padding and mixes rows whose offsets differ (fem3 -n 6 sorted: 50,232 positions
  // against the 32-bit layout's 29,328 entries, declined)
  if (p.sigma == 0 && p.columns == PjdsColumns::Positional) p.sigma = 1;
  if (p.sigma == 0) {
    const std::int64_t local = round_window(kPjdsLocalWindow, p.block_rows);
    const bool         every_row = A.nrows <= kPjdsModelRows;
    double             factor = 1.0, nnz = 0.0;
    // The histograms of the rows sampled for windows of w_sample rows (every row up to
    // kPjdsModelRows rows; else windows spread evenly, see pjds.hpp), in windows of `base`
    // positions: one pass over their row pointers, kept while (long_row, sample, base) stays.
    std::unique_ptr<WindowHistograms> hists;
    std::int64_t                      have_long = -1, have_key = -1, have_base = -1;
    auto get = [&](std::int64_t w_sample, std::int64_t base) -> const WindowHistograms & {
      const std::int64_t nwin = std::max<std::int64_t>(4, std::min<std::int64_t>(kPjdsModelWindows, kPjdsModelRows / std::max<std::int64_t>(w_sample, 1)));
      const bool         all_rows = every_row || std::int64_t(A.nrows) < nwin * w_sample;
      const std::int64_t key = all_rows ? 0 : w_sample;
      if (!hists || have_long != p.long_row || have_key != key || have_base != base) {
        std::vector<std::pair<index_t, index_t>> ranges;
        if (all_rows) ranges.emplace_back(0, A.nrows), factor = 1.0;
        else {
          for (std::int64_t k = 0; k < nwin; ++k) { // window-aligned starts spread over the rows
            const std::int64_t s0 = k * ((std::int64_t(A.nrows) - w_sample) / (nwin - 1)) / w_sample * w_sample;
            ranges.emplace_back(index_t(s0), index_t(s0 + w_sample));
          }
          factor = double(A.nrows) / double(nwin * w_sample);
        }
        hists     = std::make_unique<WindowHistograms>(A, p.long_row, base, p.block_rows, ranges);
        have_long = p.long_row, have_key = key, have_base = base;
      }
      nnz = factor * double(hists->nnz());
      return *hists;
    };
    for (int k = 0; k < kPjdsNumWindows; ++k) {
      const std::int64_t w   = round_window(kPjdsWindows[k], p.block_rows);
      const bool         all = w == pjds_all_rows || (w > 1 && w >= A.nrows); // a window of every row
      std::int64_t      &pad = ch.padding[all ? kPjdsNumWindows - 1 : k];
      // sigma 1 and all rows judged on windows of `local` rows, the others on windows of w rows
      // (with every row sampled, windows that are multiples of `local` from its histograms)
      if (w == 1 || all) {
        const WindowHistograms &h = get(local, local);
        pad = all ? h.padding_all(factor, p.block_rows) : std::int64_t(factor * double(h.padding_unsorted()));
      } else if (every_row && w % local == 0) pad = get(local, local).padding(w, p.block_rows);
      else pad = std::int64_t(factor * double(get(w, w).padding(w, p.block_rows)));
      if (double(pad) <= kPjdsPadTarget * nnz) {
        p.sigma = all ? pjds_all_rows : w;
        break;
      }
      if (all) break;
    }
    if (p.sigma == 0) { // sorted, still above the target: the longest rows go to the long part,
      p.sigma = pjds_all_rows; // halving the threshold down to kPjdsLongLow (a warp's worth)
      std::int64_t &pad = ch.padding[kPjdsNumWindows - 1];
      while (user.long_row == 0 && double(pad) > kPjdsPadTarget * nnz && p.long_row / 2 >= kPjdsLongLow) {
        p.long_row /= 2;
        pad = get(local, local).padding_all(factor, p.block_rows);
      }
    }
  }
  ch.p = p;
  return ch;
}

double pjds_code_balance(double nnzr, double alpha, double rho) {
  return ((8.0 + 4.0) * rho + 8.0 * alpha + (nnzr > 0 ? 16.0 / nnzr : 0.0)) / 2.0;
}

template std::int64_t pjds_padding<double>(const CsrView<double> &, const PjdsParams &);
template std::int64_t pjds_padding<float>(const CsrView<float> &, const PjdsParams &);
template PjdsChoice   pjds_model<double>(const CsrView<double> &, const PjdsParams &);
template PjdsChoice   pjds_model<float>(const CsrView<float> &, const PjdsParams &);

} // namespace gpumat
