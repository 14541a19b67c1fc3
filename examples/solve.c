static char help[] = "The main job: one KSP solve of a generated problem with several matrix types, compared.\n"
                     "  -kind <lap3d>          lap2d, lap3d, lap3d27, powerlaw, uniform (see examples/gen.h)\n"
                     "  -n <64>                grid points per dimension (stencils) or rows\n"
                     "  -types <list>          matrix types to compare; default aij,csrspec (plus aijcusparse with CUDA)\n"
                     "  -rtol etc.             any KSP/PC option; default CG+Jacobi for SPD kinds, GMRES+Jacobi otherwise\n"
                     "  -mat_vec_type <type>   the matrix's vector type (MatSetVecType: MatCreateVecs, the KSP's work vectors)\n"
                     "  -check_no_copies       solve twice; the second solve must make no CPU<->GPU copies on one\n"
                     "                         rank, and no more than the first GPU type's on several (MPI staging)\n"
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
  char      kind[64] = "lap3d", list[512], method[128] = "";
  PetscInt  n = 64, ntypes = 0;
  PetscReal tol = 1e-8;
  PetscBool flg, spd, check_copies = PETSC_FALSE;
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
  PetscCall(PetscOptionsGetString(NULL, NULL, "-kind", kind, sizeof(kind), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-types", list, sizeof(list), NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-check_no_copies", &check_copies, NULL));
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

    PetscCall(GenCreate(PETSC_COMM_WORLD, kind, n, 1, type, &A));
    { /* PETSc's -mat_vec_type (MatSetFromOptions reads it in a program that calls it): the type of
         MatCreateVecs' vectors, so of the KSP's work vectors; -mat_vec_type kokkos with -vec_type
         kokkos keeps every vector of the solve a Kokkos vector */
      char      vt[64];
      PetscBool set;
      PetscCall(PetscOptionsGetString(NULL, NULL, "-mat_vec_type", vt, sizeof(vt), &set));
      if (set) PetscCall(MatSetVecType(A, vt));
    }
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
