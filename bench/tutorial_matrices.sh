#!/usr/bin/env bash
# Writes the operators of three PETSc tutorials to PETSc binary files for the benchmark suite.
#
#   bench/tutorial_matrices.sh OUTDIR [small|large]        (default: small)
#
# Builds the tutorials from the PETSc at $PETSC_DIR (share/petsc/examples/src of an installed
# PETSc, or src/ of a source tree) with the compiler PETSc was configured with (its PETSc.pc), in
# OUTDIR/build, and runs each once with -ksp_type preonly -pc_type none; -ksp_view_mat binary:FILE
# writes the operator of the first (only) KSPSolve:
#
#   ex19_cavity.bin      SNES ex19: 2D driven cavity (velocity, vorticity, temperature), DMDA star
#                        stencil, 4 dofs per point, Jacobian by finite-difference coloring; nonsymmetric
#                        G x G grid: 4 G^2 rows, 80 G^2 - 64 G nonzeros (20 per row inside)
#   ex56_elasticity.bin  KSP ex56: 3D linear elasticity, trilinear (Q1) hexahedra, 3 dofs per node; SPD
#                        ne^3 elements: 3 (ne+1)^3 rows, 9 (3 ne + 1)^3 nonzeros (81 per row inside)
#   ex13_poisson_q2.bin  SNES ex13: 3D Poisson, triquadratic (Q2) hexahedra on a DMPlex box, Dirichlet
#                        dofs eliminated; SPD
#                        C^3 cells: (2C-1)^3 rows, (8C-9)^3 nonzeros (27 to 125 per row, 64 on average)
#
# Sizes (G / ne / C):  small  40 / 9 / 6        (a test: a few seconds; 1.5 / 2.4 / 0.7 MB files)
#                      large  1250 / 79 / 64    (1.52 / 1.46 / 1.54 GB of CSR, 12 B/nonzero + 4 B/row;
#                                                2.5 min of CPU in all on one rank, 7 GB of memory)
# EX19_GRID, EX56_NE, EX13_CELLS override one size. NP (default 1) ranks run each tutorial (ex56
# takes the largest cube <= NP and needs ne+1 divisible by its cube root); MPIEXEC defaults to the
# mpiexec of PETSc.pc. The row ordering follows the tutorials' partitions, so it depends on NP:
# keep NP fixed for comparable suites. Every file's header is checked against the formulas above
# (PETSc with 32-bit indices, as the benchmark needs). A file already in OUTDIR with the expected
# header is kept (the suite's device calls share the minutes of the large ones; a file written with
# another NP has the same header: remove it or set REWRITE=1 when NP changes).
set -euo pipefail
# shellcheck source=SCRIPTDIR/../conf/env.sh
source "$(dirname "${BASH_SOURCE[0]}")/../conf/env.sh" # OpenMPI as root, more ranks than cores

usage() { echo "usage: $0 OUTDIR [small|large]  (env: PETSC_DIR, PETSC_ARCH, NP, MPIEXEC, EX19_GRID, EX56_NE, EX13_CELLS, REWRITE)" >&2; exit 2; }
if [ $# -lt 1 ] || [ $# -gt 2 ]; then usage; fi
out=$1
size=${2:-small}
case "$size" in
  small) grid=40 ne=9 cells=6 ;;
  large) grid=1250 ne=79 cells=64 ;;
  *) usage ;;
esac
grid=${EX19_GRID:-$grid}
ne=${EX56_NE:-$ne}
cells=${EX13_CELLS:-$cells}
np=${NP:-1}

: "${PETSC_DIR:?set PETSC_DIR to the PETSc to use}"
petsc=$PETSC_DIR${PETSC_ARCH:+/$PETSC_ARCH}
pc=$petsc/lib/pkgconfig/PETSc.pc
[ -f "$pc" ] || { echo "$0: no $pc (set PETSC_DIR, and PETSC_ARCH for a source tree)" >&2; exit 1; }
pcvar() { sed -n "s/^$1=//p" "$pc"; }
cc=$(pcvar ccompiler)
cflags=$(pcvar cflags_extra)
mpiexec=${MPIEXEC:-$(pcvar mpiexec)}
mpiexec=${mpiexec:-mpiexec}
src=$PETSC_DIR/share/petsc/examples/src
[ -d "$src" ] || src=$PETSC_DIR/src
[ -d "$src/snes/tutorials" ] || { echo "$0: no tutorials under $PETSC_DIR/share/petsc/examples/src or $PETSC_DIR/src" >&2; exit 1; }

mkdir -p "$out/build"
out=$(cd "$out" && pwd)

