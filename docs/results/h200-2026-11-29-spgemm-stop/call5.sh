#!/usr/bin/env bash
# Device call (session 11, fifth): the working tree with both mends (seq three-operand products as
# two pairs; an aijcusparse operand without values computed first): ctest gpu matproduct, ops,
# plex_gamg (1, 2, 4 ranks); four 1-rank CG + GAMG lap3d 128^3 pjds runs side by side.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
LOG=$R/build.log source conf/device-build.sh || exit 1
echo "built after $(el)"
timeout 220 ctest --test-dir build-cuda -L gpu -R "matproduct|[.]ops|plex_gamg" -j 8 --timeout 150 --output-on-failure > $R/ctest-products.txt 2>&1
echo "ctest rc=$? $(grep -E 'tests passed|tests failed' $R/ctest-products.txt)"; grep -E "\(Failed\)|Timeout|ERROR.*uploaded" $R/ctest-products.txt | head -20
echo "ctest after $(el)"
G="build-cuda/examples/solve -kind lap3d -n 128 -vec_type cuda -pc_type gamg -ksp_rtol 1e-8 -warmup 0 -no_signal_handler -types pjds"
for k in 1 2 3 4; do
  L=$(( 330 - ($(date +%s) - t0) )); [ $L -gt 45 ] && L=45
  (timeout $L stdbuf -oL mpiexec -n 1 --bind-to none $G > $R/par-$k.txt 2>&1; echo "side by side $k rc=$? $(grep -A1 -E '^type +its' $R/par-$k.txt | tail -1 | cut -c1-110)") &
done
wait
cd $OUT && tar czf results.tgz r && rm -rf r
echo "total $(el)"
