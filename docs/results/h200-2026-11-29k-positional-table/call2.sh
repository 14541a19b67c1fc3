#!/usr/bin/env bash
# Draft for session 21's second device call (warm after next21-call1.sh; the same branch): pjds
# (auto) against its dictionary columns (the previous default on wide tabled rows) and gpuauto on
# lap3d27 160^3 (5 builds) and at 2 ranks sharing the GPU; lap3d 300^3 and fem3c 90^3 unchanged (32-bit
# columns behind the table / rows sorted); fp32 storage on lap3dv 200^3 with auto's positional columns
# against 32-bit columns (issue 37's fp32 target: 1.6x the best fp64 peer); fem3_30 (the suite's one
# matrix below the best peer) with pjds's long part over every row and bccoo tuned.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && rm -f results.tgz && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh || { pack; exit 1; }
echo "built after $(el)"
export OPENBLAS_NUM_THREADS=1
timeout 90 compute-sanitizer --tool racecheck --error-exitcode 7 build-cuda/tests/unit/test_cuda --gtest_filter='PjdsDevice.AutoPositionalTableAsTheHost' > $R/racecheck.txt 2>&1; echo "racecheck rc=$? after $(el)"; grep -E "RACECHECK SUMMARY|PASSED|FAILED" $R/racecheck.txt | head -3; gzip -9 $R/racecheck.txt; pack
bench() { # name matrix types reps builds
  timeout 90 build-cuda/examples/bench_matmult -matrix $2 -types $3 -reps $4 -reps_build $5 -ksp_its 0 -floors 0 > $R/$1.txt 2>&1
  echo "$1 rc=$? after $(el)"; grep -E "^type|^[a-z]" $R/$1.txt | grep -vE "^(matrix|values|ranks|device|compression|floor)" | cut -c1-120; grep -oE "^[a-z:=_0-9]+ .*(reads [0-9.]+ B/nnz|chose [a-z]+)" $R/$1.txt | grep -oE "^[a-z:=_0-9]+|reads [0-9.]+ B/nnz|chose [a-z]+" | paste -sd' '
  pack
}
bench np1-lap3d27_160 gen:lap3d27:160 aijcusparse:alg1,cusparsesell,sellcuda,pjds,pjds:columns=dictionary,gpuauto 100 5
bench np1-lap3dv_200-fp32 gen:lap3dv:200 aijcusparse:alg1,cusparsesell,pjds,pjds:gpumat_values=fp32,pjds:columns=plain:gpumat_values=fp32,gpuauto:gpumat_values=fp32 100 5
bench np1-fem3_30 gen:fem3:30 aijcusparse:alg1,cusparsebsr,bccoo,bccoo:tune=1,csrspec,pjds,pjds:long_row=16,pjds:long_row=32,gpuauto 200 3
bench np1-lap3d_300 gen:lap3d:300 cusparsesell,pjds,pjds:columns=dictionary 50 1
bench np1-fem3c_90 gen:fem3c:90 cusparsebsr,pjds,pjds:columns=dictionary 50 1
timeout 60 mpiexec -n 2 --bind-to none build-cuda/examples/bench_matmult -matrix gen:lap3d27:160 -types aijcusparse:alg1,pjds,pjds:columns=dictionary -reps 100 -reps_build 1 -ksp_its 0 -floors 0 -use_gpu_aware_mpi 0 > $R/np2-lap3d27_160.txt 2>&1
echo "np2 rc=$? after $(el)"; grep -E "^type|^(aijcusparse|pjds)" $R/np2-lap3d27_160.txt | cut -c1-120; pack
# what bounds the positional product with a value table on short rows (lap2d 3.4x its stream floor
# in session 20's suite): one product's counters (speed of light, occupancy, warp stalls)
timeout 120 ncu --clock-control none --kernel-name regex:pj_spmv --launch-skip 20 --launch-count 1 --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis \
  build-cuda/examples/bench_matmult -matrix gen:lap2d:3000 -types pjds:columns=positional -reps 30 -reps_build 1 -ksp_its 0 -floors 0 > $R/ncu-lap2d-positional.txt 2>&1
echo "ncu rc=$? after $(el)"; grep -E "Duration|Memory Throughput|DRAM Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Stall|Compute \(SM\)" $R/ncu-lap2d-positional.txt | head -20; pack
echo "total $(el)"
