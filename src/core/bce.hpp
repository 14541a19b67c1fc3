// bce: blocked compressed ELL with the optimal partition of rows by length (Yang, Li & Li 2018),
// host side: the distribution function, the optimal partitioning algorithm (OPA), the reordering,
// the layout, its builder from CSR, the value refresh and the host reference products.
//
// The paper's steps, as here:
// 1. The distribution function (DF): the row vector sets R_m, all rows of m nonzeros, for every
//    length m present (empty rows are the set of width 0). bce_distribution.
// 2. Merging: more than `max_sets` sets (the paper: OPA's cubic time is unbearable past about 100)
//    are merged, adjacent ones, the pair whose merge adds the fewest padded entries first (a set
//    merged into the next wider one pads its rows to that width), until `max_sets` remain.
//    bce_merge.
// 3. OPA: a partition of the (merged) sets into consecutive groups C_1..C_k (the paper's Theorems
//    5.1-5.2: an optimal partition is of this form) that minimizes the time model
//        Cost(P) = sum_i T(C_i),  T(C) = W(C) x max(N(C), L) + G,
//    W the widest row of the group, N its rows, L the rows below which a group leaves the GPU's
//    threads idle (the paper's L: each row is one thread), and G a fixed cost per group in
//    entry-times (the paper has none; 0 gives its model). The paper's Algorithm 1 fills
//    Cost(m, k) for every k and takes the best k (Algorithm 2); the minimum over k is the same as
//    the one-dimensional recurrence best(m) = min_j best(j) + T(sets j+1..m), O(M'^2) for M' sets,
//    which is what bce_partition computes (bce_partition_brute checks it on small inputs).
// 4. Reordering: each row's group by a binary search of its length in the groups' widths
//    (O(N log k), the paper's Algorithm 3), rows kept in matrix order within a group.
//
// Layout. Groups in increasing width; group g holds rows[g] rows of width width[g], stored as ELL
// column by column: entry j of the group's i-th row is at start[g] + j rows[g] + i in val and col.
// row_no[p] is the matrix row of position p (positions of group g are pos[g] .. pos[g] + rows[g]).
// Padding entries: value 0, the column of the row's last entry (0 for an empty row), so that a
// product may read them without a branch. slot[q] is the position in val of CSR entry q.
//
// Bytes of y = A x (fp64, 32-bit indices): (nnz + padding) x 12 B + 4 B per row (row_no) + the
// group table + x gathered + y once (through row_no).
#pragma once
#include "csr.hpp"
#include <cstdint>
#include <vector>

namespace gpumat {

struct BceParams {
  std::int64_t min_rows  = 0;  // L of the time model: rows a group needs to fill the GPU's threads (0 = kBceMinRows)
  std::int64_t group_cost = -1; // G of the time model, in entry-times (-1 = kBceGroupCost)
  int          max_sets  = 0;  // sets left after merging, 2..kBceMaxSetsLimit (0 = kBceMaxSets)
};

constexpr std::int64_t kBceMinRows      = 192; // the paper's L on its K20c; the CUDA layer derives its own
constexpr std::int64_t kBceGroupCost    = 0;   // the paper's model: no cost per group
constexpr int          kBceMaxSets      = 100; // the paper's bound for OPA
constexpr int          kBceMaxSetsLimit = 4096;

// Validates p and fills in its defaults; throws std::invalid_argument naming the parameter and
// its range.
BceParams bce_resolve(BceParams p);

// A row vector set (or a merge of adjacent ones): rows of lengths up to `width`, `rows` of them,
// `entries` nonzeros in all.
struct BceSet {
  std::int64_t width = 0, rows = 0, entries = 0;
};

// The distribution function of A: one set per row length present, in increasing length.
template <typename T>
std::vector<BceSet> bce_distribution(const CsrView<T> &A);
// Merges adjacent sets until at most max_sets remain, the cheapest merge (fewest padded entries
// added: the narrower set's rows times the width difference) first; O(M log M).
std::vector<BceSet> bce_merge(std::vector<BceSet> sets, int max_sets);
// The time model of one group of sets [a, b) (see above).
double bce_group_time(const std::vector<BceSet> &sets, std::size_t a, std::size_t b, const BceParams &resolved);
// The optimal partition of sets into consecutive groups under the time model: the group ends
// (exclusive indices into sets, increasing, the last = sets.size()). O(M^2).
std::vector<std::size_t> bce_partition(const std::vector<BceSet> &sets, const BceParams &resolved);
// The same by enumerating every partition (2^(M-1)); for tests, M <= 20.
std::vector<std::size_t> bce_partition_brute(const std::vector<BceSet> &sets, const BceParams &resolved);
// Cost(P) of a partition given by its group ends.
double bce_partition_time(const std::vector<BceSet> &sets, const std::vector<std::size_t> &ends, const BceParams &resolved);

template <typename T>
struct Bce {
  BceParams                 p{};   // as built (resolved)
  index_t                   nrows = 0, ncols = 0;
  int                       sets_before_merge = 0, sets = 0; // the DF's sets, and after merging
  std::vector<index_t>      width, rows, pos; // per group (k of them)
  std::vector<std::int64_t> start;            // k + 1 offsets into val/col
  std::vector<index_t>      row_no;           // position -> matrix row (nrows)
  std::vector<index_t>      col;
  std::vector<T>            val;
  std::vector<std::int64_t> slot;             // CSR entry -> position in val

  int          groups() const { return int(width.size()); }
  std::int64_t padded() const { return std::int64_t(val.size()); }
  std::int64_t padding() const; // stored entries beyond the nonzeros
  std::size_t  bytes() const;   // the arrays a product reads (the byte model's format part)
};

// Builds B from A with resolved parameters. Throws std::invalid_argument when the padded size
// exceeds 32-bit positions (with what to do).
template <typename T>
void bce_build(const CsrView<T> &A, const BceParams &p, Bce<T> &B);
// New values, same pattern.
template <typename T>
void bce_refresh(const CsrView<T> &A, Bce<T> &B);
// y = op(A) x (+ z), y may equal z.
template <typename T>
void bce_apply(const Bce<T> &B, Op op, const T *x, const T *z, T *y);

} // namespace gpumat
