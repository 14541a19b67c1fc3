#!/usr/bin/env bash
# On the GPU machine (no network): the `cuda` PETSc built from the carried PyPI source by
# conf/petsc.sh, then petsc-gpumat built against it and the main job run with -check_no_copies.
# Prepare on the build machine:
#   mkdir -p .carry/src && cp ~/.cache/petsc-gpumat/src/petsc-3.26.1.tar.gz .carry/src/
# and run with the device tool carrying .carry/src:   bash conf/device-petsc-src.sh
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
source "$top/conf/env.sh"
ver=${PETSC_VERSION:-3.26.1}
export PETSC_TARBALL=$top/.carry/src/petsc-$ver.tar.gz PETSC_GPUMAT_JOBS=${PETSC_GPUMAT_JOBS:-$(nproc)}
# the preconditions first, in seconds: the carried source and a GPU
[ -f "$PETSC_TARBALL" ] || { echo "conf/device-petsc-src.sh: no $PETSC_TARBALL: copy ~/.cache/petsc-gpumat/src/petsc-$ver.tar.gz to .carry/src/ and carry .carry/src" >&2; exit 2; }
gpumat_gpu_answers || { echo "conf/device-petsc-src.sh: no GPU answers here (nvidia-smi): run it on the GPU machine" >&2; exit 2; }
OUT=${OUT:-$top/device-out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/petsc-src.txt") 2>&1
echo "== $(date -u) on $(hostname): $(nproc) cores, $(nvidia-smi --query-gpu=name --format=csv,noheader)"
t0=$(date +%s)
timeout "${PETSC_TIMEOUT:-520}" bash "$top/conf/petsc.sh" cuda > "$OUT/petsc-build.log" 2>&1
rc=$?
echo "conf/petsc.sh cuda from $PETSC_TARBALL: exit $rc after $(( $(date +%s) - t0 )) s"
grep -E "^== |Configure stage complete|Compilers:|CUDA:|Version|BLAS/LAPACK|MPI:" "$OUT/petsc-build.log" | head -20
[ $rc = 0 ] || { tail -30 "$OUT/petsc-build.log"; exit 1; }
eval "$(bash "$top/conf/petsc.sh" cuda --env)"
export PETSC_OPTIONS="-use_gpu_aware_mpi 0"
t1=$(date +%s)
cmake -S "$top" -B "$top/build-src" -DCMAKE_BUILD_TYPE=Release -DGPUMAT_GPU_TESTS=ON > "$OUT/project-build.log" 2>&1 &&
  cmake --build "$top/build-src" -j "$(nproc)" >> "$OUT/project-build.log" 2>&1
rc=$?
echo "petsc-gpumat against it: exit $rc after $(( $(date +%s) - t1 )) s"
[ $rc = 0 ] || { tail -30 "$OUT/project-build.log"; exit 1; }
mpiexec -n 1 "$top/build-src/examples/solve" -kind lap3d -n 64 -check_no_copies 2>&1 | tail -8
ctest --test-dir "$top/build-src" -L gpu --output-on-failure -j 4 2>&1 | grep -E "tests passed|Failed|FAILED|Not Run"
