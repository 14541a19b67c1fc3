#!/usr/bin/env bash
# Device call (issue 36, session 8, first), one H200: branch gpu-next5 (a device product's result
# runs its first products through cuSPARSE on its adopted shadow, -mat_gpumat_shadow_products) on
# top of main. GPU tests (matproduct, ops, plex_gamg at 1, 2, 4 ranks), memcheck at 2 ranks, then
# CG + GAMG lap3d 128^3 at 1 rank, REPEAT=3, with -mat_gpumat_shadow_products 0 (the formats built
# at the first product, as main) and with the default, in one call.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name --format=csv,noheader
LOG=$R/build.log source conf/device-build.sh || exit 1
echo "built after $(( $(date +%s) - t0 )) s"
timeout 170 ctest --test-dir build-cuda -L gpu -R "matproduct|\.ops|plex_gamg" -j 8 --timeout 120 --output-on-failure > $R/ctest.txt 2>&1
echo "ctest rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "tests passed|tests failed|\(Failed\)|Timeout" $R/ctest.txt | head -30
S=/usr/local/cuda/bin/compute-sanitizer
timeout 80 mpiexec -n 2 --bind-to none $S --tool memcheck --error-exitcode 9 build-cuda/tests/petsc/test_matproduct -type pjds -operands ours -products smoothed,ab,ptap -expect_device -n 12 > $R/memcheck-pjds-np2.txt 2>&1; echo "memcheck pjds np2 rc=$? $(grep 'ERROR SUMMARY' $R/memcheck-pjds-np2.txt | tr '\n' ' ')"
# where each value operation of GAMG's set-up ran (PetscInfo of our routes), ex45 129^3 pjds at 1 rank
P="$(PKG_CONFIG_PATH=$PETSC_DIR/lib/pkgconfig pkg-config --cflags --libs PETSc) -Wl,-rpath,$PETSC_DIR/lib"
mpicc -O2 -o $R/ex45 $PETSC_DIR/share/petsc/examples/src/ksp/ksp/tutorials/ex45.c $P > $R/ex45-build.txt 2>&1 || echo "ex45 build failed"
timeout 40 $R/ex45 -ksp_type cg -pc_type gamg -ksp_rtol 1e-8 -da_grid_x 129 -da_grid_y 129 -da_grid_z 129 -dm_vec_type cuda -dll_append $PWD/build-cuda/libpetscgpumat.so -dm_mat_type pjds -info 2>&1 | grep -E "Mat(Scale|DiagonalScale|AXPY|GetDiagonal|Convert|Duplicate|Transpose|Filter)|on the host|on the GPU|shadow|cuSPARSE" | sed -E 's/^\[[0-9]+\] //; s/[0-9]+/N/g' | sort | uniq -c | sort -rn | head -80 > $R/ex45-pjds-info.txt; echo "ex45 -info: $(wc -l < $R/ex45-pjds-info.txt) distinct lines"
for k in 0 100; do
  L=$(( 540 - ($(date +%s) - t0) )); [ $L -gt 60 ] || { echo "no time for shadow_products $k"; break; }
  GPUMAT_CONFIG=cuda BUILD=$PWD/build-cuda OUT=$R/np1-sp$k NP=1 PROBLEMS="lap3d:128" PCS="gamg" NS="" BRATU_N=16 EX56_NE="" REPEAT=3 RUN_LIMIT=60 SOLVE_OPTS="-mat_gpumat_shadow_products $k" timeout $(( L / (k == 0 ? 2 : 1) )) bash conf/solvers.sh > $R/solvers-np1-sp$k.txt 2>&1
  echo "solvers np1 shadow_products $k rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "^\| CG|!!" $R/solvers-np1-sp$k.txt
done
echo "total $(( $(date +%s) - t0 )) s"
