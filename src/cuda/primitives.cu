// Shared device primitives (primitives.cuh).
#include "primitives.cuh"
#include "common.cuh"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda/functional>

namespace gpumat {
namespace cuda {

namespace {

constexpr int kThreads = 256;

template <typename T, typename S>
__global__ void __launch_bounds__(kThreads) scatter_slots_kernel(std::int64_t n, const S *__restrict__ slot, const T *__restrict__ src,
                                                                 T *__restrict__ dst) {
  const std::int64_t k = (std::int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) dst[slot[k]] = src[k];
}

template <typename T, typename I>
__global__ void __launch_bounds__(kThreads) gather_slots_kernel(std::int64_t n, const I *__restrict__ idx, const T *__restrict__ src, T *__restrict__ dst) {
  const std::int64_t k = (std::int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) dst[k] = src[idx[k]];
}

// one thread per segment; its entries summed in map order (the host reference's order)
template <typename T, typename I>
__global__ void __launch_bounds__(kThreads) coo_sum_kernel(std::int64_t nseg, const index_t *__restrict__ targets, const I *__restrict__ jmap, const I *__restrict__ perm,
                                                           const T *__restrict__ src, bool insert, T *__restrict__ val) {
  const std::int64_t s = (std::int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= nseg) return;
  T sum = T(0);
  for (I k = jmap[s], e = jmap[s + 1]; k < e; ++k) sum += src[perm[k]];
  const std::int64_t t = targets ? std::int64_t(targets[s]) : s;
  val[t]               = (insert ? T(0) : val[t]) + sum;
}

// row[rowptr[r]] = r for every nonempty row r (distinct starts: no two writers)
__global__ void __launch_bounds__(kThreads) mark_row_starts(const index_t *__restrict__ rowptr, index_t nrows, index_t *__restrict__ row) {
  const std::int64_t r = (std::int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (r < nrows && rowptr[r] < rowptr[r + 1]) row[rowptr[r]] = index_t(r);
}

template <typename T>
__global__ void __launch_bounds__(kThreads) csr_diagonal_kernel(const index_t *__restrict__ rowptr, const index_t *__restrict__ colidx,
                                                                const T *__restrict__ val, const index_t *__restrict__ rowmap, index_t nrows,
                                                                T *__restrict__ d) {
  const long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= nrows) return;
  const index_t c = rowmap ? rowmap[r] : index_t(r);
  index_t lo = rowptr[r], hi = rowptr[r + 1];
  while (lo < hi) {
    const index_t mid = lo + (hi - lo) / 2;
    if (colidx[mid] < c) lo = mid + 1;
    else hi = mid;
  }
  d[c] = lo < rowptr[r + 1] && colidx[lo] == c ? val[lo] : T(0);
}

} // namespace

template <typename T>
cudaError_t csr_diagonal(const index_t *rowptr, const index_t *colidx, const T *val, const index_t *rowmap, index_t nrows, T *d, cudaStream_t s) {
  if (nrows <= 0) return cudaSuccess;
  csr_diagonal_kernel<T><<<grid_for(nrows, kThreads), kThreads, 0, s>>>(rowptr, colidx, val, rowmap, nrows, d);
  return launched();
}

cudaError_t entry_rows(const index_t *rowptr, index_t nrows, std::int64_t nnz, index_t *row, cudaStream_t s) {
  if (nnz == 0) return cudaSuccess;
  cudaError_t err = cudaMemsetAsync(row, 0, sizeof(index_t) * nnz, s);
  if (err != cudaSuccess) return err;
  mark_row_starts<<<grid_for(nrows, kThreads), kThreads, 0, s>>>(rowptr, nrows, row);
  if ((err = launched()) != cudaSuccess) return err;
  std::size_t bytes = 0;
  void       *tmp   = nullptr;
  err               = cub::DeviceScan::InclusiveScan(nullptr, bytes, row, row, ::cuda::maximum<index_t>(), nnz, s);
  if (err == cudaSuccess && (err = cudaMallocAsync(&tmp, bytes > 0 ? bytes : 1, s)) != cudaSuccess) {
    (void)cudaGetLastError();
    return err;
  }
  if (err == cudaSuccess) err = cub::DeviceScan::InclusiveScan(tmp, bytes, row, row, ::cuda::maximum<index_t>(), nnz, s);
  if (tmp) {
    const cudaError_t fr = cudaFreeAsync(tmp, s);
    if (err == cudaSuccess) err = fr;
  }
  return err;
}

template <typename T>
cudaError_t DeviceCsr<T>::upload(const CsrView<T> &A, cudaStream_t s) {
  release();
  s_                   = s;
  const std::int64_t nnz = A.nnz();
  auto               get = [&](void *&p, std::size_t bytes) {
    const cudaError_t e = cudaMallocAsync(&p, bytes > 0 ? bytes : 1, s);
    if (e != cudaSuccess) {
      p = nullptr;
      (void)cudaGetLastError();
    }
    return e;
  };
  cudaError_t err = get(rowptr_, sizeof(index_t) * (std::size_t(A.nrows) + 1));
  if (err == cudaSuccess) err = get(colidx_, sizeof(index_t) * std::size_t(nnz));
  if (err == cudaSuccess) err = get(val_, sizeof(T) * std::size_t(nnz));
  if (err == cudaSuccess) err = cudaMemcpyAsync(rowptr_, A.rowptr, sizeof(index_t) * (std::size_t(A.nrows) + 1), cudaMemcpyHostToDevice, s);
  if (err == cudaSuccess && nnz > 0) err = cudaMemcpyAsync(colidx_, A.colidx, sizeof(index_t) * std::size_t(nnz), cudaMemcpyHostToDevice, s);
  if (err == cudaSuccess && nnz > 0) err = cudaMemcpyAsync(val_, A.val, sizeof(T) * std::size_t(nnz), cudaMemcpyHostToDevice, s);
  if (err != cudaSuccess) {
    release();
    return err;
  }
  v_ = DeviceCsrView<T>{A.nrows, A.ncols, nnz, static_cast<const index_t *>(rowptr_), static_cast<const index_t *>(colidx_), static_cast<const T *>(val_)};
  return cudaSuccess;
}

template <typename T>
void DeviceCsr<T>::release() {
  for (void **p : {&rowptr_, &colidx_, &val_}) {
    if (*p) cudaFreeAsync(*p, s_);
    *p = nullptr;
  }
  v_ = DeviceCsrView<T>{};
}

template class DeviceCsr<double>;
template class DeviceCsr<float>;

void InstanceTrial::free_events() {
  for (cudaEvent_t e : ev_)
    if (e) cudaEventDestroy(e);
  ev_.clear();
}

void InstanceTrial::clear() {
  free_events();
  cand_.clear();
  times_.clear();
  per_ = issued_ = chosen_ = 0;
  open_ = false;
}

void InstanceTrial::start(std::vector<int> candidates, int per, int fallback) {
  clear();
  fallback_ = fallback;
  if (candidates.size() < 2 || candidates.size() > std::size_t(kMax) || per < 1 || per > kMaxPer) {
    chosen_ = fallback;
    return;
  }
  ev_.assign(2 * candidates.size() * std::size_t(per), nullptr);
  for (cudaEvent_t &e : ev_)
    if (cudaEventCreate(&e) != cudaSuccess) { // no timing: the fallback, for good
      (void)cudaGetLastError();
      e = nullptr;
      clear();
      fallback_ = chosen_ = fallback;
      return;
    }
  cand_ = std::move(candidates);
  per_  = per;
}

int InstanceTrial::begin(cudaStream_t s) {
  open_ = false;
  if (chosen_) return chosen_;
  if (cand_.empty()) return fallback_;
  const int total = int(cand_.size()) * per_;
  if (issued_ == total) { // all timed: decide once the last has finished, never waiting
    const cudaError_t q = cudaEventQuery(ev_[std::size_t(2 * total - 1)]);
    if (q == cudaSuccess) {
      decide();
      return chosen_;
    }
    if (q != cudaErrorNotReady) { // an event that cannot be read: the fallback, for good
      (void)cudaGetLastError();
      chosen_ = fallback_;
    }
    return chosen_ ? chosen_ : fallback_;
  }
  cudaStreamCaptureStatus cap = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(s, &cap) != cudaSuccess || cap != cudaStreamCaptureStatusNone) {
    (void)cudaGetLastError();
    return fallback_; // events in a captured graph are not timings of this product
  }
  if (cudaEventRecord(ev_[std::size_t(2 * issued_)], s) != cudaSuccess) {
    (void)cudaGetLastError();
    chosen_ = fallback_;
    return chosen_;
  }
  open_ = true;
  return cand_[std::size_t(issued_ % int(cand_.size()))]; // alternating: drifts hit every candidate alike
}

void InstanceTrial::end(cudaStream_t s) {
  if (!open_) return;
  open_ = false;
  if (cudaEventRecord(ev_[std::size_t(2 * issued_ + 1)], s) != cudaSuccess) {
    (void)cudaGetLastError();
    chosen_ = fallback_;
    return;
  }
  ++issued_;
}

void InstanceTrial::decide() {
  const std::size_t nc = cand_.size();
  times_.assign(nc, {0, NAN});
  for (std::size_t c = 0; c < nc; ++c) times_[c].first = cand_[c];
  for (int k = 0; k < issued_; ++k) {
    float ms = 0;
    if (cudaEventElapsedTime(&ms, ev_[std::size_t(2 * k)], ev_[std::size_t(2 * k + 1)]) != cudaSuccess) {
      (void)cudaGetLastError();
      continue;
    }
    float &t = times_[std::size_t(k) % nc].second;
    if (std::isnan(t) || ms < t) t = ms;
  }
  std::size_t best = nc;
  for (std::size_t c = 0; c < nc; ++c)
    if (!std::isnan(times_[c].second) && (best == nc || times_[c].second < times_[best].second)) best = c;
  chosen_ = best == nc ? fallback_ : cand_[best];
  free_events();
}

PhaseTimer::PhaseTimer(cudaStream_t s) : s_(s) { mark(nullptr); }

PhaseTimer::~PhaseTimer() {
  for (cudaEvent_t e : ev_) cudaEventDestroy(e);
}

void PhaseTimer::mark(const char *name) {
  if (!ok_) return;
  cudaEvent_t e = nullptr;
  if (cudaEventCreate(&e) != cudaSuccess || cudaEventRecord(e, s_) != cudaSuccess) {
    (void)cudaGetLastError(); // timing is best-effort: the work goes on without it
    if (e) cudaEventDestroy(e);
    ok_ = false;
    return;
  }
  ev_.push_back(e);
  names_.push_back(name);
}

std::vector<std::pair<const char *, float>> PhaseTimer::times() const {
  std::vector<std::pair<const char *, float>> t;
  if (!ok_) return t;
  for (std::size_t k = 1; k < ev_.size(); ++k) {
    float ms = 0;
    if (cudaEventElapsedTime(&ms, ev_[k - 1], ev_[k]) != cudaSuccess) {
      (void)cudaGetLastError();
      return {};
    }
    t.emplace_back(names_[k], ms);
  }
  return t;
}

namespace {
template <typename I>
cudaError_t exclusive_sum_impl(const I *in, I *out, std::int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  std::size_t bytes = 0;
  cudaError_t err   = cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, n, s);
  void       *tmp   = nullptr;
  if (err == cudaSuccess && (err = cudaMallocAsync(&tmp, bytes > 0 ? bytes : 1, s)) != cudaSuccess) {
    (void)cudaGetLastError(); // reported here, not again by a later call
    return err;
  }
  if (err == cudaSuccess) err = cub::DeviceScan::ExclusiveSum(tmp, bytes, in, out, n, s);
  if (tmp) {
    const cudaError_t fr = cudaFreeAsync(tmp, s); // stream-ordered: after the scan
    if (err == cudaSuccess) err = fr;
  }
  return err;
}
} // namespace

