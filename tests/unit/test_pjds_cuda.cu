// pjds CUDA layer: special cases (equal rows, one full row among single entries,
// fewer rows than a block, empty rows at the end of the sort, hub rows of over a million entries
// in many chunks, rows at the chunk boundary); the chunk shape by the long rows; refresh in several
// staging chunks; two products are bitwise equal; the model's choice on a power law; a refusal's
// reason; every instance of the product (4, 6 resident blocks) gives the same bits, and occupancy
// 0 keeps the faster of the first products (InstanceTrial); dictionary columns and a value table
// bitwise equal to the plain layout (a table kept or turned off by refreshes); positional columns
// built as the host builds them and bitwise equal to the plain layout (stencils, a 3-dof problem,
// random patterns; a value table, fp32 storage, refreshes; an infinite x off the rows); a fuzz test
// against the reference. The
// device builder's layout (order, lengths, block starts, columns and values with their padding,
// the long part, the slot map) against the host builder's and the products for b_r, sigma and
// long-row thresholds on the standard set, the refresh, the diagonal, refusals and release are the
// typed suite's (test_formats_cuda.cu).
// Without a CUDA device the program exits 77 (CTest: skipped; main() is in test_rowmap_cuda.cu).
#include "core/pjds.hpp"
#include "cuda/pjds.cuh"
#include "device_helpers.cuh"
#include "format_traits_cuda.cuh"
#include "matgen.hpp"
#include "params.hpp"
#include "pjds_params.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>

using gpumat::index_t;
using gpumat::Op;
using gpumat::Pjds;
using gpumat::PjdsParams;
using gpumat::cuda::PjdsDevice;
using gpumat::cuda::LongShape;
using gpumat_test::DeviceArray;
using gpumat_test::Stream;
using gpumat_test::check_device_products;
using gpumat_test::tolerance;
using gpumat_test::describe;
using gpumat_test::pp;
using gpumat_test::ZMode;

namespace {

template <typename T>
void check_matrix(const matgen::Csr &M, const PjdsParams &p, cudaStream_t s, bool layout = true, LongShape shape = {}, int occupancy = 0) {
  const std::vector<T> vals  = M.values<T>();
  const std::string    where = M.name + " " + describe(p) + " lanes " + std::to_string(shape.lanes) + " passes " + std::to_string(shape.passes) + " occupancy " + std::to_string(occupancy);
  PjdsDevice<T>        D;
  ASSERT_TRUE(D.set_long_shape(shape));
  ASSERT_TRUE(D.set_occupancy(occupancy));
  ASSERT_EQ(cudaSuccess, D.build(M.view(vals), p, s)) << where << ": " << D.why();
  if (layout) gpumat_test::check_pjds_device_layout(M, vals, p, D, where);
  check_device_products(M, vals, D, s, where);
}

// The model's choice (as the adapter builds it) on the standard set and a power law.
TEST(PjdsDevice, ModelChoice) {
  const Stream s;
  std::vector<matgen::Csr> ms = matgen::standard_set_cached(512);
  ms.push_back(matgen::power_law(40000, 40000, 1.2, 2.0, 20000, 37));
  for (const matgen::Csr &M : ms) {
    const auto v = M.values<double>();
    check_matrix<double>(M, gpumat::pjds_model(M.view(v), PjdsParams{}).p, s);
  }
}

TEST(PjdsDeviceSpecial, EqualRowsHaveNoPadding) {
  const Stream      s;
  const matgen::Csr M = matgen::from_lengths("rows_of_7", 3000, std::vector<index_t>(1000, 7), 31);
  for (std::int64_t sigma : {std::int64_t(1), std::int64_t(64), gpumat::pjds_all_rows}) {
    const auto          v = M.values<double>();
    PjdsDevice<double> D;
    ASSERT_EQ(cudaSuccess, D.build(M.view(v), pp(32, sigma, 0), s)) << D.why();
    EXPECT_EQ(D.padding(), 0);
    check_matrix<double>(M, pp(32, sigma, 0), s);
  }
}

// One full row among single entries: as a long row (the model's threshold) nothing is padded.
TEST(PjdsDeviceSpecial, OneFullRowAmongSingleEntries) {
  const Stream         s;
  const index_t        n = 2000;
  std::vector<index_t> len(n, 1);
  len[777] = n;
  const matgen::Csr M = matgen::from_lengths("full_row", n, len, 32);
  const auto        v = M.values<double>();
  const PjdsParams  p = gpumat::pjds_model(M.view(v), PjdsParams{}).p;
  PjdsDevice<double> D;
  ASSERT_EQ(cudaSuccess, D.build(M.view(v), p, s)) << D.why();
  EXPECT_EQ(D.long_rows(), 1);
  EXPECT_EQ(D.padding(), 0);
  check_matrix<double>(M, p, s);
  check_matrix<double>(M, pp(32, gpumat::pjds_all_rows, 1000000), s); // kept: its block padded
}

TEST(PjdsDeviceSpecial, FewerRowsThanABlockAndEmptyRowsLast) {
  const Stream s;
  for (std::int64_t sigma : {std::int64_t(1), gpumat::pjds_all_rows}) check_matrix<double>(matgen::random_rows("five_rows", 5, 40, 0, 9, 0.2, 33), pp(32, sigma, 0), s);
  check_matrix<double>(matgen::random_rows("with_empty", 3000, 500, 1, 20, 0.3, 34), pp(32, gpumat::pjds_all_rows, 0), s);
  check_matrix<double>(matgen::random_rows("all_empty", 300, 50, 0, 0, 1.0, 35), pp(32, gpumat::pjds_all_rows, 0), s);
}

// Hub rows of over a million entries (thousands of chunks each, their partial sums added by the
// last-arriving group) and rows at the chunk boundary (C - 1, C, C + 1 entries: one chunk, one
// chunk, two chunks), and rows just past the threshold (one partial chunk), for chunks of a warp
// and one pass (C = 256), of 4 lanes and 3 passes (96), 8 lanes and 1 pass (64), 32 lanes and 4
// passes (1024), and the shape chosen by the long rows.
TEST(PjdsDeviceSpecial, HubRowsInChunks) {
  const Stream  s;
  const index_t n = 1100000;
  for (const LongShape shape : {LongShape{32, 1}, LongShape{4, 3}, LongShape{8, 1}, LongShape{32, 4}, LongShape{}}) {
    std::vector<index_t> len(4000, 3);
    len[1234]               = n;
    len[3999]               = n - 7;
    const LongShape sh  = shape.lanes ? shape : LongShape{32, 4}; // the long rows' mean: 32 lanes, 4 passes
    const index_t       C   = index_t(sh.entries());
    len[10]                 = C - 1;
    len[11]                 = C;
    len[12]                 = C + 1;
    for (int k = 0; k < 9; ++k) len[std::size_t(100 + k)] = 41 + k; // just past the threshold
    const matgen::Csr  M = matgen::from_lengths("hubs", n, len, 35);
    const auto         v = M.values<double>();
    const PjdsParams   p = pp(32, 0, 40);
    PjdsDevice<double> D;
    ASSERT_TRUE(D.set_long_shape(shape));
    ASSERT_EQ(cudaSuccess, D.build(M.view(v), p, s)) << D.why();
    EXPECT_EQ(D.long_rows(), 5 + 9);
    EXPECT_EQ(D.long_shape().lanes, sh.lanes);
    EXPECT_EQ(D.long_shape().passes, sh.passes);
    ASSERT_GE(C, 49); // the nine rows of 41..49 entries: one chunk each
    EXPECT_EQ(D.chunks(), (n + C - 1) / C + (n - 7 + C - 1) / C + 1 + 1 + 2 + 9) << "C " << C; // the hubs, C - 1, C, C + 1, the nine
    check_matrix<double>(M, p, s, true, shape);
    check_matrix<double>(M, gpumat::pjds_model(M.view(v), PjdsParams{}).p, s, false, shape);
  }
}

// The default shape: lanes from the long rows' mean length, passes from the longest.
TEST(PjdsDevice, LongShapeByMeanLength) {
  using gpumat::cuda::long_shape;
  const struct {
    std::int64_t rows, nnz, longest;
    int          lanes, passes;
  } cases[] = {{0, 0, 0, 4, 1}, {10, 330, 33, 8, 1}, {10, 500, 81, 8, 2}, {10, 810, 81, 16, 1}, {10, 2000, 300, 32, 2}, {10, 2600, 5000, 32, 4}, {1, 12000, 12000, 32, 4}, {1, 3000000, 3000000, 32, 4}};
  for (const auto &c : cases) {
    const LongShape sh = long_shape(c.rows, c.nnz, c.longest, {});
    EXPECT_EQ(sh.lanes, c.lanes) << c.rows << " " << c.nnz << " " << c.longest;
    EXPECT_EQ(sh.passes, c.passes) << c.rows << " " << c.nnz << " " << c.longest;
  }
  EXPECT_EQ(long_shape(1, 12000, 12000, {8, 0}).passes, 4);
  EXPECT_EQ(long_shape(1, 12000, 12000, {0, 2}).lanes, 32);
  EXPECT_EQ(long_shape(1, 40, 40, {16, 7}).entries(), 16 * 8 * 7);
  PjdsDevice<double> D;
  EXPECT_FALSE(D.set_long_shape({12, 0}));
  EXPECT_FALSE(D.set_long_shape({0, gpumat::cuda::kLongMaxPasses + 1}));
  EXPECT_TRUE(D.set_long_shape({16, gpumat::cuda::kLongMaxPasses}));
}

template <typename T>
void check_refresh(const matgen::Csr &M, const PjdsParams &p, cudaStream_t s) {
  std::vector<T> v = M.values<T>(), w(v.size());
  for (std::size_t k = 0; k < w.size(); ++k) w[k] = T(0.25) - T(0.5) * T(k % 7);
  PjdsDevice<T> D, E;
  ASSERT_EQ(cudaSuccess, D.build(M.view(v), p, s)) << D.why();
  ASSERT_EQ(cudaSuccess, D.refresh(w.data(), s));
  ASSERT_EQ(cudaSuccess, E.build(M.view(w), p, s)) << E.why();
  Pjds<T> a, b;
  ASSERT_EQ(cudaSuccess, D.download(a));
  ASSERT_EQ(cudaSuccess, E.download(b));
  EXPECT_TRUE(gpumat_test::same_values(a.val, b.val)) << M.name; // positional padding: the sentinel, a NaN
  EXPECT_TRUE(a.long_val == b.long_val) << M.name;
  check_device_products(M, w, D, s, M.name + " refreshed");
  // the same values from device memory (a device COO assembly's)
  PjdsDevice<T>        F;
  const DeviceArray<T> dw(w);
  ASSERT_EQ(cudaSuccess, F.build(M.view(v), p, s)) << F.why();
  ASSERT_EQ(cudaSuccess, F.refresh(dw.p, s, gpumat::Mem::Device));
  Pjds<T> c;
  ASSERT_EQ(cudaSuccess, F.download(c));
  EXPECT_TRUE(gpumat_test::same_values(c.val, b.val)) << M.name;
  EXPECT_TRUE(c.long_val == b.long_val) << M.name;
}

// More values than one staging chunk of the refresh.
TEST(PjdsDevice, RefreshInChunks) {
  const Stream      s;
  const matgen::Csr M = matgen::random_rows("refresh-chunks", 500000, 400000, 8, 12, 0.0, 86);
  ASSERT_GT(M.colidx.size(), std::size_t(gpumat::cuda::kRefreshChunk));
  check_refresh<double>(M, pp(32, 4096, 0), s);
}

// Two products are bitwise equal (the long rows' partial sums are added in chunk order).
TEST(PjdsDevice, Deterministic) {
  const Stream         s;
  const index_t        n = 300000;
  std::vector<index_t> len(20000, 5);
  for (int k = 0; k < 40; ++k) len[std::size_t(k * 491)] = n / (k + 1);
  const matgen::Csr  M = matgen::from_lengths("hubs40", n, len, 44);
  const auto         v = M.values<double>();
  const auto         x = matgen::random_vector<double>(std::size_t(n), 5);
  PjdsDevice<double> D;
  ASSERT_EQ(cudaSuccess, D.build(M.view(v), gpumat::pjds_model(M.view(v), PjdsParams{}).p, s)) << D.why();
  ASSERT_GT(D.chunks(), 40);
  const std::vector<double> z(std::size_t(M.nrows), 0.0);
  const auto                y1 = gpumat_test::device_apply(D, Op::NoTrans, x, z, ZMode::None, s);
  for (int k = 0; k < 5; ++k) EXPECT_TRUE(y1 == gpumat_test::device_apply(D, Op::NoTrans, x, z, ZMode::None, s));
}

// Layout Q's products against layout P's of the same matrix M: y = A x (+ z, z aliased) bit for bit
// (unless bitwise is false), the transpose to rounding (atomics: any order), the diagonal bit for bit.
template <typename T>
void same_as_layout(const PjdsDevice<T> &Q, const PjdsDevice<T> &P, const matgen::Csr &M, cudaStream_t s, const std::string &where, bool bitwise = true) {
  const auto x = matgen::random_vector<T>(std::size_t(M.ncols), 17), xt = matgen::random_vector<T>(std::size_t(M.nrows), 18);
  const auto z = matgen::random_vector<T>(std::size_t(M.nrows), 19), zt = matgen::random_vector<T>(std::size_t(M.ncols), 20);
  for (ZMode zm : {ZMode::None, ZMode::Separate, ZMode::Alias}) {
    const auto yq = gpumat_test::device_apply(Q, Op::NoTrans, x, z, zm, s), yp = gpumat_test::device_apply(P, Op::NoTrans, x, z, zm, s);
    if (bitwise) EXPECT_TRUE(gpumat_test::same_values(yq, yp)) << where << ": z mode " << int(zm) << ", not the other layout's bits";
    const auto tq = gpumat_test::device_apply(Q, Op::Trans, xt, zt, zm, s), tp = gpumat_test::device_apply(P, Op::Trans, xt, zt, zm, s);
    ASSERT_EQ(tq.size(), tp.size());
    const double tol = sizeof(T) == 8 ? 1e-12 : 1e-4;
    for (std::size_t k = 0; k < tq.size(); ++k) ASSERT_NEAR(double(tq[k]), double(tp[k]), tol * (1.0 + std::fabs(double(tp[k])))) << where << ": transpose, z mode " << int(zm) << ", entry " << k;
  }
  DeviceArray<T> dq(std::size_t(M.nrows)), dp(std::size_t(M.nrows));
  ASSERT_EQ(cudaSuccess, Q.diagonal(nullptr, dq.p, s));
  ASSERT_EQ(cudaSuccess, P.diagonal(nullptr, dp.p, s));
  ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(s));
  EXPECT_TRUE(dq.download() == dp.download()) << where << ": diagonal";
}

