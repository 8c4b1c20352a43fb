#!/usr/bin/env bash
# Runs this Release build and another build of the same benchmark alternately, round
# by round, so that both see the same periods of a noisy machine (docs/benchmarks.md
# §3 and §4 compare builds this way). Prints every round's figures, then per build
# the median, minimum and maximum.
#
# Usage:
#   bash bench/alternate.sh sim ROUNDS OTHER_SIM [SLOTS]
#       locsched-sim at the paper's load-640 point (1,000 machines, SLOTS slots,
#       default 100,000): wall seconds, tasks done and mean job delay per run.
#   bash bench/alternate.sh core ROUNDS OTHER_CORE_BENCH [FILTER]
#       core_bench rows matching FILTER (default: the JSQ+MaxWeight rows) at
#       --benchmark_min_time=0.3: millions of decisions per second per run.
# Build the other binary from a worktree, e.g.
#   git worktree add /tmp/base <commit> && cmake -S /tmp/base -B /tmp/base/build \
#     -G Ninja -DCMAKE_BUILD_TYPE=Release && ninja -C /tmp/base/build locsched-sim
set -euo pipefail
cd "$(dirname "$0")/.."
usage() {
  sed -n '7,13p' "$0" >&2
  exit 2
}
if [ "${1:-}" = -h ] || [ "${1:-}" = --help ]; then
  sed -n '7,13p' "$0"
  exit 0
fi
[ $# -ge 3 ] || usage
mode=$1 rounds=$2 other=$3
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "alternate.sh: ROUNDS must be a positive integer" >&2; exit 2; }
[ -x "$other" ] || { echo "alternate.sh: $other is not an executable" >&2; exit 2; }
case $mode in
  sim) this=build/release/tools/locsched-sim ;;
  core) this=build/release/bench/core_bench ;;
  *) usage ;;
esac
[ -x "$this" ] || { echo "alternate.sh: build first: bash tools/build.sh release" >&2; exit 1; }

run() {  # run BINARY SLOTS_OR_FILTER: one line of figures
  if [ "$mode" = sim ]; then
    "$1" --policy jsq-maxweight --machines 1000 --data-machines 800 --alpha 0.8 --gamma 0.2 \
      --load 640 --slots "${2:-100000}" --seed 1 --json |
      python3 -c 'import json, sys; d = json.load(sys.stdin)
print("%.2f s, %d tasks done, mean job delay %r" % (d["wall_seconds"], d["tasks_done"], d["mean_job_delay"]))'
  else
    "$1" --benchmark_filter="${2:-BM_(Decisions|Lifecycle)_JsqMaxWeight}" \
      --benchmark_min_time=0.3 2>/dev/null |
      sed -nE 's/^(BM_[^ ]+).*decisions_per_s=([0-9.]+)([kM])\/s.*/\1 \2 \3/p' |
      awk '{ printf "%s %g ", $1, ($3 == "k" ? $2 / 1000 : $2) }'
    echo
  fi
}

log=$(mktemp)
trap 'rm -f "$log"' EXIT
for r in $(seq "$rounds"); do
  for b in "$this" "$other"; do
    line=$(run "$b" "${4:-}")
    echo "round $r $b: $line"
    echo "$b $line" >>"$log"
  done
done
python3 - "$log" "$mode" <<'EOF'
import collections, statistics, sys
log, mode = sys.argv[1:3]
runs = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(log):
    binary, rest = line.split(" ", 1)
    if mode == "sim":
        runs[binary]["wall s"].append(float(rest.split(" s,")[0]))
    else:
        fields = rest.split()
        for name, value in zip(fields[::2], fields[1::2]):
            runs[binary][name].append(float(value))
for binary, rows in runs.items():
    for name, values in rows.items():
        print("median %s %s: %g (min %g, max %g, %d runs)" % (
            binary, name, statistics.median(values), min(values), max(values), len(values)))
EOF
