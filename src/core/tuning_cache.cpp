// The disk cache of tuning decisions (tuning_cache.hpp): the hash, the entry files, their parser.
#include "tuning_cache.hpp"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gpumat {

namespace {

// Odd 64-bit multipliers: the fractional digits of pi, e and the golden ratio.
constexpr std::uint64_t kPi  = 0x243F6A8885A308D3ull;
constexpr std::uint64_t kE   = 0xB7E151628AED2A6Bull;
constexpr std::uint64_t kPhi = 0x9E3779B97F4A7C15ull;

inline std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
inline std::uint64_t load64(const unsigned char *p) {
  std::uint64_t w;
  std::memcpy(&w, p, 8); // one unaligned load
  return w;
}
// One input word into one lane: for a fixed state, a bijection of the word (xor, an odd multiply
// and a rotation are each invertible), so two different words never leave the lane equal.
inline std::uint64_t mix(std::uint64_t a, std::uint64_t w) { return rotl((a ^ w) * kPi, 31); }
// Every input bit reaches every output bit (xor-shift, multiply, twice).
inline std::uint64_t avalanche(std::uint64_t x) {
  x ^= x >> 31;
  x *= kE;
  x ^= x >> 29;
  x *= kPhi;
  x ^= x >> 32;
  return x;
}

} // namespace

std::uint64_t hash_bytes(const void *data, std::size_t n, std::uint64_t seed) {
  const unsigned char *p = static_cast<const unsigned char *>(data);
  std::uint64_t        h = mix(seed ^ kPhi, std::uint64_t(n)); // the length: zero padding of the tail is unambiguous
  if (n >= 32) {
    // four independent dependency chains keep the multiplier busy (one chain would wait on the
    // multiply's latency for every word)
    std::uint64_t a0 = seed ^ kPi, a1 = seed ^ kE, a2 = seed ^ kPhi, a3 = ~seed;
    for (; n >= 32; n -= 32, p += 32) {
      a0 = mix(a0, load64(p));
      a1 = mix(a1, load64(p + 8));
      a2 = mix(a2, load64(p + 16));
      a3 = mix(a3, load64(p + 24));
    }
    h = mix(h, avalanche(a0));
    h = mix(h, avalanche(a1));
    h = mix(h, avalanche(a2));
    h = mix(h, avalanche(a3));
  }
  for (; n >= 8; n -= 8, p += 8) h = mix(h, load64(p));
  if (n) {
    std::uint64_t w = 0;
    std::memcpy(&w, p, n);
    h = mix(h, w);
  }
  return avalanche(h);
}

std::uint64_t pattern_fingerprint(index_t nrows, index_t ncols, const index_t *rowptr, const index_t *colidx) {
  if (nrows < 0) nrows = 0;
  std::int64_t nnz = nrows ? rowptr[nrows] : 0;
  if (nnz < 0) nnz = 0;
  const std::int64_t dims[3] = {nrows, ncols, nnz};
  std::uint64_t      h       = hash_bytes(dims, sizeof dims, kE);
  if (nrows) h = hash_bytes(rowptr, (std::size_t(nrows) + 1) * sizeof(index_t), h);
  if (nnz) h = hash_bytes(colidx, std::size_t(nnz) * sizeof(index_t), h ^ kPi);
  return h;
}

namespace {

// The first line of every entry; raise the number when the layout or pattern_fingerprint changes.
constexpr const char *kHeader       = "petsc-gpumat tuning 1";
constexpr const char *kHeaderPrefix = "petsc-gpumat tuning ";
constexpr std::uint64_t kNameSeed   = 0x5475'6E69'6E67'4E61ull; // file names
constexpr std::uint64_t kSumSeed    = 0x5475'6E69'6E67'5375ull; // checksums
constexpr std::size_t   kMaxFile    = 1u << 20;                 // an entry is a few hundred bytes

bool has_line_break(const std::string &s) { return s.find_first_of(std::string("\n\r\0", 3)) != std::string::npos; }
bool is_word(const std::string &s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.')) return false;
  return true;
}
std::string hex16(std::uint64_t x) {
  char b[17];
  std::snprintf(b, sizeof b, "%016" PRIx64, x);
  return b;
}
bool parse_hex16(const std::string &s, std::uint64_t *x) {
  if (s.size() != 16) return false;
  std::uint64_t v = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else return false;
    v = v << 4 | std::uint64_t(d);
  }
  *x = v;
  return true;
}
std::string errno_text(int e) { return std::strerror(e); }

// The key lines of a file: 8 lines "name=value" with these names in this order.
constexpr const char *kKeyNames[] = {"fingerprint", "nrows", "ncols", "nnz", "device", "precision", "format", "schema"};
constexpr std::size_t kKeyLines   = sizeof(kKeyNames) / sizeof(kKeyNames[0]);

TuningLookup lookup_result(TuningStatus s, const std::string &path, std::string message) {
  TuningLookup r;
  r.status  = s;
  r.path    = path;
  r.message = std::move(message);
  return r;
}

