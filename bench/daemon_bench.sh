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
# Environment: BUILD_DIR (default build/release), JOBS (build jobs, default nproc),
# BENCH_SECONDS (measured window, default 10), BENCH_WINDOW (requests in flight,
# default 128), BENCH_QUEUED (default 100000), BENCH_OUT (JSON path).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build/release}
seconds=${BENCH_SECONDS:-10}
window=${BENCH_WINDOW:-128}
queued=${BENCH_QUEUED:-100000}
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

start_daemon() {
  "$daemon" --set "sockets.event_path=$tmp/ev.sock" --set "sockets.control_path=$tmp/ctl.sock" \
    --set log.level=warn --set log.target=stderr 2>"$tmp/server.log" &
  server_pid=$!
  wait_for "$tmp/ev.sock"
}

cut -d' ' -f1-3 /proc/loadavg >"$tmp/loadavg"  # other work on the machine skews every figure
"$echo_server" --socket "$tmp/echo.sock" 2>"$tmp/server.log" &
server_pid=$!
wait_for "$tmp/echo.sock"
load echo "$window" --socket "$tmp/echo.sock" --echo --machines 1000 --pid "$server_pid"
stop_server

for machines in 1000 10000; do
  start_daemon
  load "daemon-$machines" "$window" --socket "$tmp/ev.sock" --machines "$machines" \
    --pid "$server_pid"
  stop_server
done
start_daemon
load daemon-1000-w8 8 --socket "$tmp/ev.sock" --machines 1000 --pid "$server_pid"
stop_server

/usr/bin/python3 - "$tmp" "$out" "$seconds" "$window" <<'EOF'
import json, os, platform, subprocess, sys
tmp, out, seconds, window = sys.argv[1:5]
runs = {name: json.load(open(os.path.join(tmp, name + ".json")))
        for name in ("echo", "daemon-1000", "daemon-10000", "daemon-1000-w8")}
ceiling = runs["echo"]["replies_per_second"]
model = [l.split(":", 1)[1].strip() for l in subprocess.run(
    ["lscpu"], capture_output=True, text=True).stdout.splitlines() if l.startswith("Model name")]
machine = {"nproc": os.cpu_count(), "cpu": model[0] if model else "", "kernel": platform.release(),
           "loadavg_before": open(os.path.join(tmp, "loadavg")).read().split(),
           "loadavg_after": open("/proc/loadavg").read().split()[:3]}
print("| server | machines | in flight | events/s | p50 µs | p99 µs | p99.9 µs | ratio to echo "
      "| bytes/queued task | CPU cores: server / loadgen |")
print("|---|---|---|---|---|---|---|---|---|---|")
for name, r in runs.items():
    lat = r["heartbeat_latency_us"]
    per_task = None if r["mode"] == "echo" else r["setup"].get("bytes_per_queued_task")
    cpu = r["cpu_cores"]
    print("| %s | %d | %d | %.0f | %.0f | %.0f | %.0f | %.2f | %s | %s / %.2f |" % (
        "locsched-echo" if r["mode"] == "echo" else "locschedd", r["machines"], r["window"],
        r["replies_per_second"], lat["p50"], lat["p99"], lat["p999"],
        r["replies_per_second"] / ceiling, "-" if per_task is None else "%.0f" % per_task,
        "-" if "daemon" not in cpu else "%.2f" % cpu["daemon"], cpu["loadgen"]))
os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
with open(out, "w") as f:
    json.dump({"machine": machine, "seconds": float(seconds), "window": int(window),
               "runs": runs}, f, indent=1)
    f.write("\n")
print("\nload average before / after: %s / %s; raw JSON: %s" % (
    " ".join(machine["loadavg_before"]), " ".join(machine["loadavg_after"]), out))
EOF
