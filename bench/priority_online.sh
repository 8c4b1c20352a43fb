#!/usr/bin/env bash
# LP priority, online: the `priority` intra-queue policy (the backlog LP's job order) against
# `fair` and `fifo` under JSQ+MaxWeight at 60, 70, 80 and 90% of capacity, once in the
# simulator and once through the daemon (locschedd + the emulator locsched-agents).
# Same workload in both: 100 machines (80 hold data, 3 replicas), alpha 0.8, gamma 0.2,
# geometric job sizes with mean 20 tasks, weights uniform on 1..10, seed 1.
# Two routings, each for all three policies: `paper` (JSQ as Wang et al., ties at random)
# and `biased` (remote_bias 2, and priority_slack 5 for priority; docs/algorithms.md).
#   docs/figures/priority-sim.jsonl     one locsched-sim --json line per (routing, intra, load)
#   docs/figures/priority-daemon.jsonl  one line per (routing, intra, load): the emulator's
#                                       summary, the daemon's final `lp` status, load averages
#   docs/figures/priority-online.png    the chart (bench/plot_priority.py)
# Usage: bash bench/priority_online.sh [sim|daemon|all] [--build DIR] [--speed N] [--duration S]
#                                      [--routing paper|biased|both]
# A run replaces only the lines of the routings it runs. The daemon runs take about
# (duration / speed + drain) wall seconds each, 12 per routing.
set -euo pipefail
cd "$(dirname "$0")/.."
what=all
build=build/release
speed=2
duration=120
routing=both
while [ $# -gt 0 ]; do
  case "$1" in
    sim|daemon|all) what=$1; shift ;;
    --build) build=$2; shift 2 ;;
    --speed) speed=$2; shift 2 ;;
    --duration) duration=$2; shift 2 ;;
    --routing) routing=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "priority_online.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ -x "$build/tools/locsched-sim" ] ||
  { echo "priority_online.sh: no binaries in $build: bash tools/build.sh release" >&2; exit 1; }
case $routing in
  both) routings=(biased paper) ;;
  paper|biased) routings=("$routing") ;;
  *) echo "priority_online.sh: --routing is paper, biased or both" >&2; exit 2 ;;
esac
mkdir -p docs/figures
capacity=68  # 80 x 0.8 + 20 x 0.2 tasks per slot (per emulated second)
pcts=(60 70 80 90)
intras=(fifo fair priority)
workload=(--machines 100 --job-size-mean 20 --weight-max 10 --seed 1)

# The routing knobs of one (routing, intra) pair, as "BIAS SLACK".
knobs() {  # knobs ROUTING INTRA
  if [ "$1" = paper ]; then echo "0 0"
  elif [ "$2" = priority ]; then echo "2 5"
  else echo "2 0"; fi
}

# Drops the lines of the routings about to run from a results file (lines without
# remote_bias are paper routing's).
keep_other_routings() {  # keep_other_routings FILE
  [ -f "$1" ] || { : >"$1"; return; }
  python3 - "$1" "${routings[@]}" <<'PY'
import json, sys
path, runs = sys.argv[1], set(sys.argv[2:])
def routing(d):
    bias = d.get("remote_bias", (d.get("agents") or {}).get("remote_bias", 0))
    return d.get("routing", "paper" if not bias else "biased")
lines = [l for l in open(path) if l.strip() and routing(json.loads(l)) not in runs]
open(path, "w").writelines(lines)
PY
}

run_sim() {
  local out=docs/figures/priority-sim.jsonl loads bias slack
  loads=$(for p in "${pcts[@]}"; do awk "BEGIN { printf \"%g,\", $capacity * $p / 100 }"; done)
  keep_other_routings "$out"
  for r in "${routings[@]}"; do
    for intra in "${intras[@]}"; do
      read -r bias slack <<<"$(knobs "$r" "$intra")"
      echo "== simulator, $r routing, $intra" >&2
      nice -n 19 "$build/tools/locsched-sim" "${workload[@]}" --data-machines 80 \
        --job-size-dist geometric --slots 10000 --intra "$intra" --lp-interval 1 \
        --remote-bias "$bias" --priority-slack "$slack" \
        --sweep "${loads%,}" --threads 1 --json -q >>"$out"
    done
  done
}

