// gpuauto: the GPU format predicted to cost a matrix least, its build and a horizon of products,
// from features of a sample of its rows, each candidate's byte model and constants measured on the
// GPU. PETSc-free; the PETSc type (src/petsc/gpuauto.cxx) becomes the chosen candidate. The
// candidates, their byte models and their shipped constants are the registered formats' records
// (src/core/format_record.hpp): gpuauto knows no format by name.
//
// The prediction of a candidate c's product time (ms), n rows, m columns, z nonzeros:
//   bytes_c  = its arrays (its own byte model: padding, blocks, compressed columns, permutation)
//              + x once (8 m) + y once (8 n) + y_scatter_bytes per row when y is stored through a
//              permutation (a warp's 32 rows in up to 32 sectors: measured 11-23 B per row beyond
//              the coalesced store, floor:*-gather-perm against floor:*-gather on the H100)
//              + the partial sums of bccoo's slices (16 B per row and slice);
//   gather_c = R_c l2_request_ps + D_c dram_sector_ps: R_c the 32-byte sector requests of its
//              gathers of x beyond the coalesced 8 per 32 entries (the sampled sectors per 32
//              entries in its order: CSR order for
//              cusparsecsr, csrspec and bccoo (fewer with blocks w wide), ELL order for the
//              row-per-thread formats, a block's bs columns for BSR), D_c the sectors that come
//              from memory: none beyond x once while the x of a slice fits the L2's share for x,
//              else, for the entries far from the diagonal (kAutoNearBytes), the distinct sectors
//              of the sampled runs of rows (the reuse a run's concurrent warps find in the L2)
//              times the share of x the L2 misses;
//   t_c      = launch + max(k_c bytes_c / bw + r_c n, g_c (bytes_c / bw + gather_c)):
//              the stream-bound time with the format's per-row cost, or the gather-bound time;
//              k, r, g per format (and per block size for BSR) from the GPU's measurements.
// The prediction of its build time (ms): the conversion of the assembled matrix into the format, the
// upload to the GPU included, as the benchmark times it (the first product after assembly minus a
// steady one, bench/calibrate.py fits it to results.csv's build_ms):
//   b_c      = build_us_c + build_ns_nnz_c z + build_ns_row_c n.
// The choice minimizes what the new pattern costs over a horizon of H products (AutoHints::horizon,
// -mat_gpuauto_horizon): cost_c = b_c + H t_c, and t_c alone when H is 0. The candidate of the
// smallest cost is chosen; ties go to the earlier candidate in the registry's order
// (src/formats.def), so the choice is deterministic for a given matrix, candidate list, constants
// and horizon.
#pragma once
#include "csr.hpp"
#include "features.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gpumat {

// Per-GPU constants. The shipped ones (auto_shipped_constants) were measured on an H100 80GB HBM3
// (docs/results: floors and suites of 2026-11-22..25; each format's in its record); a file written
// by a calibration replaces them.
struct AutoFormatConstants {
  double k    = 1;  // stream-bound: measured time over bytes at bw
  double r_ps = 0;  // stream-bound: picoseconds per row beyond the bytes (row pointers walked, ...)
  double g    = 1;  // gather-bound: measured time over (bytes at bw + gather)
};
// A candidate's build: b = us + ns_nnz nonzeros + ns_row rows (each 0 or more).
struct AutoBuildConstants {
  double ns_nnz = 0; // per nonzero (host passes, the upload of values and columns, the device passes)
  double ns_row = 0; // per row (row pointers, permutations, per-row metadata)
  double us     = 0; // per build (allocations, the library's handles and buffers, kernels loaded at their first launch)
};
struct AutoConstants {
  std::string name            = "H100 80GB HBM3 (shipped)";
  double      bw_gbs          = 3000;  // streaming read rate of a product's arrays (GB/s)
  double      launch_us       = 4;     // a product's fixed cost
  double      l2_bytes        = 50e6;  // the L2
  double      l2x_share       = 0.4;   // of the L2 that holds x for the gathers
  double      l2_request_ps   = 5.8;   // per sector request of a gather beyond the coalesced 8 per 32 entries
  double      dram_sector_ps  = 17;    // per 32-byte sector of x gathered from memory
  // bccoo's adjacent synchronization: a row whose blocks span G work groups (in a slice) passes its
  // partial sum from group to group, G - 1 hops one after another, each a flag and a sum through
  // memory (about 0.8 us on the H100: powerlaw_2M's hub of 8 groups; README, -mat_bccoo_group)
  double      hop_us          = 0.8;
  double      y_scatter_bytes = 16;    // per row, y stored through a permutation
  std::map<std::string, AutoFormatConstants> fmt; // by candidate ("cusparsebsr:3": BSR with 3 x 3 blocks)
  std::map<std::string, AutoBuildConstants>  build; // by candidate (its name: one build model for every variant)
  const AutoFormatConstants &of(const std::string &key) const;
  const AutoBuildConstants  &build_of(const std::string &candidate) const; // none (0) when it has no line
};
// The shipped constants for a GPU by its name (cudaDeviceProp::name; "" or another GPU: the
// H100's): the GPU's own and every candidate record's (AutoRecord::constants, then the overrides
// whose GPU the name contains). An H200's: the H100's factors with the H200's streaming rate (the
// median floor:stream of its suite run, docs/results/h200-2026-11-26-suite: 4,014 GB/s against the
// H100's 2,800-2,870), its memory's sector gathers scaled alike (powerlaw_20M's gather floor:
// 4.05 ms against 5.76 on the H100) and the records' H200 overrides (cuSPARSE SELL's gather factor).
AutoConstants auto_shipped_constants(const std::string &gpu_name = "");

