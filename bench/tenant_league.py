#!/usr/bin/env python3
"""The multi-tenant league: locsched's default (late binding in the tenant queues) against
the models of YARN's CapacityScheduler and FairScheduler and against delay scheduling,
each baseline tuned to its best setting per mix, on SWIM FB-2009 hours split into tenants
(--tenants) at 85% load, without preemption and with --preemption-timeout.

Per mix, timeout and policy (at its best setting, by mean JCT over the runs):
  mean JCT, p95   over the runs; "vs CS" is the mean of the per-run ratios to the
                  CapacityScheduler model's mean JCT (target <= 0.85)
  worst tenant    the highest, over tenants, of the mean per-run ratio of the tenant's mean
                  JCT to its mean JCT under the CapacityScheduler model (target <= 1.00)
  TTG p50, p99    time-to-guarantee: the mean of the queues' medians; the worst queue's
                  p99, the median run and the worst run (target: <= timeout + 2 heartbeats)
  deficit         share-deficit-seconds summed over the queues, mean over runs
  preempted       preempted task-seconds over those run, mean (max) (target <= 2%)
  locality        node-local share (target: at least the CapacityScheduler model's)
  x bound         mean JCT over the run's lower bound, mean over runs

Runs go through bench/tenancy.py's pool and cache (--jobs at a time, --cache FILE).
Usage:
  python3 bench/tenant_league.py [--build DIR] [--hours LIST] [--seeds 1,2] [--mixes 3,5]
                                 [--timeouts 0,30] [--jobs N] [--cache FILE] [--out FILE]
Skips, with a message, when the traces are absent.
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tenancy  # noqa: E402

# Each policy's settings, swept: (label, flags). The clusters here have one rack, so a
# "rack-local" start is any start off the holders: the CapacityScheduler model's
# off-rack delay and the FairScheduler model's rack threshold are left at 0 (swept, they
# changed nothing; YARN's default -1 for a threshold turns the delay off).
POLICIES = {
    "late-binding": [("", [])],
    "capacity-scheduler": [("node-locality-delay %d" % d, ["--node-locality-delay", str(d),
                                                            "--rack-locality-delay", "0"])
                           for d in (0, 10, 40, 400)],
    "fair-scheduler": [("threshold.node %g" % n, ["--locality-threshold-node", "%g" % n,
                                                  "--locality-threshold-rack", "0"])
                       for n in (0.1, 0.5, 1)],
    "delay": [("wait %d s" % w, ["--delay-wait", str(w)]) for w in (0, 5, 20, 80)],
}
CS = "capacity-scheduler"
LOAD = 0.85
HEARTBEAT_S = 3


def settings(policy):
    return POLICIES[policy]


def calls_for(a, traces):
    """Every call: (key, args); key = (mix, timeout, policy, setting, (file, hour), seed)."""
    calls = []
    for trace, hour in ((t, h) for t in traces for h in a.hours):
        for seed in a.seeds:
            base = ["--trace", trace, "--format", "swim", "--hour", str(hour), "--utilization",
                    str(LOAD), "--seed", str(seed), "--placement-seed", str(seed), "--json"]
            for mix in a.mixes:
                for timeout in a.timeouts:
                    for policy in POLICIES:
                        for value, flags in settings(policy):
                            calls.append(((mix, timeout, policy, value, (trace, hour), seed),
                                          base + ["--tenants", tenancy.MIXES[mix], "--policy",
                                                  policy, "--preemption-timeout", "%g" % timeout]
                                          + flags))
    return calls


def runs_of(a, traces, results, mix, timeout, policy, value):
    out = []
    for trace, hour in ((t, h) for t in traces for h in a.hours):
        for seed in a.seeds:
            rows = results[(mix, timeout, policy, value, (trace, hour), seed)]
            if rows and rows[0]["jobs"] > 0:
                out.append(rows[0])
    return out


def best_runs(a, traces, results, mix, timeout, policy):
    """The runs of policy's best setting (lowest mean JCT) and that setting."""
    options = {v: runs_of(a, traces, results, mix, timeout, policy, v) for v, _ in
               settings(policy)}
    best = min(options, key=lambda v: tenancy.mean(r["mean_jct_s"] for r in options[v]))
    return options[best], best


def tenant_ratio(runs, base):
    """The worst tenant's mean per-run ratio of its mean JCT to base's."""
    worst = 0
    for q in range(len(runs[0]["queues"])):
        ratios = [r["queues"][q]["mean_jct_s"] / b["queues"][q]["mean_jct_s"]
                  for r, b in zip(runs, base)
                  if r["queues"][q]["jobs_done"] and b["queues"][q]["mean_jct_s"] > 0]
        if ratios:
            worst = max(worst, tenancy.mean(ratios))
    return worst


