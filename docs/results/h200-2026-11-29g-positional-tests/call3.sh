#!/usr/bin/env bash
# Session 17, call 3 (branch s16-merge-trial + the positional guard): the guard's GPU tests, pjds
# positional on ex13 and at 2 ranks (its off-diagonal block now declined), then issue 36: CG + GAMG
# on lap3d 128^3, aijcusparse against pjds, three runs each at 1 rank and 2 ranks on one GPU, and the
# set-up's host operations of pjds (-info).
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && rm -f results.tgz && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh || { pack; exit 1; }
echo "built after $(el)"
( EX19_GRID=800 EX56_NE=49 EX13_CELLS=40 timeout 150 bash bench/tutorial_matrices.sh /tmp/tut small > $R/tutorials.txt 2>&1; echo "tutorials rc=$?" >> $R/tutorials.txt ) &
( timeout 150 build-cuda/tests/unit/test_cuda --gtest_filter='PjdsDevice.PositionalDeclinedAsTheHost:PjdsDevice.PositionalStencil*:PjdsDevice.PositionalNodeGroups:PjdsDeviceFuzz.PositionalRandomPatterns:FormatDevice/pjds_double.*' > $R/unit.txt 2>&1; echo "unit rc=$?" >> $R/unit.txt ) &
timeout 150 ctest --test-dir build-cuda -R "positional|gpu[.]pjds[.]api_|gpu[.]pjds[.]products[.]" -j 8 --timeout 120 --output-on-failure > $R/ctest.txt 2>&1
wait
grep -E "^\[  (PASSED|FAILED) |unit rc" $R/unit.txt; grep -E "tests passed|\(Failed\)|\(Timeout\)|\(SEGFAULT\)" $R/ctest.txt; tail -2 $R/tutorials.txt
echo "tests after $(el)"; gzip -9 $R/ctest.txt $R/unit.txt; pack
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 7 build-cuda/tests/unit/test_cuda --gtest_filter='PjdsDevice.PositionalDeclinedAsTheHost' > $R/memcheck.txt 2>&1; echo "memcheck rc=$?"; grep -E "ERROR SUMMARY" $R/memcheck.txt
export OPENBLAS_NUM_THREADS=1
f=/tmp/tut/ex13_poisson_q2.bin
[ -f $f ] && { timeout 45 build-cuda/examples/bench_matmult -matrix $f -types cusparsesell,pjds,pjds:columns=positional -reps 100 -ksp_its 0 -floors 0 > $R/np1-ex13.txt 2>&1; echo "ex13 rc=$?"; grep -E "^(cusparsesell|pjds)" $R/np1-ex13.txt | cut -c1-110; }
timeout 60 mpiexec -n 2 --bind-to none build-cuda/examples/bench_matmult -matrix gen:lap3dv:200 -types pjds,pjds:columns=positional -reps 100 -ksp_its 0 -floors 0 > $R/np2-lap3dv.txt 2>&1; echo "np2 rc=$? after $(el)"; grep -E "^(pjds)|^split" $R/np2-lap3dv.txt | cut -c1-130
pack
timeout 60 build-cuda/examples/solve -kind lap3d -n 128 -ksp_type cg -pc_type gamg -mat_type pjds -vec_type cuda -info > $R/gamg-info-pjds.txt 2>&1; echo "info rc=$?"
grep -hoE "(MatScale|MatDiagonalScale|MatAXPY|MatProduct)[^\[]*(host|GPU only)[^\[]*" $R/gamg-info-pjds.txt | sort | uniq -c | sort -rn | head -20; gzip -9 $R/gamg-info-pjds.txt; pack
for np in 1 2; do
  [ $(( $(date +%s) - t0 )) -lt 430 ] || { echo "no time for np$np"; continue; }
  PROBLEMS="lap3d:128" PCS="gamg" NS="" EX56_NE="" EX19_N="" FP32_PCS="" TYPES=pjds REPEAT=3 NP=$np OUT=$R/np$np timeout 150 bash conf/solvers.sh > $R/solvers-np$np.txt 2>&1
  echo "gamg np$np rc=$? after $(el)"; cat $R/np$np/solvers.md 2>/dev/null | head -12
  pack
done
echo "total $(el)"
