// The disk cache of tuning decisions (src/core/tuning_cache.hpp), its PETSc side: the device
// identity in every key, and PETSc messages for hits, misses, damaged entries and failed stores.
#include "gpumat_impl.hpp"
#include <set>

namespace gpumat {

PetscErrorCode TuningDeviceIdentity(std::string *id)
{
  PetscFunctionBegin;
#if defined(GPUMAT_WITH_CUDA)
  int            dev;
  cudaDeviceProp p;
  char           buf[sizeof(p.name) + 64];
  PetscCallCUDA(cudaGetDevice(&dev));
  PetscCallCUDA(cudaGetDeviceProperties(&p, dev));
  p.name[sizeof(p.name) - 1] = 0;
  PetscCall(PetscSNPrintf(buf, sizeof(buf), "%s cc%d.%d %dsm", p.name, p.major, p.minor, p.multiProcessorCount));
  PetscCallCXX(*id = buf);
#else
  PetscCallCXX(*id = "host");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TuningKeyFor(const CsrView<Scalar> &A, const char *format, int schema, TuningKey *key)
{
  std::string device;
  PetscFunctionBegin;
  PetscCall(TuningDeviceIdentity(&device));
  PetscCallCXX(*key = TuningKey::For(A, device, format, schema));
  PetscFunctionReturn(PETSC_SUCCESS);
}

namespace {
PetscErrorCode CheckKey(const TuningKey &key)
{
  std::string bad;
  PetscFunctionBegin;
  PetscCallCXX(bad = key.check());
  PetscCheck(bad.empty(), PETSC_COMM_SELF, PETSC_ERR_PLIB, "tuning cache key of %s: %s", key.format.c_str(), bad.c_str());
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace

PetscErrorCode TuningCacheLookup(PetscObject obj, const std::string &dir, const TuningKey &key, std::optional<TuningValues> *values)
{
  PetscFunctionBegin;
  values->reset();
  PetscCall(CheckKey(key));
  if (dir.empty()) {
    PetscCall(PetscInfo(obj, "%s: tuning cache off\n", key.format.c_str()));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  TuningLookup r = TuningCache(dir).Lookup(key); // never throws
  switch (r.status) {
  case TuningStatus::Hit:
    PetscCall(PetscInfo(obj, "%s: tuning cache hit %s\n", key.format.c_str(), r.path.c_str()));
    PetscCallCXX(*values = std::move(r.values));
    break;
  case TuningStatus::Miss:
    PetscCall(PetscInfo(obj, "%s: tuning cache miss (%s)\n", key.format.c_str(), r.message.c_str()));
    break;
  case TuningStatus::Invalid:
    PetscCall(PetscInfo(obj, "%s: %s\n", key.format.c_str(), r.message.c_str()));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "WARNING: petsc-gpumat %s: %s; ignored, deciding afresh (the file will be replaced)\n", key.format.c_str(), r.message.c_str()));
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TuningCacheStore(PetscObject obj, const std::string &dir, const TuningKey &key, const TuningValues &values)
{
  static std::set<std::string> warned; // directories whose store failure was shown
  PetscFunctionBegin;
  PetscCall(CheckKey(key));
  if (dir.empty()) PetscFunctionReturn(PETSC_SUCCESS);
  const TuningStored r = TuningCache(dir).Store(key, values); // never throws
  if (r.ok) {
    PetscCall(PetscInfo(obj, "%s: tuning cache stored %s\n", key.format.c_str(), r.path.c_str()));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscInfo(obj, "%s: %s\n", key.format.c_str(), r.message.c_str()));
  bool first;
  PetscCallCXX(first = warned.insert(dir).second);
  if (first)
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "WARNING: petsc-gpumat %s: %s; tuning decisions are not cached (-mat_gpumat_tuning_cache <dir> chooses another directory, -mat_gpumat_tuning_cache_disable turns the cache off)\n", key.format.c_str(), r.message.c_str()));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace gpumat
