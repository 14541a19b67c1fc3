// COO maps (coo.hpp).
#include "coo.hpp"

#include <stdexcept>
#include <string>

namespace gpumat {

index_t csr_position(const index_t *rowptr, const index_t *colidx, index_t row, index_t col) {
  index_t lo = rowptr[row], hi = rowptr[row + 1];
  while (lo < hi) {
    const index_t mid = lo + (hi - lo) / 2;
    if (colidx[mid] < col) lo = mid + 1;
    else hi = mid;
  }
  return lo < rowptr[row + 1] && colidx[lo] == col ? lo : index_t(-1);
}

CooMap coo_map(std::int64_t nnz, const index_t *pos, std::int64_t n, bool every_nonzero) {
  // entries per nonzero, then their offsets: a stable counting sort of the entries by target
  std::vector<std::int64_t> count(std::size_t(nnz) + 1, 0);
  for (std::int64_t e = 0; e < n; ++e) {
    const index_t t = pos[e];
    if (t < 0) continue;
    if (t >= nnz) throw std::out_of_range("coo_map: entry " + std::to_string(e) + " targets nonzero " + std::to_string(t) + " of " + std::to_string(nnz));
    ++count[std::size_t(t) + 1];
  }
  for (std::int64_t t = 0; t < nnz; ++t) count[std::size_t(t) + 1] += count[std::size_t(t)];
  CooMap m;
  m.perm.resize(std::size_t(count[std::size_t(nnz)]));
  {
    std::vector<std::int64_t> next(count.begin(), count.end() - 1);
    for (std::int64_t e = 0; e < n; ++e)
      if (pos[e] >= 0) m.perm[std::size_t(next[std::size_t(pos[e])]++)] = e;
  }
  if (every_nonzero) {
    m.jmap = std::move(count);
    return m;
  }
  m.jmap.push_back(0);
  for (std::int64_t t = 0; t < nnz; ++t)
    if (count[std::size_t(t) + 1] > count[std::size_t(t)]) {
      m.targets.push_back(index_t(t));
      m.jmap.push_back(count[std::size_t(t) + 1]);
    }
  return m;
}

} // namespace gpumat
