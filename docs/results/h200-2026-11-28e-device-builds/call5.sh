#!/usr/bin/env bash
# Device call (issue 36, session 5, call 6), one H200: the product and ops GPU tests at 1 rank after
# the SameAsAIJ reorder (product first), and the GAMG test.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
tar -C / -xJf .carry/petsc-cuda.tar.xz && eval "$(bash conf/petsc.sh cuda --env)"
source conf/env.sh
export PETSC_OPTIONS="-use_gpu_aware_mpi 0" LIBRARY_PATH=/usr/local/cuda/lib64
(cmake -S . -B build-cuda -DCMAKE_BUILD_TYPE=Release -DGPUMAT_GPU_TESTS=ON -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc && cmake --build build-cuda -j16) > $R/build.log 2>&1 || { grep -E "error" $R/build.log | head -20; tail -5 $R/build.log; exit 1; }
echo "built after $(( $(date +%s) - t0 )) s"
timeout 100 ctest --test-dir build-cuda -L gpu -R "matproduct.*np1|\.ops.*np1|plex_gamg" -j 8 --timeout 90 --output-on-failure > $R/ctest.txt 2>&1
echo "ctest rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "tests passed|tests failed|\*\*\*|the result \(" $R/ctest.txt | head -20
echo "total $(( $(date +%s) - t0 )) s"
