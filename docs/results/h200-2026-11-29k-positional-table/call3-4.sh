#!/usr/bin/env bash
# Draft for session 21 (the suite after s20-positional-table and -fp32 are merged, or on the branch):
# the twelve regular matrices with every peer and ours; as extra rows pjds's plain and dictionary
# columns (the previous defaults on short untabled and wide tabled rows: the same-run comparison of
# "no matrix slower than before"), positional columns on request, and fp32 storage (issue 37: 1.6x
# the best fp64 peer); 50 products, one build each; -view_types logs gpuauto's predictions for
# bench/calibrate.py (--replay, and a fit of the new keys pjds:positional+table and +fp32). bash .carry/next21-suite.sh a (stencils and
# fem3c_90, ~300 s), then b (the variable FEM and PETSc's tutorial operators, ~430 s with the tutorial
# matrices written first; run it warm, within 30 s).
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && rm -f results.tgz && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh petscgpumat bench_matmult suite_info || { pack; exit 1; }
echo "built after $(el)"
case "${1:-a}" in
  a) NAMES="lap2d_4500 lap3d_300 lap3d27_160 lap3d_64 lap3dv_300 fem3c_90" ;;
  b) NAMES="fem3_90 fem6_64 fem3_30 ex19_cavity ex56_elasticity ex13_poisson_q2" ;;
  *) echo "a or b"; exit 2 ;;
esac
TYPES="aijcusparse:alg1,aijcusparse:alg2,cusparsesell,cusparsebsr,sellcuda,csrspec,bccoo,pjds,pjds:columns=plain,pjds:columns=dictionary,pjds:columns=positional,pjds:gpumat_values=fp32,bce,gpuauto" \
  ARGS="-floors 0 -view_types" REPS=50 REPS_BUILD=1 KSP_ITS=0 OUT=$R/suite timeout $(( 570 - ($(date +%s) - t0) )) bash conf/suite.sh $NAMES > $R/suite.log 2>&1
echo "suite rc=$? after $(el)"; tail -12 $R/suite/table.md 2>/dev/null || tail -20 $R/suite.log
pack
echo "total $(el)"
