// bce: blocked compressed ELL with the optimal partition of rows by length (Yang, Li & Li 2018),
// host side: the distribution function, the optimal partitioning algorithm (OPA), the reordering,
// the layout, its builder from CSR, the value refresh and the host reference products.
//
// The paper's steps, as here:
// 0. Long rows (more than `long_row` nonzeros: circuit hubs, LP rows of thousands) go to the long
//    part shared with pjds (long_rows.hpp; on the GPU chunks summed by groups of lanes): a thread
//    of a group walks its row alone, so the widest group bounds the product's time, and hubs
//    grouped with each other would pad to the widest (the paper's model groups them: 615 % padding
//    on circuit_5M, docs/results/footprint-2026-11-24-bce). long_row by default
//    default_long_row, as pjds: 32, or none where no row is far longer than the mean.
// 1. The distribution function (DF): the row vector sets R_m, all rows of m nonzeros, for every
//    length m present up to long_row (empty rows are the set of width 0). bce_distribution.
// 2. Merging: more than `max_sets` sets are merged, adjacent ones, the pair whose merge adds the
//    fewest padded entries first (a set merged into the next wider one pads its rows to that
//    width), until `max_sets` remain. The paper merges to about 100 (its OPA is cubic); ours is
//    quadratic and the sets are at most long_row + 1 <= 1025, so by default nothing is merged.
//    bce_merge.
// 3. OPA: a partition of the (merged) sets into consecutive groups C_1..C_k (the paper's Theorems
//    5.1-5.2: an optimal partition is of this form) that minimizes an additive time model
//    Cost(P) = sum_i T(C_i). The paper's model, T(C) = W(C) x max(N(C), L) with L = 192 rows on
//    its K20c, charges a group for a thread block of its own that leaves an SM idle below L rows.
//    Ours is the kernel's: every group runs in one launch, warp-aligned (a warp never spans two
//    groups), a thread per row, so a group costs its bytes and its last warp's partial sectors:
//        T(C) = 12 W(C) N(C) + 4 N(C) + c W(C)   bytes (fp64 values, 32-bit columns, row_no),
//    c = `group_cost` bytes per entry of width (default 64: the value and column sectors that a
//    partly filled warp reads at each of its W steps); the GPU's throughput divides every term
//    alike and so does not move the optimum. A set of few rows joins the next wider group when its
//    padding costs less than a group of its own. The recurrence best(m) = min_j best(j) +
//    T(sets j..m-1) is the paper's Algorithm 1-2 minimum over k, O(M^2) (bce_partition;
//    bce_partition_brute checks it on small inputs).
// 4. Reordering: each row's group by a binary search of its length in the groups' widths
//    (O(N log k), the paper's Algorithm 3), rows kept in matrix order within a group; beyond the
//    paper, within windows of `window` matrix rows: the rows of window w and group g form a block,
//    blocks in (window, group) order. One window of all rows is the paper's global grouping; on
//    matrices whose rows of different lengths interleave (circuit, web, power laws), a group
//    spread over the whole matrix scatters its warps' writes of y and gathers of x over all of it
//    (circuit_5M on the H100: 0.667 ms a product against aijcusparse's 0.378), while a window's y
//    and x stay in L2 while its groups run.
//
// Layout. Blocks (window, group) in order, groups in increasing width within a window; block b
// holds rows[b] rows of width width[b], stored as ELL column by column: entry j of the block's
// i-th row is at start[b] + j rows[b] + i in val and col. row_no[p] is the matrix row of position
// p (positions of block b are pos[b] .. pos[b] + rows[b]).
// Padding entries: value 0, the column of the row's last entry (0 for an empty row), so that a
// product may read them without a branch. slot[q] is the position in val of CSR entry q, or
// val.size() + its position in long_val.
//
// Bytes of y = A x (fp64, 32-bit indices): (nnz + padding) x 12 B + 4 B per row (row_no) + the
// block table + 4 B per warp of 32 rows (its block, for the GPU product) + the long part (12 B
// per entry, 8 B per row) + x gathered + y once.
#pragma once
#include "csr.hpp"
#include "long_rows.hpp"
#include <cstdint>
#include <vector>

