#!/usr/bin/python3
"""Black-box test of the league (bench/league.py): runs the real script on the real
locsched-sim, over small synthetic SWIM traces written here (no ../shared needed).

Usage: league_test.py /path/to/locsched-sim [unittest options]
The league finds locsched-sim as BUILD/tools/locsched-sim, so BUILD is two levels up.
"""
import json
import os
import random
import subprocess
import sys
import tempfile
import unittest

SIM = None  # set from the command line in __main__
LEAGUE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench",
                      "league.py")
SWIM_FILES = ["FB-2009_samples_24_times_1hr_0.tsv", "FB-2009_samples_24_times_1hr_1.tsv"]


def league(*args, timeout=110):
    build = os.path.dirname(os.path.dirname(SIM))
    return subprocess.run([sys.executable, LEAGUE, "--build", build] + list(args),
                          capture_output=True, text=True, timeout=timeout)


def write_swim(path, seed, jobs_per_hour=3):
    """A SWIM file (job, submit s, gap s, map input, shuffle, output bytes) with a few
    small jobs in every hour of a day."""
    rng = random.Random(seed)
    with open(path, "w") as f:
        for hour in range(24):
            for k in range(jobs_per_hour):
                submit = 3600 * hour + rng.randrange(3600)
                size = rng.choice([64 << 20, 256 << 20, 1 << 30])
                f.write("job%d_%d\t%d\t0\t%d\t%d\t%d\n" % (hour, k, submit, size, size // 4,
                                                          size // 8))


class Refusals(unittest.TestCase):
    """Bad options are refused, named, before anything runs."""

    def test_a_flag_a_model_sets_is_refused_in_sim_args(self):
        out = league("--families", "models", "--sim-args", "--racks 3 --heartbeat 2",
                     "--traces", "/nonexistent", "--out", "/nonexistent/league")
        self.assertEqual(out.returncode, 1, out.stderr)
        self.assertIn("--heartbeat, --racks", out.stderr)
        self.assertIn("models family", out.stderr)

    def test_the_same_flag_is_taken_without_the_models_family(self):
        # Without traces only the paper's model would run: refused or not is decided first.
        out = league("--families", "swim", "--sim-args", "--bogus-flag 3", "--traces",
                     "/nonexistent", "--out", "/nonexistent/league")
        self.assertEqual(out.returncode, 1)
        self.assertIn("--bogus-flag is not a flag", out.stderr)

    def test_a_flag_the_league_sets_is_refused(self):
        out = league("--sim-args", "--seed 3", "--out", "/nonexistent/league")
        self.assertEqual(out.returncode, 1)
        self.assertIn("--seed is set by the league itself", out.stderr)

    def test_an_unknown_family_is_named_with_the_known_ones(self):
        out = league("--families", "swim,modls", "--out", "/nonexistent/league")
        self.assertEqual(out.returncode, 1)
        self.assertIn("unknown modls", out.stderr)
        self.assertIn("models", out.stderr.split("known:")[1])

    def test_help_lists_the_models_family(self):
        out = league("--help")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("models   only when named", out.stdout)


class ModelsFamily(unittest.TestCase):
    """The models family on small traces: every model that has its trace runs, the others
    are skipped by name, and the tables cover what ran."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        traces = os.path.join(cls.tmp.name, "traces")
        os.makedirs(os.path.join(traces, "swim-fb"))
        for i, name in enumerate(SWIM_FILES):
            write_swim(os.path.join(traces, "swim-fb", name), seed=i)
        cls.out = os.path.join(cls.tmp.name, "docs", "league")
        cls.league_run = league("--families", "models", "--seeds", "1", "--traces", traces,
                         "--out", cls.out)
        jsonl = os.path.join(cls.tmp.name, "docs", "figures", "league.jsonl")
        cls.rows = ([json.loads(line) for line in open(jsonl)]
                    if cls.league_run.returncode == 0 else [])

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_it_runs_and_names_the_absent_traces(self):
        self.assertEqual(self.league_run.returncode, 0, self.league_run.stderr)
        for model in ("60% load", "85% load", "3,000 machines", "Google at 70%"):
            self.assertIn("the model '%s' is skipped" % model, self.league_run.stderr)

    def test_every_model_with_a_trace_has_rows_in_its_family(self):
        workloads = {(r["family"], r["workload"]) for r in self.rows}
        for name, family in (("15% hot", "models-skewed"), ("10 s heartbeats", "models-uniform"),
                             ("60 s tasks", "models-heavy"), ("20 racks", "models-uniform")):
            self.assertTrue(any(f == family and w.endswith(": " + name) for f, w in workloads),
                            (name, sorted(workloads)))
        self.assertEqual(len(workloads), 18)  # 22 less the three FB-2010 hours and Google

    def test_every_policy_runs_at_every_slowdown_and_stays_above_its_bound(self):
        by_workload = {}
        for r in self.rows:
            by_workload.setdefault(r["workload"], set()).add((r["label"], r["slowdown"]))
            if r["bound"]:
                self.assertGreaterEqual(r["mean_jct"], r["bound"] * (1 - 1e-9), r)
        for workload, runs in by_workload.items():
            for label in ("late-binding", "delay", "jsq-maxweight", "late-binding+fair"):
                self.assertEqual({s for lab, s in runs if lab == label}, {4, 2, 1.25},
                                 (workload, label))

    def test_the_tables_name_the_command_and_the_models(self):
        text = open(self.out + ".md").read()
        self.assertRegex(text, r"Generated by `bash bench/league.sh [^`]*--families models ")
        self.assertIn("Cluster models the other families do not run", text)
        # Only what ran is described: no SWIM hours, paper's model or daemon extras.
        for absent in ("SWIM: hours", "paper's model", "`+rebalance` is"):
            self.assertNotIn(absent, text)
        self.assertIn("| models-skewed FB-2009_0 h7: 15% hot | 4x |", text)


if __name__ == "__main__":
    SIM = os.path.abspath(sys.argv.pop(1))
    unittest.main()
