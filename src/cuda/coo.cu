// COO maps on the device (coo.cuh).
#include "coo.cuh"
#include "common.cuh"
#include "primitives.cuh"

#include <algorithm>
#include <limits>
#include <type_traits>
#include <vector>

namespace gpumat {
namespace cuda {

namespace {
constexpr std::int64_t kNarrow = std::numeric_limits<index_t>::max();

// n host values of type I as device array p (cudaMalloc; the copy waits for s to pass it)
template <typename I, typename Src>
cudaError_t upload_as(const Src *h, std::int64_t n, void *&p, cudaStream_t s) {
  I *d = nullptr;
  GPUMAT_CUDA_TRY(device_alloc(d, std::size_t(n)));
  p = d;
  if (n == 0) return cudaSuccess;
  if (std::is_same<I, Src>::value) return cudaMemcpyAsync(d, h, std::size_t(n) * sizeof(I), cudaMemcpyHostToDevice, s);
  std::vector<I> narrow(h, h + n);
  const cudaError_t err = cudaMemcpyAsync(d, narrow.data(), std::size_t(n) * sizeof(I), cudaMemcpyHostToDevice, s);
  return err != cudaSuccess ? err : cudaStreamSynchronize(s); // narrow goes out of scope
}
} // namespace

template <typename T>
cudaError_t CooDevice<T>::upload(const CooMap &m, cudaStream_t s) {
  release();
  const std::int64_t nseg = m.segments(), nent = m.entries();
  const std::int64_t top  = m.perm.empty() ? 0 : *std::max_element(m.perm.begin(), m.perm.end());
  wide_                   = nent > kNarrow || top > kNarrow;
  cudaError_t err         = cudaSuccess;
  if (!m.targets.empty()) {
    err = device_alloc(targets_, m.targets.size());
    if (err == cudaSuccess) err = cudaMemcpyAsync(targets_, m.targets.data(), m.targets.size() * sizeof(index_t), cudaMemcpyHostToDevice, s);
  }
  if (err == cudaSuccess) err = wide_ ? upload_as<std::int64_t>(m.jmap.data(), nseg + 1, jmap_, s) : upload_as<index_t>(m.jmap.data(), nseg + 1, jmap_, s);
  if (err == cudaSuccess) err = wide_ ? upload_as<std::int64_t>(m.perm.data(), nent, perm_, s) : upload_as<index_t>(m.perm.data(), nent, perm_, s);
  if (err == cudaSuccess) err = cudaStreamSynchronize(s);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    release();
    return err;
  }
  nseg_ = nseg;
  nent_ = nent;
  return cudaSuccess;
}

template <typename T>
cudaError_t CooDevice<T>::apply(const T *src, bool insert, T *val, cudaStream_t s) const {
  if (nseg_ == 0) return cudaSuccess;
  if (wide_) return coo_sum<T, std::int64_t>(nseg_, targets_, static_cast<const std::int64_t *>(jmap_), static_cast<const std::int64_t *>(perm_), src, insert, val, s);
  return coo_sum<T, index_t>(nseg_, targets_, static_cast<const index_t *>(jmap_), static_cast<const index_t *>(perm_), src, insert, val, s);
}

template <typename T>
std::size_t CooDevice<T>::device_bytes() const {
  if (!jmap_) return 0;
  const std::size_t w = wide_ ? sizeof(std::int64_t) : sizeof(index_t);
  return std::size_t(nseg_ + 1 + nent_) * w + (targets_ ? std::size_t(nseg_) * sizeof(index_t) : 0);
}

template <typename T>
void CooDevice<T>::release() {
  device_free(targets_);
  if (jmap_) cudaFree(jmap_);
  if (perm_) cudaFree(perm_);
  jmap_ = perm_ = nullptr;
  nseg_ = nent_ = 0;
  wide_         = false;
}

template <typename T>
cudaError_t GatherDevice<T>::upload(const std::int64_t *idx, std::int64_t n, std::int64_t src_size, cudaStream_t s) {
  release();
  wide_           = src_size > kNarrow;
  cudaError_t err = wide_ ? upload_as<std::int64_t>(idx, n, idx_, s) : upload_as<index_t>(idx, n, idx_, s);
  if (err == cudaSuccess) err = cudaStreamSynchronize(s);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    release();
    return err;
  }
  n_        = n;
  uploaded_ = true;
  return cudaSuccess;
}

template <typename T>
cudaError_t GatherDevice<T>::apply(const T *src, T *dst, cudaStream_t s) const {
  if (wide_) return gather_slots<T, std::int64_t>(n_, static_cast<const std::int64_t *>(idx_), src, dst, s);
  return gather_slots<T, index_t>(n_, static_cast<const index_t *>(idx_), src, dst, s);
}

template <typename T>
void GatherDevice<T>::release() {
  if (idx_) cudaFree(idx_);
  idx_      = nullptr;
  n_        = 0;
  wide_     = false;
  uploaded_ = false;
}

template class CooDevice<double>;
template class CooDevice<float>;
template class GatherDevice<double>;
template class GatherDevice<float>;

} // namespace cuda
} // namespace gpumat
