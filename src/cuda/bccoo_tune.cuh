// bccoo's auto-tuner on the GPU (src/core/bccoo_tune.hpp): the timing of one candidate. PETSc-free
// (raw pointers + stream); included by host C++ (the PETSc adapter, tests), needs only
// cuda_runtime.h.
#pragma once
#include "../core/bccoo_tune.hpp"
#include "bccoo.cuh"

namespace gpumat {
namespace cuda {

// One candidate: builds D from A (a CSR on the device, uploaded once for the whole search) with the
// resolved parameters p (BccooDevice::build, replacing D's content), then times y = A x on stream s with CUDA events: `warmup` (>= 0) untimed
// products, then `reps` (1..kBccooTuneMaxReps, bccoo_tune.hpp) products, each between two events recorded back to
// back on s, one synchronization at the end; *median_ms = the median of the reps' times (the mean
// of the two middle ones for an even count). x holds pseudo-random values in +-[0.5, 1.5], y is
// scratch: both allocated here stream-ordered on s and freed on every path, the events too.
// Returns the first CUDA error: the build's (cudaErrorMemoryAllocation when the candidate does not
// fit; cudaErrorInvalidValue with D.why() when the format cannot index the matrix with these
// parameters), an allocation's, a product's or an event's; cudaErrorInvalidValue for warmup or reps
// out of range. Afterwards D holds the candidate (its product is the one timed), or a partial build
// after an error (build or release it before use).
template <typename T>
cudaError_t bccoo_time_candidate(BccooDevice<T> &D, const DeviceCsrView<T> &A, const BccooParams &p, int warmup, int reps, cudaStream_t s, double *median_ms);

// Whether an error of bccoo_time_candidate leaves the device usable, so that the tuner skips the
// candidate and goes on: out of memory, parameters the format or the launch refuse. Any other error
// (a failed kernel: sticky, the context is lost) ends the search.
inline bool bccoo_candidate_skippable(cudaError_t e) {
  return e == cudaErrorMemoryAllocation || e == cudaErrorInvalidValue || e == cudaErrorInvalidConfiguration || e == cudaErrorLaunchOutOfResources;
}

} // namespace cuda
} // namespace gpumat
