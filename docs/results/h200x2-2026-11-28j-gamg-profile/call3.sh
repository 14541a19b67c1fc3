#!/usr/bin/env bash
# Device call (session 9, third; nvidia-h200-x2): issue 36's 2-rank GAMG set-up gap, event times.
# CG + GAMG, one rank per GPU, aijcusparse against pjds (default layouts), each type in a process of
# its own, -log_view with -log_view_gpu_time (every event's GPU work synchronized: times, not only
# counts): examples/solve lap3d 128^3 and PETSc's ex56 (ne 60), two runs each (order alternated).
t0=$(date +%s); R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name --format=csv,noheader
LOG=$R/build.log source conf/device-build.sh petscgpumat solve bratu bench_matmult || exit 1
echo "built after $(( $(date +%s) - t0 )) s"
export GPUMAT_CONFIG=cuda  # device-build.sh set PETSc's environment and -use_gpu_aware_mpi 0
for r in 1 2; do
  if [ $r = 1 ]; then ord="aijcusparse pjds"; else ord="pjds aijcusparse"; fi
  for t in $ord; do
    L=$(( 520 - ($(date +%s) - t0) )); [ $L -gt 30 ] || { echo "no time for lap3d $t r$r"; break 2; }
    timeout $(( L < 90 ? L : 90 )) mpiexec -n 2 --bind-to none build-cuda/examples/solve -kind lap3d -n 128 -types $t -vec_type cuda -pc_type gamg -ksp_rtol 1e-8 -warmup 0 \
      -log_view :$R/lap3d-$t-r$r-log.txt -log_view_gpu_time > $R/lap3d-$t-r$r.txt 2>&1
    echo "lap3d $t r$r rc=$? after $(( $(date +%s) - t0 )) s"; grep -A3 -E "^type +its" $R/lap3d-$t-r$r.txt | tail -2
  done
  for t in $ord; do
    L=$(( 520 - ($(date +%s) - t0) )); [ $L -gt 40 ] || { echo "no time for ex56 $t r$r"; break 2; }
    timeout $(( L < 120 ? L : 120 )) env GPUMAT_CONFIG=cuda GPUMAT_LIB=$PWD/build-cuda/libpetscgpumat.so TUTORIAL_BUILD=$R/tutorials NP=2 MPIEXEC_FLAGS="--bind-to none" \
      bash conf/tutorial.sh ksp/ksp/tutorials/ex56 -ne 60 -ksp_type cg -pc_type gamg -ksp_rtol 1e-8 -ksp_converged_reason -mat_type $t -log_view :$R/ex56-$t-r$r-log.txt -log_view_gpu_time > $R/ex56-$t-r$r.txt 2>&1
    echo "ex56 $t r$r rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "^ *[0-9]+: +(Main Stage|Setup|Solve):" $R/ex56-$t-r$r-log.txt | cut -c1-60
  done
done
rm -rf $R/tutorials
echo "total $(( $(date +%s) - t0 )) s"
