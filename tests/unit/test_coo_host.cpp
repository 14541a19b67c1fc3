// COO maps (src/core/coo.hpp): positions in a CSR, the map over every nonzero and over the targets
// hit, and coo_apply against a plain accumulation, for COO arrays with repeats, ignored entries
// and shuffled order built from every matrix of the standard set.
#include "core/coo.hpp"
#include "matgen.hpp"

#include <gtest/gtest.h>
#include <algorithm>
#include <random>
#include <stdexcept>

using gpumat::CooMap;
using gpumat::index_t;

namespace {

// A COO array of M: every nonzero once or more (repeats up to 3), some ignored entries (target -1),
// shuffled; pos[e] is the nonzero of entry e.
struct Coo {
  std::vector<index_t> pos;
  std::vector<double>  v;
};
Coo random_coo(const matgen::Csr &M, std::uint64_t seed, bool every) {
  std::mt19937_64 g(seed);
  Coo             c;
  for (index_t t = 0; t < M.nnz(); ++t) {
    const int copies = every ? 1 + int(g() % 3) : int(g() % 3);
    for (int k = 0; k < copies; ++k) c.pos.push_back(t);
  }
  for (int k = 0; k < 17; ++k) c.pos.push_back(-1);
  std::shuffle(c.pos.begin(), c.pos.end(), g);
  c.v = matgen::random_vector<double>(c.pos.size(), seed + 1);
  return c;
}

TEST(Coo, PositionInRow) {
  for (const matgen::Csr &M : matgen::standard_set_cached(512))
    for (index_t r = 0; r < M.nrows; ++r) {
      for (index_t k = M.rowptr[r]; k < M.rowptr[r + 1]; ++k) ASSERT_EQ(k, gpumat::csr_position(M.rowptr.data(), M.colidx.data(), r, M.colidx[k])) << M.name;
      // a column the row does not hold
      std::vector<index_t> row(M.colidx.begin() + M.rowptr[r], M.colidx.begin() + M.rowptr[r + 1]);
      for (index_t c : {index_t(0), M.ncols / 2, M.ncols - 1})
        if (M.ncols > 0 && std::find(row.begin(), row.end(), c) == row.end()) {
          ASSERT_EQ(-1, gpumat::csr_position(M.rowptr.data(), M.colidx.data(), r, c)) << M.name;
        }
    }
}

TEST(Coo, EveryNonzeroSetsAndAdds) {
  for (const matgen::Csr &M : matgen::standard_set_cached(512)) {
    const Coo    c = random_coo(M, 7, false); // some nonzeros get no entry
    const CooMap m = gpumat::coo_map(M.nnz(), c.pos.data(), std::int64_t(c.pos.size()), true);
    ASSERT_EQ(m.segments(), std::int64_t(M.nnz())) << M.name;
    ASSERT_TRUE(m.every_nonzero());
    ASSERT_EQ(m.entries(), std::int64_t(std::count_if(c.pos.begin(), c.pos.end(), [](index_t t) { return t >= 0; }))) << M.name;
    // entries of a segment in COO order (stable)
    for (std::int64_t s = 0; s < m.segments(); ++s)
      for (std::int64_t k = m.jmap[s]; k < m.jmap[s + 1]; ++k) {
        ASSERT_EQ(index_t(s), c.pos[m.perm[k]]);
        if (k > m.jmap[s]) {
          ASSERT_LT(m.perm[k - 1], m.perm[k]);
        }
      }
    std::vector<double> want(M.val), got(M.val);
    std::vector<double> sum(M.nnz(), 0.0);
    for (std::size_t e = 0; e < c.pos.size(); ++e)
      if (c.pos[e] >= 0) sum[c.pos[e]] += c.v[e];
    // INSERT_VALUES: every nonzero becomes its sum (0 without entries)
    gpumat::coo_apply(m, c.v.data(), true, got.data());
    for (index_t t = 0; t < M.nnz(); ++t) ASSERT_NEAR(sum[t], got[t], 1e-14) << M.name;
    // ADD_VALUES: added to what was there
    got = M.val;
    gpumat::coo_apply(m, c.v.data(), false, got.data());
    for (index_t t = 0; t < M.nnz(); ++t) ASSERT_NEAR(want[t] + sum[t], got[t], 1e-14) << M.name;
  }
}

TEST(Coo, TargetsHitOnlyAdd) {
  for (const matgen::Csr &M : matgen::standard_set_cached(512)) {
    const Coo    c = random_coo(M, 11, false);
    const CooMap m = gpumat::coo_map(M.nnz(), c.pos.data(), std::int64_t(c.pos.size()), false);
    ASSERT_FALSE(m.every_nonzero() && m.segments() > 0) << M.name;
    ASSERT_TRUE(std::is_sorted(m.targets.begin(), m.targets.end()));
    std::vector<char> hit(M.nnz(), 0);
    for (index_t t : c.pos)
      if (t >= 0) hit[t] = 1;
    ASSERT_EQ(m.segments(), std::int64_t(std::count(hit.begin(), hit.end(), 1))) << M.name;
    std::vector<double> got(M.val), want(M.val);
    for (std::size_t e = 0; e < c.pos.size(); ++e)
      if (c.pos[e] >= 0) want[c.pos[e]] += c.v[e];
    gpumat::coo_apply(m, c.v.data(), false, got.data());
    for (index_t t = 0; t < M.nnz(); ++t) ASSERT_NEAR(want[t], got[t], 1e-14) << M.name;
  }
}

TEST(Coo, EmptyAndOutOfRange) {
  const CooMap none = gpumat::coo_map(0, nullptr, 0, true);
  EXPECT_EQ(0, none.segments());
  EXPECT_EQ(1u, none.jmap.size());
  const std::vector<index_t> ignored(5, -1);
  const CooMap               m = gpumat::coo_map(3, ignored.data(), 5, true);
  EXPECT_EQ(3, m.segments());
  EXPECT_EQ(0, m.entries());
  std::vector<double> v{1, 2, 3};
  gpumat::coo_apply(m, v.data(), true, v.data()); // INSERT_VALUES without entries: zeros
  EXPECT_EQ(std::vector<double>(3, 0.0), v);
  const CooMap sparse = gpumat::coo_map(3, ignored.data(), 5, false);
  EXPECT_EQ(0, sparse.segments());
  const std::vector<index_t> bad{0, 3};
  EXPECT_THROW(gpumat::coo_map(3, bad.data(), 2, true), std::out_of_range);
}

} // namespace
