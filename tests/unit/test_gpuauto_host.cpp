// gpuauto's decision (src/core/gpuauto.hpp): deterministic, the sample equal to the full features
// on small matrices and close on large ones, the predictions ordered, the regular and blocked
// patterns sent where the byte models put them, the build counted over the horizon, the constants
// file read, written and refused.
#include "core/gpuauto.hpp"
#include "core/pjds.hpp"
#include "matgen.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

using gpumat::AutoConstants;
using gpumat::AutoDecision;
using gpumat::AutoHints;
using gpumat::index_t;

namespace {

AutoDecision decide(const matgen::Csr &M, const std::vector<std::string> &cand = gpumat::auto_all_candidates(), int bs = 1) {
  const auto v = M.values<double>();
  AutoHints  h;
  h.block_size = bs;
  return gpumat::auto_decide(M.view(v), h, gpumat::auto_shipped_constants(), cand);
}

// A 3-unknowns-per-node FEM operator on an n x n x n grid of nodes: every node coupled to the up to
// 27 nodes around it (itself included) by a dense 3 x 3 block (examples' fem3 pattern).
matgen::Csr fem3(index_t n) {
  matgen::Csr M;
  M.name  = "fem3_" + std::to_string(n);
  M.nrows = M.ncols = 3 * n * n * n;
  for (index_t z = 0; z < n; ++z)
    for (index_t y = 0; y < n; ++y)
      for (index_t x = 0; x < n; ++x)
        for (int d = 0; d < 3; ++d) {
          for (index_t k = std::max<index_t>(0, z - 1); k <= std::min<index_t>(n - 1, z + 1); ++k)
            for (index_t j = std::max<index_t>(0, y - 1); j <= std::min<index_t>(n - 1, y + 1); ++j)
              for (index_t i = std::max<index_t>(0, x - 1); i <= std::min<index_t>(n - 1, x + 1); ++i)
                for (int e = 0; e < 3; ++e) M.colidx.push_back(3 * ((k * n + j) * n + i) + e), M.val.push_back(1.0);
          M.rowptr.push_back(index_t(M.colidx.size()));
        }
  return M;
}

const gpumat::AutoPrediction &prediction_of(const AutoDecision &d, const std::string &cand) {
  const auto it = std::find_if(d.predictions.begin(), d.predictions.end(), [&](const gpumat::AutoPrediction &p) { return p.candidate == cand; });
  EXPECT_NE(it, d.predictions.end()) << cand;
  static const gpumat::AutoPrediction none;
  return it == d.predictions.end() ? none : *it;
}

std::string temp_file(const std::string &name, const std::string &text) {
  const std::string p = ::testing::TempDir() + name;
  std::ofstream(p) << text;
  return p;
}

} // namespace

TEST(GpuAuto, DeterministicAndOrdered) {
  const auto M = matgen::power_law(200000, 200000, 2.0, 2, 5000, 7);
  const auto a = decide(M), b = decide(M);
  ASSERT_FALSE(a.predictions.empty());
  EXPECT_EQ(a.chosen, b.chosen);
  ASSERT_EQ(a.predictions.size(), b.predictions.size());
  for (std::size_t i = 0; i < a.predictions.size(); ++i) {
    EXPECT_EQ(a.predictions[i].candidate, b.predictions[i].candidate);
    EXPECT_EQ(a.predictions[i].ms, b.predictions[i].ms);
    EXPECT_GT(a.predictions[i].ms, 0);
    EXPECT_GT(a.predictions[i].bytes, 0);
    EXPECT_GT(a.predictions[i].build_ms, 0);
    EXPECT_DOUBLE_EQ(a.predictions[i].cost_ms, a.predictions[i].build_ms + double(gpumat::kAutoHorizon) * a.predictions[i].ms); // the default horizon
    if (i) {
      EXPECT_LE(a.predictions[i - 1].cost_ms, a.predictions[i].cost_ms);
    }
  }
  EXPECT_EQ(a.chosen, a.predictions.front().candidate);
  EXPECT_EQ(a.predictions.size(), gpumat::auto_all_candidates().size()); // every candidate predicted
}

TEST(GpuAuto, SmallMatrixSampledWhole) {
  const auto M = matgen::power_law(3000, 3000, 2.0, 1, 400, 3);
  const auto v = M.values<double>();
  const auto s = gpumat::auto_sample(M.view(v), AutoHints());
  const auto f = gpumat::matrix_features(M.view(v));
  EXPECT_TRUE(s.exact);
  EXPECT_EQ(s.sampled_rows, M.nrows);
  EXPECT_DOUBLE_EQ(s.f.padding_sell, f.padding_sell);
  EXPECT_DOUBLE_EQ(s.f.padding_sorted, f.padding_sorted);
  EXPECT_DOUBLE_EQ(s.f.sectors_csr, f.sectors_csr);
  EXPECT_DOUBLE_EQ(s.f.sectors_ell, f.sectors_ell);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(s.f.blocks_bs[k], f.blocks_bs[k]);
  EXPECT_EQ(s.f.max_row, f.max_row);
}

