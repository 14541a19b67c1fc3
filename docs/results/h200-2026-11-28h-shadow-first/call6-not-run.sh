#!/usr/bin/env bash
# Device call (session 8, sixth; one H200): the new GPU tests of pjds's dictionary columns
# (products, MPI at 2 ranks, the property record) on the kernel of call 43a (the shuffle variant
# of call 44a withdrawn), default columns plain.
t0=$(date +%s); R=$OUT/r; mkdir -p $R
LOG=$R/build.log source conf/device-build.sh petscgpumat test_products test_mpi test_api || exit 1
echo "built after $(( $(date +%s) - t0 )) s"
timeout 60 ctest --test-dir build-cuda -L gpu -R "gpu[.]pjds[.](api_columns|products_columns|mpi_columns|products$|mpi[.]np2)" -j 8 --timeout 50 --output-on-failure > $R/ctest.txt 2>&1
echo "ctest rc=$? $(grep -E 'tests passed|tests failed' $R/ctest.txt)"; grep -E "Test +#" $R/ctest.txt | cut -c1-90
echo "total $(( $(date +%s) - t0 )) s"
