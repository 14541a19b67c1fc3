#!/usr/bin/env bash
# Device call (issue 36): build; GPU tests of the value operations; CG + GAMG lap3d 128^3, all types
# in one process; the time-to-solution benchmark again for GAMG (lap3d, fem3, lap2d) and plex3d at
# a size that fits RUN_LIMIT, 1 rank; plex3d Jacobi at 2 ranks.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
tar -C / -xJf .carry/petsc-cuda.tar.xz && eval "$(bash conf/petsc.sh cuda --env)"
source conf/env.sh
export PETSC_OPTIONS="-use_gpu_aware_mpi 0" LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
(cmake -S . -B build-cuda -DCMAKE_BUILD_TYPE=Release -DGPUMAT_GPU_TESTS=ON -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc && cmake --build build-cuda -j16) > $R/build.log 2>&1 || { grep -E "error" $R/build.log | head -20; tail -5 $R/build.log; exit 1; }
echo "built after $(( $(date +%s) - t0 )) s"
timeout 100 ctest --test-dir build-cuda -L gpu -R "\.ops" -j 8 --timeout 60 --output-on-failure > $R/ctest.txt 2>&1
echo "ctest rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "tests passed|tests failed|\*\*\*" $R/ctest.txt | head -20
S="build-cuda/examples/solve -kind lap3d -n 128 -vec_type cuda -pc_type gamg -ksp_rtol 1e-8"
timeout 60 $S -types aijcusparse,pjds,csrspec,bccoo,bce,gpuauto > $R/gamg-all-np1.txt 2>&1
echo "gamg all types np1 rc=$? after $(( $(date +%s) - t0 )) s"; grep -v '^\[' $R/gamg-all-np1.txt | tail -9
timeout 30 $S -mat_type pjds -log_view :$R/flame-pjds-np1.txt:ascii_flamegraph -log_view_gpu_time > $R/gamg-pjds-np1.txt 2>&1; echo "pjds flame rc=$?"
run_bench() { # NP PROBLEMS PCS NS limit
  GPUMAT_CONFIG=cuda BUILD=$PWD/build-cuda OUT=$R/np$1-$3 NP=$1 PROBLEMS="$2" PCS="$3" NS="" BRATU_N=16 RUN_LIMIT=75 timeout $4 bash conf/solvers.sh > $R/solvers-np$1-$3.txt 2>&1
  echo "np$1 $3 rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "^\| |!!" $R/solvers-np$1-$3.txt | grep -v bratu | head -40
}
run_bench 1 "lap3d:100 fem3:40 lap2d:1000 plex3d:32" gamg 130
run_bench 1 "plex3d:32" jacobi 60
[ $(( $(date +%s) - t0 )) -lt 290 ] && run_bench 2 "plex3d:32" jacobi 60
echo "total $(( $(date +%s) - t0 )) s"
