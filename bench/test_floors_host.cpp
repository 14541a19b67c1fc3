// The host side of the bccoo floors (bench/floors_bccoo.hpp, bench/floors.cu): what they build, the
// bytes they move (Bccoo::bytes() + x + y, the uploaded arrays adding up to Bccoo::bytes()), the
// positions their kernels read (the offline transpose) and the block columns their gather kernel
// must decompress (the reference of its device check) against the layout's, and -floor_bccoo; the
// footprint per format (-footprint, bench/footprint.cpp) on matrices counted by hand. PETSc-free,
// no GPU.
#include "ablation.h"
#include "floors_bccoo.hpp"
#include "matgen.hpp"
#include "core/pjds.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>

using gpumat::Bccoo;
using gpumat::index_t;

namespace {

BenchBccooParams params(int h, int w, int slices, int tile, int group, int compress) {
  BenchBccooParams p{};
  p.h = h, p.w = w, p.slices = slices, p.tile = tile, p.group = group, p.compress = compress;
  return p;
}

gpumat_floors::BccooPlan plan_of(const matgen::Csr &M, const std::vector<double> &v, const BenchBccooParams &p) {
  gpumat_floors::BccooPlan plan;
  gpumat_floors::bccoo_plan(M.view(v), p, plan);
  return plan;
}

// Bytes, arrays and columns of one plan.
void check_plan(const matgen::Csr &M, const gpumat_floors::BccooPlan &plan, const std::string &where) {
  const Bccoo<double>  &B = plan.B;
  const BenchBccooInfo &I = plan.info;
  EXPECT_EQ(I.format_bytes, double(B.bytes())) << where;
  EXPECT_EQ(I.bytes, double(B.bytes()) + 8.0 * M.ncols + 8.0 * M.nrows) << where;
  std::size_t sum = 0;
  for (const auto &a : gpumat_floors::bccoo_arrays(B)) sum += a.bytes;
  EXPECT_EQ(sum, B.bytes()) << where << ": the uploaded arrays are not what Bccoo::bytes() counts";
  EXPECT_EQ(I.padded, B.padded_blocks) << where;
  EXPECT_EQ(I.stored, B.nblocks) << where;
  EXPECT_EQ(I.blocks, B.nblocks - B.pad_blocks) << where;
  EXPECT_EQ(I.tiles, B.thread_tiles()) << where;
  EXPECT_EQ(I.escapes, (long long)B.escape.size()) << where;
  // the kernels' assumptions: whole flag words, whole bytes of flags per thread tile
  EXPECT_EQ(B.padded_blocks % 32, 0) << where;
  EXPECT_EQ(B.p.tile % 8, 0) << where;
  EXPECT_EQ(B.flags.size() % 4, 0u) << where;
  const std::vector<index_t> ref = gpumat_floors::bccoo_columns(B);
  ASSERT_EQ(ref.size(), std::size_t(B.padded_blocks)) << where;
  for (std::int64_t k = 0; k < B.padded_blocks; ++k) {
    const std::int64_t t = k / B.p.tile;
    const int          j = int(k % B.p.tile);
    ASSERT_EQ(gpumat_floors::bccoo_floor_pos(t, j, B.p.tile, B.p.group), B.phys(k)) << where << ": block " << k;
    ASSERT_EQ(ref[std::size_t(k)], B.block_col(k)) << where << ": block " << k << " (tile " << t << ")";
  }
}

} // namespace

