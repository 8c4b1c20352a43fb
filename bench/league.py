#!/usr/bin/env python3
"""The league: every policy of the core (locsched-sim --list-policies), and variants,
against every workload, at remote slowdowns of 4x, 2x and 1.25x. Delay scheduling gets
its best wait per workload from a sweep.

Workloads:
  slotted  the paper's model (1,000 machines, 800 holding data, alpha 0.8, gamma =
           alpha / slowdown), geometric and Pareto job sizes (mean 300), at 30, 60, 85
           and 97% of capacity; --slots slots each; JCT is the mean job delay in slots
  swim     every hour of both bundled FB-2009 SWIM files, the cluster sized so the hour's
           work (run local) fills 60% and 85% of it (locsched-sim --utilization)
  google   the bundled Google job_events part, sized to 60% and 85% the same way
  jobhistory, rumen  the bundled Hadoop logs on the hosts they name
Trace workloads run in locsched-sim --trace (the emulator's cluster model: Exp 25 s
local tasks, heartbeats every 3 s).

JSQ+MaxWeight, with and without remote_bias, and late binding also run each trace
workload with the daemon's rebalancing (--rebalance), LP priority (--lp-priority) and
both, at remote 4x on the trace workloads not sized to 85% (there a rebalancing run
alone costs 10-20 s of CPU); the slotted model has no rebalancer.

Every locsched-sim call is one independent run of a pool (--jobs at a time, default 2;
identical calls run once); a progress line counts them. The end prints the wall time
and the CPU time (user + sys) of all the runs: CPU / 2 is the wall time on an idle
2-core machine.

Writes OUT.jsonl (one row per run), OUT.md (the tables) and OUT.png (the chart, if
matplotlib is there; bench/plot_league.py). Usage:
  python3 bench/league.py [--build DIR] [--out docs/league] [--jobs N] [--hours LIST]
                          [--slots N] [--traces DIR]
Runs with traces skip, with a message, when the traces are absent.
"""
import argparse
import concurrent.futures
import json
import math
import os
import resource
import subprocess
import sys
import time

SLOWDOWNS = [4, 2, 1.25]
SLOTTED_LOADS = [0.3, 0.6, 0.85, 0.97]  # shares of capacity
SLOTTED_WAITS = [1, 3, 10]  # delay scheduling's wait in slots
TRACE_WAITS = [5, 10, 20, 40, 80, 160]  # ... in seconds
UTILIZATIONS = [0.6, 0.85]
FAMILIES = ["slotted", "swim", "google", "jobhistory", "rumen"]
SWIM_FILES = ["swim-fb/FB-2009_samples_24_times_1hr_0.tsv",
              "swim-fb/FB-2009_samples_24_times_1hr_1.tsv"]
OTHER_TRACES = [("jobhistory", "hadoop-rumen/sample-job-tracker-logs.gz", None),
                ("rumen", "hadoop-rumen/input-trace.json", None),
                ("google", "google-clusterdata-2011-2/job_events/part-00001-of-00500.csv.gz",
                 UTILIZATIONS)]
BIAS = 2  # JSQ+MaxWeight's remote_bias variant
FAIR_ORDER = ["--policy", "late-binding", "--job-order", "fair"]  # the default without job-aware order
# The daemon's extras, on JSQ+MaxWeight with and without its bias and on late binding
# (trace workloads only).
EXTRAS = [("rebalance", ["--rebalance"]), ("lp", ["--lp-priority"]),
          ("rebalance+lp", ["--rebalance", "--lp-priority"])]


