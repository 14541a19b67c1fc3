// matrix_features (src/core/features.hpp): by hand on small patterns, and against direct
// recomputations (sets and a full sort) on random ones.
#include "core/features.hpp"
#include "matgen.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <set>
#include <vector>

using gpumat::index_t;
using gpumat::MatrixFeatures;

namespace {

MatrixFeatures features(const matgen::Csr &M) {
  const auto v = M.values<double>();
  return gpumat::matrix_features(M.view(v));
}

// The CSR of rows given by their column lists.
matgen::Csr from_rows(index_t ncols, const std::vector<std::vector<index_t>> &rows) {
  matgen::Csr A;
  A.nrows = index_t(rows.size());
  A.ncols = ncols;
  for (const auto &r : rows) {
    for (index_t c : r) A.colidx.push_back(c), A.val.push_back(1.0);
    A.rowptr.push_back(index_t(A.colidx.size()));
  }
  return A;
}

// The fields recomputed the slow way: sets of sectors, a full sort of the lengths, a set of blocks.
struct Slow {
  double padding_sorted = 0, sectors_csr = 0, sectors_ell = 0;
  std::int64_t blocks[3] = {0, 0, 0};
};
Slow slow(const matgen::Csr &M) {
  Slow s;
  const index_t n = M.nrows;
  const std::int64_t nnz = M.nnz();
  std::vector<index_t> len(static_cast<std::size_t>(n));
  for (index_t r = 0; r < n; ++r) len[std::size_t(r)] = M.rowptr[r + 1] - M.rowptr[r];
  std::vector<index_t> sorted = len;
  std::sort(sorted.begin(), sorted.end(), std::greater<index_t>());
  std::int64_t stored = 0;
  for (index_t b = 0; b < n; b += 32) stored += std::int64_t(sorted[std::size_t(b)]) * std::min<index_t>(32, n - b);
  s.padding_sorted = nnz ? double(stored - nnz) / double(nnz) : 0.0;
  std::int64_t sec = 0;
  for (std::int64_t k = 0; k < nnz; k += 32) {
    std::set<index_t> u;
    for (std::int64_t i = k; i < std::min<std::int64_t>(nnz, k + 32); ++i) u.insert(M.colidx[std::size_t(i)] / 4);
    sec += std::int64_t(u.size());
  }
  s.sectors_csr = nnz ? double(sec) * 32.0 / double(nnz) : 0.0;
  std::int64_t sel = 0;
  for (index_t b = 0; b < n; b += 32) {
    const index_t e = std::min<index_t>(n, b + 32);
    const index_t m = *std::max_element(len.begin() + b, len.begin() + e);
    for (index_t j = 0; j < m; ++j) {
      std::set<index_t> u;
      for (index_t r = b; r < e; ++r)
        if (len[std::size_t(r)] > j) u.insert(M.colidx[std::size_t(M.rowptr[r] + j)] / 4);
      sel += std::int64_t(u.size());
    }
  }
  s.sectors_ell = nnz ? double(sel) * 32.0 / double(nnz) : 0.0;
  for (int bs = 2; bs <= 4; ++bs) {
    std::set<std::pair<index_t, index_t>> u;
    for (index_t r = 0; r < n; ++r)
      for (index_t k = M.rowptr[r]; k < M.rowptr[r + 1]; ++k) u.insert({r / bs, M.colidx[std::size_t(k)] / bs});
    s.blocks[bs - 2] = std::int64_t(u.size());
  }
  return s;
}

} // namespace

// The identity of 64 rows: no padding, 8 sectors per 32 entries in either order, one block per
// block row, on the diagonal.
TEST(MatrixFeatures, Identity) {
  std::vector<std::vector<index_t>> rows(64);
  for (index_t r = 0; r < 64; ++r) rows[std::size_t(r)] = {r};
  const MatrixFeatures f = features(from_rows(64, rows));
  EXPECT_EQ(f.nnz, 64);
  EXPECT_EQ(f.max_row, 1);
  EXPECT_EQ(f.empty_rows, 0);
  EXPECT_DOUBLE_EQ(f.mean_row, 1.0);
  EXPECT_DOUBLE_EQ(f.cv_row, 0.0);
  EXPECT_DOUBLE_EQ(f.padding_sell, 0.0);
  EXPECT_DOUBLE_EQ(f.padding_sorted, 0.0);
  EXPECT_DOUBLE_EQ(f.sectors_csr, 8.0);
  EXPECT_DOUBLE_EQ(f.sectors_ell, 8.0);
  EXPECT_EQ(f.blocks_bs[0], 32);
  EXPECT_EQ(f.blocks_bs[1], 22); // 21 block rows of 3 and one of 1
  EXPECT_EQ(f.blocks_bs[2], 16);
  EXPECT_DOUBLE_EQ(f.block_fill(2), 0.5);
  EXPECT_DOUBLE_EQ(f.diag_distance, 0.0);
}

