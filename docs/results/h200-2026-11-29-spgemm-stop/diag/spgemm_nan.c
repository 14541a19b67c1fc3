/* Does cuSPARSE's SpGEMM (PETSc's seqaijcusparse AtB symbolic phase) finish when B's values hold a
   given bit pattern? PETSc's MatProductSymbolic_ABC_Basic (PtAP) uploads its intermediate A*P with the
   host values its symbolic phase left uninitialized (PetscMalloc1); this program puts a chosen
   pattern there instead and times C = P^T B.
     spgemm_nan -n ROWS -pattern zero|ones|qnan|random   (exit 0: finished) */
#include <petscmat.h>
#include <string.h>

int main(int argc, char **argv)
{
  Mat         P, B, C;
  PetscInt    n = 2000000, m, k = 8, i, j;
  char        pat[32] = "ones";
  PetscScalar *a;
  PetscLogDouble t0, t1;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-pattern", pat, sizeof pat, NULL));
  m = n / 27;
  for (int which = 0; which < 2; which++) {
    Mat X;
    PetscCall(MatCreateSeqAIJCUSPARSE(PETSC_COMM_SELF, n, m, k, NULL, &X));
    for (i = 0; i < n; i++) {
      PetscInt    c[8];
      PetscScalar v[8];
      for (j = 0; j < k; j++) {
        c[j] = (i / 27 + (j * 7919 + (which ? 13 : 0) * j + (i % 5) * j) % 97) % m;
        v[j] = 1.0 + j;
      }
      PetscCall(MatSetValues(X, 1, &i, k, c, v, ADD_VALUES));
    }
    PetscCall(MatAssemblyBegin(X, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(X, MAT_FINAL_ASSEMBLY));
    if (which) B = X; else P = X;
  }
  {
    PetscInt nz;
    PetscCall(MatSeqAIJGetArray(B, &a));
    PetscCall(MatSeqAIJGetMaxRowNonzeros(B, &nz));
    MatInfo info;
    PetscCall(MatGetInfo(B, MAT_LOCAL, &info));
    nz = (PetscInt)info.nz_used;
    if (!strcmp(pat, "ones")) memset(a, 0xff, sizeof(PetscScalar) * nz);
    else if (!strcmp(pat, "zero")) memset(a, 0, sizeof(PetscScalar) * nz);
    else if (!strcmp(pat, "qnan")) { unsigned long long q = 0x7ff8000000000000ull; for (i = 0; i < nz; i++) memcpy(a + i, &q, 8); }
    else { unsigned long long s = 88172645463325252ull; for (i = 0; i < nz; i++) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; memcpy(a + i, &s, 8); } }
    PetscCall(MatSeqAIJRestoreArray(B, &a));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "B: %" PetscInt_FMT " x %" PetscInt_FMT ", %" PetscInt_FMT " nonzeros, values: %s\n", n, m, nz, pat));
  }
  PetscCall(PetscTime(&t0));
  PetscCall(MatTransposeMatMult(P, B, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &C));
  PetscCall(PetscTime(&t1));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "C = P^T B finished in %.3f s\n", t1 - t0));
  PetscCall(MatDestroy(&C));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&P));
  PetscCall(PetscFinalize());
  return 0;
}
