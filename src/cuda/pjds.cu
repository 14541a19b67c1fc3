// pjds on the GPU (see pjds.cuh; the layout: src/core/pjds.hpp).
//
// Build, from the CSR on the device (every step a kernel over rows or entries, or CUB):
//   split   row lengths; the long rows (more than long_row entries) flagged and counted by two
//           exclusive sums (rows, entries); the other rows at their position in matrix order,
//           each with a sort key (window << lenbits | (lenmax - length));
//   sort    a stable radix sort of the keys over the bits they use (sigma > 1): descending length
//           within windows of sigma positions, equal lengths in matrix order (the host's order);
//   layout  lengths in sorted order, each block's longest row times its rows, an exclusive sum of
//           those (64-bit) into the block starts, the padded size read back;
//   fill    a thread per position writes its row column by column (consecutive positions of a
//           block at consecutive addresses), its padding (value 0, the row's last column) and the
//           slot map; the long rows' chunks (a binary search per chunk), then their entries, a
//           warp per chunk.
// Product (one kernel): the first blocks' lane groups each sum one chunk of a long row (lanes x
// kPjdsLoads x passes entries, pjds_long_shape; shuffles within the group; a row of several chunks
// is finished by its last-arriving group, which adds the partial sums in chunk order), the other blocks a thread per position of the pJDS part: rowlen entries (padding
// skipped, ELLPACK-R, where that saves bytes), eight loads in flight, the matrix streamed past the caches
// (__ldcs) so that x keeps them, y written through perm.
// (In detail: kUnroll entries of a row loaded at once, predicated, so that a row of 5 entries has
// all its loads in flight, not one after another. The kernel is compiled for 6 resident blocks per
// SM (40 registers) when there is no long part, else for 4 (64): see kPjdsOccupancy.)
// Byte model of a product (fp64, 32-bit indices): 12 B per stored entry (padding included), 4 B
// rowlen (only where the padding's bytes exceed the lengths': else the kernel walks its block's
// width, the padding adding zeros) and 4 B perm (unless the identity) per row of the pJDS part,
// 8 B per block, the long part 12 B per entry, x gathered, y written once.
#include "pjds.cuh"
#include "common.cuh"
#include "pjds_index.cuh"
#include "rowmap.cuh"

#include <climits>
#include <string>

