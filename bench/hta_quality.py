#!/usr/bin/env python3
"""Algorithm 2 against round robin and the lower bound on trace-derived batches
(docs/benchmarks.md, "Quality on SWIM-derived batches").

Each batch is the jobs of one window of a SWIM FB-2009 hour, split into map
tasks of 64 MB of input (at least one per job), each with `--replicas` replica
servers drawn at random (seeded) from `--servers` servers. Every batch is
solved by `locsched-solve hta` with the flow algorithm (Algorithm 2) and with
round robin (Algorithm 1); the table shows max load, locality (local tasks /
tasks) and each max load over the instance's lower bound.

Usage: hta_quality.py LOCSCHED_SOLVE SWIM_TSV [--servers N] [--windows K]
                      [--replicas R] [--w-rem W] [--seed S]
"""
import argparse
import json
import math
import random
import subprocess
import sys
import tempfile

BLOCK = 64 * 2**20


def batches(path, windows):
    """The jobs' map counts, grouped into `windows` equal slices of the trace's span."""
    jobs = []
    with open(path) as f:
        for line in f:
            fields = line.split("\t")
            if len(fields) < 4:
                continue
            jobs.append((float(fields[1]), max(1, math.ceil(float(fields[3]) / BLOCK))))
    span = max(t for t, _ in jobs) + 1
    out = [[] for _ in range(windows)]
    for t, maps in jobs:
        out[min(windows - 1, int(t * windows / span))].append(maps)
    return out


def solve(solver, instance, algorithm):
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump(instance, f)
        f.flush()
        r = subprocess.run([solver, "hta", "--instance", f.name, "--algorithm", algorithm,
                            "--json"], capture_output=True, text=True, check=True)
    return json.loads(r.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("solver")
    ap.add_argument("trace")
    ap.add_argument("--servers", type=int, default=100)
    ap.add_argument("--windows", type=int, default=6)
    ap.add_argument("--replicas", type=int, default=3)
    ap.add_argument("--w-rem", type=float, default=3)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    print("| window | jobs | tasks | lower bound | flow max load (÷ LB) | round robin max load "
          "(÷ LB) | flow locality | round robin locality |")
    print("|---|---|---|---|---|---|---|---|")
    for k, jobs in enumerate(batches(a.trace, a.windows)):
        tasks = [rng.sample(range(a.servers), a.replicas) for maps in jobs for _ in range(maps)]
        inst = {"servers": a.servers, "w_loc": 1, "w_rem": a.w_rem, "tasks": tasks}
        flow, rr = solve(a.solver, inst, "flow"), solve(a.solver, inst, "round-robin")
        lb = flow["lower_bound"]
        print("| %d | %d | %d | %g | %g (%.2f) | %g (%.2f) | %.3f | %.3f |" % (
            k + 1, len(jobs), len(tasks), lb, flow["max_load"], flow["max_load"] / lb,
            rr["max_load"], rr["max_load"] / lb, flow["local_tasks"] / len(tasks),
            rr["local_tasks"] / len(tasks)))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
