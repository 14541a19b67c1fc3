#!/usr/bin/env bash
# Device call (issue 36, session 6, call 4), the same H200 as call 3 (warm, build-cuda kept): call 3's
# conf/solvers.sh stopped at once (gpu-env.sh wants examples/bench_matmult, which call 3 did not
# build); the build completed and the same solvers run: CG + GAMG lap3d 128^3 and Newton Bratu 64^3
# (LOGVIEW=1) at 1 rank, REPEAT=3. (One line in the call; written out here.)
t0=$(date +%s); R=$OUT/r; mkdir -p $R; tar -C / -xJf .carry/petsc-cuda.tar.xz && eval "$(bash conf/petsc.sh cuda --env)"; source conf/env.sh
export PETSC_OPTIONS="-use_gpu_aware_mpi 0" LIBRARY_PATH=/usr/local/cuda/lib64
(cmake -S . -B build-cuda -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc && cmake --build build-cuda -j16 --target petscgpumat solve bratu bench_matmult) > $R/build.log 2>&1 || { tail -5 $R/build.log; exit 1; }
echo "built after $(( $(date +%s) - t0 )) s"
GPUMAT_CONFIG=cuda BUILD=$PWD/build-cuda OUT=$R/np1 NP=1 PROBLEMS="lap3d:128" PCS="gamg" NS="" BRATU_N=64 REPEAT=3 LOGVIEW=1 RUN_LIMIT=80 timeout 330 bash conf/solvers.sh > $R/solvers-np1.txt 2>&1
echo "solvers np1 rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "^\| |!!" $R/solvers-np1.txt
