// bccoo's auto-tuner: the pruned, coordinate-wise search of bccoo_tune.hpp and its cache values.
#include "bccoo_tune.hpp"

#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <stdexcept>

namespace gpumat {

namespace {

using Key = std::array<int, 6>;
Key key_of(const BccooParams &p) { return {p.h, p.w, p.slices, p.tile, p.group, p.compress_col}; }

std::string six(const BccooParams &p) {
  return std::to_string(p.h) + "," + std::to_string(p.w) + "," + std::to_string(p.slices) + "," + std::to_string(p.tile) + "," + std::to_string(p.group) + "," +
         std::to_string(p.compress_col);
}

bool parse_int(const std::string &s, int *v) {
  if (s.empty()) return false;
  char      *end = nullptr;
  const long x   = std::strtol(s.c_str(), &end, 10);
  if (*end || x < std::numeric_limits<int>::min() || x > std::numeric_limits<int>::max()) return false;
  *v = int(x);
  return true;
}

bool parse_double(const std::string &s, double *v) {
  if (s.empty()) return false;
  char *end = nullptr;
  *v        = std::strtod(s.c_str(), &end);
  return !*end;
}

std::string format_double(double v) {
  if (std::isnan(v)) return "nan";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

bool parse_six(const std::string &s, BccooParams *p) {
  int         f[6];
  std::size_t at = 0;
  for (int i = 0; i < 6; ++i) {
    const std::size_t comma = i < 5 ? s.find(',', at) : s.size();
    if (comma == std::string::npos || !parse_int(s.substr(at, comma - at), &f[i])) return false;
    at = comma + 1;
  }
  p->h = f[0], p->w = f[1], p->slices = f[2], p->tile = f[3], p->group = f[4], p->compress_col = f[5];
  return true;
}

} // namespace

std::string BccooTuneResult::failure() const {
  if (ok()) return "";
  if (trials.empty()) return "no candidate was timed";
  const BccooTrial &t = trials.back();
  return (aborted ? "" : "every candidate failed to build; the last, ") + bccoo_describe(t.p) + ": " + t.t.why;
}

std::string bccoo_describe(const BccooParams &p) {
  return std::to_string(p.h) + " x " + std::to_string(p.w) + ", " + std::to_string(p.slices) + " slice(s), tile " + std::to_string(p.tile) + ", group " + std::to_string(p.group) +
         (p.compress_col ? ", 16-bit columns" : ", 32-bit columns");
}

std::vector<BccooShape> bccoo_tune_shapes(const BccooChoice &model, const BccooParams &user) {
  std::vector<BccooShape> out;
  BccooShape              first;
  first.h = model.p.h, first.w = model.p.w;
  for (const BccooShape &s : model.shapes)
    if (s.h == model.p.h && s.w == model.p.w) first = s;
  out.push_back(first);
  for (const BccooShape &s : model.shapes) {
    if (int(out.size()) >= kBccooTuneShapes) break;
    if ((user.h && s.h != user.h) || (user.w && s.w != user.w) || (s.h == first.h && s.w == first.w)) continue;
    out.push_back(s);
  }
  return out;
}

BccooTuneResult bccoo_tune(const BccooChoice &model, const BccooParams &user, const BccooTimeFn &time) {
  const auto      t0 = std::chrono::steady_clock::now();
  BccooTuneResult r;
  r.model    = model.p;
  r.best     = model.p;
  r.best_ms  = std::numeric_limits<double>::quiet_NaN();
  r.model_ms = std::numeric_limits<double>::quiet_NaN();
  std::map<Key, std::size_t> seen; // candidate -> its trial
  bool                       have_best = false;
  // Times p unless it was timed before; false when the search is to stop.
  auto try_one = [&](BccooParams p, int stage) {
    p = bccoo_resolve(p);
    if (seen.count(key_of(p))) return true;
    seen.emplace(key_of(p), r.trials.size());
    BccooTrial t;
    t.p     = p;
    t.stage = stage;
    t.t     = time(p);
    r.trials.push_back(t);
    switch (t.t.status) {
    case BccooTiming::Ok:
      ++r.timed;
      if (key_of(p) == key_of(r.model)) r.model_ms = t.t.ms;
      if (!have_best || t.t.ms < r.best_ms) {
        r.best    = p;
        r.best_ms = t.t.ms;
        have_best = true;
      }
      return true;
    case BccooTiming::Skip: ++r.skipped; return true;
    default: r.aborted = true; return false;
    }
  };
  auto finish = [&]() {
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
  };

  // 1. shape x compression at the model's tile, group and slices; the model's choice first
  std::vector<int> compress;
  if (user.compress_col >= 0) compress = {user.compress_col};
  else compress = {model.p.compress_col, 1 - model.p.compress_col};
  if (!try_one(model.p, 1)) return finish();
  for (const BccooShape &s : bccoo_tune_shapes(model, user))
    for (int c : compress) {
      BccooParams p  = model.p;
      p.h            = s.h;
      p.w            = s.w;
      p.compress_col = c;
      if (!try_one(p, 1)) return finish();
    }
  // 2. tile x group for the best so far
  std::vector<int> tiles(std::begin(kBccooTuneTiles), std::end(kBccooTuneTiles)), groups(std::begin(kBccooTuneGroups), std::end(kBccooTuneGroups));
  if (user.tile) tiles = {user.tile};
  if (user.group) groups = {user.group};
  const BccooParams base2 = r.best;
  for (int tile : tiles)
    for (int group : groups) {
      BccooParams p = base2;
      p.tile        = tile;
      p.group       = group;
      if (!try_one(p, 2)) return finish();
    }
  // 3. slices for the best so far
  std::vector<int> slices(std::begin(kBccooTuneSlices), std::end(kBccooTuneSlices));
  if (user.slices) slices = {user.slices};
  const BccooParams base3 = r.best;
  for (int s : slices) {
    BccooParams p = base3;
    p.slices      = s;
    if (!try_one(p, 3)) return finish();
  }
  return finish();
}

TuningValues bccoo_tune_values(const BccooTuneResult &r, const BccooParams &user) {
  const BccooParams &b = r.best;
  return TuningValues{
    {"h", std::to_string(b.h)},
    {"w", std::to_string(b.w)},
    {"slices", std::to_string(b.slices)},
    {"tile", std::to_string(b.tile)},
    {"group", std::to_string(b.group)},
    {"compress_col", std::to_string(b.compress_col)},
    {"fixed", six(user)},
    {"model", six(r.model)},
    {"candidates", std::to_string(r.timed)},
    {"skipped", std::to_string(r.skipped)},
    {"tune_ms", format_double(1e3 * r.seconds)},
    {"best_ms", format_double(r.best_ms)},
    {"model_ms", format_double(r.model_ms)},
  };
}

BccooCached bccoo_tune_from_values(const TuningValues &v, const BccooParams &user, BccooTuneResult *r, std::string *why) {
  auto get = [&](const char *name, std::string *s) {
    const auto it = v.find(name);
    if (it == v.end()) {
      *why = std::string("no value '") + name + "'";
      return false;
    }
    *s = it->second;
    return true;
  };
  auto get_int = [&](const char *name, int *x) {
    std::string s;
    if (!get(name, &s)) return false;
    if (parse_int(s, x)) return true;
    *why = std::string("'") + name + "' is not an integer: '" + s + "'";
    return false;
  };
  auto get_double = [&](const char *name, double *x) {
    std::string s;
    if (!get(name, &s)) return false;
    if (parse_double(s, x)) return true;
    *why = std::string("'") + name + "' is not a number: '" + s + "'";
    return false;
  };
  BccooTuneResult out;
  BccooParams     fixed, b;
  std::string     s;
  double          tune_ms = 0;
  if (!get("fixed", &s)) return BccooCached::Invalid;
  if (!parse_six(s, &fixed)) {
    *why = "'fixed' is not six integers: '" + s + "'";
    return BccooCached::Invalid;
  }
  if (key_of(fixed) != key_of(user)) {
    *why = "searched with other fixed parameters (h,w,slices,tile,group,compress " + s + "; now " + six(user) + ")";
    return BccooCached::OtherFixed;
  }
  if (!get("model", &s)) return BccooCached::Invalid;
  if (!parse_six(s, &out.model)) {
    *why = "'model' is not six integers: '" + s + "'";
    return BccooCached::Invalid;
  }
  if (!get_int("h", &b.h) || !get_int("w", &b.w) || !get_int("slices", &b.slices) || !get_int("tile", &b.tile) || !get_int("group", &b.group) || !get_int("compress_col", &b.compress_col) ||
      !get_int("candidates", &out.timed) || !get_int("skipped", &out.skipped) || !get_double("tune_ms", &tune_ms) || !get_double("best_ms", &out.best_ms) ||
      !get_double("model_ms", &out.model_ms))
    return BccooCached::Invalid;
  // every parameter given (0 would be a default here), in range, and the fixed ones kept
  try {
    if (!b.h || !b.w || !b.slices || !b.tile || !b.group || b.compress_col < 0 || !out.model.h || !out.model.w || !out.model.slices || !out.model.tile || !out.model.group || out.model.compress_col < 0)
      throw std::invalid_argument("a parameter is 0 or negative");
    b.strategy = out.model.strategy = user.strategy; // not searched nor stored: the current run's (0: the default)
    out.best  = bccoo_resolve(b);
    out.model = bccoo_resolve(out.model);
  } catch (const std::invalid_argument &e) {
    *why = std::string("parameters out of range: ") + e.what();
    return BccooCached::Invalid;
  }
  const Key bk = key_of(out.best), uk = key_of(user);
  for (std::size_t i = 0; i < bk.size(); ++i)
    if ((i < 5 ? uk[i] != 0 : uk[i] >= 0) && bk[i] != uk[i]) {
      *why = "the decision " + six(out.best) + " contradicts its fixed parameters " + six(user);
      return BccooCached::Invalid;
    }
  if (out.timed < 1 || out.skipped < 0 || !(tune_ms >= 0) || !(out.best_ms >= 0)) {
    *why = "the search's figures are out of range";
    return BccooCached::Invalid;
  }
  out.seconds = 1e-3 * tune_ms;
  *r          = out;
  return BccooCached::Use;
}

} // namespace gpumat
