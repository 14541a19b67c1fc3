#!/usr/bin/env bash
# Device call (issue 36, branch gpu-next): build, the product/ops GPU tests (ops_device: value
# operations on the device), memcheck on the smoothed-prolongator case and the device value ops,
# CG + GAMG at 1 rank (all types, one run; pjds and aijcusparse with -log_view_gpu_time), then the
# 2-rank GAMG runs that did not finish last time: aijcusparse as it is and with the MPI products'
# backend on the CPU (-matmatmult_backend_cpu -matptap_backend_cpu for GAMG's own products,
# -mat_product_algorithm_backend_cpu for the shadows' inner ones), pjds both ways.
t0=$(date +%s); top=$PWD; R=$OUT/r; mkdir -p $R
tar -C / -xJf .carry/petsc-cuda.tar.xz && eval "$(bash conf/petsc.sh cuda --env)"
source conf/env.sh
export PETSC_OPTIONS="-use_gpu_aware_mpi 0" LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
(cmake -S . -B build-cuda -DCMAKE_BUILD_TYPE=Release -DGPUMAT_GPU_TESTS=ON -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc && cmake --build build-cuda -j16) > $R/build.log 2>&1 || { grep -E "error" $R/build.log | head -20; tail -5 $R/build.log; exit 1; }
echo "built after $(( $(date +%s) - t0 )) s"
timeout 200 ctest --test-dir build-cuda -L gpu -R "${CT:-matproduct|\.ops|api_reread|plex_gamg}" -j 8 --timeout 120 --output-on-failure > $R/ctest.txt 2>&1
echo "ctest rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "tests passed|tests failed|\*\*\*" $R/ctest.txt | head -40
S=/usr/local/cuda/bin/compute-sanitizer
timeout 60 $S --tool memcheck --error-exitcode 9 build-cuda/tests/petsc/test_matproduct -type pjds -products smoothed,ab -expect_device -n 12 > $R/memcheck-smoothed.txt 2>&1; echo "memcheck smoothed: rc=$? $(grep 'ERROR SUMMARY' $R/memcheck-smoothed.txt)"
timeout 60 $S --tool memcheck --error-exitcode 9 build-cuda/tests/petsc/test_ops -type bccoo -values device -expect_device -ops scale,diagonal_scale,axpy_same_ours,axpy_subset_ours -n 12 > $R/memcheck-ops.txt 2>&1; echo "memcheck ops: rc=$? $(grep 'ERROR SUMMARY' $R/memcheck-ops.txt)"
timeout 150 build-cuda/examples/solve -kind lap3d -n ${GAMG_N:-128} -types aijcusparse,pjds,csrspec,bccoo,bce,gpuauto -vec_type cuda -pc_type gamg -ksp_rtol 1e-8 > $R/gamg-all-np1.txt 2>&1
echo "gamg all types np1 rc=$?"; grep -v '^\[' $R/gamg-all-np1.txt | tail -9
for t in pjds aijcusparse; do
  timeout 60 build-cuda/examples/solve -kind lap3d -n ${GAMG_N:-128} -mat_type $t -vec_type cuda -pc_type gamg -ksp_rtol 1e-8 -log_view :$R/gamg-$t-np1.log -log_view_gpu_time -info :mat > $R/gamg-$t-np1.txt 2>&1
  echo "gamg $t np1 rc=$?: $(grep -v '^\[' $R/gamg-$t-np1.txt | grep -A1 '^type' | tail -1)"
  grep -h "ProductSetFromOptions()\|copied" $R/gamg-$t-np1.txt | sed 's/^\[[0-9]\] //' | sort | uniq -c | sort -rn | head -6
  grep -E "^(PCSetUp |MatPtAP|MatMatMult|MatAXPY|MatCreateGraph|MatScale|MatDiagonalScale|MatGetDiagonal|MatAssemblyEnd|MatTranspose)" $R/gamg-$t-np1.log | cut -c1-42
done
cpu="-matmatmult_backend_cpu -matptap_backend_cpu -mat_product_algorithm_backend_cpu"
for run in "aijcusparse:" "aijcusparse:$cpu" "pjds:" "pjds:$cpu"; do t=${run%%:*} extra=${run#*:}
  [ $(( $(date +%s) - t0 )) -gt 530 ] && { echo "skip np2 $run: time"; continue; }
  timeout 40 mpiexec -n 2 --bind-to none build-cuda/examples/solve -kind lap3d -n ${GAMG_N:-128} -mat_type $t -vec_type cuda -pc_type gamg -ksp_rtol 1e-8 $extra -info :mat > $R/gamg-$t${extra:+-backendcpu}-np2.txt 2>&1
  echo "gamg $t $extra np2 rc=$?: $(grep -v '^\[' $R/gamg-$t${extra:+-backendcpu}-np2.txt | grep -A1 '^type' | tail -1)"
done
echo "total $(( $(date +%s) - t0 )) s"
cd $OUT && tar czf results.tgz r && rm -rf r
