// pjds on the GPU, its build (see pjds.cuh; the layout: src/core/pjds.hpp; the products: pjds.cu).
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
//   position (positional columns) for each group g of kPjdsPositionalGroups, every entry's offset
//           from its group's first row (column - (row - row % g); the padding a sentinel) in the
//           32-bit layout, each block's segment sorted (CUB's segmented sort), a warp per block
//           counting its distinct offsets, the stored entries (rows x distinct, summed) read back;
//           the group storing the fewest (the first of equals, as the host builder) kept; a warp
//           per block writes its sorted distinct offsets, a thread per position moves its values
//           (and their slots) to the positions of their offsets (a binary search) over values
//           preset to the padding sentinel (pjds_pad; a value with its bits written as the
//           canonical NaN, pjds_unpad), and the 32-bit columns are freed.
//   values  (unless the values are plain) the value table (PjdsDevice::code_values): the distinct
//           values gathered in hash sets, their count read back; where they are at most 256 (and,
//           auto, that pays) the table is sorted on the host, uploaded, and every value's 8-bit
//           code found by a binary search in shared memory. Where they are more and a table of
//           16-bit codes can result (auto: pjds_table16_cap above 256; table: up to 65,536), the
//           values' bit patterns go into a global hash set that stops once it counts more than
//           that cap, the count read back; within it the set's keys compacted and radix sorted
//           (CUB, at most the cap), and where they pay (auto) the table is those keys' values
//           (ascending by bit pattern, the host's order) and every value's 16-bit code is found by
//           a binary search in the table in global memory.
// A refresh scatters new values through the slot map (positional columns: then a thread per CSR
// entry rewrites a value with the sentinel's bits as the canonical NaN), then re-derives the value
// codes or the fp32 copy with the same kernels (a value outside the table clears table_ok: the
// products then read the values).
#include "pjds.cuh"
#include "common.cuh"

#include <algorithm>
#include <climits>
#include <string>

