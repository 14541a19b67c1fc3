// cusparsesell CUDA layer: the layout built on the GPU equals the host builder's (slice offsets,
// column indices, slot map, values) for every matrix of the standard set x slice sizes; cuSPARSE's
// products (SELL_ALG1) against the long-double CSR reference with z absent, separate and aliasing
// y, in double and float, y poisoned with NaN; refresh, diagonal, bytes, a large matrix, refusals.
// Every slice size of the accepted range that is tested must be accepted by cuSPARSE: a failure
// here names the cuSPARSE call and status (then narrow sell_max_slice / sell_min_slice).
// Without a CUDA device the program exits 77 (CTest: skipped; main() is in test_rowmap_cuda.cu).
#include "core/cusparsesell.hpp"
#include "cuda/cusparsesell.cuh"
#include "device_helpers.cuh"
#include "matgen.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

using gpumat::index_t;
using gpumat::Op;
using gpumat::SellHost;
using gpumat::SellLayout;
using gpumat::cuda::SellDevice;
using gpumat_test::DeviceArray;
using gpumat_test::Stream;
using gpumat_test::tolerance;
using gpumat_test::ZMode;

namespace {

template <typename Device> std::string failure(const Device &D) { return D.failed_call() ? std::string(D.failed_call()) + ": " + D.failed_status() : std::string(); }

template <typename T>
void check_matrix(const matgen::Csr &M, int S, cudaStream_t s) {
  const std::vector<T> vals = M.values<T>();
  const std::string    what = M.name + " slice " + std::to_string(S);
  SellDevice<T>        D;
  ASSERT_EQ(cudaSuccess, D.build(M.view(vals), S, s)) << what << " " << failure(D);
  // the GPU's layout is the host builder's
  SellHost<T> H;
  H.build(M.view(vals), S);
  SellLayout     L;
  std::vector<T> dv;
  ASSERT_EQ(cudaSuccess, D.download(L, dv)) << what;
  EXPECT_EQ(L.slice_offsets, H.layout().slice_offsets) << what;
  EXPECT_EQ(L.colidx, H.layout().colidx) << what;
  EXPECT_EQ(L.slot, H.layout().slot) << what;
  EXPECT_EQ(dv, H.values()) << what;
  EXPECT_EQ(D.padded(), H.layout().padded()) << what;
  // cuSPARSE's products
  const std::vector<T> x = matgen::random_vector<T>(std::size_t(M.ncols), 101);
  const std::vector<T> z = matgen::random_vector<T>(std::size_t(M.nrows), 202);
  std::vector<long double> ref, scale;
  for (ZMode zm : {ZMode::None, ZMode::Separate, ZMode::Alias}) {
    matgen::reference(M, vals, false, x.data(), zm == ZMode::None ? nullptr : z.data(), ref, scale);
    const std::vector<T> y = gpumat_test::device_apply(D, Op::NoTrans, x, z, zm, s);
    ASSERT_EQ(matgen::mismatch(y, ref, scale, tolerance<T>()), "") << what << " z mode " << int(zm) << " " << failure(D);
  }
  // no device transpose
  cudaError_t st = cudaSuccess;
  (void)gpumat_test::device_apply(D, Op::Trans, std::vector<T>(std::size_t(M.nrows), T(1)), std::vector<T>(std::size_t(M.ncols)), ZMode::None, s, &st);
  EXPECT_EQ(st, cudaErrorNotSupported) << what;
}

const int kSlices[] = {1, 2, 3, 7, 16, 32, 64, 128, 1024};

template <typename T> void run_standard() {
  const Stream s;
  for (int S : kSlices)
    for (const matgen::Csr &M : matgen::standard_set_cached(512)) check_matrix<T>(M, S, s);
}
TEST(SellDevice, StandardSetDouble) { run_standard<double>(); }
TEST(SellDevice, StandardSetFloat) { run_standard<float>(); }

TEST(SellDevice, Large) {
  const Stream s;
  for (const matgen::Csr &M : {matgen::random_rows("random_200k", 200000, 150000, 0, 24, 0.02, 31), matgen::stencil_2d(700, 500)})
    check_matrix<double>(M, gpumat::sell_default_slice, s);
}

template <typename T> void check_refresh() {
  const Stream s;
  for (const matgen::Csr &M : {matgen::random_rows("random_with_empty", 4000, 3000, 1, 12, 0.15, 12), matgen::heavy_row(17)}) {
    const std::vector<T> vals = M.values<T>();
    SellDevice<T>        D;
    ASSERT_EQ(cudaSuccess, D.build(M.view(vals), 32, s)) << failure(D);
    std::vector<T> fresh(vals.size());
    for (std::size_t k = 0; k < fresh.size(); ++k) fresh[k] = T(0.5) - vals[k] * T(k % 7);
    ASSERT_EQ(cudaSuccess, D.refresh(fresh.data(), s));
    const std::vector<T>     x = matgen::random_vector<T>(std::size_t(M.ncols), 8);
    std::vector<long double> ref, scale;
    matgen::reference(M, fresh, false, x.data(), static_cast<const T *>(nullptr), ref, scale);
    ASSERT_EQ(matgen::mismatch(gpumat_test::device_apply(D, Op::NoTrans, x, std::vector<T>(std::size_t(M.nrows)), ZMode::None, s), ref, scale, tolerance<T>()), "") << M.name;
    // the same values from device memory (a device COO assembly's): scattered in place, the same product
    SellDevice<T>                     E;
    const gpumat_test::DeviceArray<T> dfresh(fresh);
    ASSERT_EQ(cudaSuccess, E.build(M.view(vals), 32, s)) << failure(E);
    ASSERT_EQ(cudaSuccess, E.refresh(dfresh.p, s, gpumat::Mem::Device));
    EXPECT_EQ(gpumat_test::device_apply(E, Op::NoTrans, x, std::vector<T>(std::size_t(M.nrows)), ZMode::None, s), gpumat_test::device_apply(D, Op::NoTrans, x, std::vector<T>(std::size_t(M.nrows)), ZMode::None, s)) << M.name;
  }
}
TEST(SellDevice, RefreshDouble) { check_refresh<double>(); }
TEST(SellDevice, RefreshFloat) { check_refresh<float>(); }

// diagonal(): every row's diagonal entry (0 where the row has none), with and without a row map.
TEST(SellDevice, Diagonal) {
  const Stream s;
  for (int S : {1, 5, 32})
    for (const matgen::Csr &M : matgen::standard_set_cached(512)) {
      const std::vector<double> vals = M.values<double>();
      SellDevice<double>        D;
      ASSERT_EQ(cudaSuccess, D.build(M.view(vals), S, s)) << M.name << " " << failure(D);
      gpumat_test::check_device_diagonal(M, vals, D, s, M.name + " slice " + std::to_string(S));
    }
}

// Bytes reported, invalid slice sizes refused without storage.
TEST(SellDevice, BytesAndRefusals) {
  const Stream              s;
  const matgen::Csr         M    = matgen::random_rows("random_uniform", 4000, 3000, 1, 30, 0.0, 11);
  const std::vector<double> vals = M.values<double>();
  SellDevice<double>        D;
  ASSERT_EQ(cudaSuccess, D.build(M.view(vals), 32, s)) << failure(D);
  const gpumat::SellStats st = gpumat::sell_stats(M.view(vals), 32);
  EXPECT_EQ(D.device_bytes(), st.layout_bytes(sizeof(double)) + std::size_t(M.nnz()) * (sizeof(index_t) + sizeof(double)) + D.buffer_bytes());
  std::printf("[ info ] cuSPARSE SELL_ALG1: SpMV buffer %zu bytes, preprocess %s\n", D.buffer_bytes(), D.preprocessed() ? "supported" : "not supported");
  for (int S : {0, gpumat::sell_max_slice + 1}) {
    EXPECT_EQ(cudaErrorInvalidValue, D.build(M.view(vals), S, s)) << S;
    EXPECT_EQ(D.device_bytes(), 0u);
  }
  D.release();
  EXPECT_EQ(D.device_bytes(), 0u);
  EXPECT_EQ(cudaSuccess, cudaStreamSynchronize(s));
}

} // namespace
