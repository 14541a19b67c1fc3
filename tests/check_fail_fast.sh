#!/usr/bin/env bash
# Every script of conf/ (and the makefile) refuses a wrong argument or a missing precondition in
# seconds, with a message that says what to do, before any long step. Run from the repository root.
set -u
cd "$(dirname "$0")/.."
source conf/env.sh # gpumat_gpu_answers
fails=0 runs=0
# expect EXIT REGEX COMMAND...: the command exits with EXIT within 20 s and prints REGEX
expect() {
  local want=$1 regex=$2
  shift 2
  local out rc
  runs=$((runs + 1))
  out=$(timeout 20 "$@" 2>&1 < /dev/null)
  rc=$?
  if [ "$rc" != "$want" ] || ! grep -qE -- "$regex" <<< "$out"; then
    echo "FAIL: '$*' exited $rc (want $want), output:"
    echo "$out" | tail -5
    fails=$((fails + 1))
  else
    echo "ok: '$*' -> exit $rc: $(grep -E -m1 -- "$regex" <<< "$out")"
  fi
}
expect 2 "unknown suite name\(s\): nosuchname" bash conf/suite.sh nosuchname
expect 2 "NP must be positive integers" env NP=x bash conf/suite.sh part1
expect 2 "REPS_BUILD must be 1..16, not '0'" env REPS_BUILD=0 bash conf/suite.sh part1
expect 2 "GPUMAT_CONFIG must be cpu, cuda, cudakk or cudampich" env GPUMAT_CONFIG=gpu bash conf/setup.sh
expect 2 "configuration must be 'cpu', 'cuda', 'cudakk' or 'cudampich'" bash conf/petsc.sh gpu
expect 2 "--pack needs an archive file name" bash conf/petsc.sh cpu --pack
expect 2 "unknown argument '--bogus'" bash conf/petsc.sh cpu --bogus
expect 2 "unknown step 'test'" env OUT=/tmp/gpumat-fail-fast bash conf/device.sh test
expect 2 "CTEST_SHARD must be k/n with 1 <= k <= n" env OUT=/tmp/gpumat-fail-fast CTEST_SHARD=4/3 bash conf/device.sh tests
expect 2 "CTEST_JOBS must be a positive integer" env OUT=/tmp/gpumat-fail-fast CTEST_JOBS=0 bash conf/device.sh tests
expect 2 "GPUMAT_CONFIG must be cpu, cuda or cudakk, not .gpu." env GPUMAT_CONFIG=gpu bash conf/solvers.sh
expect 2 "VECS must be standard, cuda and/or kokkos, not .opencl." env GPUMAT_CONFIG=cpu VECS=opencl bash conf/solvers.sh
expect 2 "N, NP, FEM_N, N2D, NS_N, PLEX_N and REPEAT must be positive integers" env GPUMAT_CONFIG=cpu N=0 bash conf/solvers.sh
expect 2 "N, NP, FEM_N, N2D, NS_N, PLEX_N and REPEAT must be positive integers" env GPUMAT_CONFIG=cpu REPEAT=0 bash conf/solvers.sh
expect 2 "BRATU_N must be a positive integer or empty, not '0'" env GPUMAT_CONFIG=cpu BRATU_N=0 bash conf/solvers.sh
expect 2 "PROBLEMS and NS are kind:n words" env GPUMAT_CONFIG=cpu PROBLEMS=lap3d bash conf/solvers.sh
expect 2 "SPLIT must be 0 or 1, not .2." env GPUMAT_CONFIG=cpu SPLIT=2 bash conf/solvers.sh
expect 2 "EX56_NE must be a positive integer or empty" env GPUMAT_CONFIG=cpu EX56_NE=0 bash conf/solvers.sh
if gpumat_gpu_answers; then # on the GPU machine it builds: nothing to refuse
  echo "skip: 'source conf/device-build.sh' (a GPU answers here)"
else
  expect 2 "conf/device-build.sh: no GPU answers here" bash -c "source conf/device-build.sh"
fi
expect 2 "the study must be strong, weak or check, not 'bogus'" bash conf/scaling.sh bogus
expect 2 "NGPUS must be a positive integer, not 'x'" bash conf/scaling.sh strong x
expect 2 "OVERLAP must be 1, 0 or \"1 0\", not '2'" env OVERLAP=2 bash conf/scaling.sh strong
expect 2 "LAYOUTS must be rows and/or nnz" env LAYOUTS=cols bash conf/scaling.sh weak
expect 2 "unknown strong name 'nosuch'" env MATRICES=nosuch bash conf/scaling.sh strong
expect 2 "unknown weak name 'strong_lap3d_420'" env MATRICES=strong_lap3d_420 bash conf/scaling.sh weak
expect 2 "GPUMAT_CONFIG=cpu runs the check only" env GPUMAT_CONFIG=cpu bash conf/scaling.sh strong
expect 2 "HALO must be staged, device or \"staged device\", not 'peer'" env HALO=peer bash conf/scaling.sh weak
expect 2 "HALO=device needs the GPU machine" env GPUMAT_CONFIG=cpu HALO=device bash conf/scaling.sh check
expect 2 "GPUMAT_CONFIG must be cuda, cudakk or cudampich on the GPU machine, not 'gpu'" env GPUMAT_CONFIG=gpu OUT=/tmp/gpumat-fail-fast bash conf/device.sh tests
expect 2 "no /nonexistent/.carry/src|no .*petsc-3.26.1.tar.gz" env PETSC_VERSION=3.26.1 bash -c 'cd /tmp && bash "$0"' "$PWD/conf/device-petsc-src.sh"
if ! gpumat_gpu_answers; then
  expect 2 "no GPU answers here" env OUT=/tmp/gpumat-fail-fast bash conf/device.sh tests
  expect 2 "no GPU answers here" bash conf/suite.sh part1
  expect 2 "no GPU answers here" bash conf/scaling.sh strong 8
  expect 2 "no GPU answers here" env OUT=/tmp/gpumat-fail-fast bash conf/gpuaware.sh
  expect 2 "no GPU answers here" env OUT=/tmp/gpumat-fail-fast bash conf/device.sh multigpu
fi
expect 2 "PETSC_DIR is not set" env -u PETSC_DIR make -s
expect 2 "conf/variables not found" make -s PETSC_DIR=/nonexistent
rm -rf /tmp/gpumat-fail-fast
echo "check_fail_fast: $((runs - fails)) passed, $fails failed"
[ "$fails" = 0 ]
