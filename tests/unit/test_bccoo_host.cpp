// bccoo host layer (src/core/bccoo.hpp): parameter resolution, the byte model of the block
// shapes and the model's choices, and the host reference on special cases (block
// shapes not dividing the dimensions, tiles of row stops only, rows spanning many work groups,
// empty rows and columns, more than 65,535 columns, dense blocks); a fuzz test of every parameter
// set the tuner can pick (src/core/bccoo_tune.hpp) on random matrices. The products of every block
// shape, slice count, tile and group on the standard set, and the refresh, are the typed suite's
// (test_formats_host.cpp, the layout's invariants in format_traits.hpp).
#include "core/bccoo.hpp"
#include "matgen.hpp"
#include "params.hpp"
#include "bccoo_params.hpp"
#include "format_traits.hpp"
#include "host_helpers.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

using gpumat::Bccoo;
using gpumat::BccooParams;
using gpumat::index_t;
using gpumat::Op;

namespace {

using gpumat_test::bp;
using gpumat_test::ZMode;
using gpumat_test::describe;

template <typename T>
void check_products(const matgen::Csr &M, const BccooParams &p) {
  const std::vector<T> vals = M.values<T>();
  const auto A              = M.view(vals);
  Bccoo<T> B;
  gpumat::bccoo_build(A, p, B);
  const std::string where = M.name + " " + describe(B.p);
  gpumat_test::check_bccoo_layout(B, where);
  for (Op op : {Op::NoTrans, Op::Trans})
    for (ZMode zm : {ZMode::None, ZMode::Separate, ZMode::Alias})
      ASSERT_EQ(gpumat_test::product_mismatch(M, vals, op, zm, 71, 72, [&](const T *x, const T *z, T *y) { gpumat::bccoo_apply(B, op, x, z, y); }), "")
          << where << (op == Op::Trans ? " Trans" : " NoTrans") << " z mode " << int(zm);
}

// More than 65,535 columns, random: the 16-bit differences escape, the product stays exact.
TEST(BccooHostSpecial, WideMatrixEscapes) {
  const matgen::Csr M = matgen::random_rows("wide_200k", 3000, 200000, 1, 40, 0.05, 81);
  for (int compress : {1, 0}) {
    Bccoo<double> B;
    gpumat::bccoo_build(M.view(M.values<double>()), bp(1, 1, 1, 16, 32, compress), B);
    if (compress) {
      EXPECT_GT(B.escape.size(), 0u);
    }
    check_products<double>(M, bp(1, 1, 1, 16, 32, compress));
    check_products<double>(M, bp(2, 4, 4, 8, 32, compress));
  }
}

// One nonzero per row: with h = 1 every block is a row stop, every tile all stops, no group scans.
TEST(BccooHostSpecial, EveryBlockARowStop) {
  const matgen::Csr M = matgen::from_lengths("one_per_row", 5000, std::vector<index_t>(5000, 1), 82);
  Bccoo<double> B;
  gpumat::bccoo_build(M.view(M.values<double>()), bp(1, 1, 1, 8, 32, 1), B);
  for (std::int64_t k = 0; k < B.nblocks; ++k) ASSERT_FALSE(B.flag(k));
  for (std::int64_t g = 0; g + 1 < B.groups(); ++g) EXPECT_EQ(B.no_scan[std::size_t(g)], 1); // the last holds padding
  check_products<double>(M, bp(1, 1, 1, 8, 32, 1));
}

// A row of 20,000 entries spans many work groups (tile 8, group 32: 256 blocks per group).
TEST(BccooHostSpecial, RowSpanningManyGroups) {
  std::vector<index_t> lengths(300, 3);
  lengths[150] = 20000;
  const matgen::Csr M = matgen::from_lengths("row_over_groups", 30000, lengths, 83);
  Bccoo<double> B;
  gpumat::bccoo_build(M.view(M.values<double>()), bp(1, 1, 1, 8, 32, 1), B);
  EXPECT_GT(B.groups(), 75);
  check_products<double>(M, bp(1, 1, 1, 8, 32, 1));
  check_products<double>(M, bp(4, 4, 2, 24, 64, 1));
}

// Block shapes that do not divide the dimensions, with empty rows and columns.
TEST(BccooHostSpecial, RaggedBlocksAndEmptyRowsColumns) {
  matgen::Csr M = matgen::random_rows("ragged_999x1001", 999, 1001, 0, 7, 0.3, 84);
  for (int h = 1; h <= 4; ++h)
    for (int w : {1, 2, 4}) check_products<double>(M, bp(h, w, 5, 8, 32, 1));
  const matgen::Csr E = matgen::no_nonzeros("all_empty_37x11", 37, 11);
  check_products<double>(E, bp(3, 4, 2, 8, 32, 1));
}

// Bytes: full 3x3 blocks store fewer bytes per nonzero than CSR's 12 (fp64 + 32-bit index).
TEST(BccooHostSpecial, FewerBytesThanCsrOnDenseBlocks) {
  std::vector<index_t> lengths(3000, 30);
  matgen::Csr M = matgen::from_lengths("blocks_3x3", 3000, lengths, 86);
  // make every 3x3 block full: rows 3b..3b+2 share the columns of row 3b, widened to whole blocks
  M.colidx.clear();
  M.rowptr.assign(1, 0);
  for (index_t r = 0; r < 3000; ++r) {
    const index_t b = r / 3;
    for (index_t q = 0; q < 10; ++q) {
      const index_t bc = (b * 7 + q * 101) % 1000;
      for (index_t j = 0; j < 3; ++j) M.colidx.push_back(bc * 3 + j);
    }
    std::sort(M.colidx.end() - 30, M.colidx.end());
    M.colidx.erase(std::unique(M.colidx.end() - 30, M.colidx.end()), M.colidx.end());
    M.rowptr.push_back(index_t(M.colidx.size()));
  }
  M.val.assign(M.colidx.size(), 1.5);
  Bccoo<double> B;
  gpumat::bccoo_build(M.view(M.values<double>()), bp(3, 1, 1, 16, 256, 1), B);
  const double csr = 12.0 * double(M.nnz()) + 4.0 * (M.nrows + 1);
  EXPECT_LT(double(B.bytes()), 0.8 * csr) << B.bytes() << " bytes against CSR's " << csr;
  check_products<double>(M, bp(3, 1, 1, 16, 256, 1));
}

// The byte model of the block shapes: its block counts are those of a build, its bytes follow the
// stored arrays, and it prefers the matrix's own block structure.
TEST(BccooShapes, CountsAgreeWithTheBuilder) {
  for (const matgen::Csr &M : {matgen::random_rows("shapes_random", 3000, 2500, 0, 20, 0.1, 91), matgen::stencil_2d(60, 40)}) {
    const std::vector<double> v = M.values<double>();
    const auto shapes           = gpumat::bccoo_shapes(M.view(v));
    ASSERT_EQ(shapes.size(), 12u);
    for (std::size_t i = 1; i < shapes.size(); ++i) EXPECT_LE(shapes[i - 1].bytes, shapes[i].bytes) << M.name;
    for (const auto &s : shapes) {
      Bccoo<double> B;
      gpumat::bccoo_build(M.view(v), bp(s.h, s.w, 1, 16, 256, 1), B);
      EXPECT_EQ(s.blocks + B.pad_blocks, B.nblocks) << M.name << " " << s.h << "x" << s.w;
      EXPECT_NEAR(s.fill, double(M.nnz()) / (double(s.blocks) * s.h * s.w), 1e-12);
    }
  }
}

TEST(BccooShapes, FullBlocksWinWhereTheMatrixHasThem) {
  // 3x3 dense blocks on a block pattern (a 3-dof FEM-like matrix): 3x1 stores no zeros and beats
  // 1x1 on bytes (one column difference and one flag per 3 values instead of per value)
  matgen::Csr M;
  M.name  = "dof3_blocks";
  M.nrows = M.ncols = 3 * 800;
  for (index_t r = 0; r < M.nrows; ++r) {
    const index_t b = r / 3;
    for (index_t nb : {b - 7, b - 1, b, b + 1, b + 7})
      if (nb >= 0 && nb < 800)
        for (index_t j = 0; j < 3; ++j) M.colidx.push_back(3 * nb + j);
    M.rowptr.push_back(index_t(M.colidx.size()));
  }
  M.val.assign(M.colidx.size(), 1.0);
  const auto shapes = gpumat::bccoo_shapes(M.view(M.values<double>()), 3);
  EXPECT_EQ(shapes[0].h, 3) << "chose " << shapes[0].h << "x" << shapes[0].w;
  EXPECT_DOUBLE_EQ(shapes[0].fill, 1.0);
  // random columns: any block larger than 1x1 is mostly zeros
  const matgen::Csr R = matgen::random_rows("random_wide", 4000, 400000, 5, 15, 0.0, 92);
  const auto rs       = gpumat::bccoo_shapes(R.view(R.values<double>()));
  EXPECT_EQ(rs[0].h * rs[0].w, 1) << "chose " << rs[0].h << "x" << rs[0].w;
}

// Fuzz: every parameter set the tuner can pick (bccoo_tune_space: the full cross product of shapes,
// compression, slices, tiles and groups, 4608 sets) against the long-double CSR reference at 1e-12
// (fp64), y = A x and y = A^T x, each without z, with a separate z or with y aliasing z (rotating
// over the sets). Each set is built for one of 48 random matrices (bccoo_fuzz_matrix, fixed
// seeds), drawn at random (fixed seed) so that every shape and parameter value meets many of
// them; the counters at the end check that the fuzz reached escapes, padded empty segments,
// ragged block rows and columns, dropped slices and rows chained over several work groups.
TEST(BccooHostFuzz, EveryTunerCandidate) {
  const std::vector<gpumat_test::BccooFuzzCase> pool = gpumat_test::bccoo_fuzz_pool(48);
  const std::vector<BccooParams> space = gpumat_test::bccoo_tune_space();
  ASSERT_EQ(space.size(), 4608u);
  std::mt19937_64 pick(77);
  int             failures = 0, escapes = 0, padded = 0, ragged_rows = 0, ragged_cols = 0, dropped_slices = 0, chained = 0;
  for (std::size_t i = 0; i < space.size() && failures < 10; ++i) {
    const gpumat_test::BccooFuzzCase &c = pool[std::size_t(pick() % pool.size())];
    Bccoo<double> B;
    gpumat::bccoo_build(c.M.view(c.v), space[i], B);
    escapes += !B.escape.empty();
    padded += B.pad_blocks > 0;
    ragged_rows += c.M.nrows % B.p.h != 0;
    ragged_cols += c.M.ncols % B.p.w != 0;
    dropped_slices += B.p.slices < space[i].slices;
    for (std::int64_t g = 0; g + 1 < B.groups(); ++g) // a work group without a row stop: a row chained over groups
      if (B.first_segment[std::size_t(g * B.p.group)] == B.first_segment[std::size_t((g + 1) * B.p.group)]) {
        ++chained;
        break;
      }
    for (int t = 0; t < 2; ++t) {
      const int                 zm   = int((i + std::size_t(t)) % 3); // no z, separate z, y aliasing z
      const std::vector<double> &z   = t ? c.zt : c.z;
      std::vector<double>        y(z.size(), std::numeric_limits<double>::quiet_NaN());
      const double              *zp = zm == 1 ? z.data() : nullptr;
      if (zm == 2) {
        y  = z;
        zp = y.data();
      }
      gpumat::bccoo_apply(B, t ? Op::Trans : Op::NoTrans, (t ? c.xt : c.x).data(), zp, y.data());
      const std::string bad = matgen::mismatch(y, c.ref[t][zm != 0], c.scale[t][zm != 0], 1e-12);
      if (!bad.empty()) {
        ++failures;
        ADD_FAILURE() << c.M.name << " " << describe(space[i]) << (t ? " Trans" : " NoTrans") << " z mode " << zm << ": " << bad;
      }
    }
  }
  std::printf("[ coverage ] builds with escapes %d, padded empty segments %d, ragged block rows %d, ragged block columns %d, dropped slices %d, a row chained over groups %d\n", escapes, padded, ragged_rows,
              ragged_cols, dropped_slices, chained);
  // the fixed seeds reach each case this often (escapes 251, padded 4065, ragged rows 2246 and
  // columns 1977, dropped slices 759, chained 44): about half of that, so a change of the generator
  // that loses a case fails here
  EXPECT_GT(escapes, 120);
  EXPECT_GT(padded, 2000);
  EXPECT_GT(ragged_rows, 1000);
  EXPECT_GT(ragged_cols, 1000);
  EXPECT_GT(dropped_slices, 350);
  EXPECT_GT(chained, 20);
}

TEST(BccooResolve, DefaultsAndRanges) {
  const BccooParams d = gpumat::bccoo_resolve({});
  EXPECT_EQ(d.h, 1);
  EXPECT_EQ(d.w, 1);
  EXPECT_EQ(d.slices, 1);
  EXPECT_EQ(d.tile, 16);
  EXPECT_EQ(d.group, 256);
  EXPECT_EQ(d.compress_col, 1);
  EXPECT_EQ(d.strategy, 2);
  BccooParams s1;
  s1.strategy = 1;
  EXPECT_EQ(gpumat::bccoo_resolve(s1).strategy, 1);
  for (int bad_strategy : {-1, 3}) {
    BccooParams bad;
    bad.strategy = bad_strategy;
    EXPECT_THROW(gpumat::bccoo_resolve(bad), std::invalid_argument) << "strategy " << bad_strategy;
  }
  for (const BccooParams &bad : {bp(5, 1, 1, 16, 256, 1), bp(1, 3, 1, 16, 256, 1), bp(1, 1, 33, 16, 256, 1), bp(1, 1, 1, 129, 256, 1), bp(1, 1, 1, 12, 256, 1), bp(1, 1, 1, 16, 48, 1),
                                 bp(1, 1, 1, 16, 1024, 1), bp(1, 1, 1, 16, 256, 2)})
    EXPECT_THROW(gpumat::bccoo_resolve(bad), std::invalid_argument) << describe(bad);
}

} // namespace

