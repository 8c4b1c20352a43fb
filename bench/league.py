#!/usr/bin/env python3
"""The league: every policy of the core (locsched-sim --list-policies), and variants,
against every workload, at remote slowdowns of 4x, 2x and 1.25x, each run with several
seeds, and each beside its lower bound. Delay scheduling gets its best wait per workload
and slowdown from a sweep (0, go remote at once, to 160 s).

Workloads:
  slotted  the paper's model (1,000 machines, 800 holding data, alpha 0.8, gamma =
           alpha / slowdown), geometric and Pareto job sizes (mean 300), at 30, 60, 85
           and 97% of capacity; --slots slots each; JCT is the mean job delay in slots
  swim     a sample of hours (--hours) of both bundled FB-2009 SWIM files, the cluster
           sized so the hour's work (run local) fills 60% and 85% of it
           (locsched-sim --utilization)
  skew     the same hours on skewed clusters: every replica on 20, 30, 40 or 50% of the
           machines (--hot-share), loaded to 60% of what the cluster can run at 4x
           (u = 0.6 (h + (1 - h) / 4)); and a new rack of machines that hold nothing
           (--new-rack-share, when this locsched-sim has it)
  inputs   FB-2010 with input paths (jobs that read one input share its blocks' holders),
           hours --inputs-hours, at 40% and 80% load (when the trace and this
           locsched-sim's input-path support are there)
  google   the bundled Google job_events part, sized to 60% and 85% the same way
  jobhistory, rumen  the bundled Hadoop logs on the hosts they name
  models   only when named: 22 cluster models the others do not run, one hour each
           (MODELS): hot shares of 15-70%, 10 and 20 racks, new machines holding
           nothing, loads of 45-92%, heartbeats of 1 and 10 s, 8 and 60 s tasks, fixed
           task times, a denser replay, another placement seed, Google at 70% and
           FB-2010 hours 2, 7 and 11 (all 3,000 machines in hour 11); 5 seeds take about
           25 minutes on 2 cores, most of it FB-2010 hour 7 at 85%
Trace workloads run in locsched-sim --trace (the emulator's cluster model: Exp 25 s
local tasks, heartbeats every 3 s).

Every trace figure is the mean over --seeds (task times, and the synthesized placement,
are drawn per seed; the slotted model's long stationary runs use the first seed); delay's best wait is the one with the lowest seed-averaged mean. A
workload-slowdown where no policy is stable is reported as such and left out of the
ratios. "x bound" is the mean JCT over the run's lower bound (docs/simulator.md).

JSQ+MaxWeight, with and without remote_bias, and late binding also run each trace
workload of the swim, google, jobhistory and rumen families with the daemon's
rebalancing (--rebalance), LP priority (--lp-priority) and both, at remote 4x and the
first seed, on the workloads not sized to 85% (there a rebalancing run alone costs
10-20 s of CPU); the slotted model has no rebalancer.

Every locsched-sim call is one independent run of a pool (--jobs at a time, default 2;
identical calls run once); a progress line counts them. The end prints the wall time
and the CPU time (user + sys) of all the runs: CPU / 2 is the wall time on an idle
2-core machine.

Writes OUT.jsonl (one row per run), OUT.md (the tables) and OUT.png (the chart, if
matplotlib is there; bench/plot_league.py). Usage:
  python3 bench/league.py [--build DIR] [--out docs/league] [--jobs N] [--hours LIST]
                          [--seeds LIST] [--slots N] [--traces DIR] [--families LIST]
                          [--sim-args "FLAGS"]
--sim-args adds locsched-sim flags to every trace run, to replay the league on another
cluster model: say "--local-mean 60 --heartbeat 10 --racks 20 --placement-seed 7"
(flags the league sets itself, such as --utilization or --seed, are refused, and with
the models family so are the flags a model sets, such as --racks).
Runs with traces skip, with a message, when the traces are absent.
"""
import argparse
import concurrent.futures
import functools
import json
import math
import os
import re
import resource
import shlex
import subprocess
import sys
import time

SLOWDOWNS = [4, 2, 1.25]
SLOTTED_LOADS = [0.3, 0.6, 0.85, 0.97]  # shares of capacity
SLOTTED_WAITS = [0, 1, 3, 10]  # delay scheduling's wait in slots
TRACE_WAITS = [0, 5, 10, 20, 40, 80, 160]  # ... in seconds
UTILIZATIONS = [0.6, 0.85]
HOT_SHARES = [0.2, 0.3, 0.4, 0.5]
SKEW_LOAD = 0.6  # of the skewed cluster's capacity at 4x
EMPTY_RACK_SHARE = 0.25  # a new rack: this share of the machines, holding nothing
INPUT_UTILIZATIONS = [0.4, 0.8]
FAMILIES = ["slotted", "swim", "skew", "inputs", "google", "jobhistory", "rumen"]
OPT_IN = ["models"]  # families run only when --families names them
SWIM_FILES = ["swim-fb/FB-2009_samples_24_times_1hr_0.tsv",
              "swim-fb/FB-2009_samples_24_times_1hr_1.tsv"]
