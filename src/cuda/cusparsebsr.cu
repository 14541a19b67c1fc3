// cusparsebsr on the GPU (see cusparsebsr.cuh; the layout: src/core/cusparsebsr.hpp).
//
// Build, from the uploaded CSR: a thread per block row merges the sorted column lists of its bs
// rows by block column (each step: the smallest block column under the bs cursors, then every
// cursor advanced past it), once to count the blocks and once to write them and the slot map; a
// CUB exclusive sum of the counts between the two passes. Work O(nnz + bs * nnzb) (the same merge
// as the host builder, so both produce the same layout); a block row of long rows is serialized in
// its thread, which costs only build time.
// Byte model of a product (cuSPARSE's kernel, fp64): 8 B per stored value (bs*bs per block, fill
// included) + 4 B per block + 4 B per block row, x gathered a block column at a time, y written
// once; with padding, 16 B per column (x copied into the padded x) and 24 B per row (the padded y
// read, z read, y written) more.
#include "cusparsebsr.cuh"
#include "common.cuh"
#include "rowmap.cuh"

#include <limits>

namespace gpumat {
namespace cuda {

namespace {

constexpr int kThreads = 128; // the merge kernels keep 2 * bsr_max_bs cursors per thread

// The merge of block row I (see the header comment). With `bcol` null it only counts.
__device__ void bsr_merge_row(const index_t *__restrict__ rowptr, const index_t *__restrict__ colidx, index_t nrows, int bs, bool row_major,
                              index_t I, index_t first, index_t *__restrict__ count, index_t *__restrict__ bcol, index_t *__restrict__ slot) {
  index_t p[bsr_max_bs], e[bsr_max_bs];
  const long long r0 = (long long)I * bs;
  const int       nr = int(min((long long)bs, (long long)nrows - r0));
  for (int i = 0; i < nr; ++i) {
    p[i] = rowptr[r0 + i];
    e[i] = rowptr[r0 + i + 1];
  }
  const index_t none = std::numeric_limits<index_t>::max();
  index_t       b    = first;
  for (;;) {
    index_t J = none;
    for (int i = 0; i < nr; ++i)
      if (p[i] < e[i]) J = min(J, colidx[p[i]] / bs);
    if (J == none) break;
    if (bcol) {
      bcol[b] = J;
      for (int i = 0; i < nr; ++i)
        for (; p[i] < e[i] && colidx[p[i]] / bs == J; ++p[i]) {
          const index_t j = colidx[p[i]] % bs;
          slot[p[i]]      = b * bs * bs + (row_major ? i * bs + j : j * bs + i);
        }
    } else {
      for (int i = 0; i < nr; ++i)
        while (p[i] < e[i] && colidx[p[i]] / bs == J) ++p[i];
    }
    ++b;
  }
  if (count) *count = b - first;
}

__global__ void __launch_bounds__(kThreads) bsr_count(const index_t *__restrict__ rowptr, const index_t *__restrict__ colidx, index_t nrows, int bs,
                                                      index_t mb, index_t *__restrict__ counts) {
  const long long I = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (I > mb) return;
  if (I == mb) { // the scan's last input: browptr[mb] becomes the block count
    counts[I] = 0;
    return;
  }
  bsr_merge_row(rowptr, colidx, nrows, bs, false, index_t(I), 0, counts + I, nullptr, nullptr);
}

__global__ void __launch_bounds__(kThreads) bsr_fill(const index_t *__restrict__ rowptr, const index_t *__restrict__ colidx, index_t nrows, int bs,
                                                     bool row_major, index_t mb, const index_t *__restrict__ browptr, index_t *__restrict__ bcol,
                                                     index_t *__restrict__ slot) {
  const long long I = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= mb) return;
  bsr_merge_row(rowptr, colidx, nrows, bs, row_major, index_t(I), browptr[I], nullptr, bcol, slot);
}

// y[r] = w[r] (+ z[r]), r < n: cuSPARSE's padded y into the caller's (z may equal y).
template <typename T>
__global__ void __launch_bounds__(kThreads) bsr_unpad(index_t n, const T *__restrict__ w, const T *z, T *y) {
  const long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) y[r] = z ? z[r] + w[r] : w[r];
}

template <typename T>
__global__ void __launch_bounds__(kThreads) bsr_diag(const index_t *__restrict__ browptr, const index_t *__restrict__ bcol, const T *__restrict__ val,
                                                     const index_t *__restrict__ rowmap, index_t nrows, int bs, bool row_major, T *__restrict__ d) {
  const long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= nrows) return;
  const index_t c = rowmap ? rowmap[r] : index_t(r), I = index_t(r / bs), J = c / bs, i = index_t(r % bs), j = c % bs;
  index_t       lo = browptr[I], hi = browptr[I + 1];
  while (lo < hi) { // block columns ascend within a block row
    const index_t mid = lo + (hi - lo) / 2;
    if (bcol[mid] < J) lo = mid + 1;
    else hi = mid;
  }
  d[c] = lo < browptr[I + 1] && bcol[lo] == J ? val[(long long)lo * bs * bs + (row_major ? i * bs + j : j * bs + i)] : T(0);
}


} // namespace

