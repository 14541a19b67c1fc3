#!/usr/bin/env bash
# Device call 2 (session 12, one H200): aijcusparse's factorizations for our seq types (factor.cxx).
# GPU tests of the operations (the four factorizations among them) at 1, 2, 4 ranks; compute-sanitizer
# on test_ops' factorizations and on test_matproduct; CG + GAMG lap3d 128^3 with -log_view (the coarse
# solve's package and copies); conf/solvers.sh (jacobi, gamg, gamg+fp32P on lap3d 128^3, ex19 256^2)
# at 1 and 2 ranks, REPEAT=3.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
LOG=$R/build.log source conf/device-build.sh || exit 1
echo "built after $(el)"
ctest --test-dir build-cuda -L gpu -R "[.]ops|api_pmat_fp32" -j 8 --timeout 300 --output-on-failure > $R/ctest.txt 2>&1
grep -E "tests passed|Failed|\*\*\*" $R/ctest.txt | head -20; echo "ctest after $(el)"
san=/usr/local/cuda/bin/compute-sanitizer
for tool in memcheck racecheck synccheck; do
  timeout 200 $san --tool $tool --error-exitcode 9 build-cuda/tests/petsc/test_ops -type pjds -ops factor_lu,factor_ilu,factor_cholesky,factor_icc > $R/san-ops-$tool.txt 2>&1
  echo "$tool test_ops factors: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/san-ops-$tool.txt | tail -1)"
  timeout 200 $san --tool $tool --error-exitcode 9 build-cuda/tests/petsc/test_matproduct -type pjds -operands aij -expect_device -mat_gpumat_shadow_products 0 > $R/san-mp-$tool.txt 2>&1
  echo "$tool test_matproduct: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/san-mp-$tool.txt | tail -1)"
done
echo "sanitizer after $(el)"
G="build-cuda/examples/solve -kind lap3d -n 128 -vec_type cuda -pc_type gamg -ksp_rtol 1e-8 -warmup 0 -log_view -log_view_gpu_time -ksp_view"
for t in pjds; do
  timeout 120 mpiexec -n 1 --bind-to none $G -types $t > $R/gamg-$t.txt 2>&1; echo "gamg $t rc=$? $(grep -A1 -E '^type +its' $R/gamg-$t.txt | tail -1 | cut -c1-120)"
  grep -E "^(MatCUSPARSCopyTo|MatCUSPARSCopyFr|MatLUFactorNum|MatSolve |PCSetUp |KSPSolve )" $R/gamg-$t.txt | cut -c1-200
  grep -iE "package used" $R/gamg-$t.txt | sort | uniq -c
done
echo "gamg after $(el)"
for np in 1 2; do
  OUT=$R/solvers-np$np NP=$np REPEAT=3 PROBLEMS="lap3d:128" PCS="jacobi gamg" FP32_PCS=gamg TYPES=pjds,gpuauto NS="" EX56_NE="" EX19_N=256 BRATU_N=64 RUN_LIMIT=150 \
    bash conf/solvers.sh > $R/solvers-np$np.log 2>&1
  echo "solvers np$np rc=$? after $(el)"; cat $R/solvers-np$np/solvers.md 2>/dev/null | head -40
done
cd $OUT && tar czf results.tgz r && rm -rf r
echo "total $(el)"
