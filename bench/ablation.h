/* The yaSpMV paper's (Yan et al. 2014) Figure-14 ablation and Table-3 footprint for one matrix, as
   benchmark tools (bench_matmult -ablation, -footprint). PETSc-free. BenchAblationBccoo needs the
   CUDA library gpumat_ablation (bench/ablation_bccoo.cu, which says what each step runs and
   reads); BenchFootprint is host code (gpumat_floors_host, bench/footprint.cpp). fp64 values and
   32-bit indices throughout. */
#pragma once
#include "floors.h" /* BenchBccooParams, BenchBccooInfo */

#ifdef __cplusplus
extern "C" {
#endif

/* One step of the ablation, timed as the floors are (warm-up, then the median of CUDA-event times). */
typedef struct {
  char   name[40];
  char   what[88];   /* one line: what runs */
  double median_ms, min_ms;
  double bytes;      /* the step's own byte model: what it reads and writes per product */
  double relerr;     /* max |y - y_production| / max |y_production| over two checks (before and after
                        the timed launches, y poisoned with NaN before the first) */
} BenchAblationRow;

typedef struct {
  BenchBccooParams p;      /* the bccoo of steps (b)..(e): the model's parameters (bccoo_model with the
                              matrix's block size), one slice; (b)..(d) with compress = 0 */
  long long blocks;        /* stored blocks (with the padding blocks of empty segments) */
  long long padded;        /* padded to whole work-group tiles */
  long long escapes;       /* escaped column differences of the 16-bit columns (0 when not compressed) */
  long long groups;        /* work groups (work-group tiles) */
  int       cache;         /* result cache of the production product, segments per group */
  double    relerr_host;   /* the production product against a host CSR product (long double sums) */
} BenchAblationInfo;

/* Host CSR in (rowptr[nrows+1], colidx[nnz], val[nnz], columns sorted within each row as PETSc's
   AIJ keeps them); block_size: the matrix's block size (the model's tie-break, <= 1: none). Builds
   the steps' formats on the GPU, computes the production y = A x for a fixed x (uniform in [-1, 1])
   and checks it against the host, then for each step: a checked product, warmup + reps timed
   products, a second check. Fills res[0..*nres) in the order (a) .. (e), strategy 1, and *info.
   Returns 0 (whatever the errors: the caller judges them), or nonzero (a CUDA error code, or -1
   for a host error: a matrix without nonzeros, out of host memory) with a message in err. */
int BenchAblationBccoo(int nrows, int ncols, long long nnz, const int *rowptr, const int *colidx, const double *val, int block_size, int reps,
                       int warmup, BenchAblationRow *res, int maxres, int *nres, BenchAblationInfo *info, char *err, int errlen);

/* bccoo's parameter landscape (bench/grid_bccoo.cu says which candidates): one row per candidate. */
typedef struct {
  BenchBccooParams p;            /* resolved */
  int              stage;        /* 0: the model's choice, 1: compress x tile x group, 2: slices, 3: shapes */
  int              model;        /* 1: the model's choice */
  int              status;       /* 0, or the CUDA error that skipped it (out of memory, parameters refused) */
  double           ms;           /* median product time (NaN when skipped) */
  double           format_bytes; /* BccooDevice::format_bytes() */
} BenchGridRow;

/* Host CSR in as BenchAblationBccoo's; block_size as there. Uploads the CSR once, then builds and
   times every candidate (warmup, then the median of reps; cuda::bccoo_time_candidate). Fills
   res[0..*nres) in the order timed and *model (bccoo_model's choice). Returns 0 (skipped
   candidates have a nonzero status), or nonzero (a CUDA error code; -1 for a host error) with a
   message in err. */
int BenchBccooGrid(int nrows, int ncols, long long nnz, const int *rowptr, const int *colidx, const double *val, int block_size, int reps, int warmup,
                   BenchGridRow *res, int maxres, int *nres, BenchBccooParams *model, char *err, int errlen);

/* The byte model of compressed column indices and values (gpumat::compress_model,
   src/core/compress_model.hpp: its variants and what each counts), slices of 32 rows, part of
   BenchFootprint. Bytes per nonzero, padding left out. */
typedef struct {
  double    idx32, delta, dict, best;   /* index streams */
  double    val64, table, val32;        /* value streams */
  long long distinct, fp32_exact, nnz;  /* distinct values (65,537: more than 65,536); entries exact in fp32 */
  long long slices, slices_w8, slices_w16, slices_w32, slices_dict;
  /* pjds as the model builds it (gpumat::pjds_compressed): bytes as built, with dictionary columns,
     and with the value table too; with positional offsets (a layout not stored yet), and with the
     table too; its blocks, those with a dictionary and those with positional offsets */
  double    pjds_plain, pjds_dict, pjds_dict_table, pjds_diag, pjds_diag_table;
  long long pjds_blocks, pjds_blocks_dict, pjds_blocks_diag, pjds_diag_group;
  /* pjds as the type stores it (gpumat::pjds_build with the type's own parameters): the bytes its
     products read (Pjds::read_bytes) by default (columns and values auto) and with fp32 storage
     (-mat_gpumat_values fp32: the table kept where one is built); the layouts chosen */
  double    pjds_auto_read, pjds_fp32_read;
  int       pjds_auto_coded, pjds_auto_tabled, pjds_fp32_single;
} BenchCompress;

/* The bytes of the matrix data of a product (x and y excluded), per format, as the paper's Table 3
   counts them (every array read once): CSR 12 B per nonzero + 4 B per row pointer (rows + 1); COO
   16 B per nonzero (row, column, value); ELL every row padded to the longest, 12 B per entry; bccoo
   Bccoo::bytes() (every array its product reads, padding to whole work-group tiles included) with
   the parameters p (BenchBccooParse's; the default: the type's model) and with the same parameters
   but 32-bit block columns (compress = 0). Also the Kreutzer et al. paper's Table 1 formats:
   ELLPACK-R (ELL + a 4 B row length per row) and pJDS with the pjds model's parameters
   (Pjds::bytes(): padded entries 12 B, row lengths and the permutation 4 B per row each, the
   permutation left out when it is the identity, block offsets 8 B, the long rows' CSR). And the
   BCE paper's comparison: HYB (Bell & Garland's: an ELL part of width K, the largest K that at
   least max(4096, rows / 3) rows reach (at most rows when fewer), 12 B x rows x K, and the entries
   beyond K as COO, 16 B each) and bce with its default parameters (Bce::bytes(): padded entries
   12 B, the row order 4 B per row, the group table). */
typedef struct {
  double         csr, coo, ell, bccoo, bccoo32, ellr, pjds, hyb, bce;
  int            ell_width;  /* the longest row */
  BenchBccooInfo info, info32; /* the two bccoo builds */
  int            pjds_block_rows;
  long long      pjds_sigma, pjds_long_row, pjds_long_rows, pjds_padding; /* sigma >= nrows: all rows */
  int            hyb_width;                                             /* K */
  long long      hyb_coo;                                               /* entries in the COO part */
  int            bce_groups, bce_sets, bce_sets_df;                     /* k; sets after merging; the DF's sets */
  long long      bce_padding, bce_long_row, bce_long_nnz;               /* padded entries; long_row; the long part's entries */
  double         pjds_y_sectors, bce_y_sectors; /* the 32-byte sectors of y a warp's 32 rows store (through
                                                   pjds's permutation, bce's row numbers, block by block for
                                                   bce) per warp: 8 coalesced, 32 scattered */
  double         pjds_x_sectors[4]; /* the 32-byte sectors of x gathered per 32 entries of the pJDS part:
                                       [0] as laid out (a thread per row: step j of a block loads the
                                       j-th entries of its rows), [1..3] with 2, 4, 8 lanes per row (a
                                       load takes g consecutive entries of 32/g rows); 0: no pJDS part */
  BenchCompress  compress;          /* the byte model of compressed indices and values, on the pJDS built above */
} BenchFootprint;

/* Host CSR in as BenchAblationBccoo's (any column order). Builds the two bccoo on the host
   (gpumat::bccoo_build: about a second per 10M nonzeros). Returns 0, or -1 with a message in err
   (parameters out of range, out of memory). */
int BenchFootprintCompute(int nrows, int ncols, long long nnz, const int *rowptr, const int *colidx, const double *val, const BenchBccooParams *p,
                          BenchFootprint *f, char *err, int errlen);

/* The pattern's features (gpumat::matrix_features, src/core/features.hpp: what decides which format
   reads the matrix fastest), for -footprint. */
typedef struct {
  long long nnz, empty_rows;
  int       max_row;
  double    mean_row, cv_row;
  double    padding_sell, padding_sorted; /* padded entries / nnz: sliced ELL (32 rows, matrix order), rows sorted */
  double    fill[3];                      /* BSR block fill, 2x2, 3x3, 4x4 */
  double    sectors_csr, sectors_ell;     /* distinct 32-byte sectors of x per 32 entries, CSR and ELL order (8..32) */
  double    diag_distance;                /* mean |column - row x ncols / nrows| / ncols */
} BenchFeatures;

/* Host CSR in; fills *f. Returns 0, or -1 with a message in err (out of host memory). */
int BenchFeaturesCompute(int nrows, int ncols, const int *rowptr, const int *colidx, BenchFeatures *f, char *err, int errlen);

#ifdef __cplusplus
}
#endif
