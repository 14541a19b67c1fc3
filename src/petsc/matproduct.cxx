// Sparse products (MatProduct: AB, AtB, ABt, PtAP, RARt, ABC) with our matrices as operands.
// PETSc's dispatch (MatProductSetFromOptions_Private, src/mat/interface/matproduct.c) calls A's
// ops->productsetfromoptions where every operand has the same one: all ours, of any format, since
// one function serves every format. Otherwise it looks up MatProductSetFromOptions_<A>_<B>_C on
// the operands: composed here for a plain AIJ partner on either side. Both reach AIJ's own choice
// (the parent's operation: SeqAIJ's or MPIAIJ's algorithms, on the host), with its symbolic phase
// wrapped so that the result takes A's type, PETSc's rule, where AIJ's code makes it another (its
// RARt makes R's type, its MPI AtB B's). A three-operand product of mixed types goes to PETSc's
// pairwise ABC (MatProductSymbolic_Unsafe), whose pairs come here.
#include "block.hpp"
#include "mpi.hpp"
#include <string>

namespace gpumat {
namespace {

const char *const kAIJSymbolic = "GpumatProductSymbolicAIJ_C"; // AIJ's symbolic phase, composed on the result

// The format and level of one of our matrices (null: not ours)
const FormatInfo *OursAt(Mat X, bool *mpi)
{
  const FormatInfo *f = X ? FindFormat(((PetscObject)X)->type_name) : nullptr;
  if (f) *mpi = Names(f).mpi == ((PetscObject)X)->type_name;
  return f && (*mpi || Names(f).seq == ((PetscObject)X)->type_name) ? f : nullptr;
}

// AIJ's symbolic phase, then the result made A's type where A is ours and AIJ made it another
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
  if (!f) PetscFunctionReturn(PETSC_SUCCESS); // A is AIJ: AIJ's rule
  PetscCall(PetscObjectTypeCompare((PetscObject)C, ((PetscObject)A)->type_name, &same));
  if (same) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompare((PetscObject)C, mpi ? MATMPIAIJ : MATSEQAIJ, &same));
  PetscCheck(same, PetscObjectComm((PetscObject)C), PETSC_ERR_SUP, "the product of %s made a %s, which cannot become %s", ((PetscObject)A)->type_name, ((PetscObject)C)->type_name, ((PetscObject)A)->type_name);
  if (mpi) PetscCall(MPIInstall(C, f));
  else PetscCall(SeqInstall(C, f));
  PetscFunctionReturn(PETSC_SUCCESS);
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
  aij = mpi ? MPIDataOf(X)->parent.productsetfromoptions : Data(X)->parent.productsetfromoptions;
  PetscCheck(aij, PETSC_COMM_SELF, PETSC_ERR_PLIB, "AIJ without MatProductSetFromOptions");
  PetscCall((*aij)(C));
  PetscCall(PetscInfo(C, "MatProduct %s with %s: AIJ's algorithm, on the host\n", MatProductTypes[p->type], ((PetscObject)X)->type_name));
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
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpumat
