#!/usr/bin/env bash
# Device call (session 10, first; one H200). (a) main's e59b62b on the GPU: pjds unit tests and
# compute-sanitizer memcheck, racecheck, synccheck on the value-table and auto tests (the device
# builder's grid accessor and value_from_bits, not yet run on a GPU). (b) the products' GPU tests at
# 1, 2, 4 ranks with test_matproduct's new check (GAMG's re-set-up: MatPtAP MAT_REUSE_MATRIX after new
# values of A) on main's product code. (c) CG + GAMG lap3d 128^3 at 1 rank, aijcusparse and pjds, on
# main's code (the session-9 1-rank stall: main's or the branch's?). (d) the inner product marked
# api_user (.carry/apiuser.patch): library rebuilt, test_matproduct np2 per product with its output.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
nvidia-smi --query-gpu=name --format=csv,noheader
LOG=$R/build.log source conf/device-build.sh || exit 1
echo "built after $(el)"
T=$(find build-cuda/tests/unit -maxdepth 1 -name test_cuda -type f | head -1)
timeout 120 $T --gtest_filter='*Pjds*:*pjds*' > $R/unit-pjds.txt 2>&1
echo "unit pjds rc=$? $(grep -E '^\[  (PASSED|FAILED) ' $R/unit-pjds.txt | tr '\n' ' ') after $(el)"
S=/usr/local/cuda/bin/compute-sanitizer
for tool in memcheck racecheck synccheck; do
  timeout 100 $S --tool $tool --error-exitcode 9 $T --gtest_filter='PjdsDevice.ValueTableBitwiseEqualAndRefresh:PjdsDevice.AutoCodesWideRowsOnly' > $R/$tool.txt 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|hazards|PASSED|FAILED' $R/$tool.txt | tr '\n' ' ')"
done
echo "sanitizers after $(el)"
timeout 200 ctest --test-dir build-cuda -L gpu -R "matproduct|[.]ops|plex_gamg" -j 8 --timeout 150 --output-on-failure > $R/ctest-products-main.txt 2>&1
echo "ctest (main) rc=$? $(grep -E 'tests passed|tests failed' $R/ctest-products-main.txt)"; grep -E "\(Failed\)|Timeout|\*\*\*" $R/ctest-products-main.txt | head -40
echo "after $(el)"
G="build-cuda/examples/solve -kind lap3d -n 128 -vec_type cuda -pc_type gamg -ksp_rtol 1e-8 -warmup 0"
for t in aijcusparse pjds; do
  timeout 70 mpiexec -n 1 --bind-to none $G -types $t > $R/gamg-np1-$t-main.txt 2>&1
  echo "gamg np1 $t (main) rc=$? $(grep -A1 -E '^type +its' $R/gamg-np1-$t-main.txt | tail -1 | cut -c1-120) after $(el)"
done
git apply .carry/apiuser.patch && cmake --build build-cuda -j 16 --target petscgpumat test_matproduct > $R/rebuild.log 2>&1; echo "patched, rebuilt rc=$? after $(el)"
for ty in pjds csrspec; do for op in ours aij; do
  for pr in ab atb abt ptap rart abc smoothed replace; do
    timeout 40 mpiexec -n 2 --bind-to none build-cuda/tests/petsc/test_matproduct -type $ty -operands $op -products $pr -expect_device $( [ $op = aij ] && echo -mat_gpumat_shadow_products 0 ) > $R/mp-api-$ty-$op-$pr.txt 2>&1
    echo "api_user np2 $ty $op $pr rc=$? $(grep -v '^ *$' $R/mp-api-$ty-$op-$pr.txt | tail -1 | cut -c1-200)"
  done
done; done
echo "after $(el)"
for t in pjds; do
  timeout 70 mpiexec -n 1 --bind-to none $G -types $t > $R/gamg-np1-$t-api.txt 2>&1
  echo "gamg np1 $t (api_user) rc=$? $(grep -A1 -E '^type +its' $R/gamg-np1-$t-api.txt | tail -1 | cut -c1-120) after $(el)"
done
git checkout src/petsc/matproduct.cxx
cd $OUT && tar czf results.tgz r && rm -rf r
echo "total $(( $(date +%s) - t0 )) s"
