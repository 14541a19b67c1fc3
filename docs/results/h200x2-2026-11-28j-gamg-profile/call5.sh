#!/usr/bin/env bash
# Device call (session 9, fifth; nvidia-h200-x2): the inner product marked api_user as its caller
# marked ours (the first numeric phase keeps the symbolic phase's values, as aijcusparse's own).
# Full build; ctest -L gpu -R "matproduct|\.ops|plex_gamg" (1, 2, 4 ranks); CG + GAMG lap3d 128^3
# at 2 ranks (one per GPU) and 1 rank, ex56 ne 60 at 2 ranks: aijcusparse and pjds, each in a
# process of its own, two runs in alternating order, -log_view (no GPU-time syncs).
t0=$(date +%s); R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name --format=csv,noheader
LOG=$R/build.log source conf/device-build.sh || exit 1
echo "built after $(( $(date +%s) - t0 )) s"
timeout 200 ctest --test-dir build-cuda -L gpu -R "matproduct|[.]ops|plex_gamg" -j 8 --timeout 150 > $R/ctest.txt 2>&1
echo "ctest rc=$? $(grep -E 'tests passed|tests failed' $R/ctest.txt)"; grep -E "\(Failed\)|Timeout|\*\*\*" $R/ctest.txt | head
echo "tests after $(( $(date +%s) - t0 )) s"
S="build-cuda/examples/solve -kind lap3d -n 128 -vec_type cuda -pc_type gamg -ksp_rtol 1e-8 -warmup 0"
for r in 1 2; do
  if [ $r = 1 ]; then ord="aijcusparse pjds"; else ord="pjds aijcusparse"; fi
  for np in 2 1; do
    for t in $ord; do
      L=$(( 500 - ($(date +%s) - t0) )); [ $L -gt 25 ] || { echo "no time for lap3d np$np $t r$r"; break 3; }
      timeout $(( L < 60 ? L : 60 )) mpiexec -n $np --bind-to none $S -types $t -log_view :$R/lap3d-np$np-$t-r$r-log.txt > $R/lap3d-np$np-$t-r$r.txt 2>&1
      echo "lap3d np$np $t r$r rc=$? $(grep -A1 -E '^type +its' $R/lap3d-np$np-$t-r$r.txt | tail -1 | cut -c1-100)"
    done
  done
  for t in $ord; do
    L=$(( 500 - ($(date +%s) - t0) )); [ $L -gt 35 ] || { echo "no time for ex56 $t r$r"; break 2; }
    timeout $(( L < 100 ? L : 100 )) env GPUMAT_CONFIG=cuda GPUMAT_LIB=$PWD/build-cuda/libpetscgpumat.so TUTORIAL_BUILD=$R/tutorials NP=2 MPIEXEC_FLAGS="--bind-to none" \
      bash conf/tutorial.sh ksp/ksp/tutorials/ex56 -ne 60 -ksp_type cg -pc_type gamg -ksp_rtol 1e-8 -ksp_converged_reason -mat_type $t -log_view :$R/ex56-$t-r$r-log.txt > $R/ex56-$t-r$r.txt 2>&1
    echo "ex56 $t r$r rc=$? $(grep -E '^ *[0-9]+: +(Main Stage|Setup|Solve):' $R/ex56-$t-r$r-log.txt | awk '{printf "%s %s ", $2, $3}')"
  done
done
rm -rf $R/tutorials
echo "total $(( $(date +%s) - t0 )) s"
