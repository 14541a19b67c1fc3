// cusparsesell CUDA layer: the bytes reported. The layout built on the GPU against the host
// builder's (slice offsets, column indices, slot map, values) and cuSPARSE's products (SELL_ALG1)
// for every slice size on the standard set and large matrices, the refresh, the diagonal, refusals
// and release are the typed suite's (test_formats_cuda.cu).
// Without a CUDA device the program exits 77 (CTest: skipped; main() is in test_rowmap_cuda.cu).
#include "core/cusparsesell.hpp"
#include "cuda/cusparsesell.cuh"
#include "format_traits_cuda.cuh"
#include "matgen.hpp"

#include <gtest/gtest.h>

#include <cstdio>

using gpumat::index_t;
using gpumat::cuda::SellDevice;
using gpumat_test::Stream;

namespace {

// Bytes reported: the layout's, the slot map and staging of the refresh, cuSPARSE's buffer.
TEST(SellDevice, Bytes) {
  const Stream              s;
  const matgen::Csr         M    = matgen::random_rows("random_uniform", 4000, 3000, 1, 30, 0.0, 11);
  const std::vector<double> vals = M.values<double>();
  SellDevice<double>        D;
  ASSERT_EQ(cudaSuccess, D.build(M.view(vals), 32, s)) << gpumat_test::cusparse_failure(D);
  const gpumat::SellStats st = gpumat::sell_stats(M.view(vals), 32);
  EXPECT_EQ(D.device_bytes(), st.layout_bytes(sizeof(double)) + std::size_t(M.nnz()) * (sizeof(index_t) + sizeof(double)) + D.buffer_bytes());
  std::printf("[ info ] cuSPARSE SELL_ALG1: SpMV buffer %zu bytes, preprocess %s\n", D.buffer_bytes(), D.preprocessed() ? "supported" : "not supported");
  EXPECT_EQ(cudaSuccess, cudaStreamSynchronize(s));
}

} // namespace
