// The disk cache of tuning decisions (src/core/tuning_cache.hpp): the pattern fingerprint (values
// ignored, every small change of the pattern or the dimensions seen), the entries (round trip,
// misses for every other part of the key), damaged entries (cut short at every length, garbage,
// one byte changed, another version, another key under the same name: invalid or miss, with the
// file in the message, never a throw), failed stores, concurrent stores of one key.
#include "core/tuning_cache.hpp"
#include "matgen.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;
using gpumat::index_t;
using gpumat::TuningCache;
using gpumat::TuningKey;
using gpumat::TuningStatus;
using gpumat::TuningValues;

namespace {

std::uint64_t fp(const matgen::Csr &M) { return gpumat::pattern_fingerprint(M.view(M.values<double>())); }

TEST(Fingerprint, PatternOnlyNotValues) {
  for (const matgen::Csr &M : matgen::standard_set_cached(512)) {
    std::vector<double> v1 = M.values<double>(), v2(v1.size());
    for (std::size_t k = 0; k < v2.size(); ++k) v2[k] = -3.0 * v1[k] + 1.0;
    const std::vector<float> v3 = M.values<float>();
    const std::uint64_t      f  = gpumat::pattern_fingerprint(M.view(v1));
    EXPECT_EQ(gpumat::pattern_fingerprint(M.view(v2)), f) << M.name;
    EXPECT_EQ(gpumat::pattern_fingerprint(M.view(v3)), f) << M.name; // either precision
    const matgen::Csr copy = M;                                     // other arrays, same pattern
    EXPECT_EQ(fp(copy), f) << M.name;
  }
}

TEST(Fingerprint, EveryMatrixOfTheSetDiffers) {
  std::set<std::uint64_t> seen;
  const auto             &set = matgen::standard_set_cached(512);
  for (const matgen::Csr &M : set) seen.insert(fp(M));
  EXPECT_EQ(seen.size(), set.size());
}

TEST(Fingerprint, MovedEntry) {
  for (const matgen::Csr &M : matgen::standard_set_cached(512)) {
    if (M.nnz() == 0 || M.ncols < 2) continue;
    const std::uint64_t     f = fp(M);
    std::set<std::uint64_t> seen{f};
    int                     variants = 1;
    for (index_t k : {index_t(0), index_t(M.nnz() / 2), index_t(M.nnz() - 1)}) {
      for (index_t shift : {1, -1, 2}) { // another column of the same row (the pattern need not stay sorted)
        matgen::Csr N = M;
        N.colidx[k]   = index_t((N.colidx[k] + shift + M.ncols) % M.ncols);
        seen.insert(fp(N));
        ++variants;
      }
    }
    EXPECT_EQ(int(seen.size()), variants) << M.name; // all different from the original and each other
  }
}

TEST(Fingerprint, ChangedRowPointer) {
  for (const matgen::Csr &M : matgen::standard_set_cached(512)) {
    if (M.nrows < 2 || M.nnz() == 0) continue;
    const std::uint64_t f = fp(M);
    // the last entry of the first nonempty row moves to the next row (same column array)
    index_t r = 0;
    while (r + 1 < M.nrows && M.rowptr[r + 1] == M.rowptr[r]) ++r;
    if (r + 1 >= M.nrows) continue;
    matgen::Csr N = M;
    N.rowptr[r + 1] -= 1;
    EXPECT_NE(fp(N), f) << M.name;
  }
}

TEST(Fingerprint, Dimensions) {
  const matgen::Csr M = matgen::stencil_2d(20, 10);
  const auto        v = M.values<double>();
  auto              A = M.view(v);
  const std::uint64_t f = gpumat::pattern_fingerprint(A);
  A.ncols += 1; // an extra empty column
  EXPECT_NE(gpumat::pattern_fingerprint(A), f);
  A.ncols -= 1;
  A.nrows -= 1; // the last row dropped (its entries too: nnz follows rowptr)
  EXPECT_NE(gpumat::pattern_fingerprint(A), f);
  // matrices without entries differ by their dimensions only
  std::set<std::uint64_t> seen;
  const index_t           zero_rowptr[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (index_t m : {0, 1, 7})
    for (index_t n : {0, 1, 7}) seen.insert(gpumat::pattern_fingerprint(m, n, m ? zero_rowptr : nullptr, nullptr));
  EXPECT_EQ(seen.size(), 9u);
}

TEST(Fingerprint, HashOfBytesSeesEveryByteAndTheLength) {
  std::vector<unsigned char> b(67);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = (unsigned char)(i * 37 + 1);
  std::set<std::uint64_t> seen;
  for (std::size_t n = 0; n <= b.size(); ++n) seen.insert(gpumat::hash_bytes(b.data(), n, 0)); // prefixes (tail lengths 0..7)
  for (std::size_t i = 0; i < b.size(); ++i) {
    b[i] ^= 0x10;
    seen.insert(gpumat::hash_bytes(b.data(), b.size(), 0));
    b[i] ^= 0x10;
  }
  const std::vector<unsigned char> zeros(16, 0);
  for (std::size_t n = 0; n <= zeros.size(); ++n) seen.insert(gpumat::hash_bytes(zeros.data(), n, 12345));
  EXPECT_EQ(seen.size(), (b.size() + 1) + b.size() + (zeros.size() + 1));
  EXPECT_NE(gpumat::hash_bytes(b.data(), b.size(), 1), gpumat::hash_bytes(b.data(), b.size(), 2));
}

// Measures the fingerprint's throughput (run by hand: --gtest_also_run_disabled_tests).
TEST(Fingerprint, DISABLED_Throughput) {
  const std::size_t    nrows = 1000000, per_row = 100;
  std::vector<index_t> rowptr(nrows + 1), colidx(nrows * per_row);
  for (std::size_t i = 0; i <= nrows; ++i) rowptr[i] = index_t(i * per_row);
  for (std::size_t k = 0; k < colidx.size(); ++k) colidx[k] = index_t((k * 2654435761u) % nrows);
  double best = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    const auto          t0 = std::chrono::steady_clock::now();
    const std::uint64_t f  = gpumat::pattern_fingerprint(index_t(nrows), index_t(nrows), rowptr.data(), colidx.data());
    const double        s  = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best                   = std::min(best, s);
    EXPECT_NE(f, 0u);
  }
  const double bytes = 4.0 * double(rowptr.size() + colidx.size());
  std::printf("pattern_fingerprint: %.0f MB in %.4f s: %.2f GB/s\n", bytes / 1e6, best, bytes / best / 1e9);
}

// ---- the cache ------------------------------------------------------------------------------

class TuningCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "gpumat-tuning-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    root_ = tmpl;
    dir_  = (fs::path(root_) / "a" / "b").string(); // created by the first Store
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(root_, fs::perms::owner_all, fs::perm_options::add, ec);
    if (fs::exists(dir_)) fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(root_, ec);
  }
  static TuningKey Key() {
    const matgen::Csr M = matgen::stencil_2d(30, 20);
    return TuningKey::For(M.view(M.values<double>()), "NVIDIA H100 80GB HBM3 cc9.0 132sm", "bccoo", 1);
  }
  static TuningValues Values() { return {{"h", "2"}, {"w", "4"}, {"note", "a=b c"}, {"empty", ""}}; }
  static std::string Read(const std::string &path) {
    std::ifstream      in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }
  static void Write(const std::string &path, const std::string &s) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << s;
  }
  // Files in the directory besides the entries (temporary files left behind).
  std::vector<std::string> Strays() const {
    std::vector<std::string> v;
    for (const auto &e : fs::directory_iterator(dir_))
      if (e.path().extension() != ".tune") v.push_back(e.path().string());
    return v;
  }
  std::string root_, dir_;
};