namespace gpumat {
namespace cuda {

namespace {

constexpr int kThreads = 256;
constexpr int kUnroll  = kPjdsLoads; // entries of a row loaded at once by the product
static_assert(kThreads == 32 * kPjdsChunksPerBlock, "a product block is kPjdsChunksPerBlock warps");

int bit_width(unsigned long long v) {
  int b = 0;
  while (v) ++b, v >>= 1;
  return b;
}

// ---------------------------------------------------------------------------------------------
// Builder kernels.

// long_flag[r] = (row r is long), long_len[r] = its length if long, else 0; entry nrows = 0 (the
// exclusive sums' totals land there).
__global__ void __launch_bounds__(kThreads) pj_classify(const index_t *__restrict__ rowptr, index_t nrows, long long long_row, index_t *__restrict__ long_flag,
                                                        index_t *__restrict__ long_len) {
  const long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (r > nrows) return;
  index_t isl = 0, len = 0;
  if (r < nrows) {
    len = rowptr[r + 1] - rowptr[r];
    isl = len > long_row;
  }
  long_flag[r] = isl;
  long_len[r]  = isl ? len : 0;
}

// A short row r to its position i = r - (long rows before r), with its sort key when keys is not
// null; a long row to the long list (its row and its first entry in the long arrays).
__global__ void __launch_bounds__(kThreads) pj_split(const index_t *__restrict__ rowptr, index_t nrows, long long long_row, const index_t *__restrict__ long_idx,
                                                     const index_t *__restrict__ long_off, long long sigma, index_t lenmax, int lenbits,
                                                     std::uint64_t *__restrict__ keys, index_t *__restrict__ rows, index_t *__restrict__ long_rows,
                                                     index_t *__restrict__ long_ptr) {
  const long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= nrows) return;
  const index_t len = rowptr[r + 1] - rowptr[r];
  if (len > long_row) {
    const index_t k = long_idx[r];
    long_rows[k]    = index_t(r);
    long_ptr[k]     = long_off[r];
    return;
  }
  const long long i = r - long_idx[r];
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

// A warp per chunk of a long row: its entries into the long arrays (values after the padded part).
template <typename T>
__global__ void __launch_bounds__(kThreads) pj_long_copy(const index_t *__restrict__ rowptr, const index_t *__restrict__ colidx, const T *__restrict__ aval,
                                                         const index_t *__restrict__ long_rows, const index_t *__restrict__ long_ptr, const index_t *__restrict__ chunk_first,
                                                         const index_t *__restrict__ chunk_row, long long nchunks, long long chunk, long long padded, index_t *__restrict__ long_col,
                                                         T *__restrict__ val, unsigned *__restrict__ slot) {
  const long long c = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (c >= nchunks) return;
  const index_t   k = chunk_row[c], r = long_rows[k];
  const long long off = (long long)(c - chunk_first[k]) * chunk, n = min(chunk, (long long)(rowptr[r + 1] - rowptr[r]) - off);
  const long long q0 = rowptr[r] + off, d = long_ptr[k] + off;
  for (long long t = threadIdx.x & 31; t < n; t += 32) {
    long_col[d + t]     = colidx[q0 + t];
    val[padded + d + t] = aval[q0 + t];
    slot[q0 + t]        = unsigned(padded + d + t);
  }
}

// counts[k] = chunks of long row k; counts[nlong] = 0.
__global__ void __launch_bounds__(kThreads) pj_chunk_counts(const index_t *__restrict__ long_ptr, index_t nlong, long long chunk, index_t *__restrict__ counts) {
  const long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (k > nlong) return;
  counts[k] = k < nlong ? index_t((long_ptr[k + 1] - long_ptr[k] + chunk - 1) / chunk) : 0;
}

// chunk_row[c] = the long row of chunk c, chunk_beg[c] = its first entry in the long part
// (chunk_beg[nchunks] = the long part's entries: a chunk ends where the next begins), so that a
// product's warp finds its entries in one round trip, its row's chunk count while they load.
__global__ void __launch_bounds__(kThreads) pj_chunk_rows(const index_t *__restrict__ chunk_first, const index_t *__restrict__ long_ptr, index_t nlong, long long nchunks, long long chunk,
                                                          index_t *__restrict__ chunk_row, index_t *__restrict__ chunk_beg) {
  const long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= nchunks) return;
  index_t lo = 0, hi = nlong; // the row k with chunk_first[k] <= c < chunk_first[k + 1]
  while (hi - lo > 1) {
    const index_t mid = lo + (hi - lo) / 2;
    if (chunk_first[mid] <= c) lo = mid;
    else hi = mid;
  }
  chunk_row[c] = lo;
  chunk_beg[c] = long_ptr[lo] + index_t((c - chunk_first[lo]) * chunk);
  if (c == nchunks - 1) chunk_beg[nchunks] = long_ptr[nlong];
}

// ---------------------------------------------------------------------------------------------
// Products.

template <typename T>
struct PjArgs {
  const index_t      *perm, *rowlen, *col;
  const std::int64_t *block_start;
  const T            *val;
  index_t             npj;
  int                 br;
  const index_t      *long_rows, *long_ptr, *long_col, *chunk_first, *chunk_row, *chunk_beg;
  const T            *long_val;
  T                  *partial;
  unsigned           *arrived;
  long long           nchunks;
  long long           cb;          // the kernel's first cb blocks take the long part's chunks
  int                 lanes;       // lanes per chunk (the product; the other kernels a warp per chunk)
  bool                read_rowlen; // the product reads rowlen (else its block's width)
};

template <typename T>
__device__ __forceinline__ T warp_sum(T v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v; // every lane holds the sum, added in the same order on every lane and every run
}

// The sum over a group of `lanes` lanes (a power of two dividing 32), on every lane of the group,
// added in the same order on every run; every lane of the warp takes part.
template <typename T>
__device__ __forceinline__ T group_sum(T v, int lanes) {
  for (int o = lanes >> 1; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// The chunks of a kernel's first blocks: thread t of block b is in the group of chunk
// (b * kThreads + t) / lanes; the transpose and the diagonal take a warp per chunk (lanes 32).
__device__ __forceinline__ long long group_chunk(int lanes) { return ((long long)blockIdx.x * kThreads + threadIdx.x) / lanes; }
__device__ __forceinline__ long long warp_chunk() { return group_chunk(32); }
constexpr long long chunk_blocks(long long nchunks, int lanes) { return (nchunks * lanes + kThreads - 1) / kThreads; }

// The entries [q0, q1) of the long part that chunk c covers, and its row k.
struct ChunkSpan {
  index_t   k, first, cnt;
  long long q0, q1;
};
template <typename T>
__device__ __forceinline__ ChunkSpan chunk_span(const PjArgs<T> &a, long long c) {
  ChunkSpan h;
  h.k     = a.chunk_row[c];
  h.first = a.chunk_first[h.k];
  h.cnt   = a.chunk_first[h.k + 1] - h.first;
  h.q0    = a.chunk_beg[c]; // not through the row: the entries' loads wait for one round trip
  h.q1    = a.chunk_beg[c + 1];
  return h;
}

// The long part's chunks, a group of a.lanes lanes each (every lane of the block's warps calls
// this): each lane loads kUnroll entries of its chunk at once (predicated), a pass at a time, the
// group sums by shuffles; the sum into y (a one-chunk row), or into partial[c], the row's
// last-arriving group adding the partials in chunk order.
template <typename T>
__device__ __forceinline__ void long_chunks(const PjArgs<T> &a, const T *__restrict__ x, const T *z, T *y) {
  const int       G = a.lanes, lane = threadIdx.x & 31, sub = lane & (G - 1);
  const long long c   = group_chunk(G);
  const bool      own = c < a.nchunks, lead = own && sub == 0;
  ChunkSpan       h{0, 0, 0, 0, 0};
  if (own) h = chunk_span(a, c);
  const index_t r = lead ? a.long_rows[h.k] : 0; // in flight with the entries
  T             s0 = T(0), s1 = T(0);
  for (long long q0 = h.q0 + sub; q0 < h.q1; q0 += (long long)G * kUnroll) {
    index_t cc[kUnroll];
    T       v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const long long q  = q0 + (long long)u * G;
      const bool      ok = q < h.q1;
      cc[u]              = ok ? __ldcs(a.long_col + q) : 0;
      v[u]               = ok ? __ldcs(a.long_val + q) : T(0);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (q0 + (long long)u * G < h.q1) (u & 1 ? s1 : s0) += v[u] * __ldg(x + cc[u]);
  }
  const T  s    = group_sum(s0 + s1, G);
  unsigned last = 0;
  if (lead) {
    if (h.cnt == 1) y[r] = z ? z[r] + s : s;
    else {
      __stcg(a.partial + c, s);
      __threadfence(); // the partial before the arrival
      last = atomicAdd(a.arrived + h.k, 1u) == unsigned(h.cnt - 1);
    }
  }
  last = __shfl_sync(0xffffffffu, last, lane & ~(G - 1)); // the group's leader's
  if (!__any_sync(0xffffffffu, last)) return;
  if (last) __threadfence(); // the other chunks' partials after their arrivals
  T             t0 = T(0), t1 = T(0);
  const index_t m  = last ? h.cnt : 0;
  index_t       q  = sub;
  for (; q + G < m; q += 2 * G) t0 += __ldcg(a.partial + h.first + q), t1 += __ldcg(a.partial + h.first + q + G);
  if (q < m) t0 += __ldcg(a.partial + h.first + q);
  const T t = group_sum(t0 + t1, G);
  if (lead && last) {
    y[r]           = z ? z[r] + t : t;
    a.arrived[h.k] = 0; // ready for the next product (kernels on the stream do not overlap)
  }
}

// The pJDS part: a thread per position, its row's entries kUnroll at a time (loads predicated, so
// that a row of 5 entries has all its loads in flight), the matrix streamed past the caches
// (ld.global.cs), x through the non-coherent path, y written through perm.
template <typename T>
__device__ __forceinline__ void pjds_row(const PjArgs<T> &a, long long i, const T *__restrict__ x, const T *z, T *y) {
  if (i >= a.npj) return;
  const PjdsPos   q    = pjds_pos(unsigned(i), unsigned(a.br), unsigned(a.npj));
  const long long bs   = a.block_start[q.b];
  const unsigned  rows = q.rows;
  unsigned        p    = unsigned(bs) + q.lane; // positions: the padded part is within 32 bits (checked by the build)
  // the row's length, or its block's width where the padding costs fewer bytes than the lengths
  // (padding entries add 0 x the x of the row's last column)
  const index_t n  = a.read_rowlen ? a.rowlen[i] : index_t(pjds_width(a.block_start[q.b + 1] - bs, q.rows));
  T             s0 = T(0), s1 = T(0);
  for (index_t j = 0; j < n; j += kUnroll, p += kUnroll * rows) {
    index_t c[kUnroll];
    T       v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const bool ok = j + u < n;
      c[u]          = ok ? __ldcs(a.col + p + u * rows) : 0;
      v[u]          = ok ? __ldcs(a.val + p + u * rows) : T(0);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (j + u < n) (u & 1 ? s1 : s0) += v[u] * __ldg(x + c[u]);
  }
  const T       s = s0 + s1;
  const index_t r = a.perm ? a.perm[i] : index_t(i);
  y[r]            = z ? z[r] + s : s;
}

// MinBlocks: product blocks resident per SM the compiler must allow: 4 (up to 64 registers a
// thread) or 6 (up to 40). PjdsDevice::kernel_occupancy() says which runs.
template <typename T, int MinBlocks>
__global__ void __launch_bounds__(kThreads, MinBlocks) pj_spmv(PjArgs<T> a, const T *__restrict__ x, const T *z, T *y) {
  if (blockIdx.x < a.cb) {
    long_chunks(a, x, z, y);
    return;
  }
  pjds_row(a, (long long)(blockIdx.x - a.cb) * kThreads + threadIdx.x, x, z, y);
}

// y += A^T x (y set to z or 0 before): every entry adds into y at its column.
template <typename T>
__global__ void __launch_bounds__(kThreads) pj_spmv_t(PjArgs<T> a, const T *__restrict__ x, T *__restrict__ y) {
  const long long cb = a.cb;
  if (blockIdx.x < cb) {
    const long long c = warp_chunk();
    if (c >= a.nchunks) return;
    const ChunkSpan h  = chunk_span(a, c);
    const T            xr = x[a.long_rows[h.k]];
    for (long long q = h.q0 + (threadIdx.x & 31); q < h.q1; q += 32) atomicAdd(y + a.long_col[q], a.long_val[q] * xr);
    return;
  }
  const long long i = (long long)(blockIdx.x - cb) * kThreads + threadIdx.x;
  if (i >= a.npj) return;
  const PjdsPos   q    = pjds_pos(unsigned(i), unsigned(a.br), unsigned(a.npj));
  const long long rows = q.rows;
  long long       p    = a.block_start[q.b] + q.lane;
  const index_t   n  = a.rowlen[i];
  const T         xr = x[a.perm ? a.perm[i] : index_t(i)];
  for (index_t j = 0; j < n; ++j, p += rows) atomicAdd(y + a.col[p], a.val[p] * xr);
}

// The diagonal: a thread per pJDS position; the long rows' entries by chunk (their d preset to 0).
template <typename T>
__global__ void __launch_bounds__(kThreads) pj_diag(PjArgs<T> a, const index_t *__restrict__ rowmap, T *__restrict__ d) {
  const long long cb = a.cb;
  if (blockIdx.x < cb) {
    const long long c = warp_chunk();
    if (c >= a.nchunks) return;
    const ChunkSpan h = chunk_span(a, c);
    const index_t      r = a.long_rows[h.k], cr = rowmap ? rowmap[r] : r;
    for (long long q = h.q0 + (threadIdx.x & 31); q < h.q1; q += 32)
      if (a.long_col[q] == cr) d[cr] = a.long_val[q];
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
    if (a.col[p] == cr) v = a.val[p];
  d[cr] = v;
}

template <typename T>
__global__ void __launch_bounds__(kThreads) pj_diag_long_zero(const index_t *__restrict__ long_rows, index_t nlong, const index_t *__restrict__ rowmap,
                                                              T *__restrict__ d) {
  const long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (k < nlong) d[rowmap ? rowmap[long_rows[k]] : long_rows[k]] = T(0);
}

} // namespace

template <typename T>
std::size_t PjdsDevice<T>::format_bytes() const {
  if (!block_start_) return 0; // not built (an empty matrix has its one block start, as the host's)
  return std::size_t(padded_) * (sizeof(T) + sizeof(index_t)) + std::size_t(perm_ ? npj_ : 0) * sizeof(index_t) + std::size_t(reads_rowlen() ? npj_ : 0) * sizeof(index_t) +
         std::size_t(nblocks_ + 1) * sizeof(std::int64_t) + std::size_t(long_nnz_) * (sizeof(T) + sizeof(index_t)) + std::size_t(nlong_) * sizeof(index_t) +
         std::size_t(nlong_ + 1) * sizeof(index_t);
}

template <typename T>
std::size_t PjdsDevice<T>::device_bytes() const {
  if (!block_start_) return 0;
  return format_bytes() + std::size_t(nnz_) * sizeof(unsigned) + std::size_t(nlong_ + 1) * sizeof(index_t) + std::size_t(nchunks_) * (sizeof(index_t) + sizeof(T)) + std::size_t(nchunks_ + (nchunks_ > 0)) * sizeof(index_t) +
         std::size_t(nlong_) * sizeof(unsigned);
}

template <typename T>
void PjdsDevice<T>::release() {
  device_free(perm_);
  device_free(rowlen_);
  device_free(block_start_);
  device_free(col_);
  device_free(val_);
  device_free(long_rows_);
  device_free(long_ptr_);
  device_free(long_col_);
  device_free(chunk_first_);
  device_free(chunk_row_);
  device_free(chunk_beg_);
  device_free(partial_);
  device_free(arrived_);
  device_free(slot_);
  nrows_ = ncols_ = nnz_ = npj_ = nlong_ = 0;
  nblocks_ = padded_ = long_nnz_ = nchunks_ = 0;
  shape_ = PjdsLongShape{};
}

template <typename T>
cudaError_t PjdsDevice<T>::build(const CsrView<T> &A, const PjdsParams &params, cudaStream_t s) {
  release();
  DeviceCsr<T> csr; // the CSR on the device, freed stream-ordered after the build
  PhaseTimer   clock(s);
  GPUMAT_CUDA_TRY(csr.upload(A, s));
  clock.mark("upload");
  return build_from(csr.view(), params, s, clock);
}

template <typename T>
cudaError_t PjdsDevice<T>::build(const DeviceCsrView<T> &A, const PjdsParams &params, cudaStream_t s) {
  PhaseTimer clock(s);
  return build_from(A, params, s, clock);
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
  index_t    *long_flag = tmp.get<index_t>(n + 1), *long_len = tmp.get<index_t>(n + 1);
  index_t    *long_idx = tmp.get<index_t>(n + 1), *long_off = tmp.get<index_t>(n + 1);
  GPUMAT_CUDA_TRY(tmp.err);
  pj_classify<<<grid_for(n + 1, nt), nt, 0, s>>>(rowptr, nrows_, p_.long_row, long_flag, long_len);
  GPUMAT_CUDA_TRY(launched());
  GPUMAT_CUDA_TRY(exclusive_sum(long_flag, long_idx, n + 1, s));
  GPUMAT_CUDA_TRY(exclusive_sum(long_len, long_off, n + 1, s));
  index_t totals[2] = {0, 0}; // long rows, long entries
  GPUMAT_CUDA_TRY(cudaMemcpyAsync(&totals[0], long_idx + n, sizeof(index_t), cudaMemcpyDeviceToHost, s));
  GPUMAT_CUDA_TRY(cudaMemcpyAsync(&totals[1], long_off + n, sizeof(index_t), cudaMemcpyDeviceToHost, s));
  GPUMAT_CUDA_TRY(cudaStreamSynchronize(s));
  nlong_ = totals[0], long_nnz_ = totals[1], npj_ = index_t(n - nlong_);

  // the order of the pJDS part: the short rows in matrix order, sorted by length within windows
  const bool      sorts = p_.sigma > 1 && npj_ > 1, identity = p_.sigma == 1 && nlong_ == 0; // as the host builder
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
  GPUMAT_CUDA_TRY(device_alloc(long_rows_, std::size_t(nlong_)));
  GPUMAT_CUDA_TRY(device_alloc(long_ptr_, std::size_t(nlong_) + 1));
  pj_split<<<grid_for(n, nt), nt, 0, s>>>(rowptr, nrows_, p_.long_row, long_idx, long_off, sigma, index_t(lenmax), lenbits, keys, rows, long_rows_, long_ptr_);
  GPUMAT_CUDA_TRY(launched());
  GPUMAT_CUDA_TRY(cudaMemcpyAsync(long_ptr_ + nlong_, long_off + n, sizeof(index_t), cudaMemcpyDeviceToDevice, s));
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
  GPUMAT_CUDA_TRY(device_alloc(val_, std::size_t(padded_ + long_nnz_)));
  GPUMAT_CUDA_TRY(device_alloc(slot_, std::size_t(nnz_)));
  if (npj_ > 0) pj_fill<T><<<grid_for(npj_, nt), nt, 0, s>>>(rowptr, colidx, A.val, perm_, rowlen_, block_start_, npj_, br, col_, val_, slot_);
  GPUMAT_CUDA_TRY(launched());
  clock.mark("fill");

  if (nlong_ > 0) {
    shape_                  = pjds_long_shape(nlong_, long_nnz_, user_shape_);
    const long long chunk   = shape_.entries();
    GPUMAT_CUDA_TRY(device_alloc(long_col_, std::size_t(long_nnz_)));
    index_t *counts = tmp.get<index_t>(std::size_t(nlong_) + 1);
    GPUMAT_CUDA_TRY(tmp.err);
    GPUMAT_CUDA_TRY(device_alloc(chunk_first_, std::size_t(nlong_) + 1));
    pj_chunk_counts<<<grid_for(nlong_ + 1, nt), nt, 0, s>>>(long_ptr_, nlong_, chunk, counts);
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
    pj_chunk_rows<<<grid_for(nchunks_, nt), nt, 0, s>>>(chunk_first_, long_ptr_, nlong_, nchunks_, chunk, chunk_row_, chunk_beg_);
    GPUMAT_CUDA_TRY(launched());
    // a warp per chunk (a hub of millions of entries copied by thousands of warps, not one)
    pj_long_copy<T><<<grid_for(nchunks_ * 32, nt), nt, 0, s>>>(rowptr, colidx, A.val, long_rows_, long_ptr_, chunk_first_, chunk_row_, nchunks_, chunk, padded_, long_col_, val_, slot_);
    GPUMAT_CUDA_TRY(launched());
    clock.mark("long");
  }
  GPUMAT_CUDA_TRY(tmp.err);
  GPUMAT_CUDA_TRY(cudaStreamSynchronize(s));
  phases_ = clock.times();
  return cudaSuccess;
}

template <typename T>
cudaError_t PjdsDevice<T>::refresh(const T *host_val, cudaStream_t s) {
  return refresh_through_slots(host_val, std::int64_t(nnz_), slot_, val_, s);
}

// The kernels' arguments, the long part's chunks taken by groups of `lanes` lanes.
template <typename T>
template <class Args>
Args PjdsDevice<T>::kernel_args(int lanes) const {
  return Args{perm_, rowlen_, col_, block_start_, val_, npj_, p_.block_rows, long_rows_, long_ptr_, long_col_, chunk_first_, chunk_row_, chunk_beg_, val_ ? val_ + padded_ : nullptr, partial_, arrived_, nchunks_, chunk_blocks(nchunks_, lanes), lanes, reads_rowlen()};
}

template <typename T>
cudaError_t PjdsDevice<T>::apply(Op op, const T *x, const T *z, T *y, cudaStream_t s) const {
  const long long pj_blocks = (npj_ + kThreads - 1) / kThreads;
  if (op == Op::NoTrans) {
    const auto      a      = kernel_args<PjArgs<T>>(shape_.lanes ? shape_.lanes : 32);
    const long long blocks = a.cb + pj_blocks;
    if (blocks == 0) return cudaSuccess; // no rows
    if (kernel_occupancy() == 6) pj_spmv<T, 6><<<unsigned(blocks), kThreads, 0, s>>>(a, x, z, y);
    else pj_spmv<T, 4><<<unsigned(blocks), kThreads, 0, s>>>(a, x, z, y);
    return launched();
  }
  GPUMAT_CUDA_TRY(init_output(y, z, ncols_, s));
  const auto      a      = kernel_args<PjArgs<T>>(32);
  const long long blocks = a.cb + pj_blocks;
  if (blocks == 0) return cudaSuccess;
  pj_spmv_t<T><<<unsigned(blocks), kThreads, 0, s>>>(a, x, y);
  return launched();
}

template <typename T>
cudaError_t PjdsDevice<T>::diagonal(const index_t *rowmap, T *d, cudaStream_t s) const {
  const auto a = kernel_args<PjArgs<T>>(32);
  if (nlong_ > 0) {
    pj_diag_long_zero<T><<<grid_for(nlong_, kThreads), kThreads, 0, s>>>(long_rows_, nlong_, rowmap, d);
    GPUMAT_CUDA_TRY(launched());
  }
  const long long blocks = a.cb + (npj_ + kThreads - 1) / kThreads;
  if (blocks == 0) return cudaSuccess;
  pj_diag<T><<<unsigned(blocks), kThreads, 0, s>>>(a, rowmap, d);
  return launched();
}

template <typename T>
cudaError_t PjdsDevice<T>::download(Pjds<T> &B) const {
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
  GPUMAT_CUDA_TRY(get(B.col, col_, std::size_t(padded_)));
  std::vector<T> all;
  GPUMAT_CUDA_TRY(get(all, val_, std::size_t(padded_ + long_nnz_)));
  B.val.assign(all.begin(), all.begin() + padded_);
  B.long_val.assign(all.begin() + padded_, all.end());
  GPUMAT_CUDA_TRY(get(B.long_rows, long_rows_, std::size_t(nlong_)));
  if (nrows_ > 0) GPUMAT_CUDA_TRY(get(B.long_ptr, long_ptr_, std::size_t(nlong_) + 1));
  GPUMAT_CUDA_TRY(get(B.long_col, long_col_, std::size_t(long_nnz_)));
  std::vector<unsigned> slot;
  GPUMAT_CUDA_TRY(get(slot, slot_, std::size_t(nnz_)));
  B.slot.assign(slot.begin(), slot.end());
  return cudaSuccess;
}

template class PjdsDevice<double>;
template class PjdsDevice<float>;

} // namespace cuda
} // namespace gpumat
