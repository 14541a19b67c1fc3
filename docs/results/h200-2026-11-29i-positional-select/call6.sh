#!/usr/bin/env bash
# Session 19, call 6: test_cuda as ctest runs it since 38d5026, eight GoogleTest shards side by
# side (gpu.unit.cuda.0 .. .7), on main after the positional changes; never run on a GPU before.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && rm -f results.tgz && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh petscgpumat test_cuda || { pack; exit 1; }
echo "built after $(el)"
timeout 300 ctest --test-dir build-cuda -R "^gpu[.]unit[.]cuda[.]" -j 8 --timeout 280 --output-on-failure > $R/ctest-shards.txt 2>&1; echo "ctest rc=$? after $(el)"
grep -E "tests passed|\(Failed\)|\(Timeout\)|Test +#" $R/ctest-shards.txt | cut -c1-120
for f in build-cuda/Testing/Temporary/LastTest.log; do grep -E "^\[==========\] [0-9]+ tests? from|^\[  PASSED  \]|^\[  SKIPPED \]|^\[  FAILED  \]" $f | sort | uniq -c > $R/shard-counts.txt; done
cat $R/shard-counts.txt | head -30
gzip -9 $R/ctest-shards.txt; cp build-cuda/Testing/Temporary/LastTest.log $R/ && gzip -9 $R/LastTest.log; pack
echo "total $(el)"
