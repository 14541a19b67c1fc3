#!/usr/bin/env bash
# Session 14, call 5: is the reversed smoothed failure aijcusparse's own? diag_smoothed with A and P
# scaled and back first (as test_matproduct's earlier cases leave them), P aijcusparse (no type of
# ours anywhere) or pjds, G by MatPtAP or by MatProduct's API, and with -matptap_backend_cpu.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && rm -f results.tgz && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh petscgpumat gpumat_gen || { pack; exit 1; }
echo "built after $(el)"
mpicxx -O1 -o $R/diag .carry/diag/diag_smoothed.cxx -I$PETSC_DIR/include -Iinclude -Iexamples -Lbuild-cuda -lpetscgpumat -Lbuild-cuda/examples -lgpumat_gen -L$PETSC_DIR/lib -lpetsc -Wl,-rpath,$PWD/build-cuda:$PETSC_DIR/lib > $R/diag-build.txt 2>&1 || head $R/diag-build.txt
for p in aijcusparse aijpjds; do for opts in "" "-prescale" "-prescale -product_api" "-prescale -matptap_backend_cpu"; do
  echo "== P $p $opts"; timeout 60 mpiexec -n 1 --bind-to none $R/diag -ptype $p $opts 2>&1 | grep -E "rel|ERROR" | tail -8
done; done 2>&1 | tee $R/diag.txt
rm -f $R/diag; pack
echo "total $(el)"