// Dictionary columns on the device: the stencil's blocks coded as the host builder codes them
// (sorted within all rows and unsorted; with 32 and 128 rows a block), the product and the
// diagonal bitwise equal to the 32-bit layout's, the transpose to rounding (atomics), and the
// bytes read fewer; auto keeps the 5-entry rows' 32-bit columns.
TEST(PjdsDevice, DictionaryColumnsBitwiseEqualToPlain) {
  const Stream      s;
  const matgen::Csr M = matgen::stencil_2d(700, 500);
  const auto        v = M.values<double>();
  for (int br : {32, 128})
    for (std::int64_t sigma : {std::int64_t(1), gpumat::pjds_all_rows}) {
      const PjdsParams   pc = pp(br, sigma, 0, gpumat::PjdsColumns::Dictionary), pl = pp(br, sigma, 0, gpumat::PjdsColumns::Plain);
      const std::string  where = describe(pc);
      PjdsDevice<double> C, P, A;
      ASSERT_EQ(cudaSuccess, C.build(M.view(v), pc, s)) << C.why();
      ASSERT_EQ(cudaSuccess, P.build(M.view(v), pl, s)) << P.why();
      ASSERT_EQ(cudaSuccess, A.build(M.view(v), pp(br, sigma, 0), s)) << A.why();
      ASSERT_TRUE(C.coded()) << where;
      ASSERT_FALSE(P.coded()) << where;
      ASSERT_FALSE(A.coded()) << where << ": auto, rows of 5 entries";
      EXPECT_LT(C.format_bytes(), P.format_bytes()) << where;
      gpumat_test::check_pjds_device_layout(M, v, pc, C, where);
      same_as_layout(C, P, M, s, where);
    }
}

// Auto on the device codes the columns of wide rows only (a cyclic band of kPjdsDictMinWidth
// entries a row, not one of one fewer), as the host builder does; the coded product bitwise equal
// to the 32-bit layout's. The rows are sorted by length in windows of 64 (of equal length, they
// keep their order), which positional columns do not take.
TEST(PjdsDevice, AutoCodesWideRowsOnly) {
  const Stream s;
  for (gpumat::index_t width : {gpumat::index_t(gpumat::kPjdsDictMinWidth) - 1, gpumat::index_t(gpumat::kPjdsDictMinWidth)}) {
    const matgen::Csr         M = matgen::cyclic_band(20000, width);
    const auto                v = M.values<double>();
    const auto                x = matgen::random_vector<double>(std::size_t(M.ncols), 3);
    const std::vector<double> z(std::size_t(M.nrows), 0.0);
    const PjdsParams          pa = pp(32, 64, 0), pl = pp(32, 64, 0, gpumat::PjdsColumns::Plain);
    PjdsDevice<double>        A, P;
    ASSERT_EQ(cudaSuccess, A.build(M.view(v), pa, s)) << A.why();
    ASSERT_EQ(cudaSuccess, P.build(M.view(v), pl, s)) << P.why();
    EXPECT_EQ(A.coded(), width >= gpumat::kPjdsDictMinWidth) << "width " << width;
    gpumat_test::check_pjds_device_layout(M, v, pa, A, "cyclic_band width " + std::to_string(width));
    EXPECT_TRUE(gpumat_test::device_apply(A, Op::NoTrans, x, z, ZMode::None, s) == gpumat_test::device_apply(P, Op::NoTrans, x, z, ZMode::None, s)) << "width " << width;
  }
}

// A value table on the device: the 5-point stencil's values (-1, 4, the padding's 0) coded as the
// host codes them, with 32-bit and dictionary columns; the product bitwise equal to the plain
// layout's as built, after a refresh within the table (kept, the codes re-derived), and after one
// with a value outside it (turned off: the product reads the values).
TEST(PjdsDevice, ValueTableBitwiseEqualAndRefresh) {
  const Stream      s;
  const matgen::Csr M = matgen::stencil_2d(600, 400);
  const auto        v = M.values<double>();
  const auto        x = matgen::random_vector<double>(std::size_t(M.ncols), 9);
  const std::vector<double> z(std::size_t(M.nrows), 0.0);
  for (gpumat::PjdsColumns cols : {gpumat::PjdsColumns::Plain, gpumat::PjdsColumns::Dictionary}) {
    const PjdsParams   pt = pp(32, 1, 0, cols, gpumat::PjdsValues::Table), pl = pp(32, 1, 0, cols, gpumat::PjdsValues::Plain);
    const std::string  where = describe(pt);
    PjdsDevice<double> C, P;
    ASSERT_EQ(cudaSuccess, C.build(M.view(v), pt, s)) << C.why();
    ASSERT_EQ(cudaSuccess, P.build(M.view(v), pl, s)) << P.why();
    ASSERT_TRUE(C.tabled()) << where;
    ASSERT_TRUE(C.table_in_use()) << where;
    EXPECT_EQ(C.table_entries(), 3) << where;
    EXPECT_LT(C.format_bytes(), P.format_bytes()) << where;
    gpumat_test::check_pjds_device_layout(M, v, pt, C, where);
    auto same = [&](const char *what) {
      EXPECT_TRUE(gpumat_test::device_apply(C, Op::NoTrans, x, z, ZMode::None, s) == gpumat_test::device_apply(P, Op::NoTrans, x, z, ZMode::None, s)) << where << " " << what;
    };
    same("as built");
    std::vector<double> w(v);
    for (auto &a : w) a = a == 4.0 ? -1.0 : 4.0; // the same values: in the table
    ASSERT_EQ(cudaSuccess, C.refresh(w.data(), s));
    ASSERT_EQ(cudaSuccess, P.refresh(w.data(), s));
    EXPECT_TRUE(C.table_in_use()) << where;
    same("refreshed within the table");
    w[7] = 2.5;
    ASSERT_EQ(cudaSuccess, C.refresh(w.data(), s));
    ASSERT_EQ(cudaSuccess, P.refresh(w.data(), s));
    EXPECT_FALSE(C.table_in_use()) << where;
    same("refreshed outside the table");
  }
}

