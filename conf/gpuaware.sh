#!/usr/bin/env bash
# Issue 15: can the halo exchange pass device buffers? On the GPU machine, with the cudampich PETSc
# (CUDA PETSc against MPICH 5.0.2 from PyPI whose UCX is libucx-cu13's, with UCX's CUDA transports)
# and this project built against it. Two ranks share the GPU (cuda_ipc between them), so this runs
# on the single-GPU machine too. Steps, each recorded in $OUT/gpuaware.txt:
#   1. the MPI alone: 2 ranks, host buffers;
#   2. our MPI products with device buffers in MPI (-use_gpu_aware_mpi 1: PETSc's own check of the
#      MPI first) under each of MPICH's local paths: its shared memory (default) and UCX for local
#      ranks too (MPIR_CVAR_NOLOCAL=1, so that UCX's cuda_ipc moves the device buffers);
#   3. where a variant of 2 passed: bench_matmult on 2 ranks, host-staged (-use_gpu_aware_mpi 0)
#      against device buffers (1), -log_view (the SF's time beside MatMult's) on the 3D Laplacian
#      and the power-law matrix.
# Prepare on the build machine:
#   bash conf/petsc.sh cudampich --pack .carry/mpi/petsc-cudampich.tar.xz
#   GPUMAT_CONFIG=cudampich BUILD=$PWD/build-cudampich bash conf/setup.sh
#   tar -C build-cudampich --exclude='*.o' --exclude='*.a' -cJf .carry/mpi/build-cudampich.tar.xz .
# then with the device tool, carrying .carry/mpi: bash conf/gpuaware.sh (exit 0 when device buffers
# went through MPI in at least one variant, 1 when none did, 2 when it could not start).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$top/gpuaware-out}
nvidia-smi -L >/dev/null 2>&1 || { echo "conf/gpuaware.sh: no GPU answers here (nvidia-smi)" >&2; exit 2; }
kit=$top/.carry/mpi
[ -f "$kit/petsc-cudampich.tar.xz" ] || ls "${PETSC_GPUMAT_CACHE:-$HOME/.cache/petsc-gpumat}"/petsc-*-cudampich-*/.petsc-gpumat-complete >/dev/null 2>&1 ||
  { echo "conf/gpuaware.sh: no cudampich PETSc: carry .carry/mpi/petsc-cudampich.tar.xz (conf/petsc.sh cudampich --pack ...)" >&2; exit 2; }
[ -f "$kit/petsc-cudampich.tar.xz" ] && tar -C / -xJf "$kit/petsc-cudampich.tar.xz"
BUILD=$top/build-cudampich
if [ ! -x "$BUILD/tests/petsc/test_mpi" ]; then
  [ -f "$kit/build-cudampich.tar.xz" ] || { echo "conf/gpuaware.sh: no build-cudampich: carry .carry/mpi/build-cudampich.tar.xz" >&2; exit 2; }
  mkdir -p "$BUILD" && tar -C "$BUILD" -xJf "$kit/build-cudampich.tar.xz"
fi
eval "$(bash "$top/conf/petsc.sh" cudampich --env)" || exit 2
src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$BUILD/CMakeCache.txt")
if [ -n "$src" ] && [ "$src" != "$top" ] && [ ! -e "$src" ]; then mkdir -p "$(dirname "$src")" && ln -s "$top" "$src"; fi
export LIBRARY_PATH=/usr/local/cuda/lib64${LIBRARY_PATH:+:$LIBRARY_PATH}
mkdir -p "$OUT"
log=$OUT/gpuaware.txt
: > "$log"
say() { echo "$*" | tee -a "$log"; }
run() { # name, env assignments..., --, command...
  local name=$1; shift
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  say "== $name: ${envs[*]} $*"
  env "${envs[@]}" timeout 120 "$@" > "$OUT/$name.txt" 2>&1
  local rc=$?
  tail -5 "$OUT/$name.txt" | sed 's/^/   /' | tee -a "$log"
  say "   rc=$rc"
  return $rc
}
mpiexec=$(command -v mpiexec)
say "mpiexec: $mpiexec; UCX from $(dirname "$(ldd "$BUILD/tests/petsc/test_mpi" | sed -n 's/.*libucp.so.0 => \([^ ]*\).*/\1/p')")"
run mpi_host -- "$mpiexec" -n 2 "$BUILD/tests/petsc/test_mpi" -type csrspec -use_gpu_aware_mpi 0 || { say "the MPI itself does not run: stop"; exit 2; }
ok=()
for variant in shm nolocal; do
  envs=(UCX_WARN_UNUSED_ENV_VARS=n)
  [ "$variant" = nolocal ] && envs+=(MPIR_CVAR_NOLOCAL=1)
  if run "device_$variant" "${envs[@]}" -- "$mpiexec" -n 2 "$BUILD/tests/petsc/test_mpi" -type csrspec -use_gpu_aware_mpi 1; then ok+=("$variant"); fi
done
if [ ${#ok[@]} -eq 0 ]; then say "no variant passed device buffers through MPI"; exit 1; fi
say "device buffers through MPI: ${ok[*]}"
envs=(UCX_WARN_UNUSED_ENV_VARS=n)
[ "${ok[0]}" = nolocal ] && envs+=(MPIR_CVAR_NOLOCAL=1)
for m in gen:lap3d:128 gen:powerlaw:2000000; do
  for aware in 0 1; do
    run "bench_${m//:/_}_aware$aware" "${envs[@]}" -- "$mpiexec" -n 2 "$BUILD/examples/bench_matmult" -matrix "$m" -types aijcusparse,csrspec,pjds,bccoo -reps 50 -ksp_its 0 -use_gpu_aware_mpi "$aware" -log_view
  done
done
exit 0