TEST(FloorsBccoo, BytesArraysAndColumns) {
  const std::vector<matgen::Csr> mats = {matgen::random_rows("random", 2000, 1800, 0, 12, 0.1, 101), matgen::stencil_2d(50, 30),
                                         matgen::random_rows("wide_200k", 1500, 200000, 1, 40, 0.05, 102), // escapes
                                         matgen::power_law(3000, 3000, 1.5, 1.0, 400, 103), matgen::no_nonzeros("empty", 37, 11)};
  const int rest[][4] = {{1, 16, 256, 1}, {1, 16, 256, 0}, {3, 8, 32, 1}, {1, 24, 64, 1}, {2, 64, 32, 1}, {1, 40, 32, 0}, {4, 128, 32, 1}, {1, 32, 32, 1}, {1, 8, 96, 1}};
  for (const matgen::Csr &M : mats) {
    const std::vector<double> v = M.values<double>();
    for (int h = 1; h <= 4; ++h)
      for (int w : {1, 2, 4})
        for (const auto &q : rest) {
          const BenchBccooParams p     = params(h, w, q[0], q[1], q[2], q[3]);
          const std::string      where = M.name + " " + std::to_string(h) + "x" + std::to_string(w) + " slices " + std::to_string(q[0]) + " tile " +
                                    std::to_string(q[1]) + " group " + std::to_string(q[2]) + " compress " + std::to_string(q[3]);
          const gpumat_floors::BccooPlan plan = plan_of(M, v, p);
          EXPECT_EQ(plan.info.chosen, 0) << where;
          check_plan(M, plan, where);
        }
  }
  // escapes do occur where the floors are checked
  const matgen::Csr         W = mats[2];
  const std::vector<double> v = W.values<double>();
  EXPECT_GT(plan_of(W, v, params(1, 1, 1, 16, 256, 1)).info.escapes, 0);
}

TEST(FloorsBccoo, DefaultsAreTheByteModelsFirstShape) {
  for (const matgen::Csr &M : {matgen::random_rows("random", 3000, 2500, 0, 20, 0.1, 104), matgen::stencil_2d(60, 40)}) {
    const std::vector<double> v = M.values<double>();
    BenchBccooParams          p{};
    p.compress                          = -1;
    const gpumat_floors::BccooPlan plan = plan_of(M, v, p);
    const auto                     best = gpumat::bccoo_shapes(M.view(v)).front();
    EXPECT_EQ(plan.info.p.h, best.h) << M.name;
    EXPECT_EQ(plan.info.p.w, best.w) << M.name;
    EXPECT_EQ(plan.info.chosen, 1) << M.name;
    EXPECT_EQ(plan.info.p.slices, 1);
    EXPECT_EQ(plan.info.p.tile, 16);
    EXPECT_EQ(plan.info.p.group, 256);
    EXPECT_EQ(plan.info.p.compress, 1);
    EXPECT_EQ(plan.info.blocks, best.blocks) << M.name;
    check_plan(M, plan, M.name + " defaults");
  }
  // the block size breaks ties towards the matrix's own blocks (a 3-dof block pattern)
  matgen::Csr M;
  M.name  = "dof3_blocks";
  M.nrows = M.ncols = 3 * 500;
  for (index_t r = 0; r < M.nrows; ++r) {
    const index_t b = r / 3;
    for (index_t nb : {b - 5, b, b + 5})
      if (nb >= 0 && nb < 500)
        for (index_t j = 0; j < 3; ++j) M.colidx.push_back(3 * nb + j);
    M.rowptr.push_back(index_t(M.colidx.size()));
  }
  M.val.assign(M.colidx.size(), 1.0);
  const std::vector<double> v = M.values<double>();
  BenchBccooParams          p{};
  p.block_size = 3;
  const auto best = gpumat::bccoo_shapes(M.view(v), 3).front();
  EXPECT_EQ(plan_of(M, v, p).info.p.h, best.h);
  EXPECT_EQ(plan_of(M, v, p).info.p.w, best.w);
  EXPECT_EQ(best.h, 3);
}

// model: the parameters the bccoo type chooses by default (bccoo_model), user parameters kept.
TEST(FloorsBccoo, ModelIsTheTypesChoice) {
  for (const matgen::Csr &M : {matgen::random_rows("wide_200k", 1500, 200000, 1, 40, 0.05, 106), matgen::stencil_2d(60, 40)}) {
    const std::vector<double> v = M.values<double>();
    BenchBccooParams          p = params(0, 0, 0, 0, 0, -1);
    p.model                     = 1;
    const auto plan             = plan_of(M, v, p);
    const gpumat::BccooParams q = gpumat::bccoo_model(M.view(v), gpumat::BccooParams{}, 1).p;
    EXPECT_EQ(plan.info.chosen, 2) << M.name;
    EXPECT_EQ(plan.info.p.h, q.h) << M.name;
    EXPECT_EQ(plan.info.p.w, q.w) << M.name;
    EXPECT_EQ(plan.info.p.compress, q.compress_col) << M.name;
    EXPECT_EQ(plan.info.p.tile, q.tile) << M.name;
    check_plan(M, plan, M.name + " model");
    p.tile = 32;
    EXPECT_EQ(plan_of(M, v, p).info.p.tile, 32) << M.name;
  }
}