template <typename T>
cudaError_t BsrDevice<T>::build(const CsrView<T> &A, int bs, bool row_major, cudaStream_t s) {
  free_storage();
  spmv_.clear_failure();
  if (bs < bsr_min_bs || bs > bsr_max_bs) return cudaErrorInvalidValue;
  const index_t nnz = A.nnz();
  nrows_            = A.nrows;
  ncols_            = A.ncols;
  nnz_              = nnz;
  bs_               = bs;
  row_major_        = row_major;
  mb_               = index_t((std::int64_t(nrows_) + bs - 1) / bs);
  nb_               = index_t((std::int64_t(ncols_) + bs - 1) / bs);
  index_t    *rowptr = nullptr, *colidx = nullptr, *counts = nullptr;
  cudaError_t err    = cudaSuccess;
  auto        cleanup = [&](cudaError_t e) {
    if (e == cudaSuccess) e = cudaStreamSynchronize(s); // the temporaries are in use until then
    else (void)cudaStreamSynchronize(s);
    device_free(rowptr);
    device_free(colidx);
    device_free(counts);
    if (e != cudaSuccess) free_storage();
    return e;
  };
  if ((err = device_alloc(browptr_, std::size_t(mb_) + 1)) != cudaSuccess || (err = device_alloc(slot_, std::size_t(nnz))) != cudaSuccess ||
      (err = device_alloc(staging_, std::size_t(nnz))) != cudaSuccess || (err = device_alloc(rowptr, std::size_t(nrows_) + 1)) != cudaSuccess ||
      (err = device_alloc(colidx, std::size_t(nnz))) != cudaSuccess || (err = device_alloc(counts, std::size_t(mb_) + 1)) != cudaSuccess)
    return cleanup(err);
  if (mb_ == 0) return cleanup(cudaMemsetAsync(browptr_, 0, sizeof(index_t), s)); // no block rows: browptr = {0}
  if ((err = cudaMemcpyAsync(rowptr, A.rowptr, (std::size_t(nrows_) + 1) * sizeof(index_t), cudaMemcpyHostToDevice, s)) != cudaSuccess) return cleanup(err);
  if (nnz && (err = cudaMemcpyAsync(colidx, A.colidx, std::size_t(nnz) * sizeof(index_t), cudaMemcpyHostToDevice, s)) != cudaSuccess) return cleanup(err);
  if (nnz && (err = cudaMemcpyAsync(staging_, A.val, std::size_t(nnz) * sizeof(T), cudaMemcpyHostToDevice, s)) != cudaSuccess) return cleanup(err);
  bsr_count<<<grid_for(std::int64_t(mb_) + 1, kThreads), kThreads, 0, s>>>(rowptr, colidx, nrows_, bs, mb_, counts);
  if ((err = launched()) != cudaSuccess || (err = exclusive_sum(counts, browptr_, std::int64_t(mb_) + 1, s)) != cudaSuccess) return cleanup(err);
  index_t nnzb = 0;
  if ((err = cudaMemcpyAsync(&nnzb, browptr_ + mb_, sizeof(index_t), cudaMemcpyDeviceToHost, s)) != cudaSuccess || (err = cudaStreamSynchronize(s)) != cudaSuccess)
    return cleanup(err);
  nnzb_ = nnzb;
  if (nnzb_ * bs * bs > std::numeric_limits<index_t>::max()) return cleanup(cudaErrorInvalidValue);
  const std::size_t stored = std::size_t(nnzb_) * bs * bs;
  if ((err = device_alloc(bcol_, std::size_t(nnzb_))) != cudaSuccess || (err = device_alloc(val_, stored)) != cudaSuccess) return cleanup(err);
  if (stored && (err = cudaMemsetAsync(val_, 0, stored * sizeof(T), s)) != cudaSuccess) return cleanup(err);
  bsr_fill<<<grid_for(mb_, kThreads), kThreads, 0, s>>>(rowptr, colidx, nrows_, bs, row_major, mb_, browptr_, bcol_, slot_);
  if ((err = launched()) != cudaSuccess || (err = scatter_slots(std::int64_t(nnz), slot_, staging_, val_, s)) != cudaSuccess) return cleanup(err);
  if (nnz == 0) return cleanup(cudaSuccess); // products are y = z (or 0): no cuSPARSE matrix
  const std::size_t mpad = std::size_t(mb_) * bs, npad = std::size_t(nb_) * bs;
  if (npad != std::size_t(ncols_)) { // x[ncols..npad) stays 0: padded columns hold zero values, and NaN must not leak in
    if ((err = device_alloc(xpad_, npad)) != cudaSuccess || (err = cudaMemsetAsync(xpad_, 0, npad * sizeof(T), s)) != cudaSuccess) return cleanup(err);
  }
  if (mpad != std::size_t(nrows_) && (err = device_alloc(ypad_, mpad)) != cudaSuccess) return cleanup(err);
  cusparseSpMatDescr_t   mat = nullptr;
  const cusparseStatus_t cst = cusparseCreateBsr(&mat, mb_, nb_, nnzb_, bs, bs, browptr_, bcol_, val_, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                                 cusparse_value_type<T>(), row_major ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL);
  if (cst != CUSPARSE_STATUS_SUCCESS) return cleanup(spmv_.record_failure("cusparseCreateBsr", cst));
  return cleanup(spmv_.setup(mat, std::int64_t(mpad), std::int64_t(npad), CUSPARSE_SPMV_BSR_ALG1, s));
}

