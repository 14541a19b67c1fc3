// Device arrays and streams of the CUDA unit tests (freed on scope exit, failures reported by
// GoogleTest).
#pragma once
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <vector>

namespace gpumat_test {

// A device array (uninitialised), freed on scope exit.
template <typename T>
struct DeviceArray {
  T *p = nullptr;
  std::size_t n = 0;
  explicit DeviceArray(std::size_t count) : n(count) {
    if (n) EXPECT_EQ(cudaSuccess, cudaMalloc(reinterpret_cast<void **>(&p), n * sizeof(T)));
  }
  explicit DeviceArray(const std::vector<T> &h) : DeviceArray(h.size()) {
    if (n) EXPECT_EQ(cudaSuccess, cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  }
  ~DeviceArray() { cudaFree(p); }
  DeviceArray(const DeviceArray &) = delete;
  DeviceArray &operator=(const DeviceArray &) = delete;
  void poison(cudaStream_t s) const { // all bits set: a NaN in both precisions
    if (n) EXPECT_EQ(cudaSuccess, cudaMemsetAsync(p, 0xff, n * sizeof(T), s));
  }
  std::vector<T> download() const {
    std::vector<T> h(n);
    if (n) EXPECT_EQ(cudaSuccess, cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
  }
};

class Stream {
public:
  Stream() { EXPECT_EQ(cudaSuccess, cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~Stream() { cudaStreamDestroy(s_); }
  operator cudaStream_t() const { return s_; }
private:
  cudaStream_t s_ = nullptr;
};

} // namespace gpumat_test
