#!/usr/bin/env bash
# One call on the GPU machine: builds (or takes the carried build), runs every test including the
# GPU ones, the kernels under compute-sanitizer, and the benchmark; results under $OUT.
#
# Prepare on the build machine (no GPU needed):
#   bash conf/petsc.sh cuda --pack .carry/petsc-cuda.tar.xz       # CUDA PETSc for sm_90, packed
#   GPUMAT_CONFIG=cuda BUILD=$PWD/build-cuda bash conf/setup.sh      # the project against it
# then run this with the device tool, carrying .carry and build-cuda:
#   bash conf/device.sh [tests] [sanitize] [main] [bench] [floors] [ablation] [profile] [ranks] [mpi] [snes] [multigpu]
#   (default: tests sanitize main bench; CTEST_ARGS, e.g. "-L gpu", narrows the tests, CTEST_JOBS their
#   parallel runs (4), CTEST_SHARD=k/n runs every n-th test from the k-th (ctest -I k,,n): the whole
#   suite of the CUDA build takes more than one call's 600 s, three shards fit; SANITIZE_FILTER
#   the gtest filter of test_cuda under the sanitizers, SANITIZE_NP2_TOOLS the tools on test_mpi at 2 ranks,
#   SANITIZE_TYPE its type (csrspec), also of test_coo's device COO assembly under memcheck at 1 and 2
#   ranks and of test_products under memcheck; BENCH_MATRICES a list of matrix specs for the bench step instead
#   of its fixed set, with BENCH_TYPES, BENCH_REPS, BENCH_ARGS). floors: the power-law matrices against the floor kernels of
#   bench/floors.cu; ablation: the yaSpMV paper's Figure-14 ablation of the bccoo product and its
#   Table-3 footprint (bench_matmult -ablation -footprint, bccoo alone as the type) on BENCH_MATRICES
#   (default: lap3d27 160, fem3 90, powerlaw 2M, web 40M, econ 207k; BENCH_REPS, BENCH_ARGS) into
#   $OUT/ablation.txt; profile: Nsight Compute counters of cuSPARSE, csrspec and the floors on the
#   power-law matrix (PROFILE_MATRIX, default gen:powerlaw:2000000; PROFILE_TYPES the benchmark's types,
#   PROFILE_KERNELS the counted kernels' regex, PROFILE_DETAIL the kernels of the detail reports); mpi: the benchmark on 2 ranks
#   sharing the GPU (MPI_MATRICES, default gen:lap3d:128 gen:powerlaw:2000000; layouts rows and nnz)
#   with the 1-rank run of each matrix before it, into $OUT/bench-mpi.txt, bench-mpi.csv and
#   bench-mpi.md (plot.py's table of 1 against 2 ranks).
#   ranks: the 3D DMDA Poisson (128^3, CG+Jacobi) and 2D Bratu (400^2, re-assembled Jacobian) solves
#   of examples/bratu on 1 and 2 ranks, aijcusparse against csrspec, with -log_view.
#   snes: the re-assembly table: examples/bratu in 3D (SNES_GRID^3, default 96; Jacobian
#   re-assembled every Newton step, CG + Jacobi, CUDA vectors) with -dm_mat_type aijcusparse and each
#   of SNES_TYPES (default: every format of src/formats.def) on SNES_NP ranks (default "1 2"), -log_view into
#   $OUT/snes-<type>-np<n>.txt, then bench/snes_refresh.py's table (builds, refreshes, upload per
#   Newton step against aijcusparse's copies) into $OUT/snes.md.
#   multigpu: the multi-GPU tests (ctest -L multigpu: every rank's storage, vectors and products on
#   device rank % GPUs at 1, 2, 4, 8 ranks, skipped where fewer GPUs than ranks; link_bandwidth's peer
#   copies), the scaling scripts' self-tests (scaling_model.py, plot.py --scaling) and
#   `conf/scaling.sh check` (strong and weak runs of small matrices at 1 and 2 ranks, the model on the
#   measured links; with and without overlap, MULTIGPU_OVERLAP="1 0" by default),
#   then bench/link_bandwidth over every link of the machine: $OUT/ctest-multigpu.txt,
#   $OUT/scaling-check.tar.gz (its output folder) and $OUT/links.csv.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$top/device-out}
steps=${*:-tests sanitize main bench}
for s in $steps; do
  case "$s" in
    tests | sanitize | main | bench | floors | ablation | profile | ranks | mpi | snes | multigpu) ;;
    *) echo "conf/device.sh: unknown step '$s' (steps: tests sanitize main bench floors ablation profile ranks mpi snes multigpu)" >&2; exit 2 ;;
  esac
