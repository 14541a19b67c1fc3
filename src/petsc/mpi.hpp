// The MPI type's record: MPIAIJ whose diagonal and off-diagonal blocks are our sequential type
// (mpiaij.cxx), with the ghosts of its product (halo.cxx) and its device COO assembly (coo.cxx).
#pragma once
#include "machinery.hpp"
#include <petscsf.h>
#if defined(GPUMAT_WITH_CUDA)
  #include "cuda/coo.cuh"
#endif

namespace gpumat {

// The MPI product's settings, read with the blocks' options at every block conversion.
struct MPISettings {
  // -mat_gpumat_overlap: the halo exchange overlapped with the diagonal block's product (default),
  // or finished before it
  PetscBool overlap = PETSC_TRUE;
  // -mat_gpumat_gpu_aware_mpi: device vectors' ghost values passed to MPI in device memory, or
  // staged through host buffers; default PETSc's -use_gpu_aware_mpi
  PetscBool gpu_aware = use_gpu_aware_mpi;
  // -mat_gpumat_side_stream (CUDA builds, CUDA vectors, with the overlap): the diagonal block's
  // product on a stream of this matrix's own while our pack, the halo exchange and the off-diagonal
  // rows run on PETSc's (default); 0: PETSc's order on its stream
  PetscBool side_stream = PETSC_TRUE;
};

// The ghost vector and its scatter, for one (off-diagonal block, nonzero state, ghost count, memory
// kind). Making them is collective, so every key must change on all ranks at once: the block's
// object (a new one on every rank: COO preallocation, MPIAIJ's disassembly) and the MPI matrix's
// nonzero state (MPIAIJ sums the blocks' over the ranks at assembly), not the off-diagonal block's
// own, which a new nonzero at a column its rank already has raises on that rank alone.
struct Ghosts {
  Vec              lvec = nullptr;
  VecScatter       sct  = nullptr;
  PetscObjectId    block   = 0;  // the off-diagonal block (COO preallocation makes a new one: its state alone may repeat)
  PetscObjectState nzstate = -1; // the MPI matrix's
  PetscInt         nghost  = -1;
  VecType          type    = VECSEQ;      // the ghosts' vector type (the kind of the vectors multiplied)
  PetscBool        aware   = PETSC_FALSE; // the scatter hands device buffers to MPI
  PetscBool        side    = PETSC_FALSE; // CUDA ghosts and some rank has ghosts: the side-stream path may apply (the same on every rank)
  bool             parent  = false;       // sct is MPIAIJ's own (MatGetMultPetscSF), referenced, not made by us
};

#if defined(GPUMAT_WITH_CUDA)
// The side-stream product's halo (EnsureHalo), made for the scatter of the same state from its
// graph (no set-up of another PetscSF: with millions of ghosts one takes seconds): the owned entries
// of x each neighbour needs, gathered by our own kernel into one device buffer in the order that
// neighbour takes them (contiguous per neighbour), sent in one message per neighbour and received in
// one per owner straight into the ghosts where they lie in the scatter's receive order (MPIAIJ's:
// garray is sorted), else into a buffer our second kernel spreads into the ghosts; no pack or unpack
// kernel of PETSc's. Device buffers go to MPI as the scatter's do (Ghosts::aware), else through
// pinned host buffers of our own.
struct Halo {
  std::vector<PetscMPIInt>   to, from;       // ranks sent to, received from
  std::vector<PetscMPIInt>   scount, rcount; // entries per message (MPI's int, checked once)
  std::vector<PetscInt>      soff, roff;     // where each message starts in the send buffer, the receive order (last: the totals)
  std::vector<MPI_Request>   req;
  PetscMPIInt                tag = 0;
  cuda::GatherDevice<Scalar> pack;                   // x -> buf
  cuda::GatherDevice<Scalar> unpack;                 // rbuf -> ghosts, where the receive order is not the ghosts' (else empty)
  Scalar                    *rbuf  = nullptr;        // device, with unpack
  Scalar                    *hsend = nullptr, *hrecv = nullptr; // pinned host buffers: the halo through the host
  Scalar                    *buf   = nullptr;        // allocated last: the halo is complete

