#!/usr/bin/env bash
# Device call (issue 36, session 8, second; x2 if lent): (1) why examples/solve's reverse-order
# CG + GAMG lap3d 128^3 run at 1 rank passed 60 s in call 1 (both shadow_products settings):
# -log_trace (flushed per event), GPU load samples, cuda-gdb backtraces at 100 s if still running;
# (2) conf/solvers.sh's automatic one-type-per-process rule for CG + GAMG at NP=2 (lap3d 128^3
# REPEAT=2, ex56 60^3) on main with the shadow-first products.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name --format=csv,noheader
LOG=$R/build.log source conf/device-build.sh petscgpumat solve bratu bench_matmult || exit 1
echo "built after $(( $(date +%s) - t0 )) s"
T=gpuauto,bce,csrspec,bccoo,pjds,aijcusparse
CUDA_VISIBLE_DEVICES=0 timeout 130 mpiexec -n 1 --bind-to none build-cuda/examples/solve -kind lap3d -n 128 -types $T -vec_type cuda -pc_type gamg -ksp_rtol 1e-8 -log_trace $R/trace-rev > $R/solve-rev.txt 2>&1 &
job=$!; s0=$(date +%s); dumped=0
while kill -0 $job 2>/dev/null; do
  e=$(( $(date +%s) - s0 ))
  echo "$e s: $(nvidia-smi -i 0 --query-gpu=utilization.gpu,memory.used --format=csv,noheader) trace lines $(cat $R/trace-rev* 2>/dev/null | wc -l)" >> $R/samples.txt
  if [ $e -ge 95 ] && [ $dumped = 0 ]; then
    pid=$(pgrep -x solve | head -1); dumped=1
    [ -n "$pid" ] && timeout 25 cuda-gdb -p $pid -batch -ex "info threads" -ex "thread apply all bt" > $R/bt.txt 2>&1
  fi
  sleep 4
done
wait $job; echo "reverse-order solve rc=$? after $(( $(date +%s) - s0 )) s"; tail -9 $R/solve-rev.txt; tail -3 $R/samples.txt
for f in $R/trace-rev*; do echo "$f: $(wc -l < $f) lines"; tail -4 $f; done
[ -f $R/bt.txt ] && grep -E "^#|Thread" $R/bt.txt | head -40
gzip -f $R/trace-rev* 2>/dev/null
L=$(( 540 - ($(date +%s) - t0) )); echo "left $L s"
[ $L -gt 120 ] && GPUMAT_CONFIG=cuda BUILD=$PWD/build-cuda OUT=$R/np2 NP=2 PROBLEMS="lap3d:128" PCS="gamg" NS="" BRATU_N=16 EX56_NE=60 REPEAT=2 RUN_LIMIT=40 timeout $L bash conf/solvers.sh > $R/solvers-np2.txt 2>&1
echo "solvers np2 rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "^\| CG|!!" $R/solvers-np2.txt; ls $R/np2 2>/dev/null | grep -c "cg-lap3d-gamg.*-r[12]-"
echo "total $(( $(date +%s) - t0 )) s"
