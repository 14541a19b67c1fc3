// pjds on the GPU (see pjds.cuh; the layout: src/core/pjds.hpp).
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
//           search), and the 32-bit columns are freed.
// Product (one kernel): the first blocks' lane groups each sum one chunk of a long row (lanes x
// kLongLoads x passes entries, long_shape; shuffles within the group; a row of several chunks
// is finished by its last-arriving group, which adds the partial sums in chunk order:
// long_rows_kernels.cuh), the other blocks a thread per position of the pJDS part: rowlen entries
// (padding skipped, ELLPACK-R, where that saves bytes), eight loads in flight, the matrix streamed
// past the caches (__ldcs) so that x keeps them, y written through perm.
// (In detail: kUnroll entries of a row loaded at once, predicated, so that a row of 5 entries has
// all its loads in flight, not one after another. The kernel is compiled for 6 resident blocks per
// SM (40 registers) when there is no long part, else for 4 (64): see kPjdsOccupancy.)
// With dictionary columns each entry's column is its row plus an offset from its block's
// dictionary: copied by the warp to shared memory where a warp's rows are in one block (b_r a
// multiple of 32), else read through the non-coherent path.
// Byte model of a product (fp64, 32-bit indices): 12 B per stored entry (padding included; 9 B
// with dictionary columns, plus 4 B per dictionary entry and per block), 4 B
// rowlen (only where the padding's bytes exceed the lengths': else the kernel walks its block's
// width, the padding adding zeros) and 4 B perm (unless the identity) per row of the pJDS part,
// 8 B per block, the long part 12 B per entry, x gathered, y written once.
#include "pjds.cuh"
#include "common.cuh"
#include "long_rows_kernels.cuh"
#include "pjds_index.cuh"
#include "rowmap.cuh"

#include <algorithm>
#include <climits>
#include <string>

