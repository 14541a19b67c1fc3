// Adapter: csrspec (src/core/csrspec.hpp, src/cuda/csrspec.cuh) as a petsc-gpumat format.
#include "gpumat_impl.hpp"
#include "core/csrspec.hpp"
#include <stdexcept>
#if defined(GPUMAT_WITH_CUDA)
  #include "cuda/csrspec.cuh"
#endif

namespace gpumat {
namespace {

class CsrSpecFormat final : public Format {
public:
  PetscErrorCode SetFromOptions(PetscOptionItems PetscOptionsObject) override
  {
    PetscFunctionBegin;
    struct {
      const char *name, *text;
      int        *value, max;
    } opts[] = {
      {"-mat_csrspec_w", "Nonzeros per thread per tile, W (0: default for the precision)", &user_.W, 64},
      {"-mat_csrspec_warps", "Thread-bunches (warps) per block (0: default)", &user_.bunches, 16},
      {"-mat_csrspec_tiles_per_block", "Tiles each block processes in sequence, S (0: one wave of blocks on the GPU)", &user_.tiles_per_block, 1024},
    };
    for (auto &o : opts) {
      PetscInt  v = *o.value;
      PetscBool set;
      PetscCall(PetscOptionsInt(o.name, o.text, "MATCSRSPEC", v, &v, &set));
      PetscCheck(!set || (v >= 0 && v <= o.max), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s must be in [0, %d] (0 chooses the default), got %" PetscInt_FMT, o.name, o.max, v);
      *o.value = (int)v;
    }
    PetscCall(Resolve()); // report a bad combination now, not at the first product
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
    PetscCall(Resolve());
    PetscCallCXX(host_.setup(A, params_));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode HostApply(const CsrView<Scalar> &A, Op op, const Scalar *x, const Scalar *z, Scalar *y) override
  {
    PetscFunctionBegin;
    PetscCallCXX(host_.apply(A, op, x, z, y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

#if defined(GPUMAT_WITH_CUDA)
  PetscErrorCode DeviceBuild(const CsrView<Scalar> &A, cudaStream_t s) override
  {
    PetscFunctionBegin;
    PetscCall(Resolve());
    CsrSpecParams dp = params_;
    if (user_.tiles_per_block == 0) dp.tiles_per_block = 0; // the device chooses: one wave of blocks
    const cudaError_t err = dev_.build(A, dp, s);
    PetscCheck(err != cudaErrorMemoryAllocation, PETSC_COMM_SELF, PETSC_ERR_MEM,
               "csrspec: out of GPU memory for a %d x %d block with %d nonzeros (%.1f MB of CSR arrays); use more GPUs (MPI ranks) or a smaller problem", (int)A.nrows, (int)A.ncols, (int)A.nnz(),
               1e-6 * ((double)(A.nrows + 1 + A.nnz()) * sizeof(index_t) + (double)A.nnz() * sizeof(Scalar)));
    PetscCallCUDA(err);
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode DeviceRefresh(const CsrView<Scalar> &A, cudaStream_t s) override
  {
    PetscFunctionBegin;
    PetscCallCUDA(dev_.refresh(A.val, s));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode DeviceApply(Op op, const Scalar *x, const Scalar *z, Scalar *y, cudaStream_t s) override
  {
    PetscFunctionBegin;
    PetscCallCUDA(dev_.apply(op, x, z, y, s));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode DeviceRelease() override
  {
    dev_.release();
    return PETSC_SUCCESS;
  }

  std::size_t DeviceBytes() const override { return dev_.device_bytes(); }
#else
  PetscErrorCode DeviceBuild(const CsrView<Scalar> &, cudaStream_t) override { return NoCuda(); }
  PetscErrorCode DeviceRefresh(const CsrView<Scalar> &, cudaStream_t) override { return NoCuda(); }
  PetscErrorCode DeviceApply(Op, const Scalar *, const Scalar *, Scalar *, cudaStream_t) override { return NoCuda(); }
  PetscErrorCode DeviceRelease() override { return PETSC_SUCCESS; }
  std::size_t    DeviceBytes() const override { return 0; }
#endif

  PetscErrorCode ViewInfo(PetscViewer v, const CsrView<Scalar> &A) const override
  {
    CsrSpecParams p;
    CsrSpecStats  st;
    PetscFunctionBegin;
    PetscCall(Resolve(user_, &p));
    const char *s_note = user_.tiles_per_block ? "" : " (host default; the GPU chooses one wave of blocks)";
#if defined(GPUMAT_WITH_CUDA)
    if (dev_.device_bytes() && !user_.tiles_per_block) { // as the device runs it
      p.tiles_per_block = dev_.params().tiles_per_block;
      s_note            = " (chosen: one wave of resident blocks)";
    }
#endif
    PetscCallCXX(st = csrspec_stats(A, p)); // one pass over the row pointer
    PetscCall(PetscViewerASCIIPrintf(v, "tiles of W x T = %d x %d nonzeros, %d warps per block, S = %d tiles per block%s\n", p.W, p.T, p.bunches, p.tiles_per_block, s_note));
    PetscCall(PetscViewerASCIIPrintf(v, "%lld tiles in %lld blocks, %lld dirty tiles (with empty rows), %lld empty rows, %lld rows crossing blocks\n", (long long)st.tiles, (long long)st.blocks, (long long)st.dirty_tiles,
                                     (long long)st.empty_rows, (long long)st.cross_rows));
    PetscCall(PetscViewerASCIIPrintf(v, "auxiliary device arrays: %zu bytes (the CSR arrays are used unmodified)\n", st.aux_bytes));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

private:
  PetscErrorCode Resolve() { return Resolve(user_, &params_); }
  static PetscErrorCode Resolve(const CsrSpecParams &user, CsrSpecParams *p)
  {
    PetscFunctionBegin;
    try {
      *p = csrspec_resolve<Scalar>(user);
    } catch (const std::invalid_argument &e) {
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s (options -mat_csrspec_w, -mat_csrspec_warps, -mat_csrspec_tiles_per_block)", e.what());
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#if !defined(GPUMAT_WITH_CUDA)
  static PetscErrorCode NoCuda() { SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "petsc-gpumat was built without CUDA"); }
#endif

  CsrSpecParams       user_{}, params_{};
  CsrSpecHost<Scalar> host_;
#if defined(GPUMAT_WITH_CUDA)
  cuda::CsrSpecDevice<Scalar> dev_;
#endif
};

} // namespace

std::unique_ptr<Format> CreateCsrSpec() { return std::make_unique<CsrSpecFormat>(); }

} // namespace gpumat
