#!/usr/bin/env python3
"""Draws the league's chart from its JSONL rows (bench/league.py):
left, each policy's mean JCT over best-tuned delay scheduling's (geometric mean over
each family's stable workloads) at each remote slowdown; right, the paper's model with
geometric job sizes at 4x: mean job delay against load.
Usage: plot_league.py ROWS.jsonl OUT.png (needs matplotlib)."""
import json
import math
import sys

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit("plot_league.py: matplotlib is missing (apt-get install python3-matplotlib)")


def main(path, png):
    rows = [json.loads(line) for line in open(path)]
    best = {}
    for r in rows:
        if r["policy"] != "delay" or not r["stable"] or r["mean_jct"] is None:
            continue
        key = (r["family"], r["workload"], r["slowdown"])
        if key not in best or r["mean_jct"] < best[key]["mean_jct"]:
            best[key] = r
    others = [r for r in rows if r["policy"] != "delay"] + [dict(r, label="delay")
                                                              for r in best.values()]
    labels = sorted({r["label"] for r in others if r["label"] != "delay"})
    families = sorted({r["family"] for r in others})
    slowdowns = sorted({r["slowdown"] for r in others}, reverse=True)
    groups = [(f, s) for f in families for s in slowdowns]
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(16, 6), gridspec_kw={"width_ratios": [3, 1]})
    width = 0.8 / max(1, len(labels))
    for i, lab in enumerate(labels):
        ys = []
        for fam, sd in groups:
            ratios = []
            for r in others:
                if r["label"] != lab or r["family"] != fam or r["slowdown"] != sd:
                    continue
                d = best.get((fam, r["workload"], sd))
                if d and r["stable"] and r["mean_jct"]:
                    ratios.append(r["mean_jct"] / d["mean_jct"])
            ys.append(math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else float("nan"))
        ax.bar([g + i * width for g in range(len(groups))], ys, width, label=lab)
    ax.axhline(1, color="black", linewidth=1)
    ax.set_yscale("log")
    ax.set_xticks([g + 0.4 - width / 2 for g in range(len(groups))])
    ax.set_xticklabels(["%s\n%gx" % g for g in groups], rotation=90, fontsize=7)
    ax.set_ylabel("mean JCT / best-tuned delay's (geometric mean)")
    ax.set_title("League: below 1 beats best-tuned delay scheduling")
    ax.legend(fontsize=8)
    for lab in labels + ["delay"]:
        pts = sorted((r["load_share"], r["mean_jct"]) for r in others
                     if r["family"] == "slotted-geometric" and r["slowdown"] == 4
                     and r["label"] == lab and r["stable"] and r["mean_jct"] is not None)
        if pts:
            ax2.plot([100 * x for x, _ in pts], [y for _, y in pts], marker="o", label=lab)
    ax2.set_yscale("log")
    ax2.set_xlabel("load, % of capacity")
    ax2.set_ylabel("mean job delay (slots)")
    ax2.set_title("Paper's model, geometric sizes, 4x")
    ax2.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