namespace gpumat {
namespace cuda {

namespace {

constexpr int kThreads = 256;
constexpr int kUnroll  = 8; // entries of a row loaded at once by the product

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

// The value table's builder: the padded values' distinct bit patterns gathered in hash sets (each
// CUDA block's in shared memory, then one in global memory), the count read back; the table sorted
// on the host (at most kPjdsTableMax entries), uploaded, and every value's code found by a binary
// search in shared memory.
constexpr int           kTableSlots = 2 * kPjdsTableMax; // open addressing, linear probing
constexpr std::uint64_t kTableEmpty = ~0ull;             // a NaN's bits: a value with them gets no table

template <typename T>
__device__ __forceinline__ std::uint64_t value_bits(T v) {
  if constexpr (sizeof(T) == 8) return std::uint64_t(__double_as_longlong(v));
  else return std::uint64_t(__float_as_uint(v));
}

__device__ __forceinline__ unsigned table_hash(std::uint64_t b) { return unsigned((b * 0x9E3779B97F4A7C15ull) >> 40) & (kTableSlots - 1); }

// Inserts b into the set (slots, kTableSlots of them); true where this call added it.
__device__ __forceinline__ bool table_insert(unsigned long long *slots, std::uint64_t b) {
  for (unsigned h = table_hash(b), probes = 0; probes < kTableSlots; h = (h + 1) & (kTableSlots - 1), ++probes) {
    const unsigned long long cur = slots[h];
    if (cur == b) return false;
    if (cur == kTableEmpty) {
      const unsigned long long old = atomicCAS(slots + h, kTableEmpty, (unsigned long long)b);
      if (old == kTableEmpty) return true;
      if (old == b) return false;
    }
  }
  return false; // full: the caller's count has passed the limit already
}

// state[0]: distinct values in the global set; state[1]: nonzero where there are more than
// kPjdsTableMax (or a value with kTableEmpty's bits).
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

// fp32 storage: val32[k] = val[k] rounded to float (round to nearest, as the host's conversion).
template <typename T>
__global__ void __launch_bounds__(kThreads) pj_round(const T *__restrict__ val, long long n, float *__restrict__ val32) {
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (long long)gridDim.x * blockDim.x) val32[k] = float(val[k]);
}

// ---------------------------------------------------------------------------------------------
// Products.

template <typename T>
struct PjArgs {
  const index_t      *perm, *rowlen, *col;
  const std::uint8_t *code;              // dictionary columns (col null): codes,
  const index_t      *dict, *dict_start; // each block's offsets and their starts
  const std::int64_t *block_start;
  const T            *val;
  const float        *val32;    // fp32 storage (else null): the padded values the products read
  const T            *table;    // a value table (else null): its ntable values,
  const std::uint8_t *vcode;    // the codes,
  const int          *table_ok; // read while this is nonzero
  int                 ntable;
  index_t             npj;
  int                 br;
  bool                read_rowlen; // the product reads rowlen (else its block's width)
  LongArgs<T>         lg;          // the long part, in the kernel's first lg.blocks blocks
};

template <typename T>
__device__ __forceinline__ T warp_sum(T v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v; // every lane holds the sum, added in the same order on every lane and every run
}

// The column of padded entry p of matrix row r in block b: stored, or r plus its code's offset
// (the transposed product and the diagonal; the product's own loop reads them inline).
template <typename T>
__device__ __forceinline__ index_t pj_col(const PjArgs<T> &a, unsigned b, long long p, index_t r) {
  return a.col ? a.col[p] : r + __ldg(a.dict + a.dict_start[b] + a.code[p]);
}

// How the product reads the padded values: as stored in T, as codes into the value table, or as
// stored in fp32 (pjds.hpp).
enum PjValues { kValPlain = 0, kValTable = 1, kValSingle = 2 };

// A padded entry's value as the transposed product and the diagonal read it: the products' (fp32
// where stored so; a table's values are the stored ones).
template <typename T>
__device__ __forceinline__ T pj_val(const PjArgs<T> &a, long long p) {
  return a.val32 ? T(a.val32[p]) : a.val[p];
}

// A thread's kUnroll values in flight: as stored (kValPlain, kValSingle), or their codes into the
// value table, four to a register, looked up (in shared memory) when they are multiplied.
template <typename T, int Vals>
struct RowValues;
template <typename T>
struct RowValues<T, kValPlain> {
  T                                  v[kUnroll];
  __device__ __forceinline__ void    clear() {}
  __device__ __forceinline__ void    load(int u, bool ok, const PjArgs<T> &a, unsigned pos) { v[u] = ok ? __ldcs(a.val + pos) : T(0); }
  __device__ __forceinline__ T       get(int u, const T *) const { return v[u]; }
};
template <typename T>
struct RowValues<T, kValSingle> {
  float                              v[kUnroll];
  __device__ __forceinline__ void    clear() {}
  __device__ __forceinline__ void    load(int u, bool ok, const PjArgs<T> &a, unsigned pos) { v[u] = ok ? __ldcs(a.val32 + pos) : 0.0f; }
  __device__ __forceinline__ T       get(int u, const T *) const { return T(v[u]); }
};
template <typename T>
struct RowValues<T, kValTable> {
  unsigned                           w[kUnroll / 4];
  __device__ __forceinline__ void    clear() {
#pragma unroll
    for (int k = 0; k < kUnroll / 4; ++k) w[k] = 0u;
  }
  __device__ __forceinline__ void    load(int u, bool ok, const PjArgs<T> &a, unsigned pos) { w[u / 4] |= (ok ? unsigned(__ldcs(a.vcode + pos)) : 0u) << (8 * (u % 4)); }
  __device__ __forceinline__ T       get(int u, const T *tab) const { return tab[(w[u / 4] >> (8 * (u % 4))) & 0xffu]; }
};

// Dictionary columns with b_r a multiple of 32 (a warp's positions in one block): the warp copies
// its block's dictionary to shared memory, the copy's loads issued after the first entries' code and
// value loads and waited for with them, so that between a code and its x there is a shared-memory
// read, not a global load. Every lane of a warp that has a position takes part in the copy.
template <typename T, int Vals>
__device__ __forceinline__ void pjds_row_shared(const PjArgs<T> &a, const T *tab, long long i, const T *__restrict__ x, const T *z, T *y) {
  __shared__ index_t shared_dict[kThreads / 32][kPjdsDictMax];
  if ((i & ~31LL) >= a.npj) return; // the whole warp
  const bool      valid = i < a.npj;
  const int       lane  = int(i & 31);
  const PjdsPos   q     = pjds_pos(unsigned(i), unsigned(a.br), unsigned(a.npj)); // lanes past the last row: still its block
  const long long bs    = a.block_start[q.b];
  const unsigned  rows  = q.rows;
  const index_t   d0 = a.dict_start[q.b], k = a.dict_start[q.b + 1] - d0;
  const index_t   r  = valid ? (a.perm ? a.perm[i] : index_t(i)) : 0;
  const index_t   n  = !valid ? 0 : a.read_rowlen ? a.rowlen[i] : index_t(pjds_width(a.block_start[q.b + 1] - bs, rows));
  index_t        *sd = shared_dict[(threadIdx.x & (kThreads - 1)) >> 5];
  unsigned        p  = unsigned(bs) + q.lane;
  unsigned        c[kUnroll / 4] = {}; // the codes, four to a register (fewer registers: 6 blocks per SM)
  RowValues<T, Vals> v;
  v.clear();
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) { // the first entries
    const bool ok = u < n;
    c[u / 4] |= (ok ? unsigned(__ldcs(a.code + p + u * rows)) : 0u) << (8 * (u % 4));
    v.load(u, ok, a, p + u * rows);
  }
  for (index_t t = lane; t < k; t += 32) sd[t] = __ldg(a.dict + d0 + t);
  __syncwarp();
  if (!valid) return;
  T s0 = T(0), s1 = T(0);
  for (index_t j = 0;;) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (j + u < n) (u & 1 ? s1 : s0) += v.get(u, tab) * __ldg(x + (r + sd[(c[u / 4] >> (8 * (u % 4))) & 0xffu]));
    j += kUnroll, p += kUnroll * rows;
    if (j >= n) break;
#pragma unroll
    for (int u = 0; u < kUnroll / 4; ++u) c[u] = 0u;
    v.clear();
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const bool ok = j + u < n;
      c[u / 4] |= (ok ? unsigned(__ldcs(a.code + p + u * rows)) : 0u) << (8 * (u % 4));
      v.load(u, ok, a, p + u * rows);
    }
  }
  const T s = s0 + s1;
  y[r]      = z ? z[r] + s : s;
}