INPUT_FILE = "swim-fb/FB-2010_withInputPaths_0_hours00-11.tsv"
OTHER_TRACES = [("jobhistory", "hadoop-rumen/sample-job-tracker-logs.gz", None),
                ("rumen", "hadoop-rumen/input-trace.json", None),
                ("google", "google-clusterdata-2011-2/job_events/part-00001-of-00500.csv.gz",
                 UTILIZATIONS)]
GOOGLE_FILE = OTHER_TRACES[2][1]


def capacity_at_4x(share):
    """What a cluster with every replica on `share` of its machines runs at remote 4x, as a
    share of its slots: the hot machines local, the others at a quarter of the speed."""
    return share + (1 - share) / 4


# The models family: cluster models the other families do not run, each one workload of
# (name, kind, trace, hour, flags). The trace is an index into SWIM_FILES, "inputs" or
# "google"; the kind names its family (models-skewed and models-inputs hold skewed data,
# models-heavy runs at 85% or more: `hard` holds the default to 0.85 there). A skewed
# model's load is SKEW_LOAD of its capacity at 4x, as in the skew family. The longest come
# first (FB-2010 hour 7 at 85%: 6 minutes a seed), so that the pool ends on short runs.
MODELS = [
    ("60% load", "inputs", "inputs", 2, ["--utilization", "0.6"]),
    ("85% load", "inputs", "inputs", 7, ["--utilization", "0.85"]),
    ("3,000 machines", "inputs", "inputs", 11, []),
    ("15% hot", "skewed", 0, 7, ["--hot-share", "0.15"]),
    ("60% hot", "skewed", 1, 7, ["--hot-share", "0.6"]),
    ("70% hot", "skewed", 0, 15, ["--hot-share", "0.7"]),
    ("30% hot at 80% of capacity", "skewed", 1, 15, ["--hot-share", "0.3", "--utilization",
                                                      "%.3f" % (0.8 * capacity_at_4x(0.3))]),
    ("25% hot, 10 racks", "skewed", 0, 22, ["--hot-share", "0.25", "--racks", "10"]),
    ("30% hot, fixed task times", "skewed", 0, 9, ["--hot-share", "0.3", "--fixed-durations"]),
    ("40% hot, placement seed 7", "skewed", 0, 5, ["--hot-share", "0.4", "--placement-seed", "7"]),
    ("40% new machines in 8 racks", "skewed", 1, 23, ["--racks", "8", "--new-rack-share", "0.4",
                                                      "--utilization", "0.5"]),
    ("10% new machines", "skewed", 0, 6, ["--new-rack-share", "0.1", "--utilization", "0.65"]),
    ("45% load", "uniform", 0, 6, ["--utilization", "0.45"]),
    ("75% load", "uniform", 1, 14, ["--utilization", "0.75"]),
    ("20 racks", "uniform", 1, 12, ["--racks", "20", "--utilization", "0.7"]),
    ("1 s heartbeats", "uniform", 0, 8, ["--heartbeat", "1", "--utilization", "0.6"]),
    ("10 s heartbeats", "uniform", 1, 8, ["--heartbeat", "10", "--utilization", "0.6"]),
    ("twice as dense", "uniform", 1, 10, ["--time-scale", "0.5", "--utilization", "0.6"]),
    ("Google at 70%", "uniform", "google", None, ["--utilization", "0.7"]),
    ("92% load", "heavy", 0, 20, ["--utilization", "0.92"]),
    ("60 s tasks", "heavy", 0, 16, ["--local-mean", "60", "--utilization", "0.85"]),
    ("8 s tasks", "heavy", 1, 4, ["--local-mean", "8", "--utilization", "0.85"]),
]
BIAS = 2  # JSQ+MaxWeight's remote_bias variant
# Quincy re-solves a min-cost flow on events: it runs on a sampled subset, the SWIM hours
# and the skewed clusters (0.4-2.5 s a run, 1.5-3x late binding). Measured too slow for the
# budget elsewhere: the paper's model (56 s for a 5,000-slot run, 40x late binding: every
# machine frees a slot each slot) and FB-2010 with input paths (27-38 s a run, 3x).
SAMPLED = {"quincy": ("swim", "skew", "models-skewed", "models-uniform", "models-heavy")}
FAIR_ORDER = ["--policy", "late-binding", "--job-order", "fair"]  # the default without job-aware order
# The daemon's extras, on JSQ+MaxWeight with and without its bias and on late binding
# (trace workloads only).
EXTRAS = [("rebalance", ["--rebalance"]), ("lp", ["--lp-priority"]),
          ("rebalance+lp", ["--rebalance", "--lp-priority"])]
