// compress_model (src/core/compress_model.hpp): by hand on a stencil and on planes too far apart
// for 16-bit differences, and against direct recomputations (sets) on random matrices.
#include "core/compress_model.hpp"
#include "core/pjds.hpp"
#include "matgen.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <set>
#include <vector>

using gpumat::CompressModel;
using gpumat::index_t;

namespace {

CompressModel model(const matgen::Csr &M, index_t slice = 32) {
  const auto v = M.values<double>();
  return gpumat::compress_model(M.view(v), slice);
}

// The 7-point Laplacian of an n^3 grid (6 on the diagonal, -1 off it), columns sorted
matgen::Csr lap3d(index_t n) {
  matgen::Csr A;
  A.nrows = A.ncols = n * n * n;
  for (index_t r = 0; r < A.nrows; ++r) {
    const index_t i = r % n, j = (r / n) % n, k = r / (n * n);
    auto add = [&](index_t c, double v) { A.colidx.push_back(c), A.val.push_back(v); };
    if (k > 0) add(r - n * n, -1);
    if (j > 0) add(r - n, -1);
    if (i > 0) add(r - 1, -1);
    add(r, 6);
    if (i < n - 1) add(r + 1, -1);
    if (j < n - 1) add(r + n, -1);
    if (k < n - 1) add(r + n * n, -1);
    A.rowptr.push_back(index_t(A.colidx.size()));
  }
  return A;
}

} // namespace

// 4^3 grid, slices of 32 rows (two planes of 16): 64 x 7 - 6 faces x 16 = 352 nonzeros, 176 per
// slice. Column differences 1, 3 and 12: 8 bits everywhere, so 4 B per row (its first column) and
// 1 B per other entry: (64 x 4 + 288) / 352. Both slices hold all 7 offsets (-16 -4 -1 0 1 4 16):
// 2 x (7 x 4 + 176) / 352, less than delta in each slice. Values 6 and -1, exact in fp32: a table of
// 2 with 1-byte codes, 1 + 16 / 352.
TEST(CompressModel, StencilByHand) {
  const CompressModel m = model(lap3d(4));
  EXPECT_EQ(m.nnz, 352);
  EXPECT_EQ(m.slices, 2);
  EXPECT_EQ(m.slices_w8, 2);
  EXPECT_EQ(m.slices_w16 + m.slices_w32, 0);
  EXPECT_EQ(m.slices_dict, 2);
  EXPECT_DOUBLE_EQ(m.idx32, 4.0);
  EXPECT_DOUBLE_EQ(m.delta, (64.0 * 4 + 288) / 352);
  EXPECT_DOUBLE_EQ(m.dict, 2 * (7.0 * 4 + 176) / 352);
  EXPECT_DOUBLE_EQ(m.best, m.dict);
  EXPECT_EQ(m.distinct, 2);
  EXPECT_EQ(m.fp32_exact, 352);
  EXPECT_DOUBLE_EQ(m.table, 1.0 + 16.0 / 352);
  EXPECT_DOUBLE_EQ(m.val32, 4.0);
}

// Two entries per row 70,000 columns apart (a stencil's planes beyond 16 bits): every slice needs
// 32-bit differences (delta = 4 B), while its dictionary holds 2 offsets: 2 x (8 + 64) / 128.
// Values r + 1 (exact in fp32) and 0.1 (not): 65 distinct, 1 + 8 x 65 / 128.
TEST(CompressModel, PlanesBeyondSixteenBits) {
  matgen::Csr A;
  A.nrows = 64, A.ncols = 70064;
  for (index_t r = 0; r < A.nrows; ++r) {
    A.colidx.push_back(r), A.val.push_back(r + 1.0);
    A.colidx.push_back(r + 70000), A.val.push_back(0.1);
    A.rowptr.push_back(index_t(A.colidx.size()));
  }
  const CompressModel m = model(A);
  EXPECT_EQ(m.slices_w32, 2);
  EXPECT_EQ(m.slices_dict, 2);
  EXPECT_DOUBLE_EQ(m.delta, 4.0);
  EXPECT_DOUBLE_EQ(m.dict, 2 * (8.0 + 64) / 128);
  EXPECT_DOUBLE_EQ(m.best, m.dict);
  EXPECT_EQ(m.distinct, 65);
  EXPECT_EQ(m.fp32_exact, 64);
  EXPECT_DOUBLE_EQ(m.table, 1.0 + 8.0 * 65 / 128);
}

