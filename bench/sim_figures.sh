#!/usr/bin/env bash
# Reproduces the simulator figures of docs/benchmarks.md from a Release build:
#   1. the paper's sweep (JSQ+MaxWeight vs naive fair sharing, 100,000 slots
#      per point) -> docs/figures/paper-sweep.{csv,png}
#   2. how naive fair sharing's breaking point depends on the job-size
#      distribution -> docs/figures/job-size-sensitivity.csv
#   3. the wall time of one paper-scale load point (load 640), RUNS runs (default
#      3), each with the CPU time the hypervisor stole meanwhile, then the median,
#      minimum, maximum and how many runs took over 10 s (the target).
# Usage: bash bench/sim_figures.sh [sweep|sensitivity|speed|all] [RUNS]  (defaults: all, 3)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = -h ] || [ "${1:-}" = --help ]; then
  sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
sim=build/release/tools/locsched-sim
[ -x "$sim" ] || { echo "sim_figures.sh: build first: bash tools/build.sh release" >&2; exit 1; }
what=${1:-all} runs=${2:-3}
case "$what" in
  sweep | sensitivity | speed | all) ;;
  *) echo "sim_figures.sh: unknown part '$what' (sweep, sensitivity, speed or all)" >&2; exit 2 ;;
esac
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "sim_figures.sh: RUNS must be a positive integer" >&2; exit 2; }
mkdir -p docs/figures

if [ "$what" = sweep ] || [ "$what" = all ]; then
  "$sim" --sweep 100:670:30 --policy jsq-maxweight,fair --slots 100000 -q --json \
    --csv docs/figures/paper-sweep.csv --chart docs/figures/paper-sweep.png \
    > docs/figures/paper-sweep.jsonl
fi

if [ "$what" = sensitivity ] || [ "$what" = all ]; then
  out=docs/figures/job-size-sensitivity.csv
  echo "job_size_dist,job_size_mean,load,stable,mean_jobs_in_system,locality,slots" > "$out"
  for dist in geometric pareto; do
    for mean in 100 300; do
      "$sim" --policy fair --sweep 200:400:25 --slots 30000 -q --json \
        --job-size-dist "$dist" --job-size-mean "$mean" |
        python3 -c '
import json, sys
for line in sys.stdin:
    d = json.loads(line)
    print(",".join("" if x is None else str(x) for x in (sys.argv[1], sys.argv[2], d["load"], d["stable"],
          d["mean_jobs_in_system"], d["locality"], d["slots"])))' "$dist" "$mean" >> "$out"
    done
  done
fi

if [ "$what" = speed ] || [ "$what" = all ]; then
  python3 - "$sim" "$runs" <<'PY'
import json, os, statistics, subprocess, sys

sim, runs = sys.argv[1], int(sys.argv[2])

def steal_seconds():
    # /proc/stat's first line sums every CPU; its 8th figure is stolen time in clock ticks.
    with open("/proc/stat") as f:
        return int(f.readline().split()[8]) / os.sysconf("SC_CLK_TCK")

walls = []
for run in range(1, runs + 1):
    before = steal_seconds()
    out = subprocess.run([sim, "--load", "640", "--slots", "100000", "-q", "--json"],
                         check=True, capture_output=True, text=True).stdout
    stolen = steal_seconds() - before
    d = json.loads(out)
    walls.append(d["wall_seconds"])
    print("run %d: load 640, 100000 slots: %.2f s wall, %d tasks done, %.2f M tasks/s, "
          "%.2f s stolen" % (run, d["wall_seconds"], d["tasks_done"],
                             d["tasks_done"] / d["wall_seconds"] / 1e6, stolen), flush=True)
print("%d runs: median %.2f s, min %.2f s, max %.2f s, %d over 10 s" %
      (runs, statistics.median(walls), min(walls), max(walls), sum(w > 10 for w in walls)))
PY
fi
