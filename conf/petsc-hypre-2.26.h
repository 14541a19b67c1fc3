/* petsc-gpumat: conf/petsc.sh inserts this into PETSc's include/petsc/private/petschypre.h, after
   its #include <HYPRE_utilities.h>, when it builds the cpu configuration against Debian 12's hypre
   2.26 (libhypre-dev). PETSc 3.26.1 states hypre 2.14 as its minimum but uses, without version
   checks, names that hypre 2.26 does not have, so it does not compile against it as it is:
   - HYPRE_INT_MAX, HYPRE_INT_MIN (petschypre.h, mhypre.c): the limits of HYPRE_Int, used to check
     that a PetscInt fits (always so here: both are 32-bit);
   - hypre_IntArrayDataI (PCHYPRE's BoomerAMG coarse-level markers): element i of a hypre_IntArray;
   - HYPRE_IJMatrixGetValues2 (MatGetValues of a MATHYPRE): PETSc calls it with no row_indexes,
     which is HYPRE_IJMatrixGetValues;
   - hypre ILU's iterative setup (HYPRE_ILUSetIterativeSetup*, HYPRE_BoomerAMGSetILUIterSetup*,
     hypre_BoomerAMGSetILUIterSetupTolerance, hypre_ParAMGDataILUIterSetup*), behind the options
     -pc_hypre_ilu_iterative_setup_* and -pc_hypre_boomeramg_ilu_iterative_setup_*: not in 2.26, so
     setting one of these options is a hypre error here, and views show 0 for them;
   - hypre_ParILUData and its accessors (the view of -pc_hypre_type ilu): hypre 2.26 does not
     install that struct, so that view shows 0 for hypre ILU's settings.
   BoomerAMG (-pc_hypre_type boomeramg, the default) and the rest of PCHYPRE are hypre 2.26's own. */
#if PETSC_PKG_HYPRE_VERSION_LT(2, 27, 0)
  #include <limits.h>
  #if !defined(HYPRE_INT_MAX)
    #if defined(HYPRE_BIGINT)
      #define HYPRE_INT_MAX LLONG_MAX
      #define HYPRE_INT_MIN LLONG_MIN
    #else
      #define HYPRE_INT_MAX INT_MAX
      #define HYPRE_INT_MIN INT_MIN
    #endif
  #endif
  #define hypre_IntArrayDataI(a, i) (hypre_IntArrayData(a)[i])
  #define HYPRE_IJMatrixGetValues2(ij, nrows, ncols, rows, row_indexes, cols, values) \
    ((void)(row_indexes), HYPRE_IJMatrixGetValues(ij, nrows, ncols, rows, cols, values))

  #define PETSC_GPUMAT_HYPRE_MISSING(s, v) ((void)(s), (void)(v), HYPRE_ERROR_GENERIC)
  #define HYPRE_ILUSetIterativeSetupType(s, v)           PETSC_GPUMAT_HYPRE_MISSING(s, v)
  #define HYPRE_ILUSetIterativeSetupOption(s, v)         PETSC_GPUMAT_HYPRE_MISSING(s, v)
  #define HYPRE_ILUSetIterativeSetupMaxIter(s, v)        PETSC_GPUMAT_HYPRE_MISSING(s, v)
  #define HYPRE_ILUSetIterativeSetupTolerance(s, v)      PETSC_GPUMAT_HYPRE_MISSING(s, v)
  #define HYPRE_BoomerAMGSetILUIterSetupType(s, v)       PETSC_GPUMAT_HYPRE_MISSING(s, v)
  #define HYPRE_BoomerAMGSetILUIterSetupOption(s, v)     PETSC_GPUMAT_HYPRE_MISSING(s, v)
  #define HYPRE_BoomerAMGSetILUIterSetupMaxIter(s, v)    PETSC_GPUMAT_HYPRE_MISSING(s, v)
  #define hypre_BoomerAMGSetILUIterSetupTolerance(s, v)  PETSC_GPUMAT_HYPRE_MISSING(s, v)
  #define hypre_ParAMGDataILUIterSetupType(d)            ((void)(d), 0)
  #define hypre_ParAMGDataILUIterSetupOption(d)          ((void)(d), 0)
  #define hypre_ParAMGDataILUIterSetupMaxIter(d)         ((void)(d), 0)
  #define hypre_ParAMGDataILUIterSetupTolerance(d)       ((void)(d), 0.0)

typedef struct _n_PetscGpuMatNoHypreILUData hypre_ParILUData;
  #define hypre_ParILUDataIluType(d)                ((void)(d), 0)
  #define hypre_ParILUDataLfil(d)                   ((void)(d), 0)
  #define hypre_ParILUDataMaxIter(d)                ((void)(d), 0)
  #define hypre_ParILUDataMaxRowNnz(d)              ((void)(d), 0)
  #define hypre_ParILUDataTriSolve(d)               ((void)(d), 0)
  #define hypre_ParILUDataTol(d)                    ((void)(d), 0.0)
  #define hypre_ParILUDataDroptol(d)                ((void)(d), petsc_gpumat_hypre_zero3)
  #define hypre_ParILUDataReorderingType(d)         ((void)(d), 0)
  #define hypre_ParILUDataLowerJacobiIters(d)       ((void)(d), 0)
  #define hypre_ParILUDataUpperJacobiIters(d)       ((void)(d), 0)
  #define hypre_ParILUDataPrintLevel(d)             ((void)(d), 0)
  #define hypre_ParILUDataLogging(d)                ((void)(d), 0)
  #define hypre_ParILUDataIterativeSetupType(d)     ((void)(d), 0)
  #define hypre_ParILUDataIterativeSetupOption(d)   ((void)(d), 0)
  #define hypre_ParILUDataIterativeSetupMaxIter(d)  ((void)(d), 0)
  #define hypre_ParILUDataIterativeSetupTolerance(d) ((void)(d), 0.0)
static PetscReal petsc_gpumat_hypre_zero3[3] PETSC_UNUSED;
#endif
