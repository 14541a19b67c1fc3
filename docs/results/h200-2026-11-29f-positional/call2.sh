#!/usr/bin/env bash
# Draft for session 16 (after next-call1.sh): the branch s15-positional-floor merged into the tree
# (git merge s15-positional-floor first). The floors of positional offsets and of 16-bit value codes
# against pjds's own product and floors, aijcusparse and cuSPARSE's SELL, one process per matrix;
# PETSc's ex56 and ex13 operators at mid sizes (written here: bench/tutorial_matrices.sh).
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && rm -f results.tgz && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh bench_matmult || { pack; exit 1; }
echo "built after $(el)"
EX19_GRID=800 EX56_NE=49 EX13_CELLS=40 timeout 150 bash bench/tutorial_matrices.sh /tmp/tut small > $R/tutorials.txt 2>&1; echo "tutorials rc=$? after $(el)"; tail -3 $R/tutorials.txt
export OPENBLAS_NUM_THREADS=1
for m in gen:lap3dv:200 gen:lap3d:200 gen:lap2d:3000 gen:lap3d27:120 /tmp/tut/ex19_cavity.bin /tmp/tut/ex56_elasticity.bin /tmp/tut/ex13_poisson_q2.bin; do
  n=$(basename ${m//:/_} .bin)
  timeout 120 build-cuda/examples/bench_matmult -matrix $m -types aijcusparse:alg1,cusparsesell,pjds -reps 100 -ksp_its 0 -floors 1 > $R/floors-$n.txt 2>&1
  echo "$m rc=$? after $(el)"; grep -E "^(floor:pjds|aijcusparse|cusparsesell|pjds) " $R/floors-$n.txt | cut -c1-100
  pack
done
echo "total $(el)"
