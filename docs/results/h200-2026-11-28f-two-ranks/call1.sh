#!/usr/bin/env bash
# Device call (issue 36, session 6, call 1) on two H200s: branch gpu-next3 (transposed products of
# device products' results on the adopted shadow; aijcusparse's CPU-backend options honoured) on top of
# main. Every product/ops GPU test at 1, 2, 4 ranks (ranks on device r % 2), compute-sanitizer memcheck
# on the device-CSR build and the shadow transposes, then one rank per GPU: conf/solvers.sh NP=2
# REPEAT=3 CG + Jacobi lap3d 200^3 (and Bratu 64^3), then CG + GAMG 128^3 at 2 ranks once.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
left() { echo $(( 555 - ($(date +%s) - t0) )); }
tar -C / -xJf .carry/petsc-cuda.tar.xz && eval "$(bash conf/petsc.sh cuda --env)"
source conf/env.sh
export PETSC_OPTIONS="-use_gpu_aware_mpi 0" LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader; git log --oneline -1
(cmake -S . -B build-cuda -DCMAKE_BUILD_TYPE=Release -DGPUMAT_GPU_TESTS=ON -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc && cmake --build build-cuda -j32) > $R/build.log 2>&1 || { grep -E "error" $R/build.log | head -20; tail -5 $R/build.log; exit 1; }
echo "built after $(( $(date +%s) - t0 )) s"
timeout 170 ctest --test-dir build-cuda -L gpu -R "matproduct|\.ops|plex_gamg" -j 12 --timeout 120 --output-on-failure > $R/ctest.txt 2>&1
echo "ctest rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "tests passed|tests failed|\*\*\*|\(Failed\)|Timeout" $R/ctest.txt | head -20
S=/usr/local/cuda/bin/compute-sanitizer
( for t in pjds bce; do timeout 70 $S --tool memcheck --error-exitcode 9 build-cuda/tests/petsc/test_matproduct -type $t -products smoothed,ab,ptap -expect_device -n 12 > $R/memcheck-$t.txt 2>&1; echo "memcheck $t: rc=$? $(grep 'ERROR SUMMARY' $R/memcheck-$t.txt)"; done ) &
MC=$!
CUDA_VISIBLE_DEVICES=1 timeout 70 $S --tool racecheck --error-exitcode 9 build-cuda/tests/petsc/test_matproduct -type pjds -products smoothed,ab,ptap -expect_device -n 12 > $R/racecheck-pjds.txt 2>&1; echo "racecheck pjds: rc=$? $(grep 'ERROR SUMMARY' $R/racecheck-pjds.txt)"
wait $MC; echo "sanitizers done after $(( $(date +%s) - t0 )) s"
L=$(left); [ $L -gt 120 ] || { echo "no time for solvers ($L s)"; exit 0; }
GPUMAT_CONFIG=cuda BUILD=$PWD/build-cuda OUT=$R/np2 NP=2 PROBLEMS="lap3d:200" PCS="jacobi" NS="" BRATU_N=64 REPEAT=3 RUN_LIMIT=60 timeout $((L-60)) bash conf/solvers.sh > $R/solvers-np2.txt 2>&1
echo "solvers np2 rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "^\| |!!" $R/solvers-np2.txt
L=$(left); [ $L -gt 30 ] || { echo "no time for GAMG np2"; exit 0; }
timeout $((L-5)) mpiexec -n 2 --bind-to none build-cuda/examples/solve -kind lap3d -n 128 -vec_type cuda -pc_type gamg -ksp_rtol 1e-8 -types aijcusparse,pjds,bccoo,bce,gpuauto > $R/gamg-np2.txt 2>&1
echo "gamg np2 rc=$? after $(( $(date +%s) - t0 )) s"; grep -v '^\[' $R/gamg-np2.txt | tail -8
echo "total $(( $(date +%s) - t0 )) s"
