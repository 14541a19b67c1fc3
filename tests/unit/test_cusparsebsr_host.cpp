// cusparsebsr host layer: the BSR layout (block rows, sorted block columns, in-block order, padding
// of rows and columns not divisible by bs, slot map), block counts, the byte model and the block
// size choice, refresh and the reference product over the stored blocks against a plain
// long-double CSR product.
#include "core/cusparsebsr.hpp"
#include "matgen.hpp"
#include "host_helpers.hpp"
#include "params.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

using gpumat::BsrHost;
using gpumat::BsrLayout;
using gpumat::index_t;
using gpumat::Op;

namespace {

using gpumat_test::tolerance;

using gpumat_test::ZMode;

// The standard set without its largest random patterns (each nonzero its own block at bs up to 7
// would store millions of values), plus a 1021 x 1013 matrix (no tested bs divides either) with one
// long row.
const std::vector<matgen::Csr> &matrices() {
  static const std::vector<matgen::Csr> m = [] {
    std::vector<matgen::Csr> v;
    for (matgen::Csr &M : matgen::standard_set(512))
      if (M.name != "power_law") v.push_back(std::move(M));
    v.push_back(matgen::rows_1021_one_long(1013));
    return v;
  }();
  return m;
}

template <typename T>
void check_apply(const BsrHost<T> &H, const matgen::Csr &M, const std::vector<T> &vals, Op op, ZMode zm, const std::string &what) {
  ASSERT_EQ(gpumat_test::product_mismatch(M, vals, op, zm, 101, 202, [&](const T *x, const T *z, T *y) { H.apply(op, x, z, y); }), "")
      << what << (op == Op::Trans ? " Trans" : " NoTrans") << " z mode " << int(zm);
}

// The layout against its definition: the set of blocks of each block row, ascending, every entry
// at its in-block position, the rest of every block zero.
template <typename T>
void check_layout(const BsrLayout &L, const std::vector<T> &stored, const matgen::Csr &M, const std::vector<T> &vals, int bs, bool row_major,
                  const std::string &what) {
  const index_t mb = (M.nrows + bs - 1) / bs, nb = (M.ncols + bs - 1) / bs;
  ASSERT_EQ(L.mb, mb) << what;
  ASSERT_EQ(L.nb, nb) << what;
  ASSERT_EQ(L.rowptr.size(), std::size_t(mb) + 1) << what;
  ASSERT_EQ(L.rowptr[0], 0) << what;
  for (index_t I = 0; I < mb; ++I) {
    std::set<index_t> want;
    for (index_t r = I * bs; r < std::min<index_t>(M.nrows, (I + 1) * bs); ++r)
      for (index_t k = M.rowptr[r]; k < M.rowptr[r + 1]; ++k) want.insert(M.colidx[std::size_t(k)] / bs);
    const std::vector<index_t> got(L.colidx.begin() + L.rowptr[std::size_t(I)], L.colidx.begin() + L.rowptr[std::size_t(I) + 1]);
    ASSERT_EQ(got, std::vector<index_t>(want.begin(), want.end())) << what << " block row " << I;
  }
  ASSERT_EQ(stored.size(), std::size_t(L.stored())) << what;
  std::vector<char> used(stored.size(), 0);
  for (index_t r = 0; r < M.nrows; ++r)
    for (index_t k = M.rowptr[r]; k < M.rowptr[r + 1]; ++k) {
      const index_t c = M.colidx[std::size_t(k)], I = r / bs, i = r % bs, j = c % bs;
      const auto    b = std::lower_bound(L.colidx.begin() + L.rowptr[std::size_t(I)], L.colidx.begin() + L.rowptr[std::size_t(I) + 1], c / bs) - L.colidx.begin();
      const index_t p = index_t(b) * bs * bs + (row_major ? i * bs + j : j * bs + i);
      ASSERT_EQ(L.slot[std::size_t(k)], p) << what << " entry " << k;
      ASSERT_EQ(stored[std::size_t(p)], vals[std::size_t(k)]) << what;
      used[std::size_t(p)] = 1;
    }
  for (std::size_t p = 0; p < used.size(); ++p)
    if (!used[p]) {
      ASSERT_EQ(stored[p], T(0)) << what << " fill at " << p;
    }
}

template <typename T> void run_all(const std::vector<int> &sizes) {
  for (int bs : sizes)
    for (bool row_major : {false, true})
      for (const matgen::Csr &M : matrices()) {
        const std::string    what = M.name + " bs " + std::to_string(bs) + (row_major ? " row-major" : " column-major");
        const std::vector<T> vals = M.values<T>();
        BsrHost<T>           H;
        H.build(M.view(vals), bs, row_major);
        check_layout(H.layout(), H.values(), M, vals, bs, row_major, what);
        EXPECT_EQ(gpumat::bsr_block_count(M.view(vals), bs), H.layout().nnzb()) << what;
        for (Op op : {Op::NoTrans, Op::Trans})
          for (ZMode zm : {ZMode::None, ZMode::Separate, ZMode::Alias}) check_apply(H, M, vals, op, zm, what);
      }
}

TEST(BsrHost, ApplyAndLayoutDouble) { run_all<double>({2, 3, 5, 7}); }
TEST(BsrHost, ApplyAndLayoutFloat) { run_all<float>({2, 4}); }

// The largest block size on small matrices, and the block matrices at their own size and others.
TEST(BsrHost, LargeAndMatchingBlocks) {
  for (const matgen::Csr &M : {matgen::from_lengths("small", 40, {3, 0, 7, 1, 40, 2, 0, 0, 5, 1, 1, 9, 2, 2, 3, 4, 5}, 7), matgen::dense_blocks(60, 3, 5, 8),
                               matgen::dense_blocks(45, 6, 4, 9)})
    for (int bs : {gpumat::bsr_max_bs, 3, 6, 4}) {
      const std::vector<double> vals = M.values<double>();
      BsrHost<double>           H;
      H.build(M.view(vals), bs, false);
      const std::string what = M.name + " bs " + std::to_string(bs);
      check_layout(H.layout(), H.values(), M, vals, bs, false, what);
      for (Op op : {Op::NoTrans, Op::Trans}) check_apply(H, M, vals, op, ZMode::Separate, what);
    }
}

TEST(BsrHost, Refresh) {
  for (const matgen::Csr &M : {matgen::random_rows("random_with_empty", 4000, 3000, 1, 12, 0.15, 12), matgen::dense_blocks(50, 3, 4, 3)}) {
    const std::vector<double> vals = M.values<double>();
    for (bool row_major : {false, true}) {
      BsrHost<double> H;
      H.build(M.view(vals), 3, row_major);
      std::vector<double> fresh(vals.size());
      for (std::size_t k = 0; k < fresh.size(); ++k) fresh[k] = 0.5 - vals[k] * double(k % 7);
      H.refresh(fresh.data());
      check_layout(H.layout(), H.values(), M, fresh, 3, row_major, M.name + " refreshed");
      check_apply(H, M, fresh, Op::NoTrans, ZMode::Alias, M.name + " refreshed");
      check_apply(H, M, fresh, Op::Trans, ZMode::None, M.name + " refreshed");
    }
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

TEST(BsrChoice, BlockCounts) {
  for (const matgen::Csr &M : matrices()) {
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
