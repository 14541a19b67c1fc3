#!/usr/bin/env bash
# Device call (session 11, third; one H200): the seq PtAP/RARt/ABC device route computing its first
# pair's values before the second pair's symbolic phase (working tree over 013689c).
# (1) spgemm_nan: PETSc's aijcusparse AtB (C = P^T B, 2M rows) with B's host values set to a bit
#     pattern before its upload, as MatProductSymbolic_ABC_Basic uploads its intermediate; 4 patterns
#     side by side, 25 s each. (2) ctest gpu matproduct, ops, plex_gamg (1, 2, 4 ranks).
# (3) CG + GAMG lap3d 128^3, 1 rank: four pjds runs side by side (the stop), then one at a time
#     aijcusparse / pjds x 2; 2 ranks on the GPU: aijcusparse, pjds. (4) the old matproduct.cxx
#     rebuilt: test_matproduct's new check at 1 rank must fail there.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
LOG=$R/build.log source conf/device-build.sh || exit 1
echo "built after $(el)"
mpicc -O2 -o $R/spgemm_nan .carry/s11/diag/spgemm_nan.c -I$PETSC_DIR/include -L$PETSC_DIR/lib -Wl,-rpath,$PETSC_DIR/lib -lpetsc || echo "spgemm_nan: no build"
for pat in zero ones qnan random; do
  (timeout 25 $R/spgemm_nan -n 2000000 -pattern $pat -use_gpu_aware_mpi 0 > $R/nan-$pat.txt 2>&1; echo "spgemm_nan $pat rc=$? $(tail -n 1 $R/nan-$pat.txt)") &
done
wait
echo "diag after $(el)"
timeout 200 ctest --test-dir build-cuda -L gpu -R "matproduct|[.]ops|plex_gamg" -j 8 --timeout 150 --output-on-failure > $R/ctest-products.txt 2>&1
echo "ctest rc=$? $(grep -E 'tests passed|tests failed' $R/ctest-products.txt)"; grep -E "\(Failed\)|Timeout|\*\*\*" $R/ctest-products.txt | head -20
echo "ctest after $(el)"
G="build-cuda/examples/solve -kind lap3d -n 128 -vec_type cuda -pc_type gamg -ksp_rtol 1e-8 -warmup 0 -no_signal_handler"
for k in 1 2 3 4; do
  (timeout 45 stdbuf -oL mpiexec -n 1 --bind-to none $G -types pjds -log_trace $R/trace-par$k.txt > $R/par-$k.txt 2>&1; echo "side by side $k rc=$? $(grep -A1 -E '^type +its' $R/par-$k.txt | tail -1 | cut -c1-110)") &
done
wait
echo "side by side after $(el)"
for t in aijcusparse pjds aijcusparse pjds; do
  timeout 40 mpiexec -n 1 --bind-to none $G -types $t > $R/seq-$t-$(el | cut -d' ' -f1).txt 2>&1; echo "1 rank $t rc=$? $(grep -A1 -E '^type +its' $R/seq-$t-*.txt | tail -1 | cut -c1-110)"
done
for t in aijcusparse pjds; do
  timeout 50 mpiexec -n 2 --bind-to none $G -types $t > $R/np2-$t.txt 2>&1; echo "2 ranks $t rc=$? $(grep -A1 -E '^type +its' $R/np2-$t.txt | tail -1 | cut -c1-110)"
done
echo "solves after $(el)"
cp src/petsc/matproduct.cxx $R/matproduct-new.cxx
git show HEAD:src/petsc/matproduct.cxx > src/petsc/matproduct.cxx
cmake --build build-cuda -j 16 --target petscgpumat test_matproduct > $R/rebuild-old.log 2>&1; echo "old route rebuilt rc=$? after $(el)"
timeout 60 mpiexec -n 1 --bind-to none build-cuda/tests/petsc/test_matproduct -type pjds -operands ours -expect_device -products ptap,rart,abc > $R/old-route-check.txt 2>&1
echo "old route, test_matproduct ptap,rart,abc np1 rc=$? (non-zero expected): $(grep -m1 -E 'uploaded|error' $R/old-route-check.txt | cut -c1-200)"
cp $R/matproduct-new.cxx src/petsc/matproduct.cxx
cd $OUT && tar czf results.tgz r && rm -rf r
echo "total $(el)"
