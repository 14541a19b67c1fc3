#!/usr/bin/env bash
# Session 20, call 2 (branch s19-auto-positional, f9e4d0d): the PETSc-level tests call 1's ctest left
# unrun (its 150 s ran out after 101 of 130 passed, none failed), then the suite's stencils and
# fem3c_90 with every peer and ours (next19-suite.sh a).
# .carry/s20-ctest-passed.txt: the tests call 1 passed (call1/ctest-passed.txt in the report).
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && rm -f results.tgz && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh || { pack; exit 1; }
echo "built after $(el)"
ctest --test-dir build-cuda -N -R "positional|gpu[.]pjds[.]|gpu[.]gpuauto[.]" | grep -oE "Test +#[0-9]+: [^ ]+" | awk '{print $3}' | sort > $R/all.txt
comm -23 $R/all.txt .carry/s20-ctest-passed.txt > $R/rest.txt
echo "$(wc -l < $R/all.txt) selected, $(wc -l < $R/rest.txt) left"
re="^($(sed 's/[.]/[.]/g' $R/rest.txt | paste -sd'|'))\$"
timeout 200 ctest --test-dir build-cuda -R "$re" -j 14 --timeout 180 --output-on-failure > $R/ctest.txt 2>&1; echo "ctest rc=$? after $(el)"; grep -E "tests passed|\(Failed\)|\(Timeout\)" $R/ctest.txt; gzip -9 $R/ctest.txt; pack
TYPES="aijcusparse:alg1,aijcusparse:alg2,cusparsesell,cusparsebsr,sellcuda,csrspec,bccoo,pjds,pjds:columns=plain,pjds:columns=positional,bce,gpuauto" \
  ARGS="-floors 0" REPS=50 REPS_BUILD=1 KSP_ITS=0 OUT=$R/suite timeout $(( 560 - ($(date +%s) - t0) )) bash conf/suite.sh lap2d_4500 lap3d_300 lap3d27_160 lap3d_64 lap3dv_300 fem3c_90 > $R/suite.log 2>&1
echo "suite rc=$? after $(el)"; tail -12 $R/suite/table.md 2>/dev/null || tail -20 $R/suite.log
pack
echo "total $(el)"
