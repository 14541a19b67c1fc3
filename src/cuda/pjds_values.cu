// pjds on the GPU, the value table's build (PjdsDevice::code_values, code_values16; see pjds.cuh
// and pjds_build.cu; the layout: src/core/pjds.hpp; the codes' kernels, which the refresh also
// launches: pjds_build.cuh).
//
// Unless the values are plain, the padded values' distinct values are gathered in hash sets (each
// CUDA block's in shared memory, then one in global memory), their count read back; where they are
// at most 256 (and, auto, that pays) the table is sorted on the host, uploaded, and every value's
// 8-bit code found by a binary search in shared memory. Where they are more and a table of 16-bit
// codes can result (auto: pjds_table16_cap above 256; table: up to 65,536), the values' bit
// patterns go into a global hash set that stops once it counts more than that cap, the count read
// back; within it the set's keys compacted and radix sorted (CUB, at most the cap), and where they
// pay (auto) the table is those keys' values (ascending by bit pattern, the host's order) and every
// value's 16-bit code is found by a binary search in the table in global memory.
#include "pjds_build.cuh"
#include "common.cuh"

#include <algorithm>
#include <vector>

namespace gpumat {
namespace cuda {

namespace {

// The 8-bit path's hash sets of the padded values' distinct bit patterns (each CUDA block's in
// shared memory, then one in global memory). More than kPjdsTableMax values (or one with
// kTableEmpty's bits, which the sets cannot hold): the bounded set's path (PjdsDevice::code_values16).
constexpr int           kTableSlots = 2 * kPjdsTableMax; // open addressing, linear probing
constexpr std::uint64_t kTableEmpty = ~0ull;             // a NaN's bits (fp64 only: a float's are zero-extended); a flag stands for it

__device__ __forceinline__ unsigned table_hash(std::uint64_t b) { return unsigned((b * 0x9E3779B97F4A7C15ull) >> 40) & (kTableSlots - 1); }

// Inserts b (not kTableEmpty) into a set of mask + 1 slots (a power of two) by linear probing from
// slot h: each slot read first, an atomicCAS only where it is empty, so a value already there costs
// reads. true where this call added it. Where stop is not null, a probe past the first gives up
// once *stop is set. false also where the set is full: the caller's count has passed its limit.
__device__ __forceinline__ bool set_insert(unsigned long long *slots, unsigned mask, unsigned h, std::uint64_t b, const int *stop) {
  for (unsigned probes = 0; probes <= mask; h = (h + 1) & mask, ++probes) {
    if (stop && probes > 0 && *(const volatile int *)stop) return false;
    const unsigned long long cur = slots[h];
    if (cur == b) return false;
    if (cur == kTableEmpty) {
      const unsigned long long old = atomicCAS(slots + h, kTableEmpty, (unsigned long long)b);
      if (old == kTableEmpty) return true;
      if (old == b) return false;
    }
  }
  return false;
}

// Inserts b into a set of kTableSlots slots (each CUDA block's, and the global one, of the 8-bit path).
__device__ __forceinline__ bool table_insert(unsigned long long *slots, std::uint64_t b) { return set_insert(slots, kTableSlots - 1, table_hash(b), b, nullptr); }

// state[0]: distinct values in the global set; state[1]: nonzero where there are more than
// kPjdsTableMax or a value has kTableEmpty's bits; state[2]: nonzero where one has.
template <typename T>
__global__ void __launch_bounds__(kThreads) pj_table_gather(const T *__restrict__ val, long long n, unsigned long long *__restrict__ global_slots, int *state) {
  __shared__ unsigned long long slots[kTableSlots];
  __shared__ int                count;
  for (int t = threadIdx.x; t < kTableSlots; t += blockDim.x) slots[t] = kTableEmpty;
  if (threadIdx.x == 0) count = 0;
  __syncthreads();
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (long long)gridDim.x * blockDim.x) {
    if (*(volatile int *)(state + 1)) break;
    const std::uint64_t b = value_bits(val[k]);
    if (b == kTableEmpty) {
      state[2] = 1;
      state[1] = 1;
      break;
    }
    if (table_insert(slots, b) && atomicAdd(&count, 1) >= kPjdsTableMax) {
      state[1] = 1;
      break;
    }
  }
  __syncthreads();
  for (int t = threadIdx.x; t < kTableSlots; t += blockDim.x)
    if (slots[t] != kTableEmpty && table_insert(global_slots, slots[t]) && atomicAdd(state, 1) >= kPjdsTableMax) state[1] = 1;
}

// The table of 16-bit codes: the distinct bit patterns of val[0, n) (as the host's value_bits: a
// float's zero-extended) into a global set of mask + 1 slots (at least 2 cap; preset to kTableEmpty),
// hashed to their top bits (b * the golden ratio >> shift). state[0] counts the distinct values,
// kTableEmpty's bits included (state[2] set where seen: the set cannot hold them); once it exceeds
// cap, state[1] is set and every thread stops (read each iteration, and between probes).
template <typename T>
__global__ void __launch_bounds__(kThreads) pj_value_set(const T *__restrict__ val, long long n, unsigned long long *__restrict__ slots, unsigned mask, int shift, int cap,
                                                         int *state) {
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (long long)gridDim.x * blockDim.x) {
    if (*(volatile int *)(state + 1)) break;
    const std::uint64_t b     = value_bits(val[k]);
    const bool          added = b == kTableEmpty ? *(volatile int *)(state + 2) == 0 && atomicCAS(state + 2, 0, 1) == 0
                                                 : set_insert(slots, mask, unsigned((b * 0x9E3779B97F4A7C15ull) >> shift) & mask, b, state + 1);
    if (added && atomicAdd(state, 1) >= cap) {
      state[1] = 1;
      break;
    }
  }
}

// table[t] = the value of bit pattern keys[t], t < n.
template <typename T>
__global__ void __launch_bounds__(kThreads) pj_table_from_keys(const std::uint64_t *__restrict__ keys, int n, T *__restrict__ table) {
  for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < n; t += gridDim.x * blockDim.x) {
    if constexpr (sizeof(T) == 8) table[t] = pjds_double(keys[t]);
    else table[t] = pjds_float(std::uint32_t(keys[t]));
  }
}

} // namespace