cudaError_t exclusive_sum(const index_t *in, index_t *out, std::int64_t n, cudaStream_t s) { return exclusive_sum_impl(in, out, n, s); }
cudaError_t exclusive_sum(const std::int64_t *in, std::int64_t *out, std::int64_t n, cudaStream_t s) { return exclusive_sum_impl(in, out, n, s); }

cudaError_t reduce_max(const index_t *in, std::int64_t n, index_t *out, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  std::size_t bytes = 0;
  cudaError_t err   = cub::DeviceReduce::Max(nullptr, bytes, in, out, n, s);
  void       *tmp   = nullptr;
  if (err == cudaSuccess && (err = cudaMallocAsync(&tmp, bytes > 0 ? bytes : 1, s)) != cudaSuccess) {
    (void)cudaGetLastError();
    return err;
  }
  if (err == cudaSuccess) err = cub::DeviceReduce::Max(tmp, bytes, in, out, n, s);
  if (tmp) {
    const cudaError_t fr = cudaFreeAsync(tmp, s);
    if (err == cudaSuccess) err = fr;
  }
  return err;
}

template <typename T, typename S>
cudaError_t scatter_slots(std::int64_t n, const S *slot, const T *src, T *dst, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  scatter_slots_kernel<T, S><<<grid_for(n, kThreads), kThreads, 0, s>>>(n, slot, src, dst);
  return launched();
}

