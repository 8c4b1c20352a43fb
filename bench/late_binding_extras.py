#!/usr/bin/env python3
"""Rebalance and LP priority on the default policy (late binding): does turning either on
hurt the mean JCT anywhere, and does each win where it is meant to?

Three families of locsched-sim --trace runs, each at remote slowdowns 4x, 2x and 1.25x
and several seeds (the task durations, and the job weights where drawn):
  check     the bundled SWIM FB-2009 hours (--hours) at 85% utilization and the Google
            job_events part at 60% and 85%, unweighted: late binding alone, with
            --rebalance, and with --lp-priority. Ratio: mean JCT with / without.
  skewed    the same SWIM hours at 60%, every replica moved onto the first 20% of the
            machines (--hot-share 0.2), so each large job arrives on a skewed cluster:
            late binding with and without --rebalance. Ratio: mean JCT, and the mean JCT
            of the jobs of more than 100 tasks.
  weighted  the same SWIM hours at 85% with job weights drawn as priority classes
            (--weights priority): late binding (srpt), with --lp-priority, and with
            --job-order smith. Ratio: sum of weight x JCT over srpt's.
Prints one table per family: per slowdown and variant the runs, the geometric mean of
the ratios, min / median / max, and how many ratios exceed 1.02 (worse by more than 2%).
Every row goes to OUT.jsonl. Runs with traces skip, with a message, when absent.

Usage: python3 bench/late_binding_extras.py [--build DIR] [--traces DIR] [--seeds 1,2,3]
         [--hours 0:3,0:7,...] [--families check,skewed,weighted] [--variants rebalance,lp]
         [--jobs 2] [--out FILE]
"""
import argparse
import concurrent.futures
import json
import math
import os
import statistics
import subprocess
import sys

SLOWDOWNS = "4,2,1.25"
SWIM = ["swim-fb/FB-2009_samples_24_times_1hr_0.tsv", "swim-fb/FB-2009_samples_24_times_1hr_1.tsv"]
GOOGLE = "google-clusterdata-2011-2/job_events/part-00001-of-00500.csv.gz"
DEFAULT_HOURS = "0:3,0:7,0:12,0:18,1:2,1:5,1:9,1:14,1:20"


def run(sim, args):
    out = subprocess.run([sim, "-q", "--policy", "late-binding", "--json"] + args,
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError("locsched-sim %s failed: %s" % (" ".join(args), out.stderr.strip()))
    return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]


def workloads(traces, hours, util):
    for spec in hours.split(","):
        f, h = spec.split(":")
        path = os.path.join(traces, SWIM[int(f)])
        yield "swim%s h%s" % (f, h), ["--trace", path, "--hour", h, "--utilization", str(util)]


def jobs_for(family, traces, hours, seeds, only=None):
    """(family, workload, variant, seed, args) for every run of the family (variants: base
    and those in `only`, or all)."""
    out = []
    def add(name, base, variants):
        for seed in seeds:
            for variant, extra in variants:
                if only and variant != "base" and variant not in only:
                    continue
                out.append((family, name, variant, seed,
                            base + ["--seed", str(seed), "--remote-slowdown", SLOWDOWNS] + extra))
    if family == "check":
        variants = [("base", []), ("rebalance", ["--rebalance"]), ("lp", ["--lp-priority"])]
        for name, base in workloads(traces, hours, 0.85):
            add(name, base, variants)
        google = os.path.join(traces, GOOGLE)
        if os.path.exists(google):
            for util in (0.6, 0.85):
                add("google %d%%" % (util * 100),
                    ["--trace", google, "--format", "google", "--utilization", str(util)], variants)
        else:
            print("skipping Google: %s is absent" % google, file=sys.stderr)
    elif family == "skewed":
        for name, base in workloads(traces, hours, 0.6):
            add(name, base + ["--hot-share", "0.2"], [("base", []), ("rebalance", ["--rebalance"])])
    elif family == "weighted":
        for name, base in workloads(traces, hours, 0.85):
            add(name, base + ["--weights", "priority"],
                [("base", []), ("lp", ["--lp-priority"]), ("smith", ["--job-order", "smith"])])
    return out


