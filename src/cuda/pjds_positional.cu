// pjds on the GPU, positional columns' build (PjdsDevice::position_columns; see pjds.cuh and
// pjds_build.cu; the layout: src/core/pjds.hpp).
//
// From the 32-bit layout as built: for each group g of kPjdsPositionalGroups, on the sample of blocks
// (every pjds_positional_sample_stride-th; all of them in a smaller layout), every entry's offset
// from its group's first row (column - (row - row % g); the padding a sentinel), each block's
// segment sorted (CUB's segmented sort), a warp per block counting its distinct offsets, the stored
// entries (rows x distinct, summed) read back; the group storing the fewest (the first of equals,
// as the host builder) kept and, where the sample is not every block, its offsets counted so over
// every block; a warp per block writes its sorted distinct offsets, a thread per position moves
// its values (and their slots) to the positions of their offsets (a binary search) over values
// preset to the padding sentinel (pjds_pad; a value with its bits written as the canonical NaN,
// pjds_unpad), and the 32-bit columns are freed.
#include "pjds_build.cuh"
#include "common.cuh"

#include <algorithm>
#include <climits>
#include <string>
#include <utility>

namespace gpumat {
namespace cuda {

namespace {

// Positional columns (pjds.hpp). kNoOffset: the padding's key, above every offset (a column less a
// row is at most ncols - 1 < INT_MAX), so it sorts last in its block and is never counted.
constexpr index_t kNoOffset = INT_MAX;

// The keys of segment k (block b = k stride, its entries at seg_start[k]): keys[p] = the offset of
// the block's padded entry from its row's group's first row (groups of g rows), kNoOffset for
// padding, in the block's own order; a thread per row of a segment's block, the 32-bit layout as
// built. stride 1 and seg_start = block_start: every block, in place.
__global__ void __launch_bounds__(kThreads) pj_pos_keys(const index_t *__restrict__ col, const index_t *__restrict__ perm, const index_t *__restrict__ rowlen,
                                                        const std::int64_t *__restrict__ block_start, const std::int64_t *__restrict__ seg_start, long long nseg,
                                                        long long stride, index_t npj, int br, index_t g, index_t *__restrict__ keys) {
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nseg * br) return;
  const long long k = t / br, lane = t - k * br, b = k * stride, i = b * br + lane;
  if (i >= npj) return;
  const index_t   r = perm ? perm[i] : index_t(i), n = rowlen[i], base = r - r % g;
  const long long rows = min((long long)br, (long long)npj - b * br);
  const long long bs = block_start[b], width = (block_start[b + 1] - bs) / rows, src = bs + lane, dst = seg_start[k] + lane;
  for (long long j = 0; j < width; ++j) keys[dst + j * rows] = j < n ? col[src + j * rows] - base : kNoOffset;
}

// The sample's segments: sizes[k] = block k stride's padded entries, k < nseg; sizes[nseg] = 0.
__global__ void __launch_bounds__(kThreads) pj_sample_sizes(const std::int64_t *__restrict__ block_start, long long nseg, long long stride, std::int64_t *__restrict__ sizes) {
  const long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (k < nseg) sizes[k] = block_start[k * stride + 1] - block_start[k * stride];
  else if (k == nseg) sizes[k] = 0;
}

// seg_start as 32-bit segment offsets for the segmented sort (the padded part is within 2^31).
__global__ void __launch_bounds__(kThreads) pj_starts32(const std::int64_t *__restrict__ seg_start, long long nseg, index_t *__restrict__ off) {
  const long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (k <= nseg) off[k] = index_t(seg_start[k]);
}

// A warp per segment k (block b = k stride) over its sorted keys (seg_start's segment): its
// distinct offsets. Count: cnt[k] = their number, sizes[k] = that times the block's rows (the
// entries the block stores), both 0 at k = nseg. Write (every block: stride 1, seg_start =
// block_start): the offsets, ascending, to poff + pstart[k].
template <bool Write>
__global__ void __launch_bounds__(kDictWarps * 32) pj_pos_distinct(const index_t *__restrict__ sorted, const std::int64_t *__restrict__ seg_start, long long stride, index_t npj,
                                                                   int br, long long nseg, std::int64_t *__restrict__ cnt, std::int64_t *__restrict__ sizes,
                                                                   const std::int64_t *__restrict__ pstart, index_t *__restrict__ poff) {
  const int       lane = int(threadIdx.x & 31);
  const long long k    = (long long)blockIdx.x * kDictWarps + (threadIdx.x >> 5);
  if (!Write && k == nseg && lane == 0) cnt[k] = sizes[k] = 0;
  if (k >= nseg) return; // the whole warp
  const long long bs = seg_start[k], be = seg_start[k + 1], rows = min((long long)br, (long long)npj - k * stride * br);
  long long       d  = 0;
  for (long long e0 = bs; e0 < be; e0 += 32) { // the same trips on every lane
    const long long e     = e0 + lane;
    index_t         o     = kNoOffset;
    bool            fresh = false;
    if (e < be) {
      o     = sorted[e];
      fresh = o != kNoOffset && (e == bs || sorted[e - 1] != o);
    }
    const unsigned m = __ballot_sync(0xffffffffu, fresh);
    if (Write && fresh) poff[pstart[k] + d + __popc(m & ((1u << lane) - 1u))] = o;
    d += __popc(m);
  }
  if (!Write && lane == 0) cnt[k] = d, sizes[k] = d * rows;
}

// A thread per position: its row's values (and their slots) from the 32-bit layout to the
// positional one: entry j (CSR entry rowptr[row] + j) to row k of its block's new start, k its
// offset's rank among the block's (a binary search of poff), a value with the sentinel's bits as
// the canonical NaN. nval holds the sentinel beforehand (pj_fill_pad).
template <typename T>
__global__ void __launch_bounds__(kThreads) pj_pos_fill(const index_t *__restrict__ rowptr, const index_t *__restrict__ col, const T *__restrict__ val,
                                                        const index_t *__restrict__ perm, const index_t *__restrict__ rowlen, const std::int64_t *__restrict__ block_start,
                                                        const std::int64_t *__restrict__ new_start, const std::int64_t *__restrict__ pstart, const index_t *__restrict__ poff,
                                                        index_t npj, int br, index_t g, T *__restrict__ nval, unsigned *__restrict__ slot) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= npj) return;
  const index_t   r = perm ? perm[i] : index_t(i), n = rowlen[i], base = r - r % g, q0 = rowptr[r];
  const long long b = i / br, lane = i - b * br, rows = min((long long)br, (long long)npj - b * br);
  const long long bs = block_start[b] + lane, ns = new_start[b] + lane, ps = pstart[b], w = pstart[b + 1] - ps;
  for (index_t j = 0; j < n; ++j) {
    const long long old = bs + j * rows;
    const index_t   o   = col[old] - base;
    long long       lo = 0, hi = w - 1; // o is among poff[ps, ps + w)
    while (lo < hi) {
      const long long mid = (lo + hi) >> 1;
      if (poff[ps + mid] < o) lo = mid + 1;
      else hi = mid;
    }
    const long long pos = ns + lo * rows;
    nval[pos]           = pjds_unpad(val[old]);
    slot[q0 + j]        = unsigned(pos);
  }
}

