// csrspec host layer: parameter resolution and statistics. The products of the sequential
// emulation of the speculative segmented sum are the typed suite's (test_formats_host.cpp).
#include "core/csrspec.hpp"
#include "matgen.hpp"
#include "params.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

using gpumat::CsrSpecParams;
using gpumat::CsrSpecStats;
using gpumat::index_t;

namespace {

using gpumat_test::describe;
using gpumat_test::param_sets;
using gpumat_test::params;

// Statistics against a direct count: empty rows, tiles, blocks, rows spanning blocks, and dirty
// tiles present exactly when a tile owns an empty row.
TEST(HostStats, MatchDirectCounts) {
  for (const CsrSpecParams &q : param_sets()) {
    const CsrSpecParams p = gpumat::csrspec_resolve<double>(q);
    const std::int64_t ts = std::int64_t(p.bunches) * p.T * p.W, bs = ts * p.tiles_per_block;
    for (const matgen::Csr &M : matgen::standard_set_cached(index_t(ts))) {
      const std::vector<double> vals = M.values<double>();
      const CsrSpecStats s           = gpumat::csrspec_stats(M.view(vals), p);
      const std::int64_t nnz         = M.nnz();
      std::int64_t empty = 0, cross = 0;
      for (index_t r = 0; r < M.nrows; ++r) {
        const std::int64_t b = M.rowptr[r], e = M.rowptr[r + 1];
        empty += b == e;
        cross += b < e && b / bs != (e - 1) / bs;
      }
      const std::string what = M.name + " " + describe(p);
      EXPECT_EQ(s.empty_rows, empty) << what;
      EXPECT_EQ(s.cross_rows, cross) << what;
      EXPECT_EQ(s.tiles, (nnz + ts - 1) / ts) << what;
      EXPECT_EQ(s.blocks, (s.tiles + p.tiles_per_block - 1) / p.tiles_per_block) << what;
      EXPECT_EQ(s.aux_bytes, std::size_t(s.blocks) * (sizeof(index_t) + sizeof(double))) << what;
      EXPECT_EQ(s.dirty_tiles > 0, nnz > 0 && empty > 0) << what;
      EXPECT_LE(s.dirty_tiles, std::min(s.tiles, empty)) << what;
    }
  }
}

// tile_boundary(32) with 32-nonzero tiles and blocks, worked out by hand: row pointers
// 0,31,32,32,32,64,64,97,127,127,128,160,161,161 (nnz 161, 6 tiles); empty rows 2,3 (owned by
// tile 1), 5 (tile 2), 8 (tile 3), 12 (trailing: last tile 5); only row 6 = [64,97) spans blocks.
TEST(HostStats, TileBoundaryByHand) {
  const matgen::Csr M            = matgen::tile_boundary(32, 1);
  const std::vector<double> vals = M.values<double>();
  const CsrSpecStats s           = gpumat::csrspec_stats(M.view(vals), params(1, 1, 1));
  EXPECT_EQ(s.tiles, 6);
  EXPECT_EQ(s.blocks, 6);
  EXPECT_EQ(s.empty_rows, 5);
  EXPECT_EQ(s.dirty_tiles, 4);
  EXPECT_EQ(s.cross_rows, 1);
}

TEST(HostStats, NoNonzeros) {
  const matgen::Csr M            = matgen::no_nonzeros("all_empty", 9, 4);
  const std::vector<double> vals = M.values<double>();
  const CsrSpecStats s           = gpumat::csrspec_stats(M.view(vals), params(0, 0, 0));
  EXPECT_EQ(s.tiles, 0);
  EXPECT_EQ(s.blocks, 0);
  EXPECT_EQ(s.dirty_tiles, 0);
  EXPECT_EQ(s.empty_rows, 9);
  EXPECT_EQ(s.aux_bytes, 0u);
}

TEST(Resolve, Defaults) {
  const CsrSpecParams d = gpumat::csrspec_resolve<double>({});
  EXPECT_EQ(d.W, 8);
  EXPECT_EQ(d.T, 32);
  EXPECT_EQ(d.bunches, 2);
  EXPECT_EQ(d.tiles_per_block, 2);
  EXPECT_EQ(gpumat::csrspec_resolve<float>({}).W, 8);
  const CsrSpecParams e = gpumat::csrspec_resolve<float>(params(3, 5, 7));
  EXPECT_EQ(e.W, 3);
  EXPECT_EQ(e.bunches, 5);
  EXPECT_EQ(e.tiles_per_block, 7);
}

// tiles_per_block = 0 is chosen in csrspec_resolve alone: 2 on the host, one wave of resident
// blocks on a GPU (an equal share of the tiles per block, 1..1024).
TEST(Resolve, TilesPerBlockFromTheTarget) {
  EXPECT_EQ(gpumat::csrspec_resolve<double>({}, 1000000, 0).tiles_per_block, 2);
  // 512 nonzeros per tile at the defaults: 1e6 nonzeros = 1954 tiles over 1320 resident blocks
  EXPECT_EQ(gpumat::csrspec_resolve<double>({}, 1000000, 1320).tiles_per_block, 2);
  EXPECT_EQ(gpumat::csrspec_resolve<double>({}, 512LL * 1320 * 7, 1320).tiles_per_block, 7);
  EXPECT_EQ(gpumat::csrspec_resolve<double>({}, 10, 1320).tiles_per_block, 1);
  EXPECT_EQ(gpumat::csrspec_resolve<double>({}, 512LL * 5000 * 1320, 1320).tiles_per_block, gpumat::csrspec_max_tiles_per_block);
  EXPECT_EQ(gpumat::csrspec_resolve<double>(params(0, 0, 5), 1000000, 1320).tiles_per_block, 5); // the user's choice stays
}

void expect_rejected(CsrSpecParams p, const std::string &message) {
  try {
    gpumat::csrspec_resolve<double>(p);
    ADD_FAILURE() << "accepted " << describe(p) << " T=" << p.T;
  } catch (const std::invalid_argument &e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
}

TEST(Resolve, RejectsOutOfRange) {
  expect_rejected(params(-1, 0, 0), "csrspec: W must be in [1,64] (or 0 for the default), got -1");
  expect_rejected(params(65, 1, 0), "W must be in [1,64]");
  expect_rejected(params(0, -2, 0), "warps must be in [1,16] (or 0 for the default), got -2");
  expect_rejected(params(0, 17, 0), "warps must be in [1,16]");
  expect_rejected(params(0, 0, 1025), "tiles_per_block must be in [1,1024]");
  expect_rejected(params(0, 0, -1), "tiles_per_block must be in [1,1024]");
  expect_rejected(params(32, 16, 1), "warps*W must be <= 256");
  CsrSpecParams t;
  t.T = 16;
  expect_rejected(t, "T must be 32");
}

} // namespace
