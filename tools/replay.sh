#!/usr/bin/env bash
# Replays a workload through locschedd, end to end: the daemon on temporary sockets,
# the cluster emulator locsched-agents (--no-jobs: it registers the machines, heartbeats
# and runs what the daemon assigns) and locsched-tail replaying the trace on an
# accelerated clock. By default the trace is synthesized first: an hour of SWIM-style
# jobs shaped like Facebook's 2009 workload (tools/synth/swim_synth.py), so nothing
# outside the repository is needed; --trace replays a real one (tools/fetch-traces.sh
# fetches the public traces). The emulator prints a live line (tasks done, locality,
# queues, jobs done, mean and p95 job completion time) and the final figures; then
# locschedctl shows the daemon's own view.
# Called by tools/demo.sh (the README's run command) and bench/policy_replay.sh; it does
# not build: the binaries come from --build (default build/release).
#
#   bash tools/replay.sh [options] [-- extra locsched-agents flags]
#     --build DIR       where the binaries are (default build/release)
#     --policy P        scheduler.policy: late-binding (default), jsq-maxweight, fair, fifo,
#                       delay, balanced-pandas, quincy; fair and delay rank jobs fair (Zaharia et
#                       al.'s), late-binding srpt with its aging bound of 300 workload seconds
#     --delay-wait S    delay policy: its wait in workload seconds (default 20); the daemon
#                       runs on the wall clock, so it gets scheduler.delay_wait = S / speed
#     --set KEY=VALUE   another locschedd setting (docs/config.md); may be repeated
#     --trace FILE      replay FILE instead of a synthesized trace
#     --format F        FILE's format: swim (default), jobhistory, rumen or google
#     --hour H          swim FILE: replay hour H of it, 0-23 (default 1)
#     --minutes M       the synthesized trace's span (default 60)
#     --synth-seed S    the synthesizer's seed (default 1: 254 jobs, 19,638 tasks an hour)
#     --quick           --minutes 10
#     --speed N         emulated seconds per wall second, for the tailer and the emulator (default 60)
#     --machines M      the cluster, m0..m(M-1) (default: 600, FB-2009's, for swim and google;
#                       3000, FB-2010's, for SWIM's with-input-paths format; for jobhistory
#                       and rumen the number of hosts the trace names)
#     --json FILE       write the emulator's and the tailer's summaries as JSON to FILE.agents
#                       and FILE.tail, the daemon's final status to FILE.status and, once
#                       it has stopped, its log to FILE.log (the live lines then go to stderr)
#     --quiet           no live lines
# The public traces (bash tools/fetch-traces.sh DIR) and their formats:
#   swim        DIR/swim-fb/FB-2009_samples_24_times_1hr_0.tsv (and _1)
#   jobhistory  DIR/hadoop-rumen/sample-job-tracker-logs.gz (SPLITS hosts)
#   rumen       DIR/hadoop-rumen/input-trace.json (preferredLocations hosts)
#   google      DIR/google-clusterdata-2011-2/job_events/part-00001-of-00500.csv.gz
# jobhistory and rumen name real replica hosts: the tailer renames them onto m0..m(M-1)
# (--map-hosts, first seen first; it stops with an error if they outnumber M); tasks
# without hosts (and every swim and google task) get three replicas placed by the
# tailer's seeded policy on m0..m(M-1). Task durations follow the emulator's model:
# Exp(alpha) if the task runs where a replica is, Exp(gamma) elsewhere, with alpha =
# 1/25 per s and gamma = alpha/4 (a 25 s map, 100 s remote), heartbeats every 3
# emulated s. Exits non-zero if any part fails, the daemon refuses a request, or a job
# the tailer sent is not done.
set -euo pipefail
cd "$(dirname "$0")/.."

