#!/usr/bin/env bash
# Device call 5 (session 12, one H200), main bf4429e: where pjds's GAMG set-up loses to aijcusparse's
# at 1 rank (call 4: 2.98 against 2.62 s, medians of 4, every run). CG + GAMG lap3d 128^3, one BLAS
# thread, aijcusparse and pjds alternating, two processes each, -log_view and -info (mat) for the
# value operations' routes.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
LOG=$R/build.log source conf/device-build.sh solve || exit 1
echo "built after $(el)"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
G="build-cuda/examples/solve -kind lap3d -n 128 -vec_type cuda -pc_type gamg -ksp_rtol 1e-8 -warmup 0 -log_view -info :mat"
for k in 1 2; do for t in aijcusparse pjds; do
  timeout 100 mpiexec -n 1 --bind-to none $G -types $t > $R/gamg-$t-$k.txt 2>&1
  echo "gamg $t run $k rc=$? $(grep -A1 -E '^type +its' $R/gamg-$t-$k.txt | tail -1 | cut -c1-110)"
done; done
for t in aijcusparse pjds; do
  echo "== $t: -info lines of value operations (run 1)"
  grep -oE "(MatScale|MatDiagonalScale|MatAXPY|MatShift|MatDiagonalSet)[^\[]*" $R/gamg-$t-1.txt | sort | uniq -c | head -20
done
for f in $R/gamg-*.txt; do gzip -9 $f; done
cd $OUT && tar czf results.tgz r && rm -rf r
echo "total $(el)"
