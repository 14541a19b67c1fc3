// What the floors of the row-grouped formats share (bench/floors_rowgrouped.cu: pjds's layout with
// 32-bit columns and fp64 values, and bce; bench/floors_pjds.cu: pjds's compressed layouts): the
// launch constants, the stream floor's kernel (rg_stream_floor), the long part and its gather loop
// (long_part_floor, long_blocks), pjds's positions (PjdsLayout), the gather floor of a row-grouped
// layout with its values read as given (rg_gather_floor: the layout's own, OwnValues, or pjds's
// 16-bit codes), the device side of one format's floors (Floors: the uploads, the timings, the
// check) and the check of a gather floor's sums (check_rows). Include from .cu files only.
#pragma once
#include "floors.h"
#include "timing.cuh"
#include "core/pjds.hpp"
#include "cuda/pjds_index.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace gpumat_floors {

constexpr int kThreads   = 256;
constexpr int kUnroll    = 8;  // entries of a row loaded at once, as the products (pjds.cu, bce.cu)
constexpr int kLongPer   = 16; // long-part entries per thread of the gather floor
constexpr int kMaxArrays = 16;

// The arrays of a format, streamed by floor:<format>-stream.
struct Arrays {
  const uint4 *p[kMaxArrays];
  long long    n16[kMaxArrays]; // whole 16-byte words
  const unsigned *tail[kMaxArrays];
  int          ntail[kMaxArrays]; // the last 0..3 4-byte words
  int          n;
};

// floor:<format>-stream: the arrays of a by grid-stride loops of 16-byte loads, four in flight per
// thread, x read once, y written once (bench/floors_rowgrouped.cu)
__global__ void __launch_bounds__(kThreads) rg_stream_floor(Arrays a, const double *__restrict__ x, long long ncols, double *__restrict__ y, long long nrows, double *sink);

// The long part (long_rows.hpp): its entries with x gathered.
struct LongDev {
  const double *val;
  const int    *col;
  long long     nnz;
};

// The gather floors' first lblocks CUDA blocks: the long part's entries, grid-stride over those
// blocks, each entry's value times x at its column summed (the sum kept only through sink).
__device__ __forceinline__ void long_part_floor(const LongDev &lg, long long lblocks, const double *__restrict__ x, double *sink) {
  const long long stride = lblocks * kThreads;
  double          acc    = 0;
  for (long long k = (long long)blockIdx.x * kThreads + threadIdx.x; k < lg.nnz; k += stride) acc += __ldcs(lg.val + k) * __ldg(x + __ldcs(lg.col + k));
  if (acc == 1.2345e-300) *sink = acc;
}

// The CUDA blocks the gather floors give the long part (kLongPer entries a thread, at most 65,535).
inline long long long_blocks(const LongDev &lg) { return lg.nnz ? std::min<long long>((lg.nnz + kThreads * kLongPer - 1) / (kThreads * kLongPer), 65535) : 0; }

// In 32 bits, as the products: the builds keep the padded entries below 2^31.
struct Pos {
  unsigned p;      // the first entry
  unsigned stride; // between a row's consecutive entries (its block's rows)
  int      n;      // entries to read
  unsigned out;    // its position (y index of the floor)
  unsigned row;    // its matrix row (the product's y index): perm / row_no, for the permuted variant
};

// pjds: position i of the pJDS part, as pjds_row (pjds.cu) finds it.
struct PjdsLayout {
  const double    *val;
  const int       *col, *rowlen, *perm; // perm: null for the identity
  const std::int64_t *block_start;
  int              npj, br;
  bool             read_rowlen;
  long long        threads() const { return npj; }
  __device__ bool  at(unsigned i, Pos &q) const {
    if (i >= unsigned(npj)) return false;
    const gpumat::cuda::PjdsPos b  = gpumat::cuda::pjds_pos(i, unsigned(br), unsigned(npj));
    const long long             bs = block_start[b.b];
    q.p                            = unsigned(bs) + b.lane;
    q.stride                       = b.rows;
    q.n                            = read_rowlen ? rowlen[i] : int(gpumat::cuda::pjds_width(block_start[b.b + 1] - bs, b.rows));
    q.out                          = i;
    q.row                          = perm ? unsigned(perm[i]) : i;
    return true;
  }
};

// The values a gather floor reads: the layout's own array (L::val).
struct OwnValues {
  static __device__ __forceinline__ double at(const double *val, unsigned p, unsigned k) { return __ldcs(val + p + k); }
};

// The gather floor of a row-grouped layout L: each position's row read and x gathered, y written.
// Permuted: y written at the position's matrix row (perm, row_no) as the product writes it, the
// permutation read: floor:<format>-gather-perm, the gather floor plus the product's scattered stores.
// vals.at(a.val, p, k): the value of entry p + k (OwnValues: a.val's; the pjds floors' 16-bit codes into
// a table: floors_pjds.cu).
template <class L, bool Permuted, class Values>
__global__ void __launch_bounds__(kThreads, 6) rg_gather_floor(L a, LongDev lg, long long lblocks, const double *__restrict__ x, double *__restrict__ y, double *sink, Values vals) {
  if (blockIdx.x < lblocks) {
    long_part_floor(lg, lblocks, x, sink);
    return;
  }
  Pos q;
  if (!a.at(unsigned(blockIdx.x - lblocks) * kThreads + threadIdx.x, q)) return;
  double   s0 = 0, s1 = 0;
  unsigned p  = q.p; // may wrap after the last step, unused
  for (int j = 0; j < q.n; j += kUnroll, p += kUnroll * q.stride) {
    int    c[kUnroll];
    double v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const bool ok = j + u < q.n;
      c[u]          = ok ? __ldcs(a.col + p + u * q.stride) : 0;
      v[u]          = ok ? vals.at(a.val, p, u * q.stride) : 0.0;
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (j + u < q.n) (u & 1 ? s1 : s0) += v[u] * __ldg(x + c[u]);
  }
  y[Permuted ? q.row : q.out] = s0 + s1;
}