TEST_F(TuningCacheTest, KeyOfAMatrix) {
  const TuningKey k = Key();
  EXPECT_EQ(k.nrows, 600);
  EXPECT_EQ(k.ncols, 600);
  EXPECT_EQ(k.nnz, 30 * 20 * 5 - 2 * 30 - 2 * 20);
  EXPECT_EQ(k.precision, "fp64");
  const matgen::Csr M = matgen::stencil_2d(30, 20);
  const TuningKey   f = TuningKey::For(M.view(M.values<float>()), k.device, "bccoo", 1);
  EXPECT_EQ(f.precision, "fp32");
  EXPECT_EQ(f.fingerprint, k.fingerprint);
  EXPECT_EQ(k.check(), "");
}

TEST_F(TuningCacheTest, StoreThenLookup) {
  TuningCache c(dir_);
  auto        miss = c.Lookup(Key());
  EXPECT_EQ(miss.status, TuningStatus::Miss) << miss.message;
  EXPECT_FALSE(miss.values);
  const auto st = c.Store(Key(), Values());
  ASSERT_TRUE(st.ok) << st.message;
  EXPECT_EQ(st.path, c.path(Key()));
  EXPECT_EQ(fs::path(st.path).parent_path(), fs::path(dir_));
  EXPECT_EQ(fs::path(st.path).filename().string().rfind("bccoo-", 0), 0u);
  const auto hit = c.Lookup(Key());
  ASSERT_EQ(hit.status, TuningStatus::Hit) << hit.message;
  ASSERT_TRUE(hit.values);
  EXPECT_EQ(*hit.values, Values());
  EXPECT_EQ(hit.path, st.path);
  EXPECT_TRUE(Strays().empty());
  // a new store replaces the entry; an empty set of values is a valid entry
  ASSERT_TRUE(c.Store(Key(), {{"h", "3"}}).ok);
  EXPECT_EQ(*c.Lookup(Key()).values, (TuningValues{{"h", "3"}}));
  ASSERT_TRUE(c.Store(Key(), {}).ok);
  const auto none = c.Lookup(Key());
  EXPECT_EQ(none.status, TuningStatus::Hit);
  EXPECT_TRUE(none.values && none.values->empty());
  // another cache object on the same directory (another run) sees it
  EXPECT_EQ(TuningCache(dir_).Lookup(Key()).status, TuningStatus::Hit);
  EXPECT_TRUE(Strays().empty());
}

