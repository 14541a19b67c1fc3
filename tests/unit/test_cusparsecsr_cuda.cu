// cusparsecsr CUDA layer: refresh keeps the descriptor, its buffer and its preprocessing; bytes
// and buffers, rebuilds and refused algorithms. The arrays stored on the GPU (the CSR as given) and
// cuSPARSE's products (CSR_ALG1 and CSR_ALG2) against the long-double CSR reference and the host
// reference (csr_apply) on the standard set and large matrices, the refresh, the diagonal, refusals
// and release are the typed suite's (test_formats_cuda.cu). Without a CUDA device the program exits
// 77 (CTest: skipped; main() is in test_rowmap_cuda.cu).
#include "core/cusparsecsr.hpp"
#include "cuda/cusparsecsr.cuh"
#include "device_helpers.cuh"
#include "format_traits_cuda.cuh"
#include "matgen.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

using gpumat::index_t;
using gpumat::Op;
using gpumat::cuda::CusparseCsrDevice;
using gpumat_test::Stream;
using gpumat_test::tolerance;
using gpumat_test::ZMode;

namespace {

const int kAlgs[] = {1, 2};

// refresh() from host and from device memory keeps the descriptor, its buffer and its
// preprocessing: the same bytes held (the values stored and the products: the typed suite's
// RefreshEqualsRebuild).
template <typename T> void check_refresh_keeps_the_descriptor() {
  const Stream s;
  for (int alg : kAlgs)
    for (const matgen::Csr &M : {matgen::random_rows("random_with_empty", 4000, 3000, 1, 12, 0.15, 12), matgen::heavy_row(17), matgen::no_nonzeros("all_empty", 50, 40)}) {
      const std::string    what = M.name + " alg " + std::to_string(alg);
      const std::vector<T> vals = M.values<T>();
      CusparseCsrDevice<T> D;
      ASSERT_EQ(cudaSuccess, D.build(M.view(vals), alg, s)) << what << " " << gpumat_test::cusparse_failure(D);
      const std::size_t bytes = D.device_bytes(), buffer = D.buffer_bytes();
      const bool        pre   = D.preprocessed();
      std::vector<T>    fresh(vals.size());
      for (std::size_t k = 0; k < fresh.size(); ++k) fresh[k] = T(0.5) - vals[k] * T(k % 7);
      ASSERT_EQ(cudaSuccess, D.refresh(fresh.data(), s)) << what;
      const gpumat_test::DeviceArray<T> dfresh(fresh);
      ASSERT_EQ(cudaSuccess, D.refresh(dfresh.p, s, gpumat::Mem::Device)) << what;
      ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(s)) << what;
      EXPECT_EQ(D.device_bytes(), bytes) << what;
      EXPECT_EQ(D.buffer_bytes(), buffer) << what;
      EXPECT_EQ(D.preprocessed(), pre) << what;
    }
}
TEST(CusparseCsrDevice, RefreshKeepsTheDescriptorDouble) { check_refresh_keeps_the_descriptor<double>(); }
TEST(CusparseCsrDevice, RefreshKeepsTheDescriptorFloat) { check_refresh_keeps_the_descriptor<float>(); }

// Bytes and buffers reported; a rebuild replaces the content (another pattern, the other
// algorithm); a refused algorithm names no failed cuSPARSE call (the refusals themselves and
// release: the typed suite's RefusalsAndRelease).
TEST(CusparseCsrDevice, BytesRebuildAndRefusals) {
  const Stream              s;
  const matgen::Csr         M    = matgen::random_rows("random_uniform", 4000, 3000, 1, 30, 0.0, 11);
  const std::vector<double> vals = M.values<double>();
  CusparseCsrDevice<double> D;
  for (int alg : kAlgs) {
    ASSERT_EQ(cudaSuccess, D.build(M.view(vals), alg, s)) << gpumat_test::cusparse_failure(D);
    EXPECT_EQ(D.device_bytes(), gpumat::csr_bytes(M.nrows, M.nnz(), sizeof(double)) + D.buffer_bytes());
    std::printf("[ info ] cuSPARSE CSR_ALG%d: SpMV buffer %zu bytes, preprocess %s\n", alg, D.buffer_bytes(), D.preprocessed() ? "supported" : "not supported");
  }
  const matgen::Csr         P     = matgen::power_law(20000, 20000, 1.2, 2.0, 5000, 23);
  const std::vector<double> pvals = P.values<double>();
  ASSERT_EQ(cudaSuccess, D.build(P.view(pvals), 1, s)) << gpumat_test::cusparse_failure(D);
  const std::vector<double> x = matgen::random_vector<double>(std::size_t(P.ncols), 5);
  std::vector<long double>  ref, scale;
  matgen::reference(P, pvals, false, x.data(), static_cast<const double *>(nullptr), ref, scale);
  ASSERT_EQ(matgen::mismatch(gpumat_test::device_apply(D, Op::NoTrans, x, std::vector<double>(std::size_t(P.nrows)), ZMode::None, s), ref, scale, tolerance<double>()), "");
  EXPECT_EQ(D.device_bytes(), gpumat::csr_bytes(P.nrows, P.nnz(), sizeof(double)) + D.buffer_bytes());
  for (int alg : {0, 3, -1}) {
    EXPECT_EQ(cudaErrorInvalidValue, D.build(M.view(vals), alg, s)) << alg;
    EXPECT_EQ(D.failed_call(), nullptr) << alg;
  }
  EXPECT_EQ(cudaSuccess, cudaStreamSynchronize(s));
}

} // namespace
