#!/usr/bin/env bash
# Replays the same hour of SWIM FB-2009 through locschedd once per scheduling policy
# (tools/replay.sh: locsched-tail feeds the daemon, locsched-agents --no-jobs runs the
# tasks on 600 emulated machines) and collects job completion time (mean, p95) and
# locality side by side:
#   docs/figures/policy-replay.jsonl  one line per run: policy, run, load average, and the
#                                     emulator's and the tailer's JSON summaries
#   docs/figures/policy-replay.png    the chart (tools/plot_policy_replay.py)
# Usage: bash bench/policy_replay.sh [--policies fifo,fair,delay,jsq-maxweight] [--runs R]
#                                    [--hour H] [--speed N] [--build DIR] [--first-run F]
# Run r seeds the emulator's task durations with r. Runs are numbered from F (default 1);
# with F > 1 the results are appended to the .jsonl instead of replacing it. Each run takes about a minute plus
# the drain. Needs the binaries in --build (default build/release: bash tools/build.sh
# release), ../shared/data/traces and python3-matplotlib for the chart.
set -euo pipefail
cd "$(dirname "$0")/.."
policies=fifo,fair,delay,jsq-maxweight
runs=1
first=1
hour=1
speed=60
build=build/release
while [ $# -gt 0 ]; do
  case "$1" in
    --policies) policies=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --first-run) first=$2; shift 2 ;;
    --hour) hour=$2; shift 2 ;;
    --speed) speed=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "policy_replay.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ -x "$build/tools/locsched-agents" ] ||
  { echo "policy_replay.sh: no binaries in $build: bash tools/build.sh release" >&2; exit 1; }
mkdir -p docs/figures
out=docs/figures/policy-replay.jsonl
tmp=$(mktemp -d /tmp/locsched-policy-replay-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
if [ "$first" -eq 1 ]; then : >"$out"; fi
for run in $(seq "$first" $((first + runs - 1))); do
  for policy in ${policies//,/ }; do
    echo "== run $run, $policy" >&2
    load_before=$(cut -d' ' -f1-3 /proc/loadavg)
    bash tools/replay.sh --build "$build" --policy "$policy" --hour "$hour" \
      --speed "$speed" --quiet --json "$tmp/r" -- --seed "$run" >"$tmp/log" 2>&1 ||
      { cat "$tmp/log" >&2; exit 1; }
    /usr/bin/python3 - "$policy" "$run" "$hour" "$speed" "$load_before" \
      "$(cut -d' ' -f1-3 /proc/loadavg)" "$tmp/r.agents" "$tmp/r.tail" >>"$out" <<'PY'
import json, sys
policy, run, hour, speed, before, after, agents, tail = sys.argv[1:]
print(json.dumps({"policy": policy, "run": int(run), "hour": int(hour), "speed": float(speed),
                  "loadavg_before": before, "loadavg_after": after,
                  "agents": json.load(open(agents)), "tail": json.load(open(tail))}))
PY
    tail -n 1 "$out" | /usr/bin/python3 -c '
import json, sys
d = json.loads(sys.stdin.read()); a = d["agents"]
print("   jobs %d, mean JCT %.1f s, p95 %.1f s, locality %.1f%%, %.0f wall s, max lag %.2f s" % (
      a["foreign_jobs_done"], a["foreign_mean_job_delay"], a["foreign_p95_job_delay"],
      100 * a["all_locality"], a["wall_seconds"], a["max_lag"]))' >&2
  done
done
/usr/bin/python3 tools/plot_policy_replay.py "$out" docs/figures/policy-replay.png
