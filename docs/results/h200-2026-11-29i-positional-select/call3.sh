#!/usr/bin/env bash
# Draft for session 19 (issue 37's suite run; main, or the branch to be measured): the regular suite
# matrices (stencils, FEM, PETSc's tutorials) with every peer and ours, pjds's positional columns as
# an extra row, one build each, 50 products, no KSP: bash .carry/next19-suite.sh a   (the stencils
# and fem3c_90), then ... b (the variable FEM and the tutorial matrices, which
# bench/tutorial_matrices.sh writes first: minutes). Issue 37's target: the best of ours at least
# 1.3x the best peer per matrix (geometric mean), none below 1.0x; constant coefficients 2.2x
# cuSPARSE SELL.
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
TYPES="aijcusparse:alg1,aijcusparse:alg2,cusparsesell,cusparsebsr,sellcuda,csrspec,bccoo,pjds,pjds:columns=positional,bce,gpuauto" \
  ARGS="-floors 0" REPS=50 REPS_BUILD=1 KSP_ITS=0 OUT=$R/suite timeout 540 bash conf/suite.sh $NAMES > $R/suite.log 2>&1
echo "suite rc=$? after $(el)"; tail -30 $R/suite/table.md 2>/dev/null || tail -20 $R/suite.log
pack
echo "total $(el)"
