#!/usr/bin/env python3
"""Synthesizes a SWIM-style MapReduce job trace shaped like Facebook's 2009 workload.

Writes one SWIM TSV row per job (job_id, submit s, gap s, map input bytes, shuffle
bytes, reduce output bytes, input path: the format `locsched-tail --format swim` reads;
jobs naming one input read its blocks from the same machines) covering --minutes of
submissions. Seeded: the same flags give the same file.

The model is fitted to the FB-2009 job traces that SWIM publishes (SWIMProjectUCB/SWIM,
commit 1277c5168034c9e4a690a07cbb1d498619000da6, workloadSuite/
FB-2009_samples_24_times_1hr_0.tsv and _1.tsv: 12,532 jobs sampled from six months of a
600-machine Facebook Hadoop cluster; Chen, Ganapathi, Griffith, Katz, "The Case for
Evaluating MapReduce Performance Using Workload Suites", MASCOTS 2011). The two tables
below are the output of `python3 tools/synth/fit_swim.py` on those two files (fetch them
with tools/fetch-traces.sh):
  * gaps between submissions are drawn from their empirical distribution (piecewise
    linear between the listed percentiles);
  * a job's map input bytes pick a decade with its share of jobs and are log-uniform
    inside it; its shuffle and output bytes are non-zero with the decade's share and then
    drawn from the decade's empirical distribution of log10 bytes (piecewise linear
    between the listed percentiles), so the input-shuffle correlation of the real jobs
    (small jobs are map-only, large ones aggregate) holds.
Which input a job reads follows SWIM's FB-2010 sample with input paths (hours 0-11 of
FB-2010_samples_24_times_1hr_withInputPaths_0.tsv, 13,483 jobs; INPUT_MODEL is the output
of `python3 tools/synth/fit_swim.py --inputs` on it): per hour of submissions, a job reads
an input of its own with probability one_off, else the input of rank r of the hour's
pool of `pool` inputs with probability proportional to r^-zipf; a job reading an input
read before in the hour reads the same bytes as its last reader with probability
same_bytes (else its own drawn size). Inputs are named inputPath1, inputPath2, ... in
order of first reading, as SWIM names them. The input draws use a random stream of their
own, so gaps and drawn sizes are those of the same seed without inputs.
Reads nothing: the tables are the model. Python 3 standard library only.

Usage: python3 tools/synth/swim_synth.py [--minutes M] [--seed S] [--scale X] [--out FILE]
                                         [--no-inputs]
  --minutes M  submissions span M minutes (default 60)
  --seed S     the random seed (default 1)
  --scale X    multiply every byte count by X (default 1; SWIM scales by cluster size)
  --out FILE   write there instead of standard output
  --no-inputs  six fields, no input path: every job's blocks placed on their own
"""
import bisect
import argparse
import math
import random
import sys

# Inter-arrival gap (s) at percentiles 0, 5, ..., 95, 99, 99.9.
GAP_POINTS = [p / 100 for p in range(0, 100, 5)] + [0.99, 0.999]
GAP_QUANTILES = [0, 1, 1, 1, 2, 3, 4, 4, 5, 6, 7, 8, 9, 11, 13, 15, 19, 24, 32, 47, 99, 212]

# Per decade of map input bytes (-1: no input): its share of jobs; for shuffle bytes,
# then reduce output bytes: the share of jobs with a non-zero value and log10 of the
# value at the percentiles LOG_POINTS.
LOG_POINTS = [0, 0.1, 0.25, 0.5, 0.75, 0.9, 1]
SIZE_CLASSES = [
    (-1, 0.0188, (0.000, []), (0.655, [1.3, 1.3, 1.89, 2.1, 2.1, 2.44, 4.97])),
    (0, 0.0027, (0.000, []), (1.000, [2.4, 2.4, 2.4, 2.41, 2.41, 3.18, 3.22])),
    (1, 0.1238, (0.004, [0.85, 0.85, 0.85, 0.85, 1.85, 1.85, 1.93]), (0.995, [0.85, 6.13, 8.59, 9.0, 9.0, 9.0, 9.33])),
    (2, 0.1234, (0.061, [0.95, 1.18, 1.81, 2.34, 2.75, 3.25, 3.84]), (0.970, [0.7, 2.89, 6.5, 8.65, 9.36, 9.79, 11.0])),
    (3, 0.1545, (0.097, [1.94, 2.45, 2.79, 3.58, 3.94, 4.44, 5.29]), (0.999, [1.34, 3.33, 4.72, 5.26, 5.62, 6.31, 9.98])),
    (4, 0.2924, (0.073, [1.0, 3.03, 3.89, 4.83, 5.1, 5.36, 5.99]), (1.000, [1.4, 3.66, 5.12, 5.46, 6.45, 9.28, 11.33])),
    (5, 0.0366, (0.647, [1.59, 1.97, 5.33, 5.81, 6.31, 6.47, 6.87]), (0.998, [0.95, 1.81, 3.58, 4.99, 5.77, 6.51, 12.06])),
    (6, 0.0373, (0.670, [1.08, 4.91, 6.52, 6.95, 7.27, 7.49, 8.65]), (1.000, [1.43, 3.05, 5.41, 6.05, 6.57, 6.94, 7.64])),
    (7, 0.0539, (0.769, [1.2, 3.49, 3.49, 7.61, 8.04, 8.45, 9.25]), (1.000, [1.4, 2.39, 3.4, 6.7, 7.34, 7.78, 8.75])),
    (8, 0.0535, (0.833, [1.45, 3.62, 4.88, 8.52, 9.05, 9.27, 10.38]), (1.000, [1.36, 2.55, 3.62, 6.9, 8.01, 8.63, 9.36])),
    (9, 0.0472, (0.802, [1.63, 4.29, 5.86, 9.09, 9.86, 10.24, 11.16]), (1.000, [1.04, 2.83, 5.03, 7.18, 8.76, 9.29, 10.12])),
    (10, 0.0476, (0.787, [2.24, 5.26, 7.22, 10.08, 10.46, 10.87, 11.72]), (0.995, [1.43, 3.43, 5.09, 7.64, 9.44, 9.92, 10.97])),
    (11, 0.0082, (0.612, [1.63, 3.66, 5.88, 9.23, 11.21, 11.76, 12.95]), (0.990, [1.48, 3.6, 5.28, 7.78, 9.15, 10.51, 11.22])),
    (12, 0.0002, (1.000, [6.61, 6.61, 6.61, 10.71, 10.99, 10.99, 10.99]), (1.000, [4.0, 4.0, 4.0, 4.76, 5.01, 5.01, 5.01])),
]

