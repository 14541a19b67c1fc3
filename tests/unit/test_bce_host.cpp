// bce host layer (src/core/bce.hpp): parameter resolution; the distribution function on the
// paper's 10 x 10 example; merging (at most max_sets sets, rows and entries kept, cheapest first);
// the optimal partition against brute force on small random distributions (optimal under its own
// time model, for several group costs); the host reference on special cases (a single
// row length, every length distinct, more than 100 lengths, one enormous row, regular rows without
// a long part); and a fuzz test of random patterns across the parameters. The products across
// long_row, group cost and merging bounds on the standard set, empty rows and the refresh are the
// typed suite's (test_formats_host.cpp, the layout's invariants in format_traits.hpp).
#include "core/bce.hpp"
#include "bce_params.hpp"
#include "format_traits.hpp"
#include "matgen.hpp"
#include "host_helpers.hpp"

#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <string>

using gpumat::Bce;
using gpumat::BceParams;
using gpumat::BceSet;
using gpumat::index_t;
using gpumat::Op;
using gpumat_test::bp;
using gpumat_test::describe;
using gpumat_test::ZMode;

namespace {

template <typename T>
void check_products(const matgen::Csr &M, const BceParams &p) {
  const std::vector<T> vals = M.values<T>();
  Bce<T>               B;
  gpumat::bce_build(M.view(vals), p, B);
  const std::string where = M.name + " " + describe(B.p);
  gpumat_test::check_bce_layout(M, vals, B, where);
  for (Op op : {Op::NoTrans, Op::Trans})
    for (ZMode zm : {ZMode::None, ZMode::Separate, ZMode::Alias})
      ASSERT_EQ(gpumat_test::product_mismatch(M, vals, op, zm, 91, 92, [&](const T *x, const T *z, T *y) { gpumat::bce_apply(B, op, x, z, y); }), "")
          << where << (op == Op::Trans ? " Trans" : " NoTrans") << " z mode " << int(zm);
}


} // namespace

TEST(BceResolve, DefaultsAndRanges) {
  const BceParams d = gpumat::bce_resolve(BceParams{});
  EXPECT_EQ(d.long_row, 0); // the matrix's (bce_groups)
  EXPECT_EQ(d.group_cost, gpumat::kBceGroupCost);
  EXPECT_EQ(d.max_sets, gpumat::kBceMaxSets);
  EXPECT_THROW(gpumat::bce_resolve(bp(-1, 0, 0)), std::invalid_argument);
  EXPECT_THROW(gpumat::bce_resolve(bp(0, 0, 1)), std::invalid_argument);
  EXPECT_THROW(gpumat::bce_resolve(bp(0, 0, gpumat::kBceMaxSetsLimit + 1)), std::invalid_argument);
  EXPECT_THROW(gpumat::bce_resolve(bp(0, std::int64_t(1) << 41, 0)), std::invalid_argument);
  EXPECT_THROW(gpumat::bce_resolve(bp(0, 0, 0, -5)), std::invalid_argument);
  EXPECT_EQ(gpumat::bce_resolve(BceParams{}).window, gpumat::kBceWindow);
}

// The paper's section 5.1: B = [2, 3, 2, 1, 0, 1, 1, 0, 0, 0].
TEST(BceDistribution, PaperExample) {
  const matgen::Csr   M = matgen::from_lengths("paper", 10, {2, 3, 1, 2, 7, 1, 3, 4, 6, 2}, 3);
  const auto          v = M.values<double>();
  const auto          df = gpumat::bce_distribution(M.view(v), 1000);
  const std::int64_t  w[] = {1, 2, 3, 4, 6, 7}, n[] = {2, 3, 2, 1, 1, 1};
  ASSERT_EQ(df.size(), 6u);
  for (std::size_t i = 0; i < df.size(); ++i) {
    EXPECT_EQ(df[i].width, w[i]);
    EXPECT_EQ(df[i].rows, n[i]);
    EXPECT_EQ(df[i].entries, w[i] * n[i]);
  }
}

