// Host-callable device primitives shared by the formats' builders and refreshes (PETSc-free;
// included by host C++ through the formats' headers, needs only cuda_runtime.h). The device-side
// building blocks (warp search, block segmented scan) are in common.cuh; y = z or 0 for the
// products is init_output in rowmap.cuh.
#pragma once
#include "../core/csr.hpp"
#include <cuda_runtime.h>
#include <cstdint>
#include <utility>
#include <vector>

namespace gpumat {
namespace cuda {

// out[i] = in[0] + ... + in[i-1], i < n (device arrays; CUB's DeviceScan, its temporary storage
// stream-ordered on s; out may not alias in). Asynchronous. Out of memory: cudaErrorMemoryAllocation.
cudaError_t exclusive_sum(const index_t *in, index_t *out, std::int64_t n, cudaStream_t s);

// dst[slot[k]] = src[k], k < n (the value of CSR entry k into the format's position); S is the
// slot type (index_t, or unsigned where a format's value array may exceed 2^31 entries).
template <typename T, typename S>
cudaError_t scatter_slots(std::int64_t n, const S *slot, const T *src, T *dst, cudaStream_t s);

// row[q] = the row of CSR entry q, q < nnz (device arrays): the start of every nonempty row marked
// with its row number, then an inclusive max-scan (CUB): three passes of 4 B per entry, whatever
// the row lengths (one thread per row would serialize on a hub row). Asynchronous.
cudaError_t entry_rows(const index_t *rowptr, index_t nrows, std::int64_t nnz, index_t *row, cudaStream_t s);

// A CSR on the device (device pointers, columns sorted or not within a row): what a format's device
// builder reads. The bccoo tuner uploads the matrix once (DeviceCsr) and builds every candidate
// from it.
template <typename T>
struct DeviceCsrView {
  index_t        nrows = 0, ncols = 0;
  std::int64_t   nnz    = 0;
  const index_t *rowptr = nullptr, *colidx = nullptr; // nrows + 1, nnz
  const T       *val    = nullptr;                    // nnz
};

// A host CSR's copy on the device, owned. upload() allocates (cudaMallocAsync on s) and copies on
// s, stream-ordered: the copy is usable by later work on s. Out of memory: cudaErrorMemoryAllocation
// (cleared), nothing kept. release() frees stream-ordered on the stream of the last upload.
template <typename T>
class DeviceCsr {
public:
  DeviceCsr() = default;
  DeviceCsr(const DeviceCsr &)            = delete;
  DeviceCsr &operator=(const DeviceCsr &) = delete;
  ~DeviceCsr() { release(); }
  cudaError_t      upload(const CsrView<T> &A, cudaStream_t s);
  DeviceCsrView<T> view() const { return v_; }
  void             release();

private:
  DeviceCsrView<T> v_{};
  void            *rowptr_ = nullptr, *colidx_ = nullptr, *val_ = nullptr;
  cudaStream_t     s_      = nullptr;
};

// The device time of the phases of a stream's work (a build's upload, sort, scans, ...): mark(name)
// ends the phase `name` with an event on the stream, times() reads them once the stream has been
// synchronized. Costs one event record per phase; a failure to create or record an event only
// loses the timing (times() is then empty), never the work.
class PhaseTimer {
public:
  explicit PhaseTimer(cudaStream_t s);
  ~PhaseTimer();
  PhaseTimer(const PhaseTimer &)            = delete;
  PhaseTimer &operator=(const PhaseTimer &) = delete;
  void mark(const char *name);
  // (name, ms since the previous mark or the construction), in order; the stream must be idle
  std::vector<std::pair<const char *, float>> times() const;

private:
  cudaStream_t               s_;
  std::vector<cudaEvent_t>   ev_;
  std::vector<const char *>  names_;
  bool                       ok_ = true;
};

} // namespace cuda
} // namespace gpumat
