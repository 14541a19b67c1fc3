// bccoo's auto-tuner, host side (src/core/bccoo_tune.hpp), with fake timing callbacks: the pruned
// block shapes (the 4 smallest footprints, the user's height or width kept), the coordinate-wise
// search (its stages, its candidate counts, no candidate timed twice, the model's choice first and
// always timed), the optimum of a separable cost found, the user's fixed parameters never searched,
// candidates that cannot be built skipped, every candidate failing, an aborted search; the cache
// values (round trip through the disk cache, other fixed parameters, malformed and contradicting
// entries); and a search whose candidates are real host builds.
#include "core/bccoo_tune.hpp"
#include "core/tuning_cache.hpp"
#include "bccoo_params.hpp"
#include "matgen.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include <unistd.h>

namespace fs = std::filesystem;
using gpumat::BccooCached;
using gpumat::BccooChoice;
using gpumat::BccooParams;
using gpumat::BccooTiming;
using gpumat::BccooTuneResult;
using gpumat_test::bp;
using gpumat_test::describe;

namespace {

std::tuple<int, int, int, int, int, int> key(const BccooParams &p) { return {p.h, p.w, p.slices, p.tile, p.group, p.compress_col}; }
bool same(const BccooParams &a, const BccooParams &b) { return key(a) == key(b); }

// A 3-dof FEM-like matrix: 3 x 3 dense blocks on a 7-point band of block columns (3 x 1 blocks
// store it without fill).
matgen::Csr fem3(gpumat::index_t nb) {
  matgen::Csr M;
  M.name  = "fem3";
  M.nrows = M.ncols = 3 * nb;
  for (gpumat::index_t r = 0; r < M.nrows; ++r) {
    const gpumat::index_t b = r / 3;
    for (gpumat::index_t n : {b - 9, b - 3, b - 1, b, b + 1, b + 3, b + 9})
      if (n >= 0 && n < nb)
        for (gpumat::index_t j = 0; j < 3; ++j) M.colidx.push_back(3 * n + j);
    M.rowptr.push_back(gpumat::index_t(M.colidx.size()));
  }
  M.val.assign(M.colidx.size(), 1.0);
  return M;
}

BccooChoice model_of(const matgen::Csr &M, const BccooParams &user) {
  const std::vector<double> v = M.values<double>();
  return gpumat::bccoo_model(M.view(v), user, 1);
}

BccooParams nothing_fixed() { return BccooParams{}; }

// A product time that is a sum of one term per parameter: the coordinate-wise search finds its
// minimum over the pruned space. Its optimum: the shape `best_shape`, compression off, tile 40,
// group 128, 4 slices.
struct Separable {
  int best_h, best_w;
  double operator()(const BccooParams &p) const {
    double ms = 1.0;
    ms += (p.h == best_h && p.w == best_w) ? 0.0 : 0.3 + 0.01 * p.h + 0.001 * p.w;
    ms += p.compress_col ? 0.05 : 0.0;
    ms += 0.001 * std::abs(p.tile - 40);
    ms += 0.0001 * std::abs(p.group - 128);
    ms += 0.002 * std::abs(p.slices - 4);
    return ms;
  }
};

TEST(BccooTuneShapes, TheFourSmallestFootprints) {
  const matgen::Csr  M  = fem3(400);
  const BccooChoice  ch = model_of(M, nothing_fixed());
  const auto         s  = gpumat::bccoo_tune_shapes(ch, nothing_fixed());
  ASSERT_EQ(s.size(), 4u);
  for (std::size_t i = 0; i < s.size(); ++i) {
    EXPECT_EQ(s[i].h, ch.shapes[i].h) << i;
    EXPECT_EQ(s[i].w, ch.shapes[i].w) << i;
  }
  EXPECT_EQ(s[0].h, ch.p.h); // the model's shape first
  EXPECT_EQ(s[0].w, ch.p.w);
  for (std::size_t i = 4; i < ch.shapes.size(); ++i) EXPECT_GE(ch.shapes[i].bytes, s[3].bytes); // pruned: no smaller one left out
}

TEST(BccooTuneShapes, TheUsersHeightOrWidthKept) {
  const matgen::Csr M = fem3(400);
  for (const BccooParams &user : {bp(2, 0, 0, 0, 0, -1), bp(0, 4, 0, 0, 0, -1), bp(3, 2, 0, 0, 0, -1)}) {
    const BccooChoice ch = model_of(M, user);
    const auto        s  = gpumat::bccoo_tune_shapes(ch, user);
    const std::size_t n  = user.h && user.w ? 1u : user.h ? 3u : 4u; // heights 1..4 for a width, widths 1, 2, 4 for a height
    EXPECT_EQ(s.size(), n) << describe(user);
    EXPECT_EQ(s[0].h, ch.p.h);
    EXPECT_EQ(s[0].w, ch.p.w);
    std::set<std::pair<int, int>> seen;
    for (const auto &x : s) {
      if (user.h) {
        EXPECT_EQ(x.h, user.h) << describe(user);
      }
      if (user.w) {
        EXPECT_EQ(x.w, user.w) << describe(user);
      }
      EXPECT_TRUE(seen.insert({x.h, x.w}).second) << "shape twice";
    }
  }
}

TEST(BccooTune, StagesCountsAndNoCandidateTwice) {
  const matgen::Csr M  = fem3(400);
  const BccooChoice ch = model_of(M, nothing_fixed());
  int               calls = 0;
  std::set<std::tuple<int, int, int, int, int, int>> seen;
  const BccooTuneResult r = gpumat::bccoo_tune(ch, nothing_fixed(), [&](const BccooParams &p) {
    ++calls;
    EXPECT_TRUE(seen.insert(key(p)).second) << "timed twice: " << describe(p);
    EXPECT_NO_THROW(gpumat::bccoo_resolve(p));
    BccooTiming t;
    t.ms = Separable{ch.shapes[1].h, ch.shapes[1].w}(p);
    return t;
  });
  ASSERT_TRUE(r.ok()) << r.failure();
  // stage 1: 4 shapes x 2 compressions; stage 2: 8 tiles x 4 groups, the stage-1 winner's pair
  // seen; stage 3: 6 slices, its 1 seen
  EXPECT_EQ(calls, 8 + 31 + 5);
  EXPECT_EQ(r.timed, calls);
  EXPECT_EQ(r.skipped, 0);
  ASSERT_EQ(r.trials.size(), std::size_t(calls));
  EXPECT_TRUE(same(r.trials[0].p, ch.p)) << "the model's choice is timed first";
  int per_stage[4] = {0, 0, 0, 0};
  for (const auto &t : r.trials) per_stage[t.stage]++;
  EXPECT_EQ(per_stage[1], 8);
  EXPECT_EQ(per_stage[2], 31);
  EXPECT_EQ(per_stage[3], 5);
  // stage 1 keeps the model's tile, group and slices; stage 3 varies only the slices of stage 2's winner
  for (const auto &t : r.trials) {
    if (t.stage == 1) {
      EXPECT_EQ(t.p.tile, ch.p.tile);
      EXPECT_EQ(t.p.group, ch.p.group);
      EXPECT_EQ(t.p.slices, ch.p.slices);
    }
    if (t.stage == 3) {
      EXPECT_EQ(t.p.tile, 40);
      EXPECT_EQ(t.p.group, 128);
    }
  }
  EXPECT_GE(r.seconds, 0.0);
}

TEST(BccooTune, FindsTheOptimumOfASeparableCost) {
  const matgen::Csr M  = fem3(400);
  const BccooChoice ch = model_of(M, nothing_fixed());
  for (std::size_t k = 0; k < 4; ++k) { // the optimum's shape: each of the 4 searched ones
    const Separable f{ch.shapes[k].h, ch.shapes[k].w};
    const auto      r = gpumat::bccoo_tune(ch, nothing_fixed(), [&](const BccooParams &p) {
      BccooTiming t;
      t.ms = f(p);
      return t;
    });
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(same(r.best, bp(f.best_h, f.best_w, 4, 40, 128, 0))) << describe(r.best);
    EXPECT_DOUBLE_EQ(r.best_ms, f(r.best));
    EXPECT_DOUBLE_EQ(r.model_ms, f(ch.p)); // the model's time next to the winner's
    EXPECT_TRUE(same(r.model, ch.p));
  }
}

TEST(BccooTune, ATieKeepsTheModelsChoice) {
  const matgen::Csr M  = fem3(100);
  const BccooChoice ch = model_of(M, nothing_fixed());
  const auto        r  = gpumat::bccoo_tune(ch, nothing_fixed(), [](const BccooParams &) { return BccooTiming{BccooTiming::Ok, 0.5, ""}; });
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(same(r.best, ch.p)) << describe(r.best);
  EXPECT_EQ(r.best_ms, r.model_ms);
}

TEST(BccooTune, FixedParametersAreNotSearched) {
  const matgen::Csr M = fem3(400);
  struct Want {
    BccooParams user;
    int         calls;
  };
  // w fixed: 4 heights x 2 compressions, then 8 tiles (group fixed, one pair seen), slices fixed
  // height, width, compression fixed: 1 shape, then 8 x 4 tiles and groups (one seen), 6 slices (one seen)
  // everything fixed: the model's choice, which is the user's, alone
  for (const Want &want : {Want{bp(0, 2, 4, 0, 128, -1), 8 + 7}, Want{bp(3, 1, 0, 0, 0, 0), 1 + 31 + 5}, Want{bp(2, 2, 8, 24, 64, 1), 1}}) {
    const BccooParams &user = want.user;
    const BccooChoice  ch   = model_of(M, user);
    const auto         r    = gpumat::bccoo_tune(ch, user, [&](const BccooParams &p) {
      if (user.h) {
        EXPECT_EQ(p.h, user.h);
      }
      if (user.w) {
        EXPECT_EQ(p.w, user.w);
      }
      if (user.slices) {
        EXPECT_EQ(p.slices, user.slices);
      }
      if (user.tile) {
        EXPECT_EQ(p.tile, user.tile);
      }
      if (user.group) {
        EXPECT_EQ(p.group, user.group);
      }
      if (user.compress_col >= 0) {
        EXPECT_EQ(p.compress_col, user.compress_col);
      }
      return BccooTiming{BccooTiming::Ok, Separable{1, 1}(p), ""};
    });
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.timed, want.calls) << describe(user);
  }
}

