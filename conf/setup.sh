#!/usr/bin/env bash
# Installs what petsc-gpumat needs on a fresh machine and builds it. Sourced by conf/test.sh and
# conf/main.sh; sets BUILD (the CMake build folder) and exports PETSC_DIR/PKG_CONFIG_PATH.
#   GPUMAT_CONFIG=cpu|cuda|cudakk|cudampich  the PETSc configuration (default: cuda when a GPU
#                           answers, else cpu; cudakk: cuda with Kokkos and a CUDA hypre; cudampich:
#                           cuda against MPICH with UCX's CUDA transports; conf/petsc.sh)
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
case "${GPUMAT_CONFIG:-}" in
  "" | cpu | cuda | cudakk | cudampich) ;;
  *) echo "conf/setup.sh: GPUMAT_CONFIG must be cpu, cuda, cudakk or cudampich (or unset: cuda when a GPU answers), not '$GPUMAT_CONFIG'" >&2; exit 2 ;;
esac

if [ -z "${GPUMAT_CONFIG:-}" ]; then
  if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then GPUMAT_CONFIG=cuda; else GPUMAT_CONFIG=cpu; fi
fi

# Debian/Ubuntu packages (skipped where present, e.g. on the GPU machine, which has no network).
pkgs=(build-essential cmake pkg-config python3 libopenmpi-dev openmpi-bin libopenblas-dev libgtest-dev zlib1g-dev)
# The cpu configuration's PETSc has hypre: Debian's 32-bit-index build (libhypre-dev, not the
# 64-bit libhypre64-dev or libhypre64m-dev), on the same OpenMPI (conf/petsc.sh).
[ "$GPUMAT_CONFIG" = cpu ] && pkgs+=(libhypre-dev)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    echo "== installing ${missing[*]}" >&2
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
  else
    echo "== missing packages (install them): ${missing[*]}" >&2
  fi
fi

eval "$(bash "$top/conf/petsc.sh" "$GPUMAT_CONFIG" --env)"
# ... and petsc4py, which imports numpy (conf/petsc.sh installs Cython and numpy from PyPI to build it;
# this covers a PETSc built before on a machine whose Python has lost numpy since).
if [ "$GPUMAT_CONFIG" = cpu ] && ! python3 -c 'import numpy' 2>/dev/null; then
  echo "== installing numpy from PyPI for petsc4py" >&2
  python3 -m pip install -q "numpy==2.3.5" >&2
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

BUILD=${BUILD:-$top/build-$GPUMAT_CONFIG}
cuda_args=()
[ -x /usr/local/cuda/bin/nvcc ] && cuda_args=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
gpu_tests=OFF
[ "$GPUMAT_CONFIG" != cpu ] && gpu_tests=ON
# Kokkos's CUDA library calls the driver (libcuda.so.1), which a machine without a GPU lacks: the
# executables are linked against the toolkit's stub there (-rpath-link only; at run time the GPU
# machine's driver library is found as usual).
link_args=()
if [ "$GPUMAT_CONFIG" = cudakk ] && ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
  stub=/usr/local/cuda/lib64/stubs/libcuda.so
  [ -f "$stub" ] || { echo "conf/setup.sh: no libcuda.so.1 and no CUDA stub at $stub to link the cudakk configuration's executables" >&2; exit 2; }
  mkdir -p "$BUILD/cuda-stub" && ln -sf "$stub" "$BUILD/cuda-stub/libcuda.so.1"
  link_args=("-DCMAKE_EXE_LINKER_FLAGS=-Wl,-rpath-link,$BUILD/cuda-stub" "-DCMAKE_SHARED_LINKER_FLAGS=-Wl,-rpath-link,$BUILD/cuda-stub")
fi
# cudampich: MPICH's wheel copies device memory on the host in its own shared-memory path, UCX's CUDA
# transports move it: local ranks through UCX (conf/gpuaware.sh), the GPU tests of the halo's device buffers
aware_args=()
[ "$GPUMAT_CONFIG" = cudampich ] && aware_args=("-DGPUMAT_GPU_AWARE_MPI_ENV=MPIR_CVAR_NOLOCAL=1;UCX_WARN_UNUSED_ENV_VARS=n")
echo "== building petsc-gpumat in $BUILD (PETSc $GPUMAT_CONFIG)" >&2
cmake -S "$top" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DGPUMAT_GPU_TESTS=$gpu_tests "${cuda_args[@]}" "${link_args[@]}" "${aware_args[@]}" >&2
cmake --build "$BUILD" -j "$(nproc)" >&2
