#!/usr/bin/env bash
# Draft for session 19 (main; issue 36), for nvidia-h200-x2 (one rank per GPU): Newton bratu 64^3 at
# 2 ranks, where pjds took 0.96x aijcusparse's time in session 18 (three runs, the pairs split 2-1;
# bratu 16^3 0.87x: a per-product overhead?; docs/results/h200x2-2026-11-29h-one-rank-per-gpu).
# Six runs each, alternating, of aijcusparse, pjds and pjds with -mat_gpumat_side_stream 0; then one
# run each with -log_view (host clocks, no GPU timing).
t0=$(date +%s); R=$OUT/r; mkdir -p $R
el() { echo "$(( $(date +%s) - t0 )) s"; }
pack() { (cd $OUT && rm -f results.tgz && tar czf results.tgz r); }
LOG=$R/build.log source conf/device-build.sh petscgpumat bratu || { pack; exit 1; }
echo "built after $(el)"
export OPENBLAS_NUM_THREADS=1
B="build-cuda/examples/bratu -dim 3 -da_grid_x 64 -da_grid_y 64 -da_grid_z 64 -dm_vec_type cuda -ksp_type gmres -pc_type jacobi -ksp_rtol 1e-6"
for r in 1 2 3 4 5 6; do
  for v in aijcusparse pjds pjds-noside; do
    t=${v%-noside}; extra=""; [ "$v" = pjds-noside ] && extra="-mat_gpumat_side_stream 0"
    timeout 30 mpiexec -n 2 --bind-to none $B -dm_mat_type $t $extra > $R/bratu-$v-r$r.txt 2>&1
    echo "$v r$r rc=$? $(grep -E '^bratu: (SNESSolve|phases|Jacobian)' $R/bratu-$v-r$r.txt | tr '\n' ' ')"
  done
done
pack
for v in aijcusparse pjds pjds-noside; do
  t=${v%-noside}; extra=""; [ "$v" = pjds-noside ] && extra="-mat_gpumat_side_stream 0"
  timeout 30 mpiexec -n 2 --bind-to none $B -dm_mat_type $t $extra -log_view > $R/bratu-$v-logview.txt 2>&1
  echo "== $v rc=$?"; grep -E "^(MatMult |VecMDot|VecNorm |VecMAXPY|VecScatterBegin|VecScatterEnd|KSPSolve |SNESJacobianEval|KSPGMRESOrthog|VecPointwiseMult)" $R/bratu-$v-logview.txt | tr -s " " | cut -c1-120
done
pack
echo "total $(el)"
