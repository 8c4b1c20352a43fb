#!/usr/bin/env bash
# The event loop's heartbeat latency while background solves run or HTTP clients read
# (docs/benchmarks.md, "Heartbeat latency during rebalances and LP solves" and "...while
# /metrics is scraped"): the target is that the p99 during rebalances stay within 1.2x
# of idle, and the same while the LP solves and while a scraper polls /metrics.
# Each round starts a fresh locschedd per mode, with BENCH_MACHINES machines and
# BENCH_QUEUED queued tasks (3 replicas), and drives it with locsched-loadgen. Modes
# run interleaved, round by round, so that drift on the machine hits all of them:
#   idle        JSQ+MaxWeight, intra fair; no rebalance, no LP
#   rebalance   as idle, plus rebalances as often as rebalance.max_share allows
#   prio-idle   intra priority, no LP (the order stays arrival order)
#   lp          intra priority, plus backlog-LP solves as often as lp.max_share allows
#   lp-nosolve  as lp, but no solve starts (the planner counts arrivals, nothing more)
#   scrape      as idle, plus the HTTP listener and a scraper reading GET /metrics every 100 ms
#   dashboard   as idle, plus what one open dashboard asks every second: /status, /machine-queues,
#               /machines (every machine) and /metrics
# A poller reads `status` every 200 ms to count the runs and solves and the event-loop
# time they took. Prints one Markdown row per run and the median p99 of each mode
# against its idle twin, and writes the raw rows to BENCH_OUT as JSON lines.
#
# Environment: BUILD_DIR (default build/release), BENCH_SECONDS (default 10),
# BENCH_WINDOW (requests in flight, default 8), BENCH_QUEUED (default 100000),
# BENCH_MACHINES (default 10000), BENCH_ROUNDS (default 3), BENCH_MODES (default
# "idle rebalance prio-idle lp"), BENCH_OUT (default docs/figures/loop_latency.jsonl).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build/release}
seconds=${BENCH_SECONDS:-10}
window=${BENCH_WINDOW:-8}
queued=${BENCH_QUEUED:-100000}
machines=${BENCH_MACHINES:-10000}
rounds=${BENCH_ROUNDS:-3}
modes=${BENCH_MODES:-idle rebalance prio-idle lp}
out=${BENCH_OUT:-docs/figures/loop_latency.jsonl}
daemon=$build/daemon/locschedd
loadgen=$build/bench/locsched-loadgen
for bin in "$daemon" "$loadgen"; do
  [[ -x $bin ]] || { echo "loop_latency_bench: $bin is missing; run: bash tools/build.sh release" >&2; exit 1; }
done

# shellcheck source=bench/daemon_lib.sh
source bench/daemon_lib.sh
tmp=$(mktemp -d /tmp/locsched-looplat-XXXXXX)
cleanup() {
  daemon_stop
  rm -rf "$tmp"
}
trap cleanup EXIT

settings() {  # settings MODE: the --set flags of one mode
  case "$1" in
    idle) echo "rebalance.enabled=false lp.enabled=false" ;;
    rebalance) echo "rebalance.enabled=true rebalance.base_interval_ms=100 lp.enabled=false" ;;
    prio-idle) echo "scheduler.machine_queue_order=priority rebalance.enabled=false lp.enabled=false" ;;
    lp) echo "scheduler.machine_queue_order=priority rebalance.enabled=false lp.enabled=true" \
      "lp.base_interval_s=1 lp.growth=1 lp.max_interval_s=1 lp.time_limit_ms=5000" ;;
    lp-nosolve) echo "scheduler.machine_queue_order=priority rebalance.enabled=false lp.enabled=true" \
      "lp.base_interval_s=3600 lp.max_interval_s=3600 lp.burst_tasks=1000000000" ;;
    scrape | dashboard) echo "rebalance.enabled=false lp.enabled=false http.listen=$http_port" ;;
    *) echo "loop_latency_bench: unknown mode '$1'" >&2; exit 2 ;;
  esac
}

start_daemon() {  # start_daemon MODE
  local flags=() kv
  for kv in $(settings "$1"); do flags+=(--set "$kv"); done
  daemon_start "$daemon" "$tmp" "${flags[@]}"
}

# Reads the HTTP listener until $tmp/stop appears, as a scraper (MODE scrape: /metrics
# every 100 ms) or an open dashboard (MODE dashboard: its four reads every second) would,
# on one keep-alive connection; writes the number of reads and their median and worst
# time in ms.
http_poll() {  # http_poll MODE OUT
  python3 - "$http_port" "$1" "$tmp/stop" "$2" <<'PY'
import http.client, json, os, statistics, sys, time
port, mode, stop, out = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
paths, period = (["/metrics"], 0.1) if mode == "scrape" else \
    (["/status", "/machine-queues", "/machines", "/metrics"], 1.0)
conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
ms, size = [], 0
while not os.path.exists(stop):
    start = time.monotonic()
    for p in paths:
        conn.request("GET", p)
        r = conn.getresponse()
        size = max(size, len(r.read()))
        assert r.status == 200, (p, r.status)
    ms.append((time.monotonic() - start) * 1000)
    time.sleep(max(0, period - (time.monotonic() - start)))
json.dump({"reads": len(ms) * len(paths), "median_ms": statistics.median(ms) if ms else 0,
           "max_ms": max(ms) if ms else 0, "largest_bytes": size}, open(out, "w"))
PY
}