// The pJDS part: a thread per position, its row's entries kUnroll at a time (loads predicated, so
// that a row of 5 entries has all its loads in flight), the matrix streamed past the caches
// (ld.global.cs), x (and a dictionary) through the non-coherent path, y written through perm.
template <typename T, bool Coded, int Vals>
__device__ __forceinline__ void pjds_row(const PjArgs<T> &a, const T *tab, long long i, const T *__restrict__ x, const T *z, T *y) {
  if (i >= a.npj) return;
  const PjdsPos   q    = pjds_pos(unsigned(i), unsigned(a.br), unsigned(a.npj));
  const long long bs   = a.block_start[q.b];
  const unsigned  rows = q.rows;
  const index_t   r    = a.perm ? a.perm[i] : index_t(i);
  const index_t  *dict = Coded ? a.dict + a.dict_start[q.b] : nullptr;
  unsigned        p    = unsigned(bs) + q.lane; // positions: the padded part is within 32 bits (checked by the build)
  // the row's length, or its block's width where the padding costs fewer bytes than the lengths
  // (padding entries add 0 x the x of the row's last column)
  const index_t n  = a.read_rowlen ? a.rowlen[i] : index_t(pjds_width(a.block_start[q.b + 1] - bs, q.rows));
  T             s0 = T(0), s1 = T(0);
  for (index_t j = 0; j < n; j += kUnroll, p += kUnroll * rows) {
    index_t            c[kUnroll];
    RowValues<T, Vals> v;
    v.clear();
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const bool ok = j + u < n;
      if (Coded) c[u] = ok ? r + __ldg(dict + __ldcs(a.code + p + u * rows)) : 0;
      else c[u] = ok ? __ldcs(a.col + p + u * rows) : 0;
      v.load(u, ok, a, p + u * rows);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (j + u < n) (u & 1 ? s1 : s0) += v.get(u, tab) * __ldg(x + c[u]);
  }
  const T s = s0 + s1;
  y[r]      = z ? z[r] + s : s;
}

