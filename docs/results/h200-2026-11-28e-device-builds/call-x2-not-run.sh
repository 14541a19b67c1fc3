#!/usr/bin/env bash
# Device call (issue 36, session 5, call 3) on two H200s, one rank per GPU (PETSc: rank r on device
# r % 2): build, the product GPU tests, conf/solvers.sh NP=2 REPEAT=3 with CG + Jacobi on lap3d 200^3
# and Newton Bratu 64^3, then CG + GAMG lap3d 128^3 at 2 ranks once (every type in one process).
t0=$(date +%s); R=$OUT/r; mkdir -p $R
tar -C / -xJf .carry/petsc-cuda.tar.xz && eval "$(bash conf/petsc.sh cuda --env)"
source conf/env.sh
export PETSC_OPTIONS="-use_gpu_aware_mpi 0" LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
(cmake -S . -B build-cuda -DCMAKE_BUILD_TYPE=Release -DGPUMAT_GPU_TESTS=ON -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc && cmake --build build-cuda -j16) > $R/build.log 2>&1 || { grep -E "error" $R/build.log | head -20; tail -5 $R/build.log; exit 1; }
echo "built after $(( $(date +%s) - t0 )) s"
timeout 120 ctest --test-dir build-cuda -L gpu -R "matproduct" -j 8 --timeout 100 --output-on-failure > $R/ctest.txt 2>&1
echo "ctest rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "tests passed|tests failed|\*\*\*" $R/ctest.txt | head -20
GPUMAT_CONFIG=cuda BUILD=$PWD/build-cuda OUT=$R/np2 NP=2 PROBLEMS="lap3d:200" PCS="jacobi" NS="" BRATU_N=64 REPEAT=3 RUN_LIMIT=70 timeout 260 bash conf/solvers.sh > $R/solvers-np2.txt 2>&1
echo "solvers np2 rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "^\| |!!" $R/solvers-np2.txt
timeout 90 mpiexec -n 2 --bind-to none build-cuda/examples/solve -kind lap3d -n 128 -vec_type cuda -pc_type gamg -ksp_rtol 1e-8 -types aijcusparse,pjds,csrspec,bccoo,bce,gpuauto > $R/gamg-np2.txt 2>&1
echo "gamg np2 rc=$? after $(( $(date +%s) - t0 )) s"; grep -v '^\[' $R/gamg-np2.txt | tail -9
echo "total $(( $(date +%s) - t0 )) s"