// fp32 storage (p.fp32, p.long_row 32) on the device against the fp64 layout with plain columns
// and values of the same matrix whose pJDS part's values (rows of at most 32 entries; the long rows
// keep fp64) are rounded beforehand: the host builder's layout, the product bitwise that layout's,
// the transpose (atomics: any order) within 1e-12 of it, the diagonal the rounded one; as built and
// after a refresh. more(D, E) adds the caller's checks of the two as built.
template <class More>
void check_fp32_against_rounded(const matgen::Csr &M, const std::vector<double> &v, const PjdsParams &p, cudaStream_t s, const std::string &where, More more) {
  auto rounded = [&](const std::vector<double> &w) {
    std::vector<double> r(w);
    for (index_t row = 0; row < M.nrows; ++row)
      if (M.rowptr[std::size_t(row) + 1] - M.rowptr[std::size_t(row)] <= 32)
        for (index_t q = M.rowptr[std::size_t(row)]; q < M.rowptr[std::size_t(row) + 1]; ++q) r[std::size_t(q)] = double(float(w[std::size_t(q)]));
    return r;
  };
  ASSERT_TRUE(p.fp32 && p.long_row == 32) << where;
  PjdsParams q = pp(p.block_rows, p.sigma, p.long_row, gpumat::PjdsColumns::Plain, gpumat::PjdsValues::Plain); // the rounded values repeat (random_1_40: 8,049 distinct), which auto would table
  PjdsDevice<double>  D, E;
  std::vector<double> vr = rounded(v);
  ASSERT_EQ(cudaSuccess, D.build(M.view(v), p, s)) << D.why();
  ASSERT_EQ(cudaSuccess, E.build(M.view(vr), q, s)) << E.why();
  ASSERT_TRUE(D.single()) << where;
  ASSERT_FALSE(E.single()) << where;
  more(D, E);
  gpumat_test::check_pjds_device_layout(M, v, p, D, where);
  const auto                x = matgen::random_vector<double>(std::size_t(std::max(M.nrows, M.ncols)), 9);
  const std::vector<double> zr(std::size_t(M.nrows), 0.0), zc(std::size_t(M.ncols), 0.0);
  const std::vector<double> xr(x.begin(), x.begin() + M.ncols), xc(x.begin(), x.begin() + M.nrows);
  auto same = [&](const std::vector<double> &w, const char *what) {
    EXPECT_TRUE(gpumat_test::device_apply(D, Op::NoTrans, xr, zr, ZMode::None, s) == gpumat_test::device_apply(E, Op::NoTrans, xr, zr, ZMode::None, s)) << where << " " << what;
    const auto yt = gpumat_test::device_apply(D, Op::Trans, xc, zc, ZMode::None, s), et = gpumat_test::device_apply(E, Op::Trans, xc, zc, ZMode::None, s);
    for (std::size_t c = 0; c < yt.size(); ++c) ASSERT_NEAR(yt[c], et[c], 1e-12 * (1.0 + std::fabs(et[c]))) << where << " " << what << ": Trans, column " << c;
    gpumat_test::check_device_diagonal(M, rounded(w), D, s, where + " " + what);
  };
  same(v, "as built");
  std::vector<double> w(v);
  for (auto &a : w) a = a * 1.5 + 0.01;
  ASSERT_EQ(cudaSuccess, D.refresh(w.data(), s));
  vr = rounded(w);
  ASSERT_EQ(cudaSuccess, E.refresh(vr.data(), s));
  ASSERT_TRUE(D.single()) << where;
  gpumat_test::check_pjds_device_layout(M, w, p, D, where + " refreshed");
  same(w, "refreshed");
}

// fp32 storage (PjdsParams::fp32): the device stores the host builder's rounded values and reads
// fewer bytes than the fp64 layout with plain values, whose products on the values rounded
// beforehand it gives (check_fp32_against_rounded).
TEST(PjdsDevice, Fp32ValuesEqualTheRoundedMatrix) {
  const Stream s;
  for (const matgen::Csr &M : {matgen::random_rows("random_1_40", 30000, 20000, 1, 40, 0.05, 11), matgen::power_law(20000, 20000, 1.2, 2.0, 5000, 41)}) {
    std::vector<double> v = M.values<double>();
    for (std::size_t k = 0; k < v.size(); ++k) v[k] = 1.0 / (1.0 + double(k)) - 0.3; // not floats, every value distinct: no table
    PjdsParams p = pp(32, gpumat::pjds_all_rows, 32);
    p.fp32       = true;
    const std::string where = M.name + " fp32";
    check_fp32_against_rounded(M, v, p, s, where, [&](const PjdsDevice<double> &D, const PjdsDevice<double> &E) {
      EXPECT_GT(D.long_rows(), 0) << where;
      EXPECT_LT(D.format_bytes(), E.format_bytes()) << where;
    });
  }
}

// An invalid parameter is refused with a reason (the refusal itself, the empty matrices and
// release: the typed suite's RefusalsAndRelease and EmptyAndSmall).
TEST(PjdsDevice, RefusalGivesAReason) {
  const Stream       s;
  const matgen::Csr  M = matgen::random_rows("r", 100, 100, 1, 5, 0.0, 46);
  const auto         v = M.values<double>();
  PjdsDevice<double> D;
  EXPECT_EQ(cudaErrorInvalidValue, D.build(M.view(v), pp(gpumat::pjds_max_block_rows + 1, 1, 0), s));
  EXPECT_FALSE(D.why().empty());
}

// Every instance of the product kernel (4, 6 resident blocks; 0 = measured) gives the
// reference's products, with and without a long part, and the same bits: a row's sum is added in
// the same order whatever the instance. Other values are refused.
TEST(PjdsDevice, EveryOccupancy) {
  const Stream             s;
  std::vector<matgen::Csr> ms = {matgen::power_law(20000, 20000, 1.2, 2.0, 5000, 41), matgen::standard_set_cached(512).front()};
  for (const matgen::Csr &M : ms) {
    const auto          v = M.values<double>();
    const PjdsParams    p = gpumat::pjds_model(M.view(v), PjdsParams{}).p;
    std::vector<double> first;
    for (int occ : {0, 4, 6}) {
      check_matrix<double>(M, p, s, false, {}, occ);
      PjdsDevice<double> D;
      ASSERT_TRUE(D.set_occupancy(occ));
      ASSERT_EQ(cudaSuccess, D.build(M.view(v), p, s)) << D.why();
      if (occ) EXPECT_EQ(D.kernel_occupancy(), occ);
      std::vector<double> x(std::size_t(M.ncols));
      for (std::size_t j = 0; j < x.size(); ++j) x[j] = 1.0 + 1e-3 * double(j % 97);
      const auto y = gpumat_test::device_apply(D, Op::NoTrans, x, std::vector<double>(std::size_t(M.nrows), 0.0), ZMode::None, s);
      if (first.empty()) first = y;
      else EXPECT_TRUE(y == first) << M.name << " occupancy " << occ << ": not the bits of the layout's instance";
    }
  }
  PjdsDevice<double> D;
  for (int bad : {-1, 1, 5, 8, 16}) EXPECT_FALSE(D.set_occupancy(bad)) << bad;
}

// The values D's products read, CSR entry by entry: v, with fp32 storage the padded part's rounded
// ones (downloaded; the long part keeps fp64).
template <typename T>
std::vector<T> values_read(const std::vector<T> &v, const PjdsDevice<T> &D) {
  std::vector<T> r(v);
  if (!D.single()) return r;
  Pjds<T> G;
  EXPECT_EQ(cudaSuccess, D.download(G));
  for (std::size_t q = 0; q < r.size() && q < G.slot.size(); ++q)
    if (G.slot[q] < G.padded()) r[q] = T(G.val32[std::size_t(G.slot[q])]);
  return r;
}

// Every layout on small matrices, for the sanitizers (compute-sanitizer's racecheck and memcheck
// run it in seconds; the other tests' matrices take minutes there): a 5-point stencil (8-bit table),
// a 3-dof problem, a power law with a long part, its values 300 distinct (a 16-bit table where asked)
// and an empty matrix; columns plain, dictionary, positional (forced) x values plain, table x fp32
// storage x the two kernel instances: NoTrans and Trans, z absent, separate and aliased, against the
// long-double reference of the values each layout reads, and the diagonal.
TEST(PjdsDeviceSanitizer, SmallEveryLayout) {
  const Stream             s;
  std::vector<matgen::Csr> ms = {matgen::stencil_2d(40, 30), matgen::dof_problem(12, 10, 3), matgen::power_law(3000, 3000, 1.3, 2.0, 600, 7), matgen::no_nonzeros("empty", 50, 40)};
  for (const matgen::Csr &M : ms) {
    std::vector<double> v = M.values<double>();
    if (M.name.find("power") != std::string::npos)
      for (std::size_t k = 0; k < v.size(); ++k) v[k] = 1.0 / (1.0 + double(k % 300));
    for (gpumat::PjdsColumns cols : {gpumat::PjdsColumns::Plain, gpumat::PjdsColumns::Dictionary, gpumat::PjdsColumns::Positional})
      for (gpumat::PjdsValues vals : {gpumat::PjdsValues::Plain, gpumat::PjdsValues::Table})
        for (bool fp32 : {false, true})
          for (int occ : {4, 6}) {
            PjdsParams p = pp(32, cols == gpumat::PjdsColumns::Positional ? 1 : 256, 32, cols, vals);
            p.fp32       = fp32;
            const std::string  where = M.name + " " + describe(p) + (fp32 ? " fp32" : "") + " occupancy " + std::to_string(occ);
            PjdsDevice<double> D;
            ASSERT_TRUE(D.set_occupancy(occ));
            ASSERT_EQ(cudaSuccess, D.build(M.view(v), p, s)) << where << ": " << D.why();
            const std::vector<double> r = values_read(v, D);
            check_device_products(M, r, D, s, where);
            gpumat_test::check_device_diagonal(M, r, D, s, where);
          }
  }
}

