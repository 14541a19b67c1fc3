#!/usr/bin/env bash
# Device call (issue 36, session 5, call 2): main e7b21c6+ (product result's pattern by
# MatSeqAIJSetColumnIndices; the shadow without the inode check): GPU tests of products/ops/GAMG,
# memcheck on the smoothed prolongator, the pjds GAMG flame graph, then conf/solvers.sh at 1 rank
# with REPEAT=3: CG + GAMG lap3d 128^3 and Newton Bratu 64^3.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
tar -C / -xJf .carry/petsc-cuda.tar.xz && eval "$(bash conf/petsc.sh cuda --env)"
source conf/env.sh
export PETSC_OPTIONS="-use_gpu_aware_mpi 0" LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
(cmake -S . -B build-cuda -DCMAKE_BUILD_TYPE=Release -DGPUMAT_GPU_TESTS=ON -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc && cmake --build build-cuda -j16) > $R/build.log 2>&1 || { grep -E "error" $R/build.log | head -20; tail -5 $R/build.log; exit 1; }
echo "built after $(( $(date +%s) - t0 )) s"
timeout 170 ctest --test-dir build-cuda -L gpu -R "matproduct|\.ops|plex_gamg" -j 8 --timeout 120 --output-on-failure > $R/ctest.txt 2>&1
echo "ctest rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "tests passed|tests failed|\*\*\*" $R/ctest.txt | head -20
S=/usr/local/cuda/bin/compute-sanitizer
timeout 60 $S --tool memcheck --error-exitcode 9 build-cuda/tests/petsc/test_matproduct -type pjds -products smoothed,ab -expect_device -n 12 > $R/memcheck-smoothed.txt 2>&1; echo "memcheck smoothed: rc=$? $(grep 'ERROR SUMMARY' $R/memcheck-smoothed.txt)"
S="build-cuda/examples/solve -kind lap3d -n 128 -vec_type cuda -pc_type gamg -ksp_rtol 1e-8"
timeout 30 $S -mat_type pjds -log_view :$R/flame-pjds-np1.txt:ascii_flamegraph -log_view_gpu_time > $R/gamg-pjds-np1.txt 2>&1; echo "pjds flame rc=$?"
grep -E "GAMG smooth" $R/flame-pjds-np1.txt | awk '{v=$NF; $NF=""; print v, $0}' | sort -rn | head -8 | sed 's/Main Stage;PCSetUp;PCSetUp_GAMG+; PCGAMGOptProl; //'
GPUMAT_CONFIG=cuda BUILD=$PWD/build-cuda OUT=$R/np1 NP=1 PROBLEMS="lap3d:128" PCS="gamg" NS="" BRATU_N=64 REPEAT=3 RUN_LIMIT=75 timeout 330 bash conf/solvers.sh > $R/solvers-np1.txt 2>&1
echo "solvers np1 rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "^\| |!!" $R/solvers-np1.txt
echo "total $(( $(date +%s) - t0 )) s"
