# shellcheck shell=bash
# The environment the scripts of conf/, bench/ and tests/ share, defined once. Sourced (never run):
#   source "$top/conf/env.sh"
# It only exports variables and defines functions (gpumat_*), so sourcing it twice is harmless.
# CMake's copy of the MPI variables is GPUMAT_TEST_ENV in conf/gpumat_test.cmake.

# OpenMPI refuses to run as root (containers, the GPU machines) unless told, and more ranks than
# cores unless oversubscription is allowed; PETSc's configure tests and every mpiexec need both.
# A value already set in the environment is kept.
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1}
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
export OMPI_MCA_rmaps_base_oversubscribe=${OMPI_MCA_rmaps_base_oversubscribe:-1}

# gpumat_gpu_answers: succeeds when a GPU answers here (nvidia-smi lists one).
gpumat_gpu_answers() {
  command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1
}

# gpumat_gpu_count: prints how many GPUs nvidia-smi lists (0 without nvidia-smi).
gpumat_gpu_count() {
  local n
  n=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU ') || true # grep -c prints 0 and fails without GPUs
  echo "${n:-0}"
}

# gpumat_gpu_aware_env: prints the environment (space-separated assignments, for env(1)) under
# which the cudampich configuration's MPI (MPICH from PyPI with UCX's CUDA transports, conf/petsc.sh)
# moves device buffers: local ranks through UCX (MPIR_CVAR_NOLOCAL=1), since MPICH's own
# shared-memory path copies device memory on the host; UCX_WARN_UNUSED_ENV_VARS=n keeps UCX quiet
# about the variables it does not read. conf/setup.sh configures the cudampich build's
# GPUMAT_GPU_AWARE_MPI_ENV (the device-buffer tests' environment) with it, conf/scaling.sh reads
# that back as its GPUAWARE_ENV, conf/gpuaware.sh runs its variants under it.
gpumat_gpu_aware_env() {
  echo "MPIR_CVAR_NOLOCAL=1 UCX_WARN_UNUSED_ENV_VARS=n"
}

# gpumat_hypre_include, gpumat_hypre_lib: the header folder and library of Debian's libhypre-dev
# (the 32-bit-index hypre) that the cpu configuration's PETSc is configured with (conf/petsc.sh);
# conf/setup.sh looks for them there.
gpumat_hypre_include() {
  echo /usr/include/hypre
}
gpumat_hypre_lib() {
  echo "/usr/lib/$(gcc -print-multiarch 2> /dev/null || echo x86_64-linux-gnu)/libHYPRE.so"
}

# gpumat_types WORD...: prints a comma-separated list of matrix types, the scripts' default type
# lists. Each word adds, in order:
#   formats           every format registered in src/formats.def (its GPUMAT_FORMAT(root, ...)
#                     lines), in that file's order
#   aijcusparse:algs  PETSc's aijcusparse once per cuSPARSE CSR algorithm, as examples/bench_matmult
#                     names them: aijcusparse:alg1,aijcusparse:alg2
#   a type            itself: a registered format or one of the peers aij, aijcusparse (also
#                     aijcusparse:alg1, aijcusparse:alg2), sellcuda, aijkokkos
# and a word -PATTERN leaves out every type that the shell pattern matches, wherever it was added
# (e.g. -cusparsesell, '-cusparse*'). An unknown word is an error (exit 1).
#   gpumat_types aijcusparse:algs formats -cusparsesell -cusparsebsr
#     -> aijcusparse:alg1,aijcusparse:alg2,csrspec,bccoo,cusparsecsr,bce,pjds,gpuauto
gpumat_types() {
  local def out='' w t p skip
  local -a formats=() add=() drop=()
  def=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/src/formats.def
  mapfile -t formats < <(sed -n 's/^GPUMAT_FORMAT( *\([A-Za-z0-9_]*\) *,.*/\1/p' "$def" 2> /dev/null)
  if [ ${#formats[@]} = 0 ]; then
    echo "gpumat_types: no GPUMAT_FORMAT lines in $def" >&2
    return 1
  fi
  for w in "$@"; do
    case "$w" in
      formats) add+=("${formats[@]}") ;;
      aijcusparse:algs) add+=(aijcusparse:alg1 aijcusparse:alg2) ;;
      -?*) drop+=("${w#-}") ;;
      aij | aijcusparse | aijcusparse:alg1 | aijcusparse:alg2 | sellcuda | aijkokkos) add+=("$w") ;;
      *)
        if [[ " ${formats[*]} " == *" $w "* ]]; then add+=("$w"); else
          echo "gpumat_types: '$w' is neither a format of $def nor a peer (aij, aijcusparse, aijcusparse:alg1, aijcusparse:alg2, aijcusparse:algs, sellcuda, aijkokkos)" >&2
          return 1
        fi ;;
    esac
  done
  for t in "${add[@]}"; do
    skip=
    for p in "${drop[@]}"; do
      # shellcheck disable=SC2053 # p is a pattern
      [[ "$t" == $p ]] && skip=1
    done
    [ -n "$skip" ] || out+=${out:+,}$t
  done
  echo "$out"
}
