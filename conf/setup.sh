#!/usr/bin/env bash
# Installs what petsc-gpumat needs on a fresh machine and builds it. Sourced by conf/test.sh and
# conf/main.sh; sets BUILD (the CMake build folder) and exports PETSC_DIR/PKG_CONFIG_PATH.
#   GPUMAT_CONFIG=cpu|cuda|cudakk|cudampich  the PETSc configuration (default: cuda when a GPU
#                           answers, else cpu; cudakk: cuda with Kokkos and a CUDA hypre; cudampich:
#                           cuda against MPICH with UCX's CUDA transports; conf/petsc.sh)
#   bash conf/setup.sh --check   says which requirements are found (where) and which are missing,
#                           installs and builds nothing; exit 0 when all are found, 1 otherwise
# The requirements are looked for as the commands and libraries the build uses (PATH, pkg-config,
# the dynamic linker's cache, the compilers' search paths), wherever they come from: Debian
# packages, environment modules, pip, a prefix. Only where some are missing, and apt-get exists and
# this runs as root, are the Debian packages that provide them installed; otherwise the script
# says what is missing and stops (exit 2).
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$top/conf/env.sh"
setup_check_only=0
# --check only when run (not sourced: conf/test.sh's and conf/main.sh's arguments are their own)
if [ "${BASH_SOURCE[0]}" = "$0" ] && [ "${1:-}" = --check ]; then setup_check_only=1; fi
case "${GPUMAT_CONFIG:-}" in
  "" | cpu | cuda | cudakk | cudampich) ;;
  *) echo "conf/setup.sh: GPUMAT_CONFIG must be cpu, cuda, cudakk or cudampich (or unset: cuda when a GPU answers), not '$GPUMAT_CONFIG'" >&2; exit 2 ;;
esac

if [ -z "${GPUMAT_CONFIG:-}" ]; then
  if gpumat_gpu_answers; then GPUMAT_CONFIG=cuda; else GPUMAT_CONFIG=cpu; fi
fi

