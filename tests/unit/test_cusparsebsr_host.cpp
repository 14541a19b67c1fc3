// cusparsebsr host layer: the layout by hand, the largest block size and block matrices at their
// own block size and others, block counts, the byte model and the block size choice, refused
// block sizes. The layout (block rows, sorted block columns, in-block order, padding of rows and
// columns not divisible by bs, slot map) and the reference product over the stored blocks on the
// standard set for every tested bs and both block orders, and the refresh, are the typed suite's
// (test_formats_host.cpp, the layout's invariants in format_traits.hpp).
#include "core/cusparsebsr.hpp"
#include "format_traits.hpp"
#include "matgen.hpp"
#include "host_helpers.hpp"
#include "params.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

using gpumat::BsrHost;
using gpumat::BsrLayout;
using gpumat::index_t;
using gpumat::Op;

namespace {

using gpumat_test::ZMode;

template <typename T>
void check_apply(const BsrHost<T> &H, const matgen::Csr &M, const std::vector<T> &vals, Op op, ZMode zm, const std::string &what) {
  ASSERT_EQ(gpumat_test::product_mismatch(M, vals, op, zm, 101, 202, [&](const T *x, const T *z, T *y) { H.apply(op, x, z, y); }), "")
      << what << (op == Op::Trans ? " Trans" : " NoTrans") << " z mode " << int(zm);
}

// The largest block size on small matrices, and the block matrices at their own size and others.
TEST(BsrHost, LargeAndMatchingBlocks) {
  for (const matgen::Csr &M : {matgen::from_lengths("small", 40, {3, 0, 7, 1, 40, 2, 0, 0, 5, 1, 1, 9, 2, 2, 3, 4, 5}, 7), matgen::dense_blocks(60, 3, 5, 8),
                               matgen::dense_blocks(45, 6, 4, 9)})
    for (int bs : {gpumat::bsr_max_bs, 3, 6, 4}) {
      const std::vector<double> vals = M.values<double>();
      BsrHost<double>           H;
      H.build(M.view(vals), bs, false);
      const std::string what = M.name + " bs " + std::to_string(bs);
      gpumat_test::check_bsr_layout(H.layout(), H.values(), M, vals, bs, false, what);
      for (Op op : {Op::NoTrans, Op::Trans}) check_apply(H, M, vals, op, ZMode::Separate, what);
    }
}

// 3 x 5 at bs 2 by hand: entries (0,0) (0,3) (1,4) (2,1); block rows {0: cols 0, 1, 2}, {1: col 0}.
TEST(BsrHost, LayoutByHand) {
  matgen::Csr M;
  M.name   = "by_hand";
  M.nrows  = 3;
  M.ncols  = 5;
  M.rowptr = {0, 2, 3, 4};
  M.colidx = {0, 3, 4, 1};
  M.val    = {1, 2, 3, 4};
  const std::vector<double> vals = M.values<double>();
  BsrHost<double>           H;
  H.build(M.view(vals), 2, false);
  const BsrLayout &L = H.layout();
  EXPECT_EQ(L.rowptr, (std::vector<index_t>{0, 3, 4}));
  EXPECT_EQ(L.colidx, (std::vector<index_t>{0, 1, 2, 0}));
  // column-major: (0,0) block 0 at 0; (0,3) block 1 (i 0, j 1) at 4 + 2; (1,4) block 2 (i 1, j 0)
  // at 8 + 1; (2,1) block 3 (i 0, j 1) at 12 + 2
  EXPECT_EQ(L.slot, (std::vector<index_t>{0, 6, 9, 14}));
  H.build(M.view(vals), 2, true); // row-major: (i, j) at i*2 + j
  EXPECT_EQ(H.layout().slot, (std::vector<index_t>{0, 5, 10, 13}));
}

// Block counts of every bs in one pass against a set of blocks, on the typed suite's bsr matrices.
TEST(BsrChoice, BlockCounts) {
  for (const matgen::Csr &M : gpumat_test::FormatTraits<gpumat_test::fmt::cusparsebsr>::matrices({})) {
    const std::vector<double>       vals = M.values<double>();
    const std::vector<std::int64_t> all  = gpumat::bsr_block_counts(M.view(vals), 2, 6);
    ASSERT_EQ(all.size(), 5u);
    for (int bs = 2; bs <= 6; ++bs) {
      std::set<std::pair<index_t, index_t>> blocks;
      for (index_t r = 0; r < M.nrows; ++r)
        for (index_t k = M.rowptr[r]; k < M.rowptr[r + 1]; ++k) blocks.insert({r / bs, M.colidx[std::size_t(k)] / bs});
      EXPECT_EQ(all[std::size_t(bs - 2)], std::int64_t(blocks.size())) << M.name << " bs " << bs;
    }
  }
}

TEST(BsrChoice, Bytes) {
  // 10 x 7, bs 3: 4 block rows, 3 block columns, both padded; 5 blocks, 12 nonzeros
  EXPECT_EQ(gpumat::bsr_bytes(10, 7, 12, 5, 3, 8), std::size_t(5 * (9 * 8 + 4) + 5 * 4 + 12 * 12 + 9 * 8 + 12 * 8));
  EXPECT_EQ(gpumat::bsr_bytes(12, 6, 12, 5, 3, 8), std::size_t(5 * (9 * 8 + 4) + 5 * 4 + 12 * 12)); // no padding
}

TEST(BsrChoice, Rules) {
  const matgen::Csr         M3   = matgen::dense_blocks(40, 3, 5, 21);
  const std::vector<double> v3   = M3.values<double>();
  gpumat::BsrChoice         why;
  std::vector<std::size_t>  cand;
  // the option wins, then the matrix's block size in range, then the fewest bytes
  EXPECT_EQ(gpumat::bsr_choose_bs(M3.view(v3), 5, 3, &why), 5);
  EXPECT_EQ(why, gpumat::BsrChoice::Option);
  EXPECT_EQ(gpumat::bsr_choose_bs(M3.view(v3), 0, 4, &why), 4);
  EXPECT_EQ(why, gpumat::BsrChoice::Hint);
  EXPECT_EQ(gpumat::bsr_choose_bs(M3.view(v3), 0, 1, &why, &cand), 3); // dense 3 x 3 blocks: 3 stores the fewest bytes
  EXPECT_EQ(why, gpumat::BsrChoice::FewestBytes);
  ASSERT_EQ(cand.size(), 5u);
  EXPECT_EQ(*std::min_element(cand.begin(), cand.end()), cand[1]);
  EXPECT_EQ(gpumat::bsr_choose_bs(M3.view(v3), 0, 27, &why), 3); // a block size beyond 16: the fewest bytes
  EXPECT_EQ(why, gpumat::BsrChoice::FewestBytes);
  const matgen::Csr         M2 = matgen::dense_blocks(60, 2, 4, 22);
  const std::vector<double> v2 = M2.values<double>();
  EXPECT_EQ(gpumat::bsr_choose_bs(M2.view(v2), 0, 1), 2);
  // random columns: every nonzero its own block, the smallest block stores the fewest bytes
  const matgen::Csr         R  = matgen::random_rows("random", 3000, 3000, 1, 10, 0.0, 23);
  const std::vector<double> vr = R.values<double>();
  EXPECT_EQ(gpumat::bsr_choose_bs(R.view(vr), 0, 1), 2);
  // each candidate's bytes are bsr_bytes of its block count
  gpumat::bsr_choose_bs(R.view(vr), 0, 0, &why, &cand);
  for (int bs = 2; bs <= 6; ++bs)
    EXPECT_EQ(cand[std::size_t(bs - 2)], gpumat::bsr_bytes(R.nrows, R.ncols, R.nnz(), gpumat::bsr_block_count(R.view(vr), bs), bs, sizeof(double)));
}

TEST(BsrChoice, RejectsBlockSizes) {
  const matgen::Csr         M    = matgen::from_lengths("m", 10, {1, 2}, 5);
  const std::vector<double> vals = M.values<double>();
  BsrHost<double>           H;
  for (int bs : {1, 0, -2, gpumat::bsr_max_bs + 1}) {
    try {
      H.build(M.view(vals), bs, false);
      ADD_FAILURE() << "accepted bs " << bs;
    } catch (const std::invalid_argument &e) {
      EXPECT_NE(std::string(e.what()).find("block size must be in [2,16]"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(gpumat::bsr_choose_bs(M.view(vals), 17, 0), std::invalid_argument);
}

} // namespace