namespace gpumat {
namespace cuda {

namespace {

constexpr int kThreads = 256;

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

constexpr int kDictWarps = 8; // warps (blocks of the layout) per CUDA block of the dictionary kernels

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

// After a refresh of positional columns: a padded value of a CSR entry (slot[q] < padded) with the
// sentinel's bits becomes the canonical NaN; a thread per entry (grid-stride).
template <typename T>
__global__ void __launch_bounds__(kThreads) pj_unpad_slots(const unsigned *__restrict__ slot, long long nnz, long long padded, T *__restrict__ val) {
  for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < nnz; q += (long long)gridDim.x * blockDim.x) {
    const unsigned s = slot[q];
    if (s < padded && is_pjds_pad(val[s])) val[s] = pjds_nan<T>();
  }
}

// The value table's builder: the padded values' distinct bit patterns gathered in hash sets (each
// CUDA block's in shared memory, then one in global memory), the count read back; the table sorted
// on the host (at most kPjdsTableMax entries), uploaded, and every value's 8-bit code found by a
// binary search in shared memory. More values (or one with kTableEmpty's bits, which the sets cannot
// hold): the bounded set's path (PjdsDevice::code_values16).
constexpr int           kTableSlots = 2 * kPjdsTableMax; // open addressing, linear probing
constexpr std::uint64_t kTableEmpty = ~0ull;             // a NaN's bits (fp64 only: a float's are zero-extended); a flag stands for it

template <typename T>
__device__ __forceinline__ std::uint64_t value_bits(T v) {
  if constexpr (sizeof(T) == 8) return std::uint64_t(__double_as_longlong(v));
  else return std::uint64_t(__float_as_uint(v));
}

__device__ __forceinline__ unsigned table_hash(std::uint64_t b) { return unsigned((b * 0x9E3779B97F4A7C15ull) >> 40) & (kTableSlots - 1); }

// Inserts b (not kTableEmpty) into a set of mask + 1 slots (a power of two) by linear probing from
// slot h: each slot read first, an atomicCAS only where it is empty, so a value already there costs
// reads. true where this call added it. Where stop is not null, a probe past the first gives up
// once *stop is set. false also where the set is full: the caller's count has passed its limit.
__device__ __forceinline__ bool set_insert(unsigned long long *slots, unsigned mask, unsigned h, std::uint64_t b, const int *stop) {
  for (unsigned probes = 0; probes <= mask; h = (h + 1) & mask, ++probes) {
    if (stop && probes > 0 && *(const volatile int *)stop) return false;
    const unsigned long long cur = slots[h];
    if (cur == b) return false;
    if (cur == kTableEmpty) {
      const unsigned long long old = atomicCAS(slots + h, kTableEmpty, (unsigned long long)b);
      if (old == kTableEmpty) return true;
      if (old == b) return false;
    }
  }
  return false;
}

// Inserts b into a set of kTableSlots slots (each CUDA block's, and the global one, of the 8-bit path).
__device__ __forceinline__ bool table_insert(unsigned long long *slots, std::uint64_t b) { return set_insert(slots, kTableSlots - 1, table_hash(b), b, nullptr); }

// state[0]: distinct values in the global set; state[1]: nonzero where there are more than
// kPjdsTableMax or a value has kTableEmpty's bits; state[2]: nonzero where one has.
template <typename T>
__global__ void __launch_bounds__(kThreads) pj_table_gather(const T *__restrict__ val, long long n, unsigned long long *__restrict__ global_slots, int *state) {
  __shared__ unsigned long long slots[kTableSlots];
  __shared__ int                count;
  for (int t = threadIdx.x; t < kTableSlots; t += blockDim.x) slots[t] = kTableEmpty;
  if (threadIdx.x == 0) count = 0;
  __syncthreads();
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (long long)gridDim.x * blockDim.x) {
    if (*(volatile int *)(state + 1)) break;
    const std::uint64_t b = value_bits(val[k]);
    if (b == kTableEmpty) {
      state[2] = 1;
      state[1] = 1;
      break;
    }
    if (table_insert(slots, b) && atomicAdd(&count, 1) >= kPjdsTableMax) {
      state[1] = 1;
      break;
    }
  }
  __syncthreads();
  for (int t = threadIdx.x; t < kTableSlots; t += blockDim.x)
    if (slots[t] != kTableEmpty && table_insert(global_slots, slots[t]) && atomicAdd(state, 1) >= kPjdsTableMax) state[1] = 1;
}

// vcode[k] = the position of val[k]'s bits in the table; *ok = 0 where one is not there.
template <typename T>
__global__ void __launch_bounds__(kThreads) pj_table_codes(const T *__restrict__ val, long long n, const T *__restrict__ table, int ntable, std::uint8_t *__restrict__ vcode, int *ok) {
  __shared__ std::uint64_t tb[kPjdsTableMax];
  for (int t = threadIdx.x; t < ntable; t += blockDim.x) tb[t] = value_bits(table[t]);
  __syncthreads();
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (long long)gridDim.x * blockDim.x) {
    const std::uint64_t b  = value_bits(val[k]);
    int                 lo = 0, hi = ntable - 1;
    while (lo < hi) {
      const int mid = (lo + hi) >> 1;
      if (tb[mid] < b) lo = mid + 1;
      else hi = mid;
    }
    if (tb[lo] == b) vcode[k] = std::uint8_t(lo);
    else *ok = 0;
  }
}

// The table of 16-bit codes: the distinct bit patterns of val[0, n) (as the host's value_bits: a
// float's zero-extended) into a global set of mask + 1 slots (at least 2 cap; preset to kTableEmpty),
// hashed to their top bits (b * the golden ratio >> shift). state[0] counts the distinct values,
// kTableEmpty's bits included (state[2] set where seen: the set cannot hold them); once it exceeds
// cap, state[1] is set and every thread stops (read each iteration, and between probes).
template <typename T>
__global__ void __launch_bounds__(kThreads) pj_value_set(const T *__restrict__ val, long long n, unsigned long long *__restrict__ slots, unsigned mask, int shift, int cap,
                                                         int *state) {
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (long long)gridDim.x * blockDim.x) {
    if (*(volatile int *)(state + 1)) break;
    const std::uint64_t b     = value_bits(val[k]);
    const bool          added = b == kTableEmpty ? *(volatile int *)(state + 2) == 0 && atomicCAS(state + 2, 0, 1) == 0
                                                 : set_insert(slots, mask, unsigned((b * 0x9E3779B97F4A7C15ull) >> shift) & mask, b, state + 1);
    if (added && atomicAdd(state, 1) >= cap) {
      state[1] = 1;
      break;
    }
  }
}

