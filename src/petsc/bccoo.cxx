// Adapter: bccoo (src/core/bccoo.hpp, src/cuda/bccoo.cuh) as a petsc-gpumat format.
#include "gpumat_impl.hpp"
#include "core/bccoo.hpp"
#include <cstdio>
#include <stdexcept>
#if defined(GPUMAT_WITH_CUDA)
  #include "cuda/bccoo.cuh"
#endif

namespace gpumat {
namespace {

class BccooFormat final : public GPUMAT_DEVICE_FORMAT(cuda::BccooDevice<Scalar>) {
public:
  PetscErrorCode SetFromOptions(PetscOptionItems PetscOptionsObject) override
  {
    PetscFunctionBegin;
    struct {
      const char *name, *text;
      int        *value, lo, hi, step;
    } opts[] = {
      {"-mat_bccoo_block_height", "Block height h: 1..4 (0 = chosen by the model: the block shape with the fewest bytes)", &user_.h, 0, 4, 1},
      {"-mat_bccoo_block_width", "Block width w: 1, 2 or 4 (0 = chosen by the model)", &user_.w, 0, 4, 1},
      {"-mat_bccoo_slices", "Vertical slices (BCCOO+): 1..32 (0 = the default, 1)", &user_.slices, 0, 32, 1},
      {"-mat_bccoo_tile", "Blocks per thread, T: a multiple of 8 in 8..128 (0 = the model: 32 for block rows of 20 blocks or more, else 16)", &user_.tile, 0, 128, 8},
      {"-mat_bccoo_group", "Threads per work group: a multiple of 32 in 32..512 (0 = the model: 128 with tiles of 32, else 256)", &user_.group, 0, 512, 32},
    };
    for (auto &o : opts) {
      PetscInt  v = *o.value;
      PetscBool set;
      PetscCall(PetscOptionsInt(o.name, o.text, "MATBCCOO", v, &v, &set));
      PetscCheck(!set || (v >= o.lo && v <= o.hi && v % o.step == 0 && (o.value != &user_.w || v != 3)), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s: %s; got %" PetscInt_FMT, o.name, o.text, v);
      if (set) *o.value = (int)v;
    }
    const char *const compress_names[] = {"auto", "yes", "no", "BccooCompress", "BCCOO_COMPRESS_", nullptr};
    PetscEnum         c                = (PetscEnum)(user_.compress_col < 0 ? 0 : (user_.compress_col ? 1 : 2));
    PetscCall(PetscOptionsEnum("-mat_bccoo_compress_columns", "16-bit column differences: auto (the model: unless a tenth of them would escape), yes, no", "MATBCCOO", compress_names, c, &c, nullptr));
    user_.compress_col = c == 0 ? -1 : (c == 1 ? 1 : 0);
    BccooParams check = user_;
    PetscCall(Resolve(check, &check)); // report a bad value now, not at the first product
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  std::unique_ptr<Format> CloneSettings() const override
  {
    auto f   = std::make_unique<BccooFormat>();
    f->user_ = user_;
    return f;
  }

  PetscErrorCode HostBuild(const CsrView<Scalar> &A) override
  {
    PetscFunctionBegin;
    PetscCall(Choose(A));
    PetscCallCXX(bccoo_build(A, choice_.p, host_));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode HostRefresh(const CsrView<Scalar> &A) override
  {
    PetscFunctionBegin;
    PetscCallCXX(bccoo_refresh(A, host_));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode HostApply(const CsrView<Scalar> &, Op op, const Scalar *x, const Scalar *z, Scalar *y) override
  {
    PetscFunctionBegin;
    PetscCallCXX(bccoo_apply(host_, op, x, z, y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

#if defined(GPUMAT_WITH_CUDA)
  PetscErrorCode DeviceBuild(const CsrView<Scalar> &A, cudaStream_t s) override
  {
    PetscFunctionBegin;
    PetscCall(Choose(A));
    const int err = dev_.build(A, choice_.p, s);
    PetscCheck(err != cudaErrorInvalidValue || dev_.why().empty(), PETSC_COMM_SELF, PETSC_ERR_SUP, "%s", dev_.why().c_str());
    PetscCall(CheckDevice(err, "bccoo", A));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode DeviceRefresh(const CsrView<Scalar> &A, cudaStream_t s) override
  {
    PetscFunctionBegin;
    PetscCall(CheckDevice(dev_.refresh(A.val, s), "bccoo", A));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode DeviceApply(Op op, const Scalar *x, const Scalar *z, Scalar *y, cudaStream_t s) override
  {
    PetscFunctionBegin;
    PetscCallCUDA(dev_.apply(op, x, z, y, s));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  bool           HasDeviceTranspose() const override { return true; }
#endif

  PetscErrorCode ViewInfo(PetscViewer v, const CsrView<Scalar> &A) const override
  {
    const BccooParams &p = choice_.p;
    auto               src = [](int user) { return user ? "set" : "model"; };
    PetscFunctionBegin;
    PetscCall(PetscViewerASCIIPrintf(v, "blocks %d x %d (%s), %d slice(s), tile %d blocks per thread, %d threads per group, 16-bit column differences: %s (%s)\n", p.h, p.w, src(user_.h || user_.w), p.slices, p.tile, p.group,
                                     p.compress_col ? "yes" : "no", user_.compress_col >= 0 ? "set" : "model"));
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
    PetscFunctionReturn(PETSC_SUCCESS);
  }

private:
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

  // The parameters for A: the user's, the rest from the model (bccoo_model).
  PetscErrorCode Choose(const CsrView<Scalar> &A)
  {
    PetscLogDouble t0, t1;
    PetscFunctionBegin;
    PetscCall(PetscTime(&t0));
    try {
      choice_ = bccoo_model(A, user_, BlockSize());
    } catch (const std::invalid_argument &e) {
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s (options -mat_bccoo_*)", e.what());
    }
    PetscCall(PetscTime(&t1));
    model_ms_ = 1e3 * (t1 - t0);
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  BccooParams   user_{};
  BccooChoice   choice_{};
  double        model_ms_ = 0; // host time of the last bccoo_model
  Bccoo<Scalar> host_;
};

} // namespace

std::unique_ptr<Format> CreateBccoo() { return std::make_unique<BccooFormat>(); }

} // namespace gpumat