TEST(FloorsBccoo, BadParametersThrow) {
  const matgen::Csr         M = matgen::random_rows("random", 100, 100, 0, 5, 0.1, 105);
  const std::vector<double> v = M.values<double>();
  gpumat_floors::BccooPlan  plan;
  EXPECT_THROW(gpumat_floors::bccoo_plan(M.view(v), params(0, 0, 1, 200, 256, 1), plan), std::invalid_argument); // before the shapes
  EXPECT_THROW(gpumat_floors::bccoo_plan(M.view(v), params(3, 3, 1, 16, 256, 1), plan), std::invalid_argument);
}

TEST(FloorsBccoo, Option) {
  BenchBccooParams p;
  int              on;
  char             err[256] = "";
  ASSERT_EQ(BenchBccooParse("", &p, &on, err, sizeof(err)), 0) << err;
  EXPECT_EQ(on, 1);
  EXPECT_EQ(p.model, 1); // the default: the type's own choice
  EXPECT_EQ(p.h, 0);
  EXPECT_EQ(p.w, 0);
  EXPECT_EQ(p.compress, -1);
  ASSERT_EQ(BenchBccooParse("off", &p, &on, err, sizeof(err)), 0) << err;
  EXPECT_EQ(on, 0);
  ASSERT_EQ(BenchBccooParse("3,2", &p, &on, err, sizeof(err)), 0) << err;
  EXPECT_EQ(on, 1);
  EXPECT_EQ(p.h, 3);
  EXPECT_EQ(p.w, 2);
  EXPECT_EQ(p.slices, 0);
  EXPECT_EQ(p.tile, 0);
  EXPECT_EQ(p.compress, -1);
  ASSERT_EQ(BenchBccooParse("model", &p, &on, err, sizeof(err)), 0) << err;
  EXPECT_EQ(p.model, 1);
  EXPECT_EQ(p.h, 0);
  ASSERT_EQ(BenchBccooParse("model,0,0,0,32", &p, &on, err, sizeof(err)), 0) << err;
  EXPECT_EQ(p.model, 1);
  EXPECT_EQ(p.tile, 32);
  ASSERT_EQ(BenchBccooParse("0,0,4,8,64,0", &p, &on, err, sizeof(err)), 0) << err;
  EXPECT_EQ(p.model, 0);
  EXPECT_EQ(p.h, 0);
  EXPECT_EQ(p.slices, 4);
  EXPECT_EQ(p.tile, 8);
  EXPECT_EQ(p.group, 64);
  EXPECT_EQ(p.compress, 0);
  for (const char *bad : {"5,1", "1,3", "1,1,33", "1,1,1,129", "1,1,1,12", "1,1,1,16,48", "1,1,1,16,256,2", "a", "1,", "1,,2", "1,1,1,8,32,1,1", "2x2", "model,", "models", "model,5"}) {
    err[0] = 0;
    EXPECT_EQ(BenchBccooParse(bad, &p, &on, err, sizeof(err)), 1) << bad;
    EXPECT_NE(std::string(err).find("-floor_bccoo '"), std::string::npos) << bad << ": " << err;
  }
  BenchBccooParse("5,1", &p, &on, err, sizeof(err));
  EXPECT_NE(std::string(err).find("block height must be in [1,4]"), std::string::npos) << err;
}

TEST(FloorsBccoo, Describe) {
  const matgen::Csr         M    = matgen::stencil_2d(20, 20);
  const std::vector<double> v    = M.values<double>();
  const auto                plan = plan_of(M, v, params(2, 2, 1, 16, 256, 1));
  char                      buf[512];
  BenchBccooDescribe(&plan.info, buf, sizeof(buf));
  const std::string s = buf;
  EXPECT_NE(s.find("bccoo 2x2, slices 1, tile 16, group 256, 16-bit columns"), std::string::npos) << s;
  EXPECT_NE(s.find(" MB = format "), std::string::npos) << s;
}