TEST(GpuAuto, LargeMatrixSampleBoundedAndClose) {
  const auto M = matgen::random_rows("rr", 400000, 400000, 2, 30, 0.0, 11);
  const auto v = M.values<double>();
  const auto s = gpumat::auto_sample(M.view(v), AutoHints());
  const auto f = gpumat::matrix_features(M.view(v));
  EXPECT_FALSE(s.exact);
  EXPECT_LE(s.sampled_entries, gpumat::kAutoSampleEntries + 96 * 30);
  EXPECT_EQ(s.f.nnz, f.nnz);
  EXPECT_EQ(s.f.max_row, f.max_row); // from the matrix, not the sample
  EXPECT_NEAR(s.f.padding_sell, f.padding_sell, 0.05 * f.padding_sell);
  EXPECT_NEAR(s.f.padding_sorted, f.padding_sorted, 0.02 + 0.1 * f.padding_sorted);
  EXPECT_NEAR(s.f.sectors_csr, f.sectors_csr, 0.5);
  EXPECT_NEAR(s.f.sectors_ell, f.sectors_ell, 0.5);
  EXPECT_NEAR(double(s.f.blocks_bs[1]), double(f.blocks_bs[1]), 0.03 * double(f.blocks_bs[1]));
  // random columns over 100,000 sectors, 65,536 entries a window: the distinct ones of that many draws
  const double sectors = 100000, draws = double(gpumat::kAutoReuseEntries);
  EXPECT_NEAR(s.sector_use, sectors * (1 - std::exp(-draws / sectors)) / draws, 0.01);
}

TEST(GpuAuto, SampledSortedPaddingOfSkewedRows) {
  // power-law lengths: the sorted padding from the sample's histogram scaled to the matrix's rows
  // (the sample's own sort, of a few thousand rows, would pad at every change of length)
  const auto M = matgen::power_law(600000, 600000, 1.5, 2, 3000, 21);
  const auto v = M.values<double>();
  const auto s = gpumat::auto_sample(M.view(v), AutoHints());
  const auto f = gpumat::matrix_features(M.view(v));
  ASSERT_FALSE(s.exact);
  EXPECT_NEAR(s.f.padding_sorted, f.padding_sorted, 0.01 + 0.5 * f.padding_sorted) << f.padding_sorted;
  EXPECT_NEAR(s.f.padding_sell, f.padding_sell, 0.15 * f.padding_sell);
}

TEST(GpuAuto, LongRowsSampledInRuns) {
  // a dense 3000 x 3000 block: rows longer than kAutoRowEntries are sampled as runs, so the sample
  // (and bccoo's model on it) stays bounded, and the runs keep the 4 x 4 blocks and the length
  matgen::Csr M;
  M.nrows = M.ncols = 3000;
  for (index_t r = 0; r < M.nrows; ++r) {
    for (index_t c = 0; c < M.ncols; ++c) M.colidx.push_back(c), M.val.push_back(1.0);
    M.rowptr.push_back(index_t(M.colidx.size()));
  }
  const auto v = M.values<double>();
  const auto s = gpumat::auto_sample(M.view(v), AutoHints());
  EXPECT_FALSE(s.exact);
  EXPECT_LE(s.sampled_entries, 2 * gpumat::kAutoSampleEntries); // whole rows: 12 x 3000 a window
  EXPECT_EQ(s.f.max_row, 3000);
  EXPECT_DOUBLE_EQ(s.f.mean_row, 3000.0);
  EXPECT_DOUBLE_EQ(s.f.padding_sell, 0.0);
  EXPECT_DOUBLE_EQ(s.f.block_fill(4), 1.0);
  EXPECT_DOUBLE_EQ(s.f.block_fill(3), 1.0);
  const auto d = decide(M);
  bool       bccoo_4x4 = false;
  for (const auto &p : d.predictions) bccoo_4x4 |= p.candidate == "bccoo" && p.detail.find("4x4 blocks") == 0;
  EXPECT_TRUE(bccoo_4x4);
}

