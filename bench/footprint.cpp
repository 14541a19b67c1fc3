// The footprint of the matrix data per format (bench/ablation.h, the paper's Table 3): counted from
// the CSR for CSR, COO and ELL, and from host builds for bccoo (gpumat_floors::bccoo_plan, the
// bccoo the floors build: Bccoo::bytes() is the sum of the arrays its product reads).
#include "ablation.h"
#include "floors_bccoo.hpp"
#include "core/pjds.hpp"
#include "core/bce.hpp"
#include "core/ell_hyb.hpp"
#include "core/features.hpp"
#include "core/compress_model.hpp"

#include <vector>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <new>

// The sectors of x (4 fp64 values) gathered per 32 entries of pjds's padded part with g lanes per
// row: a warp's load takes entries c .. c + g - 1 of 32 / g rows of a block (g = 1: the product as
// it is, the j-th entries of the block's 32 rows); padding entries (beyond a row's length) are not
// loaded. For the question whether a row per group of lanes would gather x as CSR order does.
static double pjds_x_sectors(const gpumat::Pjds<double> &P, int g) {
  std::int64_t   sec = 0, ent = 0;
  gpumat::index_t buf[32];
  const int       br = P.p.block_rows, per = 32 / g;
  for (std::size_t b = 0; b + 1 < P.block_start.size(); ++b) {
    const std::int64_t i0 = std::int64_t(b) * br, rows = std::min<std::int64_t>(br, P.nrows_pj - i0);
    if (rows <= 0) break;
    const std::int64_t bs = P.block_start[b], width = (P.block_start[b + 1] - bs) / rows;
    for (std::int64_t r0 = 0; r0 < rows; r0 += per)
      for (std::int64_t c = 0; c < width; c += g) {
        int m = 0;
        for (std::int64_t rr = r0; rr < std::min(rows, r0 + per); ++rr) {
          const std::int64_t len = P.rowlen[std::size_t(i0 + rr)];
          for (std::int64_t k = c; k < std::min(len, c + g); ++k) buf[m++] = P.column(bs + k * rows + rr, i0 + rr);
        }
        sec += gpumat::warp_sectors(buf, m); // one load: its m <= 32 columns
        ent += m;
      }
  }
  return ent > 0 ? 32.0 * double(sec) / double(ent) : 0.0;
}

