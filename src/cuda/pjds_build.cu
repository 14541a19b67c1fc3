// pjds on the GPU, its build (see pjds.cuh; the layout: src/core/pjds.hpp; the products: pjds.cu).
// Here the layout, dictionary columns and the refresh; positional columns in pjds_positional.cu,
// the value table in pjds_values.cu, what they share in pjds_build.cuh.
//
// Build, from the CSR on the device (every step a kernel over rows or entries, or CUB):
//   split   the long rows (more than long_row entries) apart (LongRowsDevice::classify: flags and
//           two exclusive sums); the other rows at their position in matrix order, each with a
//           sort key (window << lenbits | (lenmax - length));
//   sort    a stable radix sort of the keys over the bits they use (sigma > 1): descending length
//           within windows of sigma positions, equal lengths in matrix order (the host's order);
//   layout  lengths in sorted order, each block's longest row times its rows, an exclusive sum of
//           those (64-bit) into the block starts, the padded size read back;
//   fill    a thread per position writes its row column by column (consecutive positions of a
//           block at consecutive addresses), its padding (value 0, the row's last column) and the
//           slot map; the long rows' chunks and entries (LongRowsDevice::fill);
//   code    (unless the columns are plain) a warp per block collects its distinct offsets (column
//           - row) in shared memory (__match_any_sync, a ballot for the new ones), their counts
//           read back; where every block's fit in 256 (and, auto, that reads fewer bytes) a second
//           pass sorts each dictionary and writes it and every entry's 8-bit code (a binary
//           search), and the 32-bit columns are freed;
//   position (positional columns: PjdsDevice::position_columns, pjds_positional.cu) for each group
//           size of kPjdsPositionalGroups, on a sample of the blocks, every entry's offset from its
//           group's first row, each block's distinct ones counted; the group storing the fewest
//           entries kept and its offsets counted over every block, the values (and their slots)
//           moved to the positions of their offsets, the 32-bit columns freed.
//   values  (unless the values are plain; auto: first, on the 32-bit layout, and anew on positional
//           columns kept over a table) the value table (PjdsDevice::code_values,
//           pjds_values.cu): the distinct values gathered in hash sets, their count read back;
//           where they are at most 256 (and, auto, that pays) a table and every value's 8-bit code,
//           where more and a table of 16-bit codes can result, a bounded hash set, the table of its
//           sorted keys and every value's 16-bit code.
// A refresh scatters new values through the slot map (positional columns: then a thread per CSR
// entry rewrites a value with the sentinel's bits as the canonical NaN), then re-derives the value
// codes or the fp32 copy with the build's kernels (the codes': pjds_build.cuh; a value outside the
// table clears table_ok: the products then read the values).
#include "pjds_build.cuh"
#include "common.cuh"

#include <algorithm>
#include <climits>
#include <string>

namespace gpumat {
namespace cuda {

namespace {

// ---------------------------------------------------------------------------------------------
// Builder kernels.

// A short row r to its position i = short_pos[r] (LongRowsDevice::classify), with its sort key
// when keys is not null.
__global__ void __launch_bounds__(kThreads) pj_split(const index_t *__restrict__ rowptr, index_t nrows, long long long_row, const index_t *__restrict__ short_pos,
                                                     long long sigma, index_t lenmax, int lenbits, std::uint64_t *__restrict__ keys, index_t *__restrict__ rows) {
  const long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= nrows) return;
  const index_t len = rowptr[r + 1] - rowptr[r];
  if (len > long_row) return;
  const long long i = short_pos[r];
  if (rows) rows[i] = index_t(r);
  if (keys) keys[i] = (std::uint64_t(i / sigma) << lenbits) | std::uint64_t(lenmax - len);
}

__global__ void __launch_bounds__(kThreads) pj_rowlen(const index_t *__restrict__ rowptr, const index_t *__restrict__ perm, index_t npj,
                                                      index_t *__restrict__ rowlen) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= npj) return;
  const index_t r = perm ? perm[i] : index_t(i);
  rowlen[i]       = rowptr[r + 1] - rowptr[r];
}

