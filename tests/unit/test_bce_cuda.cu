// bce CUDA layer: special cases (a single row length, every length distinct, more
// than 100 lengths, one enormous row, regular rows without a long part) with chunk shapes, two
// products bitwise equal, the refusals' reasons, and a fuzz test against the reference. The device
// builder's layout (groups, row order, columns and values with their padding, the long part, the
// slot map) against the host builder's and the products (y = A x with the long rows' chunks in the
// same kernel, y = A^T x) across long_row, group cost and merging bounds on the standard set,
// empty rows, the refresh, the diagonal, refusals and release are the typed suite's
// (test_formats_cuda.cu).
// Without a CUDA device the program exits 77 (CTest: skipped; main() is in test_rowmap_cuda.cu).
#include "core/bce.hpp"
#include "cuda/bce.cuh"
#include "device_helpers.cuh"
#include "format_traits_cuda.cuh"
#include "bce_params.hpp"
#include "matgen.hpp"
#include "params.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>

using gpumat::Bce;
using gpumat::BceParams;
using gpumat::index_t;
using gpumat::Op;
using gpumat_test::bp;
using gpumat::cuda::BceDevice;
using gpumat::cuda::LongShape;
using gpumat_test::DeviceArray;
using gpumat_test::Stream;
using gpumat_test::check_device_products;
using gpumat_test::tolerance;
using gpumat_test::ZMode;