# Flags the league sets on trace runs itself (--sim-args may not repeat them).
LEAGUE_FLAGS = {"--json", "--trace", "--format", "--hour", "--utilization", "--hot-share",
                "--new-rack-share", "--seed", "--remote-slowdown", "--policy", "--delay-wait",
                "--remote-bias", "--job-order", "--rebalance", "--lp-priority", "--machines"}
# The default's targets against best-tuned delay scheduling, per workload and slowdown.
TARGET_MEAN, TARGET_P95, TARGET_HARD = 1.00, 1.05, 0.85


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


def bound_of(r):
    """The run's lower bound on mean JCT, if this locsched-sim reports one."""
    return r.get("lower_bound_mean_jct_s", r.get("lower_bound_mean_job_delay"))


def slotted_runs(policies, dist, slowdown, slots, seed):
    """Every policy over the loads (one call each: the pool balances them), delay at each
    wait, and JSQ+MaxWeight with its bias: (args, variant, rows-maker) per call."""
    gamma = 0.8 / slowdown
    capacity = 800 * 0.8 + 200 * gamma
    loads = ",".join("%.1f" % (f * capacity) for f in SLOTTED_LOADS)
    base = ["--json", "--threads", "1", "--slots", str(slots), "--job-size-dist", dist,
            "--gamma", "%g" % gamma, "--sweep", loads, "--seed", str(seed)]
    calls = [(base + ["--policy", p], None) for p in policies if p != "delay"]
    calls.append((base + ["--policy", "jsq-maxweight", "--remote-bias", str(BIAS)], None))
    if "late-binding" in policies:
        calls.append((base + FAIR_ORDER, "fair"))
    if "delay" in policies:
        for w in SLOTTED_WAITS:
            calls.append((base + ["--policy", "delay", "--delay-wait", str(w)], None))
    make = lambda runs: slotted_rows(runs, dist, slowdown, seed)
    return [(args, variant, make) for args, variant in calls]


def slotted_rows(runs, dist, slowdown, seed):
    rows = []
    for r in runs:
        share = r["load"] / r["capacity"]
        rows.append({
            "family": "slotted-" + dist, "workload": "%s load %.0f%%" % (dist, 100 * share),
            "load_share": share, "slowdown": slowdown, "seed": seed, "policy": r["policy"],
            "label": label(r), "delay_wait": r.get("delay_wait"), "remote_bias": r["remote_bias"],
            "mean_jct": r["mean_job_delay"], "p95_jct": None, "bound": bound_of(r),
            "mean_task_wait": r["mean_task_delay"], "locality": r["locality"],
            "throughput": r["throughput"], "stable": r["stable"], "unit": "slots"})
    return rows


def trace_runs(policies, family, name, trace_args, seed, extras):
    """One call for every policy (delay with every wait) at every slowdown, JSQ+MaxWeight with
    its bias, late binding with fair job order, and (with `extras`) the daemon's rebalance
    and LP variants at 4x."""
    base = ["--json"] + trace_args + ["--seed", str(seed),
                                      "--remote-slowdown", ",".join("%g" % s for s in SLOWDOWNS)]
    calls = [(base + ["--policy", ",".join(policies),
                      "--delay-wait", ",".join(str(w) for w in TRACE_WAITS)], None)]
    calls.append((base + ["--policy", "jsq-maxweight", "--remote-bias", str(BIAS)], None))
    if "late-binding" in policies:
        calls.append((base + FAIR_ORDER, "fair"))
    at_4x = [a for a in base if a != base[base.index("--remote-slowdown") + 1]]
    at_4x.insert(at_4x.index("--remote-slowdown") + 1, "4")
    bases = [["--policy", "jsq-maxweight", "--remote-bias", str(b)] for b in (0, BIAS)]
    if "late-binding" in policies:
        bases.append(["--policy", "late-binding"])
    for base_flags in bases if extras else ():
        for variant, flags in EXTRAS:
            calls.append((at_4x + base_flags + flags, variant))
    make = lambda runs: trace_rows(runs, family, name, seed)
    return [(args, variant, make) for args, variant in calls]


def trace_rows(runs, family, name, seed):
    rows = []
    for r in runs:
        if r["jobs"] == 0:
            continue
        rows.append({
            "family": family, "workload": name, "machines": r["machines"], "seed": seed,
            "offered_load": r["offered_load"], "slowdown": r["remote_slowdown"],
            "policy": r["policy"], "label": label(r), "delay_wait": r["delay_wait_s"],
            "remote_bias": r["remote_bias"], "mean_jct": r["mean_jct_s"], "p95_jct": r["p95_jct_s"],
            "bound": bound_of(r), "mean_task_wait": r["mean_task_wait_s"],
            "locality": r["locality"], "throughput": r["throughput"], "stable": r["stable"],
            "jobs": r["jobs"], "tasks": r["tasks"],
            "idle_holder_per_task": r["idle_holder_per_task_s"], "buckets": r["jct_buckets"],
            "rebalance_runs": r.get("rebalance_runs", 0), "lp_solves": r.get("lp_solves", 0),
            "wall_s": r["wall_seconds"], "unit": "s"})
    return rows


