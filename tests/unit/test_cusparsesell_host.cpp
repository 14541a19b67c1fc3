// cusparsesell host layer: the sliced-ELL layout (slice offsets, padding, slot map), statistics,
// refresh and the reference product over the stored arrays against a plain long-double CSR product.
#include "core/cusparsesell.hpp"
#include "matgen.hpp"
#include "host_helpers.hpp"
#include "params.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

using gpumat::index_t;
using gpumat::Op;
using gpumat::SellHost;
using gpumat::SellLayout;

namespace {

using gpumat_test::tolerance;

using gpumat_test::ZMode;

const int kSlices[] = {1, 2, 3, 7, 32, 64};

// The standard set plus a row count that no tested slice size divides (1021, prime) with one long row.
const std::vector<matgen::Csr> &matrices() {
  static const std::vector<matgen::Csr> m = [] {
    std::vector<matgen::Csr> v = matgen::standard_set(512);
    v.push_back(matgen::rows_1021_one_long(1500));
    return v;
  }();
  return m;
}

template <typename T>
void check_apply(const SellHost<T> &H, const matgen::Csr &M, const std::vector<T> &vals, Op op, ZMode zm, const std::string &what) {
  ASSERT_EQ(gpumat_test::product_mismatch(M, vals, op, zm, 101, 202, [&](const T *x, const T *z, T *y) { H.apply(op, x, z, y); }), "")
      << what << (op == Op::Trans ? " Trans" : " NoTrans") << " z mode " << int(zm);
}

// The layout against its definition: slice widths, positions of every entry, padding.
template <typename T>
void check_layout(const SellLayout &L, const std::vector<T> &stored, const matgen::Csr &M, const std::vector<T> &vals, int S, const std::string &what) {
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

template <typename T> void run_all() {
  for (int S : kSlices)
    for (const matgen::Csr &M : matrices()) {
      const std::string    what = M.name + " slice " + std::to_string(S);
      const std::vector<T> vals = M.values<T>();
      SellHost<T>          H;
      H.build(M.view(vals), S);
      check_layout(H.layout(), H.values(), M, vals, S, what);
      const gpumat::SellStats st = gpumat::sell_stats(M.view(vals), S);
      EXPECT_EQ(st.padded, H.layout().padded()) << what;
      EXPECT_EQ(st.slices, std::int64_t(H.layout().slices())) << what;
      for (Op op : {Op::NoTrans, Op::Trans})
        for (ZMode zm : {ZMode::None, ZMode::Separate, ZMode::Alias}) check_apply(H, M, vals, op, zm, what);
    }
}

TEST(SellHost, ApplyAndLayoutDouble) { run_all<double>(); }
TEST(SellHost, ApplyAndLayoutFloat) { run_all<float>(); }

// refresh() scatters new values through the slot map; the pattern stays.
TEST(SellHost, Refresh) {
  for (const matgen::Csr &M : {matgen::random_rows("random_with_empty", 4000, 3000, 1, 12, 0.15, 12), matgen::heavy_row(17)}) {
    const std::vector<double> vals = M.values<double>();
    SellHost<double>          H;
    H.build(M.view(vals), 32);
    std::vector<double> fresh(vals.size());
    for (std::size_t k = 0; k < fresh.size(); ++k) fresh[k] = 0.5 - vals[k] * double(k % 7);
    H.refresh(fresh.data());
    check_layout(H.layout(), H.values(), M, fresh, 32, M.name + " refreshed");
    check_apply(H, M, fresh, Op::NoTrans, ZMode::Separate, M.name + " refreshed");
    check_apply(H, M, fresh, Op::Trans, ZMode::None, M.name + " refreshed");
  }
}

// A 5 x 6 matrix by hand at slice size 2: rows of 2, 0, 3, 1, 2 nonzeros; slices {0,1} width 2,
// {2,3} width 3, {4, padded row} width 2: offsets 0, 4, 10, 14.
TEST(SellHost, LayoutByHand) {
  const matgen::Csr         M    = matgen::from_lengths("by_hand", 6, {2, 0, 3, 1, 2}, 3);
  const std::vector<double> vals = M.values<double>();
  SellHost<double>          H;
  H.build(M.view(vals), 2);
  const SellLayout &L = H.layout();
  EXPECT_EQ(L.slice_offsets, (std::vector<index_t>{0, 4, 10, 14}));
  // row 0 (lane 0 of slice 0): positions 0, 2; row 2 (lane 0 of slice 1): 4, 6, 8; row 3: 5;
  // row 4 (lane 0 of slice 2): 10, 12
  EXPECT_EQ(L.slot, (std::vector<index_t>{0, 2, 4, 6, 8, 5, 10, 12}));
  for (std::size_t p : {1u, 3u, 7u, 9u, 11u, 13u}) EXPECT_EQ(L.colidx[p], -1) << p;
}

TEST(SellHost, Statistics) {
  const matgen::Csr         M    = matgen::from_lengths("stats", 100, {5, 1, 0, 9, 2, 2, 2}, 4);
  const std::vector<double> vals = M.values<double>();
  const gpumat::SellStats   st   = gpumat::sell_stats(M.view(vals), 4);
  EXPECT_EQ(st.slices, 2);
  EXPECT_EQ(st.max_width, 9);
  EXPECT_EQ(st.padded, 9 * 4 + 2 * 4);
  EXPECT_EQ(st.layout_bytes(sizeof(double)), std::size_t(44) * 12 + 3 * 4);
  const gpumat::SellStats e = gpumat::sell_stats(matgen::no_nonzeros("e", 0, 3).view(std::vector<double>()), 32);
  EXPECT_EQ(e.slices, 0);
  EXPECT_EQ(e.padded, 0);
}

TEST(SellHost, RejectsSliceSizes) {
  const matgen::Csr         M    = matgen::from_lengths("m", 10, {1, 2}, 5);
  const std::vector<double> vals = M.values<double>();
  SellHost<double>          H;
  for (int S : {0, -1, gpumat::sell_max_slice + 1}) {
    try {
      H.build(M.view(vals), S);
      ADD_FAILURE() << "accepted slice size " << S;
    } catch (const std::invalid_argument &e) {
      EXPECT_NE(std::string(e.what()).find("slice size must be in [1,1024]"), std::string::npos) << e.what();
    }
  }
}

} // namespace
