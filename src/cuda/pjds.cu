// pjds on the GPU, its products (see pjds.cuh; the layout: src/core/pjds.hpp; the build:
// pjds_build.cu, pjds_positional.cu, pjds_values.cu).
//
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
// With positional columns (pjds.hpp) a thread walks its block's width: each entry's value streamed
// as the others, its offset read from the block's offsets through the non-coherent path (the same
// address for a warp's 32 lanes where b_r is a multiple of 32: one broadcast load), loaded together
// with the values kUnroll at a time; x read at each entry's column (the padding sentinel's, pjds_pad,
// clamped into x) and the sentinel's product dropped (the sums selected), every
// other value, a stored zero included, adds value x x[row - row % group + offset] alternately into
// the two sums in the order of the row's entries, as the 32-bit layout's product adds its entries:
// the same sums, bit for bit (0 x Inf = NaN at a stored zero, as there).
// With a value table each value is a code: 8-bit codes (at most 256 entries) into the table copied
// to shared memory by each CUDA block, 16-bit codes into the table read through the non-coherent
// path (L1; up to 65,536 entries, 512 KB in fp64, more than shared memory holds), the code streamed
// past the caches as the values are, looked up when it is multiplied.
// Byte model of a product (fp64, 32-bit indices): 12 B per stored entry (padding included; 9 B
// with dictionary columns, plus 4 B per dictionary entry and per block; 8 B with positional
// columns, their padding included, plus 4 B per offset and 8 B per block), 4 B
// rowlen (only where the padding's bytes exceed the lengths': else the kernel walks its block's
// width, the padding adding zeros) and 4 B perm (unless the identity) per row of the pJDS part,
// 8 B per block, the long part 12 B per entry, x gathered, y written once.
#include "pjds.cuh"
#include "common.cuh"
#include "long_rows_kernels.cuh"
#include "pjds_index.cuh"
#include "rowmap.cuh"

#include <algorithm>

