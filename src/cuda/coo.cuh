// A COO map on the device (src/core/coo.hpp): the machinery uploads a block's map once per pattern
// and each device MatSetValuesCOO applies it with one kernel (coo_sum, primitives.cuh) into the
// device copy of the block's CSR values, from which the format is refreshed. 32-bit offsets and
// entries where the map fits (half the bytes read per assembly), 64-bit otherwise. Owned by the
// machinery, shared by every format. PETSc-free; included by host C++, needs only cuda_runtime.h.
#pragma once
#include "../core/coo.hpp"
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>

namespace gpumat {
namespace cuda {

template <typename T>
class CooDevice {
public:
  CooDevice() = default;
  CooDevice(const CooDevice &)            = delete;
  CooDevice &operator=(const CooDevice &) = delete;
  ~CooDevice() { release(); }

  // Copies m to the device (stream-ordered on s; the host map may go once s has passed the copy,
  // upload synchronizes s before returning). Out of memory: cudaErrorMemoryAllocation (cleared),
  // nothing kept.
  cudaError_t upload(const CooMap &m, cudaStream_t s);
  // For each segment: val[t] = (insert ? 0 : val[t]) + its entries' src values (coo_apply on the
  // device); src and val device arrays. Asynchronous on s.
  cudaError_t apply(const T *src, bool insert, T *val, cudaStream_t s) const;

  bool         uploaded() const { return jmap_ != nullptr; }
  std::int64_t segments() const { return nseg_; }
  std::int64_t entries() const { return nent_; }
  bool         wide() const { return wide_; } // 64-bit offsets and entries
  std::size_t  device_bytes() const;
  void         release();

private:
  index_t     *targets_ = nullptr; // null for a map over every nonzero
  void        *jmap_ = nullptr, *perm_ = nullptr;
  std::int64_t nseg_ = 0, nent_ = 0;
  bool         wide_ = false;
};

// dst[k] = src[idx[k]], k < n: the entries a rank sends in a device MPI COO assembly, gathered
// from the user's array (idx on the device, 32-bit where the COO array fits).
template <typename T>
class GatherDevice {
public:
  GatherDevice() = default;
  GatherDevice(const GatherDevice &)            = delete;
  GatherDevice &operator=(const GatherDevice &) = delete;
  ~GatherDevice() { release(); }

  cudaError_t  upload(const std::int64_t *idx, std::int64_t n, std::int64_t src_size, cudaStream_t s); // synchronizes s
  cudaError_t  apply(const T *src, T *dst, cudaStream_t s) const;
  bool         uploaded() const { return uploaded_; }
  std::int64_t size() const { return n_; }
  std::size_t  device_bytes() const { return std::size_t(n_) * (wide_ ? sizeof(std::int64_t) : sizeof(index_t)); }
  void         release();

private:
  void        *idx_      = nullptr;
  std::int64_t n_        = 0;
  bool         wide_     = false, uploaded_ = false;
};

} // namespace cuda
} // namespace gpumat
