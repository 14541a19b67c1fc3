// The scenarios every format's host reference shares, as one typed suite over the registered
// formats (format_traits.hpp) in double and float:
// - Products: every variant on its matrices (the standard set and the format's extra ones): the
//   layout's invariants, the bytes counting the stored values, and y = op(A) x (+ z) for both ops,
//   z absent, separate and aliasing y, y poisoned with NaN, against the long-double CSR reference;
//   each product twice on the same object (the second reuses what the first left behind).
// - EmptyAndSmall: the same at the default variants on matrices without rows, columns or
//   nonzeros, with runs of empty rows, of a single entry, row or column.
// - RefreshEqualsRebuild: new values through refresh store what a build from them stores, and
//   give their products.
// The formats' own tests (test_<format>_host.cpp) hold what is theirs alone: parameter resolution,
// models, layouts by hand, special shapes, statistics.
#include "format_traits.hpp"
#include "host_helpers.hpp"
#include "matgen.hpp"
#include "params.hpp"

#include <gtest/gtest.h>

#include <type_traits>
#include <utility>

#include <limits>
#include <string>
#include <vector>

using gpumat::Op;
using gpumat_test::ZMode;

namespace {

template <typename C> class FormatHost : public ::testing::Test {
public:
  using F    = gpumat_test::FormatTraits<typename C::tag>;
  using T    = typename C::value_type;
  using Host = typename F::template Host<T>;
};
TYPED_TEST_SUITE(FormatHost, gpumat_test::FormatCases, gpumat_test::FormatCaseName);

// H's products against the long-double reference of M with values vals: both ops, z absent,
// separate and aliasing y; each twice (the second call reuses what the first left behind).
template <typename T, typename Host>
void check_products(const matgen::Csr &M, const std::vector<T> &vals, const Host &H, const std::string &where) {
  for (Op op : {Op::NoTrans, Op::Trans}) {
    const bool               trans = op == Op::Trans;
    const std::size_t        nin = std::size_t(trans ? M.nrows : M.ncols), nout = std::size_t(trans ? M.ncols : M.nrows);
    const std::vector<T>     x = matgen::random_vector<T>(nin, 101), zv = matgen::random_vector<T>(nout, 202);
    std::vector<long double> ref, scale;
    for (ZMode zm : {ZMode::None, ZMode::Separate, ZMode::Alias}) {
      matgen::reference(M, vals, trans, x.data(), zm == ZMode::None ? nullptr : zv.data(), ref, scale);
      for (int rep = 0; rep < 2; ++rep) {
        std::vector<T> y(nout, std::numeric_limits<T>::quiet_NaN());
        const T       *z = zm == ZMode::Separate ? zv.data() : nullptr;
        if (zm == ZMode::Alias) {
          y = zv;
          z = y.data();
        }
        H.apply(op, x.data(), z, y.data());
        ASSERT_EQ(matgen::mismatch(y, ref, scale, gpumat_test::tolerance<T>()), "")
            << where << (trans ? " Trans" : " NoTrans") << " z mode " << int(zm) << " call " << rep;
      }
    }
  }
}

// Whether a host reference reads other values than it stores (read_values(): pjds's value table).
template <typename H, typename = void>
struct HasReadValues : std::false_type {};
template <typename H>
struct HasReadValues<H, std::void_t<decltype(std::declval<const H &>().read_values())>> : std::true_type {};

// Every value the product reads (as stored, or a value table's entries) counted in the bytes of
// the arrays.
template <typename T, typename Host> void check_bytes(const Host &H, const std::string &where) {
  std::size_t values = 0;
  if constexpr (HasReadValues<Host>::value) {
    for (const std::vector<T> &part : H.read_values()) values += part.size();
  } else {
    for (const std::vector<T> &part : H.stored()) values += part.size();
  }
  EXPECT_GE(H.bytes(), values * sizeof(T)) << where;
}

// M built with variant v: its layout, bytes and products.
template <typename F, typename T> void check_build(const matgen::Csr &M, const typename F::Variant &v) {
  const std::vector<T>         vals = M.values<T>();
  typename F::template Host<T> H;
  H.build(M.view(vals), v);
  const std::string where = M.name + " " + F::describe(v);
  H.check(M, vals, where);
  check_bytes<T>(H, where);
  check_products(M, vals, H, where);
}

TYPED_TEST(FormatHost, Products) {
  using F = typename TestFixture::F;
  using T = typename TestFixture::T;
  for (const typename F::Variant &v : F::template variants<T>())
    for (const matgen::Csr &M : F::matrices(v)) {
      check_build<F, T>(M, v);
      if (this->HasFatalFailure()) return;
    }
}

TYPED_TEST(FormatHost, EmptyAndSmall) {
  using F = typename TestFixture::F;
  using T = typename TestFixture::T;
  for (const typename F::Variant &v : F::template default_variants<T>())
    for (const matgen::Csr &M : gpumat_test::empty_and_small_matrices()) {
      check_build<F, T>(M, v);
      if (this->HasFatalFailure()) return;
    }
}

// refresh() with new values (same pattern) stores what a build from them stores, part by part (a
// case exercises every part: the long rows' too where the format has them), keeps the bytes, and
// gives the new products.
TYPED_TEST(FormatHost, RefreshEqualsRebuild) {
  using F    = typename TestFixture::F;
  using T    = typename TestFixture::T;
  using Host = typename TestFixture::Host;
  for (const auto &c : F::refresh_cases()) {
    const matgen::Csr   &M    = c.M;
    const std::vector<T> vals = M.values<T>();
    std::vector<T>       fresh(vals.size());
    for (std::size_t k = 0; k < fresh.size(); ++k) fresh[k] = T(0.5) - vals[k] * T(k % 7);
    const std::string where = M.name + " " + F::describe(c.v) + " refreshed";
    Host              H, R;
    H.build(M.view(vals), c.v);
    H.refresh(M.view(fresh));
    R.build(M.view(fresh), c.v);
    const std::vector<std::vector<T>> got = H.stored(), want = R.stored();
    ASSERT_EQ(got.size(), want.size()) << where;
    for (std::size_t i = 0; i < want.size(); ++i) {
      EXPECT_TRUE(gpumat_test::same_values(got[i], want[i])) << where << ": part " << i;
      if (M.nnz() > 0) {
        EXPECT_FALSE(want[i].empty()) << where << ": part " << i << " holds nothing, the case does not exercise it";
      }
    }
    EXPECT_EQ(H.bytes(), R.bytes()) << where;
    H.check(M, fresh, where);
    check_products(M, fresh, H, where);
    if (this->HasFatalFailure()) return;
  }
}

} // namespace
