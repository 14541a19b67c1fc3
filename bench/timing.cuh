// The benchmark's GPU timing (bench/floors.cu, bench/ablation_bccoo.cu): warm-up launches, then
// each timed launch between two CUDA events on its stream, waited for one at a time; the median
// and the minimum of the timed ones. Include from .cu files only.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

namespace gpumat_bench {

// warmup + reps calls of launch() (which enqueues on s and returns the first error it met); the
// median and minimum of the last reps in ms.
template <typename L>
cudaError_t time_reps(L launch, cudaStream_t s, cudaEvent_t e0, cudaEvent_t e1, int warmup, int reps, double *median_ms, double *min_ms) {
  reps = std::max(reps, 1);
  std::vector<float> t((size_t)reps);
  cudaError_t        rc;
  for (int i = 0; i < warmup + reps; ++i) {
    if ((rc = cudaEventRecord(e0, s)) != cudaSuccess) return rc;
    if ((rc = launch()) != cudaSuccess) return rc;
    if ((rc = cudaGetLastError()) != cudaSuccess) return rc;
    if ((rc = cudaEventRecord(e1, s)) != cudaSuccess) return rc;
    if ((rc = cudaEventSynchronize(e1)) != cudaSuccess) return rc;
    if (i >= warmup && (rc = cudaEventElapsedTime(&t[(size_t)(i - warmup)], e0, e1)) != cudaSuccess) return rc;
  }
  std::sort(t.begin(), t.end());
  *median_ms = t[(size_t)reps / 2];
  *min_ms    = t[0];
  return cudaSuccess;
}

} // namespace gpumat_bench
