#!/usr/bin/env python3
"""Draw a locsched-sim --sweep CSV in the shape of the JSQ+MaxWeight paper's
Fig. 3b and 4a: three panels against the total task arrival rate (load), one
line per policy:

  (a) throughput region: mean concurrent jobs, log scale; unstable points are
      drawn as x, and a dashed line marks the capacity;
  (b) mean job delay, stable points only (the paper leaves unstable ones out);
  (c) locality: the share of tasks that ran on a machine holding their data.

Usage: plot_sweep.py SWEEP.csv OUT.png
Needs python3 with matplotlib. Exits 2 on bad arguments or a bad CSV.
"""
import csv
import sys

USAGE = "usage: plot_sweep.py SWEEP.csv OUT.png  (the CSV of locsched-sim --sweep --csv)"
NUMBERS = ("load", "mean_jobs_in_system", "stable", "mean_job_delay", "locality", "capacity")
# Figures of the measurement window are empty for a run that stopped before it.
OPTIONAL = ("mean_jobs_in_system", "mean_job_delay", "locality")
NAMES = {"jsq-maxweight": "JSQ+MaxWeight", "fair": "Fair sharing", "fifo": "FIFO",
         "delay": "Delay scheduling"}


def fail(message):
    print(f"plot_sweep.py: {message}", file=sys.stderr)
    sys.exit(2)


def read_sweep(path):
    """Returns {policy: [row, ...] sorted by load}, numbers as floats."""
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            rows, header = list(reader), reader.fieldnames
    except OSError as e:
        fail(f"cannot read '{path}': {e.strerror}")
    if not header:
        fail(f"'{path}' is empty")
    for column in ("policy",) + NUMBERS:
        if column not in header:
            fail(f"'{path}' has no column '{column}'")
    if not rows:
        fail(f"'{path}' has a header but no data rows")
    by_policy = {}
    for line, row in enumerate(rows, start=2):
        for column in NUMBERS:
            if column in OPTIONAL and row[column] == "":
                row[column] = None
                continue
            try:
                row[column] = float(row[column])
            except (TypeError, ValueError):
                fail(f"'{path}' line {line}: column '{column}' is not a number: {row[column]!r}")
        by_policy.setdefault(row["policy"], []).append(row)
    return {p: sorted(rs, key=lambda r: r["load"]) for p, rs in by_policy.items()}


def draw(ax, rows, column, color):
    """One policy's line, with o at stable points and x at unstable ones."""
    ax.plot([r["load"] for r in rows], [r[column] for r in rows], "-", color=color)
    for r in rows:
        ax.plot(r["load"], r[column], "o" if r["stable"] else "x", color=color,
                markersize=6 if r["stable"] else 9, markeredgewidth=2)


def plot(sweep, png):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.lines import Line2D
    except ImportError:
        fail("needs matplotlib (Debian: apt install python3-matplotlib)")
    rows = [r for rs in sweep.values() for r in rs]
    capacity = rows[0]["capacity"]
    # A run the backlog cap stopped before its warm-up ended has no figures
    # (empty fields): panel (a) puts it at the top edge, (b) and (c) leave it out.
    measured = [r for r in rows if r["mean_jobs_in_system"] is not None]
    top = 3 * max((r["mean_jobs_in_system"] for r in measured), default=1)
    off_chart = len(measured) < len(rows)
    for r in rows:
        r["jobs_shown"] = r["mean_jobs_in_system"] if r["mean_jobs_in_system"] is not None else top

    fig, (ax_jobs, ax_delay, ax_local) = plt.subplots(1, 3, figsize=(16, 5), sharex=True)
    for i, policy_rows in enumerate(sweep.values()):
        draw(ax_jobs, policy_rows, "jobs_shown", f"C{i}")
        draw(ax_delay, [r for r in policy_rows if r["stable"]], "mean_job_delay", f"C{i}")
        draw(ax_local, [r for r in policy_rows if r["locality"] is not None], "locality",
             f"C{i}")
    for ax in (ax_jobs, ax_delay, ax_local):
        ax.set_xlim(right=max([capacity] + [r["load"] for r in rows]) * 1.04)
        ax.axvline(capacity, color="gray", linestyle="--", linewidth=1)
        ax.text(capacity, 0.03, "capacity ", transform=ax.get_xaxis_transform(), rotation=90,
                color="gray", ha="right", va="bottom")
        ax.set_xlabel("total arrival rate (tasks per time slot)")
        ax.grid(True, alpha=0.3)
    ax_jobs.set(title="(a) throughput region", ylabel="mean number of concurrent jobs",
                yscale="log")
    ax_jobs.set_ylim(top=top * 1.5)
    ax_delay.set(title="(b) mean job delay (stable points)", ylabel="mean job delay (time slots)")
    ax_local.set(title="(c) locality", ylabel="share of tasks run locally", ylim=(0, 1.02))

    # One legend for the three panels, under them.
    unstable = "unstable"
    if off_chart:
        unstable += " (at the top of (a): backlog cap hit in warm-up)"
    handles = [Line2D([], [], color=f"C{i}", marker="o", label=NAMES.get(p, p))
               for i, p in enumerate(sweep)]
    handles += [Line2D([], [], color="k", marker="x", linestyle="", markersize=9,
                       markeredgewidth=2, label=unstable),
                Line2D([], [], color="gray", linestyle="--", label=f"capacity {capacity:g}")]
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), frameon=False)
    fig.suptitle(f"locsched-sim load sweep (capacity {capacity:g} tasks per slot)")
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    try:
        fig.savefig(png, dpi=110)
    except OSError as e:
        fail(f"cannot write '{png}': {e.strerror}")


def main(argv):
    if any(a in ("-h", "--help") for a in argv[1:]):
        print(USAGE)
        return 0
    if len(argv) != 3:
        print(USAGE, file=sys.stderr)
        return 2
    plot(read_sweep(argv[1]), argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