// v[k] = the padding sentinel, k < n (grid-stride).
template <typename T>
__global__ void __launch_bounds__(kThreads) pj_fill_pad(T *__restrict__ v, long long n) {
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (long long)gridDim.x * blockDim.x) v[k] = pjds_pad<T>();
}

} // namespace

// Positional columns from the 32-bit layout as built (before the long part: its slots and values
// come after the padded part's new size). Asked for (`by_auto` false): where they would not store
// fewer bytes (pjds_positional_pays; unless positional_always) the 32-bit columns stay and
// pos_declined_ says how many positions they would have stored; where they would store more than
// 2^31 - 1 entries, why_ says so (the caller fails, as the host builder throws). Tried by auto:
// kept where pjds_positional_auto_pays holds on the sample of blocks (where it is not every block)
// and then over every block (and within 2^31 - 1; against the dictionary layout's bytes where
// `tabled`, else the 32-bit layout's, its values fp32 where that storage is asked), else the 32-bit
// columns stay, unremarked, as on the host.
template <typename T>
cudaError_t PjdsDevice<T>::position_columns(const DeviceCsrView<T> &A, StreamTemps &tmp, cudaStream_t s, bool by_auto, bool tabled) {
  const int       nt = kThreads, br = p_.block_rows;
  const long long    stride = pjds_positional_sample_stride(nblocks_), nseg = (nblocks_ + stride - 1) / stride;
  const std::int64_t vb     = pjds_stored_value_bytes<T>(p_.fp32); // a stored value's bytes (unread where tabled)
  index_t        *keys = tmp.get<index_t>(std::size_t(padded_)), *off = tmp.get<index_t>(std::size_t(nblocks_) + 1);
  index_t        *sorted[2] = {tmp.get<index_t>(std::size_t(padded_)), tmp.get<index_t>(std::size_t(padded_))};
  std::int64_t   *cnt[2]    = {tmp.get<std::int64_t>(std::size_t(nblocks_) + 1), tmp.get<std::int64_t>(std::size_t(nblocks_) + 1)};
  std::int64_t   *start[2]  = {tmp.get<std::int64_t>(std::size_t(nblocks_) + 1), tmp.get<std::int64_t>(std::size_t(nblocks_) + 1)};
  std::int64_t   *sizes = tmp.get<std::int64_t>(std::size_t(nblocks_) + 1), *sstart = tmp.get<std::int64_t>(std::size_t(nseg) + 1);
  index_t        *soff  = tmp.get<index_t>(std::size_t(nseg) + 1);
  GPUMAT_CUDA_TRY(tmp.err);
  // The entries group cand stores over ns segments (every stride-th block; their n entries at
  // seg, as 32-bit offsets offs) into *stored; the sorted keys, counts and starts into buffers [into].
  const auto count = [&](index_t cand, const std::int64_t *seg, const index_t *offs, long long ns, long long st, std::int64_t n, int into, std::int64_t *stored) -> cudaError_t {
    pj_pos_keys<<<grid_for(ns * br, nt), nt, 0, s>>>(col_, perm_, rowlen_, block_start_, seg, ns, st, npj_, br, cand, keys);
    GPUMAT_CUDA_TRY(launched());
    GPUMAT_CUDA_TRY(sort_segment_keys(keys, sorted[into], n, ns, offs, s));
    pj_pos_distinct<false><<<dict_warp_grid(ns), kDictWarps * 32, 0, s>>>(sorted[into], seg, st, npj_, br, ns, cnt[into], sizes, nullptr, nullptr);
    GPUMAT_CUDA_TRY(launched());
    GPUMAT_CUDA_TRY(exclusive_sum(sizes, start[into], ns + 1, s));
    GPUMAT_CUDA_TRY(cudaMemcpyAsync(stored, start[into] + ns, sizeof(std::int64_t), cudaMemcpyDeviceToHost, s));
    return cudaStreamSynchronize(s);
  };
  pj_starts32<<<grid_for(nblocks_ + 1, nt), nt, 0, s>>>(block_start_, nblocks_, off);
  GPUMAT_CUDA_TRY(launched());
  // each group's stored entries on the sample; the fewest kept (buffers [best]), the first of equals
  int          best = 0, cur = 1;
  index_t      g = 1;
  std::int64_t least = -1, sampled = padded_;
  if (stride > 1) { // the sample's segments
    pj_sample_sizes<<<grid_for(nseg + 1, nt), nt, 0, s>>>(block_start_, nseg, stride, sizes);
    GPUMAT_CUDA_TRY(launched());
    GPUMAT_CUDA_TRY(exclusive_sum(sizes, sstart, nseg + 1, s));
    pj_starts32<<<grid_for(nseg + 1, nt), nt, 0, s>>>(sstart, nseg, soff);
    GPUMAT_CUDA_TRY(launched());
    GPUMAT_CUDA_TRY(cudaMemcpyAsync(&sampled, sstart + nseg, sizeof(std::int64_t), cudaMemcpyDeviceToHost, s));
    GPUMAT_CUDA_TRY(cudaStreamSynchronize(s));
  }
  for (index_t cand : kPjdsPositionalGroups) {
    std::int64_t stored = 0;
    if (stride > 1) GPUMAT_CUDA_TRY(count(cand, sstart, soff, nseg, stride, sampled, cur, &stored));
    else GPUMAT_CUDA_TRY(count(cand, block_start_, off, nblocks_, 1, padded_, cur, &stored));
    if (least < 0 || stored < least) least = stored, g = cand, std::swap(best, cur);
  }
  if (by_auto && stride > 1 && !pjds_positional_auto_pays(sampled, least, nseg, vb, tabled)) return cudaSuccess; // auto: not on the sample, not counted whole (as the host)
  if (stride > 1) GPUMAT_CUDA_TRY(count(g, block_start_, off, nblocks_, 1, padded_, best, &least)); // the chosen group over every block
  if (by_auto) {
    if (least > INT_MAX || !pjds_positional_auto_pays(padded_, least, nblocks_, vb, tabled)) return cudaSuccess; // the 32-bit columns stay
  } else if (!p_.positional_always && !pjds_positional_pays(padded_, least, nblocks_, std::int64_t(sizeof(T)))) { // the 32-bit columns stay
    pos_declined_ = least;
    return cudaSuccess;
  }
  if (least > INT_MAX) {
    why_ = "pjds: positional columns would store " + std::to_string(least) + " entries, beyond the 32-bit positions of the index; use plain columns";
    return cudaSuccess;
  }
  // the offsets: each block's distinct ones, ascending, after its predecessors'
  GPUMAT_CUDA_TRY(device_alloc(poff_start_, std::size_t(nblocks_) + 1));
  GPUMAT_CUDA_TRY(exclusive_sum(cnt[best], poff_start_, nblocks_ + 1, s));
  GPUMAT_CUDA_TRY(cudaMemcpyAsync(&npoff_, poff_start_ + nblocks_, sizeof(std::int64_t), cudaMemcpyDeviceToHost, s));
  GPUMAT_CUDA_TRY(cudaStreamSynchronize(s));
  GPUMAT_CUDA_TRY(device_alloc(poff_, std::size_t(npoff_)));
  pj_pos_distinct<true><<<dict_warp_grid(nblocks_), kDictWarps * 32, 0, s>>>(sorted[best], block_start_, 1, npj_, br, nblocks_, nullptr, nullptr, poff_start_, poff_);
  GPUMAT_CUDA_TRY(launched());
  // the values (the long part's after them, filled later) and slots at their offsets' positions
  T *nval = nullptr;
  GPUMAT_CUDA_TRY(device_alloc(nval, std::size_t(least + lr_.entries())));
  pj_fill_pad<T><<<unsigned(std::min<long long>(grid_for(least, nt), 1024)), nt, 0, s>>>(nval, least);
  cudaError_t e = launched();
  if (e == cudaSuccess) {
    pj_pos_fill<T><<<grid_for(npj_, nt), nt, 0, s>>>(A.rowptr, col_, val_, perm_, rowlen_, block_start_, start[best], poff_start_, poff_, npj_, br, g, nval, slot_);
    e = launched();
  }
  if (e == cudaSuccess) e = cudaMemcpyAsync(block_start_, start[best], (std::size_t(nblocks_) + 1) * sizeof(std::int64_t), cudaMemcpyDeviceToDevice, s);
  if (e == cudaSuccess) e = cudaStreamSynchronize(s); // the old values and columns read by then
  if (e != cudaSuccess) {
    device_free(nval);
    return e;
  }
  device_free(val_);
  device_free(col_);
  val_    = nval;
  padded_ = least;
  pgroup_ = g;
  return cudaSuccess;
}

// The member defined here (the class's others: pjds.cu, pjds_build.cu, pjds_values.cu).
#define GPUMAT_PJDS_POSITIONAL(T) template cudaError_t PjdsDevice<T>::position_columns(const DeviceCsrView<T> &, StreamTemps &, cudaStream_t, bool, bool);
GPUMAT_PJDS_POSITIONAL(double)
GPUMAT_PJDS_POSITIONAL(float)
#undef GPUMAT_PJDS_POSITIONAL

} // namespace cuda
} // namespace gpumat
