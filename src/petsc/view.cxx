// MatView of both levels. Under PETSC_VIEWER_ASCII_INFO(_DETAIL) a few summary lines after the
// parent's (the format's parameters and statistics, the block's state); every other viewer is the
// parent's alone. MatView is no product: it builds nothing and changes no state.
#include "block.hpp"
#include "mpi.hpp"
#include "shadow.hpp"

namespace gpumat {
namespace {

// Whether the viewer asks for the summary lines (ASCII, info or info_detail).
PetscErrorCode IsInfo(PetscViewer viewer, bool *info)
{
  PetscBool         ascii;
  PetscViewerFormat format;
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  PetscCall(PetscViewerGetFormat(viewer, &format));
  *info = ascii && (format == PETSC_VIEWER_ASCII_INFO || format == PETSC_VIEWER_ASCII_INFO_DETAIL);
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The format's lines: of the storage while it describes the current pattern (built), else of the
// next build of the full block (the hints it would get, as Ensure gives them).
PetscErrorCode ViewFormat(Mat A, PetscViewer viewer, bool built)
{
  SeqData               *d    = Data(A);
  const CsrView<Scalar> &full = d->csr.view();
  PetscFunctionBegin;
  if (!built) {
    PetscInt rbs, cbs;
    PetscCall(MatGetBlockSizes(A, &rbs, &cbs));
    d->fmt->SetBlockSize(rbs == cbs ? (int)rbs : 1);
    PetscCallCXX(d->fmt->SetLongestRow(row_stats(full).longest));
  }
  if (built && d->compressed) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "compressed rows: %d of %d (the format stores the nonempty rows; products add through the row list)\n", (int)d->cr.size(), (int)full.nrows));
    PetscCall(d->fmt->ViewInfo(viewer, d->cr.view(full)));
  } else {
    if (built) PetscCall(PetscViewerASCIIPrintf(viewer, "compressed rows: no (%d of %d rows empty)\n", (int)d->empty_rows, (int)full.nrows));
    PetscCall(d->fmt->ViewInfo(viewer, full));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The COO assembly's and the value accessors' lines.
PetscErrorCode ViewCOO(const SeqData *d, PetscViewer viewer)
{
  PetscFunctionBegin;
#if defined(GPUMAT_WITH_CUDA)
  if (d->coo.n < 0 && d->dv.assemblies) // values written on the GPU without a COO map (device products and operations)
    PetscCall(PetscViewerASCIIPrintf(viewer, "Device values: %" PetscInt_FMT " writes on the GPU (device products and operations) into a device copy of the values, %zu bytes; host values %s\n", d->dv.assemblies, (size_t)d->dv.n * sizeof(Scalar), d->st.host_stale ? "older (copied back when a host reader asks)" : "current"));
  else if (d->coo.n >= 0 || d->dv.assemblies) {
    const DeviceValues &v = d->dv;
    PetscCall(PetscViewerASCIIPrintf(viewer, "COO assembly: %" PetscInt_FMT " device assemblies (summed on the GPU through a map of %" PetscInt64_FMT " entries%s, %zu device bytes, into a device copy of the values, %zu bytes); host values %s\n", v.assemblies,
                                     (PetscInt64)(v.dlocal.uploaded() ? v.dlocal.entries() : d->coo.local.entries()), d->coo.has_remote ? " and the entries of other ranks" : "", v.dlocal.device_bytes() + v.dremote.device_bytes(), (size_t)v.n * sizeof(Scalar),
                                     d->st.host_stale ? "older (copied back when a host reader asks)" : "current"));
  }
#else
  if (d->coo.n >= 0 && d->opt.coo_host_reference) PetscCall(PetscViewerASCIIPrintf(viewer, "COO assembly: through a map of %" PetscInt64_FMT " entries on the host (-mat_gpumat_coo_host_reference)\n", (PetscInt64)d->coo.local.entries()));
#endif
  if (d->coo.hooked) PetscCall(PetscViewerASCIIPrintf(viewer, "AIJ value accessors: %s\n", d->coo.hooked > 0 ? "hooked (host readers get device values copied back)" : "not hooked (Mat_SeqAIJ's layout is not the one known: device COO values go through the host)"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

PetscErrorCode SeqView(Mat A, PetscViewer viewer)
{
  SeqData *d = Data(A);
  bool     info;
  PetscFunctionBegin;
  PetscCall(IsInfo(viewer, &info));
  if (!info) PetscCall(SyncHost(A)); // SeqAIJ's viewers print the AIJ array itself
  PetscCall(d->parent.view(A, viewer));
  if (!info) PetscFunctionReturn(PETSC_SUCCESS);
  const bool new_pattern = d->st.pattern != A->nonzerostate, built = d->st.built && !new_pattern;
  PetscCall(GetCsr(A, new_pattern));
  const CsrView<Scalar> &full      = d->csr.view();
  const double           csr_bytes = (double)(full.nrows + 1 + full.nnz()) * sizeof(index_t) + (double)full.nnz() * sizeof(Scalar);
  PetscCall(PetscViewerASCIIPrintf(viewer, "petsc-gpumat %s: %s\n", d->info->name, d->info->title));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  PetscCall(ViewFormat(A, viewer, built));
  const char *host = d->opt.host_reference ? "the format's host reference kernel" : "PETSc's SeqAIJ kernels";
#if defined(GPUMAT_WITH_CUDA)
  PetscCall(PetscViewerASCIIPrintf(viewer, "products: CUDA vectors on the GPU (this format), host vectors with %s%s\n", host, d->opt.force_host ? " (-mat_gpumat_host: every product on the host)" : ""));
#else
  PetscCall(PetscViewerASCIIPrintf(viewer, "products: host vectors with %s (a build without CUDA)\n", host));
#endif
  PetscCall(PetscViewerASCIIPrintf(viewer, "builds: host %" PetscInt_FMT ", device %" PetscInt_FMT " (%" PetscInt_FMT " from its CSR on the device); value refreshes: host %" PetscInt_FMT ", device %" PetscInt_FMT "\n", d->builds[0], d->builds[1], d->device_csr_builds, d->refreshes[0], d->refreshes[1]));
#if defined(GPUMAT_WITH_CUDA)
  if (const PetscInt served = ShadowServed(A))
    PetscCall(PetscViewerASCIIPrintf(viewer, "products through cuSPARSE on its CSR from a device product, before the format's build: %" PetscInt_FMT " (-mat_gpumat_shadow_products %" PetscInt_FMT ")\n", served, d->opt.shadow_products));
#endif
  PetscCall(ViewCOO(d, viewer));
  const std::size_t dev = d->DeviceBytes();
  if (dev) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "device memory: %zu bytes, %.3f bytes per nonzero (CSR with 32-bit indices: %.3f)\n", dev, full.nnz() ? (double)dev / full.nnz() : 0.0, full.nnz() ? csr_bytes / full.nnz() : 0.0));
    PetscCall(PetscViewerASCIIPrintf(viewer, "device build: last %.3g ms; value refreshes: %.3g ms in all\n", 1e3 * d->build_seconds[1], 1e3 * d->refresh_seconds[1]));
  }
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MPIView(Mat A, PetscViewer viewer)
{
  MPIData    *d = MPIDataOf(A);
  Mat         Ad, Ao;
  PetscMPIInt rank;
  PetscViewer sub;
  bool        info;
  PetscFunctionBegin;
  PetscCall(d->parent.view(A, viewer));
  PetscCall(IsInfo(viewer, &info));
  if (!info) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, nullptr));
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)A), &rank));
  PetscCall(PetscViewerASCIIPrintf(viewer, "petsc-gpumat %s blocks, halo exchange %s; each rank (diagonal block, then off-diagonal block):\n", d->info->name, d->set.overlap ? "overlapped with the diagonal block's product" : "finished before the diagonal block's product (-mat_gpumat_overlap 0)"));
