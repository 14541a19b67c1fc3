// Helpers of the CUDA unit tests of every format: a device array freed on scope exit, a
// non-blocking stream, one product on the device with y poisoned (NaN) or aliasing z.
#pragma once
#include "core/csr.hpp"
#include "host_helpers.hpp" // ZMode
#include "matgen.hpp"
#include "params.hpp"       // tolerance<T>()

#include <gtest/gtest.h>

#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <string>
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

// D's products y = op(A) x (+ z), both ops, z absent, separate and aliasing y, against the
// long-double reference of the CSR M (values vals), within tolerance<T>(). Without a device
// transpose (transpose false: the cuSPARSE formats) y = A x alone, and A^T x must be refused with
// cudaErrorNotSupported.
template <typename T, typename Device>
void check_device_products(const matgen::Csr &M, const std::vector<T> &vals, const Device &D, cudaStream_t s, const std::string &where, bool transpose = true) {
  for (gpumat::Op op : {gpumat::Op::NoTrans, gpumat::Op::Trans}) {
    const bool trans = op == gpumat::Op::Trans;
    if (trans && !transpose) {
      cudaError_t st = cudaSuccess;
      (void)device_apply(D, op, std::vector<T>(std::size_t(M.nrows), T(1)), std::vector<T>(std::size_t(M.ncols)), ZMode::None, s, &st);
      EXPECT_EQ(st, cudaErrorNotSupported) << where << ": a device transpose";
      continue;
    }
    const std::vector<T> x     = matgen::random_vector<T>(std::size_t(trans ? M.nrows : M.ncols), 101);
    const std::vector<T> z     = matgen::random_vector<T>(std::size_t(trans ? M.ncols : M.nrows), 202);
    std::vector<long double> ref, scale;
    for (ZMode zm : {ZMode::None, ZMode::Separate, ZMode::Alias}) {
      matgen::reference(M, vals, trans, x.data(), zm == ZMode::None ? nullptr : z.data(), ref, scale);
      const std::vector<T> y = device_apply(D, op, x, z, zm, s);
      ASSERT_EQ(matgen::mismatch(y, ref, scale, tolerance<T>()), "") << where << (trans ? " Trans" : " NoTrans") << " z mode " << int(zm);
    }
  }
}

// D.diagonal() against the CSR M (values vals): every row's diagonal entry (0 where the row has
// none) into a poisoned d, and through a row map (row r -> 2 r + 1, as the compressed block of a
// matrix twice as tall) with the matching column; the entries of d past the rows, or that no row
// maps to, left as they were (poisoned). Device: any format's device class.
template <typename T, typename Csr, typename Device>
void check_device_diagonal(const Csr &M, const std::vector<T> &vals, const Device &D, cudaStream_t s, const std::string &where) {
  std::vector<T> want(std::size_t(M.nrows), T(0));
  for (gpumat::index_t r = 0; r < M.nrows; ++r)
    for (gpumat::index_t k = M.rowptr[std::size_t(r)]; k < M.rowptr[std::size_t(r) + 1]; ++k)
      if (M.colidx[std::size_t(k)] == r) want[std::size_t(r)] = vals[std::size_t(k)];
  // d longer than the rows (by the columns and one): nothing written past the rows
  DeviceArray<T> d(std::size_t(M.nrows) + std::size_t(M.ncols) + 1);
  d.poison(s);
  ASSERT_EQ(cudaSuccess, D.diagonal(nullptr, d.p, s)) << where;
  ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(s));
  const std::vector<T> diag = d.download();
  EXPECT_TRUE(std::equal(want.begin(), want.end(), diag.begin())) << where;
  EXPECT_TRUE(std::all_of(diag.begin() + M.nrows, diag.end(), [](T v) { return std::isnan(v); })) << where << ": written past the rows";
  std::vector<gpumat::index_t> map(std::size_t(M.nrows));
  for (gpumat::index_t r = 0; r < M.nrows; ++r) map[std::size_t(r)] = 2 * r + 1;
  const DeviceArray<gpumat::index_t> dmap(map);
  DeviceArray<T>                     dfull(std::size_t(2 * M.nrows));
  dfull.poison(s);
  ASSERT_EQ(cudaSuccess, D.diagonal(dmap.p, dfull.p, s)) << where;
  ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(s));
  const std::vector<T> got = dfull.download();
  for (gpumat::index_t r = 0; r < M.nrows; ++r) {
    T w = T(0);
    for (gpumat::index_t k = M.rowptr[std::size_t(r)]; k < M.rowptr[std::size_t(r) + 1]; ++k)
      if (M.colidx[std::size_t(k)] == 2 * r + 1) w = vals[std::size_t(k)];
    EXPECT_EQ(got[std::size_t(2 * r + 1)], w) << where << " row " << r;
    EXPECT_TRUE(std::isnan(got[std::size_t(2 * r)])) << where << " entry " << 2 * r << " (mapped to by no row) written";
  }
}

} // namespace gpumat_test
