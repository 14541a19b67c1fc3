#!/usr/bin/env bash
# Device call (session 9, second; one H200): pjds's compressed layouts auto by default (values:
# the table wherever it reads fewer bytes; columns: dictionary only on rows of >= 16 entries).
# Full build; unit pjds tests (AutoCodesWideRowsOnly new); sanitizers on it; ctest gpu.pjds;
# then the suite's generated matrices, pjds as default against pjds plain (columns and values)
# and aijcusparse ALG1, in one process per matrix.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name --format=csv,noheader
LOG=$R/build.log source conf/device-build.sh || exit 1
echo "built after $(( $(date +%s) - t0 )) s"
T=$(find build-cuda/tests/unit -maxdepth 1 -name test_cuda -type f | head -1)
timeout 150 $T --gtest_filter='*Pjds*:*pjds*' > $R/unit-pjds.txt 2>&1; echo "unit pjds rc=$? $(grep -E '^\[  (PASSED|FAILED) ' $R/unit-pjds.txt | tr '\n' ' ')"; grep -E "^\[  FAILED" $R/unit-pjds.txt | head
S=/usr/local/cuda/bin/compute-sanitizer
for tool in memcheck racecheck synccheck; do
  timeout 60 $S --tool $tool --error-exitcode 9 $T --gtest_filter='PjdsDevice.AutoCodesWideRowsOnly' > $R/$tool.txt 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED' $R/$tool.txt | tr '\n' ' ')"
done
timeout 120 ctest --test-dir build-cuda -L gpu -R "gpu[.]pjds[.]" -j 8 --timeout 100 > $R/ctest-pjds.txt 2>&1
echo "ctest pjds rc=$? $(grep -E 'tests passed|tests failed' $R/ctest-pjds.txt)"; grep -E "\(Failed\)|Timeout" $R/ctest-pjds.txt | head
echo "tests after $(( $(date +%s) - t0 )) s"
B=build-cuda/examples/bench_matmult
TY=aijcusparse:alg1,pjds:columns=plain:values=plain,pjds
for m in lap3d27:160 fem3c:90 fem3:90 lap3d:300 lap3dv:300 lap2d:4500 fem6:64 lap3d:64 fem3:30 short4:30000000 random:8000000 econ:20000000 powerlaw:20000000 circuit:16000000 web:40000000 dense:12000 lp:16384 short4:525825 econ:206500 web:1000005 circuit:5558326 powerlaw:2000000 lp:4096 dense:2000; do
  L=$(( 560 - ($(date +%s) - t0) )); [ $L -gt 25 ] || { echo "no time for $m"; break; }
  timeout $L $B -matrix gen:$m -types $TY -reps 100 -ksp_its 0 -floors 0 -reps_build 1 -view_types 1 > $R/bench-${m/:/-}.txt 2>&1
  echo "bench $m rc=$? after $(( $(date +%s) - t0 )) s $(grep -E '^values:' $R/bench-${m/:/-}.txt)"; grep -E "^(aijcusparse|pjds)" $R/bench-${m/:/-}.txt | awk '{printf "  %-32s med %s build %s\n",$1,$2,$9}'
  grep -E "^ +(columns|values):" $R/bench-${m/:/-}.txt | tail -2 | cut -c1-110
done
echo "total $(( $(date +%s) - t0 )) s"
