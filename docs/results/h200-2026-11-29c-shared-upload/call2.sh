#!/usr/bin/env bash
# Device call 2 (session 13, one H200), same tree as call 1: the 48 GPU tests call 1's time did not
# reach (the five multigpu ones aside: one GPU; gpu.unit.cuda among them, which call 1's 120 s per-test limit stopped at 120 s; it takes
# about 121 s) with a 300 s limit; racecheck of the shared case without the result's first products
# through cuSPARSE (-mat_gpumat_shadow_products 0), and of aijcusparse's own MatMult (CG + Jacobi), to
# place call 1's hazards; CG + Jacobi lap3d 128^3 at 1 rank (aijcusparse and pjds in one process,
# -mat_gpumat_device_csr on and off, three rounds each) and CG + GAMG at 2 ranks on the GPU (two
# rounds each), one BLAS thread.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh || { pack; exit 1; }
echo "built after $(el)"
ctest --test-dir build-cuda -L gpu -R "bench[.]distinct_values_many[.]np2|bench[.]matmult_np2|gpu[.]bccoo[.]mpi_compress_columns[.]np2|gpu[.]bccoo[.]mpi_tune[.]np2|gpu[.]bccoo[.]snes_bratu[.]np2|gpu[.]bccoo[.]tune_cache|gpu[.]bce[.]coo[.]np4|gpu[.]bce[.]matproduct[.]np4|gpu[.]bce[.]matproduct_aij[.]np4|gpu[.]bce[.]mpi[.]np3|gpu[.]bce[.]mpi[.]np4|gpu[.]bce[.]ops[.]np4|gpu[.]bce[.]ops_device[.]np4|gpu[.]bce[.]snes_bratu[.]np2|gpu[.]bench[.]coo[.]np2|gpu[.]csrspec[.]api_halo_staged[.]np2|gpu[.]csrspec[.]api_side_stream_off[.]np2|gpu[.]csrspec[.]coo[.]np4|gpu[.]csrspec[.]coo_ignore_off_proc[.]np3|gpu[.]csrspec[.]gpu_aware_refused[.]np2|gpu[.]csrspec[.]snes_bratu[.]np2|gpu[.]csrspec[.]view_side_stream[.]np2|gpu[.]cusparsebsr[.]snes_bratu[.]np2|gpu[.]cusparsecsr[.]mpi_alg2[.]np2|gpu[.]cusparsecsr[.]snes_bratu[.]np2|gpu[.]cusparsesell[.]snes_bratu[.]np2|gpu[.]devices_shared[.]np2|gpu[.]gpuauto[.]coo[.]np4|gpu[.]gpuauto[.]coo_compressed_always[.]np2|gpu[.]gpuauto[.]coo_host_values[.]np2|gpu[.]gpuauto[.]ksp[.]cg_jacobi_nocopies[.]np2|gpu[.]gpuauto[.]matproduct[.]np4|gpu[.]gpuauto[.]matproduct_aij[.]np4|gpu[.]gpuauto[.]mpi[.]np3|gpu[.]gpuauto[.]mpi[.]np4|gpu[.]gpuauto[.]mpi_no_overlap[.]np2|gpu[.]gpuauto[.]mpi_side_stream_off[.]np2|gpu[.]gpuauto[.]mpi_trial[.]np2|gpu[.]gpuauto[.]ops[.]np4|gpu[.]gpuauto[.]ops_device[.]np4|gpu[.]gpuauto[.]snes_bratu[.]np2|gpu[.]pjds[.]api_fp32[.]np2|gpu[.]pjds[.]api_pmat_fp32[.]np2|gpu[.]pjds[.]mpi_columns_dictionary[.]np2|gpu[.]pjds[.]mpi_plain[.]np2|gpu[.]pjds[.]mpi_values_table[.]np2|gpu[.]pjds[.]snes_bratu[.]np2|gpu[.]unit[.]cuda" -j 12 --timeout 300 --output-on-failure > $R/ctest.txt 2>&1
grep -E "tests passed|\(Failed\)|\(Timeout\)|Total Test" $R/ctest.txt | head -30; echo "ctest after $(el)"; gzip -9 $R/ctest.txt; pack
san=/usr/local/cuda/bin/compute-sanitizer
timeout 90 $san --tool racecheck --error-exitcode 9 build-cuda/tests/petsc/test_matproduct -type pjds -operands ours -expect_device -products shared,ptap -mat_gpumat_shadow_products 0 > $R/san-shared-sp0-racecheck.txt 2>&1
echo "racecheck shared, shadow_products 0: rc=$? $(grep -E 'RACECHECK SUMMARY' $R/san-shared-sp0-racecheck.txt | tail -1)"
timeout 90 $san --tool racecheck --error-exitcode 9 build-cuda/examples/solve -kind lap3d -n 24 -types aijcusparse -vec_type cuda -pc_type jacobi -warmup 0 > $R/san-aijcusparse-racecheck.txt 2>&1
echo "racecheck aijcusparse CG+Jacobi: rc=$? $(grep -E 'RACECHECK SUMMARY' $R/san-aijcusparse-racecheck.txt | tail -1) kernels: $(grep -oE 'at void [a-zA-Z_:0-9]+' $R/san-aijcusparse-racecheck.txt | sort | uniq -c | head -3 | tr '\n' ' ')"
pack
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
J="build-cuda/examples/solve -kind lap3d -n 128 -vec_type cuda -pc_type jacobi -ksp_rtol 1e-8 -warmup 0 -types aijcusparse,pjds"
for k in 1 2 3; do for v in on off; do
  X=""; [ $v = off ] && X="-mat_gpumat_device_csr 0"
  timeout 60 mpiexec -n 1 --bind-to none $J $X > $R/jacobi-$v-$k.txt 2>&1
  echo "jacobi $v run $k rc=$?"; grep -A2 -E '^type +its' $R/jacobi-$v-$k.txt | tail -2 | cut -c1-110
done; done
G="build-cuda/examples/solve -kind lap3d -n 128 -vec_type cuda -pc_type gamg -ksp_rtol 1e-8 -warmup 0 -types aijcusparse,pjds"
for k in 1 2; do for v in on off; do
  X=""; [ $v = off ] && X="-mat_gpumat_device_csr 0"
  timeout 100 mpiexec -n 2 --bind-to none $G $X > $R/gamg-np2-$v-$k.txt 2>&1
  echo "gamg np2 $v run $k rc=$?"; grep -A2 -E '^type +its' $R/gamg-np2-$v-$k.txt | tail -2 | cut -c1-110
done; done
pack; rm -rf $R
echo "total $(el)"
