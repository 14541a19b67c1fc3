#!/usr/bin/env bash
# Builds one of PETSc's own tutorials, unmodified, with the PETSc this project uses, and runs it with
# the plugin loaded by -dll_append:
#
#   bash conf/tutorial.sh NAME [ARGS...]
#   bash conf/tutorial.sh ksp/ksp/tutorials/ex2 -mat_type csrspec -ksp_view
#   NP=2 bash conf/tutorial.sh snes/tutorials/ex5 -dm_mat_type csrspec -snes_monitor
#   GPUMAT_CONFIG=cuda bash conf/tutorial.sh snes/tutorials/ex5 -dm_mat_type csrspec -dm_vec_type cuda -use_gpu_aware_mpi 0
#
# NAME is the tutorial's path under PETSc's share/petsc/examples/src without the suffix (a
# one-file tutorial: NAME.c, NAME.cxx, ...). It is copied into build-tutorials/<PETSc>/NAME's folder
# and built there by PETSc's own makefile rules (share/petsc/Makefile.basic.user: PETSc's compilers,
# flags and libraries), then run as  mpiexec -n $NP NAME -dll_append <libpetscgpumat.so> ARGS...
#
# Environment:
#   GPUMAT_CONFIG        cpu|cuda (default cpu): the PETSc of conf/petsc.sh in its cache, never built
#                        here (conf/test.sh or conf/main.sh builds it), and the plugin
#                        build-$GPUMAT_CONFIG/libpetscgpumat.so
#   GPUMAT_LIB           the plugin to load instead (the CTests pass the one they built)
#   GPUMAT_PETSC_PC_DIR  the folder of the PETSc.pc to use instead of the cached PETSc (the CTests
#                        pass the one the build found)
#   TUTORIAL_BUILD       where the tutorials are built (default build-tutorials/)
#   NP                   MPI ranks (default 1); MPIEXEC_FLAGS: extra mpiexec flags (e.g. --bind-to none)
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$top/conf/env.sh" # OpenMPI as root, more ranks than cores
me="conf/tutorial.sh"
usage() {
  echo "usage: bash $me NAME [ARGS...]   e.g. bash $me ksp/ksp/tutorials/ex2 -mat_type csrspec -ksp_view" >&2
  echo "  NAME: a PETSc tutorial's path under PETSc's share/petsc/examples/src, without .c" >&2
}

# ---- arguments -----------------------------------------------------------------------------------
if [ $# -lt 1 ] || [ "$1" = -h ] || [ "$1" = --help ]; then usage; exit 2; fi
name=$1; shift
name=${name%.kokkos.cxx}; name=${name%.c}; name=${name%.cxx}
case "$name" in
  -*|/*|*..*|*//*|"") echo "$me: '$name' is not a tutorial name (like ksp/ksp/tutorials/ex2)" >&2; usage; exit 2 ;;
esac
if ! [[ "$name" =~ ^[A-Za-z0-9_./-]+$ && "$name" == */* ]]; then
  echo "$me: '$name' is not a tutorial name (like ksp/ksp/tutorials/ex2)" >&2; usage; exit 2
fi
config=${GPUMAT_CONFIG:-cpu}
case "$config" in cpu|cuda) ;; *) echo "$me: GPUMAT_CONFIG must be cpu or cuda, not '$config'" >&2; exit 2 ;; esac
np=${NP:-1}
[[ "$np" =~ ^[1-9][0-9]*$ ]] || { echo "$me: NP must be a positive integer, not '$np'" >&2; exit 2; }

# ---- PETSc (never built here) ----------------------------------------------------------------------
if [ -n "${GPUMAT_PETSC_PC_DIR:-}" ]; then
  [ -f "$GPUMAT_PETSC_PC_DIR/PETSc.pc" ] || { echo "$me: no PETSc.pc in GPUMAT_PETSC_PC_DIR=$GPUMAT_PETSC_PC_DIR" >&2; exit 1; }
  pcdir=$GPUMAT_PETSC_PC_DIR