build=build/release
policy=late-binding
delay_wait=20
format=swim
trace=
hour=1
minutes=60
synth_seed=1
speed=60
machines=
json=
quiet=
settings=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --policy) policy=$2; shift 2 ;;
    --delay-wait) delay_wait=$2; shift 2 ;;
    --set) settings+=(--set "$2"); shift 2 ;;
    --format) format=$2; shift 2 ;;
    --trace) trace=$2; shift 2 ;;
    --hour) hour=$2; shift 2 ;;
    --minutes) minutes=$2; shift 2 ;;
    --synth-seed) synth_seed=$2; shift 2 ;;
    --quick) minutes=10; shift ;;
    --speed) speed=$2; shift 2 ;;
    --machines) machines=$2; shift 2 ;;
    --json) json=$2; shift 2 ;;
    --quiet) quiet=-q; shift ;;
    --) shift; break ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "replay.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
map_hosts=()
case "$format" in
  swim | google) ;;
  jobhistory | rumen) map_hosts=(--map-hosts) ;;
  *) echo "replay.sh: --format: '$format' is not swim, jobhistory, rumen or google" >&2; exit 2 ;;
esac
if [ -z "$trace" ] && [ "$format" != swim ]; then
  echo "replay.sh: --format $format needs --trace FILE (bash tools/fetch-traces.sh DIR fetches the public traces)" >&2
  exit 2
fi
if [ -n "$trace" ] && [ ! -r "$trace" ]; then
  echo "replay.sh: cannot read $trace (bash tools/fetch-traces.sh DIR fetches the public traces)" >&2
  exit 2
fi

# The daemon runs on the wall clock: times in its settings are workload seconds / speed.
job_order=srpt
case "$policy" in fair | delay) job_order=fair ;; esac
alpha=$(awk 'BEGIN { print 1 / 25 }')
gamma=$(awk "BEGIN { print $alpha / 4 }")
dir=$(mktemp -d /tmp/locsched-replay-XXXXXX)
daemon=
agents=
cleanup() {
  [ -n "$agents" ] && kill -TERM "$agents" 2>/dev/null && wait "$agents" 2>/dev/null
  [ -n "$daemon" ] && kill -TERM "$daemon" 2>/dev/null && wait "$daemon" 2>/dev/null
  if [ -n "$json" ] && [ -f "$dir/locschedd.log" ]; then cp "$dir/locschedd.log" "$json.log"; fi
  rm -rf "$dir"
}
trap cleanup EXIT

# json_field FILE F: field F of the JSON object in FILE.
json_field() {
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"
}
if [ -z "$trace" ]; then
  input=$dir/synthetic.tsv
  python3 tools/synth/swim_synth.py --minutes "$minutes" --seed "$synth_seed" --out "$input"
  what="$minutes synthesized minutes of FB-2009-like jobs (seed $synth_seed)"
  duration=$(awk "BEGIN { printf \"%d\", $minutes * 60 + 60 }")
elif [ "$format" = swim ]; then
  # The hour, as its own SWIM file (the tailer replays from the first job's time).
  input=$dir/hour.tsv
  awk -F'\t' -v h="$hour" '$2 >= h * 3600 && $2 < (h + 1) * 3600' "$trace" >"$input"
  what="hour $hour of $(basename "$trace")"
  duration=3660  # the hour plus a minute of slack for the tailer's late start
else
  input=$trace
  what=$(basename "$trace")
fi
# What the trace holds (locsched-tail --check: counts, distinct hosts, span in seconds).
"$build/tools/locsched-tail" --format "$format" --check "$input" >"$dir/check.json"
check_field() { json_field "$dir/check.json" "$1"; }
if [ "$format" != swim ]; then
  # The trace's span plus slack: the tailer starts a moment after the emulator's clock.
  duration=$(awk "BEGIN { printf \"%d\", $(check_field span) + 60 + 2 * $speed }")
