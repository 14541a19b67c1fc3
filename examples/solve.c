static char help[] = "The main job: one KSP solve of a generated problem with one or several matrix types, compared.\n"
                     "  -kind <lap3d>          lap2d, lap3d, lap3d27, powerlaw, uniform (see examples/gen.h)\n"
                     "  -n <64>                grid points per dimension (stencils) or rows\n"
                     "  -mat_type <type>       solve with this matrix type alone, as any PETSc program\n"
                     "  -types <list>          matrix types to compare (instead of -mat_type); default\n"
                     "                         aij,csrspec (plus aijcusparse with CUDA)\n"
                     "  -rtol etc.             any KSP/PC option; default CG+Jacobi for SPD kinds, GMRES+Jacobi otherwise\n"
                     "  -mat_vec_type <type>   the matrix's vector type (MatSetVecType: MatCreateVecs, the KSP's work vectors)\n"
                     "  -check_no_copies       solve twice; the second solve must make no CPU<->GPU copies on one\n"
                     "                         rank, and no more than the first GPU type's on several (MPI staging)\n"
                     "Each type is set by MatSetFromOptions (a type of -types as if given by -mat_type): every\n"
                     "-mat_ option applies to each type, and -help lists the options of the (first) type\n"
                     "(-mat_<type>_*, -mat_gpumat_*).\n"
                     "Exits with an error when a type's iteration count differs from the first type's, or its\n"
                     "solution differs by more than -tol (default 1e-8, relative).\n";

#include <petscksp.h>
#include <petscgpumat.h>
#include "gen.h"

typedef struct {
  char           type[64], where[48]; /* where its products ran */
  PetscInt       its;
  PetscReal      rnorm, diff;
  PetscLogDouble seconds;
} Result;

int main(int argc, char **argv)
{
  char      kind[64] = "lap3d", list[512], mat_type[64], method[128] = "";
  PetscInt  n = 64, ntypes = 0;
  PetscReal tol = 1e-8;
  PetscBool flg, spd, check_copies = PETSC_FALSE, types_set, mat_type_set;
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
  PetscCall(PetscOptionsString("-kind", "Generated problem: " GEN_KINDS, "GenCreate", kind, kind, sizeof(kind), NULL));
  PetscCall(PetscOptionsInt("-n", "Grid points per dimension (stencils) or rows", "GenCreate", n, &n, NULL));
  PetscCall(PetscOptionsString("-types", "Comma-separated matrix types to compare (instead of -mat_type)", "MatSetType", list, list, sizeof(list), &types_set));
  PetscCall(PetscOptionsReal("-tol", "Largest relative difference of a type's solution from the first type's", NULL, tol, &tol, NULL));
  PetscCall(PetscOptionsBool("-check_no_copies", "Solve twice; the second solve must make no CPU<->GPU copies (one rank) or no more than the first GPU type's", NULL, check_copies, &check_copies, NULL));
  PetscOptionsEnd();
  /* -mat_type: the one type to solve with (each type of a list is solved as if given by -mat_type,
     below, so the two cannot be combined) */
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mat_type", mat_type, sizeof(mat_type), &mat_type_set));
  PetscCheck(!(types_set && mat_type_set), PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "Give -types (several matrix types, compared) or -mat_type (one), not both");
  if (mat_type_set) PetscCall(PetscStrncpy(list, mat_type, sizeof(list)));
  PetscCall(GenIsSPD(kind, &spd));
  if (check_copies) PetscCall(PetscLogDefaultBegin());

  char *type = list, *next;
  for (; type && *type && ntypes < 16; type = next) {
    Mat      A;
    Vec      x, b;
    KSP      ksp;
    PC       pc;
    Result  *r = &res[ntypes++];
    PetscLogDouble t0, t1;
    next = strchr(type, ',');
    if (next) *next++ = 0;
    PetscCall(PetscStrncpy(r->type, type, sizeof(r->type)));

    /* The type as any PETSc program takes it: MatSetFromOptions reads -mat_type (a type of the list
       is given as -mat_type for the time of the creation), the matrix's options and its type's
       (-mat_<type>_*, -mat_gpumat_*; -help lists them), and -mat_vec_type: the type of
       MatCreateVecs' vectors, so of the KSP's work vectors (-mat_vec_type kokkos with -vec_type
       kokkos keeps every vector of the solve a Kokkos vector). */
    if (!mat_type_set) PetscCall(PetscOptionsSetValue(NULL, "-mat_type", type));
    PetscCall(GenCreate(PETSC_COMM_WORLD, kind, n, 1, NULL, &A));
    if (!mat_type_set) PetscCall(PetscOptionsClearValue(NULL, "-mat_type"));
    PetscCall(MatCreateVecs(A, &x, &b));
    PetscCall(VecSetFromOptions(x)); /* -vec_type overrides the matrix's default vector type */
    PetscCall(VecSetFromOptions(b));
    PetscCall(VecSet(x, 1.0));
    PetscCall(MatMult(A, x, b)); /* b = A * ones */
    PetscCall(VecSet(x, 0.0));
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetType(ksp, spd ? KSPCG : KSPGMRES));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCJACOBI));
    PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_CURRENT, PETSC_CURRENT, 10000));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(KSPSetUp(ksp));
    {
      KSPType kt;
      PCType  pt;
      PetscCall(KSPGetType(ksp, &kt));
      PetscCall(PCGetType(pc, &pt));
      PetscCall(PetscSNPrintf(method, sizeof(method), "KSP %s, PC %s", kt, pt));
    }
    PetscCall(PetscTime(&t0));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(VecNorm(x, NORM_2, &r->diff)); /* synchronizes the device before the clock */
    PetscCall(PetscTime(&t1));
    r->seconds = t1 - t0;
    if (check_copies) { /* again, same operator: every copy between host and device would be a leak */
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
        if (gpu && ref_copies < 0) ref_copies = copies;
        PetscCheck(!gpu || (size == 1 ? copies == 0 : copies <= ref_copies), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: the KSP iteration copied between host and device %g times (first GPU type: %g)", type, copies, ref_copies);
      }
#else
      (void)info;
      (void)gpu;
#endif
    }
    PetscCall(KSPGetIterationNumber(ksp, &r->its));
    PetscCall(KSPGetResidualNorm(ksp, &r->rnorm));
    if (!xref) {
      PetscCall(VecDuplicate(x, &xref));
      PetscCall(VecCopy(x, xref));
      r->diff = 0;
    } else PetscCall(GenRelDiff(x, xref, &r->diff));
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
    PetscCall(MatDestroy(&A));
  }
  PetscCall(VecDestroy(&xref));

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s n=%" PetscInt_FMT ", %s\n", kind, n, method));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-20s %8s %12s %12s %14s %14s  %s\n", "type", "its", "residual", "solve s", "s/iteration", "diff vs first", "products ran on"));
  flg = PETSC_TRUE;
  for (PetscInt i = 0; i < ntypes; i++) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-20s %8" PetscInt_FMT " %12.3e %12.4f %14.3e %14.2e  %s\n", res[i].type, res[i].its, (double)res[i].rnorm, res[i].seconds, res[i].its ? res[i].seconds / res[i].its : 0.0, (double)res[i].diff, res[i].where));
    if (res[i].its != res[0].its || res[i].diff > tol) flg = PETSC_FALSE;
  }
  PetscCheck(flg, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "The types disagree: iteration counts or solutions differ (tolerance %g)", (double)tol);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all types agree\n"));
  PetscCall(PetscFinalize());
  return 0;
}