TEST_F(TuningCacheTest, EveryPartOfTheKeyCounts) {
  TuningCache c(dir_);
  ASSERT_TRUE(c.Store(Key(), Values()).ok);
  std::vector<TuningKey> others(8, Key());
  others[0].device = "NVIDIA H200 cc9.0 132sm";
  others[1].precision = "fp32";
  others[2].format = "gpuauto";
  others[3].schema = 2;
  others[4].fingerprint ^= 1;
  others[5].nrows += 1;
  others[6].ncols += 1;
  others[7].nnz += 1;
  std::set<std::string> paths{c.path(Key())};
  for (const TuningKey &k : others) {
    const auto r = c.Lookup(k);
    EXPECT_EQ(r.status, TuningStatus::Miss) << k.text() << r.message;
    EXPECT_FALSE(r.values);
    paths.insert(c.path(k));
  }
  EXPECT_EQ(paths.size(), others.size() + 1);
  EXPECT_EQ(c.Lookup(Key()).status, TuningStatus::Hit);
}

TEST_F(TuningCacheTest, CutShortAtEveryLength) {
  TuningCache c(dir_);
  ASSERT_TRUE(c.Store(Key(), Values()).ok);
  const std::string path = c.path(Key()), whole = Read(path);
  ASSERT_GT(whole.size(), 100u);
  for (std::size_t n = 0; n < whole.size(); ++n) {
    Write(path, whole.substr(0, n));
    const auto r = c.Lookup(Key());
    ASSERT_EQ(r.status, TuningStatus::Invalid) << "cut at " << n;
    EXPECT_FALSE(r.values);
    EXPECT_NE(r.message.find(path), std::string::npos) << r.message;
  }
  Write(path, whole);
  EXPECT_EQ(c.Lookup(Key()).status, TuningStatus::Hit);
  // the cut after the last line loses the end line: said so
  Write(path, whole.substr(0, whole.rfind("end ")));
  EXPECT_NE(c.Lookup(Key()).message.find("cut short"), std::string::npos) << c.Lookup(Key()).message;
}

