#!/usr/bin/env bash
# Device call (issue 36): build; CG + GAMG lap3d 128^3 with all types in one process (where it stops,
# if it does), flame graphs of pjds and aijcusparse; then the time-to-solution benchmark
# (conf/solvers.sh) at 1 rank (Jacobi, GAMG) and 2 ranks sharing the GPU (Jacobi).
t0=$(date +%s); R=$OUT/r; mkdir -p $R
tar -C / -xJf .carry/petsc-cuda.tar.xz && eval "$(bash conf/petsc.sh cuda --env)"
source conf/env.sh
export PETSC_OPTIONS="-use_gpu_aware_mpi 0" LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi --query-gpu=name --format=csv,noheader
(cmake -S . -B build-cuda -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc && cmake --build build-cuda -j16) > $R/build.log 2>&1 || { grep -E "error" $R/build.log | head -20; tail -5 $R/build.log; exit 1; }
echo "built after $(( $(date +%s) - t0 )) s"
S="build-cuda/examples/solve -kind lap3d -n ${GAMG_N:-128} -vec_type cuda -pc_type gamg -ksp_rtol 1e-8"
timeout 60 stdbuf -oL -eL $S -types aijcusparse,pjds,csrspec,bccoo,bce,gpuauto -log_trace /tmp/trace-all > $R/gamg-all-np1.txt 2>&1; rc=$?
echo "gamg all types np1 rc=$rc after $(( $(date +%s) - t0 )) s"; grep -v '^\[' $R/gamg-all-np1.txt | tail -9; tail -c 3000 /tmp/trace-all* > $R/trace-all-tail.txt; tail -4 $R/trace-all-tail.txt
for t in aijcusparse pjds; do
  timeout 30 $S -mat_type $t -log_view :$R/flame-$t-np1.txt:ascii_flamegraph -log_view_gpu_time > $R/gamg-$t-np1.txt 2>&1
  echo "gamg $t np1 rc=$?: $(grep -A1 '^type' $R/gamg-$t-np1.txt | tail -1)"
done
for np in ${NPS:-1 2}; do pcs="jacobi gamg"; [ $np = 2 ] && pcs=jacobi
  GPUMAT_CONFIG=cuda BUILD=$PWD/build-cuda OUT=$R/np$np NP=$np N=${N:-100} FEM_N=${FEM_N:-40} N2D=${N2D:-1000} PLEX_N=${PLEX_N:-64} NS_N=${NS_N:-1000000} BRATU_N=${BRATU_N:-64} PCS="$pcs" RUN_LIMIT=${RUN_LIMIT:-60} timeout $(( (np == 1 ? 440 : 575) - ($(date +%s) - t0) )) bash conf/solvers.sh > $R/solvers-np$np.txt 2>&1
  echo "np$np rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "^\| |!!" $R/solvers-np$np.txt | head -70
done
cd $OUT && tar czf results.tgz r && rm -rf r && ls -la results.tgz
