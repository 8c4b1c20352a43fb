#!/usr/bin/env python3
"""The multi-tenant league: locsched's default (late binding in the tenant queues) against
the models of YARN's CapacityScheduler and FairScheduler, Quincy and delay scheduling,
each baseline tuned to its best setting per workload, without preemption and with
--preemption-timeout.

Workloads (trace mode):
  3 tenants, 5 tenants   SWIM FB-2009 hours (--hours, both files) at 85% load, each job
                         drawn into a tenant of bench/tenancy.py's mix (--tenants)
  burst                  the 3-tenant mix with --burst etl:300: etl floods the idle
                         cluster at the hour's start, adhoc and ml come 300 s later
  Rumen users,           hadoop-rumen's Rumen and JobHistory logs on the hosts they name,
  JobHistory users       each of the (at most 4) busiest users with a queue of its own,
                         by the placement rule "user", the rest in "default"; equal
                         guarantees
Quincy (with and without --quincy-fair, its fairness bound) runs on --quincy-hours only (it
solves a flow per leaf: about a minute a run), and its ratios are taken against the
CapacityScheduler model's runs of those hours. Preemption runs with the default
--preemption-kill-wait (3 s).

Per workload, timeout and policy (at its best setting, by mean JCT over the runs):
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
  us/task         the run's wall time over its tasks: what a decision costs
A second table gives each tenant's mean and p95 JCT (means over the runs).

Runs go through bench/tenancy.py's pool and cache (--jobs at a time, --cache FILE).
Usage:
  python3 bench/tenant_league.py [--build DIR] [--hours LIST] [--seeds 1,2]
                                 [--quincy-hours 5] [--workloads LIST]
                                 [--timeouts 0,30] [--jobs N] [--cache FILE] [--out FILE]
Skips, with a message, when the traces are absent.
"""
import argparse
import collections
import gzip
import os
import re
import statistics
import sys
import tempfile

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
    "quincy": [("", []), ("fair", ["--quincy-fair"])],
    "delay": [("wait %d s" % w, ["--delay-wait", str(w)]) for w in (0, 5, 20, 80)],
}
CS = "capacity-scheduler"
LOAD = 0.85
BURST = "etl:300"
RUMEN = [("Rumen users", "hadoop-rumen/input-trace.json", "rumen"),
         ("JobHistory users", "hadoop-rumen/sample-job-tracker-logs.gz", "jobhistory")]
MAX_USER_QUEUES = 4
KILL_WAIT = 3  # --preemption-kill-wait, preemption.kill_wait_s's default


def swim_workloads(a, traces):
    """(name, [(run key, args)]) of the SWIM workloads chosen in --workloads."""
    chosen = [("3 tenants", tenancy.MIXES["3"], []), ("5 tenants", tenancy.MIXES["5"], []),
              ("burst", tenancy.MIXES["3"], ["--burst", BURST])]
    out = []
    for name, mix, extra in chosen:
        if name not in a.workloads:
            continue
        runs = []
        for trace, hour in ((t, h) for t in traces for h in a.hours):
            for seed in a.seeds:
                runs.append(((os.path.basename(trace), hour, seed),
                             ["--trace", trace, "--format", "swim", "--hour", str(hour),
                              "--utilization", str(LOAD), "--seed", str(seed),
                              "--placement-seed", str(seed), "--json", "--tenants", mix] + extra))
        out.append((name, runs))
    return out


