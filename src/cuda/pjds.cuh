// pjds on the GPU: PETSc-free device storage, builder and kernels (raw pointers + stream).
// Included by host C++ (the PETSc adapter, tests) and by pjds.cu and the builder's units
// (pjds_build.cuh); needs only cuda_runtime.h.
#pragma once
#include "../core/pjds.hpp"
#include "long_rows.cuh"
#include "primitives.cuh"
#include <algorithm>
#include <cstdint>
#include <cuda_runtime.h>
#include <string>
#include <utility>
#include <vector>

namespace gpumat {
namespace cuda {

// The device copy of a Pjds<T> (src/core/pjds.hpp), built on the GPU from the CSR arrays: the same
// arrays, entry for entry, as the host builder's (download() returns them in the host's form for
// the tests), with the long part's values after the padded values in one array (the refresh
// scatters into both through one slot map), plus the long rows' chunks: each long row is cut into
// chunks of long_shape().entries() entries, long_shape().lanes lanes each, whose partial sums the
// row's last-arriving group adds in chunk order (deterministic; no second kernel). Owns its device memory. Every call returns the
// first CUDA error it met (cudaErrorMemoryAllocation when out of memory; cudaErrorInvalidValue with
// why() for a matrix the format cannot index), never aborts. One stream at a time (the long rows'
// arrival counters are shared by products).
template <typename T>
class PjdsDevice {
public:
  static constexpr const char *kName = "pjds"; // the format, in messages
  PjdsDevice() = default;
  PjdsDevice(const PjdsDevice &)            = delete;
  PjdsDevice &operator=(const PjdsDevice &) = delete;
  ~PjdsDevice() { release(); }

  // Uploads the CSR (host arrays; columns in any order within a row) and builds the layout with
  // parameters p as pjds_build takes them (pjds_resolve'd or pjds_model's; sigma 0 = all rows,
  // long_row 0 = none), its columns as p.columns says (dictionary and positional columns: the same
  // as the host builder's). Replaces any previous content. Synchronizes the stream three times (the
  // long rows' count, the padded size, the chunks), once more for dictionary columns or auto (the
  // dictionaries' sizes), eight more for positional columns (each group's stored entries, the
  // offsets' count), and once at the end (build_phases()).
  cudaError_t build(const CsrView<T> &A, const PjdsParams &p, cudaStream_t s);
  // The same from a CSR already on the device (read only until the stream reaches the build's end).
  cudaError_t build(const DeviceCsrView<T> &A, const PjdsParams &p, cudaStream_t s);
  // New values, same pattern: host values copied in chunks through a staging buffer, device values
  // (where = Mem::Device) read in place; scattered by the slot map (positional columns: a value with
  // the padding sentinel's bits then rewritten as the canonical NaN, pjds.hpp); with a value table its codes
  // re-derived on the device (a value outside it turns it off; no synchronization), with fp32
  // storage the values rounded again.
  cudaError_t refresh(const T *val, cudaStream_t s, Mem where = Mem::Host);
  // y = op(A) x (+ z); device pointers; y may equal z; asynchronous on s. The product is one kernel
  // (the long rows' chunks in its first blocks); the transpose adds with atomics.
  cudaError_t apply(Op op, const T *x, const T *z, T *y, cudaStream_t s) const;
  // d[rowmap ? rowmap[r] : r] = A(r, rowmap ? rowmap[r] : r) for every row r; other entries untouched.
  cudaError_t diagonal(const index_t *rowmap, T *d, cudaStream_t s) const;
  // The layout in the host builder's form (perm empty for the identity; slot as host positions;
  // positional padding as the sentinel).
  cudaError_t download(Pjds<T> &B) const;

