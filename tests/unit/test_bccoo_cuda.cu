// bccoo CUDA layer: a build from a CSR already on the device lays out the host builder's arrays;
// refresh in several staging chunks; two products are bitwise equal; special cases: rows
// spanning many work groups, every block a row stop, more than 65,535 columns,
// unsorted columns, a matrix large enough for thousands of concurrently running groups; a fuzz
// test of every parameter set the tuner can pick on random matrices; the tuner's timing of one
// candidate and a whole search on the device. The ablation's steps (apply_variant) and strategy 1
// give the production product: bitwise where they add in its order, else within the reference's
// tolerance. The device builder's arrays (flags, transposed values and column differences,
// escapes, first segments, no-scan groups) against the host builder's and the products (y = A x
// with the adjacent synchronization, the BCCOO+ combine, y = A^T x) for every block shape and
// parameter set on the standard set, the refresh, the diagonal and release are the typed suite's
// (test_formats_cuda.cu).
#include "core/bccoo.hpp"
#include "core/bccoo_tune.hpp"
#include "cuda/bccoo.cuh"
#include "cuda/bccoo_tune.cuh"
#include "bccoo_params.hpp"
#include "device_helpers.cuh"
#include "format_traits_cuda.cuh"
#include "matgen.hpp"
#include "params.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

using gpumat::Bccoo;
using gpumat::BccooParams;
using gpumat::index_t;
using gpumat::Op;
using gpumat::cuda::BccooDevice;
using gpumat::cuda::BccooStage;
using gpumat::cuda::BccooVariant;
using gpumat_test::bp;
using gpumat_test::DeviceArray;
using gpumat_test::describe;
using gpumat_test::Stream;

namespace {

using gpumat_test::ZMode;
using gpumat_test::device_apply;


template <typename T>
void check_matrix(const matgen::Csr &M, const BccooParams &q, cudaStream_t s, bool layout = true) {
  const BccooParams    p    = gpumat::bccoo_resolve(q);
  const std::vector<T> vals = M.values<T>();
  BccooDevice<T>       D;
  ASSERT_EQ(cudaSuccess, D.build(M.view(vals), p, s)) << M.name << " " << describe(p) << ": " << D.why();
  if (layout) gpumat_test::check_bccoo_device_layout(M, vals, p, D);
  gpumat_test::check_device_products(M, vals, D, s, M.name + " " + describe(p));
}

// A build from a CSR already on the device (the tuner's: one upload for every candidate) lays out
// the same arrays as the build from the host CSR, for sorted and unsorted rows, one and several
// slices, compressed and 32-bit columns; several builds from one upload; the upload of an empty
// matrix.
TEST(BccooDevice, BuildFromTheDeviceCsr) {
  const Stream s;
  matgen::Csr  U = matgen::power_law(3000, 70000, 1.4, 3.0, 2000, 17);
  for (index_t r = 0; r < U.nrows; ++r) std::reverse(U.colidx.begin() + U.rowptr[r], U.colidx.begin() + U.rowptr[r + 1]); // unsorted rows
  U.name += " (rows reversed)";
  std::vector<matgen::Csr> set = matgen::standard_set_cached(512);
  set.push_back(U);
  for (const matgen::Csr &M : set) {
    const std::vector<double>       v = M.values<double>();
    gpumat::cuda::DeviceCsr<double> csr;
    ASSERT_EQ(cudaSuccess, csr.upload(M.view(v), s)) << M.name;
    EXPECT_EQ(csr.view().nnz, std::int64_t(M.colidx.size())) << M.name;
    for (const BccooParams &q : {bp(1, 1, 1, 16, 256, 1), bp(3, 2, 4, 8, 32, 1), bp(4, 4, 1, 24, 64, 0), bp(2, 1, 32, 40, 128, 0)}) {
      const BccooParams   p = gpumat::bccoo_resolve(q);
      BccooDevice<double> D;
      ASSERT_EQ(cudaSuccess, D.build(csr.view(), p, s)) << M.name << " " << describe(p) << ": " << D.why();
      gpumat_test::check_bccoo_device_layout(M, v, p, D);
      if (!D.build_phases().empty()) EXPECT_STRNE(D.build_phases().front().first, "upload") << M.name;
    }
  }
  ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(s));
  EXPECT_EQ(cudaSuccess, cudaGetLastError());
}