def log_users(path, fmt):
    """Jobs per user in a Rumen or JobHistory log."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", errors="replace") as f:
        text = f.read()
    pattern = r'"user"\s*:\s*"([^"]*)"' if fmt == "rumen" else r'^Job [^\n]*USER="([^"]*)"'
    return collections.Counter(re.findall(pattern, text, re.MULTILINE))


def users_toml(path, fmt):
    """Writes a queue tree for the log's users (see the docstring); returns its path."""
    counts = log_users(path, fmt)
    users = [u for u, _ in counts.most_common(MAX_USER_QUEUES)]
    if not users:
        return None
    names = users + (["default"] if len(counts) > len(users) else [])
    lines = ['[placement]', 'rules = ["user", "default"]',
             'default_queue = "%s"' % ("default" if "default" in names else users[0])]
    for n in names:
        lines += ["[queue.%s]" % n, "capacity = %g" % (100.0 // len(names))]
    out = os.path.join(tempfile.gettempdir(),
                       "tenant_league_users_%s.toml" % os.path.basename(path).replace(".", "_"))
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    return out


def rumen_workloads(a):
    out = []
    for name, rel, fmt in RUMEN:
        path = os.path.join(a.traces, rel)
        if name not in a.workloads or not os.path.exists(path):
            continue
        toml = users_toml(path, fmt)
        if toml is None:
            print("tenant_league: %s names no user: left out" % rel, file=sys.stderr)
            continue
        runs = [((rel, None, seed), ["--trace", path, "--format", fmt, "--seed", str(seed),
                                     "--placement-seed", str(seed), "--json", "--queues", toml])
                for seed in a.seeds]
        out.append((name, runs))
    return out


def runs_for(a, policy, runs):
    """The runs `policy` takes part in: Quincy only the --quincy-hours of SWIM."""
    if policy != "quincy":
        return runs
    return [(k, args) for k, args in runs if k[1] is None or k[1] in a.quincy_hours]


def preemption(timeout):
    """The preemption flags: off, or the timeout with the default kill wait (named, so a
    cached run of another kill wait is not reused)."""
    flags = ["--preemption-timeout", "%g" % timeout]
    return flags + (["--preemption-kill-wait", "%g" % KILL_WAIT] if timeout > 0 else [])


def calls_for(a, workloads):
    """Every call: (key, args); key = (workload, timeout, policy, setting, run key)."""
    calls = []
    for name, runs in workloads:
        for timeout in a.timeouts:
            for policy in a.policies:
                for value, flags in POLICIES[policy]:
                    for key, args in runs_for(a, policy, runs):
                        calls.append(((name, timeout, policy, value, key),
                                      args + ["--policy", policy] + preemption(timeout)
                                      + flags))
    return calls


def best_runs(a, results, name, runs, timeout, policy):
    """{run key: row} of policy's best setting (lowest mean JCT) over `runs`, and it."""
    options = {}
    for value, _ in POLICIES[policy]:
        rows = {k: results[(name, timeout, policy, value, k)][0] for k, _ in runs}
        options[value] = {k: r for k, r in rows.items() if r["jobs"] > 0}
    best = min(options, key=lambda v: tenancy.mean(r["mean_jct_s"] for r in options[v].values()))
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
        "us_task": tenancy.mean(1e6 * r["wall_seconds"] / r["tasks"] for r in runs),
        "tenants": [(q["name"], tenancy.mean(r["queues"][i]["mean_jct_s"] for r in runs
                                             if r["queues"][i]["jobs_done"]),
                     tenancy.mean(r["queues"][i]["p95_jct_s"] for r in runs
                                  if r["queues"][i]["jobs_done"]))
                    for i, q in enumerate(runs[0]["queues"]) if any(
                        r["queues"][i]["jobs_done"] for r in runs)],
    }


def rows_of(a, workloads, results):
    """One summary per (workload, timeout, policy), ratios against CS on the same runs."""
    rows = []
    for name, runs in workloads:
        for timeout in a.timeouts:
            cs, _ = best_runs(a, results, name, runs, timeout, CS)
            for policy in a.policies:
                mine, value = best_runs(a, results, name, runs_for(a, policy, runs), timeout,
                                        policy)
                keys = [k for k in mine if k in cs]
                if not keys:
                    continue
                s = summarize([mine[k] for k in keys], [cs[k] for k in keys])
                s.update(workload=name, timeout=timeout, runs=len(keys),
                         policy="%s (%s)" % (policy, value) if value else policy)
                rows.append(s)
    return rows


def render(rows):
    head = ("| workload | timeout | policy (best setting) | runs | mean JCT (s) | vs CS | worst "
            "tenant vs CS | p95 JCT (s) | TTG p50 (s) | TTG p99 median (worst) (s) | deficit "
            "(share-s) | preempted, mean (max) | locality | × bound | µs/task |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for s in rows:
        lines.append(
            "| %s | %s | %s | %d | %.1f | %.3f | %.3f | %.1f | %.1f | %.1f (%.1f) | %.1f | "
            "%.2f%% (%.2f%%) | %.3f | %.2f | %.0f |" % (
                s["workload"], "off" if s["timeout"] == 0 else "%g s" % s["timeout"], s["policy"],
                s["runs"], s["jct"], s["vs_cs"], s["tenant"], s["p95"], s["ttg_p50"], s["ttg_p99"],
                s["ttg_p99_max"], s["deficit"], 100 * s["preempted"], 100 * s["preempted_max"],
                s["locality"], s["bound"], s["us_task"]))
    return "\n".join(lines) + "\n"


def render_tenants(rows):
    """Each tenant's mean / p95 JCT per workload, timeout and policy."""
    lines = ["| workload | timeout | policy | each tenant: mean / p95 JCT (s) |",
             "|---|---|---|---|"]
    for s in rows:
        lines.append("| %s | %s | %s | %s |" % (
            s["workload"], "off" if s["timeout"] == 0 else "%g s" % s["timeout"], s["policy"],
            ", ".join("%s %.1f / %.1f" % t for t in s["tenants"])))
    return "\n".join(lines) + "\n"


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=None, help="where locsched-sim is (default build/release)")
    ap.add_argument("--traces", default="../shared/data/traces",
                    help="the folder holding swim-fb/ and hadoop-rumen/")
    ap.add_argument("--hours", default="1,5,9,13,17,21", help="FB-2009 hours of both files")
    ap.add_argument("--quincy-hours", default="5", help="the hours Quincy runs")
    ap.add_argument("--seeds", default="1,2", help="--seed and --placement-seed of each run")
    ap.add_argument("--workloads", default="3 tenants,5 tenants,burst,Rumen users,"
                    "JobHistory users", help="a comma list of the workloads described above")
    ap.add_argument("--policies", default=",".join(POLICIES), help="a comma list of %s" %
                    ", ".join(POLICIES))
    ap.add_argument("--timeouts", default="0,30", help="--preemption-timeout values, s")
    ap.add_argument("--jobs", type=int, default=2, help="runs in parallel")
    ap.add_argument("--cache", default=None, help="keep and reuse each call's rows here")
    ap.add_argument("--out", default=None, help="also write the tables to this file")
    a = ap.parse_args()
    try:
        a.hours, a.seeds = tenancy.parse_list(a.hours), tenancy.parse_list(a.seeds)
        a.quincy_hours = tenancy.parse_list(a.quincy_hours)
        a.timeouts = tenancy.parse_list(a.timeouts, float)
    except ValueError as e:
        sys.exit("tenant_league: --hours, --quincy-hours, --seeds and --timeouts take comma "
                 "lists (%s)" % e)
    a.workloads = [w.strip() for w in a.workloads.split(",") if w.strip()]
    known = ["3 tenants", "5 tenants", "burst"] + [n for n, _, _ in RUMEN]
    if any(w not in known for w in a.workloads):
        sys.exit("tenant_league: --workloads: choose among %s" % ", ".join(known))
    a.policies = [p for p in a.policies.split(",") if p]
    if any(p not in POLICIES for p in a.policies) or CS not in a.policies:
        sys.exit("tenant_league: --policies: choose among %s, %s included" % (
            ", ".join(POLICIES), CS))
    return a


def main():
    a = parse_args()
    traces = [os.path.join(a.traces, f) for f in tenancy.SWIM_FILES]
    if not all(os.path.exists(t) for t in traces):
        print("tenant_league: skipped: the SWIM traces are not under %s" % a.traces)
        return 0
    here = os.path.dirname(os.path.abspath(__file__))
    build = a.build or os.path.join(here, "..", "build", "release")
    sim = os.path.join(build, "tools", "locsched-sim")
    if not os.path.exists(sim):
        sys.exit("tenant_league: no %s (build it, or give --build)" % sim)
    workloads = swim_workloads(a, traces) + rumen_workloads(a)
    calls = calls_for(a, workloads)
    results = tenancy.run_pool(sim, calls, a.jobs, tenancy.load_cache(a.cache), a.cache)
    rows = rows_of(a, workloads, results)
    table = render(rows) + "\n" + render_tenants(rows)
    print(table)
    if a.out:
        with open(a.out, "w") as f:
            f.write(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
