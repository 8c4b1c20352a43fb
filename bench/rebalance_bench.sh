#!/usr/bin/env bash
# Rebalance in the daemon (docs/benchmarks.md, "Rebalance in the daemon"): a fresh
# locschedd at BENCH_MACHINES machines with BENCH_QUEUED queued tasks (3 replicas),
# driven by locsched-loadgen, once with automatic rebalances off (idle) and once
# with them on as often as rebalance.max_share allows. A poller reads `status`
# every 50 ms to record each run's figures. Prints heartbeat latency and the runs.
#
# Environment: BUILD_DIR (default build/dev), BENCH_SECONDS (default 10),
# BENCH_WINDOW (requests in flight, default 8), BENCH_QUEUED (default 100000),
# BENCH_MACHINES (default 10000), BENCH_SHARE (rebalance.max_share, default 0.5),
# BENCH_ROUNDS (idle/rebalance pairs, default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build/dev}
seconds=${BENCH_SECONDS:-10}
window=${BENCH_WINDOW:-8}
queued=${BENCH_QUEUED:-100000}
machines=${BENCH_MACHINES:-10000}
share=${BENCH_SHARE:-0.5}
rounds=${BENCH_ROUNDS:-2}
daemon=$build/daemon/locschedd
loadgen=$build/bench/locsched-loadgen

tmp=$(mktemp -d /tmp/locsched-rebal-XXXXXX)
source bench/daemon_lib.sh
cleanup() {
  daemon_stop
  rm -rf "$tmp"
}
trap cleanup EXIT

start_daemon() {  # start_daemon ENABLED
  daemon_start "$daemon" "$tmp" --set "rebalance.enabled=$1" \
    --set rebalance.base_interval_ms=100 --set "rebalance.max_share=$share" || exit 1
}

# Polls status on the control socket until the file $tmp/stop appears; writes the runs seen.
poll() {  # poll OUT
  python3 - "$tmp/ctl.sock" "$tmp/stop" "$1" <<'PY'
import json, os, socket, sys, time
path, stop, out = sys.argv[1:4]
s = socket.socket(socket.AF_UNIX); s.connect(path); f = s.makefile("rwb")
seen = {}
while not os.path.exists(stop):
    f.write(b'{"op":"status"}\n'); f.flush()
    r = json.loads(f.readline())
    rb = r["rebalance"]
    if rb["runs"] > 0:
        seen[rb["runs"]] = rb["last"]
    time.sleep(0.05)
json.dump(list(seen.values()), open(out, "w"))
PY
}

# With the load stopped (the backlog stays queued): three forced runs in a row;
# the first absorbs the last churn, the others see none.
quiet() {  # quiet OUT
  python3 - "$tmp/ctl.sock" "$1" <<'PY'
import json, socket, sys, time
path, out = sys.argv[1:3]
s = socket.socket(socket.AF_UNIX); s.connect(path); f = s.makefile("rwb")
def call(req):
    f.write((json.dumps(req) + "\n").encode()); f.flush()
    return json.loads(f.readline())
runs = []
for _ in range(3):
    while call({"op": "status"})["rebalance"]["running"]:
        time.sleep(0.01)
    before = call({"op": "status"})["rebalance"]["runs"]
    call({"op": "rebalance"})
    while call({"op": "status"})["rebalance"]["runs"] == before:
        time.sleep(0.01)
    runs.append(call({"op": "status"})["rebalance"]["last"])
json.dump(runs, open(out, "w"))
PY
}

cut -d' ' -f1-3 /proc/loadavg >"$tmp/loadavg"
for round in $(seq "$rounds"); do
  for mode in false true; do
    start_daemon "$mode"
    rm -f "$tmp/stop"
    poll "$tmp/runs-$mode-$round.json" &
    poller=$!
    "$loadgen" --socket "$tmp/ev.sock" --seconds "$seconds" --window "$window" \
      --queued "$queued" --machines "$machines" >"$tmp/load-$mode-$round.json"
    touch "$tmp/stop"
    wait "$poller"
    quiet "$tmp/quiet-$mode-$round.json"
    daemon_stop
  done
done

python3 - "$tmp" "$rounds" <<'PY'
import json, os, statistics, sys
tmp, rounds = sys.argv[1], int(sys.argv[2])
print("| round | rebalance | events/s | heartbeat p50 µs | p99 µs | p99.9 µs | runs seen | solve wall ms (median / max) | solve CPU ms (median) | loop ms (median / max) | moved / stale (median) | locality before → after (last) |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for r in range(1, rounds + 1):
    for mode in ("false", "true"):
        load = json.load(open(os.path.join(tmp, "load-%s-%d.json" % (mode, r))))
        runs = json.load(open(os.path.join(tmp, "runs-%s-%d.json" % (mode, r))))
        lat = load["heartbeat_latency_us"]
        if runs:
            solve = [x["solve_ms"] for x in runs]; loop = [x["loop_ms"] for x in runs]
            figs = "%d | %.1f / %.1f | %.1f | %.1f / %.1f | %d / %d | %.3f → %.3f" % (
                len(runs), statistics.median(solve), max(solve),
                statistics.median([x["solve_cpu_ms"] for x in runs]), statistics.median(loop), max(loop),
                statistics.median([x["moved"] for x in runs]),
                statistics.median([x["stale"] for x in runs]), runs[-1]["locality_before"],
                runs[-1]["locality_after"])
        else:
            figs = "0 | - | - | - | - | -"
        print("| %d | %s | %.0f | %.0f | %.0f | %.0f | %s |" % (
            r, "on" if mode == "true" else "off", load["replies_per_second"], lat["p50"], lat["p99"],
            lat["p999"], figs))
        quiet = json.load(open(os.path.join(tmp, "quiet-%s-%d.json" % (mode, r))))
        print("<!-- quiet forced runs after the load (solve wall/CPU/loop ms, backlog, moved): %s -->" % (
            ", ".join("%.1f/%.1f/%.1f %d %d" % (q["solve_ms"], q["solve_cpu_ms"], q["loop_ms"], q["backlog"], q["moved"])
                      for q in quiet)))
print("\nload average before / after: %s / %s" % (
    open(os.path.join(tmp, "loadavg")).read().strip(), " ".join(open("/proc/loadavg").read().split()[:3])))
PY
