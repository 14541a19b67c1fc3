// bce CUDA layer: the device builder produces the host builder's layout entry for entry (groups,
// row order, columns and values with their padding, the long part, the slot map) and the device
// products (y = A x with the long rows' chunks in the same kernel, y = A^T x, the diagonal) match
// the long-double CSR reference across long_row, group cost and merging bounds on the standard set,
// in double and float, z absent, separate and aliasing y, y poisoned with NaN; the issue's special
// cases (a single row length, every length distinct, more than 100 lengths, one enormous row,
// empty rows), chunk shapes, refresh equals a rebuild, two products bitwise equal, the diagonal,
// refusals and an empty matrix, and a fuzz test against the reference.
// Without a CUDA device the program exits 77 (CTest: skipped; main() is in test_rowmap_cuda.cu).
#include "core/bce.hpp"
#include "cuda/bce.cuh"
#include "device_helpers.cuh"
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
void check_layout(const matgen::Csr &M, const std::vector<T> &vals, const BceParams &p, const BceDevice<T> &D, const std::string &where) {
  Bce<T> H, G;
  gpumat::bce_build(M.view(vals), p, H);
  ASSERT_EQ(cudaSuccess, D.download(G)) << where;
  EXPECT_EQ(G.p.long_row, H.p.long_row) << where;
  EXPECT_EQ(G.p.group_cost, H.p.group_cost) << where;
  EXPECT_EQ(G.sets_before_merge, H.sets_before_merge) << where;
  EXPECT_EQ(G.sets, H.sets) << where;
  EXPECT_EQ(G.p.window, H.p.window) << where;
  EXPECT_TRUE(G.group_width == H.group_width) << where << ": the partition";
  EXPECT_TRUE(G.width == H.width) << where << ": widths";
  EXPECT_TRUE(G.rows == H.rows) << where << ": rows";
  EXPECT_TRUE(G.pos == H.pos) << where << ": positions";
  EXPECT_TRUE(G.start == H.start) << where << ": starts";
  EXPECT_TRUE(G.row_no == H.row_no) << where << ": order";
  EXPECT_TRUE(G.col == H.col) << where << ": columns";
  EXPECT_TRUE(G.val == H.val) << where << ": values";
  EXPECT_TRUE(G.long_rows == H.long_rows) << where << ": long rows";
  EXPECT_TRUE(G.long_ptr == H.long_ptr) << where << ": long row pointer";
  EXPECT_TRUE(G.long_col == H.long_col) << where << ": long columns";
  EXPECT_TRUE(G.long_val == H.long_val) << where << ": long values";
  EXPECT_TRUE(G.slot == H.slot) << where << ": slots";
  EXPECT_EQ(D.padding(), H.padding()) << where;
  EXPECT_EQ(D.format_bytes(), H.bytes()) << where << ": bytes";
}

template <typename T>
void check_matrix(const matgen::Csr &M, const BceParams &p, cudaStream_t s, LongShape shape = {}) {
  const std::vector<T> vals  = M.values<T>();
  const std::string    where = M.name + " " + describe(p, shape);
  BceDevice<T>         D;
  ASSERT_TRUE(D.set_long_shape(shape));
  ASSERT_EQ(cudaSuccess, D.build(M.view(vals), p, s)) << where << ": " << D.why();
  check_layout(M, vals, p, D, where);
  check_device_products(M, vals, D, s, where);
}


class BceDeviceApply : public ::testing::TestWithParam<BceParams> {};
TEST_P(BceDeviceApply, Double) {
  const Stream s;
  for (const matgen::Csr &M : matgen::standard_set_cached(512)) check_matrix<double>(M, GetParam(), s);
}
TEST_P(BceDeviceApply, Float) {
  const Stream s;
  for (const matgen::Csr &M : matgen::standard_set_cached(512)) check_matrix<float>(M, GetParam(), s);
}
INSTANTIATE_TEST_SUITE_P(Params, BceDeviceApply, ::testing::ValuesIn(gpumat_test::bce_param_sets()), gpumat_test::bce_param_name);

// A single row length: one group, no padding.
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

