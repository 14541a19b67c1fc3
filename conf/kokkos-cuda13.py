#!/usr/bin/env python3
"""Makes Kokkos 4.6.01 compile against CUDA 13.0 (conf/petsc.sh cudakk; README, "Kokkos and GPU hypre").

    python3 conf/kokkos-cuda13.py KOKKOS_SOURCE_DIR

CUDA 13 changed cudaMemAdvise and cudaMemPrefetchAsync to take a cudaMemLocation instead of a device
number, gave cudaGraphAddDependencies an edge-data argument, and dropped cudaMemAdvise_v2. Each call
site in Kokkos's CUDA backend gets a CUDART_VERSION >= 13000 branch with the new call (the old call
kept for older CUDA). Every anchor must occur exactly once, else nothing is written and the exit
status is 1 (another Kokkos release: check the call sites by hand)."""
import os
import sys

INSTANCE = "core/src/Cuda/Kokkos_Cuda_Instance.hpp"
SPACE = "core/src/Cuda/Kokkos_CudaSpace.cpp"

EDITS = {
    INSTANCE: [
        ("    return cudaGraphAddDependencies(graph, from, to, numDependencies);\n",
         "#if CUDART_VERSION >= 13000\n"
         "    return cudaGraphAddDependencies(graph, from, to, nullptr, numDependencies);\n"
         "#else\n"
         "    return cudaGraphAddDependencies(graph, from, to, numDependencies);\n"
         "#endif\n"),
        ("    return cudaMemAdvise(devPtr, count, advice, device);\n",
         "#if CUDART_VERSION >= 13000\n"
         "    cudaMemLocation loc;\n"
         "    loc.type = (device == cudaCpuDeviceId) ? cudaMemLocationTypeHost\n"
         "                                           : cudaMemLocationTypeDevice;\n"
         "    loc.id   = (device == cudaCpuDeviceId) ? 0 : device;\n"
         "    return cudaMemAdvise(devPtr, count, advice, loc);\n"
         "#else\n"
         "    return cudaMemAdvise(devPtr, count, advice, device);\n"
         "#endif\n"),
        ("    return cudaMemPrefetchAsync(devPtr, count, dstDevice,\n"
         "                                get_input_stream(stream));\n",
         "#if CUDART_VERSION >= 13000\n"
         "    cudaMemLocation loc;\n"
         "    loc.type = (dstDevice == cudaCpuDeviceId) ? cudaMemLocationTypeHost\n"
         "                                              : cudaMemLocationTypeDevice;\n"
         "    loc.id   = (dstDevice == cudaCpuDeviceId) ? 0 : dstDevice;\n"
         "    return cudaMemPrefetchAsync(devPtr, count, loc, 0,\n"
         "                                get_input_stream(stream));\n"
         "#else\n"
         "    return cudaMemPrefetchAsync(devPtr, count, dstDevice,\n"
         "                                get_input_stream(stream));\n"
         "#endif\n"),
    ],
    SPACE: [
        ("      KOKKOS_IMPL_CUDA_SAFE_CALL(cudaMemAdvise_v2(\n"
         "          ptr, arg_alloc_size, cudaMemAdviseSetPreferredLocation, loc));\n",
         "#if CUDART_VERSION >= 13000\n"
         "      KOKKOS_IMPL_CUDA_SAFE_CALL(cudaMemAdvise(\n"
         "          ptr, arg_alloc_size, cudaMemAdviseSetPreferredLocation, loc));\n"
         "#else\n"
         "      KOKKOS_IMPL_CUDA_SAFE_CALL(cudaMemAdvise_v2(\n"
         "          ptr, arg_alloc_size, cudaMemAdviseSetPreferredLocation, loc));\n"
         "#endif\n"),
    ],
}


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    out = {}
    with open(os.path.join(argv[1], INSTANCE)) as f:
        if "cudaGraphAddDependencies(graph, from, to, nullptr, numDependencies)" in f.read():
            print(f"conf/kokkos-cuda13.py: {argv[1]} is CUDA 13 ready already")
            return 0
    for rel, edits in EDITS.items():
        path = os.path.join(argv[1], rel)
        with open(path) as f:
            text = f.read()
        for old, new in edits:
            if text.count(old) != 1:
                print(f"conf/kokkos-cuda13.py: {rel}: expected one '{old.strip().splitlines()[0]}', found {text.count(old)}: not a Kokkos 4.6.01 tree?", file=sys.stderr)
                return 1
            text = text.replace(old, new)
        out[path] = text
    for path, text in out.items():
        with open(path, "w") as f:
            f.write(text)
    print(f"conf/kokkos-cuda13.py: {len(out)} files of {argv[1]} made CUDA 13 ready")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
