#!/usr/bin/env bash
# The README's run command: installs what is missing, builds (Release) and replays an
# hour of MapReduce jobs through the daemon (tools/replay.sh): locschedd on temporary
# sockets, locsched-tail feeding a synthesized SWIM-style trace shaped like Facebook's
# 2009 workload (tools/synth/swim_synth.py; nothing outside the repository is needed)
# and the cluster emulator locsched-agents playing 600 machines that run what the daemon
# assigns, 60x faster than real time, under the default policy (late binding, srpt);
# live lines, then locschedctl's view of the daemon. Then the same workload and seed
# again under delay scheduling (its wait 20 s, fair order, quietly), and the two side by
# side: jobs done, mean and p95 job completion time, locality.
#   bash tools/demo.sh              the synthesized hour (about two minutes after the build)
#   bash tools/demo.sh --quick      ten synthesized minutes (about 20 s)
#   bash tools/demo.sh --trace FILE a real trace (bash tools/fetch-traces.sh DIR fetches
#                                   the public ones; --format for non-SWIM files)
#   bash tools/demo.sh --synthetic  the emulator's own Poisson job stream on 1000 machines
#   bash tools/demo.sh --sim        the simulator instead: late binding vs JSQ+MaxWeight, each
#                                   with its mean job delay's ratio to the run's lower bound
# Extra arguments go to tools/replay.sh (e.g. --policy fair; see its --help), or after
# --synthetic to locsched-agents, or after --sim to locsched-sim. With --build DIR the
# binaries in DIR are used and nothing is installed or built.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=
args=()
while [ $# -gt 0 ]; do
  if [ "$1" = --build ]; then bin=${2:?--build needs a folder}; shift 2
  else args+=("$1"); shift; fi
done
set -- ${args[@]+"${args[@]}"}
if [ -z "$bin" ]; then
  bash tools/install-deps.sh
  bash tools/build.sh release
  bin=build/release
fi

if [ "${1:-}" = "--sim" ]; then
  shift
  out=$(mktemp -d /tmp/locsched-demo-XXXXXX)
  trap 'rm -rf "$out"' EXIT
  echo "== late binding (the default), the paper's model (1000 machines, data on 800, alpha 0.8, gamma 0.2, load 640)"
  "$bin/tools/locsched-sim" --json "$@" >"$out/late-binding.json"
  echo "== JSQ+MaxWeight, the paper's policy, same load and seed"
  "$bin/tools/locsched-sim" --policy jsq-maxweight --json "$@" >"$out/jsq-maxweight.json"
  echo
  python3 - "$out/late-binding.json" "$out/jsq-maxweight.json" <<'PY'
import json, sys
print("== side by side (delays in slots); no schedule of the same draws has a mean job delay")
print("   below the bound (docs/simulator.md, \"Lower bound on mean JCT\")")
print("%-14s %8s %8s %10s %12s %10s %9s" % ("policy", "load", "stable", "locality", "mean delay",
                                            "bound", "x bound"))
for path in sys.argv[1:]:
    for line in open(path):
        r = json.loads(line)
        if r["mean_job_delay"] is None:
            print("%-14s %8.1f %8s   (stopped before its measurement window)" % (r["policy"], r["load"], "no"))
            continue
        ratio = r["mean_job_delay_over_bound"]
        print("%-14s %8.1f %8s %10.3f %12.2f %10.2f %9s" % (
            r["policy"], r["load"], "yes" if r["stable"] else "no", r["locality"], r["mean_job_delay"],
            r["lower_bound_mean_job_delay"], "%.2fx" % ratio if ratio is not None else "-"))
PY
  exit 0
fi

if [ "${1:-}" != "--synthetic" ]; then
  # Replay options before "--", the emulator's after it: delay's run goes between them.
  pre=() post=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do pre+=("$1"); shift; done
  [ $# -gt 0 ] && { shift; post=("$@"); }
  first=late-binding
  for ((i = 0; i + 1 < ${#pre[@]}; i++)); do [ "${pre[i]}" = --policy ] && first=${pre[i + 1]}; done
  out=$(mktemp -d /tmp/locsched-demo-XXXXXX)
  trap 'rm -rf "$out"' EXIT
  bash tools/replay.sh --build "$bin" ${pre[@]+"${pre[@]}"} --json "$out/first" -- ${post[@]+"${post[@]}"}
  echo
  echo "== the same workload and seed under delay scheduling (wait 20 s, fair order; quiet)"
  bash tools/replay.sh --build "$bin" ${pre[@]+"${pre[@]}"} --policy delay --quiet --json "$out/delay" \
    -- ${post[@]+"${post[@]}"} >"$out/delay.log" 2>&1 || { cat "$out/delay.log"; exit 1; }
  echo
  python3 - "$out/first.agents" "$first" "$out/delay.agents" delay <<'PY'
import json, sys
rows = [(sys.argv[i + 1], json.load(open(sys.argv[i]))) for i in (1, 3)]
print("== side by side: the same jobs on the same emulated cluster (times in emulated s)")
print("%-14s %10s %12s %12s %10s" % ("policy", "jobs done", "mean JCT", "p95 JCT", "locality"))
for name, a in rows:
    print("%-14s %10d %12.1f %12.1f %10.4f" % (name, a["foreign_jobs_done"], a["foreign_mean_job_delay"],
                                               a["foreign_p95_job_delay"], a["all_locality"]))
first, delay = rows[0][1], rows[1][1]
if delay["foreign_mean_job_delay"] > 0 and delay["foreign_p95_job_delay"] > 0:
    print("%s / delay: mean JCT %.2fx, p95 %.2fx" % (rows[0][0],
          first["foreign_mean_job_delay"] / delay["foreign_mean_job_delay"],
          first["foreign_p95_job_delay"] / delay["foreign_p95_job_delay"]))
PY
  case " $* " in
    *" --trace "*) ;;
    *) echo
       echo "== That was a synthesized workload. To replay a real one, fetch the public traces"
       echo "   (SHA-256 checked) and name a file:"
       echo "     bash tools/fetch-traces.sh ~/traces"
       echo "     bash tools/demo.sh --trace ~/traces/swim-fb/FB-2009_samples_24_times_1hr_0.tsv"
       echo "     bash tools/demo.sh --format jobhistory --trace ~/traces/hadoop-rumen/sample-job-tracker-logs.gz" ;;
  esac
  exit 0
fi
shift

# Emulated seconds per wall second. The daemon times tasks on the wall clock,
# so its rate prior is the emulator's alpha/gamma (0.8, 0.2) times the speed.
speed=20
dir=$(mktemp -d /tmp/locsched-demo-XXXXXX)
"$bin/daemon/locschedd" --set "sockets.event_path=$dir/events.sock" \
  --set "sockets.control_path=$dir/control.sock" --set log.target=stderr \
  --set "scheduler.alpha=$(awk "BEGIN { print 0.8 * $speed }")" \
  --set "scheduler.gamma=$(awk "BEGIN { print 0.2 * $speed }")" 2>"$dir/locschedd.log" &
daemon=$!
cleanup() {
  kill -TERM "$daemon" 2>/dev/null && wait "$daemon" 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT
for _ in $(seq 100); do [ -S "$dir/control.sock" ] && break; sleep 0.05; done
[ -S "$dir/control.sock" ] || { cat "$dir/locschedd.log"; exit 1; }

echo "== locschedd (JSQ+MaxWeight) and locsched-agents: 1000 machines, data on 800,"
echo "   alpha 0.8, gamma 0.2, 500 tasks/s (capacity 680), 500 emulated s at ${speed}x"
"$bin/tools/locsched-agents" --socket "$dir/events.sock" --machines 1000 --load 500 \
  --job-size-mean 30 --speed "$speed" --duration 500 --report 2 "$@"
echo
echo "== locschedctl status"
"$bin/tools/locschedctl" --socket "$dir/control.sock" status
echo
echo "== locschedctl machine-queues --top 5"
"$bin/tools/locschedctl" --socket "$dir/control.sock" machine-queues --top 5
