// csrspec: plain CSR with the speculative segmented sum (Liu & Vinter 2015), host side.
//
// The matrix stays in its unmodified CSR arrays. The nonzeros are cut into tiles of W x T
// entries (T threads of a thread-bunch, W consecutive nonzeros per thread), a block runs
// `tiles_per_block` consecutive tiles. Per tile: binary search of the tile boundaries in the row
// pointer, a segment descriptor (row-start bit flags) built at run time, a segmented sum, partial
// sums stored speculatively at compact row slots, empty rows detected (equal consecutive row
// pointers) which marks the tile dirty and takes the fix-up path; the sums of rows crossing block
// boundaries go through a small synchronizer array and a final pass.
#pragma once
#include "csr.hpp"
#include <vector>

namespace gpumat {

struct CsrSpecParams {
  int W               = 0; // nonzeros per thread per tile (0 = choose for precision)
  int T               = 32; // threads per thread-bunch (a warp)
  int bunches         = 0; // thread-bunches (warps) per block (0 = choose)
  int tiles_per_block = 0; // S in the paper (0 = choose)
};

// The one place where parameters are validated and their defaults chosen, for the host and the
// GPU alike; throws std::invalid_argument on a bad value with a message naming the parameter and
// its allowed range. tiles_per_block = 0 (the default) is chosen from the target: with
// resident_blocks > 0 (a GPU: blocks resident at once over all SMs) the grid of nnz nonzeros is
// one wave of resident blocks, each running an equal share of the tiles (at most
// csrspec_max_tiles_per_block); without (the host emulation), 2.
constexpr int csrspec_max_tiles_per_block = 1024;
template <typename T>
CsrSpecParams csrspec_resolve(CsrSpecParams p, std::int64_t nnz = 0, long long resident_blocks = 0);

// Static statistics of the decomposition of one pattern (cheap: one pass over rowptr).
struct CsrSpecStats {
  std::int64_t tiles = 0, blocks = 0, dirty_tiles = 0, empty_rows = 0;
  std::int64_t cross_rows = 0; // rows whose nonzeros span more than one block
  std::size_t  aux_bytes = 0;  // device bytes besides the CSR arrays (synchronizer etc.)
};
template <typename T>
CsrSpecStats csrspec_stats(const CsrView<T> &A, const CsrSpecParams &p);

// Host reference: the same tile algorithm, run sequentially. Scratch is reused across calls.
template <typename T>
class CsrSpecHost {
public:
  void setup(const CsrView<T> &A, const CsrSpecParams &p);
  // y = op(A) x (+ z). Arrays of length nrows/ncols as op requires. y may equal z.
  void apply(const CsrView<T> &A, Op op, const T *x, const T *z, T *y) const;
private:
  CsrSpecParams p_{};
  mutable std::vector<T> sync_val_;
  mutable std::vector<index_t> sync_row_;
};

} // namespace gpumat
