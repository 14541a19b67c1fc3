// Adapter: csrspec (src/core/csrspec.hpp, src/cuda/csrspec.cuh) as a petsc-gpumat format.
#include "gpumat_impl.hpp"
#include "core/csrspec.hpp"
#include "core/format_record.hpp"
#include <stdexcept>
#include <string>
#if defined(GPUMAT_WITH_CUDA)
  #include "cuda/csrspec.cuh"
#endif

namespace gpumat {
namespace {

class CsrSpecFormat final : public GPUMAT_DEVICE_FORMAT(cuda::CsrSpecDevice<Scalar>) {
public:
  PetscErrorCode SetFromOptions(PetscOptionItems PetscOptionsObject) override
  {
    const FormatRecord &r = csrspec_record();
    PetscFunctionBegin;
    CsrSpecParams in_use; // -help shows the values in use: the defaults resolved, S = 0 (chosen per block)
    PetscCall(Resolve(0, 0, &in_use));
    in_use.tiles_per_block = user_.tiles_per_block;
    struct {
      const char *key;
      int        *value, shown;
    } opts[] = {
      {"w", &user_.W, in_use.W},
      {"warps", &user_.bunches, in_use.bunches},
      {"tiles_per_block", &user_.tiles_per_block, in_use.tiles_per_block},
    };
    for (auto &o : opts) {
      PetscInt  v;
      PetscBool set;
      PetscCall(ReadOption(PetscOptionsObject, r.option(o.key), (PetscInt)o.shown, &v, &set));
      if (set) *o.value = (int)v;
    }
    PetscCall(Resolve(0, 0, &params_)); // report a bad combination now, not at the first product
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  std::unique_ptr<Format> CloneSettings() const override
  {
    auto f   = std::make_unique<CsrSpecFormat>();
    f->user_ = user_;
    return f;
  }

  PetscErrorCode HostBuild(const CsrView<Scalar> &A) override
  {
    PetscFunctionBegin;
    PetscCall(Resolve(A.nnz(), 0, &params_));
    PetscCallCXX(host_.setup(A, params_));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  // The host emulation reads the AIJ arrays themselves: nothing to copy for new values.
  PetscErrorCode HostRefresh(const CsrView<Scalar> &) override { return PETSC_SUCCESS; }

  PetscErrorCode HostApply(const CsrView<Scalar> &A, Op op, const Scalar *x, const Scalar *z, Scalar *y) override
  {
    PetscFunctionBegin;
    PetscCallCXX(host_.apply(A, op, x, z, y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  // Rows owned by one tile are walked by its block, blockDim at a time: a run of empty rows longer
  // than the rows of 8 tiles of nonzeros makes one block as slow as 8 tiles' worth of work.
  bool WantsCompressedRows(const CsrView<Scalar> &A) const override
  {
    CsrSpecParams p;
    try {
      p = csrspec_resolve<Scalar>(user_);
    } catch (const std::invalid_argument &) {
      return false;
    }
    const index_t limit = index_t(8) * p.bunches * p.T * p.W;
    index_t       run   = 0;
    for (index_t r = 0; r < A.nrows; r++) {
      run = A.rowptr[r] == A.rowptr[r + 1] ? run + 1 : 0;
      if (run > limit) return true;
    }
    return false;
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

  PetscErrorCode ViewInfo(PetscViewer v, const CsrView<Scalar> &A) const override
  {
    CsrSpecParams p;
    CsrSpecStats  st;
    const char   *s_note = user_.tiles_per_block ? "" : " (default on the host)";
    PetscFunctionBegin;
    PetscCall(Resolve(A.nnz(), 0, &p));
#if defined(GPUMAT_WITH_CUDA)
    if (dev_.device_bytes()) { // as the device runs it
      p      = dev_.params();
      s_note = user_.tiles_per_block ? "" : " (chosen: one wave of resident blocks)";
    }
#endif
    PetscCallCXX(st = csrspec_stats(A, p)); // one pass over the row pointer
    PetscCall(PetscViewerASCIIPrintf(v, "tiles of W x T = %d x %d nonzeros, %d warps per block, S = %d tiles per block%s\n", p.W, p.T, p.bunches, p.tiles_per_block, s_note));
    PetscCall(PetscViewerASCIIPrintf(v, "%lld tiles in %lld blocks, %lld dirty tiles (with empty rows), %lld empty rows, %lld rows crossing blocks\n", (long long)st.tiles, (long long)st.blocks, (long long)st.dirty_tiles,
                                     (long long)st.empty_rows, (long long)st.cross_rows));
    PetscCall(PetscViewerASCIIPrintf(v, "auxiliary device arrays: %zu bytes (the CSR arrays are used unmodified)\n", st.aux_bytes));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  // W, T, warps, S: the parameters (as the device runs them once it holds the format); tiles,
  // blocks, dirty_tiles, empty_rows, cross_rows, aux_bytes: csrspec_stats of A with them.
  void Describe(Properties &out, const CsrView<Scalar> &A) const override
  {
    CsrSpecParams p;
    try {
      p = csrspec_resolve<Scalar>(user_, A.nnz(), 0);
    } catch (const std::invalid_argument &) {
      return; // options SetFromOptions refused
    }
#if defined(GPUMAT_WITH_CUDA)
    if (dev_.device_bytes()) p = dev_.params();
#endif
    const CsrSpecStats st = csrspec_stats(A, p);
    out.insert(out.end(), {{"W", std::to_string(p.W)},
                           {"T", std::to_string(p.T)},
                           {"warps", std::to_string(p.bunches)},
                           {"S", std::to_string(p.tiles_per_block)},
                           {"tiles", std::to_string(st.tiles)},
                           {"blocks", std::to_string(st.blocks)},
                           {"dirty_tiles", std::to_string(st.dirty_tiles)},
                           {"empty_rows", std::to_string(st.empty_rows)},
                           {"cross_rows", std::to_string(st.cross_rows)},
                           {"aux_bytes", std::to_string(st.aux_bytes)}});
  }

private:
#if defined(GPUMAT_WITH_CUDA)
  // The device build from src, A's CSR on the host (uploaded) or on the device (copied there).
  template <class Source>
  PetscErrorCode BuildFrom(const CsrView<Scalar> &A, const Source &src, cudaStream_t s)
  {
    PetscFunctionBegin;
    PetscCall(Resolve(A.nnz(), 0, &params_)); // the device resolves S for its own wave
    PetscCall(CheckDevice(dev_.build(src, user_, s), "csrspec", A));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif

  // csrspec_resolve (the one place that chooses defaults) with the user's options as a PETSc error.
  PetscErrorCode Resolve(std::int64_t nnz, long long resident_blocks, CsrSpecParams *p) const
  {
    PetscFunctionBegin;
    try {
      *p = csrspec_resolve<Scalar>(user_, nnz, resident_blocks);
    } catch (const std::invalid_argument &e) {
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s (options -mat_csrspec_w, -mat_csrspec_warps, -mat_csrspec_tiles_per_block)", e.what());
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  CsrSpecParams       user_{}, params_{};
  CsrSpecHost<Scalar> host_;
};

} // namespace

std::unique_ptr<Format> CreateCsrSpec() { return std::make_unique<CsrSpecFormat>(); }

} // namespace gpumat
