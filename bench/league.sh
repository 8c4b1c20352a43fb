#!/usr/bin/env bash
# The league: every policy against every workload (bench/league.py; see its --help), two
# simulations at a time at nice 19, without the machine-wide lock (it is a pool of short
# independent runs; it reports its CPU time, so the idle wall time is CPU / 2). Writes docs/league.md,
# docs/league.png and docs/figures/league.jsonl. Needs locsched-sim built (build/release,
# else build/dev, or --build DIR); the trace workloads skip when ../shared/data/traces
# is absent; the chart needs python3 with matplotlib. quincy runs on a sampled subset only
# (the SWIM hours and the skewed clusters; league.py's SAMPLED says why).
#   bash bench/league.sh [league.py options]
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in -h|--help) exec python3 bench/league.py --help ;; esac
python=python3
for p in python3 /usr/bin/python3; do
  if "$p" -c 'import matplotlib' 2>/dev/null; then python=$p; break; fi
done
"$python" -c 'import matplotlib' 2>/dev/null ||
  echo "league.sh: python3 has no matplotlib: the tables are written, the chart is not" >&2
exec nice -n 19 "$python" bench/league.py "$@"