// More values than one staging chunk of the refresh (4M): the chunks land where a build puts them.
TEST(BccooDevice, RefreshInChunks) {
  const Stream        s;
  const matgen::Csr   M = matgen::random_rows("refresh-chunks", 500000, 400000, 8, 12, 0.0, 86); // about 5M nonzeros
  ASSERT_GT(M.colidx.size(), std::size_t(gpumat::cuda::kRefreshChunk));
  std::vector<double> v = M.values<double>(), w(v.size());
  for (std::size_t k = 0; k < w.size(); ++k) w[k] = 1.0 + double(k % 1009) / 1024.0;
  const BccooParams   p = gpumat::bccoo_resolve(bp(2, 1, 1, 16, 256, 1));
  BccooDevice<double> D, E;
  ASSERT_EQ(cudaSuccess, D.build(M.view(v), p, s));
  ASSERT_EQ(cudaSuccess, D.refresh(w.data(), s));
  ASSERT_EQ(cudaSuccess, E.build(M.view(w), p, s));
  Bccoo<double> a, b;
  ASSERT_EQ(cudaSuccess, D.download(a));
  ASSERT_EQ(cudaSuccess, E.download(b));
  EXPECT_TRUE(a.val == b.val);
}

// Two products are bitwise equal (fixed summation order; the transpose uses atomics and is not
// part of this promise).
TEST(BccooDevice, Deterministic) {
  const Stream s;
  const matgen::Csr M = matgen::power_law(200000, 200000, 1.2, 2.0, 50000, 31);
  const std::vector<double> v = M.values<double>(), x = matgen::random_vector<double>(std::size_t(M.ncols), 5);
  for (const BccooParams &q : {bp(0, 0, 0, 0, 0, -1), bp(2, 2, 8, 32, 128, 1)}) {
    BccooDevice<double> D;
    ASSERT_EQ(cudaSuccess, D.build(M.view(v), gpumat::bccoo_resolve(q), s));
    const std::vector<double> none;
    const std::vector<double> z(std::size_t(M.nrows), 0.0);
    const auto y1 = device_apply(D, Op::NoTrans, x, z, ZMode::None, s), y2 = device_apply(D, Op::NoTrans, x, z, ZMode::None, s);
    EXPECT_TRUE(y1 == y2) << describe(q);
  }
}

// A step of the ablation as a device for device_apply.
template <typename T>
struct VariantOf {
  const BccooDevice<T> &D;
  BccooVariant          v;
  cudaError_t apply(Op, const T *x, const T *z, T *y, cudaStream_t s) const { return D.apply_variant(v, x, z, y, s); }
};

