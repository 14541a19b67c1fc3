// Sparse-sparse products (MatProduct) with one of our types as an operand, checked against the same
// products of AIJ matrices: AB, AtB, ABt, PtAP, RARt and ABC, symbolic once and numeric again after
// the operands' values change (as GAMG's re-set-up and SNES do), at any number of ranks.
//   -type <csrspec>          our type (A, and P/R/B where -operands ours; P/R/B alone where
//                            -operands reversed)
//   -kind <lap2d> -n <20>    A, square (examples/gen.h)
//   -operands ours|aij|reversed  the other sparse operands: of our type too, or of A's base type (aij,
//                            or aijcusparse on a CUDA build with CUDA vectors); reversed: A of
//                            that base type and the others ours (the result then A's type, not
//                            ours: its values checked, not our storage; no shared case)
//   -products <list>         which of ab,atb,abt,ptap,rart,abc,smoothed,replace,shared,dense
//                            (default all); smoothed: GAMG's smoothed prolongator and Galerkin
//                            product (CheckSmoothed); replace: MatProductReplaceMats
//                            (CheckReplace); shared: one upload of A's CSR for its format and its
//                            products (CheckShared, -mat_gpumat_device_csr); dense: A B, A^T B and
//                            B^T A B with B dense (CheckDense: AIJ's dense algorithms; on the
//                            device each -mat_gpumat_dense_products route)
//   -expect_host             the results' values were computed by AIJ's host algorithm (no device
//                            COO assembly: the CPU backend asked for, -mat_product_algorithm_backend_cpu)
//   -expect_device           the results' values arrived on the device (the device route: a device
//                            COO assembly of the result per numeric phase, MatGpuMatGetInfo); and
//                            with -mat_gpumat_shadow_products 0 a result (MPI: its diagonal block)
//                            stored as pjds, bce, csrspec or bccoo (untuned), not as its nonempty
//                            rows, was built from the product's CSR on the device
//                            (device_csr_builds); otherwise the result's first product ran through
//                            cuSPARSE on that CSR and its format was not built (shadow_products);
//                            at 1 rank a PtAP, RARt or ABC made again uploads no matrix, with
//                            -operands reversed one, its aijcusparse result's pattern (CheckNoUpload)
// Every result is compared entry by entry with AIJ's (relative Frobenius norm of the difference at
// most 1e-12) and must be of A's type with its blocks ours. Exits non-zero, with the reason, when a
// check fails.
#include <petscmat.h>
#include <petscgpumat.h>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include "gen.h"
#include "same_as_aij.hpp"
#include "vec_check.hpp"