// The model takes strategy 2 (the result cache) unless the user set one.
TEST(BccooModelStrategy, KeepsTheUsers) {
  const matgen::Csr M = matgen::stencil_2d(40, 30);
  const auto        v = M.values<double>();
  BccooParams       user;
  EXPECT_EQ(gpumat::bccoo_model(M.view(v), user).p.strategy, 2);
  user.strategy = 1;
  EXPECT_EQ(gpumat::bccoo_model(M.view(v), user).p.strategy, 1);
}

namespace {
// A CSR built in place (no matgen::Csr: its double values would double the memory of the large
// ones), float values.
struct Big {
  index_t              nrows = 0, ncols = 0;
  std::vector<index_t> rowptr{0}, colidx;
  std::vector<float>   val;
  void                 end_row() { rowptr.push_back(index_t(colidx.size())); }
  gpumat::CsrView<float> view() {
    val.assign(colidx.size(), 1.0f);
    return {nrows, ncols, rowptr.data(), colidx.data(), val.data()};
  }
};

// Rows of `len` columns two apart from the diagonal, every fifth row with one column `far` to the
// right when far > 0 (about 2 % of the differences escape): neither wider nor taller blocks fill,
// 1 x 1 has the fewest bytes.
Big banded(index_t nrows, index_t len, index_t far) {
  Big A;
  A.nrows = nrows, A.ncols = nrows + 2 * len + far;
  for (index_t r = 0; r < nrows; ++r) {
    for (index_t k = 0; k < len; ++k) A.colidx.push_back(r + 2 * k);
    if (far > 0 && r % 5 == 0) A.colidx.push_back(r + far);
    A.end_row();
  }
  return A;
}

// nbrows block rows of 3 x 3 dense blocks, 8 at every other block column from the diagonal; with
// far, every tenth block row one more block 60,000 block columns to the right (fewer than a tenth
// of the differences escape). 3 x 1 blocks (24 per block row) have the fewest bytes: the gaps
// leave wider blocks part empty.
Big blocks3(index_t nbrows, bool far) {
  Big A;
  A.nrows = 3 * nbrows, A.ncols = 3 * (nbrows + 60016);
  for (index_t r = 0; r < A.nrows; ++r) {
    const index_t br = r / 3;
    for (index_t b = br; b < br + 16; b += 2)
      for (index_t j = 0; j < 3; ++j) A.colidx.push_back(3 * b + j);
    if (far && br % 10 == 0)
      for (index_t j = 0; j < 3; ++j) A.colidx.push_back(3 * (br + 60000) + j);
    A.end_row();
  }
  return A;
}

// n x n, `per_row` distinct uniformly random columns per row (sorted).
Big random_columns(index_t n, index_t per_row, std::uint64_t seed) {
  Big                                    A;
  std::mt19937_64                        g(seed);
  std::uniform_int_distribution<index_t> col(0, n - 1);
  A.nrows = A.ncols = n;
  std::vector<index_t> row;
  for (index_t r = 0; r < n; ++r) {
    row.clear();
    while (index_t(row.size()) < per_row) {
      const index_t c = col(g);
      if (std::find(row.begin(), row.end(), c) == row.end()) row.push_back(c);
    }
    std::sort(row.begin(), row.end());
    A.colidx.insert(A.colidx.end(), row.begin(), row.end());
    A.end_row();
  }
  return A;
}
} // namespace

