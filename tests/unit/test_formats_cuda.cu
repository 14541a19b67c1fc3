// The scenarios every format's device class shares, as one typed suite over the registered formats
// (format_traits_cuda.cuh) in double and float, y poisoned with NaN before each product:
// - Products: every variant on its matrices: the layout against the host builder's, and
//   y = op(A) x (+ z), z absent, separate and aliasing y, against the long-double CSR reference
//   (y = A x alone where the class has no transpose, which it must refuse).
// - EmptyAndSmall, Large: the same at the default variants on matrices without rows, columns or
//   nonzeros, with runs of empty rows, of a single entry, row or column; on matrices of 200,000
//   rows and more.
// - RefreshEqualsRebuild: new values from host memory and from device memory store what a build
//   from them stores, and give their products.
// - BuildFromDeviceCsr: where the class builds from a CSR already on the device (a device product's
//   result), that build's layout is the host builder's and its products are right, at every variant.
// - Diagonal: every row's diagonal entry, with and without a row map, nothing else written.
// - RefusalsAndRelease: invalid variants refused with nothing held; release frees everything.
// The formats' own tests (test_<format>_cuda.cu) hold what is theirs alone. Without a CUDA device
// the program exits 77 (CTest: skipped; main() is in test_rowmap_cuda.cu).
#include "device_helpers.cuh"
#include "format_traits_cuda.cuh"
#include "matgen.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using gpumat::index_t;
using gpumat_test::DeviceArray;
using gpumat_test::Stream;