// MinBlocks: product blocks resident per SM the compiler must allow: 4 (up to 64 registers a
// thread) or 6 (up to 40). PjdsDevice::kernel_occupancy() says which runs.
// How the product kernel reads columns: stored (32-bit), dictionary codes with the dictionary read
// through the non-coherent path (any b_r), or copied to shared memory (b_r a multiple of 32).
enum PjColumns { kColPlain = 0, kColDictGlobal = 1, kColDictShared = 2 };

// Vals: kValTable, the padded values through the value table (copied to shared memory by each CUDA
// block) while it is in use (a.table_ok), else as stored in T; kValPlain and kValSingle: as stored
// in T or in fp32.
template <typename T, int MinBlocks, int Cols, int Vals>
__global__ void __launch_bounds__(kThreads, MinBlocks) pj_spmv(PjArgs<T> a, const T *__restrict__ x, const T *z, T *y) {
  if (blockIdx.x < a.lg.blocks) {
    long_chunks(a.lg, x, z, y);
    return;
  }
  constexpr int Stored = Vals == kValSingle ? kValSingle : kValPlain; // a table's fallback reads them in T
  const T      *tab    = nullptr;
  if (Vals == kValTable) {
    __shared__ T shared_table[kPjdsTableMax];
    const bool   use = *a.table_ok != 0; // the same for the whole CUDA block
    if (use)
      for (int t = threadIdx.x; t < a.ntable; t += kThreads) shared_table[t] = a.table[t];
    __syncthreads();
    if (use) tab = shared_table;
  }
  const long long i = (long long)(blockIdx.x - a.lg.blocks) * kThreads + threadIdx.x;
  if (Vals == kValTable && tab) {
    if (Cols == kColDictShared) pjds_row_shared<T, kValTable>(a, tab, i, x, z, y);
    else pjds_row<T, Cols == kColDictGlobal, kValTable>(a, tab, i, x, z, y);
  } else if (Cols == kColDictShared) pjds_row_shared<T, Stored>(a, tab, i, x, z, y);
  else pjds_row<T, Cols == kColDictGlobal, Stored>(a, tab, i, x, z, y);
}

// y += A^T x (y set to z or 0 before): every entry adds into y at its column.
template <typename T>
__global__ void __launch_bounds__(kThreads) pj_spmv_t(PjArgs<T> a, const T *__restrict__ x, T *__restrict__ y) {
  const long long cb = a.lg.blocks;
  if (blockIdx.x < cb) {
    long_chunk_t(a.lg, x, y);
    return;
  }
  const long long i = (long long)(blockIdx.x - cb) * kThreads + threadIdx.x;
  if (i >= a.npj) return;
  const PjdsPos   q    = pjds_pos(unsigned(i), unsigned(a.br), unsigned(a.npj));
  const long long rows = q.rows;
  long long       p    = a.block_start[q.b] + q.lane;
  const index_t   n = a.rowlen[i], r = a.perm ? a.perm[i] : index_t(i);
  const T         xr = x[r];
  for (index_t j = 0; j < n; ++j, p += rows) atomicAdd(y + pj_col(a, q.b, p, r), pj_val(a, p) * xr);
}

