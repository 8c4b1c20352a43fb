#!/usr/bin/env python3
"""Black-box tests of tools/synth: swim_synth.py writes a seeded SWIM trace that
locsched-tail reads without a malformed record, and fit_swim.py on SWIM's FB-2009
samples (read from TRACES_DIR; those tests skip when it is absent) prints exactly the
tables swim_synth.py embeds.

Usage: synth_test.py SOURCE_DIR LOCSCHED-TAIL TRACES_DIR [unittest options]
"""
import json
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
        previous = 0
        for i, r in enumerate(rows):
            self.assertEqual(len(r), 6)
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


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit("usage: synth_test.py SOURCE_DIR LOCSCHED-TAIL TRACES_DIR [unittest options]")
    SOURCE, TAIL, TRACES = sys.argv[1:4]
    unittest.main(argv=[sys.argv[0]] + sys.argv[4:])
