#!/usr/bin/env bash
# The trace simulator against daemon replays: SWIM FB-2009 hour 1 on 600 machines, per
# policy the mean of R daemon replays (bench/policy_replay.sh: tools/replay.sh at 60x,
# each replay under the machine-wide lock on its own) beside the mean of R seeds of
# locsched-sim --trace on the same hour. Prints one table row per policy (mean and p95
# JCT, locality, and the simulator's mean JCT over the replays'); the replays' rows go to
# OUT/<policy>.jsonl. A replay takes one to two and a half minutes.
#   bash bench/trace_agreement.sh [--build DIR] [--runs R] [--policies LIST] [--out DIR]
# Needs locschedd, locsched-agents, locsched-tail and locsched-sim in --build (default
# build/release) and ../shared/data/traces.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build/release
runs=3
policies=fifo,fair,delay,jsq-maxweight
out=
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --policies) policies=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "trace_agreement.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
trace=../shared/data/traces/swim-fb/FB-2009_samples_24_times_1hr_1.tsv
if [ ! -r "$trace" ]; then
  echo "trace_agreement.sh: $trace is absent: skipped" >&2
  exit 0
fi
out=${out:-$(mktemp -d /tmp/locsched-agreement-XXXXXX)}
mkdir -p "$out"
for r in $(seq "$runs"); do
  for p in ${policies//,/ }; do
    flock /tmp/locsched-build.lock bash bench/policy_replay.sh --policies "$p" --runs 1 \
      --first-run "$r" --build "$build" --out "$out/$p" >>"$out/replays.log" 2>&1 ||
      { tail -20 "$out/replays.log" >&2; exit 1; }
  done
done
for s in $(seq "$runs"); do
  "$build/tools/locsched-sim" -q --trace "$trace" --format swim --hour 1 --policy "$policies" \
    --seed "$s" --json
done >"$out/sim.jsonl"
/usr/bin/python3 - "$out" "$policies" <<'PY'
import json, sys
out, policies = sys.argv[1], sys.argv[2].split(",")
sim = [json.loads(l) for l in open(out + "/sim.jsonl")]
mean = lambda xs: sum(xs) / len(xs)
print("| policy | replays: mean JCT | p95 | locality | simulator: mean JCT | p95 | locality | simulator / replays |")
print("|---|---|---|---|---|---|---|---|")
for p in policies:
    rep = [json.loads(l)["agents"] for l in open("%s/%s.jsonl" % (out, p))]
    s = [r for r in sim if r["policy"] == p]
    rm, sm = mean([a["foreign_mean_job_delay"] for a in rep]), mean([r["mean_jct_s"] for r in s])
    print("| %s | %.1f s (%s) | %.1f s | %.2f%% | %.1f s (%s) | %.1f s | %.2f%% | %.2f |" % (
        p, rm, ", ".join("%.0f" % a["foreign_mean_job_delay"] for a in rep),
        mean([a["foreign_p95_job_delay"] for a in rep]),
        100 * mean([a["all_locality"] for a in rep]), sm,
        ", ".join("%.0f" % r["mean_jct_s"] for r in s), mean([r["p95_jct_s"] for r in s]),
        100 * mean([r["locality"] for r in s]), sm / rm))
PY
