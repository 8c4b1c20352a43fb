#!/usr/bin/env python3
"""Tenant queues against their targets: SWIM FB-2009 hours (both bundled files, the
league's hours) in locsched-sim --trace,
the cluster sized so an hour's work (run local) fills 60% and 85% of it, each job drawn
into a tenant (--tenants: a flat tree guaranteeing each tenant its share, maximum 100%).

Per mix and load, over --hours and --seeds (every run: --seed and --placement-seed S, so
task times, replica placement and the tenant draw change together):
  max peak / max   the highest peak_running / max_slots of any queue (the target: <= 1)
  TTG p50, p99     time-to-guarantee of the queues (the mean over runs of each queue's
                   p50, and the highest queue's p99), seconds
  JCT ratio        the default policy's (late-binding) mean JCT with queues over its mean
                   JCT without queues on the same jobs, the mean of the per-run ratios and
                   the worst run (target <= 1.10)
  locality         node-local share of late-binding with queues, and of delay scheduling
                   in the same tree at each wait of --waits; "delay best" is the wait with
                   the lowest mean JCT (tuned as in the league), and its locality
                   (target: late-binding's >= delay's)

With --policies (a comma list of capacity-scheduler, fair-scheduler, delay), a second table
compares each peer, in the same trees, with late-binding with queues: each peer runs at
every value of its sweep (capacity-scheduler: --node-delays, YARN's node-locality-delay in
missed opportunities, at each of --rack-delays, its rack-locality-additional-delay;
fair-scheduler: --thresholds, YARN's locality.threshold.node as a
fraction of the machines, with locality.threshold.rack 0 so that the delay is on;
delay: --waits) and is reported at its best (the lowest mean JCT over the runs): its
mean JCT over late-binding's without queues (the mean of the per-run ratios), the queues'
TTG p50 and p99, locality, and each tenant's mean JCT (the mean over runs).

Every locsched-sim call is one independent run of a pool (--jobs at a time, default 2);
a progress line counts them. With --cache FILE, a call's rows are kept there and reused
by a later invocation with the same call (so a long run can be split, e.g. one load at a
time, and rendered at the end). Prints the markdown table (and writes it to --out if
given). Usage:
  python3 bench/tenancy.py [--build DIR] [--hours LIST] [--seeds 1,2,3] [--loads 0.6,0.85]
                           [--mixes 2,3,4,5] [--waits 0,5,10,20,40,80] [--jobs N]
                           [--cache FILE] [--out FILE] [--traces DIR]
                           [--policies capacity-scheduler,fair-scheduler,delay]
                           [--node-delays 0,10,40,100] [--rack-delays=-1,0]
                           [--thresholds=-1,0.02,0.1,0.5]
Skips, with a message, when the traces are absent; an hour without jobs (hour 11 of the
first file) is left out of the table, with a message.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import time

SWIM_FILES = ["swim-fb/FB-2009_samples_24_times_1hr_0.tsv",
              "swim-fb/FB-2009_samples_24_times_1hr_1.tsv"]
MIXES = {
    "2": "etl:0.7,adhoc:0.3",
    "3": "etl:0.5,adhoc:0.3,ml:0.2",
    "4": "etl:0.4,adhoc:0.3,ml:0.2,dev:0.1",
    "5": "etl:0.35,adhoc:0.25,ml:0.2,bi:0.12,dev:0.08",
}
REPORTED_EMPTY = set()  # (trace, hour) without jobs, said once
PEERS = ("capacity-scheduler", "fair-scheduler", "delay")


def parse_list(text, kind=int):
    return [kind(x) for x in text.split(",") if x.strip()]


def sim_rows(sim, args):
    """Runs one call; returns its JSON rows."""
    out = subprocess.run([sim, "-q"] + args, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError("locsched-sim %s failed: %s" % (" ".join(args), out.stderr.strip()))
    rows = [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
    for r in rows:
        r.pop("jct_s", None)
    return rows


def calls_for(a, traces):
    """Every call: (key, args). key = (mix or None, load, (file, hour), seed, kind)."""
    calls = []
    for load in a.loads:
        for trace, hour in ((t, h) for t in traces for h in a.hours):
            for seed in a.seeds:
                base = ["--trace", trace, "--format", "swim", "--hour", str(hour),
                        "--utilization", str(load), "--seed", str(seed),
                        "--placement-seed", str(seed), "--json"]
                hour_key = (trace, hour)
                calls.append(((None, load, hour_key, seed, "plain"),
                              base + ["--policy", "late-binding"]))
                for mix in a.mixes:
                    tenants = ["--tenants", MIXES[mix]]
                    calls.append(((mix, load, hour_key, seed, "queues"),
                                  base + tenants + ["--policy", "late-binding"]))
                    calls.append(((mix, load, hour_key, seed, "delay"),
                                  base + tenants + ["--policy", "delay", "--delay-wait",
                                                    ",".join("%g" % w for w in a.waits)]))
                    for peer in a.policies:
                        if peer != "delay":
                            calls.append(((mix, load, hour_key, seed, peer),
                                          base + tenants + peer_args(a, peer)))
    return calls


def peer_args(a, peer):
    """--policy and the sweep of a peer other than delay."""
    if peer == "capacity-scheduler":
        return ["--policy", peer, "--node-locality-delay", ",".join("%d" % d for d in a.node_delays),
                "--rack-locality-delay=" + ",".join("%d" % d for d in a.rack_delays)]
    return ["--policy", peer, "--locality-threshold-node", ",".join("%g" % t for t in a.thresholds),
            "--locality-threshold-rack", "0"]


def knob(row):
    """The swept value of a peer's row."""
    if row.get("node_locality_delay") is not None:
        return (row["node_locality_delay"], row["rack_locality_delay"])
    for key in ("locality_threshold_node", "delay_wait_s"):
        if row.get(key) is not None:
            return row[key]
    return None


