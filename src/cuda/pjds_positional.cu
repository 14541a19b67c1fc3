// pjds on the GPU, positional columns' build (PjdsDevice::position_columns; see pjds.cuh and
// pjds_build.cu; the layout: src/core/pjds.hpp).
//
// From the 32-bit layout as built: for each group g of kPjdsPositionalGroups, every entry's offset
// from its group's first row (column - (row - row % g); the padding a sentinel), each block's
// segment sorted (CUB's segmented sort), a warp per block counting its distinct offsets, the stored
// entries (rows x distinct, summed) read back; the group storing the fewest (the first of equals,
// as the host builder) kept; a warp per block writes its sorted distinct offsets, a thread per
// position moves its values (and their slots) to the positions of their offsets (a binary search)
// over values preset to the padding sentinel (pjds_pad; a value with its bits written as the
// canonical NaN, pjds_unpad), and the 32-bit columns are freed.
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

// keys[pos] = the offset of padded entry pos from its row's group's first row (groups of g rows),
// kNoOffset for padding; a thread per position, the 32-bit layout as built.
__global__ void __launch_bounds__(kThreads) pj_pos_keys(const index_t *__restrict__ col, const index_t *__restrict__ perm, const index_t *__restrict__ rowlen,
                                                        const std::int64_t *__restrict__ block_start, index_t npj, int br, index_t g, index_t *__restrict__ keys) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= npj) return;
  const index_t   r = perm ? perm[i] : index_t(i), n = rowlen[i], base = r - r % g;
  const long long b = i / br, rows = min((long long)br, (long long)npj - b * br);
  const long long bs = block_start[b], width = (block_start[b + 1] - bs) / rows, p = bs + (i - b * br);
  for (long long j = 0; j < width; ++j) keys[p + j * rows] = j < n ? col[p + j * rows] - base : kNoOffset;
}

// block_start as 32-bit segment offsets for the segmented sort (the padded part is within 2^31).
__global__ void __launch_bounds__(kThreads) pj_starts32(const std::int64_t *__restrict__ block_start, long long nblocks, index_t *__restrict__ off) {
  const long long b = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (b <= nblocks) off[b] = index_t(block_start[b]);
}