TEST_F(TuningCacheTest, DamagedEntries) {
  TuningCache c(dir_);
  ASSERT_TRUE(c.Store(Key(), Values()).ok);
  const std::string path = c.path(Key()), whole = Read(path);
  auto expect_invalid = [&](const std::string &content, const std::string &what) {
    Write(path, content);
    const auto r = c.Lookup(Key());
    EXPECT_EQ(r.status, TuningStatus::Invalid) << what;
    EXPECT_FALSE(r.values) << what;
    EXPECT_NE(r.message.find(path), std::string::npos) << what << ": " << r.message;
    return r.message;
  };
  EXPECT_NE(expect_invalid("hello world\n\x01\x02\xff garbage", "garbage").find("not a petsc-gpumat tuning entry"), std::string::npos);
  std::string bin(3000, '\0');
  for (std::size_t i = 0; i < bin.size(); ++i) bin[i] = char(i * 131 + 7);
  expect_invalid(bin, "binary");
  // every single byte changed in place (a value, a key line, the checksum, the header)
  for (std::size_t i = 0; i < whole.size(); ++i) {
    std::string s = whole;
    s[i]          = s[i] == 'x' ? 'y' : 'x';
    expect_invalid(s, "byte " + std::to_string(i));
  }
  std::string edited = whole;
  edited.replace(edited.find("h=2"), 3, "h=3");
  EXPECT_NE(expect_invalid(edited, "edited value").find("checksum"), std::string::npos);
  std::string newer = whole;
  newer.replace(0, newer.find('\n'), "petsc-gpumat tuning 99");
  EXPECT_NE(expect_invalid(newer, "other version").find("version '99'"), std::string::npos);
  expect_invalid(whole + "trailing\n", "data after the end line");
  // a directory where the entry should be
  fs::remove(path);
  fs::create_directory(path);
  const auto r = c.Lookup(Key());
  EXPECT_EQ(r.status, TuningStatus::Invalid);
  EXPECT_NE(r.message.find("not a regular file"), std::string::npos) << r.message;
  EXPECT_FALSE(c.Store(Key(), Values()).ok); // rename cannot replace a directory by a file
}

TEST_F(TuningCacheTest, AnotherKeyUnderTheSameName) {
  // two keys whose file names collide: simulated by copying one key's entry to the other's name
  TuningCache c(dir_);
  TuningKey   other = Key();
  other.schema      = 7;
  ASSERT_TRUE(c.Store(Key(), Values()).ok);
  fs::copy_file(c.path(Key()), c.path(other));
  const auto r = c.Lookup(other);
  EXPECT_EQ(r.status, TuningStatus::Miss) << r.message;
  EXPECT_FALSE(r.values);
  EXPECT_NE(r.message.find("another key"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find(c.path(other)), std::string::npos) << r.message;
  ASSERT_TRUE(c.Store(other, {{"x", "1"}}).ok); // replaces it
  EXPECT_EQ(*c.Lookup(other).values, (TuningValues{{"x", "1"}}));
  EXPECT_EQ(*c.Lookup(Key()).values, Values());
}

TEST_F(TuningCacheTest, StoreFailsWhereNoDirectoryCanBe) {
  // the directory would be below a regular file: fails for every user, root included
  const std::string file = (fs::path(root_) / "plain-file").string();
  Write(file, "x");
  TuningCache c((fs::path(file) / "tuning").string());
  const auto  st = c.Store(Key(), Values());
  EXPECT_FALSE(st.ok);
  EXPECT_NE(st.message.find(file), std::string::npos) << st.message;
  const auto r = c.Lookup(Key());
  EXPECT_EQ(r.status, TuningStatus::Miss) << r.message;
}

TEST_F(TuningCacheTest, StoreFailsInReadOnlyDirectory) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes into read-only directories (StoreFailsWhereNoDirectoryCanBe covers a failing store)";
  TuningCache c(dir_);
  ASSERT_TRUE(c.Store(Key(), Values()).ok);
  fs::permissions(dir_, fs::perms::owner_read | fs::perms::owner_exec);
  TuningKey other = Key();
  other.schema    = 2;
  const auto st   = c.Store(other, Values());
  EXPECT_FALSE(st.ok);
  EXPECT_NE(st.message.find(dir_), std::string::npos) << st.message;
  EXPECT_EQ(c.Lookup(Key()).status, TuningStatus::Hit); // still readable
  // and an unreadable entry is invalid, naming it
  fs::permissions(dir_, fs::perms::owner_all);
  fs::permissions(c.path(Key()), fs::perms::none);
  const auto r = c.Lookup(Key());
  EXPECT_EQ(r.status, TuningStatus::Invalid);
  EXPECT_NE(r.message.find(c.path(Key())), std::string::npos) << r.message;
}

