// The csrspec parameter sets the host and CUDA unit tests share.
#pragma once
#include "core/csrspec.hpp"

#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace gpumat_test {

inline gpumat::CsrSpecParams params(int W, int bunches, int S) {
  gpumat::CsrSpecParams p;
  p.W               = W;
  p.bunches         = bunches;
  p.tiles_per_block = S;
  return p;
}

inline std::string describe(const gpumat::CsrSpecParams &p) {
  return "W=" + std::to_string(p.W) + " bunches=" + std::to_string(p.bunches) + " S=" + std::to_string(p.tiles_per_block);
}

// W in {1,2,3,8,16} x bunches in {1,4} x S in {1,3}, plus the defaults and a wide W.
inline std::vector<gpumat::CsrSpecParams> param_sets() {
  std::vector<gpumat::CsrSpecParams> v;
  for (int W : {1, 2, 3, 8, 16})
    for (int b : {1, 4})
      for (int S : {1, 3}) v.push_back(params(W, b, S));
  v.push_back(params(0, 0, 0));
  v.push_back(params(64, 1, 2));
  return v;
}

// GoogleTest name of a (parameters, Op) test instance: W8_B2_S1_NoTrans.
struct ParamName {
  template <typename Info> std::string operator()(const Info &info) const {
    const gpumat::CsrSpecParams &p = std::get<0>(info.param);
    return "W" + std::to_string(p.W) + "_B" + std::to_string(p.bunches) + "_S" + std::to_string(p.tiles_per_block) +
           (std::get<1>(info.param) == gpumat::Op::Trans ? "_Trans" : "_NoTrans");
  }
};

template <typename T> double tolerance() { return std::is_same<T, double>::value ? 1e-12 : 1e-5; }

} // namespace gpumat_test
