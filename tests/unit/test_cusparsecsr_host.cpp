// cusparsecsr host layer: the reference product over the CSR view (both ops, z absent, separate and
// aliasing y) against a plain long-double CSR product, a product by hand, empty rows and matrices
// without rows or columns, the device bytes and the algorithm numbers accepted.
#include "core/cusparsecsr.hpp"
#include "matgen.hpp"
#include "host_helpers.hpp"
#include "params.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

using gpumat::index_t;
using gpumat::Op;

namespace {

using gpumat_test::ZMode;

// The standard set plus a row count no warp divides (1021, prime) with one long row.
const std::vector<matgen::Csr> &matrices() {
  static const std::vector<matgen::Csr> m = [] {
    std::vector<matgen::Csr> v = matgen::standard_set(512);
    v.push_back(matgen::rows_1021_one_long(1500));
    return v;
  }();
  return m;
}

template <typename T>
void check_apply(const matgen::Csr &M, const std::vector<T> &vals, Op op, ZMode zm, const std::string &what) {
  ASSERT_EQ(gpumat_test::product_mismatch(M, vals, op, zm, 101, 202, [&](const T *x, const T *z, T *y) { gpumat::csr_apply(M.view(vals), op, x, z, y); }), "")
      << what << (op == Op::Trans ? " Trans" : " NoTrans") << " z mode " << int(zm);
}

template <typename T> void run_all() {
  for (const matgen::Csr &M : matrices()) {
    const std::vector<T> vals = M.values<T>();
    for (Op op : {Op::NoTrans, Op::Trans})
      for (ZMode zm : {ZMode::None, ZMode::Separate, ZMode::Alias}) check_apply(M, vals, op, zm, M.name);
  }
}

TEST(CsrHost, ApplyDouble) { run_all<double>(); }
TEST(CsrHost, ApplyFloat) { run_all<float>(); }

// A 4 x 3 matrix by hand, row 1 empty: [1 0 2; 0 0 0; 0 3 0; 4 5 6].
TEST(CsrHost, ByHand) {
  const std::vector<index_t> rowptr = {0, 2, 2, 3, 6}, colidx = {0, 2, 1, 0, 1, 2};
  const std::vector<double>  val    = {1, 2, 3, 4, 5, 6};
  const gpumat::CsrView<double> A{4, 3, rowptr.data(), colidx.data(), val.data()};
  const std::vector<double>  x = {1, 10, 100}, z = {0.5, 0.25, -1, 2};
  std::vector<double>        y(4, std::numeric_limits<double>::quiet_NaN());
  gpumat::csr_apply(A, Op::NoTrans, x.data(), static_cast<const double *>(nullptr), y.data());
  EXPECT_EQ(y, (std::vector<double>{201, 0, 30, 654}));
  gpumat::csr_apply(A, Op::NoTrans, x.data(), z.data(), y.data());
  EXPECT_EQ(y, (std::vector<double>{201.5, 0.25, 29, 656}));
  y = z; // in place: y = y + A x
  gpumat::csr_apply(A, Op::NoTrans, x.data(), y.data(), y.data());
  EXPECT_EQ(y, (std::vector<double>{201.5, 0.25, 29, 656}));
  const std::vector<double> xt = {1, 7, 10, 100};
  std::vector<double>       yt(3, std::numeric_limits<double>::quiet_NaN());
  gpumat::csr_apply(A, Op::Trans, xt.data(), static_cast<const double *>(nullptr), yt.data());
  EXPECT_EQ(yt, (std::vector<double>{401, 530, 602}));
}

// Matrices without rows, columns or nonzeros: y = z or 0 over the output, nothing read.
TEST(CsrHost, NoNonzeros) {
  for (const matgen::Csr &M : {matgen::no_nonzeros("empty_0x0", 0, 0), matgen::no_nonzeros("rows_7x0", 7, 0), matgen::no_nonzeros("cols_0x9", 0, 9),
                               matgen::no_nonzeros("all_empty_500x40", 500, 40)}) {
    const std::vector<double> vals;
    for (Op op : {Op::NoTrans, Op::Trans})
      for (ZMode zm : {ZMode::None, ZMode::Separate, ZMode::Alias}) check_apply(M, vals, op, zm, M.name);
  }
}

TEST(CsrHost, Bytes) {
  EXPECT_EQ(gpumat::csr_bytes(900, 4380, sizeof(double)), std::size_t(901) * 4 + std::size_t(4380) * 12);
  EXPECT_EQ(gpumat::csr_bytes(900, 4380, sizeof(float)), std::size_t(901) * 4 + std::size_t(4380) * 8);
  EXPECT_EQ(gpumat::csr_bytes(7, 0, sizeof(double)), std::size_t(8) * 4);
  EXPECT_EQ(gpumat::csr_bytes(0, 0, sizeof(double)), 0u);
}

TEST(CsrHost, Algorithms) {
  EXPECT_TRUE(gpumat::csr_alg_valid(1));
  EXPECT_TRUE(gpumat::csr_alg_valid(2));
  EXPECT_TRUE(gpumat::csr_alg_valid(gpumat::csr_default_alg));
  for (long long a : {0LL, 3LL, -1LL, 4294967297LL}) EXPECT_FALSE(gpumat::csr_alg_valid(a)) << a;
}

} // namespace
