// The long part of a row-grouped format (pjds, bce), host side: rows with more than `long_row`
// nonzeros (circuit hubs of millions of entries, LP rows of thousands) keep their CSR entries in a
// part of their own instead of padding a block or serializing a thread; the GPU cuts them into
// chunks summed by groups of lanes (src/cuda/long_rows.cuh). Shared by every format that has one,
// so that its layout, products and byte count are written once.
//
// Layout: long_rows[k] the matrix row of long row k (ascending), long_ptr (size + 1) its CSR
// pointer into long_col/long_val, entries in the matrix's order. A format's slot map sends CSR
// entry q of a long row to `base` + its position in long_val, base = the format's other stored
// entries, so that one slot array refreshes both parts.
#pragma once
#include "csr.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace gpumat {

// The default long_row: the longest row one thread of a row-grouped part walks alone.
// kLongRow = 32, a warp's worth: a longer row goes to the long part, whose chunks are summed by
// groups of 4-32 lanes (long_shape). Until the lane groups (139bfdf) a long row's chunk was a
// warp's single pass of 256 entries, and long_row grew with the nonzeros (nnz / 312,500 within
// 32..1024, a latency model keeping the longest thread walk under a quarter of the stream); with
// the lane groups, 32 measured as fast or faster on every large irregular matrix of the suite
// (H100, same process, the model's threshold against 32: lp_16384 538 -> 32, pjds 2.285 -> 2.179
// ms, bce 2.287 -> 2.175; web_40M 393: pjds 1.748 -> 1.741, bce 1.947 -> 1.858; powerlaw_2M 64:
// pjds 0.215 -> 0.211; circuit_5M 96: within 1 %; docs/results/h100-2026-11-25b-floors).
// Where no row is far longer than the others (the longest at most 3 x the mean nnz / nrows) and the
// longest walk is short (at most kLongRowRegular entries, 16 steps of 8 loads), every warp walks
// about as long as every other and the product is the stream, not the walk: every row stays in the
// thread-per-row part (long_row = longest). fem3_30 (81,000 rows of 18-81 entries, mean 56.5: 32
// put 99.4 % of its entries in the long part): pjds 0.0354 -> 0.0319 ms, bce 0.0348 -> 0.0317.
// The FEM and tutorial matrices of the suite (longest 81-125, at most 2.01 x the mean) are all of
// this kind.
constexpr std::int64_t kLongRow        = 32;
constexpr std::int64_t kLongRowRegular = 128;
inline std::int64_t    default_long_row(std::int64_t nrows, std::int64_t nnz, std::int64_t longest) {
  if (longest > kLongRow && longest <= kLongRowRegular && nrows > 0 && longest * nrows <= 3 * nnz) return longest;
  return kLongRow;
}

