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

  Options (read by MatSetFromOptions and when a matrix becomes one of these types):
      -mat_csrspec_w <n>                nonzeros per thread per tile (0..64, 0 = default 8; warps*W <= 256)
      -mat_csrspec_warps <n>            warps per block (0..16, 0 = default 2)
      -mat_csrspec_tiles_per_block <n>  tiles a block processes in sequence, S (0..1024, 0 = default: on the
                                        GPU one wave of resident blocks, on the host 2)
      -mat_bccoo_block_height <n>       block height h (0..4, 0 = the model's: the shape with the fewest bytes)
      -mat_bccoo_block_width <n>        block width w (0, 1, 2, 4; 0 = the model's)
      -mat_bccoo_slices <n>             vertical slices, BCCOO+ (0..32, 0 = default 1)
      -mat_bccoo_tile <n>               blocks per thread T (0 or a multiple of 8 in 8..128; 0 = the model: 32 for long block rows, else 16)
      -mat_bccoo_group <n>              threads per work group (0 or a multiple of 32 in 32..512; 0 = the model: 128 or 256)
      -mat_bccoo_compress_columns <auto|yes|no>  16-bit column differences (auto: 1x1 blocks if none escapes, larger if < 1/10)
      -mat_bccoo_tune                   choose the parameters not set above by timing candidates on the GPU at the
                                        device build (the paper's pruned auto-tuner: the 4 block shapes of fewest
                                        bytes x compression, then tile x group, then slices; at most 44 candidates,
                                        the model's choice among them), cached on disk per pattern (tuning cache
                                        below); -mat_view ::ascii_info reports it. CPU builds (no CUDA): accepted,
                                        the model's choice is used; host builds use the model's choice too
      -mat_bccoo_tune_reps <n>          timed products per candidate of the tuner, median (1..1000, default 10)
      -mat_bccoo_strategy <n>           row sums to y through the work group's result cache (2) or straight from
                                        the threads (1), the paper's strategies (0 = the model's: 2); not tuned
      -mat_pjds_block_rows <n>          rows per padded block, b_r (1..1024, 0 = default 32)
      -mat_pjds_sigma <n>               sorting window in rows (1 = none, n = windows of n rows, >= the rows = all;
                                        0 = the model: the smallest of 1, 4096, .., 1048576, all with padding <= 4.5 %)
      -mat_pjds_long_row <n>            rows longer than n go to the long part, cut into chunks (0 = the model:
                                        32, none where the longest row has at most 128 entries and 3 times
                                        the mean; halved down to 32 while sorted padding is above 4.5 %)
      -mat_pjds_occupancy <n>           the GPU product's instance: 4 or 6 resident blocks per multiprocessor
                                        (0 = measured: the first 6 products after a build alternate between
                                        them, timed by CUDA events, and the faster is kept)
      -mat_pjds_lanes <n>               GPU product: lanes summing a chunk of a long row, 4, 8, 16 or 32 (0 = the
                                        long rows' mean length / 8 rounded up to a power of two within 4..32)
      -mat_pjds_passes <n>              GPU product: passes of 8 loads per lane in a chunk, 1..64 (a chunk is
                                        lanes x 8 x passes entries; 0 = longest / (8 lanes) within 1..4)
      -mat_bce_long_row <n>             rows longer than n go to the long part, cut into chunks (0 = 32, none
                                        where the longest row has at most 128 entries and 3 times the mean)
      -mat_bce_group_cost <c>           the time model's cost of a group, bytes per entry of its width (-1 =
                                        64: two sectors per step of its last warp; 0 = a group per row length)
      -mat_bce_max_sets <n>             row-length sets left after merging, 2..4096 (0 = 1025)
      -mat_bce_window <n>               rows per window of the reordering: a window's rows of a group form a
                                        block (0 = 65536; the row count or more: the paper's global grouping)
      -mat_bce_lanes <n>, -mat_bce_passes <n>   as -mat_pjds_lanes / -mat_pjds_passes for bce's long rows
      -mat_cusparsesell_slice <n>       rows per slice of the sliced ELL (1..1024, default 32: a warp's rows)
      -mat_cusparsecsr_alg <n>          cuSPARSE's CSR SpMV algorithm: 1 (CUSPARSE_SPMV_CSR_ALG1, the default) or
                                        2 (CUSPARSE_SPMV_CSR_ALG2)
      -mat_cusparsebsr_bs <n>           BSR block dimension (2..16; 0 = default: the matrix's block size when
                                        in 2..16, else the size in 2..6 that stores the fewest bytes)
      -mat_cusparsebsr_row_major        row-major blocks (default column-major)
      -mat_gpuauto_candidates <list>    formats gpuauto chooses among (default every one available:
                                        cusparsecsr,pjds,bccoo,cusparsesell,cusparsebsr,csrspec,bce); each
                                        candidate takes its own options (-mat_pjds_*, ...)
      -mat_gpuauto_choose <name>        become this candidate, skipping the prediction (shown by MatView)
      -mat_gpuauto_trial <k>            time the first k predictions (2..7) and keep the fastest; the choice
                                        goes to the tuning cache (0 = off, the default)
      -mat_gpuauto_trial_products <n>   products timed per candidate in a trial (1..1000, default 10)
      -mat_gpuauto_small <n>            blocks with fewer nonzeros become csrspec unpredicted (default 2^20; 0 = none)
      -mat_gpuauto_constants <file>     the GPU's constants of the predictions (bench/calibrate.py fits them
                                        to a suite run; default the GPU's shipped ones, conf/gpuauto/h100.txt
                                        or h200.txt);
                                        a bad file: a warning, the shipped ones
  Options of every type (prefix -mat_gpumat_):
      -mat_gpumat_eager                 build the format in MatAssemblyEnd instead of at the first product
      -mat_gpumat_host                  run products on the host even for CUDA vectors (debugging)
      -mat_gpumat_host_reference        host products with the format's host reference kernel, not SeqAIJ's
      -mat_gpumat_compressed_rows <auto|always|never>   store a block as its nonempty rows (default auto)
      -mat_gpumat_compressed_rows_ratio <r>             empty-row fraction from which auto does (0..1, 0.6)
      -mat_gpumat_tuning_cache <dir>    where a format tunes, its decisions are cached on disk per nonzero
                                        pattern, GPU and precision, in <dir> (default $PETSC_GPUMAT_TUNING_DIR,
                                        else $XDG_CACHE_HOME/petsc-gpumat/tuning, else ~/.cache/petsc-gpumat/tuning)
      -mat_gpumat_tuning_cache_disable  neither read nor write that cache (decide afresh for every new pattern)
  Options of the MPI types:
      -mat_gpumat_overlap <bool>        the halo exchange overlapped with the diagonal block's product (default
                                        on), or finished before it (0: Kreutzer et al.'s vector mode)
      -mat_gpumat_gpu_aware_mpi <bool>  device vectors' ghost values handed to MPI in device memory by this
                                        matrix's scatter (1) or staged through host buffers (0); default PETSc's
                                        -use_gpu_aware_mpi. For an MPI that moves device buffers in point-to-point
                                        messages but fails PETSc's start-up check (MPICH on UCX with
                                        MPIR_CVAR_NOLOCAL=1); refused with an error naming the reason where the
                                        MPI is known not to (Open MPI without CUDA, MPICH without GPU support
                                        outside that setting)
      -mat_gpumat_side_stream <bool>    CUDA builds, CUDA vectors, with the overlap: the diagonal block's
                                        product on a CUDA stream of the matrix's own, while our pack of the
                                        ghost values, their exchange (through the host or not) and the
                                        off-diagonal rows' product run on PETSc's stream (default on); 0:
                                        PETSc's order on its stream (VecScatterBegin, which returns after its
                                        pack and host copy, then the diagonal product). Under
                                        -log_view_gpu_time the diagonal product stays on PETSc's stream

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

/* The loader's entry point (PETSc's naming rule for libpetscgpumat.so). */
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_petscgpumat(void);