// Occupancy 0: the first 2 x kTrialProducts products alternate between the instances, timed; once
// they have finished the next product decides (the faster kept), every product with the same bits.
TEST(PjdsDevice, OccupancyMeasuredByTheFirstProducts) {
  const Stream        s;
  const matgen::Csr   M = matgen::power_law(20000, 20000, 1.2, 2.0, 5000, 43);
  const auto          v = M.values<double>();
  PjdsDevice<double>  D;
  ASSERT_EQ(cudaSuccess, D.build(M.view(v), gpumat::pjds_model(M.view(v), PjdsParams{}).p, s)) << D.why();
  EXPECT_FALSE(D.trial().decided());
  EXPECT_EQ(D.kernel_occupancy(), D.layout_occupancy());
  std::vector<double> x(std::size_t(M.ncols));
  for (std::size_t j = 0; j < x.size(); ++j) x[j] = 0.5 + 1e-3 * double(j % 89);
  const std::vector<double> z(std::size_t(M.nrows), 0.0);
  const auto                first = gpumat_test::device_apply(D, Op::NoTrans, x, z, ZMode::None, s); // synchronizes
  for (int k = 1; k < 2 * PjdsDevice<double>::kTrialProducts + 1; ++k) EXPECT_TRUE(gpumat_test::device_apply(D, Op::NoTrans, x, z, ZMode::None, s) == first) << "product " << k;
  ASSERT_TRUE(D.trial().decided());
  const int chosen = D.kernel_occupancy();
  EXPECT_TRUE(chosen == 4 || chosen == 6) << chosen;
  ASSERT_EQ(D.trial().times().size(), 2u);
  for (const auto &t : D.trial().times()) EXPECT_GT(t.second, 0.0f) << t.first;
  // a rebuild measures anew; a set occupancy is kept without a trial
  ASSERT_EQ(cudaSuccess, D.build(M.view(v), gpumat::pjds_model(M.view(v), PjdsParams{}).p, s)) << D.why();
  EXPECT_FALSE(D.trial().decided());
  ASSERT_TRUE(D.set_occupancy(6));
  EXPECT_EQ(D.kernel_occupancy(), 6);
  EXPECT_TRUE(gpumat_test::device_apply(D, Op::NoTrans, x, z, ZMode::None, s) == first);
}

// The trial's bookkeeping alone (no kernels: empty products between the events).
TEST(InstanceTrial, AlternatesThenDecides) {
  const Stream                 s;
  gpumat::cuda::InstanceTrial t;
  EXPECT_EQ(t.begin(s), 0); // no trial: the fallback, 0 before start
  t.start({4, 6}, 2, 4);
  std::vector<int> ran;
  for (int k = 0; k < 4; ++k) {
    ran.push_back(t.begin(s));
    t.end(s);
  }
  EXPECT_EQ(ran, (std::vector<int>{4, 6, 4, 6}));
  ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(s));
  const int c = t.begin(s);
  EXPECT_TRUE(t.decided());
  EXPECT_TRUE(c == 4 || c == 6);
  EXPECT_EQ(t.chosen(), c);
  t.start({6}, 2, 4); // nothing to try
  EXPECT_TRUE(t.decided());
  EXPECT_EQ(t.begin(s), 4);
  t.start({4, 6}, gpumat::cuda::InstanceTrial::kMaxPer + 1, 6); // out of range: the fallback
  EXPECT_EQ(t.begin(s), 6);
  t.clear();
  EXPECT_FALSE(t.decided());
}

// Positional columns (pjds.hpp) on the device: the layout the host builder's (check_pjds_device_layout:
// offsets, their starts, the group, values and slots), the product (y = A x, y = A x + z, z aliased)
// and the diagonal bitwise equal to the 32-bit layout's, the transpose to rounding (atomics); both
// ops within rounding of the long-double reference of the values the layout stores (with fp32
// storage the padded part's rounded values).
template <typename T>
void check_positional_against_plain(const matgen::Csr &M, const std::vector<T> &v, PjdsParams p, cudaStream_t s, const std::string &where, bool bitwise = true) {
  PjdsParams pl = p;
  pl.columns    = gpumat::PjdsColumns::Plain;
  PjdsDevice<T> Q, P;
  ASSERT_EQ(cudaSuccess, Q.build(M.view(v), p, s)) << where << ": " << Q.why();
  ASSERT_EQ(cudaSuccess, P.build(M.view(v), pl, s)) << where << ": " << P.why();
  gpumat_test::check_pjds_device_layout(M, v, p, Q, where);
  same_as_layout(Q, P, M, s, where, bitwise); // the diagonal: 0 where a row stores none, not the sentinel
  check_device_products(M, values_read(v, Q), Q, s, where);
}

// The 5-point stencil (group 1, at most 5 offsets a block) with 32, 128 and 8 rows a block, in the
// matrix's order and sorted: built as the host builds it, bitwise equal to the 32-bit layout, fewer
// bytes read; the product kernel's instances (4, 6 blocks per SM) the same bits.
TEST(PjdsDevice, PositionalStencilBitwiseEqualToPlain) {
  const Stream      s;
  const matgen::Csr M = matgen::stencil_2d(700, 500);
  const auto        v = M.values<double>();
  for (int br : {32, 128, 8})
    for (std::int64_t sigma : {std::int64_t(1), gpumat::pjds_all_rows}) {
      const PjdsParams p = pp(br, sigma, 0, gpumat::PjdsColumns::Positional, gpumat::PjdsValues::Plain);
      check_positional_against_plain<double>(M, v, p, s, describe(p));
      PjdsDevice<double> Q, P;
      ASSERT_EQ(cudaSuccess, Q.build(M.view(v), p, s)) << Q.why();
      ASSERT_EQ(cudaSuccess, P.build(M.view(v), pp(br, sigma, 0, gpumat::PjdsColumns::Plain, gpumat::PjdsValues::Plain), s)) << P.why();
      ASSERT_TRUE(Q.positional());
      EXPECT_FALSE(Q.reads_rowlen());
      EXPECT_EQ(Q.group(), 1);
      EXPECT_LT(Q.format_bytes(), P.format_bytes()) << describe(p);
      const auto x = matgen::random_vector<double>(std::size_t(M.ncols), 23);
      const std::vector<double> z(std::size_t(M.nrows), 0.0);
      std::vector<double>       first;
      for (int occ : {4, 6}) {
        ASSERT_TRUE(Q.set_occupancy(occ));
        const auto y = gpumat_test::device_apply(Q, Op::NoTrans, x, z, ZMode::None, s);
        if (first.empty()) first = y;
        else EXPECT_TRUE(y == first) << describe(p) << ": occupancy " << occ;
      }
    }
  for (int br : {32, 8}) { // fp32 vectors and values
    const PjdsParams p = pp(br, 1, 0, gpumat::PjdsColumns::Positional, gpumat::PjdsValues::Plain);
    check_positional_against_plain<float>(M, M.values<float>(), p, s, describe(p) + " float");
  }
}

// An infinite x at a column: the rows that do not hold it keep finite sums, the 32-bit layout's (a
// zero of a block's positional rows never reads its x).
TEST(PjdsDevice, PositionalInfiniteXOffTheRows) {
  const Stream      s;
  const matgen::Csr M = matgen::stencil_2d(300, 200);
  const auto        v = M.values<double>();
  for (int br : {32, 8}) {
    PjdsDevice<double> Q, P;
    ASSERT_EQ(cudaSuccess, Q.build(M.view(v), pp(br, 1, 0, gpumat::PjdsColumns::Positional, gpumat::PjdsValues::Plain), s)) << Q.why();
    ASSERT_EQ(cudaSuccess, P.build(M.view(v), pp(br, 1, 0, gpumat::PjdsColumns::Plain, gpumat::PjdsValues::Plain), s)) << P.why();
    auto                      x = matgen::random_vector<double>(std::size_t(M.ncols), 29);
    const std::vector<double> z(std::size_t(M.nrows), 0.0);
    for (index_t c : {index_t(M.ncols / 2), index_t(M.ncols / 2 + 7), index_t(1)}) {
      const double keep  = x[std::size_t(c)];
      x[std::size_t(c)]  = std::numeric_limits<double>::infinity();
      const auto yq = gpumat_test::device_apply(Q, Op::NoTrans, x, z, ZMode::None, s), yp = gpumat_test::device_apply(P, Op::NoTrans, x, z, ZMode::None, s);
      for (index_t r = 0; r < M.nrows; ++r) {
        bool holds = false;
        for (index_t k = M.rowptr[std::size_t(r)]; k < M.rowptr[std::size_t(r) + 1]; ++k) holds = holds || M.colidx[std::size_t(k)] == c;
        if (!holds) {
          ASSERT_TRUE(std::isfinite(yq[std::size_t(r)]) && yq[std::size_t(r)] == yp[std::size_t(r)]) << "b_r " << br << ", row " << r << " without column " << c << ": " << yq[std::size_t(r)];
        } else {
          ASSERT_TRUE(std::isinf(yq[std::size_t(r)])) << "b_r " << br << ", row " << r << " with column " << c;
        }
      }
      x[std::size_t(c)] = keep;
    }
  }
}

