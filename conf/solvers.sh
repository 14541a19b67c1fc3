#!/usr/bin/env bash
# The solver comparison: whole solves with our types against the peers.
#   CG on the 3D 7-point Laplacian (examples/solve -kind lap3d, n^3 rows) with each preconditioner of
#   $PCS, and GMRES + Jacobi on the 3D Bratu problem re-assembled every Newton step (examples/bratu),
#   for each vector kind of $VECS; the peer of a row is aijcusparse with CUDA vectors, aijkokkos with
#   Kokkos vectors (then -mat_vec_type kokkos: the KSP's work vectors are Kokkos vectors too), aij
#   with host vectors. Out: $OUT/solvers.md (one table) and each run's output.
#   bash conf/solvers.sh              GPU machine: GPUMAT_CONFIG=cuda (carried .carry/petsc-cuda.tar.xz,
#                                     build-cuda) or cudakk (.carry/kk/petsc-cudakk.tar.xz and
#                                     .carry/kk/build-cudakk.tar.xz: Kokkos vectors, aijkokkos, CUDA hypre)
#   GPUMAT_CONFIG=cpu BUILD=build-cpu bash conf/solvers.sh   the same on host vectors (ctest conf.solvers_check)
# Environment: OUT (solvers-out), N (100), BRATU_N (64), PCS ("jacobi gamg hypre"), VECS (cuda, plus
# kokkos with cudakk; standard with cpu), TYPES (every format of src/formats.def but the cuSPARSE
# ones: csrspec,bccoo,bce,pjds,gpuauto; gpumat_types in conf/env.sh), NP (1), MPIEXEC.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
source "$top/conf/env.sh"
cfg=${GPUMAT_CONFIG:-cuda}
case "$cfg" in
  cpu | cuda | cudakk) ;;
  *) echo "conf/solvers.sh: GPUMAT_CONFIG must be cpu, cuda or cudakk, not '$cfg'" >&2; exit 2 ;;
esac
N=${N:-100} BRATU_N=${BRATU_N:-64} NP=${NP:-1}
PCS=${PCS:-jacobi gamg hypre}
TYPES=${TYPES:-$(gpumat_types formats '-cusparse*')} || exit 2
for v in "$N" "$BRATU_N" "$NP"; do [[ "$v" =~ ^[1-9][0-9]*$ ]] || { echo "conf/solvers.sh: N, BRATU_N and NP must be positive integers" >&2; exit 2; }; done
[[ "$TYPES" =~ ^[A-Za-z0-9_,]+$ ]] || { echo "conf/solvers.sh: TYPES must be a comma-separated list of types, not '$TYPES'" >&2; exit 2; }
case "$cfg" in
  cpu) VECS=${VECS:-standard} ;;
  cuda) VECS=${VECS:-cuda} ;;
  cudakk) VECS=${VECS:-cuda kokkos} ;;
esac
for v in $VECS; do [[ "$v" =~ ^(standard|cuda|kokkos)$ ]] || { echo "conf/solvers.sh: VECS must be standard, cuda and/or kokkos, not '$v'" >&2; exit 2; }; done
OUT=${OUT:-$top/solvers-out}
case "$cfg" in
  cuda | cudakk) source "$top/conf/gpu-env.sh" ;; # the carried PETSc and build of the configuration (exits without a GPU)
  cpu)
    BUILD=${BUILD:-$top/build-cpu}
    eval "$(bash "$top/conf/petsc.sh" cpu --env)" || exit 2 ;;
esac
[ -x "$BUILD/examples/solve" ] && [ -x "$BUILD/examples/bratu" ] || { echo "conf/solvers.sh: no examples/solve and bratu in $BUILD" >&2; exit 2; }
mkdir -p "$OUT"
run() { timeout 600 ${MPIEXEC:-mpiexec} -n "$NP" --bind-to none "$@"; }
status=0
rows=$OUT/rows.txt
: > "$rows"
for vec in $VECS; do
  case "$vec" in
    cuda) peer=aijcusparse extra=() ;;
    kokkos) peer=aijkokkos extra=(-mat_vec_type kokkos) ;;
    standard) peer=aij extra=() ;;
  esac
  for pc in $PCS; do
    f=$OUT/cg-$pc-$vec-np$NP.txt
    # the types may take different iteration counts (a GPU BoomerAMG is not the host's): the table is
    # read whatever solve's own agreement check says
    run "$BUILD/examples/solve" -kind lap3d -n "$N" -types "$peer,$TYPES" -vec_type "$vec" "${extra[@]}" -pc_type "$pc" -ksp_rtol 1e-8 > "$f" 2>&1 || true
    awk -v pc="$pc" -v vec="$vec" -v np="$NP" -v n="$N" '/^type +its/{t=1; next} t && NF >= 9 && $2 ~ /^[0-9]+$/ {print "CG lap3d " n "^3", pc, vec, np, $1, $2, $4, $5, $6, $7}' "$f" >> "$rows"
    grep -q "^type  *its" "$f" || { echo "!! CG $pc $vec: no table (see $f)"; status=1; }
  done
  for t in $peer ${TYPES//,/ }; do
    f=$OUT/bratu-$t-$vec-np$NP.txt
    run "$BUILD/examples/bratu" -dim 3 -da_grid_x "$BRATU_N" -da_grid_y "$BRATU_N" -da_grid_z "$BRATU_N" -dm_mat_type "$t" -dm_vec_type "$vec" -ksp_type gmres -pc_type jacobi -ksp_rtol 1e-6 > "$f" 2>&1 || { echo "!! bratu $t $vec failed (see $f)"; status=1; }
    sed -n 's/^bratu: Jacobian \([^,]*\), \([0-9]*\) Newton steps, \([0-9]*\) linear iterations, SNESSolve \([0-9.]*\) s$/\1 \3 \4/p' "$f" | while read -r mt lits s; do
      echo "GMRES bratu ${BRATU_N}^3 jacobi $vec $NP $mt $lits - - $s $s" >> "$rows"
    done
  done
done
python3 - "$rows" "$OUT/solvers.md" <<'PY' || status=1
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
# problem is 3 words; then pc, vectors, ranks, type, iterations, and the seconds of assembly,
# set-up, solve and their total ("-": not measured apart, the Newton solve's own clock)
recs = [(" ".join(r[0:3]), r[3], r[4], r[5], r[6], int(r[7]), r[8], r[9], float(r[10]), float(r[11])) for r in rows if len(r) == 12]
peer = {}
for p, pc, v, np, t, its, a, u, s, tot in recs:
    if (p, pc, v, np) not in peer: peer[(p, pc, v, np)] = (t, tot)  # the first row of a group is the peer
out = ["| problem | PC | vectors | ranks | type | iterations | assembly s | set-up s | solve s | total s | peer's total / this |", "|---|---|---|---|---|---:|---:|---:|---:|---:|---:|"]
for p, pc, v, np, t, its, a, u, s, tot in recs:
    pt, ps = peer[(p, pc, v, np)]
    out.append(f"| {p} | {pc} | {v} | {np} | {t} | {its} | {a} | {u} | {s:.4f} | {tot:.4f} | {ps / tot if tot > 0 else float('nan'):.2f} ({pt}) |")
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("\n".join(out))
if not recs: sys.exit("no rows")
PY
exit $status
