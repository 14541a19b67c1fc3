#!/usr/bin/env bash
# The multi-GPU scaling study, one GPU per rank: one command per study.
#
#   bash conf/scaling.sh strong [NGPUS]   the matrices of bench/scaling.txt at 1, 2, 4, ... NGPUS ranks
#   bash conf/scaling.sh weak [NGPUS]     its "#weak" series, the matrix grown with the rank count
#   bash conf/scaling.sh check            a quick self-check of the whole chain on small matrices at 1 and
#                                         2 ranks (ranks may share one GPU; a CPU build too, below)
#
# NGPUS: default every GPU nvidia-smi lists; ranks run as `mpiexec -n P $MPIEXEC_FLAGS bench_matmult`,
# and PETSc gives rank r the device r % (visible devices), so P <= the visible devices puts one rank
# on each GPU (P > visible GPUs is refused unless ALLOW_SHARED=1). Each run is bench_matmult
# (examples/bench_matmult.c) with -layout, -ksp_its, -csv: MatMult of every type, the split of the
# product (diag_ms, offd_ms, scatter_ms: the communication timed alone), a KSP of fixed iterations.
#
# Output in $OUT (default scaling-out/), at most 6 files so that a device call returns them all:
#   scaling-<study>.csv      the benchmark's rows (strong: the matrix's name; weak: the series name,
#                            the same at every P; a run without overlap: name@vector)
#   scaling-<study>.done     the runs made ("done" or "failed", name, P, layout, types), for resuming
#   links.csv                bench/link_bandwidth's measured links (made once, first)
#   scaling-<study>.md       bench/plot.py --scaling's tables (parallel efficiency per type, lead
#                            over aijcusparse, communication share, overlap gain) and
#                            bench/scaling_model.py's model against the measurements
#   scaling-<study>.log      everything printed
#   scaling-<study>-figures.tar.gz  plot.py's figures (efficiency against P), with matplotlib
#
# A device call holds 10 minutes and one run of a 500M-nonzero matrix on 1 rank takes minutes (not
# measured yet), so a study takes several calls of the same command: runs already in
# scaling-<study>.done (matrix, ranks, layout and the type list) are skipped, and no run starts when
# it could pass BUDGET_S (480) seconds from the script's start (the longest run so far as the
# estimate); a run over RUN_TIMEOUT (480 s) is killed and recorded as failed (then run its matrix
# with fewer TYPES per call: each list is its own run). The script then says how many runs are left
# and exits 3. Carry what came back: copy scaling-<study>.csv, scaling-<study>.done and links.csv
# from the call's files into .carry/scaling/ (carried with .carry), and the next call starts there.
#
# Environment:
#   MATRICES   strong: names of bench/scaling.txt (default: all); weak: names of its "#weak" series
#   RANKS      rank counts (default 1 2 4 ... NGPUS)
#   LAYOUTS    the benchmark's -layout values (default strong "rows nnz", weak "rows"); 1 rank: rows only
#   TYPES      default aijcusparse:alg1,aijcusparse:alg2 and every format of src/formats.def but
#              cusparsesell and cusparsebsr (gpumat_types in conf/env.sh; cuSPARSE's SELL and BSR and
#              sellcuda pad power-law rows many times: TYPES adds them). A run is recorded with its
#              type list; a list of the same types in another order counts as the same run.
#   OVERLAP    "1 0" (default), "1" or "0": 0 runs our types with -mat_gpumat_overlap 0 (the halo
#              exchange finished before the diagonal block's product: the paper's vector mode),
#              aijcusparse left out (its MPI product always overlaps); refused unless the MPI type
#              reads the option and its MatView says "(-mat_gpumat_overlap 0)" (a 2-rank probe first)
#   HALO       "staged" (default), "device" or "staged device": how the runs at P > 1 exchange the
#              halo of device vectors. staged: through host buffers (PETSc's -use_gpu_aware_mpi 0, the
#              only path with the GPU machines' OpenMPI); device: device buffers handed to MPI for
#              every type, aijcusparse's included (bench_matmult -gpu_aware_halo), for an MPI that
#              moves them (the cudampich configuration: GPUMAT_CONFIG=cudampich, conf/gpuaware.sh),
#              run under GPUAWARE_ENV (default: the build's GPUMAT_GPU_AWARE_MPI_ENV, which
#              conf/setup.sh sets for cudampich to conf/env.sh's gpumat_gpu_aware_env,
#              "MPIR_CVAR_NOLOCAL=1 UCX_WARN_UNUSED_ENV_VARS=n": local ranks through UCX, whose CUDA
#              transports move device memory) and named
#              <name>@gpuaware (then @vector without overlap); a 2-rank probe first (test_mpi with
#              -mat_gpumat_gpu_aware_mpi 1, every product against MPIAIJ): where it fails the device
#              runs are skipped with a message and the staged ones go on
#   REPS=100 (timed products), REPS_BUILD=1, KSP_ITS=50 (0: no KSP), ARGS (more benchmark options)
#   BUDGET_S=480, RUN_TIMEOUT=480 (one run), ALLOW_SHARED=0, MPIEXEC (mpiexec), MPIEXEC_FLAGS
#   (--bind-to none; with cudampich's MPICH none), SCALING_FILE (bench/scaling.txt), SCALING_CARRY (.carry/scaling)
#   GPUMAT_CONFIG=cpu with BUILD=<a CPU build>: the check on host types (aij, csrspec) without links
#   or model (CTest's conf.scaling_check); otherwise the GPU machine's environment (conf/gpu-env.sh).
set -uo pipefail
start=$(date +%s) # BUDGET_S counts from here: the links and the runs
top=$(cd "$(dirname "$0")/.." && pwd)
source "$top/conf/env.sh"
me=conf/scaling.sh
die() { echo "$me: $*" >&2; exit 2; }

