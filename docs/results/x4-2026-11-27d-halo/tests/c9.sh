set -o pipefail; W=/tmp/w; rm -rf $W; mkdir -p $W; export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 GPUMAT_CONFIG=cudampich
fin(){ tar -C $W -czf $OUT/c9.tgz .; }; trap fin EXIT
hostname > $W/host.txt; nvidia-smi -L | head -1; S0=$(date +%s)
top=$PWD; source conf/gpu-env.sh > $W/env.txt 2>&1 || { cat $W/env.txt; exit 2; }; echo "env t=$(($(date +%s)-S0))"
timeout 90 ctest --test-dir $BUILD -j 6 -R 'gpu\.(bccoo|pjds|csrspec)\.(mpi_gpu_aware\.np2|mpi\.np4)' --timeout 60 --output-on-failure > $W/ctest.txt 2>&1; grep -E "tests passed|Failed|\*\*\*|agrees" $W/ctest.txt | tail -10; echo "t=$(($(date +%s)-S0))"
run(){ local d=$1 study=$2 T=$3; shift 3; local b=$((T-$(date +%s)+S0)); [ $b -lt 1 ] && b=1; env OUT=$W/$d SCALING_CARRY=.carry/mpi/$d "$@" BUDGET_S=$b bash conf/scaling.sh $study 4 > $W/$d.out 2>&1; grep -E "^(== [0-9]|!!)" $W/$d.out | tail -3; echo "t=$(($(date +%s)-S0))"; }
run wk weak 250 RANKS="1 4" OVERLAP=1 HALO=device TYPES=aijcusparse:alg1,csrspec,bce,gpuauto RUN_TIMEOUT=90 ARGS="-reps_refresh 1"
run sf strong 345 MATRICES=strong_fem3_150 LAYOUTS=rows RANKS="1 4" OVERLAP=1 HALO=device TYPES=aijcusparse:alg1,bccoo,pjds RUN_TIMEOUT=90 ARGS="-reps_refresh 1"
run pl strong 450 MATRICES=strong_powerlaw_50M LAYOUTS=rows RANKS="1 4" OVERLAP=1 HALO=device TYPES=aijcusparse:alg1,bccoo,pjds RUN_TIMEOUT=100 ARGS="-reps_refresh 1"
run cs strong 540 MATRICES=strong_circuit_16M LAYOUTS="rows nnz" RANKS="1 4" OVERLAP=1 HALO=staged RUN_TIMEOUT=90 ARGS="-reps_refresh 1"
for d in wk sf pl cs; do grep -hE "^(distribution|aijcusparse:alg1|csrspec|bccoo|pjds|bce|gpuauto) " $W/$d/scaling-*.log 2>/dev/null | cut -c1-140 | tail -12; done
