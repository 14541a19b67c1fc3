// A disk cache of tuning decisions: what a format chose for one nonzero pattern on one GPU in one
// precision (block shapes, kernel parameters, the fastest format), kept across runs so that a
// search is paid once. PETSc-free; the machinery (src/petsc/common.cxx) adds the device identity,
// the options and the PETSc messages.
//
// Key: the pattern's fingerprint (below) and dimensions, a device identity string (the caller's:
// GPU name, compute capability, ...), the precision ("fp64"/"fp32"), the format's name and a
// format-specific schema version (raise it when the meaning of the stored values changes: old
// entries then miss instead of being misread).
//
// Storage: one small text file per key in one directory, named <format>-<16 hex digits>.tune, the
// digits a hash of the whole key. The file repeats the whole key, so two keys whose names collide
// are told apart (the other key's file is a miss, and the next Store replaces it). Layout:
//     petsc-gpumat tuning 1             (magic and version: of this layout and of pattern_fingerprint)
//     fingerprint=<16 hex>               (the key, always these 8 lines in this order)
//     nrows=<n>  ncols=<n>  nnz=<n>      (one line each)
//     device=<identity>
//     precision=<fp64|fp32>
//     format=<name>
//     schema=<n>
//     <name>=<value>                     (the decisions, any number, sorted by name)
//     end <16 hex>                       (checksum of every byte before this line)
// A file cut short (no end line), edited, or not ours at all fails the checksum or the parse and is
// reported as invalid, with the file's path in the message; the caller warns and decides afresh.
// Store writes a temporary file in the same directory and renames it over the entry (atomic on
// POSIX file systems): readers and concurrent writers of the same key see a whole old or a whole
// new file, never a mix.
//
// Nothing here throws: Lookup reports every failure (unreadable, corrupt, out of memory) as
// invalid, Store as a failed result, each with a message.
#pragma once
#include "csr.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace gpumat {

// A 64-bit hash of n bytes, 8 at a time (4 independent lanes, then a final avalanche). Not
// cryptographic. Deterministic across runs and builds of the same byte order.
std::uint64_t hash_bytes(const void *data, std::size_t n, std::uint64_t seed);

// The fingerprint of a nonzero pattern: a hash of nrows, ncols, nnz, rowptr[0..nrows] and
// colidx[0..nnz) (the values are not read). One linear pass over 4 (nrows + 1 + nnz) bytes.
//
// Throughput (measured: Release build, GCC 12, one core of the development machine's AMD EPYC,
// 1e6 rows and 1e8 nonzeros, 404 MB of indices, far beyond the caches): 14.3 GB/s, 0.028 s; so
// about 0.06 s for 2e8 nonzeros. Fingerprint.DISABLED_Throughput in
// tests/unit/test_tuning_cache_host.cpp measures it again:
//     test_core --gtest_also_run_disabled_tests --gtest_filter='*Throughput*'
//
// Collisions: two different patterns get the same fingerprint with probability about 2^-64 when
// their differences are not chosen to collide (every input word passes through an invertible
// multiply-rotate lane update, and the result through an avalanche step; each single changed,
// moved, inserted or removed entry is caught, and so is every tested small change in the unit
// tests). It is not a cryptographic hash: patterns built on purpose to collide can be found. A
// collision of the cache gives a matrix the decisions stored for another matrix of the same
// dimensions and nonzero count (they are part of the key as well): a slower choice, never a
// wrong product, as long as callers only store decisions that are valid for any matrix.
std::uint64_t pattern_fingerprint(index_t nrows, index_t ncols, const index_t *rowptr, const index_t *colidx);
template <typename T>
std::uint64_t pattern_fingerprint(const CsrView<T> &A) {
  return pattern_fingerprint(A.nrows, A.ncols, A.rowptr, A.colidx);
}
template <typename T> constexpr const char *precision_name();
template <> constexpr const char *precision_name<double>() { return "fp64"; }
template <> constexpr const char *precision_name<float>() { return "fp32"; }

struct TuningKey {
  std::uint64_t fingerprint = 0;
  std::int64_t  nrows = 0, ncols = 0, nnz = 0;
  std::string   device;    // the GPU's identity, any text without line breaks ("host" on the CPU)
  std::string   precision; // fp64, fp32: letters, digits, '_', '-', '.'
  std::string   format;    // the format's name: letters, digits, '_', '-', '.'
  int           schema = 0; // the format's version of the meaning of its stored values

  template <typename T>
  static TuningKey For(const CsrView<T> &A, std::string device, std::string format, int schema) {
    TuningKey k;
    k.fingerprint = pattern_fingerprint(A);
    k.nrows       = A.nrows;
    k.ncols       = A.ncols;
    k.nnz         = A.nnz();
    k.device      = std::move(device);
    k.precision   = precision_name<T>();
    k.format      = std::move(format);
    k.schema      = schema;
    return k;
  }
  // "" when the key can be stored, else what is wrong with it.
  std::string check() const;
  // The key lines of an entry file.
  std::string text() const;
};

using TuningValues = std::map<std::string, std::string>;

enum class TuningStatus { Hit, Miss, Invalid };
const char *to_string(TuningStatus s);

struct TuningLookup {
  TuningStatus                status = TuningStatus::Miss;
  std::optional<TuningValues> values;  // with Hit only
  std::string                 path;    // the file consulted ("" without a directory)
  std::string                 message; // Miss: why (no entry, another key's file); Invalid: what is wrong, naming the file
};

struct TuningStored {
  bool        ok = false;
  std::string path;    // the entry's file
  std::string message; // on failure: what failed, naming the file or directory
};

// The default directory: $PETSC_GPUMAT_TUNING_DIR, else $XDG_CACHE_HOME/petsc-gpumat/tuning
// (an absolute XDG_CACHE_HOME only, as the XDG specification says), else
// $HOME/.cache/petsc-gpumat/tuning; "" when none of them is set.
std::string default_tuning_dir();

class TuningCache {
public:
  explicit TuningCache(std::string dir) : dir_(std::move(dir)) {}
  const std::string &dir() const { return dir_; }

  // The file of a key in this directory (whether or not it exists).
  std::string path(const TuningKey &key) const;

  // Never throws. Hit: values holds what Store stored for this key. Miss: no entry (no file, no
  // directory, or the file holds another key). Invalid: the file exists but cannot be read or is
  // not a whole, well-formed entry of this version; the message names the file. An invalid key
  // (see TuningKey::check) is invalid too.
  TuningLookup Lookup(const TuningKey &key) const noexcept;

  // Never throws. Creates the directory (and its parents), writes the entry to a temporary file
  // there and renames it over the entry's file. Names: not empty, no '=', no line breaks; values:
  // no line breaks. On failure nothing is left behind (the temporary file is removed) and any
  // previous entry is untouched.
  TuningStored Store(const TuningKey &key, const TuningValues &values) const noexcept;

private:
  std::string dir_;
};

} // namespace gpumat
