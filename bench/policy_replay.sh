#!/usr/bin/env bash
# Replays the same real workload through locschedd once per scheduling policy
# (tools/replay.sh: locsched-tail feeds the daemon, locsched-agents --no-jobs runs the
# tasks on the emulated machines) and collects job completion time (mean, p95) and
# locality side by side:
#   OUT.jsonl  one line per run: trace, policy, settings, run, load average, the
#              emulator's and the tailer's JSON summaries, and the daemon's final
#              rebalance and lp status (runs, solves)
#   OUT.png    the chart (bench/plot_policy_replay.py)
# OUT is docs/figures/policy-replay (swim) or docs/figures/policy-replay-TRACE.
# Usage: bash bench/policy_replay.sh [--trace swim|jobhistory|rumen|google] [--policies LIST]
#          [--runs R] [--first-run F] [--hour H] [--speed N] [--machines M]
#          [--set KEY=VALUE]... [--build DIR] [--out OUT]
# A policy is a scheduler.policy (fifo, fair, delay, jsq-maxweight, late-binding, ...),
# optionally with variants appended: +rebalance sets rebalance.enabled = true, +lp sets
# scheduler.machine_queue_order = priority (late-binding: scheduler.job_order = lp) with
# lp.enabled = true (the backlog LP's job order).
# The default list is fifo,fair,delay,jsq-maxweight,jsq-maxweight+rebalance,
# jsq-maxweight+lp,jsq-maxweight+rebalance+lp. --set adds a daemon setting to every row;
# --hour (swim only), --speed and --machines go to tools/replay.sh (see its --help for
# each trace's defaults). Run r seeds the emulator's task durations with r. Runs are
# numbered from F (default 1); with F > 1 the results are appended to OUT.jsonl
# instead of replacing it. A swim row takes one to two minutes. Needs the binaries in
# --build (default build/release: bash tools/build.sh release), ../shared/data/traces
# and python3-matplotlib for the chart.
set -euo pipefail
cd "$(dirname "$0")/.."
trace=swim
policies=fifo,fair,delay,jsq-maxweight,jsq-maxweight+rebalance,jsq-maxweight+lp,jsq-maxweight+rebalance+lp
runs=1
first=1
hour=1
speed=60
machines=
build=build/release
out=
common=()
while [ $# -gt 0 ]; do
  case "$1" in
    --trace) trace=$2; shift 2 ;;
    --policies) policies=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --first-run) first=$2; shift 2 ;;
    --hour) hour=$2; shift 2 ;;
    --speed) speed=$2; shift 2 ;;
    --machines) machines=$2; shift 2 ;;
    --set) common+=("$2"); shift 2 ;;
    --build) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "policy_replay.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
# The real traces, read in place (tools/fetch-traces.sh fetches the same files elsewhere).
traces=../shared/data/traces
case "$trace" in
  swim) file=swim-fb/FB-2009_samples_24_times_1hr_1.tsv ;;
  jobhistory) file=hadoop-rumen/sample-job-tracker-logs.gz ;;
  rumen) file=hadoop-rumen/input-trace.json ;;
  google) file=google-clusterdata-2011-2/job_events/part-00001-of-00500.csv.gz ;;
  *) echo "policy_replay.sh: --trace: '$trace' is not swim, jobhistory, rumen or google" >&2; exit 2 ;;
esac
if [ ! -r "$traces/$file" ]; then
  echo "policy_replay.sh: skipped: $traces/$file is absent (the benchmark replays the public traces)" >&2
  exit 0
fi
[ -x "$build/tools/locsched-agents" ] ||
  { echo "policy_replay.sh: no binaries in $build: bash tools/build.sh release" >&2; exit 1; }
if [ -z "$out" ]; then
  out=docs/figures/policy-replay
  [ "$trace" = swim ] || out=$out-$trace
fi

# row_settings POLICY: the daemon settings of one row, one KEY=VALUE a line.
row_settings() {
  local base=${1%%+*} variant
  echo "scheduler.policy=$base"
  [ "$base" = "$1" ] && return 0
  for variant in $(tr '+' ' ' <<<"${1#*+}"); do
    case "$variant" in
      rebalance) echo rebalance.enabled=true ;;
      lp) # late binding orders jobs by the LP's ranks; the queue policies serve by them
        if [ "$base" = late-binding ]; then echo scheduler.job_order=lp
        else echo scheduler.machine_queue_order=priority; fi
        echo lp.enabled=true ;;
      *) echo "policy_replay.sh: --policies: '$1': variant '$variant' is not rebalance or lp" >&2
         return 2 ;;
    esac
  done
}
for policy in ${policies//,/ }; do row_settings "$policy" >/dev/null || exit 2; done

mkdir -p "$(dirname "$out")"
tmp=$(mktemp -d /tmp/locsched-policy-replay-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
if [ "$first" -eq 1 ]; then : >"$out.jsonl"; fi
replay=(--build "$build" --format "$trace" --trace "$traces/$file" --speed "$speed" --quiet --json "$tmp/r")
[ "$trace" = swim ] && replay+=(--hour "$hour")
[ -n "$machines" ] && replay+=(--machines "$machines")
for run in $(seq "$first" $((first + runs - 1))); do
  for policy in ${policies//,/ }; do
    echo "== $trace, run $run, $policy" >&2
    mapfile -t settings < <(row_settings "$policy")
    settings+=(${common[@]+"${common[@]}"})
    sets=()
    for kv in "${settings[@]}"; do sets+=(--set "$kv"); done
    load_before=$(cut -d' ' -f1-3 /proc/loadavg)
    bash tools/replay.sh "${replay[@]}" "${sets[@]}" -- --seed "$run" >"$tmp/log" 2>&1 ||
      { cat "$tmp/log" >&2; exit 1; }
    python3 - "$trace" "$policy" "$run" "$hour" "$speed" "$load_before" \
      "$(cut -d' ' -f1-3 /proc/loadavg)" "$tmp/r" "${settings[@]}" >>"$out.jsonl" <<'PY'
import json, sys
trace, policy, run, hour, speed, before, after, r = sys.argv[1:9]
status = json.load(open(r + ".status"))
row = {"trace": trace, "policy": policy, "settings": sys.argv[9:], "run": int(run),
       "speed": float(speed), "loadavg_before": before, "loadavg_after": after,
       "agents": json.load(open(r + ".agents")), "tail": json.load(open(r + ".tail")),
       "status": {k: status.get(k) for k in ("rebalance", "lp")}}
if trace == "swim":
    row["hour"] = int(hour)
print(json.dumps(row))
PY
    tail -n 1 "$out.jsonl" | python3 -c '
import json, sys
d = json.loads(sys.stdin.read()); a = d["agents"]
print("   jobs %d, mean JCT %.1f s, p95 %.1f s, locality %.1f%%, %.0f wall s, max lag %.2f s" % (
      a["foreign_jobs_done"], a["foreign_mean_job_delay"], a["foreign_p95_job_delay"],
      100 * a["all_locality"], a["wall_seconds"], a["max_lag"]))' >&2
  done
done
# The chart needs matplotlib: python3 on PATH, else the system one; without it the rows stand.
for py in python3 /usr/bin/python3; do
  if "$py" -c 'import matplotlib' 2>/dev/null; then
    exec "$py" bench/plot_policy_replay.py "$out.jsonl" "$out.png"
  fi
done
echo "policy_replay.sh: no python3 with matplotlib: $out.jsonl is written, the chart is not" >&2
