// One GPU per rank: every rank's matrix storage, vectors and products are on the device PETSc chose
// for it, rank % (visible devices) (PETSc 3.26.1, src/sys/objects/device/impls/cupm/cupmdevice.cxx,
// Device<T>::initialize: the rank in PETSC_COMM_WORLD modulo cudaGetDeviceCount, unless
// -device_select_cuda N or -device_select N names one). CUDA builds only.
//
//   mpiexec -n N test_devices [-types aijcusparse,csrspec,...] [-m 1024] [-allow_shared]
//
// With fewer visible GPUs than ranks it prints "test_devices: skipped: ..." and exits 0 (CTest marks
// the test skipped), unless -allow_shared: then the ranks share devices and the storage check
// below, which reads the device's free memory, is left out. Per type, on a 2D 5-point Laplacian of
// m x m rows with one long-range coupling per row (every rank has ghosts from a distant rank):
//   - PETSc's device (the current device context's) is rank % ndev (or the selected one), and
//     cudaGetDevice() says the same before anything else and after every product;
//   - the vectors' device arrays (VecCUDAGetArrayRead of x and y) are device memory of that device
//     (cudaPointerGetAttributes);
//   - the matrix's storage went to that device: its free memory (cudaMemGetInfo, the default pool
//     trimmed) dropped at the first product (the format's build) by at least half of the bytes
//     the type reports (ours: MatGpuMatGetDeviceBytes, both blocks of this rank; aijcusparse: its
//     CSR, 12 B per nonzero + 4 B per row);
//   - MatMult and MatMultAdd agree with MPIAIJ's host product (relative 1e-12): a kernel that read
//     storage of another device would fail (PETSc enables no peer access, and this test disables
//     any it finds) or give wrong values.
// Rank 0 prints every rank's line in rank order; the last line says whether all checks passed.
#include <petscgpumat.h>
#include <petscdevice_cuda.h>
#include <cuda_runtime.h>

#include <string>

