#!/usr/bin/env bash
# Session 17, call 4 (issue 36): where the copies and the time go. CG + GAMG on lap3d 128^3 with
# -log_view, aijcusparse and pjds, one process each (copies per event); Newton bratu 64^3 at 2 ranks
# on one GPU (pjds 0.92x aijcusparse in call 3) with -log_view -log_view_gpu_time per type.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && rm -f results.tgz && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh petscgpumat solve bratu || { pack; exit 1; }
echo "built after $(el)"
export OPENBLAS_NUM_THREADS=1
for t in aijcusparse pjds; do
  timeout 60 build-cuda/examples/solve -kind lap3d -n 128 -ksp_type cg -pc_type gamg -mat_type $t -vec_type cuda -log_view > $R/gamg-logview-$t.txt 2>&1; echo "gamg $t rc=$? after $(el)"
  grep -E "^(PCSetUp |KSPSolve |MatCreateGraph|MatAXPY|MatDiagonalScale|MatScale|MatMult |MatPtAPSymbolic|MatPtAPNumeric|MatConvert|VecReciprocal|VecCUDACopyTo|PCGAMG Opt l00)" $R/gamg-logview-$t.txt | tr -s " " | cut -c1-200
done
pack
PROBLEMS="" PCS="jacobi" NS="" EX56_NE="" EX19_N="" FP32_PCS="" TYPES=pjds REPEAT=1 NP=2 LOGVIEW=1 OUT=$R/bratu2 timeout 120 bash conf/solvers.sh > $R/solvers-bratu2.txt 2>&1
echo "bratu np2 rc=$? after $(el)"; cat $R/bratu2/solvers.md | head -8
for f in $R/bratu2/*-log.txt; do echo "== $f"; grep -E "^(MatMult |MatAssemblyEnd|MatAssemblyBegin|MatSetValuesCOO|SNESJacobianEval|KSPSolve |VecScatterBegin|VecScatterEnd|SFPack|SFUnpack|VecMDot|VecNorm |VecCUDACopyTo|VecCUDACopyFrom|MatZeroEntries|MatConvert)" $f | tr -s " " | cut -c1-200; done
(cd $R && tar czf bratu2-logs.tgz bratu2 && rm -rf bratu2); pack
echo "total $(el)"
