#!/usr/bin/env bash
# Session 14, call 7: -mat_gpumat_dense_products with spmm by default and no auto (call 6 ran its
# first form, auto = loop on one rank): every matproduct GPU test on the tree as committed.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && rm -f results.tgz && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh petscgpumat test_matproduct || { pack; exit 1; }
echo "built after $(el)"
ctest --test-dir build-cuda -L gpu -R "matproduct" -j 12 --timeout 200 --output-on-failure > $R/ctest.txt 2>&1
grep -E "tests passed|\(Failed\)|\(Timeout\)|Total Test" $R/ctest.txt | head -30; echo "ctest after $(el)"; gzip -9 $R/ctest.txt; pack
echo "total $(el)"