TEST(GpuAuto, LongPartShareWeighsItsConstants) {
  // pjds and bce sum rows over their long threshold in warp chunks: the share of entries in such
  // rows, from the sample, weighs the ":long" constants against the rows' own. A power-law matrix
  // (rows of 2..5000, most of its entries in rows over 32) against a random one of 2..30 per row.
  const auto skewed = matgen::power_law(200000, 200000, 1.5, 2, 5000, 7);
  const auto even   = matgen::random_rows("rr", 200000, 200000, 2, 30, 0.0, 11);
  const auto vs = skewed.values<double>(), ve = even.values<double>();
  const auto ss = gpumat::auto_sample(skewed.view(vs), AutoHints());
  const auto se = gpumat::auto_sample(even.view(ve), AutoHints());
  EXPECT_DOUBLE_EQ(se.long_share, 0.0);
  std::int64_t in_long = 0; // the matrix's own share, for the sampled one to be close to
  for (index_t r = 0; r < skewed.nrows; ++r) {
    const index_t l = skewed.rowptr[r + 1] - skewed.rowptr[r];
    in_long += l > 32 ? l : 0;
  }
  const double exact = double(in_long) / double(skewed.rowptr[skewed.nrows]);
  ASSERT_GT(exact, 0.2);
  EXPECT_NEAR(ss.long_share, exact, 0.25 * exact);

  // doubling the long part's g moves pjds's and bce's gather-bound predictions by the share, and
  // leaves the matrix without long rows alone
  AutoConstants c = gpumat::auto_shipped_constants(), c2 = c;
  for (const char *key : {"pjds:long", "bce:long"}) c2.fmt[key].g *= 2;
  auto pred = [](const matgen::Csr &M, const std::vector<double> &v, const AutoConstants &k, const char *cand) {
    const auto d = gpumat::auto_decide(M.view(v), AutoHints(), k, {cand});
    EXPECT_EQ(d.predictions.size(), 1u);
    return d.predictions.empty() ? gpumat::AutoPrediction() : d.predictions.front();
  };
  for (const char *cand : {"pjds", "bce"}) {
    EXPECT_EQ(pred(even, ve, c, cand).ms, pred(even, ve, c2, cand).ms) << cand;
    const auto a = pred(skewed, vs, c, cand), b = pred(skewed, vs, c2, cand);
    EXPECT_NE(a.detail.find("long part"), std::string::npos) << a.detail;
    // gather-bound: t - launch = g (B/bw + G) with g = (1 - s) g_rows + s g_long
    const double L = c.launch_us * 1e-3, s = ss.long_share, gr = c.of(cand).g, gl = c.of(std::string(cand) + ":long").g;
    if (a.gather_bound) EXPECT_NEAR((b.ms - L) / (a.ms - L), ((1 - s) * gr + 2 * s * gl) / ((1 - s) * gr + s * gl), 1e-9) << cand;
    else EXPECT_GE(b.ms, a.ms) << cand;
    EXPECT_TRUE(a.gather_bound) << cand << ": random columns of 200,000 rows should be gather-bound";
  }
}

TEST(GpuAuto, BccooHopsOfARowSpanningWorkGroups) {
  // bccoo's adjacent synchronization passes a row's partial sum from work group to work group: the
  // longest row's hops (its groups less one) at hop_us each are part of bccoo's prediction, and only
  // of bccoo's; a matrix without long rows has none
  std::vector<index_t> len(60000, 4);
  len[30000]          = 400000;
  const auto hub      = matgen::from_lengths("hub", 500000, len, 3);
  const auto even     = matgen::from_lengths("even", 500000, std::vector<index_t>(60000, 4), 3);
  const auto vh = hub.values<double>(), ve = even.values<double>();
  AutoConstants c = gpumat::auto_shipped_constants(), c2 = c;
  c2.hop_us += 1;
  auto hops = [](const gpumat::AutoPrediction &p) {
    const auto at = p.detail.find(" hops");
    EXPECT_NE(at, std::string::npos) << p.detail;
    if (at == std::string::npos) return -1.0;
    const auto from = p.detail.rfind(' ', at - 1) + 1;
    return std::stod(p.detail.substr(from, at - from));
  };
  for (const auto &[M, v] : {std::pair<const matgen::Csr *, const std::vector<double> *>{&hub, &vh}, {&even, &ve}}) {
    const auto a = gpumat::auto_decide(M->view(*v), AutoHints(), c, gpumat::auto_all_candidates());
    const auto b = gpumat::auto_decide(M->view(*v), AutoHints(), c2, gpumat::auto_all_candidates());
    ASSERT_EQ(a.predictions.size(), b.predictions.size());
    double n = -1;
    for (const auto &p : a.predictions) {
      const auto q = std::find_if(b.predictions.begin(), b.predictions.end(), [&](const auto &x) { return x.candidate == p.candidate; });
      ASSERT_NE(q, b.predictions.end());
      if (p.candidate != "bccoo") {
        EXPECT_EQ(p.ms, q->ms) << M->name << " " << p.candidate;
        continue;
      }
      n = hops(p);
      EXPECT_NEAR(q->ms - p.ms, n * 1e-3, 1e-12) << M->name << ": one more microsecond a hop";
    }
    if (M == &hub) EXPECT_GE(n, 1) << "a row of 400,000 entries spans several work groups";
    else EXPECT_EQ(n, 0) << "rows of 4 entries";
  }
}

