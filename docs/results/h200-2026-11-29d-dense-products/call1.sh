#!/usr/bin/env bash
# Session 14, call 1: the GPU runs session 13 could not make, on HEAD plus ShadowOnDevice without its
# own read of the shadow's values (the callers read them): every matproduct, ops, convert and optable
# GPU test (the -operands reversed twins; the dense and into_aij cases inside every matproduct/ops
# run), then compute-sanitizer memcheck/synccheck on the reversed and dense products at 1 and 2 ranks.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh || { pack; exit 1; }
echo "built after $(el)"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $R/gpu.txt
ctest --test-dir build-cuda -L gpu -R "matproduct|[.]ops|convert|optable" -j 12 --timeout 200 --output-on-failure > $R/ctest.txt 2>&1
grep -E "tests passed|\(Failed\)|\(Timeout\)|Total Test" $R/ctest.txt | head -30; echo "ctest after $(el)"; gzip -9 $R/ctest.txt; pack
san=/usr/local/cuda/bin/compute-sanitizer
for np in 1 2; do for tool in memcheck synccheck; do
  timeout 100 mpiexec -n $np --bind-to none $san --tool $tool --error-exitcode 9 build-cuda/tests/petsc/test_matproduct -type pjds -operands reversed -expect_device -products ab,ptap,abc,dense > $R/san-rev-np$np-$tool.txt 2>&1
  echo "$tool reversed np$np: rc=$? $(grep -E 'ERROR SUMMARY' $R/san-rev-np$np-$tool.txt | sort | uniq -c | tr '\n' ' ')"
  pack
done; done
rm -f $OUT/results.tgz; pack; rm -rf $R
echo "total $(el)"
