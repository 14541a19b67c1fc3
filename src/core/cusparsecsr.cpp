// cusparsecsr host side: the device bytes and the reference product (see the header).
#include "cusparsecsr.hpp"
#include "format_record.hpp"

#include <string>

namespace gpumat {

std::size_t csr_bytes(index_t m, std::int64_t nnz, std::size_t scalar) {
  const std::size_t nrp = m > 0 ? std::size_t(m) + 1 : 0;
  return nrp * sizeof(index_t) + std::size_t(nnz) * (sizeof(index_t) + scalar);
}

template <typename T>
void csr_apply(const CsrView<T> &A, Op op, const T *x, const T *z, T *y) {
  if (op == Op::Trans) {
    for (index_t c = 0; c < A.ncols; ++c) y[c] = z ? z[c] : T(0);
    for (index_t r = 0; r < A.nrows; ++r)
      for (index_t k = A.rowptr[r]; k < A.rowptr[r + 1]; ++k) y[A.colidx[k]] += A.val[k] * x[r];
    return;
  }
  for (index_t r = 0; r < A.nrows; ++r) {
    T sum = T(0);
    for (index_t k = A.rowptr[r]; k < A.rowptr[r + 1]; ++k) sum += A.val[k] * x[A.colidx[k]];
    y[r] = z ? z[r] + sum : sum;
  }
}

template void csr_apply<double>(const CsrView<double> &, Op, const double *, const double *, double *);
template void csr_apply<float>(const CsrView<float> &, Op, const float *, const float *, float *);

} // namespace gpumat

// ---- the record (src/core/format_record.hpp) ------------------------------------------------
namespace gpumat {

const FormatRecord &cusparsecsr_record() {
  static const FormatRecord r = [] {
    FormatRecord  r("cusparsecsr");
    OptionRecord &o = r.add(OptionKind::Int, "alg", "cuSPARSE's CSR SpMV algorithm: 1 (CUSPARSE_SPMV_CSR_ALG1) or 2 (CUSPARSE_SPMV_CSR_ALG2)", std::to_string(csr_default_alg));
    o.lo = csr_min_alg, o.hi = csr_max_alg;
    o.range_error       = "{name} must be {lo} or {hi}, got {value}";
    r.gpuauto.model     = auto_csr_shape;
    r.gpuauto.constants = {{"cusparsecsr", {1.00, 11.0, 0.93}}};
    // build (ns per nonzero, ns per row, us): the fit to 24 builds of aijcusparse:alg1 (the same
    // cuSPARSE CSR), |relative error| median 7 %
    r.gpuauto.build = {1.58, 0.498, 9150};
    return r;
  }();
  return r;
}

} // namespace gpumat