# ---- requirements ----------------------------------------------------------------------------------
# setup_requirements: looks for everything the configuration $GPUMAT_CONFIG needs. Fills
# setup_found ("what: where"), setup_missing (what) and setup_packages (the Debian packages that
# provide the missing ones: build-essential, cmake, pkg-config, python3, libopenmpi-dev, openmpi-bin,
# libopenblas-dev, libgtest-dev, zlib1g-dev and, for cpu, libhypre-dev).
setup_requirements() {
  setup_found=() setup_missing=() setup_packages=()
  local c v where d f
  need() { # WHAT PACKAGE WHERE: found at WHERE, or missing (WHERE empty) and provided by PACKAGE
    if [ -n "$3" ]; then setup_found+=("$1: $3"); return; fi
    setup_missing+=("$1")
    [[ " ${setup_packages[*]} " == *" $2 "* ]] || setup_packages+=("$2")
  }
  first_command() { # prints the path of the first of its arguments that is a command
    local c
    for c in "$@"; do command -v "$c" 2> /dev/null && return 0; done
    return 0
  }
  in_dirs() { # FILE-PATTERN DIR...: prints the first file matching the pattern in one of the folders
    local p=$1 d f
    shift
    for d in "$@"; do
      [ -n "$d" ] || continue
      for f in "$d"/$p; do [ -e "$f" ] && { echo "$f"; return 0; }; done
    done
    return 0
  }
  linker_cache() { # LIBRARY-REGEX: the dynamic linker's cache entry of the library, as its path
    { ldconfig -p 2> /dev/null || /sbin/ldconfig -p 2> /dev/null || true; } | sed -n "s|^[[:space:]]*$1 .* => ||p" | head -1
  }
  pkgconfig() { # MODULE...: "pkg-config MODULE..." when pkg-config knows all of them
    command -v pkg-config > /dev/null && pkg-config --exists "$@" 2> /dev/null && echo "pkg-config $*"
    return 0
  }
  # the folders a modules or prefix install adds: CMAKE_PREFIX_PATH and the compilers' paths
  local -a prefixes=() libdirs=() incdirs=()
  IFS=: read -r -a prefixes <<< "${CMAKE_PREFIX_PATH:-}"
  IFS=: read -r -a libdirs <<< "${LIBRARY_PATH:-}"
  IFS=: read -r -a incdirs <<< "${CPATH:-}${C_INCLUDE_PATH:+:$C_INCLUDE_PATH}"
  for d in "${prefixes[@]}"; do libdirs+=("$d/lib" "$d/lib64"); incdirs+=("$d/include"); done

  # CMake's compilers: CC and CXX where set, else cc (gcc) and c++ (g++)
  if [ -n "${CC:-}" ]; then need "C compiler (CC=$CC)" build-essential "$(first_command "${CC%% *}")"
  else need "C compiler" build-essential "$(first_command cc gcc)"; fi
  if [ -n "${CXX:-}" ]; then need "C++ compiler (CXX=$CXX)" build-essential "$(first_command "${CXX%% *}")"
  else need "C++ compiler" build-essential "$(first_command c++ g++)"; fi
  need make build-essential "$(first_command make)"
  where=$(first_command cmake)
  if [ -n "$where" ]; then
    v=$(cmake --version 2> /dev/null | sed -n '1s/^cmake version \([0-9][0-9.]*\).*/\1/p')
    if [ -n "$v" ] && [ "$(printf '%s\n' 3.24 "$v" | sort -V | head -1)" = 3.24 ]; then where="$where ($v)"
    else where=; c="cmake >= 3.24 (the PATH's $(command -v cmake) is ${v:-of unknown version})"; fi
  fi
  need "${c:-cmake >= 3.24}" cmake "$where"
  c=
  need pkg-config pkg-config "$(first_command pkg-config)"
  need python3 python3 "$(first_command python3)"
  need mpicc libopenmpi-dev "$(first_command mpicc)"
  need mpicxx libopenmpi-dev "$(first_command mpicxx)"
  need mpiexec openmpi-bin "$(first_command mpiexec)"
  # PETSc links -lopenblas (BLAS and LAPACK)
  where=$(linker_cache 'libopenblas\.so')
  [ -n "$where" ] || where=$(in_dirs 'libopenblas.so' "${libdirs[@]}")
  [ -n "$where" ] || where=$(pkgconfig openblas)
  need "OpenBLAS (libopenblas.so)" libopenblas-dev "$where"
  # GoogleTest as CMake's find_package(GTest) finds it: its package or its libraries
  where=$(pkgconfig gtest gtest_main)
  [ -n "$where" ] || where=$(in_dirs 'libgtest_main.*' "${GTEST_ROOT:+$GTEST_ROOT/lib}" "${GTEST_ROOT:+$GTEST_ROOT/lib64}" "${libdirs[@]}" /usr/lib/*-linux-gnu /usr/lib64 /usr/lib /usr/local/lib64 /usr/local/lib)
  need "GoogleTest (gtest, gtest_main)" libgtest-dev "$where"
  where=$(pkgconfig zlib)
  [ -n "$where" ] || where=$(in_dirs zlib.h "${ZLIB_ROOT:+$ZLIB_ROOT/include}" "${incdirs[@]}" /usr/include /usr/local/include)
  need "zlib (zlib.h)" zlib1g-dev "$where"
  # The cpu configuration's PETSc has hypre: Debian's 32-bit-index build (libhypre-dev, not the
  # 64-bit libhypre64-dev or libhypre64m-dev), on the same OpenMPI (conf/petsc.sh).
  if [ "$GPUMAT_CONFIG" = cpu ]; then
    f=$(gpumat_hypre_include)/HYPRE_config.h
    v=$(gpumat_hypre_lib)
    if [ -f "$f" ] && [ -f "$v" ]; then need hypre libhypre-dev "$f, $v"; else need "hypre ($f and $v)" libhypre-dev ""; fi
  fi
  unset -f need first_command in_dirs linker_cache pkgconfig
}

setup_requirements
if [ "$setup_check_only" = 1 ]; then
  echo "requirements of the $GPUMAT_CONFIG configuration:"
  for r in "${setup_found[@]}"; do echo "  found    $r"; done
  for r in "${setup_missing[@]}"; do echo "  missing  $r"; done
  if [ ${#setup_missing[@]} -gt 0 ]; then
    echo "missing: ${#setup_missing[@]} (Debian packages that provide them: ${setup_packages[*]})"
    exit 1
  fi
  echo "all found"
  exit 0
fi
setup_why=
if [ ${#setup_missing[@]} -gt 0 ]; then
  if ! command -v apt-get > /dev/null; then setup_why="no apt-get here to install ${setup_packages[*]}"
  elif [ "$(id -u)" != 0 ]; then setup_why="as root, this script installs ${setup_packages[*]} with apt-get"
  else
    echo "== missing: $(printf '%s; ' "${setup_missing[@]}")installing ${setup_packages[*]}" >&2
    setup_tried=${setup_packages[*]}
    apt-get update -qq >&2 &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${setup_packages[@]}" >&2 ||
      echo "conf/setup.sh: apt-get could not install $setup_tried" >&2
    setup_requirements
    setup_why="still not found after apt-get install $setup_tried"
  fi
fi
if [ ${#setup_missing[@]} -gt 0 ]; then
  {
    echo "conf/setup.sh: the $GPUMAT_CONFIG configuration needs what is not found here ($setup_why):"
    for r in "${setup_missing[@]}"; do echo "  $r"; done
    echo "Provide them, e.g. with environment modules or pip (cmake), on the PATH (commands) and"
    echo "PKG_CONFIG_PATH, LIBRARY_PATH or CMAKE_PREFIX_PATH (libraries), then run again;"
    echo "bash conf/setup.sh --check lists what is found and where."
  } >&2
  exit 2
fi

eval "$(bash "$top/conf/petsc.sh" "$GPUMAT_CONFIG" --env)"
# ... and petsc4py, which imports numpy (conf/petsc.sh installs Cython and numpy from PyPI to build it;
# this covers a PETSc built before on a machine whose Python has lost numpy since).
if [ "$GPUMAT_CONFIG" = cpu ] && ! python3 -c 'import numpy' 2>/dev/null; then
  echo "== installing numpy from PyPI for petsc4py" >&2
  python3 -m pip install -q "numpy==2.3.5" >&2
fi

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
[ "$GPUMAT_CONFIG" = cudampich ] && aware_args=("-DGPUMAT_GPU_AWARE_MPI_ENV=$(gpumat_gpu_aware_env | tr ' ' ';')")
echo "== building petsc-gpumat in $BUILD (PETSc $GPUMAT_CONFIG)" >&2
cmake -S "$top" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DGPUMAT_GPU_TESTS=$gpu_tests "${cuda_args[@]}" "${link_args[@]}" "${aware_args[@]}" >&2
cmake --build "$BUILD" -j "$(nproc)" >&2
