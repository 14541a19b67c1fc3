// bce: distribution function, merging, optimal partition, reordering, host builder, refresh and
// reference products (bce.hpp).
#include "bce.hpp"
#include "format_record.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <limits>
#include <queue>
#include <stdexcept>
#include <string>
#include <tuple>

namespace gpumat {

namespace {
void check(bool ok, const std::string &what) {
  if (!ok) throw std::invalid_argument("bce: " + what);
}
} // namespace

BceParams bce_resolve(BceParams p) {
  if (p.group_cost < 0) p.group_cost = kBceGroupCost;
  if (p.max_sets == 0) p.max_sets = kBceMaxSets;
  if (p.window == 0) p.window = kBceWindow;
  check(p.window >= 1, "window must be a positive row count, or 0 for " + std::to_string(kBceWindow) + "; got " + std::to_string(p.window));
  check(p.long_row >= 0, "long_row must be a positive row length, or 0 for the latency model; got " + std::to_string(p.long_row));
  check(p.group_cost <= (std::int64_t(1) << 40), "group_cost (c) must be in [0, 2^40] bytes per entry of width (or -1 for " + std::to_string(kBceGroupCost) + "), got " + std::to_string(p.group_cost));
  check(p.max_sets >= 2 && p.max_sets <= kBceMaxSetsLimit, "max_sets must be in [2, " + std::to_string(kBceMaxSetsLimit) + "] (or 0 for " + std::to_string(kBceMaxSets) + "), got " + std::to_string(p.max_sets));
  return p;
}

template <typename T>
std::vector<BceSet> bce_distribution(const CsrView<T> &A, std::int64_t long_row) {
  std::vector<BceSet> sets;
  if (A.nrows == 0) return sets;
  std::int64_t maxlen = 0;
  for (index_t r = 0; r < A.nrows; ++r) {
    const std::int64_t n = A.rowptr[r + 1] - A.rowptr[r];
    if (n <= long_row) maxlen = std::max(maxlen, n);
  }
  if (maxlen <= 8 * std::int64_t(A.nrows) + 1024) { // a count per length
    std::vector<std::int64_t> count(std::size_t(maxlen) + 1, 0);
    for (index_t r = 0; r < A.nrows; ++r) {
      const std::int64_t n = A.rowptr[r + 1] - A.rowptr[r];
      if (n <= long_row) ++count[std::size_t(n)];
    }
    for (std::size_t m = 0; m < count.size(); ++m)
      if (count[m]) sets.push_back({std::int64_t(m), count[m], std::int64_t(m) * count[m]});
    return sets;
  }
  std::vector<index_t> len; // few rows, long ones: sort the lengths
  for (index_t r = 0; r < A.nrows; ++r)
    if (A.rowptr[r + 1] - A.rowptr[r] <= long_row) len.push_back(A.rowptr[r + 1] - A.rowptr[r]);
  std::sort(len.begin(), len.end());
  for (index_t l : len) {
    if (sets.empty() || sets.back().width != l) sets.push_back({l, 0, 0});
    ++sets.back().rows, sets.back().entries += l;
  }
  return sets;
}

std::vector<BceSet> bce_merge(std::vector<BceSet> sets, int max_sets) {
  const std::size_t n = sets.size();
  if (max_sets < 1 || n <= std::size_t(max_sets)) return sets;
  // a linked list of the live sets; merging i into its next pads i's rows to the next's width
  std::vector<long long>    prev(n), next(n);
  std::vector<std::int64_t> version(n, 0);
  std::vector<char>         alive(n, 1);
  for (std::size_t i = 0; i < n; ++i) prev[i] = (long long)i - 1, next[i] = (long long)i + 1; // -1, n: none
  using Item = std::tuple<std::int64_t, std::size_t, std::int64_t>; // cost, i, version of i
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
  auto cost = [&](std::size_t i) { return sets[i].rows * (sets[std::size_t(next[i])].width - sets[i].width); };
  for (std::size_t i = 0; i + 1 < n; ++i) heap.emplace(cost(i), i, 0);
  std::size_t live = n;
  while (live > std::size_t(max_sets) && !heap.empty()) {
    const auto [c, i, v] = heap.top();
    heap.pop();
    if (!alive[i] || v != version[i]) continue; // stale
    const std::size_t j = std::size_t(next[i]); // i merges into j (j keeps its width)
    sets[j].rows += sets[i].rows, sets[j].entries += sets[i].entries;
    alive[i] = 0, --live;
    prev[j] = prev[i];
    if (prev[i] >= 0) { // i's predecessor now merges into j: a new cost
      const std::size_t h = std::size_t(prev[i]);
      next[h]             = (long long)j;
      heap.emplace(cost(h), h, ++version[h]);
    }
    if (next[j] < (long long)n) heap.emplace(cost(j), j, ++version[j]); // j has more rows now
  }
  std::vector<BceSet> out;
  out.reserve(live);
  for (std::size_t i = 0; i < n; ++i)
    if (alive[i]) out.push_back(sets[i]);
  return out;
}

namespace {
// The time model of a group of `rows` rows padded to `width` (bce.hpp): the one formula of
// bce_group_time and of the dynamic program's recurrence.
double group_time(std::int64_t width, std::int64_t rows, const BceParams &p) { return 12.0 * double(width) * double(rows) + 4.0 * double(rows) + double(p.group_cost) * double(width); }
} // namespace

double bce_group_time(const std::vector<BceSet> &sets, std::size_t a, std::size_t b, const BceParams &p) {
  std::int64_t rows = 0;
  for (std::size_t i = a; i < b; ++i) rows += sets[i].rows;
  return group_time(sets[b - 1].width, rows, p);
}

std::vector<std::size_t> bce_partition(const std::vector<BceSet> &sets, const BceParams &p) {
  const std::size_t         M = sets.size();
  std::vector<double>       best(M + 1, std::numeric_limits<double>::infinity());
  std::vector<std::size_t>  from(M + 1, 0);
  std::vector<std::int64_t> rows(M + 1, 0); // prefix sums of the sets' rows
  for (std::size_t i = 0; i < M; ++i) rows[i + 1] = rows[i] + sets[i].rows;
  best[0] = 0.0;
  for (std::size_t m = 1; m <= M; ++m) // best(m) = min_j best(j) + T(sets j..m-1)
    for (std::size_t j = 0; j < m; ++j) {
      const double t = best[j] + group_time(sets[m - 1].width, rows[m] - rows[j], p);
      if (t < best[m]) best[m] = t, from[m] = j;
    }
  std::vector<std::size_t> ends;
  for (std::size_t m = M; m > 0; m = from[m]) ends.push_back(m);
  std::reverse(ends.begin(), ends.end());
  return ends;
}

std::vector<std::size_t> bce_partition_brute(const std::vector<BceSet> &sets, const BceParams &p) {
  const std::size_t M = sets.size();
  check(M <= 20, "bce_partition_brute takes at most 20 sets");
  std::vector<std::size_t> best_ends;
  double                   best = std::numeric_limits<double>::infinity();
  if (M == 0) return best_ends;
  for (std::uint32_t mask = 0; mask < (std::uint32_t(1) << (M - 1)); ++mask) { // bit i: a group ends after set i
    std::vector<std::size_t> ends;
    for (std::size_t i = 0; i + 1 < M; ++i)
      if (mask >> i & 1u) ends.push_back(i + 1);
    ends.push_back(M);
    const double t = bce_partition_time(sets, ends, p);
    if (t < best) best = t, best_ends = ends;
  }
  return best_ends;
}

double bce_partition_time(const std::vector<BceSet> &sets, const std::vector<std::size_t> &ends, const BceParams &p) {
  double      t = 0.0;
  std::size_t a = 0;
  for (std::size_t e : ends) t += bce_group_time(sets, a, e, p), a = e;
  return t;
}

std::vector<std::int64_t> bce_block_warps(const std::vector<index_t> &rows) {
  std::vector<std::int64_t> w(rows.size() + 1, 0);
  for (std::size_t b = 0; b < rows.size(); ++b) w[b + 1] = w[b] + (std::int64_t(rows[b]) + 31) / 32;
  return w;
}

template <typename T>
std::int64_t Bce<T>::padding() const {
  return padded() - (std::int64_t(slot.size()) - std::int64_t(this->long_val.size())); // slot has an entry per nonzero
}

template <typename T>
std::size_t Bce<T>::bytes() const {
  const std::size_t warps = std::size_t(bce_block_warps(rows).back()); // the GPU product's block of each warp
  return val.size() * sizeof(T) + col.size() * sizeof(index_t) + row_no.size() * sizeof(index_t) + width.size() * (3 * sizeof(index_t)) + start.size() * sizeof(std::int64_t) + warps * sizeof(index_t) + this->long_bytes();
}

BceGroups bce_groups_from(const std::vector<BceSet> &df, const BceParams &resolved) {
  BceGroups G;
  G.p                          = resolved;
  const std::vector<BceSet> sets = bce_merge(df, G.p.max_sets);
  G.sets_before_merge = int(df.size()), G.sets = int(sets.size());
  const std::vector<std::size_t> ends = bce_partition(sets, G.p);
  std::size_t                    a    = 0;
  for (std::size_t e : ends) {
    std::int64_t rows = 0;
    for (std::size_t i = a; i < e; ++i) rows += sets[i].rows;
    G.width.push_back(index_t(sets[e - 1].width));
    G.rows.push_back(index_t(rows));
    a = e;
  }
  return G;
}

template <typename T>
BceGroups bce_groups(const CsrView<T> &A, const BceParams &params) {
  BceParams p = bce_resolve(params);
  if (p.long_row == 0) p.long_row = default_long_row(A.nrows, std::int64_t(A.nnz()), longest_row(A));
  return bce_groups_from(bce_distribution(A, p.long_row), p); // DF, merging, OPA
}

template <typename T>
void bce_build(const CsrView<T> &A, const BceParams &params, Bce<T> &B) {
  B                 = Bce<T>();
  BceGroups G       = bce_groups(A, params);
  B.p               = G.p;
  B.nrows = A.nrows, B.ncols = A.ncols;
  B.sets_before_merge = G.sets_before_merge, B.sets = G.sets;
  B.group_width.swap(G.width);
  B.start.assign(1, 0);
  B.slot.assign(std::size_t(A.nnz()), 0);
  if (A.nrows == 0) return;
  // reordering: each short row's group by a binary search of its length in the widths (the
  // paper's Algorithm 3); blocks (window, group), matrix order within a block
  const std::size_t    k = B.group_width.size();
  std::vector<index_t> cnt(k, 0), touched, row_group(std::size_t(A.nrows), -1);
  for (std::int64_t w0 = 0; w0 < A.nrows; w0 += B.p.window) { // a window: its blocks, in group order
    const index_t w1 = index_t(std::min<std::int64_t>(A.nrows, w0 + B.p.window));
    touched.clear();
    for (index_t r = index_t(w0); r < w1; ++r) {
      const index_t n = A.rowptr[r + 1] - A.rowptr[r];
      if (n > B.p.long_row) continue;
      const index_t g         = index_t(std::lower_bound(B.group_width.begin(), B.group_width.end(), n) - B.group_width.begin());
      row_group[std::size_t(r)] = g;
      if (!cnt[std::size_t(g)]++) touched.push_back(g);
    }
    std::sort(touched.begin(), touched.end());
    const index_t first = index_t(B.width.size());
    for (index_t g : touched) { // block g of this window; cnt[g] becomes its index
      B.pos.push_back(B.pos.empty() ? 0 : B.pos.back() + B.rows.back());
      B.width.push_back(B.group_width[std::size_t(g)]);
      B.rows.push_back(cnt[std::size_t(g)]);
      cnt[std::size_t(g)] = index_t(B.width.size()) - 1;
    }
    B.row_no.resize(std::size_t(B.pos.empty() ? 0 : B.pos.back() + B.rows.back()));
    std::vector<index_t> fill(B.width.size() - std::size_t(first), 0);
    for (index_t r = index_t(w0); r < w1; ++r)
      if (row_group[std::size_t(r)] >= 0) {
        const index_t b = cnt[std::size_t(row_group[std::size_t(r)])];
        B.row_no[std::size_t(B.pos[std::size_t(b)] + fill[std::size_t(b - first)]++)] = r;
      }
    for (index_t g : touched) cnt[std::size_t(g)] = 0;
  }
  const std::size_t nb = B.width.size();
  B.start.assign(nb + 1, 0);
  for (std::size_t b = 0; b < nb; ++b) B.start[b + 1] = B.start[b] + std::int64_t(B.rows[b]) * B.width[b];
  if (B.start[nb] > INT_MAX)
    throw std::invalid_argument("bce: the padded groups hold " + std::to_string(B.start[nb]) + " entries, beyond the 32-bit positions of its index; use more MPI ranks");
  // the ELL blocks, column by column, and the slot map
  B.col.assign(std::size_t(B.start[nb]), 0);
  B.val.assign(std::size_t(B.start[nb]), T(0));
  for (std::size_t g = 0; g < nb; ++g)
    for (index_t i = 0; i < B.rows[g]; ++i) {
      const index_t r = B.row_no[std::size_t(B.pos[g] + i)], q0 = A.rowptr[r], n = A.rowptr[r + 1] - q0;
      const index_t last = n > 0 ? A.colidx[q0 + n - 1] : 0;
      for (index_t j = 0; j < B.width[g]; ++j) {
        const std::size_t at = std::size_t(B.start[g] + std::int64_t(j) * B.rows[g] + i);
        if (j < n) {
          B.col[at]                     = A.colidx[q0 + j];
          B.val[at]                     = A.val[q0 + j];
          B.slot[std::size_t(q0 + j)] = std::int64_t(at);
        } else B.col[at] = last;
      }
    }
  B.build_long(A, B.p.long_row, B.padded(), B.slot, "bce");
}

template <typename T>
void bce_refresh(const CsrView<T> &A, Bce<T> &B) {
  check(std::size_t(A.nnz()) == B.slot.size() && A.nrows == B.nrows, "refresh with another pattern: rebuild");
  const std::int64_t padded = B.padded();
  for (std::size_t q = 0; q < B.slot.size(); ++q) {
    const std::int64_t s = B.slot[q];
    if (s < padded) B.val[std::size_t(s)] = A.val[q];
    else B.long_val[std::size_t(s - padded)] = A.val[q];
  }
}

template <typename T>
void bce_apply(const Bce<T> &B, Op op, const T *x, const T *z, T *y) {
  const std::size_t k = B.width.size();
  if (op == Op::NoTrans) {
    for (std::size_t g = 0; g < k; ++g)
      for (index_t i = 0; i < B.rows[g]; ++i) {
        T s = T(0);
        for (index_t j = 0; j < B.width[g]; ++j) {
          const std::size_t at = std::size_t(B.start[g] + std::int64_t(j) * B.rows[g] + i);
          s += B.val[at] * x[B.col[at]];
        }
        const index_t r = B.row_no[std::size_t(B.pos[g] + i)];
        y[r]            = z ? z[r] + s : s;
      }
    B.apply_long(op, x, z, y);
    return;
  }
  if (z) {
    if (y != z) std::copy(z, z + B.ncols, y);
  } else std::fill(y, y + B.ncols, T(0));
  for (std::size_t g = 0; g < k; ++g)
    for (index_t i = 0; i < B.rows[g]; ++i) {
      const T xr = x[B.row_no[std::size_t(B.pos[g] + i)]];
      for (index_t j = 0; j < B.width[g]; ++j) {
        const std::size_t at = std::size_t(B.start[g] + std::int64_t(j) * B.rows[g] + i);
        y[B.col[at]] += B.val[at] * xr;
      }
    }
  B.apply_long(op, x, z, y);
}

#define GPUMAT_BCE_INSTANTIATE(T)                                                        \
  template std::vector<BceSet> bce_distribution<T>(const CsrView<T> &, std::int64_t);   \
  template BceGroups bce_groups<T>(const CsrView<T> &, const BceParams &);              \
  template struct Bce<T>;                                                               \
  template void bce_build<T>(const CsrView<T> &, const BceParams &, Bce<T> &);          \
  template void bce_refresh<T>(const CsrView<T> &, Bce<T> &);                           \
  template void bce_apply<T>(const Bce<T> &, Op, const T *, const T *, T *);
GPUMAT_BCE_INSTANTIATE(double)
GPUMAT_BCE_INSTANTIATE(float)

} // namespace gpumat

