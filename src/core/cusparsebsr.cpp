// cusparsebsr host side: block counts and bytes, the block size choice, the layout builder and the
// reference product (see the header).
#include "cusparsebsr.hpp"
#include "format_record.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>

namespace gpumat {

namespace {

void check_bs(int bs) {
  if (bs < bsr_min_bs || bs > bsr_max_bs)
    throw std::invalid_argument("cusparsebsr: the block size must be in [" + std::to_string(bsr_min_bs) + "," +
                                std::to_string(bsr_max_bs) + "], got " + std::to_string(bs));
}

index_t blocks_of(index_t n, int bs) { return index_t((std::int64_t(n) + bs - 1) / bs); }

} // namespace

template <typename T>
std::vector<std::int64_t> bsr_block_counts(const CsrView<T> &A, int lo, int hi) {
  check_bs(lo);
  check_bs(hi);
  const int                         nbs = hi - lo + 1;
  std::vector<std::vector<index_t>> last(std::size_t(nbs > 0 ? nbs : 0)); // per bs: the block row that last used a block column
  std::vector<std::int64_t>         nnzb(last.size(), 0);
  for (int t = 0; t < nbs; ++t) last[std::size_t(t)].assign(std::size_t(blocks_of(A.ncols, lo + t)), index_t(-1));
  for (index_t r = 0; r < A.nrows; ++r)
    for (index_t k = A.rowptr[r]; k < A.rowptr[r + 1]; ++k)
      for (int t = 0; t < nbs; ++t) {
        const index_t bs = index_t(lo + t), I = r / bs;
        index_t      &l  = last[std::size_t(t)][std::size_t(A.colidx[k] / bs)];
        if (l != I) { // block rows are visited in order: a block column is new to I when I did not mark it
          l = I;
          ++nnzb[std::size_t(t)];
        }
      }
  return nnzb;
}

template <typename T>
std::int64_t bsr_block_count(const CsrView<T> &A, int bs) {
  return bsr_block_counts(A, bs, bs)[0];
}

std::size_t bsr_bytes(index_t m, index_t n, std::int64_t nnz, std::int64_t nnzb, int bs, std::size_t scalar) {
  const std::size_t mb = std::size_t(blocks_of(m, bs)), nb = std::size_t(blocks_of(n, bs));
  std::size_t       b  = std::size_t(nnzb) * (std::size_t(bs) * bs * scalar + sizeof(index_t)) + (mb + 1) * sizeof(index_t);
  b += std::size_t(nnz) * (sizeof(index_t) + scalar); // slot map, staging of the refresh
  if (n % bs) b += nb * bs * scalar;                  // padded x
  if (m % bs) b += mb * bs * scalar;                  // padded y
  return b;
}

template <typename T>
int bsr_choose_bs(const CsrView<T> &A, int user, int hint, BsrChoice *why, std::vector<std::size_t> *candidate_bytes) {
  if (user) {
    check_bs(user);
    if (why) *why = BsrChoice::Option;
    return user;
  }
  if (hint >= bsr_min_bs && hint <= bsr_max_bs) {
    if (why) *why = BsrChoice::Hint;
    return hint;
  }
  int         best = bsr_auto_min;
  std::size_t best_bytes = std::numeric_limits<std::size_t>::max();
  if (candidate_bytes) candidate_bytes->clear();
  const std::vector<std::int64_t> nnzb = bsr_block_counts(A, bsr_auto_min, bsr_auto_max);
  for (int bs = bsr_auto_min; bs <= bsr_auto_max; ++bs) {
    const std::size_t b = bsr_bytes(A.nrows, A.ncols, A.nnz(), nnzb[std::size_t(bs - bsr_auto_min)], bs, sizeof(T));
    if (candidate_bytes) candidate_bytes->push_back(b);
    if (b < best_bytes) { // strict: ties go to the smaller block
      best       = bs;
      best_bytes = b;
    }
  }
  if (why) *why = BsrChoice::FewestBytes;
  return best;
}

template <typename T>
void BsrHost<T>::build(const CsrView<T> &A, int bs, bool row_major) {
  const std::int64_t nnzb = bsr_block_count(A, bs); // checks bs
  if (nnzb * bs * bs > std::numeric_limits<index_t>::max())
    throw std::length_error("cusparsebsr: " + std::to_string(nnzb) + " blocks of " + std::to_string(bs) + " x " + std::to_string(bs) +
                            " exceed 32-bit value positions");
  BsrLayout L;
  L.nrows     = A.nrows;
  L.ncols     = A.ncols;
  L.bs        = bs;
  L.mb        = blocks_of(A.nrows, bs);
  L.nb        = blocks_of(A.ncols, bs);
  L.row_major = row_major;
  L.rowptr.assign(std::size_t(L.mb) + 1, 0);
  L.colidx.reserve(std::size_t(nnzb));
  L.slot.assign(std::size_t(A.nnz()), 0);
  // Block row I merges the sorted column lists of its (up to) bs rows by block column, as the
  // device builder does: each step takes the smallest block column under the cursors and advances
  // every cursor past it.
  index_t p[bsr_max_bs], e[bsr_max_bs];
  for (index_t I = 0; I < L.mb; ++I) {
    const index_t r0 = I * bs, nr = index_t(std::min<std::int64_t>(bs, std::int64_t(A.nrows) - r0));
    for (index_t i = 0; i < nr; ++i) {
      p[i] = A.rowptr[r0 + i];
      e[i] = A.rowptr[r0 + i + 1];
    }
    for (;;) {
      index_t J = std::numeric_limits<index_t>::max();
      for (index_t i = 0; i < nr; ++i)
        if (p[i] < e[i]) J = std::min(J, A.colidx[p[i]] / bs);
      if (J == std::numeric_limits<index_t>::max()) break;
      const index_t b = index_t(L.colidx.size());
      L.colidx.push_back(J);
      for (index_t i = 0; i < nr; ++i)
        for (; p[i] < e[i] && A.colidx[p[i]] / bs == J; ++p[i]) L.slot[std::size_t(p[i])] = b * bs * bs + L.in_block(i, A.colidx[p[i]] % bs);
    }
    L.rowptr[std::size_t(I) + 1] = index_t(L.colidx.size());
  }
  L_ = std::move(L);
  val_.assign(std::size_t(L_.stored()), T(0));
  refresh(A.val);
}

template <typename T>
void BsrHost<T>::refresh(const T *val) {
  for (std::size_t k = 0; k < L_.slot.size(); ++k) val_[std::size_t(L_.slot[k])] = val[k];
}

template <typename T>
void BsrHost<T>::apply(Op op, const T *x, const T *z, T *y) const {
  const index_t  bs = L_.bs, bs2 = bs * bs;
  std::vector<T> acc(std::size_t(bs > 0 ? bs : 1));
  if (op == Op::Trans) {
    for (index_t c = 0; c < L_.ncols; ++c) y[c] = z ? z[c] : T(0);
    for (index_t I = 0; I < L_.mb; ++I)
      for (index_t b = L_.rowptr[std::size_t(I)]; b < L_.rowptr[std::size_t(I) + 1]; ++b)
        for (index_t j = 0; j < bs; ++j) {
          const index_t c = L_.colidx[std::size_t(b)] * bs + j;
          if (c >= L_.ncols) break; // padded column
          T s = T(0);
          for (index_t i = 0; i < bs && I * bs + i < L_.nrows; ++i) s += val_[std::size_t(b * bs2 + L_.in_block(i, j))] * x[I * bs + i];
          y[c] += s;
        }
    return;
  }
  for (index_t I = 0; I < L_.mb; ++I) {
    std::fill(acc.begin(), acc.end(), T(0));
    for (index_t b = L_.rowptr[std::size_t(I)]; b < L_.rowptr[std::size_t(I) + 1]; ++b)
      for (index_t j = 0; j < bs; ++j) {
        const index_t c = L_.colidx[std::size_t(b)] * bs + j;
        if (c >= L_.ncols) break; // padded column: zero values, and no x[c]
        for (index_t i = 0; i < bs; ++i) acc[std::size_t(i)] += val_[std::size_t(b * bs2 + L_.in_block(i, j))] * x[c];
      }
    for (index_t i = 0; i < bs && I * bs + i < L_.nrows; ++i) {
      const index_t r = I * bs + i;
      y[r]            = z ? z[r] + acc[std::size_t(i)] : acc[std::size_t(i)];
    }
  }
}

#define GPUMAT_BSR_INSTANTIATE(T)                                                                                 \
  template std::int64_t bsr_block_count<T>(const CsrView<T> &, int);                                            \
  template std::vector<std::int64_t> bsr_block_counts<T>(const CsrView<T> &, int, int);                         \
  template int          bsr_choose_bs<T>(const CsrView<T> &, int, int, BsrChoice *, std::vector<std::size_t> *); \
  template class BsrHost<T>;
GPUMAT_BSR_INSTANTIATE(double)
GPUMAT_BSR_INSTANTIATE(float)
#undef GPUMAT_BSR_INSTANTIATE

} // namespace gpumat

