#!/usr/bin/env bash
# The time-to-solution benchmark: whole solves with our types against the peers, each type's
# assembly, preconditioner set-up and solve timed apart and summed (examples/solve's clocks: the
# matrix's creation, fill and assembly, KSPSetUp, KSPSolve; every build and conversion inside them).
#   CG on each problem of $PROBLEMS with each preconditioner of $PCS; GMRES + Jacobi on the
#   nonsymmetric problem $NS; Newton (GMRES + Jacobi) on the 3D Bratu problem re-assembled every
#   step (examples/bratu: SNESSetUp's and SNESSolve's clocks, split into assembly (the Jacobian's
#   creation in SNESSetUp and its evaluations), the preconditioner's set-ups and the rest); for each
#   vector kind of $VECS; and PETSc's own ksp tutorial ex56 (3D linear elasticity, 3 dof per node,
#   CG + GAMG), unmodified, one process per type (conf/tutorial.sh; its -log_view stages give the
#   phases: Main Stage = assembly and the rest of the program, Setup = KSPSetUp, Solve = KSPSolve;
#   cpu and cuda configurations, not Kokkos vectors), and its snes tutorial ex19 (2D driven cavity,
#   Newton with GMRES + Jacobi on a nonsymmetric Jacobian by coloring, re-assembled every step; the
#   phases from its -log_view events as bratu's). The peer of a row is
#   aijcusparse with CUDA vectors, aijkokkos with Kokkos vectors (then -mat_vec_type kokkos: the
#   KSP's work vectors are Kokkos vectors too), aij with host vectors. Out: $OUT/solvers.md (one
#   table), $OUT/solvers.png (stacked bars of the three phases per type and case, where python3 has
#   matplotlib) and each run's output.
#   bash conf/solvers.sh              GPU machine: GPUMAT_CONFIG=cuda (carried .carry/petsc-cuda.tar.xz,
#                                     build-cuda) or cudakk (.carry/kk/petsc-cudakk.tar.xz and
#                                     .carry/kk/build-cudakk.tar.xz: Kokkos vectors, aijkokkos, CUDA hypre)
#   GPUMAT_CONFIG=cpu BUILD=build-cpu bash conf/solvers.sh   the same on host vectors (ctest conf.solvers_check)
# Environment: OUT (solvers-out), N (100), PROBLEMS ("lap3d:$N fem3:$FEM_N lap2d:$N2D plex3d:$PLEX_N":
# kind:n of examples/solve, SPD; FEM_N 40, N2D 1000, PLEX_N 64), NS ("random:$NS_N", NS_N 1000000;
# "" for none),
# BRATU_N (64: Bratu's grid per side; "" for none), EX56_NE (60: ex56's elements per side, (EX56_NE+1)^3 x 3 unknowns; "" for none),
# EX19_N (256: snes ex19's grid per side, EX19_N^2 x 4 unknowns, Newton with GMRES + Jacobi; "" for none), PCS ("jacobi gamg hypre"),
# FP32_PCS ("gamg": for each problem of $PROBLEMS and each of these PCs, the case PC+fp32P: CG with
# the PC on its own matrix, -pc_use_amat false, that matrix a copy of A in fp32 for FP32_TYPES, A for
# the peer; "" for none; in PCS and FP32_PCS, cheby is PCKSP with 4 Chebyshev iterations on Jacobi), FP32_TYPES (those of TYPES that store fp32: pjds, gpuauto), VECS (cuda, plus kokkos with cudakk; standard with cpu),
# TYPES (every format of src/formats.def but the cuSPARSE ones: csrspec,bccoo,bce,pjds,gpuauto;
# gpumat_types in conf/env.sh), NP (1), MPIEXEC, RUN_LIMIT (600: seconds one run may take),
# OPENBLAS_NUM_THREADS and OMP_NUM_THREADS (1 unless set), REPEAT (1: runs of every case; the even-numbered ones take the types in reverse order, the peer last;
# the table reports each phase's median over the runs and the range of the totals), LOGVIEW (0; 1:
# each Newton run writes PETSc's -log_view with -log_view_gpu_time beside its output,
# bratu-<type>-...-log.txt: every event's time, the GPU's work synchronized per event), SOLVE_OPTS
# (""; more options of every examples/solve run, e.g. "-warmup 0"), SPLIT (0; 1: each type of a CG or
# GMRES case in an examples/solve process of its own, FILE-<type>.txt, solve's agreement check across
# the types then left out; always so, and without the warm-up, for CG + GAMG at NP > 1 on device
# vectors).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
source "$top/conf/env.sh"
cfg=${GPUMAT_CONFIG:-cuda}
case "$cfg" in
  cpu | cuda | cudakk) ;;
  *) echo "conf/solvers.sh: GPUMAT_CONFIG must be cpu, cuda or cudakk, not '$cfg'" >&2; exit 2 ;;
