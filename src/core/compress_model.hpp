// The byte model of compressed column indices and values, counted on a host CSR: what a sliced
// format's index and value streams would take per nonzero under each variant (bench_matmult
// -footprint prints it; pjds stores two of them, dictionary columns and a value table, and decides
// on its own built blocks: pjds.hpp).
//
// Slices are `slice_rows` consecutive rows in the matrix's order (a sliced ELL's or pjds's block
// without sorting). Per nonzero, over the stored entries (a format's padding left out: it costs the
// same per padded entry in every variant of that format):
//   index streams
//   - idx32: a 32-bit column per entry (4 B);
//   - delta: per slice one width w of 8, 16 or 32 bits, the least that holds every difference
//     between consecutive columns of the slice's rows; each nonempty row keeps its first column
//     in 32 bits, the other entries take w / 8 B (w = 32: the plain 32-bit columns);
//   - dict: per slice a dictionary of its distinct offsets (column - row), 4 B each, and an 8-bit
//     code per entry, where the slice has at most 256 offsets (a 7-point stencil has 7, whatever
//     the distance between its planes); a slice with more takes its delta width;
//   - best: per slice the smaller of delta and dict.
//   value streams
//   - val64: fp64 (8 B);
//   - table: one table of the matrix's distinct values (8 B each) and an 8-bit code per entry where
//     they are at most 256 (kPjdsTableMax), a 16-bit code where at most 65,536 (kPjdsTable16Max):
//     pjds's value table; otherwise fp64. Lossless: the
//     product sums the same values in the same order;
//   - val32: fp32 (4 B), lossy unless every value converts to float and back unchanged
//     (fp32_exact == nnz).
// PETSc-free; host memory.
#pragma once
#include "csr.hpp"
#include "pjds.hpp"

#include <cstdint>

namespace gpumat {

struct CompressModel {
  index_t      slice_rows = 32;
  std::int64_t rows = 0, nnz = 0, slices = 0;
  // distinct values (bit patterns; -0.0 and 0.0 differ), exact up to kDistinctCap; more reads
  // kDistinctCap + 1
  static constexpr std::int64_t kDistinctCap = kPjdsTable16Max; // the most a value table holds (pjds.hpp)
  std::int64_t distinct = 0;
  std::int64_t fp32_exact = 0; // entries whose value converts to float and back unchanged
  // slices by the width their column differences need (8, 16, 32 bits), and those whose offsets
  // fit an 8-bit dictionary
  std::int64_t slices_w8 = 0, slices_w16 = 0, slices_w32 = 0, slices_dict = 0;
  // bytes per nonzero (0 without nonzeros)
  double idx32 = 0, delta = 0, dict = 0, best = 0;
  double val64 = 0, table = 0, val32 = 0;
};

// The model of A (any scalar converted to double for the value counts). slice_rows >= 1.
template <typename T>
CompressModel compress_model(const CsrView<T> &A, index_t slice_rows = 32);

// A built pjds's bytes (Pjds::bytes(), padding, row lengths, permutation, block offsets and long part
// included) as they are, with its padded part's columns as 8-bit codes into a dictionary per block
// of its offsets (column - matrix row, 4 B each; a padding entry repeats its row's last column, an
// empty row's is column 0) where the block has at most 256 and that reads fewer bytes, else 32-bit
// columns; and with that and the padded part's values as codes into one table of the matrix's
// distinct values (`distinct`, CompressModel's, plus the padding's 0; 8-bit codes up to 256 entries,
// 16-bit up to 65,536, sizeof(T) B each) where that reads fewer bytes. The long part stays as it is.
//
// And with positional offsets (pjds's positional columns, -mat_pjds_columns positional, store every
// block so; this model takes them per block, where they pay): a block whose rows' entries take
// d distinct offsets (column - matrix row; its nonzeros only, padding left out) stores every row d
// wide, entry j of a row at column row + offset[j] (the padding sentinel where the row has no such entry), so
// no column per entry: d x rows values, d offsets (4 B) and a 4-byte start per block, where that
// reads fewer bytes than the block as stored (its 32-bit columns and values), else the block as
// stored (diag); with the values as codes into the table (diag_table), each block the least of
// positional offsets, dictionary columns and 32-bit columns with codes. A stencil's block holds its
// few offsets (7 for the 7-point one) whatever the distance between its planes: about its values'
// bytes a nonzero, the x of a row's entries addressed without a load per entry. The offsets are
// taken from the first row of each row's group of g consecutive rows (column - (row - row % g)),
// with the g of kPjdsPositionalGroups (pjds.hpp) that reads least (diag_group; 1: from the row itself): with g
// the dof per node of a vector problem, a node's rows share one set of offsets, where from each
// row they would differ by the dof.
struct PjdsCompressed {
  double       plain = 0, dict = 0, dict_table = 0; // bytes
  double       diag = 0, diag_table = 0;            // bytes with positional offsets where they pay (plain, dict_table where none)
  std::int64_t blocks = 0, blocks_dict = 0;          // blocks, and those stored with a dictionary
  std::int64_t blocks_diag = 0;                      // blocks with positional offsets (diag)
  index_t      diag_group = 0;                       // the g of diag (0: no block pays)
};
template <typename T>
PjdsCompressed pjds_compressed(const Pjds<T> &B, std::int64_t distinct);

} // namespace gpumat
