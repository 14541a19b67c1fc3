// Sparse products (MatProduct: AB, AtB, ABt, PtAP, RARt, ABC) with our matrices as operands.
// PETSc's dispatch (MatProductSetFromOptions_Private, src/mat/interface/matproduct.c) calls A's
// ops->productsetfromoptions where every operand has the same one: all ours, of any format, since
// one function serves every format. Otherwise it looks up MatProductSetFromOptions_<A>_<B>_C on
// the operands: composed here for a plain AIJ partner on either side. Both reach AIJ's own choice
// (the parent's operation: SeqAIJ's or MPIAIJ's algorithms, on the host), with its symbolic phase
// wrapped so that the result takes A's type, PETSc's rule, where AIJ's code makes it another (its
// RARt makes R's type, its MPI AtB B's). A three-operand product of mixed types goes to PETSc's
// pairwise ABC (MatProductSymbolic_Unsafe), whose pairs come here. With A ours and B dense (composed
// too: seqdense, mpidense, and their CUDA types) the product is dense: on the device the shadow's
// dense product or PETSc's loop over B's columns (-mat_gpumat_dense_products, DenseDevice below),
// on the host AIJ's dense algorithms (composed on B). The routes on the GPU themselves are in
// matproduct_device.cxx (matproduct.hpp).
#include "matproduct.hpp"
#include "mpi.hpp"
#include <cmath>
#include <string>

namespace gpumat {

const FormatInfo *OursAt(Mat X, bool *mpi)
{
  const FormatInfo *f = X ? FindFormat(((PetscObject)X)->type_name) : nullptr;
  if (f) *mpi = Names(f).mpi == ((PetscObject)X)->type_name;
  return f && (*mpi || Names(f).seq == ((PetscObject)X)->type_name) ? f : nullptr;
}

namespace {

const char *const kAIJSymbolic = "GpumatProductSymbolicAIJ_C"; // AIJ's symbolic phase, composed on the result


// AIJ's symbolic phase, then the result made A's type where AIJ made it another: ours where A is
// ours; plain AIJ where A is and AIJ's code made it ours (its RARt computes R (A R^T), whose result
// takes R's type)
PetscErrorCode ProductSymbolic(Mat C)
{
  PetscErrorCode (*aij)(Mat) = nullptr;
  Mat               A        = C->product->A;
  bool              mpi      = false;
  const FormatInfo *f        = OursAt(A, &mpi);
  PetscBool         same;
  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)C, kAIJSymbolic, &aij));
  PetscCheck(aij, PETSC_COMM_SELF, PETSC_ERR_PLIB, "product without AIJ's symbolic phase");
  PetscCall((*aij)(C));
  PetscCall(PetscObjectComposeFunction((PetscObject)C, kAIJSymbolic, nullptr));
  PetscCall(PetscObjectTypeCompare((PetscObject)C, ((PetscObject)A)->type_name, &same));
  if (same) PetscFunctionReturn(PETSC_SUCCESS);
  if (!f) { // A is plain AIJ: a result of ours goes back to it, in place (a seq result is not assembled yet: no MatConvert)
    bool cmpi = false;
    if (OursAt(C, &cmpi)) {
      if (cmpi) PetscCall(MatConvert(C, ((PetscObject)A)->type_name, MAT_INPLACE_MATRIX, &C));
      else PetscCall(SeqUninstall(C));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscObjectTypeCompare((PetscObject)C, mpi ? MATMPIAIJ : MATSEQAIJ, &same));
  PetscCheck(same, PetscObjectComm((PetscObject)C), PETSC_ERR_SUP, "the product of %s made a %s, which cannot become %s", ((PetscObject)A)->type_name, ((PetscObject)C)->type_name, ((PetscObject)A)->type_name);
  if (mpi) PetscCall(MPIInstall(C, f));
  else PetscCall(SeqInstall(C, f));
  PetscFunctionReturn(PETSC_SUCCESS);
}


#if defined(GPUMAT_WITH_CUDA)
// Whether X is aijcusparse (seq or MPI)
bool Cusparse(Mat X, bool *mpi)
{
  PetscBool seq = PETSC_FALSE, par = PETSC_FALSE;
  if (PetscObjectTypeCompare((PetscObject)X, MATSEQAIJCUSPARSE, &seq) || PetscObjectTypeCompare((PetscObject)X, MATMPIAIJCUSPARSE, &par)) return false;
  *mpi = par;
  return seq || par;
}

