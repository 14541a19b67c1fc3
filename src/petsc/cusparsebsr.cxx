// Adapter: cusparsebsr (src/core/cusparsebsr.hpp, src/cuda/cusparsebsr.cuh) as a petsc-gpumat
// format: cuSPARSE's BSR and its SpMV, with the machinery's types, compressed rows, refresh and
// events. The block size: -mat_cusparsebsr_bs, else the matrix's block size (Format::BlockSize),
// else the fewest bytes among 2..6 (bsr_choose_bs).
#include "gpumat_impl.hpp"
#include "core/cusparsebsr.hpp"
#include "core/format_record.hpp"
#include <stdexcept>
#include <string>
#if defined(GPUMAT_WITH_CUDA)
  #include "cuda/cusparsebsr.cuh"
#endif

namespace gpumat {
namespace {

class CusparseBsrFormat final : public WithHostObject<GPUMAT_CUSPARSE_FORMAT(cuda::BsrDevice<Scalar>), BsrHost<Scalar>> {
public:
  PetscErrorCode SetFromOptions(PetscOptionItems PetscOptionsObject) override
  {
    const FormatRecord &r = cusparsebsr_record();
    PetscInt            v;
    PetscBool           set, rm = row_major_ ? PETSC_TRUE : PETSC_FALSE;
    PetscFunctionBegin;
    PetscCall(ReadOption(PetscOptionsObject, r.option("bs"), (PetscInt)user_bs_, &v, &set));
    if (set) user_bs_ = (int)v;
    PetscCall(ReadOption(PetscOptionsObject, r.option("row_major"), rm, &rm, nullptr));
    row_major_ = rm == PETSC_TRUE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  std::unique_ptr<Format> CloneSettings() const override
  {
    auto f        = std::make_unique<CusparseBsrFormat>();
    f->user_bs_   = user_bs_;
    f->row_major_ = row_major_;
    return f;
  }

  PetscErrorCode HostBuild(const CsrView<Scalar> &A) override
  {
    int bs;
    PetscFunctionBegin;
    PetscCall(Choose(A, &bs, nullptr, nullptr));
    PetscCall(CheckStored(A, bs));
    PetscCallCXX(host_.build(A, bs, row_major_));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

#if defined(GPUMAT_WITH_CUDA)
  PetscErrorCode DeviceBuild(const CsrView<Scalar> &A, cudaStream_t s) override
  {
    int bs;
    PetscFunctionBegin;
    PetscCall(Choose(A, &bs, nullptr, nullptr));
    PetscCall(CheckStored(A, bs));
    build_bs_ = bs;
    PetscCall(CheckCusparse(dev_.build(A, bs, row_major_, s), A));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif

  PetscErrorCode ViewInfo(PetscViewer v, const CsrView<Scalar> &A) const override
  {
    int                      bs;
    BsrChoice                why;
    std::vector<std::size_t> cand;
    std::int64_t             nnzb;
    PetscFunctionBegin;
    PetscCall(Choose(A, &bs, &why, &cand)); // as the builds choose (one pass over the nonzeros)
    PetscCallCXX(nnzb = bsr_block_count(A, bs));
    const char *rule = why == BsrChoice::Option ? "-mat_cusparsebsr_bs" : why == BsrChoice::Hint ? "the matrix's block size" : "the fewest bytes among 2..6";
    PetscCall(PetscViewerASCIIPrintf(v, "cuSPARSE BSR, CUSPARSE_SPMV_BSR_ALG1: blocks %d x %d (%s), %s blocks\n", bs, bs, rule, row_major_ ? "row-major" : "column-major"));
    if (why == BsrChoice::FewestBytes) { // one print per line: the viewer indents every print
      std::string line = "device bytes of the candidates:";
      for (std::size_t i = 0; i < cand.size(); i++) PetscCallCXX(line += " " + std::to_string(bsr_auto_min + (int)i) + ": " + std::to_string(cand[i]));
      PetscCall(PetscViewerASCIIPrintf(v, "%s\n", line.c_str()));
    }
    const double stored = (double)nnzb * bs * bs, nnz = (double)A.nnz();
    PetscCall(PetscViewerASCIIPrintf(v, "%lld blocks, %.0f stored values for %lld nonzeros (fill %.3f)%s%s\n", (long long)nnzb, stored, (long long)A.nnz(), nnz > 0 ? stored / nnz : 0.0,
                                     A.nrows % bs ? ", rows padded (y through a padded copy)" : "", A.ncols % bs ? ", columns padded (x through a padded copy)" : ""));
    PetscCall(PetscViewerASCIIPrintf(v, "device bytes: %zu (values, block columns, block row pointer, slot map, staged values, padded vectors)%s\n", bsr_bytes(A.nrows, A.ncols, A.nnz(), nnzb, bs, sizeof(Scalar)), BufferNote().c_str()));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  // bs, bs_source (option|block_size|fewest_bytes: -mat_cusparsebsr_bs, the matrix's block size,
  // the fewest bytes among 2..6), layout (row-major|column-major), blocks, and with fewest_bytes
  // candidate_bytes ("2:N 3:N ...": the device bytes of each block size).
  void Describe(Properties &out, const CsrView<Scalar> &A) const override
  {
    BsrChoice                why;
    std::vector<std::size_t> cand;
    const int                bs = bsr_choose_bs(A, user_bs_, BlockSize(), &why, &cand); // as the builds choose
    out.insert(out.end(), {{"bs", std::to_string(bs)},
                           {"bs_source", why == BsrChoice::Option ? "option" : why == BsrChoice::Hint ? "block_size" : "fewest_bytes"},
                           {"layout", row_major_ ? "row-major" : "column-major"},
                           {"blocks", std::to_string(bsr_block_count(A, bs))}});
    if (why == BsrChoice::FewestBytes) {
      std::string bytes;
      for (std::size_t i = 0; i < cand.size(); i++) bytes += (i ? " " : "") + std::to_string(bsr_auto_min + (int)i) + ":" + std::to_string(cand[i]);
      out.emplace_back("candidate_bytes", bytes);
    }
  }

private:
  // cuSPARSE's buffer and preprocessing, once the device holds the format
  std::string BufferNote() const
  {
#if defined(GPUMAT_WITH_CUDA)
    if (dev_.device_bytes()) return ", cuSPARSE buffer " + std::to_string(dev_.buffer_bytes()) + "; SpMV preprocessed: " + (dev_.preprocessed() ? "yes" : "no (not supported)");
#endif
    return "";
  }

  PetscErrorCode Choose(const CsrView<Scalar> &A, int *bs, BsrChoice *why, std::vector<std::size_t> *cand) const
  {
    PetscFunctionBegin;
    PetscCallCXX(*bs = bsr_choose_bs(A, user_bs_, BlockSize(), why, cand));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  // The stored values must fit the 32-bit positions of the layout: a clear error before any build.
  PetscErrorCode CheckStored(const CsrView<Scalar> &A, int bs) const
  {
    std::int64_t nnzb;
    PetscFunctionBegin;
    PetscCallCXX(nnzb = bsr_block_count(A, bs));
    PetscCheck(nnzb * bs * bs <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "cusparsebsr: a block of %d rows with %d nonzeros has %lld blocks of %d x %d, %lld values beyond 32-bit positions; use more MPI ranks or a smaller -mat_cusparsebsr_bs", (int)A.nrows, (int)A.nnz(),
               (long long)nnzb, bs, bs, (long long)(nnzb * bs * bs));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

#if defined(GPUMAT_WITH_CUDA)
  // A CUDA error as a PETSc error: out of memory and parameters as the machinery reports them, a
  // failed cuSPARSE call by its name and status.
  std::string CusparseParams() const override { return "blocks " + std::to_string(build_bs_) + " x " + std::to_string(build_bs_); }
  int         build_bs_ = 0; // the block size of the last device build
#endif

  int             user_bs_   = 0;     // 0: the matrix's block size, else the fewest bytes
  bool            row_major_ = false; // column-major blocks by default (src/core/cusparsebsr.hpp)
};

} // namespace

std::unique_ptr<Format> CreateCusparseBsr() { return std::make_unique<CusparseBsrFormat>(); }

} // namespace gpumat
