#!/usr/bin/env bash
# Session 14, call 3: why the smoothed case fails with A aijcusparse and P ours at 1 rank (call 2):
# .carry/diag/diag_smoothed.cxx runs GAMG's smoothed prolongator and T^T A T step by step against
# plain AIJ, P ours (pjds, bce) or aijcusparse (the control), at 1 and 2 ranks, with -info lines of
# the products; then the matproduct_reversed GPU tests (CheckDense's MPI A^T B after new values of an
# aijcusparse A no longer compared: PETSc's MAIJ product reads stale host values).
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && rm -f results.tgz && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh || { pack; exit 1; }
echo "built after $(el)"
mpicxx -O1 -o $R/diag .carry/diag/diag_smoothed.cxx -I$PETSC_DIR/include -Iinclude -Iexamples -Lbuild-cuda -lpetscgpumat -Lbuild-cuda/examples -lgpumat_gen -L$PETSC_DIR/lib -lpetsc -Wl,-rpath,$PWD/build-cuda:$PETSC_DIR/lib > $R/diag-build.txt 2>&1 || { cat $R/diag-build.txt | head; }
for np in 1 2; do for p in aijcusparse aijpjds aijbce; do
  echo "== np$np P $p"; timeout 60 mpiexec -n $np --bind-to none $R/diag -ptype $p 2>&1 | tail -12
done; done 2>&1 | tee $R/diag.txt
timeout 60 mpiexec -n 1 --bind-to none $R/diag -ptype aijpjds -info :mat > $R/diag-info-pjds.txt 2>&1
rm -f $R/diag; pack
ctest --test-dir build-cuda -L gpu -R "matproduct_reversed" -j 12 --timeout 200 --output-on-failure > $R/ctest.txt 2>&1
grep -E "tests passed|\(Failed\)|\(Timeout\)|Total Test" $R/ctest.txt | head -30; echo "ctest after $(el)"; gzip -9 $R/ctest.txt; pack
echo "total $(el)"
