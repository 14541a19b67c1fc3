#!/usr/bin/env bash
# Device call (session 8, fourth; one H200): pjds's dictionary columns (-mat_pjds_columns, auto by
# default). Full build; GPU tests (unit: the typed format suite with the dictionary variants and
# PjdsDevice.DictionaryColumnsBitwiseEqualToPlain; ops, products, matproduct at 1-4 ranks);
# compute-sanitizer memcheck, racecheck, synccheck on the new test; bench_matmult on regular
# matrices: pjds (auto: coded) against pjds:columns=plain and the peers, one run each, 200 reps;
# CG + Jacobi lap3d 150^3 at 1 rank, pjds against aijcusparse.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name --format=csv,noheader
LOG=$R/build.log source conf/device-build.sh || exit 1
echo "built after $(( $(date +%s) - t0 )) s"
timeout 200 ctest --test-dir build-cuda -L gpu -R "unit|\.ops|products|matproduct" -j 8 --timeout 180 --output-on-failure > $R/ctest.txt 2>&1
echo "ctest rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "tests passed|tests failed|\(Failed\)|Timeout|\*\*\*" $R/ctest.txt | head -30
S=/usr/local/cuda/bin/compute-sanitizer
T=$(find build-cuda/tests/unit -maxdepth 1 -name test_cuda -type f | head -1)
for tool in memcheck racecheck synccheck; do
  timeout 90 $S --tool $tool --error-exitcode 9 $T --gtest_filter='PjdsDevice.DictionaryColumnsBitwiseEqualToPlain' > $R/$tool.txt 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED' $R/$tool.txt | tr '\n' ' ')"
done
echo "sanitizers after $(( $(date +%s) - t0 )) s"
B=build-cuda/examples/bench_matmult
for m in lap3d:150 lap3d27:100 fem3:40 lap2d:2000; do
  L=$(( 470 - ($(date +%s) - t0) )); [ $L -gt 30 ] || { echo "no time for $m"; break; }
  timeout $L $B -matrix gen:$m -types aijcusparse:alg1,cusparsesell,sellcuda,pjds,pjds:columns=plain -reps 200 -ksp_its 0 -view_types 1 > $R/bench-${m/:/-}.txt 2>&1
  echo "bench $m rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "^(aijcusparse|cusparsesell|sellcuda|pjds|floor:pjds)" $R/bench-${m/:/-}.txt | cut -c1-150
  grep -E "columns:" $R/bench-${m/:/-}.txt | head -2
done
for cols in auto plain; do
  L=$(( 545 - ($(date +%s) - t0) )); [ $L -gt 20 ] || break
  timeout $L mpiexec -n 1 --bind-to none build-cuda/examples/solve -kind lap3d -n 150 -types aijcusparse,pjds -vec_type cuda -pc_type jacobi -ksp_rtol 1e-12 -ksp_max_it 300 -mat_pjds_columns $cols > $R/solve-jacobi-$cols.txt 2>&1
  echo "solve -mat_pjds_columns $cols rc=$?"; grep -E "^(type|seqaij)" $R/solve-jacobi-$cols.txt
done
echo "total $(( $(date +%s) - t0 )) s"
