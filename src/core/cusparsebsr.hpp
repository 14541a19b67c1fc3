// cusparsebsr: cuSPARSE's block sparse row format (CUSPARSE_FORMAT_BSR), host side.
//
// Layout (cuSPARSE's, built identically by src/cuda/cusparsebsr.cu): an m x n matrix is cut into
// bs x bs blocks, mb = ceil(m / bs) block rows and nb = ceil(n / bs) block columns (the last ones
// padded with zero rows/columns when bs does not divide m or n). Block row I lists its nonzero
// blocks by ascending block column in colidx[rowptr[I] .. rowptr[I+1]); block b holds bs*bs values
// at values[b*bs*bs ...], column-major by default (entry (i, j) of the block at j*bs + i), row-major
// on request (i*bs + j). The slot map sends CSR entry k to its value position, so new values are
// scattered without rebuilding.
//
// Column-major blocks by default (to be confirmed by measurement on the GPU: cuSPARSE documents
// both orders for CUSPARSE_SPMV_BSR_ALG1 and no preference): a kernel that gives consecutive
// threads consecutive rows of a block, the usual mapping for small blocks, reads a block column as
// one contiguous run of bs values and the bs*bs values of a block in bs such runs, while row-major
// blocks make those reads strided by bs. -mat_cusparsebsr_row_major selects the other order.
#pragma once
#include "csr.hpp"
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpumat {

// Block dimensions accepted by this format: 2..16 (a 1 x 1 block is CSR; the builders merge up to
// bs rows at once in registers). Without a choice: the matrix's block size when it is in range,
// else the candidate of [2, 6] that stores the fewest bytes.
constexpr int bsr_min_bs = 2, bsr_max_bs = 16, bsr_auto_min = 2, bsr_auto_max = 6;

// Nonzero blocks of A with bs x bs blocks: one pass over the nonzeros with a marker per block
// column (the last block row that used it), O(nnz + n / bs).
template <typename T>
std::int64_t bsr_block_count(const CsrView<T> &A, int bs);
// The same for every bs in [lo, hi] in one pass over the nonzeros (one marker array per bs):
// counts[bs - lo].
template <typename T>
std::vector<std::int64_t> bsr_block_counts(const CsrView<T> &A, int lo, int hi);

// Device bytes of the BSR storage of an m x n matrix with nnz nonzeros in nnzb blocks of bs x bs:
// values, block column indices, block row pointer, the slot map and the staging array of the
// values refresh, and the padded copies of x and y when bs does not divide n or m.
std::size_t bsr_bytes(index_t m, index_t n, std::int64_t nnz, std::int64_t nnzb, int bs, std::size_t scalar);

// The block size the format uses: `user` (the option, 0 = none) if set, else the matrix's block
// size `hint` when in [bsr_min_bs, bsr_max_bs], else the fewest bytes (bsr_bytes) among
// [bsr_auto_min, bsr_auto_max] (ties: the smaller). `why` (optional) says which rule chose;
// `candidate_bytes` (optional) receives the bytes of each candidate the last rule weighed
// (index bs - bsr_auto_min). Linear: one pass over the nonzeros (bsr_block_counts).
enum class BsrChoice { Option, Hint, FewestBytes };
template <typename T>
int bsr_choose_bs(const CsrView<T> &A, int user, int hint, BsrChoice *why = nullptr, std::vector<std::size_t> *candidate_bytes = nullptr);

struct BsrLayout {
  index_t              nrows = 0, ncols = 0, bs = 0, mb = 0, nb = 0;
  bool                 row_major = false;
  std::vector<index_t> rowptr; // mb + 1
  std::vector<index_t> colidx; // nnzb
  std::vector<index_t> slot;   // CSR entry k -> value position
  std::int64_t         nnzb() const { return std::int64_t(colidx.size()); }
  std::int64_t         stored() const { return nnzb() * bs * bs; }
  // position of entry (i, j) inside a block
  index_t in_block(index_t i, index_t j) const { return row_major ? i * bs + j : j * bs + i; }
};

// Host reference: builds the layout and values, refreshes values through the slot map, and runs
// y = op(A) x (+ z) over the stored blocks (padding included). build throws std::invalid_argument
// for bs outside [bsr_min_bs, bsr_max_bs] and std::length_error when the stored values do not fit
// 32-bit positions.
template <typename T>
class BsrHost {
public:
  void build(const CsrView<T> &A, int bs, bool row_major);
  void refresh(const T *val); // the CSR values of the pattern built
  void apply(Op op, const T *x, const T *z, T *y) const;

  const BsrLayout      &layout() const { return L_; }
  const std::vector<T> &values() const { return val_; }

private:
  BsrLayout      L_;
  std::vector<T> val_;
};

} // namespace gpumat
