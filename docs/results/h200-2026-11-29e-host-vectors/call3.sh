#!/usr/bin/env bash
# Session 15, call 3 (the session's last device time): main after 9e2f9d5 (factors with host
# vectors), 9f256b7 (host reference on host arrays), fb55054 (tests that assumed the build machine).
# First the GPU tests the factor change touches (CUDA vectors pass straight through), then the
# host-vector tests of the CUDA build that call 2 did not reach or that failed there
# (.carry/s15-host-remaining.txt), then, if time is left, bench_matmult -dense 8 on lap3d 128^3.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && rm -f results.tgz && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh || { pack; exit 1; }
echo "built after $(el)"
timeout 90 ctest --test-dir build-cuda -L gpu -R "[.]ops[.]np|ops_factor|gmres_ilu|dll_append|api_pmat_fp32" -j 16 --timeout 80 --output-on-failure > $R/ctest-gpu.txt 2>&1
grep -E "tests passed|\(Failed\)|\(Timeout\)|\(SEGFAULT\)|Total Test" $R/ctest-gpu.txt | head -30; echo "gpu ctest after $(el)"; gzip -9 $R/ctest-gpu.txt; pack
re="^($(paste -sd'|' .carry/s15-host-remaining.txt | sed 's/[.]/[.]/g'))\$"
timeout 270 ctest --test-dir build-cuda -LE gpu -R "$re" -j 16 --timeout 120 --output-on-failure > $R/ctest-host.txt 2>&1
echo "rc=$?"; grep -E "tests passed|\(Failed\)|\(Timeout\)|\(SEGFAULT\)|\(Not Run\)|Skipped|Total Test" $R/ctest-host.txt | head -40; echo "host-vector ctest after $(el)"; gzip -9 $R/ctest-host.txt; pack
export OPENBLAS_NUM_THREADS=1
types=aijcusparse:alg1; for t in pjds bce; do types=$types,$t,$t:gpumat_dense_products=spmm,$t:gpumat_dense_products=loop; done
timeout 60 build-cuda/examples/bench_matmult -kind lap3d -n 128 -types $types -dense 8 -reps 30 -reps_coo 3 -ksp_its 0 -floors 0 > $R/bench-lap3d-k8.txt 2>&1
echo "bench rc=$? after $(el)"; grep -E "^dense" $R/bench-lap3d-k8.txt | sed -E 's/: C = A B, B dense with [0-9]+ columns: median/ AB/; s/ \(min [^)]*\)//'
pack
echo "total $(el)"
