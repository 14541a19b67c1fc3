/* Lower bounds for y = A x on this GPU and this matrix (bench/floors.cu): kernels that move the
   bytes of a fp64 product, CSR with 32-bit indices or bccoo, but skip its row structure.
   PETSc-free. BenchFloors and BenchFloorsBccoo need the CUDA library gpumat_floors; the bccoo
   parameter helpers (BenchBccooParse, BenchBccooDescribe) are host code (gpumat_floors_host). */
#pragma once
#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  char   name[48];
  double median_ms, min_ms;
} BenchFloor;

/* Host CSR in (nrows, ncols, rowptr[nrows+1], colidx[nnz], val[nnz]); copies it to the device,
   runs every floor kernel warmup + reps times (CUDA events) and fills res[0..*nres). Returns 0,
   or a nonzero CUDA error code with a message in err. */
int BenchFloors(int nrows, int ncols, long long nnz, const int *rowptr, const int *colidx, const double *val, int reps, int warmup, BenchFloor *res, int maxres, int *nres, char *err, int errlen);

/* The bccoo (src/core/bccoo.hpp) whose floors are timed. h = w = 0: the block shape bccoo's byte
   model ranks first (gpumat::bccoo_shapes(A, block_size)[0]); otherwise h and w as given (0: 1).
   0 (compress: -1) elsewhere: bccoo's defaults (slices 1, tile 16, group 256, compressed columns).
   model = 1: the parameters the bccoo type chooses by default, gpumat::bccoo_model(A, the others
   as user parameters, block_size) (sampled block shape; columns compressed unless half escape). */
typedef struct {
  int h, w, slices, tile, group, compress;
  int block_size; /* the matrix's block size, the byte model's tie-break (<= 1: none) */
  int model;
} BenchBccooParams;

/* The bccoo as built and the bytes its floors move. */
typedef struct {
  BenchBccooParams p;    /* as built: defaults resolved, slices past the last block column dropped */
  int       chosen;      /* 0: h x w as given; 1: the byte model's first shape (h = w = 0); 2: bccoo_model's */
  long long blocks;      /* nonzero blocks */
  long long stored;      /* blocks stored: + one zero block per empty (slice, block row) */
  long long padded;      /* stored, rounded up to whole work-group tiles (the arrays' length) */
  long long escapes;     /* escaped 16-bit column differences */
  long long tiles;       /* thread tiles */
  double    fill;        /* nonzeros / (blocks h w) */
  double    format_bytes; /* Bccoo::bytes(): every array the product reads, padding included */
  double    bytes;       /* format_bytes + 8 ncols (x once) + 8 nrows (y once): what each floor moves */
} BenchBccooInfo;

/* spec: "" (the defaults), "off", "model", or "h,w[,slices[,tile[,group[,compress]]]]" (integers,
   0 or an omitted field: the default as above), "model," followed by the same fields (the user
   parameters of bccoo_model). *on = 0 for "off". Checks the ranges with gpumat::bccoo_resolve
   (h = w = 0 allowed). Returns 0, or 1 with a message in err. */
int BenchBccooParse(const char *spec, BenchBccooParams *p, int *on, char *err, int errlen);

/* One line: the parameters, the blocks and the bytes of info. */
void BenchBccooDescribe(const BenchBccooInfo *info, char *buf, int len);

/* Builds the bccoo of the host CSR with p (gpumat::bccoo_build), copies the arrays its product
   reads to the device and times floor:bccoo-stream and floor:bccoo-gather as BenchFloors does
   (bench/floors.cu says what they read); before timing, checks the gather kernel's decompressed
   block columns against the host layout's (bccoo_columns, bench/floors_bccoo.hpp). Fills *info and res[0..*nres). Returns 0, or nonzero
   (a CUDA error code, or -1 for a host error: bad parameters, no memory, a wrong column) with a
   message in err. */
int BenchFloorsBccoo(int nrows, int ncols, long long nnz, const int *rowptr, const int *colidx, const double *val, const BenchBccooParams *p, int reps, int warmup, BenchFloor *res, int maxres, int *nres, BenchBccooInfo *info, char *err, int errlen);

/* The pjds of the pjds floors (bench/floors_rowgrouped.cu; its compressed layouts' floors in
   bench/floors_pjds.cu): the type's default layout (pjds_model). */
typedef struct {
  int       block_rows;
  long long sigma, long_row;  /* as built (sigma: rows per sorting window, >= the rows: all) */
  long long padding;          /* padded entries beyond the pJDS part's nonzeros */
  long long long_rows, long_entries;
  double    format_bytes;     /* every array the GPU product reads (Pjds::bytes(), rowlen only where read) */
  double    bytes;            /* format_bytes + 8 ncols (x once) + 8 nrows (y once) */
  double    auto_bytes;       /* the same for the default layout (auto columns and values): floor:pjds-auto-stream */
  double    fp32_bytes;       /* and for fp32 storage (-mat_gpumat_values fp32): floor:pjds-fp32-stream */
  /* positional offsets as the byte model counts them (the type's -mat_pjds_columns positional), where every block reads fewer bytes so:
     offsets from groups of pos_group rows (0: not timed); the bytes of floor:pjds-pos-* and, where
     the values fit a table of 65,536, of floor:pjds-pos-table(16)-* (0: none), x and y included */
  int       pos_group;
  double    pos_bytes, pos_table_bytes;
  /* the plain layout with its values as 16-bit codes into a table, where they number 257 to 65,536:
     the bytes of floor:pjds-table16-* (0: not timed) */
  double    table16_bytes;
  /* the plain layout with its values as 8-bit codes packed four to a word, where they number at
     most 256: the bytes of floor:pjds-table-w4-* (0: not timed) */
  double    table_w4_bytes;
} BenchPjdsInfo;

/* Builds the default pjds of the host CSR on the host (32-bit columns and fp64 values), copies the
   arrays its product reads to the device and times floor:pjds-stream and floor:pjds-gather as
   BenchFloors does; then the stream floors of the type's default layout (its compressed columns and
   values where it codes them: floor:pjds-auto-stream) and of fp32 storage (floor:pjds-fp32-stream);
   then, where positional offsets pay in every block, their stream and gather floors
   (floor:pjds-pos-*, with a value table floor:pjds-pos-table-*; bench/floors_pjds.cu).
   Returns 0, or nonzero (a CUDA error code, or -1 for a host error) with a message in err. */
int BenchFloorsPjds(int nrows, int ncols, long long nnz, const int *rowptr, const int *colidx, const double *val, int reps, int warmup, BenchFloor *res, int maxres, int *nres, BenchPjdsInfo *info, char *err, int errlen);

/* The bce of the bce floors (bench/floors_rowgrouped.cu): the type's default layout (bce_build). */
typedef struct {
  int       groups, blocks;   /* the partition's groups; blocks (window, group) */
  long long window, long_row; /* as built */
  long long padding;          /* padded entries beyond the groups' nonzeros */
  long long long_rows, long_entries;
  double    format_bytes;     /* Bce::bytes(): every array the product reads */
  double    bytes;            /* format_bytes + 8 ncols (x once) + 8 nrows (y once) */
} BenchBceInfo;

/* Builds the default bce of the host CSR on the host, copies the arrays its product reads to the
   device and times floor:bce-stream and floor:bce-gather as BenchFloorsPjds does. */
int BenchFloorsBce(int nrows, int ncols, long long nnz, const int *rowptr, const int *colidx, const double *val, int reps, int warmup, BenchFloor *res, int maxres, int *nres, BenchBceInfo *info, char *err, int errlen);

#ifdef __cplusplus
}
#endif
