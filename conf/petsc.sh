#!/usr/bin/env bash
# Builds and caches the pinned PETSc for petsc-gpumat.
#
#   conf/petsc.sh cpu            # OpenMPI + OpenBLAS, shared, optimized, no Fortran, with hypre and
#                                # petsc4py (CI, README)
#   conf/petsc.sh cuda           # the same plus CUDA for sm_90 (H100/H200), without hypre and petsc4py
#   conf/petsc.sh cuda --pack F  # also write the installed tree to archive F (to carry to the GPU)
#   conf/petsc.sh cudakk         # cuda plus Kokkos, Kokkos Kernels and a CUDA hypre, from source
#                                # archives in .carry-src/ (below; README, "Kokkos and GPU hypre")
#   conf/petsc.sh cudampich      # cuda against MPICH from PyPI with UCX's CUDA transports (below):
#                                # an MPI that may pass device buffers
#   eval "$(conf/petsc.sh cpu --env)"   # only print the exports (builds first if needed)
#
# The install lands in $PETSC_GPUMAT_CACHE (default ~/.cache/petsc-gpumat) under a name made of
# the version, the configuration and a hash of the configure options, so a change of options is a
# new cache entry and a rerun with the same options does nothing. Source: the PyPI source
# distribution of petsc==$PETSC_VERSION, fetched with pip; where there is no network (the GPU
# machine) put the tarball at $PETSC_GPUMAT_CACHE/src/ or point PETSC_TARBALL at it.
#
# Why 3.26.1: it is the pinned release; it configures against CUDA 13.0 (3.22 does not: it needs
# the NVTX2 library libnvToolsExt that CUDA 13 dropped).
#
# The cpu configuration also has:
# - hypre (-pc_type hypre) from Debian's libhypre-dev 2.26.0: the 32-bit-index build, as PETSc's
#   PetscInt is 32-bit here (Debian's libhypre64-dev and libhypre64m-dev are the bigint and mixedint
#   variants, for 64-bit PetscInt), linked against the same OpenMPI (libmpi.so.40) as PETSc;
#   conf/setup.sh installs the package. PETSc 3.26.1 states hypre 2.14 as its minimum, configures
#   with 2.26, but does not compile against it as it is (below: conf/petsc-hypre-2.26.h); with that
#   header BoomerAMG runs (the tests' -pc_type hypre). The cuda configuration has no hypre yet
#   (Debian's is a host-only build).
# - petsc4py (--with-petsc4py: the bindings of the same source tree, built at `make` with Cython 3
#   and numpy from PyPI, installed under $prefix/lib; --env exports PYTHONPATH for it). The cuda
#   configuration has none yet (the GPU machine has no network for Cython and numpy).
set -euo pipefail

PETSC_VERSION=${PETSC_VERSION:-3.26.1}
config=${1:-cpu}
shift || true
mode=build
pack=
while [ $# -gt 0 ]; do
  case "$1" in
    --env) mode=env ;;
    --pack) [ $# -ge 2 ] && [ -n "$2" ] || { echo "conf/petsc.sh: --pack needs an archive file name" >&2; exit 2; }; pack=$2; shift ;;
    *) echo "conf/petsc.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done

cache=${PETSC_GPUMAT_CACHE:-$HOME/.cache/petsc-gpumat}
cuda_dir=${CUDA_HOME:-/usr/local/cuda}
jobs=${PETSC_GPUMAT_JOBS:-$(nproc)}

opts=(--with-debugging=0 --with-shared-libraries=1 --with-fc=0 --with-fortran-bindings=0
      --with-x=0 --with-blaslapack-lib=-lopenblas
      --with-cc=mpicc --with-cxx=mpicxx
      "COPTFLAGS=-O3" "CXXOPTFLAGS=-O3")
