#!/usr/bin/env bash
# Session 18, call 2 (main, 0dd4ff2): the pjds device tests whose last form never ran on a GPU
# (f98573f, e129fea) on GPU 0, racecheck on PjdsDeviceSanitizer.* on GPU 1 at the same time.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && rm -f results.tgz && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh test_cuda || { pack; exit 1; }
echo "built after $(el)"
( CUDA_VISIBLE_DEVICES=1 timeout 420 compute-sanitizer --tool racecheck --error-exitcode 7 build-cuda/tests/unit/test_cuda --gtest_filter='PjdsDeviceSanitizer.*' > $R/racecheck.txt 2>&1; echo "racecheck rc=$? after $(el)" >> $R/racecheck.txt ) &
CUDA_VISIBLE_DEVICES=0 timeout 300 build-cuda/tests/unit/test_cuda --gtest_filter='PjdsDevice.*:PjdsDeviceSpecial.*:PjdsDeviceFuzz.*:PjdsDeviceSanitizer.*:FormatDevice/pjds*' > $R/unit.txt 2>&1; echo "unit rc=$? after $(el)"
grep -E "^\[  (PASSED|FAILED) |^\[==========\]" $R/unit.txt; pack
wait; tail -1 $R/racecheck.txt; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|PASSED|FAILED" $R/racecheck.txt | head -4
gzip -9 $R/unit.txt $R/racecheck.txt; pack
echo "total $(el)"
