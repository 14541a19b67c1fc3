#!/usr/bin/env bash
# Device call (session 10, fifth; one H200), main with the inner product marked api_user: the 1-rank
# CG + GAMG stop with pjds, repeated as calls 1-2 ran it (PETSc's signal handler on): three runs of
# lap3d 128^3, one after the other, each stopped at 25 s, -log_trace; a run still alive at 20 s has its
# threads sampled from /proc and a cuda-gdb backtrace taken.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
git apply .carry/apiuser.patch || exit 1
LOG=$R/build.log source conf/device-build.sh || exit 1
echo "built after $(el)"
G="build-cuda/examples/solve -kind lap3d -n 128 -vec_type cuda -pc_type gamg -ksp_rtol 1e-8 -warmup 0 -types pjds"
for k in 1 2 3; do
  (timeout 25 stdbuf -oL -eL mpiexec -n 1 --bind-to none $G -log_trace $R/trace-$k.txt > $R/run-$k.txt 2>&1; echo "run $k rc=$? $(grep -A1 -E '^type +its' $R/run-$k.txt | tail -1 | cut -c1-100) after $(el)") &
  sleep 20
  P=$(pgrep -f "^build-cuda/examples/solve .*trace-$k" | head -1)
  if [ -n "$P" ]; then
    echo "run $k alive at 20 s: pid $P, trace: $(tail -n 1 $R/trace-$k.txt.0)"
    for t in /proc/$P/task/*; do echo "== $t $(cat $t/comm) $(grep State $t/status) wchan=$(cat $t/wchan) syscall=$(cut -d' ' -f1-3 $t/syscall)"; cat $t/stack 2>/dev/null | head -8; done > $R/proc-$k.txt 2>&1
    grep "==" $R/proc-$k.txt | head -30
    timeout 20 cuda-gdb -p $P -batch -ex "thread apply all bt 25" -ex "info cuda kernels" > $R/bt-$k.txt 2>&1; echo "cuda-gdb rc=$?"
    grep -E "^#|^Thread|Kernel" $R/bt-$k.txt | head -60
  fi
  wait
done
cd $OUT && tar czf results.tgz r && rm -rf r
echo "total $(( $(date +%s) - t0 )) s"
