// Adapter: bce (src/core/bce.hpp, src/cuda/bce.cuh) as a petsc-gpumat format.
#include "gpumat_impl.hpp"
#include "core/bce.hpp"
#include "core/ell_hyb.hpp"
#include "core/format_record.hpp"
#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#if defined(GPUMAT_WITH_CUDA)
  #include "cuda/bce.cuh"
#endif

namespace gpumat {
namespace {

class BceFormat final : public WithHostFunctions<GPUMAT_DEVICE_FORMAT(cuda::BceDevice<Scalar>), Bce<Scalar>, bce_refresh<Scalar>, bce_apply<Scalar>> {
public:
#if defined(GPUMAT_WITH_CUDA)
  double ReadBytes() const override { return dev_.device_bytes() ? (double)dev_.format_bytes() : std::numeric_limits<double>::quiet_NaN(); }
#endif
  PetscErrorCode SetFromOptions(PetscOptionItems PetscOptionsObject) override
  {
    const FormatRecord &r = bce_record();
    PetscFunctionBegin;
    struct {
      const char *key;
      PetscInt    shown;
    } opts[] = {
      {"long_row", (PetscInt)user_.long_row}, {"group_cost", (PetscInt)user_.group_cost}, {"max_sets", user_.max_sets}, {"window", (PetscInt)user_.window}, {"lanes", shape_.lanes}, {"passes", shape_.passes},
    };
    PetscInt values[6];
    for (int k = 0; k < 6; ++k) PetscCall(ReadOption(PetscOptionsObject, r.option(opts[k].key), opts[k].shown, &values[k], nullptr));
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

#if defined(GPUMAT_WITH_CUDA)
  PetscErrorCode DeviceBuild(const CsrView<Scalar> &A, cudaStream_t s) override { return BuildFrom(A, A, s); }
  PetscErrorCode BuildsOnDevice(const CsrView<Scalar> &, bool *yes) override
  {
    *yes = true;
    return PETSC_SUCCESS;
  }
  PetscErrorCode DeviceBuildOnDevice(const CsrView<Scalar> &A, const cuda::DeviceCsrView<Scalar> &dev, cudaStream_t s, bool *done) override
  {
    PetscFunctionBegin;
    PetscCall(BuildFrom(A, dev, s));
    *done = true;
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

  // Once built: row_lengths (distinct lengths before merging), sets (after merging), max_sets,
  // groups ("4x116 5x784": width x rows of every group), blocks, window, window_source
  // (set|default), group_cost, group_cost_source, padding_entries (stored beyond the grouped rows'
  // nonzeros), long_row, long_row_source (set|default), long_rows, long_entries, format_bytes;
  // once the device holds the format, with a long part: chunks, chunk_entries, lanes, passes,
  // shape_source (set|long_rows: from the long rows' lengths), occupancy.
  void Describe(Properties &out, const CsrView<Scalar> &A) const override
  {
    BceParams            p      = host_.p;
    std::vector<index_t> gwidth = host_.group_width, width = host_.width, rows = host_.rows;
    std::int64_t         padded = host_.padded(), long_rows = (std::int64_t)host_.long_rows.size(), long_nnz = (std::int64_t)host_.long_val.size();
    int                  sets_df = host_.sets_before_merge, sets = host_.sets;
    std::size_t          bytes   = host_.bytes();
#if defined(GPUMAT_WITH_CUDA)
    if (dev_.device_bytes()) {
      p = dev_.params(), gwidth = dev_.group_widths(), width = dev_.widths(), rows = dev_.block_rows(), padded = dev_.padded(), long_rows = dev_.long_rows(), long_nnz = dev_.long_entries();
      sets_df = dev_.sets_before_merge(), sets = dev_.sets(), bytes = dev_.format_bytes();
    }
#endif
    if (p.max_sets == 0) return; // never built
    auto                      src = [](bool set) { return set ? "set" : "default"; };
    std::vector<std::int64_t> grows(gwidth.size(), 0); // rows per group, over the windows' blocks
    for (std::size_t b = 0; b < width.size(); ++b) grows[std::size_t(std::lower_bound(gwidth.begin(), gwidth.end(), width[b]) - gwidth.begin())] += rows[b];
    std::string groups;
    for (std::size_t g = 0; g < gwidth.size(); ++g) groups += (g ? " " : "") + std::to_string(gwidth[g]) + "x" + std::to_string(grows[g]);
    out.insert(out.end(), {{"row_lengths", std::to_string(sets_df)},
                           {"sets", std::to_string(sets)},
                           {"max_sets", std::to_string(p.max_sets)},
                           {"groups", groups},
                           {"blocks", std::to_string(width.size())},
                           {"window", std::to_string(p.window)},
                           {"window_source", src(user_.window > 0)},
                           {"group_cost", std::to_string(p.group_cost)},
                           {"group_cost_source", src(user_.group_cost >= 0)},
                           {"padding_entries", std::to_string(padded - ((std::int64_t)A.nnz() - long_nnz))},
                           {"long_row", std::to_string(p.long_row)},
                           {"long_row_source", src(user_.long_row != 0)},
                           {"long_rows", std::to_string(long_rows)},
                           {"long_entries", std::to_string(long_nnz)},
                           {"format_bytes", std::to_string(bytes)}});
#if defined(GPUMAT_WITH_CUDA)
    if (dev_.device_bytes() && dev_.chunks() > 0) {
      const LongShape &sh = dev_.long_shape();
      out.insert(out.end(), {{"chunks", std::to_string(dev_.chunks())},
                             {"chunk_entries", std::to_string(sh.entries())},
                             {"lanes", std::to_string(sh.lanes)},
                             {"passes", std::to_string(sh.passes)},
                             {"shape_source", shape_.lanes || shape_.passes ? "set" : "long_rows"},
                             {"occupancy", std::to_string(dev_.kernel_occupancy())}});
    }
#endif
  }

private:
#if defined(GPUMAT_WITH_CUDA)
  // The device build from src, A's CSR on the host (uploaded) or on the device.
  template <class Source>
  PetscErrorCode BuildFrom(const CsrView<Scalar> &A, const Source &src, cudaStream_t s)
  {
    PetscFunctionBegin;
    dev_.set_long_shape(shape_); // validated by SetFromOptions
    PetscCall(CheckBuild(dev_.build(src, user_, s), A));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif

  BceParams user_{};
  LongShape shape_{}; // -mat_bce_lanes, -mat_bce_passes (0: by the long rows)
};

} // namespace

std::unique_ptr<Format> CreateBce() { return std::make_unique<BceFormat>(); }

} // namespace gpumat