AVERAGED = ["mean_jct", "p95_jct", "bound", "mean_task_wait", "locality", "throughput",
            "idle_holder_per_task"]


def seed_mean(rows):
    """One row per (family, workload, slowdown, label, delay wait): the mean of each figure
    over its seeds; stable only if every seed's run is."""
    groups = {}
    for r in rows:
        key = (r["family"], r["workload"], r["slowdown"], r["label"], r.get("delay_wait"))
        groups.setdefault(key, []).append(r)
    out = []
    for rs in groups.values():
        row = dict(rs[0], seeds=len(rs), stable=all(r["stable"] for r in rs))
        # Each seed's own figures, for the spread of a ratio over the seeds.
        row["mean_by_seed"] = {r.get("seed"): r.get("mean_jct") for r in rs}
        row["p95_by_seed"] = {r.get("seed"): r.get("p95_jct") for r in rs}
        for k in AVERAGED:
            vals = [r.get(k) for r in rs]
            row[k] = (sum(vals) / len(vals)) if all(v is not None for v in vals) else None
        if rs[0].get("buckets"):
            row["buckets"] = [dict(b, jobs=sum(r["buckets"][i]["jobs"] for r in rs),
                                   mean_jct_s=sum(r["buckets"][i]["jobs"] *
                                                  r["buckets"][i]["mean_jct_s"] for r in rs) /
                                   max(1, sum(r["buckets"][i]["jobs"] for r in rs)))
                              for i, b in enumerate(rs[0]["buckets"])]
        out.append(row)
    return out


def best_delay(rows):
    """Per workload and slowdown, keeps delay's best wait (lowest seed-averaged mean JCT) as
    'delay', with the best p95 any wait reaches as best_p95 (and that wait's seeds' p95s as
    best_p95_by_seed)."""
    best, best95, kept = {}, {}, []
    for r in rows:
        if r["policy"] != "delay":
            kept.append(r)
            continue
        key = (r["family"], r["workload"], r["slowdown"])
        ok = r["stable"] and r["mean_jct"] is not None
        score = r["mean_jct"] if ok else math.inf
        if key not in best or score < best[key][0]:
            best[key] = (score, r)
        if ok and r["p95_jct"] is not None and r["p95_jct"] < best95.get(key, (math.inf,))[0]:
            best95[key] = (r["p95_jct"], r.get("p95_by_seed", {}))
    for key, (_, r) in best.items():
        p95, by_seed = best95.get(key, (None, {}))
        kept.append(dict(r, label="delay", best_p95=p95, best_p95_by_seed=by_seed))
    return kept


def seed_range(mine, theirs):
    """The range of mine[seed] / theirs[seed] over the seeds both have (dicts by seed), as
    " (lo-hi)"; "" with fewer than two."""
    ratios = [mine[s] / theirs[s] for s in mine if mine[s] and theirs.get(s)]
    return " (%.2f-%.2f)" % (min(ratios), max(ratios)) if len(ratios) > 1 else ""


def all_unstable(rows):
    """The (family, workload, slowdown) keys where no policy is stable."""
    keys = {(r["family"], r["workload"], r["slowdown"]) for r in rows}
    stable = {(r["family"], r["workload"], r["slowdown"]) for r in rows if r["stable"]}
    return keys - stable


def geomean(values):
    values = [v for v in values if v and v > 0 and math.isfinite(v)]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def fmt(v, digits=1):
    return "-" if v is None else ("%.*f" % (digits, v))


def summary_tables(rows, labels):
    """One table per family: per slowdown and policy, averages over its workloads, the
    geometric mean of the policy's mean (and p95) JCT over best-tuned delay's, and of its
    mean JCT over the lower bound."""
    by_key = {(r["family"], r["workload"], r["slowdown"], r["label"]): r for r in rows}
    families = sorted({r["family"] for r in rows})
    out = []
    for fam in families:
        unit = next(r["unit"] for r in rows if r["family"] == fam)
        loads = sorted({r["workload"] for r in rows if r["family"] == fam})
        out.append("\n### %s (%d workloads; times in %s)\n" % (fam, len(loads), unit))
        out.append("| slowdown | policy | mean JCT | p95 JCT | mean JCT / delay's | p95 / delay's "
                   "| x bound | mean task %s | locality | throughput | stable |" %
                   ("delay" if unit == "slots" else "wait"))
        out.append("|---|---|---|---|---|---|---|---|---|---|---|")
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
                xb = geomean([r["mean_jct"] / r["bound"] for r in stable if r.get("bound")])
                avg = lambda k: (sum(r[k] for r in stable if r[k] is not None) / len(stable)
                                 if stable and all(r[k] is not None for r in stable) else None)
                out.append("| %gx | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d/%d |" % (
                    sd, lab, fmt(avg("mean_jct")), fmt(avg("p95_jct")),
                    fmt(geomean(ratio), 2), fmt(geomean(ratio95), 2), fmt(xb, 2),
                    fmt(avg("mean_task_wait")), fmt(avg("locality"), 4),
                    fmt(avg("throughput"), 2), len(stable), len(rs)))
    return "\n".join(out)