// -footprint (bench/ablation.h): the bytes of the matrix data per format.
namespace {

BenchFootprint footprint_of(const matgen::Csr &M, const BenchBccooParams &p) {
  const std::vector<double> v = M.values<double>();
  BenchFootprint            f;
  char                      err[256] = "";
  EXPECT_EQ(BenchFootprintCompute(M.nrows, M.ncols, M.nnz(), M.rowptr.data(), M.colidx.data(), v.data(), &p, &f, err, sizeof(err)), 0) << M.name << ": " << err;
  return f;
}

} // namespace

// The paper's matrix A (its Eq. 1: 4 x 8, 16 nonzeros; Figure 3: five 2 x 2 blocks), by hand.
TEST(Footprint, PaperMatrixByHand) {
  matgen::Csr A;
  A.name  = "yaspmv_eq1";
  A.nrows = 4;
  A.ncols = 8;
  for (const std::vector<index_t> &row : std::vector<std::vector<index_t>>{{2, 6, 7}, {2, 3, 6}, {4, 5, 6, 7}, {0, 1, 4, 5, 6, 7}}) {
    A.colidx.insert(A.colidx.end(), row.begin(), row.end());
    A.rowptr.push_back(index_t(A.colidx.size()));
  }
  A.val.assign(A.colidx.size(), 1.5);
  const BenchFootprint f = footprint_of(A, params(2, 2, 1, 8, 32, 1));
  EXPECT_EQ(f.csr, 12.0 * 16 + 4.0 * 5); // 212
  EXPECT_EQ(f.coo, 16.0 * 16);           // 256
  EXPECT_EQ(f.ell_width, 6);             // row 3: k l m n o p
  EXPECT_EQ(f.ell, 12.0 * 4 * 6);        // 288
  // 5 blocks padded to one work-group tile of 32 threads x 8 blocks = 256 blocks: flags 256 / 8, values
  // 2 planes x 256 x 2 x 8 B, 16-bit differences 256 x 2 B (no escapes), escape_start and
  // first_segment 32 tiles x 4 B each, no_scan 1 group x 1 B
  EXPECT_EQ(f.info.stored, 5);
  EXPECT_EQ(f.info.padded, 256);
  EXPECT_EQ(f.info.escapes, 0);
  EXPECT_EQ(f.bccoo, 32.0 + 8192 + 512 + 128 + 128 + 1);  // 8993
  EXPECT_EQ(f.bccoo32, 32.0 + 8192 + 1024 + 128 + 1);     // 9377: 32-bit columns, no escape_start
  EXPECT_EQ(f.info32.p.compress, 0);
  EXPECT_EQ(f.info32.p.h, 2);
  EXPECT_EQ(f.info32.p.tile, 8);
}

// A 2D 5-point Laplacian on 64 x 64 (20,224 nonzeros), 1 x 1 blocks, tile 16, group 256, by hand.
TEST(Footprint, StencilByHand) {
  const matgen::Csr    M = matgen::stencil_2d(64, 64);
  const BenchFootprint f = footprint_of(M, params(1, 1, 1, 16, 256, 1));
  ASSERT_EQ(M.nnz(), 5 * 4096 - 4 * 64);
  EXPECT_EQ(f.csr, 12.0 * 20224 + 4.0 * 4097);  // 259076
  EXPECT_EQ(f.coo, 16.0 * 20224);               // 323584
  EXPECT_EQ(f.ell, 12.0 * 4096 * 5);            // 245760
  // 20224 blocks padded to 5 work-group tiles of 4096: 1280 thread tiles; differences within
  // +-64 of the tile base (the diagonal): no escapes
  EXPECT_EQ(f.info.padded, 20480);
  EXPECT_EQ(f.info.escapes, 0);
  EXPECT_EQ(f.bccoo, 2560.0 + 163840 + 40960 + 5120 + 5120 + 5); // 217605
  EXPECT_EQ(f.bccoo32, 2560.0 + 163840 + 81920 + 5120 + 5);      // 253445
}

