// What a petsc-gpumat matrix holds and chose, asserted through the library's queries
// (MatGpuMatGetInfo, MatGpuMatGetProperty) and PETSc's objects, not through printed text.
//   -type <csrspec> -kind <lap2d> -n <30>   the matrix (examples/gen.h), made with GenCreate
//   -expect <key=value,...>                 after one product: each key of the block (-block diag|offdiag)
//                                           equals value; "key~regex" matches a regular expression
//                                           instead. Keys "info.<field>" are MatGpuMatGetInfo's fields
//                                           (format, compressed, rows, empty_rows, host_builds,
//                                           device_builds, host_refreshes, device_refreshes,
//                                           coo_device_assemblies, overlap, side_stream,
//                                           gpu_aware_mpi); the others the format's properties. The
//                                           list is split at commas: a regex matches one with '.'.
//   -check optable     a matrix of the type converted back to AIJ (seq and MPI, in place and to a new
//                      matrix) keeps none of the library's operations: every slot of its operation
//                      table lies outside libpetscgpumat, and its spptr is gone
//   -check duplicate   MatDuplicate keeps the machinery's settings (MatGpuMatGetInfo), seq and MPI
//   -check bad_options every option value in -bad <option=value,...> (each option without its
//                      leading dash, which PETSc would read as an option) is refused by MatSetFromOptions
//                      with PETSC_ERR_ARG_OUTOFRANGE or PETSC_ERR_ARG_WRONG and a message naming the option
//   -check trial       gpuauto's trial keeps the candidate with the shortest time it measured
//   -check reread      options set after the matrix was assembled and used take effect at the next
//                      MatSetFromOptions, in both blocks of an MPI matrix (MatGpuMatGetInfo)
//   -check fp32        with -mat_gpumat_values fp32 (pjds, or gpuauto choosing pjds): every block's
//                      values are stored in fp32 (property values, gpuauto's candidate.values), and
//                      MatMult and MatMultTranspose differ from AIJ's by at most 2^-24 |A| |x|
//                      (bounded by the norms) but do differ (the kind's values are not floats:
//                      lap3dv); the products must run through the format (the host reference, or
//                      the GPU); -log_view's GpumatFp32 event counted the build
//   -check pmat_fp32   with -pre_mat_gpumat_values fp32: CG + GAMG (the finest smoother on the
//                      preconditioner's matrix: PCSetUseAmat false) solves A x = 1 with a copy of A
//                      as the preconditioner's matrix, first as A is, then with the options prefix
//                      pre_: that copy stores fp32 values and A its own (property values), and the
//                      second solve converges to the same tolerance of A's true residual in at
//                      most 10 % more iterations than the first
// Exits non-zero, with the reason, when a check fails.
#include <petscgpumat.h>
#include <petscksp.h>
#include <petsc/private/matimpl.h> // struct _MatOps: the operation table, slot by slot
#include <dlfcn.h>
#include <cstring>
#include <regex>
#include <sstream>
#include <string>
#include <vector>
#include "gen.h"
#include "same_as_aij.hpp"

