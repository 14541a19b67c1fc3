#include "format_record.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace gpumat {

namespace {

struct Registered {
  const char *root, *title;
};
// src/formats.def as data: the titles the records take
constexpr Registered kRegistered[] = {
#define GPUMAT_FORMAT(root, factory, title) {#root, title},
#include "formats.def"
#undef GPUMAT_FORMAT
};

void replace_all(std::string &s, const std::string &from, const std::string &to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
}

// A bound as the messages print it: an integer in plain decimal, a real as %g
std::string bound_text(const OptionRecord &o, double v, std::int64_t int_max) {
  if (o.kind == OptionKind::Int) return std::to_string(v == double(kOptionIntMax) ? int_max : std::int64_t(v));
  char b[32];
  std::snprintf(b, sizeof b, "%g", v);
  return b;
}

} // namespace

FormatRecord::FormatRecord(std::string root) : name(std::move(root)) {
  for (const Registered &r : kRegistered)
    if (name == r.root) title = r.title;
}

const OptionRecord *FormatRecord::option(std::string_view key) const {
  const std::string full = "-mat_" + name + "_" + std::string(key);
  for (const OptionRecord &o : options)
    if (o.name == full) return &o;
  return nullptr;
}

OptionRecord &FormatRecord::add(OptionKind kind, const std::string &key, std::string help, std::string default_text) {
  OptionRecord o;
  o.name = "-mat_" + name + "_" + key;
  o.kind = kind;
  o.man  = "MAT" + name;
  std::transform(o.man.begin(), o.man.end(), o.man.begin(), [](unsigned char c) { return char(std::toupper(c)); });
  o.help         = std::move(help);
  o.default_text = std::move(default_text);
  options.push_back(std::move(o));
  return options.back();
}

bool option_in_range(const OptionRecord &o, double v) {
  if (!(v >= o.lo && v <= o.hi)) return false;
  return o.kind != OptionKind::Int || std::fmod(v, double(o.step)) == 0;
}

bool option_allowed(const OptionRecord &o, std::int64_t v) {
  if (o.allowed.empty()) return true;
  for (const auto &[lo, hi] : o.allowed)
    if (v >= lo && v <= hi) return true;
  return false;
}

std::string option_error(const OptionRecord &o, bool in_range, const std::string &value, std::int64_t int_max) {
  std::string m = in_range && !o.allowed_error.empty() ? o.allowed_error : o.range_error;
  replace_all(m, "{name}", o.name);
  replace_all(m, "{lo}", bound_text(o, o.lo, int_max));
  replace_all(m, "{hi}", bound_text(o, o.hi, int_max));
  replace_all(m, "{help}", o.help);
  replace_all(m, "{value}", value);
  return m;
}

std::string option_help(const OptionRecord &o) {
  std::string h = o.help;
  if (h.find("{candidates}") != std::string::npos) {
    std::string list;
    for (const std::string &c : auto_all_candidates()) list += (list.empty() ? "" : ", ") + c;
    replace_all(h, "{candidates}", list);
  }
  return h;
}

const std::vector<const FormatRecord *> &format_records() {
  static const std::vector<const FormatRecord *> all = {
#define GPUMAT_FORMAT(root, factory, title) &root##_record(),
#include "formats.def"
#undef GPUMAT_FORMAT
  };
  return all;
}

const FormatRecord *find_record(std::string_view name) {
  for (const FormatRecord *r : format_records())
    if (r->name == name) return r;
  return nullptr;
}

