// Helpers of every format's unit tests (host and CUDA): the three ways a product receives z, and
// one host product checked against the long-double CSR reference.
#pragma once
#include "core/csr.hpp"
#include "matgen.hpp"
#include "params.hpp" // tolerance<T>()

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace gpumat_test {

// Stored values equal element by element: equal, or of the same bits (a NaN, pjds's positional
// padding sentinel among them, equals only itself; 0.0 and -0.0 stay equal).
template <typename T>
bool same_values(const std::vector<T> &a, const std::vector<T> &b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k)
    if (!(a[k] == b[k]) && gpumat::value_bits(a[k]) != gpumat::value_bits(b[k])) return false;
  return true;
}

// No z, a separate z, or y aliasing z (in-place MatMultAdd).
enum class ZMode { None, Separate, Alias };

// y = op(M) x (+ z) computed by apply(x, z, y) (host arrays), against matgen::reference: x and z
// random (seeds xseed and zseed), y poisoned with NaN or, aliasing, holding z. "" when every entry
// is within tolerance<T>(), else the first failing entry (matgen::mismatch).
template <typename T, typename Apply>
std::string product_mismatch(const matgen::Csr &M, const std::vector<T> &vals, gpumat::Op op, ZMode zm, std::uint64_t xseed, std::uint64_t zseed, Apply &&apply) {
  const bool               trans = op == gpumat::Op::Trans;
  const std::size_t        nin = std::size_t(trans ? M.nrows : M.ncols), nout = std::size_t(trans ? M.ncols : M.nrows);
  const std::vector<T>     x = matgen::random_vector<T>(nin, xseed), zv = matgen::random_vector<T>(nout, zseed);
  std::vector<long double> ref, scale;
  matgen::reference(M, vals, trans, x.data(), zm == ZMode::None ? nullptr : zv.data(), ref, scale);
  std::vector<T> y(nout, std::numeric_limits<T>::quiet_NaN());
  const T       *z = zm == ZMode::Separate ? zv.data() : nullptr;
  if (zm == ZMode::Alias) {
    y = zv;
    z = y.data();
  }
  apply(x.data(), z, y.data());
  return matgen::mismatch(y, ref, scale, tolerance<T>());
}

} // namespace gpumat_test