namespace {
// The refresh's staging buffers come from a pool of this library's own (one per device) that keeps
// up to kStagingKeep bytes between refreshes: the default pool gives its memory back at every
// synchronization (release threshold 0), so each refresh mapped its staging buffer afresh.
constexpr std::uint64_t kStagingKeep = std::uint64_t(kRefreshChunk) * sizeof(double);
cudaError_t             staging_pool(cudaMemPool_t *pool) {
  constexpr int        kMaxDevices = 64;
  static cudaMemPool_t pools[kMaxDevices];
  static std::mutex    lock;
  int                  dev = 0;
  GPUMAT_CUDA_TRY(cudaGetDevice(&dev));
  if (dev < 0 || dev >= kMaxDevices) return cudaErrorInvalidDevice;
  std::lock_guard<std::mutex> guard(lock);
  if (!pools[dev]) {
    cudaMemPoolProps props = {};
    props.allocType        = cudaMemAllocationTypePinned;
    props.location.type    = cudaMemLocationTypeDevice;
    props.location.id      = dev;
    GPUMAT_CUDA_TRY(cudaMemPoolCreate(&pools[dev], &props));
    std::uint64_t keep = kStagingKeep;
    GPUMAT_CUDA_TRY(cudaMemPoolSetAttribute(pools[dev], cudaMemPoolAttrReleaseThreshold, &keep));
  }
  *pool = pools[dev];
  return cudaSuccess;
}
} // namespace