TEST(GpuAuto, RegularStencilStaysRowOrdered) {
  // a 2D 5-point stencil of 2M rows: no padding in matrix order, so a row-per-thread ELL streams it
  // without a permutation; CSR walkers pay their per-row cost, bccoo's 1 x 1 blocks their flags
  const auto d = decide(matgen::stencil_2d(1500, 1500));
  EXPECT_TRUE(d.chosen == "pjds" || d.chosen == "cusparsesell") << d.chosen;
  EXPECT_EQ(d.predictions.back().candidate, "cusparsebsr"); // half-empty 2 x 2 blocks: the most bytes
}

// pjds's compressed layouts (its byte model and constants keys): a stencil's few values (4 and -1)
// predict the value table, a 3-unknowns FEM operator's wide rows (81 entries, 27 x 3 offsets a
// block) dictionary columns where its values are not tabled; coefficients repeating with period 293 (more values than the 8-bit
// table holds, each seen often in any sample: kPjdsTable16MinRepeat) a table of 16-bit codes
// (pjds:table16, pjds:dict+table16); coefficients that never repeat, or no values (the view of a
// device build, whose host values may be stale), no table, and on the stencil's rows of 5 positional
// columns (pjds:positional); the FEM operator's one value positional columns over the table
// (pjds:positional+table); each layout's bytes are those of its byte model.
TEST(GpuAuto, PjdsCompressedLayoutsPredicted) {
  // variable: 1 periodic (293 values), 2 every value distinct
  auto pjds_of = [](const matgen::Csr &M, int variable, bool values) {
    auto v = M.values<double>();
    if (variable)
      for (std::size_t k = 0; k < v.size(); ++k) v[k] = variable == 1 ? 1.0 + 1e-3 * double(k % 293) : 1.0 + 1e-9 * double(k);
    auto view = M.view(v);
    if (!values) view.val = nullptr;
    AutoHints h;
    const auto d = gpumat::auto_decide(view, h, gpumat::auto_shipped_constants("NVIDIA H200"), {"pjds"});
    EXPECT_EQ(d.predictions.size(), 1u);
    return std::make_pair(d.sample, d.predictions.empty() ? gpumat::AutoPrediction{} : d.predictions.front());
  };
  const matgen::Csr S = matgen::stencil_2d(600, 500), F = fem3(24);
  {
    const auto [s, p] = pjds_of(S, false, true);
    EXPECT_EQ(s.distinct_values, 2) << "4 and -1";
    EXPECT_DOUBLE_EQ(s.block_offsets(), 5) << "a 32-row block of a 5-point stencil, rows inside the grid's lines: offsets -600, -1, 0, 1, 600";
    EXPECT_EQ(p.key, "pjds:table") << p.detail << ": 5 entries a row are too few for dictionary columns";
    const auto [sv, pv] = pjds_of(S, 2, true);
    EXPECT_EQ(sv.distinct_values, sv.values_sampled) << "every value distinct";
    EXPECT_GT(sv.values_sampled, 4 * gpumat::kPjdsTableMax);
    // values stored as they are, rows of 5 in the matrix's order: the positional columns the build's
    // auto tries, 8 B a position (the block's 5 offsets a row) and 4 B an offset a block, no column
    // and no rowlen, against the table's 1 B a code and 4 B a column a stored entry and its 3 values
    EXPECT_EQ(pv.key, "pjds:positional") << pv.detail;
    const double n = S.nrows, nb = std::ceil(n / 32), stored = double(S.nnz()) * (1 + s.f.padding_sell);
    EXPECT_NEAR(pv.bytes - p.bytes, (8.0 * sv.block_offsets() * n + 4.0 * sv.block_offsets() * nb) - (5.0 * stored + 8.0 * 3), 1.0);
    const auto [s16, p16] = pjds_of(S, 1, true);
    EXPECT_GT(s16.distinct_values, gpumat::kPjdsTableMax);
    EXPECT_LE(s16.distinct_values, 293);
    EXPECT_EQ(p16.key, "pjds:table16") << p16.detail << ": a table, so no positional columns";
    // 2 B a stored entry instead of 1, and the table of the sampled values and the padding's
    EXPECT_NEAR(p16.bytes - p.bytes, stored + 8.0 * (s16.distinct_values + 1 - 3), 1.0);
    const auto [sn, pn] = pjds_of(S, 0, false);
    EXPECT_EQ(sn.distinct_values, -1) << "no values: none counted";
    EXPECT_EQ(pn.key, "pjds:positional") << pn.detail << ": no table predicted without values";
  }
  {
    const auto [s, p] = pjds_of(F, 0, true);
    EXPECT_EQ(s.distinct_values, 1);
    EXPECT_GT(s.block_offsets(), 27);
    EXPECT_LE(s.block_offsets_max, 256) << "a dictionary holds 256 offsets";
    // one value on rows of 81: positional columns over the 8-bit table, from the first row of each
    // node's 3 (a row alone sees its neighbours' offsets shifted by its dof), as the build takes them
    EXPECT_LT(s.group_offsets[2], s.block_offsets()) << "a node's rows share their offsets";
    EXPECT_EQ(p.key, "pjds:positional+table") << p.detail;
    {
      const auto            v = F.values<double>();
      gpumat::PjdsParams   q;
      q.sigma = 1; // the matrix's order, as predicted (3 % padding)
      gpumat::Pjds<double> B;
      gpumat::pjds_build(F.view(v), gpumat::pjds_resolve(q), B);
      EXPECT_TRUE(B.positional() && B.tabled()) << "the build's auto";
      EXPECT_EQ(B.pgroup, 3);
    }
    const auto [sv, pv] = pjds_of(F, 2, true);
    EXPECT_EQ(pv.key, "pjds:dict") << pv.detail;
    EXPECT_LT(p.bytes, pv.bytes);
    const auto [s16, p16] = pjds_of(F, 1, true);
    EXPECT_EQ(p16.key, "pjds:dict+table16") << p16.detail;
    EXPECT_LT(p16.bytes, pv.bytes);
    const auto [sp, pp] = pjds_of(F, 2, true);
    (void)sp;
    EXPECT_EQ(pp.bytes, pv.bytes) << "deterministic";
  }
}

