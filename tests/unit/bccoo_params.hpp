// bccoo parameter sets and fuzz matrices shared by the host and CUDA unit tests.
#pragma once
#include "core/bccoo.hpp"
#include "core/bccoo_tune.hpp"
#include "matgen.hpp"

#include <cstdint>
#include <iterator>
#include <random>
#include <string>
#include <vector>

namespace gpumat_test {

inline gpumat::BccooParams bp(int h, int w, int slices, int tile, int group, int compress) {
  gpumat::BccooParams p;
  p.h = h, p.w = w, p.slices = slices, p.tile = tile, p.group = group, p.compress_col = compress;
  return p;
}

inline std::string describe(const gpumat::BccooParams &p) {
  return "h=" + std::to_string(p.h) + " w=" + std::to_string(p.w) + " slices=" + std::to_string(p.slices) + " tile=" + std::to_string(p.tile) +
         " group=" + std::to_string(p.group) + " compress=" + std::to_string(p.compress_col);
}

inline std::string bccoo_name(const gpumat::BccooParams &p) {
  return "h" + std::to_string(p.h) + "w" + std::to_string(p.w) + "_S" + std::to_string(p.slices) + "_T" + std::to_string(p.tile) + "_G" +
         std::to_string(p.group) + "_C" + std::to_string(p.compress_col < 0 ? 9 : p.compress_col);
}

// Every block shape, each with a few (slices, tile, group, compression) choices, and the defaults.
inline std::vector<gpumat::BccooParams> bccoo_param_sets() {
  std::vector<gpumat::BccooParams> v;
  const int rest[][4] = {{1, 16, 256, 1}, {3, 8, 32, 0}, {32, 8, 64, 1}, {2, 24, 32, 1}};
  for (int h = 1; h <= 4; ++h)
    for (int w : {1, 2, 4})
      for (const auto &r : rest) v.push_back(bp(h, w, r[0], r[1], r[2], r[3]));
  v.push_back(gpumat::BccooParams{}); // the defaults
  return v;
}

// Every parameter set the tuner can pick (src/core/bccoo_tune.hpp): the full cross product of the
// 12 block shapes (h 1..4 x w 1, 2, 4), column compression yes/no and the tuner's lists of slices,
// tiles and groups: 12 x 2 x 6 x 8 x 4 = 4608 sets, no covering design.
inline std::vector<gpumat::BccooParams> bccoo_tune_space() {
  std::vector<gpumat::BccooParams> v;
  for (int h = 1; h <= 4; ++h)
    for (int w : {1, 2, 4})
      for (int c : {1, 0})
        for (int s : gpumat::kBccooTuneSlices)
          for (int t : gpumat::kBccooTuneTiles)
            for (int g : gpumat::kBccooTuneGroups) v.push_back(bp(h, w, s, t, g, c));
  return v;
}

// A random sparse matrix of the fuzz tests (seeded, deterministic): 1..300 rows and one of three
// kinds: one matrix in four has 65,536..100,000 columns, so that 16-bit column differences escape;
// one in five has 8000..12000 columns and one row of 1000..8000 entries, spanning many thread tiles
// and chained over work groups; the others have 1..300 columns. Row lengths 1..L (L random in
// 1..40) with a random share (0..60 %) of empty rows, distinct random columns per row. Sizes are
// random, so most are no multiple of the block shape.
inline matgen::Csr bccoo_fuzz_matrix(std::uint64_t seed) {
  using gpumat::index_t;
  std::mt19937_64                        g(seed);
  auto                                   uni = [&](index_t lo, index_t hi) { return std::uniform_int_distribution<index_t>(lo, hi)(g); };
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const index_t                          nrows = uni(1, 300);
  const int                              kind  = int(g() % 20); // 0..4: wide, 5..8: a long row, else small
  const index_t                          ncols = kind < 5 ? uni(65536, 100000) : kind < 9 ? uni(8000, 12000) : uni(1, 300);
  const double                           empty = 0.6 * u(g);
  const index_t                          L     = uni(1, 40);
  std::vector<index_t>                   len(std::size_t(nrows), 0);
  for (auto &l : len) l = u(g) < empty ? 0 : uni(1, L);
  if (kind >= 5 && kind < 9) len[std::size_t(uni(0, nrows - 1))] = uni(1000, 8000);
  return matgen::from_lengths("fuzz" + std::to_string(seed) + "_" + std::to_string(nrows) + "x" + std::to_string(ncols), ncols, len, g());
}

// One matrix of the fuzz tests (host and CUDA) with its values, x and z for y = A x and y = A^T x,
// and the long-double reference products [trans][with z].
struct BccooFuzzCase {
  matgen::Csr              M;
  std::vector<double>      v, x, xt, z, zt;
  std::vector<long double> ref[2][2], scale[2][2];
};

// The fuzz tests' pool: n matrices bccoo_fuzz_matrix(1000 + m), their vectors from fixed seeds.
inline std::vector<BccooFuzzCase> bccoo_fuzz_pool(std::size_t n) {
  std::vector<BccooFuzzCase> pool(n);
  for (std::size_t m = 0; m < pool.size(); ++m) {
    BccooFuzzCase &c = pool[m];
    c.M              = bccoo_fuzz_matrix(1000 + m);
    c.v              = c.M.values<double>();
    c.x              = matgen::random_vector<double>(std::size_t(c.M.ncols), 3000 + m);
    c.xt             = matgen::random_vector<double>(std::size_t(c.M.nrows), 4000 + m);
    c.z              = matgen::random_vector<double>(std::size_t(c.M.nrows), 5000 + m);
    c.zt             = matgen::random_vector<double>(std::size_t(c.M.ncols), 6000 + m);
    for (int t = 0; t < 2; ++t)
      for (int wz = 0; wz < 2; ++wz) matgen::reference(c.M, c.v, t == 1, (t ? c.xt : c.x).data(), wz ? (t ? c.zt : c.z).data() : nullptr, c.ref[t][wz], c.scale[t][wz]);
  }
  return pool;
}

} // namespace gpumat_test