// Read by src/petsc/seqaij.cxx (within MatSetFromOptions) and src/petsc/mpiaij.cxx (the MPI ones,
// with PetscOptionsGetBool when the MPI matrix is set up).
const std::vector<OptionRecord> &machinery_option_records() {
  static const std::vector<OptionRecord> all = [] {
    std::vector<OptionRecord> v;
    auto add = [&v](OptionKind kind, const char *name, const char *man, const char *help, const char *def) -> OptionRecord & {
      OptionRecord o;
      o.name = name, o.kind = kind, o.man = man, o.help = help, o.default_text = def;
      v.push_back(std::move(o));
      return v.back();
    };
    add(OptionKind::Bool, "-mat_gpumat_eager", "MatAssemblyEnd", "Build the GPU format in MatAssemblyEnd instead of at the first product", "false");
    add(OptionKind::Bool, "-mat_gpumat_host", "MatMult", "Run products on the host even for CUDA vectors", "false");
    add(OptionKind::Bool, "-mat_gpumat_host_reference", "MatMult", "Host products with the format's host reference kernel instead of PETSc's SeqAIJ kernels", "false");
    {
      OptionRecord &o = add(OptionKind::Enum, "-mat_gpumat_compressed_rows", "MatMult", "Store only the nonempty rows of a block: auto (when the empty-row ratio is reached), always, never", "auto");
      o.choices = {"auto", "always", "never"}, o.enum_type = "MatGpuMatCompressedRows", o.enum_prefix = "MAT_GPUMAT_COMPRESSED_ROWS_";
    }
    {
      OptionRecord &o = add(OptionKind::Real, "-mat_gpumat_compressed_rows_ratio", "MatMult", "Fraction of empty rows from which auto compresses a block (0..1)", "0.6");
      o.lo = 0, o.hi = 1;
    }
    add(OptionKind::String, "-mat_gpumat_tuning_cache", "MatMult",
        "Directory of the disk cache of tuning decisions (default: $PETSC_GPUMAT_TUNING_DIR, else $XDG_CACHE_HOME/petsc-gpumat/tuning, else ~/.cache/petsc-gpumat/tuning)",
        "$PETSC_GPUMAT_TUNING_DIR, else $XDG_CACHE_HOME/petsc-gpumat/tuning, else ~/.cache/petsc-gpumat/tuning");
    add(OptionKind::Bool, "-mat_gpumat_tuning_cache_disable", "MatMult", "Neither read nor write the disk cache of tuning decisions (a format that tunes decides afresh for every new nonzero pattern)", "false");
    {
      OptionRecord &o = add(OptionKind::Int, "-mat_gpumat_shadow_products", "MatMult",
                            "CUDA builds: products a device product's result runs through cuSPARSE on its CSR already on the GPU (as aijcusparse's) before its format is built at the next one (0: built at the first)",
                            "100");
      o.lo = 0, o.hi = (double)kOptionIntMax;
    }
    add(OptionKind::Bool, "-mat_gpumat_device_csr", "MatMult",
        "CUDA builds: a block's device build reads the CSR that aijcusparse uploads and keeps for the block's shadow, which PETSc's GPU operations (sparse products, MatScale, MatAXPY, factorizations) then share (off: the build uploads the CSR itself and frees it)",
        "false");
    {
      OptionRecord &o = add(OptionKind::Enum, "-mat_gpumat_values", "MatMult",
                            "The values the products read: fp64 (as assembled) or fp32 (lossy: rounded to single precision, x, y and the sums staying double; pjds, and gpuauto's pjds, where no value table applies; for preconditioner matrices)",
                            "fp64");
      o.choices = {"fp64", "fp32"}, o.enum_type = "MatGpuMatValues", o.enum_prefix = "MAT_GPUMAT_VALUES_";
    }
    {
      OptionRecord &o = add(OptionKind::Enum, "-mat_gpumat_dense_products", "MatMatMult",
                            "CUDA builds, a product with a dense CUDA operand (MatMatMult(A, B) with B dense, ...): spmm (aijcusparse's on the matrix's shadow: cuSPARSE SpMM, one pass over A), loop (PETSc's loop: one product of the format per column of B), auto (loop for A B on one rank where the format reads at most 0.6 of the CSR's bytes, else spmm)",
                            "auto");
      o.choices = {"auto", "spmm", "loop"}, o.enum_type = "MatGpuMatDenseProducts", o.enum_prefix = "MAT_GPUMAT_DENSE_PRODUCTS_";
    }
    add(OptionKind::Bool, "-mat_gpumat_coo_host_reference", "MatSetValuesCOO",
        "MatSetValuesCOO with host arrays through the machinery's COO maps on the host (the host reference of the device COO assembly) instead of SeqAIJ's", "false");
    // the MPI types'
    add(OptionKind::Bool, "-mat_gpumat_overlap", "MatMult", "MPI types: the halo exchange overlapped with the diagonal block's product (0: finished before it, Kreutzer et al.'s vector mode)", "true");
    add(OptionKind::Bool, "-mat_gpumat_gpu_aware_mpi", "MatMult",
        "MPI types: device vectors' ghost values handed to MPI in device memory by the matrix's scatter (1) or staged through host buffers (0); refused with the reason where the MPI is known not to take device buffers",
        "PETSc's -use_gpu_aware_mpi");
    add(OptionKind::Bool, "-mat_gpumat_side_stream", "MatMult",
        "MPI types, CUDA builds and vectors, with the overlap: the diagonal block's product on a CUDA stream of the matrix's own while the halo exchange and the off-diagonal rows' product run on PETSc's stream (0: PETSc's order on its stream)",
        "true");
    return v;
  }();
  return all;
}

} // namespace gpumat
