// COO maps on the device (src/cuda/coo.cuh): CooDevice::apply against the host reference coo_apply
// (src/core/coo.hpp) for maps over every nonzero (INSERT_VALUES and ADD_VALUES) and over the
// targets hit (added), bit for bit (the same order of summation), on every matrix of the standard
// set; 64-bit maps; GatherDevice.
#include "core/coo.hpp"
#include "cuda/coo.cuh"
#include "device_helpers.cuh"
#include "matgen.hpp"

#include <gtest/gtest.h>
#include <algorithm>
#include <random>

using gpumat::CooMap;
using gpumat::index_t;
using gpumat_test::DeviceArray;
using gpumat_test::Stream;

namespace {

// Entries of M's nonzeros: each nonzero 0..3 times, some ignored, shuffled.
std::vector<index_t> random_targets(const matgen::Csr &M, std::uint64_t seed) {
  std::mt19937_64      g(seed);
  std::vector<index_t> pos;
  for (index_t t = 0; t < M.nnz(); ++t)
    for (int k = int(g() % 4); k > 0; --k) pos.push_back(t);
  for (int k = 0; k < 9; ++k) pos.push_back(-1);
  std::shuffle(pos.begin(), pos.end(), g);
  return pos;
}

template <typename T>
void check_apply() {
  const Stream s;
  for (const matgen::Csr &M : matgen::standard_set_cached(512)) {
    const std::vector<index_t> pos = random_targets(M, 3);
    const std::vector<T>       src = matgen::random_vector<T>(pos.size(), 4), start = M.values<T>();
    const DeviceArray<T>       dsrc(src);
    for (bool every : {true, false})
      for (bool insert : {true, false}) {
        if (!every && insert) continue; // maps over the targets hit only add
        const CooMap           m = gpumat::coo_map(M.nnz(), pos.data(), std::int64_t(pos.size()), every);
        gpumat::cuda::CooDevice<T> D;
        ASSERT_EQ(cudaSuccess, D.upload(m, s)) << M.name;
        EXPECT_FALSE(D.wide());
        EXPECT_EQ(D.segments(), m.segments());
        EXPECT_EQ(D.entries(), m.entries());
        const DeviceArray<T> dval(start);
        ASSERT_EQ(cudaSuccess, D.apply(dsrc.p, insert, dval.p, s)) << M.name;
        ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(s));
        std::vector<T> want = start;
        gpumat::coo_apply(m, src.data(), insert, want.data());
        EXPECT_EQ(dval.download(), want) << M.name << (every ? " every nonzero" : " targets hit") << (insert ? " insert" : " add");
      }
  }
}
TEST(CooDevice, ApplyDouble) { check_apply<double>(); }
TEST(CooDevice, ApplyFloat) { check_apply<float>(); }

// A map whose sources pass 2^31 takes 64-bit offsets and entries (uploaded, not applied: no source
// array that large here); one within 32 bits goes back to 32-bit ones.
TEST(CooDevice, WideMap) {
  const Stream s;
  CooMap       m;
  m.jmap = {0, 2, 2, 3};
  m.perm = {std::int64_t(1) << 32, 0, 1};
  gpumat::cuda::CooDevice<double> D;
  ASSERT_EQ(cudaSuccess, D.upload(m, s));
  EXPECT_TRUE(D.wide());
  EXPECT_EQ(D.device_bytes(), std::size_t(4 + 3) * sizeof(std::int64_t));
  m.perm = {2, 0, 1};
  ASSERT_EQ(cudaSuccess, D.upload(m, s));
  EXPECT_FALSE(D.wide());
  EXPECT_EQ(D.device_bytes(), std::size_t(4 + 3) * sizeof(index_t));
}

TEST(GatherDevice, Gather) {
  const Stream                    s;
  const std::vector<double>       src = matgen::random_vector<double>(1000, 5);
  std::vector<std::int64_t>       idx;
  for (std::int64_t k = 0; k < 700; ++k) idx.push_back((k * 37) % 1000);
  gpumat::cuda::GatherDevice<double> G;
  ASSERT_EQ(cudaSuccess, G.upload(idx.data(), std::int64_t(idx.size()), 1000, s));
  const DeviceArray<double> dsrc(src), ddst(idx.size());
  ASSERT_EQ(cudaSuccess, G.apply(dsrc.p, ddst.p, s));
  ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(s));
  std::vector<double> want;
  for (std::int64_t k : idx) want.push_back(src[std::size_t(k)]);
  EXPECT_EQ(ddst.download(), want);
}

} // namespace