// Every step and strategy against the production product of the same device. Strategy 1 and the
// adjacent_sync step (the scan that no_scan skips gives the same sums) add in the production
// order: bitwise equal. separate_carry adds the carry across groups to the stored first sum of a
// group instead of before the store: bitwise equal without z (and with slices: the partial sums),
// y = (z + s) + c instead of z + (s + c) with z.
template <typename T>
void check_variants(const matgen::Csr &M, const BccooParams &q, cudaStream_t s) {
  const BccooParams    p    = gpumat::bccoo_resolve(q);
  const std::vector<T> vals = M.values<T>();
  BccooDevice<T>       D;
  ASSERT_EQ(cudaSuccess, D.build(M.view(vals), p, s)) << M.name << " " << describe(p) << ": " << D.why();
  const std::vector<T> x = matgen::random_vector<T>(std::size_t(M.ncols), 103), z = matgen::random_vector<T>(std::size_t(M.nrows), 204);
  std::vector<long double> ref, scale;
  for (ZMode zm : {ZMode::None, ZMode::Alias}) { // y = A x; y = A x + y (z aliased, the harder case of z)
    const std::vector<T> y0 = device_apply(D, Op::NoTrans, x, z, zm, s);
    matgen::reference(M, vals, false, x.data(), zm == ZMode::None ? nullptr : z.data(), ref, scale);
    ASSERT_EQ(matgen::mismatch(y0, ref, scale, gpumat_test::tolerance<T>()), "") << M.name << " " << describe(p) << " production, z mode " << int(zm);
    for (BccooStage st : {BccooStage::production, BccooStage::adjacent_sync, BccooStage::separate_carry})
      for (int strategy : {0, 1}) { // 0: the parameters' (2)
        const std::string    where = M.name + " " + describe(p) + " stage " + std::to_string(int(st)) + " strategy " + std::to_string(strategy) + " z mode " + std::to_string(int(zm));
        const std::vector<T> y     = device_apply(VariantOf<T>{D, BccooVariant{st, strategy}}, Op::NoTrans, x, z, zm, s);
        if (st != BccooStage::separate_carry || zm == ZMode::None) EXPECT_TRUE(y == y0) << where << ": not bitwise the production product";
        else EXPECT_EQ(matgen::mismatch(y, ref, scale, gpumat_test::tolerance<T>()), "") << where;
      }
  }
  T *none = nullptr;
  EXPECT_EQ(cudaErrorInvalidValue, D.apply_variant(BccooVariant{BccooStage::production, 3}, none, none, none, s)) << "strategy 3";
}

TEST(BccooDeviceVariants, StepsAndStrategies) {
  const Stream s;
  for (const BccooParams &q : {bp(1, 1, 1, 16, 256, 1), bp(3, 2, 4, 8, 32, 1), bp(2, 2, 1, 32, 128, 0), bp(4, 4, 2, 24, 64, 1)})
    for (const matgen::Csr &M : matgen::standard_set_cached(512)) check_variants<double>(M, q, s);
  for (const matgen::Csr &M : matgen::standard_set_cached(512)) check_variants<float>(M, bp(2, 1, 1, 16, 64, 1), s);
}

// Rows spanning hundreds of groups (long carry chains for separate_carry), and every block a row
// stop (no_scan in every group: the scan the adjacent_sync step does not skip).
TEST(BccooDeviceVariants, LongChainsAndEveryBlockAStop) {
  const Stream         s;
  std::vector<index_t> lengths(3000, 3);
  lengths[150]  = 200000;
  lengths[2000] = 70000;
  check_variants<double>(matgen::from_lengths("rows_over_groups", 300000, lengths, 83), bp(1, 1, 1, 8, 32, 1), s);
  check_variants<double>(matgen::from_lengths("one_per_row", 50000, std::vector<index_t>(50000, 1), 82), bp(1, 1, 1, 16, 256, 1), s);
}

// The strategy as a parameter: products equal strategy 2's bitwise, no result cache.
TEST(BccooDeviceVariants, StrategyParameter) {
  const Stream        s;
  const matgen::Csr   M = matgen::power_law(20000, 20000, 1.2, 2.0, 5000, 23);
  const auto          v = M.values<double>(), x = matgen::random_vector<double>(std::size_t(M.ncols), 5);
  const std::vector<double> z(std::size_t(M.nrows), 0.0);
  BccooParams         q1 = bp(1, 1, 1, 16, 256, 1), q2 = q1;
  q1.strategy = 1;
  BccooDevice<double> D1, D2;
  ASSERT_EQ(cudaSuccess, D1.build(M.view(v), gpumat::bccoo_resolve(q1), s));
  ASSERT_EQ(cudaSuccess, D2.build(M.view(v), gpumat::bccoo_resolve(q2), s));
  EXPECT_EQ(D1.params().strategy, 1);
  EXPECT_EQ(D2.params().strategy, 2);
  EXPECT_EQ(D1.cache_segments(), 0);
  EXPECT_GT(D2.cache_segments(), 0);
  EXPECT_TRUE(device_apply(D1, Op::NoTrans, x, z, ZMode::None, s) == device_apply(D2, Op::NoTrans, x, z, ZMode::None, s));
}