namespace gpumat {

struct BceParams {
  std::int64_t long_row   = 0;  // rows with more nonzeros go to the long part (0 = default_long_row)
  std::int64_t group_cost = -1; // c of the time model, bytes per entry of a group's width (-1 = kBceGroupCost)
  int          max_sets   = 0;  // sets left after merging, 2..kBceMaxSetsLimit (0 = kBceMaxSets)
  std::int64_t window     = 0;  // rows per window of the reordering (0 = kBceWindow; >= the rows: one, the paper's)
};

constexpr std::int64_t kBceGroupCost    = 64;   // two 32-byte sectors per step of a group's last warp
constexpr int          kBceMaxSets      = 1025; // every length up to 1024 (a user's long_row up to 1024 merges nothing)
constexpr int          kBceMaxSetsLimit = 4096;
constexpr std::int64_t kBceWindow       = 65536; // rows: the window's y (512 KB in fp64) a small share of L2

// Validates p and fills in its defaults (long_row 0 stays: the matrix's, see bce_build); throws
// std::invalid_argument naming the parameter and its range.
BceParams bce_resolve(BceParams p);

// A row vector set (or a merge of adjacent ones): rows of lengths up to `width`, `rows` of them,
// `entries` nonzeros in all.
struct BceSet {
  std::int64_t width = 0, rows = 0, entries = 0;
};

// The distribution function of A's rows of at most long_row nonzeros: one set per row length
// present, in increasing length.
template <typename T>
std::vector<BceSet> bce_distribution(const CsrView<T> &A, std::int64_t long_row);
// Merges adjacent sets until at most max_sets remain, the cheapest merge (fewest padded entries
// added: the narrower set's rows times the width difference) first; O(M log M).
std::vector<BceSet> bce_merge(std::vector<BceSet> sets, int max_sets);
// The time model of one group of sets [a, b) (see above), bytes.
double bce_group_time(const std::vector<BceSet> &sets, std::size_t a, std::size_t b, const BceParams &resolved);
// The optimal partition of sets into consecutive groups under the time model: the group ends
// (exclusive indices into sets, increasing, the last = sets.size()). O(M^2).
std::vector<std::size_t> bce_partition(const std::vector<BceSet> &sets, const BceParams &resolved);
// The same by enumerating every partition (2^(M-1)); for tests, M <= 20.
std::vector<std::size_t> bce_partition_brute(const std::vector<BceSet> &sets, const BceParams &resolved);
// Cost(P) of a partition given by its group ends.
double bce_partition_time(const std::vector<BceSet> &sets, const std::vector<std::size_t> &ends, const BceParams &resolved);

// The groups of A as the build makes them (widths and row counts, increasing width) with the
// resolved parameters (long_row set), and the DF's set counts before and after merging.
struct BceGroups {
  BceParams            p{};
  int                  sets_before_merge = 0, sets = 0;
  std::vector<index_t> width, rows;
};
template <typename T>
BceGroups bce_groups(const CsrView<T> &A, const BceParams &params);
// The same from a DF (the GPU build counts it on the device) with resolved parameters, long_row set.
BceGroups bce_groups_from(const std::vector<BceSet> &df, const BceParams &resolved);

template <typename T>
struct Bce : LongPart<T> { // the long part: long_rows, long_ptr, long_col, long_val (long_rows.hpp)
  BceParams                 p{};   // as built (resolved, long_row set)
  index_t                   nrows = 0, ncols = 0;
  int                       sets_before_merge = 0, sets = 0; // the DF's sets, and after merging
  std::vector<index_t>      group_width;      // the partition's groups (k), increasing
  std::vector<index_t>      width, rows, pos; // per block (window, group), nonempty ones
  std::vector<std::int64_t> start;            // blocks + 1 offsets into val/col
  std::vector<index_t>      row_no;           // position -> matrix row (nrows)
  std::vector<index_t>      col;
  std::vector<T>            val;
  std::vector<std::int64_t> slot;             // CSR entry -> position in val, or val.size() + in long_val

  int          groups() const { return int(group_width.size()); }
  int          blocks() const { return int(width.size()); }
  std::int64_t padded() const { return std::int64_t(val.size()); }
  std::int64_t padding() const; // stored entries of the groups beyond their nonzeros
  std::size_t  bytes() const;   // the arrays a product reads (the byte model's format part)
};

// The GPU product's warps of blocks with these row counts: block b's rows in warps w[b] .. w[b + 1]
// - 1, 32 rows a warp (a block starts on a warp of its own); blocks + 1 entries, w[0] = 0.
std::vector<std::int64_t> bce_block_warps(const std::vector<index_t> &rows);

// Builds B from A (parameters as bce_resolve takes them). Throws std::invalid_argument when the
// padded size exceeds 32-bit positions (with what to do).
template <typename T>
void bce_build(const CsrView<T> &A, const BceParams &p, Bce<T> &B);
// New values, same pattern.
template <typename T>
void bce_refresh(const CsrView<T> &A, Bce<T> &B);
// y = op(A) x (+ z), y may equal z.
template <typename T>
void bce_apply(const Bce<T> &B, Op op, const T *x, const T *z, T *y);

} // namespace gpumat
