#!/usr/bin/env python3
"""Offline quality of the LP solvers on trace-built instances (docs/benchmarks.md,
section "Offline LP schedules on trace instances"), and LP solve time against backlog size.

Builds instances at run time from the traces in TRACES (default
../shared/data/traces, or a folder filled by tools/fetch-traces.sh; never copied into the repo), runs locsched-solve
synchpack, mrs, jsq-mw and tetris on each, and prints Markdown tables of
sum w_j C_j, the ratio to the interval LP bound, and the wall time.

Instances (all seeded, so reruns build the same ones):
- rumen: hadoop-rumen/input-trace.json, the 3 jobs with tasks (154 maps, 49 reduces).
  Task durations are the successful attempt's finish - start (s); releases are the
  submit times; preferred hosts are folded onto MACHINES machines (host index mod M);
  maps may run off their hosts 1.5x slower; reduces run anywhere.
- swim-K-at-S: K consecutive SWIM FB-2009 jobs from job S. Maps = ceil(input/64 MB),
  aggregated into at most 8 tasks that share the map work (10 s per 64 MB, >= 1 s);
  reduces = ceil(shuffle/1 GB), at most 4, sharing 10 s per 128 MB of shuffle.
  Each map task gets 3 random replica machines and remote penalty 1.5.
  swim-40-at-3000-x20 divides the submit gaps by 20 (a busy cluster).
- backlog-1000: SWIM jobs from the start until 1,000 tasks, all queued at 0, 50
  machines, maps on their 3 replicas only and reduces on one random machine.
Machines have capacity 4 and every task demand 1 (a slot), unit weights.

The extra instances (--extra) add busy windows, 1,000+ tasks and weights drawn
from a distribution: a job's weight is 1 + the scheduling class (0-3) of a Google
job drawn at random (seeded) from the SUBMIT events of
google-clusterdata-2011-2/job_events/part-00000 ("-gw"), or uniform in 1..10 ("-uw").
"swim1" reads the second SWIM FB-2009 draw (..._1.tsv). "-xK" divides submit
gaps by K. "busy-N-at-S" takes SWIM jobs from job S until N tasks, gaps divided
by 40, on 50 machines with maps on their 3 replicas only and reduces on one random
machine (the backlog construction, but released over time). "rumen-5m" folds the
Rumen hosts onto 5 machines.

LP time series: SWIM jobs until N tasks (100, 1,000, 10,000), maps on their 3
replicas only (no remote penalty) and reduces on 1 random machine, 50 machines,
timed with `locsched-solve lp-bound` (LP alone).

Class LP (--scaling): per instance, the per-task LP's bound and time (where it runs
under 200,000 columns) against the class LP (class_lp.h) with one group per machine,
and with one group and per-class completion (the fast setting), as ratios to the
per-task bound; then SynchPack-L on the fast class LP and Tetris (heuristic alone).

Usage: lp_quality.py /path/to/locsched-solve [--traces DIR] [--machines M]
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time

# (column name, locsched-solve arguments)
SOLVERS = (("SynchPack-L", ("synchpack",)), ("SynchPack-2", ("synchpack", "--paper")),
           ("MRS", ("mrs",)), ("JSQ+MaxWeight", ("jsq-mw",)), ("Tetris", ("tetris",)))
MB = 1 << 20


def rumen_instance(traces, machines):
    text = open(os.path.join(traces, "hadoop-rumen", "input-trace.json")).read()
    decoder, i, jobs = json.JSONDecoder(), 0, []
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            break
        job, i = decoder.raw_decode(text, i)
        jobs.append(job)
    hosts = {}

    def machine_of(host):
        return hosts.setdefault(host, len(hosts)) % machines

    def duration(task):
        for a in task["attempts"]:
            if a.get("result") == "SUCCESS" and a["finishTime"] > a["startTime"] > 0:
                return (a["finishTime"] - a["startTime"]) / 1000
        return max(1.0, (task["finishTime"] - task["startTime"]) / 1000)

    t0 = min(j["submitTime"] for j in jobs)
    out = {"machines": [{"capacity": 4.0}] * machines, "jobs": []}
    for job in jobs:
        tasks = []
        for t in job["mapTasks"]:
            placement = sorted({machine_of(loc["layers"][-1]) for loc in t["preferredLocations"]})
            tasks.append({"demand": 1.0, "placement": placement, "duration": duration(t),
                          "remote_penalty": 1.5 if placement else 1.0})
        for t in job["reduceTasks"]:
            tasks.append({"demand": 1.0, "placement": [], "duration": duration(t),
                          "remote_penalty": 1.0, "kind": "reduce"})
        if tasks:
            out["jobs"].append({"weight": 1, "release": (job["submitTime"] - t0) / 1000,
                                "tasks": tasks})
    return out


def swim_jobs(traces, draw=0):
    rows = []
    with open(os.path.join(traces, "swim-fb", f"FB-2009_samples_24_times_1hr_{draw}.tsv")) as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            rows.append((float(cols[1]), int(cols[3]), int(cols[4])))
    return rows


def swim_job(row, rng, machines, remote, max_maps=8, max_reduces=4):
    submit, input_bytes, shuffle = row
    maps = max(1, math.ceil(input_bytes / (64 * MB)))
    work = max(1.0, input_bytes / (64 * MB) * 10)
    tasks = []
    n = min(max_maps, maps)
    for _ in range(n):
        task = {"demand": 1.0, "placement": sorted(rng.sample(range(machines), min(3, machines))),
                "duration": round(work / n, 3)}
        if remote:
            task["remote_penalty"] = 1.5
        tasks.append(task)
    if shuffle > 0:
        r = min(max_reduces, math.ceil(shuffle / (1024 * MB)))
        rwork = max(1.0, shuffle / (128 * MB) * 10)
        for _ in range(r):
            task = {"demand": 1.0, "duration": round(rwork / r, 3), "kind": "reduce"}
            if remote:
                task.update(placement=[], remote_penalty=1.0)
            else:
                task["placement"] = [rng.randrange(machines)]
            tasks.append(task)
    return {"weight": 1, "release": submit, "tasks": tasks}


def swim_instance(rows, start, count, machines, seed=1, compress=1):
    rng = random.Random(seed)
    jobs = [swim_job(r, rng, machines, True) for r in rows[start:start + count]]
    t0 = min(j["release"] for j in jobs)
    for j in jobs:
        j["release"] = round((j["release"] - t0) / compress, 3)
    return {"machines": [{"capacity": 4.0}] * machines, "jobs": jobs}


def google_classes(traces):
    """Scheduling classes (0-3) of the SUBMIT events of the first job_events part."""
    import gzip
    path = os.path.join(traces, "google-clusterdata-2011-2", "job_events",
                        "part-00000-of-00500.csv.gz")
    with gzip.open(path, "rt") as f:
        return [int(c[5]) for c in (line.split(",") for line in f) if c[3] == "0" and c[5]]


def weighted(inst, seed, classes=None):
    """Weights 1 + a Google scheduling class drawn at random, or uniform in 1..10."""
    rng = random.Random(seed)
    for job in inst["jobs"]:
        job["weight"] = 1 + rng.choice(classes) if classes else rng.randint(1, 10)
    return inst


def busy(rows, start, size, seed, machines=50, compress=40):
    """SWIM jobs from `start` until `size` tasks, released over time (gaps / compress)."""
    rng = random.Random(seed)
    jobs, tasks = [], 0
    for row in rows[start:]:
        jobs.append(swim_job(row, rng, machines, False))
        tasks += len(jobs[-1]["tasks"])
        if tasks >= size:
            break
    t0 = min(j["release"] for j in jobs)
    for j in jobs:
        j["release"] = round((j["release"] - t0) / compress, 3)
    return {"machines": [{"capacity": 4.0}] * machines, "jobs": jobs}


def extra_instances(traces, rows):
    classes = google_classes(traces)
    rows1 = swim_jobs(traces, 1)
    return [
        ("rumen-gw", weighted(rumen_instance(traces, 10), 11, classes)),
        ("rumen-5m-gw", weighted(rumen_instance(traces, 5), 12, classes)),
        ("swim-60-at-500-gw", weighted(swim_instance(rows, 500, 60, 10, seed=501), 13, classes)),
        ("swim-60-at-500-x30-gw",
         weighted(swim_instance(rows, 500, 60, 10, seed=501, compress=30), 14, classes)),
        ("swim-100-at-2000-x50-uw",
         weighted(swim_instance(rows, 2000, 100, 10, seed=2001, compress=50), 15)),
        ("swim1-60-at-0-gw", weighted(swim_instance(rows1, 0, 60, 10, seed=7), 16, classes)),
        ("swim1-100-at-3000-x30-gw",
         weighted(swim_instance(rows1, 3000, 100, 10, seed=3001, compress=30), 17, classes)),
        ("swim-200-at-4500-x100-gw",
         weighted(swim_instance(rows, 4500, 200, 10, seed=4501, compress=100), 18, classes)),
        ("busy-1000-at-4000-gw", weighted(busy(rows, 4000, 1000, 19), 19, classes)),
        ("swim1-busy-1000-at-1000-gw", weighted(busy(rows1, 1000, 1000, 20), 20, classes)),
        ("swim1-busy-1500-at-5000-uw", weighted(busy(rows1, 5000, 1500, 21), 21)),
        ("backlog-1000-gw", weighted(backlog(rows, 1000), 22, classes)),
    ]


def solve(binary, args, path, *extra, timeout=3600):
    t = time.monotonic()
    try:
        out = subprocess.run([binary, *args, "--instance", path, "--json", *extra],
                             capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"over {timeout} s", "wall": timeout}
    wall = time.monotonic() - t
    if out.returncode != 0:
        return {"error": out.stderr.strip(), "wall": wall}
    result = json.loads(out.stdout)
    result["wall"] = wall
    return result


def quality(binary, instances, tmp, results):
    """One Markdown row per instance; each solver's figures also go to `results` (JSON lines)."""
    print("| instance | jobs | tasks | LP columns | LP bound | " +
          " | ".join(f"{name} Σw_jC_j (ratio, s)" for name, _ in SOLVERS) + " |")
    print("|---|---|---|---|---|" + "---|" * len(SOLVERS))
    for name, inst in instances:
        path = os.path.join(tmp, name + ".json")
        with open(path, "w") as f:
            json.dump(inst, f)
        cells, bound, columns = [], None, None
        for column, args in SOLVERS:
            r = solve(binary, args, path, "--max-columns", "200000")
            if "error" in r:
                cells.append("error: " + r["error"][:60])
                continue
            bound, columns = r["lower_bound"], r["lp_columns"]
            cells.append(f"{r['objective']:,.0f} ({r['ratio']:.3f}, {r['wall']:.1f} s)")
            if results:
                results.write(json.dumps({"instance": name, "solver": column,
                                          "objective": r["objective"], "bound": bound,
                                          "ratio": r["ratio"], "seconds": r["wall"]}) + "\n")
                results.flush()
        tasks = sum(len(j["tasks"]) for j in inst["jobs"])
        print(f"| {name} | {len(inst['jobs'])} | {tasks} | {columns or 0:,} | {bound or 0:,.0f} | " +
              " | ".join(cells) + " |")
        sys.stdout.flush()