done
shard=()
if [ -n "${CTEST_SHARD:-}" ]; then
  if [[ "$CTEST_SHARD" =~ ^([1-9][0-9]*)/([1-9][0-9]*)$ ]] && [ "${BASH_REMATCH[1]}" -le "${BASH_REMATCH[2]}" ]; then
    shard=(-I "${BASH_REMATCH[1]},,${BASH_REMATCH[2]}")
  else
    echo "conf/device.sh: CTEST_SHARD must be k/n with 1 <= k <= n (every n-th test from the k-th), not '$CTEST_SHARD'" >&2
    exit 2
  fi
fi
[[ "${CTEST_JOBS:-4}" =~ ^[1-9][0-9]*$ ]] || { echo "conf/device.sh: CTEST_JOBS must be a positive integer, not '$CTEST_JOBS'" >&2; exit 2; }
source "$top/conf/gpu-env.sh" # exits in seconds without a GPU, a CUDA PETSc or build-cuda
mkdir -p "$OUT"
log=$OUT/device.log
exec > >(tee -a "$log") 2>&1

echo "== $(date -u) on $(hostname)"
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.mem,clocks.max.sm,driver_version --format=csv || true
status=0

if [[ " $steps " == *" tests "* ]]; then
  echo "== ctest (CPU and GPU tests${CTEST_ARGS:+, $CTEST_ARGS}${CTEST_SHARD:+, shard $CTEST_SHARD}) ($(date -u +%T))"
  ctest --test-dir "$BUILD" --output-on-failure -j "${CTEST_JOBS:-4}" --timeout 300 "${shard[@]}" ${CTEST_ARGS:-} 2>&1 | tee "$OUT/ctest.txt" || status=1
fi

if [[ " $steps " == *" sanitize "* ]]; then
  echo "== compute-sanitizer ($(date -u +%T))"
  san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  for tool in memcheck racecheck synccheck initcheck; do
    extra=()
    [ $tool = memcheck ] && extra=(--leak-check full)
    timeout 150 "$san" --tool $tool "${extra[@]}" --error-exitcode 9 "$BUILD/tests/unit/test_cuda" --gtest_brief=1 --gtest_filter="${SANITIZE_FILTER:-*}" > "$OUT/sanitize-$tool.txt" 2>&1
    rc=$?
    echo "$tool on test_cuda: exit $rc, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitize-$tool.txt" | tail -1)"
    [ $rc = 0 ] || status=1
  done
  timeout 200 "$san" --tool memcheck --leak-check full --error-exitcode 9 "$BUILD/tests/petsc/test_products" -check_cusparse -type ${SANITIZE_TYPE:-csrspec} > "$OUT/sanitize-memcheck-petsc.txt" 2>&1
  rc=$?
  echo "memcheck on test_products (PETSc, CUDA vectors): exit $rc, $(grep 'ERROR SUMMARY' "$OUT/sanitize-memcheck-petsc.txt" | tail -1)"
  [ $rc = 0 ] || status=1
  # the device COO assembly (MatSetValuesCOO from a CUDA vector's array: the map's kernel, the
  # values-only refresh from device memory, the host copy-back through the hooked accessors), 1 rank
  # and 2 ranks (the entries of other ranks' rows through the PetscSF)
  for np in 1 2; do
    timeout 200 mpiexec -n $np --bind-to none "$san" --tool memcheck --error-exitcode 9 "$BUILD/tests/petsc/test_coo" -type ${SANITIZE_TYPE:-csrspec} -values device > "$OUT/sanitize-memcheck-coo-np$np.txt" 2>&1
    rc=$?
    echo "memcheck on test_coo -values device, $np rank(s): exit $rc, $(grep 'ERROR SUMMARY' "$OUT/sanitize-memcheck-coo-np$np.txt" | sort | uniq -c | tr '\n' ' ')"
    [ $rc = 0 ] || status=1
  done
  # two ranks sharing the GPU: the MPI type's blocks (compressed off-diagonal rows) and ghosts
  for tool in ${SANITIZE_NP2_TOOLS:-memcheck racecheck synccheck}; do
    timeout 200 mpiexec -n 2 --bind-to none "$san" --tool $tool --error-exitcode 9 "$BUILD/tests/petsc/test_mpi" -type ${SANITIZE_TYPE:-csrspec} > "$OUT/sanitize-$tool-np2.txt" 2>&1
    rc=$?
    echo "$tool on test_mpi, 2 ranks (CUDA vectors): exit $rc, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitize-$tool-np2.txt" | sort | uniq -c | tr '\n' ' ')"
    [ $rc = 0 ] || status=1
  done
