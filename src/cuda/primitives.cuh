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

// Bits to write v: 0 for 0, else floor(log2 v) + 1 (the radix sorts' key widths).
inline int bit_width(unsigned long long v) {
  int b = 0;
  while (v) ++b, v >>= 1;
  return b;
}

// out[i] = in[0] + ... + in[i-1], i < n (device arrays; CUB's DeviceScan, its temporary storage
// stream-ordered on s; out may not alias in). Asynchronous. Out of memory: cudaErrorMemoryAllocation.
cudaError_t exclusive_sum(const index_t *in, index_t *out, std::int64_t n, cudaStream_t s);

// *out = max(in[0], ..., in[n-1]) (device arrays; CUB's DeviceReduce, temporary storage
// stream-ordered on s; n = 0 leaves *out untouched). Asynchronous.
cudaError_t reduce_max(const index_t *in, std::int64_t n, index_t *out, cudaStream_t s);

// Sorts each segment [off[k], off[k+1]) of keys_in (k < nseg) ascending into keys_out, carrying
// vals_in into vals_out (CUB's DeviceSegmentedSort, temporary storage stream-ordered on s). In its
// own file and so its own CUDA module (segmented_sort.cu): a sort of that generality is a few MB of
// kernels that CUDA loads only when the first unsorted matrix needs it. Asynchronous.
cudaError_t sort_segments(const index_t *keys_in, index_t *keys_out, const index_t *vals_in, index_t *vals_out, std::int64_t n, std::int64_t nseg,
                          const index_t *off, cudaStream_t s);

// Sorts each segment [off[k], off[k+1]) of keys_in (k < nseg) ascending into keys_out, keys only
// (CUB's DeviceSegmentedSort; segmented_sort.cu's module). Asynchronous.
cudaError_t sort_segment_keys(const index_t *keys_in, index_t *keys_out, std::int64_t n, std::int64_t nseg, const index_t *off, cudaStream_t s);

// Temporaries of a builder: stream-ordered allocations (cudaMallocAsync on s) freed stream-ordered
// (after the work queued on s) when the object goes out of scope. After the first failure get()
// returns null and err holds the error (cleared from CUDA's state), so a builder checks err once
// after a run of get() calls.
struct StreamTemps {
  explicit StreamTemps(cudaStream_t stream) : s(stream) {}
  StreamTemps(const StreamTemps &)            = delete;
  StreamTemps &operator=(const StreamTemps &) = delete;
  ~StreamTemps() {
    for (void *p : ptrs) cudaFreeAsync(p, s);
  }
  template <typename U>
  U *get(std::size_t n) {
    if (err != cudaSuccess) return nullptr;
    void *p = nullptr;
    err     = cudaMallocAsync(&p, (n > 0 ? n : 1) * sizeof(U), s);
    if (err != cudaSuccess) {
      (void)cudaGetLastError();
      return nullptr;
    }
    ptrs.push_back(p);
    return static_cast<U *>(p);
  }
  cudaStream_t        s;
  std::vector<void *> ptrs;
  cudaError_t         err = cudaSuccess;
};

// Returns the CUDA error of call, if any, from the enclosing function.
#define GPUMAT_CUDA_TRY(call)          \
  do {                                 \
    const cudaError_t e_ = (call);     \
    if (e_ != cudaSuccess) return e_;  \
  } while (0)

// Sorts n (key, value) pairs by bits [0, end_bit) of the keys, ascending and stable (CUB's
// DeviceRadixSort; end_bit / 8 passes rounded up, temporary storage stream-ordered on s). In its own
// file and module (radix_sort.cu), loaded by the first build that sorts rows. Asynchronous.
cudaError_t sort_pairs(const std::uint64_t *keys_in, std::uint64_t *keys_out, const index_t *vals_in, index_t *vals_out, std::int64_t n, int end_bit,
                       cudaStream_t s);

// The keys of a hash set, ascending: the n slots of slots[0, nslots) that are not `empty` compacted
// into keys (CUB's DeviceSelect::If; *count, a device int, gets n), then sorted over bits
// [0, end_bit) into sorted (DeviceRadixSort); keys and sorted hold n keys each; temporary storage
// stream-ordered on s. radix_sort.cu's module. Asynchronous.
cudaError_t sort_set_keys(const std::uint64_t *slots, std::int64_t nslots, std::uint64_t empty, std::uint64_t *keys, std::uint64_t *sorted, int *count, std::int64_t n,
                          int end_bit, cudaStream_t s);

// dst[slot[k]] = src[k], k < n (the value of CSR entry k into the format's position); S is the
// slot type (index_t, or unsigned where a format's value array may exceed 2^31 entries).
template <typename T, typename S>
cudaError_t scatter_slots(std::int64_t n, const S *slot, const T *src, T *dst, cudaStream_t s);

// A values-only refresh: dst[slot[k]] = val[k], k < n (val: the CSR values, in CSR order). Device
// values (Mem::Device: a device COO assembly's) are scattered in place, one kernel. Host values go
// through one stream-ordered staging buffer of at most kRefreshChunk entries, copied and scattered
// a chunk at a time (a pageable copy waits for the stream, so the buffer is free again when the
// next chunk arrives): a staging array of all n values would take the pool 8 B per nonzero more on
// each refresh (1 GB on a 125M-nonzero matrix) for no gain, the copy being bound by the host link.
// The buffer comes from a memory pool of the library's own (one per device) that keeps up to one
// chunk's bytes between refreshes, instead of mapping it afresh each time. Out of memory:
// cudaErrorMemoryAllocation (cleared).
constexpr std::int64_t kRefreshChunk = std::int64_t(1) << 22; // values per chunk (32 MB in fp64)
template <typename T, typename S>
cudaError_t refresh_through_slots(const T *val, std::int64_t n, const S *slot, T *dst, cudaStream_t s, Mem where = Mem::Host);

