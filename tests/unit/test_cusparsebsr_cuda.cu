// cusparsebsr CUDA layer: the layout built on the GPU equals the host builder's (block row pointer,
// block columns, slot map, values) for the standard set x block sizes x both block orders;
// cuSPARSE's products (BSR_ALG1) against the long-double CSR reference with z absent, separate and
// aliasing y, in double and float, y poisoned with NaN, rows and columns not divisible by bs
// (padded copies of x and y); refresh, diagonal, bytes, refusals.
// Without a CUDA device the program exits 77 (CTest: skipped; main() is in test_rowmap_cuda.cu).
#include "core/cusparsebsr.hpp"
#include "cuda/cusparsebsr.cuh"
#include "device_helpers.cuh"
#include "matgen.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

using gpumat::BsrHost;
using gpumat::BsrLayout;
using gpumat::index_t;
using gpumat::Op;
using gpumat::cuda::BsrDevice;
using gpumat_test::DeviceArray;
using gpumat_test::Stream;
using gpumat_test::tolerance;
using gpumat_test::ZMode;

namespace {

template <typename Device> std::string failure(const Device &D) { return D.failed_call() ? std::string(D.failed_call()) + ": " + D.failed_status() : std::string(); }

template <typename T>
void check_matrix(const matgen::Csr &M, int bs, bool row_major, cudaStream_t s) {
  const std::vector<T> vals = M.values<T>();
  const std::string    what = M.name + " bs " + std::to_string(bs) + (row_major ? " row-major" : " column-major");
  BsrDevice<T>         D;
  ASSERT_EQ(cudaSuccess, D.build(M.view(vals), bs, row_major, s)) << what << " " << failure(D);
  // the GPU's layout is the host builder's
  BsrHost<T> H;
  H.build(M.view(vals), bs, row_major);
  BsrLayout      L;
  std::vector<T> dv;
  ASSERT_EQ(cudaSuccess, D.download(L, dv)) << what;
  EXPECT_EQ(L.rowptr, H.layout().rowptr) << what;
  EXPECT_EQ(L.colidx, H.layout().colidx) << what;
  EXPECT_EQ(L.slot, H.layout().slot) << what;
  EXPECT_EQ(dv, H.values()) << what;
  EXPECT_EQ(D.padded_x(), M.nnz() > 0 && M.ncols % bs != 0) << what;
  EXPECT_EQ(D.padded_y(), M.nnz() > 0 && M.nrows % bs != 0) << what;
  // cuSPARSE's products
  const std::vector<T> x = matgen::random_vector<T>(std::size_t(M.ncols), 101);
  const std::vector<T> z = matgen::random_vector<T>(std::size_t(M.nrows), 202);
  std::vector<long double> ref, scale;
  for (ZMode zm : {ZMode::None, ZMode::Separate, ZMode::Alias}) {
    matgen::reference(M, vals, false, x.data(), zm == ZMode::None ? nullptr : z.data(), ref, scale);
    const std::vector<T> y = gpumat_test::device_apply(D, Op::NoTrans, x, z, zm, s);
    ASSERT_EQ(matgen::mismatch(y, ref, scale, tolerance<T>()), "") << what << " z mode " << int(zm) << " " << failure(D);
  }
  cudaError_t st = cudaSuccess;
  (void)gpumat_test::device_apply(D, Op::Trans, std::vector<T>(std::size_t(M.nrows), T(1)), std::vector<T>(std::size_t(M.ncols)), ZMode::None, s, &st);
  EXPECT_EQ(st, cudaErrorNotSupported) << what;
}

template <typename T> void run_standard(std::initializer_list<int> sizes) {
  const Stream s;
  for (int bs : sizes)
    for (bool row_major : {false, true})
      for (const matgen::Csr &M : matgen::standard_set_cached(512)) check_matrix<T>(M, bs, row_major, s);
}
TEST(BsrDevice, StandardSetDouble) { run_standard<double>({2, 3, 5, 7}); }
TEST(BsrDevice, StandardSetFloat) { run_standard<float>({2, 4}); }

// Block matrices at their own block size and others, the largest block size, a large stencil.
TEST(BsrDevice, BlockMatrices) {
  const Stream s;
  for (const matgen::Csr &M : {matgen::dense_blocks(500, 3, 6, 8), matgen::dense_blocks(300, 6, 5, 9), matgen::from_lengths("small", 40, {3, 0, 7, 1, 40, 2, 0, 0, 5, 1, 1, 9, 2, 2, 3, 4, 5}, 7)})
    for (int bs : {3, 6, 4, gpumat::bsr_max_bs})
      for (bool row_major : {false, true}) check_matrix<double>(M, bs, row_major, s);
  check_matrix<double>(matgen::stencil_2d(700, 500), 2, false, s);
}

template <typename T> void check_refresh() {
  const Stream s;
  for (const matgen::Csr &M : {matgen::random_rows("random_with_empty", 4001, 3001, 1, 12, 0.15, 12), matgen::dense_blocks(200, 3, 4, 3)}) {
    const std::vector<T> vals = M.values<T>();
    BsrDevice<T>         D;
    ASSERT_EQ(cudaSuccess, D.build(M.view(vals), 3, false, s)) << failure(D);
    std::vector<T> fresh(vals.size());
    for (std::size_t k = 0; k < fresh.size(); ++k) fresh[k] = T(0.5) - vals[k] * T(k % 7);
    ASSERT_EQ(cudaSuccess, D.refresh(fresh.data(), s));
    const std::vector<T>     x = matgen::random_vector<T>(std::size_t(M.ncols), 8);
    std::vector<long double> ref, scale;
    matgen::reference(M, fresh, false, x.data(), static_cast<const T *>(nullptr), ref, scale);
    ASSERT_EQ(matgen::mismatch(gpumat_test::device_apply(D, Op::NoTrans, x, std::vector<T>(std::size_t(M.nrows)), ZMode::None, s), ref, scale, tolerance<T>()), "") << M.name;
    // the same values from device memory (a device COO assembly's): scattered in place, the same product
    BsrDevice<T>                      E;
    const gpumat_test::DeviceArray<T> dfresh(fresh);
    ASSERT_EQ(cudaSuccess, E.build(M.view(vals), 3, false, s)) << failure(E);
    ASSERT_EQ(cudaSuccess, E.refresh(dfresh.p, s, gpumat::Mem::Device));
    EXPECT_EQ(gpumat_test::device_apply(E, Op::NoTrans, x, std::vector<T>(std::size_t(M.nrows)), ZMode::None, s), gpumat_test::device_apply(D, Op::NoTrans, x, std::vector<T>(std::size_t(M.nrows)), ZMode::None, s)) << M.name;
  }
}
TEST(BsrDevice, RefreshDouble) { check_refresh<double>(); }
TEST(BsrDevice, RefreshFloat) { check_refresh<float>(); }

// diagonal(): every row's diagonal entry (0 where the row has none), with and without a row map.
TEST(BsrDevice, Diagonal) {
  const Stream s;
  for (int bs : {2, 3})
    for (bool row_major : {false, true})
      for (const matgen::Csr &M : matgen::standard_set_cached(512)) {
        const std::vector<double> vals = M.values<double>();
        BsrDevice<double>         D;
        ASSERT_EQ(cudaSuccess, D.build(M.view(vals), bs, row_major, s)) << M.name << " " << failure(D);
        gpumat_test::check_device_diagonal(M, vals, D, s, M.name + " bs " + std::to_string(bs));
      }
}

// Bytes reported (the core layer's model + cuSPARSE's buffer), invalid block sizes refused.
TEST(BsrDevice, BytesAndRefusals) {
  const Stream s;
  for (const matgen::Csr &M : {matgen::random_rows("random_uniform", 4000, 3000, 1, 30, 0.0, 11), matgen::random_rows("odd", 4001, 3001, 1, 30, 0.0, 12)}) {
    const std::vector<double> vals = M.values<double>();
    BsrDevice<double>         D;
    ASSERT_EQ(cudaSuccess, D.build(M.view(vals), 3, false, s)) << failure(D);
    EXPECT_EQ(D.device_bytes(), gpumat::bsr_bytes(M.nrows, M.ncols, M.nnz(), gpumat::bsr_block_count(M.view(vals), 3), 3, sizeof(double)) + D.buffer_bytes()) << M.name;
    std::printf("[ info ] cuSPARSE BSR_ALG1 (%s): SpMV buffer %zu bytes, preprocess %s\n", M.name.c_str(), D.buffer_bytes(), D.preprocessed() ? "supported" : "not supported");
    for (int bs : {1, gpumat::bsr_max_bs + 1}) {
      EXPECT_EQ(cudaErrorInvalidValue, D.build(M.view(vals), bs, false, s)) << bs;
      EXPECT_EQ(D.device_bytes(), 0u);
    }
    D.release();
    EXPECT_EQ(D.device_bytes(), 0u);
  }
  EXPECT_EQ(cudaSuccess, cudaStreamSynchronize(s));
}

} // namespace
