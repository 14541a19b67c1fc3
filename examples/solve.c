static char help[] = "The main job: one KSP solve of a generated problem with one or several matrix types, compared.\n"
                     "  -kind <lap3d>          lap2d, lap3d, lap3d27, fem3, powerlaw, uniform, ... (see examples/gen.h), or\n"
                     "                         plex3d: a DMPlex FEM Poisson problem (examples/plex.h; -plex_order <1>)\n"
                     "  -n <64>                grid points per dimension (stencils) or rows\n"
                     "  -mat_type <type>       solve with this matrix type alone, as any PETSc program\n"
                     "  -types <list>          matrix types to compare (instead of -mat_type); default\n"
                     "                         aij,csrspec (plus aijcusparse with CUDA)\n"
                     "  -rtol etc.             any KSP/PC option; default CG+Jacobi for SPD kinds, GMRES+Jacobi otherwise\n"
                     "  -mat_vec_type <type>   the matrix's vector type (MatSetVecType: MatCreateVecs, the KSP's work vectors)\n"
                     "  -warmup <1>            first solve a small problem (n = 8 for the grid kinds lap*, fem*, plex*, else\n"
                     "                         1000 rows) with every type, untimed\n"
                     "  -check_no_copies       solve twice; the second solve must make no CPU<->GPU copies on one\n"
                     "                         rank, and no more than the first GPU type's on several (MPI staging)\n"
                     "  -pmat                  the preconditioner gets a matrix of its own: a copy of A (MatDuplicate,\n"
                     "                         in the assembly clock) under the options prefix pre_, so -pre_mat_*\n"
                     "                         options reach it alone (-pre_mat_gpumat_values fp32); PCMG, GAMG and\n"
                     "                         PCKSP multiply by it with -pc_use_amat false\n"
                     "Each type is set by MatSetFromOptions (a type of -types as if given by -mat_type): every\n"
                     "-mat_ option applies to each type, and -help lists the options of the (first) type\n"
                     "(-mat_<type>_*, -mat_gpumat_*).\n"
                     "Time to solution, per type: assembly (the matrix created, filled and assembled), set-up\n"
                     "(KSPSetUp: the preconditioner's) and solve (KSPSolve), each between barriers with the\n"
                     "device synchronized, and their sum. The right-hand side is b = 1, so nothing uses the\n"
                     "matrix before the clock: a GPU type's build (or aijcusparse's copy to the GPU) falls in\n"
                     "whichever phase first needs it.\n"
                     "Exits with an error when a type's iteration count differs from the first type's, or its\n"
                     "solution differs by more than -tol (default 1e-8, relative).\n";

#include <petscksp.h>
#include <petscgpumat.h>
#if defined(PETSC_HAVE_DEVICE)
  #include <petscdevice.h>
#endif
#include "gen.h"
#include "plex.h"

/* -kind plex3d: the DMPlex mesh of the current size, made once (outside the clocks: the mesh and its
   discretization are the program's, whatever the matrix type) and kept for every type */
static DM       plex_dm    = NULL;
static PetscInt plex_n     = -1, plex_order = 1;

static PetscErrorCode PlexFor(PetscInt n, DM *dm)
{
  PetscFunctionBegin;
  if (plex_n != n) {
    PetscCall(DMDestroy(&plex_dm));
    PetscCall(PlexPoissonCreate(PETSC_COMM_WORLD, n, plex_order, &plex_dm));
    plex_n = n;
  }
  *dm = plex_dm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  char           type[64], where[48]; /* where its products ran */
  PetscInt       its;
  PetscReal      rnorm, diff;
  PetscLogDouble assembly, setup, solve; /* seconds */
} Result;

/* The clock at a point where every rank's work so far, on the host and the device, has finished */
static PetscErrorCode Now(PetscLogDouble *t)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_DEVICE)
  {
    PetscDeviceContext dctx;
    PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
    PetscCall(PetscDeviceContextSynchronize(dctx));
  }
