/*
  petsc-gpumat: GPU sparse matrix formats as PETSc matrix types.

  Each format is a subclass of AIJ: assembly, MatSetValues, preconditioners, MatConvert keep
  working on the AIJ data; the format is built on the first product after assembly and
  refreshed (values only) when the values change. Products (and MatGetDiagonal) with CUDA vectors
  run on the GPU; products with host vectors run PETSc's SeqAIJ kernels (the format's host
  reference kernel with -mat_gpumat_host_reference). Blocks whose rows are mostly empty (every
  MPI off-diagonal block) are stored as their nonempty rows only.

  Use from an unmodified PETSc program:
      ./app -dll_append /path/to/libpetscgpumat.so -mat_type csrspec -vec_type cuda
  or link the library and call PetscGpuMatInitialize() after PetscInitialize().

  Types (the user types the short root; the real types are AIJ subclasses):
      csrspec  = seqaijcsrspec / mpiaijcsrspec (also "aijcsrspec")
          plain CSR with the speculative segmented sum (Liu & Vinter 2015)
      bccoo    = seqaijbccoo / mpiaijbccoo (also "aijbccoo")
          blocked compressed COO: h x w blocks, bit-flag row stops, 16-bit column differences,
          vertical slices (BCCOO/BCCOO+, Yan et al. 2014)
      pjds     = seqaijpjds / mpiaijpjds (also "aijpjds")
          padded jagged diagonals: rows sorted by length within windows, blocks of b_r rows padded
          to their longest row, column by column; long rows apart, in chunks (Kreutzer et al. 2012)
      bce      = seqaijbce / mpiaijbce (also "aijbce")
          rows grouped by length with an optimal partition (dynamic program over a byte time model),
          each group ELL column by column, a thread per row; long rows apart, in chunks (Yang, Li &
          Li 2018)
      cusparsesell = seqaijcusparsesell / mpiaijcusparsesell (also "aijcusparsesell")
          cuSPARSE's sliced ELL and its SpMV (CUSPARSE_SPMV_SELL_ALG1), built on the GPU from the CSR
      cusparsecsr  = seqaijcusparsecsr / mpiaijcusparsecsr (also "aijcusparsecsr")
          cuSPARSE's CSR and its SpMV (CUSPARSE_SPMV_CSR_ALG1, or ALG2), the CSR uploaded as it is
      cusparsebsr  = seqaijcusparsebsr / mpiaijcusparsebsr (also "aijcusparsebsr")
          cuSPARSE's BSR and its SpMV (CUSPARSE_SPMV_BSR_ALG1), built on the GPU from the CSR
      Transposed products of these three run on the host (cuSPARSE's BSR SpMV has none; the sliced
      ELL and CSR ones are not used).

  Options: docs/options.md lists every one (-mat_<format>_* of each format, -mat_gpumat_* of the
  machinery); -help prints those of the types in use.

  -log_view events: <Format>Build (full build after a new nonzero pattern), <Format>Refresh
  (values only), e.g. CsrspecBuild / CsrspecRefresh, whenever products run through the format.
*/
#pragma once
#include <petscmat.h>

#define MATCSRSPEC       "csrspec"
#define MATAIJCSRSPEC    "aijcsrspec"
#define MATSEQAIJCSRSPEC "seqaijcsrspec"
#define MATMPIAIJCSRSPEC "mpiaijcsrspec"

#define MATBCCOO       "bccoo"
#define MATAIJBCCOO    "aijbccoo"
#define MATSEQAIJBCCOO "seqaijbccoo"
#define MATMPIAIJBCCOO "mpiaijbccoo"
#define MATPJDS       "pjds"
#define MATAIJPJDS    "aijpjds"
#define MATSEQAIJPJDS "seqaijpjds"
#define MATMPIAIJPJDS "mpiaijpjds"
#define MATBCE       "bce"
#define MATAIJBCE    "aijbce"
#define MATSEQAIJBCE "seqaijbce"
#define MATMPIAIJBCE "mpiaijbce"
#define MATCUSPARSESELL       "cusparsesell"
#define MATAIJCUSPARSESELL    "aijcusparsesell"
#define MATSEQAIJCUSPARSESELL "seqaijcusparsesell"
#define MATMPIAIJCUSPARSESELL "mpiaijcusparsesell"

#define MATCUSPARSECSR       "cusparsecsr"
#define MATAIJCUSPARSECSR    "aijcusparsecsr"
#define MATSEQAIJCUSPARSECSR "seqaijcusparsecsr"
#define MATMPIAIJCUSPARSECSR "mpiaijcusparsecsr"

#define MATCUSPARSEBSR       "cusparsebsr"
#define MATAIJCUSPARSEBSR    "aijcusparsebsr"
#define MATSEQAIJCUSPARSEBSR "seqaijcusparsebsr"
#define MATMPIAIJCUSPARSEBSR "mpiaijcusparsebsr"

