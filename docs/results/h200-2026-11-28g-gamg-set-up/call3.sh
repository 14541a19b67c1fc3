#!/usr/bin/env bash
# Device call (issue 36, session 7, third), one H200, main at c8909cc. (1) Which part of
# examples/solve makes its second 2-rank GAMG set-up stop (call 2: PETSc alone, .carry/twice.c 8^3
# then 128^3, finished; examples/solve -types aijcusparse after its 8^3 warm-up did not): twice.c
# assembled as examples/gen.c does (-csr), with examples/solve's KSPSetTolerances and
# KSPSetUpOnBlocks (-upblocks), both. (2) 1-rank CG + GAMG lap3d 128^3, every type, REPEAT=5.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name --format=csv,noheader
LOG=$R/build.log source conf/device-build.sh petscgpumat solve bratu bench_matmult || exit 1
P="$(PKG_CONFIG_PATH=$PETSC_DIR/lib/pkgconfig pkg-config --cflags --libs PETSc) -Wl,-rpath,$PETSC_DIR/lib"
mpicc -O2 -o $R/twice .carry/twice.c $P > $R/twice-build.txt 2>&1 || echo "twice build failed"
echo "built after $(( $(date +%s) - t0 )) s"
run() { local name=$1 lim=$2; shift 2; local s=$(date +%s); timeout $lim "$@" > $R/$name.txt 2>&1; echo "$name rc=$? $(( $(date +%s) - s )) s"; grep twice: $R/$name.txt; }
for o in "-csr" "-upblocks" "-csr -upblocks"; do
  run "twice${o// /}-np2" 35 mpiexec -n 2 --bind-to none $R/twice -mat_type aijcusparse -pc_type gamg -ksp_rtol 1e-8 $o
done
GPUMAT_CONFIG=cuda BUILD=$PWD/build-cuda OUT=$R/np1 NP=1 PROBLEMS="lap3d:128" PCS="gamg" NS="" BRATU_N=16 EX56_NE="" REPEAT=5 RUN_LIMIT=60 timeout $(( 520 - ($(date +%s) - t0) )) bash conf/solvers.sh > $R/solvers-np1.txt 2>&1
echo "solvers np1 rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "^\| CG|!!" $R/solvers-np1.txt
echo "total $(( $(date +%s) - t0 )) s"