# One daemon run: a fresh locschedd, the emulator submitting and running the jobs until
# every task is done, then the daemon's `lp` status.
run_daemon_point() {  # run_daemon_point ROUTING INTRA PCT TMP OUT
  local routing=$1 intra=$2 pct=$3 tmp=$4 out=$5 load lp=false before bias slack
  load=$(awk "BEGIN { print $capacity * $pct / 100 }")
  read -r bias slack <<<"$(knobs "$routing" "$intra")"
  [ "$intra" = priority ] && lp=true
  before=$(cut -d' ' -f1-3 /proc/loadavg)
  daemon_start "$build/daemon/locschedd" "$tmp" --set scheduler.policy=jsq-maxweight \
    --set "scheduler.machine_queue_order=$intra" --set scheduler.learn_rates=false \
    --set "scheduler.alpha=$(awk "BEGIN { print 0.8 * $speed }")" \
    --set "scheduler.gamma=$(awk "BEGIN { print 0.2 * $speed }")" \
    --set "lp.enabled=$lp" --set lp.base_interval_s=1 --set lp.max_interval_s=1 \
    --set lp.growth=1 --set "scheduler.remote_bias=$bias" --set "scheduler.priority_slack=$slack"
  "$build/tools/locsched-agents" --socket "$tmp/ev.sock" "${workload[@]}" --data-machines 0.8 \
    --load "$load" --speed "$speed" --duration "$duration" --drain --json -q >"$tmp/agents.json"
  daemon_status "$tmp" >"$tmp/status.json"
  daemon_stop
  python3 - "$intra" "$pct" "$speed" "$before" "$(cut -d' ' -f1-3 /proc/loadavg)" \
    "$tmp/agents.json" "$tmp/status.json" "$routing" "$bias" "$slack" >>"$out" <<'PY'
import json, sys
intra, pct, speed, before, after, agents, status, routing, bias, slack = sys.argv[1:]
print(json.dumps({"routing": routing, "remote_bias": int(bias), "priority_slack": int(slack),
                  "intra": intra, "load_pct": int(pct), "speed": float(speed),
                  "loadavg_before": before, "loadavg_after": after,
                  "agents": json.load(open(agents)), "lp": json.load(open(status)).get("lp")}))
PY
  tail -n 1 "$out" | python3 -c '
import json, sys
d = json.loads(sys.stdin.read()); a = d["agents"]
print("   %s, %s routing, at %d%%: weighted JCT %.2f, JCT %.2f, %.2f tasks/s while jobs arrive, %d jobs, LP solves %s" % (
      d["intra"], d["routing"], d["load_pct"], a["weighted_mean_job_delay"], a["mean_job_delay"],
      a["arrival_tasks_per_second"], a["jobs_done"], (d["lp"] or {}).get("solves")))' >&2
}

daemon_tmp=""  # global: the EXIT trap runs after run_daemon has returned
run_daemon() {
  local out=docs/figures/priority-daemon.jsonl
  daemon_tmp=$(mktemp -d /tmp/locsched-priority-XXXXXX)
  # shellcheck source=bench/daemon_lib.sh
  source bench/daemon_lib.sh
  trap 'daemon_stop; rm -rf "$daemon_tmp"' EXIT
  keep_other_routings "$out"
  for r in "${routings[@]}"; do
    for pct in "${pcts[@]}"; do
      for intra in "${intras[@]}"; do
        echo "== daemon, $r routing, $intra at $pct%" >&2
        run_daemon_point "$r" "$intra" "$pct" "$daemon_tmp" "$out"
      done
    done
  done
}

case $what in
  sim) run_sim ;;
  daemon) run_daemon ;;
  all) run_sim; run_daemon ;;
esac
python3 bench/plot_priority.py docs/figures/priority-sim.jsonl \
  docs/figures/priority-daemon.jsonl docs/figures/priority-online.png