// A 3-dof problem: from its node's first row every row of a node has the same offsets, so the group
// is 3 and a block stores at most 15 a row (2 dofs: group 2, 10); as the host builds it, bitwise
// equal to the 32-bit layout, its stored zeros summed as that layout sums them (as entries, each in
// its rank's partial sum; a 0 taken for padding would move the row's later entries to the other).
TEST(PjdsDevice, PositionalNodeGroups) {
  const Stream s;
  for (index_t dof : {3, 2}) {
    const matgen::Csr M = matgen::dof_problem(90, 70, dof);
    const auto        v = M.values<double>();
    for (int br : {32, 64})
      for (std::int64_t sigma : {std::int64_t(1), gpumat::pjds_all_rows}) {
        const PjdsParams p = pp(br, sigma, 0, gpumat::PjdsColumns::Positional, gpumat::PjdsValues::Plain);
        check_positional_against_plain<double>(M, v, p, s, M.name + " " + describe(p));
        PjdsDevice<double> Q;
        ASSERT_EQ(cudaSuccess, Q.build(M.view(v), p, s)) << Q.why();
        if (sigma == 1) EXPECT_EQ(Q.group(), dof) << M.name << " " << describe(p);
        EXPECT_EQ(Q.padding(), Q.padded() - std::int64_t(M.nnz())); // no long part
        EXPECT_LE(Q.padded(), std::int64_t(5 * dof) * M.nrows) << M.name << " " << describe(p) << ": at most 5 x dof a row";
      }
  }
}

// The group chosen on the sample of blocks as the host builder chooses it (alternating_groups: with
// 4,100 blocks the sample is every second block, 2-dof rows, group 2, though group 1 stores fewer
// over every block; with 4,096 every block, group 1): the whole layout the host's, the products
// bitwise the 32-bit layout's; values plain and a table.
TEST(PjdsDevice, PositionalGroupChosenOnTheSample) {
  const Stream s;
  for (index_t nblocks : {4100, 4096}) {
    const matgen::Csr M = matgen::alternating_groups(nblocks);
    const auto        v = M.values<double>();
    for (gpumat::PjdsValues vals : {gpumat::PjdsValues::Plain, gpumat::PjdsValues::Table}) {
      const PjdsParams  p     = pp(32, 1, 0, gpumat::PjdsColumns::Positional, vals);
      const std::string where = M.name + " " + std::to_string(nblocks) + " blocks " + describe(p);
      check_positional_against_plain<double>(M, v, p, s, where);
      PjdsDevice<double> Q;
      ASSERT_EQ(cudaSuccess, Q.build(M.view(v), p, s)) << Q.why();
      EXPECT_EQ(Q.group(), nblocks > gpumat::kPjdsPositionalSample ? 2 : 1) << where;
    }
  }
}

// Auto's positional columns on the device as on the host (pjds_positional_auto_tries and _pays):
// the 5-point stencil whose values never repeat takes them, unremarked, the device layout the
// host's and its products bitwise those of 32-bit columns, with fp64 values and with fp32 storage;
// the stencil's own values (a value table) and a scattered pattern (tried, not kept; in 1,875
// blocks, and in 4,400, where the sample of blocks already says no) do not, their layouts the
// host's. The stencil's 10,938 blocks are judged on the sample, then counted whole.
TEST(PjdsDevice, AutoPositionalAsTheHost) {
  const Stream      s;
  const matgen::Csr S = matgen::stencil_2d(700, 500), R = matgen::random_rows("scattered", 60000, 60000, 3, 6, 0.0, 31),
                    L = matgen::random_rows("scattered, 4,400 blocks", 140800, 140800, 3, 6, 0.0, 37);
  auto              v = S.values<double>();
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = 1.0 + 1e-9 * double(k);
  const PjdsParams p = pp(32, 1, 0);
  check_positional_against_plain<double>(S, v, p, s, "stencil_2d, values never repeating, auto");
  PjdsDevice<double> Q;
  ASSERT_EQ(cudaSuccess, Q.build(S.view(v), p, s)) << Q.why();
  EXPECT_TRUE(Q.positional());
  EXPECT_EQ(Q.positional_declined(), 0);
  PjdsParams fp32 = pp(32, 1, 32); // check_fp32_against_rounded's long rows: none here
  fp32.fp32       = true;
  check_fp32_against_rounded(S, v, fp32, s, "stencil_2d, values never repeating, fp32 storage, auto",
                             [&](const PjdsDevice<double> &D, const PjdsDevice<double> &) { EXPECT_TRUE(D.positional()) << "fp32 storage"; });
  struct Case {
    std::string         what;
    const matgen::Csr  *M;
    std::vector<double> v;
    PjdsParams          p;
  };
  const Case cases[] = {{"the stencil's own values", &S, S.values<double>(), p},
                        {"a scattered pattern", &R, R.values<double>(), pp(32, 1, 0, gpumat::PjdsColumns::Auto, gpumat::PjdsValues::Plain)},
                        {"a scattered pattern judged on the sample", &L, L.values<double>(), pp(32, 1, 0, gpumat::PjdsColumns::Auto, gpumat::PjdsValues::Plain)}};
  for (const Case &c : cases) {
    PjdsDevice<double> D;
    ASSERT_EQ(cudaSuccess, D.build(c.M->view(c.v), c.p, s)) << c.what << ": " << D.why();
    gpumat_test::check_pjds_device_layout(*c.M, c.v, c.p, D, c.what);
    EXPECT_FALSE(D.positional()) << c.what;
    EXPECT_EQ(D.positional_declined(), 0) << c.what;
  }
}

// Auto's positional columns over an 8-bit value table on the device as on the host
// (PjdsPositional.AutoTakesThemOverAnEightBitTable): a 4-dof problem of constant coefficients
// (groups of 4 rows) and a cyclic band of 24 with 255 distinct values take them, the table made
// anew with the sentinel, the device layout the host's and its products bitwise those of the 32-bit
// columns with the table; the band with 256 values (no room for the sentinel) and a scattered
// pattern of wide rows (tried, not kept) keep dictionary or 32-bit columns, their layouts the host's.
TEST(PjdsDevice, AutoPositionalTableAsTheHost) {
  const Stream s;
  const matgen::Csr D = matgen::dof_problem_constant(60, 50, 4); // 8 values
  const matgen::Csr C = matgen::cyclic_band(3000, 24);
  matgen::Csr W = matgen::random_rows("scattered, wide rows", 6000, 6000, 18, 24, 0.0, 41);
  std::fill(W.val.begin(), W.val.end(), 1.0);
  const PjdsParams p = pp(32, 1, 0);
  struct Case {
    std::string         what;
    const matgen::Csr  *M;
    std::vector<double> v;
    bool                taken;
  };
  const Case cases[] = {{"4 dof, constant coefficients", &D, D.values<double>(), true},
                        {"cyclic band of 24, 255 values", &C, matgen::cycled_values(C, 255), true},
                        {"cyclic band of 24, 256 values: no room for the sentinel", &C, matgen::cycled_values(C, 256), false},
                        {"a scattered pattern of wide rows", &W, W.values<double>(), false}};
  for (const Case &c : cases) {
    PjdsDevice<double> Q;
    ASSERT_EQ(cudaSuccess, Q.build(c.M->view(c.v), p, s)) << c.what << ": " << Q.why();
    gpumat_test::check_pjds_device_layout(*c.M, c.v, p, Q, c.what);
    EXPECT_EQ(Q.positional(), c.taken) << c.what;
    EXPECT_TRUE(Q.tabled()) << c.what;
    EXPECT_EQ(Q.code_bytes(), 1) << c.what;
    EXPECT_EQ(Q.positional_declined(), 0) << c.what;
    if (c.taken) check_positional_against_plain<double>(*c.M, c.v, p, s, c.what);
  }
}

// A value table with positional columns: the stencil's values (-1, 4 and the padding's sentinel) coded as the
// host codes them, the product bitwise the 32-bit layout's as built, after a refresh within the
// table (kept) and after one outside it (turned off: the values read); the refreshed values those
// of a build from them.
TEST(PjdsDevice, PositionalValueTableAndRefresh) {
  const Stream              s;
  const matgen::Csr         M = matgen::stencil_2d(600, 400);
  const auto                v = M.values<double>();
  const auto                x = matgen::random_vector<double>(std::size_t(M.ncols), 9);
  const std::vector<double> z(std::size_t(M.nrows), 0.0);
  const PjdsParams          pt = pp(32, 1, 0, gpumat::PjdsColumns::Positional, gpumat::PjdsValues::Table), pl = pp(32, 1, 0, gpumat::PjdsColumns::Plain, gpumat::PjdsValues::Plain);
  PjdsDevice<double>        C, P;
  ASSERT_EQ(cudaSuccess, C.build(M.view(v), pt, s)) << C.why();
  ASSERT_EQ(cudaSuccess, P.build(M.view(v), pl, s)) << P.why();
  ASSERT_TRUE(C.positional());
  ASSERT_TRUE(C.table_in_use());
  EXPECT_EQ(C.table_entries(), 3);
  gpumat_test::check_pjds_device_layout(M, v, pt, C, "positional, table");
  auto same = [&](const char *what) {
    EXPECT_TRUE(gpumat_test::device_apply(C, Op::NoTrans, x, z, ZMode::None, s) == gpumat_test::device_apply(P, Op::NoTrans, x, z, ZMode::None, s)) << what;
  };
  same("as built");
  std::vector<double> w(v);
  for (auto &a : w) a = a == 4.0 ? -1.0 : 4.0; // the same values: in the table
  ASSERT_EQ(cudaSuccess, C.refresh(w.data(), s));
  ASSERT_EQ(cudaSuccess, P.refresh(w.data(), s));
  EXPECT_TRUE(C.table_in_use());
  same("refreshed within the table");
  gpumat_test::check_pjds_device_layout(M, w, pt, C, "positional, table, refreshed within");
  w[7] = 2.5;
  ASSERT_EQ(cudaSuccess, C.refresh(w.data(), s));
  ASSERT_EQ(cudaSuccess, P.refresh(w.data(), s));
  EXPECT_FALSE(C.table_in_use());
  same("refreshed outside the table");
  check_device_products(M, w, C, s, "positional, table turned off");
  PjdsDevice<double> E;
  ASSERT_EQ(cudaSuccess, E.build(M.view(w), pt, s)) << E.why();
  Pjds<double> a, b;
  ASSERT_EQ(cudaSuccess, C.download(a));
  ASSERT_EQ(cudaSuccess, E.download(b));
  EXPECT_TRUE(gpumat_test::same_values(a.val, b.val)) << "refreshed values: a build's from them";
  // refreshes without a table, from host and device memory, in several staging chunks
  check_refresh<double>(M, pp(32, 1, 0, gpumat::PjdsColumns::Positional, gpumat::PjdsValues::Plain), s);
  const matgen::Csr L = matgen::stencil_2d(1000, 1000);
  ASSERT_GT(L.colidx.size(), std::size_t(gpumat::cuda::kRefreshChunk));
  check_refresh<double>(L, pp(32, 4096, 0, gpumat::PjdsColumns::Positional, gpumat::PjdsValues::Plain), s);
}