def sim_lines(sim, args, variant=None):
    """Runs one call; returns its rows and its wall time."""
    start = time.time()
    out = subprocess.run([sim, "-q"] + args, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError("locsched-sim %s failed: %s" % (" ".join(args), out.stderr.strip()))
    rows = [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
    for r in rows:
        r["variant"] = variant
    return rows, time.time() - start


def label(row):
    if row["policy"] == "delay":
        return "delay"
    name = row["policy"]
    if row["policy"] == "jsq-maxweight" and row.get("remote_bias", 0):
        name += "+bias%d" % row["remote_bias"]
    if row.get("variant"):
        name += "+" + row["variant"]
    return name


def slotted_runs(policies, dist, slowdown, slots):
    """Every policy over the loads (one call each: the pool balances them), delay at each
    wait, and JSQ+MaxWeight with its bias: (args, variant, rows-maker) per call."""
    gamma = 0.8 / slowdown
    capacity = 800 * 0.8 + 200 * gamma
    loads = ",".join("%.1f" % (f * capacity) for f in SLOTTED_LOADS)
    base = ["--json", "--threads", "1", "--slots", str(slots), "--job-size-dist", dist,
            "--gamma", "%g" % gamma, "--sweep", loads]
    calls = [(base + ["--policy", p], None) for p in policies if p != "delay"]
    calls.append((base + ["--policy", "jsq-maxweight", "--remote-bias", str(BIAS)], None))
    if "late-binding" in policies:
        calls.append((base + FAIR_ORDER, "fair"))
    if "delay" in policies:
        for w in SLOTTED_WAITS:
            calls.append((base + ["--policy", "delay", "--delay-wait", str(w)], None))
    make = lambda runs: slotted_rows(runs, dist, slowdown)
    return [(args, variant, make) for args, variant in calls]


def slotted_rows(runs, dist, slowdown):
    rows = []
    for r in runs:
        share = r["load"] / r["capacity"]
        rows.append({
            "family": "slotted-" + dist, "workload": "%s load %.0f%%" % (dist, 100 * share),
            "load_share": share, "slowdown": slowdown, "policy": r["policy"],
            "label": label(r), "delay_wait": r.get("delay_wait"), "remote_bias": r["remote_bias"],
            "mean_jct": r["mean_job_delay"], "p95_jct": None,
            "mean_task_wait": r["mean_task_delay"], "locality": r["locality"],
            "throughput": r["throughput"], "stable": r["stable"], "unit": "slots"})
    return rows


def trace_runs(policies, family, fmt, path, hour, util):
    """One call for every policy (delay with every wait) at every slowdown, JSQ+MaxWeight with
    its bias, late binding with fair job order, and JSQ+MaxWeight's rebalance and LP variants (at 4x
    and below 85% only: a rebalancing run costs 20 to 300 plain ones)."""
    base = ["--json", "--trace", path, "--format", fmt,
            "--remote-slowdown", ",".join("%g" % s for s in SLOWDOWNS)]
    if hour is not None:
        base += ["--hour", str(hour)]
    if util is not None:
        base += ["--utilization", str(util)]
    calls = [(base + ["--policy", ",".join(policies),
                      "--delay-wait", ",".join(str(w) for w in TRACE_WAITS)], None)]
    calls.append((base + ["--policy", "jsq-maxweight", "--remote-bias", str(BIAS)], None))
    if "late-binding" in policies:
        calls.append((base + FAIR_ORDER, "fair"))
    at_4x = [a for a in base if a != base[base.index("--remote-slowdown") + 1]]
    at_4x.insert(at_4x.index("--remote-slowdown") + 1, "4")
    # At 85% a rebalancing run costs 10-20 s of CPU (its timer fires every simulated second
    # over a large backlog): the extras run on the workloads sized to 60% and the others.
    bases = [["--policy", "jsq-maxweight", "--remote-bias", str(b)] for b in (0, BIAS)]
    if "late-binding" in policies:
        bases.append(["--policy", "late-binding"])
    for base_flags in bases if util is None or util < 0.7 else ():
        for variant, flags in EXTRAS:
            calls.append((at_4x + base_flags + flags, variant))
    make = lambda runs: trace_rows(runs, family, path, hour, util)
    return [(args, variant, make) for args, variant in calls]


def trace_rows(runs, family, path, hour, util):
    name = os.path.basename(path)
    if hour is not None:
        name += " h%d" % hour
    if util is not None:
        name += " @%d%%" % round(100 * util)
    rows = []
    for r in runs:
        if r["jobs"] == 0:
            continue
        rows.append({
            "family": family, "workload": name, "machines": r["machines"],
            "offered_load": r["offered_load"], "slowdown": r["remote_slowdown"],
            "policy": r["policy"], "label": label(r), "delay_wait": r["delay_wait_s"],
            "remote_bias": r["remote_bias"], "mean_jct": r["mean_jct_s"], "p95_jct": r["p95_jct_s"],
            "mean_task_wait": r["mean_task_wait_s"], "locality": r["locality"],
            "throughput": r["throughput"], "stable": r["stable"], "jobs": r["jobs"],
            "tasks": r["tasks"], "idle_holder_per_task": r["idle_holder_per_task_s"],
            "buckets": r["jct_buckets"], "rebalance_runs": r.get("rebalance_runs", 0),
            "lp_solves": r.get("lp_solves", 0), "wall_s": r["wall_seconds"], "unit": "s"})
    return rows


def best_delay(rows):
    """Per workload and slowdown, keeps delay's best wait (lowest mean JCT) as 'delay'."""
    best, kept = {}, []
    for r in rows:
        if r["policy"] != "delay":
            kept.append(r)
            continue
        key = (r["family"], r["workload"], r["slowdown"])
        score = r["mean_jct"] if r["mean_jct"] is not None and r["stable"] else math.inf
        if key not in best or score < best[key][0]:
            best[key] = (score, r)
    for _, r in best.values():
        kept.append(dict(r, label="delay"))
    return kept


def geomean(values):
    values = [v for v in values if v and v > 0 and math.isfinite(v)]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def fmt(v, digits=1):
    return "-" if v is None else ("%.*f" % (digits, v))


def summary_tables(rows, labels):
    """One table per family: per slowdown and policy, averages over its workloads and the
    geometric mean of the policy's mean (and p95) JCT over best-tuned delay's."""
    by_key = {(r["family"], r["workload"], r["slowdown"], r["label"]): r for r in rows}
    families = sorted({r["family"] for r in rows})
    out = []
    for fam in families:
        unit = next(r["unit"] for r in rows if r["family"] == fam)
        loads = sorted({r["workload"] for r in rows if r["family"] == fam})
        out.append("\n### %s (%d workloads; times in %s)\n" % (fam, len(loads), unit))
        out.append("| slowdown | policy | mean JCT | p95 JCT | mean JCT / delay's | p95 / delay's "
                   "| mean task %s | locality | throughput | stable |" %
                   ("delay" if unit == "slots" else "wait"))
        out.append("|---|---|---|---|---|---|---|---|---|---|")
        for sd in SLOWDOWNS:
            for lab in labels:
                rs = [by_key.get((fam, w, sd, lab)) for w in loads]
                rs = [r for r in rs if r]
                if not rs:
                    continue
                ratio, ratio95 = [], []
                for r in rs:
                    d = by_key.get((fam, r["workload"], sd, "delay"))
                    if d and r["stable"] and d["stable"] and d["mean_jct"]:
                        ratio.append(r["mean_jct"] / d["mean_jct"])
                        if r["p95_jct"] and d["p95_jct"]:
                            ratio95.append(r["p95_jct"] / d["p95_jct"])
                stable = [r for r in rs if r["stable"] and r["mean_jct"] is not None]
                avg = lambda k: (sum(r[k] for r in stable if r[k] is not None) / len(stable)
                                 if stable and all(r[k] is not None for r in stable) else None)
                out.append("| %gx | %s | %s | %s | %s | %s | %s | %s | %s | %d/%d |" % (
                    sd, lab, fmt(avg("mean_jct")), fmt(avg("p95_jct")),
                    fmt(geomean(ratio), 2), fmt(geomean(ratio95), 2), fmt(avg("mean_task_wait")),
                    fmt(avg("locality"), 4), fmt(avg("throughput"), 2), len(stable), len(rs)))
    return "\n".join(out)


def bucket_table(rows, labels):
    """Trace workloads at 4x: JCT by job size (job-weighted mean over workloads) and the
    task-seconds queued beside an idle replica holder, per task."""
    out = ["| family | policy | 1 task | 2-10 | 11-100 | 101-1000 | >1000 | idle-holder s/task |",
           "|---|---|---|---|---|---|---|---|"]
    fams = sorted({r["family"] for r in rows if r["unit"] == "s"})
    for fam in fams:
        for lab in labels:
            rs = [r for r in rows if r["family"] == fam and r["label"] == lab and r["slowdown"] == 4]
            if not rs:
                continue
            cells = []
            for b in range(5):
                jobs = sum(r["buckets"][b]["jobs"] for r in rs)
                total = sum(r["buckets"][b]["jobs"] * r["buckets"][b]["mean_jct_s"] for r in rs)
                cells.append(fmt(total / jobs) if jobs else "-")
            idle = sum(r["idle_holder_per_task"] * r["tasks"] for r in rs) / max(
                1, sum(r["tasks"] for r in rs))
            out.append("| %s | %s | %s | %s |" % (fam, lab, " | ".join(cells), fmt(idle, 2)))
    return "\n".join(out)


def slotted_table(rows, labels):
    """The paper's model at 4x: mean job delay (slots) per load; '(u)' marks unstable."""
    out = []
    for dist in ("geometric", "pareto"):
        fam = "slotted-" + dist
        rs = [r for r in rows if r["family"] == fam and r["slowdown"] == 4]
        if not rs:
            continue
        labels = [lab for lab in labels if any(r["label"] == lab for r in rs)]
        out.append("\n%s job sizes, remote 4x slower:\n" % dist.capitalize())
        out.append("| load | " + " | ".join(labels) + " |")
        out.append("|---" * (len(labels) + 1) + "|")
        for share in SLOTTED_LOADS:
            cells = []
            for lab in labels:
                r = next((r for r in rs if r["label"] == lab and abs(r["load_share"] - share) < 0.01),
                         None)
                if r is None:
                    cells.append("-")
                elif not r["stable"] or r["mean_jct"] is None:
                    cells.append("unstable")
                else:
                    w = " (W=%g)" % r["delay_wait"] if lab == "delay" and r["delay_wait"] else ""
                    cells.append("%.1f%s" % (r["mean_jct"], w))
            out.append("| %d%% | %s |" % (round(100 * share), " | ".join(cells)))
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=None, help="where locsched-sim is (default build/release, "
                    "else build/dev)")
    ap.add_argument("--out", default="docs/league", help="OUT.md, OUT.png; rows to "
                    "docs/figures/<basename>.jsonl")
    ap.add_argument("--jobs", type=int, default=2, help="runs in parallel")
    ap.add_argument("--hours", default="0-23", help="SWIM hours, e.g. 0-23 or 0,6,12,18")
    ap.add_argument("--slots", type=int, default=5000, help="slots per slotted run")
    ap.add_argument("--traces", default="../shared/data/traces")
    ap.add_argument("--families", default=",".join(FAMILIES),
                    help="workload families to run, a comma list of " + ", ".join(FAMILIES))
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.chdir(root)
    build = a.build or ("build/release" if os.path.exists("build/release/tools/locsched-sim")
                        else "build/dev")
    sim = os.path.join(build, "tools/locsched-sim")
    if not os.access(sim, os.X_OK):
        sys.exit("league: no %s: build it first (bash tools/build.sh release)" % sim)
    policies = subprocess.run([sim, "--list-policies"], capture_output=True, text=True,
                              check=True).stdout.split()
    if "-" in a.hours and "," not in a.hours:
        lo, hi = a.hours.split("-")
        hours = list(range(int(lo), int(hi) + 1))
    else:
        hours = [int(h) for h in a.hours.split(",")]
    families = a.families.split(",")
    unknown = [f for f in families if f not in FAMILIES]
    if unknown:
        sys.exit("league: --families: unknown %s (known: %s)" % (", ".join(unknown),
                                                                 ", ".join(FAMILIES)))
    start = time.time()
    calls = []  # the slotted model's long runs first, so the pool ends on short ones
    for dist in ("geometric", "pareto") if "slotted" in families else ():
        for sd in SLOWDOWNS:
            calls += slotted_runs(policies, dist, sd, a.slots)
    if os.path.isdir(a.traces):
        for rel in SWIM_FILES if "swim" in families else ():
            for h in hours:
                for u in UTILIZATIONS:
                    calls += trace_runs(policies, "swim-%d%%" % round(100 * u), "swim",
                                        os.path.join(a.traces, rel), h, u)
        for fmt_name, rel, utils in OTHER_TRACES:
            if fmt_name not in families:
                continue
            for u in utils or [None]:
                fam = fmt_name if u is None else "%s-%d%%" % (fmt_name, round(100 * u))
                calls += trace_runs(policies, fam, fmt_name, os.path.join(a.traces, rel), None, u)
    else:
        print("league: %s is absent: the trace workloads are skipped (only the paper's "
              "model runs)" % a.traces, file=sys.stderr)
    rows, cpu, wall = run_pool(sim, calls, a.jobs, start)
    figures = os.path.join(os.path.dirname(a.out) or ".", "figures")
    os.makedirs(figures, exist_ok=True)
    jsonl = os.path.join(figures, os.path.basename(a.out) + ".jsonl")
    with open(jsonl, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    table = best_delay(rows)
    labels = [p for p in policies if p != "jsq-maxweight"] + ["jsq-maxweight",
                                                               "jsq-maxweight+bias%d" % BIAS]
    if "late-binding" in policies:
        labels.insert(labels.index("late-binding") + 1, "late-binding+fair")
    labels = sorted(set(labels), key=labels.index)
    labels += ["jsq-maxweight%s+%s" % (b, v) for b in ("", "+bias%d" % BIAS) for v, _ in EXTRAS]
    if "late-binding" in policies:
        at = labels.index("late-binding+fair") + 1
        labels[at:at] = ["late-binding+%s" % v for v, _ in EXTRAS]
    with open(a.out + ".md", "w") as f:
        f.write(render(table, labels, a, hours, wall, cpu, jsonl))
    plot = subprocess.run([sys.executable, "bench/plot_league.py", jsonl, a.out + ".png"],
                          capture_output=True, text=True)
    if plot.returncode != 0:
        print("league: no chart: %s" % plot.stderr.strip().splitlines()[-1:], file=sys.stderr)
    print("league: %d rows in %.0f s of wall time, %.0f s of CPU time (user + sys; %.0f s on an "
          "idle 2-core machine); wrote %s.md and %s" % (len(rows), wall, cpu, cpu / 2, a.out, jsonl),
          file=sys.stderr)


def run_pool(sim, calls, jobs, start):
    """Runs each distinct call once, `jobs` at a time, with a progress line; returns the
    rows, the CPU time (user + sys) the calls used, and the wall time."""
    distinct, seen = [], set()
    for args, variant, make in calls:
        key = tuple(args)
        if key not in seen:
            seen.add(key)
            distinct.append((args, variant, make))
    if len(distinct) < len(calls):
        print("league: %d identical calls run once" % (len(calls) - len(distinct)), file=sys.stderr)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    rows, costs = [], []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(sim_lines, sim, args, variant): (make, args)
                   for args, variant, make in distinct}
        for i, f in enumerate(concurrent.futures.as_completed(futures)):
            got, seconds = f.result()
            rows += futures[f][0](got)
            costs.append((seconds, futures[f][1]))
            done, elapsed = i + 1, time.time() - start
            eta = elapsed / done * (len(distinct) - done)
            bar = "#" * (30 * done // len(distinct))
            print("\rleague: [%-30s] %d/%d runs, %.0f s, about %.0f s left " % (
                bar, done, len(distinct), elapsed, eta), end="", file=sys.stderr)
    print(file=sys.stderr)
    costs.sort(key=lambda c: -c[0])
    print("league: the longest runs (wall s):", file=sys.stderr)
    for seconds, args in costs[:8]:
        print("  %6.1f  %s" % (seconds, " ".join(os.path.basename(a) for a in args)), file=sys.stderr)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return rows, cpu, time.time() - start


def render(table, labels, a, hours, wall, cpu, jsonl):
    hours_text = "every hour" if len(hours) == 24 else "hours " + ",".join(map(str, hours))
    return """# League: every policy against the best-tuned delay scheduling

Generated by `bash bench/league.sh` (bench/league.py, %d runs at a time at nice 19) in
%.0f s of wall time and %.0f s of CPU time (user + sys: %.0f s on an idle 2-core machine);
raw rows: `%s`. SWIM: %s of both FB-2009 files. Delay scheduling's wait is the best
(lowest mean JCT) of %s s per trace workload, and of %s slots per slotted one.
`jsq-maxweight+bias%d` is JSQ+MaxWeight with `remote_bias` %d; `late-binding` is the default
(shortest remaining work first, aging bound 300 s); `late-binding+fair` is late binding with
fair sharing's job order, to show what job-aware order adds. `+rebalance` is the
daemon's rebalancing (`locsched-sim --trace --rebalance`: for JSQ+MaxWeight max-cover
over the queued backlog on its big-job, imbalance and timer triggers; for late binding
remote permits for the queued tasks of jobs of 1,000+ tasks), `+lp` LP priority
(`--lp-priority`: the backlog LP re-solved on the daemon's timer orders the jobs), both
on the simulated clock; they run on the trace workloads at remote 4x, except those sized
to 85%% (the slotted model has no rebalancer). A ratio is the geometric mean, over the family's workloads where both
are stable, of the policy's JCT over best-tuned delay's: below 1 beats it.

## Summary by workload family
%s

## The paper's model by load
%s

## JCT by job size and the cost of early binding (trace workloads, remote 4x)

Job-weighted mean JCT (s) by the job's task count, and the task-seconds each task spent
queued while one of its replica holders had a free slot.

%s
""" % (a.jobs, wall, cpu, cpu / 2, jsonl, hours_text, ", ".join(map(str, TRACE_WAITS)),
       ", ".join(map(str, SLOTTED_WAITS)), BIAS, BIAS, summary_tables(table, labels),
       slotted_table(table, labels), bucket_table(table, labels))


if __name__ == "__main__":
    main()