namespace {

char     type[64] = "csrspec", kind[64] = "lap2d";
PetscInt n        = 30;

std::vector<std::string> Split(const std::string &s, char sep)
{
  std::vector<std::string> v;
  std::stringstream        ss(s);
  for (std::string t; std::getline(ss, t, sep);)
    if (!t.empty()) v.push_back(t);
  return v;
}

// One product with the matrix's own vectors (-vec_type overrides), so that the format is built.
PetscErrorCode Product(Mat A)
{
  Vec x, y;
  PetscFunctionBegin;
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecSetFromOptions(x));
  PetscCall(VecSetFromOptions(y));
  PetscCall(VecSet(x, 1.0));
  PetscCall(MatMult(A, x, y));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// MatGpuMatGetInfo's field `key` as text.
bool InfoField(const MatGpuMatInfo &i, const std::string &key, std::string *v)
{
  auto b = [](PetscBool f) { return std::string(f ? "1" : "0"); };
  if (key == "format") *v = i.format ? i.format : "";
  else if (key == "compressed") *v = b(i.compressed);
  else if (key == "rows") *v = std::to_string(i.rows);
  else if (key == "empty_rows") *v = std::to_string(i.empty_rows);
  else if (key == "host_builds") *v = std::to_string(i.host_builds);
  else if (key == "device_builds") *v = std::to_string(i.device_builds);
  else if (key == "host_refreshes") *v = std::to_string(i.host_refreshes);
  else if (key == "device_refreshes") *v = std::to_string(i.device_refreshes);
  else if (key == "coo_device_assemblies") *v = std::to_string(i.coo_device_assemblies);
  else if (key == "overlap") *v = b(i.overlap);
  else if (key == "side_stream") *v = b(i.side_stream);
  else if (key == "gpu_aware_mpi") *v = b(i.gpu_aware_mpi);
  else return false;
  return true;
}

PetscErrorCode CheckExpect(Mat A, const char *list, MatGpuMatBlock block)
{
  MatGpuMatInfo info;
  PetscFunctionBegin;
  PetscCall(MatGpuMatGetInfo(A, block, &info));
  PetscCheck(info.ours, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s is not a petsc-gpumat matrix", ((PetscObject)A)->type_name);
  for (const std::string &e : Split(list, ',')) {
    const size_t at = e.find_first_of("=~");
    PetscCheck(at != std::string::npos, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-expect: '%s' is not key=value or key~regex", e.c_str());
    const std::string key = e.substr(0, at), want = e.substr(at + 1);
    std::string       got;
    if (key.rfind("info.", 0) == 0) PetscCheck(InfoField(info, key.substr(5), &got), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-expect: no MatGpuMatInfo field '%s'", key.c_str());
    else {
      const char *v;
      PetscCall(MatGpuMatGetProperty(A, block, key.c_str(), &v));
      PetscCheck(v, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: no property '%s'", ((PetscObject)A)->type_name, key.c_str());
      got = v;
    }
    const bool ok = e[at] == '=' ? got == want : std::regex_search(got, std::regex(want));
    PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %s is '%s', expected %s'%s'", ((PetscObject)A)->type_name, key.c_str(), got.c_str(), e[at] == '=' ? "" : "to match ", want.c_str());
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s = %s\n", key.c_str(), got.c_str()));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Every slot of A's operation table outside this library (dladdr names the object holding it).
PetscErrorCode CheckNoneOurs(Mat A, const char *where)
{
  const size_t nslots = sizeof(struct _MatOps) / sizeof(void (*)(void));
  Dl_info      self, info;
  PetscFunctionBegin;
  PetscCheck(dladdr(reinterpret_cast<void *>(&MatGpuMatGetInfo), &self) && self.dli_fname, PETSC_COMM_SELF, PETSC_ERR_LIB, "dladdr cannot find libpetscgpumat");
  PetscCheck(!A->spptr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the converted matrix still carries spptr", where);
  for (size_t k = 0; k < nslots; k++) {
    void (*fn)(void);
    std::memcpy(&fn, reinterpret_cast<const char *>(A->ops) + k * sizeof(fn), sizeof(fn));
    if (!fn || !dladdr(reinterpret_cast<void *>(fn), &info) || !info.dli_fname) continue;
    PetscCheck(std::strcmp(info.dli_fname, self.dli_fname) != 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: operation slot %zu of %zu is still the library's (%s)", where, k, nslots, info.dli_sname ? info.dli_sname : "?");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CheckBlocksNoneOurs(Mat A, const char *where)
{
  PetscBool mpi;
  PetscFunctionBegin;
  PetscCall(CheckNoneOurs(A, where));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPIAIJ, &mpi));
  if (mpi) {
    Mat Ad, Ao;
    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, nullptr));
    PetscCall(CheckNoneOurs(Ad, (std::string(where) + ", diagonal block").c_str()));
    PetscCall(CheckNoneOurs(Ao, (std::string(where) + ", off-diagonal block").c_str()));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CheckOpTable(MPI_Comm comm)
{
  Mat A, B;
  PetscFunctionBegin;
  for (MatReuse reuse : {MAT_INPLACE_MATRIX, MAT_INITIAL_MATRIX}) {
    const char *how = reuse == MAT_INPLACE_MATRIX ? "MatConvert(aij, in place)" : "MatConvert(aij, a new matrix)";
    PetscCall(GenCreate(comm, kind, n, 1, type, &A));
    PetscCall(Product(A)); // built, so every piece of ours exists before it goes
    if (reuse == MAT_INPLACE_MATRIX) {
      PetscCall(MatConvert(A, MATAIJ, MAT_INPLACE_MATRIX, &A));
      PetscCall(CheckBlocksNoneOurs(A, how));
    } else {
      PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &B));
      PetscCall(CheckBlocksNoneOurs(B, how));
      PetscCall(MatDestroy(&B));
    }
    PetscCall(MatDestroy(&A));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CheckDuplicate(MPI_Comm comm)
{
  Mat           A, B;
  MatGpuMatInfo a, b;
  PetscFunctionBegin;
  PetscCall(GenCreate(comm, kind, n, 1, type, &A));
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  PetscCall(Product(B));
  for (MatGpuMatBlock blk : {MAT_GPUMAT_DIAGONAL_BLOCK, MAT_GPUMAT_OFFDIAGONAL_BLOCK}) {
    PetscCall(MatGpuMatGetInfo(A, blk, &a));
    PetscCall(MatGpuMatGetInfo(B, blk, &b));
    PetscCheck(b.ours, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the duplicate is not ours");
    PetscCheck(a.overlap == b.overlap && a.side_stream == b.side_stream && a.gpu_aware_mpi == b.gpu_aware_mpi, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatDuplicate lost the MPI product's settings: overlap %d -> %d, side stream %d -> %d, device buffers %d -> %d", a.overlap, b.overlap,
               a.side_stream, b.side_stream, a.gpu_aware_mpi, b.gpu_aware_mpi);
    if (!b.rows) continue; // a sequential matrix's off-diagonal block, or none on this rank
    PetscCheck(a.eager == b.eager && a.host_products == b.host_products && a.host_reference == b.host_reference, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatDuplicate lost a block's settings (eager, host products, host reference)");
  }
  PetscCall(PetscPrintf(comm, "duplicate: overlap %d, side stream %d, device buffers %d, eager %d, host products %d, host reference %d kept\n", a.overlap, a.side_stream, a.gpu_aware_mpi, a.eager, a.host_products, a.host_reference));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// One option value refused: MatSetFromOptions returns an argument error whose message names it.
PetscErrorCode CheckRefused(MPI_Comm comm, const std::string &option, const std::string &value)
{
  Mat            A;
  PetscErrorCode ierr;
  const char    *text;
  const char    *specific = nullptr;
  PetscFunctionBegin;
  PetscCall(GenCreate(comm, kind, n, 1, type, &A));
  PetscCall(PetscOptionsSetValue(nullptr, option.c_str(), value.c_str()));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, nullptr));
  ierr = MatSetFromOptions(A);
  PetscCall(PetscPopErrorHandler());
  PetscCall(PetscOptionsClearValue(nullptr, option.c_str()));
  PetscCheck(ierr != PETSC_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s %s was accepted", option.c_str(), value.c_str());
  PetscCall(PetscErrorMessage(ierr, &text, &specific));
  PetscCheck(ierr == PETSC_ERR_ARG_OUTOFRANGE || ierr == PETSC_ERR_ARG_WRONG, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s %s: error %d (%s), not an argument error: %s", option.c_str(), value.c_str(), (int)ierr, text, specific ? specific : "");
  PetscCheck(specific && std::strstr(specific, option.c_str()), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s %s: the error does not name the option: %s", option.c_str(), value.c_str(), specific ? specific : "");
  PetscCall(PetscPrintf(comm, "%s %s refused: %s\n", option.c_str(), value.c_str(), specific));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CheckBadOptions(MPI_Comm comm, const char *list)
{
  PetscInt count = 0;
  PetscFunctionBegin;
  for (const std::string &e : Split(list, ',')) {
    const size_t at = e.find('=');
    PetscCheck(at != std::string::npos, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-bad: '%s' is not option=value", e.c_str());
    PetscCall(CheckRefused(comm, "-" + e.substr(0, at), e.substr(at + 1)));
    count++;
  }
  PetscCheck(count > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-check bad_options needs -bad <option=value,...>");
  PetscFunctionReturn(PETSC_SUCCESS);
}

// fp32 storage (-mat_gpumat_values fp32): the products read the values rounded to float and sum in
// double, so each entry of A x is within 2^-24 sum_j |a_ij| |x_j| <= 2^-24 ||A||_inf ||x||_inf of the
// exact product (A^T x: ||A||_1), and some differ.
PetscErrorCode CheckFp32(MPI_Comm comm)
{
  Mat       A, R;
  Vec       x, y, yr, xt, yt, ytr;
  PetscReal ninf, none, xmax, xtmax, err, errt;
  PetscFunctionBegin;
  PetscCall(PetscLogDefaultBegin()); // the GpumatFp32 event's count, below
  PetscCall(GenCreate(comm, kind, n, 1, type, &A));
  PetscCall(GenCreate(comm, kind, n, 1, MATAIJ, &R));
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(MatCreateVecs(A, &yt, &xt));
  PetscCall(VecSetFromOptions(x));
  PetscCall(VecSetFromOptions(y));
  PetscCall(VecSetFromOptions(xt));
  PetscCall(VecSetFromOptions(yt));
  PetscCall(VecDuplicate(y, &yr));
  PetscCall(VecDuplicate(yt, &ytr));
  {
    PetscInt lo, hi;
    PetscCall(VecGetOwnershipRange(x, &lo, &hi));
    for (PetscInt i = lo; i < hi; i++) PetscCall(VecSetValue(x, i, PetscCosReal(0.37 * (PetscReal)i) + 0.1, INSERT_VALUES));
    PetscCall(VecAssemblyBegin(x));
    PetscCall(VecAssemblyEnd(x));
    PetscCall(VecCopy(x, xt));
  }
  PetscCall(MatMult(A, x, y));
  PetscCall(MatMult(R, x, yr));
  PetscCall(MatMultTranspose(A, xt, yt));
  PetscCall(MatMultTranspose(R, xt, ytr));
  for (MatGpuMatBlock b : {MAT_GPUMAT_DIAGONAL_BLOCK, MAT_GPUMAT_OFFDIAGONAL_BLOCK}) {
    const char *v = nullptr;
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(comm, &size));
    if (b == MAT_GPUMAT_OFFDIAGONAL_BLOCK && size == 1) continue;
    PetscCall(MatGpuMatGetProperty(A, b, "values", &v));
    if (!v) PetscCall(MatGpuMatGetProperty(A, b, "candidate.values", &v)); // gpuauto: its chosen candidate's
    PetscCheck(v && !std::strcmp(v, "fp32"), PETSC_COMM_SELF, PETSC_ERR_PLIB, "the %s block's values are %s, not fp32", b == MAT_GPUMAT_DIAGONAL_BLOCK ? "diagonal" : "off-diagonal", v ? v : "(none)");
  }
  {
    PetscLogEvent      ev;
    PetscEventPerfInfo info;
    PetscCall(PetscLogEventGetId("GpumatFp32", &ev));
    PetscCall(PetscLogEventGetPerfInfo(0, ev, &info));
    PetscCheck(info.count >= 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "-log_view's GpumatFp32 counted %d builds under -mat_gpumat_values fp32", info.count);
  }
  PetscCall(MatNorm(R, NORM_INFINITY, &ninf));
  PetscCall(MatNorm(R, NORM_1, &none));
  PetscCall(VecNorm(x, NORM_INFINITY, &xmax));
  PetscCall(VecNorm(xt, NORM_INFINITY, &xtmax));
  PetscCall(VecAXPY(y, -1.0, yr));
  PetscCall(VecAXPY(yt, -1.0, ytr));
  PetscCall(VecNorm(y, NORM_INFINITY, &err));
  PetscCall(VecNorm(yt, NORM_INFINITY, &errt));
  const PetscReal u = PetscPowReal(2.0, -24), bound = u * ninf * xmax * 1.001, boundt = u * none * xtmax * 1.001;
  PetscCheck(err <= bound && errt <= boundt, comm, PETSC_ERR_PLIB, "fp32 products beyond 2^-24 |A||x|: MatMult %g (bound %g), MatMultTranspose %g (bound %g)", (double)err, (double)bound, (double)errt, (double)boundt);
  PetscCheck(err > 0 && errt > 0, comm, PETSC_ERR_PLIB, "the fp32 products equal AIJ's (MatMult %g, MatMultTranspose %g): the values were not rounded, or the products did not run through the format", (double)err, (double)errt);
  PetscCall(PetscPrintf(comm, "fp32: MatMult differs from AIJ's by %.3g (bound %.3g), MatMultTranspose by %.3g (bound %.3g)\n", (double)err, (double)bound, (double)errt, (double)boundt));
  for (Vec *w : {&x, &y, &yr, &xt, &yt, &ytr}) PetscCall(VecDestroy(w));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&R));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// gpuauto's trial: the candidate kept is the one whose measured time is the least.
PetscErrorCode CheckTrial(MPI_Comm comm)
{
  Mat         A;
  const char *chosen, *times;
  PetscFunctionBegin;
  PetscCall(GenCreate(comm, kind, n, 1, type, &A));
  PetscCall(Product(A));
  PetscCall(MatGpuMatGetProperty(A, MAT_GPUMAT_DIAGONAL_BLOCK, "chosen", &chosen));
  PetscCall(MatGpuMatGetProperty(A, MAT_GPUMAT_DIAGONAL_BLOCK, "trial_times", &times));
  PetscCheck(chosen && times, PETSC_COMM_SELF, PETSC_ERR_PLIB, "no trial ran (gpuauto with -mat_gpuauto_trial k)");
  std::string best;
  double      best_ms = 0;
  int         timed   = 0;
  for (const std::string &t : Split(times, ',')) {
    const size_t at = t.find(':');
    PetscCheck(at != std::string::npos, PETSC_COMM_SELF, PETSC_ERR_PLIB, "trial_times '%s' is not name:ms,...", times);
    const double ms = std::stod(t.substr(at + 1));
    if (ms < 0) continue; // refused the matrix
    timed++;
    if (best.empty() || ms < best_ms) best = t.substr(0, at), best_ms = ms;
  }
  PetscCheck(timed >= 2, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the trial timed %d candidates (%s)", timed, times);
  PetscCheck(best == chosen, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the trial kept %s, but %s was the fastest (%s)", chosen, best.c_str(), times);
  PetscCall(PetscPrintf(comm, "trial: %s kept, the fastest of %s\n", chosen, times));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Options changed after the first product reach every block at the next MatSetFromOptions.
PetscErrorCode CheckReread(MPI_Comm comm)
{
  Mat           A;
  MatGpuMatInfo info;
  PetscMPIInt   size;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(GenCreate(comm, kind, n, 1, type, &A));
  PetscCall(Product(A));
  PetscCall(MatGpuMatGetInfo(A, MAT_GPUMAT_DIAGONAL_BLOCK, &info));
  PetscCheck(!info.eager && (size == 1 || info.overlap), PETSC_COMM_SELF, PETSC_ERR_PLIB, "the defaults changed: eager %d, overlap %d", info.eager, info.overlap);
  PetscCall(PetscOptionsSetValue(nullptr, "-mat_gpumat_eager", "1"));
  PetscCall(PetscOptionsSetValue(nullptr, "-mat_gpumat_overlap", "0"));
  PetscCall(MatSetFromOptions(A));
  PetscCall(PetscOptionsClearValue(nullptr, "-mat_gpumat_eager"));
  PetscCall(PetscOptionsClearValue(nullptr, "-mat_gpumat_overlap"));
  for (MatGpuMatBlock blk : {MAT_GPUMAT_DIAGONAL_BLOCK, MAT_GPUMAT_OFFDIAGONAL_BLOCK}) {
    PetscCall(MatGpuMatGetInfo(A, blk, &info));
    if (!info.rows) continue; // a sequential matrix's off-diagonal block, or none on this rank
    PetscCheck(info.eager, PETSC_COMM_SELF, PETSC_ERR_PLIB, "-mat_gpumat_eager 1 set before MatSetFromOptions did not reach the %s block", blk == MAT_GPUMAT_DIAGONAL_BLOCK ? "diagonal" : "off-diagonal");
    PetscCheck(size == 1 || !info.overlap, PETSC_COMM_SELF, PETSC_ERR_PLIB, "-mat_gpumat_overlap 0 set before MatSetFromOptions did not reach the MPI product");
  }
  PetscCall(Product(A)); // the product with the new settings
  PetscCall(PetscPrintf(comm, "reread: -mat_gpumat_eager%s reached every block\n", size > 1 ? " and -mat_gpumat_overlap" : ""));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// CG + GAMG on A with P, a copy of A, as the preconditioner's matrix; P under the options prefix
// `prefix` (null: none). Its iterations, A's true relative residual, P's values property and the
// solution (a new vector).
PetscErrorCode SolveWithPmat(Mat A, const char *prefix, PetscInt *its, PetscReal *res, std::string *pvalues, Vec *sol)
{
  Mat                P;
  KSP                ksp;
  PC                 pc;
  Vec                x, b, r;
  PetscReal          nb;
  const char        *v = nullptr;
  KSPConvergedReason reason;
  PetscFunctionBegin;
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &P));
  if (prefix) PetscCall(MatSetOptionsPrefix(P, prefix));
  PetscCall(MatSetFromOptions(P));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSetFromOptions(x));
  PetscCall(VecSetFromOptions(b));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(VecSet(b, 1.0));
  PetscCall(VecSet(x, 0.0));
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)A), &ksp));
  PetscCall(KSPSetOperators(ksp, A, P));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCGAMG));
  PetscCall(PCSetUseAmat(pc, PETSC_FALSE)); // the finest level's smoother multiplies by P
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, 500));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCheck(reason > 0, PetscObjectComm((PetscObject)A), PETSC_ERR_NOT_CONVERGED, "CG + GAMG with the preconditioner's matrix under prefix %s did not converge: %s", prefix ? prefix : "(none)", KSPConvergedReasons[reason]);
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, res));
  PetscCall(VecNorm(b, NORM_2, &nb));
  *res /= nb;
  PetscCall(MatGpuMatGetProperty(P, MAT_GPUMAT_DIAGONAL_BLOCK, "values", &v));
  *pvalues = v ? v : "(none)";
  *sol     = x;
  PetscCall(KSPDestroy(&ksp));
  for (Vec *w : {&b, &r}) PetscCall(VecDestroy(w));
  PetscCall(MatDestroy(&P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// fp32 storage of the preconditioner's matrix alone (docs/usage.md): a prefix of its own and
// -<prefix>mat_gpumat_values fp32
PetscErrorCode CheckPmatFp32(MPI_Comm comm)
{
  Mat         A;
  PetscInt    its[2];
  PetscReal   res[2], dx, nx;
  std::string pv[2];
  Vec         x[2];
  const char *av = nullptr;
  PetscFunctionBegin;
  PetscCall(GenCreate(comm, kind, n, 1, type, &A));
  PetscCall(SolveWithPmat(A, nullptr, &its[0], &res[0], &pv[0], &x[0]));
  PetscCall(SolveWithPmat(A, "pre_", &its[1], &res[1], &pv[1], &x[1]));
  PetscCall(VecNorm(x[0], NORM_2, &nx));
  PetscCall(VecAXPY(x[1], -1.0, x[0]));
  PetscCall(VecNorm(x[1], NORM_2, &dx));
  for (Vec *w : {&x[0], &x[1]}) PetscCall(VecDestroy(w));
  PetscCall(MatGpuMatGetProperty(A, MAT_GPUMAT_DIAGONAL_BLOCK, "values", &av));
  PetscCheck(av && pv[0] != "(none)", comm, PETSC_ERR_ARG_WRONG, "the format was not built (values: A %s, the preconditioner's matrix %s): with host vectors give -mat_gpumat_host_reference", av ? av : "(none)", pv[0].c_str());
  PetscCheck(pv[0] != "fp32" && std::strcmp(av, "fp32"), comm, PETSC_ERR_PLIB, "without the prefix the preconditioner's matrix stores %s values and A %s: -pre_mat_gpumat_values reached a matrix outside the prefix", pv[0].c_str(), av);
  PetscCheck(pv[1] == "fp32", comm, PETSC_ERR_PLIB, "under the prefix pre_ the preconditioner's matrix stores %s values, not fp32", pv[1].c_str());
  PetscCheck(10 * its[1] <= 11 * its[0], comm, PETSC_ERR_PLIB, "with the fp32 preconditioner's matrix CG + GAMG took %d iterations, more than 10 %% over the fp64 one's %d", (int)its[1], (int)its[0]);
  PetscCheck(dx > 0, comm, PETSC_ERR_PLIB, "the solutions with the fp32 and the fp64 preconditioner's matrix are equal: the preconditioner did not read the rounded values (its products must run through the format: the host reference, or the GPU)");
  PetscCheck(res[1] <= 1e-7 && res[0] <= 1e-7, comm, PETSC_ERR_PLIB, "true relative residuals %g (fp64 preconditioner's matrix) and %g (fp32): above 1e-7", (double)res[0], (double)res[1]);
  PetscCall(PetscPrintf(comm, "pmat_fp32: CG + GAMG %d iterations (true residual %.3e) with the fp32 preconditioner's matrix, %d (%.3e) with the fp64 one, solutions %.2e apart (relative); A's values %s\n", (int)its[1], (double)res[1], (int)its[0], (double)res[0], (double)(dx / nx), av));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

int main(int argc, char **argv)
{
  char      check[64] = "", expect[4096] = "", bad[8192] = "", block[16] = "diag";
  PetscBool has_expect;
  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, nullptr, nullptr));
  PetscCall(PetscGpuMatInitialize());
  PetscCall(ReadMatrixOptions(type, sizeof(type), kind, sizeof(kind), &n));
  PetscCall(PetscOptionsGetString(nullptr, nullptr, "-check", check, sizeof(check), nullptr));
  PetscCall(PetscOptionsGetString(nullptr, nullptr, "-expect", expect, sizeof(expect), &has_expect));
  PetscCall(PetscOptionsGetString(nullptr, nullptr, "-bad", bad, sizeof(bad), nullptr));
  PetscCall(PetscOptionsGetString(nullptr, nullptr, "-block", block, sizeof(block), nullptr));
  const MPI_Comm comm = PETSC_COMM_WORLD;
  if (!std::strcmp(check, "optable")) PetscCall(CheckOpTable(comm));
  else if (!std::strcmp(check, "duplicate")) PetscCall(CheckDuplicate(comm));
  else if (!std::strcmp(check, "bad_options")) PetscCall(CheckBadOptions(comm, bad));
  else if (!std::strcmp(check, "trial")) PetscCall(CheckTrial(comm));
  else if (!std::strcmp(check, "reread")) PetscCall(CheckReread(comm));
  else if (!std::strcmp(check, "fp32")) PetscCall(CheckFp32(comm));
  else if (!std::strcmp(check, "pmat_fp32")) PetscCall(CheckPmatFp32(comm));
  else PetscCheck(!check[0], comm, PETSC_ERR_ARG_WRONG, "-check must be optable, duplicate, bad_options, trial, reread, fp32 or pmat_fp32, not '%s'", check);
  if (has_expect) {
    Mat A;
    PetscCall(GenCreate(comm, kind, n, 1, type, &A));
    PetscCall(Product(A));
    PetscCall(CheckExpect(A, expect, std::strcmp(block, "offdiag") ? MAT_GPUMAT_DIAGONAL_BLOCK : MAT_GPUMAT_OFFDIAGONAL_BLOCK));
    PetscCall(MatDestroy(&A));
  }
  PetscCall(PetscPrintf(comm, "test_api: all checks passed\n"));
  PetscCall(PetscFinalize());
  return 0;
}
