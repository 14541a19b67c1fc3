// Deterministic test matrices (host CSR in std::vectors) and a plain reference SpMV, for the unit
// tests of every format. PETSc-free; values in double, converted to the tested precision.
#pragma once
#include "core/csr.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <unordered_set>
#include <vector>

namespace matgen {

using gpumat::index_t;

struct Csr {
  std::string name;
  index_t nrows = 0, ncols = 0;
  std::vector<index_t> rowptr{0}, colidx;
  std::vector<double> val;
  index_t nnz() const { return rowptr.back(); }
  template <typename T> std::vector<T> values() const { return std::vector<T>(val.begin(), val.end()); }
  template <typename T> gpumat::CsrView<T> view(const std::vector<T> &v) const {
    return {nrows, ncols, rowptr.data(), colidx.data(), v.data()};
  }
};

// Values and vectors: uniform in +-[0.5, 1.5], never zero, both signs.
inline double signed_value(std::mt19937_64 &g) {
  std::uniform_real_distribution<double> u(0.5, 1.5);
  const double v = u(g);
  return (g() & 1) ? v : -v;
}
template <typename T> std::vector<T> random_vector(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<T> v(n);
  for (auto &e : v) e = T(signed_value(g));
  return v;
}

// The CSR with the given row lengths (capped at ncols), distinct sorted random columns per row.
inline Csr from_lengths(std::string name, index_t ncols, const std::vector<index_t> &lengths, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  Csr A;
  A.name  = std::move(name);
  A.nrows = index_t(lengths.size());
  A.ncols = ncols;
  std::vector<index_t> cols;
  std::unordered_set<index_t> seen;
  for (index_t len : lengths) {
    len = std::min(len, ncols);
    cols.clear();
    if (len == ncols) {
      for (index_t c = 0; c < ncols; ++c) cols.push_back(c);
    } else { // Floyd's sampling of len distinct columns
      seen.clear();
      for (index_t j = ncols - len; j < ncols; ++j) {
        index_t c = std::uniform_int_distribution<index_t>(0, j)(g);
        if (!seen.insert(c).second) {
          c = j;
          seen.insert(j);
        }
        cols.push_back(c);
      }
      std::sort(cols.begin(), cols.end());
    }
    for (index_t c : cols) {
      A.colidx.push_back(c);
      A.val.push_back(signed_value(g));
    }
    A.rowptr.push_back(index_t(A.colidx.size()));
  }
  return A;
}

// Row lengths uniform in [lo, hi]; a fraction `empty` of the rows made empty.
inline Csr random_rows(std::string name, index_t nrows, index_t ncols, index_t lo, index_t hi, double empty,
                       std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_int_distribution<index_t> len(lo, hi);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<index_t> l(static_cast<std::size_t>(nrows));
  for (auto &e : l) e = u(g) < empty ? 0 : len(g);
  return from_lengths(std::move(name), ncols, l, seed + 1);
}

// Runs of empty rows of many lengths (1, 2, ..., several thousands) between short rows, with
// leading and trailing runs.
inline Csr empty_runs(std::uint64_t seed) {
  std::vector<index_t> l;
  const index_t runs[] = {3, 1, 2, 7, 40, 1, 333, 5, 2500, 1, 64, 6000, 2, 17};
  std::mt19937_64 g(seed);
  for (index_t run : runs) {
    l.insert(l.end(), std::size_t(run), 0);
    for (int k = 0; k < 25; ++k) l.push_back(index_t(1 + g() % 9));
  }
  l.insert(l.end(), 100, 0);
  return from_lengths("empty_runs", 700, l, seed);
}

inline Csr leading_trailing_empty(std::uint64_t seed) {
  std::vector<index_t> l(50, 0);
  for (int k = 0; k < 400; ++k) l.push_back(index_t(1 + k % 13));
  l.insert(l.end(), 77, 0);
  return from_lengths("leading_trailing_empty", 300, l, seed);
}

// nrows x ncols, no nonzeros at all (nrows == 0 and/or ncols == 0 allowed).
inline Csr no_nonzeros(std::string name, index_t nrows, index_t ncols) {
  return from_lengths(std::move(name), ncols, std::vector<index_t>(std::size_t(nrows), 0), 0);
}

// One row holding most nonzeros among short rows.
inline Csr heavy_row(std::uint64_t seed) {
  std::vector<index_t> l(3000);
  for (std::size_t r = 0; r < l.size(); ++r) l[r] = index_t(r % 5);
  l[1234] = 20000;
  return from_lengths("heavy_row", 25000, l, seed);
}

// Every row has column 0 plus a few random columns.
inline Csr dense_column(std::uint64_t seed) {
  Csr A = random_rows("dense_column", 5000, 800, 0, 6, 0.0, seed);
  Csr B;
  B.name  = A.name;
  B.nrows = A.nrows;
  B.ncols = A.ncols;
  for (index_t r = 0; r < A.nrows; ++r) {
    B.colidx.push_back(0);
    B.val.push_back(0.75);
    for (index_t k = A.rowptr[r]; k < A.rowptr[r + 1]; ++k)
      if (A.colidx[k] != 0) {
        B.colidx.push_back(A.colidx[k]);
        B.val.push_back(A.val[k]);
      }
    B.rowptr.push_back(index_t(B.colidx.size()));
  }
  return B;
}

// A few rows longer than any tile and block of the tested parameters, between short ones.
inline Csr long_rows(std::uint64_t seed) {
  return from_lengths("long_rows", 30000, {3, 9000, 1, 0, 17000, 2, 2, 12500, 0, 4}, seed);
}

// Rows ending exactly on multiples of ts (a tile boundary): a row of ts-1 then one of 1, a row of
// exactly ts, empty rows at a boundary, a row crossing a boundary by one, a one-nonzero row at a
// boundary.
inline Csr tile_boundary(index_t ts, std::uint64_t seed) {
  return from_lengths("tile_boundary_" + std::to_string(ts), 4 * ts + 8,
                      {ts - 1, 1, 0, 0, ts, 0, ts + 1, ts - 2, 0, 1, ts, 1, 0}, seed);
}

// Pareto-distributed row lengths (power law), random columns.
inline Csr power_law(index_t nrows, index_t ncols, double alpha, double xmin, index_t maxlen, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<index_t> l(static_cast<std::size_t>(nrows));
  for (auto &e : l)
    e = index_t(std::min<double>(maxlen, std::floor(xmin / std::pow(1.0 - u(g), 1.0 / alpha))));
  return from_lengths("power_law", ncols, l, seed + 1);
}

// 2D 5-point Laplacian on an nx x ny grid.
inline Csr stencil_2d(index_t nx, index_t ny) {
  Csr A;
  A.name  = "stencil_2d";
  A.nrows = A.ncols = nx * ny;
  for (index_t j = 0; j < ny; ++j)
    for (index_t i = 0; i < nx; ++i) {
      const index_t r = j * nx + i;
      auto add = [&](index_t c, double v) {
        A.colidx.push_back(c);
        A.val.push_back(v);
      };
      if (j > 0) add(r - nx, -1.0);
      if (i > 0) add(r - 1, -1.0);
      add(r, 4.0);
      if (i + 1 < nx) add(r + 1, -1.0);
      if (j + 1 < ny) add(r + nx, -1.0);
      A.rowptr.push_back(index_t(A.colidx.size()));
    }
  return A;
}

// A problem of `dof` unknowns per node: each node of an nx x ny 5-point stencil coupled to its
// neighbours, every dof to every dof, values L.val * (1 + 0.1 d) + 0.01 r. Exactly 0 where 0.01 r
// cancels a -1 coupling's -(1 + 0.1 d) (rows 100, 110 and 120, the couplings to dof 0, 1 and 2):
// stored zeros, as PETSc's preallocated patterns hold them.
inline Csr dof_problem(index_t nx, index_t ny, index_t dof) {
  const Csr L = stencil_2d(nx, ny);
  Csr       M;
  M.name  = std::to_string(dof) + " dof";
  M.nrows = M.ncols = dof * L.nrows;
  for (index_t r = 0; r < M.nrows; ++r) {
    const index_t node = r / dof;
    for (index_t k = L.rowptr[std::size_t(node)]; k < L.rowptr[std::size_t(node) + 1]; ++k)
      for (index_t d = 0; d < dof; ++d) M.colidx.push_back(dof * L.colidx[std::size_t(k)] + d), M.val.push_back(L.val[std::size_t(k)] * (1.0 + 0.1 * d) + 0.01 * r);
    M.rowptr.push_back(index_t(M.colidx.size()));
  }
  return M;
}

// dof_problem's pattern with constant coefficients: 4 (1 + 0.1 e) coupling a node's unknowns to
// each other, -(1 + 0.1 e) to a neighbour's, e the column's dof (2 dof values, no stored zero).
inline Csr dof_problem_constant(index_t nx, index_t ny, index_t dof) {
  Csr M  = dof_problem(nx, ny, dof);
  M.name = std::to_string(dof) + " dof, constant coefficients";
  for (index_t r = 0; r < M.nrows; ++r)
    for (index_t q = M.rowptr[std::size_t(r)]; q < M.rowptr[std::size_t(r) + 1]; ++q) {
      const index_t c       = M.colidx[std::size_t(q)];
      M.val[std::size_t(q)] = (c / dof == r / dof ? 4.0 : -1.0) * (1.0 + 0.1 * double(c % dof));
    }
  return M;
}

// M's entries' values cycling through k distinct ones: entry q's 1 + (q mod k) (a value table of
// exactly k entries where every entry is stored).
inline std::vector<double> cycled_values(const Csr &M, int k) {
  std::vector<double> v(M.val.size());
  for (std::size_t q = 0; q < v.size(); ++q) v[q] = 1.0 + double(q % std::size_t(k));
  return v;
}

// Blocks of 32 rows (in the matrix's order) whose best positional group (pjds.hpp) differs between
// the even blocks and the odd ones. An even block's rows are a 2-dof problem's, node n = r / 2
// coupled to nodes n - 10, n, n + 10 (both dofs each): from the node's first row 6 offsets, from the
// row itself 9 (groups 2 and 1). An odd block's rows are a stencil's, r + 10 k for k = -3 .. 3: 7
// offsets from the row, 14 from pairs of rows. Over every block groups of 1 row store fewer entries
// (16 a row pair against 20); over the even blocks alone groups of 2. nblocks blocks, columns
// outside the matrix left out, values 1 + (r + c) % 5.
inline Csr alternating_groups(index_t nblocks) {
  Csr A;
  A.name  = "alternating groups";
  A.nrows = A.ncols = 32 * nblocks;
  std::vector<index_t> cols;
  for (index_t r = 0; r < A.nrows; ++r) {
    cols.clear();
    if ((r / 32) % 2 == 0) {
      for (index_t m : {r / 2 - 10, r / 2, r / 2 + 10}) cols.push_back(2 * m), cols.push_back(2 * m + 1);
    } else
      for (index_t k = -3; k <= 3; ++k) cols.push_back(r + 10 * k);
    for (index_t c : cols)
      if (c >= 0 && c < A.ncols) A.colidx.push_back(c), A.val.push_back(1.0 + (r + c) % 5);
    A.rowptr.push_back(index_t(A.colidx.size()));
  }
  return A;
}

// An n x n cyclic band: row r holds the w columns r - w/2 .. r - w/2 + w - 1 (mod n), ascending,
// values 1, 2, 3 by column: rows of equal length, a handful of offsets a block.
inline Csr cyclic_band(index_t n, index_t w) {
  Csr A;
  A.name  = "cyclic_band";
  A.nrows = A.ncols = n;
  std::vector<index_t> cols;
  for (index_t r = 0; r < n; ++r) {
    cols.clear();
    for (index_t j = 0; j < w; ++j) cols.push_back((r + j - w / 2 + n) % n);
    std::sort(cols.begin(), cols.end());
    for (index_t c : cols) A.colidx.push_back(c), A.val.push_back(1.0 + c % 3);
    A.rowptr.push_back(index_t(A.colidx.size()));
  }
  return A;
}

// Dense d x d blocks on a random block pattern: n block rows with 1..k blocks at random block
// columns (an n*d x n*d matrix whose block size is d).
inline Csr dense_blocks(index_t n, index_t d, index_t k, std::uint64_t seed) {
  const Csr P = random_rows("pattern", n, n, 1, k, 0.0, seed);
  Csr       A;
  A.name  = "dense_blocks_" + std::to_string(d);
  A.nrows = A.ncols = n * d;
  std::mt19937_64 g(seed);
  for (index_t I = 0; I < n; ++I)
    for (index_t i = 0; i < d; ++i) {
      for (index_t q = P.rowptr[I]; q < P.rowptr[I + 1]; ++q)
        for (index_t j = 0; j < d; ++j) {
          A.colidx.push_back(P.colidx[q] * d + j);
          A.val.push_back(signed_value(g));
        }
      A.rowptr.push_back(index_t(A.colidx.size()));
    }
  return A;
}

// The matrix set of the unit tests. `ts` adds tile_boundary(ts) for a tile size of interest.
inline std::vector<Csr> standard_set(index_t ts) {
  std::vector<Csr> m;
  m.push_back(random_rows("random_uniform", 4000, 3000, 1, 30, 0.0, 11));
  m.push_back(random_rows("random_with_empty", 4000, 3000, 1, 12, 0.15, 12));
  m.push_back(empty_runs(13));
  m.push_back(no_nonzeros("empty_0x0", 0, 0));
  m.push_back(no_nonzeros("rows_no_cols_7x0", 7, 0));
  m.push_back(no_nonzeros("cols_no_rows_0x9", 0, 9));
  m.push_back(no_nonzeros("all_empty_500x40", 500, 40));
  m.push_back(from_lengths("one_by_one", 1, {1}, 14));
  m.push_back(random_rows("wide", 40, 20000, 50, 900, 0.0, 15));
  m.push_back(random_rows("tall", 20000, 30, 0, 4, 0.0, 16));
  m.push_back(heavy_row(17));
  m.push_back(dense_column(18));
  m.push_back(long_rows(19));
  m.push_back(from_lengths("rows_of_32", 500, std::vector<index_t>(600, 32), 20));
  m.push_back(tile_boundary(ts, 21));
  m.push_back(leading_trailing_empty(22));
  m.push_back(power_law(20000, 20000, 1.2, 2.0, 5000, 23));
  m.push_back(stencil_2d(70, 50));
  return m;
}

// standard_set(ts), built once per ts (not thread-safe).
// 1021 rows (prime: no warp, slice or block size divides it) of 0..3 entries, row 500 of 900: the
// cuSPARSE formats' extra case (ncols columns).
inline Csr rows_1021_one_long(index_t ncols) {
  std::vector<index_t> l(1021);
  for (std::size_t r = 0; r < l.size(); ++r) l[r] = index_t(r % 4);
  l[500] = 900;
  return from_lengths("rows_1021_one_long", ncols, l, 41);
}

inline const std::vector<Csr> &standard_set_cached(index_t ts) {
  static std::map<index_t, std::vector<Csr>> cache;
  auto it = cache.find(ts);
  if (it == cache.end()) it = cache.emplace(ts, standard_set(ts)).first;
  return it->second;
}

// Reference y = op(A) x (+ z) in long double, with scale = sum |a||x| (+ |z|) of each entry for
// relative error bounds.
template <typename T>
void reference(const Csr &A, const std::vector<T> &val, bool trans, const T *x, const T *z,
               std::vector<long double> &y, std::vector<long double> &scale) {
  const std::size_t n = std::size_t(trans ? A.ncols : A.nrows);
  y.assign(n, 0.0L);
  scale.assign(n, 0.0L);
  for (std::size_t i = 0; i < n && z; ++i) {
    y[i]     = z[i];
    scale[i] = std::fabs((long double)z[i]);
  }
  for (index_t r = 0; r < A.nrows; ++r)
    for (index_t k = A.rowptr[r]; k < A.rowptr[r + 1]; ++k) {
      const std::size_t out = std::size_t(trans ? A.colidx[k] : r);
      const long double p   = (long double)val[k] * (long double)x[trans ? r : A.colidx[k]];
      y[out] += p;
      scale[out] += std::fabs(p);
    }
}

// Empty when every |y[i] - ref[i]| <= tol * scale[i] (NaN fails), else the first failing entry.
template <typename T>
std::string mismatch(const std::vector<T> &y, const std::vector<long double> &ref, const std::vector<long double> &scale,
                     double tol) {
  for (std::size_t i = 0; i < y.size(); ++i) {
    const long double d = std::fabs((long double)y[i] - ref[i]);
    if (!(d <= tol * scale[i])) {
      std::ostringstream os;
      os << "entry " << i << ": got " << y[i] << ", expected " << (double)ref[i] << " (sum |a||x| " << (double)scale[i]
         << ")";
      return os.str();
    }
  }
  return {};
}

} // namespace matgen