  // The product kernel's instance: compiled for `blocks` resident blocks of 256 threads per SM,
  // 4 (up to 64 registers a thread, more loads of each thread in flight) or 6 (up to 40, more
  // threads); 0 = measured (kernel_occupancy). Returns false (nothing changed) for another value.
  bool set_occupancy(int blocks) {
    if (blocks != 0 && blocks != 4 && blocks != 6) return false;
    occupancy_ = blocks;
    return true;
  }
  int occupancy() const { return occupancy_; } // as set (0: measured)
  // The long part's chunk shape for the next builds (0 = by the long rows, long_shape).
  // Returns false (nothing changed) for an invalid one (long_shape_valid).
  bool set_long_shape(LongShape u) {
    if (!long_shape_valid(u)) return false;
    user_shape_ = u;
    return true;
  }
  // The shape as built (lanes and passes 0 before a build, or without long rows).
  const LongShape &long_shape() const { return lr_.shape(); }
  // Products of each instance timed after a build when the occupancy is 0 (InstanceTrial).
  static constexpr int kTrialProducts = 3;
  // The instance the products run: as set; else, after a build, the first 2 x kTrialProducts
  // products alternate between 4 and 6 (each timed by CUDA events) and the faster is kept once they
  // have finished (trial()); until then, and where it cannot be timed, layout_occupancy(). Neither
  // wins everywhere (H200, one run each, 6 against 4: 15 % less time on web_40M, 3.5 % on
  // circuit_5M, 8 % on web_1M; 5.6 % more on econ_20M, 3 % on circuit_16M, 1-2 % on the LP
  // matrices; on the H100 6 was faster on every matrix without long rows, by 2-15 %).
  int kernel_occupancy() const { return occupancy_ ? occupancy_ : trial_.decided() ? trial_.chosen() : layout_occupancy(); }
  int layout_occupancy() const { return lr_.chunks() == 0 ? 6 : 4; }
  const InstanceTrial &trial() const { return trial_; }
  const PjdsParams  &params() const { return p_; } // as built (sigma rounded, long_row set)
  const std::string &why() const { return why_; }
  index_t            pjds_rows() const { return npj_; }
  index_t            long_rows() const { return lr_.count(); }
  std::int64_t       long_entries() const { return lr_.entries(); }
  std::int64_t       padded() const { return padded_; }
  std::int64_t       padding() const { return padded_ - (std::int64_t(nnz_) - lr_.entries()); }
  std::int64_t       chunks() const { return lr_.chunks(); }
  bool               coded() const { return dict_start_ != nullptr; } // dictionary columns (pjds.hpp)
  bool               positional() const { return poff_start_ != nullptr; } // positional columns (pjds.hpp)
  std::int64_t       offset_entries() const { return npoff_; }  // positional columns: in all blocks
  index_t            group() const { return pgroup_; }           // positional columns: rows per group (else 0)
  // positional columns asked for and declined (pjds_positional_pays): the positions they would have
  // stored, the 32-bit columns kept (0 otherwise); the host builder's decision
  std::int64_t       positional_declined() const { return pos_declined_; }
  // A value table built (pjds.hpp, PjdsValues); whether the product reads it now (a refresh with a
  // value outside it turns it off until the next build; reading that synchronizes the device).
  bool               tabled() const { return table_ != nullptr; }
  bool               table_in_use() const;
  index_t            table_entries() const { return ntable_; }
  int                code_bytes() const { return table_ ? (vcode16_ ? 2 : 1) : 0; } // a value code's bytes: 8-bit codes up to kPjdsTableMax entries, else 16-bit (0: no table)
  // fp32 storage (pjds.hpp): the products read the padded values rounded to float
  bool               single() const { return val32_ != nullptr; }
  std::int64_t       dict_entries() const { return dict_entries_; }   // in all blocks' dictionaries
  // Whether the product reads the row lengths (ELLPACK-R) or walks each block's width, adding the
  // padding's zeros: the lengths are read where the padding's bytes exceed theirs (never with
  // positional columns: the product walks the widths, skipping the zeros).
  bool               reads_rowlen() const { return !positional() && pjds_reads_rowlen(padded_, std::int64_t(padding()), npj_, val32_ ? sizeof(float) : sizeof(T)); }
  std::size_t        format_bytes() const; // the arrays a product reads (Pjds::bytes of the host, less rowlen when not read)
  std::size_t        device_bytes() const; // everything this object holds on the device
  const std::vector<std::pair<const char *, float>> &build_phases() const { return phases_; }
  void               release();

private:
  template <class Args>
  Args        kernel_args(int lanes) const; // pjds.cu
  cudaError_t build_from(const DeviceCsrView<T> &A, const PjdsParams &p, cudaStream_t s, PhaseTimer &clock);
  cudaError_t code_columns(StreamTemps &tmp, cudaStream_t s); // pjds_build.cu
  cudaError_t position_columns(const DeviceCsrView<T> &A, StreamTemps &tmp, cudaStream_t s, bool by_auto, bool tabled); // pjds_positional.cu
  cudaError_t code_values(StreamTemps &tmp, cudaStream_t s, bool anew = false); // pjds_values.cu
  void        drop_table();                                    // pjds_values.cu: frees the table and its codes
  cudaError_t code_values16(StreamTemps &tmp, cudaStream_t s, bool empty_seen); // pjds_values.cu: the table of 16-bit codes
  unsigned    table_grid() const;                              // pjds_values.cu: the value table's kernels: grid-stride over padded_, at most 1024 blocks
  cudaError_t fail(std::string why) {
    why_ = std::move(why);
    release();
    return cudaErrorInvalidValue;
  }