// table[t] = the value of bit pattern keys[t], t < n.
template <typename T>
__global__ void __launch_bounds__(kThreads) pj_table_from_keys(const std::uint64_t *__restrict__ keys, int n, T *__restrict__ table) {
  for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < n; t += gridDim.x * blockDim.x) {
    if constexpr (sizeof(T) == 8) table[t] = pjds_double(keys[t]);
    else table[t] = pjds_float(std::uint32_t(keys[t]));
  }
}

// vcode16[k] = the position of val[k]'s bits in the table (ntable entries ascending by bit
// pattern, read through the non-coherent path); *ok = 0 where one is not there.
template <typename T>
__global__ void __launch_bounds__(kThreads) pj_table_codes16(const T *__restrict__ val, long long n, const T *__restrict__ table, int ntable, std::uint16_t *__restrict__ vcode16,
                                                             int *ok) {
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (long long)gridDim.x * blockDim.x) {
    const std::uint64_t b  = value_bits(val[k]);
    int                 lo = 0, hi = ntable - 1;
    while (lo < hi) {
      const int mid = (lo + hi) >> 1;
      if (value_bits(__ldg(table + mid)) < b) lo = mid + 1;
      else hi = mid;
    }
    if (value_bits(__ldg(table + lo)) == b) vcode16[k] = std::uint16_t(lo);
    else *ok = 0;
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
  if (p_.columns == PjdsColumns::Positional && padded_ > 0) {
    GPUMAT_CUDA_TRY(position_columns(A, tmp, s));
    if (!why_.empty()) return fail(why_);
    clock.mark("position");
  } else if (p_.columns != PjdsColumns::Plain && p_.columns != PjdsColumns::Positional && padded_ > 0 &&
             (p_.columns == PjdsColumns::Dictionary || pjds_dictionary_wide(padded_, npj_))) {
    GPUMAT_CUDA_TRY(code_columns(tmp, s));
    clock.mark("code");
  }
  if (p_.values != PjdsValues::Plain && padded_ > 0) {
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
  const unsigned grid  = unsigned((nblocks_ + 1 + kDictWarps - 1) / kDictWarps);
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

template <typename T>
unsigned PjdsDevice<T>::table_grid() const {
  return unsigned(std::min<long long>(grid_for(padded_, kThreads), 1024));
}

template <typename T>
cudaError_t PjdsDevice<T>::code_values(StreamTemps &tmp, cudaStream_t s) {
  unsigned long long *slots = nullptr;
  int                *state = nullptr;
  auto                done  = [&](cudaError_t e) {
    device_free(slots);
    device_free(state);
    return e;
  };
  cudaError_t e = device_alloc(slots, kTableSlots);
  if (e == cudaSuccess) e = device_alloc(state, 3);
  if (e == cudaSuccess) e = cudaMemsetAsync(slots, 0xff, kTableSlots * sizeof(unsigned long long), s); // kTableEmpty
  if (e == cudaSuccess) e = cudaMemsetAsync(state, 0, 3 * sizeof(int), s);
  if (e != cudaSuccess) return done(e);
  const unsigned grid = table_grid();
  pj_table_gather<T><<<grid, kThreads, 0, s>>>(val_, padded_, slots, state);
  e = launched();
  int h[3] = {0, 0, 0};
  if (e == cudaSuccess) e = cudaMemcpyAsync(h, state, sizeof(h), cudaMemcpyDeviceToHost, s);
  if (e == cudaSuccess) e = cudaStreamSynchronize(s);
  if (e != cudaSuccess) return done(e);
  if (h[1] || h[0] > kPjdsTableMax) return done(code_values16(tmp, s, h[2] != 0)); // more than 256: 16-bit codes where they fit
  if (p_.values == PjdsValues::Auto && !pjds_table_pays(padded_, h[0], sizeof(T))) return done(cudaSuccess); // the values as stored
  std::vector<unsigned long long> hs(kTableSlots), keys;
  e = cudaMemcpy(hs.data(), slots, kTableSlots * sizeof(unsigned long long), cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) return done(e);
  for (unsigned long long b : hs)
    if (b != kTableEmpty) keys.push_back(b);
  std::sort(keys.begin(), keys.end());
  std::vector<T> table(keys.size());
  for (std::size_t t = 0; t < keys.size(); ++t) table[t] = value_from_bits<T>(keys[t]);
  ntable_ = index_t(table.size());
  e       = device_alloc(table_, table.size());
  if (e == cudaSuccess) e = device_alloc(vcode_, std::size_t(padded_));
  if (e == cudaSuccess) e = device_alloc(table_ok_, 1);
  if (e == cudaSuccess) e = cudaMemcpyAsync(table_, table.data(), table.size() * sizeof(T), cudaMemcpyHostToDevice, s);
  if (e == cudaSuccess) e = cudaMemsetAsync(table_ok_, 1, sizeof(int), s);
  if (e == cudaSuccess) {
    pj_table_codes<T><<<grid, kThreads, 0, s>>>(val_, padded_, table_, int(ntable_), vcode_, table_ok_);
    e = launched();
  }
  if (e == cudaSuccess) e = cudaStreamSynchronize(s); // the host table's copy is read by then
  if (e != cudaSuccess) {
    device_free(table_);
    device_free(vcode_);
    device_free(table_ok_);
    ntable_ = 0;
  }
  return done(e);
}

// The table of 16-bit codes (more than kPjdsTableMax distinct values; pjds.hpp). cap: the largest
// table that can result (auto: pjds_table16_cap, as the host builder; table: kPjdsTable16Max); where
// that is at most kPjdsTableMax, no table and nothing to do. Else the values' distinct bit patterns
// go into a global hash set of a power of two >= 2 cap slots (pj_value_set), which stops once it
// has counted more than cap; the count and that stop read back (one synchronization). Stopped: the
// values are read as stored (as the host). Else the set's keys are compacted and sorted (CUB, at
// most cap keys), kTableEmpty's bits appended where a value has them (the largest pattern: last),
// and where they pay (auto: pjds_table_pays) the table is built from them (ascending by bit
// pattern, the host's order) and every value's code found by a binary search. Also where the 8-bit
// path's sets could not hold a value (empty_seen: kTableEmpty's bits): then cap is at least
// kPjdsTableMax and at most that many distinct values take 8-bit codes, as the host's.
template <typename T>
cudaError_t PjdsDevice<T>::code_values16(StreamTemps &tmp, cudaStream_t s, bool empty_seen) {
  std::int64_t cap = p_.values == PjdsValues::Auto ? pjds_table16_cap(padded_, std::int64_t(sizeof(T))) : std::int64_t(kPjdsTable16Max);
  if (empty_seen) cap = std::max<std::int64_t>(cap, kPjdsTableMax);
  else if (cap <= kPjdsTableMax) return cudaSuccess; // no table of 16-bit codes can pay: the values as stored
  int bits = 10;
  while ((std::int64_t(1) << bits) < 2 * cap) ++bits; // at most 2^17 slots (cap <= 65,536)
  const std::int64_t  nslots = std::int64_t(1) << bits;
  unsigned long long *slots  = tmp.get<unsigned long long>(std::size_t(nslots));
  std::uint64_t      *keys = tmp.get<std::uint64_t>(std::size_t(cap)), *sorted = tmp.get<std::uint64_t>(std::size_t(cap));
  int                *state = tmp.get<int>(4); // count, stopped, kTableEmpty's bits seen; the compaction's count
  GPUMAT_CUDA_TRY(tmp.err);
  GPUMAT_CUDA_TRY(cudaMemsetAsync(slots, 0xff, std::size_t(nslots) * sizeof(unsigned long long), s)); // kTableEmpty
  GPUMAT_CUDA_TRY(cudaMemsetAsync(state, 0, 4 * sizeof(int), s));
  pj_value_set<T><<<table_grid(), kThreads, 0, s>>>(val_, padded_, slots, unsigned(nslots - 1), 64 - bits, int(cap), state);
  GPUMAT_CUDA_TRY(launched());
  int h[3] = {0, 0, 0};
  GPUMAT_CUDA_TRY(cudaMemcpyAsync(h, state, sizeof(h), cudaMemcpyDeviceToHost, s));
  GPUMAT_CUDA_TRY(cudaStreamSynchronize(s));
  const int n = h[0];
  if (h[1] || n > kPjdsTable16Max || (p_.values == PjdsValues::Auto && !pjds_table_pays(padded_, n, sizeof(T)))) return cudaSuccess; // the values as stored
  const int held = n - (h[2] ? 1 : 0); // the keys in the set
  GPUMAT_CUDA_TRY(sort_set_keys(reinterpret_cast<const std::uint64_t *>(slots), nslots, kTableEmpty, keys, sorted, state + 3, held, int(8 * sizeof(T)), s));
  if (h[2]) GPUMAT_CUDA_TRY(cudaMemsetAsync(sorted + held, 0xff, sizeof(std::uint64_t), s)); // kTableEmpty, the last
  cudaError_t e    = device_alloc(table_, std::size_t(n));
  const bool  wide = n > kPjdsTableMax;
  if (e == cudaSuccess) e = wide ? device_alloc(vcode16_, std::size_t(padded_)) : device_alloc(vcode_, std::size_t(padded_));
  if (e == cudaSuccess) e = device_alloc(table_ok_, 1);
  if (e == cudaSuccess) e = cudaMemsetAsync(table_ok_, 1, sizeof(int), s);
  if (e == cudaSuccess) {
    pj_table_from_keys<T><<<unsigned(std::min<long long>(grid_for(n, kThreads), 1024)), kThreads, 0, s>>>(sorted, n, table_);
    e = launched();
  }
  if (e == cudaSuccess) {
    ntable_ = index_t(n);
    if (wide) pj_table_codes16<T><<<table_grid(), kThreads, 0, s>>>(val_, padded_, table_, n, vcode16_, table_ok_);
    else pj_table_codes<T><<<table_grid(), kThreads, 0, s>>>(val_, padded_, table_, n, vcode_, table_ok_);
    e = launched();
  }
  if (e != cudaSuccess) {
    device_free(table_);
    device_free(vcode_);
    device_free(vcode16_);
    device_free(table_ok_);
    ntable_ = 0;
  }
  return e;
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

// The members defined here (the class's others, and its instantiation, are in pjds.cu).
#define GPUMAT_PJDS_BUILD(T) \
  template void        PjdsDevice<T>::release(); \
  template cudaError_t PjdsDevice<T>::build(const CsrView<T> &, const PjdsParams &, cudaStream_t); \
  template cudaError_t PjdsDevice<T>::build(const DeviceCsrView<T> &, const PjdsParams &, cudaStream_t); \
  template cudaError_t PjdsDevice<T>::build_from(const DeviceCsrView<T> &, const PjdsParams &, cudaStream_t, PhaseTimer &); \
  template cudaError_t PjdsDevice<T>::code_columns(StreamTemps &, cudaStream_t); \
  template cudaError_t PjdsDevice<T>::position_columns(const DeviceCsrView<T> &, StreamTemps &, cudaStream_t); \
  template unsigned    PjdsDevice<T>::table_grid() const; \
  template cudaError_t PjdsDevice<T>::code_values(StreamTemps &, cudaStream_t); \
  template cudaError_t PjdsDevice<T>::code_values16(StreamTemps &, cudaStream_t, bool); \
  template cudaError_t PjdsDevice<T>::refresh(const T *, cudaStream_t, Mem);
GPUMAT_PJDS_BUILD(double)
GPUMAT_PJDS_BUILD(float)
#undef GPUMAT_PJDS_BUILD

} // namespace cuda
} // namespace gpumat
