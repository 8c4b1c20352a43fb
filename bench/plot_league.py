#!/usr/bin/env python3
"""Draws the league's chart from its JSONL rows (bench/league.py):
left, a heat map of each policy's mean JCT over best-tuned delay scheduling's (geometric
mean over each family's stable workloads, each the mean over its seeds) at each remote
slowdown; right, when the rows have it, the paper's model with geometric job sizes at 4x:
mean job delay against load.
Usage: plot_league.py ROWS.jsonl OUT.png (needs matplotlib)."""
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from league import best_delay, seed_mean  # noqa: E402  (the tables' averages and best waits)

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit("plot_league.py: matplotlib is missing (apt-get install python3-matplotlib)")


# The default first, then the other policies, then the extras' variants.
ORDER = ["late-binding", "late-binding+fair", "late-binding+rebalance", "late-binding+lp",
         "late-binding+rebalance+lp", "balanced-pandas", "jsq-maxweight",
         "jsq-maxweight+bias2", "jsq-maxweight+rebalance", "jsq-maxweight+lp",
         "jsq-maxweight+rebalance+lp", "jsq-maxweight+bias2+rebalance",
         "jsq-maxweight+bias2+lp", "jsq-maxweight+bias2+rebalance+lp", "fair", "fifo"]


def ratio(rows, best, lab, fam, sd):
    """The geometric mean of lab's mean JCT over best delay's on fam's stable workloads."""
    ratios = []
    for r in rows:
        if r["label"] != lab or r["family"] != fam or r["slowdown"] != sd:
            continue
        d = best.get((fam, r["workload"], sd))
        if d and r["stable"] and r["mean_jct"]:
            ratios.append(r["mean_jct"] / d["mean_jct"])
    return math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else float("nan")


def heat_map(ax, others, best, labels, groups):
    """Each policy's ratio to best-tuned delay per (family, slowdown), as coloured cells."""
    grid = [[ratio(others, best, lab, fam, sd) for fam, sd in groups] for lab in labels]
    shown = [[math.log2(v) if math.isfinite(v) else float("nan") for v in row] for row in grid]
    cmap = matplotlib.colormaps["RdYlGn_r"].copy()
    cmap.set_bad("#dddddd")
    ax.imshow(shown, cmap=cmap, vmin=-1.5, vmax=1.5, aspect="auto")
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            ax.text(j, i, "%.2f" % v if math.isfinite(v) else "-", ha="center", va="center",
                    fontsize=6.5)
    ax.set_yticks(range(len(labels)))
    ax.set_yticklabels(labels, fontsize=8)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(["%s %gx" % g for g in groups], rotation=90, fontsize=7)
    ax.set_title("Mean JCT / best-tuned delay scheduling's (geometric mean over each family's "
                 "stable workloads; below 1 beats it, '-' not run or unstable)", fontsize=9)


def paper_model(ax, paper, labels):
    """The paper's model with geometric sizes at 4x: mean job delay against load."""
    for lab in [lab for lab in labels if "+rebalance" not in lab and "+lp" not in lab] + ["delay"]:
        pts = sorted((r["load_share"], r["mean_jct"]) for r in paper
                     if r["label"] == lab and r["stable"] and r["mean_jct"] is not None)
        if pts:
            ax.plot([100 * x for x, _ in pts], [y for _, y in pts], marker="o", label=lab)
    ax.set_yscale("log")
    ax.set_xlabel("load, % of capacity")
    ax.set_ylabel("mean job delay (slots)")
    ax.set_title("Paper's model, geometric sizes, 4x")
    ax.legend(fontsize=8)


def main(path, png):
    # Delay scheduling at its best wait per workload and slowdown, where one is stable.
    others = [r for r in best_delay(seed_mean([json.loads(line) for line in open(path)]))
              if r["label"] != "delay" or (r["stable"] and r["mean_jct"] is not None)]
    best = {(r["family"], r["workload"], r["slowdown"]): r for r in others
            if r["label"] == "delay"}
    present = {r["label"] for r in others if r["label"] != "delay"}
    labels = [lab for lab in ORDER if lab in present] + sorted(present - set(ORDER))
    families = sorted({r["family"] for r in others})
    slowdowns = sorted({r["slowdown"] for r in others}, reverse=True)
    groups = [(f, s) for f in families for s in slowdowns
              if any(r["family"] == f and r["slowdown"] == s for r in others)]
    paper = [r for r in others if r["family"] == "slotted-geometric" and r["slowdown"] == 4]
    if paper:
        fig, (ax, ax2) = plt.subplots(1, 2, figsize=(18, 7.5),
                                      gridspec_kw={"width_ratios": [3, 1]})
        paper_model(ax2, paper, labels)
    else:  # a league without the paper's model (say --families models): the heat map alone
        fig, ax = plt.subplots(figsize=(13.5, 7.5))
    heat_map(ax, others, best, labels, groups)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
