#!/usr/bin/env bash
# Can the halo exchange pass device buffers? On the GPU machine, with the cudampich PETSc
# (CUDA PETSc against MPICH 5.0.2 from PyPI whose UCX is libucx-cu13's, with UCX's CUDA transports)
# and this project built against it (conf/gpu-env.sh, GPUMAT_CONFIG=cudampich). PETSc's start-up
# check of a GPU-aware MPI (an MPI_Allreduce on device memory, PETSC_COMM_SELF) reads device
# memory on the host inside MPICH's wheel, which is built without CUDA, so -use_gpu_aware_mpi stays
# 0 and device buffers are asked for per matrix (-mat_gpumat_gpu_aware_mpi 1: our halo scatter) or
# per run (bench_matmult -gpu_aware_halo: every scatter, aijcusparse's too). MPICH's own
# shared-memory path copies with the host too, so local ranks must talk through UCX
# (MPIR_CVAR_NOLOCAL=1), whose cuda_ipc and cuda_copy transports move device memory. Steps, each
# recorded in $OUT/gpuaware.txt; ranks one per GPU where the machine has several, else sharing one:
#   1. the MPI alone: 2 ranks, host buffers (test_mpi, our halo staged); then PETSc's own
#      -use_gpu_aware_mpi 1, to record whether its start-up check refuses this MPI;
#   2. test_mpi on 2 ranks with -mat_gpumat_gpu_aware_mpi 1 (every product against MPIAIJ), under
#      MPICH's shared memory (expected to fail: the wheel copies device memory on the host) and under
#      UCX for local ranks (MPIR_CVAR_NOLOCAL=1);
#   3. where a variant of 2 passed: bench_matmult on 2 ranks, host-staged against device buffers
#      (-gpu_aware_halo), on the 3D Laplacian and the power-law matrix (GPUAWARE_BENCH=0: not).
# Prepare on the build machine:
#   bash conf/petsc.sh cudampich --pack .carry/mpi/petsc-cudampich.tar.xz
#   GPUMAT_CONFIG=cudampich BUILD=$PWD/build-cudampich bash conf/setup.sh
#   tar -C build-cudampich --exclude='*.o' --exclude='*.a' -cJf .carry/mpi/build-cudampich.tar.xz .
# then with the device tool, carrying .carry/mpi: bash conf/gpuaware.sh (exit 0 when device buffers
# went through MPI in at least one variant, 1 when none did, 2 when it could not start). The
# environment of the variant through UCX is conf/env.sh's gpumat_gpu_aware_env, the one the
# cudampich build's tests and conf/scaling.sh's HALO=device runs use (GPUAWARE_ENV).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$top/gpuaware-out}
export GPUMAT_CONFIG=cudampich
source "$top/conf/gpu-env.sh" # the cudampich PETSc and build (exits in seconds without them or a GPU)
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
# the variants' environments: local ranks through UCX (nolocal), or through MPICH's shared memory (shm)
read -r -a nolocal_env <<< "$(gpumat_gpu_aware_env)"
shm_env=()
for e in "${nolocal_env[@]}"; do [[ "$e" == MPIR_CVAR_NOLOCAL=* ]] || shm_env+=("$e"); done
mpiexec=$(command -v mpiexec)
say "mpiexec: $mpiexec; UCX from $(dirname "$(ldd "$BUILD/tests/petsc/test_mpi" | sed -n 's/.*libucp.so.0 => \([^ ]*\).*/\1/p')"); $(gpumat_gpu_count) GPU(s)"
run mpi_host "${shm_env[@]}" -- "$mpiexec" -n 2 "$BUILD/tests/petsc/test_mpi" -type csrspec -mat_gpumat_gpu_aware_mpi 0 || { say "the MPI itself does not run: stop"; exit 2; }
# PETSc's own start-up check of -use_gpu_aware_mpi 1 (recorded, expected to refuse this MPI)
run petsc_check "${nolocal_env[@]}" -- "$mpiexec" -n 2 "$BUILD/tests/petsc/test_mpi" -type csrspec -use_gpu_aware_mpi 1
say "   PETSc's -use_gpu_aware_mpi 1 with this MPI: $(grep -q 'your MPI is not GPU-aware' "$OUT/petsc_check.txt" && echo "refused at start-up (its device-memory reduction)" || echo "not refused")"
ok=()
for variant in nolocal shm; do
  if [ "$variant" = nolocal ]; then envs=("${nolocal_env[@]}"); else envs=("${shm_env[@]}"); fi
  if run "device_$variant" "${envs[@]}" -- "$mpiexec" -n 2 "$BUILD/tests/petsc/test_mpi" -type csrspec -mat_gpumat_gpu_aware_mpi 1; then ok+=("$variant"); fi
done
if [ ${#ok[@]} -eq 0 ]; then say "no variant passed device buffers through MPI"; exit 1; fi
say "device buffers through MPI: ${ok[*]}"
[ "${GPUAWARE_BENCH:-1}" = 0 ] && exit 0 # the benchmark step left to conf/scaling.sh HALO=device
if [ "${ok[0]}" = nolocal ]; then envs=("${nolocal_env[@]}"); else envs=("${shm_env[@]}"); fi
for m in gen:lap3d:128 gen:powerlaw:2000000; do
  for aware in 0 1; do
    a=()
    [ $aware = 1 ] && a=(-gpu_aware_halo)
    run "bench_${m//:/_}_aware$aware" "${envs[@]}" -- "$mpiexec" -n 2 "$BUILD/examples/bench_matmult" -matrix "$m" -types aijcusparse,csrspec,pjds,bccoo -reps 50 -ksp_its 0 -floors 0 "${a[@]}"
  done
done
exit 0
