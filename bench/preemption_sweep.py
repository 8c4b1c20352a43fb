#!/usr/bin/python3
"""Preemption's timeout and kill wait swept in trace mode: tenant queues on SWIM FB-2009
hours at 85% load, late binding (the default), one row per (--preemption-timeout,
--preemption-kill-wait).

Per row: the worst queue's time-to-guarantee p99 (median and max over the runs), the
preempted task-seconds as a share of those run, preemptions per task, and mean JCT as a
ratio to the same run without preemption. docs/algorithms.md quotes its table.

Usage: python3 bench/preemption_sweep.py [--build build/release] [--traces DIR] [--jobs N]
Runs go through bench/tenancy.py's pool (--jobs at a time, a progress line).
Needs the SWIM files under DIR (default ../shared/data/traces/swim-fb); skips with a
message without them.
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tenancy  # noqa: E402

HOURS = (1, 5, 9, 13, 17, 21)
SEEDS = (1, 2)
# (timeout, kill wait): off, then the recommended 30 s with kill waits around the default 3 s.
CASES = ((0, 0), (10, 3), (30, 0), (30, 3), (30, 6), (100, 3))
TENANTS = tenancy.MIXES["3"]


def calls_for(files):
    """Every call: (key, args); key = ((timeout, kill wait), (file, hour, seed))."""
    return [(((timeout, wait), (trace, hour, seed)),
             ["--trace", trace, "--format", "swim", "--hour", str(hour), "--utilization", "0.85",
              "--tenants", TENANTS, "--seed", str(seed), "--preemption-timeout", str(timeout),
              "--preemption-kill-wait", str(wait), "--json"])
            for trace in files for hour in HOURS for seed in SEEDS for timeout, wait in CASES]


def figures(d):
    """(mean JCT, worst queue's TTG p99, preempted share, preempted tasks, tasks) of a run."""
    p99 = max([q["ttg_p99_s"] for q in d["queues"] if q["ttg_episodes"] > 0] or [0])
    return d["mean_jct_s"], p99, d["preempted_share"], d["preempted_tasks"], d["tasks"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--build", default=os.path.join(here, "..", "build", "release"))
    ap.add_argument("--jobs", type=int, default=2, help="runs in parallel")
    ap.add_argument("--traces", default=os.path.join(here, "..", "..", "shared", "data",
                                                     "traces", "swim-fb"))
    a = ap.parse_args()
    files = [os.path.join(a.traces, "FB-2009_samples_24_times_1hr_%d.tsv" % i) for i in (0, 1)]
    if not all(os.path.exists(f) for f in files):
        print("preemption_sweep: skipped: no SWIM FB-2009 files under %s" % a.traces)
        return 0
    sim = os.path.join(a.build, "tools", "locsched-sim")
    calls = calls_for(files)
    results = tenancy.run_pool(sim, calls, a.jobs, {}, None)
    rows = {}
    for (case, run), out in results.items():
        if out and out[0]["jobs"] > 0:
            rows.setdefault(case, []).append((figures(out[0]), run))
    base = {key: r[0] for r, key in rows[(0, 0)]}
    print("| `--preemption-timeout` | `--preemption-kill-wait` | worst-queue TTG p99, median "
          "(max) | preempted task-s, mean (max) | preemptions per task | mean JCT vs none, "
          "mean (worst) |")
    print("|---|---|---|---|---|---|")
    for (timeout, wait), rs in sorted(rows.items()):
        ratios = [r[0] / base[key] for r, key in rs]
        p99 = [r[1] for r, _ in rs]
        share = [r[2] for r, _ in rs]
        per_task = sum(r[3] for r, _ in rs) / sum(r[4] for r, _ in rs)
        print("| %s | %s | %.1f s (%.1f s) | %.2f%% (%.2f%%) | %.3f | %.3f (%.3f) |" % (
            timeout or "0 (off)", wait if timeout else "–", statistics.median(p99), max(p99),
            100 * statistics.mean(share), 100 * max(share), per_task, statistics.mean(ratios),
            max(ratios)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
