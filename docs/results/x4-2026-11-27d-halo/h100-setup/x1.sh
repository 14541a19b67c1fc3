set -o pipefail; W=/tmp/w; rm -rf $W; mkdir -p $W; export GPUMAT_CONFIG=cuda
fin(){ tar -C $W -czf $OUT/x1.tgz .; }; trap fin EXIT
S0=$(date +%s); nvidia-smi -L
top=$PWD; source conf/gpu-env.sh > $W/env.txt 2>&1 || { cat $W/env.txt; exit 2; }
timeout 330 ctest --test-dir $BUILD -j 10 -R "gpu.[a-z]+.(mpi.np[1-4]|mpi_side_stream_off|mpi_no_overlap|coo.np[24]|coo_compressed_always.np2|mpi_tune|mpi_trial|mpi_alg2|ksp.cg_jacobi_nocopies.np2|coo_host_values.np2)|gpu.csrspec.(view_|gpu_aware_refused)|gpu.devices_shared" --timeout 60 --output-on-failure > $W/ctest.txt 2>&1; grep -E "tests passed|Failed|\*\*\*" $W/ctest.txt | tail -12; grep -c "Passed" $W/ctest.txt; echo "t=$(($(date +%s)-S0))"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer); mkdir -p $W/san
for t in bccoo pjds; do for tool in memcheck synccheck racecheck; do [ $tool = racecheck ] && [ $t = pjds ] && continue; timeout 60 mpiexec -n 3 --bind-to none $san --tool $tool --error-exitcode 9 $BUILD/tests/petsc/test_mpi -type $t > $W/san/$t-$tool.txt 2>&1; echo "$t $tool test_mpi np3: exit $? $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test_mpi:" $W/san/$t-$tool.txt | sort | uniq -c | tr "\n" " ")"; done; done; echo "t=$(($(date +%s)-S0))"
# the set-up with a huge halo: 2 ranks sharing the GPU, first product per type and PetscSF set-ups
timeout 200 mpiexec -n 2 --bind-to none $BUILD/examples/bench_matmult -matrix gen:powerlaw:20000000 -types aijcusparse:alg1,bccoo,pjds -reps 20 -reps_build 1 -ksp_its 0 -floors 0 -log_view > $W/setup.txt 2>&1; grep -E "^(aijcusparse|bccoo|pjds|distribution|split)|^(SFSetGraph|SFSetUp|BuildTwoSided|MatConvert|Gpumat[A-Za-z]+|BccooBuild|PjdsBuild|MatAssemblyEnd) " $W/setup.txt | cut -c1-150; echo "t=$(($(date +%s)-S0))"
