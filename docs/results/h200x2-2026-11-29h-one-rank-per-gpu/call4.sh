#!/usr/bin/env bash
# Session 18, call 3 (branch s17-positional-prefetch checked out): the positional product with
# x loaded beside the values. Its tests (bitwise the 32-bit layout's), then pjds's default against
# positional columns in one process per matrix (session 17's ratios, positional / pjds: lap3dv
# 1.21x, lap3d 0.90x, lap2d 0.88x, lap3d27 1.04x; docs/results/h200-2026-11-29g-positional-tests).
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && rm -f results.tgz && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh petscgpumat test_cuda bench_matmult || { pack; exit 1; }
echo "built after $(el)"
timeout 150 build-cuda/tests/unit/test_cuda --gtest_filter='PjdsDevice.Positional*:PjdsDeviceFuzz.PositionalRandomPatterns:PjdsDeviceSanitizer.*:FormatDevice/pjds*' > $R/unit.txt 2>&1; echo "unit rc=$? after $(el)"
grep -E "^\[  (PASSED|FAILED) " $R/unit.txt; gzip -9 $R/unit.txt; pack
export OPENBLAS_NUM_THREADS=1
for m in gen:lap3dv:200 gen:lap3d:200 gen:lap3d27:120 gen:lap2d:3000; do
  n=${m//:/_}
  timeout 60 build-cuda/examples/bench_matmult -matrix $m -types cusparsesell,pjds,pjds:columns=positional,pjds:columns=positional:occupancy=4 -reps 100 -ksp_its 0 -floors 0 > $R/np1-$n.txt 2>&1
  echo "$m rc=$? after $(el)"; grep -E "^(cusparsesell|pjds)" $R/np1-$n.txt | cut -c1-90
  pack
done

# 0dd4ff2's floors (rg_gather_floor with OwnValues/Table16Values, Floors::run_kinds) on the GPU
timeout 90 build-cuda/examples/bench_matmult -matrix gen:lap3d:200 -types pjds -reps 50 -ksp_its 0 -floors 1 > $R/floors-lap3d.txt 2>&1
echo "floors rc=$? after $(el)"; grep -E "^floor|^pjds" $R/floors-lap3d.txt | cut -c1-110; pack
echo "total $(el)"
