#!/usr/bin/env bash
# Device call (issue 36, branch gpu-next): build; GPU matproduct tests (the MPI replace fix); CG + GAMG
# lap3d 128^3 one type per process (stdout unbuffered) with flame graphs of pjds and aijcusparse;
# the 2-rank GAMG runs that do not finish, with -log_trace and cuda-gdb backtraces of both ranks.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
tar -C / -xJf .carry/petsc-cuda.tar.xz && eval "$(bash conf/petsc.sh cuda --env)"
source conf/env.sh
export PETSC_OPTIONS="-use_gpu_aware_mpi 0" LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
(cmake -S . -B build-cuda -DCMAKE_BUILD_TYPE=Release -DGPUMAT_GPU_TESTS=ON -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc && cmake --build build-cuda -j16) > $R/build.log 2>&1 || { grep -E "error" $R/build.log | head -20; tail -5 $R/build.log; exit 1; }
echo "built after $(( $(date +%s) - t0 )) s"
timeout 150 ctest --test-dir build-cuda -L gpu -R "${CT:-matproduct}" -j 8 --timeout 100 --output-on-failure > $R/ctest.txt 2>&1
echo "ctest rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "tests passed|tests failed|\*\*\*" $R/ctest.txt | head -20
S="build-cuda/examples/solve -kind lap3d -n ${GAMG_N:-128} -vec_type cuda -pc_type gamg -ksp_rtol 1e-8"
for t in aijcusparse pjds csrspec bccoo bce gpuauto; do
  lv=""; case $t in aijcusparse|pjds) lv="-log_view :$R/flame-$t-np1.txt:ascii_flamegraph -log_view_gpu_time";; esac
  timeout 40 stdbuf -oL -eL $S -mat_type $t $lv > $R/gamg-$t-np1.txt 2>&1; rc=$?
  echo "gamg $t np1 rc=$rc: $(grep -A1 '^type' $R/gamg-$t-np1.txt | tail -1)"
  if [ $rc = 124 ]; then timeout 30 $S -mat_type $t -log_trace $R/trace-$t-np1 > /dev/null 2>&1; tail -3 $R/trace-$t-np1*; fi
done
hang() { # $1 name, rest: solve options; 2 ranks, backtraces after 30 s
  local name=$1; shift; [ $(( $(date +%s) - t0 )) -gt 470 ] && { echo "skip $name: time"; return; }
  timeout 90 mpiexec -n 2 --bind-to none stdbuf -oL -eL $S "$@" -log_trace $R/trace-$name > $R/$name.txt 2>&1 & local job=$!
  for i in $(seq 30); do sleep 1; kill -0 $job 2>/dev/null || break; done
  if kill -0 $job 2>/dev/null; then
    for p in $(pgrep -x solve); do timeout 30 cuda-gdb -p $p -batch -ex "thread apply all bt 40" > $R/$name-bt-$p.txt 2>&1; done
    pkill -x solve; wait $job; echo "$name: killed after 30 s"; for f in $R/$name-bt-*.txt; do grep -E "^#" $f | head -25 | cut -c1-160; echo; done
  else wait $job; echo "$name: rc=$? $(grep -A1 '^type' $R/$name.txt | tail -1)"; fi
  for f in $R/trace-$name*; do echo "$f: $(tail -2 $f | tr '\n' ' ' | cut -c1-300)"; done
}
hang pjds-cpu-np2 -mat_type pjds -matmatmult_backend_cpu -matptap_backend_cpu -mat_product_algorithm_backend_cpu
hang aijcusparse-np2 -mat_type aijcusparse
hang pjds-np2 -mat_type pjds
echo "total $(( $(date +%s) - t0 )) s"
cd $OUT && tar czf results.tgz r && rm -rf r
