#!/usr/bin/env python3
"""Black-box tests of tools/fetch-traces.sh against a local mirror (--from) made of the
real traces in TRACES_DIR (skipped when it is absent): the files arrive with their
published SHA-256, a second run keeps them, and a tampered file is refused and not left
behind.

Usage: fetch_traces_test.py SOURCE_DIR TRACES_DIR [unittest options]
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SOURCE = TRACES = None  # set from the command line in __main__
SWIM = ["swim-fb/FB-2009_samples_24_times_1hr_0.tsv", "swim-fb/FB-2009_samples_24_times_1hr_1.tsv"]


def fetch(*args):
    return subprocess.run(["bash", os.path.join(SOURCE, "tools/fetch-traces.sh"), *args],
                          capture_output=True, text=True, timeout=120)


class FetchTracesTest(unittest.TestCase):
    def setUp(self):
        if not all(os.path.exists(os.path.join(TRACES, f)) for f in SWIM):
            self.skipTest("the public traces are absent from %s" % TRACES)
        self.dir = tempfile.mkdtemp(prefix="locsched-fetch-")
        self.mirror = os.path.join(self.dir, "mirror")
        for f in SWIM:
            os.makedirs(os.path.dirname(os.path.join(self.mirror, f)), exist_ok=True)
            shutil.copy(os.path.join(TRACES, f), os.path.join(self.mirror, f))
        self.dest = os.path.join(self.dir, "traces")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_fetches_checks_and_keeps(self):
        out = fetch(self.dest, "--only", "swim", "--from", self.mirror)
        self.assertEqual(out.returncode, 0, out.stderr)
        for f in SWIM:
            with open(os.path.join(self.dest, f), "rb") as a, \
                    open(os.path.join(TRACES, f), "rb") as b:
                self.assertEqual(a.read(), b.read())
        self.assertIn("2 fetched", out.stdout)
        again = fetch(self.dest, "--only", "swim", "--from", self.mirror)
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertIn("0 fetched, 2 already present", again.stdout)

    def test_refuses_a_mismatch(self):
        with open(os.path.join(self.mirror, SWIM[0]), "ab") as f:
            f.write(b"job99999\t1\t1\t1\t1\t1\n")
        out = fetch(self.dest, "--only", "swim", "--from", self.mirror)
        self.assertEqual(out.returncode, 1)
        self.assertIn("SHA-256 mismatch, refused", out.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dest, SWIM[0])))
        self.assertFalse(os.path.exists(os.path.join(self.dest, SWIM[0] + ".part")))
        self.assertTrue(os.path.exists(os.path.join(self.dest, SWIM[1])))

    def test_bad_arguments(self):
        self.assertEqual(fetch().returncode, 2)
        out = fetch(self.dest, "--only", "alibaba")
        self.assertEqual(out.returncode, 2)
        self.assertIn("--only", out.stderr)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: fetch_traces_test.py SOURCE_DIR TRACES_DIR [unittest options]")
    SOURCE, TRACES = sys.argv[1:3]
    unittest.main(argv=[sys.argv[0]] + sys.argv[3:])