fi

if [[ " $steps " == *" main "* ]]; then
  echo "== the main job (conf/main.sh's solve) with -log_view ($(date -u +%T))"
  mpiexec -n 1 "$BUILD/examples/solve" -kind lap3d -n 64 -log_view -check_no_copies > "$OUT/main.txt" 2>&1 || status=1
  grep -E "^(type|seq|mpi|all)|second solve|CsrspecBuild|CsrspecRefresh|MatMult " "$OUT/main.txt"
fi

if [[ " $steps " == *" bench "* ]]; then
  echo "== benchmark (byte model: 12 B/nnz + 4 B/row + x once + y once, fp64) ($(date -u +%T))"
  bench="timeout 200 $BUILD/examples/bench_matmult"
  {
    if [ -n "${BENCH_MATRICES:-}" ]; then # one product table per matrix spec (gen:<kind>:<n> or a file)
      for m in $BENCH_MATRICES; do $bench -matrix $m -reps ${BENCH_REPS:-100} ${BENCH_TYPES:+-types $BENCH_TYPES} ${BENCH_ARGS:-}; done
    elif [ "${BENCH_SET:-quick}" != sweep ]; then
      $bench -kind powerlaw -n 2000000 -reps 200
      $bench -kind circuit -n 5558326 -reps 200
      $bench -kind web -n 4000000 -reps 200
      $bench -kind lap3d -n 260 -reps 100
    fi
    if [ "${BENCH_SET:-quick}" = sweep ]; then
      v=aijcusparse:alg1,aijcusparse:alg2,csrspec,csrspec:w=8:warps=4,csrspec:w=8:warps=8,csrspec:w=4:warps=2,csrspec:w=4:warps=4,sellcuda
      $bench -kind powerlaw -n 2000000 -reps 200 -types $v
      $bench -kind lap3d -n 260 -reps 100 -types $v
    fi
    if [ "${BENCH_SET:-quick}" = full ]; then
      $bench -kind powerlaw -n 20000000 -reps 100
      $bench -kind lap3d -n 150 -reps 200
      $bench -kind lap3d27 -n 100 -reps 200
      $bench -kind short4 -n 30000000 -reps 100
    fi
  } 2>&1 | tee "$OUT/bench.txt" || status=1
fi
if [[ " $steps " == *" floors "* ]]; then
  echo "== floors: CSR-order gather lower bounds against the products ($(date -u +%T))"
  bench="timeout 240 $BUILD/examples/bench_matmult -ksp_its 0 -reps 100 -types aijcusparse:alg1,aijcusparse:alg2,csrspec,sellcuda"
  {
    for m in ${FLOOR_MATRICES:-gen:powerlaw:2000000 gen:powerlaw:4000000 gen:web:4000000 gen:lap3d:260 gen:powerlaw:20000000}; do
      $bench -matrix $m
    done
  } 2>&1 | tee "$OUT/floors.txt" || status=1
fi

if [[ " $steps " == *" ablation "* ]]; then
  echo "== ablation and footprint of the bccoo product (yaSpMV Figure 14, Table 3) ($(date -u +%T))"
  {
    for m in ${BENCH_MATRICES:-gen:lap3d27:160 gen:fem3:90 gen:powerlaw:2000000 gen:web:40000000 gen:econ:206500}; do
      timeout 280 "$BUILD/examples/bench_matmult" -matrix $m -ablation -footprint -floors 0 -types bccoo -ksp_its 0 -reps ${BENCH_REPS:-100} ${BENCH_ARGS:-} || echo "!! $m: exit $?"
    done
  } 2>&1 | tee "$OUT/ablation.txt"
  grep -q '^!!' "$OUT/ablation.txt" && status=1