// fp32 storage is predicted only when asked (AutoHints::fp32, -mat_gpumat_values fp32), for pjds
// only and where no value table applies: 4 B less a stored value (with positional columns on short
// rows, dictionary columns on wide ones); the other candidates as before.
TEST(GpuAuto, PjdsFp32PredictedOnlyWhenAsked) {
  const matgen::Csr S = matgen::stencil_2d(600, 500);
  auto              v = S.values<double>();
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = 1.0 + 1e-9 * double(k); // no value repeats: no table
  const auto c = gpumat::auto_shipped_constants("NVIDIA H200");
  AutoHints  h;
  const auto d64 = gpumat::auto_decide(S.view(v), h, c, gpumat::auto_all_candidates());
  h.fp32         = true;
  const auto d32 = gpumat::auto_decide(S.view(v), h, c, gpumat::auto_all_candidates());
  const auto &p64 = prediction_of(d64, "pjds"), &p32 = prediction_of(d32, "pjds");
  // values without a table on rows of 5: positional columns, 8 B a position with fp64 values, 4 B
  // with fp32 storage (and 4 B an offset a block either way)
  EXPECT_EQ(p64.key, "pjds:positional") << p64.detail;
  EXPECT_EQ(p32.key, "pjds:positional+fp32") << p32.detail;
  const double n = S.nrows, bo = d64.sample.block_offsets();
  EXPECT_NEAR(p64.bytes - p32.bytes, 4.0 * bo * n, 1.0);
  // on wide rows (a 3-unknowns FEM operator, 81 entries) fp32 values with dictionary columns
  const matgen::Csr F  = fem3(12);
  auto              fv = F.values<double>();
  for (std::size_t k = 0; k < fv.size(); ++k) fv[k] = 1.0 + 1e-9 * double(k);
  EXPECT_EQ(gpumat::auto_decide(F.view(fv), h, c, {"pjds"}).predictions.front().key, "pjds:dict+fp32");
  for (const auto &p : d64.predictions)
    if (p.candidate != "pjds") {
      EXPECT_EQ(p.bytes, prediction_of(d32, p.candidate).bytes) << p.candidate;
    }
  const auto w  = S.values<double>(); // 4 and -1: the table, lossless, wins
  const auto dt = gpumat::auto_decide(S.view(w), h, c, {"pjds"});
  EXPECT_EQ(dt.predictions.front().key, "pjds:table");
}

TEST(GpuAuto, FilledThreeByThreeBlocksGoToBlockFormats) {
  // dense 3 x 3 blocks, block size 3 known: BSR or bccoo's blocks store fewer bytes than any
  // row-wise format
  const auto d = decide(matgen::dense_blocks(300000, 3, 9, 5), gpumat::auto_all_candidates(), 3);
  EXPECT_TRUE(d.chosen == "cusparsebsr" || d.chosen == "bccoo") << d.chosen;
}