else
  # The cache entry conf/petsc.sh would use: its lines up to the install path, without the build.
  petsc_sh=$top/conf/petsc.sh
  stamp_line=$(grep -n '^stamp=' "$petsc_sh" | head -1 | cut -d: -f1)
  build_line=$(grep -n '^if \[ ! -f "\$stamp" \]' "$petsc_sh" | head -1 | cut -d: -f1)
  if [ -z "$stamp_line" ] || [ -z "$build_line" ] || [ "$stamp_line" -ge "$build_line" ]; then
    echo "$me: cannot tell from conf/petsc.sh where its PETSc is installed; set GPUMAT_PETSC_PC_DIR" >&2; exit 1
  fi
  prefix=$(bash -c "$(head -n "$stamp_line" "$petsc_sh")"$'\nprintf "%s\\n" "$prefix"' "$petsc_sh" "$config")
  if [ ! -f "$prefix/.petsc-gpumat-complete" ]; then
    echo "$me: no '$config' PETSc in the cache ($prefix); build it first with" >&2
    echo "  GPUMAT_CONFIG=$config bash conf/test.sh     (or bash conf/main.sh)" >&2
    exit 1
  fi
  eval "$(bash "$petsc_sh" "$config" --env)" # the stamp is there: prints the exports, builds nothing
  pcdir=$prefix/lib/pkgconfig
fi
export PKG_CONFIG_PATH=$pcdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
petsc_prefix=$(pkg-config --variable=prefix PETSc)
mpiexec=$(pkg-config --variable=mpiexec PETSc)
mpiexec=${mpiexec:-mpiexec}
# An installed PETSc (--prefix) keeps its tutorials under share/petsc/examples/src; an in-place build
# (prefix $PETSC_DIR/$PETSC_ARCH) under $PETSC_DIR/src.
if [ -f "$petsc_prefix/share/petsc/Makefile.basic.user" ]; then
  petsc_dir=$petsc_prefix petsc_arch= examples=$petsc_prefix/share/petsc/examples/src
else
  petsc_dir=$(dirname "$petsc_prefix") petsc_arch=$(basename "$petsc_prefix") examples=$petsc_dir/src
fi
[ -f "$petsc_dir/share/petsc/Makefile.basic.user" ] ||
  { echo "$me: PETSc at $petsc_prefix has no share/petsc/Makefile.basic.user" >&2; exit 1; }
[ -d "$examples" ] || { echo "$me: PETSc at $petsc_prefix has no tutorials (no $examples)" >&2; exit 1; }

src=
for ext in c cxx kokkos.cxx; do
  [ -f "$examples/$name.$ext" ] && { src=$examples/$name.$ext; break; }
done
if [ -z "$src" ]; then
  echo "$me: no tutorial '$name': $examples/$name.c does not exist." >&2
  echo "PETSc's tutorials are the exN.c files in these folders of $examples:" >&2
  (cd "$examples" && find . -type d -name tutorials | sed 's|^\./||' | sort | sed 's/^/  /') >&2
  echo "e.g. ksp/ksp/tutorials/ex2, snes/tutorials/ex5 (ls $examples/snes/tutorials)" >&2
  exit 2
fi

# ---- the plugin ------------------------------------------------------------------------------------
lib=${GPUMAT_LIB:-$top/build-$config/libpetscgpumat.so}
if [ ! -f "$lib" ]; then
  echo "$me: no plugin at $lib; build it first (GPUMAT_CONFIG=$config bash conf/test.sh, or cmake --build build-$config)" >&2
  exit 1
fi

# ---- build with PETSc's rules, run ---------------------------------------------------------------
out=${TUTORIAL_BUILD:-$top/build-tutorials}/$(basename "$petsc_prefix")/$(dirname "$name")
mkdir -p "$out"
cp -p "$src" "$out/"
exe=$(basename "$name")
# PETSc's link line names the CUDA library folder of the machine PETSc was built on (lib); a CUDA
# PETSc carried to the GPU machine finds lib64 there through LIBRARY_PATH (as conf/gpu-env.sh does).
cuda_home=${CUDA_HOME:-/usr/local/cuda}
if [ -n "$(pkg-config --variable=cudalib PETSc)" ] && [ -d "$cuda_home/lib64" ]; then
  export LIBRARY_PATH=$cuda_home/lib64${LIBRARY_PATH:+:$LIBRARY_PATH}
fi
echo "== building $name ($src) with PETSc at $petsc_prefix into $out" >&2
make -s --no-print-directory -C "$out" -f "$petsc_dir/share/petsc/Makefile.basic.user" \
  PETSC_DIR="$petsc_dir" PETSC_ARCH="$petsc_arch" "$exe" >&2

echo "== $mpiexec -n $np ${MPIEXEC_FLAGS:+$MPIEXEC_FLAGS }$out/$exe -dll_append $lib $*" >&2
# shellcheck disable=SC2086
exec "$mpiexec" -n "$np" ${MPIEXEC_FLAGS:-} "$out/$exe" -dll_append "$lib" "$@"