// ---- the record (src/core/format_record.hpp) ------------------------------------------------
namespace gpumat {

namespace {

// gpuauto's byte model: the adapter's block size, the matrix's when in bsr_min_bs..bsr_max_bs, else
// the fewest bytes among the sizes the sample counted (2, 3, 4, 6); its constants by block size
// ("cusparsebsr:3")
bool bsr_auto_shape(const AutoHints &h, const AutoSample &s, AutoShape &sh) {
  const MatrixFeatures &f = s.f;
  const double          n = f.nrows, z = double(f.nnz);
  char                  buf[160];
  int                   bs     = 0;
  std::int64_t          blocks = 0;
  auto                  known  = [&](int b) -> std::int64_t { return b == 6 ? s.blocks6 : (b >= 2 && b <= 4 ? f.blocks_bs[b - 2] : -1); };
  if (h.block_size >= bsr_min_bs && h.block_size <= bsr_max_bs) {
    bs = h.block_size, blocks = known(bs);
    if (blocks < 0) return false; // a block size whose blocks the sample did not count
  } else {
    double best = 0;
    for (int b : {2, 3, 4, 6}) {
      const double bb = double(known(b)) * (8.0 * b * b + 4);
      if (bs == 0 || bb < best) best = bb, bs = b, blocks = known(b);
    }
  }
  sh.bytes  = double(blocks) * (8.0 * bs * bs + 4) + 4 * (n / bs + 1);
  sh.excess = 0; // a block row reads its blocks' bs columns of x together
  sh.key += ":" + std::to_string(bs);
  std::snprintf(buf, sizeof buf, "%dx%d blocks, fill %.3f", bs, bs, blocks ? z / (double(blocks) * bs * bs) : 0.0);
  sh.detail = buf;
  return true;
}

} // namespace

const FormatRecord &cusparsebsr_record() {
  static const FormatRecord r = [] {
    FormatRecord r("cusparsebsr");
    r.caps.block_size_hint = true;
    {
      OptionRecord &o = r.add(OptionKind::Int, "bs", "BSR block dimension: 2..16, or 0 for the matrix's block size (when in 2..16), else the size in 2..6 that stores the fewest bytes", "0");
      o.lo = 0, o.hi = bsr_max_bs, o.allowed = {{0, 0}, {bsr_min_bs, bsr_max_bs}};
      o.range_error = "{name} must be 0 (the default) or in [" + std::to_string(bsr_min_bs) + ", " + std::to_string(bsr_max_bs) + "], got {value}";
    }
    r.add(OptionKind::Bool, "row_major", "Row-major blocks instead of column-major", "false");
    r.gpuauto.model     = bsr_auto_shape;
    r.gpuauto.constants = {
      {"cusparsebsr", {2.00, 0.0, 2.00}},   {"cusparsebsr:2", {1.25, 0.0, 1.10}}, {"cusparsebsr:3", {1.12, 0.0, 1.05}},
      {"cusparsebsr:4", {1.40, 0.0, 1.20}}, {"cusparsebsr:6", {1.90, 0.0, 1.60}},
    };
    // build (ns per nonzero, ns per row, us): the fit to 24 builds, |relative error| median 40 %.
    // With a block size given the builds took 6-10 ns per nonzero; with the host pass choosing
    // among 2..6, 10-115, the most where the columns are scattered (circuit, short4, econ, web:
    // 60-115), which none of the terms follows
    r.gpuauto.build = {7.84, 52.3, 18400};
    return r;
  }();
  return r;
}

} // namespace gpumat