// Column compression (bccoo_model): 1 x 1 blocks take 32-bit columns, escapes or not (their
// decoding chain cost more than the 2 B saved on every 1 x 1 matrix measured on an H100,
// bench_matmult -bccoo_grid); the escape share is still measured.
TEST(BccooModelColumns, OneByOneBlocksTake32BitColumns) {
  for (const index_t far : {0, 100000}) {
    Big                       A  = banded(6000, 20, far);
    const gpumat::BccooChoice ch = gpumat::bccoo_model(A.view(), BccooParams{});
    EXPECT_EQ(ch.p.h * ch.p.w, 1) << far;
    EXPECT_EQ(ch.p.compress_col, 0) << far;
    if (far) {
      EXPECT_GT(ch.escape_share, 0.0);
      EXPECT_LT(ch.escape_share, 0.1);
    } else EXPECT_EQ(ch.escape_share, 0.0);
    BccooParams user;
    user.compress_col = 1;
    EXPECT_EQ(gpumat::bccoo_model(A.view(), user).p.compress_col, 1) << "the user's choice is kept";
  }
}

// Larger blocks compress while fewer than a tenth of the differences escape, on matrices of at
// least kModelLatencyBlocks blocks; below it (latency-bound products) they keep 32-bit columns.
TEST(BccooModelColumns, LargerBlocksCompressWhenLarge) {
  const index_t large = index_t(gpumat::kModelLatencyBlocks / 24) + 2000; // block rows of 24 3 x 1 blocks
  for (const index_t nbr : {index_t(3000), large}) {
    Big                       A  = blocks3(nbr, true);
    const gpumat::BccooChoice ch = gpumat::bccoo_model(A.view(), BccooParams{}, 3);
    EXPECT_EQ(ch.p.h, 3) << nbr;
    EXPECT_EQ(ch.p.w, 1) << nbr;
    EXPECT_GT(ch.escape_share, 0.0) << nbr;
    EXPECT_LT(ch.escape_share, 0.1) << nbr;
    EXPECT_EQ(ch.p.compress_col, nbr == large ? 1 : 0) << nbr;
    if (nbr == large) { // FEM-like long block rows: tile 32 in groups of 128
      EXPECT_EQ(ch.p.tile, 32);
      EXPECT_EQ(ch.p.group, 128);
    }
  }
}

