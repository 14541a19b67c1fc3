#!/usr/bin/env bash
# The README's test command: installs everything on a fresh machine, builds, runs every test
# (CPU tests everywhere; the GPU tests too where a GPU answers). Extra arguments go to ctest.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
ctest --test-dir "$BUILD" --output-on-failure -j "$(nproc)" "$@"
