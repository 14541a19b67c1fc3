// csrspec CUDA layer: two products are bitwise equal; the bytes and statistics reported, the
// parameters resolved by the build. The products over the parameter sets on the standard set, the
// refresh, large matrices, the diagonal and the refusals are the typed suite's
// (test_formats_cuda.cu). Without a CUDA device the program exits 77 (CTest: skipped).
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

using gpumat_test::Stream;

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

// Sizes reported, statistics agree, the user's parameters resolved by the build (refusals and
// release: the typed suite's RefusalsAndRelease).
TEST(DeviceObject, BytesAndParameters) {
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
  EXPECT_EQ(cudaSuccess, cudaStreamSynchronize(s));
}

} // namespace
