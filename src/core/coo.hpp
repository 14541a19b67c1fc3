// COO assembly into a block's CSR pattern (MatSetPreallocationCOO / MatSetValuesCOO), host side.
//
// A COO array may repeat an entry (the values are summed), name entries that the block does not
// hold (ignored: negative indices, another block's or another rank's), and come in any order. Once
// per pattern the machinery gives every entry e its target: the position of (row, column) among
// the block's nonzeros, or -1. coo_map groups the entries by target with a stable counting sort:
// the entries summed into segment s are src[perm[k]] for k in [jmap[s], jmap[s + 1]), added in
// the order of the COO array. A map over every nonzero (one segment each, empty ones included)
// sets values (INSERT_VALUES makes a nonzero without entries 0, as PETSc's does); a map over the
// targets hit only (each segment's nonzero in `targets`) adds values received later (the entries
// of other ranks). The device applies the same map with one kernel (src/cuda/coo.cuh); coo_apply
// is its host reference. PETSc-free.
#pragma once
#include "csr.hpp"

#include <cstdint>
#include <vector>

namespace gpumat {

struct CooMap {
  std::vector<index_t>      targets; // empty: segment s is nonzero s (a map over every nonzero)
  std::vector<std::int64_t> jmap;    // segments + 1 offsets into perm
  std::vector<std::int64_t> perm;    // the entries (indices into the source array), grouped by target

  std::int64_t segments() const { return jmap.empty() ? 0 : std::int64_t(jmap.size()) - 1; }
  std::int64_t entries() const { return std::int64_t(perm.size()); }
  bool         every_nonzero() const { return targets.empty(); }
};

// The position of (row, col) among the nonzeros of a CSR whose columns ascend within each row
// (a binary search of the row); -1 where the row does not hold col.
index_t csr_position(const index_t *rowptr, const index_t *colidx, index_t row, index_t col);

// The map of n entries with targets pos[e] (a nonzero in [0, nnz), or -1: ignored) for a block of
// nnz nonzeros: over every nonzero (every_nonzero) or over the nonzeros hit only. A target out of
// range throws std::out_of_range (a bug of the caller).
CooMap coo_map(std::int64_t nnz, const index_t *pos, std::int64_t n, bool every_nonzero);

// Host reference of the device kernel: for each segment s with nonzero t (targets[s], or s),
// val[t] = (insert ? 0 : val[t]) + the sum of its entries' src values, summed in map order.
template <typename T>
void coo_apply(const CooMap &m, const T *src, bool insert, T *val) {
  const std::int64_t ns = m.segments();
  for (std::int64_t s = 0; s < ns; ++s) {
    T sum = T(0);
    for (std::int64_t k = m.jmap[s]; k < m.jmap[s + 1]; ++k) sum += src[m.perm[k]];
    const std::int64_t t = m.targets.empty() ? s : std::int64_t(m.targets[s]);
    val[t]               = (insert ? T(0) : val[t]) + sum;
  }
}

} // namespace gpumat
