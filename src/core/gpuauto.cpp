#include "gpuauto.hpp"

#include "format_record.hpp"
#include "long_rows.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <unordered_set>
#include <utility>
#include <sstream>

namespace gpumat {

const AutoFormatConstants &AutoConstants::of(const std::string &key) const {
  static const AutoFormatConstants none;
  auto it = fmt.find(key);
  if (it != fmt.end()) return it->second;
  const auto colon = key.find(':'); // "cusparsebsr:5" without its own line: the format's line
  if (colon != std::string::npos && (it = fmt.find(key.substr(0, colon))) != fmt.end()) return it->second;
  return none;
}

const AutoBuildConstants &AutoConstants::build_of(const std::string &candidate) const {
  static const AutoBuildConstants none;
  const auto                      it = build.find(candidate);
  return it != build.end() ? it->second : none;
}

// The GPU's own constants are AutoConstants' defaults (the H100's); each candidate's come from its
// record (AutoRecord::constants, measured on the H100: docs/results/h100-2026-11-2[3-5]*).
AutoConstants auto_shipped_constants(const std::string &gpu_name) {
  AutoConstants c;
  for (const FormatRecord *r : format_records()) {
    for (const auto &[key, k] : r->gpuauto.constants) c.fmt[key] = k;
    if (r->gpuauto.model) c.build[r->name] = r->gpuauto.build;
  }
  if (gpu_name.find("H200") != std::string::npos) {
    // the H100's factors, with the H200's streaming rate and memory gathers from the H200 suite run
    // of docs/results/h200-2026-11-26-suite: bw_gbs is the median of its floor:stream lines
    c.name           = "H200 (the H100's factors; streaming rate and cuSPARSE SELL's gather factor from the H200 suite of 2026-11-26)";
    c.bw_gbs         = 4014;
    c.dram_sector_ps = 11.8;
  }
  for (const FormatRecord *r : format_records())
    for (const AutoConstantsOverride &o : r->gpuauto.overrides)
      if (gpu_name.find(o.gpu) != std::string::npos) c.fmt[o.key].*o.field = o.value;
  return c;
}

const std::vector<std::string> &auto_all_candidates() {
  static const std::vector<std::string> all = [] {
    std::vector<std::string> v;
    for (const FormatRecord *r : format_records())
      if (r->gpuauto.model) v.push_back(r->name);
    return v;
  }();
  return all;
}

namespace {

double *scalar_field(AutoConstants &c, const std::string &key) {
  if (key == "bw_gbs") return &c.bw_gbs;
  if (key == "launch_us") return &c.launch_us;
  if (key == "l2_bytes") return &c.l2_bytes;
  if (key == "l2x_share") return &c.l2x_share;
  if (key == "l2_request_ps") return &c.l2_request_ps;
  if (key == "dram_sector_ps") return &c.dram_sector_ps;
  if (key == "y_scatter_bytes") return &c.y_scatter_bytes;
  if (key == "hop_us") return &c.hop_us;
  return nullptr;
}

bool known_candidate(const std::string &key) {
  const std::string root = key.substr(0, key.find(':'));
  const auto       &all  = auto_all_candidates();
  return std::find(all.begin(), all.end(), root) != all.end();
}

} // namespace

bool auto_read_constants(const std::string &path, AutoConstants &out, std::string &err) {
  std::ifstream in(path);
  if (!in) {
    err = "cannot read the gpuauto constants file '" + path + "'";
    return false;
  }
  AutoConstants c = out;
  std::string   line;
  for (int ln = 1; std::getline(in, line); ++ln) {
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    std::istringstream ss(line);
    std::string        key, rest;
    if (!(ss >> key)) continue;
    const std::string where = "'" + path + "' line " + std::to_string(ln) + ": ";
    if (key == "name") {
      std::getline(ss, rest);
      rest.erase(0, rest.find_first_not_of(" \t"));
      rest.erase(rest.find_last_not_of(" \t\r") + 1);
      c.name = rest;
      continue;
    }
    const auto        dot      = key.rfind('.');
    const std::string field    = dot == std::string::npos ? std::string() : key.substr(dot + 1);
    const bool        is_build = field == "build_ns_nnz" || field == "build_ns_row" || field == "build_us";
    const bool        zero_ok  = is_build || field == "r_ps"; // costs that may be none; the rates and factors are positive
    double            v        = 0;
    if (!(ss >> v) || !std::isfinite(v) || !(v > 0 || (zero_ok && v == 0)) || (ss >> rest)) {
      err = where + "'" + key + "' needs one " + (zero_ok ? "finite number, 0 or more" : "positive finite number");
      return false;
    }
    if (double *f = scalar_field(c, key)) {
      *f = v;
      continue;
    }
    if (dot != std::string::npos && known_candidate(key.substr(0, dot))) {
      const std::string cand = key.substr(0, dot);
      if (is_build) {
        if (cand.find(':') != std::string::npos) {
          err = where + "'" + key + "': build constants are a candidate's, not a variant's ('" + cand.substr(0, cand.find(':')) + "." + field + "')";
          return false;
        }
        AutoBuildConstants &b = c.build[cand];
        (field == "build_ns_nnz" ? b.ns_nnz : field == "build_ns_row" ? b.ns_row : b.us) = v;
        continue;
      }
      AutoFormatConstants &fc = c.fmt[cand];
      if (field == "k") fc.k = v;
      else if (field == "r_ps") fc.r_ps = v;
      else if (field == "g") fc.g = v;
      else {
        err = where + "unknown field '" + field + "' (k, r_ps, g, build_ns_nnz, build_ns_row or build_us)";
        return false;
      }
      continue;
    }
    err = where + "unknown key '" + key + "'";
    return false;
  }
  if (c.l2x_share > 1) {
    err = "'" + path + "': l2x_share must be at most 1";
    return false;
  }
  out = c;
  return true;
}

bool auto_write_constants(const std::string &path, const AutoConstants &c, std::string &err) {
  std::ofstream o(path);
  if (!o) {
    err = "cannot write the gpuauto constants file '" + path + "'";
    return false;
  }
  o.precision(6);
  o << "# gpuauto constants (src/core/gpuauto.hpp)\nname " << c.name << "\nbw_gbs " << c.bw_gbs << "\nlaunch_us " << c.launch_us << "\nl2_bytes " << c.l2_bytes << "\nl2x_share " << c.l2x_share << "\nl2_request_ps " << c.l2_request_ps << "\ndram_sector_ps " << c.dram_sector_ps << "\ny_scatter_bytes " << c.y_scatter_bytes << "\nhop_us " << c.hop_us << "\n";
  for (const auto &[k, f] : c.fmt) o << k << ".k " << f.k << "\n" << k << ".r_ps " << f.r_ps << "\n" << k << ".g " << f.g << "\n";
  for (const auto &[k, b] : c.build) o << k << ".build_ns_nnz " << b.ns_nnz << "\n" << k << ".build_ns_row " << b.ns_row << "\n" << k << ".build_us " << b.us << "\n";
  if (!o) {
    err = "writing '" + path + "' failed";
    return false;
  }
  return true;
}

namespace {

// Consecutive ids 0, 1, 2, ... for distinct non-negative keys, in the order they are first seen
// (open addressing in a table of at least twice the keys announced).
class DenseIds {
public:
  explicit DenseIds(std::size_t keys) {
    std::size_t cap = 64;
    while (cap < 2 * keys) cap *= 2;
    key_.assign(cap, -1);
    id_.resize(cap);
  }
  index_t id(index_t k) {
    for (std::size_t h = (std::size_t(k) * 0x9E3779B97F4A7C15ull) >> 16;; ++h) {
      const std::size_t i = h & (key_.size() - 1);
      if (key_[i] == k) return id_[i];
      if (key_[i] < 0) {
        key_[i] = k, id_[i] = size_++;
        return id_[i];
      }
    }
  }
  index_t size() const { return size_; }

private:
  std::vector<index_t> key_, id_;
  index_t              size_ = 0;
};

// Distinct values among v.
std::int64_t count_distinct(const std::vector<index_t> &v) {
  DenseIds ids(v.size());
  for (index_t x : v) ids.id(x);
  return ids.size();
}


} // namespace

template <typename T>
AutoSample auto_sample(const CsrView<T> &A, const AutoHints &h) {
  AutoSample s;
  s.value_bytes = int(sizeof(T));
  const index_t      n    = A.nrows;
  const std::int64_t nnz  = n ? std::int64_t(A.rowptr[n]) - A.rowptr[0] : 0;
  const double       mean = n ? double(nnz) / double(n) : 0;
  const double       kept = std::min<double>(mean, double(kAutoRowEntries)); // sampled entries per row, about
  // windows of W rows (W a multiple of 2, 3, 4, 6 and 12), fewer rows where a window would hold more
  // than a quarter of the sample
  index_t W = kAutoWindowRows;
  while (W > 12 && double(W) * kept > double(kAutoSampleEntries) / 4) W /= 2;
  const index_t nwin_all = (n + W - 1) / W;
  index_t       nwin     = nwin_all;
  if (nnz > kAutoSampleEntries) nwin = std::min<index_t>(nwin_all, std::max<index_t>(1, index_t(double(kAutoSampleEntries) / std::max(1.0, double(W) * kept))));

  // a row of at most kAutoRowEntries entries whole; a longer one as kAutoRowChunks runs of
  // consecutive entries spread evenly over it (the same positions in rows of equal length, so the
  // blocks of dense rows stay blocks); its true length kept for the length statistics
  constexpr index_t    K = kAutoRowEntries / kAutoRowChunks;
  std::vector<index_t> rp{0}, ci, len, wstart;
  std::int64_t         far = 0;
  bool                 cut = false;
  const double         col_per_row = double(A.ncols) / double(std::max<index_t>(1, n));
  std::unordered_set<std::uint64_t> vals; // the distinct values of the sampled whole rows (AutoSample::distinct_values)
  for (index_t w = 0; w < nwin; ++w) {
    const index_t win = nwin == nwin_all ? w : index_t((double(w) + 0.5) * double(nwin_all) / double(nwin));
    const index_t r0 = win * W, r1 = std::min<index_t>(n, r0 + W);
    for (index_t r = r0; r < r1; r += 12) wstart.push_back(r);
    for (index_t r = r0; r < r1; ++r) {
      const index_t L = A.rowptr[r + 1] - A.rowptr[r], *c = A.colidx + A.rowptr[r];
      len.push_back(L);
      if (L <= kAutoRowEntries) ci.insert(ci.end(), c, c + L);
      else {
        cut = true;
        for (index_t i = 0; i < kAutoRowChunks; ++i) {
          const index_t off = index_t(std::int64_t(i) * (L - K) / (kAutoRowChunks - 1) / 12 * 12);
          ci.insert(ci.end(), c + off, c + off + K);
        }
      }
      const double diag = double(r) * col_per_row;
      for (std::size_t k = std::size_t(rp.back()); k < ci.size(); ++k) far += 8 * std::fabs(double(ci[k]) - diag) > kAutoNearBytes;
      rp.push_back(index_t(ci.size()));
      if (A.val && L <= kAutoRowEntries) {
        s.values_sampled += L;
        for (index_t j = 0; j < L && vals.size() <= std::size_t(kAutoDistinctMax); ++j) vals.insert(value_bits(A.val[A.rowptr[r] + j]));
      }
    }
  }
  s.exact = nwin == nwin_all && !cut;
  s.distinct_values = A.val ? int(std::min<std::size_t>(vals.size(), std::size_t(kAutoDistinctMax) + 1)) : -1;
  {
    // blocks of kAutoOffsetBlock rows aligned to it (the windows may be fewer rows), up to
    // kAutoOffsetBlocks spread evenly and kAutoSampleEntries / 2 entries in all; a block with a row
    // longer than kAutoRowEntries is left out (such rows go to a long part)
    std::vector<index_t> offs;
    const index_t        nb_all = (n + kAutoOffsetBlock - 1) / kAutoOffsetBlock, nb = std::min<index_t>(nb_all, kAutoOffsetBlocks);
    std::int64_t         seen = 0, blocks = 0, offsets[kAutoOffsetGroups] = {};
    for (index_t b = 0; b < nb && seen < kAutoSampleEntries / 2; ++b) {
      const index_t r0 = index_t((double(b) + 0.5) * double(nb_all) / double(nb)) * kAutoOffsetBlock, r1 = std::min<index_t>(n, r0 + kAutoOffsetBlock);
      bool          cut_row = false;
      for (index_t r = r0; r < r1 && !cut_row; ++r) {
        const index_t L = A.rowptr[r + 1] - A.rowptr[r];
        cut_row         = L > kAutoRowEntries;
        seen += L;
      }
      if (cut_row) continue;
      ++blocks;
      for (int g = 1; g <= kAutoOffsetGroups; ++g) { // offsets from the first row of each group of g rows
        offs.clear();
        for (index_t r = r0; r < r1; ++r)
          for (index_t q = A.rowptr[r]; q < A.rowptr[r + 1]; ++q) offs.push_back(A.colidx[q] - (r - r % g));
        std::sort(offs.begin(), offs.end());
        const std::int64_t u = std::unique(offs.begin(), offs.end()) - offs.begin();
        offsets[g - 1] += u;
        if (g == 1) s.block_offsets_max = std::max(s.block_offsets_max, int(std::min<std::int64_t>(u, INT_MAX)));
      }
    }
    if (blocks > 0)
      for (int g = 0; g < kAutoOffsetGroups; ++g) s.group_offsets[g] = double(offsets[g]) / double(blocks);
  }
  // bccoo's model judges the same rows in the matrix's columns (bccoo_model_sampled)
  s.bccoo_rowptr = rp, s.bccoo_col = ci, s.bccoo_wstart = wstart;

  // the sample's columns renumbered into a compact range (features' per-column arrays are then the
  // sample's size, not the matrix's): groups of 12 consecutive columns keep their order inside and
  // get consecutive numbers, so the blocks of 2, 3, 4 and 6 columns and the 4-value sectors of x
  // stay what they were (the distance from the diagonal does not: not measured on a sample)
  DenseIds groups(ci.size());
  for (index_t &c : ci) c = groups.id(c / 12) * 12 + c % 12;
  CsrView<T> S;
  S.nrows = index_t(rp.size() - 1), S.ncols = std::max<index_t>(1, groups.size() * 12), S.rowptr = rp.data(), S.colidx = ci.data();
  s.f               = matrix_features(S);
  s.sampled_rows    = S.nrows;
  s.sampled_entries = std::int64_t(ci.size());
  s.far_share       = s.sampled_entries > 0 ? double(far) / double(s.sampled_entries) : 0.0;
  // blocks and sectors per sampled entry, scaled to the matrix's nonzeros
  const double scale = s.sampled_entries > 0 ? double(nnz) / double(s.sampled_entries) : 0;
  for (auto &b : s.f.blocks_bs) b = std::int64_t(std::llround(double(b) * scale));
  s.blocks6 = std::int64_t(std::llround(double(grid_blocks(S, 6)) * scale));
  s.f.nrows = n, s.f.ncols = A.ncols, s.f.nnz = nnz, s.f.mean_row = mean;
  s.f.max_row = h.longest_row >= 0 ? h.longest_row : longest_row(A);
  {
    const std::int64_t lr      = default_long_row(n, nnz, s.f.max_row);
    std::int64_t       in_long = 0, all = 0;
    for (index_t l : len) all += l, in_long += l > lr ? l : 0;
    s.long_share = all > 0 ? double(in_long) / double(all) : 0.0;
  }
  if (!s.exact) {
    s.f.diag_distance = -1; // the sample's rows are renumbered: not measured
    // the length statistics from the sampled rows' true lengths: spread, empty rows, the padding
    // of 32-row slices in the matrix's order (a window's rows are consecutive rows of the matrix),
    // and the sorted padding of the matrix, not of the sample's few rows per length: the sample's
    // histogram scaled to the matrix's rows (a sample of 1,000 rows of 29 lengths would pad 3 %
    // where the matrix pads nothing)
    const double up = len.empty() ? 0 : double(n) / double(len.size());
    double       sq = 0, sell = 0;
    std::int64_t empty = 0, sampled = 0;
    for (std::size_t i = 0; i < len.size(); i += 32) {
      const std::size_t e = std::min(len.size(), i + 32);
      index_t           m = 0;
      for (std::size_t j = i; j < e; ++j) m = std::max(m, len[j]);
      sell += double(m) * double(e - i);
    }
    for (index_t l : len) sq += double(l) * double(l), empty += l == 0, sampled += l;
    const double smean = len.empty() ? 0 : double(sampled) / double(len.size());
    s.f.cv_row         = smean > 0 ? std::sqrt(std::max(0.0, sq / double(len.size()) - smean * smean)) / smean : 0.0;
    s.f.empty_rows     = std::int64_t(std::llround(double(empty) * up));
    s.f.padding_sell   = sampled > 0 ? (sell - double(sampled)) / double(sampled) : 0.0;
    std::sort(len.begin(), len.end(), std::greater<index_t>());
    std::vector<std::pair<index_t, double>> runs;
    for (index_t l : len) {
      if (runs.empty() || runs.back().first != l) runs.emplace_back(l, 0.0);
      runs.back().second += up;
    }
    s.f.padding_sorted = nnz > 0 ? sorted_padding(runs) / double(nnz) : 0.0;
  }

  // reuse windows: runs of consecutive rows of about kAutoReuseEntries entries, spread evenly
  const int nreuse = nnz <= kAutoReuseEntries ? 1 : int(std::min<std::int64_t>(kAutoReuseWindows, nnz / kAutoReuseEntries));
  std::int64_t         entries = 0, distinct = 0;
  std::vector<index_t> sec;
  for (int w = 0; w < nreuse; ++w) {
    index_t r = index_t((double(w) + 0.5) * double(n) / double(nreuse));
    if (nreuse == 1) r = 0;
    sec.clear();
    for (; r < n && std::int64_t(sec.size()) < kAutoReuseEntries; ++r)
      for (index_t k = A.rowptr[r]; k < A.rowptr[r + 1] && std::int64_t(sec.size()) < kAutoReuseEntries; ++k) sec.push_back(A.colidx[k] >> 2);
    entries += std::int64_t(sec.size());
    distinct += count_distinct(sec);
  }
  s.sector_use = entries > 0 ? double(distinct) / double(entries) : 1.0;
  return s;
}

bool auto_csr_shape(const AutoHints &, const AutoSample &s, AutoShape &sh) {
  const MatrixFeatures &f = s.f;
  const double          n = f.nrows, z = double(f.nnz);
  sh.bytes  = 12 * z + 4 * (n + 1);
  sh.excess = z / 32 * std::max(0.0, f.sectors_csr - 8);
  sh.detail = "CSR";
  return true;
}

std::string auto_small_choice(std::int64_t nnz, std::int64_t small_nnz, const std::vector<std::string> &candidates) {
  if (nnz >= small_nnz) return "";
  for (const FormatRecord *r : format_records())
    if (r->gpuauto.model && r->gpuauto.small_blocks && std::find(candidates.begin(), candidates.end(), r->name) != candidates.end()) return r->name;
  return "";
}

template <typename T>
AutoDecision auto_decide(const CsrView<T> &A, const AutoHints &h, const AutoConstants &c, const std::vector<std::string> &candidates) {
  const auto   t0 = std::chrono::steady_clock::now();
  AutoDecision d;
  d.horizon               = std::isfinite(h.horizon) && h.horizon > 0 ? h.horizon : 0.0;
  d.sample                = auto_sample(A, h);
  const MatrixFeatures &f = d.sample.f;
  const double          n = f.nrows, m = f.ncols, z = double(f.nnz);
  const double          bw  = c.bw_gbs * 1e6; // bytes per ms
  const double          l2x = c.l2x_share * c.l2_bytes, xbytes = 8 * m;
  for (const FormatRecord *r : format_records()) {
    const std::string &name = r->name;
    if (!r->gpuauto.model || std::find(candidates.begin(), candidates.end(), name) == candidates.end()) continue;
    AutoShape sh;
    sh.key = name;
    if (!r->gpuauto.model(h, d.sample, sh)) continue;
    // a format with a long part: its rows' constants and its long part's (name + ":long", the
    // format's own where the file has none; a variant's long part is stored as the format's),
    // weighted by their shares of the entries
    AutoFormatConstants k = c.of(sh.key);
    if (sh.long_share > 0) {
      const AutoFormatConstants &l = c.of(name + ":long");
      const double               w = sh.long_share;
      k.k = (1 - w) * k.k + w * l.k, k.r_ps = (1 - w) * k.r_ps + w * l.r_ps, k.g = (1 - w) * k.g + w * l.g;
    }
    AutoPrediction p;
    p.candidate = name;
    p.detail    = sh.detail;
    p.key       = sh.key;
    p.long_share = sh.long_share;
    p.hops      = sh.hops;
    p.bytes     = sh.bytes + 8 * m + 8 * n + (sh.permuted ? c.y_scatter_bytes * n : 0);
    const double xs    = xbytes / sh.slices;
    const double miss  = xs <= l2x ? 0 : 1 - l2x / xs;
    const double dram  = z * d.sample.far_share * d.sample.sector_use * miss;
    p.gather_ms        = (sh.excess * c.l2_request_ps + dram * c.dram_sector_ps) * 1e-9;
    const double st    = k.k * p.bytes / bw + k.r_ps * n * 1e-9;
    const double ga    = k.g * (p.bytes / bw + p.gather_ms);
    p.gather_bound     = ga > st;
    p.ms               = c.launch_us * 1e-3 + std::max(st, ga) + sh.hops * c.hop_us * 1e-3;
    const AutoBuildConstants &b = c.build_of(name);
    p.build_ms         = b.us * 1e-3 + (b.ns_nnz * z + b.ns_row * n) * 1e-6;
    p.cost_ms          = d.horizon > 0 ? p.build_ms + d.horizon * p.ms : p.ms;
    d.predictions.push_back(p);
  }
  std::stable_sort(d.predictions.begin(), d.predictions.end(), [](const AutoPrediction &a, const AutoPrediction &b) { return a.cost_ms < b.cost_ms; });
  if (!d.predictions.empty()) d.chosen = d.predictions.front().candidate;
  d.decide_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return d;
}

template AutoSample   auto_sample<double>(const CsrView<double> &, const AutoHints &);
template AutoSample   auto_sample<float>(const CsrView<float> &, const AutoHints &);
template AutoDecision auto_decide<double>(const CsrView<double> &, const AutoHints &, const AutoConstants &, const std::vector<std::string> &);
template AutoDecision auto_decide<float>(const CsrView<float> &, const AutoHints &, const AutoConstants &, const std::vector<std::string> &);

} // namespace gpumat

