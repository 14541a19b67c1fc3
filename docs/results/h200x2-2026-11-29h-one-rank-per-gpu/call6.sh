#!/usr/bin/env bash
# Session 18, call 5 (main, 0dd4ff2) on two H200s: the GPU tests call 4 did not finish (ctest -L gpu
# -LE multigpu, those not in .carry/s18-passed.txt), gpu.unit.cuda with a longer limit (it passed
# its 200 s under 16 parallel tests).
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && rm -f results.tgz && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh || { pack; exit 1; }
echo "built after $(el)"
ctest --test-dir build-cuda -N -L gpu -LE multigpu | sed -nE 's/^ *Test +#([0-9]+):.*/\1/p' | sort -n > $R/all.txt
comm -23 $R/all.txt .carry/s18-passed.txt > $R/left.txt; echo "left: $(wc -l < $R/left.txt) of $(wc -l < $R/all.txt)"
L=$(( 400 - ($(date +%s) - t0) ))
timeout $L ctest --test-dir build-cuda -I "0,0,0,$(paste -sd, $R/left.txt)" -j 12 --timeout 330 --output-on-failure > $R/ctest-gpu-rest.txt 2>&1
echo "rest rc=$? after $(el)"; grep -E "tests passed|\(Failed\)|\(Timeout\)|\(SEGFAULT\)" $R/ctest-gpu-rest.txt | head -20; grep -cE "Test +#[0-9]+: .* Passed" $R/ctest-gpu-rest.txt
gzip -9 $R/ctest-gpu-rest.txt; pack
echo "total $(el)"
