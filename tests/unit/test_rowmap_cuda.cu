// The device side of compressed rows (src/cuda/rowmap.cuh): scatter-add and gather through the row
// list, init_output, against the host versions of src/core/compressed.hpp; and the main() of the
// CUDA unit tests (exit 77 = skipped without a CUDA device).
#include "core/compressed.hpp"
#include "cuda/rowmap.cuh"
#include "matgen.hpp"

#include <gtest/gtest.h>
#include <cstdio>

using gpumat::index_t;

namespace {

template <typename T>
std::vector<T> download(const T *p, std::size_t n) {
  std::vector<T> h(n);
  if (n) EXPECT_EQ(cudaSuccess, cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}
template <typename T>
T *upload(const std::vector<T> &h) {
  T *p = nullptr;
  if (!h.empty()) {
    EXPECT_EQ(cudaSuccess, cudaMalloc(reinterpret_cast<void **>(&p), h.size() * sizeof(T)));
    EXPECT_EQ(cudaSuccess, cudaMemcpy(p, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    EXPECT_EQ(cudaSuccess, cudaDeviceSynchronize()); // the DMA of a pageable copy may land after cudaMemcpy returns
  }
  return p;
}

template <typename T>
void check_rowmap() {
  for (const matgen::Csr &M : matgen::standard_set_cached(512)) {
    const std::vector<T> vals = M.values<T>();
    gpumat::CompressedRows c;
    gpumat::compress_rows(M.view(vals), c);
    gpumat::cuda::RowMapDevice<T> map;
    ASSERT_EQ(cudaSuccess, map.build(c.rows.data(), c.size(), 0)) << M.name;
    EXPECT_EQ(map.size(), c.size());
    EXPECT_EQ(map.device_bytes(), std::size_t(c.size()) * (sizeof(index_t) + sizeof(T)));
    const std::size_t n = std::size_t(M.nrows), k = std::size_t(c.size());
    const std::vector<T> x = matgen::random_vector<T>(n, 41), w = matgen::random_vector<T>(k, 42);
    // gather
    T *dx = upload(x);
    ASSERT_EQ(cudaSuccess, map.gather(dx, map.work(), 0));
    std::vector<T> want(k);
    gpumat::gather_rows(c.size(), c.rows.data(), x.data(), want.data());
    EXPECT_EQ(download(map.work(), k), want) << M.name;
    // init_output: copy, zero, alias
    T *dy = upload(std::vector<T>(n, T(7)));
    ASSERT_EQ(cudaSuccess, gpumat::cuda::init_output<T>(dy, dx, index_t(n), 0));
    EXPECT_EQ(download(dy, n), x) << M.name;
    ASSERT_EQ(cudaSuccess, gpumat::cuda::init_output<T>(dy, dy, index_t(n), 0));
    EXPECT_EQ(download(dy, n), x) << M.name;
    ASSERT_EQ(cudaSuccess, gpumat::cuda::init_output<T>(dy, nullptr, index_t(n), 0));
    EXPECT_EQ(download(dy, n), std::vector<T>(n, T(0))) << M.name;
    // scatter_add onto y = x
    T *dw = upload(w);
    ASSERT_EQ(cudaSuccess, gpumat::cuda::init_output<T>(dy, dx, index_t(n), 0));
    ASSERT_EQ(cudaSuccess, map.scatter_add(dw, dy, 0));
    std::vector<T> y = x;
    gpumat::scatter_add_rows(c.size(), c.rows.data(), w.data(), y.data());
    EXPECT_EQ(download(dy, n), y) << M.name;
    cudaFree(dx);
    cudaFree(dy);
    cudaFree(dw);
    map.release();
    EXPECT_EQ(map.size(), 0);
  }
}
TEST(RowMapDevice, Double) { check_rowmap<double>(); }
TEST(RowMapDevice, Float) { check_rowmap<float>(); }

} // namespace

int main(int argc, char **argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("test_cuda: no CUDA device, skipping\n");
    return 77;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
