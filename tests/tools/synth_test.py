#!/usr/bin/env python3
"""Black-box tests of tools/synth: swim_synth.py writes a seeded SWIM trace that
locsched-tail reads without a malformed record, whose jobs share inputs as its
INPUT_MODEL says; fit_swim.py on SWIM's FB-2009 samples and FB-2010 sample with input
paths (read from TRACES_DIR; those tests skip when it is absent) prints exactly the
tables swim_synth.py embeds, and says so when the FB-2010 file is absent.

Usage: synth_test.py SOURCE_DIR LOCSCHED-TAIL TRACES_DIR [unittest options]
"""
import collections
import importlib.util
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

SOURCE = TAIL = TRACES = None  # set from the command line in __main__


def synth(*args):
    script = os.path.join(SOURCE, "tools/synth/swim_synth.py")
    out = subprocess.run([sys.executable, script, *args], capture_output=True, text=True,
                         timeout=60)
    return out


class SynthTest(unittest.TestCase):
    def test_same_seed_same_trace_other_seed_other_trace(self):
        a = synth("--minutes", "30", "--seed", "7")
        b = synth("--minutes", "30", "--seed", "7")
        c = synth("--minutes", "30", "--seed", "8")
        self.assertEqual(a.returncode, 0, a.stderr)
        self.assertEqual(a.stdout, b.stdout)
        self.assertNotEqual(a.stdout, c.stdout)

    def test_rows_are_swim_rows_inside_the_span(self):
        rows = [line.split("\t") for line in synth("--minutes", "20").stdout.splitlines()]
        self.assertGreater(len(rows), 10)
        previous, inputs = 0, 0
        for i, r in enumerate(rows):
            self.assertEqual(len(r), 7)
            n = int(r[6].removeprefix("inputPath"))  # numbered in order of first reading
            self.assertEqual(r[6], "inputPath%d" % n)
            self.assertLessEqual(n, inputs + 1)
            inputs = max(inputs, n)
            self.assertEqual(r[0], "job%d" % i)
            submit, gap = int(r[1]), int(r[2])
            self.assertLess(submit, 20 * 60)
            self.assertEqual(submit - previous, gap)
            previous = submit
            self.assertTrue(all(int(x) >= 0 for x in r[3:6]))

    def test_locsched_tail_reads_every_row(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "t.tsv")
            self.assertEqual(synth("--minutes", "15", "--out", path).returncode, 0)
            with open(path, encoding="utf-8") as f:
                rows = f.read().splitlines()
            out = subprocess.run([TAIL, "--format", "swim", "--check", path], capture_output=True,
                                 text=True, timeout=60)
            self.assertEqual(out.returncode, 0, out.stderr)
            check = json.loads(out.stdout)
            self.assertEqual(check["malformed"], 0)
            self.assertEqual(check["jobs"], len(rows))

    def test_no_inputs_is_the_same_jobs_without_paths(self):
        plain = [r.split("\t") for r in synth("--minutes", "120", "--no-inputs").stdout.splitlines()]
        shared = [r.split("\t") for r in synth("--minutes", "120").stdout.splitlines()]
        self.assertEqual(len(plain), len(shared))
        self.assertTrue(all(len(r) == 6 for r in plain))
        # The inputs draw from a stream of their own: times, shuffle and output bytes agree;
        # input bytes too, except where a re-read copies its last reader's.
        self.assertEqual([r[:3] + r[4:6] for r in plain], [r[:3] + r[4:6] for r in shared])
        differs = sum(a[3] != b[3] for a, b in zip(plain, shared))
        self.assertGreater(differs, 0)
        self.assertLess(differs, len(plain) / 3)

    def test_jobs_share_inputs_as_the_model_says(self):
        model = load_synth().INPUT_MODEL
        rows = [r.split("\t") for r in synth("--minutes", "1440", "--seed", "5").stdout.splitlines()]
        hours = collections.defaultdict(list)
        for r in rows:
            hours[int(r[1]) // 3600].append((r[6], r[3]))
        weights = [r ** -model["zipf"] for r in range(1, model["pool"] + 1)]
        total = sum(weights)
        shared = expected_shared = rereads = same = 0
        for jobs in hours.values():
            counts = collections.Counter(name for name, _ in jobs)
            shared += sum(counts[name] > 1 for name, _ in jobs)
            # A job reads a shared input unless one-off or alone on its pool input.
            n = len(jobs)
            lam = [n * (1 - model["one_off"]) * w / total for w in weights]
            expected_shared += n - n * model["one_off"] - sum(x * math.exp(-x) for x in lam)
            last = {}
            for name, size in jobs:
                if name in last:
                    rereads += 1
                    same += last[name] == size
                last[name] = size
        self.assertGreater(len(rows), 4000)
        self.assertAlmostEqual(shared / len(rows), expected_shared / len(rows), delta=0.04)
        self.assertAlmostEqual(same / rereads, model["same_bytes"], delta=0.06)

    def test_locsched_tail_places_the_synthesized_hour_on_600_machines(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "t.tsv")
            self.assertEqual(synth("--minutes", "10", "--out", path).returncode, 0)
            out = subprocess.run([TAIL, "--format", "swim", "--check", path], capture_output=True,
                                 text=True, timeout=60)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertEqual(json.loads(out.stdout)["machines"], 600)  # FB-2009's shapes

    def test_bad_flags_name_the_flag(self):
        for args, flag in ((["--minutes", "0"], "--minutes"), (["--scale", "-1"], "--scale")):
            out = synth(*args)
            self.assertEqual(out.returncode, 2)
            self.assertIn(flag, out.stderr)

    def test_the_embedded_tables_are_the_fit_of_fb2009(self):
        files = [os.path.join(TRACES, "swim-fb/FB-2009_samples_24_times_1hr_%d.tsv" % i)
                 for i in (0, 1)]
        if not all(os.path.exists(f) for f in files):
            self.skipTest("the FB-2009 samples are absent from %s" % TRACES)
        fit = subprocess.run([sys.executable, os.path.join(SOURCE, "tools/synth/fit_swim.py"),
                              *files], capture_output=True, text=True, timeout=60)
        self.assertEqual(fit.returncode, 0, fit.stderr)
        with open(os.path.join(SOURCE, "tools/synth/swim_synth.py"), encoding="utf-8") as f:
            embedded = f.read()
        for line in fit.stdout.splitlines():
            if line.startswith(("GAP_QUANTILES", "LOG_POINTS", "    (")):
                self.assertIn(line, embedded)

    def test_the_input_model_is_the_fit_of_fb2010(self):
        path = os.path.join(TRACES, "swim-fb/FB-2010_withInputPaths_0_hours00-11.tsv")
        if not os.path.exists(path):
            self.skipTest("the FB-2010 sample with input paths is absent from %s" % TRACES)
        fit = fit_swim("--inputs", path)
        self.assertEqual(fit.returncode, 0, fit.stderr)
        with open(os.path.join(SOURCE, "tools/synth/swim_synth.py"), encoding="utf-8") as f:
            embedded = f.read()
        lines = [l for l in fit.stdout.splitlines() if l.startswith("INPUT_MODEL")]
        self.assertEqual(len(lines), 1, fit.stdout)
        self.assertIn(lines[0], embedded)

    def test_fit_inputs_skips_an_absent_file_and_names_a_bad_line(self):
        with tempfile.TemporaryDirectory() as d:
            fit = fit_swim("--inputs", os.path.join(d, "absent.tsv"))
            self.assertEqual(fit.returncode, 0, fit.stderr)
            self.assertIn("skipped", fit.stderr)
            self.assertEqual(fit.stdout, "")
            bad = os.path.join(d, "bad.tsv")
            with open(bad, "w") as f:
                f.write("job0\t1\t1\t5\t0\t0\tinputPath1\t\t\njob1\t2\t1\t5\t0\t0\n")
            fit = fit_swim("--inputs", bad)
            self.assertNotEqual(fit.returncode, 0)
            self.assertIn(bad + ":2:", fit.stderr)


def fit_swim(*args):
    script = os.path.join(SOURCE, "tools/synth/fit_swim.py")
    return subprocess.run([sys.executable, script, *args], capture_output=True, text=True,
                          timeout=120)


def load_synth():
    spec = importlib.util.spec_from_file_location(
        "swim_synth", os.path.join(SOURCE, "tools/synth/swim_synth.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit("usage: synth_test.py SOURCE_DIR LOCSCHED-TAIL TRACES_DIR [unittest options]")
    SOURCE, TAIL, TRACES = sys.argv[1:4]
    unittest.main(argv=[sys.argv[0]] + sys.argv[4:])
