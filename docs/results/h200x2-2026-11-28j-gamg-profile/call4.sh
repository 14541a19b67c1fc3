#!/usr/bin/env bash
# Device call (session 9, fourth; nvidia-h200-x2): issue 36's 2-rank GAMG set-up gap, per rank and
# nested. CG + GAMG lap3d 128^3, one rank per GPU, aijcusparse and pjds each in a process of its
# own: -log_view in CSV (every rank's events: which rank waits where) and as a flame graph (nested:
# what each set-up phase holds), both with -log_view_gpu_time; ex56 (ne 60) in CSV.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name --format=csv,noheader
LOG=$R/build.log source conf/device-build.sh petscgpumat solve bratu bench_matmult || exit 1
echo "built after $(( $(date +%s) - t0 )) s"
S="build-cuda/examples/solve -kind lap3d -n 128 -vec_type cuda -pc_type gamg -ksp_rtol 1e-8 -warmup 0 -log_view_gpu_time"
for fmt in csv flamegraph; do
  for t in aijcusparse pjds; do
    L=$(( 520 - ($(date +%s) - t0) )); [ $L -gt 30 ] || { echo "no time for lap3d $t $fmt"; break 2; }
    timeout $(( L < 90 ? L : 90 )) mpiexec -n 2 --bind-to none $S -types $t -log_view :$R/lap3d-$t-$fmt.txt:ascii_$fmt > $R/lap3d-$t-$fmt-out.txt 2>&1
    echo "lap3d $t $fmt rc=$? after $(( $(date +%s) - t0 )) s"; grep -A2 -E "^type +its" $R/lap3d-$t-$fmt-out.txt | tail -1
  done
done
for t in aijcusparse pjds; do
  L=$(( 520 - ($(date +%s) - t0) )); [ $L -gt 40 ] || { echo "no time for ex56 $t"; break; }
  timeout $(( L < 120 ? L : 120 )) env GPUMAT_CONFIG=cuda GPUMAT_LIB=$PWD/build-cuda/libpetscgpumat.so TUTORIAL_BUILD=$R/tutorials NP=2 MPIEXEC_FLAGS="--bind-to none" \
    bash conf/tutorial.sh ksp/ksp/tutorials/ex56 -ne 60 -ksp_type cg -pc_type gamg -ksp_rtol 1e-8 -ksp_converged_reason -mat_type $t -log_view :$R/ex56-$t-csv.txt:ascii_csv -log_view_gpu_time > $R/ex56-$t-csv-out.txt 2>&1
  echo "ex56 $t rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "^(Setup|Solve|Main Stage),summary" $R/ex56-$t-csv.txt
done
rm -rf $R/tutorials
echo "total $(( $(date +%s) - t0 )) s"
