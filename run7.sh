#!/usr/bin/env bash
# device call 7 (cuda build): gpuauto's small blocks: gpu.gpuauto tests, CG + GAMG at 1 and 2 ranks
set -u
top=$PWD
mkdir -p build-cuda && tar -C build-cuda -xJf .carry/build-cuda.tar.xz
source conf/gpu-env.sh
R=/tmp/r7; mkdir -p $R
S=$(date +%s)
( time timeout 200 ctest --test-dir build-cuda -R "gpu.gpuauto" -j4 --output-on-failure ) > $R/ctest.txt 2>&1; grep -E "tests passed|\*\*\*|real" $R/ctest.txt | head
echo "tests $(( $(date +%s) - S )) s"
for np in 1 2; do
  GPUMAT_CONFIG=cuda OUT=$R/solvers-np$np NP=$np PCS="gamg jacobi" TYPES=gpuauto,csrspec,pjds,bccoo timeout 150 bash conf/solvers.sh > $R/solvers-np$np.log 2>&1; echo "np$np rc=$?"; grep "CG" $R/solvers-np$np/solvers.md
done
build-cuda/examples/solve -kind lap3d -n 100 -types gpuauto -pc_type gamg -vec_type cuda -ksp_rtol 1e-8 -info 2>&1 | grep -E "Decide\(\)" | cut -c1-160 > $R/decisions.txt; cat $R/decisions.txt
tar -C /tmp -czf $OUT/r7.tgz r7
