// csrspec CUDA layer against the long-double CSR reference: every matrix of the standard set x
// parameter sets x {NoTrans, Trans} x {no z, z, y aliasing z}, in double and float; y poisoned
// with NaN before each product; determinism, refresh(), a large matrix, failure paths.
// Without a CUDA device the program exits 77 (CTest: skipped).
#include "core/csrspec.hpp"
#include "cuda/csrspec.cuh"
#include "matgen.hpp"
#include "params.hpp"
#include "device_helpers.cuh"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>

using gpumat::CsrSpecParams;
using gpumat::index_t;
using gpumat::Op;
using gpumat::cuda::CsrSpecDevice;

namespace {

using gpumat_test::ZMode;
using gpumat_test::device_apply;

#define CUDA_ASSERT(call) ASSERT_EQ(cudaSuccess, (call)) << #call

using gpumat_test::describe;
using gpumat_test::params;
using gpumat_test::tolerance;

// The host test's sets plus the other compile-time W (4) and a 512-thread block whose shared
// memory needs the opt-in.
std::vector<CsrSpecParams> param_sets() {
  std::vector<CsrSpecParams> v = gpumat_test::param_sets();
  v.push_back(params(4, 8, 2));
  v.push_back(params(16, 16, 1));
  return v;
}

using gpumat_test::DeviceArray;
using gpumat_test::Stream;


template <typename T>
void check_matrix(const matgen::Csr &M, const CsrSpecParams &p, Op op, cudaStream_t s) {
  const std::vector<T> vals = M.values<T>();
  CsrSpecDevice<T> D;
  ASSERT_EQ(cudaSuccess, D.build(M.view(vals), p, s)) << M.name << " " << describe(p);
  const bool trans = op == Op::Trans;
  const std::vector<T> x = matgen::random_vector<T>(std::size_t(trans ? M.nrows : M.ncols), 101);
  const std::vector<T> z = matgen::random_vector<T>(std::size_t(trans ? M.ncols : M.nrows), 202);
  std::vector<long double> ref, scale;
  for (ZMode zm : {ZMode::None, ZMode::Separate, ZMode::Alias}) {
    matgen::reference(M, vals, trans, x.data(), zm == ZMode::None ? nullptr : z.data(), ref, scale);
    const std::vector<T> y = device_apply(D, op, x, z, zm, s);
    ASSERT_EQ(matgen::mismatch(y, ref, scale, tolerance<T>()), "")
        << M.name << " " << describe(p) << (trans ? " Trans" : " NoTrans") << " z mode " << int(zm);
  }
}

class DeviceApply : public ::testing::TestWithParam<std::tuple<CsrSpecParams, Op>> {
protected:
  template <typename T> void run() {
    const CsrSpecParams p = gpumat::csrspec_resolve<T>(std::get<0>(GetParam()));
    const Stream s;
    for (const matgen::Csr &M : matgen::standard_set_cached(index_t(p.bunches * p.T * p.W)))
      check_matrix<T>(M, p, std::get<1>(GetParam()), s);
  }
};

TEST_P(DeviceApply, Double) { run<double>(); }
TEST_P(DeviceApply, Float) { run<float>(); }

INSTANTIATE_TEST_SUITE_P(Params, DeviceApply, ::testing::Combine(::testing::ValuesIn(param_sets()),
                                                                 ::testing::Values(Op::NoTrans, Op::Trans)),
                         gpumat_test::ParamName());

// Two no-transpose products are bitwise equal (no atomics, fixed summation order).
template <typename T> void check_deterministic() {
  const Stream s;
  for (const CsrSpecParams &q : {params(0, 0, 0), params(3, 4, 3)}) {
    const CsrSpecParams p = gpumat::csrspec_resolve<T>(q);
    for (const matgen::Csr &M : matgen::standard_set_cached(index_t(p.bunches * p.T * p.W))) {
      const std::vector<T> vals = M.values<T>();
      CsrSpecDevice<T> D;
      ASSERT_EQ(cudaSuccess, D.build(M.view(vals), p, s));
      const std::vector<T> x = matgen::random_vector<T>(std::size_t(M.ncols), 5);
      const std::vector<T> z = matgen::random_vector<T>(std::size_t(M.nrows), 6);
      const std::vector<T> y1 = device_apply(D, Op::NoTrans, x, z, ZMode::Separate, s);
      const std::vector<T> y2 = device_apply(D, Op::NoTrans, x, z, ZMode::Separate, s);
      EXPECT_TRUE(y1.empty() || std::memcmp(y1.data(), y2.data(), y1.size() * sizeof(T)) == 0)
          << M.name << " " << describe(p);
    }
  }
}
TEST(DeviceDeterminism, Double) { check_deterministic<double>(); }
TEST(DeviceDeterminism, Float) { check_deterministic<float>(); }

// refresh() replaces the values, the pattern stays.
template <typename T> void check_refresh() {
  const Stream s;
  const CsrSpecParams p = gpumat::csrspec_resolve<T>({});
  for (const matgen::Csr &M : {matgen::random_rows("random_with_empty", 4000, 3000, 1, 12, 0.15, 12), matgen::heavy_row(17)}) {
    const std::vector<T> vals = M.values<T>();
    CsrSpecDevice<T> D;
    ASSERT_EQ(cudaSuccess, D.build(M.view(vals), p, s));
    std::vector<T> fresh(vals.size());
    for (std::size_t k = 0; k < fresh.size(); ++k) fresh[k] = T(0.5) - vals[k] * T(k % 7);
    ASSERT_EQ(cudaSuccess, D.refresh(fresh.data(), s));
    const std::vector<T> x = matgen::random_vector<T>(std::size_t(M.ncols), 8);
    std::vector<long double> ref, scale;
    matgen::reference(M, fresh, false, x.data(), static_cast<const T *>(nullptr), ref, scale);
    ASSERT_EQ(matgen::mismatch(device_apply(D, Op::NoTrans, x, std::vector<T>(M.nrows), ZMode::None, s), ref, scale,
                               tolerance<T>()),
              "")
        << M.name;
    // the same values from device memory (a device COO assembly's): the same product, bit for bit
    CsrSpecDevice<T>                 E;
    const gpumat_test::DeviceArray<T> dfresh(fresh);
    ASSERT_EQ(cudaSuccess, E.build(M.view(vals), p, s));
    ASSERT_EQ(cudaSuccess, E.refresh(dfresh.p, s, gpumat::Mem::Device));
    EXPECT_EQ(device_apply(E, Op::NoTrans, x, std::vector<T>(M.nrows), ZMode::None, s), device_apply(D, Op::NoTrans, x, std::vector<T>(M.nrows), ZMode::None, s)) << M.name;
  }
}
TEST(DeviceRefresh, Double) { check_refresh<double>(); }
TEST(DeviceRefresh, Float) { check_refresh<float>(); }

// Large matrices at the default parameters: many blocks, long synchronizer runs.
template <typename T> void check_large() {
  const Stream s;
  const CsrSpecParams p = gpumat::csrspec_resolve<T>({});
  for (const matgen::Csr &M : {matgen::random_rows("random_200k", 200000, 150000, 0, 24, 0.02, 31),
                               matgen::power_law(200000, 200000, 1.2, 2.0, 150000, 32)})
    for (Op op : {Op::NoTrans, Op::Trans}) check_matrix<T>(M, p, op, s);
}
TEST(DeviceLarge, Double) { check_large<double>(); }
TEST(DeviceLarge, Float) { check_large<float>(); }

// diagonal(): every row's diagonal entry (0 where the row has none), with and without a row map.
template <typename T> void check_diagonal() {
  const Stream s;
  for (const matgen::Csr &M : matgen::standard_set_cached(512)) {
    const std::vector<T> vals = M.values<T>();
    CsrSpecDevice<T> D;
    ASSERT_EQ(cudaSuccess, D.build(M.view(vals), CsrSpecParams{}, s)) << M.name;
    gpumat_test::check_device_diagonal(M, vals, D, s, M.name);
  }
}
TEST(DeviceDiagonal, Double) { check_diagonal<double>(); }
TEST(DeviceDiagonal, Float) { check_diagonal<float>(); }

// Sizes reported, statistics agree, invalid parameters refused without effect.
TEST(DeviceObject, BytesAndInvalidParameters) {
  const Stream s;
  const matgen::Csr M            = matgen::random_rows("random_uniform", 4000, 3000, 1, 30, 0.0, 11);
  const std::vector<double> vals = M.values<double>();
  const CsrSpecParams p          = gpumat::csrspec_resolve<double>({});
  CsrSpecDevice<double> D;
  ASSERT_EQ(cudaSuccess, D.build(M.view(vals), p, s));
  EXPECT_EQ(D.aux_bytes(), gpumat::csrspec_stats(M.view(vals), p).aux_bytes);
  EXPECT_EQ(D.device_bytes(), (M.rowptr.size() + M.colidx.size()) * sizeof(index_t) + vals.size() * sizeof(double) +
                                  D.aux_bytes());
  // the user's parameters are resolved by the build itself (one wave of blocks for S = 0)
  ASSERT_EQ(cudaSuccess, D.build(M.view(vals), CsrSpecParams{}, s));
  EXPECT_EQ(D.params().W, p.W);
  EXPECT_GE(D.params().tiles_per_block, 1);
  EXPECT_EQ(cudaErrorInvalidValue, D.build(M.view(vals), params(65, 1, 1), s));
  EXPECT_EQ(D.device_bytes(), 0u);
  D.release();
  EXPECT_EQ(D.device_bytes(), 0u);
  EXPECT_EQ(cudaSuccess, cudaStreamSynchronize(s));
}

} // namespace
