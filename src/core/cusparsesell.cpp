// cusparsesell host side: statistics, the layout builder and the reference product (see the header).
#include "cusparsesell.hpp"
#include "format_record.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>

namespace gpumat {

namespace {

void check_slice(int S) {
  if (S < sell_min_slice || S > sell_max_slice)
    throw std::invalid_argument("cusparsesell: the slice size must be in [" + std::to_string(sell_min_slice) + "," +
                                std::to_string(sell_max_slice) + "], got " + std::to_string(S));
}

} // namespace

template <typename T>
SellStats sell_stats(const CsrView<T> &A, int S) {
  check_slice(S);
  SellStats st;
  st.slices = (std::int64_t(A.nrows) + S - 1) / S;
  for (std::int64_t s = 0; s < st.slices; ++s) {
    const index_t r0 = index_t(s * S), r1 = index_t(std::min<std::int64_t>(A.nrows, (s + 1) * S));
    index_t       w  = 0;
    for (index_t r = r0; r < r1; ++r) w = std::max(w, A.rowptr[r + 1] - A.rowptr[r]);
    st.max_width = std::max(st.max_width, w);
    st.padded += std::int64_t(w) * S;
  }
  return st;
}

template <typename T>
void SellHost<T>::build(const CsrView<T> &A, int S) {
  const SellStats st = sell_stats(A, S);
  if (st.padded > std::numeric_limits<index_t>::max())
    throw std::length_error("cusparsesell: " + std::to_string(st.padded) + " stored entries (nonzeros and padding) at slice size " +
                            std::to_string(S) + " exceed 32-bit positions");
  SellLayout L;
  L.nrows = A.nrows;
  L.ncols = A.ncols;
  L.slice = S;
  L.slice_offsets.assign(std::size_t(st.slices) + 1, 0);
  for (std::int64_t s = 0; s < st.slices; ++s) {
    const index_t r0 = index_t(s * S), r1 = index_t(std::min<std::int64_t>(A.nrows, (s + 1) * S));
    index_t       w  = 0;
    for (index_t r = r0; r < r1; ++r) w = std::max(w, A.rowptr[r + 1] - A.rowptr[r]);
    L.slice_offsets[std::size_t(s) + 1] = L.slice_offsets[std::size_t(s)] + w * S;
  }
  L.colidx.assign(std::size_t(st.padded), index_t(-1));
  L.slot.assign(std::size_t(A.nnz()), 0);
  for (index_t r = 0; r < A.nrows; ++r) {
    const index_t base = L.slice_offsets[std::size_t(r / S)] + r % S;
    for (index_t k = A.rowptr[r]; k < A.rowptr[r + 1]; ++k) {
      const index_t pos          = base + (k - A.rowptr[r]) * S;
      L.slot[std::size_t(k)]     = pos;
      L.colidx[std::size_t(pos)] = A.colidx[k];
    }
  }
  L_ = std::move(L);
  val_.assign(std::size_t(st.padded), T(0));
  refresh(A.val);
}

template <typename T>
void SellHost<T>::refresh(const T *val) {
  for (std::size_t k = 0; k < L_.slot.size(); ++k) val_[std::size_t(L_.slot[k])] = val[k];
}

template <typename T>
void SellHost<T>::apply(Op op, const T *x, const T *z, T *y) const {
  const index_t S = L_.slice;
  if (op == Op::Trans) {
    for (index_t c = 0; c < L_.ncols; ++c) y[c] = z ? z[c] : T(0);
    for (index_t r = 0; r < L_.nrows; ++r) {
      const index_t s = r / S, base = L_.slice_offsets[std::size_t(s)] + r % S;
      const index_t w = (L_.slice_offsets[std::size_t(s) + 1] - L_.slice_offsets[std::size_t(s)]) / S;
      for (index_t j = 0; j < w; ++j) {
        const index_t p = base + j * S, c = L_.colidx[std::size_t(p)];
        if (c >= 0) y[c] += val_[std::size_t(p)] * x[r];
      }
    }
    return;
  }
  for (index_t r = 0; r < L_.nrows; ++r) {
    const index_t s = r / S, base = L_.slice_offsets[std::size_t(s)] + r % S;
    const index_t w = (L_.slice_offsets[std::size_t(s) + 1] - L_.slice_offsets[std::size_t(s)]) / S;
    T             sum = T(0);
    for (index_t j = 0; j < w; ++j) { // padding: column -1, value 0, skipped
      const index_t p = base + j * S, c = L_.colidx[std::size_t(p)];
      if (c >= 0) sum += val_[std::size_t(p)] * x[c];
    }
    y[r] = z ? z[r] + sum : sum;
  }
}

#define GPUMAT_SELL_INSTANTIATE(T)                                \
  template SellStats sell_stats<T>(const CsrView<T> &, int); \
  template class SellHost<T>;
GPUMAT_SELL_INSTANTIATE(double)
GPUMAT_SELL_INSTANTIATE(float)
#undef GPUMAT_SELL_INSTANTIATE

} // namespace gpumat

// ---- the record (src/core/format_record.hpp) ------------------------------------------------
namespace gpumat {

namespace {

// gpuauto's byte model: slices of 32 rows in the matrix's order, padded to their longest row
bool sell_auto_shape(const AutoHints &, const AutoSample &s, AutoShape &sh) {
  const MatrixFeatures &f = s.f;
  const double          n = f.nrows, z = double(f.nnz);
  char                  buf[160];
  sh.bytes  = 12 * z * (1 + f.padding_sell) + 4 * (n / 32 + 1);
  sh.excess = z / 32 * std::max(0.0, f.sectors_ell - 8);
  std::snprintf(buf, sizeof buf, "slices of 32 rows, padding %.1f %%", 100 * f.padding_sell);
  sh.detail = buf;
  return true;
}

} // namespace

const FormatRecord &cusparsesell_record() {
  static const FormatRecord r = [] {
    FormatRecord  r("cusparsesell");
    OptionRecord &o = r.add(OptionKind::Int, "slice", "Rows per slice of cuSPARSE's sliced ELL (1..1024)", std::to_string(sell_default_slice));
    o.lo = sell_min_slice, o.hi = sell_max_slice;
    r.gpuauto.model     = sell_auto_shape;
    r.gpuauto.constants = {{"cusparsesell", {1.07, 2.0, 0.88}}};
    // build (ns per nonzero, ns per row, us): the fit to 24 builds, |relative error| median 9 %
    r.gpuauto.build = {1.62, 3.56, 4720};
    // the H200 suite of docs/results/h200-2026-11-26-suite: pjds ran 1-5 % ahead of cuSPARSE SELL
    // on the uniform short rows (short4_30M, short4_526k; on the H100 too) where the model had them
    // tied (0.88 each)
    r.gpuauto.overrides = {{"H200", "cusparsesell", &AutoFormatConstants::g, 0.90}};
    return r;
  }();
  return r;
}

} // namespace gpumat
