#!/usr/bin/env bash
# Device call (issue 36, session 6, call 5) on two H200s: CG + GAMG lap3d 128^3 at 2 ranks with every
# type, conf/solvers.sh SOLVE_OPTS="-warmup 0" REPEAT=2: one rank per GPU, then both ranks on GPU 0.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
left() { echo $(( 340 - ($(date +%s) - t0) )); }
tar -C / -xJf .carry/petsc-cuda.tar.xz && eval "$(bash conf/petsc.sh cuda --env)"
source conf/env.sh
export PETSC_OPTIONS="-use_gpu_aware_mpi 0" LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
(cmake -S . -B build-cuda -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc && cmake --build build-cuda -j32 --target petscgpumat solve bratu bench_matmult) > $R/build.log 2>&1 || { grep -E "error" $R/build.log | head -20; tail -5 $R/build.log; exit 1; }
echo "built after $(( $(date +%s) - t0 )) s"
C="GPUMAT_CONFIG=cuda BUILD=$PWD/build-cuda NP=2 PROBLEMS=lap3d:128 PCS=gamg NS= BRATU_N=16 REPEAT=2 RUN_LIMIT=90"
L=$(left); env $C OUT=$R/gpu2 SOLVE_OPTS="-warmup 0" timeout $((L/2)) bash conf/solvers.sh > $R/solvers-gamg-np2-2gpus.txt 2>&1
echo "one rank per GPU rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "^\| CG|!!" $R/solvers-gamg-np2-2gpus.txt
L=$(left); [ $L -gt 60 ] || exit 0
CUDA_VISIBLE_DEVICES=0 env $C OUT=$R/gpu1 SOLVE_OPTS="-warmup 0" timeout $((L-5)) bash conf/solvers.sh > $R/solvers-gamg-np2-1gpu.txt 2>&1
echo "two ranks on one GPU rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "^\| CG|!!" $R/solvers-gamg-np2-1gpu.txt
echo "total $(( $(date +%s) - t0 )) s"
