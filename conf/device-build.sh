#!/usr/bin/env bash
# On the GPU machine, sourced by a device call's own script: the carried CUDA PETSc
# (.carry/petsc-cuda.tar.xz, bash conf/petsc.sh cuda --pack) unpacked and its environment set
# (PETSC_DIR, conf/env.sh, PETSC_OPTIONS=-use_gpu_aware_mpi 0), then this project configured and
# built into build-cuda there (16 cores: about a minute), with the GPU tests, or only the targets
# named. The build's output goes to $LOG (default $OUT/build.log); a failed build prints its errors
# and returns 1; without a GPU it returns 2 at once.
#   source conf/device-build.sh [target ...]
gpumat_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
gpumat_build() {
  local t0 log targets=()
  t0=$(date +%s) log=${LOG:-${OUT:-$gpumat_top/device-out}/build.log}
  source "$gpumat_top/conf/env.sh"
  gpumat_gpu_answers || { echo "conf/device-build.sh: no GPU answers here (nvidia-smi); source it on the GPU machine (the device tool)" >&2; return 2; }
  mkdir -p "$(dirname "$log")"
  [ -f "$gpumat_top/.carry/petsc-cuda.tar.xz" ] || { echo "conf/device-build.sh: no .carry/petsc-cuda.tar.xz (carry it: bash conf/petsc.sh cuda --pack .carry/petsc-cuda.tar.xz)" >&2; return 1; }
  tar -C / -xJf "$gpumat_top/.carry/petsc-cuda.tar.xz" || return 1
  eval "$(bash "$gpumat_top/conf/petsc.sh" cuda --env)" || return 1
  export PETSC_OPTIONS="${PETSC_OPTIONS:+$PETSC_OPTIONS }-use_gpu_aware_mpi 0" LIBRARY_PATH=/usr/local/cuda/lib64
  for t in "$@"; do targets+=(--target "$t"); done
  if ! (cmake -S "$gpumat_top" -B "$gpumat_top/build-cuda" -DCMAKE_BUILD_TYPE=Release -DGPUMAT_GPU_TESTS=ON -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc &&
    cmake --build "$gpumat_top/build-cuda" -j "$(nproc)" "${targets[@]}") > "$log" 2>&1; then
    grep -E "error" "$log" | head -20
    tail -5 "$log"
    return 1
  fi
  echo "conf/device-build.sh: built ${*:-everything} in $(($(date +%s) - t0)) s"
}
gpumat_build "$@"
