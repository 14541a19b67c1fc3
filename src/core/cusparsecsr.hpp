// cusparsecsr: cuSPARSE's CSR (CUSPARSE_FORMAT_CSR) and its SpMV, host side.
//
// No layout of its own: the format stores the CSR the machinery gives it (the AIJ block's arrays,
// or their compressed form) as it is, 32-bit indices, zero-based, columns ascending within a row.
// The device holds a copy of the row pointer, column indices and values (src/cuda/cusparsecsr.cu);
// a values-only refresh is one host-to-device copy of the values into the array the cuSPARSE
// descriptor points at (no descriptor, buffer or preprocessing rebuilt). The host reference is
// the plain CSR product over the view.
#pragma once
#include "csr.hpp"
#include <cstddef>
#include <cstdint>

namespace gpumat {

// The SpMV algorithms this format offers, by the number -mat_cusparsecsr_alg takes: 1 =
// CUSPARSE_SPMV_CSR_ALG1 (the default), 2 = CUSPARSE_SPMV_CSR_ALG2.
constexpr int csr_min_alg = 1, csr_max_alg = 2, csr_default_alg = 1;
inline bool csr_alg_valid(long long alg) { return alg >= csr_min_alg && alg <= csr_max_alg; }

// Device bytes of the stored CSR of an m-row matrix with nnz nonzeros: the row pointer (m + 1
// entries, none without rows), column indices and values. cuSPARSE's SpMV buffer is not included
// (known only once cuSPARSE has sized it).
std::size_t csr_bytes(index_t m, std::int64_t nnz, std::size_t scalar);

// Host reference: y = op(A) x (+ z) over A's arrays (z may alias y, x never does). A transposed
// product sets y = z (or 0) over the columns, then adds every entry's contribution.
template <typename T>
void csr_apply(const CsrView<T> &A, Op op, const T *x, const T *z, T *y);

} // namespace gpumat