namespace {

char     type[64]     = "csrspec";
char     kind[64]     = "lap2d";
char     operands[16] = "ours";
bool     reversed     = false; // -operands reversed: A of the base type, the other operands ours
PetscInt n            = 20;
PetscBool expect_device = PETSC_FALSE;
PetscBool expect_host   = PETSC_FALSE; // -expect_host: the results' values computed by AIJ's host algorithm
PetscBool bccoo_tuned   = PETSC_FALSE; // -mat_bccoo_tune: bccoo builds from its own upload
PetscInt  shadow_first  = 100;         // -mat_gpumat_shadow_products (the library's default, docs/options.md)

// A rectangular interpolation-like matrix of rows x cols (cols about rows / 2), AIJ: row i has
// entries in columns i/2 and (i/2 + 1) mod cols with values that depend on i (an aggregation's
// smoothed prolongator has this shape), in the layout of A's rows.
PetscErrorCode Interpolation(Mat A, Mat *P)
{
  PetscInt M, rstart, rend, cols;
  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &M, nullptr));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  cols = (M + 1) / 2;
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), P));
  PetscCall(MatSetSizes(*P, rend - rstart, PETSC_DECIDE, M, cols));
  PetscCall(MatSetType(*P, MATAIJ));
  PetscCall(MatSeqAIJSetPreallocation(*P, 2, nullptr));
  PetscCall(MatMPIAIJSetPreallocation(*P, 2, nullptr, 2, nullptr));
  for (PetscInt i = rstart; i < rend; i++) {
    const PetscInt    c[2] = {i / 2, (i / 2 + 1) % cols};
    const PetscScalar v[2] = {1.0 + 0.01 * (i % 7), 0.5 - 0.02 * (i % 5)};
    PetscCall(MatSetValues(*P, 1, &i, c[0] == c[1] ? 1 : 2, c, v, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*P, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// A copy of X as `to` (a new matrix)
PetscErrorCode As(Mat X, const char *to, Mat *Y)
{
  PetscFunctionBegin;
  PetscCall(MatConvert(X, to, MAT_INITIAL_MATRIX, Y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

struct Case {
  const char    *name;
  MatProductType ptype;
  bool           three;         // ABC
};

// D = the product of this type of A, B (and C for ABC): MatProduct's API, symbolic and numeric once
PetscErrorCode MakeProduct(Mat A, Mat B, Mat C, MatProductType type, Mat *D)
{
  PetscFunctionBegin;
  PetscCall(MatProductCreate(A, B, C, D));
  PetscCall(MatProductSetType(*D, type));
  PetscCall(MatProductSetFromOptions(*D));
  PetscCall(MatProductSymbolic(*D));
  PetscCall(MatProductNumeric(*D));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// How many times the event `name` ran so far on this rank (the log is on: main)
PetscErrorCode Events(const char *name, PetscInt *count)
{
  PetscLogEvent      ev;
  PetscEventPerfInfo info;
  PetscFunctionBegin;
  PetscCall(PetscLogEventGetId(name, &ev));
  PetscCheck(ev >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "no %s event registered", name);
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, ev, &info));
  *count = info.count;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The uploads of matrices to the GPU so far (MatCUSPARSCopyTo, aijcusparse's copy; 0 without CUDA)
PetscErrorCode Uploads(PetscInt *count)
{
  PetscFunctionBegin;
  *count = 0;
#if defined(PETSC_HAVE_CUDA)
  PetscCall(Events("MatCUSPARSCopyTo", count));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(PETSC_HAVE_CUDA)
// A seq three-operand product (PtAP, RARt, ABC) on the device route, its operands' shadows on the
// device already (the product was just made once): its symbolic and numeric phases upload no matrix
// (no MatCUSPARSCopyTo). PETSc's own split (MatProductSymbolic_ABC_Basic) would upload its first
// pair's product from the host values its symbolic phase left uninitialized, for cuSPARSE to compute
// with; the device route computes that product's values first. With A aijcusparse (-operands
// reversed) the result is aijcusparse, preallocated by COO from the inner result's host pattern:
// that pattern goes to the device once (one MatCUSPARSCopyTo), its values never. A fresh product,
// compared with R.
PetscErrorCode CheckNoUpload(const Case &c, Mat A, Mat B, Mat Cthird, Mat R)
{
  PetscMPIInt size;
  PetscInt    before, after;
  Mat         C;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (!expect_device || size > 1 || (c.ptype != MATPRODUCT_PtAP && c.ptype != MATPRODUCT_RARt && c.ptype != MATPRODUCT_ABC)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(Uploads(&before));
  PetscCall(MakeProduct(A, B, c.three ? Cthird : nullptr, c.ptype, &C));
  PetscCall(Uploads(&after));
  const PetscInt expected = reversed ? 1 : 0;
  PetscCheck(after - before == expected, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: made again with its operands on the device, the product uploaded %d matrices (MatCUSPARSCopyTo); expected %d", c.name, (int)(after - before), (int)expected);
  std::string again = std::string(c.name) + " made again";
  PetscCall(SameAsAIJ(C, R, again.c_str()));
  PetscCall(MatDestroy(&C));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

// One product type: symbolic and numeric with our operands, against AIJ's; then the operands'
// values scaled (same pattern) and the numeric phase alone again.
PetscErrorCode CheckProduct(const Case &c, Mat A, Mat B, Mat Aaij, Mat Baij, Mat Cthird, Mat Caij)
{
  Mat         C, R;
  PetscBool   same;
  const char *expect_type, *got;
  PetscFunctionBegin;
  PetscCall(MakeProduct(A, B, c.three ? Cthird : nullptr, c.ptype, &C));
  PetscCall(MakeProduct(Aaij, Baij, c.three ? Caij : nullptr, c.ptype, &R));
  PetscCall(SameAsAIJ(C, R, c.name));
  PetscCall(PetscObjectGetType((PetscObject)A, &expect_type));
  PetscCall(PetscObjectTypeCompare((PetscObject)C, expect_type, &same));
  PetscCall(PetscObjectGetType((PetscObject)C, &got));
  PetscCheck(same, PetscObjectComm((PetscObject)A), PETSC_ERR_PLIB, "%s: the result is %s, not %s (A's type)", c.name, got, expect_type);
  if (!reversed) {
    MatGpuMatInfo info;
    PetscCall(MatGpuMatGetInfo(C, MAT_GPUMAT_DIAGONAL_BLOCK, &info));
    PetscCheck(info.ours, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the result's diagonal block is not of our type", c.name);
    PetscCheck(!expect_host || info.coo_device_assemblies == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the result's values were written on the device (%d device COO assemblies), not by AIJ's host algorithm", c.name, (int)info.coo_device_assemblies);
    PetscCheck(!expect_device || info.coo_device_assemblies >= 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the result's values did not arrive on the device (%d device COO assemblies)", c.name, (int)info.coo_device_assemblies);
    // a result (MPI: its diagonal block) whose format builds from a CSR on the device was built from the product's (SameAsAIJ's product): no upload;
    // not where the block is stored as its nonempty rows (that CSR is not the product's)
    const bool csr_build = info.format && !info.compressed && (!strcmp(info.format, "pjds") || !strcmp(info.format, "bce") || !strcmp(info.format, "csrspec") || (!strcmp(info.format, "bccoo") && !bccoo_tuned));
    if (expect_device && shadow_first > 0) // SameAsAIJ's C x, the result's first product: through cuSPARSE on the product's CSR, no build
      PetscCheck(info.device_builds == 0 && info.shadow_products == 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the result had %d device builds and %d products through its adopted shadow; expected 0 and 1 (-mat_gpumat_shadow_products %d)", c.name, (int)info.device_builds, (int)info.shadow_products, (int)shadow_first);
    else
      PetscCheck(!expect_device || !csr_build || (info.device_builds == 1 && info.device_csr_builds == 1), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the result (%s) had %d device builds, %d of them from the product's CSR on the device; expected 1 and 1", c.name, info.format, (int)info.device_builds, (int)info.device_csr_builds);
  }

#if defined(PETSC_HAVE_CUDA)
  PetscCall(CheckNoUpload(c, A, B, Cthird, R));
#endif

  // new values, same pattern: the numeric phase again (MatProductNumeric re-uses the symbolic one)
  PetscCall(MatScale(A, 2.0));
  PetscCall(MatScale(Aaij, 2.0));
  PetscCall(MatScale(B, -0.5));
  PetscCall(MatScale(Baij, -0.5));
  PetscCall(MatProductNumeric(C));
  PetscCall(MatProductNumeric(R));
  std::string again = std::string(c.name) + " after new values";
  PetscCall(SameAsAIJ(C, R, again.c_str()));
  PetscCall(MatScale(A, 0.5)); // back, for the next case
  PetscCall(MatScale(Aaij, 0.5));
  PetscCall(MatScale(B, -2.0));
  PetscCall(MatScale(Baij, -2.0));
  PetscCall(PetscPrintf(PetscObjectComm((PetscObject)A), "%s: %s equals AIJ's, symbolic once, numeric twice\n", c.name, got));
  PetscCall(MatDestroy(&C));
  PetscCall(MatDestroy(&R));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// GAMG's smoothed prolongator and Galerkin product, on both: T = A P, T = D^-1 T (MatDiagonalScale,
// D = diag(A)), T = P - w T (MatAYPX with a subset pattern: MatScale then MatAXPY), then T^T A T.
// With the device route every step after the first reads values a device product or operation wrote.
// Then A's values change and the Galerkin product is computed again (MAT_REUSE_MATRIX), as GAMG's
// re-set-up does.
PetscErrorCode CheckSmoothed(Mat A, Mat P, Mat Aaij, Mat Paij)
{
  Mat         T[2], G[2];
  Vec         d;
  const Mat   a[2] = {A, Aaij}, p[2] = {P, Paij};
  PetscFunctionBegin;
  PetscCall(MatCreateVecs(A, nullptr, &d));
  PetscCall(MatGetDiagonal(Aaij, d));
  PetscCall(VecReciprocal(d));
  for (int k = 0; k < 2; k++) {
    PetscCall(MatMatMult(a[k], p[k], MAT_INITIAL_MATRIX, PETSC_DETERMINE, &T[k]));
    PetscCall(MatDiagonalScale(T[k], d, nullptr));
    PetscCall(MatAYPX(T[k], -0.6, p[k], SUBSET_NONZERO_PATTERN));
  }
  PetscCall(SameAsAIJ(T[0], T[1], "smoothed prolongator"));
  // A seqaijcusparse (-operands reversed, 1 rank): T is aijcusparse too, and T^T A T is PETSc's own
  // seq product of two aijcusparse matrices (MatProductSymbolic_ABC_Basic), which PETSc 3.26.1
  // computes wrongly once A's newest values are on the GPU alone (an earlier case's MatScale of A
  // leaves them so): on an H200, with no type of ours anywhere, relative errors of 1 to 1e148
  // (docs/results/h200-2026-11-29d-dense-products, call 5). Not compared there.
  PetscBool seqcusparse = PETSC_FALSE;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJCUSPARSE, &seqcusparse));
  const bool galerkin = !seqcusparse;
  for (int k = 0; k < 2; k++) PetscCall(MatPtAP(a[k], T[k], MAT_INITIAL_MATRIX, PETSC_DETERMINE, &G[k]));
  if (galerkin) PetscCall(SameAsAIJ(G[0], G[1], "Galerkin product with it"));
  // GAMG's re-set-up with its interpolation kept (-pc_gamg_reuse_interpolation): new values of A,
  // the Galerkin product's numeric phase again (MAT_REUSE_MATRIX)
  for (int k = 0; k < 2; k++) {
    PetscCall(MatScale(a[k], 2.0));
    PetscCall(MatPtAP(a[k], T[k], MAT_REUSE_MATRIX, PETSC_DETERMINE, &G[k]));
  }
  if (galerkin) PetscCall(SameAsAIJ(G[0], G[1], "Galerkin product again after new values of A"));
  for (int k = 0; k < 2; k++) PetscCall(MatScale(a[k], 0.5)); // back, for the next case
  PetscCall(PetscPrintf(PetscObjectComm((PetscObject)A), "smoothed: the smoothed prolongator and its Galerkin product (again after new values of A) equal AIJ's\n"));
  for (int k = 0; k < 2; k++) {
    PetscCall(MatDestroy(&T[k]));
    PetscCall(MatDestroy(&G[k]));
  }
  PetscCall(VecDestroy(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// MatProductReplaceMats: C = A B, then B replaced by another matrix of its type and pattern (new
// values) and the numeric phase alone again, as a re-set-up with new operator objects does
PetscErrorCode CheckReplace(Mat A, Mat B, Mat Aaij, Mat Baij)
{
  Mat C, R, B2, B2aij;
  PetscFunctionBegin;
  PetscCall(MakeProduct(A, B, nullptr, MATPRODUCT_AB, &C));
  PetscCall(MatDuplicate(B, MAT_COPY_VALUES, &B2));
  PetscCall(MatScale(B2, 3.0));
  PetscCall(MatDuplicate(Baij, MAT_COPY_VALUES, &B2aij));
  PetscCall(MatScale(B2aij, 3.0));
  PetscCall(MatProductReplaceMats(nullptr, B2, nullptr, C));
  PetscCall(MatProductNumeric(C));
  PetscCall(MatMatMult(Aaij, B2aij, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &R));
  PetscCall(SameAsAIJ(C, R, "replace: A B2 after MatProductReplaceMats"));
  PetscCall(PetscPrintf(PetscObjectComm((PetscObject)A), "replace: the numeric phase with a replaced operand equals AIJ's\n"));
  for (Mat *m : {&C, &R, &B2, &B2aij}) PetscCall(MatDestroy(m));
  PetscFunctionReturn(PETSC_SUCCESS);
}


// Products with a dense operand, A of our type or of the base type (-operands reversed): C = A B,
// A^T B and B^T A B with B dense of A's vector type (dense CUDA with CUDA vectors; A's columns by 3,
// entries that depend on their global indices), against AIJ's (SameAsAIJ); then A's values scaled
// (same pattern) and each numeric phase again (MAT_REUSE_MATRIX). With -expect_device and A ours,
// once with each -mat_gpumat_dense_products route: spmm (aijcusparse's on A's shadow) runs no
// MatMult for A B and at 1 rank no MatMultTranspose for A^T B; loop runs one per column of B for
// each (PETSc's basic loop, "using basic looping over columns of a dense matrix"), as spmm's MPI
// A^T B does; auto is the loop for A B where AutoLoops says, else spmm. Elsewhere A B runs no
// MatMult (AIJ's and aijcusparse's algorithms; the CPU build's A^T B at most one
// MatMultTranspose, of A's MAIJ). With -expect_device every result is dense CUDA.
// Whether -mat_gpumat_dense_products auto takes the loop for A B: on one rank, where A's format
// (built here by a product) reads at most 0.6 of the CSR's bytes (12 B a nonzero, 4 a row pointer:
// double values, 32-bit indices) by its byte model (the property format_bytes; gpuauto's
// candidate.format_bytes)
PetscErrorCode AutoLoops(Mat A, PetscMPIInt size, bool *loop)
{
  Vec         x, y;
  MatInfo     mi;
  PetscInt    m;
  const char *v = nullptr;
  PetscFunctionBegin;
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecSet(x, 1.0));
  PetscCall(MatMult(A, x, y));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatGpuMatGetProperty(A, MAT_GPUMAT_DIAGONAL_BLOCK, "format_bytes", &v));
  if (!v) PetscCall(MatGpuMatGetProperty(A, MAT_GPUMAT_DIAGONAL_BLOCK, "candidate.format_bytes", &v));
  PetscCall(MatGetInfo(A, MAT_LOCAL, &mi));
  PetscCall(MatGetLocalSize(A, &m, nullptr));
  *loop = size == 1 && v && std::atof(v) <= 0.6 * (12.0 * mi.nz_used + 4.0 * (double)(m + 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CheckDense(Mat A, Mat Aaij)
{
  const PetscInt k = 3; // B's columns
  Mat            B, C[3], R[3];
  PetscInt       m, n, lo, hi, N, before[2], after[2];
  VecType        vtype;
  PetscMPIInt    size;
  const char    *names[3] = {"dense: A B", "dense: A^T B", "dense: B^T A B"};
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  PetscCall(MatGetLocalSize(A, &m, &n));
  PetscCall(MatGetSize(A, nullptr, &N));
  PetscCall(MatGetVecType(A, &vtype));
  PetscCall(MatCreateDenseFromVecType(PetscObjectComm((PetscObject)A), vtype, n, PETSC_DECIDE, N, k, PETSC_DECIDE, nullptr, &B));
  PetscCall(MatGetOwnershipRange(B, &lo, &hi));
  for (PetscInt i = lo; i < hi; i++)
    for (PetscInt j = 0; j < k; j++) PetscCall(MatSetValue(B, i, j, 0.25 + (PetscReal)((i * 7 + j * 13) % 17) / 17.0, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  const bool        routes = PetscDefined(HAVE_CUDA) && expect_device && !reversed; // our device routes
  const char *const route_names[3] = {"spmm", "loop", "auto"};
  for (int route = 0; route < (routes ? 3 : 1); route++) {
    bool loop = routes && route == 1; // A B by the loop; A^T B by the loop: the loop route, and every MPI one
    if (routes) {
      PetscCall(PetscOptionsSetValue(nullptr, "-mat_gpumat_dense_products", route_names[route]));
      PetscCall(MatSetFromOptions(A));
    }
    if (routes && route == 2) PetscCall(AutoLoops(A, size, &loop));
    const bool loop_atb = routes && (route == 1 || size > 1);
    // A^T B: one pass over A (at most one MatMultTranspose), one product per column, or not checked
    const int  atb  = !PetscDefined(HAVE_CUDA) ? 1 : routes ? (loop_atb ? 2 : 1) : expect_device && size == 1 ? 1 : 0;
    const Mat  ops[2] = {A, Aaij};
    Mat       *out[2] = {C, R};
    for (int round = 0; round < 2; round++) {
      const MatReuse reuse = round ? MAT_REUSE_MATRIX : MAT_INITIAL_MATRIX;
      if (round) {
        PetscCall(MatScale(A, -1.5));
        PetscCall(MatScale(Aaij, -1.5));
      }
      for (int o = 0; o < 2; o++) {
        const char *who = o ? "AIJ" : "A";
        PetscCall(Events("MatMult", &before[0]));
        PetscCall(MatMatMult(ops[o], B, reuse, PETSC_DETERMINE, &out[o][0]));
        PetscCall(Events("MatMult", &after[0]));
        PetscCall(Events("MatMultTranspose", &before[1]));
        PetscCall(MatTransposeMatMult(ops[o], B, reuse, PETSC_DETERMINE, &out[o][1]));
        PetscCall(Events("MatMultTranspose", &after[1]));
        PetscCall(MatPtAP(ops[o], B, reuse, PETSC_DETERMINE, &out[o][2]));
        const PetscInt mults = after[0] - before[0], tmults = after[1] - before[1], want = loop && !o ? k : 0;
        PetscCheck(mults == want, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s (%s, %s): %d MatMult; expected %d", names[0], who, routes ? route_names[route] : "default", (int)mults, (int)want);
        PetscCheck(atb != 1 || tmults <= 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s (%s): %d MatMultTranspose, A^T times B column by column; expected at most one", names[1], who, (int)tmults);
        PetscCheck(atb != 2 || o || tmults == k, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s (%s, %s): %d MatMultTranspose; expected one per column, %d", names[1], who, route_names[route], (int)tmults, (int)k);
      }
      for (int p = 0; p < 3; p++) {
        const std::string name = std::string(names[p]) + (routes ? std::string(" (") + route_names[route] + ")" : "") + (round ? " after new values" : "");
        // A aijcusparse at the MPI level: PETSc 3.26.1's A^T B multiplies by a MAIJ of A whose SeqMAIJ
        // kernels read the host values, which A's MatScale on the GPU left as they were (on an H200
        // the result was A^T B before the scaling). PETSc's own product, not compared after new values.
        if (round && reversed && size > 1 && PetscDefined(HAVE_CUDA) && p == 1) continue;
        PetscBool cuda = PETSC_FALSE;
        MatType   type;
        PetscCall(SameAsAIJ(C[p], R[p], name.c_str()));
        PetscCall(PetscObjectTypeCompareAny((PetscObject)C[p], &cuda, MATSEQDENSECUDA, MATMPIDENSECUDA, ""));
        PetscCall(MatGetType(C[p], &type));
        PetscCheck(!expect_device || cuda, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the result is %s, not dense CUDA", name.c_str(), type);
      }
      if (round) { // A's values back, for the next route and case
        PetscCall(MatScale(A, -1.0 / 1.5));
        PetscCall(MatScale(Aaij, -1.0 / 1.5));
      }
    }
    for (int p = 0; p < 3; p++) {
      PetscCall(MatDestroy(&C[p]));
      PetscCall(MatDestroy(&R[p]));
    }
  }
  if (routes) {
    PetscCall(PetscOptionsClearValue(nullptr, "-mat_gpumat_dense_products"));
    PetscCall(MatSetFromOptions(A));
  }
  PetscCall(PetscPrintf(PetscObjectComm((PetscObject)A), "dense: A B, A^T B and B^T A B with a dense B equal AIJ's, and again after new values%s\n", routes ? " (each route: spmm, loop, auto)" : ""));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// -mat_gpumat_device_csr: one upload of A's CSR for its format and its products. Two fresh copies of
// A, the first with the option on (prefix on_), the second with it off (prefix off_), each built by
// a product C x, then each multiplied by P (whose shadow an earlier product made), then
// given new values on the host (MatScale), a product again (a refresh) and the numeric phase again.
// Both copies' products and their C x equal AIJ's. On the device route, where A's block (MPI: its
// diagonal block) is stored by a format that builds from a device CSR and not as its nonempty rows,
// the first copy's build read the CSR aijcusparse uploaded for its shadow (device_csr_builds 1, the
// second's 0) and its symbolic and numeric phases uploaded one matrix fewer on every rank than the
// second's (MatCUSPARSCopyTo: that CSR again); elsewhere both the same. Either copy's refresh read
// the values its shadow uploaded, so at 1 rank the numeric phase after it uploaded nothing.
PetscErrorCode CheckShared(Mat A, Mat P, Mat Aaij, Mat Paij)
{
  Mat           copy[2], C[2], R, W;
  Vec           x, y, yaij;
  PetscInt      before, after, uploads[2][2], checks = 0;
  PetscMPIInt   size;
  MatGpuMatInfo info[2];
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  PetscCall(MatMatMult(A, P, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &W)); // P's shadow made
  PetscCall(MatDestroy(&W));
  PetscCall(MatMatMult(Aaij, Paij, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &R));
  PetscCall(MatCreateVecs(Aaij, &x, &yaij));
  PetscCall(vec_check::Fill(x, 1));
  for (int k = 0; k < 2; k++) {
    Vec xk;
    PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &copy[k]));
    PetscCall(PetscOptionsSetValue(nullptr, k ? "-off_mat_gpumat_device_csr" : "-on_mat_gpumat_device_csr", k ? "0" : "1"));
    PetscCall(MatSetOptionsPrefix(copy[k], k ? "off_" : "on_"));
    PetscCall(MatSetFromOptions(copy[k]));
    PetscCall(MatCreateVecs(copy[k], &xk, &y));
    PetscCall(VecCopy(x, xk));
    PetscCall(MatMult(copy[k], xk, y)); // the build
    PetscCall(MatMult(Aaij, x, yaij));
    PetscCall(vec_check::Expect(y, yaij, 1e-12, k ? "shared: C x, device CSR off" : "shared: C x", "AIJ", &checks));
    PetscCall(MatGpuMatGetInfo(copy[k], MAT_GPUMAT_DIAGONAL_BLOCK, &info[k]));
    PetscCall(Uploads(&before));
    PetscCall(MakeProduct(copy[k], P, nullptr, MATPRODUCT_AB, &C[k]));
    PetscCall(Uploads(&after));
    uploads[k][0] = after - before;
    PetscCall(SameAsAIJ(C[k], R, k ? "shared: A P, device CSR off" : "shared: A P"));
    PetscCall(MatScale(copy[k], 2.0)); // new values on the host
    PetscCall(MatMult(copy[k], xk, y)); // a refresh
    PetscCall(VecScale(yaij, 2.0));
    PetscCall(vec_check::Expect(y, yaij, 1e-12, k ? "shared: C x after new values, device CSR off" : "shared: C x after new values", "AIJ", &checks));
    PetscCall(Uploads(&before));
    PetscCall(MatProductNumeric(C[k]));
    PetscCall(Uploads(&after));
    uploads[k][1] = after - before;
    PetscCall(VecDestroy(&xk));
    PetscCall(VecDestroy(&y));
  }
  PetscCall(MatScale(Aaij, 2.0));
  PetscCall(MatMatMult(Aaij, Paij, MAT_REUSE_MATRIX, PETSC_DETERMINE, &R));
  for (int k = 0; k < 2; k++) PetscCall(SameAsAIJ(C[k], R, k ? "shared: A P after new values, device CSR off" : "shared: A P after new values"));
  PetscCall(MatScale(Aaij, 0.5)); // back, for the next case
  if (expect_device) {
    const char *f        = info[0].format;
    const bool  eligible = f && !info[0].compressed && (!strcmp(f, "pjds") || !strcmp(f, "bce") || !strcmp(f, "csrspec") || (!strcmp(f, "bccoo") && !bccoo_tuned));
    PetscCheck(info[0].device_csr_builds == (eligible ? 1 : 0) && info[1].device_csr_builds == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "shared: %s's builds from the CSR on the device: %d with -mat_gpumat_device_csr and %d without; expected %d and 0", f ? f : "(none)", (int)info[0].device_csr_builds, (int)info[1].device_csr_builds, eligible ? 1 : 0);
    PetscCheck(uploads[0][0] == uploads[1][0] - (eligible ? 1 : 0), PETSC_COMM_SELF, PETSC_ERR_PLIB, "shared: A P uploaded %d matrices with the device CSR kept and %d without; expected %d fewer", (int)uploads[0][0], (int)uploads[1][0], eligible ? 1 : 0);
    for (int k = 0; k < 2; k++) PetscCheck(size > 1 || uploads[k][1] == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "shared: the numeric phase after a refresh uploaded %d matrices (device CSR %s); expected none", (int)uploads[k][1], k ? "off" : "on");
  }
  PetscCall(PetscPrintf(PetscObjectComm((PetscObject)A), "shared: A P and C x equal AIJ's with the device CSR kept and without (%" PetscInt_FMT " vector checks)\n", checks));
  for (Mat *m : {&copy[0], &copy[1], &C[0], &C[1], &R}) PetscCall(MatDestroy(m));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&yaij));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

int main(int argc, char **argv)
{
  char      list[256] = "ab,atb,abt,ptap,rart,abc,smoothed,replace,shared,dense";
  Mat       A, Aaij, P, Paij, R, Raij, S, Saij;
  PetscBool cuda = PETSC_FALSE;
  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, nullptr, nullptr));
  PetscCall(PetscGpuMatInitialize());
  PetscCall(PetscLogDefaultBegin()); // event counts (CheckDense; with CUDA CheckNoUpload, CheckShared)
  PetscCall(ReadMatrixOptions(type, sizeof(type), kind, sizeof(kind), &n));
  PetscCall(PetscOptionsGetString(nullptr, nullptr, "-operands", operands, sizeof(operands), nullptr));
  PetscCall(PetscOptionsGetString(nullptr, nullptr, "-products", list, sizeof(list), nullptr));
  PetscCall(PetscOptionsGetBool(nullptr, nullptr, "-expect_device", &expect_device, nullptr));
  PetscCall(PetscOptionsGetInt(nullptr, nullptr, "-mat_gpumat_shadow_products", &shadow_first, nullptr));
  PetscCall(PetscOptionsGetBool(nullptr, nullptr, "-expect_host", &expect_host, nullptr));
  PetscCall(PetscOptionsGetBool(nullptr, nullptr, "-mat_bccoo_tune", &bccoo_tuned, nullptr));
  const MPI_Comm comm = PETSC_COMM_WORLD;
  PetscCheck(!std::strcmp(operands, "ours") || !std::strcmp(operands, "aij") || !std::strcmp(operands, "reversed"), comm, PETSC_ERR_ARG_WRONG, "-operands must be ours, aij or reversed, not '%s'", operands);
  reversed = !std::strcmp(operands, "reversed");
#if defined(PETSC_HAVE_CUDA)
  {
    char vtype[64] = "";
    PetscCall(PetscOptionsGetString(nullptr, nullptr, "-vec_type", vtype, sizeof(vtype), nullptr));
    cuda = std::strcmp(vtype, "standard") ? PETSC_TRUE : PETSC_FALSE; // the matrices' vectors are CUDA unless host vectors are asked for
  }
#endif
  const char *base  = cuda ? MATAIJCUSPARSE : MATAIJ;
  const char *other = std::strcmp(operands, "aij") ? type : base;

  PetscCall(GenCreate(comm, kind, n, 1, MATAIJ, &Aaij));
  PetscCall(As(Aaij, reversed ? base : type, &A));
  PetscCall(Interpolation(Aaij, &Paij));
  PetscCall(As(Paij, other, &P));
  PetscCall(MatTranspose(Paij, MAT_INITIAL_MATRIX, &Raij)); // R = P^T, for RARt
  PetscCall(As(Raij, other, &R));
  PetscCall(MatDuplicate(Aaij, MAT_COPY_VALUES, &Saij)); // a second square operand (AB, AtB, ABt, ABC)
  PetscCall(MatShift(Saij, 3.0));
  PetscCall(As(Saij, other, &S));

  const Case cases[] = {
    {"ab", MATPRODUCT_AB, false},     {"atb", MATPRODUCT_AtB, false},   {"abt", MATPRODUCT_ABt, false},
    {"ptap", MATPRODUCT_PtAP, false}, {"rart", MATPRODUCT_RARt, false}, {"abc", MATPRODUCT_ABC, true},
  };
  PetscInt ran = 0;
  for (const Case &c : cases) {
    if (!Listed(list, c.name)) continue;
    Mat B = c.ptype == MATPRODUCT_PtAP ? P : c.ptype == MATPRODUCT_RARt ? R : S;
    Mat Baij = c.ptype == MATPRODUCT_PtAP ? Paij : c.ptype == MATPRODUCT_RARt ? Raij : Saij;
    PetscCall(CheckProduct(c, A, B, Aaij, Baij, S, Saij));
    ran++;
  }
  if (Listed(list, "smoothed")) {
    PetscCall(CheckSmoothed(A, P, Aaij, Paij));
    ran++;
  }
  if (Listed(list, "replace")) {
    PetscCall(CheckReplace(A, S, Aaij, Saij));
    ran++;
  }
  if (Listed(list, "dense")) {
    PetscCall(CheckDense(A, Aaij));
    ran++;
  }
  if (Listed(list, "shared") && !reversed) {
    PetscCall(CheckShared(A, P, Aaij, Paij));
    ran++;
  }
  PetscCheck(ran > 0, comm, PETSC_ERR_ARG_WRONG, "-products '%s' names none of ab,atb,abt,ptap,rart,abc,smoothed,replace,shared,dense", list);
  PetscCall(PetscPrintf(comm, "test_matproduct: %" PetscInt_FMT " product cases checked\n", ran));
  for (Mat *m : {&A, &Aaij, &P, &Paij, &R, &Raij, &S, &Saij}) PetscCall(MatDestroy(m));
  PetscCall(PetscFinalize());
  return 0;
}