# the scripts' shared environment: OpenMPI as root (the configure tests and mpiexec in containers),
# the hypre paths (conf/tutorial.sh runs this script's head with bash -c, $0 naming the script)
# shellcheck source=SCRIPTDIR/env.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")" && pwd)/env.sh"
hypre_inc=$(gpumat_hypre_include)
hypre_lib=$(gpumat_hypre_lib)
case "$config" in
  cpu) opts+=(--with-cuda=0 "--with-hypre-include=$hypre_inc" "--with-hypre-lib=$hypre_lib" --with-petsc4py=1) ;;
  cuda) opts+=(--with-cuda=1 "--with-cuda-dir=$cuda_dir" --with-cuda-arch=90 "CUDAOPTFLAGS=-O3") ;;
  cudakk)
    # cuda plus Kokkos 4.6.01, Kokkos Kernels 4.7.00 (CUDA backend; no explicit instantiation: PETSc
    # compiles the kernels it uses) and hypre 3.1.0 built for CUDA, from source archives in
    # $GPUMAT_SRC (default: .carry-src/ of this checkout, made with `git archive` from the fetched
    # repositories; Kokkos patched for CUDA 13 by conf/kokkos-cuda13.py below). Not built by CI or
    # the tests: README, "Kokkos and GPU hypre".
    src=${GPUMAT_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")/.." && pwd)/.carry-src}
    opts+=(--with-cuda=1 "--with-cuda-dir=$cuda_dir" --with-cuda-arch=90 "CUDAOPTFLAGS=-O3"
           "--download-kokkos=$src/kokkos-4.6.01-cuda13.tar.gz"
           "--download-kokkos-kernels=$src/kokkos-kernels-4.7.00.tar.gz"
           "--download-kokkos-kernels-cmake-arguments=-DKokkosKernels_ADD_DEFAULT_ETI=OFF -DKokkosKernels_ENABLE_ALL_COMPONENTS=OFF -DKokkosKernels_ENABLE_COMPONENT_SPARSE=ON"
           "--download-hypre=$src/hypre-3.1.0.tar.gz") ;;
  cudampich)
    # cuda against MPICH 5.0.2 (PyPI's wheel: ch4:ucx,ofi, built without CUDA) whose UCX is replaced
    # at run time by UCX 1.22 from PyPI's libucx-cu13 (built with CUDA: the cuda_copy, cuda_ipc and
    # gdr_copy transports, which move device buffers; --env puts it on LD_LIBRARY_PATH, which goes
    # before libmpi's RUNPATH): an MPI that may pass device buffers, where the GPU machines' OpenMPI
    # 4.1.6 is not CUDA-aware. Both into $mpi (carried with --pack: the GPU machine has no network).
    # Device buffers pass with local ranks through UCX (MPIR_CVAR_NOLOCAL=1; MPICH's own shared
    # memory copies them on the host), while PETSc's -use_gpu_aware_mpi 1 start-up check refuses
    # this MPI (conf/gpuaware.sh, README; measured on four H100s: docs/results/x4-2026-11-27-scaling).
    mpi=$cache/mpich-5.0.2-ucx-cu13
    opts=("${opts[@]/--with-cc=mpicc/--with-cc=$mpi/bin/mpicc}")
    opts=("${opts[@]/--with-cxx=mpicxx/--with-cxx=$mpi/bin/mpicxx}")
    opts+=(--with-cuda=1 "--with-cuda-dir=$cuda_dir" --with-cuda-arch=90 "CUDAOPTFLAGS=-O3") ;;
  *) echo "conf/petsc.sh: configuration must be 'cpu', 'cuda', 'cudakk' or 'cudampich', not '$config'" >&2; exit 2 ;;
