#!/usr/bin/env bash
# Device call 6 (session 13, one H200): products with A of the base type and the other operands ours
# (test_matproduct -operands reversed, new): on a CPU build they found AIJ's ABt crashing on our B
# (its symbolic transpose of B, of our type, destroyed by MatSetType to A's type) and AIJ's RARt
# making the result R's type; fixed (our symbolic transpose is plain SeqAIJ; a result of ours goes
# back to plain AIJ's type). Here the device route with A aijcusparse: every type at 1, 2, 4 ranks,
# and pjds's own matproduct tests (the shared case among them); only the library and the test built.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh petscgpumat test_matproduct || { pack; exit 1; }
echo "built after $(el)"
ctest --test-dir build-cuda -L gpu -R "matproduct_reversed|gpu.pjds.matproduct[.]" -j 12 --timeout 100 --output-on-failure > $R/ctest.txt 2>&1
grep -E "tests passed|\(Failed\)|\(Timeout\)|Total Test" $R/ctest.txt | head -30; echo "ctest after $(el)"
grep -E "Error Message|ERROR:.*(the result|differs|uploaded|not)" $R/ctest.txt | sort | uniq -c | head -10
gzip -9 $R/ctest.txt; pack; rm -rf $R
echo "total $(el)"
