#!/usr/bin/env python3
"""Fits the job-size and inter-arrival model of swim_synth.py to SWIM job traces.

Reads one or more SWIM TSV files (job_id, submit s, gap s, map input bytes, shuffle
bytes, reduce output bytes; e.g. FB-2009_samples_24_times_1hr_{0,1}.tsv, fetched with
tools/fetch-traces.sh) and prints the two tables swim_synth.py embeds:
  GAP_QUANTILES  the inter-arrival gap (s) at every 5th percentile to the 95th, then
                 the 99th and 99.9th;
  SIZE_CLASSES   one row per decade of map input bytes (decade -1: empty input): the
                 share of jobs, and for shuffle and output bytes the share of jobs with
                 a non-zero value and the quantiles of its log10 at LOG_POINTS.
Usage: python3 tools/synth/fit_swim.py FILE...   (Python 3 standard library only)
"""
import math
import sys


def decade(x):
    return -1 if x <= 0 else int(math.floor(math.log10(x)))


LOG_POINTS = [0, 0.1, 0.25, 0.5, 0.75, 0.9, 1]


def log_quantiles(values):
    """The share of non-zero values and log10 of them at LOG_POINTS."""
    logs = sorted(math.log10(v) for v in values if v > 0)
    if not logs:
        return 0.0, []
    return len(logs) / len(values), [round(logs[round(p * (len(logs) - 1))], 2) for p in LOG_POINTS]


def main(paths):
    if not paths:
        sys.exit(__doc__)
    rows = []
    for path in paths:
        with open(path) as f:
            for n, line in enumerate(f, 1):
                fields = line.rstrip("\n").split("\t")
                try:
                    rows.append([int(x) for x in fields[2:6]])
                except (ValueError, IndexError):
                    sys.exit(f"{path}:{n}: not a SWIM row (gap, input, shuffle, output bytes)")
    gaps = sorted(r[0] for r in rows)
    # Every 5th percentile, then the 99th and 99.9th: the largest gaps are the seams
    # between the sampled hours of a SWIM day, not arrivals, so the top is cut there.
    points = [p / 100 for p in range(0, 100, 5)] + [0.99, 0.999]
    quantiles = [gaps[round(p * (len(gaps) - 1))] for p in points]
    print(f"# fitted on {len(rows)} jobs: {' '.join(paths)}")
    print(f"GAP_QUANTILES = {quantiles}")
    print(f"LOG_POINTS = {LOG_POINTS}")
    print("SIZE_CLASSES = [  # decade, share, (p, log10 quantiles) of shuffle, of output")
    for d in sorted({decade(r[1]) for r in rows}):
        cls = [r for r in rows if decade(r[1]) == d]
        shuffle = log_quantiles([r[2] for r in cls])
        output = log_quantiles([r[3] for r in cls])
        print(f"    ({d}, {len(cls) / len(rows):.4f}, ({shuffle[0]:.3f}, {shuffle[1]}), "
              f"({output[0]:.3f}, {output[1]})),")
    print("]")


if __name__ == "__main__":
    main(sys.argv[1:])
