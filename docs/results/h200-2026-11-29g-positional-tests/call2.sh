#!/usr/bin/env bash
# Session 17, call 2, branch s16-merge-trial + the test mend: the GPU tests call 1 did not finish
# (unit: the mended PositionalStoredZerosAndInfiniteX, PjdsDeviceFuzz, FormatDevice/pjds*; ctest: the 17 call 1 did not reach),
# racecheck and synccheck on short positional/table tests; then PETSc's ex19/ex56/ex13 operators
# (one process a matrix), lap3dv and ex56 at 2 ranks on one GPU, the packed-code floors.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && rm -f results.tgz && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh || { pack; exit 1; }
echo "built after $(el)"
( EX19_GRID=800 EX56_NE=49 EX13_CELLS=40 timeout 150 bash bench/tutorial_matrices.sh /tmp/tut small > $R/tutorials.txt 2>&1; echo "tutorials rc=$?" >> $R/tutorials.txt ) &
F='PjdsDevice.PositionalStoredZerosAndInfiniteX:PjdsDeviceFuzz.*:FormatDevice/pjds*'
( timeout 240 build-cuda/tests/unit/test_cuda --gtest_filter="$F" > $R/unit-pjds.txt 2>&1; echo "unit rc=$?" >> $R/unit-pjds.txt ) &
timeout 240 ctest --test-dir build-cuda -R "^(gpu[.]pjds[.]api_fp32[.]np2|gpu[.]pjds[.]api_pmat_fp32[.]np2|gpu[.]pjds[.]coo[.]np4|gpu[.]pjds[.]matproduct[.]np4|gpu[.]pjds[.]matproduct_aij[.]np4|gpu[.]pjds[.]matproduct_reversed[.]np4|gpu[.]pjds[.]mpi[.]np3|gpu[.]pjds[.]mpi[.]np4|gpu[.]pjds[.]mpi_columns_dictionary[.]np2|gpu[.]pjds[.]mpi_columns_positional[.]np2|gpu[.]pjds[.]mpi_plain[.]np2|gpu[.]pjds[.]mpi_values_table[.]np2|gpu[.]pjds[.]ops[.]np4|gpu[.]pjds[.]ops_device[.]np4|gpu[.]pjds[.]snes_bratu[.]np2|pjds[.]mpi_hostref_columns_positional[.]np3|pjds[.]mpi_hostref_values_table[.]np3)$" -j 10 --timeout 200 --output-on-failure > $R/ctest.txt 2>&1
wait
grep -E "^\[  (PASSED|FAILED) |tests ran|unit rc" $R/unit-pjds.txt | head -20; grep -E "tests passed|\(Failed\)|\(Timeout\)|\(SEGFAULT\)|Not Run" $R/ctest.txt | head -20; tail -3 $R/tutorials.txt
echo "tests after $(el)"; gzip -9 $R/ctest.txt $R/unit-pjds.txt; pack
for tool in racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 7 build-cuda/tests/unit/test_cuda --gtest_filter='PjdsDevice.PositionalTableCountsTheSentinel:PjdsDevice.PositionalFp32:PjdsDevice.Table16LimitAndEveryOccupancy' > $R/$tool.txt 2>&1; echo "$tool rc=$? after $(el)"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $R/$tool.txt | head -4
done
gzip -9 $R/racecheck.txt $R/synccheck.txt; pack
export OPENBLAS_NUM_THREADS=1
T=aijcusparse:alg1,cusparsesell,pjds,pjds:columns=positional,pjds:values=plain
for m in /tmp/tut/ex19_cavity.bin /tmp/tut/ex56_elasticity.bin /tmp/tut/ex13_poisson_q2.bin; do
  n=$(basename $m .bin)
  timeout 60 build-cuda/examples/bench_matmult -matrix $m -types $T -reps 100 -ksp_its 0 -floors 0 > $R/np1-$n.txt 2>&1
  echo "$m np1 rc=$? after $(el)"; grep -E "^(aijcusparse|cusparsesell|pjds)" $R/np1-$n.txt | cut -c1-90
  pack
done
for m in gen:lap3dv:200 /tmp/tut/ex56_elasticity.bin; do
  [ $(( $(date +%s) - t0 )) -lt 480 ] || { echo "no time for np2 $m"; continue; }
  n=$(basename ${m//:/_} .bin)
  timeout 60 mpiexec -n 2 --bind-to none build-cuda/examples/bench_matmult -matrix $m -types aijcusparse:alg1,pjds,pjds:columns=positional -reps 100 -ksp_its 0 -floors 0 > $R/np2-$n.txt 2>&1
  echo "$m np2 rc=$? after $(el)"; grep -E "^(aijcusparse|mpiaij|pjds)" $R/np2-$n.txt | cut -c1-90
  pack
done
for m in gen:lap3d:200 gen:lap3d27:120; do
  [ $(( $(date +%s) - t0 )) -lt 540 ] || { echo "no time for floors $m"; continue; }
  n=${m//:/_}
  timeout 45 build-cuda/examples/bench_matmult -matrix $m -types pjds -reps 100 -ksp_its 0 -floors 1 > $R/floors-$n.txt 2>&1
  echo "$m floors rc=$? after $(el)"; grep -E "^floor:pjds-(pos-table|table)|^pjds " $R/floors-$n.txt | cut -c1-80
  pack
done
echo "total $(el)"
