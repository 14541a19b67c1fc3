# Sourced on the GPU machine by conf/device.sh and conf/suite.sh: the carried CUDA PETSc and build.
# Checked first, in seconds: a GPU answers, and a CUDA PETSc is carried or already installed (this
# script never starts a PETSc build: conf/device-petsc-src.sh does that on purpose).
if ! { command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; }; then
  echo "$(basename "$0"): no GPU answers here (nvidia-smi); run this on the GPU machine (the device tool)" >&2
  exit 2
fi
if [ ! -f "$top/.carry/petsc-cuda.tar.xz" ] && ! ls "${PETSC_GPUMAT_CACHE:-$HOME/.cache/petsc-gpumat}"/petsc-*-cuda-*/.petsc-gpumat-complete >/dev/null 2>&1; then
  echo "$(basename "$0"): no CUDA PETSc: carry .carry/petsc-cuda.tar.xz (bash conf/petsc.sh cuda --pack .carry/petsc-cuda.tar.xz) or run conf/device-petsc-src.sh" >&2
  exit 2
fi
if [ ! -x "$top/build-cuda/examples/bench_matmult" ]; then
  echo "$(basename "$0"): no build-cuda: build it with GPUMAT_CONFIG=cuda BUILD=\$PWD/build-cuda bash conf/setup.sh and carry it" >&2
  exit 2
fi
if [ -f "$top/.carry/petsc-cuda.tar.xz" ]; then tar -C / -xJf "$top/.carry/petsc-cuda.tar.xz"; fi
export GPUMAT_CONFIG=cuda
eval "$(bash "$top/conf/petsc.sh" cuda --env)" || { echo "no CUDA PETSc: carry .carry/petsc-cuda.tar.xz"; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# Ubuntu's OpenMPI is not GPU-aware (PETSc stages messages through the host); the carried PETSc
# records the build machine's CUDA library folder (lib), the GPU machine has lib64.
export PETSC_OPTIONS="-use_gpu_aware_mpi 0 ${PETSC_OPTIONS:-}"
export LIBRARY_PATH=/usr/local/cuda/lib64${LIBRARY_PATH:+:$LIBRARY_PATH}
# The carried build folder records the absolute path of the checkout it was configured in.
BUILD=$top/build-cuda
src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$BUILD/CMakeCache.txt" 2>/dev/null)
if [ -n "$src" ] && [ "$src" != "$top" ] && [ ! -e "$src" ]; then mkdir -p "$(dirname "$src")" && ln -s "$top" "$src"; fi
