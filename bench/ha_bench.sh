#!/usr/bin/env bash
# High availability against single node (docs/benchmarks.md, "High availability
# on ZooKeeper"): the socket load of bench/daemon_bench.sh (1,000 machines,
# 100,000 queued tasks, BENCH_WINDOW requests in flight) against, in turn,
# locschedd with no journal, with the local journal (batched: the single-node
# durable default), and as the active of a high-availability pair on a
# ZooKeeper started here on loopback (every burst committed to ZooKeeper before
# its replies; a standby follows the log). Prints a Markdown table with each
# run's ratio to the single-node journal and writes the raw JSON. Failover
# times come from tests/daemon/ha_test.py, which prints them.
#
# Environment: BUILD_DIR (default build/release), BENCH_SECONDS (default 10),
# BENCH_WINDOW (default 128), BENCH_OUT (JSON path), BENCH_BUILD (0: use the
# binaries already in BUILD_DIR, build nothing).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build/release}
seconds=${BENCH_SECONDS:-10}
window=${BENCH_WINDOW:-128}
out=${BENCH_OUT:-docs/figures/ha_bench.json}

if [[ ${BENCH_BUILD:-1} != 0 ]]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" -j "$(nproc)" --target locschedd locsched-loadgen
fi
daemon=$build/daemon/locschedd
loadgen=$build/bench/locsched-loadgen

# shellcheck source=bench/daemon_lib.sh
source bench/daemon_lib.sh
tmp=$(mktemp -d /var/tmp/locsched-ha-bench-XXXXXX)
zk_pid=""
standby_pid=""
cleanup() {
  daemon_stop
  if [[ -n $standby_pid ]]; then kill "$standby_pid" 2>/dev/null || true; fi
  if [[ -n $zk_pid ]]; then kill "$zk_pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

# load NAME: the socket load against the daemon on $tmp/ev.sock, then stop it.
load() {
  local name=$1
  echo "== $name" >&2
  "$loadgen" --socket "$tmp/ev.sock" --machines 1000 --seconds "$seconds" --window "$window" \
    --pid "$DAEMON_PID" >"$tmp/$name.json"
  daemon_stop
  mv "$tmp/server.log" "$tmp/$name.log"
}

cut -d' ' -f1-3 /proc/loadavg >"$tmp/loadavg"
daemon_start "$daemon" "$tmp" --set journal.path=
load none
daemon_start "$daemon" "$tmp" --set "journal.path=$tmp/journal.log" --set journal.sync=batched
load journal

read -r zk_port zk_pid < <(python3 - "$tmp" <<'PY'
import sys
sys.path.insert(0, "tests/daemon")
import zookeeper
zk = zookeeper.ZooKeeper(sys.argv[1])
zk.start()
print(zk.port, zk.proc.pid)
PY
)
echo "0123456789abcdef-bench" >"$tmp/secret"
ha=(--set "ha.zookeeper=127.0.0.1:$zk_port" --set "ha.secret_file=$tmp/secret" --set log.level=info)
# The first instance up leads (it serves events once elected); the standby joins
# after it and follows its log during the load.
daemon_start "$daemon" "$tmp" --set "ha.instance=127.0.0.1:$((zk_port + 1))" "${ha[@]}"
for _ in $(seq 200); do
  daemon_status "$tmp" | grep -q '"role":"active"' && break
  sleep 0.05
done
mkdir -p "$tmp/standby"
"$daemon" --set "sockets.event_path=$tmp/standby/ev.sock" \
  --set "sockets.control_path=$tmp/standby/ctl.sock" --set log.target=stderr \
  --set "ha.instance=127.0.0.1:$((zk_port + 2))" "${ha[@]}" 2>"$tmp/standby.log" &
standby_pid=$!
sleep 1
load ha
sleep 1  # the standby catches up with the last entries
daemon_status "$tmp/standby" >"$tmp/standby_status"
kill "$standby_pid"
wait "$standby_pid" 2>/dev/null || true
standby_pid=""

python3 - "$tmp" "$out" "$seconds" "$window" <<'PY'
import json, os, platform, re, subprocess, sys
tmp, out, seconds, window = sys.argv[1:5]
names = ("none", "journal", "ha")
runs = {n: json.load(open(os.path.join(tmp, n + ".json"))) for n in names}
base = runs["journal"]["replies_per_second"]
base_p99 = runs["journal"]["heartbeat_latency_us"]["p99"]
label = {"none": "single node, no journal", "journal": "single node, journal (batched)",
         "ha": "HA active on ZooKeeper, one standby following"}
snapshots = len(re.findall(r"ha: snapshot at entry", open(os.path.join(tmp, "ha.log")).read()))
print("| mode | events/s | ratio to single node with journal | heartbeat p50 µs | p99 µs "
      "| p99 ratio | p99.9 µs |")
print("|---|---|---|---|---|---|---|")
for n in names:
    r, lat = runs[n], runs[n]["heartbeat_latency_us"]
    print("| %s | %.0f | %.2f | %.0f | %.0f | %.2f | %.0f |" % (
        label[n], r["replies_per_second"], r["replies_per_second"] / base, lat["p50"], lat["p99"],
        lat["p99"] / base_p99, lat["p999"]))
standby = json.loads(open(os.path.join(tmp, "standby_status")).read())["ha"]
print("\nsnapshots into ZooKeeper during the HA run: %d; the standby applied %d log entries "
      "(%d records)" % (snapshots, standby["applied_entries"], standby["applied_records"]))
model = [l.split(":", 1)[1].strip() for l in subprocess.run(
    ["lscpu"], capture_output=True, text=True).stdout.splitlines() if l.startswith("Model name")]
machine = {"nproc": os.cpu_count(), "cpu": model[0] if model else "", "kernel": platform.release(),
           "loadavg_before": open(os.path.join(tmp, "loadavg")).read().split(),
           "loadavg_after": open("/proc/loadavg").read().split()[:3]}
os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
with open(out, "w") as f:
    json.dump({"machine": machine, "seconds": float(seconds), "window": int(window), "runs": runs,
               "ha_snapshots": snapshots, "standby": standby}, f, indent=1)
    f.write("\n")
print("load average before / after: %s / %s; raw JSON: %s" % (
    " ".join(machine["loadavg_before"]), " ".join(machine["loadavg_after"]), out))
PY
