#!/usr/bin/env bash
# Device call (session 9, first; one H200): branch gpu-next6 (pjds's dictionary read from shared
# memory with b_r a multiple of 32; the value table, -mat_pjds_values) on main. Full build; GPU
# tests (unit: the typed suite with the table variants, PjdsDevice.DictionaryColumns*,
# PjdsDevice.ValueTable*; every gpu.pjds test); memcheck, racecheck, synccheck on the two new unit
# tests; bench_matmult on regular matrices (constant coefficients: lap3d, lap3d27, lap2d; variable:
# fem3): 32-bit/plain against dictionary columns, a value table, both; lap3d 150^3 at 2 ranks.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name --format=csv,noheader
LOG=$R/build.log source conf/device-build.sh || exit 1
echo "built after $(( $(date +%s) - t0 )) s"
T=$(find build-cuda/tests/unit -maxdepth 1 -name test_cuda -type f | head -1)
timeout 150 $T --gtest_filter='*Pjds*:*pjds*' > $R/unit-pjds.txt 2>&1; echo "unit pjds rc=$? $(grep -E '^\[  (PASSED|FAILED) ' $R/unit-pjds.txt | tr '\n' ' ')"; grep -E "^\[  FAILED" $R/unit-pjds.txt | head
S=/usr/local/cuda/bin/compute-sanitizer
for tool in memcheck racecheck synccheck; do
  timeout 90 $S --tool $tool --error-exitcode 9 $T --gtest_filter='PjdsDevice.DictionaryColumns*:PjdsDevice.ValueTable*' > $R/$tool.txt 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED' $R/$tool.txt | tr '\n' ' ')"
done
timeout 120 ctest --test-dir build-cuda -L gpu -R "gpu[.]pjds[.]" -j 8 --timeout 100 > $R/ctest-pjds.txt 2>&1
echo "ctest pjds rc=$? $(grep -E 'tests passed|tests failed' $R/ctest-pjds.txt)"; grep -E "\(Failed\)|Timeout" $R/ctest-pjds.txt | head
echo "tests after $(( $(date +%s) - t0 )) s"
B=build-cuda/examples/bench_matmult
TY=aijcusparse:alg1,cusparsesell,pjds,pjds:columns=auto,pjds:values=auto,pjds:columns=auto:values=auto
for m in lap3d:150 lap3d27:100 fem3:40 lap2d:2000 fem3c:40; do
  L=$(( 480 - ($(date +%s) - t0) )); [ $L -gt 20 ] || { echo "no time for $m"; break; }
  timeout $L $B -matrix gen:$m -types $TY -reps 200 -ksp_its 0 -floors 0 -view_types 1 > $R/bench-${m/:/-}.txt 2>&1
  echo "bench $m rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "^(aijcusparse|cusparsesell|pjds)" $R/bench-${m/:/-}.txt | cut -c1-100
done
L=$(( 540 - ($(date +%s) - t0) ))
[ $L -gt 20 ] && timeout $L mpiexec -n 2 --bind-to none $B -matrix gen:lap3d:150 -types aijcusparse:alg1,pjds,pjds:columns=auto:values=auto -reps 200 -ksp_its 0 -floors 0 > $R/bench-np2-lap3d-150.txt 2>&1
echo "bench np2 rc=$?"; grep -E "^(aijcusparse|pjds)" $R/bench-np2-lap3d-150.txt | cut -c1-100
echo "total $(( $(date +%s) - t0 )) s"