build() { # build <path under src, without .c> -> prints the executable
  local exe
  exe=$out/build/$(basename "$(dirname "$(dirname "$1")")")_$(basename "$1")
  if [ ! -x "$exe" ] || [ "$src/$1.c" -nt "$exe" ]; then
    # shellcheck disable=SC2086 # cflags is a list of flags
    "$cc" $cflags -I"$petsc/include" -I"$PETSC_DIR/include" "$src/$1.c" -o "$exe" \
      -L"$petsc/lib" -lpetsc -lm -Wl,-rpath,"$petsc/lib" >&2
  fi
  echo "$exe"
}

# check <file> <rows> <nonzeros>: the PETSc binary header (big-endian int32: class id, rows,
# columns, nonzeros) against the expected sizes
check() {
  local h
  read -r -a h <<< "$(od -An -tu1 -N16 "$1")"
  local rows=$(( (h[4] << 24) | (h[5] << 16) | (h[6] << 8) | h[7] ))
  local cols=$(( (h[8] << 24) | (h[9] << 16) | (h[10] << 8) | h[11] ))
  local nnz=$(( (h[12] << 24) | (h[13] << 16) | (h[14] << 8) | h[15] ))
  if [ "$rows" != "$2" ] || [ "$cols" != "$2" ] || [ "$nnz" != "$3" ]; then
    echo "$0: $1 is $rows x $cols with $nnz nonzeros, expected $2 x $2 with $3" >&2
    exit 1
  fi
  awk -v f="$(basename "$1")" -v m="$rows" -v z="$nnz" 'BEGIN { printf "%-20s %10d rows %12d nonzeros %6.1f per row  CSR %.3f GB\n", f, m, z, z / m, (12 * z + 4 * m) / 1e9 }'
}

solve=(-ksp_type preonly -pc_type none)

# have <file> <rows> <nonzeros>: the file is there from an earlier run with the expected header
# (kept: writing the large ones takes minutes of CPU); REWRITE=1 writes every file afresh
have() { [ -z "${REWRITE:-}" ] && [ -s "$1" ] && (check "$@" > /dev/null 2>&1) && check "$@" && echo "  (kept from an earlier run)"; }

# SNES ex19: one Newton step, whose Jacobian (coloring) is the operator
if ! have "$out/ex19_cavity.bin" $(( 4 * grid * grid )) $(( 80 * grid * grid - 64 * grid )); then
  ex=$(build snes/tutorials/ex19)
  "$mpiexec" -n "$np" "$ex" -da_grid_x "$grid" -da_grid_y "$grid" -snes_max_it 1 "${solve[@]}" \
    -ksp_view_mat binary:"$out/ex19_cavity.bin" > "$out/build/ex19.log"
  check "$out/ex19_cavity.bin" $(( 4 * grid * grid )) $(( 80 * grid * grid - 64 * grid ))
fi

# KSP ex56: process count must be a cube
cube=1
while [ $(( (cube + 1) ** 3 )) -le "$np" ]; do cube=$(( cube + 1 )); done
[ $(( (ne + 1) % cube )) -eq 0 ] || { echo "$0: ex56 on $(( cube ** 3 )) ranks needs ne+1 divisible by $cube (ne = $ne)" >&2; exit 1; }
if ! have "$out/ex56_elasticity.bin" $(( 3 * (ne + 1) ** 3 )) $(( 9 * (3 * ne + 1) ** 3 )); then
  ex=$(build ksp/ksp/tutorials/ex56)
  "$mpiexec" -n $(( cube ** 3 )) "$ex" -ne "$ne" -log_stages 0 "${solve[@]}" \
    -ksp_view_mat binary:"$out/ex56_elasticity.bin" > "$out/build/ex56.log"
  check "$out/ex56_elasticity.bin" $(( 3 * (ne + 1) ** 3 )) $(( 9 * (3 * ne + 1) ** 3 ))
fi

# SNES ex13: a linear problem, one KSPSolve (ksponly)
if ! have "$out/ex13_poisson_q2.bin" $(( (2 * cells - 1) ** 3 )) $(( (8 * cells - 9) ** 3 )); then
  ex=$(build snes/tutorials/ex13)
  "$mpiexec" -n "$np" "$ex" -dm_plex_dim 3 -dm_plex_simplex 0 -dm_plex_box_faces "$cells,$cells,$cells" \
    -potential_petscspace_degree 2 -snes_type ksponly "${solve[@]}" \
    -ksp_view_mat binary:"$out/ex13_poisson_q2.bin" > "$out/build/ex13.log"
  check "$out/ex13_poisson_q2.bin" $(( (2 * cells - 1) ** 3 )) $(( (8 * cells - 9) ** 3 ))
fi