namespace {

template <typename C> class FormatDevice : public ::testing::Test {
public:
  using D      = gpumat_test::DeviceTraits<typename C::tag>;
  using T      = typename C::value_type;
  using Device = typename D::template Device<T>;
};
TYPED_TEST_SUITE(FormatDevice, gpumat_test::FormatCases, gpumat_test::FormatCaseName);

// M built on the device with variant v: its layout against the host builder's, and its products.
template <typename D, typename T> void check_build(const matgen::Csr &M, const typename D::Variant &v, cudaStream_t s) {
  const std::vector<T>           vals  = M.values<T>();
  const std::string              where = M.name + " " + D::describe(v);
  typename D::template Device<T> dev;
  ASSERT_EQ(cudaSuccess, dev.build(M.view(vals), v, s)) << where << ": " << dev.failure();
  dev.check(M, vals, v, s, where);
  gpumat_test::check_device_products(M, vals, dev, s, where + " " + dev.failure(), D::transpose);
}

TYPED_TEST(FormatDevice, Products) {
  using D = typename TestFixture::D;
  using T = typename TestFixture::T;
  const Stream s;
  for (const typename D::Variant &v : D::template variants<T>())
    for (const matgen::Csr &M : D::matrices(v)) {
      check_build<D, T>(M, v, s);
      if (this->HasFatalFailure()) return;
    }
}

TYPED_TEST(FormatDevice, EmptyAndSmall) {
  using D = typename TestFixture::D;
  using T = typename TestFixture::T;
  const Stream s;
  for (const typename D::Variant &v : D::template default_variants<T>())
    for (const matgen::Csr &M : gpumat_test::empty_and_small_matrices()) {
      check_build<D, T>(M, v, s);
      if (this->HasFatalFailure()) return;
    }
}

// Many blocks and long synchronizer runs: uniform random rows, a power law with rows up to 150,000
// entries, a 2D stencil.
const std::vector<matgen::Csr> &large_matrices() {
  static const std::vector<matgen::Csr> m = {matgen::random_rows("random_200k", 200000, 150000, 0, 24, 0.02, 31),
                                             matgen::power_law(200000, 200000, 1.2, 2.0, 150000, 32), matgen::stencil_2d(700, 500)};
  return m;
}

TYPED_TEST(FormatDevice, Large) {
  using D = typename TestFixture::D;
  using T = typename TestFixture::T;
  const Stream s;
  for (const typename D::Variant &v : D::template default_variants<T>())
    for (const matgen::Csr &M : large_matrices()) {
      check_build<D, T>(M, v, s);
      if (this->HasFatalFailure()) return;
    }
}

// refresh() with new values from host memory stores what a build from them stores, part by part
// (a case exercises every part: the long rows' too where the format has them), and gives the new
// products; from device memory (a device COO assembly's values) it stores the same.
TYPED_TEST(FormatDevice, RefreshEqualsRebuild) {
  using D      = typename TestFixture::D;
  using T      = typename TestFixture::T;
  using Device = typename TestFixture::Device;
  const Stream s;
  for (const auto &c : D::refresh_cases()) {
    const matgen::Csr   &M    = c.M;
    const std::vector<T> vals = M.values<T>();
    std::vector<T>       fresh(vals.size());
    for (std::size_t k = 0; k < fresh.size(); ++k) fresh[k] = T(0.5) - vals[k] * T(k % 7);
    const std::string where = M.name + " " + D::describe(c.v) + " refreshed";
    Device            H, E;
    ASSERT_EQ(cudaSuccess, H.build(M.view(vals), c.v, s)) << where << ": " << H.failure();
    ASSERT_EQ(cudaSuccess, H.refresh(fresh.data(), s)) << where;
    ASSERT_EQ(cudaSuccess, E.build(M.view(fresh), c.v, s)) << where << ": " << E.failure();
    std::vector<std::vector<T>> got, want;
    ASSERT_EQ(cudaSuccess, H.stored(got, s)) << where;
    ASSERT_EQ(cudaSuccess, E.stored(want, s)) << where;
    ASSERT_EQ(got.size(), want.size()) << where;
    for (std::size_t i = 0; i < want.size(); ++i) {
      EXPECT_TRUE(gpumat_test::same_values(got[i], want[i])) << where << ": part " << i;
      if (M.nnz() > 0) {
        EXPECT_FALSE(want[i].empty()) << where << ": part " << i << " holds nothing, the case does not exercise it";
      }
    }
    gpumat_test::check_device_products(M, fresh, H, s, where, D::transpose);
    Device               F;
    const DeviceArray<T> dfresh(fresh);
    ASSERT_EQ(cudaSuccess, F.build(M.view(vals), c.v, s)) << where << ": " << F.failure();
    ASSERT_EQ(cudaSuccess, F.refresh(dfresh.p, s, gpumat::Mem::Device)) << where;
    ASSERT_EQ(cudaSuccess, F.stored(got, s)) << where;
    ASSERT_EQ(got.size(), want.size()) << where;
    for (std::size_t i = 0; i < want.size(); ++i) EXPECT_TRUE(gpumat_test::same_values(got[i], want[i])) << where << " from device memory: part " << i;
    if (this->HasFatalFailure()) return;
  }
}

TYPED_TEST(FormatDevice, BuildFromDeviceCsr) {
  using D      = typename TestFixture::D;
  using T      = typename TestFixture::T;
  using Device = typename TestFixture::Device;
  if constexpr (!D::device_csr_build) {
    GTEST_SKIP() << "the format builds from host arrays only";
  } else {
    const Stream                   s;
    const std::vector<matgen::Csr> small = gpumat_test::empty_and_small_matrices();
    for (const typename D::Variant &v : D::template variants<T>()) {
      std::vector<const matgen::Csr *> ms;
      for (const matgen::Csr &M : D::matrices(v)) ms.push_back(&M);
      for (const matgen::Csr &M : small) ms.push_back(&M);
      for (const matgen::Csr *M : ms) {
        const std::vector<T>       vals  = M->values<T>();
        const std::string          where = M->name + " " + D::describe(v) + " from a device CSR";
        gpumat::cuda::DeviceCsr<T> csr;
        ASSERT_EQ(cudaSuccess, csr.upload(M->view(vals), s)) << where;
        Device dev;
        ASSERT_EQ(cudaSuccess, dev.build(csr.view(), v, s)) << where << ": " << dev.failure();
        csr.release(); // the build holds copies of its own
        dev.check(*M, vals, v, s, where);
        gpumat_test::check_device_products(*M, vals, dev, s, where + " " + dev.failure(), D::transpose);
        if (this->HasFatalFailure()) return;
      }
    }
  }
}

// The standard set and rows of the long part holding their diagonal entry (full rows).
const std::vector<matgen::Csr> &diagonal_matrices() {
  static const std::vector<matgen::Csr> m = [] {
    std::vector<matgen::Csr> v = matgen::standard_set_cached(512);
    std::vector<index_t>     len(3000, 4);
    len[5] = len[2000] = 3000;
    v.push_back(matgen::from_lengths("long_diag", 3000, len, 45));
    return v;
  }();
  return m;
}

TYPED_TEST(FormatDevice, Diagonal) {
  using D      = typename TestFixture::D;
  using T      = typename TestFixture::T;
  using Device = typename TestFixture::Device;
  const Stream s;
  for (const typename D::Variant &v : D::diagonal_variants())
    for (const matgen::Csr &M : diagonal_matrices()) {
      const std::vector<T> vals  = M.values<T>();
      const std::string    where = M.name + " " + D::describe(v);
      Device               dev;
      ASSERT_EQ(cudaSuccess, dev.build(M.view(vals), v, s)) << where << ": " << dev.failure();
      gpumat_test::check_device_diagonal(M, vals, dev, s, where);
      if (this->HasFatalFailure()) return;
    }
}

// An invalid variant is refused with cudaErrorInvalidValue and leaves nothing held, by a new
// object and by one that held a build; release() frees everything (twice is harmless) and the
// object builds again.
TYPED_TEST(FormatDevice, RefusalsAndRelease) {
  using D      = typename TestFixture::D;
  using T      = typename TestFixture::T;
  using Device = typename TestFixture::Device;
  const Stream                s;
  const matgen::Csr           M    = matgen::random_rows("random_uniform", 4000, 3000, 1, 30, 0.0, 11);
  const std::vector<T>        vals = M.values<T>();
  const typename D::Variant   good = D::template default_variants<T>().front();
  for (const typename D::Variant &bad : D::invalid_variants()) {
    const std::string where = D::describe(bad);
    Device            fresh, built;
    EXPECT_EQ(cudaErrorInvalidValue, fresh.build(M.view(vals), bad, s)) << where;
    EXPECT_EQ(fresh.device_bytes(), 0u) << where;
    ASSERT_EQ(cudaSuccess, built.build(M.view(vals), good, s)) << built.failure();
    EXPECT_GT(built.device_bytes(), 0u);
    EXPECT_EQ(cudaErrorInvalidValue, built.build(M.view(vals), bad, s)) << where;
    EXPECT_EQ(built.device_bytes(), 0u) << where;
  }
  Device dev;
  ASSERT_EQ(cudaSuccess, dev.build(M.view(vals), good, s)) << dev.failure();
  EXPECT_GT(dev.device_bytes(), 0u);
  dev.release();
  EXPECT_EQ(dev.device_bytes(), 0u);
  dev.release();
  EXPECT_EQ(dev.device_bytes(), 0u);
  ASSERT_EQ(cudaSuccess, dev.build(M.view(vals), good, s)) << dev.failure();
  gpumat_test::check_device_products(M, vals, dev, s, M.name + " built after a release", D::transpose);
  EXPECT_EQ(cudaSuccess, cudaStreamSynchronize(s));
}

} // namespace
