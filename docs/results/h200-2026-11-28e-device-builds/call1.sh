#!/usr/bin/env bash
# Device call (issue 36, session 5): branch gpu-next2 (ShadowAdopt) built and tested on the GPU
# (matproduct/ops tests, memcheck on the smoothed prolongator), GAMG lap3d 128^3 all types twice
# (aijcusparse first, then last), the pjds flame graph, and -log_view profiles of Bratu 64^3 and fem3
# Jacobi (value refresh and small-matrix products, item 3).
t0=$(date +%s); R=$OUT/r; mkdir -p $R
tar -C / -xJf .carry/petsc-cuda.tar.xz && eval "$(bash conf/petsc.sh cuda --env)"
source conf/env.sh
export PETSC_OPTIONS="-use_gpu_aware_mpi 0" LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
(cmake -S . -B build-cuda -DCMAKE_BUILD_TYPE=Release -DGPUMAT_GPU_TESTS=ON -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc && cmake --build build-cuda -j16) > $R/build.log 2>&1 || { grep -E "error" $R/build.log | head -20; tail -5 $R/build.log; exit 1; }
echo "built after $(( $(date +%s) - t0 )) s"
timeout 150 ctest --test-dir build-cuda -L gpu -R "matproduct|\.ops" -j 8 --timeout 100 --output-on-failure > $R/ctest.txt 2>&1
echo "ctest rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "tests passed|tests failed|\*\*\*" $R/ctest.txt | head -20
S=/usr/local/cuda/bin/compute-sanitizer
timeout 60 $S --tool memcheck --error-exitcode 9 build-cuda/tests/petsc/test_matproduct -type pjds -products smoothed,ab -expect_device -n 12 > $R/memcheck-smoothed.txt 2>&1; echo "memcheck smoothed: rc=$? $(grep 'ERROR SUMMARY' $R/memcheck-smoothed.txt)"
S="build-cuda/examples/solve -kind lap3d -n 128 -vec_type cuda -pc_type gamg -ksp_rtol 1e-8"
timeout 45 $S -types aijcusparse,pjds,csrspec,bccoo,bce,gpuauto > $R/gamg-all-np1.txt 2>&1
echo "gamg all types np1 rc=$? after $(( $(date +%s) - t0 )) s"; grep -v '^\[' $R/gamg-all-np1.txt | tail -8
timeout 45 $S -types gpuauto,bce,bccoo,csrspec,pjds,aijcusparse > $R/gamg-all-np1-rev.txt 2>&1
echo "gamg all types reversed np1 rc=$? after $(( $(date +%s) - t0 )) s"; grep -v '^\[' $R/gamg-all-np1-rev.txt | tail -8
timeout 30 $S -mat_type pjds -log_view :$R/flame-pjds-np1.txt:ascii_flamegraph -log_view_gpu_time > $R/gamg-pjds-np1.txt 2>&1; echo "pjds flame rc=$?"
grep -E "GpumatShadow|PjdsBuild" $R/flame-pjds-np1.txt | awk '{v=$NF; $NF=""; print v, $0}' | sort -rn | head -8
ev="^(SNESSolve|SNESJacobianEval|KSPSolve|PCSetUp|MatMult |MatAssemblyEnd|MatAssemblyBegin|MatZeroEntries|MatSetValues|MatCUSPARSCopyTo|Gpumat|Pjds|Bce|Bccoo|Csrspec|Gpuauto|VecMDot|VecMAXPY)"
for t in aijcusparse pjds bce csrspec gpuauto; do
  timeout 30 build-cuda/examples/bratu -dim 3 -da_grid_x 64 -da_grid_y 64 -da_grid_z 64 -dm_mat_type $t -dm_vec_type cuda -ksp_type gmres -pc_type jacobi -ksp_rtol 1e-6 -log_view :$R/bratu-$t.log > $R/bratu-$t.txt 2>&1
  echo "== bratu $t rc=$?: $(grep '^bratu' $R/bratu-$t.txt | tr '\n' ' ')"; grep -E "$ev" $R/bratu-$t.log | cut -c1-70
done
for t in aijcusparse pjds bce gpuauto; do
  timeout 30 build-cuda/examples/solve -kind fem3 -n 40 -mat_type $t -vec_type cuda -pc_type jacobi -log_view :$R/fem3-$t.log > $R/fem3-$t.txt 2>&1
  echo "== fem3 jacobi $t rc=$?: $(grep -v '^\[' $R/fem3-$t.txt | grep -A1 '^type' | tail -1)"; grep -E "$ev" $R/fem3-$t.log | cut -c1-70
done
echo "total $(( $(date +%s) - t0 )) s"
