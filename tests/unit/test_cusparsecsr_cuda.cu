// cusparsecsr CUDA layer: the arrays stored on the GPU are the CSR as given; cuSPARSE's products
// (CSR_ALG1 and CSR_ALG2) against the long-double CSR reference and against the host reference
// (csr_apply) with z absent, separate and aliasing y, in double and float, y poisoned with NaN, for
// every matrix of the standard set (empty rows, matrices without rows, columns or nonzeros);
// refresh (values only: the descriptor and its buffer kept), diagonal, bytes, a large matrix,
// rebuilds and refused algorithms. Without a CUDA device the program exits 77 (CTest: skipped;
// main() is in test_rowmap_cuda.cu).
#include "core/cusparsecsr.hpp"
#include "cuda/cusparsecsr.cuh"
#include "device_helpers.cuh"
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

template <typename Device> std::string failure(const Device &D) { return D.failed_call() ? std::string(D.failed_call()) + ": " + D.failed_status() : std::string(); }

// y (device) against the host reference csr_apply on the same inputs, relative to sum |a||x| (+ |z|)
// of each entry (matgen::reference's scale).
template <typename T>
std::string host_mismatch(const matgen::Csr &M, const std::vector<T> &vals, const std::vector<T> &x, const T *z, const std::vector<T> &y) {
  std::vector<T> h(std::size_t(M.nrows));
  gpumat::csr_apply(M.view(vals), Op::NoTrans, x.data(), z, h.data());
  std::vector<long double> ref, scale, href(h.begin(), h.end());
  matgen::reference(M, vals, false, x.data(), z, ref, scale);
  return matgen::mismatch(y, href, scale, tolerance<T>());
}

// Stored arrays, products (both algorithms' caller chooses), no device transpose.
template <typename T>
void check_matrix(const matgen::Csr &M, int alg, cudaStream_t s) {
  const std::vector<T> vals = M.values<T>();
  const std::string    what = M.name + " alg " + std::to_string(alg);
  CusparseCsrDevice<T> D;
  ASSERT_EQ(cudaSuccess, D.build(M.view(vals), alg, s)) << what << " " << failure(D);
  EXPECT_EQ(D.alg(), alg) << what;
  std::vector<index_t> rp, ci;
  std::vector<T>       dv;
  ASSERT_EQ(cudaSuccess, D.download(rp, ci, dv)) << what;
  if (M.nrows > 0) EXPECT_EQ(rp, M.rowptr) << what;
  else EXPECT_TRUE(rp.empty()) << what;
  EXPECT_EQ(ci, M.colidx) << what;
  EXPECT_EQ(dv, vals) << what;
  EXPECT_EQ(D.device_bytes(), M.nrows > 0 ? gpumat::csr_bytes(M.nrows, M.nnz(), sizeof(T)) + D.buffer_bytes() : 0u) << what;
  const std::vector<T> x = matgen::random_vector<T>(std::size_t(M.ncols), 101);
  const std::vector<T> z = matgen::random_vector<T>(std::size_t(M.nrows), 202);
  std::vector<long double> ref, scale;
  for (ZMode zm : {ZMode::None, ZMode::Separate, ZMode::Alias}) {
    const T *zh = zm == ZMode::None ? nullptr : z.data();
    matgen::reference(M, vals, false, x.data(), zh, ref, scale);
    const std::vector<T> y = gpumat_test::device_apply(D, Op::NoTrans, x, z, zm, s);
    ASSERT_EQ(matgen::mismatch(y, ref, scale, tolerance<T>()), "") << what << " z mode " << int(zm) << " " << failure(D);
    ASSERT_EQ(host_mismatch(M, vals, x, zh, y), "") << what << " z mode " << int(zm) << " (against csr_apply)";
  }
  cudaError_t st = cudaSuccess;
  (void)gpumat_test::device_apply(D, Op::Trans, std::vector<T>(std::size_t(M.nrows), T(1)), std::vector<T>(std::size_t(M.ncols)), ZMode::None, s, &st);
  EXPECT_EQ(st, cudaErrorNotSupported) << what;
}

template <typename T> void run_standard() {
  const Stream s;
  for (int alg : kAlgs)
    for (const matgen::Csr &M : matgen::standard_set_cached(512)) check_matrix<T>(M, alg, s);
}
TEST(CusparseCsrDevice, StandardSetDouble) { run_standard<double>(); }
TEST(CusparseCsrDevice, StandardSetFloat) { run_standard<float>(); }

TEST(CusparseCsrDevice, Large) {
  const Stream s;
  for (int alg : kAlgs)
    for (const matgen::Csr &M : {matgen::random_rows("random_200k", 200000, 150000, 0, 24, 0.02, 31), matgen::stencil_2d(700, 500)}) check_matrix<double>(M, alg, s);
}

