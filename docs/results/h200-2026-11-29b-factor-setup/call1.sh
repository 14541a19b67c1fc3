#!/usr/bin/env bash
# Device call 1 (session 12, one H200), main at HEAD: the GPU tests of the commits session 11 could not
# run; the product tests under compute-sanitizer; CG + GAMG lap3d 128^3 at 1 rank with -log_view,
# aijcusparse and pjds each in a process of its own (copies, where the set-up's events ran).
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
LOG=$R/build.log source conf/device-build.sh || exit 1
echo "built after $(el)"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
ctest --test-dir build-cuda -L gpu -R "api_pmat_fp32|matproduct|footprint|solve|plex_gamg" -j 8 --timeout 300 --output-on-failure > $R/ctest.txt 2>&1
grep -E "tests passed|Failed|\*\*\*" $R/ctest.txt | head -20; echo "ctest after $(el)"
san=/usr/local/cuda/bin/compute-sanitizer
cmd=$(ctest --test-dir build-cuda -N -V -R '^gpu.pjds.matproduct_aij.np1$' | sed -n 's/.*Test command: //p' | head -1)
echo "product test: $cmd"
for tool in memcheck racecheck synccheck; do
  # the command is mpiexec -n 1 ... test_matproduct args: put the sanitizer before the program
  prog=$(echo "$cmd" | grep -oE '[^ ]*test_matproduct[^ ]*'); args=${cmd#*$prog}
  timeout 200 $san --tool $tool --error-exitcode 9 $prog $args > $R/san-$tool.txt 2>&1
  echo "$tool: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/san-$tool.txt | tail -1)"
done
echo "sanitizer after $(el)"
G="build-cuda/examples/solve -kind lap3d -n 128 -vec_type cuda -pc_type gamg -ksp_rtol 1e-8 -warmup 0 -log_view -log_view_gpu_time -ksp_view"
for t in aijcusparse pjds; do
  timeout 120 mpiexec -n 1 --bind-to none $G -types $t > $R/gamg-$t.txt 2>&1; echo "gamg $t rc=$? $(grep -A1 -E '^type +its' $R/gamg-$t.txt | tail -1 | cut -c1-120)"
  grep -E "^(MatCUSPARSCopyTo|MatCUSPARSCopyFr|MatLUFactorNum|MatLUFactorSym|MatSolve |MatPtAPSymbolic|MatPtAPNumeric|PCSetUp |KSPSolve |MatMult )" $R/gamg-$t.txt | cut -c1-200
  grep -iE "solver type|package used" $R/gamg-$t.txt | sort | uniq -c
done
cd $OUT && tar czf results.tgz r && rm -rf r
echo "total $(el)"
