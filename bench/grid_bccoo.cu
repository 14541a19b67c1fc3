// bccoo's parameter landscape on one matrix on this GPU (bench_matmult -bccoo_grid): a grid wider
// than the tuner's pruned search, every candidate built from one upload of the CSR and timed as the
// tuner times it (cuda::bccoo_time_candidate: warm-up, then the median of CUDA-event times on one
// stream). The data the model's rules are fitted to (src/core/bccoo.cpp, bccoo_model): which
// compression, tile, group, slices and block shape win, and by how much, per matrix. fp64 values,
// 32-bit indices, y = A x.
//
// The grid (at most 82 candidates, each met once):
//   1. the model's block shape, slices 1: compress {0, 1} x tile {8, 16, 24, 32, 40, 64, 96, 128}
//      x group {64, 128, 256, 512} (the tuner's tiles and groups, src/core/bccoo_tune.hpp);
//   2. the best of stage 1 for each compression: slices {2, 4, 8, 16, 32};
//   3. the best so far at each of the model's four smallest block shapes x compress {0, 1}.
// The model's own choice is timed too (it may lie outside the grid: a user's or a shape's).
#include "ablation.h"
#include "floors_bccoo.hpp"

#include "core/bccoo.hpp"
#include "core/bccoo_tune.hpp"
#include "cuda/bccoo.cuh"
#include "cuda/bccoo_tune.cuh"

#include <cuda_runtime.h>

#include <cstdio>
#include <exception>
#include <limits>
#include <set>
#include <tuple>
#include <vector>

namespace {

using gpumat::BccooParams;
using gpumat_floors::to_bench;
using gpumat_floors::to_core;
using Key = std::tuple<int, int, int, int, int, int>;

} // namespace

extern "C" int BenchBccooGrid(int nrows, int ncols, long long nnz, const int *rowptr, const int *colidx, const double *val, int block_size, int reps,
                              int warmup, BenchGridRow *res, int maxres, int *nres, BenchBccooParams *model, char *err, int errlen) {
  *nres = 0;
  if (nnz <= 0 || nnz > std::numeric_limits<gpumat::index_t>::max()) {
    std::snprintf(err, std::size_t(errlen), "bccoo grid: a matrix with 1 .. 2^31-1 nonzeros (has %lld)", nnz);
    return -1;
  }
  try {
    const gpumat::CsrView<double> A{nrows, ncols, rowptr, colidx, val};
    const gpumat::BccooChoice ch = gpumat::bccoo_model(A, BccooParams{}, block_size);
    *model                       = to_bench(ch.p);
    cudaStream_t s               = nullptr;
    cudaError_t  e               = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    if (e != cudaSuccess) {
      std::snprintf(err, std::size_t(errlen), "bccoo grid: stream: %s", cudaGetErrorString(e));
      return int(e);
    }
    int rc = 0;
    {
      gpumat::cuda::DeviceCsr<double>   csr;
      gpumat::cuda::BccooDevice<double> D;
      std::set<Key>                     seen;
      if ((e = csr.upload(A, s)) != cudaSuccess) rc = int(e);
      // times p (once); false when the grid must stop (a sticky error, or res is full)
      auto time = [&](BccooParams p, int stage) {
        p = gpumat::bccoo_resolve(p);
        const Key k{p.h, p.w, p.slices, p.tile, p.group, p.compress_col};
        if (seen.count(k)) return true;
        seen.insert(k);
        if (*nres >= maxres) return false;
        BenchGridRow &r = res[(*nres)++];
        r.p             = to_bench(p);
        r.stage         = stage;
        r.model         = k == Key{ch.p.h, ch.p.w, ch.p.slices, ch.p.tile, ch.p.group, ch.p.compress_col};
        r.ms            = std::numeric_limits<double>::quiet_NaN();
        const cudaError_t te = gpumat::cuda::bccoo_time_candidate(D, csr.view(), p, warmup, reps, s, &r.ms);
        r.status        = int(te);
        if (te == cudaSuccess) {
          r.format_bytes = double(D.format_bytes());
          return true;
        }
        r.ms = std::numeric_limits<double>::quiet_NaN();
        if (gpumat::cuda::bccoo_candidate_skippable(te)) return true;
        rc = int(te);
        std::snprintf(err, std::size_t(errlen), "bccoo grid: %s: %s", gpumat::bccoo_describe(p).c_str(), cudaGetErrorString(te));
        return false;
      };
      auto best_of = [&](int stage_max, int compress) { // the fastest timed row so far (-1: none)
        int b = -1;
        for (int i = 0; i < *nres; ++i)
          if (res[i].status == 0 && res[i].stage <= stage_max && (compress < 0 || res[i].p.compress == compress) && (b < 0 || res[i].ms < res[b].ms)) b = i;
        return b;
      };
      bool go = rc == 0 && time(ch.p, 0);
      for (int c = 0; go && c < 2; ++c)
        for (int tile : gpumat::kBccooTuneTiles)
          for (int group : gpumat::kBccooTuneGroups) {
            if (!go) break;
            BccooParams p = ch.p;
            p.slices = 1, p.tile = tile, p.group = group, p.compress_col = c;
            go = time(p, 1);
          }
      for (int c = 0; go && c < 2; ++c) {
        const int b = best_of(1, c);
        if (b < 0) continue;
        const BccooParams base = to_core(res[b].p);
        for (int sl : {2, 4, 8, 16, 32}) {
          if (!go) break;
          BccooParams p = base;
          p.slices      = sl;
          go            = time(p, 2);
        }
      }
      const int b = best_of(2, -1);
      if (go && b >= 0) {
        const BccooParams base = to_core(res[b].p);
        int               n    = 0;
        for (const gpumat::BccooShape &sh : ch.shapes) {
          if (n++ >= gpumat::kBccooTuneShapes || !go) break;
          for (int c = 0; go && c < 2; ++c) {
            BccooParams p  = base;
            p.h            = sh.h;
            p.w            = sh.w;
            p.compress_col = c;
            go             = time(p, 3);
          }
        }
      }
      D.release();
      csr.release();
      const cudaError_t se = cudaStreamSynchronize(s);
      if (rc == 0 && se != cudaSuccess) {
        rc = int(se);
        std::snprintf(err, std::size_t(errlen), "bccoo grid: %s", cudaGetErrorString(se));
      } else if (rc != 0 && !err[0]) std::snprintf(err, std::size_t(errlen), "bccoo grid: %s", cudaGetErrorString(cudaError_t(rc)));
    }
    cudaStreamDestroy(s);
    return rc;
  } catch (const std::exception &x) {
    std::snprintf(err, std::size_t(errlen), "bccoo grid: %s", x.what());
    return -1;
  }
}
