#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (request decoder, config loader)
# with clang into build/fuzz and runs each for half of SECONDS (default 60)
# from a writable copy of its seed corpus. Exits non-zero on any crash, leak or
# timeout, printing the reproducer. Called by tools/test.sh; usage: fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
total=${1:-60}
if ! [[ "$total" =~ ^[0-9]+$ ]] || [ "$total" -lt 2 ]; then
  echo "fuzz.sh: SECONDS must be an integer >= 2, got '$total'" >&2
  exit 2
fi
if ! command -v clang++ >/dev/null 2>&1; then
  echo "fuzz.sh: clang++ not found; run tools/install-deps.sh" >&2
  exit 2
fi

build=build/fuzz
CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DLOCSCHED_FUZZ=ON -DLOCSCHED_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" -j "${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}" --target request_fuzz config_fuzz

# run_target NAME MAX_LEN SECONDS: fuzzes build/fuzz/corpus/NAME (seeds copied in,
# earlier finds kept); crash files go to build/fuzz/artifacts/NAME/.
run_target() {
  local name=$1 max_len=$2 seconds=$3
  local corpus="$build/corpus/$name" artifacts="$build/artifacts/$name" log="$build/$name.log"
  mkdir -p "$corpus" "$artifacts"
  cp "tests/fuzz/corpus/$name"/* "$corpus"/
  echo "== fuzz: $name for ${seconds}s (max_len $max_len, log $log)"
  local rc=0
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 "$build/tests/fuzz/${name}_fuzz" \
    -max_total_time="$seconds" -max_len="$max_len" -timeout=5 -print_final_stats=1 \
    -dict="tests/fuzz/$name.dict" -artifact_prefix="$artifacts/" "$corpus" >"$log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then
    grep -E 'ERROR|broken invariant|SUMMARY' "$log" | head -5 >&2 || true
    tail -n 40 "$log" >&2
    local repro
    repro=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
    echo "fuzz.sh: $name FAILED (exit $rc); reproducer: ${repro:-none written, see $log}" >&2
    echo "fuzz.sh: replay with: $build/tests/fuzz/${name}_fuzz ${repro:-FILE}" >&2
    return 1
  fi
  local runs rate
  runs=$(sed -n "s/^stat::number_of_executed_units: *//p" "$log")
  rate=$(sed -n "s/^stat::average_exec_per_sec: *//p" "$log")
  echo "fuzz: $name: ${runs:-?} runs, ${rate:-?} execs/s, corpus $(find "$corpus" -type f | wc -l) inputs, clean"
}

run_target request 4096 $((total / 2))
run_target config 8192 $((total - total / 2))