TEST_F(TuningCacheTest, BadKeysAndValuesAreRefused) {
  TuningCache c(dir_);
  TuningKey   k = Key();
  k.format      = "../escape";
  EXPECT_NE(k.check(), "");
  EXPECT_EQ(c.path(k), "");
  EXPECT_EQ(c.Lookup(k).status, TuningStatus::Invalid);
  EXPECT_FALSE(c.Store(k, Values()).ok);
  k        = Key();
  k.device = "two\nlines";
  EXPECT_EQ(c.Lookup(k).status, TuningStatus::Invalid);
  EXPECT_FALSE(c.Store(k, Values()).ok);
  for (const TuningValues &bad : {TuningValues{{"", "1"}}, TuningValues{{"a=b", "1"}}, TuningValues{{"a", "1\n2"}}, TuningValues{{"a\n", "1"}}}) {
    const auto st = c.Store(Key(), bad);
    EXPECT_FALSE(st.ok);
    EXPECT_FALSE(st.message.empty());
  }
  EXPECT_EQ(c.Lookup(Key()).status, TuningStatus::Miss); // nothing was written
  // no directory at all: misses, and stores that say why
  TuningCache none("");
  EXPECT_EQ(none.Lookup(Key()).status, TuningStatus::Miss);
  EXPECT_FALSE(none.Store(Key(), Values()).ok);
}

TEST_F(TuningCacheTest, ConcurrentStoresOfOneKey) {
  TuningCache        c(dir_);
  const TuningValues a{{"h", "1"}, {"w", "1"}}, b{{"h", "4"}, {"w", "4"}, {"slices", "8"}};
  ASSERT_TRUE(c.Store(Key(), a).ok);
  std::atomic<bool> stop{false};
  std::atomic<int>  failed{0}, invalid{0}, other{0}, hits{0};
  auto writer = [&](const TuningValues &v) {
    for (int i = 0; i < 300; ++i)
      if (!c.Store(Key(), v).ok) ++failed;
  };
  std::thread reader([&] {
    while (!stop) {
      const auto r = c.Lookup(Key());
      if (r.status == TuningStatus::Invalid) ++invalid;
      else if (r.status != TuningStatus::Hit || !(*r.values == a || *r.values == b)) ++other;
      else ++hits;
    }
  });
  std::thread w1(writer, a), w2(writer, b);
  w1.join();
  w2.join();
  stop = true;
  reader.join();
  EXPECT_EQ(failed, 0);
  EXPECT_EQ(invalid, 0);
  EXPECT_EQ(other, 0);
  EXPECT_GT(hits, 0);
  const auto r = c.Lookup(Key());
  ASSERT_EQ(r.status, TuningStatus::Hit) << r.message;
  EXPECT_TRUE(*r.values == a || *r.values == b);
  EXPECT_TRUE(Strays().empty());
}

TEST(TuningDir, DefaultFromTheEnvironment) {
  const char *names[] = {"PETSC_GPUMAT_TUNING_DIR", "XDG_CACHE_HOME", "HOME"};
  std::string saved[3];
  bool        had[3];
  for (int i = 0; i < 3; ++i) {
    const char *v = std::getenv(names[i]);
    had[i]        = v != nullptr;
    saved[i]      = v ? v : "";
  }
  ::setenv("PETSC_GPUMAT_TUNING_DIR", "/x/own", 1);
  ::setenv("XDG_CACHE_HOME", "/x/xdg", 1);
  ::setenv("HOME", "/x/home", 1);
  EXPECT_EQ(gpumat::default_tuning_dir(), "/x/own");
  ::setenv("PETSC_GPUMAT_TUNING_DIR", "", 1);
  EXPECT_EQ(gpumat::default_tuning_dir(), "/x/xdg/petsc-gpumat/tuning");
  ::setenv("XDG_CACHE_HOME", "relative", 1); // ignored, as the XDG specification says
  EXPECT_EQ(gpumat::default_tuning_dir(), "/x/home/.cache/petsc-gpumat/tuning");
  ::unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(gpumat::default_tuning_dir(), "/x/home/.cache/petsc-gpumat/tuning");
  ::unsetenv("HOME");
  ::unsetenv("PETSC_GPUMAT_TUNING_DIR");
  EXPECT_EQ(gpumat::default_tuning_dir(), "");
  for (int i = 0; i < 3; ++i) {
    if (had[i]) ::setenv(names[i], saved[i].c_str(), 1);
    else ::unsetenv(names[i]);
  }
}

} // namespace