TEST(GpuAuto, BuildCountsOverTheHorizon) {
  // the 3-unknowns FEM operator of 192,000 rows and 11 M nonzeros that an H200 solved with CG +
  // Jacobi in 107 products: BSR's 3 x 3 blocks are predicted the fastest product, but its build
  // (cuSPARSE's csr2bsr after the upload) is predicted 5x the others', which the default horizon
  // does not pay back; with the product alone (horizon 0) BSR comes back, and with a horizon long
  // enough for its product's gain to outweigh its build
  const auto M = fem3(40);
  auto       v = M.values<double>();
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = 1.0 + 1e-9 * double(k); // variable coefficients, none repeating: no value table
  AutoHints  h;
  h.block_size = 3;
  EXPECT_EQ(h.horizon, double(gpumat::kAutoHorizon));
  const AutoConstants c  = gpumat::auto_shipped_constants("NVIDIA H200");
  const auto          d  = gpumat::auto_decide(M.view(v), h, c, gpumat::auto_all_candidates());
  h.horizon              = 0;
  const auto          d0 = gpumat::auto_decide(M.view(v), h, c, gpumat::auto_all_candidates());
  h.horizon              = 1e9;
  const auto          dl = gpumat::auto_decide(M.view(v), h, c, gpumat::auto_all_candidates());
  ASSERT_EQ(d.predictions.size(), gpumat::auto_all_candidates().size());
  ASSERT_EQ(d0.predictions.size(), d.predictions.size());

  // the product alone: BSR, the least product time, as before the build was counted
  EXPECT_EQ(d0.chosen, "cusparsebsr");
  EXPECT_EQ(d0.horizon, 0);
  for (const auto &p : d0.predictions) {
    EXPECT_EQ(p.cost_ms, p.ms) << p.candidate;
    EXPECT_GE(p.ms, prediction_of(d0, "cusparsebsr").ms) << p.candidate;
  }
  // the default horizon: BSR's build outweighs its gain over 1000 products
  EXPECT_EQ(d.horizon, double(gpumat::kAutoHorizon));
  EXPECT_NE(d.chosen, "cusparsebsr");
  const auto &bsr = prediction_of(d, "cusparsebsr"), &chosen = prediction_of(d, d.chosen);
  EXPECT_LT(bsr.ms, chosen.ms);
  EXPECT_GT(bsr.build_ms - chosen.build_ms, double(gpumat::kAutoHorizon) * (chosen.ms - bsr.ms));
  EXPECT_GT(bsr.build_ms, 3 * chosen.build_ms);
  // a horizon of 10^9 products: BSR again
  EXPECT_EQ(dl.chosen, "cusparsebsr");
  // the horizon changes the ranking only: every candidate's product and build predictions stay
  for (const auto &p : d.predictions) {
    EXPECT_EQ(p.ms, prediction_of(d0, p.candidate).ms) << p.candidate;
    EXPECT_EQ(p.ms, prediction_of(dl, p.candidate).ms) << p.candidate;
    EXPECT_EQ(p.build_ms, prediction_of(d0, p.candidate).build_ms) << p.candidate;
    EXPECT_DOUBLE_EQ(p.cost_ms, p.build_ms + 1000 * p.ms) << p.candidate;
  }
}

TEST(GpuAuto, BuildPredictionIsTheBuildConstants) {
  // b = build_us + build_ns_nnz z + build_ns_row n, each candidate's own (the format's name for every
  // variant: BSR's block sizes share one); a candidate without build constants predicts none
  const auto  M = matgen::stencil_2d(300, 300);
  const auto  v = M.values<double>();
  const double z = double(M.rowptr[M.nrows]), n = double(M.nrows);
  AutoConstants c = gpumat::auto_shipped_constants();
  c.build["pjds"] = {2.0, 10.0, 500.0};
  c.build.erase("bce");
  AutoHints h;
  h.horizon    = 0;
  const auto d = gpumat::auto_decide(M.view(v), h, c, {"pjds", "bce", "cusparsebsr"});
  EXPECT_DOUBLE_EQ(prediction_of(d, "pjds").build_ms, 0.5 + (2.0 * z + 10.0 * n) * 1e-6);
  EXPECT_EQ(prediction_of(d, "bce").build_ms, 0);
  const auto &b = c.build_of("cusparsebsr");
  EXPECT_DOUBLE_EQ(prediction_of(d, "cusparsebsr").build_ms, b.us * 1e-3 + (b.ns_nnz * z + b.ns_row * n) * 1e-6);
  EXPECT_EQ(c.build_of("cusparsebsr:2").us, 0); // a variant has none of its own
}

TEST(GpuAuto, CandidatesRestrictTheChoice) {
  const auto M = matgen::stencil_2d(300, 300);
  const auto d = decide(M, {"csrspec", "bce", "no-such-format"});
  ASSERT_EQ(d.predictions.size(), 2u);
  EXPECT_TRUE(d.chosen == "csrspec" || d.chosen == "bce");
  EXPECT_TRUE(decide(M, {}).predictions.empty());
}