// Tile and group: small matrices (latency-bound) get tiles of 16 or 8 and smaller groups as the
// threads get fewer; large 1 x 1 ones tile 24 in groups of 256, groups of 512 when the longest row
// spans more than 6 groups (kModelHopGroups; the machinery's hint) or segments hold 48 blocks or more, tile 40 in
// groups of 512 for segments of 64 blocks or more. The user's tile or group is kept.
TEST(BccooModelTiles, ByTheThreadsAndTheRows) {
  { // 1.2M blocks: 75k threads of 16
    Big A = banded(60000, 20, 0);
    const BccooParams p = gpumat::bccoo_model(A.view(), BccooParams{}).p;
    EXPECT_EQ(p.tile, 16);
    EXPECT_EQ(p.group, 256);
  }
  { // 200k blocks: 25k threads of 8, groups of 64
    Big A = banded(10000, 20, 0);
    const BccooParams p = gpumat::bccoo_model(A.view(), BccooParams{}).p;
    EXPECT_EQ(p.tile, 8);
    EXPECT_EQ(p.group, 64);
  }
  { // 480k blocks: 60k threads of 8, groups of 128
    Big A = banded(24000, 20, 0);
    const BccooParams p = gpumat::bccoo_model(A.view(), BccooParams{}).p;
    EXPECT_EQ(p.tile, 8);
    EXPECT_EQ(p.group, 128);
  }
  Big A = banded(index_t(gpumat::kModelLatencyBlocks / 5) + 1000, 5, 0); // 2.5M blocks, 5 per row
  BccooParams p = gpumat::bccoo_model(A.view(), BccooParams{}).p;
  EXPECT_EQ(p.tile, 24);
  EXPECT_EQ(p.group, 256);
  p = gpumat::bccoo_model(A.view(), BccooParams{}, gpumat::BccooHints(1, 7 * 24 * 256)).p; // a hub row of 7 groups
  EXPECT_EQ(p.tile, 24);
  EXPECT_EQ(p.group, 512);
  p = gpumat::bccoo_model(A.view(), BccooParams{}, gpumat::BccooHints(1, 49403)).p; // powerlaw_2M's hub: 8.04 groups
  EXPECT_EQ(p.group, 512);
  p = gpumat::bccoo_model(A.view(), BccooParams{}, gpumat::BccooHints(1, 24451)).p; // web_40M's: 3.98 groups, not yet
  EXPECT_EQ(p.group, 256);
  p = gpumat::bccoo_model(A.view(), BccooParams{}, gpumat::BccooHints(1, 6 * 24 * 256)).p; // 6 groups: not yet
  EXPECT_EQ(p.group, 256);
  BccooParams user;
  user.tile = 40;
  p         = gpumat::bccoo_model(A.view(), user, gpumat::BccooHints(1, 65 * 24 * 256)).p;
  EXPECT_EQ(p.tile, 40);
  EXPECT_EQ(p.group, 512);
  user      = BccooParams{};
  user.group = 64;
  p          = gpumat::bccoo_model(A.view(), user).p;
  EXPECT_EQ(p.tile, 24);
  EXPECT_EQ(p.group, 64);
  // the block count the rules use: exact for 1 x 1 blocks, sampled or not
  EXPECT_EQ(gpumat::bccoo_model(A.view(), BccooParams{}).blocks, double(A.colidx.size()));
  Big L = banded(index_t(gpumat::kModelLatencyBlocks / 64) + 1000, 64, 0); // segments of 64 blocks
  p     = gpumat::bccoo_model(L.view(), BccooParams{}).p;
  EXPECT_EQ(p.tile, 40);
  EXPECT_EQ(p.group, 512);
  Big Q = banded(index_t(gpumat::kModelLatencyBlocks / 48) + 1000, 48, 0); // 48 per segment (Q2 elements): groups of 512, tile 24
  p     = gpumat::bccoo_model(Q.view(), BccooParams{}).p;
  EXPECT_EQ(p.tile, 24);
  EXPECT_EQ(p.group, 512);
  Big S = banded(index_t(gpumat::kModelLatencyBlocks / 40) + 1000, 40, 0); // 40: still 256
  p     = gpumat::bccoo_model(S.view(), BccooParams{}).p;
  EXPECT_EQ(p.tile, 24);
  EXPECT_EQ(p.group, 256);
}

