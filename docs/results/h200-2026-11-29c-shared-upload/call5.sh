#!/usr/bin/env bash
# Device call 5 (session 13, one H200), as call 4: where pjds's GAMG set-up loses to aijcusparse's in
# PETSc's ksp tutorial ex56 (3D elasticity, 3 dof a node, 40^3 elements; call 4: set-up 0.71 against
# 0.54 s). Two processes of each type, alternating, one BLAS thread, -log_view with the GPU timers;
# one pjds process with -info for the operations' routes.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh petscgpumat || { pack; exit 1; }
echo "built after $(el)"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
T() { timeout 60 env GPUMAT_CONFIG=cuda GPUMAT_LIB=build-cuda/libpetscgpumat.so TUTORIAL_BUILD=build-cuda/tutorials NP=1 MPIEXEC_FLAGS="--bind-to none" bash conf/tutorial.sh ksp/ksp/tutorials/ex56 -ne 40 -ksp_type cg -pc_type gamg -ksp_rtol 1e-8 -ksp_converged_reason "$@"; }
for k in 1 2; do for t in aijcusparse pjds; do
  T -mat_type $t -log_view -log_view_gpu_time > $R/ex56-$t-$k.txt 2>&1
  echo "ex56 $t $k rc=$? $(grep -E '^(PCSetUp|KSPSolve|MatCreateGraph|MatPtAPSymbolic) ' $R/ex56-$t-$k.txt | awk '{printf "%s %s; ", $1, $4}')"
done; done
T -mat_type pjds -info :mat > $R/ex56-pjds-info.txt 2>&1
echo "info rc=$?"
grep -E "on the host|on the GPU|copied|host path" $R/ex56-pjds-info.txt | sed -E 's/^\[[0-9]+\] //; s/[0-9]+/N/g' | sort | uniq -c | sort -rn | head -20
for f in $R/*.txt; do gzip -9 $f; done
pack; rm -rf $R
echo "total $(el)"