#endif
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscCall(PetscTime(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One type's solve: assembly, set-up and solve timed into *r. xref: the first type's solution
   (set by the first call) to compare with, or NULL for an untimed warm-up run that compares nothing. */
static PetscBool pmat = PETSC_FALSE; /* -pmat: the preconditioner's matrix a copy of A under the prefix pre_ */

static PetscErrorCode SolveType(const char *kind, PetscInt n, PetscBool spd, const char *type, PetscBool mat_type_set, PetscBool check_copies, Result *r, Vec *xref, double *ref_copies, char *method, size_t method_len)
{
  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(r->type, type, sizeof(r->type)));
  Mat      A, P = NULL;
  Vec      x, b;
  KSP      ksp;
  PC       pc;
  PetscLogDouble t0, t1, t2, t3;
  PetscCall(PetscStrncpy(r->type, type, sizeof(r->type)));

  /* The type as any PETSc program takes it: MatSetFromOptions reads -mat_type (a type of the list
     is given as -mat_type for the time of the creation), the matrix's options and its type's
     (-mat_<type>_*, -mat_gpumat_*; -help lists them), and -mat_vec_type: the type of
     MatCreateVecs' vectors, so of the KSP's work vectors (-mat_vec_type kokkos with -vec_type
     kokkos keeps every vector of the solve a Kokkos vector). */
  DM dm = NULL;
  if (!strcmp(kind, "plex3d")) PetscCall(PlexFor(n, &dm));
  if (!mat_type_set) PetscCall(PetscOptionsSetValue(NULL, "-mat_type", type));
  PetscCall(Now(&t0));
  if (dm) PetscCall(PlexPoissonAssemble(dm, type, &A));
  else PetscCall(GenCreate(PETSC_COMM_WORLD, kind, n, 1, NULL, &A));
  if (pmat) {
    PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &P));
    PetscCall(MatSetOptionsPrefix(P, "pre_"));
    PetscCall(MatSetFromOptions(P));
  }
  PetscCall(Now(&t1));
  if (!mat_type_set) PetscCall(PetscOptionsClearValue(NULL, "-mat_type"));
  r->assembly = t1 - t0;
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSetFromOptions(x)); /* -vec_type overrides the matrix's default vector type */
  PetscCall(VecSetFromOptions(b));
  PetscCall(VecSet(b, 1.0));
  PetscCall(VecSet(x, 0.0));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, P ? P : A));
  PetscCall(KSPSetType(ksp, spd ? KSPCG : KSPGMRES));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_CURRENT, PETSC_CURRENT, 10000));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(Now(&t0));
  PetscCall(KSPSetUp(ksp));
  PetscCall(KSPSetUpOnBlocks(ksp));
  PetscCall(Now(&t1));
  r->setup = t1 - t0;
  {
    KSPType kt;
    PCType  pt;
    PetscCall(KSPGetType(ksp, &kt));
    PetscCall(PCGetType(pc, &pt));
    PetscCall(PetscSNPrintf(method, method_len, "KSP %s, PC %s%s", kt, pt, P ? ", its matrix a copy of A under the prefix pre_ (-pmat)" : ""));
  }
  PetscCall(Now(&t2));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(Now(&t3));
  r->solve = t3 - t2;
  if (check_copies && xref) { /* again, same operator: every copy between host and device would be a leak */
    PetscLogStage      stage;
    PetscEventPerfInfo info;
    char               name[80];
    PetscBool          gpu;
    PetscCall(PetscSNPrintf(name, sizeof(name), "Solve again %s", type));
    PetscCall(PetscLogStageRegister(name, &stage));
    PetscCall(VecSet(x, 0.0));
    PetscCall(PetscLogStagePush(stage));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(PetscLogStagePop());
    PetscCall(PetscLogStageGetPerfInfo(stage, &info));
    PetscCall(GenIsDeviceVec(x, &gpu));
#if defined(PETSC_HAVE_DEVICE)
    {
      PetscMPIInt size;
      double      copies = info.CpuToGpuCount + info.GpuToCpuCount;
      PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
      PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &copies, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: second solve made %g CPU->GPU and %g GPU->CPU copies on rank 0, %g at most on a rank\n", type, (double)info.CpuToGpuCount, (double)info.GpuToCpuCount, copies));
      if (gpu && *ref_copies < 0) *ref_copies = copies;
      PetscCheck(!gpu || (size == 1 ? copies == 0 : copies <= *ref_copies), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: the KSP iteration copied between host and device %g times (first GPU type: %g)", type, copies, *ref_copies);
    }
#else
    (void)info;
    (void)gpu;
#endif
  }
  PetscCall(KSPGetIterationNumber(ksp, &r->its));
  PetscCall(KSPGetResidualNorm(ksp, &r->rnorm));
  if (!xref) { /* a warm-up run: nothing compared */
  } else if (!*xref) {
    PetscCall(VecDuplicate(x, xref));
    PetscCall(VecCopy(x, *xref));
    r->diff = 0;
  } else PetscCall(GenRelDiff(x, *xref, &r->diff));
  {
    MatType   actual;
    PetscBool gpu, ours, reference = PETSC_FALSE;
    size_t    bytes;
    PetscCall(MatGetType(A, &actual));
    PetscCall(PetscStrncpy(r->type, actual, sizeof(r->type)));
    PetscCall(GenIsDeviceVec(x, &gpu));
    PetscCall(MatGpuMatGetDeviceBytes(A, &ours, &bytes));
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-mat_gpumat_host_reference", &reference, NULL));
    PetscCall(PetscStrncpy(r->where, gpu ? "GPU" : ours && reference ? "host, format's reference kernel" : "host, PETSc's SeqAIJ kernels", sizeof(r->where)));
  }
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&P));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char      kind[64] = "lap3d", list[512], mat_type[64], method[128] = "";
  PetscInt  n = 64, ntypes = 0;
  PetscReal tol = 1e-8;
  PetscBool flg, spd, check_copies = PETSC_FALSE, types_set, mat_type_set, warmup = PETSC_TRUE;
  Result    res[16];
  Vec       xref = NULL;
  double    ref_copies = -1; /* copies in the second solve of the first GPU type */

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGpuMatInitialize());
#if defined(PETSC_HAVE_CUDA)
  PetscCall(PetscStrncpy(list, "aij,aijcusparse,csrspec", sizeof(list)));