fi
if [ -z "$machines" ]; then
  machines=$(check_field machines)  # the tailer's default: 600, or 3000 for FB-2010's format
  if [ ${#map_hosts[@]} -gt 0 ]; then machines=$(check_field hosts); fi
fi
# What the tailer will send: the daemon must end with exactly these jobs done.
jobs=$(check_field submits)
tasks=$(check_field tasks)

# The daemon times tasks on the wall clock: its rate prior is the model's times the speed.
# Its rebalance and LP timers count workload seconds (scheduler.workload_speed).
"$build/daemon/locschedd" --set "sockets.event_path=$dir/events.sock" \
  --set "sockets.control_path=$dir/control.sock" --set log.target=stderr \
  --set "scheduler.policy=$policy" \
  --set "scheduler.alpha=$(awk "BEGIN { print $alpha * $speed }")" \
  --set "scheduler.gamma=$(awk "BEGIN { print $gamma * $speed }")" \
  --set "scheduler.delay_wait=$(awk "BEGIN { print $delay_wait / $speed }")" \
  --set "scheduler.job_aging=$(awk "BEGIN { print 300 / $speed }")" \
  --set "scheduler.job_order=$job_order" --set "scheduler.workload_speed=$speed" \
  ${settings[@]+"${settings[@]}"} \
  2>"$dir/locschedd.log" &
daemon=$!
for _ in $(seq 200); do [ -S "$dir/control.sock" ] && break; sleep 0.05; done
[ -S "$dir/control.sock" ] || { cat "$dir/locschedd.log" >&2; exit 1; }
ctl() { "$build/tools/locschedctl" --socket "$dir/control.sock" "$@"; }
# status_field A.B: that field of the daemon's status reply.
status_field() {
  ctl --json status | python3 -c '
import json, sys
d = json.load(sys.stdin)
for key in sys.argv[1].split("."):
    d = d[key]
print(d)' "$1"
}

echo "== $policy: $what ($jobs jobs, $tasks tasks) at ${speed}x"
echo "   on $machines machines, 1 slot each; a task lasts Exp(1/25 s) where a replica is, else Exp(1/100 s)"
# The emulator runs until the trace (plus slack for the tailer) is over and the daemon
# holds no task.
agents_flags=(--socket "$dir/events.sock" --no-jobs --machines "$machines" --data-machines 1
  --alpha "$alpha" --gamma "$gamma" --heartbeat 3 --speed "$speed" --duration "$duration" --drain
  --drain-limit 36000 --report 5)
[ -n "$quiet" ] && agents_flags+=(-q)
if [ -n "$json" ]; then  # the summary to the file, live lines to stderr
  "$build/tools/locsched-agents" "${agents_flags[@]}" --json "$@" >"$json.agents" &
else
  "$build/tools/locsched-agents" "${agents_flags[@]}" "$@" &
fi
agents=$!
# The tailer may send only once every machine is up (the daemon refuses unknown replicas).
for _ in $(seq 400); do
  [ "$(status_field machines.up)" -ge "$machines" ] && break
  kill -0 "$agents" 2>/dev/null || break
  sleep 0.05
done
tail_flags=(--format "$format" --machines "$machines" ${map_hosts[@]+"${map_hosts[@]}"}
  --socket "$dir/events.sock" --speed "$speed" -q --json)
tail_status=0
"$build/tools/locsched-tail" "${tail_flags[@]}" "$input" >"$dir/tail.out" 2>"$dir/tail.err" ||
  tail_status=$?
agents_status=0
wait "$agents" || agents_status=$?
agents=
echo "== locsched-tail"
cat "$dir/tail.out" "$dir/tail.err"
if [ -n "$json" ]; then
  cp "$dir/tail.out" "$json.tail"
  ctl --json status >"$json.status"
fi
echo
echo "== locschedctl status"
ctl status
echo
echo "== locschedctl machine-queues --top 5"
ctl machine-queues --top 5
live=$(status_field jobs.live)
done_jobs=$(status_field jobs.done)
echo
echo "== the tailer sent $jobs jobs; the daemon has $done_jobs done and $live live"
rejected=$(json_field "$dir/tail.out" rejected 2>/dev/null || echo unknown)
[ "$rejected" = 0 ] || [ "$rejected" = unknown ] || {
  echo "replay.sh: the daemon refused $rejected of the tailer's requests (see above; a replica on a machine the emulator does not play?)" >&2
  exit 1
}
[ "$tail_status" -eq 0 ] || { echo "replay.sh: locsched-tail failed ($tail_status)" >&2; exit 1; }
[ "$agents_status" -eq 0 ] || { echo "replay.sh: locsched-agents failed ($agents_status)" >&2; exit 1; }
[ "$live" = 0 ] && [ "$done_jobs" = "$jobs" ] || { echo "replay.sh: not every job the tailer sent is done" >&2; exit 1; }
