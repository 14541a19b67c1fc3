// Adapter: cusparsesell (src/core/cusparsesell.hpp, src/cuda/cusparsesell.cuh) as a petsc-gpumat
// format: cuSPARSE's sliced ELL and its SpMV, with the machinery's types, compressed rows, refresh
// and events.
#include "gpumat_impl.hpp"
#include "core/cusparsesell.hpp"
#include "core/format_record.hpp"
#include <limits>
#include <stdexcept>
#include <string>
#if defined(GPUMAT_WITH_CUDA)
  #include "cuda/cusparsesell.cuh"
#endif

namespace gpumat {
namespace {

class CusparseSellFormat final : public WithHostObject<GPUMAT_CUSPARSE_FORMAT(cuda::SellDevice<Scalar>), SellHost<Scalar>> {
public:
  PetscErrorCode SetFromOptions(PetscOptionItems PetscOptionsObject) override
  {
    PetscInt  v;
    PetscBool set;
    PetscFunctionBegin;
    PetscCall(ReadOption(PetscOptionsObject, cusparsesell_record().option("slice"), (PetscInt)slice_, &v, &set));
    if (set) slice_ = (int)v, slice_set_ = true;
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  std::unique_ptr<Format> CloneSettings() const override
  {
    auto f        = std::make_unique<CusparseSellFormat>();
    f->slice_     = slice_;
    f->slice_set_ = slice_set_;
    return f;
  }

  PetscErrorCode HostBuild(const CsrView<Scalar> &A) override
  {
    PetscFunctionBegin;
    PetscCall(CheckPadded(A));
    PetscCallCXX(host_.build(A, slice_));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

#if defined(GPUMAT_WITH_CUDA)
  PetscErrorCode DeviceBuild(const CsrView<Scalar> &A, cudaStream_t s) override
  {
    PetscFunctionBegin;
    PetscCall(CheckPadded(A));
    PetscCall(CheckCusparse(dev_.build(A, slice_, s), A));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif

  PetscErrorCode ViewInfo(PetscViewer v, const CsrView<Scalar> &A) const override
  {
    SellStats st;
    PetscFunctionBegin;
    PetscCallCXX(st = sell_stats(A, slice_)); // one pass over the row pointer
    const double nnz = (double)A.nnz();
    PetscCall(PetscViewerASCIIPrintf(v, "cuSPARSE sliced ELL, CUSPARSE_SPMV_SELL_ALG1: slice size %d (-mat_cusparsesell_slice), %lld slices, widest %d\n", slice_, (long long)st.slices, (int)st.max_width));
    PetscCall(PetscViewerASCIIPrintf(v, "stored entries: %lld for %lld nonzeros (padding %.1f %% of the nonzeros)\n", (long long)st.padded, (long long)A.nnz(), nnz > 0 ? 100.0 * ((double)st.padded - nnz) / nnz : 0.0));
    std::string note; // one print per line: the viewer indents every print
#if defined(GPUMAT_WITH_CUDA)
    if (dev_.device_bytes()) PetscCallCXX(note = ", cuSPARSE buffer " + std::to_string(dev_.buffer_bytes()) + "; SpMV preprocessed: " + (dev_.preprocessed() ? "yes" : "no (not supported)"));
#endif
    PetscCall(PetscViewerASCIIPrintf(v, "device bytes: layout %zu (values, column indices, slice offsets), refresh %zu (slot map, staged values)%s\n", st.layout_bytes(sizeof(Scalar)), (std::size_t)A.nnz() * (sizeof(index_t) + sizeof(Scalar)), note.c_str()));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  // slice, slice_source (option|default), slices, widest (entries per row of the widest slice),
  // stored_entries (with the padding).
  void Describe(Properties &out, const CsrView<Scalar> &A) const override
  {
    const SellStats st = sell_stats(A, slice_);
    out.insert(out.end(), {{"slice", std::to_string(slice_)},
                           {"slice_source", slice_set_ ? "option" : "default"},
                           {"slices", std::to_string(st.slices)},
                           {"widest", std::to_string(st.max_width)},
                           {"stored_entries", std::to_string(st.padded)}});
  }

private:
  // The padded size must fit the 32-bit positions of the layout: a clear error before any build.
  PetscErrorCode CheckPadded(const CsrView<Scalar> &A) const
  {
    SellStats st;
    PetscFunctionBegin;
    PetscCallCXX(st = sell_stats(A, slice_));
    PetscCheck(st.padded <= std::numeric_limits<index_t>::max(), PETSC_COMM_SELF, PETSC_ERR_SUP,
               "cusparsesell: a block of %d rows with %d nonzeros stores %lld entries at slice size %d (its widest slice has %d entries per row), beyond 32-bit positions; use more MPI ranks or a smaller -mat_cusparsesell_slice", (int)A.nrows,
               (int)A.nnz(), (long long)st.padded, slice_, (int)st.max_width);
    PetscFunctionReturn(PETSC_SUCCESS);
  }

#if defined(GPUMAT_WITH_CUDA)
  // A CUDA error as a PETSc error: out of memory and parameters as the machinery reports them, a
  // failed cuSPARSE call by its name and status.
  std::string CusparseParams() const override { return "slice size " + std::to_string(slice_) + ", -mat_cusparsesell_slice"; }
#endif

  int                  slice_     = sell_default_slice;
  bool                 slice_set_ = false; // -mat_cusparsesell_slice given
};

} // namespace

std::unique_ptr<Format> CreateCusparseSell() { return std::make_unique<CusparseSellFormat>(); }

} // namespace gpumat
