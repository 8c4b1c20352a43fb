#!/usr/bin/env bash
# The daemon's socket benchmark (docs/benchmarks.md, "locschedd over its socket"):
# builds locschedd, locsched-echo and locsched-loadgen (Release), measures the echo
# ceiling, then a fresh locschedd at 1,000 and at 10,000 machines with 100,000
# queued tasks, all in one run. Prints a Markdown table and writes the raw JSON to
# docs/figures/daemon_bench.json.
#
# A last run at 1,000 machines keeps only 8 requests in flight, to show the
# latency of a lightly loaded daemon (with 128 in flight, latency is mostly the
# wait behind the other 127).
#
# The echo ceiling moves a lot on this VM (0.5M to 3.3M replies/s between runs
# minutes apart, and by a third within a minute), so echo and the daemon rows run
# interleaved for BENCH_ROUNDS rounds, with an echo run before and after every
# daemon row (the baseline's rows too): each daemon figure is divided by the mean
# of the two echo figures that bracket it, and the table gives the medians.
#
# Environment: BUILD_DIR (default build/release), JOBS (build jobs, default nproc),
# BENCH_SECONDS (measured window, default 10), BENCH_WINDOW (requests in flight,
# default 128), BENCH_QUEUED (default 100000), BENCH_ROUNDS (default 3),
# BENCH_OUT (JSON path), BENCH_BASELINE (another locschedd binary, e.g. main's
# before a change: its two rows run in the same rounds, after this build's),
# BENCH_BASELINE_ARGS (flags for the baseline, e.g. "--set scheduler.policy=jsq-maxweight"
# with BENCH_BASELINE=build/release/daemon/locschedd: another policy, same binary),
# BENCH_BUILD (0: use the binaries already in BUILD_DIR, build nothing).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build/release}
seconds=${BENCH_SECONDS:-10}
window=${BENCH_WINDOW:-128}
queued=${BENCH_QUEUED:-100000}
rounds=${BENCH_ROUNDS:-3}
baseline=${BENCH_BASELINE:-}
out=${BENCH_OUT:-docs/figures/daemon_bench.json}

if [[ ${BENCH_BUILD:-1} != 0 ]]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" -j "${JOBS:-$(nproc)}" --target locschedd locsched-echo locsched-loadgen
fi
daemon=$build/daemon/locschedd
echo_server=$build/bench/locsched-echo
loadgen=$build/bench/locsched-loadgen

