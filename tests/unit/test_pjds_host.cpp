// pjds host layer (src/core/pjds.hpp): parameter resolution, the host reference on special
// cases (equal rows, one full row among single entries, fewer rows than a block, empty
// rows at the end of the sort, a hub row of over a million entries), the padding count without a
// build, the model, the code balance, and a fuzz test of random patterns across b_r and sigma. The
// products over block sizes, sorting windows and long-row thresholds on the standard set, and the
// refresh, are the typed suite's (test_formats_host.cpp, the layout's invariants in
// format_traits.hpp).
#include "core/pjds.hpp"
#include "matgen.hpp"
#include "host_helpers.hpp"
#include "pjds_params.hpp"
#include "format_traits.hpp"
#include "params.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <random>
#include <stdexcept>
#include <string>

using gpumat::index_t;
using gpumat::Op;
using gpumat::Pjds;
using gpumat::PjdsParams;
using gpumat_test::describe;
using gpumat_test::pp;
using gpumat_test::ZMode;

namespace {

// y = op(B) x into a new vector (no z).
template <typename T>
std::vector<T> product(const Pjds<T> &B, Op op, const std::vector<T> &x) {
  std::vector<T> y(std::size_t(op == Op::NoTrans ? B.nrows : B.ncols));
  gpumat::pjds_apply(B, op, x.data(), static_cast<const T *>(nullptr), y.data());
  return y;
}

// Layouts A and B of one matrix: both products bit for bit (x: sin k + 0.1, as long as both sides).
template <typename T>
void expect_same_products(const Pjds<T> &A, const Pjds<T> &B, const std::string &where) {
  std::vector<T> x(std::size_t(std::max(A.nrows, A.ncols)));
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = T(std::sin(double(k)) + 0.1);
  for (Op op : {Op::NoTrans, Op::Trans}) EXPECT_TRUE(gpumat_test::same_values(product(A, op, x), product(B, op, x))) << where << (op == Op::Trans ? " Trans" : " NoTrans") << ": bitwise equal";
}


template <typename T>
void check_products(const matgen::Csr &M, const PjdsParams &p) {
  const std::vector<T> vals = M.values<T>();
  Pjds<T>              B;
  gpumat::pjds_build(M.view(vals), p, B);
  const std::string where = M.name + " " + describe(B.p);
  gpumat_test::check_pjds_layout(M, vals, B, where);
  for (Op op : {Op::NoTrans, Op::Trans})
    for (ZMode zm : {ZMode::None, ZMode::Separate, ZMode::Alias})
      ASSERT_EQ(gpumat_test::product_mismatch(M, vals, op, zm, 81, 82, [&](const T *x, const T *z, T *y) { gpumat::pjds_apply(B, op, x, z, y); }), "")
          << where << (op == Op::Trans ? " Trans" : " NoTrans") << " z mode " << int(zm);
}

TEST(PjdsResolve, DefaultsAndRanges) {
  const PjdsParams d = gpumat::pjds_resolve(PjdsParams{});
  EXPECT_EQ(d.block_rows, 32);
  EXPECT_EQ(d.sigma, 0);
  EXPECT_EQ(gpumat::pjds_resolve(pp(32, 33, 0)).sigma, 64) << "windows are whole blocks";
  EXPECT_EQ(gpumat::pjds_resolve(pp(32, 1, 0)).sigma, 1);
  EXPECT_THROW(gpumat::pjds_resolve(pp(1025, 0, 0)), std::invalid_argument);
  EXPECT_THROW(gpumat::pjds_resolve(pp(-1, 0, 0)), std::invalid_argument);
  EXPECT_THROW(gpumat::pjds_resolve(pp(32, -2, 0)), std::invalid_argument);
  EXPECT_THROW(gpumat::pjds_resolve(pp(32, 0, -1)), std::invalid_argument);
  EXPECT_THROW(gpumat::pjds_resolve(pp(32, 0, 0, gpumat::PjdsColumns(4))), std::invalid_argument);
  EXPECT_THROW(gpumat::pjds_resolve(pp(32, 0, 0, gpumat::PjdsColumns::Plain, gpumat::PjdsValues(3))), std::invalid_argument);
}

// Dictionary columns on the 5-point stencil: every block's offsets are the stencil's (at most 5:
// -nx, -1, 0, 1, nx, fewer at the boundary; the padding repeats a row's last column), dictionary
// codes them (about 1 B a column instead of 4: the bytes drop by nearly 3 B per stored entry) where
// auto does not (rows of 5 entries, below kPjdsDictMinWidth), and the products equal the 32-bit
// layout's bit for bit (the same entries in the same order).
TEST(PjdsDictionary, StencilCodedAndBitwiseEqual) {
  const matgen::Csr M = matgen::stencil_2d(200, 150);
  const auto        v = M.values<double>();
  Pjds<double>      C, P;
  Pjds<double>      A;
  gpumat::pjds_build(M.view(v), gpumat::pjds_resolve(pp(32, 1, 0, gpumat::PjdsColumns::Dictionary)), C);
  gpumat::pjds_build(M.view(v), gpumat::pjds_resolve(pp(32, 1, 0, gpumat::PjdsColumns::Plain)), P);
  gpumat::pjds_build(M.view(v), gpumat::pjds_resolve(pp(32, 1, 0, gpumat::PjdsColumns::Auto)), A);
  ASSERT_TRUE(C.coded());
  ASSERT_FALSE(P.coded());
  ASSERT_FALSE(A.coded()) << "auto: rows of 5 entries keep 32-bit columns";
  EXPECT_EQ(C.padded(), P.padded());
  for (std::int64_t b = 0; b < C.nblocks(); ++b) EXPECT_LE(C.dict_start[std::size_t(b) + 1] - C.dict_start[std::size_t(b)], 5) << "block " << b;
  EXPECT_EQ(P.bytes() - C.bytes(), std::size_t(3 * C.padded()) - 4 * (C.dict.size() + C.dict_start.size()));
  gpumat_test::check_pjds_layout(M, v, C, "stencil_2d coded");
  expect_same_products(C, P, "stencil_2d coded");
}

// A value table on the 5-point stencil (values -1 and 4, and the padding's 0): built with auto,
// the bytes the product reads drop by 7 B a stored entry less the table, the products bitwise
// equal to the plain layout's; a refresh with values in the table keeps it (codes re-derived), one
// with a value outside it drops it (counted), the products then reading the values, still equal.
TEST(PjdsValueTable, StencilTableRefreshKeepsOrDrops) {
  const matgen::Csr M = matgen::stencil_2d(120, 90);
  const auto        v = M.values<double>();
  Pjds<double>      C, P;
  gpumat::pjds_build(M.view(v), gpumat::pjds_resolve(pp(32, 1, 0, gpumat::PjdsColumns::Dictionary, gpumat::PjdsValues::Auto)), C);
  gpumat::pjds_build(M.view(v), gpumat::pjds_resolve(pp(32, 1, 0, gpumat::PjdsColumns::Dictionary, gpumat::PjdsValues::Plain)), P);
  ASSERT_TRUE(C.tabled());
  ASSERT_FALSE(P.tabled());
  EXPECT_EQ(C.table.size(), 3u) << "-1, 0 (padding), 4";
  EXPECT_EQ(P.bytes() - C.bytes(), std::size_t(7 * C.padded()) - 8 * C.table.size());
  gpumat_test::check_pjds_layout(M, v, C, "stencil_2d table");
  std::vector<double> x(std::size_t(M.ncols)), yc(std::size_t(M.nrows)), yp(std::size_t(M.nrows));
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = std::cos(double(k)) - 0.2;
  auto equal = [&](const char *what) {
    for (Op op : {Op::NoTrans, Op::Trans}) {
      gpumat::pjds_apply(C, op, x.data(), static_cast<const double *>(nullptr), yc.data());
      gpumat::pjds_apply(P, op, x.data(), static_cast<const double *>(nullptr), yp.data());
      EXPECT_TRUE(yc == yp) << what << (op == Op::Trans ? " Trans" : " NoTrans") << ": bitwise equal";
    }
  };
  equal("as built");
  std::vector<double> w(v);
  for (auto &a : w) a = a == 4.0 ? -1.0 : 4.0; // the same two values, swapped: in the table
  gpumat::pjds_refresh(M.view(w), C);
  gpumat::pjds_refresh(M.view(w), P);
  EXPECT_TRUE(C.tabled());
  EXPECT_EQ(C.table_drops, 0);
  gpumat_test::check_pjds_layout(M, w, C, "stencil_2d table, refreshed within");
  equal("refreshed within the table");
  w[5] = 2.5; // outside
  gpumat::pjds_refresh(M.view(w), C);
  gpumat::pjds_refresh(M.view(w), P);
  EXPECT_FALSE(C.tabled());
  EXPECT_EQ(C.table_drops, 1);
  gpumat_test::check_pjds_layout(M, w, C, "stencil_2d table dropped");
  equal("refreshed outside the table");
}

// A table of 16-bit codes: a 5-point stencil whose values repeat with period 1,000 (and the
// padding's 0 or, positional, its sentinel) is coded with auto, 2 B a stored entry instead of 8 plus
// the table; its products equal, bit for bit, those of the layout that reads the values (the same
// columns, plain or positional); a refresh within the table keeps it (codes re-derived), one outside
// it drops it (counted), the products then reading the values, still equal. fp32 storage asked for
// as well: the table wins (lossless, fewer bytes). Double and float values.
template <typename T>
void check_table16(gpumat::PjdsColumns columns, bool fp32) {
  const matgen::Csr M = matgen::stencil_2d(150, 120);
  std::vector<T>    v(M.val.size());
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = T(1) + T(1e-3) * T(k % 1000) - T(M.val[k] == 4.0 ? 0 : 2);
  const std::string where = std::string(columns == gpumat::PjdsColumns::Positional ? "positional" : "dictionary") + (fp32 ? " fp32" : "") + (sizeof(T) == 8 ? " double" : " float");
  PjdsParams        pc = pp(32, 1, 0, columns, gpumat::PjdsValues::Auto), pv = pp(32, 1, 0, columns, gpumat::PjdsValues::Plain);
  pc.fp32              = fp32;
  Pjds<T> C, P;
  gpumat::pjds_build(M.view(v), gpumat::pjds_resolve(pc), C);
  gpumat::pjds_build(M.view(v), gpumat::pjds_resolve(pv), P);
  std::set<std::uint64_t> distinct;
  for (const T &a : v) distinct.insert(gpumat::value_bits(a));
  ASSERT_GT(distinct.size(), std::size_t(gpumat::kPjdsTableMax)) << where;
  ASSERT_TRUE(C.tabled()) << where;
  ASSERT_FALSE(P.tabled()) << where;
  EXPECT_FALSE(C.single()) << where << ": the table wins over fp32";
  EXPECT_EQ(C.code_bytes(), 2) << where;
  EXPECT_TRUE(C.vcode.empty()) << where;
  EXPECT_EQ(C.vcode16.size(), C.val.size()) << where;
  EXPECT_EQ(C.table.size(), distinct.size() + 1) << where << ": the values and the padding's";
  EXPECT_EQ(P.bytes() - C.bytes(), (sizeof(T) - 2) * std::size_t(C.padded()) - sizeof(T) * C.table.size()) << where;
  EXPECT_EQ(P.read_bytes() - C.read_bytes(), P.bytes() - C.bytes()) << where;
  gpumat_test::check_pjds_layout(M, v, C, where);
  std::vector<T> x(std::size_t(M.ncols)), yc(std::size_t(M.nrows)), yp(std::size_t(M.nrows));
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = T(std::cos(double(k))) - T(0.2);
  auto equal = [&](const char *what) {
    for (Op op : {Op::NoTrans, Op::Trans}) {
      gpumat::pjds_apply(C, op, x.data(), static_cast<const T *>(nullptr), yc.data());
      gpumat::pjds_apply(P, op, x.data(), static_cast<const T *>(nullptr), yp.data());
      EXPECT_TRUE(gpumat_test::same_values(yc, yp)) << where << ", " << what << (op == Op::Trans ? " Trans" : " NoTrans") << ": bitwise equal";
    }
  };
  equal("as built");
  std::vector<T> w(v);
  for (std::size_t k = 0; k < w.size(); ++k) w[k] = v[(k + 7) % v.size()]; // the same values, moved: in the table
  gpumat::pjds_refresh(M.view(w), C);
  gpumat::pjds_refresh(M.view(w), P);
  EXPECT_TRUE(C.tabled()) << where;
  EXPECT_EQ(C.table_drops, 0) << where;
  EXPECT_EQ(C.code_bytes(), 2) << where;
  gpumat_test::check_pjds_layout(M, w, C, where + ", refreshed within");
  equal("refreshed within the table");
  w[5] = T(0.125); // outside
  gpumat::pjds_refresh(M.view(w), C);
  gpumat::pjds_refresh(M.view(w), P);
  EXPECT_FALSE(C.tabled()) << where;
  EXPECT_TRUE(C.vcode16.empty()) << where;
  EXPECT_EQ(C.table_drops, 1) << where;
  gpumat_test::check_pjds_layout(M, w, C, where + ", table dropped");
  equal("refreshed outside the table");
}

TEST(PjdsValueTable, Table16BitwiseEqualAndRefresh) {
  for (bool fp32 : {false, true})
    for (gpumat::PjdsColumns c : {gpumat::PjdsColumns::Dictionary, gpumat::PjdsColumns::Positional}) {
      check_table16<double>(c, fp32);
      check_table16<float>(c, false);
    }
}

// A table of 16-bit codes under positional columns against the 32-bit layout with its values
// plain: the products equal bit for bit (the padding's sentinel one of the table's entries, skipped).
TEST(PjdsPositional, Table16AgainstThe32BitLayout) {
  const matgen::Csr   M = matgen::stencil_2d(150, 120);
  std::vector<double> v(M.val.size());
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = 0.5 + 1e-3 * double(k % 1000);
  Pjds<double> Q, P;
  gpumat::pjds_build(M.view(v), gpumat::pjds_resolve(pp(32, 1, 0, gpumat::PjdsColumns::Positional, gpumat::PjdsValues::Table)), Q);
  gpumat::pjds_build(M.view(v), gpumat::pjds_resolve(pp(32, 1, 0, gpumat::PjdsColumns::Plain, gpumat::PjdsValues::Plain)), P);
  ASSERT_TRUE(Q.tabled());
  EXPECT_EQ(Q.code_bytes(), 2);
  EXPECT_TRUE(gpumat::is_pjds_pad(Q.table.back())) << "the sentinel among the table's entries";
  expect_same_products(Q, P, "stencil_2d positional, 16-bit table");
}

// fp32 storage (PjdsParams::fp32): the products read the padded values rounded to float and sum in
// double, so they equal, bitwise, the fp64 layout's products on the same matrix with its values
// rounded to float beforehand (the long part keeps its doubles: rows longer than long_row are left
// unrounded in that reference); against the exact product each row is within 2^-24 of the sum of
// |a||x| over its padded entries. A refresh rounds the new values; a matrix whose values fit a
// table keeps the table (lossless, fewer bytes); float values are stored as they are.
TEST(PjdsFp32, ProductsReadRoundedValues) {
  // three long rows at long_row 32 (the pJDS part's few values would fit a table: plain asked for);
  // random rows of 1-40 entries (those over 32 in the long part), every value distinct (a table
  // would read more bytes: none)
  for (const matgen::Csr &M : {matgen::long_rows(7), matgen::random_rows("random_1_40", 3000, 2000, 1, 40, 0.05, 11)}) {
  std::vector<double> v = M.values<double>();
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = 1.0 / (1.0 + double(k)) - 0.3; // not exact in float
  gpumat::PjdsParams p = pp(32, gpumat::pjds_all_rows, 32, gpumat::PjdsColumns::Auto, M.name == "long_rows" ? gpumat::PjdsValues::Plain : gpumat::PjdsValues::Auto);
  p.fp32               = true;
  auto rounded = [&](const std::vector<double> &w) { // the pJDS part's values rounded, the long rows' kept
    std::vector<double> r(w);
    for (index_t row = 0; row < M.nrows; ++row)
      if (M.rowptr[std::size_t(row) + 1] - M.rowptr[std::size_t(row)] <= 32)
        for (index_t q = M.rowptr[std::size_t(row)]; q < M.rowptr[std::size_t(row) + 1]; ++q) r[std::size_t(q)] = double(float(w[std::size_t(q)]));
    return r;
  };
  Pjds<double> S, R, E;
  gpumat::pjds_build(M.view(v), gpumat::pjds_resolve(p), S);
  p.fp32 = false;
  std::vector<double> vr = rounded(v);
  gpumat::pjds_build(M.view(vr), gpumat::pjds_resolve(p), R);
  gpumat::pjds_build(M.view(v), gpumat::pjds_resolve(p), E);
  ASSERT_TRUE(S.single()) << M.name;
  ASSERT_FALSE(S.tabled());
  ASSERT_FALSE(S.long_rows.empty()) << M.name << ": rows longer than 32 in the long part";
  ASSERT_EQ(S.val32.size(), S.val.size());
  for (std::size_t k = 0; k < S.val.size(); ++k) ASSERT_EQ(S.val32[k], float(S.val[k])) << k;
  EXPECT_EQ(E.bytes() - S.bytes(), std::size_t(4 * S.padded())) << "4 B a stored entry instead of 8";
  gpumat_test::check_pjds_layout(M, v, S, M.name + " fp32");
  const std::size_t   big = std::size_t(std::max(M.nrows, M.ncols)); // x and y of both products
  std::vector<double> x(big), ys(big), yr(big), ye(std::size_t(M.nrows));
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = std::cos(double(k)) - 0.2;
  auto check = [&](const std::vector<double> &w, const char *what) {
    for (Op op : {Op::NoTrans, Op::Trans}) {
      gpumat::pjds_apply(S, op, x.data(), static_cast<const double *>(nullptr), ys.data());
      gpumat::pjds_apply(R, op, x.data(), static_cast<const double *>(nullptr), yr.data());
      EXPECT_TRUE(ys == yr) << M.name << " " << what << (op == Op::Trans ? " Trans" : " NoTrans") << ": bitwise equal to the rounded matrix's fp64 product";
    }
    gpumat::pjds_apply(E, Op::NoTrans, x.data(), static_cast<const double *>(nullptr), ye.data());
    gpumat::pjds_apply(S, Op::NoTrans, x.data(), static_cast<const double *>(nullptr), ys.data());
    bool differs = false;
    for (index_t row = 0; row < M.nrows; ++row) {
      double bound = 0;
      for (index_t q = M.rowptr[std::size_t(row)]; q < M.rowptr[std::size_t(row) + 1]; ++q) bound += std::fabs(w[std::size_t(q)] * x[std::size_t(M.colidx[std::size_t(q)])]);
      bound = bound * std::ldexp(1.0, -24) + bound * 1e-14; // the rounding of each value, and the sums' own
      ASSERT_LE(std::fabs(ys[std::size_t(row)] - ye[std::size_t(row)]), bound) << what << ": row " << row;
      differs |= ys[std::size_t(row)] != ye[std::size_t(row)];
    }
    EXPECT_TRUE(differs) << what << ": the rounding shows somewhere (the test's values are not floats)";
  };
  check(v, "as built");
  std::vector<double> w(v);
  for (auto &a : w) a = a * 1.5 + 0.01;
  gpumat::pjds_refresh(M.view(w), S);
  vr = rounded(w);
  gpumat::pjds_refresh(M.view(vr), R);
  gpumat::pjds_refresh(M.view(w), E);
  ASSERT_TRUE(S.single());
  for (std::size_t k = 0; k < S.val.size(); ++k) ASSERT_EQ(S.val32[k], float(S.val[k])) << "refreshed, " << k;
  check(w, "refreshed");
  }
}

TEST(PjdsFp32, TableWinsAndFloatStaysAsIs) {
  const matgen::Csr M = matgen::stencil_2d(60, 50); // 4 and -1: a table
  gpumat::PjdsParams p = pp(32, 1, 0);
  p.fp32               = true;
  Pjds<double> D;
  gpumat::pjds_build(M.view(M.values<double>()), gpumat::pjds_resolve(p), D);
  EXPECT_TRUE(D.tabled());
  EXPECT_FALSE(D.single()) << "a value table is lossless and reads fewer bytes";
  p.values = gpumat::PjdsValues::Plain;
  gpumat::pjds_build(M.view(M.values<double>()), gpumat::pjds_resolve(p), D);
  EXPECT_TRUE(D.single()) << "no table asked for: fp32";
  Pjds<float> F;
  gpumat::pjds_build(M.view(M.values<float>()), gpumat::pjds_resolve(p), F);
  EXPECT_FALSE(F.single()) << "float values are stored as they are";
}

// Up to 256 distinct values 8-bit codes, up to 65,536 16-bit ones; more: no table, even when
// asked for.
TEST(PjdsValueTable, TooManyValuesStayPlain) {
  const matgen::Csr M = matgen::stencil_2d(300, 240); // 360,000 entries
  for (int distinct : {255, 300, 65535, 65537}) { // the padding's 0 may add one more
    std::vector<double> v(M.val.size());
    for (std::size_t k = 0; k < v.size(); ++k) v[k] = 1.0 + double(k % std::size_t(distinct));
    Pjds<double> B;
    gpumat::pjds_build(M.view(v), gpumat::pjds_resolve(pp(32, 1, 0, gpumat::PjdsColumns::Plain, gpumat::PjdsValues::Table)), B);
    EXPECT_EQ(B.tabled(), distinct < 65537) << distinct << " values";
    EXPECT_EQ(B.code_bytes(), distinct == 255 ? 1 : distinct < 65537 ? 2 : 0) << distinct << " values";
    gpumat_test::check_pjds_layout(M, v, B, "distinct values " + std::to_string(distinct));
  }
}

// pjds_table16_cap is the largest table of 16-bit codes pjds_table_pays accepts (one more is
// refused), for fp64 and fp32 values, from a padded part too small for one to one that reaches
// kPjdsTable16Max.
TEST(PjdsValueTable, Table16CapIsWhatPays) {
  for (std::int64_t vb : {4, 8})
    for (std::int64_t padded : {0LL, 1LL, 4000LL, 4111LL, 4112LL, 4113LL, 5000LL, 99999LL, 1048575LL, 1048576LL, 1048577LL, 50000000LL}) {
      const std::int64_t cap = gpumat::pjds_table16_cap(padded, vb);
      if (cap > gpumat::kPjdsTableMax) {
        EXPECT_TRUE(gpumat::pjds_table_pays(padded, cap, vb)) << padded << " x " << vb << " B: " << cap;
        EXPECT_TRUE(gpumat::pjds_table_pays(padded, gpumat::kPjdsTableMax + 1, vb)) << padded << " x " << vb << " B";
      }
      const std::int64_t beyond = std::max<std::int64_t>(cap, gpumat::kPjdsTableMax) + 1;
      EXPECT_FALSE(gpumat::pjds_table_pays(padded, beyond, vb)) << padded << " x " << vb << " B: " << beyond;
      EXPECT_LE(cap, gpumat::kPjdsTable16Max);
    }
  EXPECT_EQ(gpumat::pjds_table16_cap(50000000, 8), gpumat::kPjdsTable16Max);
  EXPECT_EQ(gpumat::pjds_table16_cap(4112, 8), 257);
}

// Values that repeat fewer than kPjdsTable16MinRepeat times on average: one more distinct value
// than pjds_table16_cap allows gets no table under auto, a table of 16-bit codes where asked for;
// exactly that many, a table of 16-bit codes under auto too.
TEST(PjdsValueTable, AutoStopsAtTheCapTableDoesNot) {
  const matgen::Csr   M = matgen::stencil_2d(300, 240); // 360,000 entries
  std::vector<double> v = M.values<double>();
  Pjds<double>        P;
  gpumat::pjds_build(M.view(v), gpumat::pjds_resolve(pp(32, 1, 0, gpumat::PjdsColumns::Plain, gpumat::PjdsValues::Plain)), P);
  const std::int64_t cap   = gpumat::pjds_table16_cap(P.padded(), 8);
  const std::int64_t extra = P.padding() > 0 ? 1 : 0; // the padding's 0
  ASSERT_GT(cap, gpumat::kPjdsTableMax);
  ASSERT_LT(cap, gpumat::kPjdsTable16Max);
  for (std::int64_t distinct : {cap, cap + 1}) {
    for (std::size_t k = 0; k < v.size(); ++k) v[k] = 1.0 + double(std::int64_t(k) % (distinct - extra));
    for (gpumat::PjdsValues mode : {gpumat::PjdsValues::Auto, gpumat::PjdsValues::Table}) {
      const bool        table = mode == gpumat::PjdsValues::Table;
      const std::string where = std::to_string(distinct) + " values, cap " + std::to_string(cap) + (table ? ", table" : ", auto");
      Pjds<double>      B;
      gpumat::pjds_build(M.view(v), gpumat::pjds_resolve(pp(32, 1, 0, gpumat::PjdsColumns::Plain, mode)), B);
      EXPECT_EQ(B.tabled(), table || distinct == cap) << where;
      if (B.tabled()) {
        EXPECT_EQ(std::int64_t(B.table.size()), distinct) << where;
        EXPECT_EQ(B.code_bytes(), 2) << where;
      }
      gpumat_test::check_pjds_layout(M, v, B, where);
    }
  }
}

// A block whose entries have more than 256 distinct offsets keeps 32-bit columns, even when
// dictionary columns are asked for; with fewer they are coded.
TEST(PjdsDictionary, TooManyOffsetsStayPlain) {
  for (index_t width : {8, 9}) {
    matgen::Csr M;
    M.name  = "distinct_offsets";
    M.nrows = 32, M.ncols = 32 * width;
    for (index_t r = 0; r < 32; ++r) {
      for (index_t j = 0; j < width; ++j) M.colidx.push_back(r * width + j), M.val.push_back(1.0 + j);
      M.rowptr.push_back(index_t(M.colidx.size()));
    }
    // row r's columns r w .. r w + w - 1, offsets r (w - 1) + j (j < w): 32 (w - 1) + 1 distinct,
    // 225 for w = 8, 257 for w = 9
    const auto   v = M.values<double>();
    Pjds<double> B;
    gpumat::pjds_build(M.view(v), gpumat::pjds_resolve(pp(32, 1, 0, gpumat::PjdsColumns::Dictionary)), B);
    std::set<index_t> offs;
    for (index_t r = 0; r < 32; ++r)
      for (index_t j = 0; j < width; ++j) offs.insert(r * width + j - r);
    EXPECT_EQ(B.coded(), offs.size() <= 256) << "width " << width << ": " << offs.size() << " offsets";
    gpumat_test::check_pjds_layout(M, v, B, "distinct_offsets width " + std::to_string(width));
  }
}

// Auto codes the columns where the rows are wide: a cyclic band of w entries a row (no padding,
// a handful of offsets a block) is coded at w = kPjdsDictMinWidth and kept 32-bit one below it,
// whatever the bytes (both would read fewer). Its rows are sorted by length in windows of 64 (of
// equal length, they keep their order), which positional columns do not take.
TEST(PjdsDictionary, AutoCodesWideRowsOnly) {
  for (index_t width : {index_t(gpumat::kPjdsDictMinWidth) - 1, index_t(gpumat::kPjdsDictMinWidth)}) {
    const matgen::Csr M = matgen::cyclic_band(640, width);
    const auto   v = M.values<double>();
    Pjds<double> B;
    gpumat::pjds_build(M.view(v), gpumat::pjds_resolve(pp(32, 64, 0)), B);
    ASSERT_EQ(B.padded(), std::int64_t(M.nrows) * width);
    EXPECT_EQ(B.coded(), width >= gpumat::kPjdsDictMinWidth) << "width " << width;
    gpumat_test::check_pjds_layout(M, v, B, "cyclic_band width " + std::to_string(width));
  }
}

// Rows of equal length: no padding, whatever the window.
TEST(PjdsHostSpecial, EqualRowsHaveNoPadding) {
  const matgen::Csr M = matgen::from_lengths("rows_of_7", 3000, std::vector<index_t>(1000, 7), 31);
  const auto        v = M.values<double>();
  for (std::int64_t sigma : {std::int64_t(1), std::int64_t(64), gpumat::pjds_all_rows}) {
    Pjds<double> B;
    gpumat::pjds_build(M.view(v), pp(32, sigma, 0), B);
    EXPECT_EQ(B.padding(), 0);
  }
  EXPECT_EQ(gpumat::pjds_model(M.view(v), PjdsParams{}).p.sigma, 1) << "nothing to sort: the matrix's order keeps x's locality";
}

// The paper's worst case for ELLPACK: one full row among single-entry rows. Sorted, the full row
// pads only its block; split off as a long row, nothing is padded.
TEST(PjdsHostSpecial, OneFullRowAmongSingleEntries) {
  const index_t        n = 2000;
  std::vector<index_t> len(n, 1);
  len[777] = n;
  const matgen::Csr M = matgen::from_lengths("full_row", n, len, 32);
  const auto        v = M.values<double>();
  Pjds<double>      B;
  gpumat::pjds_build(M.view(v), pp(32, gpumat::pjds_all_rows, 1000000), B);
  EXPECT_EQ(B.padding(), std::int64_t(31) * (n - 1)) << "the full row's block: 31 rows padded to n";
  gpumat::pjds_build(M.view(v), pp(32, 0, 0), B); // the model's long-row threshold
  const gpumat::PjdsChoice ch = gpumat::pjds_model(M.view(v), PjdsParams{});
  gpumat::pjds_build(M.view(v), ch.p, B);
  ASSERT_EQ(B.long_rows.size(), 1u);
  EXPECT_EQ(B.long_rows[0], 777);
  EXPECT_EQ(B.padding(), 0);
  check_products<double>(M, ch.p);
}

// Fewer rows than one block; empty rows sorted to the end of the windows.
TEST(PjdsHostSpecial, FewerRowsThanABlockAndEmptyRowsLast) {
  const matgen::Csr small = matgen::random_rows("five_rows", 5, 40, 0, 9, 0.2, 33);
  for (std::int64_t sigma : {std::int64_t(1), gpumat::pjds_all_rows}) check_products<double>(small, pp(32, sigma, 0));
  const matgen::Csr M = matgen::random_rows("with_empty", 3000, 500, 1, 20, 0.3, 34);
  const auto        v = M.values<double>();
  Pjds<double>      B;
  gpumat::pjds_build(M.view(v), pp(32, gpumat::pjds_all_rows, 0), B);
  std::int64_t empty = 0;
  for (index_t r = 0; r < M.nrows; ++r) empty += M.rowptr[std::size_t(r) + 1] == M.rowptr[std::size_t(r)];
  ASSERT_GT(empty, 0);
  for (std::int64_t i = B.nrows_pj - empty; i < B.nrows_pj; ++i) EXPECT_EQ(B.rowlen[std::size_t(i)], 0);
  check_products<double>(M, pp(32, gpumat::pjds_all_rows, 0));
}

// A hub row of over a million entries goes to the long part; the product stays exact.
TEST(PjdsHostSpecial, HubRowOfOverAMillionEntries) {
  const index_t        n = 1100000;
  std::vector<index_t> len(4000, 3);
  len[1234] = n;
  const matgen::Csr        M  = matgen::from_lengths("hub", n, len, 35);
  const auto               v  = M.values<double>();
  const gpumat::PjdsChoice ch = gpumat::pjds_model(M.view(v), PjdsParams{});
  Pjds<double>             B;
  gpumat::pjds_build(M.view(v), ch.p, B);
  ASSERT_EQ(B.long_rows.size(), 1u);
  EXPECT_EQ(B.long_rows[0], 1234);
  EXPECT_EQ(B.padding(), 0);
  check_products<double>(M, ch.p);
}

// The model: a stencil keeps the matrix's order (no padding), a power law is sorted (its padding
// within 5 %), long rows above the threshold are split off.
TEST(PjdsModel, ChoosesFromThePadding) {
  const matgen::Csr S = matgen::stencil_2d(60, 50);
  const auto        sv = S.values<double>();
  const auto        cs = gpumat::pjds_model(S.view(sv), PjdsParams{});
  EXPECT_EQ(cs.p.sigma, 1);
  EXPECT_LE(double(cs.padding[0]), 0.05 * double(S.nnz()));
  const matgen::Csr P  = matgen::power_law(40000, 40000, 1.2, 2.0, 20000, 37);
  const auto        pv = P.values<double>();
  const auto        cp = gpumat::pjds_model(P.view(pv), PjdsParams{});
  EXPECT_GT(cp.p.sigma, 1) << "unsorted, the power law pads more than 5 %";
  EXPECT_GT(double(cp.padding[0]), 0.05 * double(P.nnz()));
  Pjds<double> B;
  gpumat::pjds_build(P.view(pv), cp.p, B);
  std::int64_t nz = 0;
  for (index_t l : B.rowlen) nz += l;
  EXPECT_LE(double(B.padding()), 0.05 * double(nz));
  EXPECT_GE(cp.p.long_row, gpumat::kPjdsLongLow);
  const auto user = gpumat::pjds_model(P.view(pv), pp(64, 1, 100));
  EXPECT_EQ(user.p.block_rows, 64);
  EXPECT_EQ(user.p.sigma, 1);
  EXPECT_EQ(user.p.long_row, 100) << "the user's parameters are kept";
}

// Up to kPjdsModelRows rows the model counts every row (one pass over the row pointers, windows
// from the histograms of 4096-row windows): its padding per window equals pjds_padding's.
TEST(PjdsModel, LadderExact) {
  for (int br : {32, 64}) {
    const matgen::Csr P  = matgen::power_law(300000, 300000, 1.3, 2.0, 20000, 59);
    const auto        pv = P.values<double>();
    const auto        ch = gpumat::pjds_model(P.view(pv), pp(br, 0, 0));
    int               evaluated = 0;
    for (int k = 0; k < gpumat::kPjdsNumWindows; ++k) {
      if (ch.padding[k] < 0) continue;
      PjdsParams q = pp(br, gpumat::kPjdsWindows[k], k == gpumat::kPjdsNumWindows - 1 ? ch.p.long_row : gpumat::default_long_row(P.nrows, std::int64_t(P.colidx.size()), gpumat::longest_row(P.view(pv))));
      EXPECT_EQ(ch.padding[k], gpumat::pjds_padding(P.view(pv), q)) << "br " << br << " window " << gpumat::kPjdsWindows[k];
      ++evaluated;
    }
    EXPECT_GE(evaluated, 2);
  }
  // a user's long_row far above the model's bound: the lengths kept instead of histograms of a bin
  // per length up to the nonzeros (which took 1.4 GB here); the same paddings
  const matgen::Csr P  = matgen::power_law(300000, 300000, 1.3, 2.0, 20000, 59);
  const auto        pv = P.values<double>();
  const auto        ch = gpumat::pjds_model(P.view(pv), pp(32, 0, std::int64_t(1) << 30));
  for (int k = 0; k < gpumat::kPjdsNumWindows; ++k) {
    if (ch.padding[k] >= 0) {
      EXPECT_EQ(ch.padding[k], gpumat::pjds_padding(P.view(pv), pp(32, gpumat::kPjdsWindows[k], std::int64_t(1) << 30))) << "window " << gpumat::kPjdsWindows[k];
    }
  }
}

// The default long_row keeps every row in the pJDS part where no row is far longer than the mean
// and the longest is short (default_long_row, long_rows.hpp); otherwise 32.
TEST(PjdsModel, DefaultLongRowRegular) {
  EXPECT_EQ(gpumat::default_long_row(81000, 4576860, 81), 81) << "fem3_30: rows of 18-81 entries, mean 56.5";
  EXPECT_EQ(gpumat::default_long_row(2048383, 127263527, 125), 125) << "ex13: rows of 8-125, mean 62.1";
  EXPECT_EQ(gpumat::default_long_row(81000, 4576860, 20), 32) << "no row over 32";
  EXPECT_EQ(gpumat::default_long_row(81000, 4576860, 129), 32) << "longest over kLongRowRegular";
  EXPECT_EQ(gpumat::default_long_row(1000, 29000, 90), 32) << "longest over 3 x the mean (29)";
  EXPECT_EQ(gpumat::default_long_row(1000, 30000, 90), 90) << "at most 3 x the mean (30)";
  EXPECT_EQ(gpumat::default_long_row(0, 0, 0), 32);
  EXPECT_EQ(gpumat::default_long_row(2000, 4000000, 2000), 32) << "dense rows stay long";
  EXPECT_EQ(gpumat::default_long_row(16384, 168159264, 262144), 32) << "lp_16384: not the nonzeros' scale";
  const matgen::Csr S = matgen::random_rows("small", 20000, 20000, 3, 9, 0.0, 41);
  const auto        sv = S.values<double>();
  EXPECT_EQ(gpumat::pjds_model(S.view(sv), PjdsParams{}).p.long_row, 32) << "no row over 32";
  // rows of 40-80 entries (mean 60): no long part in pjds_model's choice and the built layout
  const matgen::Csr F = matgen::random_rows("regular", 6000, 6000, 40, 80, 0.0, 42);
  const auto        fv = F.values<double>();
  const auto        ch = gpumat::pjds_model(F.view(fv), PjdsParams{});
  EXPECT_EQ(ch.p.long_row, gpumat::longest_row(F.view(fv)));
  gpumat::Pjds<double> B;
  gpumat::pjds_build(F.view(fv), ch.p, B);
  EXPECT_TRUE(B.long_rows.empty());
  // one row of 200 among rows of 60: 200 is over 128, so 32 (every row long)
  std::vector<index_t> len(6000, 60);
  len[17] = 200;
  const matgen::Csr H = matgen::from_lengths("one_long", 6000, len, 43);
  const auto        hv = H.values<double>();
  EXPECT_EQ(gpumat::pjds_model(H.view(hv), PjdsParams{}).p.long_row, 32);
}

// Equation 1 of the paper: alpha = 1 and long rows give 10 bytes per flop; alpha = 1 / nnzr, 6 +
// 4 / nnzr + 8 / nnzr; padding scales the matrix terms.
TEST(PjdsModel, CodeBalance) {
  EXPECT_NEAR(gpumat::pjds_code_balance(1e12, 1.0), 10.0, 1e-9);
  EXPECT_NEAR(gpumat::pjds_code_balance(8.0, 1.0 / 8.0), 6.0 + 0.5 + 1.0, 1e-12);
  EXPECT_NEAR(gpumat::pjds_code_balance(8.0, 1.0, 1.5), (18.0 + 8.0 + 2.0) / 2.0, 1e-12);
}

// Positional columns (pjds.hpp), the products against the CSR reference (every op and z mode)
template <typename T>
void check_positional(const matgen::Csr &M, const std::vector<T> &vals, const Pjds<T> &B, const std::string &where) {
  ASSERT_TRUE(B.positional()) << where;
  EXPECT_TRUE(B.col.empty()) << where << ": no column per entry";
  EXPECT_EQ(B.poff_start.size(), std::size_t(B.nblocks()) + 1) << where;
  for (std::int64_t b = 0; b < B.nblocks(); ++b) EXPECT_EQ(B.block_width(b), B.poff_start[std::size_t(b) + 1] - B.poff_start[std::size_t(b)]) << where << ": block " << b;
  for (Op op : {Op::NoTrans, Op::Trans})
    for (ZMode zm : {ZMode::None, ZMode::Separate, ZMode::Alias})
      ASSERT_EQ(gpumat_test::product_mismatch(M, vals, op, zm, 83, 84, [&](const T *x, const T *z, T *y) { gpumat::pjds_apply(B, op, x, z, y); }), "")
          << where << (op == Op::Trans ? " Trans" : " NoTrans") << " z mode " << int(zm);
}

// The 5-point stencil in the matrix's order: every block holds at most the stencil's 5 offsets from
// the row (groups of 1), so it stores 5 values a row and 20 B of offsets a block against 12 B an
// entry; the products equal the 32-bit layout's bit for bit (the same entries, in column order).
// A refresh within the value table keeps it; the products follow.
TEST(PjdsPositional, StencilBitwiseEqualAndRefresh) {
  const matgen::Csr M = matgen::stencil_2d(200, 150);
  const auto        v = M.values<double>();
  Pjds<double>      Q, P;
  gpumat::pjds_build(M.view(v), gpumat::pjds_resolve(pp(32, 1, 0, gpumat::PjdsColumns::Positional, gpumat::PjdsValues::Plain)), Q);
  gpumat::pjds_build(M.view(v), gpumat::pjds_resolve(pp(32, 1, 0, gpumat::PjdsColumns::Plain, gpumat::PjdsValues::Plain)), P);
  check_positional(M, v, Q, "stencil_2d positional");
  EXPECT_EQ(Q.pgroup, 1);
  for (std::int64_t b = 0; b < Q.nblocks(); ++b) EXPECT_LE(Q.block_width(b), 5) << "block " << b;
  EXPECT_LT(Q.bytes(), P.bytes());
  expect_same_products(Q, P, "stencil_2d positional");
  std::vector<double> x(std::size_t(M.ncols)), yq(std::size_t(M.nrows)), yp(std::size_t(M.nrows));
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = std::sin(double(k)) + 0.1;
  // an infinite x where a block's padding points: rows without that column keep finite sums, as the
  // 32-bit layout's (its padding repeats the row's own last column)
  const index_t c = index_t(M.ncols / 2);
  x[std::size_t(c)] = std::numeric_limits<double>::infinity();
  gpumat::pjds_apply(Q, Op::NoTrans, x.data(), static_cast<const double *>(nullptr), yq.data());
  gpumat::pjds_apply(P, Op::NoTrans, x.data(), static_cast<const double *>(nullptr), yp.data());
  for (index_t r = 0; r < M.nrows; ++r) {
    bool holds = false;
    for (index_t k = M.rowptr[std::size_t(r)]; k < M.rowptr[std::size_t(r) + 1]; ++k) holds = holds || M.colidx[std::size_t(k)] == c;
    if (!holds) {
      ASSERT_TRUE(std::isfinite(yq[std::size_t(r)]) && yq[std::size_t(r)] == yp[std::size_t(r)]) << "row " << r << " without column " << c << ": " << yq[std::size_t(r)];
    }
  }
  x[std::size_t(c)] = 1.0;
  // with the value table (-1, 4 and the padding's sentinel): refreshed within it, then outside it
  Pjds<double> T;
  gpumat::pjds_build(M.view(v), gpumat::pjds_resolve(pp(32, 1, 0, gpumat::PjdsColumns::Positional, gpumat::PjdsValues::Table)), T);
  ASSERT_TRUE(T.tabled());
  EXPECT_EQ(T.table.size(), 3u);
  std::vector<double> w(v);
  for (auto &a : w) a = a == 4.0 ? -1.0 : 4.0;
  gpumat::pjds_refresh(M.view(w), T);
  EXPECT_TRUE(T.tabled());
  check_positional(M, w, T, "stencil_2d positional, table refreshed within");
  w[7] = 2.5;
  gpumat::pjds_refresh(M.view(w), T);
  EXPECT_FALSE(T.tabled());
  check_positional(M, w, T, "stencil_2d positional, table dropped");
}

// A 3-dof problem: from each row the offsets differ by its dof, from its node's first row they are
// one set, so the group is 3 and every block stores at most 15 a row, the rows' own count inside.
TEST(PjdsPositional, NodeGroups) {
  const matgen::Csr M = matgen::dof_problem(14, 12, 3);
  const auto   v = M.values<double>();
  Pjds<double> Q;
  gpumat::pjds_build(M.view(v), gpumat::pjds_resolve(pp(32, 1, 0, gpumat::PjdsColumns::Positional, gpumat::PjdsValues::Plain)), Q);
  check_positional(M, v, Q, "3 dof positional");
  EXPECT_EQ(Q.pgroup, 3);
  for (std::int64_t b = 0; b < Q.nblocks(); ++b) EXPECT_LE(Q.block_width(b), 15) << "block " << b;
}

// The group chosen on the sample of blocks (pjds_positional_sample_stride): with 4,100 blocks every
// second one from the first, all of them 2-dof rows (alternating_groups), where groups of 2 store
// fewest, though over every block groups of 1 would; the layout then holds group 2's offsets of
// every block (check_pjds_layout recounts them), its products bitwise the 32-bit layout's. With
// 4,096 blocks or fewer the sample is every block: group 1.
TEST(PjdsPositional, GroupChosenOnTheSample) {
  for (index_t nblocks : {4100, 4096}) {
    const matgen::Csr M = matgen::alternating_groups(nblocks);
    const auto        v = M.values<double>();
    Pjds<double>      Q, P;
    gpumat::pjds_build(M.view(v), gpumat::pjds_resolve(pp(32, 1, 0, gpumat::PjdsColumns::Positional, gpumat::PjdsValues::Plain)), Q);
    gpumat::pjds_build(M.view(v), gpumat::pjds_resolve(pp(32, 1, 0, gpumat::PjdsColumns::Plain, gpumat::PjdsValues::Plain)), P);
    const std::string where = M.name + " " + std::to_string(nblocks) + " blocks";
    ASSERT_EQ(Q.nblocks(), nblocks) << where;
    EXPECT_EQ(gpumat::pjds_positional_sample_stride(nblocks), nblocks > gpumat::kPjdsPositionalSample ? 2 : 1) << where;
    gpumat_test::check_pjds_layout(M, v, Q, where);
    EXPECT_EQ(Q.pgroup, nblocks > gpumat::kPjdsPositionalSample ? 2 : 1) << where;
    expect_same_products(Q, P, where);
  }
}

// Auto's positional columns (pjds_positional_auto_tries, pjds_positional_auto_pays): a 5-point
// stencil whose values never repeat (no value table) in the matrix's order takes them, unremarked
// (positional_declined 0), its products bitwise those of 32-bit columns, fewer bytes; with fp32
// storage too (4 B a position), its products those of 32-bit columns with fp32 values. Not tried:
// the stencil's own values (4 and -1: a value table), rows sorted by length, plain
// columns asked for, rows wide enough for dictionary columns (a band of 20); tried and not kept: a
// scattered pattern, whose blocks' rows share no offsets (in 188 blocks, and in 4,400, where the
// sample of blocks already says no). The stencil's 4,500 blocks are judged on the sample, then
// counted whole. check_pjds_layout recounts each from the matrix (format_traits.hpp,
// pjds_auto_positional).
TEST(PjdsPositional, AutoTakesThemForValuesAsStored) {
  const matgen::Csr S = matgen::stencil_2d(400, 360); // 4,500 blocks: judged on the sample, then counted whole
  auto              v = S.values<double>();
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = 1.0 + 1e-9 * double(k);
  Pjds<double> A, P;
  gpumat::pjds_build(S.view(v), gpumat::pjds_resolve(pp(32, 1, 0)), A);
  gpumat::pjds_build(S.view(v), gpumat::pjds_resolve(pp(32, 1, 0, gpumat::PjdsColumns::Plain)), P);
  gpumat_test::check_pjds_layout(S, v, A, "stencil_2d, values never repeating, auto");
  EXPECT_TRUE(A.positional());
  EXPECT_FALSE(A.tabled());
  EXPECT_EQ(A.pgroup, 1);
  EXPECT_EQ(A.positional_declined, 0);
  EXPECT_FALSE(P.positional());
  EXPECT_LT(A.bytes(), P.bytes());
  expect_same_products(A, P, "stencil_2d auto positional against plain");

  struct Case {
    std::string         what;
    matgen::Csr         M;
    std::vector<double> v;
    PjdsParams          p;
  };
  PjdsParams fp32 = pp(32, 1, 0);
  fp32.fp32       = true;
  const matgen::Csr W = matgen::cyclic_band(3000, 20), R = matgen::random_rows("scattered", 6000, 6000, 3, 6, 0.0, 31),
                    L = matgen::random_rows("scattered, 4,400 blocks", 140800, 140800, 3, 6, 0.0, 37);
  {
    PjdsParams fp32_plain = fp32;
    fp32_plain.columns    = gpumat::PjdsColumns::Plain;
    Pjds<double> A32, P32;
    gpumat::pjds_build(S.view(v), gpumat::pjds_resolve(fp32), A32);
    gpumat::pjds_build(S.view(v), gpumat::pjds_resolve(fp32_plain), P32);
    gpumat_test::check_pjds_layout(S, v, A32, "stencil_2d, values never repeating, fp32 storage, auto");
    EXPECT_TRUE(A32.positional() && A32.single());
    EXPECT_TRUE(!P32.positional() && P32.single());
    EXPECT_LT(A32.bytes(), P32.bytes());
    expect_same_products(A32, P32, "stencil_2d fp32 auto positional against plain");
  }
  const Case        cases[] = {{"the stencil's own values: a table", S, S.values<double>(), pp(32, 1, 0)},
                               {"rows sorted by length", S, v, pp(32, gpumat::pjds_all_rows, 0)},
                               {"plain columns asked for", S, v, pp(32, 1, 0, gpumat::PjdsColumns::Plain)},
                               {"rows of 20: dictionary columns", W, W.values<double>(), pp(32, 1, 0, gpumat::PjdsColumns::Auto, gpumat::PjdsValues::Plain)},
                               {"a scattered pattern", R, R.values<double>(), pp(32, 1, 0, gpumat::PjdsColumns::Auto, gpumat::PjdsValues::Plain)},
                               {"a scattered pattern judged on the sample", L, L.values<double>(), pp(32, 1, 0, gpumat::PjdsColumns::Auto, gpumat::PjdsValues::Plain)}};
  for (const Case &c : cases) {
    Pjds<double> B;
    gpumat::pjds_build(c.M.view(c.v), gpumat::pjds_resolve(c.p), B);
    gpumat_test::check_pjds_layout(c.M, c.v, B, c.what);
    EXPECT_FALSE(B.positional()) << c.what;
    EXPECT_EQ(B.positional_declined, 0) << c.what << ": auto's declines unremarked";
  }
  Pjds<double> T, W1;
  gpumat::pjds_build(S.view(S.values<double>()), gpumat::pjds_resolve(pp(32, 1, 0)), T);
  EXPECT_TRUE(T.tabled()) << "the stencil's own values";
  gpumat::pjds_build(W.view(W.values<double>()), gpumat::pjds_resolve(pp(32, 1, 0, gpumat::PjdsColumns::Auto, gpumat::PjdsValues::Plain)), W1);
  EXPECT_TRUE(W1.coded()) << "the band of 20: dictionary columns";
  // the scattered pattern: positional columns asked for (and kept: positional_always) store more
  // than the share of its 32-bit layout (each block as wide as its longest row)
  Pjds<double> Rp, Rl;
  gpumat::pjds_build(R.view(R.values<double>()), gpumat::pjds_resolve(pp(32, 1, 0, gpumat::PjdsColumns::Positional, gpumat::PjdsValues::Plain)), Rp);
  gpumat::pjds_build(R.view(R.values<double>()), gpumat::pjds_resolve(pp(32, 1, 0, gpumat::PjdsColumns::Plain, gpumat::PjdsValues::Plain)), Rl);
  ASSERT_TRUE(Rp.positional());
  EXPECT_FALSE(gpumat::pjds_positional_auto_pays(Rl.padded(), Rp.padded(), Rp.nblocks(), 8, false)) << Rp.padded() << " positions against " << Rl.padded() << " entries";
}

// Auto's positional columns over a value table (pjds_positional_auto_tries' second case): rows wide
// enough for dictionary columns whose values fit a table of 8-bit codes with room for the padding
// sentinel take them, the table made anew on them (the sentinel in it, no padding 0), their
// products bitwise those of the dictionary layout with its table: a 4-dof problem of constant
// coefficients (20 entries a row, groups of 4 rows), a cyclic band of 24 with 255 distinct values
// and no padding (the positional table's 256 entries with the sentinel: 8-bit codes). Not taken: the
// band with 256 distinct values (no room), the 4-dof problem with its rows sorted by length, a
// scattered pattern of wide rows (tried; its positions far beyond the share). check_pjds_layout
// recounts each from the matrix (format_traits.hpp, pjds_auto_positional).
TEST(PjdsPositional, AutoTakesThemOverAnEightBitTable) {
  const matgen::Csr D = matgen::dof_problem_constant(60, 50, 4); // 8 values
  const matgen::Csr C = matgen::cyclic_band(3000, 24);
  const PjdsParams dict = pp(32, 1, 0, gpumat::PjdsColumns::Dictionary);
  struct Taken {
    std::string         what;
    const matgen::Csr  *M;
    std::vector<double> v;
    index_t             group;
    std::size_t         table;
  };
  const Taken taken[] = {{"4 dof, constant coefficients", &D, D.values<double>(), 4, 9}, {"cyclic band of 24, 255 values", &C, matgen::cycled_values(C, 255), 1, 256}};
  for (const Taken &c : taken) {
    Pjds<double> A, B;
    gpumat::pjds_build(c.M->view(c.v), gpumat::pjds_resolve(pp(32, 1, 0)), A);
    gpumat::pjds_build(c.M->view(c.v), gpumat::pjds_resolve(dict), B);
    gpumat_test::check_pjds_layout(*c.M, c.v, A, c.what);
    ASSERT_TRUE(A.positional()) << c.what;
    ASSERT_TRUE(A.tabled()) << c.what;
    EXPECT_EQ(A.pgroup, c.group) << c.what;
    EXPECT_EQ(A.table.size(), c.table) << c.what << ": the values and the sentinel";
    EXPECT_EQ(A.code_bytes(), 1) << c.what;
    EXPECT_EQ(std::count_if(A.table.begin(), A.table.end(), [](double t) { return gpumat::is_pjds_pad(t); }), 1) << c.what << ": the sentinel";
    EXPECT_EQ(std::count(A.table.begin(), A.table.end(), 0.0), 0) << c.what << ": no padding 0";
    EXPECT_EQ(A.positional_declined, 0) << c.what;
    ASSERT_TRUE(B.coded() && B.tabled()) << c.what;
    EXPECT_LT(A.bytes(), B.bytes()) << c.what;
    expect_same_products(A, B, c.what + ": auto positional against dictionary columns");
  }
  struct Case {
    std::string         what;
    const matgen::Csr  *M;
    std::vector<double> v;
    PjdsParams          p;
  };
  matgen::Csr W = matgen::random_rows("scattered, wide rows", 6000, 6000, 18, 24, 0.0, 41);
  std::fill(W.val.begin(), W.val.end(), 1.0);
  const Case cases[] = {{"cyclic band of 24, 256 values: no room for the sentinel", &C, matgen::cycled_values(C, 256), pp(32, 1, 0)},
                        {"4 dof, rows sorted by length", &D, D.values<double>(), pp(32, gpumat::pjds_all_rows, 0)},
                        {"a scattered pattern of wide rows", &W, W.values<double>(), pp(32, 1, 0)}};
  for (const Case &c : cases) {
    Pjds<double> B;
    gpumat::pjds_build(c.M->view(c.v), gpumat::pjds_resolve(c.p), B);
    gpumat_test::check_pjds_layout(*c.M, c.v, B, c.what);
    EXPECT_FALSE(B.positional()) << c.what;
    EXPECT_TRUE(B.tabled()) << c.what;
    EXPECT_EQ(B.positional_declined, 0) << c.what << ": auto's declines unremarked";
  }
}

// The 5-point stencil with every fifth entry (diagonals among them) and all of row 77 set to 0,
// stored: the positional layout holds them as values, not padding.
matgen::Csr stencil_with_zeros() {
  matgen::Csr M = matgen::stencil_2d(60, 50);
  M.name        = "stencil_2d with stored zeros";
  for (std::size_t k = 0; k < M.val.size(); k += 5) M.val[k] = 0.0;
  for (index_t k = M.rowptr[77]; k < M.rowptr[78]; ++k) M.val[std::size_t(k)] = 0.0;
  return M;
}

// Stored zeros (the stencil's and the 2- and 3-dof problems'): the positional products equal the
// 32-bit layout's bit for bit (both host products add a row's entries in its order: a stored zero
// is an entry, not padding), across b_r, sigma, the value table and fp32 storage, every op; an
// infinite x at a stored zero's column gives NaN in that row (0 x Inf, as AIJ's product); an
// infinite x at a column only padding points at (a column no row stores) leaves every row finite.
template <typename T>
void stored_zeros_case(const matgen::Csr &M) {
  const std::vector<T> v = M.values<T>();
  std::int64_t         zeros = 0;
  for (T a : v) zeros += a == T(0);
  ASSERT_GT(zeros, 0) << M.name << ": no stored zero";
  std::vector<T> x(std::size_t(M.ncols));
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = T(std::sin(double(k)) + 0.1);
  for (int br : {32, 8, 128})
    for (std::int64_t sigma : {std::int64_t(1), gpumat::pjds_all_rows})
      for (gpumat::PjdsValues vals : {gpumat::PjdsValues::Plain, gpumat::PjdsValues::Table})
        for (bool fp32 : {false, true}) {
          PjdsParams q = pp(br, sigma, 0, gpumat::PjdsColumns::Positional, vals), p = pp(br, sigma, 0, gpumat::PjdsColumns::Plain, vals);
          q.fp32 = p.fp32 = fp32;
          Pjds<T> Q, P;
          gpumat::pjds_build(M.view(v), gpumat::pjds_resolve(q), Q);
          gpumat::pjds_build(M.view(v), gpumat::pjds_resolve(p), P);
          const std::string where = M.name + " " + describe(Q.p) + (fp32 ? " fp32" : "");
          gpumat_test::check_pjds_layout(M, v, Q, where);
          ASSERT_TRUE(Q.positional()) << where;
          for (Op op : {Op::NoTrans, Op::Trans}) {
            ASSERT_TRUE(gpumat_test::same_values(product(Q, op, x), product(P, op, x))) << where << (op == Op::Trans ? " Trans" : " NoTrans") << ": bitwise the 32-bit layout's";
          }
          // an infinite x at a stored zero's column, in the first 3 rows holding one
          int tried = 0;
          for (index_t r = 0; r < M.nrows && tried < 3; ++r)
            for (index_t k = M.rowptr[std::size_t(r)]; k < M.rowptr[std::size_t(r) + 1]; ++k) {
              if (v[std::size_t(k)] != T(0)) continue;
              const index_t c = M.colidx[std::size_t(k)];
              std::vector<T> xi(x);
              xi[std::size_t(c)] = std::numeric_limits<T>::infinity();
              const std::vector<T> yq = product(Q, Op::NoTrans, xi), yp = product(P, Op::NoTrans, xi);
              ASSERT_TRUE(std::isnan(yq[std::size_t(r)])) << where << ": row " << r << ", x(" << c << ") = Inf at its stored zero: " << yq[std::size_t(r)];
              ASSERT_TRUE(gpumat_test::same_values(yq, yp)) << where << ": x(" << c << ") = Inf, bitwise the 32-bit layout's";
              ++tried;
              break;
            }
          ASSERT_GE(tried, 2) << where;
        }
}

TEST(PjdsPositional, StoredZerosBitwiseAndInfinities) {
  stored_zeros_case<double>(stencil_with_zeros());
  stored_zeros_case<float>(stencil_with_zeros());
  for (index_t dof : {2, 3}) {
    stored_zeros_case<double>(matgen::dof_problem(14, 12, dof));
    if (HasFatalFailure()) return;
  }
  stored_zeros_case<float>(matgen::dof_problem(14, 12, 3));
}

// A column no row stores (the stencil's column 1234 taken out) that the padding of its neighbours'
// rows points at (their blocks hold the offsets that reach it): an infinite x there leaves every
// row finite, the products as the 32-bit layout's.
TEST(PjdsPositional, InfiniteXAtAPaddingOnlyColumn) {
  const matgen::Csr S = stencil_with_zeros();
  const index_t     c = 1234;
  matgen::Csr       M;
  M.name  = "stencil without column 1234";
  M.nrows = S.nrows, M.ncols = S.ncols;
  for (index_t r = 0; r < S.nrows; ++r) {
    for (index_t k = S.rowptr[std::size_t(r)]; k < S.rowptr[std::size_t(r) + 1]; ++k)
      if (S.colidx[std::size_t(k)] != c) M.colidx.push_back(S.colidx[std::size_t(k)]), M.val.push_back(S.val[std::size_t(k)]);
    M.rowptr.push_back(index_t(M.colidx.size()));
  }
  const auto   v = M.values<double>();
  std::vector<double> x(std::size_t(M.ncols));
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = std::cos(double(k));
  x[std::size_t(c)] = std::numeric_limits<double>::infinity();
  for (gpumat::PjdsValues vals : {gpumat::PjdsValues::Plain, gpumat::PjdsValues::Table})
    for (bool fp32 : {false, true}) {
      PjdsParams q = pp(32, 1, 0, gpumat::PjdsColumns::Positional, vals), p = pp(32, 1, 0, gpumat::PjdsColumns::Plain, vals);
      q.fp32 = p.fp32 = fp32;
      Pjds<double> Q, P;
      gpumat::pjds_build(M.view(v), gpumat::pjds_resolve(q), Q);
      gpumat::pjds_build(M.view(v), gpumat::pjds_resolve(p), P);
      const std::string where = describe(Q.p) + (fp32 ? " fp32" : "");
      std::int64_t      pads = 0; // padding positions at column c
      for (std::int64_t i = 0; i < Q.nrows_pj; ++i) {
        const std::int64_t b = i / Q.p.block_rows, base = Q.block_start[std::size_t(b)] + i % Q.p.block_rows;
        for (std::int64_t j = 0; j < Q.block_width(b); ++j) pads += Q.pad(base + j * Q.block_rows(b)) && Q.column(base + j * Q.block_rows(b), i) == c;
      }
      ASSERT_GE(pads, 4) << where << ": the padding of column " << c << "'s neighbours points at it";
      const std::vector<double> yq = product(Q, Op::NoTrans, x);
      for (index_t r = 0; r < M.nrows; ++r) ASSERT_TRUE(std::isfinite(yq[std::size_t(r)])) << where << ": row " << r;
      ASSERT_TRUE(yq == product(P, Op::NoTrans, x)) << where;
    }
}

// A stored value with the sentinel's bits (fp64's, or a float's, or in fp32 storage a double NaN
// that rounds to fp32's sentinel) is stored as the canonical NaN, by the build and by a refresh, and
// its row's product is NaN, every other row's the 32-bit layout's.
template <typename T>
void sentinel_value_case(T bad, bool fp32, const std::string &what) {
  const matgen::Csr    M = matgen::stencil_2d(40, 30);
  const std::vector<T> v = M.values<T>();
  std::vector<T>       w(v);
  const index_t        r = 555;
  const std::size_t    q = std::size_t(M.rowptr[std::size_t(r)] + 1);
  w[q]                   = bad;
  std::vector<T> x(std::size_t(M.ncols));
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = T(std::sin(double(k)) + 0.5);
  for (gpumat::PjdsValues vals : {gpumat::PjdsValues::Plain, gpumat::PjdsValues::Table})
    for (bool refreshed : {false, true}) {
      PjdsParams p = pp(32, 1, 0, gpumat::PjdsColumns::Positional, vals), pl = pp(32, 1, 0, gpumat::PjdsColumns::Plain, vals);
      p.fp32 = pl.fp32 = fp32;
      Pjds<T> Q, P;
      gpumat::pjds_build(M.view(refreshed ? v : w), gpumat::pjds_resolve(p), Q);
      if (refreshed) gpumat::pjds_refresh(M.view(w), Q);
      gpumat::pjds_build(M.view(w), gpumat::pjds_resolve(pl), P);
      const std::string where = what + " " + describe(Q.p) + (refreshed ? " refreshed" : " built");
      const std::int64_t s = Q.slot[q];
      ASSERT_LT(s, Q.padded()) << where;
      EXPECT_FALSE(Q.pad(s)) << where << ": taken for padding";
      EXPECT_FALSE(gpumat::is_pjds_pad(Q.val[std::size_t(s)])) << where;
      if (gpumat::is_pjds_pad(bad)) {
        EXPECT_EQ(gpumat::value_bits(Q.val[std::size_t(s)]), gpumat::value_bits(gpumat::pjds_nan<T>())) << where << ": the canonical NaN";
      }
      if (Q.single()) {
        EXPECT_EQ(gpumat::value_bits(Q.val32[std::size_t(s)]), gpumat::value_bits(gpumat::pjds_nan<float>())) << where << ": fp32's canonical NaN";
      }
      gpumat_test::check_pjds_layout(M, w, Q, where);
      const std::vector<T> yq = product(Q, Op::NoTrans, x), yp = product(P, Op::NoTrans, x);
      for (index_t i = 0; i < M.nrows; ++i) {
        if (i == r) {
          ASSERT_TRUE(std::isnan(yq[std::size_t(i)])) << where << ": the NaN's row";
        } else {
          ASSERT_EQ(yq[std::size_t(i)], yp[std::size_t(i)]) << where << ": row " << i;
        }
      }
      EXPECT_TRUE(std::isnan(product(Q, Op::Trans, x)[std::size_t(M.colidx[q])])) << where << ": the transpose";
    }
}

TEST(PjdsPositional, SentinelValueStoredAsNaN) {
  sentinel_value_case<double>(gpumat::pjds_pad<double>(), false, "fp64 sentinel");
  sentinel_value_case<double>(gpumat::pjds_pad<double>(), true, "fp64 sentinel, fp32 storage");
  sentinel_value_case<float>(gpumat::pjds_pad<float>(), false, "fp32 sentinel");
  // a double NaN whose payload's top bits are fp32's sentinel's: float() keeps them on x86
  const double d = gpumat::value_from_bits<double>(0x7FF0000000000000ull | (std::uint64_t(gpumat::kPjdsPadBits32 & 0x7FFFFFu) << 29));
  ASSERT_TRUE(std::isnan(d) && !gpumat::is_pjds_pad(d));
  sentinel_value_case<double>(d, true, "a double NaN rounding to fp32's sentinel");
  EXPECT_EQ(gpumat::value_bits(gpumat::pjds_round(d)), gpumat::value_bits(gpumat::pjds_nan<float>()));
  EXPECT_TRUE(gpumat::is_pjds_pad(gpumat::pjds_round(gpumat::pjds_pad<double>())));
}

// The value table's entries include the padding's sentinel: 255 distinct stored values and padding
// make a table of 8-bit codes, 256 and padding one of 16-bit codes; 65,535 and padding fill a table
// of 16-bit codes, 65,536 and padding make none.
TEST(PjdsPositional, TableCountsTheSentinel) {
  for (int distinct : {255, 256, 65535, 65536}) {
    const matgen::Csr   M = distinct < 300 ? matgen::stencil_2d(40, 40) : matgen::stencil_2d(300, 240);
    std::vector<double> v(M.val.size());
    for (std::size_t k = 0; k < v.size(); ++k) v[k] = 1.0 + double(k % std::size_t(distinct));
    Pjds<double> B;
    gpumat::pjds_build(M.view(v), gpumat::pjds_resolve(pp(32, 1, 0, gpumat::PjdsColumns::Positional, gpumat::PjdsValues::Table)), B);
    ASSERT_GT(B.padding(), 0);
    EXPECT_EQ(B.tabled(), distinct != 65536) << distinct << " values";
    if (B.tabled()) {
      EXPECT_EQ(B.table.size(), std::size_t(distinct) + 1);
      EXPECT_EQ(B.code_bytes(), distinct == 255 ? 1 : 2) << distinct << " values";
      EXPECT_TRUE(gpumat::is_pjds_pad(B.table.back())) << "the sentinel, a NaN, has the largest bits";
    }
    gpumat_test::check_pjds_layout(M, v, B, "positional, distinct values " + std::to_string(distinct));
  }
}

// Random patterns across b_r, sigma and long_row, fp64 and fp32 storage: whatever the offsets
// (blocks as wide as they take), the products equal the CSR reference, and again after a refresh.
TEST(PjdsPositional, RandomPatterns) {
  std::mt19937_64 g(93);
  for (int m = 0; m < 30; ++m) {
    const index_t        nrows = index_t(1 + g() % 500), ncols = index_t(1 + g() % 2000);
    std::vector<index_t> len(static_cast<std::size_t>(nrows));
    for (auto &l : len) l = g() % 5 == 0 ? 0 : index_t(g() % std::min<index_t>(ncols, 30) + 1);
    const matgen::Csr  M     = matgen::from_lengths("positional" + std::to_string(m), ncols, len, 300 + std::uint64_t(m));
    const int          brs[] = {1, 8, 32, 64};
    const std::int64_t sig[] = {1, 32, 4096, gpumat::pjds_all_rows};
    const std::int64_t lrs[] = {0, 16, 1000000};
    PjdsParams         p     = pp(brs[g() % 4], sig[g() % 4], lrs[g() % 3], gpumat::PjdsColumns::Positional, gpumat::PjdsValues::Plain);
    p.fp32                   = m % 3 == 0;
    const auto   v           = M.values<double>();
    Pjds<double> Q;
    gpumat::pjds_build(M.view(v), p, Q);
    const std::string where = M.name + " " + describe(Q.p);
    if (Q.padded() == 0) continue; // no short rows: nothing positional
    if (!p.fp32) check_positional(M, v, Q, where);
    else { // the rounded values: against the same matrix rounded to float beforehand
      std::vector<double> r(v);
      for (std::size_t q = 0; q < r.size(); ++q)
        if (Q.slot[q] < Q.padded()) r[q] = double(float(r[q]));
      check_positional(M, r, Q, where + " fp32");
    }
    std::vector<double> w(v);
    for (auto &a : w) a = 2.0 * a + 1.0;
    gpumat::pjds_refresh(M.view(w), Q);
    if (!p.fp32) check_positional(M, w, Q, where + " refreshed");
  }
}

// The model keeps the matrix's order for positional columns (sigma 1) unless sigma is set: on a
// matrix whose rows it sorts for 32-bit columns (a power law's).
TEST(PjdsPositional, ModelKeepsTheOrder) {
  const matgen::Csr M = matgen::power_law(5000, 5000, 1.3, 2.0, 3000, 36);
  const auto        v = M.values<double>();
  PjdsParams        p = pp(32, 0, 0, gpumat::PjdsColumns::Positional), q = pp(32, 0, 0, gpumat::PjdsColumns::Plain);
  p.positional_always = false;
  EXPECT_EQ(gpumat::pjds_model(M.view(v), p).p.sigma, 1);
  EXPECT_GT(gpumat::pjds_model(M.view(v), q).p.sigma, 1) << "the test's matrix: sorted for 32-bit columns";
  p.sigma = 4096;
  EXPECT_EQ(gpumat::pjds_model(M.view(v), p).p.sigma, 4096);
}

// pjds_positional_pays at its edges: positions x value bytes + 8 B a block against entries x
// (value bytes + 4 B), strictly fewer.
TEST(PjdsPositional, PaysOnlyWithFewerBytes) {
  EXPECT_TRUE(gpumat::pjds_positional_pays(100, 149, 0, 8));  // 1,192 < 1,200
  EXPECT_FALSE(gpumat::pjds_positional_pays(100, 150, 0, 8)); // 1,200
  EXPECT_FALSE(gpumat::pjds_positional_pays(100, 149, 1, 8)); // 1,200 with a block's start
  EXPECT_TRUE(gpumat::pjds_positional_pays(100, 199, 0, 4));  // 796 < 800 (float)
  EXPECT_FALSE(gpumat::pjds_positional_pays(100, 200, 0, 4));
  EXPECT_FALSE(gpumat::pjds_positional_pays(0, 0, 0, 8)); // nothing padded: nothing to save
}

// Positional columns asked for (positional_always clear, as the PETSc adapter asks): kept on the
// 5-point stencil and the 3-dof problem, where they store fewer bytes; on random columns declined:
// the layout is the 32-bit one (columns, values, slots and products bit for bit a build with plain
// columns'), positional_declined the positions a forced build stores, and a refresh keeps it so;
// fp32 storage and a value table asked for decide alike (the stored type's bytes).
TEST(PjdsPositional, DeclinedWhereItDoesNotPay) {
  const matgen::Csr S = matgen::stencil_2d(120, 90), F = matgen::dof_problem(40, 30, 3);
  std::vector<index_t> len(3000);
  std::mt19937_64      g(17);
  for (auto &l : len) l = index_t(4 + g() % 12);
  const matgen::Csr R = matgen::from_lengths("random columns", 40000, len, 29);
  for (gpumat::PjdsValues vals : {gpumat::PjdsValues::Plain, gpumat::PjdsValues::Table})
    for (bool fp32 : {false, true})
      for (const matgen::Csr *M : {&S, &F, &R}) {
        PjdsParams p = pp(32, 1, 0, gpumat::PjdsColumns::Positional, vals), pf = p, pl = pp(32, 1, 0, gpumat::PjdsColumns::Plain, vals);
        p.positional_always = false;
        p.fp32 = pf.fp32 = pl.fp32 = fp32;
        const std::string where = M->name + " " + describe(p) + (fp32 ? " fp32" : "");
        const auto        v     = M->values<double>();
        Pjds<double>      Q, Fq, P;
        gpumat::pjds_build(M->view(v), p, Q);
        gpumat::pjds_build(M->view(v), pf, Fq);
        gpumat::pjds_build(M->view(v), pl, P);
        ASSERT_TRUE(Fq.positional()) << where;
        const bool pays = gpumat::pjds_positional_pays(P.padded(), Fq.padded(), P.nblocks(), 8);
        EXPECT_EQ(pays, M != &R) << where << ": " << Fq.padded() << " positions against " << P.padded() << " entries";
        EXPECT_EQ(Q.positional(), pays) << where;
        if (pays) {
          EXPECT_EQ(Q.positional_declined, 0) << where;
          continue;
        }
        EXPECT_EQ(Q.positional_declined, Fq.padded()) << where;
        EXPECT_TRUE(Q.col == P.col && Q.block_start == P.block_start && Q.slot == P.slot && Q.vcode == P.vcode && Q.vcode16 == P.vcode16) << where << ": the 32-bit layout";
        EXPECT_TRUE(gpumat_test::same_values(Q.val, P.val) && gpumat_test::same_values(Q.val32, P.val32)) << where;
        expect_same_products(Q, P, where);
        std::vector<double> w(v);
        for (auto &a : w) a = 0.5 * a - 1.0;
        gpumat::pjds_refresh(M->view(w), Q);
        EXPECT_EQ(Q.positional_declined, Fq.padded()) << where << ": refreshed";
        EXPECT_FALSE(Q.positional()) << where;
      }
}

// Fuzz: random patterns (random lengths with empty rows and a few long rows, random columns,
// ragged sizes) against the CSR reference at 1e-12, across b_r, sigma and long_row.
TEST(PjdsHostFuzz, RandomPatterns) {
  std::mt19937_64 g(91);
  for (int m = 0; m < 60; ++m) {
    const index_t        nrows = index_t(1 + g() % 700), ncols = index_t(1 + g() % 3000);
    std::vector<index_t> len(static_cast<std::size_t>(nrows));
    for (auto &l : len) l = g() % 5 == 0 ? 0 : index_t(g() % std::min<index_t>(ncols, 40) + 1);
    if (g() % 3 == 0) len[std::size_t(g() % std::uint64_t(nrows))] = ncols; // a full row
    const matgen::Csr M = matgen::from_lengths("fuzz" + std::to_string(m), ncols, len, 100 + std::uint64_t(m));
    const int          brs[] = {1, 2, 8, 32, 64, 1024};
    const std::int64_t sig[] = {0, 1, 32, 100, 4096, gpumat::pjds_all_rows};
    const std::int64_t lrs[] = {0, 1, 16, 1000000};
    check_products<double>(M, pp(brs[g() % 6], sig[g() % 6], lrs[g() % 4]));
  }
}

} // namespace

