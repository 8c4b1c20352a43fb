#!/usr/bin/python3
"""Online SynchPack against Tetris and JSQ+MaxWeight in the trace simulator, as the
SynchPack paper's Figure 3 compares them: the weighted mean JCT (sum w_j JCT_j / sum w_j)
at three traffic intensities, made by scaling the trace's submit times.

Workloads: two hours of the SWIM FB-2009 trace (../shared/data/traces, skipped with a
message when absent): hour 9 on a cluster sized by --utilization 0.5 for the unscaled
hour, hour 7 on the trace's 600 machines. Weights 1 + a Google job class
(--weights priority); seeds 1..N (work draws and weights).
Policies: synchpack (online SynchPack with its default re-solve timer: first interval
10 s, growth 1.02), synchpack-sparse (first interval 10 x the mean gap between jobs,
growth 1.1: fewer re-solves), tetris and jsq-mw (the
offline baselines' rules as centralized list policies), jsq-maxweight (the core's
JSQ+MaxWeight on heartbeats, as the daemon runs it).

Usage: synchpack_online.py [--sim BIN] [--out-dir DIR] [--traces DIR] [--seeds N]
Prints a markdown table; writes DIR/synchpack_online.jsonl and DIR/synchpack_online.png
(matplotlib). About 3 minutes; run it under flock /tmp/locsched-build.lock on a shared
machine.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOADS = (("hour 9, 390 machines", ("--hour", "9", "--utilization", "0.5")),
             ("hour 7, 600 machines", ("--hour", "7")))
POLICIES = (("synchpack", ("--policy", "synchpack")),
            ("synchpack-sparse", ("--policy", "synchpack", "--resolve-first", "0",
                                  "--resolve-growth", "1.1")),
            ("tetris", ("--policy", "tetris")),
            ("jsq-mw", ("--policy", "jsq-mw")),
            ("jsq-maxweight", ("--policy", "jsq-maxweight")))
OTHERS = ("tetris", "jsq-mw", "jsq-maxweight")
SCALES = (1.0, 0.75, 0.6)
KEEP = ("policy", "time_scale", "seed", "offered_load", "weighted_mean_jct_s", "weighted_jct",
        "mean_jct_s", "locality", "resolves", "resolve_first_s", "stable", "machines", "jobs",
        "tasks")


def run(sim, trace, workload, scale, policy, seed):
    cmd = [sim, "-q", "--trace", trace, "--format", "swim", *workload, "--time-scale", str(scale),
           *policy, "--weights", "priority", "--seed", str(seed), "--json"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.splitlines()[0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sim", default=os.path.join(HERE, "..", "build", "dev", "tools",
                                                  "locsched-sim"))
    ap.add_argument("--out-dir", default=os.path.join(HERE, "..", "docs"))
    ap.add_argument("--traces", default=os.path.join(HERE, "..", "..", "shared", "data", "traces"))
    ap.add_argument("--seeds", type=int, default=3)
    a = ap.parse_args()
    trace = os.path.join(a.traces, "swim-fb", "FB-2009_samples_24_times_1hr_0.tsv")
    if not os.path.exists(trace):
        print(f"skipped: {trace} is absent (see SOURCES.md of the traces folder)")
        return 0
    means, loads, stable, lines = {}, {}, {}, []
    for wname, workload in WORKLOADS:
        for scale in SCALES:
            for pname, policy in POLICIES:
                runs = [run(a.sim, trace, workload, scale, policy, seed)
                        for seed in range(1, a.seeds + 1)]
                for d in runs:
                    lines.append(dict({k: d[k] for k in KEEP}, workload=wname, label=pname))
                means[(wname, scale, pname)] = statistics.mean(
                    r["weighted_mean_jct_s"] for r in runs)
                stable[(wname, scale, pname)] = all(r["stable"] for r in runs)
                loads[(wname, scale)] = runs[0]["offered_load"]
    with open(os.path.join(a.out_dir, "synchpack_online.jsonl"), "w") as f:
        for line in lines:
            f.write(json.dumps(line) + "\n")
    names = [p for p, _ in POLICIES]
    print("| workload | time scale | offered load | " + " | ".join(names) +
          " | synchpack against the best other | synchpack-sparse against it |")
    print("|---|---|---|" + "---|" * (len(names) + 2))
    for wname, _ in WORKLOADS:
        for scale in SCALES:
            cells = [f"{means[(wname, scale, p)]:.1f} s" +
                     ("" if stable[(wname, scale, p)] else " (unstable)") for p in names]
            best = min(means[(wname, scale, p)] for p in OTHERS)
            diffs = [means[(wname, scale, p)] / best - 1
                     for p in ("synchpack", "synchpack-sparse")]
            print(f"| {wname} | {scale:g} | {loads[(wname, scale)]:.2f} | " + " | ".join(cells) +
                  " | " + " | ".join(f"{100 * d:+.1f}%" for d in diffs) + " |")
    plot(means, loads, names, os.path.join(a.out_dir, "synchpack_online.png"))
    return 0


def plot(means, loads, names, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(WORKLOADS), figsize=(11, 4.2), sharey=True)
    width = 0.8 / len(names)
    top = max(means.values())
    for ax, (wname, _) in zip(axes, WORKLOADS):
        for i, p in enumerate(names):
            xs = [k + (i - (len(names) - 1) / 2) * width for k in range(len(SCALES))]
            ax.bar(xs, [means[(wname, s, p)] for s in SCALES], width, label=p)
        ax.set_xticks(range(len(SCALES)))
        ax.set_xticklabels([f"x{s:g}\nload {loads[(wname, s)]:.2f}" for s in SCALES])
        ax.set_xlabel("submit times scaled by")
        ax.set_title(f"SWIM FB-2009 {wname}")
        ax.set_ylim(0, top * 1.3)
    axes[0].set_ylabel("weighted mean JCT (s), priority weights")
    axes[0].legend(fontsize=8, ncol=3, loc="upper left")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    sys.exit(main())