def backlog(rows, size, machines=50):
    """SWIM jobs in order until `size` tasks, all queued at time 0, placement only."""
    rng = random.Random(size)
    jobs, tasks = [], 0
    for row in rows:
        job = swim_job(row, rng, machines, False)
        job["release"] = 0.0
        jobs.append(job)
        tasks += len(job["tasks"])
        if tasks >= size:
            break
    return {"machines": [{"capacity": 4.0}] * machines, "jobs": jobs}


def lp_times(binary, rows, tmp, sizes, machines=50):
    print("\n| queued tasks | jobs | LP columns | intervals | LP solve (s, lp-bound wall) |")
    print("|---|---|---|---|---|")
    for size in sizes:
        inst = backlog(rows, size, machines)
        jobs, tasks = inst["jobs"], sum(len(j["tasks"]) for j in inst["jobs"])
        path = os.path.join(tmp, f"backlog{size}.json")
        with open(path, "w") as f:
            json.dump(inst, f)
        r = solve(binary, ("lp-bound",), path, "--max-columns", "200000")
        if "error" in r:
            print(f"| {tasks:,} | {len(jobs)} | - | - | refused: {r['error'][:100]} |")
        else:
            print(f"| {tasks:,} | {len(jobs)} | {r['lp_columns']:,} | {r['intervals']} | "
                  f"{r['seconds']:.2f} ({r['wall']:.2f}) |")
        sys.stdout.flush()