namespace {

PetscMPIInt rank, size;
PetscInt    failures = 0;

// A check on this rank: a failed one adds its reason to *why.
void Expect(bool ok, std::string *why, const std::string &what)
{
  if (ok) return;
  if (!why->empty()) *why += "; ";
  *why += what;
}

// The global matrix: 5-point Laplacian on an m x m grid, and row i coupled to (i + M/2) mod M.
PetscErrorCode Assemble(Mat A, PetscInt m)
{
  const PetscInt M = m * m;
  PetscInt       rstart, rend;
  PetscFunctionBegin;
  PetscCall(MatSeqAIJSetPreallocation(A, 6, nullptr));
  PetscCall(MatMPIAIJSetPreallocation(A, 6, nullptr, 6, nullptr));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; ++i) {
    const PetscInt r = i / m, c = i % m, far = (i + M / 2) % M;
    PetscInt       cols[6], n = 0;
    PetscScalar    vals[6];
    cols[n] = i, vals[n++] = 4.0 + 0.001 * (i % 97);
    if (r > 0) cols[n] = i - m, vals[n++] = -1.0;
    if (r < m - 1) cols[n] = i + m, vals[n++] = -1.0 - 0.0001 * (i % 13);
    if (c > 0) cols[n] = i - 1, vals[n++] = -1.0;
    if (c < m - 1) cols[n] = i + 1, vals[n++] = -0.9;
    bool dup = false;
    for (PetscInt k = 0; k < n; ++k) dup |= cols[k] == far;
    if (!dup) cols[n] = far, vals[n++] = 0.01;
    PetscCall(MatSetValues(A, 1, &i, n, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The device of a device array; -1 (and why) when it is not device memory.
int DeviceOf(const void *p, std::string *why, const char *what)
{
  cudaPointerAttributes a;
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    (void)cudaGetLastError();
    Expect(false, why, std::string(what) + ": cudaPointerGetAttributes failed");
    return -1;
  }
  Expect(a.type == cudaMemoryTypeDevice, why, std::string(what) + ": not device memory (cudaMemoryType " + std::to_string((int)a.type) + ")");
  return a.type == cudaMemoryTypeDevice ? a.device : -1;
}

// dst = src through host arrays (vectors of different types, same layout).
PetscErrorCode CopyValues(Vec src, Vec dst)
{
  const PetscScalar *a;
  PetscScalar       *b;
  PetscInt           n;
  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(src, &n));
  PetscCall(VecGetArrayRead(src, &a));
  PetscCall(VecGetArrayWrite(dst, &b));
  PetscCall(PetscArraycpy(b, a, n));
  PetscCall(VecRestoreArrayWrite(dst, &b));
  PetscCall(VecRestoreArrayRead(src, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// max |a - shift - b| / max |b| over all ranks, through host arrays.
PetscErrorCode MaxRelDiff(Vec a, PetscScalar shift, Vec b, PetscReal *rel)
{
  const PetscScalar *pa, *pb;
  PetscInt           n;
  PetscReal          v[2] = {0, 0};
  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(b, &n));
  PetscCall(VecGetArrayRead(a, &pa));
  PetscCall(VecGetArrayRead(b, &pb));
  for (PetscInt i = 0; i < n; ++i) {
    v[0] = PetscMax(v[0], PetscAbsScalar(pa[i] - shift - pb[i]));
    v[1] = PetscMax(v[1], PetscAbsScalar(pb[i]));
  }
  PetscCall(VecRestoreArrayRead(a, &pa));
  PetscCall(VecRestoreArrayRead(b, &pb));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, v, 2, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  *rel = v[1] > 0 ? v[0] / v[1] : v[0];
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Every rank's line, in rank order, through rank 0; counts the failing ranks.
PetscErrorCode Report(const std::string &what, const std::string &line, bool ok)
{
  PetscInt bad = ok ? 0 : 1;
  PetscFunctionBegin;
  PetscCall(PetscSynchronizedPrintf(PETSC_COMM_WORLD, "test_devices: %s: rank %d: %s%s\n", what.c_str(), rank, ok ? "ok: " : "FAILED: ", line.c_str()));
  PetscCall(PetscSynchronizedFlush(PETSC_COMM_WORLD, PETSC_STDOUT));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  failures += bad;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CheckType(const std::string &type, PetscInt m, int expected, bool shared, Vec xref, Vec yref)
{
  Mat         A;
  Vec         x, y, z;
  std::string why, what;
  int         cur = -1;
  size_t      free0 = 0, free1 = 0, total = 0, bytes = 0;
  PetscBool   ours = PETSC_FALSE, cuda;
  PetscReal   rel, rel_add;
  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, m * m, m * m));
  PetscCall(MatSetType(A, type.c_str()));
  PetscCall(Assemble(A, m));
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecDuplicate(y, &z));
  VecType     vtype;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)x, &cuda, VECSEQCUDA, VECMPICUDA, ""));
  PetscCall(VecGetType(x, &vtype));
  Expect(cuda, &why, std::string("MatCreateVecs gave ") + vtype + ", not a CUDA vector");
  PetscCall(CopyValues(xref, x));
  PetscCall(VecSet(y, -7.0)); // poisoned
  PetscCall(VecSet(z, 0.5));
  { // the vectors on the device before the matrix's first product, then the free memory
    const PetscScalar *p;
    for (Vec v : {x, y, z}) {
      PetscCall(VecCUDAGetArrayRead(v, &p));
      PetscCall(VecCUDARestoreArrayRead(v, &p));
    }
  }
  PetscCallCUDA(cudaDeviceSynchronize());
  {
    cudaMemPool_t pool;
    PetscCallCUDA(cudaDeviceGetDefaultMemPool(&pool, expected));
    PetscCallCUDA(cudaMemPoolTrimTo(pool, 0));
  }
  PetscCallCUDA(cudaMemGetInfo(&free0, &total));
  PetscCall(MatMult(A, x, y)); // builds the format (ours) or copies the CSR (aijcusparse)
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscCallCUDA(cudaMemGetInfo(&free1, &total));
  PetscCallCUDA(cudaGetDevice(&cur));
  Expect(cur == expected, &why, "cudaGetDevice after MatMult is " + std::to_string(cur));
  {
    const PetscScalar *px, *py;
    PetscCall(VecCUDAGetArrayRead(x, &px));
    PetscCall(VecCUDAGetArrayRead(y, &py));
    const int dx = DeviceOf(px, &why, "x"), dy = DeviceOf(py, &why, "y");
    PetscCall(VecCUDARestoreArrayRead(x, &px));
    PetscCall(VecCUDARestoreArrayRead(y, &py));
    Expect(dx < 0 || dx == expected, &why, "x's device array is on device " + std::to_string(dx));
    Expect(dy < 0 || dy == expected, &why, "y's device array is on device " + std::to_string(dy));
    what = "device " + std::to_string(expected) + ", cudaGetDevice " + std::to_string(cur) + ", x on " + std::to_string(dx) + ", y on " + std::to_string(dy);
  }
  PetscCall(MatGpuMatGetDeviceBytes(A, &ours, &bytes));
  if (!ours) { // aijcusparse: its CSR of this rank's blocks
    MatInfo  info;
    PetscInt nloc;
    PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
    PetscCall(MatGetLocalSize(A, &nloc, nullptr));
    bytes = (size_t)(12.0 * info.nz_used + 4.0 * nloc);
  }
  if (!shared) {
    const double drop = (double)free0 - (double)free1;
    Expect(drop >= 0.5 * (double)bytes, &why,
           "the device's free memory dropped by " + std::to_string((long long)drop) + " B at the first product, less than half of the matrix's " + std::to_string(bytes) + " B: its storage is elsewhere");
    what += ", free memory -" + std::to_string((long long)(drop / 1e3)) + " kB at the build (matrix " + std::to_string(bytes / 1000) + " kB)";
  } else what += ", storage not checked (ranks share a device)";
  PetscCall(MaxRelDiff(y, 0.0, yref, &rel));
  PetscCall(MatMultAdd(A, x, z, z)); // z = 0.5 + A x, in place
  PetscCall(MaxRelDiff(z, 0.5, yref, &rel_add));
  PetscCallCUDA(cudaGetDevice(&cur));
  Expect(cur == expected, &why, "cudaGetDevice after MatMultAdd is " + std::to_string(cur));
  const PetscReal tol = PetscDefined(USE_REAL_SINGLE) ? 1e-5 : 1e-12;
  Expect(rel <= tol, &why, "MatMult differs from MPIAIJ's by " + std::to_string((double)rel));
  Expect(rel_add <= tol, &why, "MatMultAdd differs from MPIAIJ's by " + std::to_string((double)rel_add));
  what += ", products agree with MPIAIJ's";
  PetscCall(Report(type, why.empty() ? what : why, why.empty()));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&z));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

