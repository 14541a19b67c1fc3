// module_load: what CUDA charges to load a module, the fixed cost a process pays the first time it
// runs a kernel of a translation unit (each of this project's .cu files is one module).
//
//   module_load [-reps N] FATBIN...
//
// FATBIN: a fatbinary image, e.g. the .nv_fatbin section of an object
// (objcopy -O binary --only-section=.nv_fatbin x.cu.o x.fatbin). For each: cuModuleLoadData and
// then, for its first kernel, cuFuncLoad (the function's own load, which lazy loading defers to
// the first launch), then cuModuleUnload; N times after one warm-up; the median of each step.
// Run it with CUDA_MODULE_LOADING=LAZY (the default) and EAGER to see what lazy loading defers:
// docs/results/ says what it measured. The driver API only (CUDA::cuda_driver), no PETSc.
#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

bool ok(CUresult r, const char *what) {
  if (r == CUDA_SUCCESS) return true;
  const char *msg = nullptr;
  cuGetErrorString(r, &msg);
  std::fprintf(stderr, "module_load: %s: %s\n", what, msg ? msg : "unknown error");
  return false;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

double ms_since(std::chrono::steady_clock::time_point t0) { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(); }

} // namespace

int main(int argc, char **argv) {
  int                      reps = 5;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "-reps") && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
    else files.push_back(argv[i]);
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: module_load [-reps N] FATBIN...\n");
    return 2;
  }
  CUdevice  dev;
  CUcontext ctx;
  if (!ok(cuInit(0), "cuInit") || !ok(cuDeviceGet(&dev, 0), "cuDeviceGet") || !ok(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain") ||
      !ok(cuCtxSetCurrent(ctx), "cuCtxSetCurrent"))
    return 1;
  const char *mode = std::getenv("CUDA_MODULE_LOADING");
  std::printf("module_load: CUDA_MODULE_LOADING=%s, %d reps after 1 warm-up, medians\n", mode ? mode : "(default: LAZY)", reps);
  std::printf("%-40s %10s %9s %12s %12s %10s\n", "fatbin", "bytes", "kernels", "load ms", "1st kernel ms", "unload ms");
  int rc = 0;
  for (const std::string &f : files) {
    std::ifstream in(f, std::ios::binary);
    std::vector<char> img((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (img.empty()) {
      std::fprintf(stderr, "module_load: cannot read %s\n", f.c_str());
      rc = 1;
      continue;
    }
    std::vector<double> load, first, unload;
    unsigned            nfunc = 0;
    bool                good  = true;
    for (int r = 0; r <= reps && good; ++r) {
      CUmodule m;
      auto     t0 = std::chrono::steady_clock::now();
      if (!(good = ok(cuModuleLoadData(&m, img.data()), "cuModuleLoadData"))) break;
      const double tl = ms_since(t0);
      good            = ok(cuModuleGetFunctionCount(&nfunc, m), "cuModuleGetFunctionCount");
      double tf       = 0;
      if (good && nfunc > 0) {
        std::vector<CUfunction> fn(nfunc);
        good = ok(cuModuleEnumerateFunctions(fn.data(), nfunc, m), "cuModuleEnumerateFunctions");
        t0   = std::chrono::steady_clock::now();
        if (good) good = ok(cuFuncLoad(fn[0]), "cuFuncLoad");
        tf = ms_since(t0);
      }
      t0 = std::chrono::steady_clock::now();
      good = ok(cuModuleUnload(m), "cuModuleUnload") && good;
      const double tu = ms_since(t0);
      if (r > 0) load.push_back(tl), first.push_back(tf), unload.push_back(tu);
    }
    if (!good) {
      rc = 1;
      continue;
    }
    std::printf("%-40s %10zu %9u %12.3f %12.3f %10.3f\n", f.c_str(), img.size(), nfunc, median(load), median(first), median(unload));
  }
  cuDevicePrimaryCtxRelease(dev);
  return rc;
}