// The GPU product's chunk shape. A chunk of a long row is summed by `lanes` lanes of a warp (4, 8, 16 or 32: a warp holds
// 32 / lanes chunks), each lane loading kLongLoads entries at once per pass, in `passes` passes:
// lanes x kLongLoads x passes entries. Short long rows (fem's 33-81 entries) take a quarter warp
// and one chunk, not a warp mostly idle; rows of thousands a warp and several passes, so that a
// chunk's fixed costs (its bounds, and for a row of several chunks a partial sum, a fence and an
// atomic) are paid per 1,024 entries, not per 256.
constexpr int kLongLoads     = 8;  // entries per lane and pass (all loads of a pass in flight)
constexpr int kLongMaxPasses = 64; // the passes option's bound
struct LongShape {
  int          lanes = 0, passes = 0; // 0 = by the long rows' lengths (long_shape)
  std::int64_t entries() const { return std::int64_t(lanes) * kLongLoads * passes; }
};
// Whether a user's shape is valid: lanes 0, 4, 8, 16 or 32; passes 0..kLongMaxPasses.
inline bool long_shape_valid(const LongShape &u) { return (u.lanes == 0 || u.lanes == 4 || u.lanes == 8 || u.lanes == 16 || u.lanes == 32) && u.passes >= 0 && u.passes <= kLongMaxPasses; }
// The shape for long rows of mean length m = long_nnz / long_rows and longest `longest`: lanes =
// m / kLongLoads rounded up to a power of two within 4..32 (every lane one pass of loads on a row
// of mean length), passes = longest / (lanes x kLongLoads) rounded up within 1..4 (the longest row
// in one chunk where 4 passes hold it: fem3_30's rows of 33-81 entries in 8 lanes x 2 passes took
// 0.036 ms a product on the H100, in 8 x 1 (two chunks for rows over 64) 0.041, 16 x 1 0.042; a
// row of 12,000 entries: 32 lanes, 4 passes); the user's lanes or passes where set (non-zero).
inline LongShape long_shape(std::int64_t long_rows, std::int64_t long_nnz, std::int64_t longest, LongShape user) {
  const std::int64_t m = long_rows > 0 ? (long_nnz + long_rows - 1) / long_rows : 0;
  LongShape          s = user;
  if (!s.lanes) {
    s.lanes = 4;
    while (s.lanes < 32 && std::int64_t(s.lanes) * kLongLoads < m) s.lanes *= 2;
  }
  if (!s.passes) {
    const std::int64_t per = std::int64_t(s.lanes) * kLongLoads;
    s.passes               = int(std::min<std::int64_t>(4, std::max<std::int64_t>(1, (longest + per - 1) / per)));
  }
  return s;
}

template <typename T>
struct LongPart {
  std::vector<index_t> long_rows;   // matrix rows, ascending
  std::vector<index_t> long_ptr{0}; // CSR pointer into long_col/long_val
  std::vector<index_t> long_col;
  std::vector<T>       long_val;

  index_t long_count() const { return index_t(long_rows.size()); }
  // Bytes a product reads of this part: 12 B per entry (fp64, 32-bit indices), the row list and
  // pointer.
  std::size_t long_bytes() const { return long_val.size() * (sizeof(T) + sizeof(index_t)) + (long_rows.size() + long_ptr.size()) * sizeof(index_t); }

  // The rows of A longer than long_row, slot[q] = base + position for their entries q. Throws
  // std::invalid_argument (prefixed by `who`) past 2^31 - 1 entries.
  void build_long(const CsrView<T> &A, std::int64_t long_row, std::int64_t base, std::vector<std::int64_t> &slot, const char *who) {
    long_rows.clear(), long_col.clear(), long_val.clear();
    long_ptr.assign(1, 0);
    for (index_t r = 0; r < A.nrows; ++r) {
      if (A.rowptr[r + 1] - A.rowptr[r] <= long_row) continue;
      long_rows.push_back(r);
      for (index_t q = A.rowptr[r]; q < A.rowptr[r + 1]; ++q) {
        slot[std::size_t(q)] = base + std::int64_t(long_col.size());
        long_col.push_back(A.colidx[q]);
        long_val.push_back(A.val[q]);
      }
      if (long_col.size() > std::size_t(INT_MAX)) throw std::invalid_argument(std::string(who) + ": the long rows hold more than 2^31 - 1 entries; use more MPI ranks");
      long_ptr.push_back(index_t(long_col.size()));
    }
  }

  // The long rows' share of y = op(A) x (+ z): NoTrans sets y[r] = z[r] + (A x)[r] for each long
  // row r (z may be null, y may equal z); Trans adds A(r, :)^T x[r] into y (set before).
  void apply_long(Op op, const T *x, const T *z, T *y) const {
    for (std::size_t k = 0; k < long_rows.size(); ++k) {
      const index_t r = long_rows[k];
      if (op == Op::NoTrans) {
        T s = T(0);
        for (index_t q = long_ptr[k]; q < long_ptr[k + 1]; ++q) s += long_val[std::size_t(q)] * x[long_col[std::size_t(q)]];
        y[r] = z ? z[r] + s : s;
      } else {
        const T xr = x[r];
        for (index_t q = long_ptr[k]; q < long_ptr[k + 1]; ++q) y[long_col[std::size_t(q)]] += long_val[std::size_t(q)] * xr;
      }
    }
  }
};

} // namespace gpumat