#define MATGPUAUTO       "gpuauto"
#define MATAIJGPUAUTO    "aijgpuauto"
#define MATSEQAIJGPUAUTO "seqaijgpuauto"
#define MATMPIAIJGPUAUTO "mpiaijgpuauto"

/* Registers every type of this library with PETSc. Idempotent. Called automatically when the
   library is loaded with -dll_append; call it yourself after PetscInitialize() when you link it. */
PETSC_EXTERN PetscErrorCode PetscGpuMatInitialize(void);

/* Device memory held by the GPU format of A (both blocks for MPI matrices; 0 before the first
   device product). *ours is PETSC_FALSE when A is not a petsc-gpumat matrix. */
PETSC_EXTERN PetscErrorCode MatGpuMatGetDeviceBytes(Mat A, PetscBool *ours, size_t *bytes);

/* The format storing A's block (MPI: the diagonal and off-diagonal blocks): the type's own root name,
   or for gpuauto the candidate it chose for that block; NULL before the block's first build or when A
   is not a petsc-gpumat matrix. The strings stay valid until A's next build or destruction. */
PETSC_EXTERN PetscErrorCode MatGpuMatGetStoredAs(Mat A, const char **diag, const char **offdiag);

/* Which block of A a query is about: a sequential matrix, or an MPI matrix's diagonal block
   (MAT_GPUMAT_DIAGONAL_BLOCK); an MPI matrix's off-diagonal block (MAT_GPUMAT_OFFDIAGONAL_BLOCK). */
typedef enum {
  MAT_GPUMAT_DIAGONAL_BLOCK    = 0,
  MAT_GPUMAT_OFFDIAGONAL_BLOCK = 1
} MatGpuMatBlock;

/* What a petsc-gpumat matrix holds for one block. */
typedef struct {
  PetscBool   ours;   /* A is a petsc-gpumat matrix; nothing else is set otherwise */
  const char *format; /* the format storing the block (gpuauto: the candidate it chose); NULL before its first build */
  PetscBool   compressed;                         /* stored as its nonempty rows (-mat_gpumat_compressed_rows) */
  PetscInt    rows, empty_rows;                   /* the block's rows, and those empty (counted at its last build) */
  PetscInt    host_builds, device_builds;         /* builds of the storage (a new nonzero pattern), per side */
  PetscInt    device_csr_builds;                  /* of the device builds, those from the block's CSR on the device, its aijcusparse shadow's (a device product's result, or the copy -mat_gpumat_device_csr keeps): no upload of their own */
  PetscInt    shadow_products;                    /* products of a device product's result run through cuSPARSE on its CSR before its format's build (-mat_gpumat_shadow_products) */
  PetscInt    host_refreshes, device_refreshes;   /* value refreshes (new values, same pattern), per side */
  PetscInt    coo_device_assemblies;              /* writes of the values on the GPU: MatSetValuesCOO with device values, and each numeric phase of a device product whose result is this block */
  PetscBool   values_hooked;                      /* PETSc's AIJ value accessors hooked (COO maps made: device values copied back on demand) */
  size_t      device_bytes;                       /* device memory held: the format, the row list, COO values and maps (not the shadow's CSR, -mat_gpumat_device_csr) */
  PetscBool   host_products, host_reference;      /* -mat_gpumat_host, -mat_gpumat_host_reference */
  PetscBool   eager;                              /* -mat_gpumat_eager */
  PetscBool   overlap, side_stream, gpu_aware_mpi; /* MPI matrices: -mat_gpumat_overlap, _side_stream, _gpu_aware_mpi */
} MatGpuMatInfo;

/* The block's state; for an MPI matrix on every rank its own block (not collective). */
PETSC_EXTERN PetscErrorCode MatGpuMatGetInfo(Mat A, MatGpuMatBlock block, MatGpuMatInfo *info);

/* One of the parameters the block's format chose or was given, machine-readable: *value is its text
   (numbers in plain decimal), or NULL where the format has no such key (docs/options.md and
   docs/usage.md list the keys). The string stays valid until the next query of this block or its next
   build. Not collective. */
PETSC_EXTERN PetscErrorCode MatGpuMatGetProperty(Mat A, MatGpuMatBlock block, const char *key, const char **value);

/* Every property of the block at once: *n keys and their values (as MatGpuMatGetProperty's), valid
   until the next query of this block or its next build; *n is 0 before the block's first build or
   when A is not a petsc-gpumat matrix. Not collective. */
PETSC_EXTERN PetscErrorCode MatGpuMatGetProperties(Mat A, MatGpuMatBlock block, PetscInt *n, const char *const **keys, const char *const **values);

/* The loader's entry point (PETSc's naming rule for libpetscgpumat.so). */
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_petscgpumat(void);
