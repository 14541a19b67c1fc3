// The ablation's steps of bccoo's product (BccooStage, bccoo.cuh; bench/ablation_bccoo.cu times
// them): their own CUDA module, never loaded by a solver's products (why: bccoo_launch.cuh).
#include "bccoo_spmv.cuh"

namespace gpumat {
namespace cuda {
namespace bccoo_kernels {

#define GPUMAT_BCCOO_STAGES(T, H)                                                                                         \
  template cudaError_t launch_stage_h<T, H>(int, int, bool, dim3, dim3, std::size_t, cudaStream_t, const SpmvArgs<T> &); \
  template cudaError_t launch_group_carry<T, H>(unsigned, int, cudaStream_t, const SpmvArgs<T> &, int);
GPUMAT_BCCOO_STAGES(double, 1)
GPUMAT_BCCOO_STAGES(double, 2)
GPUMAT_BCCOO_STAGES(double, 3)
GPUMAT_BCCOO_STAGES(double, 4)
GPUMAT_BCCOO_STAGES(float, 1)
GPUMAT_BCCOO_STAGES(float, 2)
GPUMAT_BCCOO_STAGES(float, 3)
GPUMAT_BCCOO_STAGES(float, 4)
#undef GPUMAT_BCCOO_STAGES

} // namespace bccoo_kernels
} // namespace cuda
} // namespace gpumat