// Special cases.
TEST(BccooDeviceSpecial, RowsSpanningManyGroups) {
  const Stream         s;
  std::vector<index_t> lengths(3000, 3);
  lengths[150]  = 200000; // ~800 groups of 256 blocks with no row stop, chained
  lengths[2000] = 70000;
  const matgen::Csr M = matgen::from_lengths("rows_over_groups", 300000, lengths, 83);
  check_matrix<double>(M, bp(1, 1, 1, 8, 32, 1), s);
  check_matrix<double>(M, bp(4, 4, 2, 24, 64, 1), s);
  check_matrix<float>(M, bp(1, 2, 1, 128, 512, 0), s);
}

TEST(BccooDeviceSpecial, EveryBlockARowStop) {
  const Stream      s;
  const matgen::Csr M = matgen::from_lengths("one_per_row", 50000, std::vector<index_t>(50000, 1), 82);
  check_matrix<double>(M, bp(1, 1, 1, 8, 32, 1), s);
  check_matrix<double>(M, bp(1, 1, 1, 128, 512, 1), s); // more stops per group than the result cache
}

TEST(BccooDeviceSpecial, WideMatrixEscapes) {
  const Stream      s;
  const matgen::Csr M = matgen::random_rows("wide_200k", 3000, 200000, 1, 40, 0.05, 81);
  for (int compress : {1, 0}) {
    check_matrix<double>(M, bp(1, 1, 1, 16, 32, compress), s);
    check_matrix<double>(M, bp(2, 4, 4, 8, 32, compress), s);
  }
}

// Columns out of order within rows: the builder sorts them (h = 1 too).
TEST(BccooDeviceSpecial, UnsortedColumns) {
  const Stream    s;
  matgen::Csr     M = matgen::random_rows("unsorted", 3000, 2500, 0, 20, 0.1, 87);
  std::mt19937_64 g(9);
  for (index_t r = 0; r < M.nrows; ++r) {
    std::vector<std::pair<index_t, double>> e;
    for (index_t k = M.rowptr[r]; k < M.rowptr[r + 1]; ++k) e.push_back({M.colidx[k], M.val[k]});
    std::shuffle(e.begin(), e.end(), g);
    for (index_t k = M.rowptr[r]; k < M.rowptr[r + 1]; ++k) M.colidx[k] = e[std::size_t(k - M.rowptr[r])].first, M.val[k] = e[std::size_t(k - M.rowptr[r])].second;
  }
  check_matrix<double>(M, bp(1, 1, 1, 16, 256, 1), s);
  check_matrix<double>(M, bp(3, 4, 2, 8, 64, 1), s);
}

// Thousands of groups running at once, chained through long rows: the adjacent synchronization
// under load (power-law rows up to 200,000 entries over 1M rows).
TEST(BccooDeviceSpecial, ManyConcurrentGroups) {
  const Stream      s;
  const matgen::Csr M = matgen::power_law(1000000, 1000000, 1.3, 2.0, 200000, 37);
  check_matrix<double>(M, bp(1, 1, 1, 16, 256, 1), s, false);
  check_matrix<double>(M, bp(2, 1, 4, 8, 128, 1), s, false);
}

