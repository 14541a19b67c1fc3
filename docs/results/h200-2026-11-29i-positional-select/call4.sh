#!/usr/bin/env bash
# Draft for session 19 (main; issue 36): which of GAMG's diagonals reach VecReciprocal on the host
# with pjds (session 17's -log_view: VecReciprocal uploaded 20 times in 24 calls against
# aijcusparse's 2; docs/results/h200-2026-11-29g-positional-tests/call4). CG + GAMG on lap3d 32^3,
# one set-up (-warmup 0), -log_trace (every event's begin and end, nested) for both types; the
# events around each VecCUDACopyTo inside VecReciprocal: the MatGetDiagonal before it and the
# set-up step (PCGAMG Opt, MatCreateGraph, PCSetUp of a level's Jacobi) it belongs to.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && rm -f results.tgz && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh petscgpumat solve || { pack; exit 1; }
echo "built after $(el)"
export OPENBLAS_NUM_THREADS=1
for t in aijcusparse pjds; do
  timeout 60 build-cuda/examples/solve -kind lap3d -n 32 -ksp_type cg -pc_type gamg -types $t -vec_type cuda -warmup 0 -log_trace $R/trace-$t.txt > $R/gamg-$t.txt 2>&1
  echo "$t rc=$? after $(el)"
  f=$(ls $R/trace-$t.txt* | head -1)
  grep -nE "Event begin: (VecReciprocal|MatGetDiagonal|VecCUDACopyTo|MatCreateGraph|PCGAMG Opt|PCSetUp|KSPSetUp|MatConvert|MatDuplicate)" $f | awk '{print}' > $R/seq-$t.txt
  grep -B4 -E "Event begin: VecCUDACopyTo" $f | grep -E "VecReciprocal" -A0 | wc -l
  gzip -9 $f
done
pack
echo "total $(el)"