// The diagonal: a thread per pJDS position; the long rows' entries by chunk (their d preset to 0).
template <typename T>
__global__ void __launch_bounds__(kThreads) pj_diag(PjArgs<T> a, const index_t *__restrict__ rowmap, T *__restrict__ d) {
  const long long cb = a.lg.blocks;
  if (blockIdx.x < cb) {
    long_chunk_diag(a.lg, rowmap, d);
    return;
  }
  const long long i = (long long)(blockIdx.x - cb) * kThreads + threadIdx.x;
  if (i >= a.npj) return;
  const PjdsPos   q    = pjds_pos(unsigned(i), unsigned(a.br), unsigned(a.npj));
  const long long rows = q.rows;
  long long       p    = a.block_start[q.b] + q.lane;
  const index_t   n = a.rowlen[i], r = a.perm ? a.perm[i] : index_t(i), cr = rowmap ? rowmap[r] : r;
  T               v = T(0);
  for (index_t j = 0; j < n; ++j, p += rows)
    if (pj_col(a, q.b, p, r) == cr) v = pj_val(a, p);
  d[cr] = v;
}

} // namespace

template <typename T>
std::size_t PjdsDevice<T>::format_bytes() const {
  if (!block_start_) return 0; // not built (an empty matrix has its one block start, as the host's)
  const std::size_t columns = coded() ? std::size_t(padded_) + std::size_t(dict_entries_ + nblocks_ + 1) * sizeof(index_t) : std::size_t(padded_) * sizeof(index_t);
  const std::size_t values  = table_   ? std::size_t(padded_) + std::size_t(ntable_) * sizeof(T) // as built (table_in_use says whether a refresh turned it off)
                              : val32_ ? std::size_t(padded_) * sizeof(float)
                                       : std::size_t(padded_) * sizeof(T);
  return values + columns + std::size_t(perm_ ? npj_ : 0) * sizeof(index_t) + std::size_t(reads_rowlen() ? npj_ : 0) * sizeof(index_t) +
         std::size_t(nblocks_ + 1) * sizeof(std::int64_t) + lr_.format_bytes();
}

