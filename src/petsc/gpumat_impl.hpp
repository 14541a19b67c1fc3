// The AIJ-subclass machinery shared by every format (seq and MPI), and the interface a format
// adapter implements. Adding a format: one adapter file implementing gpumat::Format, plus one line
// in the registry (registry.cxx).
#pragma once
#include <petscgpumat.h>
#include <petsc/private/matimpl.h>
#include <memory>
#include <string>
#include <vector>
#include "core/csr.hpp"

#if defined(GPUMAT_WITH_CUDA)
  #include <petscdevice_cuda.h>
#else
typedef struct CUstream_st *cudaStream_t; // host-only builds never dereference it
#endif

#if defined(PETSC_USE_COMPLEX)
  #error "petsc-gpumat supports real PETSc builds only"
#endif

namespace gpumat {

using Scalar = PetscScalar;

// A format's storage for one sequential matrix: the host path and (with CUDA) the device path.
// The machinery calls Build* after a new nonzero pattern, Refresh* after new values only, Apply*
// for products; all CSR arguments are the AIJ matrix's own host arrays (32-bit indices).
class Format {
public:
  virtual ~Format() = default;
  // Options under -mat_<name>_; PetscOptionsObject is open (inside PetscOptionsBegin/End).
  virtual PetscErrorCode SetFromOptions(PetscOptionItems PetscOptionsObject) = 0;
  virtual std::unique_ptr<Format> CloneSettings() const = 0; // same options, no storage

  virtual PetscErrorCode HostBuild(const CsrView<Scalar> &A) = 0;
  virtual PetscErrorCode HostApply(const CsrView<Scalar> &A, Op op, const Scalar *x, const Scalar *z, Scalar *y) = 0;

  virtual PetscErrorCode DeviceBuild(const CsrView<Scalar> &A, cudaStream_t s) = 0;
  virtual PetscErrorCode DeviceRefresh(const CsrView<Scalar> &A, cudaStream_t s) = 0;
  virtual PetscErrorCode DeviceApply(Op op, const Scalar *x, const Scalar *z, Scalar *y, cudaStream_t s) = 0;
  virtual PetscErrorCode DeviceRelease() = 0;
  virtual std::size_t    DeviceBytes() const = 0;

  // A few summary lines for MatView(-mat_view ::ascii_info): parameters and statistics.
  virtual PetscErrorCode ViewInfo(PetscViewer v, const CsrView<Scalar> &A) const = 0;
};

struct FormatInfo {
  const char *name;                        // the root type name, e.g. "csrspec"
  const char *title;                       // one line for MatView and help
  std::unique_ptr<Format> (*create)();     // a format with default settings
};

// registry.cxx
const std::vector<FormatInfo> &Formats();
const FormatInfo             *FindFormat(const char *mattype); // by root, aij<root>, seqaij<root>, mpiaij<root>

// Type names and events of one registered format.
struct TypeNames {
  std::string root, aij, seq, mpi;
  PetscLogEvent build = 0, refresh = 0;
};
const TypeNames &Names(const FormatInfo *f);

// seqaij.cxx / mpiaij.cxx
PetscErrorCode SeqInstall(Mat A, const FormatInfo *f);         // make an (un)assembled SeqAIJ one of ours, in place
PetscErrorCode MPIInstall(Mat A, const FormatInfo *f);         // same for MPIAIJ (converts assembled blocks)
PetscErrorCode SeqInstallWithOptions(Mat A, const FormatInfo *f, Mat options_source); // options read with its prefix
PetscErrorCode SeqSetFromOptionsItems(Mat A, PetscOptionItems PetscOptionsObject);
PetscErrorCode SeqIsOurs(Mat A, const FormatInfo *f, PetscBool *ours);
std::size_t    SeqDeviceBytes(Mat A);                          // 0 unless A is one of ours
PetscErrorCode SeqApply(Mat A, Op op, Vec x, Vec z, Vec y);    // y = op(A) x (+ z); z may be y
PetscErrorCode MatConvert_SeqAIJ_Gpu(Mat A, MatType type, MatReuse reuse, Mat *newmat);
PetscErrorCode MatConvert_MPIAIJ_Gpu(Mat A, MatType type, MatReuse reuse, Mat *newmat);

// Host CSR of a SeqAIJ matrix with 32-bit indices (a view of PETSc's arrays when PetscInt is 32
// bits, a checked copy otherwise, made again only when the nonzero pattern changes).
class HostCsr {
public:
  PetscErrorCode Get(Mat A);
  const CsrView<Scalar> &view() const { return view_; }
private:
  CsrView<Scalar> view_{};
  std::vector<index_t> i_, j_;
  PetscObjectState     nzstate_ = -1; // pattern of the copies in i_, j_ (64-bit PetscInt only)
};

} // namespace gpumat

// Not declared in PETSc's public headers, but exported.
PETSC_EXTERN PetscErrorCode MatCreate_SeqAIJ(Mat);
PETSC_EXTERN PetscErrorCode MatCreate_MPIAIJ(Mat);
