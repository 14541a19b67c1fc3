// Adapter: gpuauto (src/core/gpuauto.hpp), the format predicted to cost each block least (its build
// and -mat_gpuauto_horizon products). It holds one
// instance of every candidate format with the user's options for it (-mat_<candidate>_*), decides
// at each build of a new nonzero pattern, and from then on forwards every call to the chosen one.
// The MPI type's diagonal and off-diagonal blocks decide separately (they may differ).
#include "gpumat_impl.hpp"
#include "core/format_record.hpp"
#include "core/gpuauto.hpp"
#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>
#include <sstream>

namespace gpumat {
namespace {

class AutoFormat final : public Format {
public:
  PetscErrorCode SetFromOptions(PetscOptionItems PetscOptionsObject) override
  {
    const FormatRecord &r = gpuauto_record();
    char                list[512], choose[64], file[PETSC_MAX_PATH_LEN];
    PetscBool           set;
    PetscFunctionBegin;
    PetscCall(PetscStrncpy(list, Join(names_).c_str(), sizeof(list)));
    PetscCall(ReadOption(PetscOptionsObject, r.option("candidates"), list, list, sizeof(list), &set));
    if (set) {
      std::vector<std::string> want;
      std::stringstream        ss(list);
      for (std::string t; std::getline(ss, t, ',');)
        if (!t.empty()) {
          PetscCheck(Known(t), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_gpuauto_candidates: '%s' is not a candidate (the candidates: %s)", t.c_str(), Join(Available()).c_str());
          if (std::find(want.begin(), want.end(), t) == want.end()) want.push_back(t);
        }
      PetscCheck(!want.empty(), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_gpuauto_candidates needs at least one of: %s", Join(Available()).c_str());
      names_ = want;
    }
    choose[0] = 0;
    PetscCall(ReadOption(PetscOptionsObject, r.option("choose"), choose, choose, sizeof(choose), &set));
    if (set && choose[0]) {
      PetscCheck(std::find(names_.begin(), names_.end(), std::string(choose)) != names_.end(), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_gpuauto_choose: '%s' is not among the candidates (%s)", choose, Join(names_).c_str());
      forced_ = choose;
    }
    file[0] = 0;
    PetscCall(ReadOption(PetscOptionsObject, r.option("constants"), file, file, sizeof(file), &set));
    if (set && file[0]) {
      AutoConstants c = auto_shipped_constants();
      std::string   err;
      if (auto_read_constants(file, c, err)) {
        constants_      = c;
        constants_file_ = file;
      } else { // a bad file must not stop the solve: the shipped constants, and say why
        PetscCall(PetscInfo(nullptr, "gpuauto: %s; using the shipped constants\n", err.c_str()));
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "WARNING gpuauto: %s; using the shipped constants (%s)\n", err.c_str(), constants_.name.c_str()));
      }
    }
    PetscInt k;
    PetscCall(ReadOption(PetscOptionsObject, r.option("trial"), (PetscInt)trial_, &k, nullptr));
    trial_ = (int)k;
    PetscCall(ReadOption(PetscOptionsObject, r.option("trial_products"), (PetscInt)trial_products_, &k, nullptr));
    trial_products_ = (int)k;
    PetscCall(ReadOption(PetscOptionsObject, r.option("small"), small_nnz_, &small_nnz_, nullptr));
    PetscCall(ReadOption(PetscOptionsObject, r.option("horizon"), horizon_, &horizon_, nullptr));
    for (const std::string &n : names_) PetscCall(Candidate(n)->SetFromOptions(PetscOptionsObject));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  // -mat_gpumat_values fp32: every candidate that stores fp32 values does so (pjds), and is
  // predicted so (AutoHints::fp32); the others store their fp64 values
  bool SetFp32Values(bool on) override
  {
    fp32_ = on;
    for (auto &[n, c] : candidates_)
      if (c) (void)c->SetFp32Values(on);
    return true;
  }

  std::unique_ptr<Format> CloneSettings() const override
  {
    auto f             = std::make_unique<AutoFormat>();
    f->fp32_           = fp32_;
    f->names_          = names_;
    f->forced_         = forced_;
    f->constants_      = constants_;
    f->constants_file_ = constants_file_;
    f->small_nnz_      = small_nnz_;
    f->horizon_        = horizon_;
    f->trial_          = trial_;
    f->device_constants_ = device_constants_;
    f->trial_products_ = trial_products_;
    for (const auto &[n, c] : candidates_) f->candidates_[n] = c->CloneSettings();
    return f;
  }

  PetscErrorCode HostBuild(const CsrView<Scalar> &A) override { return Build(A, false, nullptr); }
  PetscErrorCode HostRefresh(const CsrView<Scalar> &A) override { return chosen_->HostRefresh(A); }
  PetscErrorCode HostApply(const CsrView<Scalar> &A, Op op, const Scalar *x, const Scalar *z, Scalar *y) override { return chosen_->HostApply(A, op, x, z, y); }

#if defined(GPUMAT_WITH_CUDA)
  PetscErrorCode DeviceBuild(const CsrView<Scalar> &A, cudaStream_t s) override { return Build(A, true, s); }
  // The decision on A as given (the host's values where they are the newest, else the pattern
  // alone: no value table predicted), then whether the choice builds from the device CSR; the
  // decision is kept for the build that follows (from the device CSR, or DeviceBuild's where the
  // choice has no such build). Trial mode times its candidates through DeviceBuild.
  PetscErrorCode BuildsOnDevice(const CsrView<Scalar> &A, bool *yes) override
  {
    PetscFunctionBegin;
    *yes               = false;
    decided_on_device_ = false;
    if (trial_ && forced_.empty()) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(Decide(A));
    decided_on_device_ = true;
    PetscCall(chosen_->BuildsOnDevice(A, yes));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  // The choice built from the device CSR where it has such a build (else the machinery's DeviceBuild
  // uploads), on BuildsOnDevice's decision when it was just made.
  PetscErrorCode DeviceBuildOnDevice(const CsrView<Scalar> &A, const cuda::DeviceCsrView<Scalar> &dev, cudaStream_t s, bool *done) override
  {
    PetscFunctionBegin;
    *done = false;
    if (trial_ && forced_.empty()) PetscFunctionReturn(PETSC_SUCCESS);
    if (!decided_on_device_) PetscCall(Decide(A));
    decided_on_device_ = false;
    PetscCall(chosen_->DeviceBuildOnDevice(A, dev, s, done));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode DeviceRefresh(const CsrView<Scalar> &A, Mem values, cudaStream_t s) override { return chosen_->DeviceRefresh(A, values, s); }
  PetscErrorCode DeviceApply(Op op, const Scalar *x, const Scalar *z, Scalar *y, cudaStream_t s) override { return chosen_->DeviceApply(op, x, z, y, s); }
  PetscErrorCode DeviceDiagonal(const index_t *rowmap, Scalar *d, cudaStream_t s) override { return chosen_->DeviceDiagonal(rowmap, d, s); }
#endif
  void DeviceRelease() override
  {
    for (auto &[n, c] : candidates_) c->DeviceRelease();
  }
  std::size_t DeviceBytes() const override { return chosen_ ? chosen_->DeviceBytes() : 0; }
  double      ReadBytes() const override { return chosen_ ? chosen_->ReadBytes() : std::numeric_limits<double>::quiet_NaN(); }
  bool        HasDeviceTranspose() const override { return chosen_ && chosen_->HasDeviceTranspose(); }
  bool        HasDeviceDiagonal() const override { return chosen_ && chosen_->HasDeviceDiagonal(); }
  const std::string &StoredAs() const override { return chosen_name_; }

  PetscErrorCode ViewInfo(PetscViewer v, const CsrView<Scalar> &A) const override
  {
    PetscFunctionBegin;
    if (!chosen_) {
      PetscCall(PetscViewerASCIIPrintf(v, "gpuauto: not built yet; candidates %s\n", Join(names_).c_str()));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if (small_) // no prediction: nothing sampled
      PetscCall(PetscViewerASCIIPrintf(v, "gpuauto chose %s (a small block: %lld nonzeros, fewer than -mat_gpuauto_small %lld; no prediction)\n", chosen_name_.c_str(), (long long)A.nnz(), (long long)small_nnz_));
    else {
      const AutoSample &s = decision_.sample;
      PetscCall(PetscViewerASCIIPrintf(v, "gpuauto chose %s (%s); decided in %.2f ms on %lld sampled rows (%lld entries%s); constants: %s\n", chosen_name_.c_str(), !forced_.empty() ? "-mat_gpuauto_choose" : trial_ ? "the fastest in -mat_gpuauto_trial" : decision_.horizon > 0 ? "the least predicted build + horizon x product" : "the fastest prediction", decision_.decide_ms,
                                       (long long)s.sampled_rows, (long long)s.sampled_entries, s.exact ? ", the whole matrix" : "", constants_file_.empty() ? constants_.name.c_str() : constants_file_.c_str()));
      if (fp32_) PetscCall(PetscViewerASCIIPrintf(v, "gpuauto: -mat_gpumat_values fp32: the candidates with fp32 storage (pjds) predicted and built with it, the others with their fp64 values\n"));
      PetscCall(PetscViewerASCIIPrintf(v, "gpuauto predictions for %lld rows, horizon %.0f products (ms per product; build ms; the cost ranked: build + horizon x product, or the product at horizon 0; bytes per product; the gathers of x beyond the coalesced ones; bound):\n", (long long)A.nrows, decision_.horizon));
      for (const AutoPrediction &p : decision_.predictions)
        PetscCall(PetscViewerASCIIPrintf(v, "  %-13s %10.4f  build %9.3f ms  cost %10.3f ms  %12.4g B  gather %9.4f ms  %-7s %s%s\n", p.candidate.c_str(), p.ms, p.build_ms, p.cost_ms, p.bytes, p.gather_ms, p.gather_bound ? "gather" : "stream", p.detail.c_str(),
                                         p.candidate == chosen_name_ ? "  <- chosen" : ""));
      if (!trial_log_.empty()) PetscCall(PetscViewerASCIIPrintf(v, "gpuauto trial (-mat_gpuauto_trial %d): %s\n", trial_, trial_log_.c_str()));
      const MatrixFeatures &f = s.f;
      PetscCall(PetscViewerASCIIPrintf(v, "gpuauto features (sampled): mean row %.2f (cv %.2f, longest %lld), padding sliced ELL %.2f %% / sorted %.2f %%, BSR fill 2/3/4 %.3f/%.3f/%.3f, x sectors per 32 entries CSR %.1f ELL %.1f, distinct sectors per entry %.3f, far from the diagonal %.3f\n",
                                       f.mean_row, f.cv_row, (long long)f.max_row, 100 * f.padding_sell, 100 * f.padding_sorted, f.block_fill(2), f.block_fill(3), f.block_fill(4), f.sectors_csr, f.sectors_ell, s.sector_use, s.far_share));
    }
    PetscCall(PetscViewerASCIIPrintf(v, "%s:\n", chosen_name_.c_str()));
    PetscCall(PetscViewerASCIIPushTab(v));
    PetscCall(chosen_->ViewInfo(v, A));
    PetscCall(PetscViewerASCIIPopTab(v));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  // candidates (comma-separated, as -mat_gpuauto_candidates leaves them); once built: chosen,
  // reason (small|choose|prediction|trial: a small block, -mat_gpuauto_choose, the least predicted
  // cost, the fastest in -mat_gpuauto_trial), and unless small: predictions ("name:ms,..." of the
  // product times, the least cost first, ms as MatView prints them), horizon (the products the cost
  // counts), constants (their name, or the file given), longest_row and per candidate c
  // prediction.c.build_ms, .cost_ms, .bytes, .gather_ms, .bound (stream|gather), .detail, .key (the
  // constants it was predicted with), .long_share, .hops; after
  // a trial: trial (timed|cache) and trial_times ("name:ms,..." of the candidates timed); then the
  // chosen candidate's own keys, each prefixed "candidate.".
  void Describe(Properties &out, const CsrView<Scalar> &A) const override
  {
    out.emplace_back("candidates", Join(names_));
    if (!chosen_) return;
    out.emplace_back("chosen", chosen_name_);
    out.emplace_back("reason", small_ ? "small" : !forced_.empty() ? "choose" : trial_ ? "trial" : "prediction");
    if (!small_) {
      std::string all;
      for (const AutoPrediction &p : decision_.predictions) {
        char b[48];
        snprintf(b, sizeof b, ":%.4f", p.ms);
        all += (all.empty() ? "" : ",") + p.candidate + b;
      }
      out.emplace_back("predictions", all);
      {
        char b[48];
        snprintf(b, sizeof b, "%.0f", decision_.horizon);
        out.emplace_back("horizon", b);
      }
      out.emplace_back("constants", constants_file_.empty() ? constants_.name : constants_file_);
      out.emplace_back("longest_row", std::to_string(decision_.sample.f.max_row));
      // each prediction's parts, as MatView's table shows them
      for (const AutoPrediction &p : decision_.predictions) {
        char b[64];
        const std::string k = "prediction." + p.candidate + ".";
        snprintf(b, sizeof b, "%.6f", p.build_ms);
        out.emplace_back(k + "build_ms", b);
        snprintf(b, sizeof b, "%.6f", p.cost_ms);
        out.emplace_back(k + "cost_ms", b);
        snprintf(b, sizeof b, "%.6g", p.bytes);
        out.emplace_back(k + "bytes", b);
        snprintf(b, sizeof b, "%.6f", p.gather_ms);
        out.emplace_back(k + "gather_ms", b);
        out.emplace_back(k + "bound", p.gather_bound ? "gather" : "stream");
        out.emplace_back(k + "detail", p.detail);
        out.emplace_back(k + "key", p.key);
        snprintf(b, sizeof b, "%.6g", p.long_share);
        out.emplace_back(k + "long_share", b);
        snprintf(b, sizeof b, "%.6g", p.hops);
        out.emplace_back(k + "hops", b);
      }
    }
    if (!trial_log_.empty()) {
      // the log's "name 0.012345 ms, name refused the matrix" as "name:0.012345"
      std::string       times, item;
      std::stringstream ss(trial_times_);
      while (std::getline(ss, item, ',')) {
        item.erase(0, item.find_first_not_of(' '));
        const auto sp = item.find(' ');
        if (sp == std::string::npos || item.size() < 3 || item.compare(item.size() - 3, 3, " ms") != 0) continue; // refused
        times += (times.empty() ? "" : ",") + item.substr(0, sp) + ":" + item.substr(sp + 1, item.size() - 3 - sp - 1);
      }
      out.emplace_back("trial", trial_cached_ ? "cache" : "timed");
      out.emplace_back("trial_times", times);
    }
    Properties own;
    chosen_->Describe(own, A);
    for (auto &[k, v] : own) out.emplace_back("candidate." + k, std::move(v));
  }

  AutoFormat() : names_(Available()), constants_(auto_shipped_constants()) {}

private:
  static bool Known(const std::string &n)
  {
    const auto a = Available();
    return std::find(a.begin(), a.end(), n) != a.end();
  }
  // The candidates this build has: auto_all_candidates() that the registry holds.
  static std::vector<std::string> Available()
  {
    std::vector<std::string> v;
    for (const std::string &n : auto_all_candidates())
      if (FindFormat(n.c_str())) v.push_back(n);
    return v;
  }
  static std::string Join(const std::vector<std::string> &v)
  {
    std::string s;
    for (const auto &n : v) s += (s.empty() ? "" : ",") + n;
    return s;
  }
  Format *Candidate(const std::string &n)
  {
    auto &c = candidates_[n];
    if (!c) {
      c = FindFormat(n.c_str())->create();
      (void)c->SetFp32Values(fp32_); // false for a candidate without fp32 storage: it stores fp64
    }
    return c.get();
  }

  // A new pattern on one side (host or device): the decision, then the choice built (timed
  // against the next predictions in trial mode).
  PetscErrorCode Build(const CsrView<Scalar> &A, bool device, cudaStream_t s)
  {
    PetscFunctionBegin;
    if (!(device && decided_on_device_)) PetscCall(Decide(A)); // else BuildsOnDevice's, just made
    decided_on_device_ = false;
    if (trial_ && forced_.empty()) PetscCall(Trial(A, device, s));
    else PetscCall(BuildChosen(A, device, s));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode BuildChosen(const CsrView<Scalar> &A, bool device, cudaStream_t s) { return device ? chosen_->DeviceBuild(A, s) : chosen_->HostBuild(A); }

  // Trial mode: the first trial_ predictions built and timed (device products with CUDA events on
  // s, or host reference products), the fastest kept; the decision read from and stored in the
  // tuning cache under A's pattern, this device, the candidates and k. A candidate whose build
  // fails (it refuses the matrix) is skipped; the others' storage is dropped.
  PetscErrorCode Trial(const CsrView<Scalar> &A, bool device, cudaStream_t s)
  {
    static constexpr int schema = 1;
    TuningKey            key;
    std::optional<TuningValues> cached;
    const std::string    cands = Join(names_), k = std::to_string(trial_);
    PetscFunctionBegin;
    PetscCall(TuningKeyFor(A, "gpuauto", schema, &key));
    const std::string pattern = key.text() + cands + "/" + k;
    if (pattern == trial_pattern_ && !trial_choice_.empty()) { // the other side of the same pattern: the same candidate
      PetscCall(Become(trial_choice_));
      PetscCall(BuildChosen(A, device, s));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    for (auto &[n, c] : candidates_) Drop(n); // a new pattern: the last one's storage
    trial_log_.clear(), trial_times_.clear();
    trial_pattern_ = pattern, trial_choice_.clear();
    PetscCall(TuningCacheLookup(nullptr, TuningCacheDir(), key, &cached));
    if (cached) {
      const auto get = [&](const char *f) { auto it = cached->find(f); return it == cached->end() ? std::string() : it->second; };
      const std::string c = get("chosen");
      if (get("candidates") == cands && get("trial") == k && std::find(names_.begin(), names_.end(), c) != names_.end()) {
        PetscCall(Become(c));
        trial_log_    = "from the tuning cache: " + c + " (timed: " + get("times") + ")";
        trial_times_  = get("times");
        trial_cached_ = true;
        trial_choice_ = c;
        PetscCall(PetscInfo(nullptr, "gpuauto trial: %s\n", trial_log_.c_str()));
        PetscCall(BuildChosen(A, device, s));
        PetscFunctionReturn(PETSC_SUCCESS);
      }
      PetscCall(PetscInfo(nullptr, "gpuauto trial: the cached decision was made for other candidates or another -mat_gpuauto_trial; timing afresh\n"));
    }
    std::string best, times;
    double      best_ms = 0;
    const int   n       = std::min<int>(trial_, (int)decision_.predictions.size());
    for (int i = 0; i < n; ++i) {
      const std::string name = decision_.predictions[i].candidate;
      PetscCall(Become(name));
      PetscErrorCode ierr;
      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, nullptr));
      ierr = BuildChosen(A, device, s);
      PetscCall(PetscPopErrorHandler());
      double ms = -1;
      if (ierr == PETSC_SUCCESS) PetscCall(TimeProducts(A, device, s, &ms));
      char b[96];
      snprintf(b, sizeof b, "%s%s %s", times.empty() ? "" : ", ", name.c_str(), ms >= 0 ? (std::to_string(ms).substr(0, 8) + " ms").c_str() : "refused the matrix");
      times += b;
      if (ms >= 0 && (best.empty() || ms < best_ms)) { // one candidate's storage beside the best's at a time
        if (!best.empty()) Drop(best);
        best = name, best_ms = ms;
      } else Drop(name);
    }
    PetscCheck(!best.empty(), PETSC_COMM_SELF, PETSC_ERR_SUP, "gpuauto trial: no candidate could be built for this matrix (%s); choose one with -mat_gpuauto_choose", times.c_str());
    PetscCall(Become(best));
    trial_choice_ = best;
    trial_log_    = "timed " + times + ": " + best;
    trial_times_  = times;
    trial_cached_ = false;
    PetscCall(PetscInfo(nullptr, "gpuauto trial: %s\n", trial_log_.c_str()));
    PetscCall(TuningCacheStore(nullptr, TuningCacheDir(), key, TuningValues{{"chosen", best}, {"candidates", cands}, {"trial", k}, {"times", times}}));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  // Mean time of trial_products_ products after one warm-up (ms).
  PetscErrorCode TimeProducts(const CsrView<Scalar> &A, bool device, cudaStream_t s, double *ms)
  {
    PetscFunctionBegin;
    if (!device) {
      std::vector<Scalar> x((std::size_t)A.ncols, 1.0), y((std::size_t)A.nrows);
      PetscLogDouble      t0, t1;
      PetscCall(chosen_->HostApply(A, Op::NoTrans, x.data(), nullptr, y.data()));
      PetscCall(PetscTime(&t0));
      for (int r = 0; r < trial_products_; ++r) PetscCall(chosen_->HostApply(A, Op::NoTrans, x.data(), nullptr, y.data()));
      PetscCall(PetscTime(&t1));
      *ms = 1e3 * (t1 - t0) / trial_products_;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
#if defined(GPUMAT_WITH_CUDA)
    Scalar     *x = nullptr, *y = nullptr;
    cudaEvent_t e0, e1;
    float       t = 0;
    PetscCall(CheckDevice(cudaMalloc(&x, sizeof(Scalar) * std::max<std::size_t>(1, (std::size_t)A.ncols)), "gpuauto trial: its vectors", A));
    PetscCall(CheckDevice(cudaMalloc(&y, sizeof(Scalar) * std::max<std::size_t>(1, (std::size_t)A.nrows)), "gpuauto trial: its vectors", A));
    PetscCallCUDA(cudaMemsetAsync(x, 0, sizeof(Scalar) * (std::size_t)A.ncols, s));
    PetscCallCUDA(cudaEventCreate(&e0));
    PetscCallCUDA(cudaEventCreate(&e1));
    PetscCall(chosen_->DeviceApply(Op::NoTrans, x, nullptr, y, s));
    PetscCallCUDA(cudaEventRecord(e0, s));
    for (int r = 0; r < trial_products_; ++r) PetscCall(chosen_->DeviceApply(Op::NoTrans, x, nullptr, y, s));
    PetscCallCUDA(cudaEventRecord(e1, s));
    PetscCallCUDA(cudaEventSynchronize(e1));
    PetscCallCUDA(cudaEventElapsedTime(&t, e0, e1));
    PetscCallCUDA(cudaEventDestroy(e0));
    PetscCallCUDA(cudaEventDestroy(e1));
    PetscCallCUDA(cudaFree(x));
    PetscCallCUDA(cudaFree(y));
    *ms = (double)t / trial_products_;
#else
    (void)s;
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "gpuauto trial: device products need a CUDA build");
#endif
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  // The block becomes candidate n (with the hints the machinery gave this format).
  PetscErrorCode Become(const std::string &n)
  {
    PetscFunctionBegin;
    chosen_name_ = n;
    chosen_      = Candidate(n);
    chosen_->SetBlockSize(BlockSize());
    chosen_->SetLongestRow(LongestRow());
    chosen_->SetTuningCacheDir(TuningCacheDir());
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  // Candidate n's storage (host and device) dropped, its settings kept.
  void Drop(const std::string &n)
  {
    auto &c = candidates_[n];
    if (!c) return;
    c->DeviceRelease();
    c = c->CloneSettings();
  }

  // The shipped constants of the GPU products run on (CUDA builds: by the current device's name,
  // once; none answering: the H100's), unless a file gave them. Both sides (host, device) of a
  // pattern then decide with the same constants, so they choose the same candidate.
  PetscErrorCode EnsureConstants()
  {
    PetscFunctionBegin;
    if (!constants_file_.empty() || device_constants_) PetscFunctionReturn(PETSC_SUCCESS);
    device_constants_ = true;
#if defined(GPUMAT_WITH_CUDA)
    int            dev = 0, count = 0;
    cudaDeviceProp prop;
    if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0 && cudaGetDevice(&dev) == cudaSuccess && cudaGetDeviceProperties(&prop, dev) == cudaSuccess) PetscCallCXX(constants_ = auto_shipped_constants(prop.name));
    else (void)cudaGetLastError(); // no GPU: the H100's constants, the error not left behind
#endif
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  // The decision for the stored matrix A (a new pattern), then the chosen candidate gets the hints
  // the machinery gave this format.
  PetscErrorCode Decide(const CsrView<Scalar> &A)
  {
    PetscFunctionBegin;
    const std::string small = forced_.empty() && !trial_ ? auto_small_choice(std::int64_t(A.nnz()), std::int64_t(small_nnz_), names_) : std::string();
    small_                  = !small.empty();
    if (small_) { // no prediction: the decision is the small blocks' candidate
      decision_        = AutoDecision{};
      decision_.chosen = small;
    } else {
      PetscCall(EnsureConstants());
      AutoHints h;
      h.block_size  = BlockSize();
      h.longest_row = LongestRow();
      h.horizon     = double(horizon_);
      h.fp32        = fp32_;
      PetscCallCXX(decision_ = auto_decide(A, h, constants_, names_));
      PetscCheck(!decision_.predictions.empty() || !forced_.empty(), PETSC_COMM_SELF, PETSC_ERR_PLIB, "gpuauto: no candidate could be predicted for this %lld x %lld matrix (candidates %s)", (long long)A.nrows, (long long)A.ncols, Join(names_).c_str());
    }
    const std::string pick = forced_.empty() ? decision_.chosen : forced_;
    // the previous pattern's choice dropped (in trial mode Trial drops what it no longer needs)
    if (chosen_ && pick != chosen_name_ && !(trial_ && forced_.empty())) Drop(chosen_name_);
    PetscCall(Become(pick));
    std::string all;
    for (const AutoPrediction &p : decision_.predictions) {
      char b[128];
      snprintf(b, sizeof b, "%s%s %.4f + %.2f", all.empty() ? "" : ", ", p.candidate.c_str(), p.ms, p.build_ms);
      all += b;
    }
    if (small_) PetscCall(PetscInfo(nullptr, "gpuauto: %lld x %lld, %lld nonzeros: chose %s (fewer than -mat_gpuauto_small %lld nonzeros: no prediction)\n", (long long)A.nrows, (long long)A.ncols, (long long)A.nnz(), pick.c_str(), (long long)small_nnz_));
    else
      PetscCall(PetscInfo(nullptr, "gpuauto: %lld x %lld, %lld nonzeros: chose %s%s; horizon %.0f products; predicted ms per product + build ms, the least build + horizon x product first (the product alone at horizon 0): %s (decided in %.2f ms)\n", (long long)A.nrows, (long long)A.ncols, (long long)A.nnz(), pick.c_str(),
                          forced_.empty() ? "" : " (-mat_gpuauto_choose)", decision_.horizon, all.c_str(), decision_.decide_ms));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  std::vector<std::string>                        names_;
  std::string                                     forced_;
  bool                                            decided_on_device_ = false; // BuildsOnDevice decided for the build that follows
  bool                                            fp32_ = false; // -mat_gpumat_values fp32 (SetFp32Values)
  AutoConstants                                   constants_;
  std::string                                     constants_file_;
  std::map<std::string, std::unique_ptr<Format>>  candidates_;
  Format                                         *chosen_ = nullptr;
  std::string                                     chosen_name_;
  AutoDecision                                    decision_;
  bool                                            device_constants_ = false; // the shipped set of this GPU chosen
  int                                             trial_          = 0; // -mat_gpuauto_trial
  PetscInt                                        small_nnz_      = kAutoSmallNnz; // -mat_gpuauto_small
  PetscInt                                        horizon_        = kAutoHorizon;  // -mat_gpuauto_horizon
  bool                                            small_          = false; // the last decision was a small block's
  int                                             trial_products_ = 10;
  std::string                                     trial_log_;
  std::string                                     trial_times_;          // the last trial's times, as its log shows them
  bool                                            trial_cached_ = false; // the last trial's decision came from the tuning cache
  std::string                                     trial_pattern_, trial_choice_; // the last trial's pattern (its key) and choice
};

} // namespace

std::unique_ptr<Format> CreateGpuAuto() { return std::make_unique<AutoFormat>(); }

} // namespace gpumat
