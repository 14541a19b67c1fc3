// Features of a matrix's pattern that decide which GPU format reads it fastest (gpuauto's input):
// the host reference, in one pass over the rows (the GPU version computes the same fields).
//
// A product's time is its bytes at the streaming rate plus what its gathers of x cost beyond them.
// The bytes of each format follow from the row lengths (padding) and the block fill; the gathers
// from how many 32-byte sectors of x a warp's load touches, which depends on the order in which the
// format walks the entries:
//   - CSR order (a warp reads 32 consecutive entries: CSR-vector kernels, csrspec, bccoo's 1 x 1
//     tiles): sectors_csr, the distinct sectors of x among 32 consecutive entries;
//   - ELL order (a warp's 32 threads take 32 consecutive rows and read their j-th entries together:
//     sliced ELL, pjds without sorting, bce within a group): sectors_ell, the distinct sectors among
//     the j-th entries of 32 consecutive rows (rows shorter than j + 1 take no part).
// Both per 32 entries: 8 is the coalesced ideal (4 fp64 values a sector), 32 every entry a sector
// of its own (random columns, or a long row walked by one thread of its warp alone).
//
// padding_sell: the entries a sliced ELL of 32-row slices in the matrix's order stores beyond the
// nonzeros (cuSPARSE's SELL, sellcuda), over the nonzeros; padding_sorted: the same with the rows
// sorted by length over the whole matrix (pJDS with one window: the least any row-sorted ELL pads).
// blocks_bs[k]: the nonzero blocks of (k+2) x (k+2) blocks aligned to the grid (BSR with block size
// 2, 3, 4), their fill = nnz / (blocks (k+2)^2).
#pragma once
#include "csr.hpp"

#include <cstdint>
#include <utility>
#include <vector>

namespace gpumat {

struct MatrixFeatures {
  index_t      nrows = 0, ncols = 0;
  std::int64_t nnz = 0;
  std::int64_t empty_rows = 0;
  index_t      max_row = 0;          // the longest row
  double       mean_row = 0;         // nnz / nrows
  double       cv_row   = 0;         // standard deviation of the row lengths / mean
  double       padding_sell   = 0;   // sliced ELL, slices of 32 rows, matrix order: padded / nnz
  double       padding_sorted = 0;   // rows sorted by length, blocks of 32: padded / nnz
  std::int64_t blocks_bs[3] = {0, 0, 0}; // nonzero blocks of 2x2, 3x3, 4x4 (grid-aligned)
  double       sectors_csr = 0;      // distinct 32-byte sectors of x per 32 entries, CSR order (8..32)
  double       sectors_ell = 0;      // the same, ELL order (32 consecutive rows' j-th entries a request)
  double       diag_distance = 0;    // mean |column - row x ncols / nrows| / ncols (0: on the diagonal)
  double       block_fill(int bs) const { // nnz / (blocks bs^2), bs = 2, 3 or 4
    const std::int64_t b = blocks_bs[bs - 2];
    return b > 0 ? double(nnz) / (double(b) * bs * bs) : 0.0;
  }
};

// The features of A's pattern (its values are not read); time linear in the nonzeros (the sorted
// padding from a histogram of the lengths, the sectors from 32-entry groups).
template <typename T>
MatrixFeatures matrix_features(const CsrView<T> &A);

// The padding of rows sorted by length (descending) in blocks of 32, from the distinct lengths,
// longest first, and their row counts (doubles: gpuauto scales a sample's counts to the matrix's
// rows): a block pads its rows to the length at its first position, so only a block that
// straddles two lengths pads; in time of the distinct lengths (times a binary search), not of the
// rows. Exact for whole counts (matrix_features' padding_sorted).
double sorted_padding(const std::vector<std::pair<index_t, double>> &runs);

// The nonzero grid-aligned bs x bs blocks of A (bs >= 1; the block size of BSR): time linear in the
// nonzeros plus the block columns.
template <typename T>
std::int64_t grid_blocks(const CsrView<T> &A, int bs);

// The distinct 32-byte sectors (4 fp64 values) that idx[k], idx[k + 1], ..., idx[k + 31] address,
// summed over k = 0, 32, 64, ... < n: a warp's accesses of one instruction, 32 consecutive entries
// of idx (the last group may be shorter). Divided by n / 32, the sectors per warp request: 8 when
// consecutive (coalesced), 32 when every index has a sector of its own.
std::int64_t warp_sectors(const index_t *idx, std::int64_t n);

} // namespace gpumat