// Whether the user asked for PETSc's CPU algorithm for this product, by the options aijcusparse and
// mpiaijcusparse read: -matmatmult_backend_cpu, -mattransposematmult_backend_cpu,
// -matptap_backend_cpu, -matrart_backend_cpu, -matmatmatmult_backend_cpu for the products made
// through MatMatMult and its siblings, -mat_product_algorithm_backend_cpu for MatProduct's API.
PetscErrorCode BackendCpu(Mat C, PetscBool *cpu)
{
  static const struct {
    MatProductType type;
    const char    *api, *option;
  } kApis[] = {
    {MATPRODUCT_AB, "MatMatMult", "-matmatmult_backend_cpu"},      {MATPRODUCT_AtB, "MatTransposeMatMult", "-mattransposematmult_backend_cpu"}, {MATPRODUCT_PtAP, "MatPtAP", "-matptap_backend_cpu"},
    {MATPRODUCT_RARt, "MatRARt", "-matrart_backend_cpu"},          {MATPRODUCT_ABC, "MatMatMatMult", "-matmatmatmult_backend_cpu"},
  };
  Mat_Product *p = C->product;
  PetscFunctionBegin;
  *cpu = PETSC_FALSE;
  for (const auto &k : kApis) {
    if (k.type != p->type) continue;
    PetscOptionsBegin(PetscObjectComm((PetscObject)C), ((PetscObject)C)->prefix, p->api_user ? k.api : "MatProduct", "Mat");
    PetscCall(PetscOptionsBool(p->api_user ? k.option : "-mat_product_algorithm_backend_cpu", "Use CPU code", k.api, *cpu, cpu, nullptr));
    PetscOptionsEnd();
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Whether X, ours at level `mpi`, may take a GPU route: neither bound to the CPU nor held to host
// products (-mat_gpumat_host; an MPI matrix: its diagonal block's setting). *blk (if asked): the
// block whose settings decide (X itself, or its diagonal block).
bool OursOnDevice(Mat X, bool mpi, Mat *blk)
{
  Mat b = X;
  if (X->boundtocpu || (mpi && MatMPIAIJGetSeqAIJ(X, &b, nullptr, nullptr) != PETSC_SUCCESS)) return false;
  if (!b || !b->spptr || Data(b)->opt.force_host) return false;
  if (blk) *blk = b;
  return true;
}

// The device route applies where every sparse operand is ours or aijcusparse, one at least ours,
// all at one level, none bound to the CPU or held to host products (OursOnDevice). The result is
// A's type, PETSc's rule: ours or aijcusparse.
bool DeviceRoute(Mat C)
{
  Mat_Product *p      = C->product;
  Mat          ops[3] = {p->A, p->B, p->type == MATPRODUCT_ABC ? p->C : nullptr};
  bool         level = false, ours = false, first = true;
  for (Mat X : ops) {
    bool mpi = false;
    if (!X) continue;
    if (X->boundtocpu) return false;
    if (!Cusparse(X, &mpi)) {
      if (!OursAt(X, &mpi) || !OursOnDevice(X, mpi, nullptr)) return false;
      ours = true;
    }
    if (!first && mpi != level) return false;
    level = mpi, first = false;
  }
  return ours;
}

// A product with a dense operand on the device (A ours and OursOnDevice, B dense CUDA of A's level,
// not bound to the CPU): aijcusparse's on the shadow (kDeviceSpmm) or PETSc's loop
// over B's columns, a product of A's format per column (kDeviceLoop), as A's diagonal block's
// -mat_gpumat_dense_products says (auto by default: DenseLoopPays); kDeviceNone: neither applies. An MPI A^T B is always the loop: MPIAIJ's multiplies by a MAIJ of A's shadow on the host,
// whose kernels read the blocks' host values without asking for the newest. A B^T and B A B^T are
// always the shadow's: PETSc has no loop for them.
enum DenseDeviceRoute { kDeviceNone, kDeviceSpmm, kDeviceLoop };

// -mat_gpumat_dense_products auto: the loop for A B on one rank where A's format reads at most
// kDenseLoopBytes of the CSR's bytes per product (its byte model, Format::ReadBytes), else the
// shadow. On an H200 (docs/results/h200-2026-11-29d-dense-products, call 6) cuSPARSE's SpMM cost
// 0.82 (8 columns) and 0.70 (32) of a CSR product per column, the loop about one product of the
// format per column: it won with pjds reading 0.40 of the CSR's bytes (1.63x and 1.41x at 8 and 32
// columns); with bce and bccoo (0.98-1.00 of them) it was 1.12x and 0.98x, 1.00x and 0.86x; it lost
// every A^T B and on two ranks. So a format reading about the CSR's bytes keeps the shadow.
constexpr double kDenseLoopBytes = 0.6;
bool DenseLoopPays(Mat C, Mat blk)
{
  PetscMPIInt size = 2;
  PetscInt    nnz  = 0;
  if (C->product->type != MATPRODUCT_AB || MPI_Comm_size(PetscObjectComm((PetscObject)C->product->A), &size) != MPI_SUCCESS || size > 1) return false;
  if (HostNonzeros(blk, &nnz) != PETSC_SUCCESS || nnz == 0) return false;
  const double read = Data(blk)->fmt->ReadBytes(), csr = (double)nnz * (sizeof(Scalar) + sizeof(index_t)) + (double)(blk->rmap->n + 1) * sizeof(index_t);
  return std::isfinite(read) && read <= kDenseLoopBytes * csr;
}
DenseDeviceRoute DenseDevice(Mat C)
{
  Mat_Product *p   = C->product;
  bool         mpi = false;
  PetscBool    dense = PETSC_FALSE;
  Mat          blk = nullptr;
  if (!OursAt(p->A, &mpi) || p->B->boundtocpu || !OursOnDevice(p->A, mpi, &blk)) return kDeviceNone;
  if (PetscObjectTypeCompare((PetscObject)p->B, mpi ? MATMPIDENSECUDA : MATSEQDENSECUDA, &dense) || !dense) return kDeviceNone;
  if (mpi && p->type == MATPRODUCT_AtB) return kDeviceLoop;
  if (p->type == MATPRODUCT_ABt || p->type == MATPRODUCT_RARt) return kDeviceSpmm;
  switch ((DenseProducts)Data(blk)->opt.dense_products) {
  case kDenseSpmm: return kDeviceSpmm;
  case kDenseLoop: return kDeviceLoop;
  default: return DenseLoopPays(C, blk) ? kDeviceLoop : kDeviceSpmm;
  }
}
#endif

// Whether B is dense (a product with it gives a dense result)
bool Dense(Mat B)
{
  PetscBool dense = PETSC_FALSE;
  return !PetscObjectTypeCompareAny((PetscObject)B, &dense, MATSEQDENSE, MATMPIDENSE, MATSEQDENSECUDA, MATMPIDENSECUDA, "") && dense;
}

} // namespace

PetscErrorCode ProductSetFromOptions(Mat C)
{
  Mat_Product *p   = C->product;
  bool         mpi = false;
  Mat          X   = OursAt(p->A, &mpi) ? p->A : p->B; // ours: A, or else B (a composed pair)
  PetscErrorCode (*aij)(Mat);
  PetscFunctionBegin;
  PetscCheck(OursAt(X, &mpi), PETSC_COMM_SELF, PETSC_ERR_PLIB, "a product with no operand of ours reached petsc-gpumat");
  PetscBool cpu = PETSC_FALSE; // the CPU backend asked for (aijcusparse's options)
#if defined(GPUMAT_WITH_CUDA)
  PetscCall(BackendCpu(C, &cpu));
  Mat cusp = nullptr; // the first aijcusparse operand, if any
  for (Mat Y : {p->A, p->B, p->type == MATPRODUCT_ABC ? p->C : nullptr}) {
    bool ympi;
    if (!cusp && Y && Cusparse(Y, &ympi)) cusp = Y;
  }
  const DenseDeviceRoute dense = !cpu && p->type != MATPRODUCT_ABC ? DenseDevice(C) : kDeviceNone;
  if (dense == kDeviceSpmm) {
    bool done = false;
    PetscCall(DenseSetFromOptions(C, &done));
    PetscCall(PetscInfo(C, "MatProduct %s with %s and %s: %s\n", MatProductTypes[p->type], ((PetscObject)X)->type_name, ((PetscObject)p->B)->type_name, done ? "aijcusparse's dense product on the shadow, on the GPU" : "none on the shadow (PETSc's fallbacks follow)"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (dense == kDeviceLoop) { // no symbolic phase: PETSc's basic product, our MatMult (MatMultTranspose) per column
    PetscCall(PetscInfo(C, "MatProduct %s with %s and %s: PETSc's loop over the dense operand's columns, a product of ours per column, on the GPU\n", MatProductTypes[p->type], ((PetscObject)X)->type_name, ((PetscObject)p->B)->type_name));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (DeviceRoute(C) && (!cpu || cusp)) { // an aijcusparse operand's host array may be stale: its products stay on the GPU
    PetscCall(PetscInfo(C, "MatProduct %s with %s: cuSPARSE on aijcusparse shadows, on the GPU%s\n", MatProductTypes[p->type], ((PetscObject)X)->type_name, cpu ? " (the CPU backend asked for, but an operand is aijcusparse)" : ""));
    C->ops->productsymbolic = DeviceProductSymbolic;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (cusp) { // AIJ's host algorithm would read its host array, which may be stale: no symbolic phase (PETSc says the product is not supported)
    PetscCall(PetscInfo(C, "MatProduct %s with %s and %s: on the GPU only (A of our type, nothing bound to the CPU or under -mat_gpumat_host)\n", MatProductTypes[p->type], ((PetscObject)X)->type_name, ((PetscObject)cusp)->type_name));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  if (X == p->A && Dense(p->B)) { // AIJ's choice with a dense B is composed on B (MatProductSetFromOptions_<level>aij_<B's type>_C); its result is dense
    const std::string name = std::string("MatProductSetFromOptions_") + (mpi ? "mpiaij_" : "seqaij_") + ((PetscObject)p->B)->type_name + "_C";
    PetscCall(PetscObjectQueryFunction((PetscObject)p->B, name.c_str(), &aij));
    // with CUDA, A B alone: AIJ's other dense products multiply by a MAIJ of A, whose kernels read
    // its host values without asking for the newest (the device may hold them); PETSc's loop over
    // B's columns runs them through our format
    if (aij && (!PetscDefined(HAVE_CUDA) || p->type == MATPRODUCT_AB)) PetscCall((*aij)(C));
    PetscCall(PetscInfo(C, "MatProduct %s with %s and %s: %s\n", MatProductTypes[p->type], ((PetscObject)X)->type_name, ((PetscObject)p->B)->type_name, C->ops->productsymbolic ? "AIJ's dense algorithm, on the host" : "none of AIJ's (PETSc's fallbacks follow)"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  aij = mpi ? MPIDataOf(X)->parent.productsetfromoptions : Data(X)->parent.productsetfromoptions;
  PetscCheck(aij, PETSC_COMM_SELF, PETSC_ERR_PLIB, "AIJ without MatProductSetFromOptions");
  PetscCall((*aij)(C));
  PetscCall(PetscInfo(C, "MatProduct %s with %s: AIJ's algorithm, on the host%s\n", MatProductTypes[p->type], ((PetscObject)X)->type_name, cpu ? " (the CPU backend asked for)" : ""));
  if (C->ops->productsymbolic) {
    PetscCall(PetscObjectComposeFunction((PetscObject)C, kAIJSymbolic, C->ops->productsymbolic));
    C->ops->productsymbolic = ProductSymbolic;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ComposeProducts(Mat A, const FormatInfo *f, const char *level, bool on)
{
  const std::string lv(level), self = lv + "aij" + f->name, aij = lv + "aij";
  PetscErrorCode (*fn)(Mat) = on ? ProductSetFromOptions : nullptr;
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)A, ("MatProductSetFromOptions_" + self + "_" + aij + "_C").c_str(), fn));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, ("MatProductSetFromOptions_" + aij + "_" + self + "_C").c_str(), fn));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, ("MatProductSetFromOptions_" + self + "_" + lv + "dense_C").c_str(), fn));
#if defined(GPUMAT_WITH_CUDA)
  PetscCall(PetscObjectComposeFunction((PetscObject)A, ("MatProductSetFromOptions_" + self + "_" + lv + "densecuda_C").c_str(), fn));
  const std::string cusparse = lv + "aijcusparse";
  PetscCall(PetscObjectComposeFunction((PetscObject)A, ("MatProductSetFromOptions_" + self + "_" + cusparse + "_C").c_str(), fn));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, ("MatProductSetFromOptions_" + cusparse + "_" + self + "_C").c_str(), fn));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpumat
