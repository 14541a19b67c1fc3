#!/usr/bin/env bash
# Device call (session 10, third; one H200): where the 1-rank CG + GAMG run with pjds stops (call 2:
# main, lap3d 64^3 and 128^3, plain layouts too; -log_trace's last events: level 2's MatPtAPSymbolic,
# after cuSPARSE's transpose of P; csrspec finished). Side by side, each stopped at 45 s, stdout
# line-buffered: pjds 64^3 with PETSc's signal handler off and a cuda-gdb backtrace (host threads and
# the GPU's kernels) taken at 35 s; pjds 64^3 with -mat_gpumat_shadow_products 0; gpuauto and bce
# 64^3; compute-sanitizer memcheck of pjds 40^3 (stopped at 150 s).
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
LOG=$R/build.log source conf/device-build.sh || exit 1
echo "built after $(el)"
G="build-cuda/examples/solve -kind lap3d -vec_type cuda -pc_type gamg -ksp_rtol 1e-8 -warmup 0 -no_signal_handler"
run() { local name=$1 lim=$2; shift 2; (timeout $lim stdbuf -oL -eL mpiexec -n 1 --bind-to none "$@" > $R/$name.txt 2>&1; echo "$name rc=$? after $(el)") & }
run bt 45 $G -n 64 -types pjds -log_trace $R/trace-bt.txt
run sp0 45 $G -n 64 -types pjds -mat_gpumat_shadow_products 0 -log_trace $R/trace-sp0.txt
run gpuauto 45 $G -n 64 -types gpuauto -log_trace $R/trace-gpuauto.txt
run bce 45 $G -n 64 -types bce -log_trace $R/trace-bce.txt
run memcheck 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --print-limit 30 $G -n 40 -types pjds
sleep 35
P=$(pgrep -f "^build-cuda/examples/solve .*trace-bt" | head -1); echo "pid $P"
if [ -n "$P" ]; then
  timeout 60 cuda-gdb -p $P -batch -ex "info cuda kernels" -ex "thread apply all bt" -ex "detach" > $R/bt.txt 2>&1; echo "cuda-gdb rc=$?"
  grep -E "^#|Thread|Kernel|kernel" $R/bt.txt | head -60
fi
nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv
wait
for f in bt sp0 gpuauto bce memcheck; do echo "== $f"; grep -A1 -E '^type +its' $R/$f.txt | tail -1 | cut -c1-120; done
for f in bt sp0 gpuauto bce; do echo "== trace $f: $(tail -n 2 $R/trace-$f.txt.0 2>/dev/null | tr -s ' ' | tr '\n' ' ')"; done
grep -E "ERROR SUMMARY|Invalid|=========" $R/memcheck.txt | head -30
cd $OUT && tar czf results.tgz r && rm -rf r
echo "total $(( $(date +%s) - t0 )) s"
