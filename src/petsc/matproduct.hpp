// The sparse products (MatProduct) with our matrices as operands, in two files: matproduct.cxx
// (PETSc's dispatch reaching our types: which route each product takes; AIJ's host algorithms) and,
// in CUDA builds, matproduct_device.cxx (the routes on the GPU, on aijcusparse shadows).
#pragma once
#include "block.hpp"

namespace gpumat {

// The format and level (*mpi) of one of our matrices; null: X is not ours
const FormatInfo *OursAt(Mat X, bool *mpi);

#if defined(GPUMAT_WITH_CUDA)
// The device route's symbolic phase (C->ops->productsymbolic), for a product whose sparse operands
// are ours or aijcusparse, one at least ours, all at one level: PETSc's cuSPARSE product on the
// operands' shadows, its values into a result of A's type; installs the numeric phases.
PetscErrorCode DeviceProductSymbolic(Mat C);
// A's product with a dense CUDA B by aijcusparse's own on A's shadow: the shadow's choice, its
// phases installed to run on the shadow (*done); where the shadow has none, nothing is set.
PetscErrorCode DenseSetFromOptions(Mat C, bool *done);
#endif

} // namespace gpumat