# (column name, locsched-solve lp-bound arguments) of the --scaling table.
CLASS_LPS = (("per-task", ("--lp", "per-task")),
             ("classes, per machine", ("--lp", "classes")),
             ("classes, 1 group, per-class", ("--lp", "classes", "--groups", "1",
                                              "--per-class-completion")))


LP_LIMIT = 150  # seconds per LP in the --scaling table


def scaling(binary, instances, tmp, results):
    """The class LP's bound loss and time against the per-task LP, then SynchPack-L on it."""
    print("| instance | tasks | " + " | ".join(f"{n}: bound (ratio, s)" for n, _ in CLASS_LPS) +
          " | SynchPack-L on the fast class LP: Σw_jC_j (ratio, s) | Tetris Σw_jC_j (s) |")
    print("|---|---|" + "---|" * (len(CLASS_LPS) + 2))
    fast = CLASS_LPS[-1][1]
    for name, inst in instances:
        path = os.path.join(tmp, name + ".json")
        with open(path, "w") as f:
            json.dump(inst, f)
        cells, base = [], None
        for column, args in CLASS_LPS:
            r = solve(binary, ("lp-bound", *args), path, "--max-columns", "200000", timeout=LP_LIMIT)
            if "error" in r:
                cells.append("refused" if "columns" in r["error"] else r["error"][:60])
                continue
            base = base or (r["lower_bound"] if column == "per-task" else None)
            ratio = f"{r['lower_bound'] / base:.4f}" if base else "n/a"
            cells.append(f"{r['lower_bound']:,.0f} ({ratio}, {r['seconds']:.1f} s)")
            if results:
                results.write(json.dumps({"instance": name, "lp": column, "bound": r["lower_bound"],
                                          "seconds": r["seconds"], "columns": r["lp_columns"]}) + "\n")
        sp = solve(binary, ("synchpack", *fast), path)
        tet = solve(binary, ("tetris", "--no-lp"), path)
        cells.append("error" if "error" in sp else
                     f"{sp['objective']:,.0f} ({sp['ratio']:.3f}, {sp['wall']:.1f} s)")
        cells.append("error" if "error" in tet else f"{tet['objective']:,.0f} ({tet['wall']:.1f} s)")
        tasks = sum(len(j["tasks"]) for j in inst["jobs"])
        print(f"| {name} | {tasks:,} | " + " | ".join(cells) + " |")
        sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binary")
    ap.add_argument("--traces", default="../shared/data/traces")
    ap.add_argument("--machines", type=int, default=10)
    ap.add_argument("--sizes", default="100,1000,10000",
                    help="backlog sizes for the LP time table ('' skips it)")
    ap.add_argument("--extra", action="store_true", help="also the extra instances")
    ap.add_argument("--only", default="", help="comma-separated instance names to run")
    ap.add_argument("--results", help="append one JSON line per instance and solver here")
    ap.add_argument("--scaling", action="store_true",
                    help="the class LP table (bound loss and time) instead of the solver table")
    args = ap.parse_args()
    if not os.path.isdir(os.path.join(args.traces, "swim-fb")):
        print(f"lp_quality.py: no traces under {args.traces}; skipped", file=sys.stderr)
        return
    rows = swim_jobs(args.traces)
    instances = [("rumen", rumen_instance(args.traces, args.machines))]
    for start, count in ((0, 20), (1000, 30), (3000, 40)):
        instances.append((f"swim-{count}-at-{start}",
                          swim_instance(rows, start, count, args.machines, seed=start + 1)))
    # The same 40 jobs with their submit gaps divided by 20: a busy cluster.
    instances.append(("swim-40-at-3000-x20",
                      swim_instance(rows, 3000, 40, args.machines, seed=3001, compress=20)))
    instances.append(("backlog-1000", backlog(rows, 1000)))
    if args.extra:
        instances += extra_instances(args.traces, rows)
    if args.only:
        instances = [(n, i) for n, i in instances if n in args.only.split(",")]
    results = open(args.results, "a") if args.results else None
    if args.scaling:
        instances.append(("backlog-10000", backlog(rows, 10000)))
        if args.only:
            instances = [(n, i) for n, i in instances if n in args.only.split(",")]
        with tempfile.TemporaryDirectory() as tmp:
            scaling(args.binary, instances, tmp, results)
        return
    with tempfile.TemporaryDirectory() as tmp:
        quality(args.binary, instances, tmp, results)
        if args.sizes:
            lp_times(args.binary, rows, tmp, [int(s) for s in args.sizes.split(",")])


if __name__ == "__main__":
    main()