# Input sharing, fitted to FB-2010's hours 0-11 (fit_swim.py --inputs).
INPUT_MODEL = {'one_off': 0.441, 'pool': 3668, 'zipf': 1.062, 'same_bytes': 0.524}


def interpolate(points, values, u):
    """The piecewise-linear inverse CDF through (points[i], values[i]) at u in [0, 1)."""
    for i in range(1, len(points)):
        if u < points[i]:
            lo, hi = points[i - 1], points[i]
            return values[i - 1] + (values[i] - values[i - 1]) * (u - lo) / (hi - lo)
    return values[-1]


def draw_gap(rng):
    return round(interpolate(GAP_POINTS, GAP_QUANTILES, rng.random()))


def draw_bytes(rng, share, log_quantiles):
    if rng.random() >= share:
        return 0
    return round(10 ** interpolate(LOG_POINTS, log_quantiles, rng.random()))


def draw_job(rng):
    u = rng.random() * sum(c[1] for c in SIZE_CLASSES)
    for cls in SIZE_CLASSES:
        u -= cls[1]
        if u < 0:
            break
    decade = cls[0]
    size = 0 if decade < 0 else round(10 ** (decade + rng.random()))
    return size, draw_bytes(rng, *cls[2]), draw_bytes(rng, *cls[3])


class Inputs:
    """Names each job's input by INPUT_MODEL, hour by hour, from its own random stream."""

    def __init__(self, seed):
        self.rng = random.Random(f"inputs:{seed}")
        self.cumulative = []
        total = 0.0
        for r in range(1, INPUT_MODEL["pool"] + 1):
            total += r ** -INPUT_MODEL["zipf"]
            self.cumulative.append(total)
        self.hour, self.names, self.last_bytes, self.count = -1, {}, {}, 0

    def new_name(self):
        self.count += 1
        return f"inputPath{self.count}"

    def draw(self, submit, size):
        """(input name, map input bytes) of a job submitted at `submit` drawing `size`."""
        if submit // 3600 != self.hour:  # a new hour, a new pool
            self.hour, self.names = submit // 3600, {}
        if self.rng.random() < INPUT_MODEL["one_off"]:
            return self.new_name(), size
        u = self.rng.random() * self.cumulative[-1]
        rank = min(bisect.bisect_right(self.cumulative, u), len(self.cumulative) - 1)
        if rank not in self.names:
            self.names[rank] = self.new_name()
        else:
            same = self.rng.random() < INPUT_MODEL["same_bytes"]
            size = self.last_bytes[self.names[rank]] if same else size
        self.last_bytes[self.names[rank]] = size
        return self.names[rank], size


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--minutes", type=float, default=60)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--out")
    p.add_argument("--no-inputs", action="store_true")
    args = p.parse_args(argv)
    if not 0 < args.minutes <= 7 * 24 * 60:
        p.error(f"--minutes: {args.minutes:g} is not in (0, 10080]")
    if not args.scale > 0:
        p.error(f"--scale: {args.scale:g} is not positive")
    return args


def main(argv):
    args = parse_args(argv)
    rng = random.Random(args.seed)
    out = open(args.out, "w") if args.out else sys.stdout
    inputs = None if args.no_inputs else Inputs(args.seed)
    t, prev, job = 0, 0, 0
    while True:
        size, shuffle, output = draw_job(rng)
        s = lambda x: round(x * args.scale)
        path = ""
        if inputs:
            name, size = inputs.draw(t, size)
            path = "\t" + name
        out.write(f"job{job}\t{t}\t{t - prev}\t{s(size)}\t{s(shuffle)}\t{s(output)}{path}\n")
        job, prev = job + 1, t
        t += draw_gap(rng)
        if t >= args.minutes * 60:
            break
    if args.out:
        out.close()


if __name__ == "__main__":
    main(sys.argv[1:])
