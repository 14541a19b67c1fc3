#!/usr/bin/env bash
# unrun (its 150 s ran out after 101 of 130 passed, none failed), then the suite's stencils and
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && rm -f results.tgz && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh || { pack; exit 1; }
echo "built after $(el)"
TYPES="aijcusparse:alg1,aijcusparse:alg2,cusparsesell,cusparsebsr,sellcuda,csrspec,bccoo,pjds,pjds:columns=plain,pjds:columns=positional,bce,gpuauto" \
  ARGS="-floors 0" REPS=50 REPS_BUILD=1 KSP_ITS=0 OUT=$R/suite timeout $(( 540 - ($(date +%s) - t0) )) bash conf/suite.sh fem3_90 fem6_64 fem3_30 ex19_cavity ex56_elasticity ex13_poisson_q2 > $R/suite.log 2>&1
echo "suite rc=$? after $(el)"; tail -12 $R/suite/table.md 2>/dev/null || tail -20 $R/suite.log
pack
echo "total $(el)"
