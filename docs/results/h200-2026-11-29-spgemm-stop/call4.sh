#!/usr/bin/env bash
# Device call (session 11, fourth): where test_matproduct's new check finds an upload (abc with
# aijcusparse operands, 1 rank): -log_trace of the failing and the passing (ours) variants.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
LOG=$R/build.log source conf/device-build.sh petscgpumat test_matproduct || exit 1
echo "built after $(( $(date +%s) - t0 )) s"
T=build-cuda/tests/petsc/test_matproduct
for op in aij ours; do
  X=""; [ $op = aij ] && X="-mat_gpumat_shadow_products 0"
  timeout 60 mpiexec -n 1 --bind-to none $T -type pjds -operands $op -expect_device $X -products abc -log_trace $R/trace-$op.txt > $R/abc-$op.txt 2>&1; echo "abc $op rc=$?"; grep -m2 -E "uploaded|equals" $R/abc-$op.txt | cut -c1-160
done
cd $OUT && tar czf results.tgz r && rm -rf r
echo "total $(( $(date +%s) - t0 )) s"
