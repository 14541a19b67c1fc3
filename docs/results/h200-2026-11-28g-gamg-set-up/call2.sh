#!/usr/bin/env bash
# Device call (issue 36, session 7, second), one H200, main at c8909cc. (1) Why a second 2-rank GAMG
# set-up stops in examples/solve: PETSc alone (.carry/twice.c: 8^3 then 128^3 in one process) finished
# in call 1; here twice.c with the plugin loaded, examples/solve -types aijcusparse at 128^3 after its
# 8^3 warm-up, and -types pjds,aijcusparse -warmup 0 (aijcusparse's set-up second). (2) Where the
# set-up time goes: ex45 129^3 aijcusparse and pjds at 1 and 2 ranks, -log_view with
# -log_view_gpu_time, twice each, alternating.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name --format=csv,noheader
LOG=$R/build.log source conf/device-build.sh petscgpumat solve || exit 1
P="$(PKG_CONFIG_PATH=$PETSC_DIR/lib/pkgconfig pkg-config --cflags --libs PETSc) -Wl,-rpath,$PETSC_DIR/lib"
mpicc -O2 -o $R/ex45 $PETSC_DIR/share/petsc/examples/src/ksp/ksp/tutorials/ex45.c $P > $R/ex45-build.txt 2>&1 || echo "ex45 build failed"
mpicc -O2 -o $R/twice .carry/twice.c $P > $R/twice-build.txt 2>&1 || echo "twice build failed"
echo "built after $(( $(date +%s) - t0 )) s"
LIB=$PWD/build-cuda/libpetscgpumat.so
run() { local name=$1 lim=$2; shift 2; local s=$(date +%s); timeout $lim "$@" > $R/$name.txt 2>&1; echo "$name rc=$? $(( $(date +%s) - s )) s"; }
run twice-plugin-np2 45 mpiexec -n 2 --bind-to none $R/twice -mat_type aijcusparse -pc_type gamg -ksp_rtol 1e-8 -dll_append $LIB
grep twice: $R/twice-plugin-np2.txt
SO="-kind lap3d -n 128 -ksp_type cg -pc_type gamg -ksp_rtol 1e-8 -vec_type cuda"
run solve-aijcusparse-warm-np2 45 mpiexec -n 2 --bind-to none build-cuda/examples/solve $SO -types aijcusparse
tail -3 $R/solve-aijcusparse-warm-np2.txt
run solve-pjds-aijcusparse-np2 60 mpiexec -n 2 --bind-to none build-cuda/examples/solve $SO -types pjds,aijcusparse -warmup 0
tail -4 $R/solve-pjds-aijcusparse-np2.txt
G="-ksp_type cg -pc_type gamg -ksp_rtol 1e-8 -ksp_converged_reason -da_grid_x 129 -da_grid_y 129 -da_grid_z 129 -dm_vec_type cuda -dll_append $LIB -log_view_gpu_time"
for np in 1 2; do for rep in 1 2; do for t in aijcusparse pjds; do
  timeout 40 mpiexec -n $np --bind-to none $R/ex45 $G -dm_mat_type $t -log_view :$R/ex45-$t-np$np-r$rep.log > $R/ex45-$t-np$np-r$rep.txt 2>&1
  echo "ex45 $t np$np r$rep rc=$? $(grep -h CONVERGED $R/ex45-$t-np$np-r$rep.txt | head -1 | awk '{print $NF}') its, $(grep -E '^Time \(sec\):' $R/ex45-$t-np$np-r$rep.log 2>/dev/null | awk '{print $3}') s; PCSetUp $(grep -E '^PCSetUp ' $R/ex45-$t-np$np-r$rep.log | awk '{print $4}') KSPSolve $(grep -E '^KSPSolve ' $R/ex45-$t-np$np-r$rep.log | awk '{print $4}')"
done; done; done
echo "total $(( $(date +%s) - t0 )) s"