// Reads a whole regular file of at most kMaxFile bytes. Returns 0, or errno (ENOENT: no file),
// or -1 (not a regular file) or -2 (too large).
int read_file(const std::string &path, std::string *out) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  struct stat st;
  int         rc = 0;
  if (::fstat(fd, &st) != 0) rc = errno;
  else if (!S_ISREG(st.st_mode)) rc = -1;
  else if (st.st_size > off_t(kMaxFile)) rc = -2;
  else {
    out->clear();
    char buf[4096];
    for (;;) {
      const ssize_t k = ::read(fd, buf, sizeof buf);
      if (k < 0 && errno == EINTR) continue;
      if (k < 0) {
        rc = errno;
        break;
      }
      if (k == 0) break;
      out->append(buf, std::size_t(k));
      if (out->size() > kMaxFile) { // grew while we read it
        rc = -2;
        break;
      }
    }
  }
  ::close(fd);
  return rc;
}

int write_all(int fd, const std::string &s) {
  std::size_t done = 0;
  while (done < s.size()) {
    const ssize_t k = ::write(fd, s.data() + done, s.size() - done);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return errno;
    done += std::size_t(k);
  }
  return 0;
}

} // namespace

const char *to_string(TuningStatus s) {
  switch (s) {
  case TuningStatus::Hit: return "hit";
  case TuningStatus::Miss: return "miss";
  case TuningStatus::Invalid: return "invalid";
  }
  return "?";
}

std::string TuningKey::check() const {
  if (nrows < 0 || ncols < 0 || nnz < 0) return "negative dimensions";
  if (device.empty() || device.size() > 256 || has_line_break(device)) return "the device identity must be 1..256 characters without line breaks, got '" + device + "'";
  if (!is_word(precision)) return "the precision must be 1..64 letters, digits, '_', '-' or '.', got '" + precision + "'";
  if (!is_word(format)) return "the format name must be 1..64 letters, digits, '_', '-' or '.', got '" + format + "'";
  return "";
}

std::string TuningKey::text() const {
  const std::string values[kKeyLines] = {hex16(fingerprint), std::to_string(nrows), std::to_string(ncols), std::to_string(nnz), device, precision, format, std::to_string(schema)};
  std::string       t;
  for (std::size_t i = 0; i < kKeyLines; ++i) t += std::string(kKeyNames[i]) + "=" + values[i] + "\n";
  return t;
}

std::string default_tuning_dir() {
  auto env = [](const char *name) -> std::string {
    const char *v = std::getenv(name);
    return v ? v : "";
  };
  const std::string own = env("PETSC_GPUMAT_TUNING_DIR");
  if (!own.empty()) return own;
  const std::string xdg = env("XDG_CACHE_HOME");
  if (!xdg.empty() && xdg[0] == '/') return xdg + "/petsc-gpumat/tuning";
  const std::string home = env("HOME");
  if (!home.empty()) return home + "/.cache/petsc-gpumat/tuning";
  return "";
}

std::string TuningCache::path(const TuningKey &key) const {
  if (dir_.empty() || !key.check().empty()) return "";
  const std::string id = std::string(kHeader) + "\n" + key.text();
  return (std::filesystem::path(dir_) / (key.format + "-" + hex16(hash_bytes(id.data(), id.size(), kNameSeed)) + ".tune")).string();
}