// The device side of one format's floors: the uploads (freed at the end), the two timings, the
// check of the gather floor's sums.
class Floors {
public:
  Floors(int reps, int warmup, char *err, int errlen) : reps_(reps), warmup_(warmup), err_(err), errlen_(errlen) {}
  ~Floors() {
    if (e0_) cudaEventDestroy(e0_);
    if (e1_) cudaEventDestroy(e1_);
    if (s_) cudaStreamDestroy(s_);
    for (void *d : dev_) cudaFree(d);
  }
  // a copy of v on the device, streamed by the stream floor (unless stream is false), not read otherwise
  template <typename V>
  bool up(const std::vector<V> &v, bool stream = true) {
    const V *d;
    return up(v, &d, stream);
  }
  // a copy of v on the device, also streamed by the stream floor unless stream is false
  template <typename V>
  bool up(const std::vector<V> &v, const V **d, bool stream = true) {
    void        *p     = nullptr;
    const size_t bytes = v.size() * sizeof(V);
    if (!ok(cudaMalloc(&p, std::max<size_t>(bytes, 256)), "cudaMalloc")) return false;
    dev_.push_back(p);
    *d = static_cast<const V *>(p);
    if (bytes && !ok(cudaMemcpy(p, v.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy")) return false;
    if (stream && bytes) {
      if (arrays_.n == kMaxArrays) return fail("too many arrays");
      arrays_.p[arrays_.n]     = static_cast<const uint4 *>(p);
      arrays_.n16[arrays_.n]   = (long long)(bytes / 16);
      arrays_.tail[arrays_.n]  = static_cast<const unsigned *>(p) + 4 * (bytes / 16);
      arrays_.ntail[arrays_.n] = int(bytes % 16 / 4);
      ++arrays_.n;
    }
    return true;
  }
  // x (ones and small variations), y and the sink; the stream and the events
  bool vectors(int nrows, int ncols) {
    nrows_ = nrows, ncols_ = ncols;
    hx_.resize((size_t)std::max(ncols, 1));
    for (size_t i = 0; i < hx_.size(); ++i) hx_[i] = 1.0 + 1e-7 * (double)(i % 1000);
    const double *dx;
    if (!up(hx_, &dx, false)) return false;
    x_ = dx;
    if (!ok(cudaMalloc((void **)&y_, sizeof(double) * (size_t)std::max(nrows, 1)), "cudaMalloc")) return false;
    dev_.push_back(y_);
    if (!ok(cudaMalloc((void **)&sink_, sizeof(double)), "cudaMalloc")) return false;
    dev_.push_back(sink_);
    return ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize") && ok(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking), "cudaStreamCreate") && ok(cudaEventCreate(&e0_), "cudaEventCreate") &&
           ok(cudaEventCreate(&e1_), "cudaEventCreate");
  }
  const std::vector<double> &x() const { return hx_; }
  // floor:<name>-stream alone (a layout whose gather floor has no kernel here: the uploaded arrays
  // at the streaming rate, x and y once); bench/floors_pjds.cu
  bool stream_only(const char *name, BenchFloor *res, int maxres, int *nres);
  // floor:<name>-stream, floor:<name>-gather and floor:<name>-gather-perm of layout L (rg_gather_floor
  // with its own values) into res; ref(y) checks the gather floor's y
  template <class L, class Check>
  bool run(const char *name, const L &layout, LongDev lg, Check ref, BenchFloor *res, int maxres, int *nres) {
    auto gather = [&](unsigned grid, long long lblocks, bool permuted) {
      if (permuted) rg_gather_floor<L, true><<<grid, kThreads, 0, s_>>>(layout, lg, lblocks, x_, y_, sink_, OwnValues{});
      else rg_gather_floor<L, false><<<grid, kThreads, 0, s_>>>(layout, lg, lblocks, x_, y_, sink_, OwnValues{});
    };
    return run_kinds(name, layout.threads(), lg, gather, true, "gather floor", ref, res, maxres, nres);
  }
  // floor:<name>-stream and floor:<name>-gather of a layout whose gather kernel gather_on(grid,
  // lblocks, stream, x, y, sink) launches on the stream given; y checked as run() checks it
  template <class Gather, class Check>
  bool run_custom(const char *name, long long threads, LongDev lg, Gather gather_on, Check ref, BenchFloor *res, int maxres, int *nres) {
    auto gather = [&](unsigned grid, long long lblocks, bool) { gather_on(grid, lblocks, s_, x_, y_, sink_); };
    return run_kinds(name, threads, lg, gather, false, name, ref, res, maxres, nres);
  }
  bool fail(const char *what) {
    snprintf(err_, (size_t)errlen_, "%s", what);
    rc_ = -1;
    return false;
  }
  int rc() const { return rc_; }

private:
  // The gather floor of `threads` positions (gather(grid, lblocks, permuted) launches it on s_, the
  // long part in its first lblocks CUDA blocks) run once and its y checked by ref, then timed with
  // the stream floor: floor:<name>-stream, -gather and, with_perm, -gather-perm. label names the
  // gather launch in a CUDA error.
  template <class Gather, class Check>
  bool run_kinds(const char *name, long long threads, LongDev lg, Gather gather, bool with_perm, const char *label, Check ref, BenchFloor *res, int maxres, int *nres) {
    int dev = 0, sms = 0, per_sm = 0;
    if (!ok(cudaGetDevice(&dev), "cudaGetDevice") || !ok(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), "cudaDeviceGetAttribute") ||
        !ok(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, rg_stream_floor, kThreads, 0), "cudaOccupancyMaxActiveBlocksPerMultiprocessor"))
      return false;
    const int       sgrid   = std::max(1, per_sm) * sms;
    const long long lblocks = long_blocks(lg);
    const long long grid    = lblocks + (threads + kThreads - 1) / kThreads;
    auto            launch_gather = [&](bool permuted) {
      if (grid > 0) gather((unsigned)grid, lblocks, permuted);
      return cudaSuccess;
    };
    // the check: one run, y at the positions against the CSR product of their rows
    std::vector<double> hy((size_t)std::max(nrows_, 1));
    if (!ok(cudaMemsetAsync(y_, 0, hy.size() * sizeof(double), s_), "cudaMemsetAsync") || !ok(launch_gather(false), label) || !ok(cudaGetLastError(), label) ||
        !ok(cudaMemcpyAsync(hy.data(), y_, hy.size() * sizeof(double), cudaMemcpyDeviceToHost, s_), "cudaMemcpyAsync") || !ok(cudaStreamSynchronize(s_), "cudaStreamSynchronize"))
      return false;
    std::string why = ref(hy);
    if (!why.empty()) return fail((std::string(name) + " floors: the gather floor's sums differ from the CSR product: " + why).c_str());
    const struct {
      const char *kind;
      int         what; // 0 stream, 1 gather, 2 gather with the product's permuted stores
    } kinds[] = {{"stream", 0}, {"gather", 1}, {"gather-perm", 2}};
    for (const auto &k : kinds) {
      if (*nres >= maxres || (k.what == 2 && !with_perm)) break;
      snprintf(res[*nres].name, sizeof(res[*nres].name), "floor:%s-%s", name, k.kind);
      auto launch = [&] {
        if (k.what == 0) rg_stream_floor<<<sgrid, kThreads, 0, s_>>>(arrays_, x_, ncols_, y_, nrows_, sink_);
        else launch_gather(k.what == 2);
        return cudaSuccess;
      };
      if (!ok(gpumat_bench::time_reps(launch, s_, e0_, e1_, warmup_, reps_, &res[*nres].median_ms, &res[*nres].min_ms), res[*nres].name)) return false;
      ++*nres;
    }
    return true;
  }
  bool ok(cudaError_t e, const char *what) {
    if (e == cudaSuccess) return true;
    snprintf(err_, (size_t)errlen_, "%s failed: %s", what, cudaGetErrorString(e));
    rc_ = (int)e;
    return false;
  }
  int                 reps_, warmup_, errlen_, rc_ = 0, nrows_ = 0, ncols_ = 0;
  char               *err_;
  std::vector<void *> dev_;
  std::vector<double> hx_;
  Arrays              arrays_{};
  const double       *x_ = nullptr;
  double             *y_ = nullptr, *sink_ = nullptr;
  cudaStream_t        s_  = nullptr;
  cudaEvent_t         e0_ = nullptr, e1_ = nullptr;
};

// The check of a gather floor: y[pos] against row(pos)'s CSR product with x, relative to the
// row's sum of |a x|; "" when every position agrees.
template <class RowOf>
std::string check_rows(const int *rowptr, const int *colidx, const double *val, const std::vector<double> &x, const std::vector<double> &y, long long positions, RowOf row_of) {
  for (long long i = 0; i < positions; ++i) {
    const int r = row_of(i);
    double    s = 0, m = 0;
    for (int k = rowptr[r]; k < rowptr[r + 1]; ++k) s += val[k] * x[(size_t)colidx[k]], m += std::fabs(val[k] * x[(size_t)colidx[k]]);
    if (std::fabs(y[(size_t)i] - s) > 1e-12 * std::max(m, 1e-300) + 1e-300) {
      char b[160];
      snprintf(b, sizeof(b), "position %lld (row %d): %.17g, CSR %.17g", i, r, y[(size_t)i], s);
      return b;
    }
  }
  return "";
}

// The floors of pjds's compressed layouts (bench/floors_pjds.cu), after BenchFloorsPjds's: B is the
// pjds it timed (32-bit columns, fp64 values), read_rowlen whether its product reads rowlen. Fills
// the rest of info, appends to res[0..*nres). Returns 0, or nonzero with a message in err, as
// BenchFloorsPjds.
int pjds_compressed_floors(const gpumat::Pjds<double> &B, bool read_rowlen, int nrows, int ncols, const int *rowptr, const int *colidx, const double *val, int reps, int warmup, BenchFloor *res,
                           int maxres, int *nres, BenchPjdsInfo *info, char *err, int errlen);

} // namespace gpumat_floors
