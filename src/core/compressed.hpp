// Compressed rows: a block whose rows are mostly empty (the off-diagonal block of an MPI matrix,
// rectangular LP blocks, rows removed for boundary conditions) is handed to a format as the CSR
// of its nonempty rows only, and the result is added into y through the row list. A product then
// costs nonzeros plus nonempty rows, never the block's row count. The compressed matrix shares
// the column indices and values of the full one (empty rows own no entries), only its row pointer
// is new. PETSc-free; the machinery (src/petsc) decides when to use it, src/cuda/rowmap.cuh has
// the device side of the row-list kernels.
#pragma once
#include "csr.hpp"

#include <vector>

namespace gpumat {

struct CompressedRows {
  std::vector<index_t> rows;   // the nonempty rows, ascending
  std::vector<index_t> rowptr; // row pointer of the compressed matrix, rows.size() + 1 entries

  index_t size() const { return index_t(rows.size()); }
  // The compressed matrix: rows.size() rows, A's columns, A's column indices and values.
  template <typename T>
  CsrView<T> view(const CsrView<T> &A) const {
    CsrView<T> c;
    c.nrows  = size();
    c.ncols  = A.ncols;
    c.rowptr = rowptr.data();
    c.colidx = A.colidx;
    c.val    = A.val;
    return c;
  }
};

// The empty rows of A and the length of its longest row, in one pass over the row pointer.
struct RowStats {
  index_t empty = 0, longest = 0;
};
template <typename T>
RowStats row_stats(const CsrView<T> &A) {
  RowStats st;
  for (index_t r = 0; r < A.nrows; ++r) {
    const index_t len = A.rowptr[r + 1] - A.rowptr[r];
    st.empty += len == 0;
    st.longest = len > st.longest ? len : st.longest;
  }
  return st;
}

// Number of empty rows of A (one pass over the row pointer).
template <typename T>
index_t count_empty_rows(const CsrView<T> &A) {
  return row_stats(A).empty;
}

// PETSc's rule (MatCheckCompressedRow, ratio 0.6 in SeqAIJ): compress when at least `ratio` of
// the rows are empty. A block without empty rows is never compressed.
inline bool compressed_rows_pay(index_t nrows, index_t empty, double ratio) {
  return empty > 0 && double(empty) >= ratio * double(nrows);
}

template <typename T>
void compress_rows(const CsrView<T> &A, CompressedRows &c) {
  c.rows.clear();
  c.rowptr.assign(1, 0);
  for (index_t r = 0; r < A.nrows; ++r)
    if (A.rowptr[r] != A.rowptr[r + 1]) {
      c.rows.push_back(r);
      c.rowptr.push_back(A.rowptr[r + 1]);
    }
}

// Host side of the row-list products (the device side: src/cuda/rowmap.cuh).
// y[rows[i]] += w[i], i < k
template <typename T>
void scatter_add_rows(index_t k, const index_t *rows, const T *w, T *y) {
  for (index_t i = 0; i < k; ++i) y[rows[i]] += w[i];
}
// w[i] = x[rows[i]], i < k
template <typename T>
void gather_rows(index_t k, const index_t *rows, const T *x, T *w) {
  for (index_t i = 0; i < k; ++i) w[i] = x[rows[i]];
}

} // namespace gpumat