TEST(BccooTune, CandidatesThatCannotBeBuiltAreSkipped) {
  const matgen::Csr M  = fem3(400);
  const BccooChoice ch = model_of(M, nothing_fixed());
  const Separable   f{ch.shapes[2].h, ch.shapes[2].w};
  // the model's own choice, every group of 512 and the optimum's 4 slices fail
  auto fails = [&](const BccooParams &p) { return same(p, ch.p) || p.group == 512 || p.slices == 4; };
  const auto r = gpumat::bccoo_tune(ch, nothing_fixed(), [&](const BccooParams &p) {
    if (fails(p)) return BccooTiming{BccooTiming::Skip, 0, "out of memory"};
    return BccooTiming{BccooTiming::Ok, f(p), ""};
  });
  ASSERT_TRUE(r.ok()) << r.failure();
  EXPECT_FALSE(fails(r.best));
  EXPECT_TRUE(std::isnan(r.model_ms));
  int skipped = 0;
  for (const auto &t : r.trials) skipped += t.t.status == BccooTiming::Skip;
  EXPECT_EQ(r.skipped, skipped);
  EXPECT_EQ(r.timed + r.skipped, int(r.trials.size()));
  EXPECT_GT(skipped, 8);
  EXPECT_EQ(r.best.group, 128);
  EXPECT_EQ(r.best.tile, 40);
  EXPECT_TRUE(r.best.slices == 2 || r.best.slices == 8) << r.best.slices; // next to the failing 4
}