template <typename T>
cudaError_t BsrDevice<T>::refresh(const T *val, cudaStream_t s, Mem where) {
  if (nnz_ == 0) return cudaSuccess;
  if (where == Mem::Device) return scatter_slots(std::int64_t(nnz_), slot_, val, val_, s);
  cudaError_t err = cudaMemcpyAsync(staging_, val, std::size_t(nnz_) * sizeof(T), cudaMemcpyHostToDevice, s);
  if (err == cudaSuccess) err = scatter_slots(std::int64_t(nnz_), slot_, staging_, val_, s);
  return err;
}

template <typename T>
cudaError_t BsrDevice<T>::apply(Op op, const T *x, const T *z, T *y, cudaStream_t s) const {
  if (op == Op::Trans) return cudaErrorNotSupported;
  if (nrows_ == 0) return cudaSuccess;
  if (nnz_ == 0) return init_output(y, z, nrows_, s);
  cudaError_t err = cudaSuccess;
  const T    *xin = x;
  if (xpad_) {
    if ((err = cudaMemcpyAsync(xpad_, x, std::size_t(ncols_) * sizeof(T), cudaMemcpyDeviceToDevice, s)) != cudaSuccess) return err;
    xin = xpad_;
  }
  if (ypad_) {
    if ((err = spmv_.multiply(xin, ypad_, false, s)) != cudaSuccess) return err;
    bsr_unpad<T><<<grid_for(nrows_, kThreads), kThreads, 0, s>>>(nrows_, ypad_, z, y);
    return launched();
  }
  return spmv_.multiply_add(xin, z, y, nrows_, s);
}

template <typename T>
cudaError_t BsrDevice<T>::diagonal(const index_t *rowmap, T *d, cudaStream_t s) const {
  if (nrows_ == 0) return cudaSuccess;
  bsr_diag<T><<<grid_for(nrows_, kThreads), kThreads, 0, s>>>(browptr_, bcol_, val_, rowmap, nrows_, bs_, row_major_, d);
  return launched();
}

template <typename T>
cudaError_t BsrDevice<T>::download(BsrLayout &L, std::vector<T> &values) const {
  GPUMAT_CUDA_TRY(settled());
  L           = BsrLayout{};
  L.nrows     = nrows_;
  L.ncols     = ncols_;
  L.bs        = bs_;
  L.mb        = mb_;
  L.nb        = nb_;
  L.row_major = row_major_;
  L.rowptr.resize(std::size_t(mb_) + 1);
  L.colidx.resize(std::size_t(nnzb_));
  L.slot.resize(std::size_t(nnz_));
  values.resize(std::size_t(L.stored()));
  cudaError_t err = cudaMemcpy(L.rowptr.data(), browptr_, L.rowptr.size() * sizeof(index_t), cudaMemcpyDeviceToHost);
  if (err == cudaSuccess && nnzb_) err = cudaMemcpy(L.colidx.data(), bcol_, L.colidx.size() * sizeof(index_t), cudaMemcpyDeviceToHost);
  if (err == cudaSuccess && nnzb_) err = cudaMemcpy(values.data(), val_, values.size() * sizeof(T), cudaMemcpyDeviceToHost);
  if (err == cudaSuccess && nnz_) err = cudaMemcpy(L.slot.data(), slot_, L.slot.size() * sizeof(index_t), cudaMemcpyDeviceToHost);
  return err;
}

template <typename T>
std::size_t BsrDevice<T>::device_bytes() const {
  if (!browptr_) return 0;
  return std::size_t(nnzb_) * (std::size_t(bs_) * bs_ * sizeof(T) + sizeof(index_t)) + (std::size_t(mb_) + 1) * sizeof(index_t) +
         std::size_t(nnz_) * (sizeof(index_t) + sizeof(T)) + (xpad_ ? std::size_t(nb_) * bs_ * sizeof(T) : 0) +
         (ypad_ ? std::size_t(mb_) * bs_ * sizeof(T) : 0) + spmv_.buffer_bytes();
}

template <typename T>
void BsrDevice<T>::free_storage() {
  spmv_.reset(); // the descriptor points at the arrays below
  device_free(browptr_);
  device_free(bcol_);
  device_free(slot_);
  device_free(val_);
  device_free(staging_);
  device_free(xpad_);
  device_free(ypad_);
  nrows_ = ncols_ = nnz_ = mb_ = nb_ = 0;
  bs_                                = 0;
  row_major_                         = false;
  nnzb_                              = 0;
}

template <typename T>
void BsrDevice<T>::release() {
  free_storage();
  spmv_.release();
}

template class BsrDevice<double>;
template class BsrDevice<float>;

} // namespace cuda
} // namespace gpumat