def summarize_peer(a, runs, results, mix, load, peer):
    """One row of the peers' table: `peer` at its best setting over `runs` ((hour, seed))."""
    by_knob = {}
    for h, s in runs:
        for r in results[(mix, load, h, s, peer)]:
            by_knob.setdefault(knob(r), []).append(((h, s), r))
    best = min(by_knob, key=lambda k: mean(r["mean_jct_s"] for _, r in by_knob[k]))
    chosen = by_knob[best]
    queues = [q for _, r in chosen for q in r["queues"] if q["jobs"] > 0]
    tenants = {}
    for q in queues:
        tenants.setdefault(q["name"], []).append(q["mean_jct_s"])
    ratios = [r["mean_jct_s"] / results[(None, load, h, s, "plain")][0]["mean_jct_s"]
              for (h, s), r in chosen]
    return {
        "mix": "%s tenants" % mix, "load": "%d%%" % round(100 * load), "policy": peer,
        "best": best, "jct": mean(r["mean_jct_s"] for _, r in chosen),
        "ratio": mean(ratios), "worst_ratio": max(ratios),
        "ttg_p50": mean(q["ttg_p50_s"] for q in queues),
        "ttg_p99": max(q["ttg_p99_s"] for q in queues),
        "locality": mean(r["locality"] for _, r in chosen),
        "tenants": {name: mean(v) for name, v in tenants.items()},
        "stable": all(r["stable"] for _, r in chosen),
        "sweep": {k: (mean(r["mean_jct_s"] for _, r in v), mean(r["locality"] for _, r in v),
                      sum(not r["stable"] for _, r in v)) for k, v in by_knob.items()},
    }


def peer_rows(a, traces, results, mix, load):
    """late-binding with queues, then each peer at its best, for `mix` at `load`."""
    runs = [((t, h), s) for t in traces for h in a.hours for s in a.seeds]
    runs = [(h, s) for h, s in runs if results[(None, load, h, s, "plain")][0]["jobs"] > 0]
    rows = []
    for peer in ["queues"] + [p for p in a.policies]:
        key = "delay" if peer == "delay" else peer
        row = summarize_peer(a, runs, results, mix, load, key)
        row["policy"] = "late-binding" if peer == "queues" else peer
        rows.append(row)
    return rows


def setting_text(policy, value):
    """A peer's swept value as the table prints it."""
    if value is None:
        return "default"
    if policy == "capacity-scheduler":
        return "node-locality-delay %d, rack %d" % value
    return ("threshold.node %g" if policy == "fair-scheduler" else "wait %g s") % value


