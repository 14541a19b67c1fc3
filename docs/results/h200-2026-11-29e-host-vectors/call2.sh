#!/usr/bin/env bash
# Session 15, call 2: the CUDA build's host-vector tests failed in call 1 (34 of 226 of -R "coo|matproduct"):
# our factor (aijcusparse's) solved with host vectors (now staged through CUDA vectors), the test of
# the solver type named at 2 ranks (its sub PC's options now read), and SEGVs in matproduct_hostref.np2 and
# ops_coo_hostref.np2 of the cuSPARSE-wrapping types (stacks here by cuda-gdb). Then every
# host-vector test of the CUDA build (ctest -LE gpu), bench_matmult -dense, GAMG np2 pjds.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && rm -f results.tgz && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh || { pack; exit 1; }
echo "built after $(el)"
T=build-cuda/tests/petsc
gdbrun() { local name=$1; shift; timeout 120 mpiexec -n 2 --bind-to none --output-filename $R/gdb-$name /usr/local/cuda/bin/cuda-gdb -q -batch -ex "set pagination off" -ex run -ex "bt 40" --args "$@" -no_signal_handler > $R/gdb-$name.txt 2>&1; echo "gdb $name rc=$?"; grep -h -E "^#[0-9]+ " -r $R/gdb-$name* | head -24 | cut -c1-220; }
gdbrun ops-coo-csr $T/test_ops -type cusparsecsr -vec_type standard -values device -mat_gpumat_coo_host_reference -mat_gpumat_host_reference
gdbrun mp-dense-csr $T/test_matproduct -type cusparsecsr -operands ours -vec_type standard -mat_gpumat_host_reference -products dense
gdbrun mp-shared-csr $T/test_matproduct -type cusparsecsr -operands ours -vec_type standard -mat_gpumat_host_reference -products shared
pack; echo "gdb after $(el)"
ctest --test-dir build-cuda -LE gpu -j 16 --timeout 200 --output-on-failure > $R/ctest-host.txt 2>&1
grep -E "tests passed|\(Failed\)|\(Timeout\)|\(SEGFAULT\)|Total Test" $R/ctest-host.txt | head -60; echo "host-vector ctest after $(el)"; gzip -9 $R/ctest-host.txt; pack
ctest --test-dir build-cuda -L gpu -R "[.]ops[.]np|ops_factor|gmres_ilu|dll_append" -j 16 --timeout 200 --output-on-failure > $R/ctest-gpu.txt 2>&1
grep -E "tests passed|\(Failed\)|\(Timeout\)|Total Test" $R/ctest-gpu.txt | head -30; echo "gpu ctest after $(el)"; gzip -9 $R/ctest-gpu.txt; pack
export OPENBLAS_NUM_THREADS=1
G="build-cuda/examples/solve -kind lap3d -n 128 -vec_type cuda -pc_type gamg -ksp_rtol 1e-8 -warmup 0 -log_view"
timeout 60 mpiexec -n 2 --bind-to none $G -types pjds > $R/gamg-np2-pjds.txt 2>&1
echo "gamg np2 pjds rc=$? $(grep -A1 -E '^type +its' $R/gamg-np2-pjds.txt | tail -1 | cut -c1-140) after $(el)"
for kk in lap3d:8 lap3d:32 lap3dv:8; do kind=${kk%:*} k=${kk#*:}
  types=aijcusparse:alg1; for t in pjds bce gpuauto; do types=$types,$t,$t:gpumat_dense_products=spmm,$t:gpumat_dense_products=loop; done
  timeout 60 build-cuda/examples/bench_matmult -kind $kind -n 128 -types $types -dense $k -reps 30 -reps_coo 5 -ksp_its 0 -floors 0 > $R/bench-$kind-k$k.txt 2>&1
  echo "bench $kind k$k rc=$? after $(el)"; grep -E "^dense" $R/bench-$kind-k$k.txt | sed -E 's/: C = A B, B dense with [0-9]+ columns: median/ AB/; s/ \(min [^)]*\)//'
done
pack
echo "total $(el)"
