#!/usr/bin/env bash
# Device call (issue 36, session 7, first), one H200: branch gpu-next4 (MPI shadows joined from the
# blocks' seq shadows; MPI product results with the inner result's block patterns, adopting it) on
# top of main. Every product/ops GPU test at 1, 2, 4 ranks; memcheck at 2 ranks on the MPI device
# route; PETSc's ex45 at 129^3 with CG + GAMG at 2 ranks, aijcusparse against pjds (one process
# each; session 6: 7.00 s against 9.43 s); conf/solvers.sh SPLIT=1 SOLVE_OPTS="-warmup 0" NP=2
# REPEAT=2 with CG + GAMG lap3d 128^3 and PETSc's ex56 (60^3 elements) (both ranks on the GPU). Also PETSc alone (.carry/twice.c): does a
# second 2-rank GAMG set-up in one process finish with aijcusparse? (carry .carry/twice.c too)
t0=$(date +%s); R=$OUT/r; mkdir -p $R
left() { echo $(( 550 - ($(date +%s) - t0) )); }
nvidia-smi --query-gpu=name --format=csv,noheader
LOG=$R/build.log source conf/device-build.sh || exit 1
mpicc -O2 -o $R/ex45 $PETSC_DIR/share/petsc/examples/src/ksp/ksp/tutorials/ex45.c $(PKG_CONFIG_PATH=$PETSC_DIR/lib/pkgconfig pkg-config --cflags --libs PETSc) -Wl,-rpath,$PETSC_DIR/lib > $R/ex45-build.txt 2>&1 || echo "ex45 build failed"
echo "built after $(( $(date +%s) - t0 )) s"
timeout 170 ctest --test-dir build-cuda -L gpu -R "matproduct|\.ops|plex_gamg" -j 8 --timeout 120 --output-on-failure > $R/ctest.txt 2>&1
echo "ctest rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "tests passed|tests failed|\(Failed\)|Timeout" $R/ctest.txt | head -20
S=/usr/local/cuda/bin/compute-sanitizer
timeout 80 mpiexec -n 2 --bind-to none $S --tool memcheck --error-exitcode 9 build-cuda/tests/petsc/test_matproduct -type pjds -products smoothed,ab,ptap -expect_device -n 12 > $R/memcheck-pjds-np2.txt 2>&1; echo "memcheck pjds np2 rc=$? $(grep 'ERROR SUMMARY' $R/memcheck-pjds-np2.txt | tr '\n' ' ')"
# PETSc alone (.carry/twice.c, no petsc-gpumat): CG + GAMG at 8^3 then 128^3 in one 2-rank process, aijcusparse
mpicc -O2 -o $R/twice .carry/twice.c $(PKG_CONFIG_PATH=$PETSC_DIR/lib/pkgconfig pkg-config --cflags --libs PETSc) -Wl,-rpath,$PETSC_DIR/lib > $R/twice-build.txt 2>&1 || echo "twice build failed"
timeout 45 mpiexec -n 2 --bind-to none $R/twice -mat_type aijcusparse -pc_type gamg -ksp_rtol 1e-8 > $R/twice-aijcusparse-np2.txt 2>&1; echo "twice aijcusparse np2 rc=$?"; cat $R/twice-aijcusparse-np2.txt | head -4
G="-ksp_type cg -pc_type gamg -ksp_rtol 1e-8 -ksp_converged_reason -da_grid_x 129 -da_grid_y 129 -da_grid_z 129 -dm_vec_type cuda -dll_append $PWD/build-cuda/libpetscgpumat.so"
for t in aijcusparse pjds pjds aijcusparse; do
  timeout 40 mpiexec -n 2 --bind-to none $R/ex45 $G -dm_mat_type $t -log_view :$R/ex45-$t-np2.log > $R/ex45-$t-np2.txt 2>&1
  echo "ex45 $t np2 rc=$? $(grep -h CONVERGED $R/ex45-$t-np2.txt | head -1) $(grep -E '^Time \(sec\):' $R/ex45-$t-np2.log 2>/dev/null)"
  grep -E "^(MatSetPreallCOO|GpumatShadow) " $R/ex45-$t-np2.log 2>/dev/null | awk '{print "   ", $1, $2, "up", $(NF-4), $(NF-3)}'
done
L=$(left); [ $L -gt 100 ] || { echo "no time for solvers ($L s)"; exit 0; }
GPUMAT_CONFIG=cuda BUILD=$PWD/build-cuda OUT=$R/np2 NP=2 SPLIT=1 SOLVE_OPTS="-warmup 0" PROBLEMS="lap3d:128" PCS="gamg" NS="" BRATU_N=16 EX56_NE=60 REPEAT=2 RUN_LIMIT=40 timeout $((L-5)) bash conf/solvers.sh > $R/solvers-np2.txt 2>&1
echo "solvers np2 rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "^\| CG|!!" $R/solvers-np2.txt
echo "total $(( $(date +%s) - t0 )) s"
