// cusparsecsr host layer: a product by hand, the device bytes and the algorithm numbers accepted.
// The reference product over the CSR view on the standard set (both ops, z absent, separate and
// aliasing y) and on matrices without rows, columns or nonzeros is the typed suite's
// (test_formats_host.cpp).
#include "core/cusparsecsr.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

using gpumat::index_t;
using gpumat::Op;

namespace {

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