esac
N=${N:-100} BRATU_N=${BRATU_N-64} NP=${NP:-1} REPEAT=${REPEAT:-1} FEM_N=${FEM_N:-40} N2D=${N2D:-1000} NS_N=${NS_N:-1000000} PLEX_N=${PLEX_N:-64}
PROBLEMS=${PROBLEMS-lap3d:$N fem3:$FEM_N lap2d:$N2D plex3d:$PLEX_N}
NS=${NS-random:$NS_N}
PCS=${PCS:-jacobi gamg hypre}
TYPES=${TYPES:-$(gpumat_types formats '-cusparse*')} || exit 2
FP32_PCS=${FP32_PCS-gamg}
FP32_TYPES=${FP32_TYPES-$(echo "${TYPES//,/ }" | tr ' ' '\n' | grep -xE 'pjds|gpuauto' | paste -sd, -)}
for v in "$N" "$NP" "$FEM_N" "$N2D" "$NS_N" "$PLEX_N" "$REPEAT"; do [[ "$v" =~ ^[1-9][0-9]*$ ]] || { echo "conf/solvers.sh: N, NP, FEM_N, N2D, NS_N, PLEX_N and REPEAT must be positive integers" >&2; exit 2; }; done
for p in $PROBLEMS $NS; do [[ "$p" =~ ^[a-z0-9]+:[1-9][0-9]*$ ]] || { echo "conf/solvers.sh: PROBLEMS and NS are kind:n words (examples/gen.h kinds), not '$p'" >&2; exit 2; }; done
EX56_NE=${EX56_NE-60} EX19_N=${EX19_N-256}
for v in BRATU_N EX56_NE EX19_N; do # the optional cases' sizes ("": the case left out)
  [ -z "${!v}" ] || [[ "${!v}" =~ ^[1-9][0-9]*$ ]] || { echo "conf/solvers.sh: $v must be a positive integer or empty, not '${!v}'" >&2; exit 2; }