TEST(BccooTune, EveryCandidateFailing) {
  const matgen::Csr M  = fem3(100);
  const BccooChoice ch = model_of(M, nothing_fixed());
  const auto        r  = gpumat::bccoo_tune(ch, nothing_fixed(), [](const BccooParams &) { return BccooTiming{BccooTiming::Skip, 0, "too many segments"}; });
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(r.aborted);
  EXPECT_EQ(r.timed, 0);
  EXPECT_EQ(r.skipped, int(r.trials.size()));
  EXPECT_GT(r.skipped, 8); // every stage ran, from the model's choice
  EXPECT_NE(r.failure().find("every candidate failed"), std::string::npos) << r.failure();
  EXPECT_NE(r.failure().find("too many segments"), std::string::npos) << r.failure();
  EXPECT_TRUE(same(r.best, ch.p));
}

TEST(BccooTune, AnAbortStopsTheSearch) {
  const matgen::Csr M     = fem3(100);
  const BccooChoice ch    = model_of(M, nothing_fixed());
  int               calls = 0;
  const auto        r     = gpumat::bccoo_tune(ch, nothing_fixed(), [&](const BccooParams &) {
    if (++calls == 5) return BccooTiming{BccooTiming::Abort, 0, "cudaErrorIllegalAddress"};
    return BccooTiming{BccooTiming::Ok, 1.0, ""};
  });
  EXPECT_EQ(calls, 5);
  EXPECT_TRUE(r.aborted);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.trials.size(), 5u);
  EXPECT_NE(r.failure().find("cudaErrorIllegalAddress"), std::string::npos) << r.failure();
}

