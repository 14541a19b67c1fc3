// bccoo parameter sets shared by the host and CUDA unit tests.
#pragma once
#include "core/bccoo.hpp"

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

} // namespace gpumat_test
