#!/usr/bin/env bash
# Device call 4 (session 13, one H200), main after 690bf54: conf/solvers.sh's PETSc-tutorial cases,
# whose session-12 changes no GPU had run (639a442: ex19's phases from -log_view with the GPU timers;
# 4dcf700: the tutorials built under $BUILD/tutorials; a5e1bfc: one BLAS thread): ex19 256^2
# (Newton, GMRES + Jacobi) and ex56 40^3 elements (CG + GAMG), bratu 48^3, aijcusparse and pjds, one
# rank, two rounds (the second in reverse order).
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh || { pack; exit 1; }
echo "built after $(el)"
OUT=$R/solvers NP=1 REPEAT=2 PROBLEMS="" NS="" PCS=jacobi TYPES=pjds EX56_NE=40 EX19_N=256 BRATU_N=48 RUN_LIMIT=120 \
  timeout 380 bash conf/solvers.sh > $R/solvers.log 2>&1
echo "solvers rc=$? after $(el)"
grep -E "^!!" $R/solvers.log | head; cat $R/solvers/solvers.md 2>/dev/null | head -30
rm -f $R/solvers/*.png; for f in $R/solvers/*.txt; do gzip -9 "$f"; done
pack; rm -rf $R
echo "total $(el)"
