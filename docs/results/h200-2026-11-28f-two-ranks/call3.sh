#!/usr/bin/env bash
# Device call (issue 36, session 6, call 3), one H200: main 69df3bd+. Why CG + GAMG at 2 ranks
# sharing the GPU finishes in PETSc's ksp tutorial ex45 with aijcusparse (call 2) but not in
# examples/solve: ex45 with our plugin loaded (aijcusparse, then pjds), examples/solve without its
# warm-up; ex45 at 1 rank with pjds against aijcusparse; then conf/solvers.sh REPEAT=3 with CG + GAMG
# lap3d 128^3 and Newton Bratu 64^3 (LOGVIEW=1) at 1 rank.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
left() { echo $(( 540 - ($(date +%s) - t0) )); }
tar -C / -xJf .carry/petsc-cuda.tar.xz && eval "$(bash conf/petsc.sh cuda --env)"
source conf/env.sh
export PETSC_OPTIONS="-use_gpu_aware_mpi 0" LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
(cmake -S . -B build-cuda -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc && cmake --build build-cuda -j16 --target petscgpumat solve bratu) > $R/build.log 2>&1 || { grep -E "error" $R/build.log | head -20; tail -5 $R/build.log; exit 1; }
mpicc -O2 -o $R/ex45 $PETSC_DIR/share/petsc/examples/src/ksp/ksp/tutorials/ex45.c $(PKG_CONFIG_PATH=$PETSC_DIR/lib/pkgconfig pkg-config --cflags --libs PETSc) -Wl,-rpath,$PETSC_DIR/lib > $R/ex45-build.txt 2>&1 || echo "ex45 build failed"
echo "built after $(( $(date +%s) - t0 )) s"
G="-ksp_type cg -pc_type gamg -ksp_rtol 1e-8 -ksp_converged_reason -da_grid_x 129 -da_grid_y 129 -da_grid_z 129 -dm_vec_type cuda"
P="-dll_append $PWD/build-cuda/libpetscgpumat.so"
ex45() { # name ranks limit options...
  local name=$1 np=$2 lim=$3; shift 3
  timeout $lim mpiexec -n $np --bind-to none $R/ex45 $G "$@" -log_view :$R/ex45-$name.log > $R/ex45-$name.txt 2>&1
  echo "ex45 $name rc=$? $(grep -h CONVERGED $R/ex45-$name.txt | head -1) $(grep -E '^Time \(sec\):' $R/ex45-$name.log 2>/dev/null)"
}
ex45 aijcusparse-plugin-np2 2 40 -dm_mat_type aijcusparse $P
ex45 pjds-np2 2 40 -dm_mat_type pjds $P
timeout 40 mpiexec -n 2 --bind-to none build-cuda/examples/solve -kind lap3d -n 128 -vec_type cuda -pc_type gamg -ksp_rtol 1e-8 -types aijcusparse -warmup 0 > $R/solve-aijcusparse-np2-nowarmup.txt 2>&1
echo "solve aijcusparse np2 -warmup 0 rc=$?"; grep -E "^mpi" $R/solve-aijcusparse-np2-nowarmup.txt
timeout 40 mpiexec -n 2 --bind-to none build-cuda/examples/solve -kind lap3d -n 64 -vec_type cuda -pc_type gamg -ksp_rtol 1e-8 -types aijcusparse > $R/solve-aijcusparse-np2-n64.txt 2>&1
echo "solve aijcusparse np2 n=64 rc=$?"; grep -E "^mpi" $R/solve-aijcusparse-np2-n64.txt
for t in aijcusparse pjds aijcusparse pjds; do
  timeout 30 $R/ex45 $G -dm_mat_type $t $P -log_view :$R/ex45-$t-np1.log > $R/ex45-$t-np1.txt 2>&1
  echo "ex45 $t np1 rc=$? $(grep -h CONVERGED $R/ex45-$t-np1.txt | head -1) $(grep -E '^Time \(sec\):' $R/ex45-$t-np1.log 2>/dev/null)"
done
L=$(left); [ $L -gt 100 ] || { echo "no time for solvers ($L s)"; exit 0; }
GPUMAT_CONFIG=cuda BUILD=$PWD/build-cuda OUT=$R/np1 NP=1 PROBLEMS="lap3d:128" PCS="gamg" NS="" BRATU_N=64 REPEAT=3 LOGVIEW=1 RUN_LIMIT=80 timeout $((L-5)) bash conf/solvers.sh > $R/solvers-np1.txt 2>&1
echo "solvers np1 rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "^\| |!!" $R/solvers-np1.txt
echo "total $(( $(date +%s) - t0 )) s"
