/* The yaSpMV paper's (Yan et al. 2014) Table-3 footprint for one matrix, as a benchmark tool
   (bench_matmult -footprint). PETSc-free host code (gpumat_floors_host, bench/footprint.cpp).
   fp64 values and 32-bit indices throughout. */
#pragma once
#include "floors.h" /* BenchBccooParams, BenchBccooInfo */

#ifdef __cplusplus
extern "C" {
#endif

/* The bytes of the matrix data of a product (x and y excluded), per format, as the paper's Table 3
   counts them (every array read once): CSR 12 B per nonzero + 4 B per row pointer (rows + 1); COO
   16 B per nonzero (row, column, value); ELL every row padded to the longest, 12 B per entry; bccoo
   Bccoo::bytes() (every array its product reads, padding to whole work-group tiles included) with
   the parameters p (BenchBccooParse's; the default: the type's model) and with the same parameters
   but 32-bit block columns (compress = 0). */
typedef struct {
  double         csr, coo, ell, bccoo, bccoo32;
  int            ell_width;  /* the longest row */
  BenchBccooInfo info, info32; /* the two bccoo builds */
} BenchFootprint;

/* Host CSR in (rowptr[nrows+1], colidx[nnz], val[nnz]; any column order). Builds the two bccoo on the host
   (gpumat::bccoo_build: about a second per 10M nonzeros). Returns 0, or -1 with a message in err
   (parameters out of range, out of memory). */
int BenchFootprintCompute(int nrows, int ncols, long long nnz, const int *rowptr, const int *colidx, const double *val, const BenchBccooParams *p,
                          BenchFootprint *f, char *err, int errlen);

#ifdef __cplusplus
}
#endif
