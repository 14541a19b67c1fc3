#!/usr/bin/env bash
# Device call (issue 36, session 8, third; x2): call-42a.sh part (2) alone (its first try lacked bench_matmult, which conf/gpu-env.sh asks for)
t0=$(date +%s); R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name --format=csv,noheader
LOG=$R/build.log source conf/device-build.sh petscgpumat solve bratu bench_matmult || exit 1
L=$(( 540 - ($(date +%s) - t0) ))
[ $L -gt 120 ] && GPUMAT_CONFIG=cuda BUILD=$PWD/build-cuda OUT=$R/np2 NP=2 PROBLEMS="lap3d:128" PCS="gamg" NS="" BRATU_N=16 EX56_NE=60 REPEAT=2 RUN_LIMIT=40 timeout $L bash conf/solvers.sh > $R/solvers-np2.txt 2>&1
echo "solvers np2 rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "^\| CG|!!" $R/solvers-np2.txt; ls $R/np2 2>/dev/null | grep -c "cg-lap3d-gamg.*-r[12]-"
echo "total $(( $(date +%s) - t0 )) s"
