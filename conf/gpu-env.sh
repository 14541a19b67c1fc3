# Sourced on the GPU machine by conf/device.sh, scaling.sh, suite.sh, solvers.sh and gpuaware.sh:
# the carried CUDA PETSc and build of the configuration GPUMAT_CONFIG (conf/petsc.sh):
#   cuda (default)  .carry/petsc-cuda.tar.xz          and build-cuda (the folder, or .carry/build-cuda.tar.xz)
#   cudakk          .carry/kk/petsc-cudakk.tar.xz     and build-cudakk (or .carry/kk/build-cudakk.tar.xz)
#   cudampich       .carry/mpi/petsc-cudampich.tar.xz and build-cudampich (or .carry/mpi/build-cudampich.tar.xz)
# A build archive: `tar -C build-<cfg> --exclude='*.o' --exclude='*.a' -cJf <kit>/build-<cfg>.tar.xz .`
# Checked first, in seconds: a GPU answers, and the PETSc and the build are carried or already there
# (this script never starts a PETSc build: conf/device-petsc-src.sh does that on purpose). Sets
# BUILD, exports GPUMAT_CONFIG, PETSc's environment and PETSC_OPTIONS=-use_gpu_aware_mpi 0 (the
# GPU machines' OpenMPI is not CUDA-aware; MPICH's wheel fails PETSc's start-up check: the halo's
# device buffers are asked for per matrix, -mat_gpumat_gpu_aware_mpi, or per run, bench_matmult
# -gpu_aware_halo).
source "$top/conf/env.sh" # OpenMPI as root, gpumat_gpu_answers
gpu_env_cfg=${GPUMAT_CONFIG:-cuda}
case "$gpu_env_cfg" in
  cuda) gpu_env_kit=$top/.carry ;;
  cudakk) gpu_env_kit=$top/.carry/kk ;;
  cudampich) gpu_env_kit=$top/.carry/mpi ;;
  *) echo "$(basename "$0"): GPUMAT_CONFIG must be cuda, cudakk or cudampich on the GPU machine, not '$gpu_env_cfg'" >&2; exit 2 ;;
esac
if ! gpumat_gpu_answers; then
  echo "$(basename "$0"): no GPU answers here (nvidia-smi); run this on the GPU machine (the device tool)" >&2
  exit 2
fi
gpu_env_petsc=$gpu_env_kit/petsc-$gpu_env_cfg.tar.xz
if [ ! -f "$gpu_env_petsc" ] && ! ls "${PETSC_GPUMAT_CACHE:-$HOME/.cache/petsc-gpumat}"/petsc-*-"$gpu_env_cfg"-*/.petsc-gpumat-complete >/dev/null 2>&1; then
  echo "$(basename "$0"): no $gpu_env_cfg PETSc: carry ${gpu_env_petsc#"$top"/} (bash conf/petsc.sh $gpu_env_cfg --pack ${gpu_env_petsc#"$top"/})$([ "$gpu_env_cfg" = cuda ] && echo " or run conf/device-petsc-src.sh")" >&2
  exit 2
fi
BUILD=${BUILD:-$top/build-$gpu_env_cfg}
if [ ! -x "$BUILD/examples/bench_matmult" ]; then
  if [ -f "$gpu_env_kit/build-$gpu_env_cfg.tar.xz" ]; then
    mkdir -p "$BUILD" && tar -C "$BUILD" -xJf "$gpu_env_kit/build-$gpu_env_cfg.tar.xz" || exit 2
  else
    echo "$(basename "$0"): no $BUILD: build it with GPUMAT_CONFIG=$gpu_env_cfg BUILD=\$PWD/build-$gpu_env_cfg bash conf/setup.sh and carry it (or ${gpu_env_kit#"$top"/}/build-$gpu_env_cfg.tar.xz)" >&2
    exit 2
  fi
fi
if [ -f "$gpu_env_petsc" ]; then tar -C / -xJf "$gpu_env_petsc" || exit 2; fi
export GPUMAT_CONFIG=$gpu_env_cfg
eval "$(bash "$top/conf/petsc.sh" "$gpu_env_cfg" --env)" || { echo "no $gpu_env_cfg PETSc: carry ${gpu_env_petsc#"$top"/}"; exit 1; }
# Ubuntu's OpenMPI is not GPU-aware (PETSc stages messages through the host); the carried PETSc
# records the build machine's CUDA library folder (lib), the GPU machine has lib64.
export PETSC_OPTIONS="-use_gpu_aware_mpi 0 ${PETSC_OPTIONS:-}"
export LIBRARY_PATH=/usr/local/cuda/lib64${LIBRARY_PATH:+:$LIBRARY_PATH}
# The carried build folder records the absolute path of the checkout it was configured in.
gpu_env_src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$BUILD/CMakeCache.txt" 2>/dev/null)
if [ -n "$gpu_env_src" ] && [ "$gpu_env_src" != "$top" ] && [ ! -e "$gpu_env_src" ]; then mkdir -p "$(dirname "$gpu_env_src")" && ln -s "$top" "$gpu_env_src"; fi
