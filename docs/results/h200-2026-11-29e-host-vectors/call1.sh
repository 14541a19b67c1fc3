#!/usr/bin/env bash
# Session 15, call 1 (nvidia-h200-x2), main + s14-zero-entries + s14-dense-auto merged: the GPU
# tests of COO, products and ops; the CUDA build's host-vector tests of COO and products;
# memcheck/synccheck on test_coo with device values at 1 and 2 ranks; bench_matmult -dense 8/32 at
# 1 rank, default (auto) against =spmm and =loop, on lap3d and lap3dv 128; CG + GAMG lap3d 128^3
# -log_view, aijcusparse and pjds, at 1 rank and at 2 ranks one per GPU.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && rm -f results.tgz && tar czf results.tgz r); }
nvidia-smi -L
LOG=$R/build.log source conf/device-build.sh || { pack; exit 1; }
echo "built after $(el)"
ctest --test-dir build-cuda -L gpu -R "coo|matproduct|[.]ops" -j 16 --timeout 200 --output-on-failure > $R/ctest-gpu.txt 2>&1
grep -E "tests passed|\(Failed\)|\(Timeout\)|Total Test" $R/ctest-gpu.txt | head -30; echo "gpu ctest after $(el)"; gzip -9 $R/ctest-gpu.txt; pack
ctest --test-dir build-cuda -LE gpu -R "coo|matproduct" -j 16 --timeout 200 --output-on-failure > $R/ctest-host.txt 2>&1
grep -E "tests passed|\(Failed\)|\(Timeout\)|Total Test" $R/ctest-host.txt | head -30; echo "host-vector ctest after $(el)"; gzip -9 $R/ctest-host.txt; pack
san=/usr/local/cuda/bin/compute-sanitizer
for np in 1 2; do for tool in memcheck synccheck; do
  timeout 120 mpiexec -n $np --bind-to none $san --tool $tool --error-exitcode 9 build-cuda/tests/petsc/test_coo -type pjds -values device > $R/san-coo-np$np-$tool.txt 2>&1
  echo "$tool coo np$np: rc=$? $(grep -E 'ERROR SUMMARY' $R/san-coo-np$np-$tool.txt | sort | uniq -c | tr '\n' ' ')"
done; done
pack
export OPENBLAS_NUM_THREADS=1
G="build-cuda/examples/solve -kind lap3d -n 128 -vec_type cuda -pc_type gamg -ksp_rtol 1e-8 -warmup 0 -log_view"
for np in 1 2; do for t in aijcusparse pjds; do
  timeout 90 mpiexec -n $np --bind-to none $G -types $t > $R/gamg-np$np-$t.txt 2>&1
  echo "gamg np$np $t rc=$? $(grep -A1 -E '^type +its' $R/gamg-np$np-$t.txt | tail -1 | cut -c1-140) after $(el)"
done; done
pack
for kind in lap3d lap3dv; do for k in 8 32; do
  types=aijcusparse:alg1; for t in pjds bce gpuauto; do types=$types,$t,$t:gpumat_dense_products=spmm,$t:gpumat_dense_products=loop; done
  timeout 100 build-cuda/examples/bench_matmult -kind $kind -n 128 -types $types -dense $k -reps 50 -reps_coo 20 -ksp_its 0 -floors 0 > $R/bench-$kind-k$k.txt 2>&1
  echo "bench $kind k$k rc=$? after $(el)"; grep -E "^dense" $R/bench-$kind-k$k.txt | sed -E 's/: C = A B, B dense with [0-9]+ columns: median/ AB/; s/ \(min [^)]*\)//'
done; done
pack
echo "total $(el)"
