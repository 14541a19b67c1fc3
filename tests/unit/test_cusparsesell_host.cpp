// cusparsesell host layer: the sliced-ELL layout by hand, statistics and refused slice sizes. The
// layout (slice offsets, padding, slot map) and the reference product over the stored arrays on the
// standard set for every slice size, and the refresh, are the typed suite's (test_formats_host.cpp,
// the layout's invariants in format_traits.hpp).
#include "core/cusparsesell.hpp"
#include "matgen.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

using gpumat::index_t;
using gpumat::SellHost;
using gpumat::SellLayout;

namespace {

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
