// bccoo's auto-tuner on the GPU: the timing of one candidate (bccoo_tune.cuh).
#include "bccoo_tune.cuh"
#include "common.cuh"

#include <algorithm>

namespace gpumat {
namespace cuda {

namespace {

constexpr int kThreads = 256;

// x[i] in +-[0.5, 1.5), a hash of i (splitmix64): values like the unit tests', made on the device.
template <typename T>
__global__ void tune_fill_x(T *__restrict__ x, long long n) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned long long h = (unsigned long long)i + 0x9E3779B97F4A7C15ull;
  h                    = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
  h                    = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
  h ^= h >> 31;
  const double u = double(h >> 11) * (1.0 / 9007199254740992.0); // [0, 1), 53 bits
  x[i]           = T((h & 1u) ? 0.5 + u : -0.5 - u);
}

// The scratch of one timing, released on every path: stream-ordered frees after the last use on
// s; an event destroyed while still pending is released by the runtime once it completes.
template <typename T>
struct Scratch {
  cudaStream_t s;
  T           *x = nullptr, *y = nullptr;
  cudaEvent_t  ev[kBccooTuneMaxReps + 1] = {};
  int          nev = 0;
  explicit Scratch(cudaStream_t st) : s(st) {}
  Scratch(const Scratch &)            = delete;
  Scratch &operator=(const Scratch &) = delete;
  ~Scratch() {
    for (int i = 0; i < nev; ++i) cudaEventDestroy(ev[i]);
    if (x) cudaFreeAsync(x, s);
    if (y) cudaFreeAsync(y, s);
  }
  cudaError_t alloc(T *&p, long long n) {
    const cudaError_t err = cudaMallocAsync(reinterpret_cast<void **>(&p), sizeof(T) * std::size_t(n > 0 ? n : 1), s);
    if (err != cudaSuccess) {
      p = nullptr;
      (void)cudaGetLastError(); // reported here, not again by a later call
    }
    return err;
  }
};

#define TUNE_TRY(call)                \
  do {                                \
    const cudaError_t e_ = (call);    \
    if (e_ != cudaSuccess) return e_; \
  } while (0)

} // namespace

template <typename T>
cudaError_t bccoo_time_candidate(BccooDevice<T> &D, const DeviceCsrView<T> &A, const BccooParams &p, int warmup, int reps, cudaStream_t s, double *median_ms) {
  *median_ms = 0;
  if (warmup < 0 || reps < 1 || reps > kBccooTuneMaxReps) return cudaErrorInvalidValue;
  TUNE_TRY(D.build(A, p, s));
  Scratch<T> sc(s);
  TUNE_TRY(sc.alloc(sc.x, A.ncols));
  TUNE_TRY(sc.alloc(sc.y, A.nrows));
  if (A.ncols > 0) {
    tune_fill_x<T><<<grid_for(A.ncols, kThreads), kThreads, 0, s>>>(sc.x, A.ncols);
    TUNE_TRY(launched());
  }
  for (; sc.nev < reps + 1; ++sc.nev) TUNE_TRY(cudaEventCreate(&sc.ev[sc.nev]));
  for (int i = 0; i < warmup; ++i) TUNE_TRY(D.apply(Op::NoTrans, sc.x, nullptr, sc.y, s));
  TUNE_TRY(cudaEventRecord(sc.ev[0], s));
  for (int i = 0; i < reps; ++i) {
    TUNE_TRY(D.apply(Op::NoTrans, sc.x, nullptr, sc.y, s));
    TUNE_TRY(cudaEventRecord(sc.ev[i + 1], s));
  }
  TUNE_TRY(cudaEventSynchronize(sc.ev[reps])); // a failed product's kernel surfaces here
  float ms[kBccooTuneMaxReps];
  for (int i = 0; i < reps; ++i) TUNE_TRY(cudaEventElapsedTime(&ms[i], sc.ev[i], sc.ev[i + 1]));
  std::sort(ms, ms + reps);
  *median_ms = reps % 2 ? double(ms[reps / 2]) : 0.5 * (double(ms[reps / 2 - 1]) + double(ms[reps / 2]));
  return cudaSuccess;
}

template cudaError_t bccoo_time_candidate<double>(BccooDevice<double> &, const DeviceCsrView<double> &, const BccooParams &, int, int, cudaStream_t, double *);
template cudaError_t bccoo_time_candidate<float>(BccooDevice<float> &, const DeviceCsrView<float> &, const BccooParams &, int, int, cudaStream_t, double *);

} // namespace cuda
} // namespace gpumat
