#!/usr/bin/env bash
# Configures and builds one flavour of locsched into build/<flavour>:
#   release  optimized (LTO), with tests and benchmarks
#   asan     AddressSanitizer + UBSan, with tests (no benchmarks)
set -euo pipefail
cd "$(dirname "$0")/.."
flavour=${1:-release}
case "$flavour" in
  release) args=(-DCMAKE_BUILD_TYPE=Release) ;;
  asan) args=(-DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS=-O1 -DLOCSCHED_SANITIZE=ON
              -DLOCSCHED_BUILD_BENCH=OFF) ;;
  *) echo "build.sh: unknown flavour '$flavour' (release or asan)" >&2; exit 2 ;;
esac
cmake -S . -B "build/$flavour" -G Ninja "${args[@]}" >/dev/null
# Two cores and heavy headers: one job per core.
cmake --build "build/$flavour" -j "$(nproc)"