// Equal entry by entry: the same bits, or both NaN (a NaN's payload is the hardware's).
template <typename T>
bool same_or_nan(const std::vector<T> &a, const std::vector<T> &b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k)
    if (gpumat::value_bits(a[k]) != gpumat::value_bits(b[k]) && !(std::isnan(a[k]) && std::isnan(b[k]))) return false;
  return true;
}

// The 5-point stencil with every fifth entry (diagonals among them) and all of row 77 stored as 0,
// and column 1234 taken out (no row stores it, the padding of its neighbours' rows points at it;
// row 1234 has no diagonal).
matgen::Csr stencil_with_zeros() {
  const matgen::Csr S = matgen::stencil_2d(300, 200);
  matgen::Csr       M;
  M.name  = "stencil_2d with stored zeros, no column 1234";
  M.nrows = S.nrows, M.ncols = S.ncols;
  for (index_t r = 0; r < S.nrows; ++r) {
    for (index_t k = S.rowptr[std::size_t(r)]; k < S.rowptr[std::size_t(r) + 1]; ++k)
      if (S.colidx[std::size_t(k)] != 1234) M.colidx.push_back(S.colidx[std::size_t(k)]), M.val.push_back(k % 5 == 0 || r == 77 ? 0.0 : S.val[std::size_t(k)]);
    M.rowptr.push_back(index_t(M.colidx.size()));
  }
  return M;
}

// Stored zeros (the stencil's above, the 3-dof problem's): the products, transpose and diagonal as
// the 32-bit layout's (check_positional_against_plain: bitwise), across b_r, the value table and
// fp32 storage; an infinite x at a stored zero's column gives NaN in its row (0 x Inf, as AIJ's
// product) and the 32-bit layout's every other row bit for bit; an infinite x at column 1234, which
// only padding points at, leaves every row finite.
TEST(PjdsDevice, PositionalStoredZerosAndInfiniteX) {
  const Stream s;
  for (const matgen::Csr &M : {stencil_with_zeros(), matgen::dof_problem(60, 50, 3)}) {
    const auto v = M.values<double>();
    for (int br : {32, 8})
      for (gpumat::PjdsValues vals : {gpumat::PjdsValues::Plain, gpumat::PjdsValues::Table})
        for (bool fp32 : {false, true}) {
          PjdsParams p = pp(br, 1, 0, gpumat::PjdsColumns::Positional, vals), pl = pp(br, 1, 0, gpumat::PjdsColumns::Plain, vals);
          p.fp32 = pl.fp32        = fp32;
          const std::string where = M.name + " " + describe(p) + (fp32 ? " fp32" : "");
          check_positional_against_plain<double>(M, v, p, s, where);
          PjdsDevice<double> Q, P;
          ASSERT_EQ(cudaSuccess, Q.build(M.view(v), p, s)) << Q.why();
          ASSERT_EQ(cudaSuccess, P.build(M.view(v), pl, s)) << P.why();
          const std::vector<double> z(std::size_t(M.nrows), 0.0);
          const auto                x = matgen::random_vector<double>(std::size_t(M.ncols), 31);
          int                       tried = 0;
          for (index_t r = 0; r < M.nrows && tried < 3; ++r)
            for (index_t k = M.rowptr[std::size_t(r)]; k < M.rowptr[std::size_t(r) + 1]; ++k) {
              if (v[std::size_t(k)] != 0.0) continue;
              const index_t c  = M.colidx[std::size_t(k)];
              auto          xi = x;
              xi[std::size_t(c)] = std::numeric_limits<double>::infinity();
              const auto yq = gpumat_test::device_apply(Q, Op::NoTrans, xi, z, ZMode::None, s), yp = gpumat_test::device_apply(P, Op::NoTrans, xi, z, ZMode::None, s);
              ASSERT_TRUE(std::isnan(yq[std::size_t(r)])) << where << ": row " << r << ", x(" << c << ") = Inf at its stored zero: " << yq[std::size_t(r)];
              ASSERT_TRUE(same_or_nan(yq, yp)) << where << ": x(" << c << ") = Inf, not the 32-bit layout's";
              ++tried;
              break;
            }
          ASSERT_EQ(tried, 3) << where;
          if (M.ncols > 1234 && M.name.find("1234") != std::string::npos) {
            auto xi    = x;
            xi[1234]   = std::numeric_limits<double>::infinity();
            const auto yq = gpumat_test::device_apply(Q, Op::NoTrans, xi, z, ZMode::None, s);
            for (index_t r = 0; r < M.nrows; ++r) ASSERT_TRUE(std::isfinite(yq[std::size_t(r)])) << where << ": x(1234) = Inf only padding points at, row " << r;
            EXPECT_TRUE(yq == gpumat_test::device_apply(P, Op::NoTrans, xi, z, ZMode::None, s)) << where;
          }
        }
  }
}

// A refresh that brings stored zeros (every third value) and a value with the padding sentinel's
// bits (fp64's; an fp32 case: fp32's), from host and device memory: the layout a build's from those
// values (the sentinel's bits stored as the canonical NaN, check_pjds_device_layout), the product's
// row of that value NaN and every other the 32-bit layout's (refreshed alike) bit for bit, the
// diagonal the 32-bit layout's; a value table built from the stencil's values (4, -1 and the
// sentinel) holds neither 0 nor the NaN: the refresh turns it off, and the values are read.
template <typename T>
void refresh_zeros_and_sentinel(const matgen::Csr &M, gpumat::PjdsValues vals, bool fp32, cudaStream_t s) {
  const std::vector<T> v = M.values<T>();
  std::vector<T>       w(v);
  for (std::size_t k = 0; k < w.size(); k += 3) w[k] = T(0);
  const index_t     r = 4321;
  const std::size_t q = std::size_t(M.rowptr[std::size_t(r)] + 1);
  w[q]                = gpumat::pjds_pad<T>();
  PjdsParams p = pp(32, 1, 0, gpumat::PjdsColumns::Positional, vals), pl = pp(32, 1, 0, gpumat::PjdsColumns::Plain, vals);
  p.fp32 = pl.fp32 = fp32;
  const auto           x = matgen::random_vector<T>(std::size_t(M.ncols), 37);
  const std::vector<T> z(std::size_t(M.nrows), T(0));
  for (gpumat::Mem where : {gpumat::Mem::Host, gpumat::Mem::Device}) {
    const std::string what = M.name + " " + describe(p) + (fp32 ? " fp32" : "") + (sizeof(T) == 4 ? " float" : "") + (where == gpumat::Mem::Host ? " host values" : " device values");
    PjdsDevice<T>     Q, P;
    ASSERT_EQ(cudaSuccess, Q.build(M.view(v), p, s)) << Q.why();
    ASSERT_EQ(cudaSuccess, P.build(M.view(v), pl, s)) << P.why();
    const DeviceArray<T> dw(w);
    ASSERT_EQ(cudaSuccess, Q.refresh(where == gpumat::Mem::Host ? w.data() : dw.p, s, where)) << what;
    ASSERT_EQ(cudaSuccess, P.refresh(where == gpumat::Mem::Host ? w.data() : dw.p, s, where)) << what;
    Pjds<T> G;
    ASSERT_EQ(cudaSuccess, Q.download(G));
    ASSERT_LT(G.slot[q], G.padded());
    EXPECT_EQ(gpumat::value_bits(G.val[std::size_t(G.slot[q])]), gpumat::value_bits(gpumat::pjds_nan<T>())) << what << ": the sentinel's bits stored as the canonical NaN";
    if (Q.single()) {
      EXPECT_EQ(gpumat::value_bits(G.val32[std::size_t(G.slot[q])]), gpumat::value_bits(gpumat::pjds_nan<float>())) << what;
    }
    if (vals == gpumat::PjdsValues::Table) {
      EXPECT_FALSE(Q.table_in_use()) << what << ": 0 and NaN are not among the table's values";
    }
    // the layout: a build's from w, on the host (the table as built from v aside)
    PjdsParams ph = p;
    ph.values     = gpumat::PjdsValues::Plain;
    Pjds<T> H;
    gpumat::pjds_build(M.view(w), ph, H);
    EXPECT_TRUE(gpumat_test::same_values(G.val, H.val)) << what << ": the values a build's from them";
    if (Q.single()) {
      EXPECT_TRUE(gpumat_test::same_values(G.val32, H.val32)) << what << ": fp32 values";
    }
    const auto yq = gpumat_test::device_apply(Q, Op::NoTrans, x, z, ZMode::None, s), yp = gpumat_test::device_apply(P, Op::NoTrans, x, z, ZMode::None, s);
    for (index_t i = 0; i < M.nrows; ++i) {
      if (i == r) {
        ASSERT_TRUE(std::isnan(yq[std::size_t(i)])) << what << ": the NaN's row";
      } else {
        ASSERT_EQ(gpumat::value_bits(yq[std::size_t(i)]), gpumat::value_bits(yp[std::size_t(i)])) << what << ": row " << i;
      }
    }
    DeviceArray<T> dq(std::size_t(M.nrows)), dp(std::size_t(M.nrows));
    ASSERT_EQ(cudaSuccess, Q.diagonal(nullptr, dq.p, s));
    ASSERT_EQ(cudaSuccess, P.diagonal(nullptr, dp.p, s));
    ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(s));
    EXPECT_TRUE(same_or_nan(dq.download(), dp.download())) << what << ": diagonal";
  }
}

TEST(PjdsDevice, PositionalRefreshZerosAndSentinel) {
  const Stream      s;
  const matgen::Csr M = matgen::stencil_2d(120, 90);
  for (gpumat::PjdsValues vals : {gpumat::PjdsValues::Plain, gpumat::PjdsValues::Table}) {
    refresh_zeros_and_sentinel<double>(M, vals, false, s);
    refresh_zeros_and_sentinel<float>(M, vals, false, s);
  }
  refresh_zeros_and_sentinel<double>(M, gpumat::PjdsValues::Plain, true, s);
}

