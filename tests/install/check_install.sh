#!/usr/bin/env bash
# CTest install.consumer: installs the current build into a fresh prefix, then builds and runs the
# consumer program (consumer/) twice, against the installed tree only:
#   1. a CMake project with find_package(PetscGpuMat REQUIRED) (PETSc from PKG_CONFIG_PATH);
#   2. the same source compiled with PETSc's C compiler and `pkg-config --cflags --libs PetscGpuMat`,
#      after moving the prefix elsewhere (PetscGpuMat.pc's prefix is relative to the .pc file).
# Each run must print type seqaijcsrspec and the exact checksum; the last line says both passed.
#   check_install.sh BUILD_DIR WORK_DIR PETSC_PC_DIR CC MPIEXEC CMAKE
set -euo pipefail
build=$1 work=$2 petsc_pc=$3 cc=$4 mpiexec=$5 cmake=$6
# a build folder carried to another machine (the GPU machine) may name a cmake that is not there
[ -x "$cmake" ] || cmake=$(command -v cmake)
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/consumer" && pwd)
prefix=$work/prefix moved=$work/prefix-moved
unset PETSC_DIR PETSC_ARCH # PETSc comes from PKG_CONFIG_PATH only: the one the build used
expect='type seqaijcsrspec, checksum 10001.0, norm1 10397.0'

rm -rf "$work" && mkdir -p "$work"
echo "== cmake --install $build --prefix $prefix"
"$cmake" --install "$build" --prefix "$prefix"

for f in lib/libpetscgpumat.so lib/libpetscgpumat.so.0 include/petscgpumat.h lib/pkgconfig/PetscGpuMat.pc \
         lib/cmake/PetscGpuMat/PetscGpuMatConfig.cmake lib/cmake/PetscGpuMat/PetscGpuMatConfigVersion.cmake \
         lib/cmake/PetscGpuMat/PetscGpuMatTargets.cmake; do
  [ -e "$prefix/$f" ] || { echo "FAIL: $prefix/$f was not installed"; exit 1; }
done
[ -L "$prefix/lib/libpetscgpumat.so" ] && [ -L "$prefix/lib/libpetscgpumat.so.0" ] ||
  { echo "FAIL: the soname links are not links"; exit 1; }
runpath=$(readelf -d "$prefix/lib/libpetscgpumat.so" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
echo "installed library's RUNPATH: $runpath"
case ":$runpath:" in
  *"$build"*|*::*) echo "FAIL: the installed library's RUNPATH names the build tree or the current directory"; exit 1 ;;
esac
if grep -rIl -- "$build" "$prefix"; then echo "FAIL: installed files name the build tree (above)"; exit 1; fi

echo "== CMake consumer: find_package(PetscGpuMat) with CMAKE_PREFIX_PATH=$prefix, PKG_CONFIG_PATH=$petsc_pc"
PKG_CONFIG_PATH=$petsc_pc "$cmake" -S "$src" -B "$work/consumer-cmake" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >"$work/consumer-cmake.log" 2>&1 ||
  { cat "$work/consumer-cmake.log"; echo "FAIL: configuring the CMake consumer"; exit 1; }
"$cmake" --build "$work/consumer-cmake" >>"$work/consumer-cmake.log" 2>&1 ||
  { cat "$work/consumer-cmake.log"; echo "FAIL: building the CMake consumer"; exit 1; }
uses() { # the consumer $1 must load libpetscgpumat from the folder $2
  local at; at=$(ldd "$1" | sed -n 's/^\s*libpetscgpumat\.so\.0 => \(\S*\) .*/\1/p')
  echo "$(basename "$1") loads $at"
  [ -n "$at" ] && [ "$(realpath "$(dirname "$at")")" = "$(realpath "$2")" ] || { echo "FAIL: $1 does not load libpetscgpumat from $2"; exit 1; }
}
uses "$work/consumer-cmake/consumer" "$prefix/lib"
out=$("$mpiexec" -n 1 "$work/consumer-cmake/consumer" 2>&1) || { echo "$out"; echo "FAIL: running the CMake consumer"; exit 1; }
echo "$out"
grep -qF "$expect" <<<"$out" || { echo "FAIL: the CMake consumer did not print '$expect'"; exit 1; }

echo "== pkg-config consumer: $cc consumer.c \$(pkg-config --cflags --libs PetscGpuMat), prefix moved to $moved"
mv "$prefix" "$moved"
export PKG_CONFIG_PATH=$moved/lib/pkgconfig:$petsc_pc
flags=$(pkg-config --cflags --libs PetscGpuMat) || { echo "FAIL: pkg-config PetscGpuMat"; exit 1; }
echo "pkg-config --cflags --libs PetscGpuMat: $flags"
# PETSc.pc and PetscGpuMat.pc give no run path: name both library folders at link time.
rpaths="-Wl,-rpath,$(pkg-config --variable=libdir PetscGpuMat) -Wl,-rpath,$(pkg-config --variable=libdir PETSc)"
# shellcheck disable=SC2086
"$cc" "$src/consumer.c" -o "$work/consumer-pc" $flags $rpaths || { echo "FAIL: compiling with pkg-config's flags"; exit 1; }
uses "$work/consumer-pc" "$moved/lib"
out=$("$mpiexec" -n 1 "$work/consumer-pc" 2>&1) || { echo "$out"; echo "FAIL: running the pkg-config consumer"; exit 1; }
echo "$out"
grep -qF "$expect" <<<"$out" || { echo "FAIL: the pkg-config consumer did not print '$expect'"; exit 1; }
echo "install check passed: the CMake and pkg-config consumers of the installed tree both multiplied with seqaijcsrspec"
