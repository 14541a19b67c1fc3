// cusparsesell on the GPU (see cusparsesell.cuh; the layout: src/core/cusparsesell.hpp).
//
// Build, from the uploaded CSR: widths[s] = S * (longest row of slice s), a thread per slice;
// offsets = exclusive sum of the widths (CUB); column indices set to -1 and values to 0 (padding);
// a thread per row writes its entries' positions (the slot map) and column indices, consecutive
// threads of a slice writing consecutive positions; the values follow through the slot map. Total
// work O(nrows + nnz + padded); a thread per row serializes a long row, which costs only build time.
// Byte model of a product (cuSPARSE's kernel, fp64): 12 B per stored entry (padding included),
// 4 B per slice, x gathered, y written once.
#include "cusparsesell.cuh"
#include "common.cuh"
#include "rowmap.cuh"

#include <limits>
#include <stdexcept>

namespace gpumat {
namespace cuda {

namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads) sell_slice_sizes(const index_t *__restrict__ rowptr, index_t nrows, index_t nslices, int S,
                                                             index_t *__restrict__ sizes) {
  const long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (s > nslices) return;
  if (s == nslices) { // the scan's last input: offsets[nslices] becomes the total
    sizes[s] = 0;
    return;
  }
  const long long r0 = s * S, r1 = min((long long)nrows, r0 + S);
  index_t         w  = 0;
  for (long long r = r0; r < r1; ++r) w = max(w, rowptr[r + 1] - rowptr[r]);
  sizes[s] = w * S;
}

__global__ void __launch_bounds__(kThreads) sell_fill(const index_t *__restrict__ rowptr, const index_t *__restrict__ colidx, index_t nrows, int S,
                                                      const index_t *__restrict__ offsets, index_t *__restrict__ col, index_t *__restrict__ slot) {
  const long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= nrows) return;
  const index_t base = offsets[r / S] + index_t(r % S), b = rowptr[r], e = rowptr[r + 1];
  for (index_t k = b; k < e; ++k) {
    const index_t pos = base + (k - b) * S;
    slot[k]           = pos;
    col[pos]          = colidx[k];
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads) sell_diag(const index_t *__restrict__ offsets, const index_t *__restrict__ col, const T *__restrict__ val,
                                                      const index_t *__restrict__ rowmap, index_t nrows, int S, T *__restrict__ d) {
  const long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= nrows) return;
  const index_t c = rowmap ? rowmap[r] : index_t(r), s = index_t(r / S);
  const index_t base = offsets[s] + index_t(r % S), w = (offsets[s + 1] - offsets[s]) / S;
  T             v    = T(0);
  for (index_t j = 0; j < w; ++j) { // a row's columns ascend, padding (-1) follows them
    const index_t cj = col[base + j * S];
    if (cj < 0 || cj > c) break;
    if (cj == c) {
      v = val[base + j * S];
      break;
    }
  }
  d[c] = v;
}


} // namespace

template <typename T>
cudaError_t SellDevice<T>::build(const CsrView<T> &A, int S, cudaStream_t s) {
  free_storage();
  spmv_.clear_failure();
  SellStats st;
  try {
    st = sell_stats(A, S); // validates S; the padded size, to allocate before the device scan
  } catch (const std::invalid_argument &) {
    return cudaErrorInvalidValue;
  }
  if (st.padded > std::numeric_limits<index_t>::max()) return cudaErrorInvalidValue;
  const index_t nnz = A.nnz();
  nrows_            = A.nrows;
  ncols_            = A.ncols;
  nnz_              = nnz;
  S_                = S;
  nslices_          = index_t(st.slices);
  padded_           = st.padded;
  index_t    *rowptr = nullptr, *colidx = nullptr, *sizes = nullptr;
  cudaError_t err    = cudaSuccess;
  auto        cleanup = [&](cudaError_t e) {
    if (e == cudaSuccess) e = cudaStreamSynchronize(s); // the temporaries are in use until then
    else (void)cudaStreamSynchronize(s);
    device_free(rowptr);
    device_free(colidx);
    device_free(sizes);
    if (e != cudaSuccess) free_storage();
    return e;
  };
  if ((err = device_alloc(offsets_, std::size_t(nslices_) + 1)) != cudaSuccess || (err = device_alloc(col_, std::size_t(padded_))) != cudaSuccess ||
      (err = device_alloc(val_, std::size_t(padded_))) != cudaSuccess || (err = device_alloc(slot_, std::size_t(nnz))) != cudaSuccess ||
      (err = device_alloc(staging_, std::size_t(nnz))) != cudaSuccess || (err = device_alloc(rowptr, std::size_t(nrows_) + 1)) != cudaSuccess ||
      (err = device_alloc(colidx, std::size_t(nnz))) != cudaSuccess || (err = device_alloc(sizes, std::size_t(nslices_) + 1)) != cudaSuccess)
    return cleanup(err);
  if (nrows_ == 0) { // no slices: offsets = {0}
    err = cudaMemsetAsync(offsets_, 0, sizeof(index_t), s);
    return cleanup(err);
  }
  if ((err = cudaMemcpyAsync(rowptr, A.rowptr, (std::size_t(nrows_) + 1) * sizeof(index_t), cudaMemcpyHostToDevice, s)) != cudaSuccess) return cleanup(err);
  if (nnz && (err = cudaMemcpyAsync(colidx, A.colidx, std::size_t(nnz) * sizeof(index_t), cudaMemcpyHostToDevice, s)) != cudaSuccess) return cleanup(err);
  if (nnz && (err = cudaMemcpyAsync(staging_, A.val, std::size_t(nnz) * sizeof(T), cudaMemcpyHostToDevice, s)) != cudaSuccess) return cleanup(err);
  sell_slice_sizes<<<grid_for(std::int64_t(nslices_) + 1, kThreads), kThreads, 0, s>>>(rowptr, nrows_, nslices_, S, sizes);
  if ((err = launched()) != cudaSuccess || (err = exclusive_sum(sizes, offsets_, std::int64_t(nslices_) + 1, s)) != cudaSuccess) return cleanup(err);
  if (padded_) {
    if ((err = cudaMemsetAsync(col_, 0xff, std::size_t(padded_) * sizeof(index_t), s)) != cudaSuccess || // -1: padding
        (err = cudaMemsetAsync(val_, 0, std::size_t(padded_) * sizeof(T), s)) != cudaSuccess)
      return cleanup(err);
  }
  sell_fill<<<grid_for(nrows_, kThreads), kThreads, 0, s>>>(rowptr, colidx, nrows_, S, offsets_, col_, slot_);
  if ((err = launched()) != cudaSuccess || (err = scatter_slots(std::int64_t(nnz), slot_, staging_, val_, s)) != cudaSuccess) return cleanup(err);
  if (nnz == 0) return cleanup(cudaSuccess); // products are y = z (or 0): no cuSPARSE matrix
  cusparseSpMatDescr_t mat = nullptr;
  const cusparseStatus_t cst = cusparseCreateSlicedEll(&mat, nrows_, ncols_, nnz, padded_, S, offsets_, col_, val_, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                                       CUSPARSE_INDEX_BASE_ZERO, cusparse_value_type<T>());
  if (cst != CUSPARSE_STATUS_SUCCESS) return cleanup(spmv_.record_failure("cusparseCreateSlicedEll", cst));
  return cleanup(spmv_.setup(mat, nrows_, ncols_, CUSPARSE_SPMV_SELL_ALG1, s));
}