  void Release()
  {
    pack.release();
    unpack.release();
    for (Scalar **p : {&buf, &rbuf})
      if (*p) (void)cudaFree(*p);
    for (Scalar **p : {&hsend, &hrecv})
      if (*p) (void)cudaFreeHost(*p);
    buf = rbuf = hsend = hrecv = nullptr;
  }
};
#endif

// COO assembly through our maps (CUDA builds, or -mat_gpumat_coo_host_reference), of the pattern of
// the last MatSetPreallocationCOO: the COO array's length, the entries this rank sends (their places
// in the COO array: on the host until uploaded), the SF to their owners; host buffers (host
// reference); whether every rank's blocks can be filled on the device, and device buffers.
struct MPICoo {
  PetscCount                n              = -1;
  bool                      host_reference = false;
  std::vector<std::int64_t> send_idx;
  PetscSF                   sf    = nullptr;
  PetscInt                  nsend = 0, nrecv = 0;
  std::vector<Scalar>       hsend, hrecv;
#if defined(GPUMAT_WITH_CUDA)
  bool                       device = false;
  cuda::GatherDevice<Scalar> send;
  Scalar                    *sendbuf = nullptr, *recvbuf = nullptr;
#endif

  void Release()
  {
    n = -1;
    send_idx.clear();
    (void)PetscSFDestroy(&sf);
    nsend = nrecv = 0;
    hsend.clear();
    hrecv.clear();
#if defined(GPUMAT_WITH_CUDA)
    device = false;
    send.release();
    if (sendbuf) cudaFree(sendbuf);
    if (recvbuf) cudaFree(recvbuf);
    sendbuf = recvbuf = nullptr;
#endif
  }
};

struct MPIData {
  const FormatInfo *info = nullptr;
  struct _MatOps    parent; // the parent's (MPIAIJ's) operations
  PetscErrorCode (*preallocation)(Mat, PetscInt, const PetscInt[], PetscInt, const PetscInt[]) = nullptr;
  MPISettings set;
  Ghosts      gh;
  bool        ignore_remote = false; // MAT_IGNORE_OFF_PROC_ENTRIES set through MatSetOption
#if defined(GPUMAT_WITH_CUDA)
  SideStream side; // created at its first use
  Halo       halo;
#endif
  CooChain coo_parent; // MPIAIJ's COO assembly (ours chained to it)
  MPICoo   coo;

  ~MPIData()
  {
#if defined(GPUMAT_WITH_CUDA)
    if (side.ready) (void)cudaEventDestroy(side.ready);
    if (side.done) (void)cudaEventDestroy(side.done);
    if (side.stream) (void)cudaStreamDestroy(side.stream); // its work completes first
    halo.Release();
#endif
    coo.Release();
  }
};

inline MPIData *MPIDataOf(Mat A) { return static_cast<MPIData *>(A->spptr); }

// mpiaij.cxx: the blocks made ours (after any assembly path) and the product's settings read
PetscErrorCode MPIConvertBlocks(Mat A);
// halo.cxx
PetscErrorCode EnsureGhosts(Mat A, Vec like);
#if defined(GPUMAT_WITH_CUDA)
PetscErrorCode EnsureSideStream(MPIData *d);
PetscErrorCode EnsureHalo(Mat A, cudaStream_t s);
PetscErrorCode HaloExchange(Mat A, Scalar *ga, cudaStream_t s);
#endif
// coo.cxx: MPIAIJ's COO assembly with ours chained (on), or MPIAIJ's back (off)
PetscErrorCode MPIComposeCOO(Mat A, bool on);
// view.cxx
PetscErrorCode MPIView(Mat A, PetscViewer viewer);
// valueops.cxx: MPIAIJ's MatAXPY, with a different pattern that is equal on every rank run as the same
PetscErrorCode MPIAXPY(Mat Y, PetscScalar a, Mat X, MatStructure str);

} // namespace gpumat