// Fuzz: every parameter set the tuner can pick (bccoo_tune_space: the full cross product of shapes,
// compression, slices, tiles and groups, 4608 sets) built on the device and multiplied there,
// against the long-double CSR reference at 1e-12 (fp64): y = A x and y = A^T x, each without z,
// with a separate z or with y aliasing z (rotating over the sets), y poisoned before each product.
// The matrices are the host fuzz test's (bccoo_fuzz_matrix, 48 fixed seeds, drawn at random with a
// fixed seed): random row lengths with empty rows, random columns, ragged sizes, one matrix in four
// with more than 65,535 columns (escapes), long rows chained over work groups.
TEST(BccooDeviceFuzz, EveryTunerCandidate) {
  const Stream s;
  const std::vector<gpumat_test::BccooFuzzCase> pool = gpumat_test::bccoo_fuzz_pool(48);
  const std::vector<BccooParams> space = gpumat_test::bccoo_tune_space();
  ASSERT_EQ(space.size(), 4608u);
  std::mt19937_64 pick(77);
  int             failures = 0, escapes = 0;
  for (std::size_t i = 0; i < space.size() && failures < 10; ++i) {
    const gpumat_test::BccooFuzzCase &c = pool[std::size_t(pick() % pool.size())];
    const std::string   where = c.M.name + " " + describe(space[i]);
    BccooDevice<double> D;
    const cudaError_t   err = D.build(c.M.view(c.v), space[i], s);
    if (err != cudaSuccess) {
      ++failures;
      ADD_FAILURE() << where << ": build " << cudaGetErrorString(err) << " " << D.why();
      continue;
    }
    escapes += D.escapes() > 0;
    for (int t = 0; t < 2; ++t) {
      const ZMode          zm  = ZMode((i + std::size_t(t)) % 3);
      const std::vector<double> y = device_apply(D, t ? Op::Trans : Op::NoTrans, t ? c.xt : c.x, t ? c.zt : c.z, zm, s);
      const int            wz  = zm != ZMode::None;
      const std::string    bad = matgen::mismatch(y, c.ref[t][wz], c.scale[t][wz], 1e-12);
      if (!bad.empty()) {
        ++failures;
        ADD_FAILURE() << where << (t ? " Trans" : " NoTrans") << " z mode " << int(zm) << ": " << bad;
      }
    }
  }
  EXPECT_GT(escapes, 100);
}

// One candidate of the tuner timed on the device: a positive median, the candidate left in D with
// a right product, any count of timed products (odd, even, one), arguments out of range refused.
TEST(BccooDeviceTune, TimeACandidate) {
  const Stream              s;
  const matgen::Csr         M = matgen::power_law(50000, 50000, 1.3, 2.0, 5000, 41);
  const std::vector<double> v = M.values<double>();
  gpumat::cuda::DeviceCsr<double> csr;
  ASSERT_EQ(cudaSuccess, csr.upload(M.view(v), s));
  for (const BccooParams &q : {bp(1, 1, 1, 16, 256, 1), bp(2, 4, 8, 40, 64, 0), bp(4, 1, 32, 128, 512, 1)}) {
    const BccooParams   p = gpumat::bccoo_resolve(q);
    BccooDevice<double> D;
    for (int reps : {1, 4, 11}) {
      double ms = -1;
      ASSERT_EQ(cudaSuccess, gpumat::cuda::bccoo_time_candidate(D, csr.view(), p, 2, reps, s, &ms)) << describe(p) << ": " << D.why();
      EXPECT_GT(ms, 0.0) << describe(p);
      EXPECT_LT(ms, 1e3) << describe(p);
    }
    EXPECT_EQ(D.params().tile, p.tile);
    EXPECT_EQ(D.params().group, p.group);
    EXPECT_EQ(D.params().h, p.h);
    const std::vector<double> x = matgen::random_vector<double>(std::size_t(M.ncols), 3), z(std::size_t(M.nrows), 0.0);
    std::vector<long double>  ref, scale;
    matgen::reference(M, v, false, x.data(), static_cast<const double *>(nullptr), ref, scale);
    EXPECT_EQ(matgen::mismatch(device_apply(D, Op::NoTrans, x, z, ZMode::None, s), ref, scale, 1e-12), "") << describe(p);
  }
  BccooDevice<double> D;
  double              ms = 0;
  EXPECT_EQ(cudaErrorInvalidValue, gpumat::cuda::bccoo_time_candidate(D, csr.view(), gpumat::bccoo_resolve({}), 2, 0, s, &ms));
  EXPECT_EQ(cudaErrorInvalidValue, gpumat::cuda::bccoo_time_candidate(D, csr.view(), gpumat::bccoo_resolve({}), -1, 5, s, &ms));
  EXPECT_EQ(cudaErrorInvalidValue, gpumat::cuda::bccoo_time_candidate(D, csr.view(), gpumat::bccoo_resolve({}), 2, gpumat::kBccooTuneMaxReps + 1, s, &ms));
  EXPECT_EQ(cudaSuccess, cudaGetLastError());
  EXPECT_TRUE(gpumat::cuda::bccoo_candidate_skippable(cudaErrorMemoryAllocation));
  EXPECT_FALSE(gpumat::cuda::bccoo_candidate_skippable(cudaErrorIllegalAddress));
}