extern "C" int BenchFootprintCompute(int nrows, int ncols, long long nnz, const int *rowptr, const int *colidx, const double *val,
                                     const BenchBccooParams *p, BenchFootprint *f, char *err, int errlen) {
  *f = BenchFootprint{};
  if (nrows < 0 || ncols < 0 || nnz != (long long)(nrows ? rowptr[nrows] : 0)) {
    std::snprintf(err, std::size_t(errlen), "footprint: nnz %lld is not rowptr[nrows] (32-bit indices only)", nnz);
    return -1;
  }
  const int width = gpumat::longest_row(gpumat::CsrView<double>{nrows, ncols, rowptr, colidx, val});
  f->ell_width    = width;
  f->csr       = 12.0 * double(nnz) + 4.0 * (double(nrows) + 1.0);
  f->coo       = 16.0 * double(nnz);
  f->ell       = 12.0 * double(nrows) * double(width);
  f->ellr      = f->ell + 4.0 * double(nrows);
  try {
    const gpumat::CsrView<double> A{nrows, ncols, rowptr, colidx, val};
    {
      gpumat_floors::BccooPlan plan;
      gpumat_floors::bccoo_plan(A, *p, plan);
      f->info  = plan.info;
      f->bccoo = double(plan.B.bytes());
    }
    BenchBccooParams q = f->info.p; // the same parameters as built, 32-bit block columns
    q.compress         = 0;
    q.model            = 0;
    gpumat_floors::BccooPlan plan;
    gpumat_floors::bccoo_plan(A, q, plan);
    f->info32  = plan.info;
    f->bccoo32 = double(plan.B.bytes());
    gpumat::PjdsParams q32;
    q32.columns                 = gpumat::PjdsColumns::Plain; // the layout with 32-bit columns and fp64 values, from which the compression model counts
    q32.values                  = gpumat::PjdsValues::Plain;
    const gpumat::PjdsChoice ch = gpumat::pjds_model(A, q32);
    gpumat::Pjds<double>     P;
    gpumat::pjds_build(A, ch.p, P);
    f->pjds            = double(P.bytes());
    { // the compression byte model, the pJDS's as built
      BenchCompress              &c = f->compress;
      const gpumat::CompressModel m = gpumat::compress_model(A, 32);
      c.idx32 = m.idx32, c.delta = m.delta, c.dict = m.dict, c.best = m.best;
      c.val64 = m.val64, c.table = m.table, c.val32 = m.val32;
      c.distinct = m.distinct, c.fp32_exact = m.fp32_exact, c.nnz = m.nnz;
      c.slices = m.slices, c.slices_w8 = m.slices_w8, c.slices_w16 = m.slices_w16, c.slices_w32 = m.slices_w32, c.slices_dict = m.slices_dict;
      const gpumat::PjdsCompressed pc = gpumat::pjds_compressed(P, m.distinct);
      c.pjds_plain = pc.plain, c.pjds_dict = pc.dict, c.pjds_dict_table = pc.dict_table, c.pjds_blocks = pc.blocks, c.pjds_blocks_dict = pc.blocks_dict;
      c.pjds_diag = pc.diag, c.pjds_diag_table = pc.diag_table, c.pjds_blocks_diag = pc.blocks_diag, c.pjds_diag_group = pc.diag_group;
      for (int v = 0; v < 2; ++v) { // the type's own layouts: by default, and with fp32 storage
        gpumat::PjdsParams q;
        q.fp32 = v == 1;
        gpumat::Pjds<double> S;
        gpumat::pjds_build(A, gpumat::pjds_model(A, q).p, S);
        if (v) c.pjds_fp32_read = double(S.read_bytes()), c.pjds_fp32_single = S.single();
        else c.pjds_auto_read = double(S.read_bytes()), c.pjds_auto_coded = S.coded(), c.pjds_auto_tabled = S.tabled();
      }
    }
    f->pjds_block_rows = P.p.block_rows;
    f->pjds_sigma      = (long long)P.p.sigma;
    f->pjds_long_row   = (long long)P.p.long_row;
    f->pjds_long_rows  = (long long)P.long_rows.size();
    f->pjds_padding    = (long long)P.padding();
    if (P.nrows_pj > 0) { // the identity when perm is empty: consecutive rows
      std::vector<gpumat::index_t> rows(P.perm);
      if (rows.empty())
        for (gpumat::index_t i = 0; i < P.nrows_pj; ++i) rows.push_back(i);
      f->pjds_y_sectors = double(gpumat::warp_sectors(rows.data(), (std::int64_t)rows.size())) / double((rows.size() + 31) / 32);
      for (int k = 0; k < 4; ++k) f->pjds_x_sectors[k] = pjds_x_sectors(P, 1 << k);
    }
    const gpumat::EllHyb eh = gpumat::ell_hyb(A); // HYB: K the largest length max(4096, rows / 3) rows reach
    f->hyb_width            = eh.hyb_width, f->hyb_coo = eh.hyb_coo;
    f->hyb                  = eh.hyb_bytes();
    gpumat::Bce<double> E;
    gpumat::bce_build(A, gpumat::BceParams{}, E);
    f->bce          = double(E.bytes());
    f->bce_groups   = E.groups();
    f->bce_sets     = E.sets;
    f->bce_sets_df  = E.sets_before_merge;
    f->bce_padding  = (long long)E.padding();
    f->bce_long_row = (long long)E.p.long_row;
    f->bce_long_nnz = (long long)E.long_val.size();
    std::int64_t ysec = 0; // the product's warps: block b's rows from pos[b], 32 a warp
    for (int b = 0; b < E.blocks(); ++b) ysec += gpumat::warp_sectors(E.row_no.data() + E.pos[std::size_t(b)], E.rows[std::size_t(b)]);
    const std::int64_t warps = gpumat::bce_block_warps(E.rows).back();
    if (warps > 0) f->bce_y_sectors = double(ysec) / double(warps);
  } catch (const std::bad_alloc &) {
    std::snprintf(err, std::size_t(errlen), "footprint: out of host memory building the bccoo");
    return -1;
  } catch (const std::exception &e) {
    std::snprintf(err, std::size_t(errlen), "footprint: %s", e.what());
    return -1;
  }
  return 0;
}

extern "C" int BenchFeaturesCompute(int nrows, int ncols, const int *rowptr, const int *colidx, BenchFeatures *f, char *err, int errlen) {
  *f = BenchFeatures{};
  try {
    const gpumat::MatrixFeatures m = gpumat::matrix_features(gpumat::CsrView<double>{nrows, ncols, rowptr, colidx, nullptr});
    f->nnz = m.nnz, f->empty_rows = m.empty_rows, f->max_row = m.max_row, f->mean_row = m.mean_row, f->cv_row = m.cv_row;
    f->padding_sell = m.padding_sell, f->padding_sorted = m.padding_sorted;
    for (int bs = 2; bs <= 4; ++bs) f->fill[bs - 2] = m.block_fill(bs);
    f->sectors_csr = m.sectors_csr, f->sectors_ell = m.sectors_ell, f->diag_distance = m.diag_distance;
  } catch (const std::exception &e) {
    snprintf(err, (size_t)errlen, "features: %s", e.what());
    return -1;
  }
  return 0;
}