// One row of 10 at the top of each 32-row slice, the others of 1: sliced ELL pads each slice to 10
// (640 stored for 82 nonzeros); sorted, the two long rows share a block (320 + 32 = 352).
TEST(MatrixFeatures, PaddingByHand) {
  std::vector<std::vector<index_t>> rows(64);
  for (index_t r = 0; r < 64; ++r) {
    if (r % 32 == 0)
      for (index_t c = 0; c < 10; ++c) rows[std::size_t(r)].push_back(c * 100);
    else rows[std::size_t(r)] = {r};
  }
  const MatrixFeatures f = features(from_rows(1000, rows));
  EXPECT_EQ(f.nnz, 82);
  EXPECT_EQ(f.max_row, 10);
  EXPECT_DOUBLE_EQ(f.padding_sell, (640.0 - 82.0) / 82.0);
  EXPECT_DOUBLE_EQ(f.padding_sorted, (352.0 - 82.0) / 82.0);
  // ELL order: slice 0 step 0 is {0, 1, ..., 31} (8 sectors), slice 1's {0, 33, ..., 63} (9);
  // steps 1..9 of each slice one row alone (1 sector each): 35 sectors for 82 entries
  EXPECT_DOUBLE_EQ(f.sectors_ell, 35.0 * 32.0 / 82.0);
}

// Random columns over a wide matrix: nearly every entry its own sector; the wide band of a 2D
// stencil's rows: far fewer.
TEST(MatrixFeatures, SectorsTellRandomFromBanded) {
  const MatrixFeatures r = features(matgen::random_rows("random", 20000, 1000000, 5, 15, 0.0, 51));
  EXPECT_GT(r.sectors_csr, 30.0);
  EXPECT_GT(r.sectors_ell, 30.0);
  EXPECT_GT(r.diag_distance, 0.2);
  const MatrixFeatures s = features(matgen::stencil_2d(200, 100));
  EXPECT_LT(s.sectors_csr, 16.0);
  EXPECT_LT(s.sectors_ell, 24.0);
  EXPECT_LT(s.diag_distance, 0.01);
}

// Every field that has a slow recomputation equals it, on patterns with empty rows, long rows,
// a partial last slice and a partial last block row.
TEST(MatrixFeatures, AgainstSlowRecomputation) {
  std::vector<matgen::Csr> ms;
  ms.push_back(matgen::random_rows("random_with_empty", 3001, 700, 0, 40, 0.2, 52));
  ms.push_back(matgen::power_law(5003, 5003, 1.3, 2.0, 2000, 53));
  ms.push_back(matgen::stencil_2d(61, 37));
  ms.push_back(matgen::empty_runs(54));
  ms.push_back(matgen::heavy_row(55));
  for (const auto &M : ms) {
    const MatrixFeatures f = features(M);
    const Slow           s = slow(M);
    EXPECT_NEAR(f.padding_sorted, s.padding_sorted, 1e-12) << M.name;
    EXPECT_NEAR(f.sectors_csr, s.sectors_csr, 1e-12) << M.name;
    EXPECT_NEAR(f.sectors_ell, s.sectors_ell, 1e-12) << M.name;
    for (int k = 0; k < 3; ++k) EXPECT_EQ(f.blocks_bs[k], s.blocks[k]) << M.name << " bs " << k + 2;
    EXPECT_EQ(f.nnz, std::int64_t(M.nnz())) << M.name;
  }
}

TEST(MatrixFeatures, Empty) {
  const MatrixFeatures z = features(matgen::no_nonzeros("none", 0, 0));
  EXPECT_EQ(z.nnz, 0);
  const MatrixFeatures e = features(matgen::no_nonzeros("all_empty", 100, 10));
  EXPECT_EQ(e.nnz, 0);
  EXPECT_EQ(e.empty_rows, 100);
  EXPECT_DOUBLE_EQ(e.sectors_csr, 0.0);
  EXPECT_DOUBLE_EQ(e.padding_sell, 0.0);
}

// warp_sectors: consecutive indices share sectors (8 per warp), a stride of 4 gives each its own
// (32), a partial last group counts what it touches.
TEST(MatrixFeatures, WarpSectors) {
  std::vector<index_t> seq(64), strided(64), tail = {0, 1, 2, 3, 4};
  for (index_t i = 0; i < 64; ++i) seq[std::size_t(i)] = i, strided[std::size_t(i)] = 4 * i;
  EXPECT_EQ(gpumat::warp_sectors(seq.data(), 64), 16);
  EXPECT_EQ(gpumat::warp_sectors(strided.data(), 64), 64);
  EXPECT_EQ(gpumat::warp_sectors(tail.data(), 5), 2);
  std::reverse(seq.begin(), seq.begin() + 32); // order within a warp does not matter
  EXPECT_EQ(gpumat::warp_sectors(seq.data(), 64), 16);
  EXPECT_EQ(gpumat::warp_sectors(seq.data(), 0), 0);
}
