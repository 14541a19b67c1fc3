// The formats of the CUDA unit tests, each described once: DeviceTraits<tag> extends the host
// FormatTraits (format_traits.hpp: variants, refresh cases, describe) with the device class and the
// variants its shared scenarios (test_formats_cuda.cu) run. Every format of StoredFormats needs a
// specialization (the primary template's static_assert).
#pragma once
#include "cuda/bccoo.cuh"
#include "cuda/bce.cuh"
#include "cuda/csrspec.cuh"
#include "cuda/cusparsebsr.cuh"
#include "cuda/cusparsecsr.cuh"
#include "cuda/cusparsesell.cuh"
#include "cuda/pjds.cuh"
#include "device_helpers.cuh"
#include "format_traits.hpp"

#include <gtest/gtest.h>

#include <cuda_runtime.h>
#include <string>
#include <vector>

namespace gpumat_test {

template <typename Tag> struct DeviceTraits {
  static_assert(kNoTraits<Tag>, "a format of src/formats.def has no DeviceTraits in tests/unit/format_traits_cuda.cuh");
};

// ---- the device layouts against the host builders' (also called by the formats' own tests) ----

// A failed cuSPARSE call, in words (empty when none failed).
template <typename Device> std::string cusparse_failure(const Device &D) {
  return D.failed_call() ? std::string(D.failed_call()) + ": " + D.failed_status() : std::string();
}

// bccoo: the device's arrays equal the host builder's (flags, values, column differences or
// columns, escapes, first segments, no-scan groups); p resolved.
template <typename T>
void check_bccoo_device_layout(const matgen::Csr &M, const std::vector<T> &vals, const gpumat::BccooParams &p, const gpumat::cuda::BccooDevice<T> &D) {
  gpumat::Bccoo<T> H, G;
  gpumat::bccoo_build(M.view(vals), p, H);
  ASSERT_EQ(cudaSuccess, D.download(G));
  const std::string where = M.name + " " + describe(p);
  EXPECT_EQ(G.nblocks, H.nblocks) << where;
  EXPECT_EQ(G.padded_blocks, H.padded_blocks) << where;
  EXPECT_EQ(G.pad_blocks, H.pad_blocks) << where;
  EXPECT_EQ(G.nsegments, H.nsegments) << where;
  EXPECT_EQ(G.p.slices, H.p.slices) << where;
  if (H.nblocks == 0) return;
  EXPECT_TRUE(G.flags == H.flags) << where << ": flags";
  EXPECT_TRUE(G.val == H.val) << where << ": values";
  EXPECT_TRUE(G.dcol == H.dcol) << where << ": column differences";
  EXPECT_TRUE(G.col == H.col) << where << ": columns";
  EXPECT_TRUE(G.escape == H.escape) << where << ": escapes";
  EXPECT_TRUE(G.escape_start == H.escape_start) << where << ": escape starts";
  EXPECT_TRUE(G.first_segment == H.first_segment) << where << ": first segments";
  EXPECT_TRUE(G.no_scan == H.no_scan) << where << ": no-scan groups";
  EXPECT_EQ(D.escapes(), std::int64_t(H.escape.size())) << where;
}

// pjds: order, lengths, block starts, columns (32-bit, dictionary or positional) and values with
// their padding (positional: the sentinel), the long part, the slot map, the padding and the bytes read equal the host
// builder's.
template <typename T>
void check_pjds_device_layout(const matgen::Csr &M, const std::vector<T> &vals, const gpumat::PjdsParams &p, const gpumat::cuda::PjdsDevice<T> &D,
                              const std::string &where) {
  gpumat::Pjds<T> H, G;
  gpumat::pjds_build(M.view(vals), p, H);
  ASSERT_EQ(cudaSuccess, D.download(G)) << where;
  EXPECT_EQ(G.p.block_rows, H.p.block_rows) << where;
  EXPECT_EQ(G.p.sigma, H.p.sigma) << where;
  EXPECT_EQ(G.p.long_row, H.p.long_row) << where;
  EXPECT_EQ(G.nrows_pj, H.nrows_pj) << where;
  EXPECT_TRUE(G.perm == H.perm) << where << ": order";
  EXPECT_TRUE(G.rowlen == H.rowlen) << where << ": lengths";
  EXPECT_TRUE(G.block_start == H.block_start) << where << ": block starts";
  EXPECT_TRUE(G.col == H.col) << where << ": columns";
  EXPECT_EQ(D.coded(), H.coded()) << where << ": dictionary columns as the host's";
  EXPECT_TRUE(G.code == H.code) << where << ": column codes";
  EXPECT_TRUE(G.dict == H.dict) << where << ": dictionaries";
  EXPECT_TRUE(G.dict_start == H.dict_start) << where << ": dictionary starts";
  EXPECT_EQ(D.positional(), H.positional()) << where << ": positional columns as the host's";
  EXPECT_TRUE(G.poff == H.poff) << where << ": positional offsets";
  EXPECT_TRUE(G.poff_start == H.poff_start) << where << ": positional offsets' starts";
  EXPECT_EQ(G.pgroup, H.pgroup) << where << ": positional group";
  EXPECT_EQ(D.group(), H.pgroup) << where;
  EXPECT_EQ(D.offset_entries(), std::int64_t(H.poff.size())) << where;
  EXPECT_EQ(G.positional_declined, H.positional_declined) << where << ": positional columns declined as by the host";
  EXPECT_EQ(D.positional_declined(), H.positional_declined) << where;
  EXPECT_EQ(D.table_in_use(), H.tabled()) << where << ": a value table as the host's";
  EXPECT_EQ(D.single(), H.single()) << where << ": fp32 storage as the host's";
  // bit for bit where not equal: the positional padding's sentinel (a NaN) included
  EXPECT_TRUE(gpumat_test::same_values(G.val32, H.val32)) << where << ": fp32 values";
  EXPECT_TRUE(gpumat_test::same_values(G.table, H.table)) << where << ": value table";
  EXPECT_TRUE(G.vcode == H.vcode) << where << ": value codes";
  EXPECT_TRUE(G.vcode16 == H.vcode16) << where << ": 16-bit value codes";
  EXPECT_TRUE(gpumat_test::same_values(G.val, H.val)) << where << ": values";
  EXPECT_TRUE(G.long_rows == H.long_rows) << where << ": long rows";
  EXPECT_TRUE(G.long_ptr == H.long_ptr) << where << ": long row pointer";
  EXPECT_TRUE(G.long_col == H.long_col) << where << ": long columns";
  EXPECT_TRUE(G.long_val == H.long_val) << where << ": long values";
  EXPECT_TRUE(G.slot == H.slot) << where << ": slots";
  EXPECT_EQ(D.padding(), H.padding()) << where;
  EXPECT_EQ(D.format_bytes(), H.bytes() - (D.reads_rowlen() ? 0 : H.rowlen.size() * sizeof(gpumat::index_t)))
      << where << ": bytes (rowlen read: " << D.reads_rowlen() << ")";
}

// bce: the partition, groups, row order, columns and values with their padding, the long part, the
// slot map, the padding and the bytes equal the host builder's.
template <typename T>
void check_bce_device_layout(const matgen::Csr &M, const std::vector<T> &vals, const gpumat::BceParams &p, const gpumat::cuda::BceDevice<T> &D,
                             const std::string &where) {
  gpumat::Bce<T> H, G;
  gpumat::bce_build(M.view(vals), p, H);
  ASSERT_EQ(cudaSuccess, D.download(G)) << where;
  EXPECT_EQ(G.p.long_row, H.p.long_row) << where;
  EXPECT_EQ(G.p.group_cost, H.p.group_cost) << where;
  EXPECT_EQ(G.sets_before_merge, H.sets_before_merge) << where;
  EXPECT_EQ(G.sets, H.sets) << where;
  EXPECT_EQ(G.p.window, H.p.window) << where;
  EXPECT_TRUE(G.group_width == H.group_width) << where << ": the partition";
  EXPECT_TRUE(G.width == H.width) << where << ": widths";
  EXPECT_TRUE(G.rows == H.rows) << where << ": rows";
  EXPECT_TRUE(G.pos == H.pos) << where << ": positions";
  EXPECT_TRUE(G.start == H.start) << where << ": starts";
  EXPECT_TRUE(G.row_no == H.row_no) << where << ": order";
  EXPECT_TRUE(G.col == H.col) << where << ": columns";
  EXPECT_TRUE(G.val == H.val) << where << ": values";
  EXPECT_TRUE(G.long_rows == H.long_rows) << where << ": long rows";
  EXPECT_TRUE(G.long_ptr == H.long_ptr) << where << ": long row pointer";
  EXPECT_TRUE(G.long_col == H.long_col) << where << ": long columns";
  EXPECT_TRUE(G.long_val == H.long_val) << where << ": long values";
  EXPECT_TRUE(G.slot == H.slot) << where << ": slots";
  EXPECT_EQ(D.padding(), H.padding()) << where;
  EXPECT_EQ(D.format_bytes(), H.bytes()) << where << ": bytes";
}

// cusparsesell: the layout built on the GPU is the host builder's (slice offsets, column indices,
// slot map, values, padded size).
template <typename T>
void check_sell_device_layout(const matgen::Csr &M, const std::vector<T> &vals, int S, const gpumat::cuda::SellDevice<T> &D, const std::string &what) {
  gpumat::SellHost<T> H;
  H.build(M.view(vals), S);
  gpumat::SellLayout L;
  std::vector<T>     dv;
  ASSERT_EQ(cudaSuccess, D.download(L, dv)) << what;
  EXPECT_EQ(L.slice_offsets, H.layout().slice_offsets) << what;
  EXPECT_EQ(L.colidx, H.layout().colidx) << what;
  EXPECT_EQ(L.slot, H.layout().slot) << what;
  EXPECT_EQ(dv, H.values()) << what;
  EXPECT_EQ(D.padded(), H.layout().padded()) << what;
}

// cusparsebsr: the layout built on the GPU is the host builder's (block row pointer, block columns,
// slot map, values); padded copies of x and y exactly where bs does not divide the columns or rows.
template <typename T>
void check_bsr_device_layout(const matgen::Csr &M, const std::vector<T> &vals, int bs, bool row_major, const gpumat::cuda::BsrDevice<T> &D,
                             const std::string &what) {
  gpumat::BsrHost<T> H;
  H.build(M.view(vals), bs, row_major);
  gpumat::BsrLayout L;
  std::vector<T>    dv;
  ASSERT_EQ(cudaSuccess, D.download(L, dv)) << what;
  EXPECT_EQ(L.rowptr, H.layout().rowptr) << what;
  EXPECT_EQ(L.colidx, H.layout().colidx) << what;
  EXPECT_EQ(L.slot, H.layout().slot) << what;
  EXPECT_EQ(dv, H.values()) << what;
  EXPECT_EQ(D.padded_x(), M.nnz() > 0 && M.ncols % bs != 0) << what;
  EXPECT_EQ(D.padded_y(), M.nnz() > 0 && M.nrows % bs != 0) << what;
}

// cusparsecsr: the arrays stored are the CSR as given, the algorithm and bytes as built, and
// cuSPARSE's products (no z, z, y aliasing z) agree with the host reference csr_apply on the same
// inputs, relative to sum |a||x| (+ |z|) of each entry.
template <typename T>
void check_csr_device_arrays(const matgen::Csr &M, const std::vector<T> &vals, int alg, const gpumat::cuda::CusparseCsrDevice<T> &D, cudaStream_t s,
                             const std::string &what) {
  EXPECT_EQ(D.alg(), alg) << what;
  std::vector<gpumat::index_t> rp, ci;
  std::vector<T>               dv;
  ASSERT_EQ(cudaSuccess, D.download(rp, ci, dv)) << what;
  if (M.nrows > 0) EXPECT_EQ(rp, M.rowptr) << what;
  else EXPECT_TRUE(rp.empty()) << what;
  EXPECT_EQ(ci, M.colidx) << what;
  EXPECT_EQ(dv, vals) << what;
  EXPECT_EQ(D.device_bytes(), M.nrows > 0 ? gpumat::csr_bytes(M.nrows, M.nnz(), sizeof(T)) + D.buffer_bytes() : 0u) << what;
  const std::vector<T> x = matgen::random_vector<T>(std::size_t(M.ncols), 101);
  const std::vector<T> z = matgen::random_vector<T>(std::size_t(M.nrows), 202);
  for (ZMode zm : {ZMode::None, ZMode::Separate, ZMode::Alias}) {
    const T                 *zh = zm == ZMode::None ? nullptr : z.data();
    const std::vector<T>     y  = device_apply(D, gpumat::Op::NoTrans, x, z, zm, s);
    std::vector<T>           h(std::size_t(M.nrows));
    gpumat::csr_apply(M.view(vals), gpumat::Op::NoTrans, x.data(), zh, h.data());
    std::vector<long double> ref, scale, href(h.begin(), h.end());
    matgen::reference(M, vals, false, x.data(), zh, ref, scale);
    ASSERT_EQ(matgen::mismatch(y, href, scale, tolerance<T>()), "") << what << " z mode " << int(zm) << " (against csr_apply)";
  }
}

// ---- the formats ----------------------------------------------------------------------------
// Each specialization adds to its FormatTraits:
//   transpose                   whether the device class multiplies by A^T (else apply(Op::Trans)
//                               returns cudaErrorNotSupported: the machinery falls back)
//   device_csr_build            whether Device<T> also builds from a CSR already on the device
//                               (build(DeviceCsrView, v, s): a device product's result, no upload)
//   variants<T>(), matrices(v)  the device products' variants and matrices (where they differ
//                               from the host's)
//   default_variants<T>()       the variants of the empty and small, large and release scenarios
//   diagonal_variants()         the variants of the diagonal
//   invalid_variants()          variants build refuses (cudaErrorInvalidValue, nothing held)
//   Device<T>                   the device class, with build(A, v, s) for a Variant, and:
//                                 failure()  why a build failed, in words
//                                 check(M, vals, v, s, where)  the layout against the host builder's
//                                 stored(parts, s)  what a refresh must leave as a rebuild does
// The device class's own refresh(val, s, Mem), apply, diagonal, device_bytes and release are used
// as they are.

template <> struct DeviceTraits<fmt::csrspec> : FormatTraits<fmt::csrspec> {
  static constexpr bool transpose        = true;
  static constexpr bool device_csr_build = true;
  // The host's sets plus the other compile-time W (4) and a 512-thread block whose shared memory
  // needs the opt-in; resolved for the precision.
  template <typename T> static std::vector<Variant> variants() {
    std::vector<Variant> v = FormatTraits<fmt::csrspec>::variants<T>();
    for (const Variant &p : {params(4, 8, 2), params(16, 16, 1)}) v.push_back(gpumat::csrspec_resolve<T>(p));
    return v;
  }
  static std::vector<Variant> diagonal_variants() { return {Variant{}}; }
  static std::vector<Variant> invalid_variants() { return {params(65, 1, 1)}; }
  template <typename T> class Device : public gpumat::cuda::CsrSpecDevice<T> {
  public:
    cudaError_t build(const gpumat::CsrView<T> &A, const Variant &p, cudaStream_t s) {
      nrows_ = A.nrows, ncols_ = A.ncols;
      return gpumat::cuda::CsrSpecDevice<T>::build(A, p, s);
    }
    cudaError_t build(const gpumat::cuda::DeviceCsrView<T> &A, const Variant &p, cudaStream_t s) {
      nrows_ = A.nrows, ncols_ = A.ncols;
      return gpumat::cuda::CsrSpecDevice<T>::build(A, p, s);
    }
    std::string failure() const { return {}; }
    void        check(const matgen::Csr &, const std::vector<T> &, const Variant &, cudaStream_t, const std::string &) const {}
    // No download: the product y = A x with a fixed x, bit for bit (the product adds in a fixed
    // order; test_csrspec_cuda.cu's DeviceDeterminism).
    cudaError_t stored(std::vector<std::vector<T>> &parts, cudaStream_t s) const {
      const std::vector<T> x = matgen::random_vector<T>(std::size_t(ncols_), 8);
      cudaError_t          err = cudaSuccess;
      parts                    = {device_apply(*this, gpumat::Op::NoTrans, x, std::vector<T>(std::size_t(nrows_)), ZMode::None, s, &err)};
      return err;
    }

  private:
    gpumat::index_t nrows_ = 0, ncols_ = 0;
  };
};

template <> struct DeviceTraits<fmt::bccoo> : FormatTraits<fmt::bccoo> {
  static constexpr bool transpose        = true;
  static constexpr bool device_csr_build = true;
  static std::vector<Variant> diagonal_variants() { return {bp(1, 1, 1, 16, 256, 1), bp(3, 2, 4, 8, 32, 1), bp(4, 4, 1, 24, 64, 0)}; }
  // None: the device build takes resolved parameters (the adapter validates them by bccoo_resolve).
  static std::vector<Variant> invalid_variants() { return {}; }
  template <typename T> class Device : public gpumat::cuda::BccooDevice<T> {
  public:
    cudaError_t build(const gpumat::CsrView<T> &A, const Variant &p, cudaStream_t s) { return gpumat::cuda::BccooDevice<T>::build(A, gpumat::bccoo_resolve(p), s); }
    cudaError_t build(const gpumat::cuda::DeviceCsrView<T> &A, const Variant &p, cudaStream_t s) {
      return gpumat::cuda::BccooDevice<T>::build(A, gpumat::bccoo_resolve(p), s);
    }
    std::string failure() const { return this->why(); }
    void        check(const matgen::Csr &M, const std::vector<T> &vals, const Variant &p, cudaStream_t, const std::string &) const {
      check_bccoo_device_layout(M, vals, gpumat::bccoo_resolve(p), *this);
    }
    cudaError_t stored(std::vector<std::vector<T>> &parts, cudaStream_t) const {
      gpumat::Bccoo<T>  B;
      const cudaError_t err = this->download(B);
      parts                 = {B.val};
      return err;
    }
  };
};

template <> struct DeviceTraits<fmt::pjds> : FormatTraits<fmt::pjds> {
  static constexpr bool transpose        = true;
  static constexpr bool device_csr_build = true; // build(DeviceCsrView, ...) among the class's own
  static std::vector<Variant> diagonal_variants() { return {pp(32, 1, 0), pp(4, gpumat::pjds_all_rows, 16)}; }
  static std::vector<Variant> invalid_variants() { return {pp(gpumat::pjds_max_block_rows + 1, 1, 0)}; }
  template <typename T> class Device : public gpumat::cuda::PjdsDevice<T> {
  public:
    using gpumat::cuda::PjdsDevice<T>::build;
    std::string failure() const { return this->why(); }
    void        check(const matgen::Csr &M, const std::vector<T> &vals, const Variant &p, cudaStream_t, const std::string &where) const {
      check_pjds_device_layout(M, vals, p, *this, where);
    }
    cudaError_t stored(std::vector<std::vector<T>> &parts, cudaStream_t) const {
      gpumat::Pjds<T>   B;
      const cudaError_t err = this->download(B);
      parts                 = {B.val, B.long_val};
      return err;
    }
  };
};

template <> struct DeviceTraits<fmt::bce> : FormatTraits<fmt::bce> {
  static constexpr bool transpose        = true;
  static constexpr bool device_csr_build = true; // build(DeviceCsrView, ...) among the class's own
  static std::vector<Variant> diagonal_variants() { return {Variant{}, bp(16, 0, 0)}; }
  static std::vector<Variant> invalid_variants() { return {bp(0, 0, 1), bp(-3, 0, 0)}; }
  template <typename T> class Device : public gpumat::cuda::BceDevice<T> {
  public:
    using gpumat::cuda::BceDevice<T>::build;
    std::string failure() const { return this->why(); }
    void        check(const matgen::Csr &M, const std::vector<T> &vals, const Variant &p, cudaStream_t, const std::string &where) const {
      check_bce_device_layout(M, vals, p, *this, where);
    }
    cudaError_t stored(std::vector<std::vector<T>> &parts, cudaStream_t) const {
      gpumat::Bce<T>    B;
      const cudaError_t err = this->download(B);
      parts                 = {B.val, B.long_val};
      return err;
    }
  };
};

template <> struct DeviceTraits<fmt::cusparsesell> : FormatTraits<fmt::cusparsesell> {
  static constexpr bool transpose        = false;
  static constexpr bool device_csr_build = false;
  // Every slice size tested must be accepted by cuSPARSE: a failure names the cuSPARSE call and
  // status (then narrow sell_max_slice / sell_min_slice).
  template <typename T> static std::vector<Variant> variants() { return {1, 2, 3, 7, 16, 32, 64, 128, 1024}; }
  static const std::vector<matgen::Csr> &matrices(int) { return matgen::standard_set_cached(512); }
  static std::vector<Variant> diagonal_variants() { return {1, 5, 32}; }
  static std::vector<Variant> invalid_variants() { return {0, gpumat::sell_max_slice + 1}; }
  template <typename T> class Device : public gpumat::cuda::SellDevice<T> {
  public:
    using gpumat::cuda::SellDevice<T>::build;
    std::string failure() const { return cusparse_failure(*this); }
    void        check(const matgen::Csr &M, const std::vector<T> &vals, int S, cudaStream_t, const std::string &where) const {
      check_sell_device_layout(M, vals, S, *this, where);
    }
    cudaError_t stored(std::vector<std::vector<T>> &parts, cudaStream_t) const {
      gpumat::SellLayout L;
      parts.assign(1, {});
      return this->download(L, parts[0]);
    }
  };
};

template <> struct DeviceTraits<fmt::cusparsecsr> : FormatTraits<fmt::cusparsecsr> {
  static constexpr bool transpose        = false;
  static constexpr bool device_csr_build = false;
  template <typename T> static std::vector<Variant> variants() { return {1, 2}; }
  template <typename T> static std::vector<Variant> default_variants() { return {1, 2}; }
  static const std::vector<matgen::Csr> &matrices(int) { return matgen::standard_set_cached(512); }
  static std::vector<Variant> diagonal_variants() { return {1, 2}; }
  static std::vector<Variant> invalid_variants() { return {0, 3, -1}; }
  template <typename T> class Device : public gpumat::cuda::CusparseCsrDevice<T> {
  public:
    using gpumat::cuda::CusparseCsrDevice<T>::build;
    std::string failure() const { return cusparse_failure(*this); }
    void        check(const matgen::Csr &M, const std::vector<T> &vals, int alg, cudaStream_t s, const std::string &where) const {
      check_csr_device_arrays(M, vals, alg, *this, s, where);
    }
    cudaError_t stored(std::vector<std::vector<T>> &parts, cudaStream_t) const {
      std::vector<gpumat::index_t> rp, ci;
      parts.assign(1, {});
      return this->download(rp, ci, parts[0]);
    }
  };
};

template <> struct DeviceTraits<fmt::cusparsebsr> : FormatTraits<fmt::cusparsebsr> {
  static constexpr bool transpose        = false;
  static constexpr bool device_csr_build = false;
  static const std::vector<matgen::Csr> &matrices(const Variant &) { return matgen::standard_set_cached(512); }
  static std::vector<Variant> diagonal_variants() { return {{2, false}, {2, true}, {3, false}, {3, true}}; }
  static std::vector<Variant> invalid_variants() { return {{1, false}, {gpumat::bsr_max_bs + 1, false}}; }
  template <typename T> class Device : public gpumat::cuda::BsrDevice<T> {
  public:
    cudaError_t build(const gpumat::CsrView<T> &A, const Variant &v, cudaStream_t s) { return gpumat::cuda::BsrDevice<T>::build(A, v.bs, v.row_major, s); }
    std::string failure() const { return cusparse_failure(*this); }
    void        check(const matgen::Csr &M, const std::vector<T> &vals, const Variant &v, cudaStream_t, const std::string &where) const {
      check_bsr_device_layout(M, vals, v.bs, v.row_major, *this, where);
    }
    cudaError_t stored(std::vector<std::vector<T>> &parts, cudaStream_t) const {
      gpumat::BsrLayout L;
      parts.assign(1, {});
      return this->download(L, parts[0]);
    }
  };
};

} // namespace gpumat_test