done
[[ "${SPLIT:-0}" =~ ^[01]$ ]] || { echo "conf/solvers.sh: SPLIT must be 0 or 1, not '$SPLIT'" >&2; exit 2; }
[[ "$TYPES" =~ ^[A-Za-z0-9_,]+$ ]] || { echo "conf/solvers.sh: TYPES must be a comma-separated list of types, not '$TYPES'" >&2; exit 2; }
[ -z "$FP32_TYPES" ] || [[ "$FP32_TYPES" =~ ^[A-Za-z0-9_,]+$ ]] || { echo "conf/solvers.sh: FP32_TYPES must be a comma-separated list of types or empty, not '$FP32_TYPES'" >&2; exit 2; }
for p in $FP32_PCS; do [[ "$p" =~ ^[a-z]+$ ]] || { echo "conf/solvers.sh: FP32_PCS are PC types, not '$p'" >&2; exit 2; }; done
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
# One BLAS/OpenMP thread per process unless the caller sets them (PETSc's advice for MPI runs): with
# the default, every rank's OpenBLAS starts a thread per core. Set alike for every type; in the
# GAMG runs of docs/results/h200-2026-11-29b-factor-setup the totals' ranges narrowed with it (two
# calls, not a controlled comparison).
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1} OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
run() { timeout "${RUN_LIMIT:-600}" ${MPIEXEC:-mpiexec} -n "$NP" --bind-to none "$@"; }
status=0
rows=$OUT/rows.txt
: > "$rows"
# One run of a case of examples/solve, every type of $order (run $r): its table's rows appended to
# $rows as
#   METHOD KIND SIZE PC vectors ranks type its assembly set-up solve total run
# The types may take different iteration counts (a GPU BoomerAMG is not the host's): the table is
# read whatever solve's own agreement check says.
# GAMG at 2 or more ranks on device vectors: each type in a process of its own, without the warm-up
# (PETSc 3.26.1 alone stops in such a set-up after an earlier small GAMG solve in the process on
# matrices preallocated from CSR arrays, as examples/solve's are: docs/solvers.md).
take_rows() { # METHOD KIND SIZE PC-LABEL FILE: the table of examples/solve's output FILE into $rows
  awk -v m="$1" -v k="$2" -v sz="$3" -v pc="$4" -v vec="$vec" -v np="$NP" -v r="$r" '/^type +its/{t=1; next} t && NF >= 9 && $2 ~ /^[0-9]+$/ {print m, k, sz, pc, vec, np, $1, $2, $4, $5, $6, $7, r}' "$5" >> "$rows"
  grep -q "^type  *its" "$5" || { echo "!! $1 $2 $4 $vec: no table (see $5)"; status=1; }
}
# Whether PC $1 is GAMG at 2 or more ranks on device vectors (above: a process per type, no warm-up)
gamg_apart() { [ "$1" = gamg ] && [ "$NP" -gt 1 ] && [ "$vec" != standard ]; }
# A PC of PCS or FP32_PCS as examples/solve's options: a PETSc PC type, or cheby: PCKSP running 4
# Chebyshev iterations on Jacobi without norms (a fixed polynomial, which CG takes), its eigenvalue
# bounds estimated on the PC's own matrix when it is set up
pc_options() {
  case "$1" in
    cheby) echo "-pc_type ksp -ksp_ksp_type chebyshev -ksp_ksp_max_it 4 -ksp_ksp_norm_type none -ksp_ksp_chebyshev_esteig 0,0.1,0,1.1 -ksp_pc_type jacobi" ;;
    *) echo "-pc_type $1" ;;
  esac
}
# examples/solve with the types TYPES and PC on KIND N, its output into FILE, without the warm-up
# where gamg_apart:  solve_run FILE KIND N TYPES PC [more options of examples/solve]
solve_run() {
  local f=$1 kind=$2 n=$3 t=$4 pc=$5 nowarm=()
  shift 5
  gamg_apart "$pc" && nowarm=(-warmup 0)
  run "$BUILD/examples/solve" -kind "$kind" -n "$n" -types "$t" -vec_type "$vec" "${extra[@]}" $(pc_options "$pc") -ksp_rtol 1e-8 "${nowarm[@]}" "$@" ${SOLVE_OPTS:-} > "$f" 2>&1 || true
}
solve_case() { # METHOD KIND N SIZE PC FILE [more options of examples/solve]
  local method=$1 kind=$2 n=$3 size=$4 pc=$5 base=$6 f=$6 types split=${SPLIT:-0}
  shift 6
  gamg_apart "$pc" && split=1
  if [ "$split" = 1 ]; then types=${order//,/ }; else types=$order; fi
  for t in $types; do
    [ "$split" = 1 ] && f=${base%.txt}-$t.txt
    solve_run "$f" "$kind" "$n" "$t" "$pc" "$@"
    take_rows "$method" "$kind" "$size" "$pc" "$f"
  done
}
# CG with the PC on the preconditioner's matrix (-pc_use_amat false), case PC+fp32P: the peer with
# A as that matrix, each type of $FP32_TYPES with a copy of A in fp32 (examples/solve -pmat,
# -pre_mat_gpumat_values fp32); a process per type (the options differ), warm-up as solve_case's
fp32_case() { # KIND N SIZE PC
  local kind=$1 n=$2 size=$3 pc=$4 t f opts
  for t in ${order//,/ }; do
    case ",$FP32_TYPES,$peer," in *",$t,"*) ;; *) continue ;; esac
    opts=(-pc_use_amat false)
    [ "$t" = "$peer" ] || opts+=(-pmat -pre_mat_gpumat_values fp32)
    f=$OUT/cg-$kind-$pc-fp32P-$vec-np$NP$sfx-$t.txt
    solve_run "$f" "$kind" "$n" "$t" "$pc" "${opts[@]}"
    take_rows CG "$kind" "$size" "$pc+fp32P" "$f"
  done
}
# One of PETSc's tutorials (conf/tutorial.sh) with the plugin of $BUILD at $NP ranks, its output
# into FILE, under RUN_LIMIT; built under $BUILD/tutorials (PETSc's source and the executable stay out
# of $OUT, whose files are the results):  tutorial FILE NAME [ARGS...]
tutorial() {
  local f=$1
  shift
  timeout "${RUN_LIMIT:-600}" env GPUMAT_CONFIG="$cfg" GPUMAT_LIB="$BUILD/libpetscgpumat.so" TUTORIAL_BUILD="$BUILD/tutorials" NP="$NP" MPIEXEC_FLAGS="--bind-to none" \
    bash "$top/conf/tutorial.sh" "$@" > "$f" 2>&1
}
# The type name a tutorial's matrix of -mat_type T has at $NP ranks (seqaij<T> or mpiaij<T>, the
# leading aij of T's name dropped): the table's type column
level_type() { if [ "$NP" -gt 1 ]; then echo "mpiaij${1#aij}"; else echo "seqaij${1#aij}"; fi; }
# PETSc's ksp tutorial ex56 with every type of $order, one process each (run $r): rows as solve_case's
ex56_case() {
  local t f log its a u s
  for t in ${order//,/ }; do
    f=$OUT/ex56-$EX56_NE-$t-$vec-np$NP$sfx.txt log=$OUT/ex56-$EX56_NE-$t-$vec-np$NP$sfx-log.txt
    tutorial "$f" ksp/ksp/tutorials/ex56 -ne "$EX56_NE" -ksp_type cg -pc_type gamg -ksp_rtol 1e-8 -ksp_converged_reason -mat_type "$t" -log_view ":$log" ||
      { echo "!! ex56 $t $vec failed (see $f)"; status=1; continue; }
    its=$(sed -n 's/.* iterations \([0-9][0-9]*\).*/\1/p' "$f" | head -1)
    read -r a u s <<< "$(awk '/^ *[0-9]+: +Main Stage:/ {m = $4} /^ *[0-9]+: +Setup:/ {u = $3} /^ *[0-9]+: +Solve:/ {s = $3} END {print m, u, s}' "$log" 2>/dev/null)"
    [ -n "$its" ] && [ -n "$s" ] || { echo "!! ex56 $t $vec: no iterations or stage times (see $f)"; status=1; continue; }
    echo "CG ex56 ${EX56_NE}^3 gamg $vec $NP $(level_type "$t") $its $a $u $s $(awk -v a="$a" -v u="$u" -v s="$s" 'BEGIN {printf "%.4f", a + u + s}') $r" >> "$rows"
  done
}
# PETSc's snes tutorial ex19 (2D driven cavity: velocity, vorticity, temperature; a nonsymmetric
# Jacobian by finite-difference coloring, re-assembled every Newton step), Newton with GMRES +
# Jacobi, with every type of $order, one process each (run $r): its -log_view events give the
# phases as bratu's (assembly: SNESSetUp and SNESJacobianEval; set-up: PCSetUp; solve: the rest of
# SNESSolve; with device vectors under -log_view_gpu_time, without which PETSc reports no time for
# an event that ran on the GPU), the iterations are the linear ones summed
ex19_case() {
  local t f log lits tm gputime=()
  # device vectors: PETSc times an event that ran on the GPU only with its GPU timers ("n/a" otherwise)
  [ "$vec" != standard ] && gputime=(-log_view_gpu_time)
  for t in ${order//,/ }; do
    f=$OUT/ex19-$EX19_N-$t-$vec-np$NP$sfx.txt log=$OUT/ex19-$EX19_N-$t-$vec-np$NP$sfx-log.txt
    tutorial "$f" snes/tutorials/ex19 -da_grid_x "$EX19_N" -da_grid_y "$EX19_N" -dm_mat_type "$t" -dm_vec_type "$vec" -ksp_type gmres -pc_type jacobi -snes_converged_reason -ksp_converged_reason -log_view ":$log" "${gputime[@]}" ||
      { echo "!! ex19 $t $vec failed (see $f)"; status=1; continue; }
    lits=$(awk '/Linear solve converged due to/ {n += $NF} END {print n + 0}' "$f")
    tm=$(awk '$1 ~ /^(SNESSetUp|SNESSolve|SNESJacobianEval|PCSetUp)$/ && $4 ~ /^[0-9]/ {t[$1] = $4} END {if (("SNESSetUp" in t) && ("SNESSolve" in t) && ("SNESJacobianEval" in t) && ("PCSetUp" in t)) printf "%.4f %.4f %.4f %.4f", t["SNESSetUp"] + t["SNESJacobianEval"], t["PCSetUp"], t["SNESSolve"] - t["SNESJacobianEval"] - t["PCSetUp"], t["SNESSetUp"] + t["SNESSolve"]}' "$log" 2>/dev/null)
    grep -q "Nonlinear solve converged" "$f" && [ -n "$tm" ] || { echo "!! ex19 $t $vec: no convergence or no event times (see $f)"; status=1; continue; }
    echo "Newton ex19 ${EX19_N}^2 jacobi $vec $NP $(level_type "$t") $lits $tm $r" >> "$rows"
  done
}
reversed=$(echo "${TYPES//,/ }" | tr ' ' '\n' | tac | paste -sd, -)
for vec in $VECS; do
  case "$vec" in
    cuda) peer=aijcusparse extra=() ;;
    kokkos) peer=aijkokkos extra=(-mat_vec_type kokkos) ;;
    standard) peer=aij extra=() ;;
  esac
  for r in $(seq 1 "$REPEAT"); do
  if [ $((r % 2)) -eq 1 ]; then order=$peer,$TYPES sfx=; else order=$reversed,$peer; fi
  [ "$REPEAT" -gt 1 ] && sfx=-r$r
  for prob in $PROBLEMS; do
    kind=${prob%%:*} n=${prob#*:}
    case "$kind" in lap2d) size="$n^2" ;; lap3d | lap3d27 | lap3dv | fem3 | fem6 | fem3c | plex3d) size="$n^3" ;; *) size="$n" ;; esac
    for pc in $PCS; do
      # hypre's BoomerAMG on the GPU is not reproducible from run to run (aijcusparse against itself:
      # solutions 8.9e-10 apart at 20^3, docs/results/h200-2026-11-26d-solvers Corrections; the types
      # 6e-8 to 1e-7 apart at 100^3): solve's agreement check allows 1e-6 there
      agree=()
      [ "$pc" = hypre ] && [ "$vec" != standard ] && agree=(-tol 1e-6)
      solve_case CG "$kind" "$n" "$size" "$pc" "$OUT/cg-$kind-$pc-$vec-np$NP$sfx.txt" "${agree[@]}"
    done
    [ -n "$FP32_TYPES" ] && for pc in $FP32_PCS; do fp32_case "$kind" "$n" "$size" "$pc"; done
  done
  for prob in $NS; do # nonsymmetric: GMRES + Jacobi
    kind=${prob%%:*} n=${prob#*:}
    solve_case GMRES "$kind" "$n" "$n" jacobi "$OUT/gmres-$kind-jacobi-$vec-np$NP$sfx.txt" -ksp_type gmres
  done
  [ -n "$EX56_NE" ] && [ "$cfg" != cudakk ] && [ "$vec" != kokkos ] && ex56_case
  [ -n "$EX19_N" ] && [ "$cfg" != cudakk ] && [ "$vec" != kokkos ] && ex19_case
  [ -n "$BRATU_N" ] && for t in ${order//,/ }; do
    f=$OUT/bratu-$t-$vec-np$NP$sfx.txt
    logview=()
    [ "${LOGVIEW:-0}" = 1 ] && logview=(-log_view ":${f%.txt}-log.txt" -log_view_gpu_time)
    run "$BUILD/examples/bratu" -dim 3 -da_grid_x "$BRATU_N" -da_grid_y "$BRATU_N" -da_grid_z "$BRATU_N" -dm_mat_type "$t" -dm_vec_type "$vec" -ksp_type gmres -pc_type jacobi -ksp_rtol 1e-6 "${logview[@]}" > "$f" 2>&1 || { echo "!! bratu $t $vec failed (see $f)"; status=1; }
    # SNESSolve's time in its phases: the Jacobian evaluations, PCSetUp, the rest (bratu's own split);
    # SNESSetUp's (the Jacobian's creation and preallocation) added to the assembly and the total
    line=$(sed -n 's/^bratu: Jacobian \([^,]*\), \([0-9]*\) Newton steps, \([0-9]*\) linear iterations, SNESSolve \([0-9.]*\) s$/\1 \3 \4/p' "$f")
    phases=$(sed -n 's/^bratu: phases: assembly \([0-9.]*\) s, set-up \([0-9.]*\) s, solve \([-0-9.]*\) s$/\1 \2 \3/p' "$f")
    setup=$(sed -n 's/^bratu: SNESSetUp \([0-9.]*\) s$/\1/p' "$f") # the Jacobian's creation: assembly
    if [ -n "$line" ] && [ -n "$phases" ] && [ -n "$setup" ]; then
      read -r mt lits total <<< "$line"
      read -r a u s <<< "$phases"
      a=$(awk -v a="$a" -v c="$setup" 'BEGIN {printf "%.4f", a + c}') total=$(awk -v t="$total" -v c="$setup" 'BEGIN {printf "%.4f", t + c}')
      echo "Newton bratu ${BRATU_N}^3 jacobi $vec $NP $mt $lits $a $u $s $total $r" >> "$rows"
    fi
  done
  done
done
python3 - "$rows" "$OUT/solvers.md" "$OUT/solvers.png" <<'PY' || status=1
import sys, statistics
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
# problem is 3 words; then pc, vectors, ranks, type, iterations, the seconds of assembly, set-up,
# solve and their total (the Newton rows: SNESSolve split by bratu itself), the run
runs = [(" ".join(r[0:3]), r[3], r[4], r[5], r[6], int(r[7]), r[8], r[9], float(r[10]), float(r[11])) for r in rows if len(r) == 13]
peers = {"cuda": "aijcusparse", "kokkos": "aijkokkos", "standard": "aij"}
def med(xs):
    v = [float(x) for x in xs if x != "-"]
    return statistics.median(v) if v else None
# a row per case and type: the medians over its runs (in the order the types came in the first run)
groups = {}
for p, pc, v, np, t, its, a, u, s, tot in runs:
    groups.setdefault((p, pc, v, np, t), []).append((its, a, u, s, tot))
recs = []
for (p, pc, v, np, t), g in groups.items():
    a, u = med([x[1] for x in g]), med([x[2] for x in g])
    recs.append((p, pc, v, np, t, g[0][0], "-" if a is None else f"{a:.4f}", "-" if u is None else f"{u:.4f}", med([x[3] for x in g]), med([x[4] for x in g]), len(g), min(x[4] for x in g), max(x[4] for x in g)))
peer = {}
for p, pc, v, np, t, its, a, u, s, tot, *_ in recs:
    if t in ("seq" + peers.get(v, ""), "mpi" + peers.get(v, "")): peer[(p, pc, v, np)] = (t, tot)
out = ["| problem | PC | vectors | ranks | type | iterations | assembly s | set-up s | solve s | total s | runs, totals' range s | peer's total / this |", "|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
for p, pc, v, np, t, its, a, u, s, tot, n, lo, hi in recs:
    pt, ps = peer.get((p, pc, v, np), ("no peer", float("nan")))
    out.append(f"| {p} | {pc} | {v} | {np} | {t} | {its} | {a} | {u} | {s:.4f} | {tot:.4f} | {n}, {lo:.4f}-{hi:.4f} | {ps / tot if tot > 0 else float('nan'):.2f} ({pt}) |")
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("\n".join(out))
if not recs: sys.exit("no rows")
# the figure: per case (problem, PC, vectors, ranks) one panel, one bar per type, stacked assembly /
# set-up / solve
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("(no matplotlib: no figure)")
    sys.exit(0)
cases = list(dict.fromkeys((p, pc, v, np) for p, pc, v, np, *_ in recs))
cols = min(3, len(cases))
rowsn = (len(cases) + cols - 1) // cols
fig, axes = plt.subplots(rowsn, cols, figsize=(5.2 * cols, 3.4 * rowsn), squeeze=False)
colors = {"assembly": "#4c72b0", "set-up": "#dd8452", "solve": "#55a868"}
for ax, case in zip(axes.flat, cases):
    sel = [r for r in recs if (r[0], r[1], r[2], r[3]) == case]
    names = [r[4] for r in sel]
    x = range(len(sel))
    a = [float(r[6]) if r[6] != "-" else 0.0 for r in sel]
    u = [float(r[7]) if r[7] != "-" else 0.0 for r in sel]
    s = [r[8] for r in sel]
    ax.bar(x, a, color=colors["assembly"], label="assembly")
    ax.bar(x, u, bottom=a, color=colors["set-up"], label="set-up")
    ax.bar(x, s, bottom=[i + j for i, j in zip(a, u)], color=colors["solve"], label="solve")
    ax.set_xticks(list(x))
    ax.set_xticklabels(names, rotation=30, ha="right", fontsize=7)
    ax.set_ylabel("s")
    ax.set_title(f"{case[0]}, {case[1]}, {case[2]}, {case[3]} rank(s)", fontsize=8)
for ax in list(axes.flat)[len(cases):]:
    ax.axis("off")
axes.flat[0].legend(fontsize=7)
fig.tight_layout()
fig.savefig(sys.argv[3], dpi=110)
print(f"figure: {sys.argv[3]}")
PY
exit $status