# ---- arguments and settings, checked before anything long --------------------------------------
study=${1:-}
case "$study" in
  strong | weak | check) ;;
  *) die "the study must be strong, weak or check, not '${study}' (usage: bash $me strong|weak [NGPUS] | bash $me check)" ;;
esac
ngpus_arg=${2:-}
[ -z "$ngpus_arg" ] || [[ "$ngpus_arg" =~ ^[1-9][0-9]*$ ]] || die "NGPUS must be a positive integer, not '$ngpus_arg'"
[ $# -le 2 ] || die "too many arguments (usage: bash $me strong|weak [NGPUS])"
OVERLAP=${OVERLAP:-1 0}
HALO=${HALO:-staged}
for h in $HALO; do [[ "$h" = staged || "$h" = device ]] || die "HALO must be staged, device or \"staged device\", not '$HALO'"; done
[ -n "${HALO// /}" ] || die "HALO must be staged, device or \"staged device\", not empty"
for o in $OVERLAP; do [[ "$o" = 0 || "$o" = 1 ]] || die "OVERLAP must be 1, 0 or \"1 0\", not '$OVERLAP'"; done
[ -n "${OVERLAP// /}" ] || die "OVERLAP must be 1, 0 or \"1 0\", not empty"
if [ "$study" = weak ]; then LAYOUTS=${LAYOUTS:-rows}; else LAYOUTS=${LAYOUTS:-rows nnz}; fi
for l in $LAYOUTS; do [[ "$l" = rows || "$l" = nnz ]] || die "LAYOUTS must be rows and/or nnz, not '$LAYOUTS'"; done
if [ "$study" = check ]; then REPS=${REPS:-5} KSP_ITS=${KSP_ITS:-5}; fi
REPS=${REPS:-100}
REPS_BUILD=${REPS_BUILD:-1}
KSP_ITS=${KSP_ITS:-50}
BUDGET_S=${BUDGET_S:-480}
RUN_TIMEOUT=${RUN_TIMEOUT:-480}
ALLOW_SHARED=${ALLOW_SHARED:-0}
[[ "$REPS" =~ ^[1-9][0-9]*$ ]] || die "REPS must be a positive integer, not '$REPS'"
[[ "$REPS_BUILD" =~ ^([1-9]|1[0-6])$ ]] || die "REPS_BUILD must be 1..16, not '$REPS_BUILD'"
[[ "$KSP_ITS" =~ ^[0-9]+$ ]] || die "KSP_ITS must be a non-negative integer, not '$KSP_ITS'"
[[ "$BUDGET_S" =~ ^[1-9][0-9]*$ ]] || die "BUDGET_S must be a positive number of seconds, not '$BUDGET_S'"
[[ "$RUN_TIMEOUT" =~ ^[1-9][0-9]*$ ]] || die "RUN_TIMEOUT must be a positive number of seconds, not '$RUN_TIMEOUT'"
[[ "$ALLOW_SHARED" = 0 || "$ALLOW_SHARED" = 1 ]] || die "ALLOW_SHARED must be 0 or 1, not '$ALLOW_SHARED'"
if [ -n "${RANKS:-}" ]; then
  for p in $RANKS; do [[ "$p" =~ ^[1-9][0-9]*$ ]] || die "RANKS must be positive integers, not '$RANKS'"; done
fi
cpu=0
[ "${GPUMAT_CONFIG:-}" = cpu ] && cpu=1
if [ $cpu = 1 ]; then
  [ "$study" = check ] || die "GPUMAT_CONFIG=cpu runs the check only (host types); the studies need the GPU machine"
  [[ " $HALO " == *" device "* ]] && die "HALO=device needs the GPU machine (device vectors); the CPU check runs HALO=staged"
  TYPES=${TYPES:-$(gpumat_types aij csrspec)} || exit 2
else
  TYPES=${TYPES:-$(gpumat_types aijcusparse:algs formats -cusparsesell -cusparsebsr)} || exit 2
fi
[[ "$TYPES" =~ ^[A-Za-z0-9_:=.,]+$ ]] || die "TYPES must be a comma-separated list of types, not '$TYPES'"
SCALING_FILE=${SCALING_FILE:-$top/bench/scaling.txt}
[ -f "$SCALING_FILE" ] || die "SCALING_FILE '$SCALING_FILE' is not a file"
SCALING_CARRY=${SCALING_CARRY:-$top/.carry/scaling}
MPIEXEC=${MPIEXEC:-mpiexec}
if [ "${GPUMAT_CONFIG:-}" = cudampich ]; then MPIEXEC_FLAGS=${MPIEXEC_FLAGS-}; else MPIEXEC_FLAGS=${MPIEXEC_FLAGS---bind-to none}; fi

# the study's list: "name spec class" per run series
declare -a names specs classes
if [ "$study" = strong ]; then
  while read -r name spec cls _; do names+=("$name"); specs+=("$spec"); classes+=("$cls"); done < <(grep -vE '^\s*(#|$)' "$SCALING_FILE")
elif [ "$study" = weak ]; then
  while read -r _ name kind n1 cls _; do names+=("$name"); specs+=("$kind:$n1"); classes+=("$cls"); done < <(grep -E '^#weak\s' "$SCALING_FILE")
else # check: small matrices, strong and weak
  names=(check_lap3d check_powerlaw weak_check_lap3d); specs=(gen:lap3d:40 gen:powerlaw:40000 lap3d:32); classes=(spd nonsym spd)
fi
[ ${#names[@]} -gt 0 ] || die "no $study entries in $SCALING_FILE"
if [ -n "${MATRICES:-}" ]; then
  keep=()
  for want in $MATRICES; do
    found=
    for i in "${!names[@]}"; do [ "${names[$i]}" = "$want" ] && keep+=("$i") && found=1; done
    [ -n "$found" ] || die "unknown $study name '$want' (in $SCALING_FILE: ${names[*]})"
  done
else
  keep=("${!names[@]}")
fi

# ---- the machine ------------------------------------------------------------------------------------
if [ $cpu = 1 ]; then
  BUILD=${BUILD:-$top/build-cpu}
  [ -x "$BUILD/examples/bench_matmult" ] || die "no $BUILD/examples/bench_matmult: build the CPU configuration first (conf/test.sh)"
  visible=0
else
  source "$top/conf/gpu-env.sh" # exits in seconds without a GPU, a CUDA PETSc or build-cuda
  visible=$(gpumat_gpu_count)
fi
# the environment of device buffers in MPI: the build's, as conf/setup.sh configured it for its tests
GPUAWARE_ENV=${GPUAWARE_ENV:-$(sed -n 's/^GPUMAT_GPU_AWARE_MPI_ENV:STRING=//p' "$BUILD/CMakeCache.txt" 2>/dev/null | tr ';' ' ')}
read -r -a gpuaware_env <<< "$GPUAWARE_ENV" # the assignments, for env(1)
OUT=${OUT:-$top/scaling-out}
mkdir -p "$OUT"
log=$OUT/scaling-$study.log
exec > >(tee -a "$log") 2>&1
ngpus=${ngpus_arg:-$visible}
[ "$study" = check ] && ngpus=2 && ALLOW_SHARED=1
if [ -z "${RANKS:-}" ]; then
  RANKS=1
  for ((p = 2; p <= ngpus; p *= 2)); do RANKS+=" $p"; done
fi
for p in $RANKS; do
  if [ $cpu = 0 ] && [ "$p" -gt "$visible" ] && [ "$ALLOW_SHARED" != 1 ]; then
    die "$p ranks need $p GPUs (one per rank), $visible visible (ALLOW_SHARED=1 lets ranks share)"
  fi
done
[ "$study" = check ] && [ $cpu = 0 ] && [ "$ngpus" -gt "$visible" ] && echo "== check: 2 ranks on $visible GPU(s): ranks share"

csv=$OUT/scaling-$study.csv
done_file=$OUT/scaling-$study.done
links=$OUT/links.csv
for f in "scaling-$study.csv" "scaling-$study.done" links.csv; do # resume from the carried files
  if [ ! -s "$OUT/$f" ] && [ -s "$SCALING_CARRY/$f" ]; then cp "$SCALING_CARRY/$f" "$OUT/$f" && echo "== resumed from $SCALING_CARRY/$f"; fi
done
touch "$done_file"
echo "== $(date -u +%T) scaling $study on $(hostname) ($([ $cpu = 1 ] && echo cpu || echo "$GPUMAT_CONFIG")): ranks $RANKS, layouts $LAYOUTS, overlap $OVERLAP, halo $HALO, types $TYPES"
[ $cpu = 0 ] && { nvidia-smi --query-gpu=index,name,memory.total,pci.bus_id --format=csv,noheader || true; nvidia-smi topo -m 2>/dev/null || true; }

bench=("$BUILD/examples/bench_matmult")
ours_types() { # TYPES without aijcusparse (no switch for its overlap) nor sellcuda (not MPIAIJ)
  local out= t
  IFS=, read -r -a ts <<< "$TYPES"
  for t in "${ts[@]}"; do case "$t" in aijcusparse* | sellcuda* | aij | mpiaij) ;; *) out+=${out:+,}$t ;; esac; done
  echo "$out"
}

# ---- overlap off: only where the MPI type has the option ------------------------------------------
if [[ " $OVERLAP " == *" 0 "* ]]; then
  probe=$(ours_types); probe=${probe%%,*}
  [ -n "$probe" ] || die "OVERLAP=0 needs one of our types in TYPES (aijcusparse's MPI product always overlaps)"
  echo "== checking that -mat_gpumat_overlap 0 exists (2 ranks, $probe)"
  out=$(timeout 180 "$MPIEXEC" -n 2 $MPIEXEC_FLAGS "${bench[@]}" -matrix gen:lap2d:24 -types "$probe" -reps 1 -warmup 0 -reps_build 1 -reps_refresh 1 -ksp_its 0 -floors 0 -view_types -mat_gpumat_overlap 0 -options_left 2>&1)
  rc=$?
  if [ $rc != 0 ]; then
    echo "$out" | tail -5
    die "refuses OVERLAP=0: the probe run with -mat_gpumat_overlap 0 failed (exit $rc)"
  fi
  if grep -q 'Option left: name:-mat_gpumat_overlap' <<< "$out"; then
    die "refuses OVERLAP=0: no type reads -mat_gpumat_overlap (PETSc lists it as an unused option), so the runs would measure the overlapped product under the no-overlap name (a build older than the option? OVERLAP=1 runs the overlapped product alone)"
  fi
  if ! grep -qF '(-mat_gpumat_overlap 0)' <<< "$out"; then
    die "refuses OVERLAP=0: the option is read, but the MPI type's MatView does not say '(-mat_gpumat_overlap 0)', so this script cannot tell that it took effect"
  fi
  echo "== -mat_gpumat_overlap 0 is read and in effect: $(grep -F -m1 '(-mat_gpumat_overlap 0)' <<< "$out" | sed 's/^ *//')"
fi

# ---- device buffers in MPI: only where a 2-rank probe passes them -----------------------------------
status=0
if [[ " $HALO " == *" device "* ]]; then
  probe=$(ours_types); probe=${probe%%,*}; probe=${probe%%:*}
  [ -n "$probe" ] || probe=csrspec
  echo "== checking device buffers in MPI: 2 ranks, test_mpi -type $probe -mat_gpumat_gpu_aware_mpi 1 under $GPUAWARE_ENV"
  out=$(env "${gpuaware_env[@]}" timeout 180 "$MPIEXEC" -n 2 $MPIEXEC_FLAGS "$BUILD/tests/petsc/test_mpi" -type "$probe" -mat_gpumat_gpu_aware_mpi 1 2>&1)
  rc=$?
  if [ $rc = 0 ]; then
    echo "== device halo probe passed: $(tail -1 <<< "$out")"
  else
    echo "$out" | tail -8
    echo "!! device halo probe failed (exit $rc): the HALO=device runs are skipped (this MPI does not move device buffers: GPUMAT_CONFIG=cudampich, conf/gpuaware.sh)"
    HALO=${HALO//device/}
    status=1
  fi
fi

# ---- the links (GPU machine) ------------------------------------------------------------------------
if [ $cpu = 0 ] && [ ! -s "$links" ]; then
  if [ "$study" = check ]; then la=(-max 4194304 -reps 3); else la=(); fi
  echo "== $(date -u +%T) link_bandwidth into $links"
  timeout 300 "$BUILD/bench/link_bandwidth" -o "$links" "${la[@]}" || { echo "!! link_bandwidth failed: the model is left out"; status=1; }
fi

# ---- the runs --------------------------------------------------------------------------------------
# weak: the parameter n1 * P^(1/3), rounded; the nonzeros estimated per kind to stay below 2^31
weak_spec() { # kind:n1 P -> gen:kind:n
  local kind=${1%%:*} n1=${1##*:} p=$2
  awk -v k="$kind" -v n1="$n1" -v p="$p" 'BEGIN { n = int(n1 * exp(log(p) / 3) + 0.5); printf "gen:%s:%d\n", k, n }'
}
nnz_estimate() { # gen:kind:n -> nonzeros (0: unknown kind)
  local kind n
  kind=$(cut -d: -f2 <<< "$1"); n=$(cut -d: -f3 <<< "$1")
  awk -v k="$kind" -v n="$n" 'BEGIN { f = (k == "lap3d") ? 7 : (k == "lap3d27") ? 27 : (k == "fem3") ? 178.3 : (k == "fem6") ? 458 : 0; printf "%.0f\n", f * n * n * n }'
}
recorded() { # "LABEL P LAYOUT" TYPES: whether the done file has the run (done or failed), its types in any order
  awk -v run="$1" -v types="$2" '
    function set(list,  a, n, i, j, t) { # the list sorted, so that the order does not count
      n = split(list, a, ",")
      for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
      t = a[1]; for (i = 2; i <= n; i++) t = t "," a[i]
      return t
    }
    ($1 == "done" || $1 == "failed") && NF == 5 && $2 " " $3 " " $4 == run && set($5) == set(types) { found = 1; exit }
    END { exit !found }' "$done_file"
}
longest=0
left=0
plan=()
first_layout=${LAYOUTS%% *}
for i in "${keep[@]}"; do
  for p in $RANKS; do
    if [ "$p" = 1 ]; then # one rank: no halo, no layout; the baseline of every mode
      plan+=("$i 1 $first_layout 1 staged")
      continue
    fi
    for h in $HALO; do
      for layout in $LAYOUTS; do
        for o in $OVERLAP; do plan+=("$i $p $layout $o $h"); done
      done
    done
  done
done
echo "== $(date -u +%T) ${#plan[@]} runs planned, $(grep -c . "$done_file") done before"
for item in "${plan[@]}"; do
  read -r i p layout o h <<< "$item"
  name=${names[$i]} spec=${specs[$i]} cls=${classes[$i]}
  if [ "$study" = weak ] || [[ "$name" == weak_* ]]; then spec=$(weak_spec "$spec" "$p"); fi
  label=$name
  types=$TYPES
  [ "$h" = device ] && label=$label@gpuaware
  if [ "$o" = 0 ]; then label=$label@vector; types=$(ours_types); fi
  key="$label $p $layout $types"
  if recorded "$label $p $layout" "$types"; then continue; fi
  est=$(nnz_estimate "$spec")
  if [ "${est:-0}" -gt 2000000000 ]; then
    echo "!! $label on $p ranks: $spec has about $est nonzeros, over PetscInt's 2^31: skipped"
    echo "failed $key" >> "$done_file"
    continue
  fi
  now=$(date +%s)
  if [ $((now - start + longest)) -gt "$BUDGET_S" ]; then left=$((left + 1)); continue; fi
  run=()
  [ "$p" -gt 1 ] && run=("$MPIEXEC" -n "$p" $MPIEXEC_FLAGS)
  args=(-matrix "$spec" -name "$label" -class "$cls" -layout "$layout" -types "$types" -reps "$REPS" -reps_build "$REPS_BUILD" -ksp_its "$KSP_ITS" -floors 0 -csv "$csv")
  [ "$o" = 0 ] && args+=(-mat_gpumat_overlap 0)
  runenv=()
  [ "$h" = device ] && args+=(-gpu_aware_halo) && runenv=("${gpuaware_env[@]}")
  [ "$study" = check ] && args+=(-reps_host 3 -warmup 2 -reps_refresh 1)
  [ -n "${ARGS:-}" ] && read -r -a extra <<< "$ARGS" && args+=("${extra[@]}")
  echo "== $(date -u +%T) $label ($spec) on $p rank(s), layout $layout, overlap $o, halo $h"
  t0=$(date +%s)
  env "${runenv[@]}" timeout "$RUN_TIMEOUT" "${run[@]}" "${bench[@]}" "${args[@]}"
  rc=$?
  t=$(($(date +%s) - t0))
  [ $t -gt $longest ] && longest=$t
  if [ $rc = 0 ]; then echo "done $key" >> "$done_file"
  else
    echo "!! $label on $p rank(s), layout $layout: exit $rc after $t s$([ $rc = 124 ] && echo " (RUN_TIMEOUT=$RUN_TIMEOUT: fewer TYPES per call)")"
    echo "failed $key" >> "$done_file"
    status=1
  fi
done

# ---- tables, model, figures --------------------------------------------------------------------------
md=$OUT/scaling-$study.md
if [ -s "$csv" ]; then
  kind=$study
  [ "$study" = check ] && kind=strong
  figs=$(mktemp -d)
  python3 "$top/bench/plot.py" --scaling "$kind" "$csv" --markdown "$md" --out "$figs" || { echo "!! plot.py --scaling failed"; status=1; }
  if ls "$figs"/*.png > /dev/null 2>&1; then tar -C "$figs" -czf "$OUT/scaling-$study-figures.tar.gz" . ; fi
  rm -rf "$figs"
  if [ -s "$links" ]; then
    ours=side # our types' order in these runs: ARGS with -mat_gpumat_side_stream 0 (or false/no) gives PETSc's
    [[ " ${ARGS:-} " =~ [[:space:]]-mat_gpumat_side_stream[[:space:]]+(0|false|no|FALSE|NO)[[:space:]] ]] && ours=petsc
    { echo; python3 "$top/bench/scaling_model.py" "$csv" --links "$links" --ours $ours; } >> "$md" || { echo "!! scaling_model.py failed"; status=1; }
  else
    echo "== no links.csv: the model is left out of $md"
  fi
fi
if [ $left -gt 0 ]; then
  echo "== $(date -u +%T) budget: $left run(s) left (BUDGET_S=$BUDGET_S). Copy scaling-$study.csv, scaling-$study.done and links.csv from this call's files into .carry/scaling/ and run the same command again."
  exit 3
fi
if [ "$study" = check ]; then
  ok=1
  grep -q "^## check_lap3d, layout rows" "$md" 2>/dev/null || ok=0
  grep -q "^## weak_check_lap3d, layout rows" "$md" 2>/dev/null || ok=0
  [ $cpu = 1 ] || grep -q "^### check_lap3d, " "$md" 2>/dev/null || ok=0
  if [[ " $OVERLAP " == *" 0 "* ]]; then grep -q "^check_lap3d@vector," "$csv" || ok=0; fi
  [ $status = 0 ] && [ $ok = 1 ] && echo "scaling check passed ($(grep -c '^done' "$done_file") runs$([[ " $OVERLAP " == *" 0 "* ]] && echo ", vector mode too"))" || { echo "!! scaling check failed"; exit 1; }
fi
echo "== $(date -u +%T) all runs of the $study study done, status $status"
exit $status
