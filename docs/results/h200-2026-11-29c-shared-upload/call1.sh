#!/usr/bin/env bash
# Device call 1 (session 13, one H200): one upload of the CSR for a block's format and its aijcusparse
# shadow (-mat_gpumat_device_csr, block.cxx BuildOnDevice, shadow.cxx; MPI shadows on the blocks'
# shadows). CG + GAMG lap3d 128^3 at 1 rank: aijcusparse, pjds, pjds -mat_gpumat_device_csr 0,
# alternating, twice, one BLAS thread, GPU timers; one pjds run with -info for where MatScale copies
# values back; compute-sanitizer on the new test case (test_matproduct -products shared, with
# ptap); then every GPU test (the path of every device build changed) in the time left.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh || { pack; exit 1; }
echo "built after $(el)"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
G="build-cuda/examples/solve -kind lap3d -n 128 -vec_type cuda -pc_type gamg -ksp_rtol 1e-8 -warmup 0 -log_view -log_view_gpu_time"
for k in 1 2; do for v in aijcusparse pjds pjds-off; do
  t=${v%-off}; X=""; [ $v = pjds-off ] && X="-mat_gpumat_device_csr 0"
  timeout 100 mpiexec -n 1 --bind-to none $G -types $t $X > $R/gamg-$v-$k.txt 2>&1
  echo "gamg $v run $k rc=$? $(grep -A1 -E '^type +its' $R/gamg-$v-$k.txt | tail -1 | cut -c1-110)"
  grep -E "^(PCSetUp |KSPSolve |PCGAMG Opt l00|MatCUSPARSCopyTo|MatScale|PjdsBuild|GpumatShadow )" $R/gamg-$v-$k.txt | cut -c1-60,150-200
done; done
for f in $R/gamg-*.txt; do gzip -9 $f; done
timeout 100 mpiexec -n 1 --bind-to none build-cuda/examples/solve -kind lap3d -n 128 -vec_type cuda -pc_type gamg -ksp_rtol 1e-8 -warmup 0 -types pjds -info :mat > $R/info-pjds.txt 2>&1
echo "info run rc=$?"
grep -E "MatScale|copied|host path|MatAXPY|MatDiagonalScale" $R/info-pjds.txt | sed -E 's/^\[[0-9]+\] //; s/[0-9]+/N/g' | sort | uniq -c | sort -rn | head -20
gzip -9 $R/info-pjds.txt
san=/usr/local/cuda/bin/compute-sanitizer
for tool in memcheck racecheck synccheck; do
  timeout 90 $san --tool $tool --error-exitcode 9 build-cuda/tests/petsc/test_matproduct -type pjds -operands ours -expect_device -products shared,ptap > $R/san-shared-$tool.txt 2>&1
  echo "$tool shared: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/san-shared-$tool.txt | tail -1)"
done
echo "sanitizer after $(el)"; pack
left=$(( 575 - ($(date +%s) - t0) )); echo "ctest gets ${left} s"
timeout $left ctest --test-dir build-cuda -L gpu -j 12 --timeout 120 --output-on-failure > $R/ctest.txt 2>&1
grep -E "tests passed|\(Failed\)|\(Timeout\)|Total Test" $R/ctest.txt | head -30; echo "ctest after $(el)"; gzip -9 $R/ctest.txt; pack
pack; rm -rf $R
echo "total $(el)"
