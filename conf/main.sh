#!/usr/bin/env bash
# The README's main job: installs everything on a fresh machine, builds, and solves a generated
# 3D Poisson problem with aij and csrspec (and aijcusparse on a GPU), comparing them.
# Extra arguments go to the solver, e.g. -n 128 or -kind powerlaw -n 2000000.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
args=(-kind lap3d -n 64)
# A CUDA PETSc refuses an MPI that is not GPU-aware (Debian's and Ubuntu's OpenMPI) unless told.
[ "$GPUMAT_CONFIG" = cuda ] && args+=(-use_gpu_aware_mpi 0)
exec mpiexec -n 1 "$BUILD/examples/solve" "${args[@]}" "$@"
