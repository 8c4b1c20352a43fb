#!/usr/bin/env bash
# The README's run command: installs what is missing, builds (Release) and replays an
# hour of MapReduce jobs through the daemon (tools/replay.sh): locschedd on temporary
# sockets, locsched-tail feeding a synthesized SWIM-style trace shaped like Facebook's
# 2009 workload (tools/synth/swim_synth.py; nothing outside the repository is needed)
# and the cluster emulator locsched-agents playing 600 machines that run what the daemon
# assigns, 60x faster than real time; live lines and final figures (jobs done, mean and
# p95 job completion time, locality, queues), then locschedctl's view of the daemon.
#   bash tools/demo.sh              the synthesized hour (about a minute after the build)
#   bash tools/demo.sh --quick      ten synthesized minutes (about 20 s)
#   bash tools/demo.sh --trace FILE a real trace (bash tools/fetch-traces.sh DIR fetches
#                                   the public ones; --format for non-SWIM files)
#   bash tools/demo.sh --synthetic  the emulator's own Poisson job stream on 1000 machines
#   bash tools/demo.sh --sim        the simulator instead: JSQ+MaxWeight vs fair sharing
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
  echo "== JSQ+MaxWeight, paper defaults (1000 machines, data on 800, alpha 0.8, gamma 0.2, load 640)"
  "$bin/tools/locsched-sim" "$@"
  echo "== naive fair sharing, same load (it cannot keep up: the run stops at the backlog cap)"
  "$bin/tools/locsched-sim" --policy fair "$@"
  exit 0
fi

if [ "${1:-}" != "--synthetic" ]; then
  bash tools/replay.sh --build "$bin" "$@"
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
echo "== locschedctl queues --top 5"
"$bin/tools/locschedctl" --socket "$dir/control.sock" queues --top 5