esac
# the MPI of the cudampich configuration: the two wheels, installed once (the unused parts dropped)
provide_mpich() {
  [ -x "$mpi/bin/mpicc" ] && [ -f "$mpi/ucx/libucx/lib/ucx/libuct_cuda.so.0" ] && return 0
  echo "== installing MPICH 5.0.2 and libucx-cu13 1.22.0 from PyPI into $mpi" >&2
  rm -rf "$mpi" && mkdir -p "$mpi"
  python3 -m pip install -q --no-deps --prefix "$mpi" "mpich==5.0.2" >&2
  python3 -m pip install -q --no-deps --target "$mpi/ucx" "libucx-cu13==1.22.0" >&2
  rm -f "$mpi"/lib/libmpi_abi.so* "$mpi"/bin/*_abi
  find "$mpi/ucx" \( -name '*.a' -o -name '*.la' -o -name 'libucx_perftest*' \) -delete
  rm -rf "$mpi/ucx/libucx/bin" "$mpi/ucx/libucx/include" "$mpi/ucx/libucx/lib/cmake"
  [ -x "$mpi/bin/mpicc" ] && [ -f "$mpi/ucx/libucx/lib/ucx/libuct_cuda.so.0" ] ||
    { echo "conf/petsc.sh: MPICH or UCX's CUDA transport is missing from $mpi after the install" >&2; exit 1; }
}

# PETSc 3.26.1 does not compile against hypre 2.26 as it is: it uses, without version checks,
# names that hypre 2.26 lacks (HYPRE_INT_MAX in petschypre.h, HYPRE_IJMatrixGetValues2 in mhypre.c,
# hypre ILU's iterative setup and its ILU data struct in PCHYPRE). conf/petsc-hypre-2.26.h
# defines them (or, for the ILU iterative-setup options, makes them a hypre error) and is inserted
# into PETSc's petschypre.h after its HYPRE_utilities.h; its text is part of the cpu cache key.
# (conf/tutorial.sh runs this script's head with bash -c, $0 naming the script)
hypre_compat=$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")" && pwd)/petsc-hypre-2.26.h
patch_petschypre() {
  local hdr=$1
  awk -v f="$hypre_compat" '{ print } /^#include <HYPRE_utilities.h>/ { while ((getline l < f) > 0) print l; n++ } END { exit n != 1 }' "$hdr" > "$hdr.new" ||
    { echo "conf/petsc.sh: $hdr has no single '#include <HYPRE_utilities.h>' to patch" >&2; exit 1; }
  mv "$hdr.new" "$hdr"
}

key=("$PETSC_VERSION" "${opts[@]}")
[ "$config" = cpu ] && key+=("$(sha1sum < "$hypre_compat")") # the cuda key is unchanged
hash=$(printf '%s\n' "${key[@]}" | sha1sum | cut -c1-10)
prefix=$cache/petsc-$PETSC_VERSION-$config-$hash
stamp=$prefix/.petsc-gpumat-complete

print_env() {
  if [ "$config" = cudampich ]; then
    echo "export PATH=$mpi/bin:\$PATH"
    echo "export LD_LIBRARY_PATH=$mpi/ucx/libucx/lib:$mpi/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
  fi
  echo "export PETSC_DIR=$prefix"
  echo "export PETSC_ARCH="
  echo "export PKG_CONFIG_PATH=$prefix/lib/pkgconfig\${PKG_CONFIG_PATH:+:\$PKG_CONFIG_PATH}"
  if [ -d "$prefix/lib/petsc4py" ]; then
    echo "export PYTHONPATH=$prefix/lib\${PYTHONPATH:+:\$PYTHONPATH}"
  fi
}

if [ ! -f "$stamp" ]; then
  if [ "$config" != cpu ] && [ ! -x "$cuda_dir/bin/nvcc" ]; then # before any long step
    echo "conf/petsc.sh: building the $config configuration needs the CUDA toolkit: no $cuda_dir/bin/nvcc (set CUDA_HOME)" >&2
    exit 2
  fi
  if [ "$config" = cudampich ]; then provide_mpich; fi
  if [ "$config" = cudakk ]; then
    if [ ! -f "$src/kokkos-4.6.01-cuda13.tar.gz" ] && [ -f "$src/kokkos-4.6.01.tar.gz" ]; then
      tmp=$(mktemp -d)
      tar -xzf "$src/kokkos-4.6.01.tar.gz" -C "$tmp"
      python3 "$(dirname "$hypre_compat")/kokkos-cuda13.py" "$tmp/kokkos-4.6.01" >&2
      tar -C "$tmp" -czf "$src/kokkos-4.6.01-cuda13.tar.gz" kokkos-4.6.01
      rm -rf "$tmp"
    fi
    for f in kokkos-4.6.01-cuda13.tar.gz kokkos-kernels-4.7.00.tar.gz hypre-3.1.0.tar.gz; do
      [ -f "$src/$f" ] || { echo "conf/petsc.sh: the cudakk configuration needs $src/$f (git archive of the fetched repository's release tag, prefix ${f%.tar.gz}/ (hypre: hypre-3.1.0/, tag v3.1.0); README, \"Kokkos and GPU hypre\")" >&2; exit 2; }
    done
  fi
  if [ "$config" = cpu ]; then
    if [ ! -f "$hypre_inc/HYPRE_config.h" ] || [ ! -f "$hypre_lib" ]; then
      echo "conf/petsc.sh: the cpu configuration needs hypre: no $hypre_inc/HYPRE_config.h or $hypre_lib (apt-get install libhypre-dev, or run conf/setup.sh)" >&2
      exit 2
    fi
    if grep -Eq '^#define HYPRE_(BIGINT|MIXEDINT) 1' "$hypre_inc/HYPRE_config.h"; then
      echo "conf/petsc.sh: $hypre_inc is a 64-bit-index hypre; this PETSc uses 32-bit PetscInt: install libhypre-dev, not libhypre64-dev or libhypre64m-dev" >&2
      exit 2
    fi
    # petsc4py's build: Cython 3 (PETSc's source tree ships the .pyx, not the generated C) and numpy
    if ! python3 -c 'import Cython, numpy, setuptools' 2>/dev/null; then
      echo "== installing Cython and numpy from PyPI for petsc4py" >&2
      python3 -m pip install -q "cython==3.1.8" "numpy==2.3.5" setuptools >&2
    fi
  fi
  mkdir -p "$cache/src"
  tarball=${PETSC_TARBALL:-$cache/src/petsc-$PETSC_VERSION.tar.gz}
  if [ ! -f "$tarball" ]; then
    echo "== fetching the PETSc $PETSC_VERSION source distribution from PyPI" >&2
    python3 -m pip install -q wheel setuptools >&2
    tmp=$(mktemp -d)
    python3 -m pip download -q --no-deps --no-binary petsc --no-build-isolation \
      "petsc==$PETSC_VERSION" -d "$tmp" >&2
    mv "$tmp/petsc-$PETSC_VERSION.tar.gz" "$tarball"
    rm -rf "$tmp"
  fi
  build=$cache/build-$PETSC_VERSION-$config-$hash
  rm -rf "$build" && mkdir -p "$build"
  tar -xzf "$tarball" -C "$build" --strip-components=1
  if [ "$config" = cpu ]; then patch_petschypre "$build/include/petsc/private/petschypre.h"; fi
  echo "== configuring PETSc $PETSC_VERSION ($config) into $prefix" >&2
  (cd "$build" && unset PETSC_DIR PETSC_ARCH && python3 ./configure PETSC_ARCH=arch-gpumat --prefix="$prefix" "${opts[@]}" >&2)
  echo "== building with $jobs jobs" >&2
  (cd "$build" && make PETSC_DIR="$build" PETSC_ARCH=arch-gpumat MAKE_NP="$jobs" all >&2 &&
     make PETSC_DIR="$build" PETSC_ARCH=arch-gpumat install >&2)
  rm -rf "$build"
  # Keep what the plugin needs; the share/ tutorials and data are not used.
  rm -rf "$prefix/share/petsc/datafiles"
  touch "$stamp"
fi

if [ -n "$pack" ]; then
  mkdir -p "$(dirname "$pack")"
  if [ "$config" = cudampich ]; then tar -C / -cJf "$pack" "${prefix#/}" "${mpi#/}"; else tar -C / -cJf "$pack" "${prefix#/}"; fi
  echo "== packed $prefix into $pack ($(du -h "$pack" | cut -f1)); unpack with: tar -C / -xJf $pack" >&2
fi

if [ "$mode" = env ]; then print_env; else
  echo "PETSc $PETSC_VERSION ($config) is ready. Use it with:" >&2
  print_env
fi