// A search over real host builds, timed by a deterministic stand-in (the bytes a product reads):
// the winner is the candidate that reads the fewest, and its product is right.
TEST(BccooTune, RealBuildsWithAStandInTime) {
  const matgen::Csr         M = fem3(3000); // large enough that padding to whole groups does not decide
  const std::vector<double> v = M.values<double>();
  const BccooChoice         ch = model_of(M, nothing_fixed());
  std::map<std::tuple<int, int, int, int, int, int>, double> bytes;
  const auto r = gpumat::bccoo_tune(ch, nothing_fixed(), [&](const BccooParams &p) {
    gpumat::Bccoo<double> B;
    gpumat::bccoo_build(M.view(v), p, B);
    BccooTiming t;
    t.ms = 1e-6 * double(B.bytes());
    bytes[key(p)] = t.ms;
    return t;
  });
  ASSERT_TRUE(r.ok());
  double fewest = 1e300;
  for (const auto &b : bytes) fewest = std::min(fewest, b.second);
  EXPECT_EQ(r.best_ms, fewest);
  EXPECT_EQ(r.best.h, 3); // full 3 x w blocks beat every other shape on bytes
  gpumat::Bccoo<double> B;
  gpumat::bccoo_build(M.view(v), r.best, B);
  const std::vector<double> x = matgen::random_vector<double>(std::size_t(M.ncols), 9);
  std::vector<double>       y(std::size_t(M.nrows));
  std::vector<long double>  ref, scale;
  gpumat::bccoo_apply(B, gpumat::Op::NoTrans, x.data(), static_cast<const double *>(nullptr), y.data());
  matgen::reference(M, v, false, x.data(), static_cast<const double *>(nullptr), ref, scale);
  EXPECT_EQ(matgen::mismatch(y, ref, scale, 1e-12), "");
}

// ---- the decision as cache values -------------------------------------------------------------

BccooTuneResult a_result(const BccooParams &user) {
  const matgen::Csr M  = fem3(200);
  const BccooChoice ch = model_of(M, user);
  return gpumat::bccoo_tune(ch, user, [](const BccooParams &p) { return BccooTiming{BccooTiming::Ok, Separable{3, 2}(p), ""}; });
}

TEST(BccooTuneValues, RoundTripThroughTheDiskCache) {
  std::string tmpl = (fs::temp_directory_path() / "gpumat-bccoo-tune-XXXXXX").string();
  ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
  for (const BccooParams &user : {nothing_fixed(), bp(0, 2, 0, 16, 0, -1), bp(3, 0, 4, 0, 256, 0)}) {
    const BccooTuneResult r   = a_result(user);
    const matgen::Csr     M   = fem3(200);
    const auto            key = gpumat::TuningKey::For(M.view(M.values<double>()), "NVIDIA H100 80GB HBM3 cc9.0 132sm", "bccoo", 1);
    const gpumat::TuningCache cache(tmpl);
    ASSERT_TRUE(cache.Store(key, gpumat::bccoo_tune_values(r, user)).ok);
    const auto hit = cache.Lookup(key);
    ASSERT_EQ(hit.status, gpumat::TuningStatus::Hit) << hit.message;
    for (const char *name : {"h", "w", "slices", "tile", "group", "compress_col"}) EXPECT_TRUE(hit.values->count(name)) << name;
    BccooTuneResult back;
    std::string     why;
    ASSERT_EQ(gpumat::bccoo_tune_from_values(*hit.values, user, &back, &why), BccooCached::Use) << why;
    EXPECT_TRUE(same(back.best, r.best)) << describe(back.best);
    EXPECT_TRUE(same(back.model, r.model)) << describe(back.model);
    EXPECT_EQ(back.best_ms, r.best_ms);
    EXPECT_EQ(back.model_ms, r.model_ms);
    EXPECT_EQ(back.timed, r.timed);
    EXPECT_EQ(back.skipped, r.skipped);
    EXPECT_NEAR(back.seconds, r.seconds, 1e-12 + 1e-12 * r.seconds);
    EXPECT_TRUE(back.trials.empty());
  }
  std::error_code ec;
  fs::remove_all(tmpl, ec);
}

TEST(BccooTuneValues, AModelThatCouldNotBeBuilt) {
  BccooTuneResult r = a_result(nothing_fixed());
  r.model_ms        = std::nan("");
  BccooTuneResult back;
  std::string     why;
  ASSERT_EQ(gpumat::bccoo_tune_from_values(gpumat::bccoo_tune_values(r, nothing_fixed()), nothing_fixed(), &back, &why), BccooCached::Use) << why;
  EXPECT_TRUE(std::isnan(back.model_ms));
}