// Merging keeps every row and entry, the widest set's width, widths increasing, at most max_sets;
// the first merge is the cheapest one.
TEST(BceMerge, KeepsRowsAndMergesCheapestFirst) {
  std::mt19937_64     g(5);
  std::vector<BceSet> sets;
  std::int64_t        w = 0, rows = 0, entries = 0;
  for (int i = 0; i < 500; ++i) {
    w += 1 + std::int64_t(g() % 7);
    const std::int64_t n = 1 + std::int64_t(g() % 1000);
    sets.push_back({w, n, w * n});
    rows += n, entries += w * n;
  }
  for (int m : {2, 3, 100, 499, 500, 600}) {
    const auto out = gpumat::bce_merge(sets, m);
    ASSERT_EQ(out.size(), std::size_t(std::min(m, 500)));
    std::int64_t r = 0, e = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
      r += out[i].rows, e += out[i].entries;
      if (i > 0) {
        ASSERT_LT(out[i - 1].width, out[i].width);
      }
    }
    EXPECT_EQ(r, rows);
    EXPECT_EQ(e, entries);
    EXPECT_EQ(out.back().width, sets.back().width);
  }
  // one merge: the pair with the fewest padded entries added
  std::size_t  best = 0;
  std::int64_t bc   = INT64_MAX;
  for (std::size_t i = 0; i + 1 < sets.size(); ++i)
    if (sets[i].rows * (sets[i + 1].width - sets[i].width) < bc) bc = sets[i].rows * (sets[i + 1].width - sets[i].width), best = i;
  const auto one = gpumat::bce_merge(sets, 499);
  EXPECT_EQ(one[best].rows, sets[best].rows + sets[best + 1].rows);
  EXPECT_EQ(one[best].width, sets[best + 1].width);
}

// OPA is optimal under its own time model: the dynamic program's cost equals the best of every
// partition, on random distributions of 1-12 sets, for several group costs c.
TEST(BcePartition, OptimalAgainstBruteForce) {
  std::mt19937_64 g(7);
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t   M = 1 + g() % 12;
    std::vector<BceSet> sets;
    std::int64_t        w = std::int64_t(g() % 3);
    for (std::size_t i = 0; i < M; ++i) {
      w += 1 + std::int64_t(g() % 50);
      const std::int64_t n = 1 + std::int64_t(g() % (trial % 2 ? 50 : 5000));
      sets.push_back({w, n, w * n});
    }
    const BceParams p     = gpumat::bce_resolve(bp(0, std::int64_t(g() % 4) * std::int64_t(g() % 5000), 0));
    const auto      dp    = gpumat::bce_partition(sets, p);
    const auto      brute = gpumat::bce_partition_brute(sets, p);
    ASSERT_EQ(dp.back(), M);
    ASSERT_DOUBLE_EQ(gpumat::bce_partition_time(sets, dp, p), gpumat::bce_partition_time(sets, brute, p)) << "trial " << trial << " " << describe(p);
  }
}

// With no cost per group, every set is its own group (no padding at all); with a huge cost per
// entry of width, one group (the widest width once is the least total); with the default cost, a
// set of few rows joins the next wider group where its padding costs less than its own group:
// {40 wide, 2 rows} and {41 wide, 1000 rows}: 2 x 1 x 12 B of padding against 64 x 40 B.
TEST(BcePartition, Extremes) {
  const std::vector<BceSet> sets = {{1, 100, 100}, {3, 50, 150}, {8, 10, 80}, {40, 2, 80}};
  EXPECT_EQ(gpumat::bce_partition(sets, gpumat::bce_resolve(bp(0, 0, 0))).size(), 4u);
  EXPECT_EQ(gpumat::bce_partition(sets, gpumat::bce_resolve(bp(0, std::int64_t(1) << 40, 0))), (std::vector<std::size_t>{4}));
  const std::vector<BceSet> few = {{10, 5000, 50000}, {40, 2, 80}, {41, 1000, 41000}};
  EXPECT_EQ(gpumat::bce_partition(few, gpumat::bce_resolve(BceParams{})), (std::vector<std::size_t>{1, 3}));
}

// A single row length: one group, no padding.
TEST(BceHostSpecial, SingleLength) {
  const matgen::Csr M = matgen::from_lengths("rows_of_9", 4000, std::vector<index_t>(3000, 9), 11);
  const auto        v = M.values<double>();
  Bce<double>       B;
  gpumat::bce_build(M.view(v), BceParams{}, B);
  EXPECT_EQ(B.groups(), 1);
  EXPECT_EQ(B.blocks(), 1);
  EXPECT_EQ(B.padding(), 0);
  check_products<double>(M, BceParams{});
  gpumat::bce_build(M.view(v), bp(0, -1, 0, 1000), B); // three windows: a block each
  EXPECT_EQ(B.blocks(), 3);
  check_products<double>(M, bp(0, -1, 0, 1000));
}

