#!/usr/bin/env bash
# Draft for session 21's first device call (branch s20-positional-fp32 checked out: s20-positional-table
# and the fp32 commits on it): auto's positional columns over an 8-bit value table on wide rows and
# under fp32 storage. Device tests (PjdsDevice.AutoPositionalTableAsTheHost, AutoPositionalAsTheHost,
# AutoCodesWideRowsOnly among them), memcheck on the new table test (racecheck: call 2), the PETSc-level pjds and
# gpuauto tests (gpu.pjds.api_columns_auto_positional_table, gpu.pjds.api_fp32_positional among them).
# The products: .carry/next21-call2.sh, warm (within 30 s).
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && rm -f results.tgz && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh || { pack; exit 1; }
echo "built after $(el)"
timeout 150 build-cuda/tests/unit/test_cuda --gtest_filter='PjdsDevice.*:PjdsDeviceSpecial.*:PjdsDeviceFuzz.*:PjdsDeviceSanitizer.*:FormatDevice/pjds*' > $R/unit.txt 2>&1; echo "unit rc=$? after $(el)"
grep -E "^\[  (PASSED|FAILED) " $R/unit.txt; gzip -9 $R/unit.txt; pack
timeout 80 compute-sanitizer --tool memcheck --error-exitcode 7 build-cuda/tests/unit/test_cuda --gtest_filter='PjdsDevice.AutoPositionalTableAsTheHost' > $R/memcheck.txt 2>&1; echo "memcheck rc=$? after $(el)"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | head -3; gzip -9 $R/memcheck.txt; pack
LC_ALL=C timeout 280 ctest --test-dir build-cuda -R "positional|gpu[.]pjds[.]|gpu[.]gpuauto[.]" -j 14 --timeout 200 --output-on-failure > $R/ctest.txt 2>&1; echo "ctest rc=$? after $(el)"; grep -E "tests passed|\(Failed\)|\(Timeout\)" $R/ctest.txt; gzip -9 $R/ctest.txt; pack
echo "total $(el)"
