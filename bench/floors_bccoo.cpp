// Host side of the bccoo floors: parameters, the plan (build + byte count), the arrays the
// floors read and the reference block columns (bench/floors_bccoo.hpp).
#include "floors_bccoo.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>

namespace gpumat_floors {

gpumat::BccooParams to_core(const BenchBccooParams &p) {
  gpumat::BccooParams q;
  q.h            = p.h;
  q.w            = p.w;
  q.slices       = p.slices;
  q.tile         = p.tile;
  q.group        = p.group;
  q.compress_col = p.compress;
  return q;
}

BenchBccooParams to_bench(const gpumat::BccooParams &p) {
  BenchBccooParams b{};
  b.h        = p.h;
  b.w        = p.w;
  b.slices   = p.slices;
  b.tile     = p.tile;
  b.group    = p.group;
  b.compress = p.compress_col;
  return b;
}

void bccoo_plan(const gpumat::CsrView<double> &A, const BenchBccooParams &p, BccooPlan &plan) {
  gpumat::BccooParams q      = to_core(p);
  const int           bs     = p.block_size > 1 ? p.block_size : 1;
  int                 chosen = 0;
  gpumat::bccoo_resolve(q); // the ranges, before any pass over A
  if (p.model) {
    q      = gpumat::bccoo_model(A, to_core(p), bs).p;
    chosen = 2;
  } else if (p.h == 0 && p.w == 0) {
    const std::vector<gpumat::BccooShape> shapes = gpumat::bccoo_shapes(A, bs);
    q.h    = shapes.front().h;
    q.w    = shapes.front().w;
    chosen = 1;
  }
  gpumat::bccoo_build(A, gpumat::bccoo_resolve(q), plan.B);
  std::vector<std::int64_t>().swap(plan.B.slot); // refresh only; the floors never rewrite values
  const gpumat::Bccoo<double> &B = plan.B;
  BenchBccooInfo              &I = plan.info;
  I                              = BenchBccooInfo{};
  I.p                            = to_bench(B.p);
  I.p.block_size                 = p.block_size;
  I.chosen                       = chosen;
  I.blocks                       = B.nblocks - B.pad_blocks;
  I.stored                       = B.nblocks;
  I.padded                       = B.padded_blocks;
  I.escapes                      = (long long)B.escape.size();
  I.tiles                        = B.thread_tiles();
  I.fill                         = I.blocks ? double(B.nnz) / (double(I.blocks) * B.p.h * B.p.w) : 0.0;
  I.format_bytes                 = double(B.bytes());
  I.bytes                        = I.format_bytes + 8.0 * double(B.ncols) + 8.0 * double(B.nrows);
}

std::vector<BccooArray> bccoo_arrays(const gpumat::Bccoo<double> &B) {
  auto arr = [](const char *name, const auto &v) { return BccooArray{name, v.data(), v.size() * sizeof(v[0])}; };
  return {arr("val", B.val),
          arr("flags", B.flags),
          arr("dcol", B.dcol),
          arr("col", B.col),
          arr("escape", B.escape),
          arr("escape_start", B.escape_start),
          arr("first_segment", B.first_segment),
          arr("no_scan", B.no_scan)};
}

std::vector<gpumat::index_t> bccoo_columns(const gpumat::Bccoo<double> &B) {
  std::vector<gpumat::index_t> c(std::size_t(B.padded_blocks));
  for (std::int64_t t = 0; t < B.thread_tiles(); ++t) B.tile_columns(t, c.data() + t * B.p.tile);
  return c;
}

} // namespace gpumat_floors

extern "C" int BenchBccooParse(const char *spec, BenchBccooParams *p, int *on, char *err, int errlen) {
  *p          = BenchBccooParams{};
  p->compress = -1;
  *on         = 1;
  if (!spec || !spec[0]) { // the default: the parameters the bccoo type chooses (sampled model, fast)
    p->model = 1;
    return 0;
  }
  if (!std::strcmp(spec, "off")) {
    *on = 0;
    return 0;
  }
  const char *s = spec;
  if (!std::strncmp(spec, "model", 5) && (spec[5] == 0 || spec[5] == ',')) {
    p->model = 1;
    if (!spec[5]) return 0;
    s = spec + 6;
  }
  int *fields[] = {&p->h, &p->w, &p->slices, &p->tile, &p->group, &p->compress};
  for (int i = 0;; ++i) {
    char *end;
    long  v = std::strtol(s, &end, 10);
    if (i >= 6 || end == s || (*end && *end != ',') || v < -1 || v > 1000000) {
      std::snprintf(err, std::size_t(errlen), "-floor_bccoo '%s': expected off, or h,w[,slices[,tile[,group[,compress]]]] (up to 6 integers), optionally after model,", spec);
      return 1;
    }
    *fields[i] = int(v);
    if (!*end) break;
    s = end + 1;
  }
  try {
    gpumat::bccoo_resolve(gpumat_floors::to_core(*p)); // h = w = 0 pass (the model's shape)
  } catch (const std::exception &e) {
    std::snprintf(err, std::size_t(errlen), "-floor_bccoo '%s': %s", spec, e.what());
    return 1;
  }
  return 0;
}

extern "C" void BenchBccooDescribe(const BenchBccooInfo *I, char *buf, int len) {
  std::snprintf(buf, std::size_t(len),
                "bccoo %dx%d%s, slices %d, tile %d, group %d, %s columns: %lld blocks (fill %.2f), %lld escapes; "
                "%.3f MB = format %.3f MB + x + y",
                I->p.h, I->p.w, I->chosen == 1 ? " (the byte model's first shape)" : I->chosen == 2 ? " (bccoo_model's choice)" : "", I->p.slices, I->p.tile, I->p.group,
                I->p.compress ? "16-bit" : "32-bit", I->blocks, I->fill, I->escapes, 1e-6 * I->bytes, 1e-6 * I->format_bytes);
}
