#!/usr/bin/env python3
"""Draw bench/policy_replay.sh's results: one group of bars per scheduling policy
(with its variants: +rebalance, +lp),

  (a) job completion time in emulated seconds: mean and p95;
  (b) locality: the share of tasks that ran on a machine holding a replica.

With several runs per policy, each bar is the mean over the runs and a black tick
marks every run's own value.

Usage: plot_policy_replay.py RESULTS.jsonl OUT.png
Needs python3 with matplotlib. Exits 2 on bad arguments or a bad results file.
"""
import json
import sys

USAGE = "usage: plot_policy_replay.py RESULTS.jsonl OUT.png  (bench/policy_replay.sh's output)"
NAMES = {"jsq-maxweight": "JSQ+\nMaxWeight", "fair": "Fair\nsharing", "fifo": "FIFO",
         "delay": "Delay\nscheduling"}
VARIANTS = {"rebalance": "rebalance", "lp": "LP priority"}
TRACES = {"swim": "SWIM FB-2009", "jobhistory": "Hadoop JobHistory (sample-job-tracker-logs)",
          "rumen": "Rumen JSON (input-trace.json)", "google": "Google 2011 job_events"}


def tick_label(policy):
    """'jsq-maxweight+rebalance+lp' -> 'JSQ+\nMaxWeight\n+ rebalance\n+ LP priority'."""
    base, *variants = policy.split("+")
    return "\n".join([NAMES.get(base, base)] + ["+ " + VARIANTS.get(v, v) for v in variants])


def runs_per_policy(runs):
    """'2', or '1-2' when the policies have different numbers of runs."""
    counts = sorted({len(r) for r in runs.values()})
    return str(counts[0]) if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"


def title(first, runs, policies):
    """The chart's title: the trace, its size, the cluster and the speed."""
    trace = first.get("trace", "swim")
    name = TRACES.get(trace, trace)
    if "hour" in first:
        name += f", hour {first['hour']}"
    return (f"{name}: {first['tail']['requests']} jobs on {first['agents']['machines']} "
            f"emulated machines, replayed at {first['speed']:g}x "
            f"({runs_per_policy(runs)} run(s) per policy)")


def fail(message):
    print(f"plot_policy_replay.py: {message}", file=sys.stderr)
    sys.exit(2)


def read_runs(path):
    """Returns ({policy: [(mean, p95, locality), ...]} in file order, the first line)."""
    runs, first = {}, None
    try:
        with open(path) as f:
            lines = [line for line in f if line.strip()]
    except OSError as e:
        fail(f"cannot read '{path}': {e.strerror}")
    for number, line in enumerate(lines, 1):
        try:
            d = json.loads(line)
            a = d["agents"]
            row = (a["foreign_mean_job_delay"], a["foreign_p95_job_delay"], a["all_locality"])
            runs.setdefault(d["policy"], []).append(row)
        except (ValueError, KeyError, TypeError) as e:
            fail(f"{path}:{number}: not a policy_replay.sh result ({e})")
        first = first or d
    if not runs:
        fail(f"'{path}' holds no runs")
    return runs, first


def draw(runs, first, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    policies = list(runs)
    fig, (jct, loc) = plt.subplots(1, 2, figsize=(max(11, 1.9 * len(policies)), 4.8))
    width = 0.38
    for k, (label, color) in enumerate((("mean", "tab:blue"), ("p95", "tab:orange"))):
        xs = [i + (k - 0.5) * width for i in range(len(policies))]
        values = [[r[k] for r in runs[p]] for p in policies]
        jct.bar(xs, [sum(v) / len(v) for v in values], width, label=label, color=color)
        for x, v in zip(xs, values):
            jct.plot([x] * len(v), v, "k_", markersize=12)
    jct.set_ylabel("job completion time (emulated s)")
    jct.set_title("(a) job completion time")
    jct.legend()
    values = [[100 * r[2] for r in runs[p]] for p in policies]
    loc.bar(range(len(policies)), [sum(v) / len(v) for v in values], 0.6, color="tab:green")
    for i, v in enumerate(values):
        loc.plot([i] * len(v), v, "k_", markersize=12)
    loc.set_ylabel("tasks run local (%)")
    loc.set_ylim(0, 100)
    loc.set_title("(b) locality")
    for ax in (jct, loc):
        ax.set_xticks(range(len(policies)))
        ax.set_xticklabels([tick_label(p) for p in policies], fontsize=8)
    fig.suptitle(title(first, runs, policies))
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main():
    if len(sys.argv) != 3:
        print(USAGE, file=sys.stderr)
        sys.exit(2)
    runs, first = read_runs(sys.argv[1])
    draw(runs, first, sys.argv[2])


if __name__ == "__main__":
    main()
