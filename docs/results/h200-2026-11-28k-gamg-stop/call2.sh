#!/usr/bin/env bash
# Device call (session 10, second; one H200). (a) The 1-rank CG + GAMG stop with pjds (call 1: main
# printed nothing within 70 s, aijcusparse 3.7 s): four runs side by side, each stopped at 60 s,
# stdout line-buffered: pjds default with -log_trace and -info files, pjds plain columns and values,
# csrspec, pjds at 64^3; a host backtrace of the first where a debugger is there, nvidia-smi meanwhile.
# (b) CG + GAMG lap3d 128^3 at 2 ranks on the GPU: aijcusparse and pjds on main, then the inner
# product marked api_user (.carry/apiuser.patch) and pjds again, -log_view. (c) the GPU tests on the
# patched build, every one but the unit suite, as many as the time allows.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
nvidia-smi --query-gpu=name --format=csv,noheader
LOG=$R/build.log source conf/device-build.sh || exit 1
echo "built after $(el)"; command -v gdb cuda-gdb eu-stack pstack
G="build-cuda/examples/solve -kind lap3d -vec_type cuda -pc_type gamg -ksp_rtol 1e-8 -warmup 0"
run() { local name=$1; shift; (timeout 60 stdbuf -oL -eL mpiexec -n 1 --bind-to none "$@" > $R/stop-$name.txt 2>&1; echo "stop-$name rc=$? after $(el)") & }
run default $G -n 128 -types pjds -log_trace $R/trace-default.txt -info $R/info-default.txt
run plain $G -n 128 -types pjds -mat_pjds_values plain -mat_pjds_columns plain
run csrspec $G -n 128 -types csrspec
run n64 $G -n 64 -types pjds
sleep 45
nvidia-smi > $R/nvidia-smi-during.txt 2>&1
P=$(pgrep -f "^build-cuda/examples/solve .*-log_trace" | head -1); echo "pid $P"
if [ -n "$P" ]; then
  for d in gdb cuda-gdb; do if command -v $d >/dev/null; then timeout 60 $d -p $P -batch -ex "thread apply all bt" > $R/bt-$d.txt 2>&1; echo "$d rc=$?"; break; fi; done
  cat /proc/$P/status | grep -E "State|Threads" ; cat /proc/$P/wchan; echo
fi
wait
for f in $R/stop-*.txt; do echo "== $f"; grep -A1 -E '^type +its' $f | tail -1 | cut -c1-120; done
tail -n 5 $R/trace-default.txt; tail -n 3 $R/info-default.txt | cut -c1-300
echo "stop runs done after $(el)"
S2="build-cuda/examples/solve -kind lap3d -n 128 -vec_type cuda -pc_type gamg -ksp_rtol 1e-8 -warmup 0"
two() { timeout 60 mpiexec -n 2 --bind-to none $S2 -types $1 -log_view :$R/np2-$1-$2-log.txt > $R/np2-$1-$2.txt 2>&1; echo "np2 $1 $2 rc=$? $(grep -A1 -E '^type +its' $R/np2-$1-$2.txt | tail -1 | cut -c1-120) after $(el)"; }
two aijcusparse r1; two pjds main-r1; two pjds main-r2; two aijcusparse r2
git apply .carry/apiuser.patch && cmake --build build-cuda -j 16 --target petscgpumat > $R/rebuild.log 2>&1; echo "patched, rebuilt rc=$? after $(el)"
two pjds api-r1; two aijcusparse r3; two pjds api-r2
L=$(( 555 - ($(date +%s) - t0) ))
timeout $L ctest --test-dir build-cuda -L gpu -E "gpu[.]unit" -j 8 --timeout 120 --output-on-failure > $R/ctest-gpu.txt 2>&1
echo "ctest rc=$? $(grep -E 'tests passed|tests failed' $R/ctest-gpu.txt) after $(el)"; grep -E "\(Failed\)|Timeout|\*\*\*|Test +#" $R/ctest-gpu.txt | grep -vE "Passed" | head -30; grep -cE "Test +#.*Passed" $R/ctest-gpu.txt
git checkout src/petsc/matproduct.cxx
cd $OUT && tar czf results.tgz r && rm -rf r
echo "total $(( $(date +%s) - t0 )) s"
