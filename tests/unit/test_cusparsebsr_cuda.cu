// cusparsebsr CUDA layer: block matrices at their own block size and others, the largest block
// size, a large stencil; the bytes reported. The layout built on the GPU against the host
// builder's (block row pointer, block columns, slot map, values) and cuSPARSE's products
// (BSR_ALG1, rows and columns not divisible by bs: padded copies of x and y) on the standard set x
// block sizes x both block orders, the refresh, the diagonal, refusals and release are the typed
// suite's (test_formats_cuda.cu).
// Without a CUDA device the program exits 77 (CTest: skipped; main() is in test_rowmap_cuda.cu).
#include "core/cusparsebsr.hpp"
#include "cuda/cusparsebsr.cuh"
#include "device_helpers.cuh"
#include "format_traits_cuda.cuh"
#include "matgen.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

using gpumat::index_t;
using gpumat::cuda::BsrDevice;
using gpumat_test::Stream;

namespace {

// The layout against the host builder's and cuSPARSE's products.
void check_matrix(const matgen::Csr &M, int bs, bool row_major, cudaStream_t s) {
  const std::vector<double> vals = M.values<double>();
  const std::string         what = M.name + " bs " + std::to_string(bs) + (row_major ? " row-major" : " column-major");
  BsrDevice<double>         D;
  ASSERT_EQ(cudaSuccess, D.build(M.view(vals), bs, row_major, s)) << what << " " << gpumat_test::cusparse_failure(D);
  gpumat_test::check_bsr_device_layout(M, vals, bs, row_major, D, what);
  gpumat_test::check_device_products(M, vals, D, s, what + " " + gpumat_test::cusparse_failure(D), false);
}

// Block matrices at their own block size and others, the largest block size, a large stencil.
TEST(BsrDevice, BlockMatrices) {
  const Stream s;
  for (const matgen::Csr &M : {matgen::dense_blocks(500, 3, 6, 8), matgen::dense_blocks(300, 6, 5, 9), matgen::from_lengths("small", 40, {3, 0, 7, 1, 40, 2, 0, 0, 5, 1, 1, 9, 2, 2, 3, 4, 5}, 7)})
    for (int bs : {3, 6, 4, gpumat::bsr_max_bs})
      for (bool row_major : {false, true}) check_matrix(M, bs, row_major, s);
  check_matrix(matgen::stencil_2d(700, 500), 2, false, s);
}

// Bytes reported: the core layer's model and cuSPARSE's buffer (refusals and release: the typed
// suite's RefusalsAndRelease).
TEST(BsrDevice, Bytes) {
  const Stream s;
  for (const matgen::Csr &M : {matgen::random_rows("random_uniform", 4000, 3000, 1, 30, 0.0, 11), matgen::random_rows("odd", 4001, 3001, 1, 30, 0.0, 12)}) {
    const std::vector<double> vals = M.values<double>();
    BsrDevice<double>         D;
    ASSERT_EQ(cudaSuccess, D.build(M.view(vals), 3, false, s)) << gpumat_test::cusparse_failure(D);
    EXPECT_EQ(D.device_bytes(), gpumat::bsr_bytes(M.nrows, M.ncols, M.nnz(), gpumat::bsr_block_count(M.view(vals), 3), 3, sizeof(double)) + D.buffer_bytes()) << M.name;
    std::printf("[ info ] cuSPARSE BSR_ALG1 (%s): SpMV buffer %zu bytes, preprocess %s\n", M.name.c_str(), D.buffer_bytes(), D.preprocessed() ? "supported" : "not supported");
  }
  EXPECT_EQ(cudaSuccess, cudaStreamSynchronize(s));
}

} // namespace