def summarize(runs, base):
    p99 = [max([q["ttg_p99_s"] for q in r["queues"] if q["ttg_episodes"]] or [0]) for r in runs]
    return {
        "jct": tenancy.mean(r["mean_jct_s"] for r in runs),
        "p95": tenancy.mean(r["p95_jct_s"] for r in runs),
        "vs_cs": tenancy.mean(r["mean_jct_s"] / b["mean_jct_s"] for r, b in zip(runs, base)),
        "tenant": tenant_ratio(runs, base),
        "ttg_p50": tenancy.mean(q["ttg_p50_s"] for r in runs for q in r["queues"]
                                if q["ttg_episodes"]),
        "ttg_p99": statistics.median(p99), "ttg_p99_max": max(p99),
        "deficit": tenancy.mean(sum(q["share_deficit_s"] for q in r["queues"]) for r in runs),
        "preempted": tenancy.mean(r["preempted_share"] for r in runs),
        "preempted_max": max(r["preempted_share"] for r in runs),
        "locality": tenancy.mean(r["locality"] for r in runs),
        "bound": tenancy.mean(r["mean_jct_over_bound"] for r in runs),
    }


def render(a, traces, results):
    head = ("| mix | timeout | policy (best setting) | mean JCT (s) | vs CS | worst tenant vs CS "
            "| p95 JCT (s) | TTG p50 (s) | TTG p99 median (worst) (s) | deficit (share-s) | "
            "preempted, mean (max) | locality | × bound |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for mix in a.mixes:
        for timeout in a.timeouts:
            base, _ = best_runs(a, traces, results, mix, timeout, CS)
            for policy in POLICIES:
                runs, value = best_runs(a, traces, results, mix, timeout, policy)
                s = summarize(runs, base)
                name = "%s (%s)" % (policy, value) if value else policy
                lines.append(
                    "| %s tenants | %s | %s | %.1f | %.3f | %.3f | %.1f | %.1f | %.1f (%.1f) | "
                    "%.1f | %.2f%% (%.2f%%) | %.3f | %.2f |" % (
                        mix, "off" if timeout == 0 else "%g s" % timeout, name, s["jct"],
                        s["vs_cs"], s["tenant"], s["p95"], s["ttg_p50"], s["ttg_p99"],
                        s["ttg_p99_max"], s["deficit"], 100 * s["preempted"],
                        100 * s["preempted_max"], s["locality"], s["bound"]))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=None, help="where locsched-sim is (default build/release)")
    ap.add_argument("--traces", default="../shared/data/traces")
    ap.add_argument("--hours", default="1,5,9,13,17,21", help="FB-2009 hours of both files")
    ap.add_argument("--seeds", default="1,2")
    ap.add_argument("--mixes", default="3,5", help="tenant mixes of bench/tenancy.py")
    ap.add_argument("--timeouts", default="0,30", help="--preemption-timeout values, s")
    ap.add_argument("--jobs", type=int, default=2, help="runs in parallel")
    ap.add_argument("--cache", default=None, help="keep and reuse each call's rows here")
    ap.add_argument("--out", default=None, help="also write the table to this file")
    a = ap.parse_args()
    try:
        a.hours, a.seeds = tenancy.parse_list(a.hours), tenancy.parse_list(a.seeds)
        a.timeouts = tenancy.parse_list(a.timeouts, float)
        a.mixes = [m for m in a.mixes.split(",") if m]
    except ValueError as e:
        sys.exit("tenant_league: --hours, --seeds and --timeouts take comma lists (%s)" % e)
    unknown = [m for m in a.mixes if m not in tenancy.MIXES]
    if unknown:
        sys.exit("tenant_league: --mixes: unknown mix %s (known: %s)" % (
            ",".join(unknown), ",".join(tenancy.MIXES)))
    traces = [os.path.join(a.traces, f) for f in tenancy.SWIM_FILES]
    if not all(os.path.exists(t) for t in traces):
        print("tenant_league: skipped: the SWIM traces are not under %s" % a.traces)
        return 0
    here = os.path.dirname(os.path.abspath(__file__))
    build = a.build or os.path.join(here, "..", "build", "release")
    sim = os.path.join(build, "tools", "locsched-sim")
    if not os.path.exists(sim):
        sys.exit("tenant_league: no %s (build it, or give --build)" % sim)
    calls = calls_for(a, traces)
    results = tenancy.run_pool(sim, calls, a.jobs, tenancy.load_cache(a.cache), a.cache)
    table = render(a, traces, results)
    print(table)
    if a.out:
        with open(a.out, "w") as f:
            f.write(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
