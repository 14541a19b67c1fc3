#!/usr/bin/env bash
# Runs the benchmark suite (bench/suite.txt, or $SUITE_FILE) on the GPU machine, one process per matrix (or NP
# ranks), appending to $OUT/results.csv; then the figures and the markdown table (bench/plot.py)
# into $OUT.
#   bash conf/suite.sh                 every matrix (more than one 10-minute device call: split it)
#   bash conf/suite.sh part1|part2     the first or second half of the suite
#   bash conf/suite.sh NAME...         the named matrices
# Environment:
#   NP=1       ranks per matrix: mpiexec -n NP --bind-to none (the ranks share the GPU; binding each
#              to one core only slows their host side). A list ("1 2") runs each matrix at every
#              rank count back to back, so both are measured in one run on one GPU. Rows carry their
#              rank count, so runs with NP=1 and NP=2 into the same $OUT give plot.py's table of 1
#              against 2 ranks.
#   LAYOUT     the benchmark's -layout (rows or nnz; default: the benchmark's, rows)
#   TYPES      the benchmark's -types (default: the benchmark's default list)
#   REPS=100   timed products per GPU type;  KSP_ITS=50  KSP iterations (0: no KSP)
#   REPS_BUILD=3  builds per type, the median taken (the benchmark's -reps_build; 1: a single build,
#              the shorter run: each extra build converts the matrix again)
#   SUITE_FILE the list of matrices (default bench/suite.txt; bench/validation.txt: gpuauto's second
#              set, kinds, sizes and seeds not in the suite)
#   ARGS       more benchmark arguments, e.g. "-view_types" (each type's MatView: bccoo's build phases)
# The PETSc tutorial matrices (ex*.bin) are written first by bench/tutorial_matrices.sh (large),
# before any timing, into $MATRICES (default /tmp/gpumat-matrices). Prepare as for conf/device.sh.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$top/suite-out}
MATRICES=${MATRICES:-/tmp/gpumat-matrices}
NP=${NP:-1}
REPS=${REPS:-100}
REPS_BUILD=${REPS_BUILD:-3}
KSP_ITS=${KSP_ITS:-50}
TYPES=${TYPES:-}
LAYOUT=${LAYOUT:-}
ARGS=${ARGS:-}
SUITE_FILE=${SUITE_FILE:-$top/bench/suite.txt}

# the arguments and settings first: nothing long starts before they are known to be good
die() { echo "conf/suite.sh: $*" >&2; exit 2; }
for np in $NP; do [[ "$np" =~ ^[1-9][0-9]*$ ]] || die "NP must be positive integers, not '$NP'"; done
[ -n "${NP// /}" ] || die "NP must be positive integers, not '$NP'"
[[ "$REPS" =~ ^[1-9][0-9]*$ ]] || die "REPS must be a positive integer, not '$REPS'"
[[ "$REPS_BUILD" =~ ^([1-9]|1[0-6])$ ]] || die "REPS_BUILD must be 1..16, not '$REPS_BUILD'"
[[ "$KSP_ITS" =~ ^[0-9]+$ ]] || die "KSP_ITS must be a non-negative integer, not '$KSP_ITS'"
[[ -z "$LAYOUT" || "$LAYOUT" = rows || "$LAYOUT" = nnz ]] || die "LAYOUT must be rows or nnz, not '$LAYOUT'"
[[ "$TYPES" =~ ^[A-Za-z0-9_:=.,]*$ ]] || die "TYPES must be a comma-separated list of types, not '$TYPES'"
[ -f "$SUITE_FILE" ] || die "SUITE_FILE '$SUITE_FILE' is not a file"
mapfile -t lines < <(grep -vE '^\s*(#|$)' "$SUITE_FILE")
names=()
for l in "${lines[@]}"; do names+=("${l%% *}"); done
sel=()
case "${1:-all}" in
  all) sel=("${lines[@]}") ;;
  part1) sel=("${lines[@]:0:$(( (${#lines[@]} + 1) / 2 ))}") ;;
  part2) sel=("${lines[@]:$(( (${#lines[@]} + 1) / 2 ))}") ;;
  *)
    unknown=()
    for want in "$@"; do
      found=
      for l in "${lines[@]}"; do [ "${l%% *}" = "$want" ] && sel+=("$l") && found=1; done
      [ -n "$found" ] || unknown+=("$want")
    done
    [ ${#unknown[@]} = 0 ] || die "unknown suite name(s): ${unknown[*]} (use all, part1, part2 or names of $SUITE_FILE: ${names[*]})" ;;
esac

source "$top/conf/gpu-env.sh" # exits in seconds without a GPU, a CUDA PETSc or build-cuda
mkdir -p "$OUT" "$MATRICES"
exec > >(tee -a "$OUT/suite.log") 2>&1

# a results.csv of an older benchmark (without the multi-rank columns) is moved aside: the
# benchmark refuses to append rows of other columns to it
if [ -s "$OUT/results.csv" ] && ! head -1 "$OUT/results.csv" | grep -q ',ranks,layout,'; then
  echo "== $OUT/results.csv has the older columns: moved to results-old.csv"
  mv "$OUT/results.csv" "$OUT/results-old.csv"
fi

# The tutorial operators are written before anything is timed: a generator running beside the
# benchmark takes the host cores its launches need (measured: web_1M's 35 us products took twice as long).
if printf '%s\n' "${sel[@]}" | grep -q '\.bin'; then
  echo "== $(date -u +%T) writing the tutorial matrices into $MATRICES"
  NP=1 PETSC_DIR=$PETSC_DIR bash "$top/bench/tutorial_matrices.sh" "$MATRICES" large > "$OUT/tutorials.log" 2>&1
  echo "tutorial matrices: exit $?"
fi
args=(-reps "$REPS" -reps_build "$REPS_BUILD" -ksp_its "$KSP_ITS")
[ -n "$TYPES" ] && args+=(-types "$TYPES")
[ -n "$LAYOUT" ] && args+=(-layout "$LAYOUT")
[ -n "$ARGS" ] && read -r -a extra <<< "$ARGS" && args+=("${extra[@]}")
echo "== $(date -u +%T) suite: ${#sel[@]} matrices, NP=$NP, ${args[*]}"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem --format=csv,noheader || true
for l in "${sel[@]}"; do
  read -r name spec cls _ <<< "$l"
  [[ "$spec" != gen:* ]] && spec=$MATRICES/$spec
  for np in $NP; do
    run=()
    [ "$np" -gt 1 ] && run=(mpiexec -n "$np" --bind-to none)
    echo "== $(date -u +%T) $name, $np rank(s)"
    timeout 300 "${run[@]}" "$BUILD/examples/bench_matmult" -matrix "$spec" -name "$name" -class "$cls" "${args[@]}" -csv "$OUT/results.csv" || echo "!! $name on $np rank(s) failed or timed out"
  done
done
python3 "$top/bench/plot.py" "$OUT/results.csv" --out "$OUT" --markdown "$OUT/table.md" --suite "$SUITE_FILE" || echo "!! plot.py failed"
echo "== $(date -u +%T) done"