namespace {
// Matrices of more than kPjdsModelRows rows are judged on a sample of windows: its padding
// estimates stay within 10 % (plus a block's worth) of the exact counts, so the model chooses as
// an exact count would.
TEST(PjdsModel, SampledEstimatesOfLargeMatrices) {
  const index_t        n = index_t(gpumat::kPjdsModelRows + 300000);
  std::vector<index_t> len(static_cast<std::size_t>(n));
  std::mt19937_64      g(41);
  for (auto &l : len) {
    const std::uint64_t u = g() % 1000;
    l                     = u < 900 ? 3 : (u < 990 ? index_t(4 + g() % 30) : index_t(40 + g() % 400));
  }
  const matgen::Csr        M  = matgen::from_lengths("sampled", n, len, 42);
  const auto               v  = M.values<double>();
  const gpumat::PjdsChoice ch = gpumat::pjds_model(M.view(v), pp(32, 0, 1000000));
  int evaluated = 0;
  for (int k = 0; k < gpumat::kPjdsNumWindows; ++k) {
    if (ch.padding[k] < 0) continue;
    ++evaluated;
    const std::int64_t exact = gpumat::pjds_padding(M.view(v), pp(32, gpumat::kPjdsWindows[k], 1000000));
    EXPECT_LE(std::llabs(ch.padding[k] - exact), exact / 10 + 32 * 440) << "window " << gpumat::kPjdsWindows[k] << ": estimate " << ch.padding[k] << ", exact " << exact;
  }
  EXPECT_GE(evaluated, 2);
  EXPECT_GT(ch.p.sigma, gpumat::kPjdsLocalWindow) << "unsorted and in windows of 4096 the long tail pads more than 5 %";
}
} // namespace
