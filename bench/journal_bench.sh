#!/usr/bin/env bash
# The durability trade-off (docs/benchmarks.md, "Journal sync modes"): the same
# socket load as bench/daemon_bench.sh (1,000 machines, 100,000 queued tasks)
# against locschedd with no journal (the baseline), then with a journal on this
# disk in each sync mode (always, batched, interval), snapshots off, and last
# batched with snapshots at the default journal.snapshot_mb. Prints a Markdown
# table with each run's ratio to the baseline and writes the raw JSON.
#
# Environment: BUILD_DIR (default build/release), BENCH_SECONDS (default 10),
# BENCH_WINDOW (requests in flight, default 128), BENCH_DIR (where the journals
# go; default a new directory under /var/tmp, which must be a real disk, not
# tmpfs, for fdatasync to cost what it costs), BENCH_OUT (JSON path), BENCH_BUILD
# (0: use the binaries already in BUILD_DIR, build nothing).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build/release}
seconds=${BENCH_SECONDS:-10}
window=${BENCH_WINDOW:-128}
out=${BENCH_OUT:-docs/figures/journal_bench.json}

if [[ ${BENCH_BUILD:-1} != 0 ]]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" -j "$(nproc)" --target locschedd locsched-loadgen
fi
daemon=$build/daemon/locschedd
loadgen=$build/bench/locsched-loadgen

# shellcheck source=bench/daemon_lib.sh
source bench/daemon_lib.sh
tmp=${BENCH_DIR:-$(mktemp -d /var/tmp/locsched-journal-bench-XXXXXX)}
mkdir -p "$tmp"
cleanup() {
  daemon_stop
  rm -rf "$tmp"
}
trap cleanup EXIT

# run NAME [--set KEY=VALUE ...]: a fresh daemon, the load, its JSON in $tmp/NAME.json and
# its log (info level: the snapshot lines are counted below) in $tmp/NAME.log.
run() {
  local name=$1
  shift
  rm -f "$tmp"/journal.log*
  daemon_start "$daemon" "$tmp" --set log.level=info "$@"
  echo "== $name" >&2
  "$loadgen" --socket "$tmp/ev.sock" --machines 1000 --seconds "$seconds" --window "$window" \
    --pid "$DAEMON_PID" >"$tmp/$name.json"
  daemon_stop
  mv "$tmp/server.log" "$tmp/$name.log"
  { du -b "$tmp"/journal.log* 2>/dev/null || true; } | awk '{s += $1} END {print s + 0}' >"$tmp/$name.bytes"
}

cut -d' ' -f1-3 /proc/loadavg >"$tmp/loadavg"
journal=(--set "journal.path=$tmp/journal.log" --set journal.snapshot_mb=0)
run none --set journal.path=
run always "${journal[@]}" --set journal.sync=always
run batched "${journal[@]}" --set journal.sync=batched
run interval "${journal[@]}" --set journal.sync=interval --set journal.interval_ms=100
run batched-snapshots --set "journal.path=$tmp/journal.log" --set journal.sync=batched

python3 - "$tmp" "$out" "$seconds" "$window" <<'EOF'
import json, os, platform, re, subprocess, sys
tmp, out, seconds, window = sys.argv[1:5]
names = ("none", "always", "batched", "interval", "batched-snapshots")
runs = {n: json.load(open(os.path.join(tmp, n + ".json"))) for n in names}
disk = {n: int(open(os.path.join(tmp, n + ".bytes")).read()) for n in names}
def snapshots_under_load(name):  # the log's "snapshot N:" lines before the stop began
    lines = open(os.path.join(tmp, name + ".log")).read().split("received: stopping")[0]
    return len(re.findall(r" snapshot \d+: ", lines))
snapshots = {n: snapshots_under_load(n) for n in names}
base = runs["none"]["replies_per_second"]
print("| journal | events/s | ratio to no journal | p50 µs | p99 µs | p99.9 µs | on disk at the end "
      "| survives |")
print("|---|---|---|---|---|---|---|---|")
survives = {"none": "nothing", "always": "power loss", "batched": "power loss",
            "interval": "a crash; power loss minus the last 100 ms",
            "batched-snapshots": "power loss"}
for n in names:
    r, lat = runs[n], runs[n]["heartbeat_latency_us"]
    label = n if n != "batched-snapshots" else "batched, snapshots every 64 MB (%d taken)" % snapshots[n]
    print("| %s | %.0f | %.2f | %.0f | %.0f | %.0f | %.1f MB | %s |" % (
        label, r["replies_per_second"], r["replies_per_second"] / base, lat["p50"], lat["p99"],
        lat["p999"], disk[n] / 1e6, survives[n]))
model = [l.split(":", 1)[1].strip() for l in subprocess.run(
    ["lscpu"], capture_output=True, text=True).stdout.splitlines() if l.startswith("Model name")]
machine = {"nproc": os.cpu_count(), "cpu": model[0] if model else "", "kernel": platform.release(),
           "loadavg_before": open(os.path.join(tmp, "loadavg")).read().split(),
           "loadavg_after": open("/proc/loadavg").read().split()[:3]}
os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
with open(out, "w") as f:
    json.dump({"machine": machine, "seconds": float(seconds), "window": int(window), "runs": runs,
               "disk_bytes": disk, "snapshots": snapshots}, f, indent=1)
    f.write("\n")
print("\nload average before / after: %s / %s; raw JSON: %s" % (
    " ".join(machine["loadavg_before"]), " ".join(machine["loadavg_after"]), out))
EOF