def hard(row):
    """True where the default must beat delay by 15%: skewed data, or 85% load or more."""
    return (row["family"].startswith(("skew", "inputs", "models-skewed", "models-inputs",
                                      "models-heavy")) or
            row.get("load_share", 0) >= 0.85 or row["family"].endswith("85%"))


def target_table(rows, default="late-binding"):
    """The default against its targets on every trace workload and slowdown: mean JCT over
    best-tuned delay's (at most 1.00, 0.85 where `hard`), p95 over the best p95 any wait
    reaches (at most 1.05), and both over the lower bound. Returns the table and the misses."""
    by_key = {(r["family"], r["workload"], r["slowdown"], r["label"]): r for r in rows}
    out = ["| workload | slowdown | mean / delay's | p95 / best delay p95 | x bound | delay's "
           "x bound | delay's wait | misses |", "|---|---|---|---|---|---|---|---|"]
    misses = {"mean": 0, "p95": 0, "hard": 0, "out_of_reach": 0, "rows": 0}
    for (fam, w, sd, lab), r in sorted(by_key.items(), key=lambda kv: (kv[0][0], kv[0][1],
                                                                        -kv[0][2])):
        d = by_key.get((fam, w, sd, "delay"))
        if lab != default or r["unit"] != "s" or not d or not d["stable"]:
            continue
        misses["rows"] += 1
        m = r["mean_jct"] / d["mean_jct"] if r["stable"] else math.inf
        p = r["p95_jct"] / d["best_p95"] if r["stable"] and d.get("best_p95") else None
        cap = TARGET_HARD if hard(r) else TARGET_MEAN
        miss = []
        if m > TARGET_MEAN:
            miss.append("mean")
            misses["mean"] += 1
        elif m > cap:
            # No schedule goes below its run's bound: where cap x delay's mean does, the
            # target is out of every policy's reach.
            out_of_reach = r.get("bound") and cap * d["mean_jct"] < r["bound"]
            miss.append("mean > %.2f%s" % (cap, " (below the bound)" if out_of_reach else ""))
            misses["hard"] += 1
            misses["out_of_reach"] += bool(out_of_reach)
        if p is not None and p > TARGET_P95:
            miss.append("p95")
            misses["p95"] += 1
        xb = r["mean_jct"] / r["bound"] if r.get("bound") and r["stable"] else None
        dxb = d["mean_jct"] / d["bound"] if d.get("bound") else None
        mean = (fmt(m, 3) + seed_range(r.get("mean_by_seed", {}), d.get("mean_by_seed", {}))
                if math.isfinite(m) else "unstable")
        p95 = fmt(p, 3) + (seed_range(r.get("p95_by_seed", {}), d.get("best_p95_by_seed", {}))
                           if p is not None else "")
        out.append("| %s %s | %gx | %s | %s | %s | %s | %s | %s |" % (
            fam, w, sd, mean, p95, fmt(xb, 2), fmt(dxb, 2), fmt(d["delay_wait"], 0),
            ", ".join(miss) or "-"))
    return "\n".join(out), misses


def bucket_table(rows, labels):
    """Trace workloads at 4x: JCT by job size (job-weighted mean over workloads) and the
    task-seconds queued beside an idle replica holder, per task."""
    out = ["| family | policy | 1 task | 2-10 | 11-100 | 101-1000 | >1000 | idle-holder s/task |",
           "|---|---|---|---|---|---|---|---|"]
    fams = sorted({r["family"] for r in rows if r["unit"] == "s"})
    for fam in fams:
        for lab in labels:
            rs = [r for r in rows if r["family"] == fam and r["label"] == lab and r["slowdown"] == 4
                  and r.get("buckets")]
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


def parse_list(text, kind=int):
    if "-" in text and "," not in text:
        lo, hi = text.split("-")
        return list(range(int(lo), int(hi) + 1))
    return [kind(x) for x in text.split(",")]


@functools.lru_cache(maxsize=None)
def sim_help(sim):
    """locsched-sim's --help text, read once per binary."""
    return subprocess.run([sim, "--help"], capture_output=True, text=True).stdout


def sim_has(sim, flag):
    """True if this locsched-sim takes `flag` (older builds lack the newer workload flags)."""
    return re.search(r"\s%s[\s=]" % re.escape(flag), sim_help(sim)) is not None