template <typename T>
unsigned PjdsDevice<T>::table_grid() const {
  return unsigned(std::min<long long>(grid_for(padded_, kThreads), 1024));
}

template <typename T>
void PjdsDevice<T>::drop_table() {
  device_free(table_);
  device_free(vcode_);
  device_free(vcode16_);
  device_free(table_ok_);
  ntable_ = 0;
}

// The value table (pjds.hpp): the distinct values gathered in a hash set of kTableSlots; where they
// are at most kPjdsTableMax (and, auto, that pays, unless made `anew` for a layout whose table auto
// decided already: the positional layout's) a table and every value's 8-bit code, else
// code_values16.
template <typename T>
cudaError_t PjdsDevice<T>::code_values(StreamTemps &tmp, cudaStream_t s, bool anew) {
  unsigned long long *slots = nullptr;
  int                *state = nullptr;
  auto                done  = [&](cudaError_t e) {
    device_free(slots);
    device_free(state);
    return e;
  };
  cudaError_t e = device_alloc(slots, kTableSlots);
  if (e == cudaSuccess) e = device_alloc(state, 3);
  if (e == cudaSuccess) e = cudaMemsetAsync(slots, 0xff, kTableSlots * sizeof(unsigned long long), s); // kTableEmpty
  if (e == cudaSuccess) e = cudaMemsetAsync(state, 0, 3 * sizeof(int), s);
  if (e != cudaSuccess) return done(e);
  const unsigned grid = table_grid();
  pj_table_gather<T><<<grid, kThreads, 0, s>>>(val_, padded_, slots, state);
  e = launched();
  int h[3] = {0, 0, 0};
  if (e == cudaSuccess) e = cudaMemcpyAsync(h, state, sizeof(h), cudaMemcpyDeviceToHost, s);
  if (e == cudaSuccess) e = cudaStreamSynchronize(s);
  if (e != cudaSuccess) return done(e);
  if (h[1] || h[0] > kPjdsTableMax) return done(code_values16(tmp, s, h[2] != 0)); // more than 256: 16-bit codes where they fit
  if (!anew && p_.values == PjdsValues::Auto && !pjds_table_pays(padded_, h[0], sizeof(T))) return done(cudaSuccess); // the values as stored
  std::vector<unsigned long long> hs(kTableSlots), keys;
  e = cudaMemcpy(hs.data(), slots, kTableSlots * sizeof(unsigned long long), cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) return done(e);
  for (unsigned long long b : hs)
    if (b != kTableEmpty) keys.push_back(b);
  std::sort(keys.begin(), keys.end());
  std::vector<T> table(keys.size());
  for (std::size_t t = 0; t < keys.size(); ++t) table[t] = value_from_bits<T>(keys[t]);
  ntable_ = index_t(table.size());
  e       = device_alloc(table_, table.size());
  if (e == cudaSuccess) e = device_alloc(vcode_, std::size_t(padded_));
  if (e == cudaSuccess) e = device_alloc(table_ok_, 1);
  if (e == cudaSuccess) e = cudaMemcpyAsync(table_, table.data(), table.size() * sizeof(T), cudaMemcpyHostToDevice, s);
  if (e == cudaSuccess) e = cudaMemsetAsync(table_ok_, 1, sizeof(int), s);
  if (e == cudaSuccess) {
    pj_table_codes<T><<<grid, kThreads, 0, s>>>(val_, padded_, table_, int(ntable_), vcode_, table_ok_);
    e = launched();
  }
  if (e == cudaSuccess) e = cudaStreamSynchronize(s); // the host table's copy is read by then
  if (e != cudaSuccess) drop_table();
  return done(e);
}

