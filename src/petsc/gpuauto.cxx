// Adapter: gpuauto (src/core/gpuauto.hpp), the format predicted fastest for each block. It holds one
// instance of every candidate format with the user's options for it (-mat_<candidate>_*), decides
// at each build of a new nonzero pattern, and from then on forwards every call to the chosen one.
// The MPI type's diagonal and off-diagonal blocks decide separately (they may differ).
#include "gpumat_impl.hpp"
#include "core/gpuauto.hpp"
#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

namespace gpumat {
namespace {

class AutoFormat final : public Format {
public:
  PetscErrorCode SetFromOptions(PetscOptionItems PetscOptionsObject) override
  {
    char      list[512], choose[64], file[PETSC_MAX_PATH_LEN];
    PetscBool set;
    PetscFunctionBegin;
    PetscCall(PetscStrncpy(list, Join(names_).c_str(), sizeof(list)));
    PetscCall(PetscOptionsString("-mat_gpuauto_candidates", "Comma-separated formats gpuauto chooses among (default: every one available: cusparsecsr, pjds, bccoo, cusparsesell, cusparsebsr, csrspec, bce)", "MATGPUAUTO", list, list, sizeof(list), &set));
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
    PetscCall(PetscOptionsString("-mat_gpuauto_choose", "Skip the prediction: always become this candidate (the predictions are still shown by MatView)", "MATGPUAUTO", choose, choose, sizeof(choose), &set));
    if (set && choose[0]) {
      PetscCheck(std::find(names_.begin(), names_.end(), std::string(choose)) != names_.end(), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_gpuauto_choose: '%s' is not among the candidates (%s)", choose, Join(names_).c_str());
      forced_ = choose;
    }
    file[0] = 0;
    PetscCall(PetscOptionsString("-mat_gpuauto_constants", "File of the GPU's constants for the predictions (written by bench_matmult -calibrate; default: the shipped H100 constants)", "MATGPUAUTO", file, file, sizeof(file), &set));
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
    for (const std::string &n : names_) PetscCall(Candidate(n)->SetFromOptions(PetscOptionsObject));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  std::unique_ptr<Format> CloneSettings() const override
  {
    auto f             = std::make_unique<AutoFormat>();
    f->names_          = names_;
    f->forced_         = forced_;
    f->constants_      = constants_;
    f->constants_file_ = constants_file_;
    for (const auto &[n, c] : candidates_) f->candidates_[n] = c->CloneSettings();
    return f;
  }

  PetscErrorCode HostBuild(const CsrView<Scalar> &A) override
  {
    PetscFunctionBegin;
    PetscCall(Decide(A));
    PetscCall(chosen_->HostBuild(A));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode HostRefresh(const CsrView<Scalar> &A) override { return chosen_->HostRefresh(A); }
  PetscErrorCode HostApply(const CsrView<Scalar> &A, Op op, const Scalar *x, const Scalar *z, Scalar *y) override { return chosen_->HostApply(A, op, x, z, y); }

#if defined(GPUMAT_WITH_CUDA)
  PetscErrorCode DeviceBuild(const CsrView<Scalar> &A, cudaStream_t s) override
  {
    PetscFunctionBegin;
    PetscCall(Decide(A));
    PetscCall(chosen_->DeviceBuild(A, s));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode DeviceRefresh(const CsrView<Scalar> &A, cudaStream_t s) override { return chosen_->DeviceRefresh(A, s); }
  PetscErrorCode DeviceApply(Op op, const Scalar *x, const Scalar *z, Scalar *y, cudaStream_t s) override { return chosen_->DeviceApply(op, x, z, y, s); }
  PetscErrorCode DeviceDiagonal(const index_t *rowmap, Scalar *d, cudaStream_t s) override { return chosen_->DeviceDiagonal(rowmap, d, s); }
#endif
  void DeviceRelease() override
  {
    for (auto &[n, c] : candidates_) c->DeviceRelease();
  }
  std::size_t DeviceBytes() const override { return chosen_ ? chosen_->DeviceBytes() : 0; }
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
    const AutoSample &s = decision_.sample;
    PetscCall(PetscViewerASCIIPrintf(v, "gpuauto chose %s (%s); decided in %.2f ms on %lld sampled rows (%lld entries%s); constants: %s\n", chosen_name_.c_str(), forced_.empty() ? "the fastest prediction" : "-mat_gpuauto_choose", decision_.decide_ms,
                                     (long long)s.sampled_rows, (long long)s.sampled_entries, s.exact ? ", the whole matrix" : "", constants_file_.empty() ? constants_.name.c_str() : constants_file_.c_str()));
    PetscCall(PetscViewerASCIIPrintf(v, "gpuauto predictions (ms per product; bytes per product; bound):\n"));
    for (const AutoPrediction &p : decision_.predictions)
      PetscCall(PetscViewerASCIIPrintf(v, "  %-13s %10.4f  %12.4g B  %-7s %s%s\n", p.candidate.c_str(), p.ms, p.bytes, p.gather_bound ? "gather" : "stream", p.detail.c_str(), p.candidate == chosen_name_ ? "  <- chosen" : ""));
    const MatrixFeatures &f = s.f;
    PetscCall(PetscViewerASCIIPrintf(v, "gpuauto features (sampled): mean row %.2f (cv %.2f, longest %lld), padding sliced ELL %.2f %% / sorted %.2f %%, BSR fill 2/3/4 %.3f/%.3f/%.3f, x sectors per 32 entries CSR %.1f ELL %.1f, distinct sectors per entry %.3f, far from the diagonal %.3f\n",
                                     f.mean_row, f.cv_row, (long long)f.max_row, 100 * f.padding_sell, 100 * f.padding_sorted, f.block_fill(2), f.block_fill(3), f.block_fill(4), f.sectors_csr, f.sectors_ell, s.sector_use, s.far_share));
    PetscCall(PetscViewerASCIIPrintf(v, "%s:\n", chosen_name_.c_str()));
    PetscCall(PetscViewerASCIIPushTab(v));
    PetscCall(chosen_->ViewInfo(v, A));
    PetscCall(PetscViewerASCIIPopTab(v));
    PetscFunctionReturn(PETSC_SUCCESS);
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
    if (!c) c = FindFormat(n.c_str())->create();
    return c.get();
  }

  // The decision for the stored matrix A (a new pattern), then the chosen candidate gets the hints
  // the machinery gave this format.
  PetscErrorCode Decide(const CsrView<Scalar> &A)
  {
    PetscFunctionBegin;
    AutoHints h;
    h.block_size  = BlockSize();
    h.longest_row = LongestRow();
    PetscCallCXX(decision_ = auto_decide(A, h, constants_, names_));
    PetscCheck(!decision_.predictions.empty() || !forced_.empty(), PETSC_COMM_SELF, PETSC_ERR_PLIB, "gpuauto: no candidate could be predicted for this %lld x %lld matrix (candidates %s)", (long long)A.nrows, (long long)A.ncols, Join(names_).c_str());
    const std::string pick = forced_.empty() ? decision_.chosen : forced_;
    if (chosen_ && pick != chosen_name_) chosen_->DeviceRelease(); // the previous pattern's choice
    chosen_name_ = pick;
    chosen_      = Candidate(pick);
    chosen_->SetBlockSize(BlockSize());
    chosen_->SetLongestRow(LongestRow());
    chosen_->SetTuningCacheDir(TuningCacheDir());
    std::string all;
    for (const AutoPrediction &p : decision_.predictions) {
      char b[96];
      snprintf(b, sizeof b, "%s%s %.4f", all.empty() ? "" : ", ", p.candidate.c_str(), p.ms);
      all += b;
    }
    PetscCall(PetscInfo(nullptr, "gpuauto: %lld x %lld, %lld nonzeros: chose %s%s; predicted ms: %s (decided in %.2f ms)\n", (long long)A.nrows, (long long)A.ncols, (long long)A.nnz(), pick.c_str(), forced_.empty() ? "" : " (-mat_gpuauto_choose)", all.c_str(),
                        decision_.decide_ms));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  std::vector<std::string>                        names_;
  std::string                                     forced_;
  AutoConstants                                   constants_;
  std::string                                     constants_file_;
  std::map<std::string, std::unique_ptr<Format>>  candidates_;
  Format                                         *chosen_ = nullptr;
  std::string                                     chosen_name_;
  AutoDecision                                    decision_;
};

} // namespace

std::unique_ptr<Format> CreateGpuAuto() { return std::make_unique<AutoFormat>(); }

} // namespace gpumat