#else
  PetscCall(PetscStrncpy(list, "aij,csrspec", sizeof(list)));
#endif
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "solve: a KSP solve with one or several matrix types", NULL);
  PetscCall(PetscOptionsString("-kind", "Generated problem: " GEN_KINDS ", plex3d", "GenCreate", kind, kind, sizeof(kind), NULL));
  PetscCall(PetscOptionsInt("-plex_order", "plex3d: the Lagrange elements' order (1 or 2)", "PetscFECreateLagrange", plex_order, &plex_order, NULL));
  PetscCall(PetscOptionsInt("-n", "Grid points per dimension (stencils) or rows", "GenCreate", n, &n, NULL));
  PetscCall(PetscOptionsString("-types", "Comma-separated matrix types to compare (instead of -mat_type)", "MatSetType", list, list, sizeof(list), &types_set));
  PetscCall(PetscOptionsReal("-tol", "Largest relative difference of a type's solution from the first type's", NULL, tol, &tol, NULL));
  PetscCall(PetscOptionsBool("-warmup", "Solve a small problem with every type first, untimed (the libraries' first use outside the clocks)", NULL, warmup, &warmup, NULL));
  PetscCall(PetscOptionsBool("-pmat", "The preconditioner's matrix a copy of A under the options prefix pre_ (-pre_mat_* options reach it alone)", "KSPSetOperators", pmat, &pmat, NULL));
  PetscCall(PetscOptionsBool("-check_no_copies", "Solve twice; the second solve must make no CPU<->GPU copies (one rank) or no more than the first GPU type's", NULL, check_copies, &check_copies, NULL));
  PetscOptionsEnd();
  /* -mat_type: the one type to solve with (each type of a list is solved as if given by -mat_type,
     below, so the two cannot be combined) */
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mat_type", mat_type, sizeof(mat_type), &mat_type_set));
  PetscCheck(!(types_set && mat_type_set), PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "Give -types (several matrix types, compared) or -mat_type (one), not both");
  if (mat_type_set) PetscCall(PetscStrncpy(list, mat_type, sizeof(list)));
  if (!strcmp(kind, "plex3d")) spd = PETSC_TRUE;
  else PetscCall(GenIsSPD(kind, &spd));
  if (check_copies) PetscCall(PetscLogDefaultBegin());

  /* Warm-up: every type once on a small problem, untimed, so that no type's clock pays the
     process's first use of a library (the CUDA context, cuSPARSE's and cuBLAS's handles, MPI's
     connections) */
  if (warmup) {
    char    wlist[512], *wnext;
    Result  w;
    double  wcopies = -1;
    PetscCall(PetscStrncpy(wlist, list, sizeof(wlist)));
    for (char *wtype = wlist; wtype && *wtype; wtype = wnext) {
      wnext = strchr(wtype, ',');
      if (wnext) *wnext++ = 0;
      PetscCall(SolveType(kind, PetscMin(n, strncmp(kind, "lap", 3) && strncmp(kind, "fem", 3) && strncmp(kind, "plex", 4) ? 1000 : 8), spd, wtype, mat_type_set, PETSC_FALSE, &w, NULL, &wcopies, method, sizeof(method)));
    }
  }
  char *type = list, *next;
  for (; type && *type && ntypes < 16; type = next) {
    next = strchr(type, ',');
    if (next) *next++ = 0;
    PetscCall(SolveType(kind, n, spd, type, mat_type_set, check_copies, &res[ntypes++], &xref, &ref_copies, method, sizeof(method)));
  }
  PetscCall(VecDestroy(&xref));
  PetscCall(DMDestroy(&plex_dm));

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s n=%" PetscInt_FMT ", %s\n", kind, n, method));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-20s %8s %12s %12s %12s %12s %12s %14s %14s  %s\n", "type", "its", "residual", "assembly s", "set-up s", "solve s", "total s", "s/iteration", "diff vs first", "products ran on"));
  flg = PETSC_TRUE;
  for (PetscInt i = 0; i < ntypes; i++) {
    const Result *q = &res[i];
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-20s %8" PetscInt_FMT " %12.3e %12.4f %12.4f %12.4f %12.4f %14.3e %14.2e  %s\n", q->type, q->its, (double)q->rnorm, q->assembly, q->setup, q->solve, q->assembly + q->setup + q->solve, q->its ? q->solve / q->its : 0.0, (double)q->diff, q->where));
    if (res[i].its != res[0].its || res[i].diff > tol) flg = PETSC_FALSE;
  }
  PetscCheck(flg, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "The types disagree: iteration counts or solutions differ (tolerance %g)", (double)tol);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all types agree\n"));
  PetscCall(PetscFinalize());
  return 0;
}