template <typename T>
cudaError_t SellDevice<T>::refresh(const T *val, cudaStream_t s, Mem where) {
  if (nnz_ == 0) return cudaSuccess;
  if (where == Mem::Device) return scatter_slots(std::int64_t(nnz_), slot_, val, val_, s);
  cudaError_t err = cudaMemcpyAsync(staging_, val, std::size_t(nnz_) * sizeof(T), cudaMemcpyHostToDevice, s);
  if (err == cudaSuccess) err = scatter_slots(std::int64_t(nnz_), slot_, staging_, val_, s);
  return err;
}

template <typename T>
cudaError_t SellDevice<T>::apply(Op op, const T *x, const T *z, T *y, cudaStream_t s) const {
  if (op == Op::Trans) return cudaErrorNotSupported;
  if (nrows_ == 0) return cudaSuccess;
  if (nnz_ == 0) return init_output(y, z, nrows_, s);
  return spmv_.multiply_add(x, z, y, nrows_, s);
}

template <typename T>
cudaError_t SellDevice<T>::diagonal(const index_t *rowmap, T *d, cudaStream_t s) const {
  if (nrows_ == 0) return cudaSuccess;
  sell_diag<T><<<grid_for(nrows_, kThreads), kThreads, 0, s>>>(offsets_, col_, val_, rowmap, nrows_, S_, d);
  return launched();
}

template <typename T>
cudaError_t SellDevice<T>::download(SellLayout &L, std::vector<T> &values) const {
  GPUMAT_CUDA_TRY(settled());
  L       = SellLayout{};
  L.nrows = nrows_;
  L.ncols = ncols_;
  L.slice = S_;
  L.slice_offsets.resize(std::size_t(nslices_) + 1);
  L.colidx.resize(std::size_t(padded_));
  L.slot.resize(std::size_t(nnz_));
  values.resize(std::size_t(padded_));
  cudaError_t err = cudaMemcpy(L.slice_offsets.data(), offsets_, L.slice_offsets.size() * sizeof(index_t), cudaMemcpyDeviceToHost);
  if (err == cudaSuccess && padded_) err = cudaMemcpy(L.colidx.data(), col_, L.colidx.size() * sizeof(index_t), cudaMemcpyDeviceToHost);
  if (err == cudaSuccess && padded_) err = cudaMemcpy(values.data(), val_, values.size() * sizeof(T), cudaMemcpyDeviceToHost);
  if (err == cudaSuccess && nnz_) err = cudaMemcpy(L.slot.data(), slot_, L.slot.size() * sizeof(index_t), cudaMemcpyDeviceToHost);
  return err;
}

template <typename T>
std::size_t SellDevice<T>::device_bytes() const {
  if (!offsets_) return 0;
  return (std::size_t(nslices_) + 1) * sizeof(index_t) + std::size_t(padded_) * (sizeof(index_t) + sizeof(T)) +
         std::size_t(nnz_) * (sizeof(index_t) + sizeof(T)) + spmv_.buffer_bytes();
}

template <typename T>
void SellDevice<T>::free_storage() {
  spmv_.reset(); // the descriptor points at the arrays below
  device_free(offsets_);
  device_free(col_);
  device_free(slot_);
  device_free(val_);
  device_free(staging_);
  nrows_ = ncols_ = nnz_ = nslices_ = 0;
  S_                                 = 0;
  padded_                            = 0;
}

template <typename T>
void SellDevice<T>::release() {
  free_storage();
  spmv_.release();
}

template class SellDevice<double>;
template class SellDevice<float>;

} // namespace cuda
} // namespace gpumat
