/* Lower bounds for y = A x on this GPU and this matrix (bench/floors.cu): kernels that move the
   bytes of a fp64 CSR product with 32-bit indices but skip its row structure. PETSc-free. */
#pragma once
#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  char   name[32];
  double median_ms, min_ms;
} BenchFloor;

/* Host CSR in (nrows, ncols, rowptr[nrows+1], colidx[nnz], val[nnz]); copies it to the device,
   runs every floor kernel warmup + reps times (CUDA events) and fills res[0..*nres). Returns 0,
   or a nonzero CUDA error code with a message in err. */
int BenchFloors(int nrows, int ncols, long long nnz, const int *rowptr, const int *colidx, const double *val, int reps, int warmup, BenchFloor *res, int maxres, int *nres, char *err, int errlen);

#ifdef __cplusplus
}
#endif