namespace gpumat {

// gpuauto itself: not a candidate; its capabilities are the chosen candidate's (a block size hint
// reaches the candidates and their byte models).
const FormatRecord &gpuauto_record() {
  static const FormatRecord r = [] {
    FormatRecord r("gpuauto");
    r.caps.block_size_hint = true;
    r.add(OptionKind::String, "candidates", "Comma-separated formats gpuauto chooses among (default: every one available: {candidates})", "every candidate");
    r.add(OptionKind::String, "choose", "Skip the prediction: always become this candidate (the predictions are still shown by MatView)", "");
    r.add(OptionKind::String, "constants", "File of the GPU's constants for the predictions (bench/calibrate.py fits one to a suite run; default: the shipped constants of the GPU, conf/gpuauto/h100.txt, or h200.txt on an H200)",
          "the GPU's shipped constants");
    {
      OptionRecord &o = r.add(OptionKind::Int, "trial", "Time the first k predictions (2..7; 0 = off: the prediction decides) for -mat_gpuauto_trial_products products each after one warm-up, and keep the fastest; the decision is kept in the tuning cache (-mat_gpumat_tuning_cache)", "0");
      o.lo = 0, o.hi = 7, o.allowed = {{0, 0}, {2, 7}};
      o.range_error = "{name} must be 0 (off) or 2..7 candidates, got {value}";
    }
    {
      OptionRecord &o = r.add(OptionKind::Int, "trial_products", "Products timed per candidate in a trial, 1..1000 (the median is not taken: their mean after one warm-up)", "10");
      o.lo = 1, o.hi = 1000;
    }
    {
      OptionRecord &o = r.add(OptionKind::Int, "horizon", "Products a new nonzero pattern's build is paid back within: the choice minimizes the predicted build + horizon x product; 0 = the predicted product time alone", std::to_string(kAutoHorizon));
      o.lo = 0, o.hi = double(kOptionIntMax);
      o.range_error = "{name} must be 0 (the product time alone) or a count of products, got {value}";
    }
    {
      OptionRecord &o = r.add(OptionKind::Int, "small", "Blocks with fewer nonzeros become csrspec without a prediction (where csrspec is a candidate, without -mat_gpuauto_choose or -mat_gpuauto_trial); 0 = every block is predicted", std::to_string(kAutoSmallNnz));
      o.lo = 0, o.hi = double(kOptionIntMax);
      o.range_error = "{name} must be 0 (predict every block) or a count of nonzeros, got {value}";
    }
    return r;
  }();
  return r;
}

} // namespace gpumat