// The value table's entries include the padding's sentinel, on the device as on the host: 255
// distinct stored values and padding make a table of 8-bit codes (the hash sets' path), 256 and
// padding one of 16-bit codes (the bounded set's path); 65,535 and padding fill a table of 16-bit codes,
// 65,536 and padding make none.
TEST(PjdsDevice, PositionalTableCountsTheSentinel) {
  const Stream s;
  for (int distinct : {255, 256, 65535, 65536}) {
    const matgen::Csr   M = distinct < 300 ? matgen::stencil_2d(40, 40) : matgen::stencil_2d(300, 240);
    std::vector<double> v(M.val.size());
    for (std::size_t k = 0; k < v.size(); ++k) v[k] = 1.0 + double(k % std::size_t(distinct));
    const PjdsParams   p = pp(32, 1, 0, gpumat::PjdsColumns::Positional, gpumat::PjdsValues::Table);
    PjdsDevice<double> D;
    ASSERT_EQ(cudaSuccess, D.build(M.view(v), p, s)) << D.why();
    EXPECT_EQ(D.table_in_use(), distinct != 65536) << distinct << " values";
    EXPECT_EQ(D.table_entries(), distinct != 65536 ? distinct + 1 : 0) << distinct << " values";
    EXPECT_EQ(D.code_bytes(), distinct == 255 ? 1 : distinct != 65536 ? 2 : 0) << distinct << " values";
    gpumat_test::check_pjds_device_layout(M, v, p, D, "positional, distinct values " + std::to_string(distinct));
  }
}

// A table of 16-bit codes on the device: a 5-point stencil whose values repeat with period 1,000
// (each value and the padding's 0, or positional columns' sentinel), with 32-bit, dictionary
// (b_r 32: the dictionary in shared memory; b_r 16: read through L1) and positional columns, double
// and float, values auto and fp32 asked for (the table wins): coded as the host codes them (the
// table, ascending by bit pattern, and every code: check_pjds_device_layout); the product bitwise
// equal to the layout's with the same columns and plain values, and the diagonal too, as built,
// after a refresh within the table (kept, the codes re-derived by the binary search) and after one
// with a value outside it (turned off: the product reads the values); the transposed product
// (atomics: any order) within rounding of it.
template <typename T>
void check_device_table16(gpumat::PjdsColumns cols, int br, bool fp32, cudaStream_t s) {
  const matgen::Csr M = matgen::stencil_2d(600, 400);
  std::vector<T>    v(M.val.size());
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = T(1) + T(1e-3) * T(k % 1000) - T(M.val[k] == 4.0 ? 0 : 2);
  const auto           x = matgen::random_vector<T>(std::size_t(M.ncols), 9);
  const std::vector<T> z(std::size_t(M.nrows), T(0));
  PjdsParams           pt = pp(br, 1, 0, cols, gpumat::PjdsValues::Auto), pl = pp(br, 1, 0, cols, gpumat::PjdsValues::Plain);
  pt.fp32                 = fp32;
  const std::string where = describe(pt) + (fp32 ? " fp32" : "") + (sizeof(T) == 8 ? " double" : " float");
  PjdsDevice<T>     C, P;
  ASSERT_EQ(cudaSuccess, C.build(M.view(v), pt, s)) << C.why();
  ASSERT_EQ(cudaSuccess, P.build(M.view(v), pl, s)) << P.why();
  ASSERT_TRUE(C.tabled()) << where;
  ASSERT_TRUE(C.table_in_use()) << where;
  EXPECT_FALSE(C.single()) << where << ": the table wins over fp32";
  EXPECT_EQ(C.code_bytes(), 2) << where;
  EXPECT_GT(C.table_entries(), gpumat::kPjdsTableMax) << where;
  EXPECT_EQ(P.format_bytes() - C.format_bytes(), (sizeof(T) - 2) * std::size_t(C.padded()) - sizeof(T) * std::size_t(C.table_entries())) << where;
  gpumat_test::check_pjds_device_layout(M, v, pt, C, where);
  auto same = [&](const std::vector<T> &w, const char *what) {
    EXPECT_TRUE(gpumat_test::same_values(gpumat_test::device_apply(C, Op::NoTrans, x, z, ZMode::None, s), gpumat_test::device_apply(P, Op::NoTrans, x, z, ZMode::None, s)))
        << where << " " << what;
    const auto ct = gpumat_test::device_apply(C, Op::Trans, x, z, ZMode::None, s), pt2 = gpumat_test::device_apply(P, Op::Trans, x, z, ZMode::None, s);
    ASSERT_EQ(ct.size(), pt2.size());
    for (std::size_t k = 0; k < ct.size(); ++k) ASSERT_NEAR(double(ct[k]), double(pt2[k]), 8 * double(tolerance<T>()) * (1 + std::fabs(double(pt2[k])))) << where << " " << what << ": Trans " << k;
    DeviceArray<T> dc(std::size_t(M.nrows)), dp(std::size_t(M.nrows));
    ASSERT_EQ(cudaSuccess, C.diagonal(nullptr, dc.p, s));
    ASSERT_EQ(cudaSuccess, P.diagonal(nullptr, dp.p, s));
    ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(s));
    EXPECT_TRUE(gpumat_test::same_values(dc.download(), dp.download())) << where << " " << what << ": diagonal";
    gpumat_test::check_device_diagonal(M, w, C, s, where + " " + what);
  };
  same(v, "as built");
  std::vector<T> w(v);
  for (std::size_t k = 0; k < w.size(); ++k) w[k] = v[(k + 7) % v.size()]; // the same values, moved: in the table
  ASSERT_EQ(cudaSuccess, C.refresh(w.data(), s));
  ASSERT_EQ(cudaSuccess, P.refresh(w.data(), s));
  EXPECT_TRUE(C.table_in_use()) << where;
  gpumat_test::check_pjds_device_layout(M, w, pt, C, where + ", refreshed within");
  same(w, "refreshed within the table");
  w[7] = T(0.125);
  ASSERT_EQ(cudaSuccess, C.refresh(w.data(), s));
  ASSERT_EQ(cudaSuccess, P.refresh(w.data(), s));
  EXPECT_FALSE(C.table_in_use()) << where;
  same(w, "refreshed outside the table");
}

TEST(PjdsDevice, Table16BitwiseEqualAndRefresh) {
  const Stream s;
  for (gpumat::PjdsColumns cols : {gpumat::PjdsColumns::Plain, gpumat::PjdsColumns::Dictionary, gpumat::PjdsColumns::Positional})
    for (int br : {32, 16}) {
      check_device_table16<double>(cols, br, false, s);
      check_device_table16<double>(cols, br, true, s);
      check_device_table16<float>(cols, br, false, s);
    }
}

// More than 65,536 distinct values: no table, even when asked for (the sort's count); every
// instance of the product (occupancy 4 and 6) with a table of 16-bit codes gives the same bits.
TEST(PjdsDevice, Table16LimitAndEveryOccupancy) {
  const Stream      s;
  const matgen::Csr M = matgen::stencil_2d(300, 240);
  const auto        x = matgen::random_vector<double>(std::size_t(M.ncols), 3);
  const std::vector<double> z(std::size_t(M.nrows), 0.0);
  for (int distinct : {65535, 65537}) {
    std::vector<double> v(M.val.size());
    for (std::size_t k = 0; k < v.size(); ++k) v[k] = 1.0 + double(k % std::size_t(distinct));
    const PjdsParams   p = pp(32, 1, 0, gpumat::PjdsColumns::Plain, gpumat::PjdsValues::Table);
    PjdsDevice<double> D4, D6;
    ASSERT_TRUE(D4.set_occupancy(4) && D6.set_occupancy(6));
    ASSERT_EQ(cudaSuccess, D4.build(M.view(v), p, s)) << D4.why();
    ASSERT_EQ(cudaSuccess, D6.build(M.view(v), p, s)) << D6.why();
    EXPECT_EQ(D4.table_in_use(), distinct == 65535) << distinct << " values";
    gpumat_test::check_pjds_device_layout(M, v, p, D4, "distinct values " + std::to_string(distinct));
    EXPECT_TRUE(gpumat_test::device_apply(D4, Op::NoTrans, x, z, ZMode::None, s) == gpumat_test::device_apply(D6, Op::NoTrans, x, z, ZMode::None, s)) << distinct;
    check_device_products(M, v, D6, s, "distinct values " + std::to_string(distinct));
  }
}

