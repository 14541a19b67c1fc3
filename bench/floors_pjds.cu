// The floors of pjds (src/core/pjds.hpp) for one matrix on this GPU: its layout as the pjds type
// builds it by default (gpumat::pjds_model's parameters, gpumat::pjds_build on the host), every
// array its product reads copied to the device once:
//   padded entries x (8 B value + 4 B column) + 4 B rowlen + 4 B perm (unless the identity) per row
//   of the pJDS part + 8 B per block start + the long part (12 B per entry, 4 B per long row and
//   per row pointer) = Pjds::bytes(), + x + y once (8 B per column and per row):
//   floor:pjds-stream   those arrays by grid-stride loops, four loads per thread in flight,
//                       coalesced and streaming (x read once, in order): the pjds bytes at the
//                       GPU's streaming rate;
//   floor:pjds-gather   the product's reads without its row structure: a thread per position of
//                       the pJDS part (grid-stride over the positions, one wave of resident blocks)
//                       reads its rowlen entries column by column at the layout's positions (a
//                       block's rows at consecutive addresses) with x[col] gathered through L1
//                       (ld.global.nc), and writes its sum to y at its position (not through perm:
//                       no scattered store); the long part's entries by a grid-stride loop with
//                       their x gathered, no row sums.
// A product over the same arrays cannot be faster than floor:pjds-gather with the same x-gather
// path; the gap between the two floors is the price of the matrix's column pattern.
#include "floors.h"
#include "timing.cuh"
#include "core/pjds.hpp"
#include "cuda/pjds_index.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <vector>

namespace {

struct PjdsDev {
  const double    *val, *long_val;
  const int       *col, *rowlen, *perm, *long_col, *long_rows, *long_ptr;
  const long long *block_start;
  long long        padded, long_nnz, nblocks;
  int              npj, nlong, br, nrows, ncols;
};

__global__ void __launch_bounds__(256) pjds_stream_floor(PjdsDev a, const double *__restrict__ x, double *__restrict__ y, double *sink) {
  const long long stride = (long long)gridDim.x * blockDim.x, t0 = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  double          acc = 0;
  long long       k   = t0;
  for (; k + 3 * stride < a.padded; k += 4 * stride) {
    double v[4];
    int    c[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) v[u] = __ldcs(a.val + k + u * stride), c[u] = __ldcs(a.col + k + u * stride);
#pragma unroll
    for (int u = 0; u < 4; ++u) acc += v[u] * (double)c[u];
  }
  for (; k < a.padded; k += stride) acc += __ldcs(a.val + k) * (double)__ldcs(a.col + k);
  for (k = t0; k < a.long_nnz; k += stride) acc += __ldcs(a.long_val + k) * (double)__ldcs(a.long_col + k);
  for (k = t0; k < a.npj; k += stride) acc += (double)__ldcs(a.rowlen + k) + (a.perm ? (double)__ldcs(a.perm + k) : 0.0);
  for (k = t0; k <= a.nblocks; k += stride) acc += (double)__ldcs(a.block_start + k);
  for (k = t0; k < a.nlong; k += stride) acc += (double)__ldcs(a.long_rows + k) + (double)__ldcs(a.long_ptr + k);
  for (k = t0; k < a.ncols; k += stride) acc += __ldcs(x + k);
  for (k = t0; k < a.nrows; k += stride) y[k] = (double)k;
  if (acc == 1.2345e-300) *sink = acc; // never true in practice; the compiler cannot know
}

__global__ void __launch_bounds__(256) pjds_gather_floor(PjdsDev a, const double *__restrict__ x, double *__restrict__ y, double *sink) {
  const long long stride = (long long)gridDim.x * blockDim.x, t0 = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  for (long long i = t0; i < a.npj; i += stride) {
    const gpumat::cuda::PjdsPos q    = gpumat::cuda::pjds_pos(unsigned(i), unsigned(a.br), unsigned(a.npj));
    const long long             rows = q.rows;
    long long                   p    = __ldg(a.block_start + q.b) + q.lane;
    const int       n = __ldcs(a.rowlen + i);
    double          s0 = 0, s1 = 0;
    int             j = 0;
    for (; j + 4 <= n; j += 4, p += 4 * rows) {
      const int    c0 = __ldcs(a.col + p), c1 = __ldcs(a.col + p + rows), c2 = __ldcs(a.col + p + 2 * rows), c3 = __ldcs(a.col + p + 3 * rows);
      const double v0 = __ldcs(a.val + p), v1 = __ldcs(a.val + p + rows), v2 = __ldcs(a.val + p + 2 * rows), v3 = __ldcs(a.val + p + 3 * rows);
      s0 += v0 * __ldg(x + c0) + v2 * __ldg(x + c2);
      s1 += v1 * __ldg(x + c1) + v3 * __ldg(x + c3);
    }
    for (; j < n; ++j, p += rows) s0 += __ldcs(a.val + p) * __ldg(x + __ldcs(a.col + p));
    y[i] = s0 + s1;
  }
  double acc = 0;
  for (long long k = t0; k < a.long_nnz; k += stride) acc += __ldcs(a.long_val + k) * __ldg(x + __ldcs(a.long_col + k));
  if (acc == 1.2345e-300) *sink = acc;
}

cudaError_t wave(void (*f)(PjdsDev, const double *, double *, double *), int *grid) {
  int         dev, sms, per_sm = 0;
  cudaError_t rc;
  if ((rc = cudaGetDevice(&dev)) != cudaSuccess) return rc;
  if ((rc = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess) return rc;
  if ((rc = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, 256, 0)) != cudaSuccess) return rc;
  *grid = std::max(1, per_sm) * sms;
  return cudaSuccess;
}

} // namespace