namespace {

std::string describe(const BceParams &p, LongShape sh = {}) { return gpumat_test::describe(p) + " lanes=" + std::to_string(sh.lanes) + " passes=" + std::to_string(sh.passes); }

template <typename T>
void check_matrix(const matgen::Csr &M, const BceParams &p, cudaStream_t s, LongShape shape = {}) {
  const std::vector<T> vals  = M.values<T>();
  const std::string    where = M.name + " " + describe(p, shape);
  BceDevice<T>         D;
  ASSERT_TRUE(D.set_long_shape(shape));
  ASSERT_EQ(cudaSuccess, D.build(M.view(vals), p, s)) << where << ": " << D.why();
  gpumat_test::check_bce_device_layout(M, vals, p, D, where);
  check_device_products(M, vals, D, s, where);
}


// Rows of 40-80 entries: the device's default long_row is the host's (every row kept, no long
// part); with one row of 200 among rows of 60, 32 (default_long_row: a row over 128), every row
// in the long part.
TEST(BceDeviceSpecial, RegularRowsHaveNoLongPart) {
  const Stream      s;
  const matgen::Csr M = matgen::random_rows("regular", 6000, 6000, 40, 80, 0.0, 44);
  const auto        v = M.values<double>();
  BceDevice<double> D;
  ASSERT_EQ(cudaSuccess, D.build(M.view(v), BceParams{}, s)) << D.why();
  EXPECT_EQ(D.long_rows(), 0);
  check_matrix<double>(M, BceParams{}, s);
  std::vector<index_t> len(6000, 60);
  len[17] = 200;
  const matgen::Csr H = matgen::from_lengths("one_long", 6000, len, 43);
  const auto        hv = H.values<double>();
  ASSERT_EQ(cudaSuccess, D.build(H.view(hv), BceParams{}, s)) << D.why();
  EXPECT_EQ(D.params().long_row, 32);
  EXPECT_EQ(D.long_rows(), 6000);
  check_matrix<double>(H, BceParams{}, s);
}

// A single row length: one group, no padding.
TEST(BceDeviceSpecial, SingleLength) {
  const Stream      s;
  const matgen::Csr M = matgen::from_lengths("rows_of_9", 4000, std::vector<index_t>(3000, 9), 11);
  const auto        v = M.values<double>();
  BceDevice<double> D;
  ASSERT_EQ(cudaSuccess, D.build(M.view(v), BceParams{}, s)) << D.why();
  EXPECT_EQ(D.groups(), 1);
  EXPECT_EQ(D.blocks(), 1);
  EXPECT_EQ(D.padding(), 0);
  check_matrix<double>(M, BceParams{}, s);
  check_matrix<double>(M, bp(0, -1, 0, 1000), s); // three windows, a block each
}

// Every length distinct, more than 100 of them (merged to 100 with max_sets 100), and every row in
// a group (long_row above them all).
TEST(BceDeviceSpecial, EveryLengthDistinct) {
  const Stream         s;
  std::vector<index_t> len(300);
  for (std::size_t i = 0; i < len.size(); ++i) len[i] = index_t((i * 7919) % 300);
  const matgen::Csr M = matgen::from_lengths("distinct", 400, len, 12);
  for (const BceParams &p : {BceParams{}, bp(1000, 0, 0), bp(1000, 0, 100), bp(1000, -1, 4096)}) check_matrix<double>(M, p, s);
}

// One enormous row (1.1M entries, thousands of chunks) among short ones, for several chunk shapes;
// and as a group of its own (long_row above it).
TEST(BceDeviceSpecial, OneEnormousRow) {
  const Stream         s;
  const index_t        n = 1100000;
  std::vector<index_t> len(5000, 4);
  len[2500] = n;
  len[100]  = 300; // a long row of one chunk or a few
  const matgen::Csr M = matgen::from_lengths("enormous", n, len, 13);
  for (const LongShape sh : {LongShape{}, LongShape{32, 1}, LongShape{8, 3}, LongShape{4, 64}}) check_matrix<double>(M, BceParams{}, s, sh);
  check_matrix<double>(M, bp(n, -1, 0), s);
}

// Two products are bitwise equal (the long rows' partial sums are added in chunk order).
TEST(BceDevice, Deterministic) {
  const Stream         s;
  const index_t        n = 300000;
  std::vector<index_t> len(20000, 5);
  for (int k = 0; k < 40; ++k) len[std::size_t(k * 491)] = n / (k + 1);
  const matgen::Csr M = matgen::from_lengths("hubs40", n, len, 44);
  const auto        v = M.values<double>();
  const auto        x = matgen::random_vector<double>(std::size_t(n), 5);
  BceDevice<double> D;
  ASSERT_EQ(cudaSuccess, D.build(M.view(v), BceParams{}, s)) << D.why();
  ASSERT_GT(D.chunks(), 40);
  const std::vector<double> z(std::size_t(M.nrows), 0.0);
  const auto                y1 = gpumat_test::device_apply(D, Op::NoTrans, x, z, ZMode::None, s);
  for (int k = 0; k < 5; ++k) EXPECT_TRUE(y1 == gpumat_test::device_apply(D, Op::NoTrans, x, z, ZMode::None, s));
}

// Invalid parameters are refused with a reason, an invalid chunk shape not taken (the refusals
// themselves, the empty matrices and release: the typed suite's RefusalsAndRelease and
// EmptyAndSmall).
TEST(BceDevice, RefusalsGiveAReason) {
  const Stream      s;
  const matgen::Csr M = matgen::random_rows("r", 100, 100, 1, 5, 0.0, 46);
  const auto        v = M.values<double>();
  BceDevice<double> D;
  EXPECT_EQ(cudaErrorInvalidValue, D.build(M.view(v), bp(0, 0, 1), s));
  EXPECT_FALSE(D.why().empty());
  EXPECT_EQ(cudaErrorInvalidValue, D.build(M.view(v), bp(-3, 0, 0), s));
  EXPECT_FALSE(D.why().empty());
  EXPECT_FALSE(D.set_long_shape({12, 0}));
}

// Fuzz: random patterns (empty rows, a full row, ragged sizes) across the parameters and shapes.
TEST(BceDeviceFuzz, RandomPatterns) {
  const Stream    s;
  std::mt19937_64 g(93);
  for (int m = 0; m < 80; ++m) {
    const index_t        nrows = index_t(1 + g() % 3000), ncols = index_t(1 + g() % 5000);
    std::vector<index_t> len(static_cast<std::size_t>(nrows));
    for (auto &l : len) l = g() % 5 == 0 ? 0 : index_t(g() % std::min<index_t>(ncols, 60) + 1);
    if (g() % 3 == 0) len[std::size_t(g() % std::uint64_t(nrows))] = ncols; // a full row
    const matgen::Csr  M     = matgen::from_lengths("fuzz" + std::to_string(m), ncols, len, 200 + std::uint64_t(m));
    const std::int64_t lrs[] = {0, 1, 16, 1000000};
    const std::int64_t cs[]  = {-1, 0, 100000};
    const int          mss[] = {0, 2, 7};
    const LongShape    shs[] = {{}, {4, 1}, {8, 2}, {16, 1}, {32, 4}};
    const std::int64_t wins[] = {0, 1, 32, 1000, 1 << 30};
    check_matrix<double>(M, bp(lrs[g() % 4], cs[g() % 3], mss[g() % 3], wins[g() % 5]), s, shs[g() % 5]);
  }
}

} // namespace