def big_jct(row):
    jobs = sum(b["jobs"] for b in row["jct_buckets"][3:])
    if jobs == 0:
        return None
    return sum(b["jobs"] * b["mean_jct_s"] for b in row["jct_buckets"][3:]) / jobs


def ratios(rows, metric):
    base = {(r["workload"], r["seed"], r["remote_slowdown"]): r for r in rows if r["variant"] == "base"}
    out = {}
    for r in rows:
        if r["variant"] == "base":
            continue
        b = base.get((r["workload"], r["seed"], r["remote_slowdown"]))
        if b is None or not (b["stable"] and r["stable"]):
            continue
        x, y = metric(r), metric(b)
        if x is None or y is None or y <= 0:
            continue
        out.setdefault((r["remote_slowdown"], r["variant"]), []).append(x / y)
    return out


def table(title, by_key):
    print("\n%s\n" % title)
    print("| slowdown | variant | runs | geo-mean | min | median | max | > 1.02 |")
    print("|---|---|---|---|---|---|---|---|")
    for (slowdown, variant), v in sorted(by_key.items(), key=lambda kv: (-kv[0][0], kv[0][1])):
        geo = math.exp(sum(math.log(x) for x in v) / len(v))
        print("| %g× | %s | %d | %.3f | %.3f | %.3f | %.3f | %d |" % (
            slowdown, variant, len(v), geo, min(v), statistics.median(v), max(v),
            sum(x > 1.02 for x in v)))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(here, "..", "build", "dev"))
    ap.add_argument("--traces", default=os.path.join(here, "..", "..", "shared", "data", "traces"))
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--hours", default=DEFAULT_HOURS)
    ap.add_argument("--families", default="check,skewed,weighted")
    ap.add_argument("--variants", default="",
                    help="comma list: run only these besides base (default: all)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default="late_binding_extras.jsonl")
    a = ap.parse_args()
    sim = os.path.join(a.build, "tools", "locsched-sim")
    if not os.path.exists(os.path.join(a.traces, SWIM[0])):
        print("skipping: the SWIM traces are not in %s (tools/fetch-traces.sh)" % a.traces)
        return 0
    seeds = [int(s) for s in a.seeds.split(",")]
    rows = []
    for family in a.families.split(","):
        todo = jobs_for(family, a.traces, a.hours, seeds,
                        set(a.variants.split(",")) if a.variants else None)
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
            futures = {pool.submit(run, sim, args): (fam, name, variant, seed)
                       for fam, name, variant, seed, args in todo}
            for i, f in enumerate(concurrent.futures.as_completed(futures), 1):
                fam, name, variant, seed = futures[f]
                for r in f.result():
                    r.update(family=fam, workload=name, variant=variant)
                    rows.append(r)
                print("\r%s: %d/%d" % (family, i, len(todo)), end="", file=sys.stderr)
        print(file=sys.stderr)
    with open(a.out, "w") as out:
        for r in rows:
            r = {k: v for k, v in r.items() if k != "jct_buckets"} | {"big_jct_s": big_jct(r)}
            out.write(json.dumps(r) + "\n")
    for family in a.families.split(","):
        fam = [r for r in rows if r["family"] == family]
        if family == "check":
            table("check: mean JCT with the extra / without (late binding, unweighted)",
                  ratios(fam, lambda r: r["mean_jct_s"]))
        elif family == "skewed":
            table("skewed (--hot-share 0.2): mean JCT with --rebalance / without",
                  ratios(fam, lambda r: r["mean_jct_s"]))
            table("skewed: mean JCT of jobs over 100 tasks with --rebalance / without",
                  ratios(fam, big_jct))
        else:
            table("weighted (--weights priority): sum of w x JCT over srpt's",
                  ratios(fam, lambda r: r["weighted_jct"]))
            table("weighted: mean JCT over srpt's", ratios(fam, lambda r: r["mean_jct_s"]))
    unstable = sum(not r["stable"] for r in rows)
    print("\n%d runs, %d unstable (left out of the ratios with their pair)" % (len(rows), unstable))
    return 0


if __name__ == "__main__":
    sys.exit(main())
