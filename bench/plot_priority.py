#!/usr/bin/env python3
"""Draw bench/priority_online.sh's results: weighted mean job completion time against
load for the intra-queue policies fifo, fair and priority (the backlog LP's order), under
the paper's JSQ routing (dashed) and the biased routing (remote_bias > 0, solid),

  (a) in the simulator (locsched-sim, time slots);
  (b) through the daemon (locschedd + locsched-agents, emulated seconds).

Usage: plot_priority.py SIM.jsonl DAEMON.jsonl OUT.png
A missing or empty DAEMON.jsonl leaves panel (b) empty. Needs python3 with matplotlib.
Exits 2 on bad arguments or a bad results file.
"""
import json
import os
import sys

USAGE = "usage: plot_priority.py SIM.jsonl DAEMON.jsonl OUT.png  (bench/priority_online.sh)"
CAPACITY = 68.0  # tasks per slot of the benchmark's cluster
STYLES = {"fifo": ("FIFO", "tab:gray", "s"), "fair": ("Fair", "tab:blue", "o"),
          "priority": ("Priority (LP)", "tab:red", "^")}


def fail(message):
    print(f"plot_priority.py: {message}", file=sys.stderr)
    sys.exit(2)


def read_lines(path):
    if not os.path.exists(path):
        return []
    try:
        with open(path) as f:
            return [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError) as e:
        fail(f"{path}: {e}")


def routing(d):
    """"biased" when the line's run had remote_bias > 0, else "paper" (older lines: paper)."""
    return "biased" if d.get("remote_bias", 0) else "paper"


def sim_series(lines):
    """{(routing, intra): [(load %, weighted mean JCT)]} from locsched-sim --json lines."""
    out = {}
    for d in lines:
        if d.get("weighted_mean_job_delay") is None:
            continue
        out.setdefault((routing(d), d["intra"]), []).append(
            (100 * d["load"] / d["capacity"], d["weighted_mean_job_delay"]))
    return out


def daemon_series(lines):
    """{(routing, intra): [(load %, weighted mean JCT)]} from priority_online.sh's daemon lines."""
    out = {}
    for d in lines:
        out.setdefault((routing(d), d["intra"]), []).append(
            (d["load_pct"], d["agents"]["weighted_mean_job_delay"]))
    return out


def panel(ax, series, title, unit):
    for (route, line) in (("paper", "--"), ("biased", "-")):
        for intra, (label, color, marker) in STYLES.items():
            points = sorted(series.get((route, intra), []))
            if points:
                ax.plot([p[0] for p in points], [p[1] for p in points], marker=marker,
                        color=color, linestyle=line, label=f"{label}, {route} routing")
    ax.set_title(title)
    ax.set_xlabel("load (% of capacity)")
    ax.set_ylabel(f"weighted mean JCT ({unit})")
    ax.grid(alpha=0.3)
    if series:
        ax.legend(fontsize=7)
    else:
        ax.text(0.5, 0.5, "no runs", ha="center", va="center", transform=ax.transAxes)


def main():
    if len(sys.argv) != 4:
        fail(USAGE)
    sim, daemon = read_lines(sys.argv[1]), read_lines(sys.argv[2])
    if not sim:
        fail(f"{sys.argv[1]}: no results")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        fail("needs python3-matplotlib")
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4.2))
    panel(a, sim_series(sim), "(a) simulator, 100 machines", "slots")
    panel(b, daemon_series(daemon), "(b) locschedd + locsched-agents", "emulated s")
    fig.suptitle("JSQ+MaxWeight intra-queue policies: geometric job sizes (mean 20), "
                 "weights uniform 1..10")
    fig.tight_layout()
    fig.savefig(sys.argv[3], dpi=110)


if __name__ == "__main__":
    main()