// sizes[b] = (longest row of block b) x (its rows); sizes[nblocks] = 0.
__global__ void __launch_bounds__(kThreads) pj_block_sizes(const index_t *__restrict__ rowlen, index_t npj, int br, long long nblocks,
                                                           std::int64_t *__restrict__ sizes) {
  const long long b = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (b > nblocks) return;
  if (b == nblocks) {
    sizes[b] = 0;
    return;
  }
  const long long i0 = b * br, i1 = min((long long)npj, i0 + br);
  index_t         mx = 0;
  for (long long i = i0; i < i1; ++i) mx = max(mx, rowlen[i]);
  sizes[b] = std::int64_t(mx) * (i1 - i0);
}

template <typename T>
__global__ void __launch_bounds__(kThreads) pj_fill(const index_t *__restrict__ rowptr, const index_t *__restrict__ colidx, const T *__restrict__ aval,
                                                    const index_t *__restrict__ perm, const index_t *__restrict__ rowlen,
                                                    const std::int64_t *__restrict__ block_start, index_t npj, int br, index_t *__restrict__ col,
                                                    T *__restrict__ val, unsigned *__restrict__ slot) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= npj) return;
  const index_t   r = perm ? perm[i] : index_t(i), n = rowlen[i], q0 = rowptr[r];
  const long long b = i / br, rows = min((long long)br, (long long)npj - b * br);
  const long long bs = block_start[b], width = (block_start[b + 1] - bs) / rows, base = bs + (i - b * br);
  const index_t   last = n > 0 ? colidx[q0 + n - 1] : 0;
  for (long long j = 0; j < width; ++j) {
    const long long pos = base + j * rows;
    if (j < n) {
      col[pos]    = colidx[q0 + j];
      val[pos]    = aval[q0 + j];
      slot[q0 + j] = unsigned(pos);
    } else {
      col[pos] = last;
      val[pos] = T(0);
    }
  }
}

// A warp per block b of the layout: its distinct offsets (column - matrix row of the entry's
// position) gathered in shared memory in order of first appearance. Count: sizes[b] = their
// number, kPjdsDictMax + 1 where more (and sizes[nblocks] = 0). Write (every block fits): the
// dictionary sorted ascending to dict + dict_start[b], each entry's code (its offset's rank).
template <bool Write>
__global__ void __launch_bounds__(kDictWarps * 32) pj_dict(const index_t *__restrict__ col, const index_t *__restrict__ perm, const std::int64_t *__restrict__ block_start,
                                                           index_t npj, int br, long long nblocks, index_t *__restrict__ sizes, const index_t *__restrict__ dict_start,
                                                           index_t *__restrict__ dict, std::uint8_t *__restrict__ code) {
  __shared__ index_t seen[kDictWarps][kPjdsDictMax], sorted[kDictWarps][kPjdsDictMax];
  const int       w = int(threadIdx.x >> 5), lane = int(threadIdx.x & 31);
  const long long b = (long long)blockIdx.x * kDictWarps + w;
  if (!Write && b == nblocks && lane == 0) sizes[b] = 0;
  if (b >= nblocks) return; // the whole warp
  const long long i0 = b * br, rows = min((long long)br, (long long)npj - i0), bs = block_start[b], n = block_start[b + 1] - bs;
  index_t        *d = seen[w];
  int             k = 0;
  auto            offset = [&](long long e) {
    const long long i = i0 + e % rows;
    return col[bs + e] - (perm ? perm[i] : index_t(i));
  };
  for (long long e0 = 0; e0 < n; e0 += 32) {
    const bool     ok     = e0 + lane < n;
    const unsigned active = __ballot_sync(0xffffffffu, ok);
    bool           fresh  = false;
    index_t        o      = 0;
    if (ok) {
      o                = offset(e0 + lane);
      const unsigned g = __match_any_sync(active, o);
      if (lane == __ffs(g) - 1) { // the group's first lane looks it up
        fresh = true;
        for (int t = 0; t < k && fresh; ++t) fresh = d[t] != o;
      }
    }
    const unsigned nw = __ballot_sync(0xffffffffu, fresh);
    if (k + __popc(nw) > kPjdsDictMax) { // uniform across the warp
      if (!Write && lane == 0) sizes[b] = kPjdsDictMax + 1;
      return;
    }
    if (fresh) d[k + __popc(nw & ((1u << lane) - 1u))] = o;
    k += __popc(nw);
    __syncwarp();
  }
  if (!Write) {
    if (lane == 0) sizes[b] = index_t(k);
    return;
  }
  index_t *sd = sorted[w];
  for (int t = lane; t < k; t += 32) { // rank among distinct values: its sorted place
    int rank = 0;
    for (int u = 0; u < k; ++u) rank += d[u] < d[t];
    sd[rank] = d[t];
  }
  __syncwarp();
  const index_t ds = dict_start[b];
  for (int t = lane; t < k; t += 32) dict[ds + t] = sd[t];
  for (long long e = lane; e < n; e += 32) {
    const index_t o  = offset(e);
    int           lo = 0, hi = k - 1; // o is in sd[0, k)
    while (lo < hi) {
      const int mid = (lo + hi) >> 1;
      if (sd[mid] < o) lo = mid + 1;
      else hi = mid;
    }
    code[bs + e] = std::uint8_t(lo);
  }
}