extern "C" int BenchFloorsPjds(int nrows, int ncols, long long nnz, const int *rowptr, const int *colidx, const double *val, int reps, int warmup, BenchFloor *res, int maxres, int *nres,
                               BenchPjdsInfo *info, char *err, int errlen) {
  gpumat::Pjds<double> B;
  std::vector<void *>  dev;
  double              *d_x = nullptr, *d_y = nullptr, *d_sink = nullptr;
  PjdsDev              a{};
  cudaEvent_t          e0 = nullptr, e1 = nullptr;
  cudaStream_t         s  = nullptr;
  cudaError_t          rc = cudaSuccess;
  *nres                   = 0;
  if (nnz != (long long)(nrows ? rowptr[nrows] : 0)) {
    snprintf(err, (size_t)errlen, "pjds floors: nnz %lld is not rowptr[nrows] (32-bit indices only)", nnz);
    return -1;
  }
  try {
    const gpumat::CsrView<double> A{nrows, ncols, rowptr, colidx, val};
    const gpumat::PjdsParams      p = gpumat::pjds_model(A, gpumat::PjdsParams{}).p;
    gpumat::pjds_build(A, p, B);
  } catch (const std::exception &e) {
    snprintf(err, (size_t)errlen, "pjds floors: %s", e.what());
    return -1;
  }
  info->block_rows   = B.p.block_rows;
  info->sigma        = B.p.sigma;
  info->long_row     = B.p.long_row;
  info->padding      = B.padding();
  info->long_rows    = (long long)B.long_rows.size();
  info->long_entries = (long long)B.long_val.size();
  info->format_bytes = (double)B.bytes();
  info->bytes        = info->format_bytes + 8.0 * ncols + 8.0 * nrows;
  auto up = [&](const auto &v, const void **d) {
    void       *p     = nullptr;
    const size_t bytes = v.size() * sizeof(v[0]);
    cudaError_t r     = cudaMalloc(&p, std::max<size_t>(bytes, 256));
    if (r != cudaSuccess) return r;
    dev.push_back(p);
    *d = p;
    return bytes ? cudaMemcpy(p, v.data(), bytes, cudaMemcpyHostToDevice) : cudaSuccess;
  };
#define FLOOR_CALL(call)                                                                 \
  do {                                                                                   \
    rc = (call);                                                                         \
    if (rc != cudaSuccess) {                                                             \
      snprintf(err, (size_t)errlen, "%s failed: %s", #call, cudaGetErrorString(rc));   \
      goto done;                                                                         \
    }                                                                                    \
  } while (0)
  {
    FLOOR_CALL(up(B.val, (const void **)&a.val));
    FLOOR_CALL(up(B.col, (const void **)&a.col));
    FLOOR_CALL(up(B.rowlen, (const void **)&a.rowlen));
    FLOOR_CALL(up(B.block_start, (const void **)&a.block_start));
    FLOOR_CALL(up(B.long_val, (const void **)&a.long_val));
    FLOOR_CALL(up(B.long_col, (const void **)&a.long_col));
    FLOOR_CALL(up(B.long_rows, (const void **)&a.long_rows));
    FLOOR_CALL(up(B.long_ptr, (const void **)&a.long_ptr));
    if (!B.perm.empty()) FLOOR_CALL(up(B.perm, (const void **)&a.perm));
    a.padded   = B.padded();
    a.long_nnz = (long long)B.long_val.size();
    a.nblocks  = B.nblocks();
    a.npj      = B.nrows_pj;
    a.nlong    = (int)B.long_rows.size();
    a.br       = B.p.block_rows;
    a.nrows    = nrows;
    a.ncols    = ncols;
    {
      std::vector<double> hx((size_t)std::max(ncols, 1));
      for (size_t i = 0; i < hx.size(); ++i) hx[i] = 1.0 + 1e-7 * (double)(i % 1000);
      FLOOR_CALL(up(hx, (const void **)&d_x));
    }
    FLOOR_CALL(cudaMalloc((void **)&d_y, sizeof(double) * (size_t)std::max(nrows, 1)));
    dev.push_back(d_y);
    FLOOR_CALL(cudaMalloc((void **)&d_sink, sizeof(double)));
    dev.push_back(d_sink);
    FLOOR_CALL(cudaDeviceSynchronize()); // the pageable uploads have landed before s (non-blocking) reads them
    FLOOR_CALL(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    FLOOR_CALL(cudaEventCreate(&e0));
    FLOOR_CALL(cudaEventCreate(&e1));
    const struct {
      const char *name;
      void (*f)(PjdsDev, const double *, double *, double *);
    } kinds[] = {{"floor:pjds-stream", pjds_stream_floor}, {"floor:pjds-gather", pjds_gather_floor}};
    for (const auto &kd : kinds) {
      if (*nres >= maxres) break;
      int grid;
      FLOOR_CALL(wave(kd.f, &grid));
      snprintf(res[*nres].name, sizeof(res[*nres].name), "%s", kd.name);
      FLOOR_CALL(gpumat_bench::time_reps([&] { kd.f<<<grid, 256, 0, s>>>(a, d_x, d_y, d_sink); return cudaSuccess; }, s, e0, e1, warmup, reps, &res[*nres].median_ms, &res[*nres].min_ms));
      ++*nres;
    }
  }
done:
#undef FLOOR_CALL
  if (e0) cudaEventDestroy(e0);
  if (e1) cudaEventDestroy(e1);
  if (s) cudaStreamDestroy(s);
  for (void *d : dev) cudaFree(d);
  return rc != cudaSuccess ? (int)rc : 0;
}
