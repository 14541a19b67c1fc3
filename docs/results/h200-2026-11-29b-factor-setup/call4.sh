#!/usr/bin/env bash
# Device call 4 (session 12, one H200): the side stream by size (default on where a diagonal block
# holds 2^23 entries or more) and the factor tests. GPU tests of the MPI product, the views and the
# factorizations; bench_matmult at 2 ranks, lap3d 64-160^3, side stream forced on and off; bratu 64^3
# at 2 ranks with the default; CG + GAMG lap3d 128^3 at 1 rank with one BLAS thread (noise).
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
LOG=$R/build.log source conf/device-build.sh || exit 1
echo "built after $(el)"
ctest --test-dir build-cuda -L gpu -R "mpi_side_stream|[.]mpi[.]np2|view_side|ops_factor|api_halo|api_side|[.]ops[.]np2|[.]ops[.]np4" -j 8 --timeout 200 --output-on-failure > $R/ctest.txt 2>&1
grep -E "tests passed|Failed|\*\*\*" $R/ctest.txt | head -20; echo "ctest after $(el)"
B="timeout 120 mpiexec -n 2 --bind-to none build-cuda/examples/bench_matmult -floors 0 -reps 200 -warmup 20 -ksp_its 50"
for n in 64 96 128 160; do
  for s in 1 0; do
    $B -kind lap3d -n $n -types aijcusparse:alg1,pjds,bccoo -mat_gpumat_side_stream $s > $R/bench-lap3d$n-side$s.txt 2>&1
    echo "lap3d $n side $s rc=$?: $(grep -E '^(aijcusparse|pjds|bccoo)' $R/bench-lap3d$n-side$s.txt | awk '{printf "%s %s ms ksp %s; ", $1, $2, $13}')"
  done
done
echo "bench after $(el)"
for k in 1 2; do for t in aijcusparse pjds bccoo; do
  timeout 120 mpiexec -n 2 --bind-to none build-cuda/examples/bratu -dim 3 -da_grid_x 64 -da_grid_y 64 -da_grid_z 64 -dm_mat_type $t -dm_vec_type cuda -ksp_type gmres -pc_type jacobi -ksp_rtol 1e-6 > $R/bratu-$t-np2-$k.txt 2>&1
  echo "bratu $t run $k rc=$?: $(grep -E '^bratu' $R/bratu-$t-np2-$k.txt | tr '\n' ' ')"
done; done
echo "bratu after $(el)"
OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 OUT=$R/gamg-np1 NP=1 REPEAT=4 PROBLEMS="lap3d:128" PCS="gamg" FP32_PCS="" TYPES=pjds,gpuauto NS="" EX56_NE="" EX19_N="" BRATU_N=32 RUN_LIMIT=150 bash conf/solvers.sh > $R/gamg-np1.log 2>&1
echo "gamg np1 rc=$? after $(el)"; grep -E "gamg" $R/gamg-np1/solvers.md
cd $OUT && tar czf results.tgz r && rm -rf r
echo "total $(el)"