// After a refresh of positional columns: a padded value of a CSR entry (slot[q] < padded) with the
// sentinel's bits becomes the canonical NaN; a thread per entry (grid-stride).
template <typename T>
__global__ void __launch_bounds__(kThreads) pj_unpad_slots(const unsigned *__restrict__ slot, long long nnz, long long padded, T *__restrict__ val) {
  for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < nnz; q += (long long)gridDim.x * blockDim.x) {
    const unsigned s = slot[q];
    if (s < padded && is_pjds_pad(val[s])) val[s] = pjds_nan<T>();
  }
}

// fp32 storage: val32[k] = val[k] rounded to float (pjds_round, as the host's: the sentinel to
// fp32's, NaNs to the canonical fp32 NaN, the rest to nearest).
template <typename T>
__global__ void __launch_bounds__(kThreads) pj_round(const T *__restrict__ val, long long n, float *__restrict__ val32) {
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (long long)gridDim.x * blockDim.x) val32[k] = pjds_round(val[k]);
}

} // namespace

template <typename T>
void PjdsDevice<T>::release() {
  device_free(perm_);
  device_free(rowlen_);
  device_free(block_start_);
  device_free(col_);
  device_free(code_);
  device_free(dict_);
  device_free(dict_start_);
  dict_entries_ = 0;
  device_free(poff_);
  device_free(poff_start_);
  npoff_  = 0;
  pgroup_ = 0;
  pos_declined_ = 0;
  device_free(table_);
  device_free(vcode_);
  device_free(vcode16_);
  device_free(table_ok_);
  ntable_ = 0;
  device_free(val32_);
  device_free(val_);
  device_free(slot_);
  lr_.release();
  trial_.clear();
  nrows_ = ncols_ = nnz_ = npj_ = 0;
  nblocks_ = padded_ = 0;
}

template <typename T>
cudaError_t PjdsDevice<T>::build(const CsrView<T> &A, const PjdsParams &params, cudaStream_t s) {
  release();
  return build_uploaded(A, s, [&](const DeviceCsrView<T> &v, PhaseTimer &clock) { return build_from(v, params, s, clock); });
}

template <typename T>
cudaError_t PjdsDevice<T>::build(const DeviceCsrView<T> &A, const PjdsParams &params, cudaStream_t s) {
  return build_on_device(A, s, [&](const DeviceCsrView<T> &v, PhaseTimer &clock) { return build_from(v, params, s, clock); });
}