int main(int argc, char **argv)
{
  char      list[2048] = "aijcusparse";
  PetscInt  m = 1024, sel = -1;
  PetscBool allow_shared = PETSC_FALSE, has_sel;
  int       ndev = 0, dev0 = -1;

  PetscCall(PetscInitialize(&argc, &argv, nullptr, "test_devices: one GPU per rank (see the source's head)\n"));
  PetscCall(PetscGpuMatInitialize());
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetString(nullptr, nullptr, "-types", list, sizeof(list), nullptr));
  PetscCall(PetscOptionsGetInt(nullptr, nullptr, "-m", &m, nullptr));
  PetscCall(PetscOptionsGetBool(nullptr, nullptr, "-allow_shared", &allow_shared, nullptr));
  PetscCall(PetscOptionsGetInt(nullptr, nullptr, "-device_select_cuda", &sel, &has_sel));
  if (!has_sel) PetscCall(PetscOptionsGetInt(nullptr, nullptr, "-device_select", &sel, &has_sel));
  PetscCheck(m >= 4, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-m must be at least 4, got %" PetscInt_FMT, m);

  if (cudaGetDeviceCount(&ndev) != cudaSuccess) { // no context is made: PETSc has not chosen yet
    (void)cudaGetLastError();
    ndev = 0;
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &ndev, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD));
  if (ndev == 0 || (ndev < size && !allow_shared)) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "test_devices: skipped: %d rank(s) need %d GPU(s), one per rank; %d visible (-allow_shared runs the checks with ranks sharing devices, without the storage check)\n", size, size, ndev));
    PetscCall(PetscFinalize());
    return 0;
  }
  const bool shared   = ndev < size;
  const int  expected = has_sel && sel >= 0 ? (int)sel : rank % ndev;

  // PETSc's choice, before anything of ours ran: the current device context's device
  PetscDeviceContext dctx;
  PetscDevice        device;
  PetscInt           id;
  std::string        why;
  PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
  PetscCall(PetscDeviceContextGetDevice(dctx, &device));
  PetscCall(PetscDeviceGetDeviceId(device, &id));
  PetscCallCUDA(cudaGetDevice(&dev0));
  Expect(id == expected, &why, "PETSc chose device " + std::to_string(id) + ", not rank % ndev = " + std::to_string(expected));
  Expect(dev0 == expected, &why, "cudaGetDevice is " + std::to_string(dev0) + " after PETSc's device initialization");
  // no peer access from this device (PETSc enables none; any found is disabled): a kernel reading
  // another device's memory then fails instead of reading it over the link
  for (int k = 0; k < ndev; ++k)
    if (k != dev0) {
      (void)cudaDeviceDisablePeerAccess(k); // cudaErrorPeerAccessNotEnabled: there was none
      (void)cudaGetLastError();
    }
  PetscCall(Report("device", why.empty() ? "PETSc's device " + std::to_string(id) + (has_sel ? " (selected)" : " = rank % " + std::to_string(ndev)) + ", cudaGetDevice " + std::to_string(dev0) : why, why.empty()));

  // the reference: MPIAIJ with host vectors
  Mat Aref;
  Vec xref, yref;
  PetscCall(MatCreate(PETSC_COMM_WORLD, &Aref));
  PetscCall(MatSetSizes(Aref, PETSC_DECIDE, PETSC_DECIDE, m * m, m * m));
  PetscCall(MatSetType(Aref, MATAIJ));
  PetscCall(Assemble(Aref, m));
  PetscCall(MatCreateVecs(Aref, &xref, &yref));
  {
    PetscRandom rnd;
    PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
    PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
    PetscCall(VecSetRandom(xref, rnd));
    PetscCall(PetscRandomDestroy(&rnd));
  }
  PetscCall(MatMult(Aref, xref, yref));

  const std::string types(list);
  for (size_t start = 0; start <= types.size();) {
    const size_t      end = types.find(',', start);
    const std::string t   = types.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!t.empty()) PetscCall(CheckType(t, m, expected, shared, xref, yref));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  PetscCall(VecDestroy(&xref));
  PetscCall(VecDestroy(&yref));
  PetscCall(MatDestroy(&Aref));
  if (failures) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "test_devices: %" PetscInt_FMT " failed check(s) over the ranks\n", failures));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "test_devices: all checks passed on %d rank(s), %d device(s)%s\n", size, ndev, shared ? " (shared)" : ""));
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
