#!/usr/bin/env bash
# Session 17, call 6: main after the splits of pjds_build.cu and floors_rowgrouped.cu and
# bench_matmult's -split_alone: every pjds device unit test (those the session had not run among
# them), racecheck on the small-matrix test of every layout, then lap3dv at 2 ranks on the one GPU (the split timed one rank at a time), then the
# positional floors on lap3d27 (each checks its y before it is timed).
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && rm -f results.tgz && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh || { pack; exit 1; }
echo "built after $(el)"
timeout 110 build-cuda/tests/unit/test_cuda --gtest_filter='PjdsDevice.*:PjdsDeviceSpecial.*:PjdsDeviceFuzz.*:PjdsDeviceSanitizer.*:FormatDevice/pjds*' > $R/unit.txt 2>&1; echo "unit rc=$? after $(el)"
grep -E "^\[  (PASSED|FAILED) |tests ran" $R/unit.txt; grep -cE "^\[ +OK \]" $R/unit.txt; gzip -9 $R/unit.txt; pack
for tool in racecheck; do
  timeout 45 compute-sanitizer --tool $tool --error-exitcode 7 build-cuda/tests/unit/test_cuda --gtest_filter='PjdsDeviceSanitizer.*' > $R/$tool.txt 2>&1; echo "$tool rc=$? after $(el)"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $R/$tool.txt | head -3
done
gzip -9 $R/racecheck.txt; pack
export OPENBLAS_NUM_THREADS=1
[ $(( $(date +%s) - t0 )) -lt 250 ] && timeout 35 mpiexec -n 2 --bind-to none build-cuda/examples/bench_matmult -matrix gen:lap3dv:200 -types aijcusparse:alg1,pjds,pjds:columns=positional -reps 100 -ksp_its 0 -floors 0 > $R/np2-lap3dv.txt 2>&1; echo "np2 rc=$? after $(el)"; grep -E "^(aijcusparse|pjds)|^split" $R/np2-lap3dv.txt | cut -c1-140
pack
[ $(( $(date +%s) - t0 )) -lt 270 ] && timeout 35 build-cuda/examples/bench_matmult -matrix gen:lap3d27:120 -types pjds -reps 100 -ksp_its 0 -floors 1 > $R/floors-lap3d27.txt 2>&1; echo "floors rc=$? after $(el)"; grep -E "^floor:pjds-pos|^pjds |!!|mismatch|fail" $R/floors-lap3d27.txt | cut -c1-80
pack
echo "total $(el)"
