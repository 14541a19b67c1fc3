#!/usr/bin/env bash
# Session 16, call 3: the positional floors with CUDA blocks of 1, 4 and 16 consecutive 256-row
# slices (L1 reuse of x between grid lines), and Nsight Compute on the gather floors and pjds's
# product (lap3d 200^3), to see what holds the positional gather above its stream.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && rm -f results.tgz && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh bench_matmult || { pack; exit 1; }
echo "built after $(el)"
export OPENBLAS_NUM_THREADS=1
for m in gen:lap3d:200 gen:lap3dv:200 gen:lap3d27:120 gen:lap2d:3000; do
  n=${m//:/_}
  timeout 100 build-cuda/examples/bench_matmult -matrix $m -types aijcusparse:alg1,pjds -reps 100 -ksp_its 0 -floors 1 > $R/floors-$n.txt 2>&1
  echo "$m rc=$? after $(el)"; grep -E "^(floor:pjds|pjds) " $R/floors-$n.txt | cut -c1-60
  pack
done
timeout 200 ncu --clock-control none --kernel-name regex:"pos_gather_floor|rg_gather_floor|pj_spmv" --launch-count 60 \
  --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis \
  --metrics lts__t_sectors_srcunit_tex_op_read.sum,l1tex__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum \
  build-cuda/examples/bench_matmult -matrix gen:lap3d:200 -types pjds -reps 1 -warmup 1 -ksp_its 0 -floors 1 > $R/ncu-lap3d.txt 2>&1
echo "ncu rc=$? after $(el)"; gzip -9 $R/ncu-lap3d.txt; pack
echo "total $(el)"
