// PETSc-free view of a CSR matrix, the input of every format builder.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstddef>
#include <cstring>

namespace gpumat {

using index_t = std::int32_t; // device index width of every format of this project

// Host CSR arrays (not owned). rowptr has nrows+1 entries, rowptr[0] == 0, nondecreasing;
// colidx/val have rowptr[nrows] entries; 0 <= colidx < ncols.
template <typename T>
struct CsrView {
  index_t        nrows = 0, ncols = 0;
  const index_t *rowptr = nullptr;
  const index_t *colidx = nullptr;
  const T       *val    = nullptr;
  index_t nnz() const { return nrows ? rowptr[nrows] : 0; }
};

// A value's bit pattern: its identity in a table of distinct values (pjds's value table; -0.0 and
// 0.0 differ, NaNs by their bits), a float's in the low 32 bits; value_from_bits is its inverse.
template <typename T>
std::uint64_t value_bits(T v) {
  if constexpr (sizeof(T) == 8) {
    std::uint64_t b;
    std::memcpy(&b, &v, 8);
    return b;
  } else {
    std::uint32_t b;
    std::memcpy(&b, &v, 4);
    return b;
  }
}
template <typename T>
T value_from_bits(std::uint64_t bits) {
  T v;
  if constexpr (sizeof(T) == 8) std::memcpy(&v, &bits, 8);
  else {
    const std::uint32_t b = std::uint32_t(bits);
    std::memcpy(&v, &b, 4);
  }
  return v;
}

// The longest row of A (host row pointers; 0 without rows).
template <typename T>
index_t longest_row(const CsrView<T> &A) {
  index_t m = 0;
  for (index_t r = 0; r < A.nrows; ++r) m = std::max(m, A.rowptr[r + 1] - A.rowptr[r]);
  return m;
}

// Where an array lives: host memory, or device memory (a values-only refresh reads device values,
// a device COO assembly's, in place: no copy, no staging).
enum class Mem { Host, Device };

// Products every format offers: y = op(A) x, or y = z + op(A) x when z != nullptr.
// y may alias z (in-place MatMultAdd); x never aliases y.
enum class Op { NoTrans, Trans };

} // namespace gpumat
