// bccoo's product kernels as the rest of the format sees them: their argument block and the
// launchers, one per block height H (and scalar T), each compiled in its own translation unit
// (bccoo_h1.cu .. bccoo_h4.cu; the ablation's steps in bccoo_stages.cu).
//
// Why the split: every translation unit is one CUDA module, and CUDA loads a module (all of it) the
// first time one of its kernels runs. With all 240 product instantiations (2 scalars x 4 heights x
// 3 widths x 2 column encodings x 5 kernels) in bccoo.cu, the first build of a process spent
// 30-47 ms loading them before its first builder kernel (docs/results/h100-2026-11-23-bccoo-model,
// logs/load-*): more than aijcusparse's whole build of a small matrix. Now the first build loads
// the builder's module and the first product the module of its block height.
#pragma once
#include "bccoo.cuh"

#include <cstddef>
#include <cstdint>

namespace gpumat {
namespace cuda {
namespace bccoo_kernels {

constexpr std::int16_t kEscape = -32768; // a 16-bit column difference that did not fit: the column is in the escape array

// The arguments of every product kernel (device pointers into a BccooDevice and its geometry).
template <typename T>
struct SpmvArgs {
  const unsigned char *flags;
  const T             *val;
  const std::int16_t  *dcol;
  const index_t       *col, *escape, *escape_start, *first_segment;
  const unsigned char *no_scan;
  const T             *x, *z;
  T                   *y, *part;
  T                   *grp_val;
  unsigned            *grp_status, *ticket;
  unsigned             epoch;
  long long            plane; // padded blocks x w: the distance between value planes
  long long            ntiles, ngroups, nsegments;
  index_t              nrows, ncols, nbrows, nbcols;
  int                  T_, slices, cache;
  const index_t       *rowmap; // diagonal only
};

// The kernels a launcher runs: the product and its ablation steps (BccooStage), the transpose, the
// diagonal.
enum Kind { kSpmv, kTrans, kDiag, kSpmvNoSkip, kSpmvSeparateCarry };

// Launches kind (kSpmv, kTrans or kDiag) for blocks H x w, compressed columns or not, on s; returns
// launched(). Instantiated for T = double, float in bccoo_h<H>.cu.
template <typename T, int H>
cudaError_t launch_h(int w, int kind, bool comp, dim3 grid, dim3 block, std::size_t smem, cudaStream_t s, const SpmvArgs<T> &a);

// The ablation's steps (kSpmvNoSkip, kSpmvSeparateCarry), and the second kernel of the
// separate_carry step (bccoo_group_carry, one thread per work group); bccoo_stages.cu.
template <typename T, int H>
cudaError_t launch_stage_h(int w, int kind, bool comp, dim3 grid, dim3 block, std::size_t smem, cudaStream_t s, const SpmvArgs<T> &a);
template <typename T, int H>
cudaError_t launch_group_carry(unsigned grid, int threads, cudaStream_t s, const SpmvArgs<T> &a, int G);

} // namespace bccoo_kernels
} // namespace cuda
} // namespace gpumat