def render_sweeps(rows):
    """Each peer's mean JCT, locality and unstable runs at every setting it ran."""
    lines = ["| mix | load | policy | setting | mean JCT (s) | locality | unstable runs |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["policy"] == "late-binding":
            continue
        for k in sorted(r["sweep"], key=lambda k: k if isinstance(k, tuple) else (k,)):
            jct, loc, unstable = r["sweep"][k]
            lines.append("| %s | %s | %s | %s | %.1f | %.3f | %d |" % (
                r["mix"], r["load"], r["policy"], setting_text(r["policy"], k), jct, loc, unstable))
    return "\n".join(lines) + "\n"


def render_peers(rows):
    names = []
    for r in rows:
        names += [n for n in r["tenants"] if n not in names]
    head = ("| mix | load | policy | best setting | mean JCT (s) | ratio to LB without queues "
            "(worst run) | TTG p50 (s) | TTG p99 (s) | locality | "
            + " | ".join("%s JCT (s)" % n for n in names) + " |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in rows:
        setting = setting_text(r["policy"], r["best"])
        lines.append("| %s | %s | %s | %s | %.1f | %.3f (%.3f)%s | %.1f | %.1f | %.3f | %s |" % (
            r["mix"], r["load"], r["policy"], setting, r["jct"], r["ratio"], r["worst_ratio"],
            "" if r["stable"] else " (unstable)", r["ttg_p50"], r["ttg_p99"], r["locality"],
            " | ".join("%.1f" % r["tenants"][n] if n in r["tenants"] else "" for n in names)))
    return "\n".join(lines) + "\n"


def load_cache(path):
    cache = {}
    if path and os.path.exists(path):
        with open(path) as f:
            for line in f:
                entry = json.loads(line)
                cache[tuple(entry["args"])] = entry["rows"]
    return cache


def run_pool(sim, calls, jobs, cache, cache_path):
    """Runs the calls the cache lacks, `jobs` at a time, with a progress line; returns
    {key: rows}."""
    todo = [(key, args) for key, args in calls if tuple(args) not in cache]
    print("tenancy: %d runs (%d cached)" % (len(todo), len(calls) - len(todo)), file=sys.stderr)
    start = time.time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(sim_rows, sim, args): args for _, args in todo}
        for i, f in enumerate(concurrent.futures.as_completed(futures)):
            args = futures[f]
            cache[tuple(args)] = f.result()
            if cache_path:
                with open(cache_path, "a") as out:
                    out.write(json.dumps({"args": args, "rows": cache[tuple(args)]}) + "\n")
            done, elapsed = i + 1, time.time() - start
            print("\rtenancy: %d/%d runs, %.0f s, about %.0f s left " % (
                done, len(todo), elapsed, elapsed / done * (len(todo) - done)),
                end="", file=sys.stderr)
    if todo:
        print(file=sys.stderr)
    return {key: cache[tuple(args)] for key, args in calls}


def mean(values):
    values = list(values)
    return sum(values) / len(values) if values else float("nan")


def summarize(a, traces, results, mix, load):
    """One table row for `mix` at `load`, over every hour and seed."""
    runs = [((t, h), s) for t in traces for h in a.hours for s in a.seeds]
    empty = sorted({h for h, s in runs if results[(None, load, h, s, "plain")][0]["jobs"] == 0})
    for trace, hour in (e for e in empty if e not in REPORTED_EMPTY):
        REPORTED_EMPTY.add((trace, hour))
        print("tenancy: %s hour %d has no jobs: left out" % (os.path.basename(trace), hour),
              file=sys.stderr)
    runs = [(h, s) for h, s in runs if h not in empty]
    plain = [results[(None, load, h, s, "plain")][0] for h, s in runs]
    queued = [results[(mix, load, h, s, "queues")][0] for h, s in runs]
    delays = [results[(mix, load, h, s, "delay")] for h, s in runs]
    queues = [q for r in queued + [d for ds in delays for d in ds] for q in r["queues"]]
    peak = max(q["peak_running"] / q["max_slots"] for q in queues)
    lb_queues = [q for r in queued for q in r["queues"] if q["jobs"] > 0]
    by_wait = {}
    for ds in delays:
        for d in ds:
            by_wait.setdefault(d["delay_wait_s"], []).append(d)
    best = min(by_wait, key=lambda w: mean(d["mean_jct_s"] for d in by_wait[w]))
    row = {
        "mix": "%s tenants" % mix, "load": "%d%%" % round(100 * load),
        "peak": peak,
        "ttg_p50": mean(q["ttg_p50_s"] for q in lb_queues),
        "ttg_p99": max(q["ttg_p99_s"] for q in lb_queues),
        "jct_plain": mean(r["mean_jct_s"] for r in plain),
        "jct_queues": mean(r["mean_jct_s"] for r in queued),
        "loc_plain": mean(r["locality"] for r in plain),
        "loc_queues": mean(r["locality"] for r in queued),
        "best_wait": best,
        "loc_delay": {w: mean(d["locality"] for d in ds) for w, ds in sorted(by_wait.items())},
        "jct_delay_best": mean(d["mean_jct_s"] for d in by_wait[best]),
        "stable": all(r["stable"] for r in plain + queued),
    }
    ratios = [q["mean_jct_s"] / p["mean_jct_s"] for q, p in zip(queued, plain)]
    row["ratio"], row["worst_ratio"] = mean(ratios), max(ratios)
    return row


def render(a, rows):
    waits = a.waits
    head = ("| mix | load | max peak / max | TTG p50 (s) | TTG p99 (s) | mean JCT no queues (s) "
            "| with queues (s) | ratio (worst run) | locality LB no queues | LB with queues | "
            + " | ".join("delay %gs" % w for w in waits) + " | delay best (wait, JCT) |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in rows:
        lines.append(
            "| %s | %s | %.2f | %.1f | %.1f | %.1f | %.1f | %.3f (%.3f)%s | %.3f | %.3f | %s | %gs, %.1f s |"
            % (r["mix"], r["load"], r["peak"], r["ttg_p50"], r["ttg_p99"], r["jct_plain"],
               r["jct_queues"], r["ratio"], r["worst_ratio"], "" if r["stable"] else " (unstable)", r["loc_plain"],
               r["loc_queues"], " | ".join("%.3f" % r["loc_delay"][w] for w in waits),
               r["best_wait"], r["jct_delay_best"]))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=None, help="where locsched-sim is (default build/release, "
                    "else build/dev)")
    ap.add_argument("--traces", default="../shared/data/traces")
    ap.add_argument("--hours", default="1,5,9,13,17,21",
                    help="FB-2009 hours of both files, e.g. 1,9 (default the league's six)")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--loads", default="0.6,0.85", help="--utilization of each run")
    ap.add_argument("--mixes", default="2,3,4,5", help="tenant mixes: %s" % ", ".join(
        "%s (%s)" % kv for kv in MIXES.items()))
    ap.add_argument("--waits", default="0,5,10,20,40,80", help="delay scheduling's waits, s")
    ap.add_argument("--policies", default="", help="peers compared with late-binding in a "
                    "second table: a comma list of %s" % ", ".join(PEERS))
    ap.add_argument("--node-delays", default="0,10,40,100",
                    help="capacity-scheduler's node-locality-delays (missed opportunities)")
    ap.add_argument("--rack-delays", default="-1",
                    help="capacity-scheduler's rack-locality-additional-delays (-1: YARN's "
                    "derived one); write --rack-delays=-1,0")
    ap.add_argument("--thresholds", default="-1,0.02,0.1,0.5",
                    help="fair-scheduler's locality.threshold.node values (fractions; -1: off)")
    ap.add_argument("--jobs", type=int, default=2, help="runs in parallel")
    ap.add_argument("--cache", default=None, help="keep and reuse each call's rows here")
    ap.add_argument("--out", default=None, help="also write the table to this file")
    a = ap.parse_args()
    try:
        a.hours, a.seeds = parse_list(a.hours), parse_list(a.seeds)
        a.loads, a.waits = parse_list(a.loads, float), parse_list(a.waits, float)
        a.node_delays, a.thresholds = parse_list(a.node_delays), parse_list(a.thresholds, float)
        a.rack_delays = parse_list(a.rack_delays)
    except ValueError as e:
        sys.exit("tenancy: --hours, --seeds, --loads, --waits, --node-delays and --thresholds "
                 "take comma lists (%s)" % e)
    a.policies = [p for p in a.policies.split(",") if p]
    if any(p not in PEERS for p in a.policies):
        sys.exit("tenancy: --policies: choose among %s" % ", ".join(PEERS))
    a.mixes = [m for m in a.mixes.split(",") if m]
    if any(m not in MIXES for m in a.mixes):
        sys.exit("tenancy: --mixes: choose among %s" % ", ".join(MIXES))
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.chdir(root)
    traces = [os.path.join(a.traces, rel) for rel in SWIM_FILES]
    missing = [t for t in traces if not os.path.exists(t)]
    if missing:
        print("tenancy: %s is absent: nothing to run (the SWIM traces are not here)"
              % ", ".join(missing), file=sys.stderr)
        return
    build = a.build or ("build/release" if os.path.exists("build/release/tools/locsched-sim")
                        else "build/dev")
    sim = os.path.join(build, "tools/locsched-sim")
    if not os.access(sim, os.X_OK):
        sys.exit("tenancy: no %s: build it first (bash tools/build.sh release)" % sim)
    calls = calls_for(a, traces)
    results = run_pool(sim, calls, a.jobs, load_cache(a.cache), a.cache)
    rows = [summarize(a, traces, results, mix, load) for mix in a.mixes for load in a.loads]
    table = render(a, rows)
    if a.policies:
        peers = [r for mix in a.mixes for load in a.loads
                 for r in peer_rows(a, traces, results, mix, load)]
        table += "\n" + render_peers(peers) + "\n" + render_sweeps(peers)
    print(table)
    if a.out:
        with open(a.out, "w") as f:
            f.write(table)


if __name__ == "__main__":
    main()
