#!/usr/bin/env python3
"""Fits the job-size, inter-arrival and input-sharing model of swim_synth.py to SWIM traces.

Reads one or more SWIM TSV files (job_id, submit s, gap s, map input bytes, shuffle
bytes, reduce output bytes; e.g. FB-2009_samples_24_times_1hr_{0,1}.tsv, fetched with
tools/fetch-traces.sh) and prints the two tables swim_synth.py embeds:
  GAP_QUANTILES  the inter-arrival gap (s) at every 5th percentile to the 95th, then
                 the 99th and 99.9th;
  SIZE_CLASSES   one row per decade of map input bytes (decade -1: empty input): the
                 share of jobs, and for shuffle and output bytes the share of jobs with
                 a non-zero value and the quantiles of its log10 at LOG_POINTS.
Usage: python3 tools/synth/fit_swim.py FILE...   (Python 3 standard library only)

With --inputs FILE it fits instead the input-sharing model to SWIM's FB-2010 sample with
input paths (9 fields, the 7th naming the input; ../shared/data/traces/swim-fb/
FB-2010_withInputPaths_0_hours00-11.tsv) and prints the INPUT_MODEL swim_synth.py embeds.
The model, per hour of submissions: a job reads an input no other job reads with
probability one_off; otherwise the input of rank r of that hour's pool of `pool` inputs
with probability proportional to r^-zipf; a job that reads an input read before in the
hour reads the same bytes as its last reader with probability same_bytes. The fit
minimizes the Poisson deviance between the observed and the expected number of inputs
read k times in an hour (k binned 1, 2, 3-4, 5-8, ..., 129+), pooled over the hours,
each hour with its own job count. Absent FILE: a message, exit 0 (nothing to refit).
"""
import collections
import math
import os
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


# Bins of "read k times in an hour": 1, 2, 3-4, 5-8, ..., 65-128, 129 and more.
READ_BINS = [(1, 1), (2, 2), (3, 4), (5, 8), (9, 16), (17, 32), (33, 64), (65, 128), (129, None)]


def read_bin(k):
    return next(i for i, (lo, hi) in enumerate(READ_BINS) if k >= lo and (hi is None or k <= hi))


def rank_groups(pool, zipf):
    """(ranks, probability of each) for the pool: ranks 1-64 alone, then groups of about 5%
    of the rank (their weights are near alike), normalized to sum to 1."""
    groups, r = [], 1
    while r <= pool:
        hi = min(pool, r + (0 if r <= 64 else max(1, r // 20) - 1))
        groups.append((hi - r + 1, ((r + hi) / 2) ** -zipf))
        r = hi + 1
    total = sum(c * w for c, w in groups)
    return [(c, w / total) for c, w in groups]


def poisson_bins(lam):
    """P(k in each READ_BIN) for k ~ Poisson(lam), k >= 1."""
    out = [0.0] * len(READ_BINS)
    p = math.exp(-lam)
    for k in range(1, int(lam + 12 * math.sqrt(lam) + 20) + 1):
        p *= lam / k
        out[read_bin(k)] += p
    return out


def expected_reads(hour_jobs, one_off, pool, zipf):
    """Expected inputs per READ_BIN, summed over hours of hour_jobs jobs each."""
    groups = rank_groups(pool, zipf)
    out = [0.0] * len(READ_BINS)
    for n in hour_jobs:
        out[0] += n * one_off
        for count, q in groups:
            for i, p in enumerate(poisson_bins(n * (1 - one_off) * q)):
                out[i] += count * p
    return out


def deviance(observed, expected):
    return 2 * sum((o * math.log(o / max(e, 1e-12)) if o else 0) - (o - e)
                   for o, e in zip(observed, expected))


def fit_pool(hour_jobs, observed):
    """(deviance, one_off, pool, zipf): coordinate descent with halving steps from a fixed
    start, so the same file always gives the same fit."""
    x = [0.5, math.log(1000), 1.0]  # one_off, log pool, zipf
    step = [0.1, math.log(2), 0.2]
    lo, hi = [0.01, math.log(2), 0.1], [0.99, math.log(100000), 3.0]
    cost = lambda v: deviance(observed, expected_reads(hour_jobs, v[0], round(math.exp(v[1])), v[2]))
    best = cost(x)
    while step[0] > 0.002:
        moved = False
        for i in range(3):
            for sign in (1, -1):
                y = list(x)
                y[i] = min(hi[i], max(lo[i], y[i] + sign * step[i]))
                c = cost(y)
                if c < best - 1e-9:
                    x, best, moved = y, c, True
        if not moved:
            step = [s / 2 for s in step]
    return best, x[0], round(math.exp(x[1])), x[2]


def fit_inputs(path):
    if not os.path.exists(path):
        print(f"fit_swim.py: skipped: {path} is absent (it is SWIM's FB-2010 sample with input "
              "paths; the committed INPUT_MODEL stays)", file=sys.stderr)
        return
    hours = collections.defaultdict(list)  # hour -> [(input, bytes)] in order
    with open(path) as f:
        for n, line in enumerate(f, 1):
            fields = line.rstrip("\n").split("\t")
            try:
                hours[int(fields[1]) // 3600].append((fields[6], int(fields[3])))
            except (ValueError, IndexError):
                sys.exit(f"{path}:{n}: not a SWIM row with an input path (7th field)")
            if not fields[6]:
                sys.exit(f"{path}:{n}: input_path (7th field) is empty")
    observed, rereads, same = [0] * len(READ_BINS), 0, 0
    for jobs in hours.values():
        last = {}
        for name, size in jobs:
            rereads += name in last
            same += last.get(name) == size
            last[name] = size
        for k in collections.Counter(name for name, _ in jobs).values():
            observed[read_bin(k)] += 1
    hour_jobs = [len(jobs) for _, jobs in sorted(hours.items())]
    dev, one_off, pool, zipf = fit_pool(hour_jobs, observed)
    expected = expected_reads(hour_jobs, one_off, pool, zipf)
    jobs = sum(hour_jobs)
    print(f"# fitted on {jobs} jobs in {len(hour_jobs)} hours: {path}")
    print(f"# inputs read k times in an hour, k in {[b[0] for b in READ_BINS]}...: "
          f"observed {observed}, fitted {[round(e) for e in expected]}; "
          f"Poisson deviance {dev:.1f}")
    print(f"# jobs reading an input another job of their hour reads: observed "
          f"{1 - observed[0] / jobs:.3f}, fitted {1 - expected[0] / jobs:.3f}")
    print(f"INPUT_MODEL = {{'one_off': {one_off:.3f}, 'pool': {pool}, 'zipf': {zipf:.3f}, "
          f"'same_bytes': {same / rereads:.3f}}}")


def main(paths):
    if paths[:1] == ["--inputs"] and len(paths) == 2:
        fit_inputs(paths[1])
        return
    if not paths or "--inputs" in paths:
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
