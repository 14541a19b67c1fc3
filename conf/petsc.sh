#!/usr/bin/env bash
# Builds and caches the pinned PETSc for petsc-gpumat.
#
#   conf/petsc.sh cpu            # OpenMPI + OpenBLAS, shared, optimized, no Fortran (CI, README)
#   conf/petsc.sh cuda           # the same plus CUDA for sm_90 (H100/H200)
#   conf/petsc.sh cuda --pack F  # also write the installed tree to archive F (to carry to the GPU)
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
case "$config" in
  cpu) opts+=(--with-cuda=0) ;;
  cuda) opts+=(--with-cuda=1 "--with-cuda-dir=$cuda_dir" --with-cuda-arch=90 "CUDAOPTFLAGS=-O3") ;;
  *) echo "conf/petsc.sh: configuration must be 'cpu' or 'cuda', not '$config'" >&2; exit 2 ;;
esac

hash=$(printf '%s\n' "$PETSC_VERSION" "${opts[@]}" | sha1sum | cut -c1-10)
prefix=$cache/petsc-$PETSC_VERSION-$config-$hash
stamp=$prefix/.petsc-gpumat-complete

print_env() {
  echo "export PETSC_DIR=$prefix"
  echo "export PETSC_ARCH="
  echo "export PKG_CONFIG_PATH=$prefix/lib/pkgconfig\${PKG_CONFIG_PATH:+:\$PKG_CONFIG_PATH}"
}

# OpenMPI refuses root unless told; the configure tests and mpiexec need this in containers.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1

if [ ! -f "$stamp" ]; then
  if [ "$config" = cuda ] && [ ! -x "$cuda_dir/bin/nvcc" ]; then # before any long step
    echo "conf/petsc.sh: building the cuda configuration needs the CUDA toolkit: no $cuda_dir/bin/nvcc (set CUDA_HOME)" >&2
    exit 2
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
  tar -C / -cJf "$pack" "${prefix#/}"
  echo "== packed $prefix into $pack ($(du -h "$pack" | cut -f1)); unpack with: tar -C / -xJf $pack" >&2
fi

if [ "$mode" = env ]; then print_env; else
  echo "PETSc $PETSC_VERSION ($config) is ready. Use it with:" >&2
  print_env
fi
