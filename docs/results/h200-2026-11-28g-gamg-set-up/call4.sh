#!/usr/bin/env bash
# Device call (issue 36, session 7, fourth), nvidia-h200-x2 (one rank per GPU), main at c8909cc:
# CG + GAMG at 2 ranks, one per GPU, each type in its own process without the warm-up (SPLIT=1
# SOLVE_OPTS="-warmup 0": PETSc 3.26.1's second 2-rank GAMG set-up stops after a first one on a
# matrix preallocated by CSR, .carry/twice.c): lap3d 128^3 REPEAT=3 and PETSc's ex56 (60^3 elements).
t0=$(date +%s); R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name --format=csv,noheader
LOG=$R/build.log source conf/device-build.sh petscgpumat solve bratu bench_matmult || exit 1
echo "built after $(( $(date +%s) - t0 )) s"
GPUMAT_CONFIG=cuda BUILD=$PWD/build-cuda OUT=$R/x2 NP=2 SPLIT=1 SOLVE_OPTS="-warmup 0" PROBLEMS="lap3d:128" PCS="gamg" NS="" BRATU_N=16 EX56_NE=60 REPEAT=3 RUN_LIMIT=40 timeout $(( 530 - ($(date +%s) - t0) )) bash conf/solvers.sh > $R/solvers-x2.txt 2>&1
echo "solvers x2 rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "^\| CG|!!" $R/solvers-x2.txt; sort -k7,7 -k13n $R/x2/rows.txt | grep -v bratu | head -60
echo "total $(( $(date +%s) - t0 )) s"
