#!/usr/bin/env bash
# Session 14, call 4: which earlier case breaks test_matproduct's smoothed case with A aijcusparse and
# P ours at 1 rank (-operands reversed; alone it and diag_smoothed pass): smoothed after each case.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && rm -f results.tgz && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh petscgpumat test_matproduct || { pack; exit 1; }
echo "built after $(el)"
for pre in "" ab atb abt ptap rart abc ab,atb,abt,ptap,rart,abc; do
  for t in pjds cusparsecsr; do
    timeout 60 mpiexec -n 1 --bind-to none build-cuda/tests/petsc/test_matproduct -type $t -operands reversed -expect_device -products ${pre:+$pre,}smoothed > $R/bisect-$t-${pre:-none}.txt 2>&1
    echo "$t pre=${pre:-none} rc=$? $(grep -E 'PETSC ERROR: [a-zA-Z]' $R/bisect-$t-${pre:-none}.txt | grep -v -E 'Error Message|See https|Release Version|Configure|Option|unused|test_matproduct with|-[a-z_]+ ' | head -2 | tr '\n' ' ')"
  done
done
timeout 60 mpiexec -n 1 --bind-to none build-cuda/tests/petsc/test_matproduct -type pjds -operands reversed -expect_device -info :mat > $R/info-all-pjds.txt 2>&1; gzip -9 $R/info-all-pjds.txt
pack
echo "total $(el)"