#if defined(GPUMAT_WITH_CUDA)
  if (d->set.overlap)
    PetscCall(PetscViewerASCIIPrintf(viewer, "diagonal block's product of CUDA vectors: %s\n",
                                     d->set.side_stream ? "on a stream of its own, while the halo exchange and the off-diagonal block's product run on PETSc's stream (-mat_gpumat_side_stream 1)" : "on PETSc's stream, after the halo exchange has begun (-mat_gpumat_side_stream 0)"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "ghost values of device vectors: %s\n", d->set.gpu_aware ? "passed to MPI in device memory (-mat_gpumat_gpu_aware_mpi 1)" : "staged through host buffers (-mat_gpumat_gpu_aware_mpi 0)"));
#endif
  PetscCall(PetscViewerASCIIPushSynchronized(viewer));
  PetscCall(PetscViewerGetSubViewer(viewer, PETSC_COMM_SELF, &sub));
  PetscCall(PetscViewerASCIIPrintf(sub, "[%d] diagonal block\n", rank));
  PetscCall(MatView(Ad, sub));
  PetscCall(PetscViewerASCIIPrintf(sub, "[%d] off-diagonal block\n", rank));
  PetscCall(MatView(Ao, sub));
  PetscCall(PetscViewerRestoreSubViewer(viewer, PETSC_COMM_SELF, &sub));
  PetscCall(PetscViewerFlush(viewer));
  PetscCall(PetscViewerASCIIPopSynchronized(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpumat
