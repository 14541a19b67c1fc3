// Host side of the bccoo floors (bench/floors.cu): the bccoo they time, the arrays they read and
// the block columns their gather kernel must decompress. PETSc-free, no CUDA.
#pragma once
#include "core/bccoo.hpp"
#include "floors.h"

#include <cstddef>
#include <vector>

namespace gpumat_floors {

// The benchmark's C parameters (floors.h) and the core's, field by field (block_size and model stay
// with the benchmark's; strategy with the core's default).
gpumat::BccooParams to_core(const BenchBccooParams &p);
BenchBccooParams    to_bench(const gpumat::BccooParams &p);

struct BccooPlan {
  gpumat::Bccoo<double> B; // built with the parameters in info.p (its slot map dropped)
  BenchBccooInfo        info{};
};

// Resolves p (h = w = 0: the byte model's first shape of A; p.model: bccoo_model's parameters),
// builds the bccoo of A and fills the info. Throws std::invalid_argument for parameters out of range.
void bccoo_plan(const gpumat::CsrView<double> &A, const BenchBccooParams &p, BccooPlan &plan);

// The arrays of B that the bccoo product reads, as the floors upload them: their bytes add up to
// B.bytes(). Empty arrays are listed with 0 bytes.
struct BccooArray {
  const char *name;
  const void *data;
  std::size_t bytes;
};
std::vector<BccooArray> bccoo_arrays(const gpumat::Bccoo<double> &B);

// The block column of every stored block (B.padded_blocks, in block order), decompressed by the
// format's own decoder (Bccoo::tile_columns), tile by tile: what floor:bccoo-gather's decoding is
// checked against before timing.
std::vector<gpumat::index_t> bccoo_columns(const gpumat::Bccoo<double> &B);

#if defined(__CUDACC__)
  #define GPUMAT_FLOORS_HD __host__ __device__
#else
  #define GPUMAT_FLOORS_HD
#endif
// Position of block j of thread tile t in the per-block arrays (values, column differences,
// columns) under the offline transpose of src/core/bccoo.hpp (block j of thread i's tile in
// work-group tile g of G threads x T blocks at g T G + j G + i), as the floors' kernels compute it;
// equal to gpumat::bccoo_phys(t T + j, T, G).
GPUMAT_FLOORS_HD inline long long bccoo_floor_pos(long long t, int j, int T, int G) {
  const long long g = t / G;
  return g * T * G + (long long)j * G + (t - g * G);
}

} // namespace gpumat_floors