TuningLookup TuningCache::Lookup(const TuningKey &key) const noexcept {
  std::string file;
  try {
    const std::string bad = key.check();
    if (!bad.empty()) return lookup_result(TuningStatus::Invalid, "", "invalid tuning cache key: " + bad);
    if (dir_.empty()) return lookup_result(TuningStatus::Miss, "", "no tuning cache directory");
    file = path(key);
    std::string s;
    const int   rc = read_file(file, &s);
    if (rc == ENOENT || rc == ENOTDIR) return lookup_result(TuningStatus::Miss, file, "no entry " + file);
    auto invalid = [&](const std::string &what) { return lookup_result(TuningStatus::Invalid, file, "tuning cache file " + file + ": " + what); };
    if (rc == -1) return invalid("not a regular file");
    if (rc == -2) return invalid("larger than " + std::to_string(kMaxFile) + " bytes, not an entry of this cache");
    if (rc != 0) return invalid("cannot be read (" + errno_text(rc) + ")");

    // the header
    const std::size_t eol = s.find('\n');
    const std::string first = s.substr(0, eol);
    if (first != kHeader) {
      if (first.compare(0, std::strlen(kHeaderPrefix), kHeaderPrefix) == 0)
        return invalid("entry version '" + first.substr(std::strlen(kHeaderPrefix)) + "', this library reads '" + std::string(kHeader).substr(std::strlen(kHeaderPrefix)) + "'");
      return invalid(s.empty() ? "empty (cut short?)" : "not a petsc-gpumat tuning entry (first line is not '" + std::string(kHeader) + "')");
    }
    // the end line and the checksum of everything before it
    if (s.back() != '\n') return invalid("cut short or damaged (the last line is not the end line)");
    const std::size_t end_at = s.rfind('\n', s.size() - 2) + 1; // the last line's start (the header's newline at least)
    const std::string last   = s.substr(end_at, s.size() - 1 - end_at);
    std::uint64_t     sum;
    if (last.compare(0, 4, "end ") != 0 || !parse_hex16(last.substr(4), &sum)) return invalid("cut short or damaged (the last line is not the end line)");
    if (sum != hash_bytes(s.data(), end_at, kSumSeed)) return invalid("checksum mismatch (corrupt or edited)");

    // the lines between: the key, then the values
    std::vector<std::string> lines;
    for (std::size_t at = eol + 1; at < end_at;) {
      const std::size_t nl = s.find('\n', at);
      lines.push_back(s.substr(at, nl - at));
      at = nl + 1;
    }
    if (lines.size() < kKeyLines) return invalid("the key is incomplete");
    std::string text;
    for (std::size_t i = 0; i < kKeyLines; ++i) {
      const std::string name = std::string(kKeyNames[i]) + "=";
      if (lines[i].compare(0, name.size(), name) != 0) return invalid("line " + std::to_string(i + 2) + " should be the key's '" + kKeyNames[i] + "'");
      text += lines[i] + "\n";
    }
    if (text != key.text()) return lookup_result(TuningStatus::Miss, file, "tuning cache file " + file + " holds another key (file name collision); it will be replaced");
    TuningValues values;
    for (std::size_t i = kKeyLines; i < lines.size(); ++i) {
      const std::size_t eq = lines[i].find('=');
      if (eq == 0 || eq == std::string::npos) return invalid("line " + std::to_string(i + 2) + " is not 'name=value'");
      if (!values.emplace(lines[i].substr(0, eq), lines[i].substr(eq + 1)).second) return invalid("the name '" + lines[i].substr(0, eq) + "' appears twice");
    }
    TuningLookup r = lookup_result(TuningStatus::Hit, file, "hit " + file);
    r.values       = std::move(values);
    return r;
  } catch (const std::exception &e) {
    return lookup_result(TuningStatus::Invalid, file, "tuning cache file " + file + ": " + e.what());
  } catch (...) {
    return lookup_result(TuningStatus::Invalid, file, "tuning cache file " + file + ": unknown error");
  }
}

TuningStored TuningCache::Store(const TuningKey &key, const TuningValues &values) const noexcept {
  TuningStored r;
  std::string  tmp;
  try {
    const std::string bad = key.check();
    if (!bad.empty()) {
      r.message = "invalid tuning cache key: " + bad;
      return r;
    }
    if (dir_.empty()) {
      r.message = "no tuning cache directory";
      return r;
    }
    r.path = path(key);
    std::string s = std::string(kHeader) + "\n" + key.text();
    for (const auto &[name, value] : values) {
      if (name.empty() || name.find('=') != std::string::npos || has_line_break(name) || has_line_break(value)) {
        r.message = "tuning value '" + name + "': names must be nonempty without '=' and line breaks, values without line breaks";
        return r;
      }
      s += name + "=" + value + "\n";
    }
    s += "end " + hex16(hash_bytes(s.data(), s.size(), kSumSeed)) + "\n";

    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec && !std::filesystem::is_directory(dir_)) {
      r.message = "cannot create the tuning cache directory " + dir_ + " (" + ec.message() + ")";
      return r;
    }
    // the temporary file: hidden, in the same directory (rename stays within one file system)
    std::string tmpl = (std::filesystem::path(dir_) / ("." + std::filesystem::path(r.path).filename().string() + ".XXXXXX")).string();
    std::vector<char> name(tmpl.begin(), tmpl.end());
    name.push_back('\0');
    const int fd = ::mkstemp(name.data());
    if (fd < 0) {
      r.message = "cannot write in the tuning cache directory " + dir_ + " (" + errno_text(errno) + ")";
      return r;
    }
    tmp        = name.data();
    int     rc = ::fchmod(fd, 0644) != 0 ? errno : 0; // mkstemp's 0600 would hide entries from other users of a shared directory
    if (!rc) rc = write_all(fd, s);
    if (!rc && ::fsync(fd) != 0) rc = errno;
    if (::close(fd) != 0 && !rc) rc = errno;
    if (!rc && std::rename(tmp.c_str(), r.path.c_str()) != 0) rc = errno;
    if (rc) {
      ::unlink(tmp.c_str());
      r.message = "cannot write the tuning cache file " + r.path + " (" + errno_text(rc) + ")";
      return r;
    }
    r.ok = true;
    return r;
  } catch (const std::exception &e) {
    if (!tmp.empty()) ::unlink(tmp.c_str());
    r.ok      = false;
    r.message = "cannot write the tuning cache file " + r.path + " (" + e.what() + ")";
    return r;
  } catch (...) {
    if (!tmp.empty()) ::unlink(tmp.c_str());
    r.ok      = false;
    r.message = "cannot write the tuning cache file " + r.path;
    return r;
  }
}

} // namespace gpumat
