#!/usr/bin/env bash
# Device call (issue 36): build this tree, the product/ops GPU tests, memcheck on the device route,
# then CG + GAMG on lap3d (2.1M rows) with aijcusparse and our types at 1 and 2 ranks, -log_view each.
t0=$(date +%s); top=$PWD; R=$OUT/r; mkdir -p $R
tar -C / -xJf .carry/petsc-cuda.tar.xz && eval "$(bash conf/petsc.sh cuda --env)"
source conf/env.sh
export PETSC_OPTIONS="-use_gpu_aware_mpi 0" LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
(cmake -S . -B build-cuda -DCMAKE_BUILD_TYPE=Release -DGPUMAT_GPU_TESTS=ON -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc && cmake --build build-cuda -j16) > $R/build.log 2>&1 || { grep -E "error" $R/build.log | head -20; tail -5 $R/build.log; exit 1; }
echo "built after $(( $(date +%s) - t0 )) s"
timeout 200 ctest --test-dir build-cuda -L gpu -R "${CT:-matproduct}" -j 8 --timeout 120 --output-on-failure > $R/ctest.txt 2>&1
echo "ctest rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "tests passed|tests failed|\*\*\*" $R/ctest.txt | head -60
grep -m3 -A12 "PETSC ERROR: ---" $R/ctest.txt | grep -E "ERROR: [A-Z#]" | head -20
S=/usr/local/cuda/bin/compute-sanitizer
for t in pjds bccoo; do
  timeout 60 $S --tool memcheck --error-exitcode 9 build-cuda/tests/petsc/test_matproduct -type $t -operands ours -expect_device -n 12 > $R/memcheck-matproduct-$t.txt 2>&1
  echo "memcheck test_matproduct $t: rc=$? $(grep -E 'ERROR SUMMARY' $R/memcheck-matproduct-$t.txt | tail -1)"
done
echo "sanitizers done after $(( $(date +%s) - t0 )) s"
timeout 150 build-cuda/examples/solve -kind lap3d -n ${GAMG_N:-128} -types aijcusparse,pjds,csrspec,bccoo,bce,gpuauto -vec_type cuda -pc_type gamg -ksp_rtol 1e-8 > $R/gamg-all-np1.txt 2>&1
echo "gamg all types np1 rc=$?"; grep -v '^\[' $R/gamg-all-np1.txt | tail -9
for run in ${GAMG_RUNS:-1:pjds 1:aijcusparse}; do np=${run%%:*} t=${run#*:}
  timeout ${GAMG_LIMIT:-60} mpiexec -n $np --bind-to none build-cuda/examples/solve -kind lap3d -n ${GAMG_N:-128} -mat_type $t -vec_type cuda -pc_type gamg -ksp_rtol 1e-8 -log_view :$R/gamg-$t-np$np.log -log_view_gpu_time -info :mat > $R/gamg-$t-np$np.txt 2>&1
  echo "gamg $t np$np rc=$?: $(grep -v '^\[' $R/gamg-$t-np$np.txt | grep -A1 '^type' | tail -1)"
  grep -h "ProductSetFromOptions()\|copied\|ERROR: [A-Z#]" $R/gamg-$t-np$np.txt | sed 's/^\[[0-9]\] //' | sort | uniq -c | sort -rn | head -6
  grep -E "^(PCSetUp |KSPSolve |MatPtAP|MatMatMult|MatAXPY|MatCreateGraph|MatCUSPARSCopyTo|MatConvert|MatTranspose|MatScale|MatAssemblyEnd|MatSetPreallCOO|MatSetValuesCOO|MatDiagonalScale|MatSetValues |PCGAMG)" $R/gamg-$t-np$np.log | cut -c1-42
done
echo "total $(( $(date +%s) - t0 )) s"
cd $OUT && tar czf results.tgz r && rm -rf r