// refresh(): new values into the stored array, the descriptor, its buffer and its preprocessing kept.
template <typename T> void check_refresh() {
  const Stream s;
  for (int alg : kAlgs)
    for (const matgen::Csr &M : {matgen::random_rows("random_with_empty", 4000, 3000, 1, 12, 0.15, 12), matgen::heavy_row(17), matgen::no_nonzeros("all_empty", 50, 40)}) {
      const std::string    what = M.name + " alg " + std::to_string(alg);
      const std::vector<T> vals = M.values<T>();
      CusparseCsrDevice<T> D;
      ASSERT_EQ(cudaSuccess, D.build(M.view(vals), alg, s)) << what << " " << failure(D);
      const std::size_t bytes = D.device_bytes(), buffer = D.buffer_bytes();
      const bool        pre   = D.preprocessed();
      std::vector<T>    fresh(vals.size());
      for (std::size_t k = 0; k < fresh.size(); ++k) fresh[k] = T(0.5) - vals[k] * T(k % 7);
      ASSERT_EQ(cudaSuccess, D.refresh(fresh.data(), s)) << what;
      ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(s)) << what;
      std::vector<index_t> rp, ci;
      std::vector<T>       dv;
      ASSERT_EQ(cudaSuccess, D.download(rp, ci, dv)) << what;
      EXPECT_EQ(dv, fresh) << what;
      { // the same values from device memory (a device COO assembly's): one device-to-device copy
        const gpumat_test::DeviceArray<T> dfresh(fresh);
        ASSERT_EQ(cudaSuccess, D.refresh(vals.empty() ? nullptr : dfresh.p, s, gpumat::Mem::Device)) << what;
        ASSERT_EQ(cudaSuccess, D.download(rp, ci, dv)) << what;
        EXPECT_EQ(dv, fresh) << what;
      }
      EXPECT_EQ(D.device_bytes(), bytes) << what;
      EXPECT_EQ(D.buffer_bytes(), buffer) << what;
      EXPECT_EQ(D.preprocessed(), pre) << what;
      const std::vector<T> x = matgen::random_vector<T>(std::size_t(M.ncols), 8);
      const std::vector<T> z = matgen::random_vector<T>(std::size_t(M.nrows), 9);
      for (ZMode zm : {ZMode::None, ZMode::Alias}) {
        std::vector<long double> ref, scale;
        matgen::reference(M, fresh, false, x.data(), zm == ZMode::None ? nullptr : z.data(), ref, scale);
        ASSERT_EQ(matgen::mismatch(gpumat_test::device_apply(D, Op::NoTrans, x, z, zm, s), ref, scale, tolerance<T>()), "") << what << " z mode " << int(zm);
      }
    }
}
TEST(CusparseCsrDevice, RefreshDouble) { check_refresh<double>(); }
TEST(CusparseCsrDevice, RefreshFloat) { check_refresh<float>(); }

// diagonal(): every row's diagonal entry (0 where the row has none), with and without a row map.
TEST(CusparseCsrDevice, Diagonal) {
  const Stream s;
  for (int alg : kAlgs)
    for (const matgen::Csr &M : matgen::standard_set_cached(512)) {
      const std::vector<double>  vals = M.values<double>();
      CusparseCsrDevice<double>  D;
      ASSERT_EQ(cudaSuccess, D.build(M.view(vals), alg, s)) << M.name << " " << failure(D);
      gpumat_test::check_device_diagonal(M, vals, D, s, M.name + " alg " + std::to_string(alg));
    }
}

// Bytes and buffers reported; a rebuild replaces the content (another pattern, the other
// algorithm); invalid algorithms refused without storage.
TEST(CusparseCsrDevice, BytesRebuildAndRefusals) {
  const Stream              s;
  const matgen::Csr         M    = matgen::random_rows("random_uniform", 4000, 3000, 1, 30, 0.0, 11);
  const std::vector<double> vals = M.values<double>();
  CusparseCsrDevice<double> D;
  for (int alg : kAlgs) {
    ASSERT_EQ(cudaSuccess, D.build(M.view(vals), alg, s)) << failure(D);
    EXPECT_EQ(D.device_bytes(), gpumat::csr_bytes(M.nrows, M.nnz(), sizeof(double)) + D.buffer_bytes());
    std::printf("[ info ] cuSPARSE CSR_ALG%d: SpMV buffer %zu bytes, preprocess %s\n", alg, D.buffer_bytes(), D.preprocessed() ? "supported" : "not supported");
  }
  const matgen::Csr         P     = matgen::power_law(20000, 20000, 1.2, 2.0, 5000, 23);
  const std::vector<double> pvals = P.values<double>();
  ASSERT_EQ(cudaSuccess, D.build(P.view(pvals), 1, s)) << failure(D);
  const std::vector<double> x = matgen::random_vector<double>(std::size_t(P.ncols), 5);
  std::vector<long double>  ref, scale;
  matgen::reference(P, pvals, false, x.data(), static_cast<const double *>(nullptr), ref, scale);
  ASSERT_EQ(matgen::mismatch(gpumat_test::device_apply(D, Op::NoTrans, x, std::vector<double>(std::size_t(P.nrows)), ZMode::None, s), ref, scale, tolerance<double>()), "");
  EXPECT_EQ(D.device_bytes(), gpumat::csr_bytes(P.nrows, P.nnz(), sizeof(double)) + D.buffer_bytes());
  for (int alg : {0, 3, -1}) {
    EXPECT_EQ(cudaErrorInvalidValue, D.build(M.view(vals), alg, s)) << alg;
    EXPECT_EQ(D.device_bytes(), 0u) << alg;
    EXPECT_EQ(D.failed_call(), nullptr) << alg;
  }
  D.release();
  EXPECT_EQ(D.device_bytes(), 0u);
  EXPECT_EQ(cudaSuccess, cudaStreamSynchronize(s));
}

} // namespace
