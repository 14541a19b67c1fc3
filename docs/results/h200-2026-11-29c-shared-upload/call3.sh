#!/usr/bin/env bash
# Device call 3 (session 13, one H200): -mat_gpumat_device_csr off by default (calls 1-2 ran it on by
# default: every device build through the shadow). The GPU tests of the products and the value
# operations at 1, 2 and 4 ranks (the MPI shadows on the blocks' shadows, refreshes through a shadow
# on the device, test_matproduct's shared case with the option on and off per matrix);
# compute-sanitizer memcheck and synccheck on the shared case at 1 and 2 ranks.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh || { pack; exit 1; }
echo "built after $(el)"
ctest --test-dir build-cuda -L gpu -R "matproduct|[.]ops" -j 12 --timeout 200 --output-on-failure > $R/ctest.txt 2>&1
grep -E "tests passed|\(Failed\)|\(Timeout\)|Total Test" $R/ctest.txt | head -30; echo "ctest after $(el)"; gzip -9 $R/ctest.txt; pack
san=/usr/local/cuda/bin/compute-sanitizer
for np in 1 2; do for tool in memcheck synccheck; do
  timeout 90 mpiexec -n $np --bind-to none $san --tool $tool --error-exitcode 9 build-cuda/tests/petsc/test_matproduct -type pjds -operands ours -expect_device -products shared > $R/san-shared-np$np-$tool.txt 2>&1
  echo "$tool shared np$np: rc=$? $(grep -E 'ERROR SUMMARY' $R/san-shared-np$np-$tool.txt | sort | uniq -c | tr '\n' ' ')"
done; done
pack; rm -rf $R
echo "total $(el)"
