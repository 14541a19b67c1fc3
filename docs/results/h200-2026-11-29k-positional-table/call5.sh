#!/usr/bin/env bash
# Draft for session 20 (main, after s19-auto-positional is merged; issue 37's constant-coefficient
# target: 2.2x cuSPARSE SELL): the suite's constant-coefficient matrices at their suite sizes, with
# the floors (-floors 1: the positional table gather floor among them) and cuSPARSE SELL, pjds and its
# positional columns in the same process: whether even the gather floor of the fewest bytes reaches
# 2.2x SELL's time (session 19 estimated 1.86x on lap3d_300 by scaling the 200^3 floor).
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && rm -f results.tgz && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh petscgpumat bench_matmult || { pack; exit 1; }
echo "built after $(el)"
export OPENBLAS_NUM_THREADS=1
for m in gen:lap3d:300 gen:lap3d27:160 gen:lap2d:4500 gen:fem3c:90; do
  n=${m//:/_}
  timeout 150 build-cuda/examples/bench_matmult -matrix $m -types cusparsesell,sellcuda,pjds,pjds:columns=positional -reps 50 -reps_build 1 -ksp_its 0 -floors 1 > $R/floors-$n.txt 2>&1
  echo "$m rc=$? after $(el)"; grep -E "^floor:(stream|pjds-gather|pjds-table-w4|pjds-pos-table-(gather|w4-gather))|^(cusparsesell|sellcuda|pjds)" $R/floors-$n.txt | cut -c1-100; pack
done
echo "total $(el)"
