// link_bandwidth: the bandwidths of the links a multi-GPU MatMult uses, measured on this machine,
// for the scaling model (bench/scaling_model.py, Kreutzer et al. 2012, equations 2-4 and the halo
// exchange of section 3).
//
//   link_bandwidth [-o FILE] [-min BYTES] [-max BYTES] [-reps N] [-tests LIST] [-devices LIST]
//                  [-require_devices N]
//
// Tests (-tests, comma-separated; default all), each at every power of two from -min (1024) to
// -max (268435456) bytes:
//   h2d_pinned, d2h_pinned       cudaMemcpyAsync between portable pinned host memory and device k
//   h2d_pageable, d2h_pageable   the same from/to ordinary (pageable) host memory: what PETSc's
//                                host-staged halo exchange copies (its MPI buffers are PetscMalloc'd)
//   d2d                          a copy within device k (bytes read once and written once: the
//                                memory bandwidth read + written is 2 x gbs)
//   p2p                          cudaMemcpyPeerAsync from device i to device j for every ordered
//                                pair, peer access enabled where cudaDeviceCanAccessPeer allows it
//                                (column peer: 1; 0: the driver stages the copy through the host)
//   p2p_bidir                    i -> j and j -> i at once for every pair i < j (gbs: both ways)
//   h2d_pinned_all, d2h_pinned_all  every selected device at once from/to its own pinned buffer
//                                (gbs: all devices together; src or dst "all")
//   h2h                          memcpy between two pageable host buffers (one host thread)
// Timing: device copies between two CUDA events on the copying device's stream, one at a time
// after one warm-up; the *_all tests and h2h with the host clock. Each point is the median (and
// minimum) of -reps (20) copies, fewer for copies over 10 ms (at least 3, about 0.2 s a point).
// gbs = bytes moved / median time / 1e9 (p2p_bidir and *_all: all bytes moved in both directions
// or by all devices).
//
// CSV (-o FILE, else stdout): '#' lines first (devices, peer access matrix, driver and runtime
// versions), then the header  test,src,dst,bytes,reps,median_us,min_us,gbs,peer  and a row per point.
// -require_devices N: with fewer than N visible devices print "link_bandwidth: skipped: ..." and exit
// 0 (the multi-GPU tests are skipped so on a machine of fewer GPUs).
// The CUDA runtime only, no PETSc. Exit 2 without a CUDA device or on bad arguments.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

namespace {

#define CK(call)                                                                                                  \
  do {                                                                                                            \
    cudaError_t e_ = (call);                                                                                      \
    if (e_ != cudaSuccess) {                                                                                      \
      std::fprintf(stderr, "link_bandwidth: %s failed at line %d: %s\n", #call, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                                                               \
    }                                                                                                             \
  } while (0)

const char *const kTests[] = {"h2d_pinned", "d2h_pinned", "h2d_pageable", "d2h_pageable", "d2d", "p2p", "p2p_bidir", "h2d_pinned_all", "d2h_pinned_all", "h2h"};

struct Point {
  std::string test, src, dst;
  size_t      bytes;
  int         reps;
  double      median_us, min_us, gbs;
  int         peer;
};

struct Options {
  size_t                   min = 1024, max = (size_t)256 << 20;
  int                      reps = 20;
  std::vector<std::string> tests;
  std::vector<int>         devices;
  std::string              out;
  int                      require = 0;
};

[[noreturn]] void usage(const char *msg)
{
  std::fprintf(stderr, "link_bandwidth: %s\nusage: link_bandwidth [-o FILE] [-min BYTES] [-max BYTES] [-reps N] [-tests LIST] [-devices LIST] [-require_devices N]\ntests:", msg);
  for (const char *t : kTests) std::fprintf(stderr, " %s", t);
  std::fprintf(stderr, "\n");
  std::exit(2);
}

std::vector<std::string> split(const std::string &s)
{
  std::vector<std::string> v;
  std::stringstream        ss(s);
  std::string              item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) v.push_back(item);
  return v;
}

size_t parse_size(const char *opt, const char *text)
{
  char              *end = nullptr;
  unsigned long long v   = std::strtoull(text, &end, 10);
  if (!end || *end || v == 0) usage((std::string(opt) + " needs a positive number of bytes, not '" + text + "'").c_str());
  return (size_t)v;
}

bool wanted(const Options &o, const char *test) { return std::find(o.tests.begin(), o.tests.end(), test) != o.tests.end(); }

double median_of(std::vector<double> v)
{
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Times copy() (enqueued on s) between events: one warm-up, then reps (fewer for long copies).
template <typename F>
void time_device(F copy, cudaStream_t s, int max_reps, std::vector<double> *us)
{
  cudaEvent_t e0, e1;
  float       ms;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  int reps = max_reps;
  for (int i = -1; i < reps; ++i) {
    CK(cudaEventRecord(e0, s));
    copy();
    CK(cudaGetLastError());
    CK(cudaEventRecord(e1, s));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&ms, e0, e1));
    if (i < 0) { // the warm-up decides how many fit in about 0.2 s
      if (ms > 10.0f) reps = std::max(3, std::min(max_reps, (int)(200.0f / ms)));
      continue;
    }
    us->push_back(1e3 * ms);
  }
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
}

