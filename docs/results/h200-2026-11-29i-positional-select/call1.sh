#!/usr/bin/env bash
# Draft for session 19's first device call (branch s18-positional-sample checked out): the positional
# group chosen on a sample of blocks. Its device tests (the layout the host's: a 4,100-block matrix
# whose sample picks group 2 where every block would pick 1; the stencil tests of 10,900 blocks go
# through the sample too), memcheck on both, the PETSc-level pjds tests, then the build times
# against session 18's (call 4, every group counted over every block: positional 259.75 ms against
# pjds 127.96 on lap3d 200^3; docs/results/h200x2-2026-11-29h-one-rank-per-gpu/call4).
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && rm -f results.tgz && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh || { pack; exit 1; }
echo "built after $(el)"
timeout 200 build-cuda/tests/unit/test_cuda --gtest_filter='PjdsDevice.*:PjdsDeviceSpecial.*:PjdsDeviceFuzz.*:PjdsDeviceSanitizer.*:FormatDevice/pjds*' > $R/unit.txt 2>&1; echo "unit rc=$? after $(el)"
grep -E "^\[  (PASSED|FAILED) " $R/unit.txt; gzip -9 $R/unit.txt; pack
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 7 build-cuda/tests/unit/test_cuda --gtest_filter='PjdsDevice.PositionalGroupChosenOnTheSample:PjdsDevice.PositionalNodeGroups' > $R/memcheck.txt 2>&1; echo "memcheck rc=$? after $(el)"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | head -3; gzip -9 $R/memcheck.txt; pack
timeout 150 ctest --test-dir build-cuda -R "positional|gpu[.]pjds[.]" -j 12 --timeout 140 --output-on-failure > $R/ctest.txt 2>&1; echo "ctest rc=$? after $(el)"; grep -E "tests passed|\(Failed\)|\(Timeout\)" $R/ctest.txt; gzip -9 $R/ctest.txt; pack
export OPENBLAS_NUM_THREADS=1
for m in gen:lap3dv:200 gen:lap3d:200 gen:lap3d27:120 gen:lap2d:3000; do
  n=${m//:/_}
  timeout 60 build-cuda/examples/bench_matmult -matrix $m -types aijcusparse:alg1,pjds,pjds:columns=positional -reps 50 -ksp_its 0 -floors 0 > $R/np1-$n.txt 2>&1
  echo "$m rc=$? after $(el)"; grep -E "^type|^(aijcusparse|pjds)" $R/np1-$n.txt | cut -c1-120
  pack
done
# the branch's bench commits: the w4 floor with 32-bit positions, and the positional product's skip
# of the padding as floors (-skip: the sentinel tested, as the product; -mask: a bit per offset per
# row), against pjds's and the positional product in the same process
for m in gen:lap3d:200 gen:lap3d27:120; do
  n=${m//:/_}
  timeout 120 build-cuda/examples/bench_matmult -matrix $m -types pjds,pjds:columns=positional -reps 50 -ksp_its 0 -floors 1 > $R/floors-$n.txt 2>&1
  echo "floors $m rc=$? after $(el)"; grep -E "^floor:(pjds-gather|pjds-table-w4|pjds-pos-table-(gather|w4-gather|skip|mask)|stream)|^pjds" $R/floors-$n.txt | cut -c1-100; pack
done
echo "total $(el)"
