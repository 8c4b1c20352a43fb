#!/usr/bin/env bash
# Journal bytes of a trace replay (docs/benchmarks.md, "Journal bytes of a trace
# replay"): tools/replay.sh on the first PARTS parts of Google's 2011 job_events
# (one-task jobs, 600 machines, 60x, replay.sh's emulator settings) with a
# journal at the default journal.snapshot_mb, then the journal bytes written: the
# sum of what each snapshot reports ("the journal was N bytes", the last at the
# clean stop), with the requests the daemon handled and, where the daemon reports
# them, its journal records and the heartbeats it did not journal. Prints one
# JSON object.
#
# Environment: BUILD_DIR (default build/release), PARTS (default 10), TRACES (default
# ../shared/data/traces; bash tools/fetch-traces.sh DIR fetches them), SPEED (default 60),
# BENCH_DIR (the journal and the replay's files; default a new directory under /var/tmp).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build/release}
parts=${PARTS:-10}
traces=${TRACES:-../shared/data/traces}
speed=${SPEED:-60}
tmp=${BENCH_DIR:-$(mktemp -d /var/tmp/locsched-journal-replay-XXXXXX)}
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT

: >"$tmp/google.csv"
for ((i = 0; i < parts; ++i)); do
  part=$(printf '%s/google-clusterdata-2011-2/job_events/part-%05d-of-00500.csv.gz' "$traces" "$i")
  [ -r "$part" ] || { echo "journal_replay.sh: $part is absent (bash tools/fetch-traces.sh DIR)" >&2; exit 1; }
  zcat "$part" >>"$tmp/google.csv"
done
bash tools/replay.sh --build "$build" --format google --trace "$tmp/google.csv" --speed "$speed" \
  --quiet --json "$tmp/r" --set "journal.path=$tmp/journal.log" --set log.level=info >&2

python3 - "$tmp/r" "$parts" "$speed" <<'EOF'
import json, re, sys
r, parts, speed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
status = json.load(open(r + ".status"))
log = open(r + ".log").read()
sizes = [int(n) for n in re.findall(r" snapshot \d+: .* the journal was (\d+) bytes", log)]
journal = status["daemon"].get("journal", {})
out = {"parts": parts, "speed": speed, "jobs_done": status["jobs"]["done"],
       "requests": status["daemon"]["requests"], "snapshots": len(sizes),
       "journal_bytes": sum(sizes), "bytes_per_request": round(sum(sizes) / status["daemon"]["requests"], 1)}
for key in ("records", "bytes", "skipped_heartbeats"):  # status' figures, where it has them
    if key in journal:
        out["status_journal_" + key] = journal[key]
if "records" in journal and journal["records"]:
    out["bytes_per_record"] = round(journal["bytes"] / journal["records"], 1)
print(json.dumps(out))
EOF
