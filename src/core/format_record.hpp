// One description per format: what the rest of the library needs to know of a registered format
// besides its storage and kernels. A record holds the format's name and title (src/formats.def),
// its options (name, kind, range, default, help, the error of a bad value), its capabilities, and
// its part in gpuauto (whether it is a candidate, its byte model, its measured constants).
// PETSc-free: the adapters read their options through the records (src/petsc/options.cxx),
// gpuauto iterates them (src/core/gpuauto.cpp), tests/unit/test_records_host.cpp checks them
// against the public header and docs/options.md.
//
// Each registered format's core file (src/core/<root>.cpp) defines `const FormatRecord
// &<root>_record()`; format_records() lists them in the registry's order, which is gpuauto's tie
// order. The machinery's own options (-mat_gpumat_*) are machinery_option_records().
#pragma once
#include "gpuauto.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpumat {

enum class OptionKind { Int, Real, Bool, Enum, String };

// An upper bound that stands for PETSc's largest PetscInt (whatever its width in the PETSc build).
constexpr std::int64_t kOptionIntMax = INT64_MAX;

struct OptionRecord {
  std::string name; // as typed: "-mat_pjds_sigma"
  OptionKind  kind = OptionKind::Int;
  std::string man;  // the manual page -help names ("MATPJDS")
  // -help's text; "{candidates}" stands for gpuauto's candidates (option_help expands it)
  std::string help;
  std::string default_text; // the default as a user reads it ("0", "auto", "false", "")
  // Int and Real: the values accepted are lo..hi, for Int multiples of step; Int: within them only
  // the intervals of `allowed` when it is not empty ({{0, 0}, {4, 4}, {6, 6}}: 0, 4 or 6).
  double                                             lo = 0, hi = 0; // Int: kOptionIntMax allowed as hi
  std::int64_t                                       step = 1;
  std::vector<std::pair<std::int64_t, std::int64_t>> allowed;
  // Enum: its values, and the type name and prefix PETSc's enum lists end with
  std::vector<std::string> choices;
  std::string              enum_type, enum_prefix;
  // The message of a value outside lo..hi (or not a multiple of step), and of one in range but not
  // allowed (empty: the same message). {name}, {lo}, {hi}, {value} and {help} are replaced.
  std::string range_error = "{name} must be in [{lo}, {hi}], got {value}";
  std::string allowed_error;
};

// Whether an Int value is accepted by o: in range (a multiple of step) and allowed.
bool option_in_range(const OptionRecord &o, double v);
bool option_allowed(const OptionRecord &o, std::int64_t v);
// The error message of a bad value; int_max replaces kOptionIntMax as the upper bound (PETSc's
// PETSC_INT_MAX), `value` is the value as text.
std::string option_error(const OptionRecord &o, bool in_range, const std::string &value, std::int64_t int_max);
// -help's text of o, "{candidates}" replaced by gpuauto's candidates ("cusparsecsr, pjds, ...").
std::string option_help(const OptionRecord &o);

struct FormatCapabilities {
  bool device_transpose = false; // transposed products on the GPU (else the machinery's host fallback)
  bool long_part        = false; // rows over a threshold stored apart and summed by groups of lanes
  bool block_size_hint  = false; // reads the matrix's block size (Format::BlockSize)
};

// A format's part in gpuauto (src/core/gpuauto.hpp). A candidate has a byte model and constants.
// The model fills the shape of the format's product for the sampled matrix (bytes, gathers, key of
// its constants, detail); false where it cannot judge the matrix (a block size it did not sample).
using AutoShapeFn = bool (*)(const AutoHints &h, const AutoSample &s, AutoShape &sh);
// A GPU whose shipped constants differ from the H100's in one field of a format's constants.
struct AutoConstantsOverride {
  std::string                 gpu;   // a part of the GPU's name ("H200")
  std::string                 key;   // "cusparsesell"
  double AutoFormatConstants::*field = nullptr;
  double                      value = 0;
};
struct AutoRecord {
  AutoShapeFn model = nullptr; // null: not a candidate
  // the shipped constants measured on the H100 (docs/results/h100-2026-11-2[3-5]*), by key: the
  // format's name, and keyed variants ("cusparsebsr:2" for a block size, "pjds:long" for the long
  // part). k and r from the stream-bound matrices (stencils, FEM: the format's time against its
  // bytes at bw_gbs), g from the gather-bound ones (web, power law, circuit, econ, random rows);
  // relative: the row-per-thread ELL kernels keep 32 rows' gathers in flight where a CSR warp walks
  // one row (0.88 against 0.92-0.94), their permutation and scattered y counted in their bytes.
  std::vector<std::pair<std::string, AutoFormatConstants>> constants;
  std::vector<AutoConstantsOverride>                       overrides; // other GPUs'
  // the shipped build constants, for every GPU: fitted by bench/calibrate.py --build-only to the
  // build_ms of docs/results/h200-2026-11-28b-house-suite (24 matrices; an H100 suite's builds,
  // h100-2026-11-25d-suite, fit alike: the conversion and upload are the host's and the link's)
  AutoBuildConstants build;
  // blocks under -mat_gpuauto_small become this candidate without a prediction (the first such
  // candidate among those allowed)
  bool small_blocks = false;
};

struct FormatRecord {
  explicit FormatRecord(std::string root); // name and title from src/formats.def
  std::string               name;          // the root type name, e.g. "pjds"
  std::string               title;         // one line for MatView and -help
  std::vector<OptionRecord> options;       // in the order -help shows them
  FormatCapabilities        caps;
  AutoRecord                gpuauto;
  // The option "-mat_<name>_<key>"; null when the record has none.
  const OptionRecord *option(std::string_view key) const;
  // A new option of this format: name "-mat_<name>_<key>", manual page "MAT<NAME>".
  OptionRecord &add(OptionKind kind, const std::string &key, std::string help, std::string default_text);
};

// The registered formats (src/formats.def), in its order: gpuauto's tie order.
const std::vector<const FormatRecord *> &format_records();
// A registered format by its root name; null when none.
const FormatRecord *find_record(std::string_view name);
// The machinery's options, of every type (-mat_gpumat_*; the MPI ones last).
const std::vector<OptionRecord> &machinery_option_records();

// The record of each registered format, defined in its core file.
#define GPUMAT_FORMAT(root, factory, title) const FormatRecord &root##_record();
#include "formats.def"
#undef GPUMAT_FORMAT

} // namespace gpumat