template <typename T>
std::size_t PjdsDevice<T>::device_bytes() const {
  if (!block_start_) return 0;
  // the values are held besides a table's codes or their fp32 copy (refreshes write them)
  return format_bytes() - lr_.format_bytes() + lr_.device_bytes() + std::size_t(nnz_) * sizeof(unsigned) + (table_ ? std::size_t(padded_) * sizeof(T) + sizeof(int) : 0) +
         (val32_ ? std::size_t(padded_) * sizeof(T) : 0);
}

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
  device_free(table_);
  device_free(vcode_);
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
  if (p_.columns != PjdsColumns::Plain && padded_ > 0 && (p_.columns == PjdsColumns::Dictionary || pjds_dictionary_wide(padded_, npj_))) {
    GPUMAT_CUDA_TRY(code_columns(tmp, s));
    clock.mark("code");
  }
  if (p_.values != PjdsValues::Plain && padded_ > 0) {
    GPUMAT_CUDA_TRY(code_values(s));
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

namespace {
// The product's instance: the occupancy's, the columns' and the values' reading.
template <typename T, int Occ, int Cols>
void launch_values(const PjArgs<T> &a, unsigned blocks, const T *x, const T *z, T *y, cudaStream_t s) {
  if (a.table) pj_spmv<T, Occ, Cols, kValTable><<<blocks, kThreads, 0, s>>>(a, x, z, y);
  else if constexpr (sizeof(T) > sizeof(float)) { // fp32 storage only where T is wider
    if (a.val32) pj_spmv<T, Occ, Cols, kValSingle><<<blocks, kThreads, 0, s>>>(a, x, z, y);
    else pj_spmv<T, Occ, Cols, kValPlain><<<blocks, kThreads, 0, s>>>(a, x, z, y);
  } else pj_spmv<T, Occ, Cols, kValPlain><<<blocks, kThreads, 0, s>>>(a, x, z, y);
}
template <typename T, int Occ>
void launch_columns(const PjArgs<T> &a, unsigned blocks, const T *x, const T *z, T *y, cudaStream_t s) {
  if (a.dict_start && a.br % 32 == 0) launch_values<T, Occ, kColDictShared>(a, blocks, x, z, y, s);
  else if (a.dict_start) launch_values<T, Occ, kColDictGlobal>(a, blocks, x, z, y, s);
  else launch_values<T, Occ, kColPlain>(a, blocks, x, z, y, s);
}
template <typename T>
void launch_product(const PjArgs<T> &a, int occ, unsigned blocks, const T *x, const T *z, T *y, cudaStream_t s) {
  if (occ == 6) launch_columns<T, 6>(a, blocks, x, z, y, s);
  else launch_columns<T, 4>(a, blocks, x, z, y, s);
}
} // namespace

template <typename T>
unsigned PjdsDevice<T>::table_grid() const {
  return unsigned(std::min<long long>(grid_for(padded_, kThreads), 1024));
}

template <typename T>
cudaError_t PjdsDevice<T>::code_values(cudaStream_t s) {
  unsigned long long *slots = nullptr;
  int                *state = nullptr;
  auto                done  = [&](cudaError_t e) {
    device_free(slots);
    device_free(state);
    return e;
  };
  cudaError_t e = device_alloc(slots, kTableSlots);
  if (e == cudaSuccess) e = device_alloc(state, 2);
  if (e == cudaSuccess) e = cudaMemsetAsync(slots, 0xff, kTableSlots * sizeof(unsigned long long), s); // kTableEmpty
  if (e == cudaSuccess) e = cudaMemsetAsync(state, 0, 2 * sizeof(int), s);
  if (e != cudaSuccess) return done(e);
  const unsigned grid = table_grid();
  pj_table_gather<T><<<grid, kThreads, 0, s>>>(val_, padded_, slots, state);
  e = launched();
  int h[2] = {0, 0};
  if (e == cudaSuccess) e = cudaMemcpyAsync(h, state, sizeof(h), cudaMemcpyDeviceToHost, s);
  if (e == cudaSuccess) e = cudaStreamSynchronize(s);
  if (e != cudaSuccess) return done(e);
  if (h[1] || h[0] > kPjdsTableMax || (p_.values == PjdsValues::Auto && !pjds_table_pays(padded_, h[0], sizeof(T)))) return done(cudaSuccess); // the values as stored
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

template <typename T>
bool PjdsDevice<T>::table_in_use() const {
  int ok = 0;
  if (!table_ || settled() != cudaSuccess || cudaMemcpy(&ok, table_ok_, sizeof(int), cudaMemcpyDeviceToHost) != cudaSuccess) return false;
  return ok != 0;
}

template <typename T>
cudaError_t PjdsDevice<T>::refresh(const T *val, cudaStream_t s, Mem where) {
  GPUMAT_CUDA_TRY(refresh_through_slots(val, std::int64_t(nnz_), slot_, val_, s, where));
  if (val32_) {
    pj_round<T><<<table_grid(), kThreads, 0, s>>>(val_, padded_, val32_);
    return launched();
  }
  if (!table_) return cudaSuccess;
  GPUMAT_CUDA_TRY(cudaMemsetAsync(table_ok_, 1, sizeof(int), s)); // cleared by a value outside the table
  pj_table_codes<T><<<table_grid(), kThreads, 0, s>>>(val_, padded_, table_, int(ntable_), vcode_, table_ok_);
  return launched();
}

// The kernels' arguments, the long part's chunks taken by groups of `lanes` lanes (0: its shape's).
template <typename T>
template <class Args>
Args PjdsDevice<T>::kernel_args(int lanes) const {
  return Args{perm_,  rowlen_,   col_,         code_, dict_,         dict_start_,    block_start_, val_, val32_, table_,
              vcode_, table_ok_, int(ntable_), npj_,  p_.block_rows, reads_rowlen(), lr_.template args<LongArgs<T>>(val_ ? val_ + padded_ : nullptr, lanes, kThreads)};
}

template <typename T>
cudaError_t PjdsDevice<T>::apply(Op op, const T *x, const T *z, T *y, cudaStream_t s) const {
  const long long pj_blocks = (npj_ + kThreads - 1) / kThreads;
  if (op == Op::NoTrans) {
    const auto      a      = kernel_args<PjArgs<T>>(0);
    const long long blocks = a.lg.blocks + pj_blocks;
    if (blocks == 0) return cudaSuccess; // no rows
    const bool timed = occupancy_ == 0 && !trial_.decided(); // one of the first products: the trial's
    const int  occ   = timed ? trial_.begin(s) : kernel_occupancy();
    launch_product(a, occ, unsigned(blocks), x, z, y, s);
    if (timed) trial_.end(s);
    return launched();
  }
  GPUMAT_CUDA_TRY(init_output(y, z, ncols_, s));
  const auto      a      = kernel_args<PjArgs<T>>(32);
  const long long blocks = a.lg.blocks + pj_blocks;
  if (blocks == 0) return cudaSuccess;
  pj_spmv_t<T><<<unsigned(blocks), kThreads, 0, s>>>(a, x, y);
  return launched();
}

template <typename T>
cudaError_t PjdsDevice<T>::diagonal(const index_t *rowmap, T *d, cudaStream_t s) const {
  const auto a = kernel_args<PjArgs<T>>(32);
  GPUMAT_CUDA_TRY(lr_.zero_diagonal(rowmap, d, s));
  const long long blocks = a.lg.blocks + (npj_ + kThreads - 1) / kThreads;
  if (blocks == 0) return cudaSuccess;
  pj_diag<T><<<unsigned(blocks), kThreads, 0, s>>>(a, rowmap, d);
  return launched();
}

template <typename T>
cudaError_t PjdsDevice<T>::download(Pjds<T> &B) const {
  GPUMAT_CUDA_TRY(settled());
  B          = Pjds<T>();
  B.p        = p_;
  B.nrows    = nrows_;
  B.ncols    = ncols_;
  B.nrows_pj = npj_;
  auto get   = [](auto &v, const auto *d, std::size_t n) {
    v.resize(n);
    return n ? cudaMemcpy(v.data(), d, n * sizeof(*d), cudaMemcpyDeviceToHost) : cudaSuccess;
  };
  if (!block_start_) return cudaSuccess;
  if (perm_) GPUMAT_CUDA_TRY(get(B.perm, perm_, std::size_t(npj_)));
  GPUMAT_CUDA_TRY(get(B.rowlen, rowlen_, std::size_t(npj_)));
  GPUMAT_CUDA_TRY(get(B.block_start, block_start_, std::size_t(nblocks_) + 1));
  if (coded()) {
    GPUMAT_CUDA_TRY(get(B.code, code_, std::size_t(padded_)));
    GPUMAT_CUDA_TRY(get(B.dict, dict_, std::size_t(dict_entries_)));
    GPUMAT_CUDA_TRY(get(B.dict_start, dict_start_, std::size_t(nblocks_) + 1));
  } else GPUMAT_CUDA_TRY(get(B.col, col_, std::size_t(padded_)));
  std::vector<T> all;
  GPUMAT_CUDA_TRY(get(all, val_, std::size_t(padded_ + lr_.entries())));
  B.val.assign(all.begin(), all.begin() + padded_);
  if (val32_) GPUMAT_CUDA_TRY(get(B.val32, val32_, std::size_t(padded_)));
  if (table_in_use()) {
    GPUMAT_CUDA_TRY(get(B.table, table_, std::size_t(ntable_)));
    GPUMAT_CUDA_TRY(get(B.vcode, vcode_, std::size_t(padded_)));
  }
  B.long_val.assign(all.begin() + padded_, all.end());
  GPUMAT_CUDA_TRY(lr_.download(B.long_rows, B.long_ptr, B.long_col));
  std::vector<unsigned> slot;
  GPUMAT_CUDA_TRY(get(slot, slot_, std::size_t(nnz_)));
  B.slot.assign(slot.begin(), slot.end());
  return cudaSuccess;
}

template class PjdsDevice<double>;
template class PjdsDevice<float>;

} // namespace cuda
} // namespace gpumat