// Rows of very different lengths (LP's heavy tail): the block count comes from the nonzeros, not
// from the sampled rows' count, so the segment length and the blocks per thread do not depend on
// which rows the sample met. Bands of 48 rows alternate between 4 and 1,200 nonzeros; 1 x 1 blocks.
TEST(BccooModelTiles, HeavyTailedRowsCountedByTheirNonzeros) {
  Big A;
  A.nrows = 4800, A.ncols = 1 << 20;
  for (index_t r = 0; r < A.nrows; ++r) {
    const index_t len = (r / 48) % 2 ? 1200 : 4;
    for (index_t k = 0; k < len; ++k) A.colidx.push_back(index_t((std::int64_t(r) * 7919 + std::int64_t(k) * 877) % A.ncols));
    std::sort(A.colidx.end() - len, A.colidx.end());
    A.end_row();
  }
  BccooParams one_slice;
  one_slice.slices             = 1;
  const gpumat::BccooChoice ch = gpumat::bccoo_model(A.view(), one_slice);
  EXPECT_EQ(ch.p.h * ch.p.w, 1);
  EXPECT_EQ(ch.blocks, double(A.colidx.size()));
  EXPECT_LT(ch.sampled_rows, A.nrows); // a sample, not every row
  EXPECT_EQ(ch.p.tile, 40) << "2.9M blocks in segments of more than 64: tile 40, group 512";
  EXPECT_EQ(ch.p.group, 512);
}