template <typename T, typename I>
cudaError_t coo_sum(std::int64_t nseg, const index_t *targets, const I *jmap, const I *perm, const T *src, bool insert, T *val, cudaStream_t s) {
  if (nseg == 0) return cudaSuccess;
  coo_sum_kernel<T, I><<<grid_for(nseg, kThreads), kThreads, 0, s>>>(nseg, targets, jmap, perm, src, insert, val);
  return launched();
}

template <typename T, typename I>
cudaError_t gather_slots(std::int64_t n, const I *idx, const T *src, T *dst, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  gather_slots_kernel<T, I><<<grid_for(n, kThreads), kThreads, 0, s>>>(n, idx, src, dst);
  return launched();
}

template <typename T, typename S>
cudaError_t refresh_through_slots(const T *val, std::int64_t n, const S *slot, T *dst, cudaStream_t s, Mem where) {
  if (n == 0) return cudaSuccess;
  if (where == Mem::Device) return scatter_slots(n, slot, val, dst, s); // in place: nothing to stage
  const std::int64_t chunk = std::min<std::int64_t>(n, kRefreshChunk);
  T                 *in    = nullptr;
  cudaMemPool_t      pool  = nullptr;
  cudaError_t        err   = staging_pool(&pool);
  if (err == cudaSuccess) err = cudaMallocFromPoolAsync(reinterpret_cast<void **>(&in), sizeof(T) * std::size_t(chunk), pool, s);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return err;
  }
  for (std::int64_t off = 0; off < n && err == cudaSuccess; off += chunk) {
    const std::int64_t m = std::min<std::int64_t>(chunk, n - off);
    err                  = cudaMemcpyAsync(in, val + off, sizeof(T) * std::size_t(m), cudaMemcpyHostToDevice, s);
    if (err == cudaSuccess) err = scatter_slots(m, slot + off, in, dst, s);
  }
  const cudaError_t fr = cudaFreeAsync(in, s);
  return err != cudaSuccess ? err : fr;
}

