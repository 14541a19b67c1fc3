#!/usr/bin/env bash
# Device call (session 8, fifth; one H200): pjds's dictionary columns with the block's dictionary
# held in registers and read by shuffles (b_r a multiple of 32, at most 32 offsets). Targets only;
# the pjds unit tests (test_cuda, every Pjds test and the typed pjds suite); memcheck and racecheck
# on the dictionary test; bench_matmult (1 rank, and lap3d 150^3 at 2 ranks): pjds (auto), plain,
# and the coded kernel's two instances, against the peers; then ctest -L gpu -R pjds.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name --format=csv,noheader
LOG=$R/build.log source conf/device-build.sh petscgpumat bench_matmult test_cuda solve bratu test_matproduct test_ops test_products test_mpi test_devices test_coo test_api || exit 1
echo "built after $(( $(date +%s) - t0 )) s"
T=$(find build-cuda/tests/unit -maxdepth 1 -name test_cuda -type f | head -1)
timeout 120 $T --gtest_filter='*Pjds*:*pjds*' > $R/unit-pjds.txt 2>&1; echo "unit pjds rc=$? $(grep -E '^\[  (PASSED|FAILED) ' $R/unit-pjds.txt | tr '\n' ' ')"; grep -E "^\[  FAILED" $R/unit-pjds.txt | head
S=/usr/local/cuda/bin/compute-sanitizer
for tool in memcheck racecheck; do
  timeout 60 $S --tool $tool --error-exitcode 9 $T --gtest_filter='PjdsDevice.DictionaryColumnsBitwiseEqualToPlain' > $R/$tool.txt 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED' $R/$tool.txt | tr '\n' ' ')"
done
echo "tests after $(( $(date +%s) - t0 )) s"
B=build-cuda/examples/bench_matmult
TY=aijcusparse:alg1,cusparsesell,pjds,pjds:columns=plain,pjds:occupancy=4,pjds:occupancy=6,pjds:columns=plain:occupancy=6
for m in lap3d:150 lap3d27:100 fem3:40 lap2d:2000; do
  L=$(( 330 - ($(date +%s) - t0) )); [ $L -gt 20 ] || { echo "no time for $m"; break; }
  timeout $L $B -matrix gen:$m -types $TY -reps 200 -ksp_its 0 -floors 0 > $R/bench-${m/:/-}.txt 2>&1
  echo "bench $m rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "^(aijcusparse|cusparsesell|pjds)" $R/bench-${m/:/-}.txt | cut -c1-100
done
L=$(( 370 - ($(date +%s) - t0) ))
[ $L -gt 20 ] && timeout $L mpiexec -n 2 --bind-to none $B -matrix gen:lap3d:150 -types aijcusparse:alg1,pjds,pjds:columns=plain -reps 200 -ksp_its 0 -floors 0 > $R/bench-np2-lap3d-150.txt 2>&1
echo "bench np2 rc=$?"; grep -E "^(aijcusparse|pjds)" $R/bench-np2-lap3d-150.txt | cut -c1-100
L=$(( 420 - ($(date +%s) - t0) ))
[ $L -gt 20 ] && timeout $L ctest --test-dir build-cuda -L gpu -R "gpu[.]pjds[.]" -j 8 --timeout 60 > $R/ctest-pjds.txt 2>&1
echo "ctest pjds rc=$? $(grep -E 'tests passed|tests failed' $R/ctest-pjds.txt)"; grep -E "\(Failed\)|Timeout|Not Run" $R/ctest-pjds.txt | head
echo "total $(( $(date +%s) - t0 )) s"
