// cusparsesell: cuSPARSE's sliced ELL (CUSPARSE_FORMAT_SLICED_ELLPACK), host side.
//
// Layout (cuSPARSE's, built identically by src/cuda/cusparsesell.cu): the rows are cut into
// slices of S consecutive rows (the last slice padded with empty rows to S); slice s is stored as
// an S x w_s column-major block, w_s its longest row: entry j of row r (slice s = r / S, lane
// l = r % S) sits at position off[s] + j * S + l of the column-index and value arrays, off the
// exclusive prefix sum of S * w_s. Padding positions hold column -1 and value 0. The slot map
// sends CSR entry k to its position, so new values are scattered without rebuilding.
#pragma once
#include "csr.hpp"
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpumat {

// Slice sizes accepted by this format. cuSPARSE documents no bound for sliceSize (CUDA 13.0:
// "the number of rows per slice"); 1024 (the largest CUDA thread block, a slice per block at most)
// keeps the per-slice widths cheap to compute. Default 32: a warp's lanes then read one contiguous
// segment of the slice per step (128 B of column indices, 256 B of fp64 values); smaller slices
// pad less but shorten those segments, larger ones pad more (each slice is as wide as its longest
// row).
constexpr int sell_min_slice = 1, sell_max_slice = 1024, sell_default_slice = 32;

// Statistics of the layout of A with slice size S, without building it (one pass over rowptr).
struct SellStats {
  std::int64_t slices = 0, padded = 0; // padded: stored entries, nonzeros and padding
  index_t      max_width = 0;          // the widest slice
  // device bytes of the layout: values + column indices (padded), slice offsets
  std::size_t layout_bytes(std::size_t scalar) const {
    return std::size_t(padded) * (scalar + sizeof(index_t)) + std::size_t(slices + 1) * sizeof(index_t);
  }
};
template <typename T>
SellStats sell_stats(const CsrView<T> &A, int S);

// The layout without values (shared by the host and device builders' tests).
struct SellLayout {
  index_t              nrows = 0, ncols = 0, slice = 0;
  std::vector<index_t> slice_offsets; // slices + 1
  std::vector<index_t> colidx;        // padded entries, -1 for padding
  std::vector<index_t> slot;          // CSR entry k -> position
  index_t              slices() const { return slice_offsets.empty() ? 0 : index_t(slice_offsets.size() - 1); }
  std::int64_t         padded() const { return std::int64_t(colidx.size()); }
};

// Host reference: builds the layout and values, refreshes values through the slot map, and runs
// y = op(A) x (+ z) over the stored arrays (padding included, so the layout is what is tested).
// build throws std::invalid_argument for a slice size outside [sell_min_slice, sell_max_slice] and
// std::length_error when the padded size does not fit 32-bit positions.
template <typename T>
class SellHost {
public:
  void build(const CsrView<T> &A, int S);
  void refresh(const T *val); // the CSR values of the pattern built
  void apply(Op op, const T *x, const T *z, T *y) const;

  const SellLayout     &layout() const { return L_; }
  const std::vector<T> &values() const { return val_; }

private:
  SellLayout     L_;
  std::vector<T> val_;
};

} // namespace gpumat