TEST(BccooTuneValues, OtherFixedParameters) {
  const BccooParams     user = bp(0, 2, 0, 0, 0, -1);
  const gpumat::TuningValues v = gpumat::bccoo_tune_values(a_result(user), user);
  BccooTuneResult       back;
  std::string           why;
  for (const BccooParams &now : {nothing_fixed(), bp(0, 2, 0, 0, 0, 1), bp(0, 2, 2, 0, 0, -1), bp(1, 2, 0, 0, 0, -1)}) {
    EXPECT_EQ(gpumat::bccoo_tune_from_values(v, now, &back, &why), BccooCached::OtherFixed) << describe(now);
    EXPECT_NE(why.find("other fixed parameters"), std::string::npos) << why;
  }
}

TEST(BccooTuneValues, MalformedEntriesAreInvalid) {
  const BccooParams          user = nothing_fixed();
  const gpumat::TuningValues good = gpumat::bccoo_tune_values(a_result(user), user);
  const std::vector<std::pair<std::string, std::string>> bad = {
    {"h", ""}, {"h", "2x"}, {"h", "5"}, {"w", "3"}, {"slices", "0"}, {"tile", "12"}, {"tile", "99999999999999999999"}, {"group", "1024"}, {"compress_col", "-1"},
    {"compress_col", "2"}, {"model", "1,1,1,16"}, {"model", "1,1,1,16,256,a"}, {"model", "0,1,1,16,256,1"}, {"fixed", "0,0,0,0,0"}, {"candidates", "0"},
    {"best_ms", "fast"}, {"best_ms", "nan"}, {"tune_ms", "-1"},
  };
  BccooTuneResult back;
  std::string     why;
  ASSERT_EQ(gpumat::bccoo_tune_from_values(good, user, &back, &why), BccooCached::Use) << why;
  for (const auto &b : bad) {
    gpumat::TuningValues v = good;
    v[b.first]             = b.second;
    why.clear();
    EXPECT_EQ(gpumat::bccoo_tune_from_values(v, user, &back, &why), BccooCached::Invalid) << b.first << "=" << b.second;
    EXPECT_FALSE(why.empty()) << b.first << "=" << b.second;
  }
  for (const char *name : {"h", "w", "slices", "tile", "group", "compress_col", "fixed", "model", "candidates", "skipped", "tune_ms", "best_ms", "model_ms"}) {
    gpumat::TuningValues v = good;
    v.erase(name);
    EXPECT_NE(gpumat::bccoo_tune_from_values(v, user, &back, &why), BccooCached::Use) << "without " << name;
  }
  // a decision that contradicts the fixed parameters it claims
  const BccooParams    fixed = bp(0, 0, 0, 32, 0, -1);
  gpumat::TuningValues v     = gpumat::bccoo_tune_values(a_result(fixed), fixed);
  v["tile"]                  = "16";
  EXPECT_EQ(gpumat::bccoo_tune_from_values(v, fixed, &back, &why), BccooCached::Invalid);
  EXPECT_NE(why.find("contradicts"), std::string::npos) << why;
}

} // namespace

// The strategy (-mat_bccoo_strategy) is neither searched nor part of a cached decision: the
// candidates and a decision from the cache carry the user's (the default 2 when unset).
TEST(BccooTuneValues, TheUsersStrategy) {
  const matgen::Csr M = fem3(200);
  BccooParams       user;
  user.strategy = 1;
  int candidates = 0;
  const BccooTuneResult r = gpumat::bccoo_tune(model_of(M, user), user, [&](const BccooParams &p) {
    EXPECT_EQ(p.strategy, 1) << describe(p);
    ++candidates;
    return BccooTiming{BccooTiming::Ok, Separable{2, 2}(p), ""};
  });
  EXPECT_GT(candidates, 1);
  EXPECT_EQ(r.best.strategy, 1);
  const gpumat::TuningValues v = gpumat::bccoo_tune_values(a_result(nothing_fixed()), nothing_fixed());
  for (int strategy : {0, 1, 2}) {
    BccooParams now;
    now.strategy = strategy;
    BccooTuneResult back;
    std::string     why;
    ASSERT_EQ(gpumat::bccoo_tune_from_values(v, now, &back, &why), BccooCached::Use) << why;
    EXPECT_EQ(back.best.strategy, strategy ? strategy : 2);
    EXPECT_EQ(back.model.strategy, strategy ? strategy : 2);
  }
}