template <typename T>
cudaError_t PjdsDevice<T>::build_from(const DeviceCsrView<T> &A, const PjdsParams &params, cudaStream_t s, PhaseTimer &clock) {
  release();
  why_ = "";
  phases_.clear();
  try {
    p_ = pjds_resolve(params);
  } catch (const std::exception &e) {
    return fail(e.what());
  }
  if (p_.sigma == 0) p_.sigma = pjds_all_rows;
  if (p_.long_row == 0) p_.long_row = INT_MAX;
  nrows_ = A.nrows, ncols_ = A.ncols, nnz_ = index_t(A.nnz);
  const int      br = p_.block_rows, nt = kThreads;
  const index_t *rowptr = A.rowptr, *colidx = A.colidx;
  const long long n = nrows_;
  // block_start_ marks a built object (device_bytes); an empty matrix has one block start, 0
  GPUMAT_CUDA_TRY(device_alloc(block_start_, 1));
  GPUMAT_CUDA_TRY(cudaMemsetAsync(block_start_, 0, sizeof(std::int64_t), s));
  if (n == 0) return cudaSuccess;

  StreamTemps tmp{s};
  index_t    *short_pos = tmp.get<index_t>(n + 1);
  GPUMAT_CUDA_TRY(tmp.err);
  GPUMAT_CUDA_TRY(lr_.classify(A, p_.long_row, short_pos, tmp, s));
  npj_ = index_t(n - lr_.count());
  const index_t nlong = lr_.count();

  // the order of the pJDS part: the short rows in matrix order, sorted by length within windows
  const bool      sorts = p_.sigma > 1 && npj_ > 1, identity = p_.sigma == 1 && nlong == 0; // as the host builder
  const long long lenmax  = std::min<long long>(p_.long_row, std::max<long long>(A.nnz, 1));
  const int       lenbits = bit_width((unsigned long long)lenmax);
  const long long sigma   = std::min<long long>(p_.sigma, std::max<long long>(npj_, 1));
  std::uint64_t  *keys = nullptr, *keys_sorted = nullptr;
  index_t        *rows = nullptr;
  if (!identity) GPUMAT_CUDA_TRY(device_alloc(perm_, std::size_t(npj_)));
  if (sorts) {
    keys        = tmp.get<std::uint64_t>(std::size_t(npj_));
    keys_sorted = tmp.get<std::uint64_t>(std::size_t(npj_));
    rows        = tmp.get<index_t>(std::size_t(npj_));
    GPUMAT_CUDA_TRY(tmp.err);
  } else rows = perm_; // sigma 1: the short rows in matrix order are the order (null: the identity)
  pj_split<<<grid_for(n, nt), nt, 0, s>>>(rowptr, nrows_, p_.long_row, short_pos, sigma, index_t(lenmax), lenbits, keys, rows);
  GPUMAT_CUDA_TRY(launched());
  clock.mark("split");
  if (sorts) {
    const int winbits = bit_width((unsigned long long)((npj_ - 1) / sigma));
    GPUMAT_CUDA_TRY(sort_pairs(keys, keys_sorted, rows, perm_, npj_, lenbits + winbits, s));
    clock.mark("sort");
  }

  // blocks: lengths in order, each block's width, the block starts
  nblocks_ = (std::int64_t(npj_) + br - 1) / br;
  device_free(block_start_);
  GPUMAT_CUDA_TRY(device_alloc(rowlen_, std::size_t(npj_)));
  GPUMAT_CUDA_TRY(device_alloc(block_start_, std::size_t(nblocks_) + 1));
  std::int64_t *sizes = tmp.get<std::int64_t>(std::size_t(nblocks_) + 1);
  GPUMAT_CUDA_TRY(tmp.err);
  if (npj_ > 0) pj_rowlen<<<grid_for(npj_, nt), nt, 0, s>>>(rowptr, perm_, npj_, rowlen_);
  GPUMAT_CUDA_TRY(launched());
  pj_block_sizes<<<grid_for(nblocks_ + 1, nt), nt, 0, s>>>(rowlen_, npj_, br, nblocks_, sizes);
  GPUMAT_CUDA_TRY(launched());
  GPUMAT_CUDA_TRY(exclusive_sum(sizes, block_start_, nblocks_ + 1, s));
  GPUMAT_CUDA_TRY(cudaMemcpyAsync(&padded_, block_start_ + nblocks_, sizeof(std::int64_t), cudaMemcpyDeviceToHost, s));
  GPUMAT_CUDA_TRY(cudaStreamSynchronize(s));
  clock.mark("layout");
  if (padded_ > INT_MAX)
    return fail("pjds: the padded part holds " + std::to_string(padded_) +
                " entries, beyond the 32-bit positions of its index; use more MPI ranks, or a smaller sorting window (-mat_pjds_sigma) or long-row threshold (-mat_pjds_long_row)");

  GPUMAT_CUDA_TRY(device_alloc(col_, std::size_t(padded_)));
  GPUMAT_CUDA_TRY(device_alloc(val_, std::size_t(padded_ + lr_.entries())));
  GPUMAT_CUDA_TRY(device_alloc(slot_, std::size_t(nnz_)));
  if (npj_ > 0) pj_fill<T><<<grid_for(npj_, nt), nt, 0, s>>>(rowptr, colidx, A.val, perm_, rowlen_, block_start_, npj_, br, col_, val_, slot_);
  GPUMAT_CUDA_TRY(launched());
  clock.mark("fill");
  // auto: the values first, on the 32-bit layout, which decides whether positional columns are
  // tried (pjds_positional_auto_tries: values without a table, fp64 or fp32 storage, or an 8-bit
  // table with room for the sentinel); where they are kept over a table, the table is made anew on the positional
  // layout, as the host builder does
  const bool values_first = p_.columns == PjdsColumns::Auto;
  if (values_first && p_.values != PjdsValues::Plain && padded_ > 0) {
    GPUMAT_CUDA_TRY(code_values(tmp, s));
    clock.mark("values");
  }
  const bool tabled = table_ != nullptr;
  if (p_.columns == PjdsColumns::Positional && padded_ > 0) {
    GPUMAT_CUDA_TRY(position_columns(A, tmp, s, false, false));
    if (!why_.empty()) return fail(why_);
    clock.mark("position");
  } else if (values_first && pjds_positional_auto_tries(p_.sigma == 1, !tabled, tabled && ntable_ < kPjdsTableMax, padded_, npj_)) {
    GPUMAT_CUDA_TRY(position_columns(A, tmp, s, true, tabled));
    clock.mark("position");
    if (tabled && positional()) {
      drop_table();
      GPUMAT_CUDA_TRY(code_values(tmp, s, true));
      clock.mark("values");
    }
  }
  if (!positional() && p_.columns != PjdsColumns::Plain && p_.columns != PjdsColumns::Positional && padded_ > 0 &&
      (p_.columns == PjdsColumns::Dictionary || pjds_dictionary_wide(padded_, npj_))) {
    GPUMAT_CUDA_TRY(code_columns(tmp, s));
    clock.mark("code");
  }
  if (!values_first && p_.values != PjdsValues::Plain && padded_ > 0) {
    GPUMAT_CUDA_TRY(code_values(tmp, s));
    clock.mark("values");
  }
  if (p_.fp32 && sizeof(T) > sizeof(float) && !table_ && padded_ > 0) { // fp32 storage (pjds.hpp)
    GPUMAT_CUDA_TRY(device_alloc(val32_, std::size_t(padded_)));
    pj_round<T><<<table_grid(), kThreads, 0, s>>>(val_, padded_, val32_);
    GPUMAT_CUDA_TRY(launched());
    clock.mark("fp32");
  }

  if (nlong > 0) {
    GPUMAT_CUDA_TRY(lr_.fill(A, user_shape_, val_, padded_, slot_, tmp, s));
    clock.mark("long");
  }
  GPUMAT_CUDA_TRY(tmp.err);
  GPUMAT_CUDA_TRY(cudaStreamSynchronize(s));
  phases_ = clock.times();
  trial_.start({4, 6}, kTrialProducts, layout_occupancy()); // a new layout: its instance measured anew
  return cudaSuccess;
}