TEST(GpuAuto, ConstantsRoundTrip) {
  AutoConstants c = gpumat::auto_shipped_constants();
  c.name          = "test GPU";
  c.bw_gbs        = 4321;
  c.fmt["pjds"].g = 1.25;
  c.build["cusparsebsr"] = {3.5, 40.25, 12000};
  c.build["pjds"].us     = 0; // 0: a cost that may be none
  const std::string p = ::testing::TempDir() + "gpuauto-roundtrip.txt";
  std::string       err;
  ASSERT_TRUE(gpumat::auto_write_constants(p, c, err)) << err;
  {
    std::ifstream     in(p);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const char *line : {"\ncusparsebsr.build_ns_nnz 3.5\n", "\ncusparsebsr.build_ns_row 40.25\n", "\ncusparsebsr.build_us 12000\n", "\npjds.build_us 0\n"}) EXPECT_NE(text.find(line), std::string::npos) << line;
  }
  AutoConstants r;
  r.build.clear();
  ASSERT_TRUE(gpumat::auto_read_constants(p, r, err)) << err;
  EXPECT_EQ(r.name, "test GPU");
  EXPECT_DOUBLE_EQ(r.bw_gbs, 4321);
  EXPECT_DOUBLE_EQ(r.fmt["pjds"].g, 1.25);
  ASSERT_EQ(r.build.size(), c.build.size());
  for (const auto &[k, b] : c.build) {
    EXPECT_DOUBLE_EQ(r.build_of(k).ns_nnz, b.ns_nnz) << k;
    EXPECT_DOUBLE_EQ(r.build_of(k).ns_row, b.ns_row) << k;
    EXPECT_DOUBLE_EQ(r.build_of(k).us, b.us) << k;
  }
  // a file of one build key changes that one and keeps the rest
  AutoConstants one = c;
  ASSERT_TRUE(gpumat::auto_read_constants(temp_file("gpuauto-one-build.txt", "bce.build_ns_row 7.5\n"), one, err)) << err;
  EXPECT_DOUBLE_EQ(one.build_of("bce").ns_row, 7.5);
  EXPECT_DOUBLE_EQ(one.build_of("bce").ns_nnz, c.build_of("bce").ns_nnz);
  EXPECT_DOUBLE_EQ(one.build_of("cusparsebsr").us, 12000);
  EXPECT_DOUBLE_EQ(r.of("cusparsebsr:3").k, c.of("cusparsebsr:3").k);
  EXPECT_DOUBLE_EQ(r.of("cusparsebsr:7").k, c.of("cusparsebsr").k); // a size without its line: the format's
}

TEST(GpuAuto, BadConstantsFilesAreRefusedWithTheLine) {
  const AutoConstants ship = gpumat::auto_shipped_constants();
  struct {
    const char *text, *expect;
  } bad[] = {
    {"bw_gbs 3000\nfrobnicate 2\n", "line 2: unknown key 'frobnicate'"},
    {"bw_gbs -5\n", "line 1: 'bw_gbs' needs one positive finite number"},
    {"launch_us nan\n", "line 1: 'launch_us' needs one positive finite number"},
    {"pjds.q 1\n", "unknown field 'q'"},
    {"nosuch.k 1\n", "unknown key 'nosuch.k'"},
    {"bw_gbs 3000 4000\n", "'bw_gbs' needs one positive finite number"},
    {"l2x_share 2\n", "l2x_share must be at most 1"},
    {"pjds.build_ns_nnz -1.5\n", "line 1: 'pjds.build_ns_nnz' needs one finite number, 0 or more"},
    {"bw_gbs 3000\ncusparsebsr.build_us inf\n", "line 2: 'cusparsebsr.build_us' needs one finite number, 0 or more"},
    {"bce.build_ns_row\n", "'bce.build_ns_row' needs one finite number, 0 or more"},
    {"cusparsebsr:3.build_us 100\n", "'cusparsebsr:3.build_us': build constants are a candidate's, not a variant's ('cusparsebsr.build_us')"},
    {"nosuch.build_us 100\n", "unknown key 'nosuch.build_us'"},
    {"pjds.build_ms 1\n", "unknown field 'build_ms'"},
  };
  int i = 0;
  for (const auto &b : bad) {
    const std::string p = temp_file("gpuauto-bad" + std::to_string(i++) + ".txt", b.text);
    AutoConstants     c = ship;
    std::string       err;
    EXPECT_FALSE(gpumat::auto_read_constants(p, c, err)) << b.text;
    EXPECT_NE(err.find(b.expect), std::string::npos) << err;
    EXPECT_DOUBLE_EQ(c.bw_gbs, ship.bw_gbs); // unchanged
    EXPECT_DOUBLE_EQ(c.build_of("pjds").ns_nnz, ship.build_of("pjds").ns_nnz);
    EXPECT_DOUBLE_EQ(c.build_of("cusparsebsr").us, ship.build_of("cusparsebsr").us);
  }
  AutoConstants c;
  std::string   err;
  EXPECT_FALSE(gpumat::auto_read_constants(::testing::TempDir() + "no-such-dir/none.txt", c, err));
  EXPECT_NE(err.find("cannot read"), std::string::npos) << err;
  // comments, blank lines and a zero per-row cost are fine
  const std::string ok = temp_file("gpuauto-ok.txt", "# c\n\nname my GPU  \nbce.r_ps 0   # none\n");
  ASSERT_TRUE(gpumat::auto_read_constants(ok, c, err)) << err;
  EXPECT_EQ(c.name, "my GPU");
  EXPECT_DOUBLE_EQ(c.fmt["bce"].r_ps, 0);
}

