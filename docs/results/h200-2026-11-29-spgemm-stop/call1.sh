#!/usr/bin/env bash
# Device call (session 11, first; one H200), main at 013689c: the GPU code of 62c2dff..013689c
# (fp32 storage in pjds, gpuauto's compressed-layout predictions) run on a GPU for the first time.
# Full build; unit pjds/gpuauto tests; the three sanitizers on the fp32 device test; ctest gpu pjds
# and gpuauto; bench_matmult on the suite's regular matrices, every peer and every type of ours, pjds
# and gpuauto with fp32 storage, floors on; one matrix at 2 ranks.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
nvidia-smi --query-gpu=name --format=csv,noheader
LOG=$R/build.log source conf/device-build.sh || exit 1
echo "built after $(el)"
T=$(find build-cuda/tests/unit -maxdepth 1 -name test_cuda -type f | head -1)
timeout 150 $T --gtest_filter='*Pjds*:*pjds*:*Auto*:*auto*' > $R/unit.txt 2>&1; echo "unit rc=$? $(grep -E '^\[  (PASSED|FAILED) ' $R/unit.txt | tr '\n' ' ')"; grep -E "^\[  FAILED" $R/unit.txt | head
S=/usr/local/cuda/bin/compute-sanitizer
for tool in memcheck racecheck synccheck; do
  timeout 60 $S --tool $tool --error-exitcode 9 $T --gtest_filter='PjdsDevice.Fp32*' > $R/$tool.txt 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED' $R/$tool.txt | tr '\n' ' ')"
done
timeout 150 ctest --test-dir build-cuda -L gpu -R "pjds|gpuauto" -j 8 --timeout 120 > $R/ctest.txt 2>&1
echo "ctest rc=$? $(grep -E 'tests passed|tests failed' $R/ctest.txt)"; grep -E "\(Failed\)|Timeout|Not Run" $R/ctest.txt | head
echo "tests after $(el)"
B=build-cuda/examples/bench_matmult
TY=aijcusparse:alg1,aijcusparse:alg2,cusparsesell,cusparsebsr,sellcuda,csrspec,bccoo,bce,pjds,pjds:columns=plain:values=plain,gpuauto,pjds:gpumat_values=fp32,gpuauto:gpumat_values=fp32
for m in lap3d27:160 fem3c:90 lap3d:300 fem3:90 lap2d:4500 lap3dv:300 fem6:64; do
  L=$(( 520 - ($(date +%s) - t0) )); [ $L -gt 30 ] || { echo "no time for $m"; break; }
  timeout $L $B -matrix gen:$m -types $TY -reps 100 -ksp_its 0 -reps_build 1 -view_types 1 > $R/bench-${m/:/-}.txt 2>&1
  echo "bench $m rc=$? after $(el) $(grep -E '^values:' $R/bench-${m/:/-}.txt)"
  grep -E "^(floor|aijcusparse|cusparse|sellcuda|csrspec|bccoo|bce|pjds|gpuauto)" $R/bench-${m/:/-}.txt | awk '{printf "  %-36s med %s fmtMB %s build %s\n",$1,$2,$8,$9}'
  grep -E "becomes|chose|gpuauto.*(pjds|bccoo|bce|csrspec)" $R/bench-${m/:/-}.txt | head -3 | cut -c1-140
done
L=$(( 570 - ($(date +%s) - t0) ))
[ $L -gt 40 ] && { timeout $L mpiexec -n 2 --bind-to none $B -matrix gen:lap3d27:160 -types aijcusparse:alg1,pjds,pjds:gpumat_values=fp32,gpuauto -reps 100 -ksp_its 0 -reps_build 1 -floors 0 > $R/bench-np2-lap3d27-160.txt 2>&1; echo "np2 rc=$? after $(el)"; grep -E "^(aijcusparse|pjds|gpuauto)" $R/bench-np2-lap3d27-160.txt | awk '{printf "  %-36s med %s build %s\n",$1,$2,$9}'; }
cd $OUT && tar czf results.tgz r && rm -rf r
echo "total $(el)"
