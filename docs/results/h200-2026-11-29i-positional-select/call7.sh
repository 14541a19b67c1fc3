#!/usr/bin/env bash
# Session 19, call 7 (main, 6319e15): what positional columns cost to build against pjds's default,
# the median of 9 builds each (one process a matrix, the types alternating by process order), and
# the product at 1 and 2 ranks (two ranks sharing the GPU), to judge whether -mat_pjds_columns auto
# should take them (the build paid back within how many products).
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && rm -f results.tgz && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh petscgpumat bench_matmult || { pack; exit 1; }
echo "built after $(el)"
export OPENBLAS_NUM_THREADS=1
for m in gen:lap3d:200 gen:lap3dv:200 gen:lap3d27:120 gen:lap2d:3000; do
  n=${m//:/_}
  timeout 90 build-cuda/examples/bench_matmult -matrix $m -types aijcusparse:alg1,pjds,pjds:columns=positional -reps 100 -reps_build 9 -ksp_its 0 -floors 0 > $R/np1-$n.txt 2>&1
  echo "$m rc=$? after $(el)"; grep -E "^type|^(aijcusparse|pjds)" $R/np1-$n.txt | cut -c1-130
  pack
done
for m in gen:lap3d:200 gen:lap3dv:200; do
  n=${m//:/_}
  timeout 90 mpiexec -n 2 --bind-to none build-cuda/examples/bench_matmult -matrix $m -types aijcusparse:alg1,pjds,pjds:columns=positional -reps 100 -reps_build 5 -ksp_its 0 -floors 0 -use_gpu_aware_mpi 0 > $R/np2-$n.txt 2>&1
  echo "np2 $m rc=$? after $(el)"; grep -E "^type|^(aijcusparse|pjds)" $R/np2-$n.txt | cut -c1-130
  pack
done
echo "total $(el)"
