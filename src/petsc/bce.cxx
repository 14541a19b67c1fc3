// Adapter: bce (src/core/bce.hpp, src/cuda/bce.cuh) as a petsc-gpumat format.
#include "gpumat_impl.hpp"
#include "core/bce.hpp"
#include "core/ell_hyb.hpp"
#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#if defined(GPUMAT_WITH_CUDA)
  #include "cuda/bce.cuh"
#endif

namespace gpumat {
namespace {

class BceFormat final : public GPUMAT_DEVICE_FORMAT(cuda::BceDevice<Scalar>) {
public:
  PetscErrorCode SetFromOptions(PetscOptionItems PetscOptionsObject) override
  {
    PetscFunctionBegin;
    struct {
      const char *name, *text;
      PetscInt    lo, hi, shown;
    } opts[] = {
      {"-mat_bce_long_row", "Rows with more nonzeros than this go to the long part, cut into chunks summed by groups of lanes (0 = 32, or no long part where the longest row has at most 128 entries and at most 3 times the mean)", 0, PETSC_INT_MAX, (PetscInt)user_.long_row},
      {"-mat_bce_group_cost", "The time model's cost of a group, bytes per entry of its width (-1 = 64: two 32-byte sectors per step of its partly filled last warp; 0 = a group per row length)", -1, PetscInt(1) << 30, (PetscInt)user_.group_cost},
      {"-mat_bce_max_sets", "Row-length sets left after merging, before the optimal partition: 2..4096 (0 = 1025)", 0, kBceMaxSetsLimit, (PetscInt)user_.max_sets},
      {"-mat_bce_window", "Rows per window of the reordering: the rows of a window and a group form a block (0 = 65536; the row count or more: one window, the paper's global grouping)", 0, PETSC_INT_MAX, (PetscInt)user_.window},
      {"-mat_bce_lanes", "GPU product: lanes summing one chunk of a long row, 4, 8, 16 or 32 (0 = the long rows' mean length / 8 rounded up to a power of two within 4..32)", 0, 32, shape_.lanes},
      {"-mat_bce_passes", "GPU product: passes of 8 loads per lane in a chunk of a long row, 1..64 (0 = the longest long row / (8 lanes) rounded up within 1..4)", 0, kLongMaxPasses, shape_.passes},
    };
    PetscInt values[6];
    for (int k = 0; k < 6; ++k) {
      PetscBool set;
      values[k] = opts[k].shown;
      PetscCall(PetscOptionsInt(opts[k].name, opts[k].text, "MATBCE", values[k], &values[k], &set));
      PetscCheck(!set || (values[k] >= opts[k].lo && values[k] <= opts[k].hi), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s must be in [%" PetscInt_FMT ", %" PetscInt_FMT "], got %" PetscInt_FMT, opts[k].name, opts[k].lo, opts[k].hi, values[k]);
    }
    PetscCheck(values[2] == 0 || values[2] >= 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_bce_max_sets must be 0 (the default, 1025) or in [2, %d], got %" PetscInt_FMT, kBceMaxSetsLimit, values[2]);
    PetscCheck(long_shape_valid({(int)values[4], 0}), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mat_bce_lanes must be 0 (by the long rows), 4, 8, 16 or 32, got %" PetscInt_FMT, values[4]);
    user_.long_row   = values[0];
    user_.group_cost = values[1];
    user_.max_sets   = (int)values[2];
    user_.window     = values[3];
    shape_           = {(int)values[4], (int)values[5]};
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  std::unique_ptr<Format> CloneSettings() const override
  {
    auto f    = std::make_unique<BceFormat>();
    f->user_  = user_;
    f->shape_ = shape_;
    return f;
  }

  PetscErrorCode HostBuild(const CsrView<Scalar> &A) override
  {
    PetscFunctionBegin;
    PetscCallCXX(bce_build(A, user_, host_));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode HostRefresh(const CsrView<Scalar> &A) override
  {
    PetscFunctionBegin;
    PetscCallCXX(bce_refresh(A, host_));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode HostApply(const CsrView<Scalar> &, Op op, const Scalar *x, const Scalar *z, Scalar *y) override
  {
    PetscFunctionBegin;
    PetscCallCXX(bce_apply(host_, op, x, z, y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

#if defined(GPUMAT_WITH_CUDA)
  PetscErrorCode DeviceBuild(const CsrView<Scalar> &A, cudaStream_t s) override
  {
    PetscFunctionBegin;
    dev_.set_long_shape(shape_); // validated by SetFromOptions
    const int err = dev_.build(A, user_, s);
    PetscCall(CheckBuild(err, A));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

#endif

  // MatView: the partition (k, widths and rows), the long part, padding, and the stored size
  // against ELL and HYB (the paper's comparison; HYB as Bell & Garland: an ELL part of the width K
  // that at least max(4096, rows / 3) rows reach, the rest as COO at 16 B per entry).
  PetscErrorCode ViewInfo(PetscViewer v, const CsrView<Scalar> &A) const override
  {
    PetscFunctionBegin;
    BceParams              p = host_.p;
    std::vector<index_t>   gwidth = host_.group_width, width = host_.width, rows = host_.rows;
    std::int64_t           padded = host_.padded(), long_rows = (std::int64_t)host_.long_rows.size(), long_nnz = (std::int64_t)host_.long_val.size();
    int                    sets_df = host_.sets_before_merge, sets = host_.sets;
    std::size_t            bytes = host_.bytes();
    [[maybe_unused]] bool  on_device = false;
#if defined(GPUMAT_WITH_CUDA)
    if (dev_.device_bytes()) { // as the device stores it
      on_device = true, p = dev_.params(), gwidth = dev_.group_widths(), width = dev_.widths(), rows = dev_.block_rows(), padded = dev_.padded(), long_rows = dev_.long_rows(), long_nnz = dev_.long_entries();
      sets_df = dev_.sets_before_merge(), sets = dev_.sets(), bytes = dev_.format_bytes();
    }
#endif
    if (p.max_sets == 0) { // never built: the options only
      PetscCall(PetscViewerASCIIPrintf(v, "not built yet\n"));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    auto src = [](bool set) { return set ? "set" : "default"; };
    PetscCall(PetscViewerASCIIPrintf(v, "rows longer than %lld entries in the long part (%s); time model: 12 W N + 4 N + %lld W bytes a group (%s); %d row lengths, %d sets after merging (at most %d)\n", (long long)p.long_row,
                                     user_.long_row ? "set" : "default", (long long)p.group_cost, src(user_.group_cost >= 0), sets_df, sets, p.max_sets));
    std::vector<std::int64_t> grows(gwidth.size(), 0); // rows per group, over the windows' blocks
    for (std::size_t b = 0; b < width.size(); ++b) grows[std::size_t(std::lower_bound(gwidth.begin(), gwidth.end(), width[b]) - gwidth.begin())] += rows[b];
    char        line[1024];
    std::size_t n = (std::size_t)snprintf(line, sizeof(line), "%d groups (width x rows):", (int)gwidth.size());
    for (std::size_t g = 0; g < gwidth.size() && n < sizeof(line) - 40; ++g) {
      if (g == 24 && gwidth.size() > 32) { // the first 24 and the last 8
        n += (std::size_t)snprintf(line + n, sizeof(line) - n, " ...");
        g = gwidth.size() - 8;
      }
      n += (std::size_t)snprintf(line + n, sizeof(line) - n, " %dx%lld", (int)gwidth[g], (long long)grows[g]);
    }
    PetscCall(PetscViewerASCIIPrintf(v, "%s\n", line));
    PetscCall(PetscViewerASCIIPrintf(v, "%d blocks (window, group) in windows of %lld rows (%s)\n", (int)width.size(), (long long)p.window, src(user_.window > 0)));
    const double nnz = (double)A.nnz(), padding = (double)padded - (nnz - (double)long_nnz);
    const EllHyb eh  = ell_hyb(A);
    const double ell = eh.ell_bytes(), hyb = eh.hyb_bytes(), csr = 12.0 * nnz + 4.0 * (A.nrows + 1);
    PetscCall(PetscViewerASCIIPrintf(v, "padding %.0f entries (%.2f %% of the nonzeros); long part: %lld rows, %lld entries", padding, nnz > 0 ? 100.0 * padding / nnz : 0.0, (long long)long_rows, (long long)long_nnz));
#if defined(GPUMAT_WITH_CUDA)
    if (on_device && dev_.chunks() > 0) {
      const LongShape &sh = dev_.long_shape();
      PetscCall(PetscViewerASCIIPrintf(v, ", %lld chunks of %lld entries (%d lanes x 8 loads x %d passes; %s); kernel for %d blocks per multiprocessor", (long long)dev_.chunks(), (long long)sh.entries(), sh.lanes, sh.passes,
                                       shape_.lanes || shape_.passes ? "set" : "by the long rows' lengths", dev_.kernel_occupancy()));
    }
#endif
    PetscCall(PetscViewerASCIIPrintf(v, "\n"));
    PetscCall(PetscViewerASCIIPrintf(v, "format bytes read per product: %zu (CSR %.0f: ratio %.3f; ELL %.0f: %.3f; HYB with K = %lld: %.0f, %.3f)\n", bytes, csr, csr > 0 ? (double)bytes / csr : 0.0, ell, csr > 0 ? ell / csr : 0.0,
                                     (long long)eh.hyb_width, hyb, csr > 0 ? hyb / csr : 0.0));
#if defined(GPUMAT_WITH_CUDA)
    if (!dev_.build_phases().empty()) {
      std::size_t m = (std::size_t)snprintf(line, sizeof(line), "last build (ms):");
      for (const auto &ph : dev_.build_phases())
        if (m < sizeof(line)) m += (std::size_t)snprintf(line + m, sizeof(line) - m, " %s %.2f", ph.first, (double)ph.second);
      PetscCall(PetscViewerASCIIPrintf(v, "%s\n", line));
    }
#endif
    PetscFunctionReturn(PETSC_SUCCESS);
  }

private:
  BceParams user_{};
  LongShape shape_{}; // -mat_bce_lanes, -mat_bce_passes (0: by the long rows)
  Bce<Scalar> host_;
};

} // namespace

std::unique_ptr<Format> CreateBce() { return std::make_unique<BceFormat>(); }

} // namespace gpumat