template cudaError_t refresh_through_slots<double, index_t>(const double *, std::int64_t, const index_t *, double *, cudaStream_t, Mem);
template cudaError_t refresh_through_slots<float, index_t>(const float *, std::int64_t, const index_t *, float *, cudaStream_t, Mem);
template cudaError_t refresh_through_slots<double, unsigned>(const double *, std::int64_t, const unsigned *, double *, cudaStream_t, Mem);
template cudaError_t refresh_through_slots<float, unsigned>(const float *, std::int64_t, const unsigned *, float *, cudaStream_t, Mem);

template cudaError_t coo_sum<double, index_t>(std::int64_t, const index_t *, const index_t *, const index_t *, const double *, bool, double *, cudaStream_t);
template cudaError_t coo_sum<float, index_t>(std::int64_t, const index_t *, const index_t *, const index_t *, const float *, bool, float *, cudaStream_t);
template cudaError_t coo_sum<double, std::int64_t>(std::int64_t, const index_t *, const std::int64_t *, const std::int64_t *, const double *, bool, double *, cudaStream_t);
template cudaError_t coo_sum<float, std::int64_t>(std::int64_t, const index_t *, const std::int64_t *, const std::int64_t *, const float *, bool, float *, cudaStream_t);
template cudaError_t gather_slots<double, index_t>(std::int64_t, const index_t *, const double *, double *, cudaStream_t);
template cudaError_t gather_slots<float, index_t>(std::int64_t, const index_t *, const float *, float *, cudaStream_t);
template cudaError_t gather_slots<double, std::int64_t>(std::int64_t, const std::int64_t *, const double *, double *, cudaStream_t);
template cudaError_t gather_slots<float, std::int64_t>(std::int64_t, const std::int64_t *, const float *, float *, cudaStream_t);

template cudaError_t csr_diagonal<double>(const index_t *, const index_t *, const double *, const index_t *, index_t, double *, cudaStream_t);
template cudaError_t csr_diagonal<float>(const index_t *, const index_t *, const float *, const index_t *, index_t, float *, cudaStream_t);

template cudaError_t scatter_slots<double, index_t>(std::int64_t, const index_t *, const double *, double *, cudaStream_t);
template cudaError_t scatter_slots<float, index_t>(std::int64_t, const index_t *, const float *, float *, cudaStream_t);
template cudaError_t scatter_slots<double, unsigned>(std::int64_t, const unsigned *, const double *, double *, cudaStream_t);
template cudaError_t scatter_slots<float, unsigned>(std::int64_t, const unsigned *, const float *, float *, cudaStream_t);

} // namespace cuda
} // namespace gpumat
