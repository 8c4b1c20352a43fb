#!/usr/bin/python3
"""Draw bench/lp_quality.py's --results file: each solver's ratio of sum w_j C_j to the
interval LP bound, per instance (grouped bars; 1.0 is the bound).

Usage: plot_lp_quality.py RESULTS.jsonl OUT.png   (needs python3 with matplotlib)
For an instance measured more than once, the last line per solver counts.
"""
import json
import sys


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        sys.exit(2)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    ratios, instances, solvers = {}, [], []
    with open(sys.argv[1]) as f:
        for line in f:
            if not line.strip():
                continue
            d = json.loads(line)
            if d["instance"] not in instances:
                instances.append(d["instance"])
            if d["solver"] not in solvers:
                solvers.append(d["solver"])
            ratios[(d["instance"], d["solver"])] = d["ratio"]
    width = 0.8 / len(solvers)
    fig, ax = plt.subplots(figsize=(12, 5))
    for k, solver in enumerate(solvers):
        xs = [i + k * width for i, n in enumerate(instances) if (n, solver) in ratios]
        ys = [ratios[(n, solver)] for n in instances if (n, solver) in ratios]
        ax.bar(xs, ys, width, label=solver)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(instances))])
    ax.set_xticklabels(instances, rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("Σ w_j C_j / LP bound")
    ax.set_ylim(0.9, max(ratios.values()) * 1.05)
    ax.legend(fontsize=7)
    ax.set_title("Offline solvers against the interval LP bound (trace instances)")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
