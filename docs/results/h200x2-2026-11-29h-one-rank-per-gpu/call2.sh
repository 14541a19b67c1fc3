#!/usr/bin/env bash
# Session 18, call 1 (issue 36) on two H200s: time to solution at one rank per GPU on main (0dd4ff2),
# aijcusparse against pjds and gpuauto, three runs each (conf/solvers.sh REPEAT=3: medians, the
# types' order alternating): CG + Jacobi lap3d 200^3 (>= 200 iterations), CG + GAMG lap3d 128^3,
# Newton: bratu 64^3 and PETSc's snes ex19 256^2.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && rm -f results.tgz && tar czf results.tgz r); }
nvidia-smi --query-gpu=index,name --format=csv,noheader
LOG=$R/build.log source conf/device-build.sh petscgpumat solve bratu bench_matmult || { pack; exit 1; }
echo "built after $(el)"
timeout 30 mpiexec -n 2 --bind-to none build-cuda/examples/solve -kind lap3d -n 16 -types pjds -vec_type cuda -device_view > $R/device-view.txt 2>&1
grep -iE "device (id|name)|PCI|id:" $R/device-view.txt | head -8
C="GPUMAT_CONFIG=cuda BUILD=$PWD/build-cuda NP=2 TYPES=pjds,gpuauto REPEAT=3 RUN_LIMIT=120 NS= EX56_NE= FP32_PCS="
env $C OUT=$R/jacobi PROBLEMS=lap3d:200 PCS=jacobi EX19_N= BRATU_N=64 timeout 200 bash conf/solvers.sh > $R/jacobi.log 2>&1
echo "jacobi+bratu rc=$? after $(el)"; grep -E "^\| (CG|Newton)|!!" $R/jacobi/solvers.md $R/jacobi.log | cut -d: -f2- ; pack
env $C OUT=$R/gamg PROBLEMS=lap3d:128 PCS=gamg EX19_N=256 BRATU_N=16 timeout 230 bash conf/solvers.sh > $R/gamg.log 2>&1
echo "gamg+ex19 rc=$? after $(el)"; grep -E "^\| (CG|Newton)|!!" $R/gamg/solvers.md $R/gamg.log | cut -d: -f2- ; pack
echo "total $(el)"
