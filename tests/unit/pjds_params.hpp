// pjds parameter sets shared by the host and CUDA unit tests.
#pragma once
#include "core/pjds.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gpumat_test {

inline gpumat::PjdsParams pp(int br, std::int64_t sigma, std::int64_t long_row) {
  gpumat::PjdsParams p;
  p.block_rows = br;
  p.sigma      = sigma;
  p.long_row   = long_row;
  return p;
}

inline std::string describe(const gpumat::PjdsParams &p) {
  return "b_r=" + std::to_string(p.block_rows) + " sigma=" + (p.sigma >= gpumat::pjds_all_rows ? std::string("all") : std::to_string(p.sigma)) +
         " long_row=" + std::to_string(p.long_row);
}

// b_r in {1, 4, 32, 128} x sigma in {1, 256, all rows} x long_row in {the model's, 8}.
inline std::vector<gpumat::PjdsParams> pjds_param_sets() {
  std::vector<gpumat::PjdsParams> s;
  for (int br : {1, 4, 32, 128})
    for (std::int64_t sigma : {std::int64_t(1), std::int64_t(256), gpumat::pjds_all_rows})
      for (std::int64_t lr : {std::int64_t(0), std::int64_t(8)}) s.push_back(pp(br, sigma, lr));
  return s;
}

// The parameterized tests' names.
inline std::string pjds_param_name(const ::testing::TestParamInfo<gpumat::PjdsParams> &i) {
  return "br" + std::to_string(i.param.block_rows) + "_sigma" + (i.param.sigma >= gpumat::pjds_all_rows ? std::string("all") : std::to_string(i.param.sigma)) + "_long" +
         std::to_string(i.param.long_row);
}

} // namespace gpumat_test