def skew_calls(policies, traces, hours, seeds, sim):
    calls = []
    empty_rack = sim_has(sim, "--new-rack-share")
    for i, rel in enumerate(SWIM_FILES):
        for h in hours:
            trace = ["--trace", os.path.join(traces, rel), "--format", "swim", "--hour", str(h)]
            name = "FB-2009_%d h%d" % (i, h)
            for share in HOT_SHARES:
                u = SKEW_LOAD * capacity_at_4x(share)
                args = trace + ["--utilization", "%.3f" % u, "--hot-share", str(share)]
                for seed in seeds:
                    calls += trace_runs(policies, "skew-hot%d%%" % round(100 * share),
                                        "%s @%.0f%%" % (name, 100 * u), args, seed, False)
            if empty_rack:
                args = trace + ["--utilization", "0.6", "--new-rack-share", str(EMPTY_RACK_SHARE)]
                for seed in seeds:
                    calls += trace_runs(policies, "skew-empty-rack", name + " @60%", args, seed,
                                        False)
    if not empty_rack:
        print("league: this locsched-sim has no --new-rack-share: the new-rack workloads are "
              "skipped", file=sys.stderr)
    return calls


def input_calls(policies, traces, hours, seeds, sim):
    path = os.path.join(traces, INPUT_FILE)
    if not os.path.exists(path):
        print("league: %s is absent: the input-sharing workloads are skipped" % path,
              file=sys.stderr)
        return []
    calls = []
    for h in hours:
        for u in INPUT_UTILIZATIONS:
            args = ["--trace", path, "--format", "swim", "--hour", str(h), "--utilization", str(u)]
            for seed in seeds:
                calls += trace_runs(only_in(policies, "inputs"), "inputs-%d%%" % round(100 * u),
                                    "FB-2010 h%d @%d%%" % (h, round(100 * u)), args, seed, False)
    return calls


def model_calls(policies, traces, seeds):
    """The models family: each of MODELS at every seed (skipped, with a message, where its
    trace is absent)."""
    files = {i: rel for i, rel in enumerate(SWIM_FILES)}
    files.update(inputs=INPUT_FILE, google=GOOGLE_FILE)
    calls = []
    for name, kind, trace, hour, flags in MODELS:
        path = os.path.join(traces, files[trace])
        if not os.path.exists(path):
            print("league: %s is absent: the model '%s' is skipped" % (path, name), file=sys.stderr)
            continue
        args = ["--trace", path, "--format", "google" if trace == "google" else "swim"]
        workload = "Google" if trace == "google" else (
            "FB-2010 h%d" % hour if trace == "inputs" else "FB-2009_%d h%d" % (trace, hour))
        if hour is not None:
            args += ["--hour", str(hour)]
        if "--utilization" not in flags and kind == "skewed":
            share = float(flags[flags.index("--hot-share") + 1])
            flags = flags + ["--utilization", "%.3f" % (SKEW_LOAD * capacity_at_4x(share))]
        family = "models-" + kind
        for seed in seeds:
            calls += trace_runs(only_in(policies, family), family, "%s: %s" % (workload, name),
                                args + flags, seed, False)
    return calls


def only_in(policies, family):
    """The policies that run on `family` (SAMPLED restricts some to a subset)."""
    return [p for p in policies if p not in SAMPLED or family in SAMPLED[p]]


def plain_calls(policies, traces, families, hours, seeds):
    calls = []
    for rel in SWIM_FILES if "swim" in families else ():
        for h in hours:
            for u in UTILIZATIONS:
                args = ["--trace", os.path.join(traces, rel), "--format", "swim", "--hour", str(h),
                        "--utilization", str(u)]
                name = "%s h%d @%d%%" % (os.path.basename(rel), h, round(100 * u))
                for seed in seeds:
                    calls += trace_runs(policies, "swim-%d%%" % round(100 * u), name, args, seed,
                                        u < 0.7 and seed == seeds[0])
    for fmt_name, rel, utils in OTHER_TRACES:
        if fmt_name not in families:
            continue
        for u in utils or [None]:
            fam = fmt_name if u is None else "%s-%d%%" % (fmt_name, round(100 * u))
            args = ["--trace", os.path.join(traces, rel), "--format", fmt_name]
            name = os.path.basename(rel)
            if u is not None:
                args += ["--utilization", str(u)]
                name += " @%d%%" % round(100 * u)
            for seed in seeds:
                calls += trace_runs(only_in(policies, fmt_name), fam, name, args, seed,
                                    (u is None or u < 0.7) and seed == seeds[0])
    return calls


def parse_sim_args(sim, text):
    """The --sim-args flags as a list; exits naming a flag the league sets or this
    locsched-sim lacks."""
    try:
        args = shlex.split(text)
    except ValueError as e:
        sys.exit("league: --sim-args: %s" % e)
    for flag in (a.split("=")[0] for a in args if a.startswith("-")):
        if flag in LEAGUE_FLAGS:
            sys.exit("league: --sim-args: %s is set by the league itself" % flag)
        if not flag.startswith("--") or not sim_has(sim, flag):
            sys.exit("league: --sim-args: %s is not a flag of %s (see its --help)" % (flag, sim))
    return args


