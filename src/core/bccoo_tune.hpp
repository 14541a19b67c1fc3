// bccoo's auto-tuner (yaSpMV, Yan et al. 2014, section 4), PETSc- and CUDA-free: the search space,
// its pruning, the coordinate-wise search driven by a timing callback, and the decision as the
// values of the disk cache of tuning decisions (tuning_cache.hpp). The GPU timing of a candidate is
// src/cuda/bccoo_tune.cu; the PETSc adapter (src/petsc/bccoo.cxx, -mat_bccoo_tune) joins them.
//
// Search space: the parameters of the paper's Table 1 that this implementation has: block height
// 1..4 and width 1, 2, 4, column compression yes/no, vertical slices (BCCOO+) 1, 2, 4, 8, 16, 32,
// thread tile (blocks per thread, strategy 2's thread-level tile size) 8, 16, 24, 32, 40, 64, 96,
// 128 and work-group size 64, 128, 256, 512. (The paper's bit-flag type follows from the tile here,
// texture memory and offline transpose are always on, and the result cache is sized by the
// builder.) The full cross product is 12 x 2 x 6 x 8 x 4 = 4608 candidates.
//
// Pruning, as the paper: the block shapes are only the 4 with the smallest byte footprints
// (bccoo_shapes on the model's sample: BccooChoice::shapes), and the search is coordinate-wise:
//   1. shape x compression, at the model's tile, group and slices (up to 4 x 2 = 8 candidates);
//   2. tile x group for the best of 1 (up to 8 x 4 = 32);
//   3. slices for the best of 2 (up to 6);
// so at most 44 distinct candidates (a candidate met again in a later stage is not timed again).
// The model's own choice (bccoo_model) is the first candidate, so its time is always known next
// to the winner's. A parameter the user set (-mat_bccoo_*: nonzero, compress_col >= 0) is never
// searched: its stage keeps the user's value (a shape fixed in height or width keeps the shapes
// of the 4 smallest footprints that have it).
#pragma once
#include "bccoo.hpp"
#include "tuning_cache.hpp"

#include <functional>
#include <string>
#include <vector>

namespace gpumat {

// The values the tuner searches (besides the block shapes and the compression).
inline constexpr int kBccooTuneSlices[] = {1, 2, 4, 8, 16, 32};
inline constexpr int kBccooTuneTiles[]  = {8, 16, 24, 32, 40, 64, 96, 128};
inline constexpr int kBccooTuneGroups[] = {64, 128, 256, 512};
inline constexpr int kBccooTuneShapes   = 4; // block shapes searched: the 4 smallest footprints

// Products a candidate is timed with: untimed warm-up products, then the median of `reps` timed
// ones (-mat_bccoo_tune_reps).
inline constexpr int kBccooTuneWarmup      = 2;
inline constexpr int kBccooTuneDefaultReps = 10;
inline constexpr int kBccooTuneMaxReps     = 1000;

// What timing one candidate gave.
struct BccooTiming {
  enum Status {
    Ok,   // ms holds the median time of a product
    Skip, // the candidate cannot be built (out of memory, the format's index width, ...): not fatal
    Abort // an error that ends the search (a failed device, ...): the caller reports it
  };
  Status      status = Ok;
  double      ms     = 0;
  std::string why; // Skip, Abort: what happened
};
// Builds the format with these (resolved) parameters and times its product.
using BccooTimeFn = std::function<BccooTiming(const BccooParams &)>;

struct BccooTrial {
  BccooParams p;         // resolved, as passed to the timing callback
  int         stage = 0; // 1: shape x compression, 2: tile x group, 3: slices
  BccooTiming t;
};

struct BccooTuneResult {
  BccooParams             best{};                 // the winner (resolved); the model's choice when nothing was timed
  BccooParams             model{};                // the model's choice (resolved)
  double                  best_ms  = 0;           // its median product time (NaN when nothing was timed)
  double                  model_ms = 0;           // the model's (NaN when it could not be built)
  int                     timed = 0, skipped = 0; // candidates timed, candidates that could not be built
  bool                    aborted = false;        // the callback aborted the search (the last trial says why)
  double                  seconds = 0;            // wall-clock time of the search (host clock)
  std::vector<BccooTrial> trials;                 // every candidate, in the order timed
  bool                    ok() const { return !aborted && timed > 0; }
  std::string             failure() const;        // !ok(): why (the last trial's message)
};

// The block shapes of stage 1: the first kBccooTuneShapes of model.shapes (fewest bytes first)
// that have the user's height and width (where set), the model's shape first; the model's shape
// alone when the sample has none (an empty matrix).
std::vector<BccooShape> bccoo_tune_shapes(const BccooChoice &model, const BccooParams &user);

// The coordinate-wise search above. model: bccoo_model(A, user, ...); user: the parameters the user
// set (the rest 0 / compress_col -1). Calls time() once per distinct candidate, the model's choice
// first; the winner is the fastest timed candidate (the earlier one on a tie). Throws only what
// time() throws (and std::bad_alloc).
BccooTuneResult bccoo_tune(const BccooChoice &model, const BccooParams &user, const BccooTimeFn &time);

// A decision as the disk cache stores it: the winner's parameters by name (h, w, slices, tile,
// group, compress_col), the user's fixed parameters it was searched under (fixed), the model's
// choice (model) and the figures of the search (candidates, skipped, tune_ms, best_ms, model_ms).
TuningValues bccoo_tune_values(const BccooTuneResult &r, const BccooParams &user);
// The decision stored in v, for a search under the user's fixed parameters `user`. Use: *r filled
// (best, model, the figures; no trials). OtherFixed: v was searched under other fixed parameters
// (a valid entry for another run's options). The strategy (-mat_bccoo_strategy) is not searched
// nor stored: *r's parameters take the user's (0: the default). Invalid: a value is missing, malformed, out of range
// or contradicts its fixed parameters; *why says which. In both cases the caller tunes afresh and
// stores over the entry.
enum class BccooCached { Use, OtherFixed, Invalid };
BccooCached bccoo_tune_from_values(const TuningValues &v, const BccooParams &user, BccooTuneResult *r, std::string *why);

// "h x w, S slice(s), tile T, group G, 16-bit|32-bit columns" (messages, MatView).
std::string bccoo_describe(const BccooParams &p);

} // namespace gpumat
