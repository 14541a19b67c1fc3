#!/usr/bin/env bash
# Device call (session 11, second; one H200), main at 013689c. (1) The 1-rank CG + GAMG stop with
# pjds: four lap3d 128^3 runs side by side as session 10's call 2 ran them (-no_signal_handler,
# -log_trace; two with CUDA_LAUNCH_BLOCKING=1 so that a run stopped in a kernel stops in its launch);
# a run alive at 30 s gets nvidia-smi, /proc samples and a cuda-gdb attach ('info cuda kernels',
# host backtrace). (2) compute-sanitizer initcheck on a 64^3 pjds GAMG solve. (3) bench_matmult on
# the regular matrices call 1 did not reach (fem3 90, lap3dv 300, fem6 64), fp32 storage among them.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
LOG=$R/build.log source conf/device-build.sh || exit 1
echo "built after $(el)"
G="build-cuda/examples/solve -kind lap3d -vec_type cuda -pc_type gamg -ksp_rtol 1e-8 -warmup 0 -types pjds -no_signal_handler"
run() { local name=$1; shift; (timeout 50 stdbuf -oL -eL "$@" -log_trace $R/trace-$name.txt > $R/stop-$name.txt 2>&1; echo "stop-$name rc=$? after $(el) $(grep -A1 -E '^type +its' $R/stop-$name.txt | tail -1 | cut -c1-100)") & }
run a mpiexec -n 1 --bind-to none $G -n 128
run b mpiexec -n 1 --bind-to none $G -n 128
run lba mpiexec -n 1 --bind-to none -x CUDA_LAUNCH_BLOCKING=1 $G -n 128
run lbb mpiexec -n 1 --bind-to none -x CUDA_LAUNCH_BLOCKING=1 $G -n 64
sleep 30
nvidia-smi > $R/nvidia-smi-30s.txt 2>&1
for name in a b lba lbb; do
  P=$(pgrep -f "^build-cuda/examples/solve .*trace-$name" | head -1)
  [ -n "$P" ] || continue
  echo "run $name alive at 30 s: pid $P, trace: $(tail -n 2 $R/trace-$name.txt* | tr -s ' ' | tr '\n' ' ')"
  for t in /proc/$P/task/*; do echo "== $t $(cat $t/comm) $(grep State $t/status) wchan=$(cat $t/wchan)"; done > $R/proc-$name.txt 2>&1
  timeout 25 cuda-gdb -p $P -batch -ex "info cuda kernels" -ex "thread 1" -ex "bt 30" > $R/bt-$name.txt 2>&1; echo "  cuda-gdb rc=$?"
  grep -E "^#|Kernel|^ *\*? *[0-9]+ +[0-9]+ " $R/bt-$name.txt | head -40 | cut -c1-200
done
wait
echo "stop runs done after $(el)"
timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool initcheck --print-limit 20 build-cuda/examples/solve -kind lap3d -n 48 -vec_type cuda -pc_type gamg -ksp_rtol 1e-8 -warmup 0 -types pjds > $R/initcheck.txt 2>&1
echo "initcheck rc=$? after $(el): $(grep -E 'ERROR SUMMARY' $R/initcheck.txt)"; grep -E "^=+ +(Uninitialized|Host Frame|Device Frame| +at )" $R/initcheck.txt | head -30 | cut -c1-200
B=build-cuda/examples/bench_matmult
TY=aijcusparse:alg1,aijcusparse:alg2,cusparsesell,cusparsebsr,sellcuda,csrspec,bccoo,bce,pjds,pjds:columns=plain:values=plain,gpuauto,pjds:gpumat_values=fp32,gpuauto:gpumat_values=fp32
for m in fem3:90 lap3dv:300 fem6:64; do
  L=$(( 560 - ($(date +%s) - t0) )); [ $L -gt 30 ] || { echo "no time for $m"; break; }
  timeout $L $B -matrix gen:$m -types $TY -reps 100 -ksp_its 0 -reps_build 1 -view_types 1 > $R/bench-${m/:/-}.txt 2>&1
  echo "bench $m rc=$? after $(el) $(grep -E '^values:' $R/bench-${m/:/-}.txt)"
  grep -E "^(floor|aijcusparse|cusparse|sellcuda|csrspec|bccoo|bce|pjds|gpuauto)" $R/bench-${m/:/-}.txt | awk '{printf "  %-36s med %s fmtMB %s build %s\n",$1,$2,$8,$9}'
  grep -E "gpuauto chose" $R/bench-${m/:/-}.txt | head -2 | cut -c1-120
done
cd $OUT && tar czf results.tgz r && rm -rf r
echo "total $(el)"
