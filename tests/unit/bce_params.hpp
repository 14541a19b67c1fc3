// bce's parameter helpers shared by its host and CUDA unit tests: a parameter set, its description
// and the parameter sets of the product tests (with their test names).
#pragma once
#include "core/bce.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gpumat_test {

inline gpumat::BceParams bp(std::int64_t long_row, std::int64_t c, int max_sets, std::int64_t window = 0) {
  gpumat::BceParams p;
  p.long_row   = long_row;
  p.group_cost = c;
  p.max_sets   = max_sets;
  p.window     = window;
  return p;
}

inline std::string describe(const gpumat::BceParams &p) {
  return "long_row=" + std::to_string(p.long_row) + " c=" + std::to_string(p.group_cost) + " max_sets=" + std::to_string(p.max_sets) + " window=" + std::to_string(p.window);
}

// long_row 0 (the default, default_long_row) / 1 / 8 / 64 / 512 / above every row; group costs default, 0 and
// 5000; merging to 6 and 2 sets; windows of 1, 64, 100, 37 rows, the default and one window.
inline std::vector<gpumat::BceParams> bce_param_sets() { return {bp(0, -1, 0), bp(1, 0, 0, 1), bp(8, 0, 0, 64), bp(64, 5000, 0, 100), bp(512, 0, 6, 1 << 30), bp(100000, 0, 2, 37)}; }
inline std::string bce_param_name(const ::testing::TestParamInfo<gpumat::BceParams> &i) {
  return "long" + std::to_string(i.param.long_row) + "_win" + std::to_string(i.param.window) + "_c" + std::to_string(i.param.group_cost < 0 ? 0 : i.param.group_cost) + "_sets" + std::to_string(i.param.max_sets) + "_" + std::to_string(i.index);
}

} // namespace gpumat_test