fi

if [[ " $steps " == *" ranks "* ]]; then
  # The 3D 7-point DMDA Poisson problem (128^3, CG + Jacobi) and the 2D Bratu problem (400^2, Jacobian
  # re-assembled every Newton step: 4 steps, CG + Jacobi), CUDA vectors, -dm_mat_type aijcusparse vs ours,
  # 1 and 2 ranks sharing the GPU, with -log_view: MatMult, KSPSolve, the refresh events, copies.
  echo "== DMDA solves on 1 and 2 ranks ($(date -u +%T))"
  ev='^(bratu|MatMult |KSPSolve|SNESSolve|SNESJacobianEval|MatAssemblyEnd|CsrspecBuild|CsrspecRefresh|MatCUSPARSCopyTo|VecScatterBegin|VecScatterEnd|MatGetDiagonal|PCSetUp) '
  for np in 1 2; do
    for t in ${RANKS_TYPES:-aijcusparse csrspec}; do
      for run in ${RANKS_RUNS:-poisson3d bratu2d}; do
        if [ $run = poisson3d ]; then a=(-dim 3 -da_grid_x 128 -da_grid_y 128 -da_grid_z 128 -lambda 0 -f 1 -snes_type ksponly -ksp_type cg -pc_type jacobi -ksp_rtol 1e-8)
        else a=(-dim 2 -da_grid_x 400 -da_grid_y 400 -ksp_type cg -pc_type jacobi -ksp_rtol 1e-5); fi
        f=$OUT/ranks-$run-$t-np$np.txt
        timeout 120 mpiexec -n $np --bind-to none "$BUILD/examples/bratu" -dm_mat_type $t -dm_vec_type cuda "${a[@]}" -log_view -log_view_gpu_time > "$f" 2>&1 || { echo "!! $run $t np$np failed"; status=1; }
        echo "-- $run $t np$np"; grep -E "$ev" "$f"
      done
    done
  done
fi

if [[ " $steps " == *" snes "* ]]; then
  echo "== SNES re-assembly: upload per Newton step ($(date -u +%T))"
  g=${SNES_GRID:-96}
  a=(-dim 3 -da_grid_x "$g" -da_grid_y "$g" -da_grid_z "$g" -lambda 3 -ksp_type cg -pc_type jacobi -ksp_rtol 1e-6 -dm_vec_type cuda -log_view -log_view_gpu_time)
  for np in ${SNES_NP:-1 2}; do
    for t in aijcusparse ${SNES_TYPES:-$(gpumat_types formats | tr , ' ')}; do
      f=$OUT/snes-$t-np$np.txt
      timeout 120 mpiexec -n "$np" --bind-to none "$BUILD/examples/bratu" -dm_mat_type "$t" "${a[@]}" > "$f" 2>&1 || { echo "!! snes $t np$np failed"; status=1; }
      grep '^bratu:' "$f"
    done
  done
  python3 "$top/bench/snes_refresh.py" "$OUT"/snes-*-np*.txt --markdown "$OUT/snes.md" || status=1
fi

if [[ " $steps " == *" mpi "* ]]; then
  echo "== benchmark on 2 ranks sharing one GPU (ghost values through the host: -use_gpu_aware_mpi 0) ($(date -u +%T))"
  csv=$OUT/bench-mpi.csv
  rm -f "$csv"
  args=(-types aijcusparse:alg1,aijcusparse:alg2,csrspec,sellcuda -ksp_its 0 -reps 100 -csv "$csv")
  {
    for m in ${MPI_MATRICES:-gen:lap3d:128 gen:powerlaw:2000000}; do
      timeout 200 "$BUILD/examples/bench_matmult" -matrix $m -floors 0 "${args[@]}" || echo "!! $m on 1 rank failed"
      for layout in rows nnz; do
        timeout 200 mpiexec -n 2 --bind-to none "$BUILD/examples/bench_matmult" -matrix $m -layout $layout "${args[@]}" || echo "!! $m on 2 ranks, layout $layout failed"
      done
    done
  } 2>&1 | tee "$OUT/bench-mpi.txt"
  grep -q '^!!' "$OUT/bench-mpi.txt" && status=1
  python3 "$top/bench/plot.py" "$csv" --markdown "$OUT/bench-mpi.md" --include-host && sed -n '/^## 1 rank against/,$p' "$OUT/bench-mpi.md" || status=1
