// Helpers of the CUDA unit tests of every format: a device array freed on scope exit, a
// non-blocking stream, one product on the device with y poisoned (NaN) or aliasing z.
#pragma once
#include "core/csr.hpp"
#include "host_helpers.hpp" // ZMode
#include "params.hpp"       // tolerance<T>()

#include <gtest/gtest.h>

#include <cuda_runtime.h>
#include <vector>

namespace gpumat_test {

template <typename T>
struct DeviceArray {
  T          *p = nullptr;
  std::size_t n = 0;
  explicit DeviceArray(std::size_t count) : n(count) {
    if (n) EXPECT_EQ(cudaSuccess, cudaMalloc(reinterpret_cast<void **>(&p), n * sizeof(T)));
  }
  // cudaMemcpy from pageable memory may return before its DMA has landed (CUDA's API
  // synchronization behavior); the tests' work then runs on a non-blocking stream, which does not
  // wait for the legacy stream: synchronize, or the first kernel may read stale memory (seen: the
  // transposed product's y = z copy read a previous case's z).
  explicit DeviceArray(const std::vector<T> &h) : DeviceArray(h.size()) {
    if (n) {
      EXPECT_EQ(cudaSuccess, cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
      EXPECT_EQ(cudaSuccess, cudaDeviceSynchronize());
    }
  }
  ~DeviceArray() { cudaFree(p); }
  DeviceArray(const DeviceArray &)            = delete;
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
  Stream(const Stream &)            = delete;
  Stream &operator=(const Stream &) = delete;
  operator cudaStream_t() const { return s_; }

private:
  cudaStream_t s_ = nullptr;
};

// y (poisoned, or = z when aliasing) = op(A) x (+ z) by D.apply, downloaded; `status` receives
// apply's error.
template <typename T, typename Device>
std::vector<T> device_apply(const Device &D, gpumat::Op op, const std::vector<T> &x, const std::vector<T> &z, ZMode zm, cudaStream_t s,
                            cudaError_t *status = nullptr) {
  const DeviceArray<T> dx(x), dz(z), dy(z.size());
  dy.poison(s);
  const T *zp = nullptr;
  if (zm == ZMode::Separate) zp = dz.p;
  if (zm == ZMode::Alias) {
    if (dy.n) EXPECT_EQ(cudaSuccess, cudaMemcpyAsync(dy.p, dz.p, dz.n * sizeof(T), cudaMemcpyDeviceToDevice, s));
    zp = dy.p;
  }
  const cudaError_t err = D.apply(op, dx.p, zp, dy.p, s);
  if (status) *status = err;
  else EXPECT_EQ(cudaSuccess, err);
  EXPECT_EQ(cudaSuccess, cudaStreamSynchronize(s));
  return dy.download();
}

} // namespace gpumat_test
