#!/usr/bin/env bash
# Draft for session 16's first device call: e6bfe3f (a device x with a host y at 2 ranks) and the
# test that checks it (test_mpi's mixed vectors, every mpi test), neither run on a GPU; then the GPU
# suites session 15 did not run (ctest -L gpu outside coo|matproduct|ops), in one call's time.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && rm -f results.tgz && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh || { pack; exit 1; }
echo "built after $(el)"
timeout 200 ctest --test-dir build-cuda -R "[.]mpi[.]np|mpi_hostref[.]np2|api_pmat_fp32" -j 16 --timeout 120 --output-on-failure > $R/ctest-mpi.txt 2>&1
grep -E "tests passed|\(Failed\)|\(Timeout\)|\(SEGFAULT\)|Total Test" $R/ctest-mpi.txt | head -30; echo "mpi ctest after $(el)"; gzip -9 $R/ctest-mpi.txt; pack
timeout 300 ctest --test-dir build-cuda -L gpu -E "coo|matproduct|[.]ops|[.]mpi[.]np|api_pmat_fp32|unit[.]cuda" -j 16 --timeout 150 --output-on-failure > $R/ctest-gpu.txt 2>&1
grep -E "tests passed|\(Failed\)|\(Timeout\)|\(SEGFAULT\)|Total Test" $R/ctest-gpu.txt | head -30; echo "gpu ctest after $(el)"; gzip -9 $R/ctest-gpu.txt; pack
echo "total $(el)"