template <typename T>
cudaError_t PjdsDevice<T>::code_columns(StreamTemps &tmp, cudaStream_t s) {
  const unsigned grid  = dict_warp_grid(nblocks_);
  index_t       *sizes = tmp.get<index_t>(std::size_t(nblocks_) + 1), *mx = tmp.get<index_t>(1);
  index_t       *start = nullptr;
  GPUMAT_CUDA_TRY(tmp.err);
  GPUMAT_CUDA_TRY(device_alloc(start, std::size_t(nblocks_) + 1));
  auto drop = [&](cudaError_t e) {
    device_free(start);
    return e;
  };
  pj_dict<false><<<grid, kDictWarps * 32, 0, s>>>(col_, perm_, block_start_, npj_, p_.block_rows, nblocks_, sizes, nullptr, nullptr, nullptr);
  cudaError_t e = launched();
  if (e == cudaSuccess) e = reduce_max(sizes, nblocks_, mx, s);
  if (e == cudaSuccess) e = exclusive_sum(sizes, start, nblocks_ + 1, s);
  index_t h[2] = {0, 0}; // the largest dictionary, the entries of all
  if (e == cudaSuccess) e = cudaMemcpyAsync(&h[0], mx, sizeof(index_t), cudaMemcpyDeviceToHost, s);
  if (e == cudaSuccess) e = cudaMemcpyAsync(&h[1], start + nblocks_, sizeof(index_t), cudaMemcpyDeviceToHost, s);
  if (e == cudaSuccess) e = cudaStreamSynchronize(s);
  if (e != cudaSuccess) return drop(e);
  if (h[0] > kPjdsDictMax || (p_.columns == PjdsColumns::Auto && !pjds_dictionary_pays(padded_, h[1], nblocks_, npj_))) return drop(cudaSuccess); // 32-bit columns
  e = device_alloc(dict_, std::size_t(h[1]));
  if (e == cudaSuccess) e = device_alloc(code_, std::size_t(padded_));
  if (e != cudaSuccess) {
    device_free(dict_);
    device_free(code_);
    return drop(e);
  }
  pj_dict<true><<<grid, kDictWarps * 32, 0, s>>>(col_, perm_, block_start_, npj_, p_.block_rows, nblocks_, nullptr, start, dict_, code_);
  GPUMAT_CUDA_TRY(launched());
  dict_start_   = start;
  dict_entries_ = h[1];
  device_free(col_); // cudaFree waits for the device: the codes are written
  return cudaSuccess;
}

