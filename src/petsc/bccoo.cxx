// Adapter: bccoo (src/core/bccoo.hpp, src/cuda/bccoo.cuh) as a petsc-gpumat format.
#include "gpumat_impl.hpp"
#include "core/bccoo.hpp"
#include "core/bccoo_tune.hpp"
#include "core/format_record.hpp"
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#if defined(GPUMAT_WITH_CUDA)
  #include "cuda/bccoo.cuh"
  #include "cuda/bccoo_tune.cuh"
#endif

namespace gpumat {
namespace {

class BccooFormat final : public WithHostFunctions<GPUMAT_DEVICE_FORMAT(cuda::BccooDevice<Scalar>), Bccoo<Scalar>, bccoo_refresh<Scalar>, bccoo_apply<Scalar>> {
public:
#if defined(GPUMAT_WITH_CUDA)
  double ReadBytes() const override { return dev_.device_bytes() ? (double)dev_.format_bytes() : std::numeric_limits<double>::quiet_NaN(); }
#endif
  PetscErrorCode SetFromOptions(PetscOptionItems PetscOptionsObject) override
  {
    const FormatRecord &r = bccoo_record();
    PetscFunctionBegin;
    struct {
      const char *key;
      int        *value;
    } opts[] = {
      {"block_height", &user_.h}, {"block_width", &user_.w}, {"slices", &user_.slices}, {"tile", &user_.tile}, {"group", &user_.group}, {"strategy", &user_.strategy},
    };
    for (auto &o : opts) {
      PetscInt  v;
      PetscBool set;
      PetscCall(ReadOption(PetscOptionsObject, r.option(o.key), (PetscInt)*o.value, &v, &set));
      if (set) *o.value = (int)v;
    }
    PetscEnum c = (PetscEnum)(user_.compress_col < 0 ? 0 : (user_.compress_col ? 1 : 2)); // auto, yes, no
    PetscCall(ReadOption(PetscOptionsObject, r.option("compress_columns"), c, &c, nullptr));
    user_.compress_col = c == 0 ? -1 : (c == 1 ? 1 : 0);
    PetscBool tune     = tune_ ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(ReadOption(PetscOptionsObject, r.option("tune"), tune, &tune, nullptr));
    tune_         = tune == PETSC_TRUE;
    PetscInt reps = tune_reps_;
    PetscCall(ReadOption(PetscOptionsObject, r.option("tune_reps"), reps, &reps, nullptr));
    tune_reps_        = (int)reps;
    BccooParams check = user_;
    PetscCall(Resolve(check, &check)); // report a bad value now, not at the first product
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  std::unique_ptr<Format> CloneSettings() const override
  {
    auto f        = std::make_unique<BccooFormat>();
    f->user_      = user_;
    f->tune_      = tune_;
    f->tune_reps_ = tune_reps_;
    return f;
  }

  PetscErrorCode HostBuild(const CsrView<Scalar> &A) override
  {
    PetscFunctionBegin;
    PetscCall(Choose(A));
    PetscCallCXX(bccoo_build(A, choice_.p, host_));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

#if defined(GPUMAT_WITH_CUDA)
  PetscErrorCode DeviceBuild(const CsrView<Scalar> &A, cudaStream_t s) override { return BuildFrom(A, A, s); }
  PetscErrorCode BuildsOnDevice(const CsrView<Scalar> &, bool *yes) override
  {
    *yes = !tune_; // the tuner builds its candidates from its own upload of A
    return PETSC_SUCCESS;
  }
  PetscErrorCode DeviceBuildOnDevice(const CsrView<Scalar> &A, const cuda::DeviceCsrView<Scalar> &dev, cudaStream_t s, bool *done) override
  {
    PetscFunctionBegin;
    *done = !tune_;
    if (*done) PetscCall(BuildFrom(A, dev, s));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

#endif

  PetscErrorCode ViewInfo(PetscViewer v, const CsrView<Scalar> &A) const override
  {
    const BccooParams &p = choice_.p;
    const bool         tuned = Tuned();
    auto               src = [tuned](int user) { return user ? "set" : tuned ? "tuner" : "model"; };
    PetscFunctionBegin;
    if (p.h == 0) { // never built: the options only
      PetscCall(PetscViewerASCIIPrintf(v, "not built yet\n"));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(PetscViewerASCIIPrintf(v, "blocks %d x %d (%s), %d slice(s), tile %d blocks per thread, %d threads per group, 16-bit column differences: %s (%s)\n", p.h, p.w, src(user_.h || user_.w), p.slices, p.tile, p.group,
                                     p.compress_col ? "yes" : "no", src(user_.compress_col >= 0)));
    if (!choice_.shapes.empty()) {
      const BccooShape &b = choice_.shapes.front();
      PetscCall(PetscViewerASCIIPrintf(v, "model (%d sampled rows): fewest bytes %d x %d at fill %.3f; escapes per block %.4f\n", (int)choice_.sampled_rows, b.h, b.w, b.fill, choice_.escape_share));
    }
    std::int64_t blocks = host_.nblocks, pad = host_.pad_blocks, padded = host_.padded_blocks, esc = (std::int64_t)host_.escape.size();
    std::size_t  bytes  = host_.bytes();
    int          cache  = 0;
#if defined(GPUMAT_WITH_CUDA)
    if (dev_.device_bytes()) { // as the device stores it
      blocks = dev_.blocks(), pad = dev_.pad_blocks(), padded = dev_.padded_blocks(), esc = dev_.escapes(), bytes = dev_.format_bytes(), cache = dev_.cache_segments();
    }
#endif
    const double nnz = (double)A.nnz(), csr = 12.0 * nnz + 4.0 * (A.nrows + 1);
    PetscCall(PetscViewerASCIIPrintf(v, "%lld blocks (fill %.3f), %lld padding blocks of empty segments, %lld padded to whole groups, %lld escapes\n", (long long)blocks, blocks ? nnz / ((double)(blocks - pad) * p.h * p.w) : 0.0, (long long)pad, (long long)padded,
                                     (long long)esc));
    PetscCall(PetscViewerASCIIPrintf(v, "format bytes read per product: %zu (CSR: %.0f, ratio %.3f)%s\n", bytes, csr, csr > 0 ? (double)bytes / csr : 0.0, cache ? "" : ""));
    const int strategy = p.strategy ? p.strategy : (user_.strategy ? user_.strategy : 2); // as built, or as the build will choose
    PetscCall(PetscViewerASCIIPrintf(v, "segment sums: strategy %d, %s (%s)\n", strategy, strategy == 1 ? "straight to y, no result cache" : "through the result cache", user_.strategy ? "set" : "model"));
    if (cache) PetscCall(PetscViewerASCIIPrintf(v, "result cache: %d segments per group\n", cache));
    if (choice_.p.h > 0) { // built at least once
      char        line[512];
      std::size_t n = (std::size_t)snprintf(line, sizeof(line), "last build (ms): model %.2f (host)", model_ms_);
#if defined(GPUMAT_WITH_CUDA)
      for (const auto &ph : dev_.build_phases())
        if (n < sizeof(line)) n += (std::size_t)snprintf(line + n, sizeof(line) - n, ", %s %.2f", ph.first, (double)ph.second);
#else
      (void)n;
#endif
      PetscCall(PetscViewerASCIIPrintf(v, "%s\n", line));
    }
    PetscCall(ViewTune(v));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  // Once built: block_h, block_w, shape_source (model|set|tuner), slices, tile, group,
  // compress_columns (16|32: the column differences' bits), compress_columns_source, strategy
  // (1|2), strategy_source (model|set), blocks, escapes, format_bytes (as the device stores it once
  // it holds the format); tune (off|not_run|searched|cache_hit) and, when searched or a cache hit,
  // tune_candidates (timed) and tune_failed (could not be built).
  void Describe(Properties &out, const CsrView<Scalar> &A) const override
  {
    const BccooParams &p = choice_.p;
    if (p.h == 0) return; // never built
    const bool tuned = Tuned();
    auto       src   = [tuned](int user) { return user ? "set" : tuned ? "tuner" : "model"; };
    std::int64_t blocks = host_.nblocks, esc = (std::int64_t)host_.escape.size();
    std::size_t  bytes  = host_.bytes();
#if defined(GPUMAT_WITH_CUDA)
    if (dev_.device_bytes()) blocks = dev_.blocks(), esc = dev_.escapes(), bytes = dev_.format_bytes();
#endif
    const int strategy = p.strategy ? p.strategy : (user_.strategy ? user_.strategy : 2); // as built, or as the build will choose
    out.insert(out.end(), {{"block_h", std::to_string(p.h)},
                           {"block_w", std::to_string(p.w)},
                           {"shape_source", src(user_.h || user_.w)},
                           {"slices", std::to_string(p.slices)},
                           {"tile", std::to_string(p.tile)},
                           {"group", std::to_string(p.group)},
                           {"compress_columns", p.compress_col ? "16" : "32"},
                           {"compress_columns_source", src(user_.compress_col >= 0)},
                           {"strategy", std::to_string(strategy)},
                           {"strategy_source", user_.strategy ? "set" : "model"},
                           {"blocks", std::to_string(blocks)},
                           {"escapes", std::to_string(esc)},
                           {"format_bytes", std::to_string(bytes)}});
    const char *tune = "off";
    if (tune_) {
      tune = "not_run";
#if defined(GPUMAT_WITH_CUDA)
      if (report_.source == TuneSource::Searched) tune = "searched";
      if (report_.source == TuneSource::Cached) tune = "cache_hit";
#endif
    }
    out.emplace_back("tune", tune);
    if (report_.source == TuneSource::Searched || report_.source == TuneSource::Cached) {
      out.emplace_back("tune_candidates", std::to_string(report_.r.timed));
      out.emplace_back("tune_failed", std::to_string(report_.r.skipped));
    }
  }

private:
#if defined(GPUMAT_WITH_CUDA)
  // The device build from src, A's CSR on the host (uploaded) or on the device: the parameters
  // chosen on A's host pattern, or the tuner's winner (-mat_bccoo_tune, which times its candidates
  // on A's upload).
  template <class Source>
  PetscErrorCode BuildFrom(const CsrView<Scalar> &A, const Source &src, cudaStream_t s)
  {
    PetscFunctionBegin;
    PetscCall(Choose(A));
    if (tune_) PetscCall(Tune(A, s)); // choice_.p = the tuner's winner, built below
    else report_.source = TuneSource::None;
    PetscCall(CheckBuild(dev_.build(src, choice_.p, s), A));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif

  PetscErrorCode Resolve(const BccooParams &in, BccooParams *out) const
  {
    PetscFunctionBegin;
    try {
      BccooParams q = in;
      if (q.compress_col < 0) q.compress_col = 1;
      *out = bccoo_resolve(q);
      if (in.compress_col < 0) out->compress_col = -1;
    } catch (const std::invalid_argument &e) {
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s (options -mat_bccoo_*)", e.what());
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  // The L2 cache of the current GPU (the model's slices), asked once; 0 (the model's default) in
  // builds without CUDA or when the runtime does not answer.
  double L2Bytes()
  {
#if defined(GPUMAT_WITH_CUDA)
    if (l2_bytes_ < 0) {
      int dev = 0, l2 = 0;
      if (cudaGetDevice(&dev) == cudaSuccess && cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev) == cudaSuccess) l2_bytes_ = l2;
      else {
        (void)cudaGetLastError();
        l2_bytes_ = 0;
      }
    }
    return l2_bytes_;
#else
    return 0;
#endif
  }

  // The parameters for A: the user's, the rest from the model (bccoo_model).
  PetscErrorCode Choose(const CsrView<Scalar> &A)
  {
    PetscLogDouble t0, t1;
    PetscFunctionBegin;
    PetscCall(PetscTime(&t0));
    try {
      choice_ = bccoo_model(A, user_, BccooHints(BlockSize(), LongestRow(), L2Bytes()));
    } catch (const std::invalid_argument &e) {
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s (options -mat_bccoo_*)", e.what());
    }
    PetscCall(PetscTime(&t1));
    model_ms_ = 1e3 * (t1 - t0);
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  // -mat_bccoo_tune: what the tuner did at the last device build.
  enum class TuneSource { None, Empty, Searched, Cached };
  struct TuneReport {
    TuneSource      source   = TuneSource::None;
    bool            cache_on = false; // a tuning cache directory was given
    BccooTuneResult r;                // best, model and the figures (trials when searched)
  };

  // The parameters in use are the tuner's (not the model's after a later host build).
  bool Tuned() const
  {
    const BccooParams &a = report_.r.best, &b = choice_.p;
    return (report_.source == TuneSource::Searched || report_.source == TuneSource::Cached) && a.h == b.h && a.w == b.w && a.slices == b.slices && a.tile == b.tile && a.group == b.group &&
           a.compress_col == b.compress_col;
  }

  // The tuner's lines of ViewInfo (the benchmark prints the lines that start with "tuner").
  PetscErrorCode ViewTune(PetscViewer v) const
  {
    PetscFunctionBegin;
    if (!tune_) PetscFunctionReturn(PETSC_SUCCESS);
#if !defined(GPUMAT_WITH_CUDA)
    PetscCall(PetscViewerASCIIPrintf(v, "tuner (-mat_bccoo_tune): not run: this build has no CUDA, so no GPU to time candidates on; the model's choice is used\n"));
#else
    const BccooTuneResult &r = report_.r;
    switch (report_.source) {
    case TuneSource::None:
      PetscCall(PetscViewerASCIIPrintf(v, "tuner (-mat_bccoo_tune): not run yet: it runs at the device build (the first product with CUDA vectors); host builds use the model's choice\n"));
      break;
    case TuneSource::Empty:
      PetscCall(PetscViewerASCIIPrintf(v, "tuner (-mat_bccoo_tune): not run: the block has no nonzeros; the model's choice is used\n"));
      break;
    default: {
      const char *how = report_.source == TuneSource::Cached ? "tuning cache hit (searched in an earlier run; the figures are that search's)" : report_.cache_on ? "searched (tuning cache miss)" : "searched (tuning cache off)";
      const double units = r.best_ms > 0 ? 1e3 * r.seconds / r.best_ms : 0.0;
      PetscCall(PetscViewerASCIIPrintf(v, "tuner (-mat_bccoo_tune), device build: %s; %d candidates timed, %d could not be built; tuning cost %.1f ms = %.0f products of the winner\n", how, r.timed, r.skipped, 1e3 * r.seconds, units));
      std::string best, model;
      PetscCallCXX(best = bccoo_describe(r.best));
      PetscCallCXX(model = bccoo_describe(r.model));
      if (std::isnan(r.model_ms))
        PetscCall(PetscViewerASCIIPrintf(v, "tuner winner %s: %.4f ms per product; the model's choice %s could not be built\n", best.c_str(), r.best_ms, model.c_str()));
      else
        PetscCall(PetscViewerASCIIPrintf(v, "tuner winner %s: %.4f ms per product; the model's choice %s: %.4f ms (%.3f x the winner's time)\n", best.c_str(), r.best_ms, model.c_str(), r.model_ms,
                                         r.best_ms > 0 ? r.model_ms / r.best_ms : 0.0));
    }
    }
#endif
    PetscFunctionReturn(PETSC_SUCCESS);
  }

#if defined(GPUMAT_WITH_CUDA)
  // The tuner (src/core/bccoo_tune.hpp): choice_.p becomes the decision cached for A's pattern on
  // this GPU, or the winner of a search whose candidates are built into dev_ and timed on s
  // (src/cuda/bccoo_tune.cuh); the caller builds the winner. A candidate that cannot be built is
  // skipped; an error that leaves the GPU unusable, or every candidate failing, is a PETSc error.
  // The tuning cache's decision for key, where it can be used (*used; report_ and choice_ then hold it).
  PetscErrorCode FromCache(const TuningKey &key, bool *used)
  {
    std::optional<TuningValues> cached;
    PetscFunctionBegin;
    *used = false;
    PetscCall(TuningCacheLookup(nullptr, TuningCacheDir(), key, &cached));
    if (!cached) PetscFunctionReturn(PETSC_SUCCESS);
    BccooTuneResult r;
    std::string     why, path;
    BccooCached     use;
    PetscCallCXX(use = bccoo_tune_from_values(*cached, user_, &r, &why));
    if (use == BccooCached::Use) {
      report_.source = TuneSource::Cached;
      PetscCallCXX(report_.r = std::move(r));
      choice_.p = report_.r.best;
      PetscCallCXX(why = bccoo_describe(choice_.p));
      PetscCall(PetscInfo(nullptr, "bccoo tuner: parameters from the tuning cache: %s\n", why.c_str()));
      *used = true;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCallCXX(path = TuningCache(TuningCacheDir()).path(key));
    PetscCall(PetscInfo(nullptr, "bccoo tuner: the cached decision %s is not used: %s; tuning afresh\n", path.c_str(), why.c_str()));
    if (use == BccooCached::Invalid) PetscCall(PetscPrintf(PETSC_COMM_SELF, "WARNING: petsc-gpumat bccoo: the tuning cache entry %s is unusable (%s); ignored, tuning afresh (the file will be replaced)\n", path.c_str(), why.c_str()));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  // The search: the CSR is uploaded once; each candidate is built from it into dev_ (the previous
  // one released first: one candidate on the GPU at a time) and timed. Non-sticky errors skip it;
  // others end the search, which is then an error, as is a search where no candidate could be built.
  PetscErrorCode Search(const CsrView<Scalar> &A, cudaStream_t s, BccooTuneResult *r)
  {
    cuda::DeviceCsr<Scalar> csr;
    cudaError_t             last = csr.upload(A, s); // the last candidate's error
    PetscFunctionBegin;
    if (last != cudaSuccess) {
      dev_.release();
      PetscCall(CheckDevice((int)last, "bccoo tuner: the upload of the matrix", A));
    }
    auto time = [&](const BccooParams &p) {
      BccooTiming       t;
      const cudaError_t e = cuda::bccoo_time_candidate(dev_, csr.view(), p, kBccooTuneWarmup, tune_reps_, s, &t.ms);
      if (e == cudaSuccess) return t;
      last     = e;
      t.status = cuda::bccoo_candidate_skippable(e) ? BccooTiming::Skip : BccooTiming::Abort;
      t.why    = e == cudaErrorInvalidValue && !dev_.why().empty() ? dev_.why() : std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e); // may throw: caught below
      return t;
    };
    PetscCallCXX(*r = bccoo_tune(choice_, user_, time));
    dev_.release(); // the last candidate's memory and the CSR's, before the winner is built
    csr.release();
    for (const BccooTrial &t : r->trials) {
      std::string what;
      PetscCallCXX(what = bccoo_describe(t.p));
      if (t.t.status == BccooTiming::Ok) PetscCall(PetscInfo(nullptr, "bccoo tuner: stage %d candidate %s: %.4f ms\n", t.stage, what.c_str(), t.t.ms));
      else PetscCall(PetscInfo(nullptr, "bccoo tuner: stage %d candidate %s skipped: %s\n", t.stage, what.c_str(), t.t.why.c_str()));
    }
    if (!r->ok()) {
      std::string failure;
      PetscCallCXX(failure = r->failure());
      PetscCheck(!r->aborted, PETSC_COMM_SELF, PETSC_ERR_GPU, "bccoo tuner (-mat_bccoo_tune): %s", failure.c_str());
      PetscCall(CheckDevice(last == cudaErrorMemoryAllocation ? (int)last : 0, "bccoo tuner: no candidate fits", A));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "bccoo tuner (-mat_bccoo_tune): %s; set the parameters with -mat_bccoo_* and turn the tuner off", failure.c_str());
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode Tune(const CsrView<Scalar> &A, cudaStream_t s)
  {
    constexpr int   schema = 1; // raise when the meaning of the stored values changes
    TuningKey       key;
    bool            cached;
    BccooTuneResult r;
    TuningValues    values;
    std::string     best, model;
    PetscFunctionBegin;
    PetscCallCXX(report_ = TuneReport());
    report_.cache_on = !TuningCacheDir().empty();
    if (A.nnz() == 0) { // nothing to time: every candidate's product is y = 0
      report_.source = TuneSource::Empty;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(TuningKeyFor(A, "bccoo", schema, &key));
    PetscCall(FromCache(key, &cached));
    if (cached) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(Search(A, s, &r));
    PetscCallCXX(values = bccoo_tune_values(r, user_));
    PetscCallCXX(best = bccoo_describe(r.best));
    PetscCallCXX(model = bccoo_describe(r.model));
    PetscCall(PetscInfo(nullptr, "bccoo tuner: %d candidates (%d skipped) in %.1f ms: %s at %.4f ms (the model's %s: %.4f ms)\n", r.timed, r.skipped, 1e3 * r.seconds, best.c_str(), r.best_ms, model.c_str(), r.model_ms));
    PetscCall(TuningCacheStore(nullptr, TuningCacheDir(), key, values));
    report_.source = TuneSource::Searched;
    PetscCallCXX(report_.r = std::move(r));
    choice_.p = report_.r.best;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif

  BccooParams   user_{};
  bool          tune_      = false;                 // -mat_bccoo_tune
  int           tune_reps_ = kBccooTuneDefaultReps; // -mat_bccoo_tune_reps
  TuneReport    report_;
  BccooChoice   choice_{};
  double        model_ms_ = 0;  // host time of the last bccoo_model
  double        l2_bytes_ = -1; // L2Bytes(): -1 until asked
};

} // namespace

std::unique_ptr<Format> CreateBccoo() { return std::make_unique<BccooFormat>(); }

} // namespace gpumat