// Every length distinct (and more than 100 of them: merged to max_sets before OPA).
TEST(BceHostSpecial, EveryLengthDistinct) {
  std::vector<index_t> len(300);
  for (std::size_t i = 0; i < len.size(); ++i) len[i] = index_t((i * 7919) % 300); // 0..299, each once
  const matgen::Csr M = matgen::from_lengths("distinct", 400, len, 12);
  const auto        v = M.values<double>();
  Bce<double>       B;
  gpumat::bce_build(M.view(v), BceParams{}, B);
  EXPECT_EQ(B.long_rows.size(), 299u - 32u); // long_row: 32 (default_long_row: 299 is over 128)
  EXPECT_EQ(B.sets_before_merge, 33);
  gpumat::bce_build(M.view(v), bp(1000, 0, 100), B); // every row in a group: 300 sets, merged to 100
  EXPECT_EQ(B.sets_before_merge, 300);
  EXPECT_EQ(B.sets, 100);
  EXPECT_TRUE(B.long_rows.empty());
  for (const BceParams &p : {BceParams{}, bp(1000, 0, 0), bp(1000, 0, 100), bp(1000, 0, 4096)}) check_products<double>(M, p);
}

// One enormous row (1.1M entries) among short ones: the long part (no group is padded to it);
// with long_row above it, a group of its own (padding the short rows to it would cost more).
TEST(BceHostSpecial, OneEnormousRow) {
  const index_t        n = 1100000;
  std::vector<index_t> len(5000, 4);
  len[2500] = n;
  const matgen::Csr M = matgen::from_lengths("enormous", n, len, 13);
  const auto        v = M.values<double>();
  Bce<double>       B;
  gpumat::bce_build(M.view(v), BceParams{}, B);
  EXPECT_EQ(B.long_rows, std::vector<index_t>{2500});
  EXPECT_EQ(B.group_width.back(), 4);
  EXPECT_EQ(B.padding(), 0);
  check_products<double>(M, BceParams{});
  gpumat::bce_build(M.view(v), bp(n, -1, 0), B);
  EXPECT_TRUE(B.long_rows.empty());
  EXPECT_EQ(B.group_width.back(), n);
  EXPECT_EQ(B.width[1], n); // window 0: rows of 4, then the enormous one
  EXPECT_EQ(B.rows[1], 1);
  EXPECT_EQ(B.padding(), 0);
  check_products<double>(M, bp(n, -1, 0));
}

// Rows of 40-80 entries (no row far longer than the mean): no long part by default, one group per
// the model, products as AIJ's (default_long_row, long_rows.hpp).
TEST(BceHostSpecial, RegularRowsHaveNoLongPart) {
  const matgen::Csr M = matgen::random_rows("regular", 6000, 6000, 40, 80, 0.0, 44);
  const auto        v = M.values<double>();
  Bce<double>       B;
  bce_build(M.view(v), BceParams{}, B);
  EXPECT_TRUE(B.long_rows.empty());
  EXPECT_EQ(B.p.long_row, gpumat::longest_row(M.view(v)));
  check_products<double>(M, BceParams{});
}

// Fuzz: random patterns (empty rows, ragged sizes) across long_row, c and max_sets.
TEST(BceHostFuzz, RandomPatterns) {
  std::mt19937_64 g(19);
  for (int trial = 0; trial < 60; ++trial) {
    const index_t     nrows = 1 + index_t(g() % 3000), ncols = 1 + index_t(g() % 2000);
    const index_t     hi = index_t(g() % 200);
    const matgen::Csr M  = matgen::random_rows("fuzz" + std::to_string(trial), nrows, ncols, 0, hi, double(g() % 4) / 10.0, 1000 + std::uint64_t(trial));
    const std::int64_t wins[] = {0, 1, 32, 1000, 1 << 30};
    const BceParams   p  = bp(std::int64_t(g() % 300), std::int64_t(g() % 3) * 1000 - 1, int(g() % 3) * 40, wins[g() % 5]); // max_sets 40 and 80 merge
    check_products<double>(M, p);
  }
}
