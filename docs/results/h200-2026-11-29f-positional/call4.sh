#!/usr/bin/env bash
# Session 16, call 4: pjds's positional columns (branch s16-positional-device, merged into s16-try)
# on the GPU: its unit tests and PETSc tests; the 8 mpi tests call 1 did not reach; then pjds's
# product with -mat_pjds_columns positional against its default, one process each, 4 stencils.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && rm -f results.tgz && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh || { pack; exit 1; }
echo "built after $(el)"
( timeout 150 build-cuda/tests/unit/test_cuda --gtest_filter='PjdsDevice.Positional*:PjdsDeviceFuzz.PositionalRandomPatterns:FormatDevice/pjds_*' > $R/unit-positional.txt 2>&1; echo "unit rc=$?" >> $R/unit-positional.txt ) &
timeout 170 ctest --test-dir build-cuda -R "positional|^bce[.]mpi[.]np2|^bce[.]mpi_hostref[.]np2|^csrspec[.]mpi[.]np2|^csrspec[.]mpi_hostref[.]np2|^gpu[.]bce[.]mpi[.]np2|^gpu[.]csrspec[.]mpi[.]np2|^gpu[.]cusparsebsr[.]mpi[.]np2|^gpuauto[.]mpi[.]np2" -j 14 --timeout 150 --output-on-failure > $R/ctest.txt 2>&1
wait
tail -4 $R/unit-positional.txt; grep -E "tests passed|\(Failed\)|\(Timeout\)|\(SEGFAULT\)|Total Test" $R/ctest.txt | head; echo "tests after $(el)"; gzip -9 $R/ctest.txt $R/unit-positional.txt; pack
export OPENBLAS_NUM_THREADS=1
for m in gen:lap3d:200 gen:lap3d27:120 gen:lap2d:3000 gen:lap3dv:200; do
  n=${m//:/_}
  for c in auto positional; do
    timeout 45 build-cuda/examples/bench_matmult -matrix $m -types aijcusparse:alg1,pjds -reps 50 -ksp_its 0 -mat_pjds_columns $c > $R/bench-$n-$c.txt 2>&1
    echo "$m $c rc=$? after $(el): $(grep -E '^pjds ' $R/bench-$n-$c.txt | cut -c1-60)"
  done
  pack
done
echo "total $(el)"