// Reads constants from a text file of "key value" lines ('#' starts a comment): name, bw_gbs,
// launch_us, l2_bytes, l2x_share, l2_request_ps, dram_sector_ps, y_scatter_bytes, hop_us,
// "<candidate>.k|r_ps|g" (a candidate or a variant: "cusparsebsr:3.k") and
// "<candidate>.build_ns_nnz|build_ns_row|build_us" (a candidate's name only); keys left out keep c's
// values. False with a message naming the file, the line and what is wrong (unknown key, a value
// that is not a positive finite number, or for r_ps and the build fields not a finite number of 0
// or more, a build field of a variant, an unreadable file); c is then unchanged.
bool auto_read_constants(const std::string &path, AutoConstants &c, std::string &err);
// Writes c in that format (calibration; conf/gpuauto/h100.txt and h200.txt are this function's
// output for the shipped constants); false with a message when the file cannot be written.
bool auto_write_constants(const std::string &path, const AutoConstants &c, std::string &err);

// The candidates, in the order that breaks ties: the registered formats whose record has a byte
// model, in the registry's order.
const std::vector<std::string> &auto_all_candidates();

// The default horizon: products a new pattern's build is paid back within (-mat_gpuauto_horizon).
// Replayed on two H200 suites of 24 matrices (bench/calibrate.py --replay --horizon H --products T:
// the chosen type's measured build + T products over the fastest type's), 1000 had the least worst
// geometric mean over T = 100..10,000 of the horizons 300, 1000 and 3000 (1.074 and 1.105, at
// T = 100, where the product alone gave 1.37 and 1.40); docs/design.md has the table.
constexpr std::int64_t kAutoHorizon = 1000;

// What the decision knows beyond the matrix's CSR: its block size and longest row, and the products
// its build is to be paid back within.
struct AutoHints {
  int     block_size  = 1;  // MatGetBlockSize (1: none)
  index_t longest_row = -1; // counted by the machinery (-1: counted here)
  double  horizon     = double(kAutoHorizon); // products (0: the product time alone decides)
  bool    fp32        = false; // -mat_gpumat_values fp32: a candidate with fp32 storage (pjds) predicted with it
};

// Sampled features (time bounded by kAutoSampleEntries, independent of the matrix's size
// otherwise): windows of kAutoWindowRows consecutive rows, aligned to them (the BSR block counts of
// 2, 3, 4 and 6 exact within a window), spread evenly; the whole matrix when it is that small. The
// reuse windows: up to kAutoReuseWindows runs of consecutive rows of about kAutoReuseEntries
// entries each, their distinct sectors of x counted.
constexpr std::int64_t kAutoSampleEntries = 1 << 14;
// A sampled row of more entries is taken as kAutoRowChunks runs of consecutive entries spread
// evenly over it (dense and LP rows: the decision's time bounded, bccoo's model included)
constexpr index_t      kAutoRowEntries    = 384; // runs of 24, a multiple of every block width, at offsets of multiples of 12
constexpr index_t      kAutoRowChunks     = 16;
constexpr index_t      kAutoWindowRows    = 96;
constexpr std::int64_t kAutoReuseEntries  = 1 << 12;
constexpr int          kAutoReuseWindows  = 4;
// An entry whose column is within this many bytes of x from its row's diagonal position (row x
// columns / rows) gathers x that the rows running beside it also read while it is in the L2 (the
// rows a wave of the GPU runs span far less of x than the L2 holds): such gathers come from memory
// once, with x; the others miss as x's share beyond the L2 (a stencil's planes are near, a random
// or power-law column is far).
constexpr double       kAutoNearBytes     = 8e6;
constexpr int          kAutoDistinctMax   = 65536; // pjds's kPjdsTable16Max, the most a value table holds
constexpr index_t      kAutoOffsetBlock   = 32;
constexpr index_t      kAutoOffsetBlocks  = 8;
constexpr int          kAutoOffsetGroups  = 8; // groups of 1..8 rows whose offsets are counted (pjds's positional columns)
struct AutoSample {
  MatrixFeatures f;             // of the sampled rows (nrows, ncols, nnz, max_row: the matrix's)
  std::int64_t   blocks6    = 0; // nonzero 6 x 6 blocks, scaled to the matrix
  double         sector_use = 1; // distinct x sectors per entry in the reuse windows (0..1]
  double         far_share  = 1; // sampled entries more than kAutoNearBytes of x from their row's diagonal position
  // of the entries, those in rows longer than pjds's and bce's long threshold (default_long_row,
  // from the sampled rows' true lengths): their long part, summed in chunks by warps like a CSR
  // walker, not a thread per row, whose gathers it shares (pjds:long and bce:long constants)
  double         long_share = 0;
  index_t        sampled_rows = 0;
  std::int64_t   sampled_entries = 0;
  bool           exact = false;  // the whole matrix was the sample (every row whole)
  int            value_bytes = 8; // the matrix's values: 8 (double) or 4 (float)
  // what compressed layouts would find (pjds's value table and dictionary columns): the distinct
  // value bit patterns among the sampled whole rows, counted up to kAutoDistinctMax + 1 (-1: the view
  // has no values, as where the newest are on the device); the distinct offsets per block of
  // kAutoOffsetBlock consecutive rows (kAutoOffsetBlocks blocks spread evenly, of at most
  // kAutoSampleEntries / 2 entries in all) from the first row of each group of g consecutive rows
  // (column - (row - row mod g), g = 1..kAutoOffsetGroups: a vector problem's node's rows share
  // them), their mean per block, group_offsets[g - 1] (-1: no block measured: a block with a row
  // longer than kAutoRowEntries is left out); block_offsets() those from each row (column - row),
  // and the most of those in one block
  int            distinct_values   = -1;
  std::int64_t   values_sampled    = 0; // the entries of the sampled whole rows whose values were counted
  double         group_offsets[kAutoOffsetGroups] = {-1, -1, -1, -1, -1, -1, -1, -1};
  int            block_offsets_max = 0;
  double         block_offsets() const { return group_offsets[0]; }
  // the sampled rows in the matrix's columns, in windows of 12 rows starting at bccoo_wstart: the
  // sample bccoo's model judges (bccoo_model_sampled), so its time is bounded by this one
  std::vector<index_t> bccoo_rowptr, bccoo_col, bccoo_wstart;
};
template <typename T>
AutoSample auto_sample(const CsrView<T> &A, const AutoHints &h);