def refuse_model_flags(sim_args):
    """Exits naming the --sim-args flags that a model of the models family sets itself."""
    set_by_models = {f for model in MODELS for f in model[4] if f.startswith("--")}
    clash = sorted(set_by_models & {a.split("=")[0] for a in sim_args if a.startswith("--")})
    if clash:
        sys.exit("league: --sim-args: the models family's workloads (MODELS) set %s "
                 "themselves" % ", ".join(clash))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=None, help="where locsched-sim is (default build/release, "
                    "else build/dev)")
    ap.add_argument("--out", default="docs/league", help="OUT.md, OUT.png; rows to "
                    "docs/figures/<basename>.jsonl")
    ap.add_argument("--jobs", type=int, default=2, help="runs in parallel")
    ap.add_argument("--hours", default="1,5,9,13,17,21",
                    help="SWIM FB-2009 hours of both files, e.g. 0-23 or 1,9 (default a sample "
                    "of six, four hours apart)")
    ap.add_argument("--skew-hours", default="3,11,19",
                    help="the FB-2009 hours the skewed clusters replay (default three)")
    ap.add_argument("--inputs-hours", default="10",
                    help="FB-2010 with input paths: the hours replayed (0-11)")
    ap.add_argument("--seeds", default="1,2,3,4,5", help="seeds of every run, e.g. 1,2,3")
    ap.add_argument("--slots", type=int, default=5000, help="slots per slotted run")
    ap.add_argument("--traces", default="../shared/data/traces")
    ap.add_argument("--families", default=",".join(FAMILIES),
                    help="workload families to run, a comma list of " + ", ".join(FAMILIES + OPT_IN) +
                    " (default all but " + ", ".join(OPT_IN) + ")")
    ap.add_argument("--sim-args", default="",
                    help="locsched-sim flags added to every trace run, e.g. \"--local-mean 60 "
                    "--heartbeat 10\" (not those the league sets)")
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
    sim_args = parse_sim_args(sim, a.sim_args)
    try:
        hours, seeds = parse_list(a.hours), parse_list(a.seeds)
        skew_hours, input_hours = parse_list(a.skew_hours), parse_list(a.inputs_hours)
    except ValueError as e:
        sys.exit("league: --hours, --skew-hours, --inputs-hours and --seeds take lists of "
                 "whole numbers (%s)" % e)
    families = a.families.split(",")
    unknown = [f for f in families if f not in FAMILIES + OPT_IN]
    if unknown:
        sys.exit("league: --families: unknown %s (known: %s)" % (", ".join(unknown),
                                                                 ", ".join(FAMILIES + OPT_IN)))
    if "models" in families:
        refuse_model_flags(sim_args)
    start = time.time()
    calls = []  # the slotted model's long runs first, so the pool ends on short ones
    for dist in ("geometric", "pareto") if "slotted" in families else ():
        for sd in SLOWDOWNS:  # one long stationary run each: the first seed
            calls += slotted_runs(only_in(policies, "slotted"), dist, sd, a.slots, seeds[0])
    if os.path.isdir(a.traces):
        calls += plain_calls(policies, a.traces, families, hours, seeds)
        if "skew" in families:
            calls += skew_calls(policies, a.traces, skew_hours, seeds, sim)
        if "inputs" in families:
            calls += input_calls(policies, a.traces, input_hours, seeds, sim)
        if "models" in families:
            calls += model_calls(policies, a.traces, seeds)
    else:
        print("league: %s is absent: the trace workloads are skipped (only the paper's "
              "model runs)" % a.traces, file=sys.stderr)
    calls = [(args + sim_args if "--trace" in args else args, variant, make)
             for args, variant, make in calls]
    rows, cpu, wall = run_pool(sim, calls, a.jobs, start)
    figures = os.path.join(os.path.dirname(a.out) or ".", "figures")
    os.makedirs(figures, exist_ok=True)
    jsonl = os.path.join(figures, os.path.basename(a.out) + ".jsonl")
    with open(jsonl, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    averaged = seed_mean(rows)
    unstable = all_unstable(averaged)
    table = [r for r in best_delay(averaged)
             if (r["family"], r["workload"], r["slowdown"]) not in unstable]
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
        f.write(render(table, labels, a, (hours, skew_hours, input_hours, seeds), wall, cpu,
                       jsonl, unstable))
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
            try:
                got, seconds = f.result()
            except RuntimeError as e:  # a failed run: the rest would not make a league
                pool.shutdown(wait=True, cancel_futures=True)
                sys.exit("\nleague: %s" % e)
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


def sim_args_note(text):
    return "Every trace run adds `%s` to locsched-sim's flags. " % text if text.strip() else ""


def command():
    """The command that wrote the tables, as league.sh takes it."""
    return " ".join(["bash bench/league.sh"] + [shlex.quote(x) for x in sys.argv[1:]])


def workloads_note(families, lists):
    """What the trace families that ran replay, one clause each."""
    hours, skew_hours, input_hours = (",".join(map(str, h)) for h in lists[:3])
    clauses = {
        "swim": "SWIM: hours %s of both FB-2009 files at 60%% and 85%%" % hours,
        "skew": "skewed clusters: hours %s of both, every replica on 20-50%% of the machines "
                "at 60%% of what that cluster runs at 4x, and a new rack holding nothing"
                % skew_hours,
        "inputs": "input sharing: FB-2010 with input paths, hours %s" % input_hours,
        "models": "cluster models the other families do not run (`MODELS` in bench/league.py), "
                  "one hour each: the workload names the model",
    }
    text = "; ".join(clauses[f] for f in clauses if f in families)
    return text[:1].upper() + text[1:] + "." if text else ""


EXTRAS_NOTE = """ `+rebalance` is the
daemon's rebalancing (`locsched-sim --trace --rebalance`: for JSQ+MaxWeight max-cover
over the queued backlog on its big-job, imbalance and timer triggers; for late binding
remote permits for the queued tasks of jobs of 1,000+ tasks), `+lp` LP priority
(`--lp-priority`: the backlog LP re-solved on the daemon's timer orders the jobs), both
on the simulated clock; they run at remote 4x and the first seed on the SWIM, Google,
JobHistory and Rumen workloads not sized to 85% (the slotted model has no rebalancer)."""


def render(table, labels, a, lists, wall, cpu, jsonl, unstable):
    seeds = lists[3]
    families = a.families.split(",")
    paper = "slotted" in families
    extras = any(f in families for f in ("swim", "google", "jobhistory", "rumen"))
    targets, misses = target_table(table)
    gone = "\n".join("- %s %s at %gx" % k for k in sorted(unstable)) or "- none"
    return """# League: every policy against the best-tuned delay scheduling and the lower bound

Generated by `%s` (bench/league.py, %d runs at a time at nice 19) in
%.0f s of wall time and %.0f s of CPU time (user + sys: %.0f s on an idle 2-core machine);
raw rows: `%s`. %sEvery trace figure is the mean of seeds %s%s. %s Delay scheduling's wait is the best (lowest
mean JCT) of %s s per trace workload and slowdown%s.
`jsq-maxweight+bias%d` is JSQ+MaxWeight with `remote_bias` %d; `late-binding` is the default
(shortest remaining work first, aging bound 300 s); `late-binding+fair` is late binding with
fair sharing's job order, to show what job-aware order adds.%s
A ratio is the geometric mean, over the family's workloads where both are stable, of the
policy's JCT over best-tuned delay's: below 1 beats it. "x bound" is the geometric mean
of the policy's mean JCT over its run's lower bound (the larger of the jobs' critical
paths and SRPT on one server as fast as the slots can run the tasks at their holders,
from the run's own task times;
[simulator.md](simulator.md)): 1 would be optimal.

## The default against its targets

Per trace workload and slowdown: late binding's mean JCT over best-tuned delay's (target
at most %.2f, and %.2f on the skewed, input-sharing and 85%% workloads), its p95 over the
best p95 any of delay's waits reaches (target at most %.2f), and each one's mean over its
lower bound. The targets apply to the ratios of the seeds' means. In brackets: the
lowest and highest of the same ratio taken seed by seed (the p95 against the wait with
the best p95), which show how far the seeds' spread could move it. Misses: %d of %d rows
on the mean, %d more short of %.2f (%d of them out of any policy's reach: there %.2fx
delay's mean is below the run's lower bound), %d on the p95.

%s

Workloads where no policy is stable (left out of every ratio):
%s

## Summary by workload family
%s
%s
## JCT by job size and the cost of early binding (trace workloads, remote 4x)

Job-weighted mean JCT (s) by the job's task count, and the task-seconds each task spent
queued while one of its replica holders had a free slot.

%s
""" % (command(), a.jobs, wall, cpu, cpu / 2, jsonl, sim_args_note(a.sim_args),
       ",".join(map(str, seeds)), " (the paper's model: the first)" if paper else "",
       workloads_note(families, lists), ", ".join(map(str, TRACE_WAITS)),
       ", and of %s slots per slotted one" % ", ".join(map(str, SLOTTED_WAITS)) if paper else "",
       BIAS, BIAS, EXTRAS_NOTE if extras else "",
       TARGET_MEAN, TARGET_HARD, TARGET_P95, misses["mean"], misses["rows"], misses["hard"],
       TARGET_HARD, misses["out_of_reach"], TARGET_HARD, misses["p95"], targets, gone, summary_tables(table, labels),
       "\n## The paper's model by load\n%s\n" % slotted_table(table, labels) if paper else "",
       bucket_table(table, labels))


if __name__ == "__main__":
    main()