// The bounded hash set of the 16-bit path (code_values16) stops where no table can result, as the
// host builder's set: values all distinct (more than 65,536) give no table, auto or asked for;
// exactly pjds_table16_cap distinct values (the padding's 0 among them) a table of 16-bit codes
// under auto, one more none under auto and a table where asked for. The same with a value of the
// sets' empty mark's bits (a NaN: counted by a flag, the table's last entry), and where such a
// value comes with at most 256 distinct ones: 8-bit codes, also where pjds_table16_cap is below 256
// (a small matrix). The download the host builder's in each.
TEST(PjdsDevice, Table16SetStopsAtTheCap) {
  const Stream        s;
  const double        empty_bits = gpumat::value_from_bits<double>(~0ull);
  const matgen::Csr   M          = matgen::stencil_2d(300, 240);
  std::vector<double> v          = M.values<double>();
  Pjds<double>        P;
  gpumat::pjds_build(M.view(v), gpumat::pjds_resolve(pp(32, 1, 0, gpumat::PjdsColumns::Plain, gpumat::PjdsValues::Plain)), P);
  const std::int64_t cap = gpumat::pjds_table16_cap(P.padded(), 8), extra = P.padding() > 0 ? 1 : 0; // the padding's 0
  ASSERT_GT(cap, gpumat::kPjdsTableMax);
  ASSERT_LT(cap, gpumat::kPjdsTable16Max);
  auto check = [&](const matgen::Csr &A, const std::vector<double> &w, gpumat::PjdsValues mode, std::int64_t entries, const std::string &what) {
    const PjdsParams   p     = pp(32, 1, 0, gpumat::PjdsColumns::Plain, mode);
    const std::string  where = what + (mode == gpumat::PjdsValues::Table ? ", table" : ", auto");
    PjdsDevice<double> D;
    ASSERT_EQ(cudaSuccess, D.build(A.view(w), p, s)) << D.why();
    EXPECT_EQ(D.table_in_use(), entries > 0) << where;
    EXPECT_EQ(D.table_entries(), entries) << where;
    EXPECT_EQ(D.code_bytes(), entries > gpumat::kPjdsTableMax ? 2 : entries > 0 ? 1 : 0) << where;
    gpumat_test::check_pjds_device_layout(A, w, p, D, where);
  };
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = 1.0 + double(k);
  check(M, v, gpumat::PjdsValues::Auto, 0, "all distinct");
  check(M, v, gpumat::PjdsValues::Table, 0, "all distinct");
  for (bool nan : {false, true})
    for (std::int64_t distinct : {cap, cap + 1}) {
      for (std::size_t k = 0; k < v.size(); ++k) v[k] = 1.0 + double(std::int64_t(k) % (distinct - extra));
      if (nan) std::replace(v.begin(), v.end(), 1.0, empty_bits);
      const std::string what = std::to_string(distinct) + " values, cap " + std::to_string(cap) + (nan ? ", one of the empty mark's bits" : "");
      check(M, v, gpumat::PjdsValues::Auto, distinct == cap ? distinct : 0, what);
      check(M, v, gpumat::PjdsValues::Table, distinct, what);
    }
  for (const matgen::Csr &A : {matgen::stencil_2d(20, 20), matgen::stencil_2d(40, 40)}) { // pjds_table16_cap below 256, above
    std::vector<double> w(A.val.size());
    for (std::size_t k = 0; k < w.size(); ++k) w[k] = k % 100 == 0 ? empty_bits : 1.0 + double(k % 100);
    Pjds<double> H;
    gpumat::pjds_build(A.view(w), gpumat::pjds_resolve(pp(32, 1, 0, gpumat::PjdsColumns::Plain, gpumat::PjdsValues::Plain)), H);
    const std::int64_t entries = 100 + (H.padding() > 0 ? 1 : 0);
    const std::string  what    = std::to_string(A.val.size()) + " entries, 100 values with the empty mark's bits, cap " + std::to_string(gpumat::pjds_table16_cap(H.padded(), 8));
    check(A, w, gpumat::PjdsValues::Auto, entries, what);
    check(A, w, gpumat::PjdsValues::Table, entries, what);
  }
}

// Positional columns asked for as the PETSc adapter asks (positional_always clear): the device keeps
// or declines them as the host builder does (check_pjds_device_layout: positional_declined and the
// whole layout): kept on the 5-point stencil and the 3-dof problem, declined on random columns,
// whose layout, products and refresh are then a plain-columns build's bit for bit; values plain,
// a table and fp32 storage.
TEST(PjdsDevice, PositionalDeclinedAsTheHost) {
  const Stream         s;
  std::vector<index_t> len(3000);
  std::mt19937_64      g(17);
  for (auto &l : len) l = index_t(4 + g() % 12);
  const matgen::Csr R = matgen::from_lengths("random columns", 40000, len, 29);
  for (const matgen::Csr &M : {matgen::stencil_2d(120, 90), matgen::dof_problem(40, 30, 3), R})
    for (gpumat::PjdsValues vals : {gpumat::PjdsValues::Plain, gpumat::PjdsValues::Table})
      for (bool fp32 : {false, true}) {
        PjdsParams p = pp(32, 1, 0, gpumat::PjdsColumns::Positional, vals), pl = pp(32, 1, 0, gpumat::PjdsColumns::Plain, vals);
        p.positional_always = false;
        p.fp32 = pl.fp32 = fp32;
        const std::string  where = M.name + " " + describe(p) + (fp32 ? " fp32" : "");
        const auto         v     = M.values<double>();
        PjdsDevice<double> Q, P;
        ASSERT_EQ(cudaSuccess, Q.build(M.view(v), p, s)) << Q.why();
        ASSERT_EQ(cudaSuccess, P.build(M.view(v), pl, s)) << P.why();
        gpumat_test::check_pjds_device_layout(M, v, p, Q, where);
        EXPECT_EQ(Q.positional(), M.name != R.name) << where;
        EXPECT_EQ(Q.positional_declined() > 0, M.name == R.name) << where;
        if (Q.positional()) continue;
        const auto x = matgen::random_vector<double>(std::size_t(M.ncols), 41);
        const std::vector<double> z(std::size_t(M.nrows), 0.0);
        EXPECT_TRUE(gpumat_test::device_apply(Q, Op::NoTrans, x, z, ZMode::None, s) == gpumat_test::device_apply(P, Op::NoTrans, x, z, ZMode::None, s)) << where;
        std::vector<double> w(v);
        for (auto &a : w) a = 0.5 * a - 1.0;
        ASSERT_EQ(cudaSuccess, Q.refresh(w.data(), s, gpumat::Mem::Host)) << where;
        ASSERT_EQ(cudaSuccess, P.refresh(w.data(), s, gpumat::Mem::Host)) << where;
        EXPECT_FALSE(Q.positional()) << where << ": refreshed";
        EXPECT_TRUE(gpumat_test::device_apply(Q, Op::NoTrans, x, z, ZMode::None, s) == gpumat_test::device_apply(P, Op::NoTrans, x, z, ZMode::None, s)) << where << ": refreshed";
      }
}

// fp32 storage with positional columns (check_fp32_against_rounded).
TEST(PjdsDevice, PositionalFp32) {
  const Stream s;
  for (const matgen::Csr &M : {matgen::dof_problem(60, 50, 3), matgen::power_law(20000, 20000, 1.2, 2.0, 5000, 41)}) {
    std::vector<double> v = M.values<double>();
    for (std::size_t k = 0; k < v.size(); ++k) v[k] = 1.0 / (1.0 + double(k % 977)) - 0.3; // not floats, no table, never 0
    PjdsParams p = pp(32, gpumat::pjds_all_rows, 32, gpumat::PjdsColumns::Positional, gpumat::PjdsValues::Plain);
    p.fp32       = true;
    const std::string where = M.name + " positional fp32";
    check_fp32_against_rounded(M, v, p, s, where, [&](const PjdsDevice<double> &D, const PjdsDevice<double> &) { EXPECT_TRUE(D.positional()) << where; });
  }
}

// Random patterns (empty rows, ragged rows, offsets of every kind) across b_r, sigma, long_row,
// the values' reading and fp32: the layout the host builder's, the products the reference's and
// (fp64 values) bitwise the 32-bit layout's, a refresh a build's.
TEST(PjdsDeviceFuzz, PositionalRandomPatterns) {
  const Stream    s;
  std::mt19937_64 g(97);
  for (int m = 0; m < 40; ++m) {
    const index_t        nrows = index_t(1 + g() % 3000), ncols = index_t(1 + g() % 5000);
    std::vector<index_t> len(static_cast<std::size_t>(nrows));
    for (auto &l : len) l = g() % 5 == 0 ? 0 : index_t(g() % std::min<index_t>(ncols, 30) + 1);
    const matgen::Csr    M     = matgen::from_lengths("positional_fuzz" + std::to_string(m), ncols, len, 400 + std::uint64_t(m));
    const int            brs[] = {1, 8, 32, 64};
    const std::int64_t   sig[] = {1, 32, 4096, gpumat::pjds_all_rows};
    const std::int64_t   lrs[] = {0, 16, 1000000};
    const gpumat::PjdsValues vals[] = {gpumat::PjdsValues::Plain, gpumat::PjdsValues::Auto, gpumat::PjdsValues::Table};
    PjdsParams           p     = pp(brs[g() % 4], sig[g() % 4], lrs[g() % 3], gpumat::PjdsColumns::Positional, vals[g() % 3]);
    p.fp32                     = m % 4 == 3;
    std::vector<double> v      = M.values<double>();
    if (m % 3 == 1)
      for (auto &a : v) a = a > 0 ? 1.0 : -2.0; // a table's values
    const std::string where = M.name + " " + describe(p) + (p.fp32 ? " fp32" : "");
    if (!p.fp32) {
      check_positional_against_plain<double>(M, v, p, s, where);
    } else {
      PjdsDevice<double> D;
      ASSERT_EQ(cudaSuccess, D.build(M.view(v), p, s)) << where << ": " << D.why();
      gpumat_test::check_pjds_device_layout(M, v, p, D, where);
    }
    if (!p.fp32) check_refresh<double>(M, p, s); // (fp32: its products are the rounded matrix's, PositionalFp32)
  }
}

// Fuzz: random patterns (empty rows, a full row, ragged sizes) across b_r, sigma and long_row.
TEST(PjdsDeviceFuzz, RandomPatterns) {
  const Stream    s;
  std::mt19937_64 g(91);
  for (int m = 0; m < 80; ++m) {
    const index_t        nrows = index_t(1 + g() % 3000), ncols = index_t(1 + g() % 5000);
    std::vector<index_t> len(static_cast<std::size_t>(nrows));
    for (auto &l : len) l = g() % 5 == 0 ? 0 : index_t(g() % std::min<index_t>(ncols, 40) + 1);
    if (g() % 3 == 0) len[std::size_t(g() % std::uint64_t(nrows))] = ncols; // a full row
    const matgen::Csr  M     = matgen::from_lengths("fuzz" + std::to_string(m), ncols, len, 100 + std::uint64_t(m));
    const int          brs[] = {1, 2, 8, 32, 64, 1024};
    const std::int64_t sig[] = {1, 32, 100, 4096, gpumat::pjds_all_rows};
    const std::int64_t lrs[] = {0, 1, 16, 1000000};
    const LongShape shs[] = {{}, {4, 1}, {8, 2}, {16, 1}, {32, 1}, {32, 4}, {4, 64}};
    const int           occ[] = {0, 4, 6};
    const PjdsParams    p     = pp(brs[g() % 6], sig[g() % 5], lrs[g() % 4]);
    check_matrix<double>(M, p, s, true, shs[g() % 7], occ[g() % 3]);
  }
}

} // namespace
