#!/usr/bin/env bash
# Reproduces the simulator figures of docs/benchmarks.md from a Release build:
#   1. the paper's sweep (JSQ+MaxWeight vs naive fair sharing, 100,000 slots
#      per point) -> docs/figures/paper-sweep.{csv,png}
#   2. how naive fair sharing's breaking point depends on the job-size
#      distribution -> docs/figures/job-size-sensitivity.csv
#   3. the wall time of one paper-scale load point (load 640), three runs.
# Usage: bash bench/sim_figures.sh [sweep|sensitivity|speed|all]  (default all)
set -euo pipefail
cd "$(dirname "$0")/.."
sim=build/release/tools/locsched-sim
[ -x "$sim" ] || { echo "sim_figures.sh: build first: bash tools/build.sh release" >&2; exit 1; }
what=${1:-all}
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
        /usr/bin/python3 -c '
import json, sys
for line in sys.stdin:
    d = json.loads(line)
    print(",".join("" if x is None else str(x) for x in (sys.argv[1], sys.argv[2], d["load"], d["stable"],
          d["mean_jobs_in_system"], d["locality"], d["slots"])))' "$dist" "$mean" >> "$out"
    done
  done
fi

if [ "$what" = speed ] || [ "$what" = all ]; then
  for run in 1 2 3; do
    "$sim" --load 640 --slots 100000 -q --json |
      /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print("load 640, 100000 slots: %.2f s wall, %d tasks done, %.2f M tasks/s" % (d["wall_seconds"], d["tasks_done"], d["tasks_done"]/d["wall_seconds"]/1e6))'
  done
fi
