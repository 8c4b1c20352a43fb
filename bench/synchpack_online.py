#!/usr/bin/python3
"""Online SynchPack against Tetris and JSQ+MaxWeight in the trace simulator, as the
SynchPack paper's Figure 3 compares them: the weighted mean JCT (sum w_j JCT_j / sum w_j)
at three traffic intensities, made by scaling the trace's submit times.

Workload: one hour of the SWIM FB-2009 trace (../shared/data/traces, skipped with a message
when absent) on a cluster sized by --utilization for the unscaled hour; weights 1 + a
Google job class (--weights priority); several seeds (work draws and weights).
Policies: synchpack (online SynchPack, centralized), tetris and jsq-mw (the same
baselines as list policies, centralized), jsq-maxweight (the core's JSQ+MaxWeight on
heartbeats, as the daemon runs it).

Usage: synchpack_online.py [--sim BIN] [--out-dir DIR] [--hour H] [--seeds N]
Prints a markdown table; writes DIR/synchpack_online.jsonl and DIR/synchpack_online.png
(matplotlib). Run it under flock /tmp/locsched-build.lock on a shared machine.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
POLICIES = ["synchpack", "tetris", "jsq-mw", "jsq-maxweight"]
SCALES = [1.0, 0.75, 0.6]


def run(sim, trace, hour, scale, policy, seed, utilization):
    cmd = [sim, "--trace", trace, "--format", "swim", "--hour", str(hour),
           "--utilization", str(utilization), "--time-scale", str(scale), "--policy", policy,
           "--weights", "priority", "--seed", str(seed), "--json"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.splitlines()[0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sim", default=os.path.join(HERE, "..", "build", "dev", "tools",
                                                  "locsched-sim"))
    ap.add_argument("--out-dir", default=os.path.join(HERE, "..", "docs"))
    ap.add_argument("--traces", default=os.path.join(HERE, "..", "..", "shared", "data", "traces"))
    ap.add_argument("--hour", type=int, default=9)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--utilization", type=float, default=0.5)
    a = ap.parse_args()
    trace = os.path.join(a.traces, "swim-fb", "FB-2009_samples_24_times_1hr_0.tsv")
    if not os.path.exists(trace):
        print(f"skipped: {trace} is absent (see SOURCES.md of the traces folder)")
        return 0
    rows = []
    for scale in SCALES:
        for policy in POLICIES:
            for seed in range(1, a.seeds + 1):
                d = run(a.sim, trace, a.hour, scale, policy, seed, a.utilization)
                rows.append(d)
    with open(os.path.join(a.out_dir, "synchpack_online.jsonl"), "w") as f:
        for d in rows:
            keep = ("policy", "time_scale", "seed", "offered_load", "weighted_mean_jct_s",
                    "weighted_jct", "mean_jct_s", "locality", "resolves", "stable", "machines",
                    "jobs", "tasks")
            f.write(json.dumps({k: d[k] for k in keep}) + "\n")
    table = {}
    for d in rows:
        table.setdefault((d["time_scale"], d["policy"]), []).append(d)
    print("| time scale | offered load | " + " | ".join(POLICIES) + " | SynchPack against the best other |")
    print("|---|---|" + "---|" * (len(POLICIES) + 1))
    means = {}
    for scale in SCALES:
        cells = []
        for p in POLICIES:
            runs = table[(scale, p)]
            means[(scale, p)] = statistics.mean(r["weighted_mean_jct_s"] for r in runs)
            stable = all(r["stable"] for r in runs)
            cells.append(f"{means[(scale, p)]:.1f} s" + ("" if stable else " (unstable)"))
        best = min(means[(scale, p)] for p in POLICIES if p != "synchpack")
        load = table[(scale, POLICIES[0])][0]["offered_load"]
        diff = means[(scale, "synchpack")] / best - 1
        print(f"| {scale:g} | {load:.2f} | " + " | ".join(cells) + f" | {100 * diff:+.1f}% |")
    plot(means, table, os.path.join(a.out_dir, "synchpack_online.png"))
    return 0


def plot(means, table, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4))
    width = 0.8 / len(POLICIES)
    for i, p in enumerate(POLICIES):
        xs = [k + (i - (len(POLICIES) - 1) / 2) * width for k in range(len(SCALES))]
        ax.bar(xs, [means[(s, p)] for s in SCALES], width, label=p)
    labels = [f"x{s:g}\nload {table[(s, POLICIES[0])][0]['offered_load']:.2f}" for s in SCALES]
    ax.set_xticks(range(len(SCALES)))
    ax.set_xticklabels(labels)
    ax.set_xlabel("submit times scaled by")
    ax.set_ylabel("weighted mean JCT (s)")
    ax.set_title("SWIM hour, priority weights: online SynchPack vs Tetris and JSQ+MaxWeight")
    top = max(means.values())
    ax.set_ylim(0, top * 1.25)
    ax.legend(fontsize=8, ncol=len(POLICIES), loc="upper center")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    sys.exit(main())
