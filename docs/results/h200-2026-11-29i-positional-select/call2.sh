#!/usr/bin/env bash
# Session 19, call 2 (branch s19-positional-select): the positional product with its sums selected
# instead of a branch around the padding. Device tests of pjds (bitwise against the host), memcheck
# on the positional ones, ctest's positional and pjds tests, then pjds against its positional
# columns on four stencils (100 products each, one process a matrix, as call 1), and the floors.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && rm -f results.tgz && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh || { pack; exit 1; }
echo "built after $(el)"
timeout 200 build-cuda/tests/unit/test_cuda --gtest_filter='PjdsDevice.*:PjdsDeviceSpecial.*:PjdsDeviceFuzz.*:PjdsDeviceSanitizer.*:FormatDevice/pjds*' > $R/unit.txt 2>&1; echo "unit rc=$? after $(el)"
grep -E "^\[  (PASSED|FAILED) " $R/unit.txt; gzip -9 $R/unit.txt; pack
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 7 build-cuda/tests/unit/test_cuda --gtest_filter='PjdsDevice.Positional*:PjdsDeviceSanitizer.*' > $R/memcheck.txt 2>&1; echo "memcheck rc=$? after $(el)"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | head -3; gzip -9 $R/memcheck.txt; pack
timeout 150 ctest --test-dir build-cuda -R "positional|gpu[.]pjds[.]" -j 12 --timeout 140 --output-on-failure > $R/ctest.txt 2>&1; echo "ctest rc=$? after $(el)"; grep -E "tests passed|\(Failed\)|\(Timeout\)" $R/ctest.txt; gzip -9 $R/ctest.txt; pack
export OPENBLAS_NUM_THREADS=1
for m in gen:lap3dv:200 gen:lap3d:200 gen:lap3d27:120 gen:lap2d:3000 gen:fem3:90; do
  n=${m//:/_}
  timeout 60 build-cuda/examples/bench_matmult -matrix $m -types aijcusparse:alg1,pjds,pjds:columns=positional -reps 100 -ksp_its 0 -floors 0 > $R/np1-$n.txt 2>&1
  echo "$m rc=$? after $(el)"; grep -E "^type|^(aijcusparse|pjds)" $R/np1-$n.txt | cut -c1-120
  pack
done
m=gen:lap3d:200; n=${m//:/_}
timeout 120 build-cuda/examples/bench_matmult -matrix $m -types pjds,pjds:columns=positional -reps 50 -ksp_its 0 -floors 1 > $R/floors-$n.txt 2>&1
echo "floors $m rc=$? after $(el)"; grep -E "^floor:(pjds-gather|pjds-pos-table-(gather|w4-gather|skip|mask)|stream)|^pjds" $R/floors-$n.txt | cut -c1-100; pack
echo "total $(el)"