# Polls status until $tmp/stop appears; writes the last rebalance and lp figures seen
# and the largest per-run event-loop time.
poll() {  # poll OUT
  python3 - "$tmp/ctl.sock" "$tmp/stop" "$1" <<'PY'
import json, os, socket, sys, time
path, stop, out = sys.argv[1:4]
s = socket.socket(socket.AF_UNIX); s.connect(path); f = s.makefile("rwb")
seen = {"rebalance_runs": 0, "lp_solves": 0, "loop_ms": [], "lp_busy_polls": 0, "polls": 0}
while not os.path.exists(stop):
    f.write(b'{"op":"status"}\n'); f.flush()
    r = json.loads(f.readline())
    seen["polls"] += 1
    rb, lp = r.get("rebalance"), r.get("lp")
    if rb and rb["runs"] > seen["rebalance_runs"]:
        seen["rebalance_runs"] = rb["runs"]; seen["loop_ms"].append(rb["last"]["loop_ms"])
    if lp:
        seen["lp_busy_polls"] += lp["busy"]
        if lp["solves"] > seen["lp_solves"]:
            seen["lp_solves"] = lp["solves"]; seen["loop_ms"].append(lp["last_loop_ms"])
    time.sleep(0.2)
json.dump(seen, open(out, "w"))
PY
}

: >"$tmp/rows.jsonl"
cut -d' ' -f1-3 /proc/loadavg >"$tmp/loadavg"
total=$((rounds * $(wc -w <<<"$modes")))
done_runs=0
for round in $(seq "$rounds"); do
  for mode in $modes; do
    done_runs=$((done_runs + 1))
    echo "[$done_runs/$total] round $round, $mode" >&2
    http_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    start_daemon "$mode"
    rm -f "$tmp/stop"
    poll "$tmp/poll.json" &
    poller=$!
    echo '{}' >"$tmp/http.json"
    http_poller=""
    if [[ $mode == scrape || $mode == dashboard ]]; then
      http_poll "$mode" "$tmp/http.json" &
      http_poller=$!
    fi
    "$loadgen" --socket "$tmp/ev.sock" --seconds "$seconds" --window "$window" \
      --queued "$queued" --machines "$machines" >"$tmp/load.json"
    touch "$tmp/stop"
    wait "$poller"
    [[ -z $http_poller ]] || wait "$http_poller"
    daemon_stop
    python3 - "$tmp" "$round" "$mode" >>"$tmp/rows.jsonl" <<'PY'
import json, os, sys
tmp, round_, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
load = json.load(open(os.path.join(tmp, "load.json")))
poll = json.load(open(os.path.join(tmp, "poll.json")))
http = json.load(open(os.path.join(tmp, "http.json")))
lat = load["heartbeat_latency_us"]
print(json.dumps({"round": round_, "mode": mode, "events_per_s": load["replies_per_second"],
                  "p50_us": lat["p50"], "p99_us": lat["p99"], "p999_us": lat["p999"],
                  "rebalance_runs": poll["rebalance_runs"], "lp_solves": poll["lp_solves"],
                  "lp_busy_share": poll["lp_busy_polls"] / max(1, poll["polls"]),
                  "loop_ms": poll["loop_ms"], "http": http}))
PY
  done
done
cp "$tmp/rows.jsonl" "$out"

python3 - "$tmp/rows.jsonl" "$tmp/loadavg" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print("| round | mode | events/s | p50 µs | p99 µs | p99.9 µs | rebalances / LP solves | LP busy share | loop ms per run (median / max) |")
print("|---|---|---|---|---|---|---|---|---|")
for r in rows:
    loop = r["loop_ms"]
    loops = "%.1f / %.1f" % (statistics.median(loop), max(loop)) if loop else "-"
    print("| %d | %s | %.0f | %.0f | %.0f | %.0f | %d / %d | %.2f | %s |" % (
        r["round"], r["mode"], r["events_per_s"], r["p50_us"], r["p99_us"], r["p999_us"],
        r["rebalance_runs"], r["lp_solves"], r["lp_busy_share"], loops))
p99 = {}
for r in rows:
    p99.setdefault(r["mode"], []).append(r["p99_us"])
print()
for r in rows:
    if r.get("http"):
        h = r["http"]
        print("round %d, %s: %d HTTP reads, %.2f ms median per poll (worst %.2f), largest reply %d bytes"
              % (r["round"], r["mode"], h["reads"], h["median_ms"], h["max_ms"], h["largest_bytes"]))
for mode, twin in (("rebalance", "idle"), ("lp", "prio-idle"), ("scrape", "idle"),
                   ("dashboard", "idle")):
    if mode in p99 and twin in p99:
        a, b = statistics.median(p99[mode]), statistics.median(p99[twin])
        per_round = [x / y for x, y in zip(p99[mode], p99[twin])]
        print("%s vs %s: median p99 %.0f vs %.0f µs, ratio %.2f (per round: %s)" % (
            mode, twin, a, b, a / b, ", ".join("%.2f" % x for x in per_round)))
print("load average before / after: %s / %s" % (
    open(sys.argv[2]).read().strip(), " ".join(open("/proc/loadavg").read().split()[:3])))
PY
