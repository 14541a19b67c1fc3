// bccoo's products, transposes and diagonals for blocks of height 2: one CUDA module, loaded by the
// first product of such a matrix (why: bccoo_launch.cuh).
#include "bccoo_spmv.cuh"

GPUMAT_BCCOO_INSTANTIATE_HEIGHT(2)