// Random rows: each slice's width and dictionary recomputed with sets, and best the smaller per
// slice; distinct values against a set of bit patterns; more than 65,536 distinct values cap the
// count and leave fp64.
TEST(CompressModel, RandomAgainstSets) {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const matgen::Csr A = matgen::random_rows("random", 1000, seed == 1 ? 1000 : 2000000, 0, 40, 0.1, seed);
    const index_t     slice = seed == 3 ? 7 : 32;
    const CompressModel m   = model(A, slice);
    double delta = 0, dict = 0, best = 0;
    std::int64_t w8 = 0, w16 = 0, w32 = 0, fits = 0;
    for (index_t r0 = 0; r0 < A.nrows; r0 += slice) {
      const index_t r1 = std::min<index_t>(A.nrows, r0 + slice);
      std::set<std::int64_t> off;
      std::int64_t maxd = 0, nonempty = 0, entries = 0;
      for (index_t r = r0; r < r1; ++r) {
        nonempty += A.rowptr[r + 1] > A.rowptr[r];
        for (index_t k = A.rowptr[r]; k < A.rowptr[r + 1]; ++k) {
          ++entries;
          off.insert(std::int64_t(A.colidx[k]) - r);
          if (k > A.rowptr[r]) maxd = std::max<std::int64_t>(maxd, A.colidx[k] - A.colidx[k - 1]);
        }
      }
      if (!entries) {
        ++w8, ++fits;
        continue;
      }
      const int w = maxd < 256 ? 8 : maxd < 65536 ? 16 : 32;
      (w == 8 ? w8 : w == 16 ? w16 : w32)++;
      const double d = 4.0 * nonempty + (entries - nonempty) * w / 8.0;
      const double c = off.size() <= 256 ? 4.0 * off.size() + entries : d;
      fits += off.size() <= 256;
      delta += d, dict += c, best += std::min(d, c);
    }
    const double n = double(A.nnz());
    EXPECT_EQ(m.slices_w8, w8) << seed;
    EXPECT_EQ(m.slices_w16, w16) << seed;
    EXPECT_EQ(m.slices_w32, w32) << seed;
    EXPECT_EQ(m.slices_dict, fits) << seed;
    EXPECT_NEAR(m.delta, delta / n, 1e-12) << seed;
    EXPECT_NEAR(m.dict, dict / n, 1e-12) << seed;
    EXPECT_NEAR(m.best, best / n, 1e-12) << seed;
    EXPECT_LE(m.best, std::min(m.delta, m.dict) + 1e-12) << seed;
    EXPECT_LE(m.delta, 4.0) << seed;
    std::set<std::uint64_t> vals;
    for (double v : A.val) {
      std::uint64_t b;
      std::memcpy(&b, &v, sizeof b);
      vals.insert(b);
    }
    ASSERT_LE(vals.size(), std::size_t(CompressModel::kDistinctCap)) << seed;
    EXPECT_EQ(m.distinct, std::int64_t(vals.size())) << seed;
  }
  // 70,000 distinct values: the count stops at the cap, and the table is not used
  matgen::Csr A;
  A.nrows = 70000, A.ncols = 1;
  for (index_t r = 0; r < A.nrows; ++r) A.colidx.push_back(0), A.val.push_back(r + 0.5), A.rowptr.push_back(r + 1);
  const CompressModel m = model(A);
  EXPECT_EQ(m.distinct, CompressModel::kDistinctCap + 1);
  EXPECT_DOUBLE_EQ(m.table, 8.0);
}

// Columns out of order need 32 bits; no nonzeros: every rate 0.
TEST(CompressModel, UnsortedAndEmpty) {
  matgen::Csr A;
  A.nrows = 2, A.ncols = 10;
  A.colidx = {5, 1, 2, 3}, A.val = {1, 1, 1, 1}, A.rowptr = {0, 2, 4};
  const CompressModel m = model(A);
  EXPECT_EQ(m.slices_w32, 1);
  EXPECT_DOUBLE_EQ(m.delta, 4.0); // the slice's width is 32 (5 then 1): every entry 4 B
  const CompressModel e = model(matgen::no_nonzeros("empty", 5, 5));
  EXPECT_EQ(e.nnz, 0);
  EXPECT_DOUBLE_EQ(e.best, 0.0);
  EXPECT_DOUBLE_EQ(e.table, 0.0);
}

// pjds of the 4^3 stencil in the matrix's order (sigma 1), blocks of 32 rows: both blocks hold the 7
// offsets (a padding entry repeats its row's last column): each block's columns n + 28 B instead of
// 4n, so 3 B less per padded entry and 56 B of dictionaries; values 6, -1 and the padding's 0 in a
// table of 3 with 8-bit codes: 7 B less per padded entry and 24 B of table.
TEST(CompressModel, PjdsStencilByHand) {
  const matgen::Csr  M = lap3d(4);
  const auto         v = M.values<double>();
  gpumat::Pjds<double> B;
  gpumat::pjds_build(M.view(v), gpumat::pjds_resolve(gpumat::PjdsParams{32, 1, 0}), B);
  const gpumat::PjdsCompressed c = gpumat::pjds_compressed(B, 2);
  const double                 padded = double(B.padded());
  EXPECT_EQ(c.blocks, 2);
  EXPECT_EQ(c.blocks_dict, 2);
  EXPECT_DOUBLE_EQ(c.plain, double(B.bytes()));
  EXPECT_DOUBLE_EQ(c.dict, c.plain - 3.0 * padded + 56);
  EXPECT_DOUBLE_EQ(c.dict_table, c.dict - 7.0 * padded + 24);
  // positional offsets: each block's nonzeros take the 7 offsets (the first plane lacks -16, the
  // second +16, the other block the other way round), so every row 7 wide with no column per entry:
  // 8 x 7 x 32 B of values, 28 B of offsets and a 4-byte start, against 12 B a padded entry; with
  // codes into the table of 3, 1 B a position
  EXPECT_EQ(c.blocks_diag, 2);
  EXPECT_DOUBLE_EQ(c.diag, c.plain - 12.0 * padded + 2 * (8.0 * 7 * 32 + 32));
  EXPECT_DOUBLE_EQ(c.diag_table, c.plain - 12.0 * padded + 2 * (7.0 * 32 + 32) + 24);
}