template <typename T>
cudaError_t PjdsDevice<T>::refresh(const T *val, cudaStream_t s, Mem where) {
  GPUMAT_CUDA_TRY(refresh_through_slots(val, std::int64_t(nnz_), slot_, val_, s, where));
  if (positional() && nnz_ > 0) { // no stored value taken for padding (pjds.hpp)
    pj_unpad_slots<T><<<unsigned(std::min<long long>(grid_for(nnz_, kThreads), 1024)), kThreads, 0, s>>>(slot_, nnz_, padded_, val_);
    GPUMAT_CUDA_TRY(launched());
  }
  if (val32_) {
    pj_round<T><<<table_grid(), kThreads, 0, s>>>(val_, padded_, val32_);
    return launched();
  }
  if (!table_) return cudaSuccess;
  GPUMAT_CUDA_TRY(cudaMemsetAsync(table_ok_, 1, sizeof(int), s)); // cleared by a value outside the table
  if (vcode16_) pj_table_codes16<T><<<table_grid(), kThreads, 0, s>>>(val_, padded_, table_, int(ntable_), vcode16_, table_ok_);
  else pj_table_codes<T><<<table_grid(), kThreads, 0, s>>>(val_, padded_, table_, int(ntable_), vcode_, table_ok_);
  return launched();
}

// The members defined here (the class's others: pjds.cu, which instantiates the class,
// pjds_positional.cu and pjds_values.cu).
#define GPUMAT_PJDS_BUILD(T) \
  template void        PjdsDevice<T>::release(); \
  template cudaError_t PjdsDevice<T>::build(const CsrView<T> &, const PjdsParams &, cudaStream_t); \
  template cudaError_t PjdsDevice<T>::build(const DeviceCsrView<T> &, const PjdsParams &, cudaStream_t); \
  template cudaError_t PjdsDevice<T>::build_from(const DeviceCsrView<T> &, const PjdsParams &, cudaStream_t, PhaseTimer &); \
  template cudaError_t PjdsDevice<T>::code_columns(StreamTemps &, cudaStream_t); \
  template cudaError_t PjdsDevice<T>::refresh(const T *, cudaStream_t, Mem);
GPUMAT_PJDS_BUILD(double)
GPUMAT_PJDS_BUILD(float)
#undef GPUMAT_PJDS_BUILD

} // namespace cuda
} // namespace gpumat