# shellcheck source=bench/daemon_lib.sh
source bench/daemon_lib.sh
tmp=$(mktemp -d /tmp/locsched-bench-XXXXXX)
echo_pid=""
cleanup() {
  daemon_stop
  if [[ -n $echo_pid ]]; then kill "$echo_pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

load() {  # load NAME WINDOW [loadgen flags...]
  local name=$1 w=$2
  shift 2
  echo "== $name" >&2
  "$loadgen" --seconds "$seconds" --window "$w" --queued "$queued" "$@" >"$tmp/$name.json"
}

echo_run() {  # echo_run NAME: one measurement of the echo ceiling
  "$echo_server" --socket "$tmp/echo.sock" 2>"$tmp/echo.log" &
  echo_pid=$!
  for _ in $(seq 200); do
    [[ -S $tmp/echo.sock ]] && break
    kill -0 "$echo_pid" 2>/dev/null || { echo "locsched-echo exited; its log:" >&2; cat "$tmp/echo.log" >&2; exit 1; }
    sleep 0.05
  done
  load "$1" "$window" --socket "$tmp/echo.sock" --echo --machines 1000 --pid "$echo_pid"
  kill "$echo_pid"
  wait "$echo_pid" || true
  echo_pid=""
  rm -f "$tmp/echo.sock"
  echo "$1" >>"$tmp/order"
}

daemon_run() {  # daemon_run NAME MACHINES WINDOW [BINARY [FLAGS...]]
  local name=$1 machines=$2 w=$3 bin=${4:-$daemon}
  shift $(($# < 4 ? $# : 4))
  daemon_start "$bin" "$tmp" "$@"
  load "$name" "$w" --socket "$tmp/ev.sock" --machines "$machines" --pid "$DAEMON_PID"
  daemon_stop
  echo "$name" >>"$tmp/order"
}

cut -d' ' -f1-3 /proc/loadavg >"$tmp/loadavg"  # other work on the machine skews every figure
# Each daemon row (and the baseline's) sits between two echo runs.
echo_run echo.0
for round in $(seq "$rounds"); do
  for machines in 1000 10000; do
    daemon_run "daemon-$machines.$round" "$machines" "$window"
    # shellcheck disable=SC2086 # BENCH_BASELINE_ARGS is a list of flags
    [[ -z $baseline ]] || daemon_run "baseline-$machines.$round" "$machines" "$window" "$baseline" \
      ${BENCH_BASELINE_ARGS:-}
    echo_run "echo.$round.$machines"
  done
done
daemon_run daemon-1000-w8 1000 8
echo_run echo.w8

python3 - "$tmp" "$out" "$seconds" "$window" "$rounds" <<'EOF'
import json, os, platform, statistics, subprocess, sys
tmp, out, seconds, window, rounds = sys.argv[1:6]
load = lambda name: json.load(open(os.path.join(tmp, name + ".json")))
order = open(os.path.join(tmp, "order")).read().split()
rate = {name: load(name)["replies_per_second"] for name in order}
is_echo = lambda name: name.startswith("echo")


def ceiling(i):
    """The mean of the echo runs just before and just after run i of `order`."""
    before = [rate[n] for n in order[:i] if is_echo(n)][-1:]
    after = [rate[n] for n in order[i + 1:] if is_echo(n)][:1]
    return statistics.mean(before + after)


# A row's runs are its rounds, in the order they ran.
row_of = lambda name: "echo" if is_echo(name) else name.split(".")[0]
series, ratios = {}, {}
for i, name in enumerate(order):
    series.setdefault(row_of(name), []).append(load(name))
    ratios.setdefault(row_of(name), []).append(1.0 if is_echo(name) else rate[name] / ceiling(i))
rows = ["echo", "daemon-1000", "daemon-10000", "daemon-1000-w8"]
if "baseline-1000" in series:
    rows[2:2] = ["baseline-1000"]
    rows[4:4] = ["baseline-10000"]
model = [l.split(":", 1)[1].strip() for l in subprocess.run(
    ["lscpu"], capture_output=True, text=True).stdout.splitlines() if l.startswith("Model name")]
machine = {"nproc": os.cpu_count(), "cpu": model[0] if model else "", "kernel": platform.release(),
           "loadavg_before": open(os.path.join(tmp, "loadavg")).read().split(),
           "loadavg_after": open("/proc/loadavg").read().split()[:3]}
med = statistics.median
print("| server | machines | in flight | events/s: median (each run) | p50 µs | p99 µs "
      "| p99.9 µs | ratio to the echo runs around it: median (each run) | bytes/queued task "
      "| CPU cores: server / loadgen |")
print("|---|---|---|---|---|---|---|---|---|---|")
for name in rows:
    runs = series[name]
    rates = [r["replies_per_second"] for r in runs]
    lat = lambda key: med(r["heartbeat_latency_us"][key] for r in runs)
    first = runs[0]
    per_task = None if first["mode"] == "echo" else med(
        r["setup"].get("bytes_per_queued_task") for r in runs)
    cpu_d = [r["cpu_cores"].get("daemon") for r in runs]
    server = "locsched-echo" if first["mode"] == "echo" else "locschedd"
    print("| %s | %d | %d | %.0f (%s) | %.0f | %.0f | %.0f | %.2f (%s) | %s | %s / %.2f |" % (
        "baseline " + server if name.startswith("baseline") else server, first["machines"],
        first["window"], med(rates), ", ".join("%.0fk" % (x / 1000) for x in rates),
        lat("p50"), lat("p99"), lat("p999"), med(ratios[name]),
        ", ".join("%.2f" % x for x in ratios[name]), "-" if per_task is None else "%.0f" % per_task,
        "-" if cpu_d[0] is None else "%.2f" % med(cpu_d),
        med(r["cpu_cores"]["loadgen"] for r in runs)))
os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
with open(out, "w") as f:
    json.dump({"machine": machine, "seconds": float(seconds), "window": int(window),
               "rounds": int(rounds), "order": order,
               "ratios": {name: ratios[name] for name in rows},
               "runs": {name: series[name] for name in rows}}, f, indent=1)
    f.write("\n")
print("\nload average before / after: %s / %s; raw JSON: %s" % (
    " ".join(machine["loadavg_before"]), " ".join(machine["loadavg_after"]), out))
EOF