// A vector problem, 3 dof per node of a 6^3 grid coupled to its 7-point neighbours (every dof of a
// node to every dof of each neighbour: 21 entries a row, 3 x 3 blocks): from each row the offsets
// differ by its dof (7 x 5 in a block), from its node's first row they are one set of 21 (7 nodes x
// 3 dof), so with groups of 3 every block stores its rows 21 wide with no column per entry, fewer
// bytes than its dictionary columns, also with the value table's codes (2 distinct values).
TEST(CompressModel, PjdsPositionalNodeGroups) {
  const matgen::Csr L = lap3d(6);
  matgen::Csr       M;
  M.nrows = M.ncols = 3 * L.nrows;
  for (index_t r = 0; r < M.nrows; ++r) {
    const index_t node = r / 3;
    for (index_t k = L.rowptr[node]; k < L.rowptr[node + 1]; ++k)
      for (index_t dof = 0; dof < 3; ++dof) M.colidx.push_back(3 * L.colidx[k] + dof), M.val.push_back(L.colidx[k] == node ? 6.0 : -1.0);
    M.rowptr.push_back(index_t(M.colidx.size()));
  }
  const auto           v = M.values<double>();
  gpumat::Pjds<double> B;
  gpumat::pjds_build(M.view(v), gpumat::pjds_resolve(gpumat::PjdsParams{32, 1, 0}), B);
  const gpumat::PjdsCompressed c = gpumat::pjds_compressed(B, 2);
  EXPECT_EQ(c.diag_group, 3);
  EXPECT_EQ(c.blocks_diag, c.blocks);
  EXPECT_LT(c.diag, c.dict);
  EXPECT_LT(c.diag / double(M.nnz()), 9.0); // about 8 B of values a nonzero, plus the boundary rows' zeros
  EXPECT_LT(c.diag_table, c.dict_table);
}

// Random rows, sorted within windows and with long rows: the compressed layouts never read more
// than the plain one, and a block with a dictionary has at most 256 offsets (recounted here).
TEST(CompressModel, PjdsNeverMoreBytes) {
  for (std::uint64_t seed : {4u, 5u}) {
    const matgen::Csr M = matgen::random_rows("random", 3000, seed == 4 ? 500 : 100000, 0, seed == 4 ? 12 : 80, 0.05, seed);
    const auto        v = M.values<double>();
    gpumat::Pjds<double> B;
    gpumat::pjds_build(M.view(v), gpumat::pjds_resolve(gpumat::PjdsParams{32, 4096, 48}), B);
    const CompressModel          m = gpumat::compress_model(M.view(v));
    const gpumat::PjdsCompressed c = gpumat::pjds_compressed(B, m.distinct);
    EXPECT_LE(c.dict, c.plain) << seed;
    EXPECT_LE(c.dict_table, c.dict) << seed;
    EXPECT_LE(c.diag, c.plain) << seed;
    EXPECT_LE(c.diag_table, std::min(c.diag, c.dict_table)) << seed;
    std::int64_t small = 0, positional = 0;
    for (std::int64_t b = 0; b < B.nblocks(); ++b) {
      const std::int64_t rows = B.block_rows(b), bs = B.block_start[std::size_t(b)], n = B.block_start[std::size_t(b) + 1] - bs;
      std::set<std::int64_t> off;
      for (std::int64_t k = 0; k < n; ++k) off.insert(std::int64_t(B.col[std::size_t(bs + k)]) - B.row(b * 32 + k % rows));
      small += n > 0 && off.size() <= 256 && double(n) + 4.0 * double(off.size()) < 4.0 * double(n);
      std::set<std::int64_t> nz; // the offsets of the block's nonzeros (entry j of position i is one where j < rowlen[i]) from their group's first row
      const index_t          g = std::max<index_t>(c.diag_group, 1);
      for (std::int64_t k = 0; k < n; ++k) {
        const index_t r = B.row(b * 32 + k % rows);
        if (k / rows < B.rowlen[std::size_t(b * 32 + k % rows)]) nz.insert(std::int64_t(B.col[std::size_t(bs + k)]) - (r - r % g));
      }
      positional += c.diag_group > 0 && n > 0 && 8.0 * double(nz.size() * rows) + 4.0 * double(nz.size()) + 4 < 12.0 * double(n);
    }
    EXPECT_EQ(c.blocks_dict, small) << seed;
    EXPECT_EQ(c.blocks_diag, positional) << seed;
  }
}