  PjdsParams   p_{};
  int          occupancy_ = 0;
  LongShape    user_shape_{};
  std::string  why_;
  index_t      nrows_ = 0, ncols_ = 0, nnz_ = 0, npj_ = 0;
  std::int64_t nblocks_ = 0, padded_ = 0;
  // pJDS part
  index_t      *perm_ = nullptr;        // position -> row (null: the identity)
  index_t      *rowlen_ = nullptr;      // npj_
  std::int64_t *block_start_ = nullptr; // nblocks_ + 1
  index_t      *col_ = nullptr;         // padded_ (null with dictionary or positional columns)
  std::uint8_t *code_ = nullptr;        // padded_: dictionary columns' codes (else null)
  index_t      *dict_ = nullptr;        // dict_entries_: each block's offsets, ascending
  index_t      *dict_start_ = nullptr;  // nblocks_ + 1 (null: 32-bit columns)
  std::int64_t  dict_entries_ = 0;
  index_t      *poff_ = nullptr;        // npoff_: positional columns, each block's offsets ascending
  std::int64_t *poff_start_ = nullptr;  // nblocks_ + 1 (null: not positional)
  std::int64_t  npoff_ = 0;
  index_t       pgroup_ = 0;            // rows per group the offsets start from
  std::int64_t  pos_declined_ = 0;      // positional_declined()
  T            *table_ = nullptr;       // ntable_ distinct values ascending by bit pattern (null: none)
  std::uint8_t *vcode_ = nullptr;       // padded_: their codes, where ntable_ <= kPjdsTableMax (else null)
  std::uint16_t *vcode16_ = nullptr;    // padded_: their codes, where ntable_ > kPjdsTableMax (else null)
  int          *table_ok_ = nullptr;    // nonzero while every value is in the table
  index_t       ntable_ = 0;
  T            *val_ = nullptr;         // padded_ + the long part's entries: its values follow
  float        *val32_ = nullptr;       // padded_: fp32 storage, what the products read (else null)
  LongRowsDevice<T> lr_;                // the long part (long_rows.cuh)
  unsigned *slot_ = nullptr;            // nnz_: CSR entry -> position in val_
  std::vector<std::pair<const char *, float>> phases_;
  mutable InstanceTrial trial_; // the products' choice of instance (kernel_occupancy)
};

} // namespace cuda
} // namespace gpumat