// ---- the record (src/core/format_record.hpp) ------------------------------------------------
namespace gpumat {

namespace {

// gpuauto's byte model: rows grouped by length (the optimal partition pads next to nothing), y
// through the permutation, the long part summed by warps
bool bce_auto_shape(const AutoHints &, const AutoSample &s, AutoShape &sh) {
  const MatrixFeatures &f = s.f;
  const double          n = f.nrows, z = double(f.nnz);
  char                  buf[160];
  sh.permuted   = true;
  sh.bytes      = 12 * z * (1 + 0.0005) + 8 * n;
  sh.excess     = z / 32 * std::max(0.0, f.sectors_ell - 8);
  sh.long_share = s.long_share;
  std::snprintf(buf, sizeof buf, "rows grouped by length, long part %.1f %%", 100 * s.long_share);
  sh.detail = buf;
  return true;
}

} // namespace

const FormatRecord &bce_record() {
  static const FormatRecord r = [] {
    FormatRecord r("bce");
    r.caps.device_transpose = true;
    r.caps.long_part        = true;
    struct {
      const char  *key, *help, *def;
      std::int64_t lo, hi;
    } opts[] = {
      {"long_row", "Rows with more nonzeros than this go to the long part, cut into chunks summed by groups of lanes (0 = 32, or no long part where the longest row has at most 128 entries and at most 3 times the mean)", "0", 0, kOptionIntMax},
      {"group_cost", "The time model's cost of a group, bytes per entry of its width (-1 = 64: two 32-byte sectors per step of its partly filled last warp; 0 = a group per row length)", "-1", -1, std::int64_t(1) << 30},
      {"max_sets", "Row-length sets left after merging, before the optimal partition: 2..4096 (0 = 1025)", "0", 0, kBceMaxSetsLimit},
      {"window", "Rows per window of the reordering: the rows of a window and a group form a block (0 = 65536; the row count or more: one window, the paper's global grouping)", "0", 0, kOptionIntMax},
      {"lanes", "GPU product: lanes summing one chunk of a long row, 4, 8, 16 or 32 (0 = the long rows' mean length / 8 rounded up to a power of two within 4..32)", "0", 0, 32},
      {"passes", "GPU product: passes of 8 loads per lane in a chunk of a long row, 1..64 (0 = the longest long row / (8 lanes) rounded up within 1..4)", "0", 0, kLongMaxPasses},
    };
    for (const auto &o : opts) {
      OptionRecord &x = r.add(OptionKind::Int, o.key, o.help, o.def);
      x.lo = double(o.lo), x.hi = double(o.hi);
    }
    {
      OptionRecord &o = r.options[2]; // max_sets
      o.allowed       = {{0, 0}, {2, kBceMaxSetsLimit}};
      o.allowed_error = "{name} must be 0 (the default, " + std::to_string(kBceMaxSets) + ") or in [2, " + std::to_string(kBceMaxSetsLimit) + "], got {value}";
    }
    {
      OptionRecord &o = r.options[4]; // lanes: long_shape_valid's
      o.allowed       = {{0, 0}, {4, 4}, {8, 8}, {16, 16}, {32, 32}};
      o.allowed_error = "{name} must be 0 (by the long rows), 4, 8, 16 or 32, got {value}";
    }
    r.gpuauto.model = bce_auto_shape;
    // the long part as pjds's (its record says where the numbers come from)
    r.gpuauto.constants = {{"bce", {1.04, 2.0, 0.95}}, {"bce:long", {1.06, 0.0, 0.985}}};
    // build (ns per nonzero, ns per row, us): the fit to 24 builds, |relative error| median 6 %
    r.gpuauto.build = {1.55, 2.30, 957};
    return r;
  }();
  return r;
}

} // namespace gpumat
