#!/usr/bin/env bash
# Device call 3 (session 12, one H200): (1) racecheck on aijcusparse's own ILU(0) and ICC(0) (the
# hazards of call 2 were in cuSPARSE's csrilu02/csric0 kernels); (2) the 2-rank per-product overhead
# on small matrices (bench_matmult lap3d 64^3 and bratu 64^3 with -log_view, aijcusparse against pjds,
# side stream and overlap off); (3) CG + GAMG lap3d 128^3 at 1 rank, five runs.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
LOG=$R/build.log source conf/device-build.sh || exit 1
echo "built after $(el)"
san=/usr/local/cuda/bin/compute-sanitizer
for pc in ilu icc; do
  timeout 100 $san --tool racecheck --error-exitcode 9 build-cuda/examples/solve -kind lap2d -n 20 -types aijcusparse -pc_type $pc -vec_type cuda -warmup 0 > $R/race-aijcusparse-$pc.txt 2>&1
  echo "racecheck aijcusparse $pc: rc=$? $(grep -E 'RACECHECK SUMMARY' $R/race-aijcusparse-$pc.txt | tail -1) kernels: $(grep -oE 'at void [a-z_0-9]+' $R/race-aijcusparse-$pc.txt | sort -u | tr '\n' ' ')"
done
B="timeout 120 mpiexec -n 2 --bind-to none build-cuda/examples/bench_matmult -floors 0 -reps 300 -warmup 20"
$B -kind lap3d -n 64 -types aijcusparse:alg1,pjds,bccoo > $R/bench-lap3d64-np2.txt 2>&1; echo "bench default rc=$?"
$B -kind lap3d -n 64 -types pjds -mat_gpumat_side_stream 0 > $R/bench-lap3d64-np2-noside.txt 2>&1; echo "bench noside rc=$?"
$B -kind lap3d -n 64 -types pjds -mat_gpumat_overlap 0 > $R/bench-lap3d64-np2-nooverlap.txt 2>&1; echo "bench nooverlap rc=$?"
for f in $R/bench-lap3d64-np2*.txt; do echo "== $(basename $f)"; grep -E "^(type|aijcusparse|pjds|bccoo|split|ksp)" $f | cut -c1-170 | head -20; done
echo "bench after $(el)"
for t in aijcusparse pjds; do
  timeout 120 mpiexec -n 2 --bind-to none build-cuda/examples/bratu -dim 3 -da_grid_x 64 -da_grid_y 64 -da_grid_z 64 -dm_mat_type $t -dm_vec_type cuda -ksp_type gmres -pc_type jacobi -ksp_rtol 1e-6 -log_view > $R/bratu-$t-np2.txt 2>&1
  echo "== bratu $t rc=$?"; grep -E "^bratu|^(MatMult |MatMultAdd|VecScatterBegin|VecScatterEnd|GpumatHalo|GpumatScatter|MatAssemblyEnd|SNESJacobianEval|KSPSolve|KSPGMRESOrthog|SFPack|SFUnpack|MatSetValuesCOO|PjdsRefresh|PjdsBuild)" $R/bratu-$t-np2.txt | cut -c1-180
done
echo "bratu after $(el)"
OUT=$R/gamg-np1 NP=1 REPEAT=5 PROBLEMS="lap3d:128" PCS="gamg" FP32_PCS="" TYPES=pjds,gpuauto NS="" EX56_NE="" EX19_N="" BRATU_N=32 RUN_LIMIT=150 bash conf/solvers.sh > $R/gamg-np1.log 2>&1
echo "gamg np1 rc=$? after $(el)"; grep -E "gamg|problem" $R/gamg-np1/solvers.md
cd $OUT && tar czf results.tgz r && rm -rf r
echo "total $(el)"