// A warp per block b over its sorted keys (block_start's segment): its distinct offsets. Count:
// cnt[b] = their number, sizes[b] = that times the block's rows (the entries the block stores),
// both 0 at b = nblocks. Write: the offsets, ascending, to poff + pstart[b].
template <bool Write>
__global__ void __launch_bounds__(kDictWarps * 32) pj_pos_distinct(const index_t *__restrict__ sorted, const std::int64_t *__restrict__ block_start, index_t npj, int br,
                                                                   long long nblocks, std::int64_t *__restrict__ cnt, std::int64_t *__restrict__ sizes,
                                                                   const std::int64_t *__restrict__ pstart, index_t *__restrict__ poff) {
  const int       lane = int(threadIdx.x & 31);
  const long long b    = (long long)blockIdx.x * kDictWarps + (threadIdx.x >> 5);
  if (!Write && b == nblocks && lane == 0) cnt[b] = sizes[b] = 0;
  if (b >= nblocks) return; // the whole warp
  const long long bs = block_start[b], be = block_start[b + 1], rows = min((long long)br, (long long)npj - b * br);
  long long       k  = 0;
  for (long long e0 = bs; e0 < be; e0 += 32) { // the same trips on every lane
    const long long e     = e0 + lane;
    index_t         o     = kNoOffset;
    bool            fresh = false;
    if (e < be) {
      o     = sorted[e];
      fresh = o != kNoOffset && (e == bs || sorted[e - 1] != o);
    }
    const unsigned m = __ballot_sync(0xffffffffu, fresh);
    if (Write && fresh) poff[pstart[b] + k + __popc(m & ((1u << lane) - 1u))] = o;
    k += __popc(m);
  }
  if (!Write && lane == 0) cnt[b] = k, sizes[b] = k * rows;
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
// come after the padded part's new size). Where they would not store fewer bytes
// (pjds_positional_pays; unless positional_always) the 32-bit columns stay and pos_declined_ says how
// many positions they would have stored; where they would store more than 2^31 - 1 entries, why_
// says so (the caller fails, as the host builder throws).
template <typename T>
cudaError_t PjdsDevice<T>::position_columns(const DeviceCsrView<T> &A, StreamTemps &tmp, cudaStream_t s) {
  const int      nt = kThreads, br = p_.block_rows;
  const unsigned wgrid = unsigned((nblocks_ + 1 + kDictWarps - 1) / kDictWarps);
  index_t       *keys = tmp.get<index_t>(std::size_t(padded_)), *off = tmp.get<index_t>(std::size_t(nblocks_) + 1);
  index_t       *sorted[2] = {tmp.get<index_t>(std::size_t(padded_)), tmp.get<index_t>(std::size_t(padded_))};
  std::int64_t  *cnt[2]    = {tmp.get<std::int64_t>(std::size_t(nblocks_) + 1), tmp.get<std::int64_t>(std::size_t(nblocks_) + 1)};
  std::int64_t  *start[2]  = {tmp.get<std::int64_t>(std::size_t(nblocks_) + 1), tmp.get<std::int64_t>(std::size_t(nblocks_) + 1)};
  std::int64_t  *sizes = tmp.get<std::int64_t>(std::size_t(nblocks_) + 1);
  GPUMAT_CUDA_TRY(tmp.err);
  pj_starts32<<<grid_for(nblocks_ + 1, nt), nt, 0, s>>>(block_start_, nblocks_, off);
  GPUMAT_CUDA_TRY(launched());
  // each group's stored entries; the fewest kept (buffers [best]), the first of equals
  int          best = 0, cur = 1;
  index_t      g = 1;
  std::int64_t least = -1;
  for (index_t cand : kPjdsPositionalGroups) {
    pj_pos_keys<<<grid_for(npj_, nt), nt, 0, s>>>(col_, perm_, rowlen_, block_start_, npj_, br, cand, keys);
    GPUMAT_CUDA_TRY(launched());
    GPUMAT_CUDA_TRY(sort_segment_keys(keys, sorted[cur], padded_, nblocks_, off, s));
    pj_pos_distinct<false><<<wgrid, kDictWarps * 32, 0, s>>>(sorted[cur], block_start_, npj_, br, nblocks_, cnt[cur], sizes, nullptr, nullptr);
    GPUMAT_CUDA_TRY(launched());
    GPUMAT_CUDA_TRY(exclusive_sum(sizes, start[cur], nblocks_ + 1, s));
    std::int64_t stored = 0;
    GPUMAT_CUDA_TRY(cudaMemcpyAsync(&stored, start[cur] + nblocks_, sizeof(std::int64_t), cudaMemcpyDeviceToHost, s));
    GPUMAT_CUDA_TRY(cudaStreamSynchronize(s));
    if (least < 0 || stored < least) least = stored, g = cand, std::swap(best, cur);
  }
  if (!p_.positional_always && !pjds_positional_pays(padded_, least, nblocks_, std::int64_t(sizeof(T)))) { // the 32-bit columns stay
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
  pj_pos_distinct<true><<<wgrid, kDictWarps * 32, 0, s>>>(sorted[best], block_start_, npj_, br, nblocks_, nullptr, nullptr, poff_start_, poff_);
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
#define GPUMAT_PJDS_POSITIONAL(T) template cudaError_t PjdsDevice<T>::position_columns(const DeviceCsrView<T> &, StreamTemps &, cudaStream_t);
GPUMAT_PJDS_POSITIONAL(double)
GPUMAT_PJDS_POSITIONAL(float)
#undef GPUMAT_PJDS_POSITIONAL

} // namespace cuda
} // namespace gpumat