// Slices (BCCOO+) by the byte model: uniformly random columns whose x does not fit half the L2 take
// slices (a 1 MB L2 hint makes a 200k-column x of 1.6 MB too large), not when it fits (the default
// 50 MB); a stencil never (no far columns), whatever the L2; the user's count is kept.
TEST(BccooModelSlices, WhereXDoesNotFitTheCache) {
  Big R = random_columns(200000, 16, 5);
  const BccooParams small_l2 = gpumat::bccoo_model(R.view(), BccooParams{}, gpumat::BccooHints(1, -1, 1e6)).p;
  EXPECT_GT(small_l2.slices, 1);
  EXPECT_LE(small_l2.slices, 8);
  EXPECT_EQ(gpumat::bccoo_model(R.view(), BccooParams{}).p.slices, 1);
  BccooParams user;
  user.slices = 2;
  EXPECT_EQ(gpumat::bccoo_model(R.view(), user, gpumat::BccooHints(1, -1, 1e6)).p.slices, 2);
  const matgen::Csr M = matgen::stencil_2d(400, 400);
  const auto        v = M.values<double>();
  EXPECT_EQ(gpumat::bccoo_model(M.view(v), BccooParams{}, gpumat::BccooHints(1, -1, 1e5)).p.slices, 1);
}