// Times work() with the host clock (work waits for what it started).
template <typename F>
void time_host(F work, int max_reps, std::vector<double> *us)
{
  int reps = max_reps;
  for (int i = -1; i < reps; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    work();
    double t = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    if (i < 0) {
      if (t > 1e4) reps = std::max(3, std::min(max_reps, (int)(2e5 / t)));
      continue;
    }
    us->push_back(t);
  }
}

Point make_point(const std::string &test, const std::string &src, const std::string &dst, size_t bytes, double moved, const std::vector<double> &us, int peer)
{
  Point p{test, src, dst, bytes, (int)us.size(), median_of(us), *std::min_element(us.begin(), us.end()), 0.0, peer};
  p.gbs = moved / (p.median_us * 1e-6) / 1e9;
  return p;
}

} // namespace

int main(int argc, char **argv)
{
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc) usage(("missing value after " + a).c_str());
    const char *v = argv[++i];
    if (a == "-o") o.out = v;
    else if (a == "-min") o.min = parse_size("-min", v);
    else if (a == "-max") o.max = parse_size("-max", v);
    else if (a == "-reps") o.reps = (int)parse_size("-reps", v);
    else if (a == "-require_devices") o.require = (int)parse_size("-require_devices", v);
    else if (a == "-tests") o.tests = split(v);
    else if (a == "-devices") {
      for (const std::string &d : split(v)) o.devices.push_back(std::atoi(d.c_str()));
    } else usage(("unknown option " + a).c_str());
  }
  if (o.min > o.max) usage("-min is larger than -max");
  if (o.reps < 1 || o.reps > 1000) usage("-reps must be in 1..1000");
  if (o.tests.empty()) o.tests.assign(std::begin(kTests), std::end(kTests));
  for (const std::string &t : o.tests)
    if (std::find_if(std::begin(kTests), std::end(kTests), [&](const char *k) { return t == k; }) == std::end(kTests)) usage(("unknown test '" + t + "'").c_str());

  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess) ndev = 0;
  if (ndev < o.require) {
    std::printf("link_bandwidth: skipped: %d device(s) required, %d visible\n", o.require, ndev);
    return 0;
  }
  if (ndev == 0) {
    std::fprintf(stderr, "link_bandwidth: no CUDA device answers here (cudaGetDeviceCount); run it on the GPU machine\n");
    return 2;
  }
  if (o.devices.empty())
    for (int d = 0; d < ndev; ++d) o.devices.push_back(d);
  for (int d : o.devices)
    if (d < 0 || d >= ndev) usage(("-devices: no device " + std::to_string(d) + " (" + std::to_string(ndev) + " visible)").c_str());
  const int nsel = (int)o.devices.size();

  FILE *out = o.out.empty() ? stdout : std::fopen(o.out.c_str(), "w");
  if (!out) usage(("cannot write " + o.out).c_str());
  int drv = 0, rt = 0;
  CK(cudaDriverGetVersion(&drv));
  CK(cudaRuntimeGetVersion(&rt));
  std::fprintf(out, "# link_bandwidth: CUDA driver %d, runtime %d, %d visible device(s), selected:", drv, rt, ndev);
  for (int d : o.devices) std::fprintf(out, " %d", d);
  std::fprintf(out, "\n");
  for (int d : o.devices) {
    cudaDeviceProp p;
    char           bus[32] = "";
    CK(cudaGetDeviceProperties(&p, d));
    CK(cudaDeviceGetPCIBusId(bus, sizeof(bus), d));
    std::fprintf(out, "# device %d: %s, %d SMs, %.1f GiB, PCI %s\n", d, p.name, p.multiProcessorCount, p.totalGlobalMem / 1073741824.0, bus);
  }
  std::vector<std::vector<int>> peer(ndev, std::vector<int>(ndev, 0));
  for (int i : o.devices)
    for (int j : o.devices)
      if (i != j) CK(cudaDeviceCanAccessPeer(&peer[i][j], i, j));
  if (nsel > 1) {
    std::fprintf(out, "# peer access (row: from device, column: to device; 1: cudaDeviceCanAccessPeer):\n");
    for (int i : o.devices) {
      std::fprintf(out, "#   %d:", i);
      for (int j : o.devices) std::fprintf(out, " %s", i == j ? "-" : peer[i][j] ? "1" : "0");
      std::fprintf(out, "\n");
    }
  }

  // buffers: two of -max bytes on each selected device, one stream each; pinned and pageable host
  const size_t                max = o.max;
  std::vector<char *>         da(ndev, nullptr), db(ndev, nullptr);
  std::vector<cudaStream_t>   st(ndev, nullptr);
  std::vector<char *>         pin_a(ndev, nullptr); // the *_all tests: a pinned buffer per device
  for (int d : o.devices) {
    CK(cudaSetDevice(d));
    CK(cudaMalloc(&da[d], max));
    CK(cudaMalloc(&db[d], max));
    CK(cudaMemset(da[d], 1, max));
    CK(cudaMemset(db[d], 2, max));
    CK(cudaStreamCreateWithFlags(&st[d], cudaStreamNonBlocking));
    if (wanted(o, "h2d_pinned_all") || wanted(o, "d2h_pinned_all")) {
      CK(cudaHostAlloc(reinterpret_cast<void **>(&pin_a[d]), max, cudaHostAllocPortable));
      std::memset(pin_a[d], 3, max);
    }
  }
  char *ha = nullptr;
  CK(cudaHostAlloc(reinterpret_cast<void **>(&ha), max, cudaHostAllocPortable));
  std::memset(ha, 3, max);
  std::vector<char> pa(max, 4), pb(max, 5); // pageable, touched

  std::vector<Point> pts;
  std::vector<size_t> sizes;
  for (size_t b = o.min; b <= o.max; b *= 2) sizes.push_back(b);

  for (int d : o.devices) {
    CK(cudaSetDevice(d));
    const std::string dev = std::to_string(d);
    for (size_t b : sizes) {
      std::vector<double> us; // cleared by each test before it times
      if (wanted(o, "h2d_pinned")) {
        us.clear();
        time_device([&] { CK(cudaMemcpyAsync(da[d], ha, b, cudaMemcpyHostToDevice, st[d])); }, st[d], o.reps, &us);
        pts.push_back(make_point("h2d_pinned", "host", dev, b, (double)b, us, 0));
      }
      if (wanted(o, "d2h_pinned")) {
        us.clear();
        time_device([&] { CK(cudaMemcpyAsync(ha, da[d], b, cudaMemcpyDeviceToHost, st[d])); }, st[d], o.reps, &us);
        pts.push_back(make_point("d2h_pinned", dev, "host", b, (double)b, us, 0));
      }
      if (wanted(o, "h2d_pageable")) {
        us.clear();
        time_device([&] { CK(cudaMemcpyAsync(da[d], pa.data(), b, cudaMemcpyHostToDevice, st[d])); }, st[d], o.reps, &us);
        pts.push_back(make_point("h2d_pageable", "host", dev, b, (double)b, us, 0));
      }
      if (wanted(o, "d2h_pageable")) {
        us.clear();
        time_device([&] { CK(cudaMemcpyAsync(pb.data(), da[d], b, cudaMemcpyDeviceToHost, st[d])); }, st[d], o.reps, &us);
        pts.push_back(make_point("d2h_pageable", dev, "host", b, (double)b, us, 0));
      }
      if (wanted(o, "d2d")) {
        us.clear();
        time_device([&] { CK(cudaMemcpyAsync(db[d], da[d], b, cudaMemcpyDeviceToDevice, st[d])); }, st[d], o.reps, &us);
        pts.push_back(make_point("d2d", dev, dev, b, (double)b, us, 0));
      }
    }
  }

  if (nsel > 1 && (wanted(o, "p2p") || wanted(o, "p2p_bidir"))) {
    for (int i : o.devices) { // peer access where the hardware allows it (what a CUDA-aware MPI or NVSHMEM uses)
      CK(cudaSetDevice(i));
      for (int j : o.devices)
        if (i != j && peer[i][j]) {
          cudaError_t e = cudaDeviceEnablePeerAccess(j, 0);
          if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled) CK(e);
          (void)cudaGetLastError();
        }
    }
    for (int i : o.devices)
      for (int j : o.devices) {
        if (i == j) continue;
        CK(cudaSetDevice(i));
        for (size_t b : sizes) {
          std::vector<double> us;
          if (wanted(o, "p2p")) {
            time_device([&] { CK(cudaMemcpyPeerAsync(db[j], j, da[i], i, b, st[i])); }, st[i], o.reps, &us);
            pts.push_back(make_point("p2p", std::to_string(i), std::to_string(j), b, (double)b, us, peer[i][j]));
          }
          if (wanted(o, "p2p_bidir") && i < j) { // j -> i on j's stream, joined to i's stream by an event
            cudaEvent_t go, done; // each on the device of the stream that records it
            CK(cudaEventCreateWithFlags(&go, cudaEventDisableTiming));
            CK(cudaSetDevice(j));
            CK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
            CK(cudaSetDevice(i));
            us.clear();
            time_device(
              [&] {
                CK(cudaEventRecord(go, st[i]));
                CK(cudaStreamWaitEvent(st[j], go, 0));
                CK(cudaMemcpyPeerAsync(db[j], j, da[i], i, b, st[i]));
                CK(cudaMemcpyPeerAsync(db[i], i, da[j], j, b, st[j]));
                CK(cudaEventRecord(done, st[j]));
                CK(cudaStreamWaitEvent(st[i], done, 0));
              },
              st[i], o.reps, &us);
            CK(cudaEventDestroy(go));
            CK(cudaEventDestroy(done));
            pts.push_back(make_point("p2p_bidir", std::to_string(i), std::to_string(j), b, 2.0 * b, us, peer[i][j] && peer[j][i]));
          }
        }
      }
  }

  for (const char *test : {"h2d_pinned_all", "d2h_pinned_all"}) {
    if (!wanted(o, test)) continue;
    const bool h2d = !std::strcmp(test, "h2d_pinned_all");
    for (size_t b : sizes) {
      std::vector<double> us;
      time_host(
        [&] {
          for (int d : o.devices) {
            CK(cudaSetDevice(d));
            if (h2d) CK(cudaMemcpyAsync(da[d], pin_a[d], b, cudaMemcpyHostToDevice, st[d]));
            else CK(cudaMemcpyAsync(pin_a[d], da[d], b, cudaMemcpyDeviceToHost, st[d]));
          }
          for (int d : o.devices) CK(cudaStreamSynchronize(st[d]));
        },
        o.reps, &us);
      pts.push_back(make_point(test, h2d ? "host" : "all", h2d ? "all" : "host", b, (double)b * nsel, us, 0));
    }
  }
  if (wanted(o, "h2h"))
    for (size_t b : sizes) {
      std::vector<double> us;
      time_host([&] { std::memcpy(pb.data(), pa.data(), b); }, o.reps, &us);
      pts.push_back(make_point("h2h", "host", "host", b, (double)b, us, 0));
    }

  std::fprintf(out, "test,src,dst,bytes,reps,median_us,min_us,gbs,peer\n");
  for (const Point &p : pts) std::fprintf(out, "%s,%s,%s,%zu,%d,%.3f,%.3f,%.4f,%d\n", p.test.c_str(), p.src.c_str(), p.dst.c_str(), p.bytes, p.reps, p.median_us, p.min_us, p.gbs, p.peer);
  if (out != stdout) {
    std::fclose(out);
    // a summary on stdout: each test's largest and smallest size, first pair or device
    std::printf("link_bandwidth: %zu points in %s; at %zu and %zu bytes:\n", pts.size(), o.out.c_str(), sizes.front(), sizes.back());
    for (const Point &p : pts)
      if (p.bytes == sizes.back() || p.bytes == sizes.front()) std::printf("  %-15s %4s -> %-4s %10zu B  %10.2f us  %8.2f GB/s%s\n", p.test.c_str(), p.src.c_str(), p.dst.c_str(), p.bytes, p.median_us, p.gbs, p.peer ? "  (peer access)" : "");
  }

  for (int d : o.devices) {
    CK(cudaSetDevice(d));
    CK(cudaStreamDestroy(st[d]));
    CK(cudaFree(da[d]));
    CK(cudaFree(db[d]));
    if (pin_a[d]) CK(cudaFreeHost(pin_a[d]));
  }
  CK(cudaFreeHost(ha));
  return 0;
}
