// The long part's builder on the GPU (long_rows.cuh): every step a kernel over rows, chunks or
// entries, or a CUB scan.
#include "common.cuh"
#include "long_rows_kernels.cuh"

namespace gpumat {
namespace cuda {

namespace {

constexpr int kThreads = 256;

// flag[r] = (row r is long), len[r] = its length if long, else 0; entry nrows = 0 (the exclusive
// sums' totals land there).
__global__ void __launch_bounds__(kThreads) lr_classify(const index_t *__restrict__ rowptr, index_t nrows, long long long_row, index_t *__restrict__ flag,
                                                        index_t *__restrict__ len) {
  const long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (r > nrows) return;
  index_t isl = 0, n = 0;
  if (r < nrows) {
    n   = rowptr[r + 1] - rowptr[r];
    isl = n > long_row;
  }
  flag[r] = isl;
  len[r]  = isl ? n : 0;
}

// short_pos[r] = r - (long rows before r) (r = nrows included); a long row into the list and the
// pointer (its first entry among the long entries).
__global__ void __launch_bounds__(kThreads) lr_split(const index_t *__restrict__ rowptr, index_t nrows, long long long_row, const index_t *__restrict__ idx,
                                                     const index_t *__restrict__ off, index_t *__restrict__ short_pos, index_t *__restrict__ rows,
                                                     index_t *__restrict__ ptr) {
  const long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (r > nrows) return;
  short_pos[r] = index_t(r - idx[r]);
  if (r == nrows) {
    ptr[idx[r]] = off[r];
    return;
  }
  if (rowptr[r + 1] - rowptr[r] > long_row) rows[idx[r]] = index_t(r), ptr[idx[r]] = off[r];
}

// counts[k] = chunks of long row k; counts[nlong] = 0.
__global__ void __launch_bounds__(kThreads) lr_chunk_counts(const index_t *__restrict__ ptr, index_t nlong, long long chunk, index_t *__restrict__ counts) {
  const long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (k > nlong) return;
  counts[k] = k < nlong ? index_t((ptr[k + 1] - ptr[k] + chunk - 1) / chunk) : 0;
}

// chunk_row[c] = the long row of chunk c (a binary search), chunk_beg[c] = its first entry
// (chunk_beg[nchunks] = the long part's entries: a chunk ends where the next begins), so that a
// product's group finds its entries in one round trip, its row's chunk count while they load.
__global__ void __launch_bounds__(kThreads) lr_chunk_rows(const index_t *__restrict__ chunk_first, const index_t *__restrict__ ptr, index_t nlong, long long nchunks,
                                                          long long chunk, index_t *__restrict__ chunk_row, index_t *__restrict__ chunk_beg) {
  const long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= nchunks) return;
  index_t lo = 0, hi = nlong; // the row k with chunk_first[k] <= c < chunk_first[k + 1]
  while (hi - lo > 1) {
    const index_t mid = lo + (hi - lo) / 2;
    if (chunk_first[mid] <= c) lo = mid;
    else hi = mid;
  }
  chunk_row[c] = lo;
  chunk_beg[c] = ptr[lo] + index_t((c - chunk_first[lo]) * chunk);
  if (c == nchunks - 1) chunk_beg[nchunks] = ptr[nlong];
}

// A warp per chunk: its entries into the long arrays (a hub of millions of entries copied by
// thousands of warps, not one).
template <typename T>
__global__ void __launch_bounds__(kThreads) lr_copy(const index_t *__restrict__ rowptr, const index_t *__restrict__ colidx, const T *__restrict__ aval,
                                                    const index_t *__restrict__ rows, const index_t *__restrict__ ptr, const index_t *__restrict__ chunk_first,
                                                    const index_t *__restrict__ chunk_row, long long nchunks, long long chunk, long long base,
                                                    index_t *__restrict__ col, T *__restrict__ val, unsigned *__restrict__ slot) {
  const long long c = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (c >= nchunks) return;
  const index_t   k = chunk_row[c], r = rows[k];
  const long long off = (long long)(c - chunk_first[k]) * chunk, n = min(chunk, (long long)(rowptr[r + 1] - rowptr[r]) - off);
  const long long q0 = rowptr[r] + off, d = ptr[k] + off;
  for (long long t = threadIdx.x & 31; t < n; t += 32) {
    col[d + t]        = colidx[q0 + t];
    val[base + d + t] = aval[q0 + t];
    slot[q0 + t]      = unsigned(base + d + t);
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads) lr_diag_zero(const index_t *__restrict__ rows, index_t nlong, const index_t *__restrict__ rowmap, T *__restrict__ d) {
  const long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (k < nlong) d[rowmap ? rowmap[rows[k]] : rows[k]] = T(0);
}

} // namespace

template <typename T>
std::size_t LongRowsDevice<T>::device_bytes() const {
  if (!ptr_) return 0;
  return format_bytes() + std::size_t(nlong_ + 1) * sizeof(index_t) + std::size_t(nchunks_) * (sizeof(index_t) + sizeof(T)) + std::size_t(nchunks_ + (nchunks_ > 0)) * sizeof(index_t) +
         std::size_t(nlong_) * sizeof(unsigned);
}

template <typename T>
void LongRowsDevice<T>::release() {
  device_free(rows_);
  device_free(ptr_);
  device_free(col_);
  device_free(chunk_first_);
  device_free(chunk_row_);
  device_free(chunk_beg_);
  device_free(partial_);
  device_free(arrived_);
  nlong_ = longest_ = 0, nnz_ = nchunks_ = 0;
  shape_ = LongShape{};
}

template <typename T>
cudaError_t LongRowsDevice<T>::classify(const DeviceCsrView<T> &A, long long long_row, index_t *short_pos, StreamTemps &tmp, cudaStream_t s) {
  release();
  const long long n = A.nrows;
  index_t        *flag = tmp.get<index_t>(n + 1), *len = tmp.get<index_t>(n + 1), *idx = tmp.get<index_t>(n + 1), *off = tmp.get<index_t>(n + 1), *mx = tmp.get<index_t>(1);
  GPUMAT_CUDA_TRY(tmp.err);
  lr_classify<<<grid_for(n + 1, kThreads), kThreads, 0, s>>>(A.rowptr, A.nrows, long_row, flag, len);
  GPUMAT_CUDA_TRY(launched());
  GPUMAT_CUDA_TRY(exclusive_sum(flag, idx, n + 1, s));
  GPUMAT_CUDA_TRY(exclusive_sum(len, off, n + 1, s));
  GPUMAT_CUDA_TRY(cudaMemsetAsync(mx, 0, sizeof(index_t), s));
  GPUMAT_CUDA_TRY(reduce_max(len, n + 1, mx, s));
  index_t totals[3] = {0, 0, 0}; // long rows, long entries, the longest
  GPUMAT_CUDA_TRY(cudaMemcpyAsync(&totals[0], idx + n, sizeof(index_t), cudaMemcpyDeviceToHost, s));
  GPUMAT_CUDA_TRY(cudaMemcpyAsync(&totals[1], off + n, sizeof(index_t), cudaMemcpyDeviceToHost, s));
  GPUMAT_CUDA_TRY(cudaMemcpyAsync(&totals[2], mx, sizeof(index_t), cudaMemcpyDeviceToHost, s));
  GPUMAT_CUDA_TRY(cudaStreamSynchronize(s));
  nlong_ = totals[0], nnz_ = totals[1], longest_ = totals[2];
  GPUMAT_CUDA_TRY(device_alloc(rows_, std::size_t(nlong_)));
  GPUMAT_CUDA_TRY(device_alloc(ptr_, std::size_t(nlong_) + 1));
  lr_split<<<grid_for(n + 1, kThreads), kThreads, 0, s>>>(A.rowptr, A.nrows, long_row, idx, off, short_pos, rows_, ptr_);
  return launched();
}

template <typename T>
cudaError_t LongRowsDevice<T>::fill(const DeviceCsrView<T> &A, LongShape user, T *vals, long long base, unsigned *slot, StreamTemps &tmp, cudaStream_t s) {
  if (nlong_ == 0) return cudaSuccess;
  shape_                = long_shape(nlong_, nnz_, longest_, user);
  const long long chunk = shape_.entries();
  GPUMAT_CUDA_TRY(device_alloc(col_, std::size_t(nnz_)));
  index_t *counts = tmp.get<index_t>(std::size_t(nlong_) + 1);
  GPUMAT_CUDA_TRY(tmp.err);
  GPUMAT_CUDA_TRY(device_alloc(chunk_first_, std::size_t(nlong_) + 1));
  lr_chunk_counts<<<grid_for(nlong_ + 1, kThreads), kThreads, 0, s>>>(ptr_, nlong_, chunk, counts);
  GPUMAT_CUDA_TRY(launched());
  GPUMAT_CUDA_TRY(exclusive_sum(counts, chunk_first_, nlong_ + 1, s));
  index_t nch = 0;
  GPUMAT_CUDA_TRY(cudaMemcpyAsync(&nch, chunk_first_ + nlong_, sizeof(index_t), cudaMemcpyDeviceToHost, s));
  GPUMAT_CUDA_TRY(cudaStreamSynchronize(s));
  nchunks_ = nch;
  GPUMAT_CUDA_TRY(device_alloc(chunk_row_, std::size_t(nchunks_)));
  GPUMAT_CUDA_TRY(device_alloc(chunk_beg_, std::size_t(nchunks_) + 1));
  GPUMAT_CUDA_TRY(device_alloc(partial_, std::size_t(nchunks_)));
  GPUMAT_CUDA_TRY(device_alloc(arrived_, std::size_t(nlong_)));
  GPUMAT_CUDA_TRY(cudaMemsetAsync(arrived_, 0, sizeof(unsigned) * std::size_t(nlong_), s));
  lr_chunk_rows<<<grid_for(nchunks_, kThreads), kThreads, 0, s>>>(chunk_first_, ptr_, nlong_, nchunks_, chunk, chunk_row_, chunk_beg_);
  GPUMAT_CUDA_TRY(launched());
  lr_copy<T><<<grid_for(nchunks_ * 32, kThreads), kThreads, 0, s>>>(A.rowptr, A.colidx, A.val, rows_, ptr_, chunk_first_, chunk_row_, nchunks_, chunk, base, col_, vals, slot);
  return launched();
}

template <typename T>
cudaError_t LongRowsDevice<T>::zero_diagonal(const index_t *rowmap, T *d, cudaStream_t s) const {
  if (nlong_ == 0) return cudaSuccess;
  lr_diag_zero<T><<<grid_for(nlong_, kThreads), kThreads, 0, s>>>(rows_, nlong_, rowmap, d);
  return launched();
}

template <typename T>
cudaError_t LongRowsDevice<T>::download(std::vector<index_t> &rows, std::vector<index_t> &ptr, std::vector<index_t> &col) const {
  GPUMAT_CUDA_TRY(settled());
  auto get = [](std::vector<index_t> &v, const index_t *d, std::size_t n) {
    v.resize(n);
    return n ? cudaMemcpy(v.data(), d, n * sizeof(index_t), cudaMemcpyDeviceToHost) : cudaSuccess;
  };
  GPUMAT_CUDA_TRY(get(rows, rows_, std::size_t(nlong_)));
  if (ptr_) GPUMAT_CUDA_TRY(get(ptr, ptr_, std::size_t(nlong_) + 1));
  else ptr.assign(1, 0);
  return get(col, col_, std::size_t(nnz_));
}

template class LongRowsDevice<double>;
template class LongRowsDevice<float>;

} // namespace cuda
} // namespace gpumat
