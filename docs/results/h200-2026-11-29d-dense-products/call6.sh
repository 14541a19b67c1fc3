#!/usr/bin/env bash
# Session 14, call 6: -mat_gpumat_dense_products (spmm / loop / auto) and the test mends (reversed
# CheckNoUpload's one upload, the Galerkin product of two seqaijcusparse matrices not compared):
# every matproduct, ops, convert and optable GPU test; memcheck on the dense case at 1 and 2 ranks;
# bench_matmult -dense 8 and 32 on lap3d 128^3, each type by both routes, at 1 and 2 ranks.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && rm -f results.tgz && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh || { pack; exit 1; }
echo "built after $(el)"
ctest --test-dir build-cuda -L gpu -R "matproduct|[.]ops|convert|optable" -j 12 --timeout 200 --output-on-failure > $R/ctest.txt 2>&1
grep -E "tests passed|\(Failed\)|\(Timeout\)|Total Test" $R/ctest.txt | head -30; echo "ctest after $(el)"; gzip -9 $R/ctest.txt; pack
san=/usr/local/cuda/bin/compute-sanitizer
for np in 1 2; do
  timeout 100 mpiexec -n $np --bind-to none $san --tool memcheck --error-exitcode 9 build-cuda/tests/petsc/test_matproduct -type pjds -operands ours -expect_device -products dense > $R/san-dense-np$np-memcheck.txt 2>&1
  echo "memcheck dense np$np: rc=$? $(grep -E 'ERROR SUMMARY' $R/san-dense-np$np-memcheck.txt | sort | uniq -c | tr '\n' ' ')"
done
pack
export OPENBLAS_NUM_THREADS=1
for np in 1 2; do
  other=$([ $np = 1 ] && echo spmm || echo loop)
  types=aijcusparse:alg1; for t in pjds bccoo bce csrspec gpuauto; do types=$types,$t,$t:gpumat_dense_products=$other; done
  for k in 8 32; do
    timeout 120 mpiexec -n $np --bind-to none build-cuda/examples/bench_matmult -kind lap3d -n 128 -types $types -dense $k -reps 50 -reps_coo 20 -ksp_its 0 -floors 0 > $R/bench-np$np-k$k.txt 2>&1
    echo "bench np$np k$k rc=$? after $(el)"; grep -E "^dense" $R/bench-np$np-k$k.txt | sed -E 's/: C = A B, B dense with [0-9]+ columns: median/ AB/; s/ \(min [^)]*\)//'
  done
done
pack
echo "total $(el)"