namespace gpumat {
namespace cuda {

namespace {

constexpr int kThreads = 256;
constexpr int kUnroll  = 8; // entries of a row loaded at once by the product

// ---------------------------------------------------------------------------------------------
// Products.

template <typename T>
struct PjArgs {
  const index_t      *perm, *rowlen, *col;
  const std::uint8_t *code;              // dictionary columns (col null): codes,
  const index_t      *dict, *dict_start; // each block's offsets and their starts
  const index_t      *poff;              // positional columns (col null): each block's offsets,
  const std::int64_t *poff_start;        // their starts (null: not positional),
  index_t             pgroup;            // the rows per group the offsets start from
  const std::int64_t *block_start;
  const T            *val;
  const float        *val32;    // fp32 storage (else null): the padded values the products read
  const T            *table;    // a value table (else null): its ntable values,
  const std::uint8_t *vcode;    // the codes (8-bit, ntable <= kPjdsTableMax; else null),
  const std::uint16_t *vcode16; // or 16-bit (else null),
  const int          *table_ok; // read while this is nonzero
  int                 ntable;
  index_t             npj;
  index_t             ncols;       // x's length (the positional product clamps its padding's columns into it)
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

// How the product reads the padded values: as stored in T, as 8-bit codes into the value table (in
// shared memory), as stored in fp32, or as 16-bit codes into the value table (in global memory,
// read through L1) (pjds.hpp).
enum PjValues { kValPlain = 0, kValTable = 1, kValSingle = 2, kValTable16 = 3 };

// A padded entry's value as the transposed product and the diagonal read it: the products' (fp32
// where stored so; a table's values, 8- or 16-bit codes alike, are the stored ones, bit for bit,
// and no fp32 copy is built beside a table).
template <typename T>
__device__ __forceinline__ T pj_val(const PjArgs<T> &a, long long p) {
  return a.val32 ? T(a.val32[p]) : a.val[p];
}
// Whether padded entry p is positional padding (the sentinel, pjds.hpp), in the form pj_val reads.
template <typename T>
__device__ __forceinline__ bool pj_pad(const PjArgs<T> &a, long long p) {
  return a.val32 ? is_pjds_pad(a.val32[p]) : is_pjds_pad(a.val[p]);
}

// A thread's kUnroll values in flight: as stored (kValPlain, kValSingle), or their codes into the
// value table, four 8-bit codes to a register looked up in shared memory (kValTable), two 16-bit
// codes to a register looked up through the non-coherent path (kValTable16), when they are
// multiplied; `tab` is the table the codes index (shared or global memory).
template <typename T, int Vals>
struct RowValues;
template <typename T>
struct RowValues<T, kValPlain> {
  T                                  v[kUnroll];
  __device__ __forceinline__ void    clear() {}
  __device__ __forceinline__ void    load(int u, bool ok, const PjArgs<T> &a, unsigned pos) { v[u] = ok ? __ldcs(a.val + pos) : T(0); }
  __device__ __forceinline__ T       get(int u, const T *) const { return v[u]; }
  __device__ __forceinline__ bool    pad(int u, const T *) const { return is_pjds_pad(v[u]); } // positional padding (pjds.hpp)
};
template <typename T>
struct RowValues<T, kValSingle> {
  float                              v[kUnroll];
  __device__ __forceinline__ void    clear() {}
  __device__ __forceinline__ void    load(int u, bool ok, const PjArgs<T> &a, unsigned pos) { v[u] = ok ? __ldcs(a.val32 + pos) : 0.0f; }
  __device__ __forceinline__ T       get(int u, const T *) const { return T(v[u]); }
  __device__ __forceinline__ bool    pad(int u, const T *) const { return is_pjds_pad(v[u]); } // fp32's sentinel
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
  __device__ __forceinline__ bool    pad(int u, const T *tab) const { return is_pjds_pad(get(u, tab)); } // the table holds the sentinel
};
template <typename T>
struct RowValues<T, kValTable16> {
  unsigned                           w[kUnroll / 2];
  __device__ __forceinline__ void    clear() {
#pragma unroll
    for (int k = 0; k < kUnroll / 2; ++k) w[k] = 0u;
  }
  __device__ __forceinline__ void    load(int u, bool ok, const PjArgs<T> &a, unsigned pos) { w[u / 2] |= (ok ? unsigned(__ldcs(a.vcode16 + pos)) : 0u) << (16 * (u % 2)); }
  __device__ __forceinline__ T       get(int u, const T *tab) const { return __ldg(tab + ((w[u / 2] >> (16 * (u % 2))) & 0xffffu)); }
  __device__ __forceinline__ bool    pad(int u, const T *tab) const { return is_pjds_pad(get(u, tab)); } // the table holds the sentinel
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

// Positional columns (pjds.hpp): a thread per position walks its block's width (the offsets'
// count), kUnroll entries at a time, each entry's value and its block's offset loaded together
// (predicated, as pjds_row's), then a stored value (zeros included) times x at the row's group base
// plus the offset added into s0, the two sums swapping after each: the k-th entry of the row goes to
// the sum pjds_row adds its k-th entry to (even k: the first), and s0 + s1 is that sum in either
// order (an addition of two numbers is commutative, bit for bit). The sentinel (a position the row
// has no entry at) takes no rank: its sum is computed and dropped (the sums selected, not branched
// on), and its x is read at its column clamped into x, so that no x load waits for a value or a
// code, only for the block's offset (a branch around the sentinel's x would put the value's table
// lookup and its test before every x load). (A parity flag choosing the sum makes the compiler keep
// more in flight: 76-108 B spilled at 40 registers in fp64, against at most 32 B with the swap.)
template <typename T, int Vals>
__device__ __forceinline__ void pjds_row_positional(const PjArgs<T> &a, const T *tab, long long i, const T *__restrict__ x, const T *z, T *y) {
  if (i >= a.npj) return;
  const PjdsPos   q    = pjds_pos(unsigned(i), unsigned(a.br), unsigned(a.npj));
  const unsigned  rows = q.rows;
  const index_t   r    = a.perm ? a.perm[i] : index_t(i);
  const index_t   base = a.pgroup == 1 ? r : r - r % a.pgroup;
  const long long ps   = a.poff_start[q.b];
  const index_t  *off  = a.poff + ps;
  const index_t   n    = index_t(a.poff_start[q.b + 1] - ps);
  unsigned        p    = unsigned(a.block_start[q.b]) + q.lane;
  T               s0 = T(0), s1 = T(0);
  for (index_t j = 0; j < n; j += kUnroll, p += kUnroll * rows) {
    index_t            c[kUnroll];
    RowValues<T, Vals> v;
    v.clear();
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const bool ok = j + u < n;
      c[u]          = ok ? index_t(min(unsigned(base + __ldg(off + j + u)), unsigned(a.ncols - 1))) : 0;
      v.load(u, ok, a, p + u * rows);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (j + u < n) {
        const T    t   = s0 + v.get(u, tab) * __ldg(x + c[u]);
        const bool pad = v.pad(u, tab);
        s0             = pad ? s0 : s1;
        s1             = pad ? s1 : t;
      }
  }
  const T s = s0 + s1;
  y[r]      = z ? z[r] + s : s;
}

// MinBlocks: product blocks resident per SM the compiler must allow: 4 (up to 64 registers a
// thread) or 6 (up to 40). PjdsDevice::kernel_occupancy() says which runs.
// How the product kernel reads columns: stored (32-bit), dictionary codes with the dictionary read
// through the non-coherent path (any b_r), or copied to shared memory (b_r a multiple of 32).
// Positional: the block's offsets (kColPositional).
enum PjColumns { kColPlain = 0, kColDictGlobal = 1, kColDictShared = 2, kColPositional = 3 };

// Vals: kValTable, the padded values through the value table (copied to shared memory by each CUDA
// block) while it is in use (a.table_ok), else as stored in T; kValTable16 likewise, the table read
// in global memory; kValPlain and kValSingle: as stored in T or in fp32.
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
  } else if (Vals == kValTable16) {
    if (*a.table_ok != 0) tab = a.table;
  }
  const long long i = (long long)(blockIdx.x - a.lg.blocks) * kThreads + threadIdx.x;
  if ((Vals == kValTable || Vals == kValTable16) && tab) {
    constexpr int V = Vals == kValTable16 ? kValTable16 : kValTable;
    if (Cols == kColPositional) pjds_row_positional<T, V>(a, tab, i, x, z, y);
    else if (Cols == kColDictShared) pjds_row_shared<T, V>(a, tab, i, x, z, y);
    else pjds_row<T, Cols == kColDictGlobal, V>(a, tab, i, x, z, y);
  } else if (Cols == kColPositional) pjds_row_positional<T, Stored>(a, tab, i, x, z, y);
  else if (Cols == kColDictShared) pjds_row_shared<T, Stored>(a, tab, i, x, z, y);
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
  const index_t   r = a.perm ? a.perm[i] : index_t(i);
  const T         xr = x[r];
  if (a.poff_start) { // positional columns: the block's width, the padding skipped
    const index_t  *off  = a.poff + a.poff_start[q.b];
    const index_t   base = r - r % a.pgroup;
    const long long n   = a.poff_start[q.b + 1] - a.poff_start[q.b];
    for (long long j = 0; j < n; ++j, p += rows)
      if (!pj_pad(a, p)) atomicAdd(y + base + off[j], pj_val(a, p) * xr);
    return;
  }
  const index_t n = a.rowlen[i];
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
  const index_t   r = a.perm ? a.perm[i] : index_t(i), cr = rowmap ? rowmap[r] : r;
  T               v = T(0);
  if (a.poff_start) { // positional columns: the block's width (the sentinel where the row has no entry: 0)
    const index_t  *off  = a.poff + a.poff_start[q.b];
    const index_t   base = r - r % a.pgroup;
    const long long n   = a.poff_start[q.b + 1] - a.poff_start[q.b];
    for (long long j = 0; j < n; ++j, p += rows)
      if (base + off[j] == cr && !pj_pad(a, p)) v = pj_val(a, p);
  } else {
    const index_t n = a.rowlen[i];
    for (index_t j = 0; j < n; ++j, p += rows)
      if (pj_col(a, q.b, p, r) == cr) v = pj_val(a, p);
  }
  d[cr] = v;
}

} // namespace

template <typename T>
std::size_t PjdsDevice<T>::format_bytes() const {
  if (!block_start_) return 0; // not built (an empty matrix has its one block start, as the host's)
  const std::size_t columns = positional() ? std::size_t(npoff_) * sizeof(index_t) + std::size_t(nblocks_ + 1) * sizeof(std::int64_t)
                              : coded()    ? std::size_t(padded_) + std::size_t(dict_entries_ + nblocks_ + 1) * sizeof(index_t)
                                           : std::size_t(padded_) * sizeof(index_t);
  const std::size_t values  = table_   ? std::size_t(padded_) * std::size_t(code_bytes()) + std::size_t(ntable_) * sizeof(T) // as built (table_in_use says whether a refresh turned it off)
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

namespace {
// The product's instance: the occupancy's, the columns' and the values' reading.
template <typename T, int Occ, int Cols>
void launch_values(const PjArgs<T> &a, unsigned blocks, const T *x, const T *z, T *y, cudaStream_t s) {
  if (a.table && a.vcode16) pj_spmv<T, Occ, Cols, kValTable16><<<blocks, kThreads, 0, s>>>(a, x, z, y);
  else if (a.table) pj_spmv<T, Occ, Cols, kValTable><<<blocks, kThreads, 0, s>>>(a, x, z, y);
  else if constexpr (sizeof(T) > sizeof(float)) { // fp32 storage only where T is wider
    if (a.val32) pj_spmv<T, Occ, Cols, kValSingle><<<blocks, kThreads, 0, s>>>(a, x, z, y);
    else pj_spmv<T, Occ, Cols, kValPlain><<<blocks, kThreads, 0, s>>>(a, x, z, y);
  } else pj_spmv<T, Occ, Cols, kValPlain><<<blocks, kThreads, 0, s>>>(a, x, z, y);
}
template <typename T, int Occ>
void launch_columns(const PjArgs<T> &a, unsigned blocks, const T *x, const T *z, T *y, cudaStream_t s) {
  if (a.poff_start) launch_values<T, Occ, kColPositional>(a, blocks, x, z, y, s);
  else if (a.dict_start && a.br % 32 == 0) launch_values<T, Occ, kColDictShared>(a, blocks, x, z, y, s);
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
bool PjdsDevice<T>::table_in_use() const {
  int ok = 0;
  if (!table_ || settled() != cudaSuccess || cudaMemcpy(&ok, table_ok_, sizeof(int), cudaMemcpyDeviceToHost) != cudaSuccess) return false;
  return ok != 0;
}

// The kernels' arguments, the long part's chunks taken by groups of `lanes` lanes (0: its shape's).
template <typename T>
template <class Args>
Args PjdsDevice<T>::kernel_args(int lanes) const {
  return Args{perm_,   rowlen_,      col_,      code_,         dict_, dict_start_,   poff_,          poff_start_,
              pgroup_, block_start_, val_,      val32_,        table_, vcode_,       vcode16_,       table_ok_,      int(ntable_),
              npj_,    ncols_,        p_.block_rows, reads_rowlen(), lr_.template args<LongArgs<T>>(val_ ? val_ + padded_ : nullptr, lanes, kThreads)};
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
  B.positional_declined = pos_declined_;
  auto get   = [](auto &v, const auto *d, std::size_t n) {
    v.resize(n);
    return n ? cudaMemcpy(v.data(), d, n * sizeof(*d), cudaMemcpyDeviceToHost) : cudaSuccess;
  };
  if (!block_start_) return cudaSuccess;
  if (perm_) GPUMAT_CUDA_TRY(get(B.perm, perm_, std::size_t(npj_)));
  GPUMAT_CUDA_TRY(get(B.rowlen, rowlen_, std::size_t(npj_)));
  GPUMAT_CUDA_TRY(get(B.block_start, block_start_, std::size_t(nblocks_) + 1));
  if (positional()) {
    GPUMAT_CUDA_TRY(get(B.poff, poff_, std::size_t(npoff_)));
    GPUMAT_CUDA_TRY(get(B.poff_start, poff_start_, std::size_t(nblocks_) + 1));
    B.pgroup = pgroup_;
  } else if (coded()) {
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
    if (vcode16_) GPUMAT_CUDA_TRY(get(B.vcode16, vcode16_, std::size_t(padded_)));
    else GPUMAT_CUDA_TRY(get(B.vcode, vcode_, std::size_t(padded_)));
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