// The whole search on the device, as the PETSc adapter runs it (PETSc-free): every candidate timed
// or skipped, the model's choice timed, the winner no slower than it, and the winner's product
// right.
TEST(BccooDeviceTune, SearchOnTheDevice) {
  const Stream s;
  for (const matgen::Csr &M : {matgen::power_law(200000, 200000, 1.2, 2.0, 50000, 31), matgen::stencil_2d(300, 300)}) {
    const std::vector<double> v     = M.values<double>();
    const BccooParams         user  = BccooParams{};
    const gpumat::BccooChoice model = gpumat::bccoo_model(M.view(v), user, 1);
    BccooDevice<double>       D;
    gpumat::cuda::DeviceCsr<double> csr;
    ASSERT_EQ(cudaSuccess, csr.upload(M.view(v), s));
    cudaError_t               last = cudaSuccess;
    const gpumat::BccooTuneResult r = gpumat::bccoo_tune(model, user, [&](const BccooParams &p) {
      gpumat::BccooTiming t;
      const cudaError_t   e = gpumat::cuda::bccoo_time_candidate(D, csr.view(), p, gpumat::kBccooTuneWarmup, gpumat::kBccooTuneDefaultReps, s, &t.ms);
      if (e != cudaSuccess) {
        last     = e;
        t.status = gpumat::cuda::bccoo_candidate_skippable(e) ? gpumat::BccooTiming::Skip : gpumat::BccooTiming::Abort;
        t.why    = cudaGetErrorString(e);
      }
      return t;
    });
    ASSERT_TRUE(r.ok()) << M.name << ": " << r.failure() << " (" << cudaGetErrorString(last) << ")";
    EXPECT_EQ(r.skipped, 0) << M.name;
    EXPECT_GE(r.timed, 20) << M.name;
    ASSERT_FALSE(std::isnan(r.model_ms)) << M.name;
    EXPECT_LE(r.best_ms, r.model_ms) << M.name;
    std::printf("[ tuner    ] %s: %d candidates in %.0f ms; winner %s %.4f ms, the model's %s %.4f ms (%.3fx)\n", M.name.c_str(), r.timed, 1e3 * r.seconds,
                gpumat::bccoo_describe(r.best).c_str(), r.best_ms, gpumat::bccoo_describe(r.model).c_str(), r.model_ms, r.model_ms / r.best_ms);
    ASSERT_EQ(cudaSuccess, D.build(M.view(v), r.best, s));
    const std::vector<double> x = matgen::random_vector<double>(std::size_t(M.ncols), 3), z(std::size_t(M.nrows), 0.0);
    std::vector<long double>  ref, scale;
    matgen::reference(M, v, false, x.data(), static_cast<const double *>(nullptr), ref, scale);
    EXPECT_EQ(matgen::mismatch(device_apply(D, Op::NoTrans, x, z, ZMode::None, s), ref, scale, 1e-12), "") << M.name;
  }
}

} // namespace
