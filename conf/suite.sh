#!/usr/bin/env bash
# Runs the benchmark suite (bench/suite.txt) on the GPU machine, one process per matrix, appending
# to $OUT/results.csv; then the figures and the markdown table (bench/plot.py) into $OUT.
#   bash conf/suite.sh                 every matrix (more than one 10-minute device call: split it)
#   bash conf/suite.sh part1|part2     the first or second half of the suite
#   bash conf/suite.sh NAME...         the named matrices
# The PETSc tutorial matrices (ex*.bin) are written first by bench/tutorial_matrices.sh (large),
# in the background, into $MATRICES (default /tmp/gpumat-matrices). Prepare as for conf/device.sh.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$top/suite-out}
MATRICES=${MATRICES:-/tmp/gpumat-matrices}
mkdir -p "$OUT" "$MATRICES"
exec > >(tee -a "$OUT/suite.log") 2>&1

source "$top/conf/gpu-env.sh"
mapfile -t lines < <(grep -vE '^\s*(#|$)' "$top/bench/suite.txt")
sel=()
case "${1:-all}" in
  all) sel=("${lines[@]}") ;;
  part1) sel=("${lines[@]:0:$(( (${#lines[@]} + 1) / 2 ))}") ;;
  part2) sel=("${lines[@]:$(( (${#lines[@]} + 1) / 2 ))}") ;;
  *) for want in "$@"; do for l in "${lines[@]}"; do [ "${l%% *}" = "$want" ] && sel+=("$l"); done; done ;;
esac
if printf '%s\n' "${sel[@]}" | grep -q '\.bin'; then
  ( PETSC_DIR=$PETSC_DIR bash "$top/bench/tutorial_matrices.sh" "$MATRICES" large > "$OUT/tutorials.log" 2>&1; echo "tutorial matrices: exit $?" ) &
  tut=$!
fi
echo "== $(date -u +%T) suite: ${#sel[@]} matrices"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem --format=csv,noheader || true
for l in "${sel[@]}"; do
  read -r name spec cls _ <<< "$l"
  if [[ "$spec" != gen:* ]]; then
    [ -n "${tut:-}" ] && wait "$tut" && tut=
    spec=$MATRICES/$spec
  fi
  echo "== $(date -u +%T) $name"
  timeout 300 "$BUILD/examples/bench_matmult" -matrix "$spec" -name "$name" -class "$cls" -reps 100 -ksp_its 50 -csv "$OUT/results.csv" || echo "!! $name failed or timed out"
done
python3 "$top/bench/plot.py" "$OUT/results.csv" --out "$OUT" --markdown "$OUT/table.md" --suite "$top/bench/suite.txt" || echo "!! plot.py failed"
echo "== $(date -u +%T) done"