// out[i] = in[0] + ... + in[i-1] in 64 bits (block sizes whose total may pass 2^31).
cudaError_t exclusive_sum(const std::int64_t *in, std::int64_t *out, std::int64_t n, cudaStream_t s);

// A COO assembly's sums (src/core/coo.hpp's coo_apply on the device): for each segment s < nseg
// with nonzero t (targets[s], or s where targets is null), val[t] = (insert ? 0 : val[t]) + the
// sum of src[perm[k]], k in [jmap[s], jmap[s + 1]), in that order; a thread per segment. I is the
// map's index type (index_t, or int64 where the entries pass 2^31). src, val device arrays.
template <typename T, typename I>
cudaError_t coo_sum(std::int64_t nseg, const index_t *targets, const I *jmap, const I *perm, const T *src, bool insert, T *val, cudaStream_t s);

// dst[k] = src[idx[k]], k < n (device arrays; the reverse of scatter_slots). Asynchronous.
template <typename T, typename I>
cudaError_t gather_slots(std::int64_t n, const I *idx, const T *src, T *dst, cudaStream_t s);

// row[q] = the row of CSR entry q, q < nnz (device arrays): the start of every nonempty row marked
// with its row number, then an inclusive max-scan (CUB): three passes of 4 B per entry, whatever
// the row lengths (one thread per row would serialize on a hub row). Asynchronous.
cudaError_t entry_rows(const index_t *rowptr, index_t nrows, std::int64_t nnz, index_t *row, cudaStream_t s);

// d[rowmap ? rowmap[r] : r] = A(r, rowmap ? rowmap[r] : r), r < nrows, for a CSR on the device
// whose columns ascend within each row (a thread per row, a binary search of the row; 0 where the
// row holds no such entry); other entries of d untouched. The device diagonal of the formats that
// keep the CSR arrays (csrspec, cusparsecsr). Asynchronous.
template <typename T>
cudaError_t csr_diagonal(const index_t *rowptr, const index_t *colidx, const T *val, const index_t *rowmap, index_t nrows, T *d, cudaStream_t s);

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

// The choice between a product kernel's instances (resident blocks per multiprocessor, ...) by the
// time of the first products of a layout, at no extra cost: products alternate between the
// candidates until each has run `per` times, each product between two events on its stream; at a
// later product, once the last of them has finished (cudaEventQuery, never waiting), the candidate
// with the least time (the minimum of its products: interference only adds) is kept for every
// product after. The instances must compute the same sums (they differ in speed only). While
// products are pending (or under stream capture, or where events cannot be made) the products run
// the fallback instance. One stream at a time; not thread-safe (as the products).
class InstanceTrial {
public:
  InstanceTrial() = default;
  ~InstanceTrial() { clear(); }
  InstanceTrial(const InstanceTrial &)            = delete;
  InstanceTrial &operator=(const InstanceTrial &) = delete;
  // A new trial among `candidates` (at most kMax), `per` timed products each (1..kMaxPer); nothing
  // to try (one candidate or none) decides at once for the fallback.
  void start(std::vector<int> candidates, int per, int fallback);
  // Before a product on s: the instance it runs. Records its start event when it is a timed one.
  int begin(cudaStream_t s);
  // After the product launched by the last begin() on s: its end event.
  void end(cudaStream_t s);
  bool decided() const { return chosen_ != 0; }
  int  chosen() const { return chosen_; } // 0 until decided
  // Each candidate's least time (ms; NAN for one not timed), after the decision.
  const std::vector<std::pair<int, float>> &times() const { return times_; }
  void clear(); // no trial: begin() returns the fallback (0 until start())
  static constexpr int kMax = 4, kMaxPer = 8;

private:
  void decide();
  void free_events();
  std::vector<int>                   cand_;
  std::vector<cudaEvent_t>           ev_; // 2 per timed product
  std::vector<std::pair<int, float>> times_;
  int  per_ = 0, issued_ = 0, fallback_ = 0, chosen_ = 0;
  bool open_ = false; // begin() recorded a start event that end() closes
};

// The two entry points of a device class's build, written once: from host CSR arrays (uploaded on
// s and freed stream-ordered after the build, the upload timed as the phase "upload") or from a CSR
// already on the device; both call build_from(view, clock).
template <typename T, class BuildFrom>
cudaError_t build_uploaded(const CsrView<T> &A, cudaStream_t s, BuildFrom &&build_from) {
  DeviceCsr<T> csr;
  PhaseTimer   clock(s);
  const cudaError_t e = csr.upload(A, s);
  if (e != cudaSuccess) return e;
  clock.mark("upload");
  return build_from(csr.view(), clock);
}
template <typename T, class BuildFrom>
cudaError_t build_on_device(const DeviceCsrView<T> &A, cudaStream_t s, BuildFrom &&build_from) {
  PhaseTimer clock(s);
  return build_from(A, clock);
}

} // namespace cuda
} // namespace gpumat