fi

if [[ " $steps " == *" multigpu "* ]]; then
  echo "== multi-GPU: $(gpumat_gpu_count) GPU(s); ctest -L multigpu, the scaling self-checks, the links ($(date -u +%T))"
  nvidia-smi topo -m 2>/dev/null || true
  ctest --test-dir "$BUILD" --output-on-failure -L multigpu --timeout 300 2>&1 | tee "$OUT/ctest-multigpu.txt" || status=1
  grep -E "test_devices: .*(rank [0-9]+: |all checks)" "$OUT/ctest-multigpu.txt" | sort -u | head -40
  python3 "$top/bench/scaling_model.py" --selftest || status=1
  python3 "$top/bench/plot.py" --scaling-selftest "$(mktemp -d)" || status=1
  sc=$(mktemp -d)/scaling-check
  OUT=$sc SCALING_CARRY=/nonexistent OVERLAP="${MULTIGPU_OVERLAP:-1 0}" bash "$top/conf/scaling.sh" check > "$sc.txt" 2>&1 || status=1
  tail -3 "$sc.txt"
  sed -n '/^| series | layout/,/^$/p' "$sc/scaling-check.md" 2>/dev/null
  tar -C "$(dirname "$sc")" -czf "$OUT/scaling-check.tar.gz" scaling-check scaling-check.txt
  echo "== link_bandwidth: every link of this machine into $OUT/links.csv ($(date -u +%T))"
  timeout 300 "$BUILD/bench/link_bandwidth" -o "$OUT/links.csv" || status=1
fi

if [[ " $steps " == *" profile "* ]]; then
  echo "== profile: ncu counters ($(date -u +%T))"
  ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || echo ncu)
  pm=${PROFILE_MATRIX:-gen:powerlaw:2000000}
  args=(-matrix $pm -types ${PROFILE_TYPES:-aijcusparse:alg1,csrspec} -reps 2 -warmup 1 -ksp_its 0 -reps_build 1 -reps_refresh 1)
  metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sector_op_read_hit_rate.pct,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__t_sector_hit_rate.pct,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,launch__grid_size,launch__block_size,launch__registers_per_thread
  timeout 200 "$ncu" --clock-control none --metrics gpu__time_duration.sum --csv "$BUILD/examples/bench_matmult" "${args[@]}" > "$OUT/ncu-kernels.csv" 2> "$OUT/ncu-kernels.err"
  echo "kernels seen: exit $?"; cut -d, -f5 "$OUT/ncu-kernels.csv" | sort | uniq -c | sort -rn | head -20
  timeout 300 "$ncu" --clock-control none -k "regex:${PROFILE_KERNELS:-csrmv|spmv|SpMV|Spmv|csrspec_tiles|floor_kernel}" --metrics $metrics --csv "$BUILD/examples/bench_matmult" "${args[@]}" > "$OUT/ncu-metrics.csv" 2> "$OUT/ncu-metrics.err"
  echo "metrics: exit $?"; tail -3 "$OUT/ncu-metrics.err"
  # stall reasons and per-line counters of one launch of each product kernel
  for k in ${PROFILE_DETAIL:-csrspec_tiles csrmv_v3_kernel}; do
    timeout 200 "$ncu" --clock-control none -k "regex:$k" --launch-skip 2 --launch-count 1 --import-source yes \
      --section SpeedOfLight --section WarpStateStats --section SourceCounters --section Occupancy --section LaunchStats \
      --section MemoryWorkloadAnalysis -f -o "$OUT/ncu-$k" "$BUILD/examples/bench_matmult" "${args[@]}" > "$OUT/ncu-$k.log" 2>&1
    echo "$k: exit $?"
    "$ncu" -i "$OUT/ncu-$k.ncu-rep" --page details > "$OUT/ncu-$k-details.txt" 2>&1
    "$ncu" -i "$OUT/ncu-$k.ncu-rep" --page source --csv --print-source cuda > "$OUT/ncu-$k-source.csv" 2>&1
  done
fi
echo "== done, status $status"
exit $status
