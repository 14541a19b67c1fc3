#!/usr/bin/env bash
# Device call (issue 36, session 5, call 4), one H200: main 596dd00+ (no MatZeroEntries on product
# results): the product GPU tests, GAMG lap3d 128^3 flame graphs of pjds and gpuauto (gpuauto's
# -info decisions), the host-device copies of PCSetUp for aijcusparse and pjds (-log_view), then
# conf/solvers.sh at 1 rank, REPEAT=3: CG + Jacobi on lap3d 256^3 (16.7M rows) and Newton Bratu 64^3.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
tar -C / -xJf .carry/petsc-cuda.tar.xz && eval "$(bash conf/petsc.sh cuda --env)"
source conf/env.sh
export PETSC_OPTIONS="-use_gpu_aware_mpi 0" LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
(cmake -S . -B build-cuda -DCMAKE_BUILD_TYPE=Release -DGPUMAT_GPU_TESTS=ON -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc && cmake --build build-cuda -j16) > $R/build.log 2>&1 || { grep -E "error" $R/build.log | head -20; tail -5 $R/build.log; exit 1; }
echo "built after $(( $(date +%s) - t0 )) s"
timeout 120 ctest --test-dir build-cuda -L gpu -R "matproduct|plex_gamg" -j 8 --timeout 100 --output-on-failure > $R/ctest.txt 2>&1
echo "ctest rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "tests passed|tests failed|\*\*\*" $R/ctest.txt | head -20
S="build-cuda/examples/solve -kind lap3d -n 128 -vec_type cuda -pc_type gamg -ksp_rtol 1e-8"
for t in pjds gpuauto; do
  timeout 30 $S -mat_type $t -log_view :$R/flame-$t-np1.txt:ascii_flamegraph -log_view_gpu_time -info :sys > $R/gamg-$t-np1.txt 2>&1; echo "$t flame rc=$?"
  grep -E "GAMG smooth|GAMG PtAP|KSPSolve;" $R/flame-$t-np1.txt | awk '{v=$NF; $NF=""; print v, $0}' | sort -rn | head -6 | sed 's/Main Stage;PCSetUp;PCSetUp_GAMG+; //'
done
grep "gpuauto:" $R/gamg-gpuauto-np1.txt | sed 's/^\[0\] <sys> //' | cut -c1-200 | head -12
for t in aijcusparse pjds; do
  timeout 30 $S -mat_type $t -log_view :$R/gamg-$t-np1.log > /dev/null 2>&1; echo "$t log_view rc=$?"
  grep -E "^(PCSetUp |KSPSolve |MatPtAP|MatMatMult|MatCUSPARSCopyTo|GpumatShadow)" $R/gamg-$t-np1.log
done
GPUMAT_CONFIG=cuda BUILD=$PWD/build-cuda OUT=$R/np1 NP=1 PROBLEMS="lap3d:256" PCS="jacobi" NS="" BRATU_N=64 REPEAT=3 RUN_LIMIT=80 timeout 300 bash conf/solvers.sh > $R/solvers-np1.txt 2>&1
echo "solvers np1 rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "^\| |!!" $R/solvers-np1.txt
echo "total $(( $(date +%s) - t0 )) s"
