// pjds parameter sets shared by the host and CUDA unit tests.
#pragma once
#include "core/pjds.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gpumat_test {

inline gpumat::PjdsParams pp(int br, std::int64_t sigma, std::int64_t long_row, gpumat::PjdsColumns columns = gpumat::PjdsColumns::Auto,
                             gpumat::PjdsValues values = gpumat::PjdsValues::Auto) {
  gpumat::PjdsParams p;
  p.block_rows = br;
  p.sigma      = sigma;
  p.long_row   = long_row;
  p.columns    = columns;
  p.values     = values;
  // positional columns on every pattern, where they pay or not: the kernels' and layouts' tests
  // (pjds_positional_pays's own tests clear it)
  p.positional_always = columns == gpumat::PjdsColumns::Positional;
  return p;
}

inline const char *values_name(gpumat::PjdsValues v) {
  return v == gpumat::PjdsValues::Plain ? "plain" : v == gpumat::PjdsValues::Table ? "table" : "auto";
}

inline const char *columns_name(gpumat::PjdsColumns c) {
  return c == gpumat::PjdsColumns::Plain ? "plain" : c == gpumat::PjdsColumns::Dictionary ? "dict" : c == gpumat::PjdsColumns::Positional ? "positional" : "auto";
}

inline std::string describe(const gpumat::PjdsParams &p) {
  return "b_r=" + std::to_string(p.block_rows) + " sigma=" + (p.sigma >= gpumat::pjds_all_rows ? std::string("all") : std::to_string(p.sigma)) +
         " long_row=" + std::to_string(p.long_row) + " columns=" + columns_name(p.columns) + " values=" + values_name(p.values);
}

// b_r in {1, 4, 32, 128} x sigma in {1, 256, all rows} x long_row in {the model's, 8}, columns and
// values auto; with dictionary columns b_r in {1, 32, 128} x sigma in {1, all rows} x long_row 8
// (values a table wherever they fit for b_r 32); with positional columns b_r in {1, 32} x sigma in
// {1, all rows} and b_r 128 x sigma 1, long_row 8 (values a table wherever they fit for b_r 32,
// sigma 1; b_r 128 sorted would store many zeros on the random patterns: every row of a block as
// wide as the block's distinct offsets); b_r 32 with plain columns and values; and values a table
// wherever they fit with b_r 4 x sigma 256 x long_row 8 and plain columns, and b_r 128 x all rows x
// the model's long_row (the test matrices' random values: tables of 16-bit codes, more than 256
// distinct values; 8-bit codes on the few matrices of fewer).
inline std::vector<gpumat::PjdsParams> pjds_param_sets() {
  std::vector<gpumat::PjdsParams> s;
  for (int br : {1, 4, 32, 128})
    for (std::int64_t sigma : {std::int64_t(1), std::int64_t(256), gpumat::pjds_all_rows})
      for (std::int64_t lr : {std::int64_t(0), std::int64_t(8)}) s.push_back(pp(br, sigma, lr));
  for (int br : {1, 32, 128})
    for (std::int64_t sigma : {std::int64_t(1), gpumat::pjds_all_rows})
      s.push_back(pp(br, sigma, 8, gpumat::PjdsColumns::Dictionary, br == 32 ? gpumat::PjdsValues::Table : gpumat::PjdsValues::Auto));
  for (int br : {1, 32})
    for (std::int64_t sigma : {std::int64_t(1), gpumat::pjds_all_rows})
      s.push_back(pp(br, sigma, 8, gpumat::PjdsColumns::Positional, br == 32 && sigma == 1 ? gpumat::PjdsValues::Table : gpumat::PjdsValues::Auto));
  s.push_back(pp(128, 1, 8, gpumat::PjdsColumns::Positional));
  s.push_back(pp(32, gpumat::pjds_all_rows, 0, gpumat::PjdsColumns::Plain, gpumat::PjdsValues::Plain));
  s.push_back(pp(4, 256, 8, gpumat::PjdsColumns::Plain, gpumat::PjdsValues::Table));
  s.push_back(pp(128, gpumat::pjds_all_rows, 0, gpumat::PjdsColumns::Auto, gpumat::PjdsValues::Table));
  return s;
}

// The parameterized tests' names.
inline std::string pjds_param_name(const ::testing::TestParamInfo<gpumat::PjdsParams> &i) {
  return "br" + std::to_string(i.param.block_rows) + "_sigma" + (i.param.sigma >= gpumat::pjds_all_rows ? std::string("all") : std::to_string(i.param.sigma)) + "_long" +
         std::to_string(i.param.long_row) + (i.param.columns == gpumat::PjdsColumns::Auto ? std::string() : std::string("_") + columns_name(i.param.columns)) +
         (i.param.values == gpumat::PjdsValues::Auto ? std::string() : std::string("_values_") + values_name(i.param.values));
}

} // namespace gpumat_test
