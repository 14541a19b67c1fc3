#!/usr/bin/env bash
# Device call (session 10, fourth; one H200), the inner product marked api_user applied
# (.carry/apiuser.patch, the change to land). (a) CG + GAMG lap3d 128^3 with pjds at 1 rank alone, one
# run after the other: with -no_signal_handler (call 3: 64^3 finished so), then with PETSc's signal
# handler, its threads sampled from /proc at 30 s (state, wchan, syscall, kernel stack) before a
# cuda-gdb backtrace. (b) the GPU tests call 2's time limit left unrun.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
git apply .carry/apiuser.patch || exit 1
LOG=$R/build.log source conf/device-build.sh || exit 1
echo "built after $(el)"
G="build-cuda/examples/solve -kind lap3d -n 128 -vec_type cuda -pc_type gamg -ksp_rtol 1e-8 -warmup 0 -types pjds"
timeout 40 stdbuf -oL -eL mpiexec -n 1 --bind-to none $G -no_signal_handler > $R/nosig.txt 2>&1; echo "nosig rc=$? $(grep -A1 -E '^type +its' $R/nosig.txt | tail -1 | cut -c1-120) after $(el)"
(timeout 45 stdbuf -oL -eL mpiexec -n 1 --bind-to none $G -log_trace $R/trace-sig.txt > $R/sig.txt 2>&1; echo "sig rc=$? after $(el)") &
sleep 30
P=$(pgrep -f "^build-cuda/examples/solve .*trace-sig" | head -1); echo "pid $P"
if [ -n "$P" ]; then
  for t in /proc/$P/task/*; do echo "== $t $(cat $t/comm) $(grep State $t/status) wchan=$(cat $t/wchan) syscall=$(cut -d' ' -f1-3 $t/syscall)"; cat $t/stack 2>/dev/null | head -8; done > $R/proc.txt 2>&1
  head -40 $R/proc.txt
  timeout 30 cuda-gdb -p $P -batch -ex "thread apply all bt 25" -ex "info cuda kernels" > $R/bt.txt 2>&1; echo "cuda-gdb rc=$?"
  grep -E "^#|^Thread" $R/bt.txt | head -80
fi
wait
grep -A1 -E '^type +its' $R/sig.txt | tail -1 | cut -c1-120; tail -n 3 $R/trace-sig.txt.0; head -3 $R/sig.txt
echo "after $(el)"
L=$(( 330 - ($(date +%s) - t0) ))
timeout $L ctest --test-dir build-cuda -L gpu -R "gpu[.]bccoo[.]mpi_compress_columns[.]np2|gpu[.]bccoo[.]mpi_tune[.]np2|gpu[.]bccoo[.]snes_bratu[.]np2|gpu[.]bccoo[.]tune_cache|gpu[.]bce[.]coo[.]np4|gpu[.]bce[.]snes_bratu[.]np2|gpu[.]bench[.]coo[.]np2|gpu[.]csrspec[.]api_halo_staged[.]np2|gpu[.]csrspec[.]api_side_stream_off[.]np2|gpu[.]csrspec[.]coo_ignore_off_proc[.]np3|gpu[.]csrspec[.]gpu_aware_refused[.]np2|gpu[.]csrspec[.]snes_bratu[.]np2|gpu[.]csrspec[.]view_side_stream[.]np2|gpu[.]cusparsebsr[.]snes_bratu[.]np2|gpu[.]cusparsecsr[.]snes_bratu[.]np2|gpu[.]cusparsesell[.]snes_bratu[.]np2|gpu[.]devices_shared[.]np2|gpu[.]gpuauto[.]coo[.]np4|gpu[.]gpuauto[.]matproduct[.]np4|gpu[.]gpuauto[.]matproduct_aij[.]np4|gpu[.]gpuauto[.]mpi[.]np4|gpu[.]gpuauto[.]mpi_trial[.]np2|gpu[.]gpuauto[.]ops[.]np4|gpu[.]gpuauto[.]ops_device[.]np4|gpu[.]gpuauto[.]snes_bratu[.]np2|gpu[.]pjds[.]snes_bratu[.]np2" -j 8 --timeout 150 --output-on-failure > $R/ctest-rest.txt 2>&1
echo "ctest rc=$? $(grep -E 'tests passed|tests failed' $R/ctest-rest.txt) after $(el)"; grep -E "Test +#" $R/ctest-rest.txt | grep -vE "Passed" | head -20
cd $OUT && tar czf results.tgz r && rm -rf r
echo "total $(( $(date +%s) - t0 )) s"