struct AutoPrediction {
  std::string candidate;   // type name
  double      ms    = 0;   // predicted product time
  double      build_ms = 0; // predicted build time (the conversion and upload of a new pattern)
  double      cost_ms  = 0; // what the choice minimizes: build_ms + horizon x ms (ms at horizon 0)
  double      bytes = 0;   // its bytes per product (arrays + x + y + scatter + partial sums)
  double      gather_ms = 0;
  bool        gather_bound = false;
  std::string detail;      // its parameters in words ("3x3 blocks", "sorted within 4096 rows", ...)
  std::string key;         // the constants it was predicted with ("cusparsebsr:3": BSR with 3 x 3 blocks)
  double      long_share = 0; // of the entries, those its long part sums (pjds, bce)
  double      hops       = 0; // bccoo: the longest row's hops between work groups
};
struct AutoDecision {
  std::vector<AutoPrediction> predictions; // cheapest first by cost_ms (ties: candidate order)
  double                      horizon = 0; // the horizon it was decided with (AutoHints::horizon)
  AutoSample                  sample;
  std::string                 chosen;
  double                      decide_ms = 0; // host time the decision took
};

// What a candidate's byte model says of its product on the sampled matrix (AutoRecord::model).
struct AutoShape {
  double      bytes      = 0;     // the format's arrays
  double      excess     = 0;     // sector requests of its x gathers beyond 8 per 32 entries (coalesced)
  double      slices     = 1;     // x split into slices (bccoo)
  double      hops       = 0;     // the longest row's hops between work groups (bccoo's adjacent synchronization)
  bool        permuted   = false; // y stored through a permutation
  double      long_share = 0;     // of the entries, those its long part sums (the format's name + ":long" constants)
  std::string key;                // of its constants: the format's name (set before the model runs) or a variant
  std::string detail;             // its parameters in words
};
// The byte model of a plain CSR walked in CSR order (cusparsecsr's and csrspec's).
bool auto_csr_shape(const AutoHints &h, const AutoSample &s, AutoShape &sh);

// A small block (fewer than `small_nnz` nonzeros; 0: none is) becomes the small blocks' candidate
// (AutoRecord::small_blocks: csrspec) without a prediction where it is a candidate; returns ""
// otherwise (the prediction decides). Its product is a few
// microseconds in any format, bound by the launch, while the sample and the candidates' models took
// 0.5-7 ms on the build machine for GAMG's coarse operators and interpolations (1.6k-220k rows,
// 3k-730k nonzeros): on an H200 CG + GAMG on a 100^3 Laplacian ran 0.65x aijcusparse with gpuauto,
// 1.08-1.37x with every fixed type, csrspec the fastest (plain CSR: its build is the upload, its
// transposed product, GAMG's restriction, on the GPU).
constexpr std::int64_t kAutoSmallNnz = std::int64_t(1) << 20;
std::string auto_small_choice(std::int64_t nnz, std::int64_t small_nnz, const std::vector<std::string> &candidates);

// The decision among `candidates` (names of auto_all_candidates; unknown names are ignored): each
// record's byte model in the registry's order, its constants from c.
template <typename T>
AutoDecision auto_decide(const CsrView<T> &A, const AutoHints &h, const AutoConstants &c, const std::vector<std::string> &candidates);

} // namespace gpumat
