#!/usr/bin/env bash
# Draft for session 20's first device call (branch s19-auto-positional checked out): auto's
# positional columns (values as stored, matrix order, short rows, at most 0.75 of the 32-bit
# bytes; judged on the sample first). Device tests (PjdsDevice.AutoPositionalAsTheHost among them),
# memcheck and racecheck on the positional tests, the PETSc-level pjds and gpuauto tests; then pjds
# (auto) against pjds with plain columns and the positional request on the stencils, gpuauto's
# choice and its prediction key, 9 builds each.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && rm -f results.tgz && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh || { pack; exit 1; }
echo "built after $(el)"
timeout 200 build-cuda/tests/unit/test_cuda --gtest_filter='PjdsDevice.*:PjdsDeviceSpecial.*:PjdsDeviceFuzz.*:PjdsDeviceSanitizer.*:FormatDevice/pjds*' > $R/unit.txt 2>&1; echo "unit rc=$? after $(el)"
grep -E "^\[  (PASSED|FAILED) " $R/unit.txt; gzip -9 $R/unit.txt; pack
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 7 build-cuda/tests/unit/test_cuda --gtest_filter='PjdsDevice.AutoPositionalAsTheHost:PjdsDevice.Positional*' > $R/memcheck.txt 2>&1; echo "memcheck rc=$? after $(el)"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | head -3; gzip -9 $R/memcheck.txt; pack
timeout 200 compute-sanitizer --tool racecheck --error-exitcode 7 build-cuda/tests/unit/test_cuda --gtest_filter='PjdsDevice.AutoPositionalAsTheHost:PjdsDevice.PositionalStencilBitwiseEqualToPlain' > $R/racecheck.txt 2>&1; echo "racecheck rc=$? after $(el)"; grep -E "RACECHECK SUMMARY|PASSED|FAILED" $R/racecheck.txt | head -3; gzip -9 $R/racecheck.txt; pack
timeout 150 ctest --test-dir build-cuda -R "positional|gpu[.]pjds[.]|gpu[.]gpuauto[.]" -j 12 --timeout 140 --output-on-failure > $R/ctest.txt 2>&1; echo "ctest rc=$? after $(el)"; grep -E "tests passed|\(Failed\)|\(Timeout\)" $R/ctest.txt; gzip -9 $R/ctest.txt; pack
export OPENBLAS_NUM_THREADS=1
for m in gen:lap3dv:200 gen:lap3d:200 gen:lap3d27:120 gen:lap2d:3000 gen:fem3:90; do
  n=${m//:/_}
  timeout 90 build-cuda/examples/bench_matmult -matrix $m -types aijcusparse:alg1,pjds,pjds:columns=plain,pjds:columns=positional,gpuauto -reps 100 -reps_build 9 -ksp_its 0 -floors 0 > $R/np1-$n.txt 2>&1
  echo "$m rc=$? after $(el)"; grep -E "^type|^(aijcusparse|pjds|gpuauto)" $R/np1-$n.txt | cut -c1-130; grep -E "^(pjds|gpuauto)" $R/np1-$n.txt | grep -oE "reads [0-9.]+ B/nnz"
  pack
done
echo "total $(el)"
