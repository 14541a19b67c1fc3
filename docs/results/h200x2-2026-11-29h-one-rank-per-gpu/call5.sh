#!/usr/bin/env bash
# Session 18, call 4 (main, 0dd4ff2) on two H200s: the multi-GPU tests (ctest -L multigpu: each rank
# on device rank % GPUs), then the CUDA build's GPU tests (ctest -L gpu) as far as the call's time
# goes (the builder split fbc075e and the guard 80ce30b have not met the MPI GPU tests).
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && rm -f results.tgz && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh || { pack; exit 1; }
echo "built after $(el)"
timeout 120 ctest --test-dir build-cuda -L multigpu -j 4 --timeout 100 --output-on-failure > $R/ctest-multigpu.txt 2>&1
echo "multigpu rc=$? after $(el)"; grep -E "tests passed|\(Failed\)|\(Timeout\)|\(SEGFAULT\)|Not Run|Skipped" $R/ctest-multigpu.txt | head; pack
L=$(( 520 - ($(date +%s) - t0) ))
timeout $L ctest --test-dir build-cuda -L gpu -LE multigpu -j 16 --timeout 200 --output-on-failure > $R/ctest-gpu.txt 2>&1
echo "gpu rc=$? after $(el)"; grep -E "tests passed|\(Failed\)|\(Timeout\)|\(SEGFAULT\)" $R/ctest-gpu.txt | head -20; grep -cE "Test +#[0-9]+: .* Passed" $R/ctest-gpu.txt
gzip -9 $R/ctest-gpu.txt; pack
echo "total $(el)"