// The default parameters are the type's (bccoo_model); empty rows, escapes; an empty matrix.
TEST(Footprint, ModelAndEdgeCases) {
  BenchBccooParams p;
  int              on;
  char             err[256] = "";
  ASSERT_EQ(BenchBccooParse("", &p, &on, err, sizeof(err)), 0) << err;
  for (const matgen::Csr &M : {matgen::random_rows("random_with_empty", 3000, 2500, 0, 20, 0.2, 107), matgen::random_rows("wide_200k", 1500, 200000, 1, 40, 0.05, 108),
                               matgen::no_nonzeros("empty", 37, 11)}) {
    const std::vector<double> v = M.values<double>();
    const BenchFootprint      f = footprint_of(M, p);
    gpumat::BccooParams       q = gpumat::bccoo_model(M.view(v), gpumat::BccooParams{}, 1).p;
    Bccoo<double>             B;
    gpumat::bccoo_build(M.view(v), q, B);
    EXPECT_EQ(f.bccoo, double(B.bytes())) << M.name;
    EXPECT_EQ(f.info.chosen, 2) << M.name;
    q.compress_col = 0;
    gpumat::bccoo_build(M.view(v), q, B);
    EXPECT_EQ(f.bccoo32, double(B.bytes())) << M.name;
    index_t width = 0;
    for (index_t r = 0; r < M.nrows; ++r) width = std::max(width, M.rowptr[r + 1] - M.rowptr[r]);
    EXPECT_EQ(f.ell_width, width) << M.name;
    EXPECT_EQ(f.ell, 12.0 * M.nrows * width) << M.name;
    EXPECT_EQ(f.csr, 12.0 * M.nnz() + 4.0 * (M.nrows + 1)) << M.name;
  }
  EXPECT_GT(footprint_of(matgen::random_rows("wide_200k", 1500, 200000, 1, 40, 0.05, 108), params(1, 1, 1, 16, 256, 1)).info.escapes, 0);
  // a row pointer that does not end at nnz
  const matgen::Csr         M = matgen::stencil_2d(5, 5);
  const std::vector<double> v = M.values<double>();
  BenchFootprint            f;
  EXPECT_EQ(BenchFootprintCompute(M.nrows, M.ncols, M.nnz() + 1, M.rowptr.data(), M.colidx.data(), v.data(), &p, &f, err, sizeof(err)), -1);
  EXPECT_NE(std::string(err).find("footprint: nnz"), std::string::npos) << err;
}

// The footprint's pjds as stored: the bytes the type's own layouts read by default and with fp32
// storage, as pjds_build makes them with the type's parameters. Random values: no table, so fp32
// stores floats and reads 4 B less a padded entry (its row lengths read or not, as
// pjds_reads_rowlen decides for each); one value and its padding's 0: a table by default, kept with
// fp32, the same bytes.
TEST(Footprint, PjdsAsStored) {
  BenchBccooParams p;
  int              on;
  char             err[256] = "";
  ASSERT_EQ(BenchBccooParse("", &p, &on, err, sizeof(err)), 0) << err;
  const matgen::Csr M = matgen::random_rows("rows_16_40", 2000, 3000, 16, 40, 0.0, 109);
  for (int constant = 0; constant < 2; ++constant) {
    std::vector<double> v = M.values<double>();
    if (constant) std::fill(v.begin(), v.end(), 2.5);
    BenchFootprint f;
    ASSERT_EQ(BenchFootprintCompute(M.nrows, M.ncols, M.nnz(), M.rowptr.data(), M.colidx.data(), v.data(), &p, &f, err, sizeof(err)), 0) << err;
    gpumat::Pjds<double> S[2];
    for (int k = 0; k < 2; ++k) {
      gpumat::PjdsParams q;
      q.fp32 = k == 1;
      gpumat::pjds_build(M.view(v), gpumat::pjds_model(M.view(v), q).p, S[k]);
    }
    EXPECT_EQ(f.compress.pjds_auto_read, double(S[0].read_bytes()));
    EXPECT_EQ(f.compress.pjds_fp32_read, double(S[1].read_bytes()));
    EXPECT_EQ(f.compress.pjds_auto_tabled, constant);
    EXPECT_EQ(f.compress.pjds_fp32_single, 1 - constant);
    const double rowlen = 4.0 * S[0].nrows_pj;
    if (constant) EXPECT_EQ(f.compress.pjds_fp32_read, f.compress.pjds_auto_read);
    else
      EXPECT_EQ(f.compress.pjds_auto_read - f.compress.pjds_fp32_read, 4.0 * double(S[0].padded()) + (S[0].reads_rowlen() ? rowlen : 0.0) - (S[1].reads_rowlen() ? rowlen : 0.0));
  }
}