TEST(GpuAuto, ShippedConstantsFilesAreTheLibrarys) {
  // conf/gpuauto/h100.txt and h200.txt (bench/calibrate.py's bases, templates for
  // -mat_gpuauto_constants) hold exactly auto_shipped_constants() for those GPUs
  for (const auto &[file, gpu] : {std::pair<std::string, std::string>{"h100.txt", "NVIDIA H100 80GB HBM3"}, {"h200.txt", "NVIDIA H200"}}) {
    AutoConstants       f;
    std::string         err;
    const AutoConstants c = gpumat::auto_shipped_constants(gpu);
    f.fmt.clear();
    f.build.clear();
    ASSERT_TRUE(gpumat::auto_read_constants(std::string(GPUMAT_SHIPPED_CONSTANTS_DIR) + "/" + file, f, err)) << err;
    EXPECT_EQ(f.name, c.name) << file;
    EXPECT_DOUBLE_EQ(f.bw_gbs, c.bw_gbs) << file;
    EXPECT_DOUBLE_EQ(f.launch_us, c.launch_us) << file;
    EXPECT_DOUBLE_EQ(f.l2_bytes, c.l2_bytes) << file;
    EXPECT_DOUBLE_EQ(f.l2x_share, c.l2x_share) << file;
    EXPECT_DOUBLE_EQ(f.l2_request_ps, c.l2_request_ps) << file;
    EXPECT_DOUBLE_EQ(f.dram_sector_ps, c.dram_sector_ps) << file;
    EXPECT_DOUBLE_EQ(f.y_scatter_bytes, c.y_scatter_bytes) << file;
    EXPECT_DOUBLE_EQ(f.hop_us, c.hop_us) << file;
    ASSERT_EQ(f.fmt.size(), c.fmt.size()) << file;
    for (const auto &[k, v] : c.fmt) {
      EXPECT_DOUBLE_EQ(f.fmt[k].k, v.k) << file << " " << k;
      EXPECT_DOUBLE_EQ(f.fmt[k].r_ps, v.r_ps) << file << " " << k;
      EXPECT_DOUBLE_EQ(f.fmt[k].g, v.g) << file << " " << k;
    }
    ASSERT_EQ(f.build.size(), c.build.size()) << file;
    ASSERT_EQ(c.build.size(), gpumat::auto_all_candidates().size()) << "every candidate ships a build model";
    for (const auto &[k, b] : c.build) {
      EXPECT_DOUBLE_EQ(f.build[k].ns_nnz, b.ns_nnz) << file << " " << k;
      EXPECT_DOUBLE_EQ(f.build[k].ns_row, b.ns_row) << file << " " << k;
      EXPECT_DOUBLE_EQ(f.build[k].us, b.us) << file << " " << k;
    }
  }
  EXPECT_EQ(gpumat::auto_shipped_constants().name, gpumat::auto_shipped_constants("NVIDIA H100 PCIe").name); // other GPUs: the H100's
}

// A small block becomes csrspec without a prediction, where csrspec is a candidate.
TEST(GpuAuto, SmallBlockIsCsrspec) {
  const auto all = gpumat::auto_all_candidates();
  EXPECT_EQ(gpumat::auto_small_choice(1000, gpumat::kAutoSmallNnz, all), "csrspec");
  EXPECT_EQ(gpumat::auto_small_choice(gpumat::kAutoSmallNnz - 1, gpumat::kAutoSmallNnz, all), "csrspec");
  EXPECT_EQ(gpumat::auto_small_choice(gpumat::kAutoSmallNnz, gpumat::kAutoSmallNnz, all), "");
  EXPECT_EQ(gpumat::auto_small_choice(0, 0, all), ""); // 0: every block predicted
  EXPECT_EQ(gpumat::auto_small_choice(1000, gpumat::kAutoSmallNnz, {"pjds", "bccoo"}), "");
}
