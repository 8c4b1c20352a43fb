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
# minutes apart), so echo and the two daemon rows run interleaved for
# BENCH_ROUNDS rounds: each round's daemon figure is divided by the same
# round's echo figure, and the table gives the medians.
#
# Environment: BUILD_DIR (default build/release), JOBS (build jobs, default nproc),
# BENCH_SECONDS (measured window, default 10), BENCH_WINDOW (requests in flight,
# default 128), BENCH_QUEUED (default 100000), BENCH_ROUNDS (default 3),
# BENCH_OUT (JSON path), BENCH_BASELINE (another locschedd binary, e.g. main's
# before a change: its two rows run in the same rounds, after this build's).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build/release}
seconds=${BENCH_SECONDS:-10}
window=${BENCH_WINDOW:-128}
queued=${BENCH_QUEUED:-100000}
rounds=${BENCH_ROUNDS:-3}
baseline=${BENCH_BASELINE:-}
out=${BENCH_OUT:-docs/figures/daemon_bench.json}

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j "${JOBS:-$(nproc)}" --target locschedd locsched-echo locsched-loadgen
daemon=$build/daemon/locschedd
echo_server=$build/bench/locsched-echo
loadgen=$build/bench/locsched-loadgen

tmp=$(mktemp -d /tmp/locsched-bench-XXXXXX)
server_pid=""
cleanup() {
  if [[ -n $server_pid ]]; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

# Waits until the socket file $1 exists (the server is listening).
wait_for() {
  for _ in $(seq 200); do
    [[ -S $1 ]] && return 0
    kill -0 "$server_pid" 2>/dev/null || { echo "server died; its log:" >&2; cat "$tmp/server.log" >&2; exit 1; }
    sleep 0.05
  done
  echo "no socket at $1 after 10 s" >&2
  exit 1
}

stop_server() {
  kill "$server_pid"
  wait "$server_pid" || true
  server_pid=""
}

load() {  # load NAME WINDOW [loadgen flags...]
  local name=$1 w=$2
  shift 2
  echo "== $name" >&2
  "$loadgen" --seconds "$seconds" --window "$w" --queued "$queued" "$@" >"$tmp/$name.json"
}

start_daemon() {  # start_daemon [BINARY]
  "${1:-$daemon}" --set "sockets.event_path=$tmp/ev.sock" --set "sockets.control_path=$tmp/ctl.sock" \
    --set log.level=warn --set log.target=stderr 2>"$tmp/server.log" &
  server_pid=$!
  wait_for "$tmp/ev.sock"
}

cut -d' ' -f1-3 /proc/loadavg >"$tmp/loadavg"  # other work on the machine skews every figure
for round in $(seq "$rounds"); do
  "$echo_server" --socket "$tmp/echo.sock" 2>"$tmp/server.log" &
  server_pid=$!
  wait_for "$tmp/echo.sock"
  load "echo.$round" "$window" --socket "$tmp/echo.sock" --echo --machines 1000 --pid "$server_pid"
  stop_server
  for machines in 1000 10000; do
    start_daemon
    load "daemon-$machines.$round" "$window" --socket "$tmp/ev.sock" --machines "$machines" \
      --pid "$server_pid"
    stop_server
    [[ -n $baseline ]] || continue
    start_daemon "$baseline"
    load "baseline-$machines.$round" "$window" --socket "$tmp/ev.sock" --machines "$machines" \
      --pid "$server_pid"
    stop_server
  done
done
start_daemon
load daemon-1000-w8 8 --socket "$tmp/ev.sock" --machines 1000 --pid "$server_pid"
stop_server

/usr/bin/python3 - "$tmp" "$out" "$seconds" "$window" "$rounds" <<'EOF'
import json, os, platform, statistics, subprocess, sys
tmp, out, seconds, window, rounds = sys.argv[1:6]
rounds = int(rounds)
load = lambda name: json.load(open(os.path.join(tmp, name + ".json")))
names = ["echo", "daemon-1000", "daemon-10000"]
if os.path.exists(os.path.join(tmp, "baseline-1000.1.json")):
    names[2:2] = ["baseline-1000"]
    names += ["baseline-10000"]
series = {name: [load("%s.%d" % (name, r)) for r in range(1, rounds + 1)] for name in names}
series["daemon-1000-w8"] = [load("daemon-1000-w8")]
echo = [r["replies_per_second"] for r in series["echo"]]
model = [l.split(":", 1)[1].strip() for l in subprocess.run(
    ["lscpu"], capture_output=True, text=True).stdout.splitlines() if l.startswith("Model name")]
machine = {"nproc": os.cpu_count(), "cpu": model[0] if model else "", "kernel": platform.release(),
           "loadavg_before": open(os.path.join(tmp, "loadavg")).read().split(),
           "loadavg_after": open("/proc/loadavg").read().split()[:3]}
med = statistics.median
print("| server | machines | in flight | events/s: median (each round) | p50 µs | p99 µs "
      "| p99.9 µs | ratio to echo: median (each round) | bytes/queued task "
      "| CPU cores: server / loadgen |")
print("|---|---|---|---|---|---|---|---|---|---|")
for name, runs in series.items():
    rates = [r["replies_per_second"] for r in runs]
    # Each round's ratio divides by that round's echo; the w8 run follows the last round.
    ratios = [x / echo[i if len(runs) == rounds else rounds - 1] for i, x in enumerate(rates)]
    lat = lambda key: med(r["heartbeat_latency_us"][key] for r in runs)
    first = runs[0]
    per_task = None if first["mode"] == "echo" else med(
        r["setup"].get("bytes_per_queued_task") for r in runs)
    cpu_d = [r["cpu_cores"].get("daemon") for r in runs]
    server = "locsched-echo" if first["mode"] == "echo" else "locschedd"
    print("| %s | %d | %d | %.0f (%s) | %.0f | %.0f | %.0f | %.2f (%s) | %s | %s / %.2f |" % (
        "baseline " + server if name.startswith("baseline") else server, first["machines"],
        first["window"], med(rates), ", ".join("%.0fk" % (x / 1000) for x in rates),
        lat("p50"), lat("p99"), lat("p999"), med(ratios),
        ", ".join("%.2f" % x for x in ratios), "-" if per_task is None else "%.0f" % per_task,
        "-" if cpu_d[0] is None else "%.2f" % med(cpu_d),
        med(r["cpu_cores"]["loadgen"] for r in runs)))
os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
with open(out, "w") as f:
    json.dump({"machine": machine, "seconds": float(seconds), "window": int(window),
               "rounds": rounds, "runs": series}, f, indent=1)
    f.write("\n")
print("\nload average before / after: %s / %s; raw JSON: %s" % (
    " ".join(machine["loadavg_before"]), " ".join(machine["loadavg_after"]), out))
EOF
