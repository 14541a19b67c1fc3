#!/usr/bin/env bash
# Device call (issue 36, session 6, call 2), one H200: main 69df3bd+ (csrspec built from a device CSR;
# the typed suite's BuildFromDeviceCsr). The typed CUDA suite and the product GPU tests; memcheck on
# the device-CSR builds; 2 ranks sharing the GPU with CG + GAMG: PETSc's own ksp tutorial ex45 with
# aijcusparse (is the hang PETSc's?), examples/solve with aijcusparse's CPU-backend options for
# aijcusparse and pjds; gpuauto's build-aware decision on fem3 40^3 with Jacobi (REPEAT=3).
t0=$(date +%s); R=$OUT/r; mkdir -p $R
left() { echo $(( 560 - ($(date +%s) - t0) )); }
tar -C / -xJf .carry/petsc-cuda.tar.xz && eval "$(bash conf/petsc.sh cuda --env)"
source conf/env.sh
export PETSC_OPTIONS="-use_gpu_aware_mpi 0" LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader; git log --oneline -1 | cut -c1-80
(cmake -S . -B build-cuda -DCMAKE_BUILD_TYPE=Release -DGPUMAT_GPU_TESTS=ON -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc && cmake --build build-cuda -j16) > $R/build.log 2>&1 || { grep -E "error" $R/build.log | head -20; tail -5 $R/build.log; exit 1; }
mpicc -O2 -o $R/ex45 $PETSC_DIR/share/petsc/examples/src/ksp/ksp/tutorials/ex45.c $(PKG_CONFIG_PATH=$PETSC_DIR/lib/pkgconfig pkg-config --cflags --libs PETSc) -Wl,-rpath,$PETSC_DIR/lib > $R/ex45-build.txt 2>&1 || echo "ex45 build failed"
echo "built after $(( $(date +%s) - t0 )) s"
timeout 100 build-cuda/tests/unit/test_cuda --gtest_filter='FormatDevice*' > $R/unit-formatdevice.txt 2>&1
echo "test_cuda FormatDevice* rc=$?: $(grep -E '^\[  (PASSED|FAILED) ' $R/unit-formatdevice.txt | tr '\n' ' ')"; grep -E "^\[  FAILED  \]|SKIPPED \]" $R/unit-formatdevice.txt | head -12
timeout 110 ctest --test-dir build-cuda -L gpu -R "matproduct" -j 12 --timeout 100 --output-on-failure > $R/ctest.txt 2>&1
echo "ctest matproduct rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "tests passed|tests failed|\(Failed\)|Timeout" $R/ctest.txt | head -20
S=/usr/local/cuda/bin/compute-sanitizer
timeout 90 $S --tool memcheck --error-exitcode 9 build-cuda/tests/unit/test_cuda --gtest_filter='*BuildFromDeviceCsr*' > $R/memcheck-unit.txt 2>&1; echo "memcheck BuildFromDeviceCsr rc=$? $(grep -E 'ERROR SUMMARY|^\[  (PASSED|FAILED) ' $R/memcheck-unit.txt | tr '\n' ' ')"
timeout 50 $S --tool memcheck --error-exitcode 9 build-cuda/tests/petsc/test_matproduct -type csrspec -products smoothed,ab,ptap -expect_device -n 12 > $R/memcheck-csrspec.txt 2>&1; echo "memcheck matproduct csrspec rc=$? $(grep 'ERROR SUMMARY' $R/memcheck-csrspec.txt)"
echo "tests done after $(( $(date +%s) - t0 )) s"
G="-ksp_type cg -pc_type gamg -ksp_rtol 1e-8 -ksp_converged_reason"
for n in 65 129; do
  timeout 45 mpiexec -n 2 --bind-to none $R/ex45 -da_grid_x $n -da_grid_y $n -da_grid_z $n -dm_mat_type aijcusparse -dm_vec_type cuda $G -log_view :$R/ex45-aijcusparse-$n-np2.log > $R/ex45-aijcusparse-$n-np2.txt 2>&1
  echo "ex45 aijcusparse ${n}^3 np2 rc=$? $(grep -h CONVERGED $R/ex45-aijcusparse-$n-np2.txt | head -1) $(grep -E '^(PCSetUp|KSPSolve) ' $R/ex45-aijcusparse-$n-np2.log 2>/dev/null | awk '{print $1, $4}' | tr '\n' ' ')"
done
timeout 30 $R/ex45 -da_grid_x 129 -da_grid_y 129 -da_grid_z 129 -dm_mat_type aijcusparse -dm_vec_type cuda $G -log_view :$R/ex45-aijcusparse-129-np1.log > $R/ex45-aijcusparse-129-np1.txt 2>&1
echo "ex45 aijcusparse 129^3 np1 rc=$? $(grep -h CONVERGED $R/ex45-aijcusparse-129-np1.txt | head -1)"
B="-matmatmult_backend_cpu -matptap_backend_cpu -mattransposematmult_backend_cpu"
for t in aijcusparse pjds; do
  L=$(left); [ $L -gt 80 ] || break
  timeout 60 mpiexec -n 2 --bind-to none build-cuda/examples/solve -kind lap3d -n 128 -vec_type cuda -pc_type gamg -ksp_rtol 1e-8 -types $t $B > $R/solve-gamg-$t-np2-backendcpu.txt 2>&1
  echo "solve gamg $t np2 backend_cpu rc=$?"; grep -v '^\[' $R/solve-gamg-$t-np2-backendcpu.txt | grep -E "^(mpi|seq)" | head -3
done
timeout 25 build-cuda/examples/solve -kind fem3 -n 40 -vec_type cuda -pc_type jacobi -mat_type gpuauto -info :sys > $R/fem3-gpuauto-info.txt 2>&1; grep "gpuauto:" $R/fem3-gpuauto-info.txt | sed 's/^\[0\] <sys> //' | cut -c1-240 | tail -2
L=$(left); [ $L -gt 60 ] || { echo "no time for fem3 solvers"; exit 0; }
GPUMAT_CONFIG=cuda BUILD=$PWD/build-cuda OUT=$R/fem3 NP=1 PROBLEMS="fem3:40" PCS="jacobi" NS="" BRATU_N=24 REPEAT=3 RUN_LIMIT=30 timeout $((L-5)) bash conf/solvers.sh > $R/solvers-fem3.txt 2>&1
echo "solvers fem3 rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "^\| (CG)|!!" $R/solvers-fem3.txt
echo "total $(( $(date +%s) - t0 )) s"