// Empty rows: the group of width 0 (y = 0 or z there), a matrix of no nonzeros, no rows at all.
TEST(BceDeviceSpecial, EmptyRows) {
  const Stream s;
  check_matrix<double>(matgen::random_rows("with_empty", 3000, 500, 1, 20, 0.3, 14), BceParams{}, s);
  check_matrix<double>(matgen::no_nonzeros("no_nonzeros", 300, 50), BceParams{}, s);
  check_matrix<double>(matgen::empty_runs(15), BceParams{}, s);
  check_matrix<double>(matgen::leading_trailing_empty(16), BceParams{}, s);
  check_matrix<double>(matgen::no_nonzeros("no_rows", 0, 7), BceParams{}, s);
}

TEST(BceDevice, RefreshEqualsRebuild) {
  const Stream        s;
  const matgen::Csr   M = matgen::power_law(5000, 5000, 1.3, 2.0, 3000, 17);
  std::vector<double> v = M.values<double>(), w(v.size());
  for (std::size_t k = 0; k < w.size(); ++k) w[k] = 0.25 - 0.5 * double(k % 7);
  BceDevice<double> D, E;
  ASSERT_EQ(cudaSuccess, D.build(M.view(v), BceParams{}, s)) << D.why();
  ASSERT_GT(D.long_rows(), 0);
  ASSERT_EQ(cudaSuccess, D.refresh(w.data(), s));
  ASSERT_EQ(cudaSuccess, E.build(M.view(w), BceParams{}, s)) << E.why();
  Bce<double> a, b;
  ASSERT_EQ(cudaSuccess, D.download(a));
  ASSERT_EQ(cudaSuccess, E.download(b));
  EXPECT_TRUE(a.val == b.val);
  EXPECT_TRUE(a.long_val == b.long_val);
  check_device_products(M, w, D, s, "refreshed");
  // the same values from device memory (a device COO assembly's)
  BceDevice<double>         F;
  const DeviceArray<double> dw(w);
  ASSERT_EQ(cudaSuccess, F.build(M.view(v), BceParams{}, s)) << F.why();
  ASSERT_EQ(cudaSuccess, F.refresh(dw.p, s, gpumat::Mem::Device));
  Bce<double> c;
  ASSERT_EQ(cudaSuccess, F.download(c));
  EXPECT_TRUE(c.val == b.val);
  EXPECT_TRUE(c.long_val == b.long_val);
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

TEST(BceDevice, Diagonal) {
  const Stream             s;
  std::vector<matgen::Csr> ms = matgen::standard_set_cached(512);
  std::vector<index_t>     len(3000, 4);
  len[5] = len[2000] = 3000; // long rows holding their diagonal (full rows)
  ms.push_back(matgen::from_lengths("long_diag", 3000, len, 45));
  for (const BceParams &p : {BceParams{}, bp(16, 0, 0)})
    for (const matgen::Csr &M : ms) {
      const std::vector<double> vals = M.values<double>();
      BceDevice<double>         D;
      ASSERT_EQ(cudaSuccess, D.build(M.view(vals), p, s)) << M.name << " " << D.why();
      gpumat_test::check_device_diagonal(M, vals, D, s, M.name + " " + describe(p));
    }
}

// Invalid parameters are refused with a reason and no storage; an empty matrix builds.
TEST(BceDevice, RefusalsAndEmpty) {
  const Stream      s;
  const matgen::Csr M = matgen::random_rows("r", 100, 100, 1, 5, 0.0, 46);
  const auto        v = M.values<double>();
  BceDevice<double> D;
  EXPECT_EQ(cudaErrorInvalidValue, D.build(M.view(v), bp(0, 0, 1), s));
  EXPECT_FALSE(D.why().empty());
  EXPECT_EQ(D.device_bytes(), 0u);
  EXPECT_EQ(cudaErrorInvalidValue, D.build(M.view(v), bp(-3, 0, 0), s));
  EXPECT_FALSE(D.set_long_shape({12, 0}));
  const matgen::Csr E = matgen::random_rows("no_rows", 0, 10, 0, 0, 0.0, 47);
  ASSERT_EQ(cudaSuccess, D.build(E.view(E.values<double>()), BceParams{}, s)) << D.why();
  const auto yt = gpumat_test::device_apply(D, Op::Trans, std::vector<double>{}, std::vector<double>(10, 2.0), ZMode::Separate, s);
  EXPECT_EQ(yt, std::vector<double>(10, 2.0));
  D.release();
  EXPECT_EQ(D.device_bytes(), 0u);
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
