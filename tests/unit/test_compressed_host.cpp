// Compressed rows (src/core/compressed.hpp), the machinery's form of blocks with mostly empty rows:
// the row list and row pointer, the decision rule, and products through the row list against the
// plain product of the full matrix, for every matrix of the standard set.
#include "core/compressed.hpp"
#include "matgen.hpp"
#include "params.hpp"

#include <gtest/gtest.h>

using gpumat::CompressedRows;
using gpumat::index_t;

namespace {

// Plain CSR product y = op(A) x (+ z), the stand-in for a format's kernel on the compressed matrix.
template <typename T>
void plain_apply(const gpumat::CsrView<T> &A, bool trans, const T *x, const T *z, T *y) {
  const index_t nout = trans ? A.ncols : A.nrows;
  for (index_t i = 0; i < nout; ++i) y[i] = z ? z[i] : T(0);
  for (index_t r = 0; r < A.nrows; ++r)
    for (index_t k = A.rowptr[r]; k < A.rowptr[r + 1]; ++k) {
      if (trans) y[A.colidx[k]] += A.val[k] * x[r];
      else y[r] += A.val[k] * x[A.colidx[k]];
    }
}

TEST(CompressedRows, ListAndRowPointer) {
  for (const matgen::Csr &M : matgen::standard_set_cached(512)) {
    const std::vector<double> vals = M.values<double>();
    const auto A                   = M.view(vals);
    CompressedRows c;
    gpumat::compress_rows(A, c);
    index_t empty = 0;
    std::size_t next = 0;
    for (index_t r = 0; r < M.nrows; ++r) {
      if (M.rowptr[r] == M.rowptr[r + 1]) {
        ++empty;
        continue;
      }
      ASSERT_LT(next, c.rows.size()) << M.name;
      EXPECT_EQ(c.rows[next], r) << M.name;
      EXPECT_EQ(c.rowptr[next], M.rowptr[r]) << M.name;
      EXPECT_EQ(c.rowptr[next + 1], M.rowptr[r + 1]) << M.name;
      ++next;
    }
    EXPECT_EQ(next, c.rows.size()) << M.name;
    EXPECT_EQ(gpumat::count_empty_rows(A), empty) << M.name;
    const auto v = c.view(A);
    EXPECT_EQ(v.nrows, M.nrows - empty);
    EXPECT_EQ(v.nnz(), M.nnz()) << M.name;
    EXPECT_EQ(v.colidx, A.colidx);
    EXPECT_EQ(v.val, A.val);
  }
}

TEST(CompressedRows, DecisionFollowsPetscRatio) {
  EXPECT_FALSE(gpumat::compressed_rows_pay(100, 0, 0.0));  // nothing to gain without empty rows
  EXPECT_FALSE(gpumat::compressed_rows_pay(100, 59, 0.6));
  EXPECT_TRUE(gpumat::compressed_rows_pay(100, 60, 0.6));
  EXPECT_TRUE(gpumat::compressed_rows_pay(100, 1, 0.0));
  EXPECT_FALSE(gpumat::compressed_rows_pay(0, 0, 0.6));
}

// The machinery's compressed products (seqaij.cxx HostReferenceApply, the device path alike):
// NoTrans: w = Ac x, y = z (or 0), y[rows] += w. Trans: w = x[rows], y = z + Ac^T w.
template <typename T>
void check_products(const matgen::Csr &M) {
  const std::vector<T> vals = M.values<T>();
  const auto A              = M.view(vals);
  CompressedRows c;
  gpumat::compress_rows(A, c);
  const auto Ac = c.view(A);
  std::vector<T> w(std::size_t(c.size()));
  for (bool trans : {false, true})
    for (int zm = 0; zm < 3; ++zm) { // no z, separate z, y aliasing z
      const std::size_t nin = std::size_t(trans ? M.nrows : M.ncols), nout = std::size_t(trans ? M.ncols : M.nrows);
      const std::vector<T> x = matgen::random_vector<T>(nin, 31), z = matgen::random_vector<T>(nout, 32);
      std::vector<long double> ref, scale;
      matgen::reference(M, vals, trans, x.data(), zm ? z.data() : nullptr, ref, scale);
      std::vector<T> y(nout, std::numeric_limits<T>::quiet_NaN());
      const T *zp = zm == 1 ? z.data() : nullptr;
      if (zm == 2) {
        y  = z;
        zp = y.data();
      }
      if (!trans) {
        plain_apply(Ac, false, x.data(), static_cast<const T *>(nullptr), w.data());
        if (zp != y.data())
          for (std::size_t i = 0; i < nout; ++i) y[i] = zp ? zp[i] : T(0);
        gpumat::scatter_add_rows(c.size(), c.rows.data(), w.data(), y.data());
      } else {
        gpumat::gather_rows(c.size(), c.rows.data(), x.data(), w.data());
        plain_apply(Ac, true, w.data(), zp, y.data());
      }
      ASSERT_EQ(matgen::mismatch(y, ref, scale, gpumat_test::tolerance<T>()), "") << M.name << (trans ? " Trans" : " NoTrans") << " z mode " << zm;
    }
}

TEST(CompressedRows, ProductsMatchTheFullMatrix) {
  for (const matgen::Csr &M : matgen::standard_set_cached(512)) {
    check_products<double>(M);
    check_products<float>(M);
  }
}

} // namespace