// The table of 16-bit codes (more than kPjdsTableMax distinct values; pjds.hpp). cap: the largest
// table that can result (auto: pjds_table16_cap, as the host builder; table: kPjdsTable16Max); where
// that is at most kPjdsTableMax, no table and nothing to do. Else the values' distinct bit patterns
// go into a global hash set of a power of two >= 2 cap slots (pj_value_set), which stops once it
// has counted more than cap; the count and that stop read back (one synchronization). Stopped: the
// values are read as stored (as the host). Else the set's keys are compacted and sorted (CUB, at
// most cap keys), kTableEmpty's bits appended where a value has them (the largest pattern: last),
// and where they pay (auto: pjds_table_pays) the table is built from them (ascending by bit
// pattern, the host's order) and every value's code found by a binary search. Also where the 8-bit
// path's sets could not hold a value (empty_seen: kTableEmpty's bits): then cap is at least
// kPjdsTableMax and at most that many distinct values take 8-bit codes, as the host's.
template <typename T>
cudaError_t PjdsDevice<T>::code_values16(StreamTemps &tmp, cudaStream_t s, bool empty_seen) {
  std::int64_t cap = p_.values == PjdsValues::Auto ? pjds_table16_cap(padded_, std::int64_t(sizeof(T))) : std::int64_t(kPjdsTable16Max);
  if (empty_seen) cap = std::max<std::int64_t>(cap, kPjdsTableMax);
  else if (cap <= kPjdsTableMax) return cudaSuccess; // no table of 16-bit codes can pay: the values as stored
  int bits = 10;
  while ((std::int64_t(1) << bits) < 2 * cap) ++bits; // at most 2^17 slots (cap <= 65,536)
  const std::int64_t  nslots = std::int64_t(1) << bits;
  unsigned long long *slots  = tmp.get<unsigned long long>(std::size_t(nslots));
  std::uint64_t      *keys = tmp.get<std::uint64_t>(std::size_t(cap)), *sorted = tmp.get<std::uint64_t>(std::size_t(cap));
  int                *state = tmp.get<int>(4); // count, stopped, kTableEmpty's bits seen; the compaction's count
  GPUMAT_CUDA_TRY(tmp.err);
  GPUMAT_CUDA_TRY(cudaMemsetAsync(slots, 0xff, std::size_t(nslots) * sizeof(unsigned long long), s)); // kTableEmpty
  GPUMAT_CUDA_TRY(cudaMemsetAsync(state, 0, 4 * sizeof(int), s));
  pj_value_set<T><<<table_grid(), kThreads, 0, s>>>(val_, padded_, slots, unsigned(nslots - 1), 64 - bits, int(cap), state);
  GPUMAT_CUDA_TRY(launched());
  int h[3] = {0, 0, 0};
  GPUMAT_CUDA_TRY(cudaMemcpyAsync(h, state, sizeof(h), cudaMemcpyDeviceToHost, s));
  GPUMAT_CUDA_TRY(cudaStreamSynchronize(s));
  const int n = h[0];
  if (h[1] || n > kPjdsTable16Max || (p_.values == PjdsValues::Auto && !pjds_table_pays(padded_, n, sizeof(T)))) return cudaSuccess; // the values as stored
  const int held = n - (h[2] ? 1 : 0); // the keys in the set
  GPUMAT_CUDA_TRY(sort_set_keys(reinterpret_cast<const std::uint64_t *>(slots), nslots, kTableEmpty, keys, sorted, state + 3, held, int(8 * sizeof(T)), s));
  if (h[2]) GPUMAT_CUDA_TRY(cudaMemsetAsync(sorted + held, 0xff, sizeof(std::uint64_t), s)); // kTableEmpty, the last
  cudaError_t e    = device_alloc(table_, std::size_t(n));
  const bool  wide = n > kPjdsTableMax;
  if (e == cudaSuccess) e = wide ? device_alloc(vcode16_, std::size_t(padded_)) : device_alloc(vcode_, std::size_t(padded_));
  if (e == cudaSuccess) e = device_alloc(table_ok_, 1);
  if (e == cudaSuccess) e = cudaMemsetAsync(table_ok_, 1, sizeof(int), s);
  if (e == cudaSuccess) {
    pj_table_from_keys<T><<<unsigned(std::min<long long>(grid_for(n, kThreads), 1024)), kThreads, 0, s>>>(sorted, n, table_);
    e = launched();
  }
  if (e == cudaSuccess) {
    ntable_ = index_t(n);
    if (wide) pj_table_codes16<T><<<table_grid(), kThreads, 0, s>>>(val_, padded_, table_, n, vcode16_, table_ok_);
    else pj_table_codes<T><<<table_grid(), kThreads, 0, s>>>(val_, padded_, table_, n, vcode_, table_ok_);
    e = launched();
  }
  if (e != cudaSuccess) drop_table();
  return e;
}

// The members defined here (the class's others: pjds.cu, pjds_build.cu, pjds_positional.cu).
#define GPUMAT_PJDS_VALUES(T) \
  template unsigned    PjdsDevice<T>::table_grid() const; \
  template void        PjdsDevice<T>::drop_table(); \
  template cudaError_t PjdsDevice<T>::code_values(StreamTemps &, cudaStream_t, bool); \
  template cudaError_t PjdsDevice<T>::code_values16(StreamTemps &, cudaStream_t, bool);
GPUMAT_PJDS_VALUES(double)
GPUMAT_PJDS_VALUES(float)
#undef GPUMAT_PJDS_VALUES

} // namespace cuda
} // namespace gpumat
