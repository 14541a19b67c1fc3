#!/usr/bin/env bash
# Session 17, call 1, branch s16-merge-trial (4981dd1): the GPU tests of positional columns, 16-bit
# codes and the factor's D2D staging, with memcheck/racecheck on the new kernels at the same time;
# then the product (one process a matrix, tests finished) on the four stencils.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && rm -f results.tgz && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh || { pack; exit 1; }
echo "built after $(el)"
F='PjdsDevice.*:PjdsDeviceFuzz.*:FormatDevice/pjds*'
( timeout 220 build-cuda/tests/unit/test_cuda --gtest_filter="$F" > $R/unit-pjds.txt 2>&1; echo "unit rc=$?" >> $R/unit-pjds.txt ) &
( timeout 240 compute-sanitizer --tool memcheck --error-exitcode 7 build-cuda/tests/unit/test_cuda --gtest_filter='PjdsDevice.Positional*:PjdsDevice.*Table*' > $R/memcheck.txt 2>&1; echo "memcheck rc=$?" >> $R/memcheck.txt ) &
( timeout 200 compute-sanitizer --tool racecheck --error-exitcode 7 build-cuda/tests/unit/test_cuda --gtest_filter='PjdsDevice.PositionalStencil*:PjdsDevice.Table16SetStopsAtTheCap' > $R/racecheck.txt 2>&1; echo "racecheck rc=$?" >> $R/racecheck.txt ) &
timeout 280 ctest --test-dir build-cuda -R "positional|table|gpu[.]pjds[.]|[.]ksp[.]gmres_ilu[.]np1|[.]coo[.]np1|dll_append[.]np1|ops_factor" -j 10 --timeout 200 --output-on-failure > $R/ctest.txt 2>&1
wait
grep -E "^\[  (PASSED|FAILED) |tests ran|unit rc" $R/unit-pjds.txt | head -20; grep -E "tests passed|\(Failed\)|\(Timeout\)|\(SEGFAULT\)|Not Run" $R/ctest.txt | head -20
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED|rc=" $R/memcheck.txt $R/racecheck.txt | head -12
echo "tests after $(el)"; gzip -9 $R/ctest.txt $R/unit-pjds.txt $R/memcheck.txt $R/racecheck.txt; pack
export OPENBLAS_NUM_THREADS=1
T=aijcusparse:alg1,cusparsesell,pjds,pjds:columns=positional,pjds:values=plain
for m in gen:lap3dv:200 gen:lap3d:200 gen:lap3d27:120 gen:lap2d:3000; do
  [ $(( $(date +%s) - t0 )) -lt 520 ] || { echo "no time for $m"; continue; }
  n=${m//:/_}
  timeout 60 build-cuda/examples/bench_matmult -matrix $m -types $T -reps 100 -ksp_its 0 -floors 0 > $R/np1-$n.txt 2>&1
  echo "$m np1 rc=$? after $(el)"; grep -E "^(aijcusparse|cusparsesell|pjds)" $R/np1-$n.txt | cut -c1-90
  pack
done
echo "total $(el)"
