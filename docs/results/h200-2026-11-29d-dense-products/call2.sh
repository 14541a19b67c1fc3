#!/usr/bin/env bash
# Session 14, call 2: products with a dense operand on the device (A ours, B dense CUDA: aijcusparse's
# dense products on A's shadow) and CheckNoUpload's expectation for -operands reversed (one upload:
# the aijcusparse result's pattern). Every matproduct GPU test; compute-sanitizer memcheck/synccheck
# on the dense case at 1 and 2 ranks; bench_matmult -dense 8 and 32 on lap3d 128^3 at 1 and 2 ranks.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && rm -f results.tgz && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh || { pack; exit 1; }
echo "built after $(el)"
ctest --test-dir build-cuda -L gpu -R "matproduct" -j 12 --timeout 200 --output-on-failure > $R/ctest.txt 2>&1
grep -E "tests passed|\(Failed\)|\(Timeout\)|Total Test" $R/ctest.txt | head -30; echo "ctest after $(el)"; gzip -9 $R/ctest.txt; pack
san=/usr/local/cuda/bin/compute-sanitizer
for np in 1 2; do for tool in memcheck synccheck; do
  timeout 100 mpiexec -n $np --bind-to none $san --tool $tool --error-exitcode 9 build-cuda/tests/petsc/test_matproduct -type pjds -operands ours -expect_device -products dense,ptap > $R/san-dense-np$np-$tool.txt 2>&1
  echo "$tool dense np$np: rc=$? $(grep -E 'ERROR SUMMARY' $R/san-dense-np$np-$tool.txt | sort | uniq -c | tr '\n' ' ')"
done; done
pack
export OPENBLAS_NUM_THREADS=1
for np in 1 2; do for k in 8 32; do
  timeout 150 mpiexec -n $np --bind-to none build-cuda/examples/bench_matmult -kind lap3d -n 128 -types aijcusparse:alg1,pjds,bccoo,bce,csrspec,gpuauto -dense $k -reps 50 -reps_coo 30 -ksp_its 0 -floors 0 > $R/bench-np$np-k$k.txt 2>&1
  echo "bench np$np k$k rc=$? after $(el)"; grep -E "^dense" $R/bench-np$np-k$k.txt
done; done
pack
echo "total $(el)"
