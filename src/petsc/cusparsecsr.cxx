// Adapter: cusparsecsr (src/core/cusparsecsr.hpp, src/cuda/cusparsecsr.cuh) as a petsc-gpumat
// format: cuSPARSE's CSR and its SpMV (CUSPARSE_SPMV_CSR_ALG1, or ALG2 with -mat_cusparsecsr_alg 2),
// with the machinery's types, compressed rows, refresh and events.
#include "gpumat_impl.hpp"
#include "core/cusparsecsr.hpp"
#include "core/format_record.hpp"
#include <string>
#if defined(GPUMAT_WITH_CUDA)
  #include "cuda/cusparsecsr.cuh"
#endif

namespace gpumat {
namespace {

class CusparseCsrFormat final : public GPUMAT_CUSPARSE_FORMAT(cuda::CusparseCsrDevice<Scalar>) {
public:
  PetscErrorCode SetFromOptions(PetscOptionItems PetscOptionsObject) override
  {
    PetscInt  v;
    PetscBool set;
    PetscFunctionBegin;
    PetscCall(ReadOption(PetscOptionsObject, cusparsecsr_record().option("alg"), (PetscInt)alg_, &v, &set));
    if (set) alg_ = (int)v, alg_set_ = true;
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  std::unique_ptr<Format> CloneSettings() const override
  {
    auto f      = std::make_unique<CusparseCsrFormat>();
    f->alg_     = alg_;
    f->alg_set_ = alg_set_;
    return f;
  }

  // The host reference reads the CSR the machinery keeps (A, the same arrays at every call):
  // nothing to build or refresh.
  PetscErrorCode HostBuild(const CsrView<Scalar> &) override
  {
    PetscFunctionBegin;
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode HostRefresh(const CsrView<Scalar> &) override
  {
    PetscFunctionBegin;
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscErrorCode HostApply(const CsrView<Scalar> &A, Op op, const Scalar *x, const Scalar *z, Scalar *y) override
  {
    PetscFunctionBegin;
    csr_apply(A, op, x, z, y);
    PetscFunctionReturn(PETSC_SUCCESS);
  }

#if defined(GPUMAT_WITH_CUDA)
  PetscErrorCode DeviceBuild(const CsrView<Scalar> &A, cudaStream_t s) override
  {
    PetscFunctionBegin;
    PetscCall(CheckCusparse(dev_.build(A, alg_, s), A));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif

  PetscErrorCode ViewInfo(PetscViewer v, const CsrView<Scalar> &A) const override
  {
    PetscFunctionBegin;
    PetscCall(PetscViewerASCIIPrintf(v, "cuSPARSE CSR, CUSPARSE_SPMV_CSR_ALG%d (-mat_cusparsecsr_alg %d): %d rows, %lld nonzeros, stored as given (no conversion)\n", alg_, alg_, (int)A.nrows, (long long)A.nnz()));
    std::string note; // one print per line: the viewer indents every print
#if defined(GPUMAT_WITH_CUDA)
    if (dev_.device_bytes()) PetscCallCXX(note = ", cuSPARSE buffer " + std::to_string(dev_.buffer_bytes()) + "; SpMV preprocessed: " + (dev_.preprocessed() ? "yes" : "no (not supported)"));
#endif
    PetscCall(PetscViewerASCIIPrintf(v, "device bytes: %zu (row pointer, column indices, values)%s\n", csr_bytes(A.nrows, A.nnz(), sizeof(Scalar)), note.c_str()));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  // alg (1|2), alg_source (option|default), device_bytes (the CSR's: row pointer, column indices,
  // values), and once the device holds the format buffer_bytes (cuSPARSE's SpMV buffer).
  void Describe(Properties &out, const CsrView<Scalar> &A) const override
  {
    out.insert(out.end(), {{"alg", std::to_string(alg_)}, {"alg_source", alg_set_ ? "option" : "default"}, {"device_bytes", std::to_string(csr_bytes(A.nrows, A.nnz(), sizeof(Scalar)))}});
#if defined(GPUMAT_WITH_CUDA)
    if (dev_.device_bytes()) out.emplace_back("buffer_bytes", std::to_string(dev_.buffer_bytes()));
#endif
  }

private:
#if defined(GPUMAT_WITH_CUDA)
  // A CUDA error as a PETSc error: out of memory and parameters as the machinery reports them, a
  // failed cuSPARSE call by its name and status.
  std::string CusparseParams() const override { return "CUSPARSE_SPMV_CSR_ALG" + std::to_string(alg_) + ", -mat_cusparsecsr_alg"; }
#endif

  int  alg_     = csr_default_alg;
  bool alg_set_ = false; // -mat_cusparsecsr_alg given
};

} // namespace

std::unique_ptr<Format> CreateCusparseCsr() { return std::make_unique<CusparseCsrFormat>(); }

} // namespace gpumat
