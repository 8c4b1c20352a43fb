#!/usr/bin/python3
"""Black-box test of locsched-sim's tenant queues in trace mode (--queues, --tenants).

Usage: sim_tenants_test.py /path/to/locsched-sim [unittest options]
Runs the real binary on a small synthetic SWIM trace written to a temporary directory.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

SIM = None  # set from the command line in __main__
TENANTS = "etl:0.5,adhoc:0.3,ml:0.2"
JOBS = 120


def run_trace(trace, *args, timeout=60):
    """Runs locsched-sim -q --trace TRACE --format swim on 10 machines with args."""
    argv = [SIM, "-q", "--trace", trace, "--format", "swim", "--machines", "10",
            "--fixed-durations"] + list(args)
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout)


class TenantQueues(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)
        # 120 jobs of 4 maps (256 MB of 64 MB blocks) two seconds apart: 10 slots that each
        # finish a task in 25 s are overloaded, so queues compete for slots.
        self.trace = self.path("swim.tsv")
        with open(self.trace, "w") as f:
            for j in range(JOBS):
                f.write("job%d\t%d\t2\t%d\t0\t0\n" % (j, 2 * j, 256 << 20))

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def write_queues(self, text):
        path = self.path("locsched.toml")
        with open(path, "w") as f:
            f.write(text)
        return path

    def run_json(self, *args):
        out = run_trace(self.trace, "--json", *args)
        self.assertEqual(out.returncode, 0, out.stderr)
        result = json.loads(out.stdout)
        del result["wall_seconds"]
        return result

    def check_queue_figures(self, result):
        self.assertEqual(sum(q["jobs"] for q in result["queues"]), JOBS)
        for q in result["queues"]:
            with self.subTest(queue=q["name"]):
                self.assertLessEqual(q["peak_running"], q["max_slots"])
                self.assertEqual(q["jobs_done"], q["jobs"])
                self.assertLessEqual(q["ttg_p50_s"], q["ttg_p99_s"])
                self.assertGreaterEqual(q["share_deficit_s"], 0)
                self.assertTrue(0 <= q["locality"] <= 1)
                if q["jobs"]:
                    self.assertGreater(q["mean_jct_s"], 0)
                    self.assertGreaterEqual(q["p95_jct_s"], q["mean_jct_s"] * 0.5)

    def test_tenants_alone_build_a_flat_tree_of_their_shares(self):
        r = self.run_json("--tenants", TENANTS, "--policy", "late-binding")
        self.assertEqual([q["name"] for q in r["queues"]], ["etl", "adhoc", "ml"])
        for q, share in zip(r["queues"], (0.5, 0.3, 0.2)):
            self.assertAlmostEqual(q["guarantee"], share)
            self.assertAlmostEqual(q["maximum"], 1.0)
            self.assertEqual(q["max_slots"], 10)
            self.assertGreater(q["jobs"], 0)
        self.check_queue_figures(r)
        # Overloaded, some queue waits for its guarantee at some point.
        self.assertGreater(sum(q["ttg_episodes"] for q in r["queues"]), 0)
        self.assertEqual(r["jobs_done"], JOBS)

    def test_shares_under_one_leave_the_rest_to_default(self):
        r = self.run_json("--tenants", "etl:0.5,ml:0.2")
        self.assertEqual([q["name"] for q in r["queues"]], ["etl", "ml", "default"])
        self.assertAlmostEqual(r["queues"][2]["guarantee"], 0.3)
        self.assertGreater(r["queues"][2]["jobs"], 0)  # the jobs drawn into no tenant

    def test_the_draw_is_seeded_by_the_placement_seed(self):
        a, b = (self.run_json("--tenants", TENANTS) for _ in range(2))
        self.assertEqual(a, b)
        c = self.run_json("--tenants", TENANTS, "--placement-seed", "2")
        self.assertNotEqual([q["jobs"] for q in a["queues"]], [q["jobs"] for q in c["queues"]])

    def test_queue_file_maximum_binds(self):
        queues = self.write_queues(
            "[scheduler]\npolicy = \"fair\"  # not a queue table: ignored\n"
            "[queue.etl]\ncapacity = 60\nmaximum_capacity = 70\n"
            "[queue.adhoc]\ncapacity = 40\nmaximum_capacity = 50\n"
            "[placement]\nrules = [\"explicit\", \"default\"]\ndefault_queue = \"adhoc\"\n")
        for policy in ("late-binding", "delay", "jsq-maxweight"):
            # Both queues busy: each holds its guarantee; within its maximum always.
            r = self.run_json("--queues", queues, "--tenants", "etl:0.5,adhoc:0.5",
                              "--policy", policy)
            by_name = {q["name"]: q for q in r["queues"]}
            self.assertEqual(sorted(by_name), ["adhoc", "etl"])
            self.assertAlmostEqual(by_name["etl"]["maximum"], 0.7)
            self.assertEqual((by_name["etl"]["max_slots"], by_name["adhoc"]["max_slots"]), (7, 5))
            self.check_queue_figures(r)
            # One queue alone on an overloaded cluster grows to its maximum, not past it.
            for name, slots in (("etl", 7), ("adhoc", 5)):
                with self.subTest(policy=policy, alone=name):
                    r = self.run_json("--queues", queues, "--tenants", name + ":1",
                                      "--policy", policy)
                    by_name = {q["name"]: q for q in r["queues"]}
                    self.assertEqual(by_name[name]["jobs"], JOBS)
                    self.assertEqual(by_name[name]["peak_running"], slots)
                    self.assertEqual(r["jobs_done"], JOBS)

    def test_text_report_has_each_queue(self):
        out = run_trace(self.trace, "--tenants", TENANTS)
        self.assertEqual(out.returncode, 0, out.stderr)
        for name in ("etl", "adhoc", "ml"):
            self.assertRegex(out.stdout, r"queue %s: guarantee [0-9.]+ max 1\.000 \(10 slots, "
                             r"peak \d+\).*JCT mean [0-9.]+ s p95 [0-9.]+ s  locality [0-9.]+  "
                             r"time-to-guarantee p50 [0-9.]+ s p99 [0-9.]+ s.*share deficit "
                             r"[0-9.]+ s" % name)

    def test_without_queues_the_report_has_none(self):
        r = self.run_json()
        self.assertIsNone(r["queues"])
        out = run_trace(self.trace)
        self.assertNotIn("queue ", out.stdout)

    def test_help_names_the_flags(self):
        out = subprocess.run([SIM, "--help"], capture_output=True, text=True, timeout=30)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("--queues", out.stdout)
        self.assertIn("--tenants", out.stdout)
        self.assertIn("--preemption-timeout", out.stdout)

    def test_preemption_reports_the_work_it_stopped(self):
        off = self.run_json("--tenants", TENANTS)
        self.assertEqual(off["preemption_timeout_s"], 0)
        self.assertEqual(off["preempted_tasks"], 0)
        self.assertEqual(off["preempted_task_s"], 0)
        r = self.run_json("--tenants", TENANTS, "--preemption-timeout", "5")
        self.assertEqual(r["preemption_timeout_s"], 5)
        self.assertEqual(r["jobs_done"], JOBS)
        self.assertEqual(r["tasks_done"], r["tasks"])  # none lost, none run twice
        self.check_queue_figures(r)
        self.assertGreater(r["preempted_tasks"], 0)
        self.assertGreater(r["preempted_task_s"], 0)
        self.assertTrue(0 < r["preempted_share"] < 1)
        self.assertEqual(sum(q["preempted_tasks"] for q in r["queues"]), r["preempted_tasks"])
        self.assertAlmostEqual(sum(q["preempted_task_s"] for q in r["queues"]),
                               r["preempted_task_s"], places=6)
        out = run_trace(self.trace, "--tenants", TENANTS, "--preemption-timeout", "5")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertRegex(out.stdout, r"preemption after 5\.0 s: \d+ tasks, [0-9]+ task-s "
                         r"\([0-9.]+ of task-seconds run\)")
        self.assertRegex(out.stdout, r"queue etl: .*\n    preempted \d+ tasks, [0-9]+ task-s")

    def test_bad_preemption_timeout_is_named(self):
        for value in ("-1", "x", "inf"):
            with self.subTest(value=value):
                out = run_trace(self.trace, "--tenants", TENANTS, "--preemption-timeout", value)
                self.assertNotEqual(out.returncode, 0, "accepted")
                self.assertIn("--preemption-timeout", out.stderr)
                self.assertEqual(out.stdout, "")
        out = run_trace(self.trace, "--preemption-timeout", "30")
        self.assertNotEqual(out.returncode, 0, "accepted")
        self.assertIn("--preemption-timeout: preempts for tenant queues; give --queues or "
                      "--tenants", out.stderr)
        out = subprocess.run([SIM, "-q", "--preemption-timeout", "30"], capture_output=True,
                             text=True, timeout=30)
        self.assertIn("--preemption-timeout: needs --trace", out.stderr)

    def test_burst_floods_then_the_others_come(self):
        # etl's jobs (about 60 of 4 tasks of 25 s: 600 s of the 10 slots) all come at 0 s;
        # adhoc's from 120 s on. With preemption after 30 s (victims 3 s later, the default
        # kill wait) adhoc reaches its guarantee within the timeout and two heartbeats.
        tenants = "etl:0.5,adhoc:0.5"
        plain = self.run_json("--tenants", tenants)
        r = self.run_json("--tenants", tenants, "--burst", "etl:120")
        self.assertEqual(r["burst"], "etl:120")
        self.assertEqual(plain["burst"], "")
        self.assertEqual(r["jobs_done"], JOBS)
        self.assertEqual(r["tasks_done"], r["tasks"])
        self.check_queue_figures(r)
        self.assertNotEqual(r["mean_jct_s"], plain["mean_jct_s"])
        self.assertGreater(r["queues"][1]["ttg_p99_s"], 36)  # adhoc waits for etl's tasks
        p = self.run_json("--tenants", tenants, "--burst", "etl:120", "--preemption-timeout",
                          "30")
        self.assertEqual(p["tasks_done"], p["tasks"])
        self.assertLessEqual(p["queues"][1]["ttg_p99_s"], 30 + 2 * 3)
        self.assertGreater(p["preempted_tasks"], 0)

    def test_bad_burst_is_named(self):
        for spec, needle in (("etl", "QUEUE:SECONDS"), ("nope:60", "'nope' is not a leaf"),
                             ("etl:-5", "[0, 1e6]"), ("etl:x", "[0, 1e6]"),
                             ("etl:60s", "[0, 1e6]"), (":60", "QUEUE:SECONDS")):
            with self.subTest(spec=spec):
                out = run_trace(self.trace, "--tenants", TENANTS, "--burst", spec)
                self.assertNotEqual(out.returncode, 0, "accepted")
                self.assertIn("--burst: ", out.stderr)
                self.assertIn(needle, out.stderr)
                self.assertEqual(out.stdout, "")
        out = run_trace(self.trace, "--burst", "etl:60")
        self.assertIn("--burst: needs tenant queues", out.stderr)
        path = self.write_queues("[queue.etl]\ncapacity = 50\n[queue.idle]\ncapacity = 50\n"
                                 "[placement]\nrules = [\"default\"]\n"
                                 "default_queue = \"etl\"\n")
        out = run_trace(self.trace, "--queues", path, "--burst", "idle:60")
        self.assertIn("--burst: the flooding queue has no job", out.stderr)

    def test_bad_tenants_spec_is_named(self):
        for spec in ("etl", "etl:", "etl:2", "etl:0", ":0.5", "etl:0.7,adhoc:0.5", "etl:x"):
            with self.subTest(spec=spec):
                out = run_trace(self.trace, "--tenants", spec)
                self.assertNotEqual(out.returncode, 0, "accepted")
                self.assertIn("--tenants:", out.stderr)
                self.assertEqual(out.stdout, "")
        out = subprocess.run([SIM, "-q", "--tenants", TENANTS], capture_output=True, text=True,
                             timeout=30)
        self.assertIn("--tenants: needs --trace", out.stderr)
        locsched = self.path("jobs.jsonl")
        with open(locsched, "w") as f:
            f.write('{"op":"job_submit","job":"a","tasks":[{"task":"t0","replicas":["m0"]}]}\n')
        out = subprocess.run([SIM, "-q", "--trace", locsched, "--format", "locsched",
                              "--tenants", TENANTS], capture_output=True, text=True, timeout=30)
        self.assertNotEqual(out.returncode, 0, "accepted")
        self.assertIn("--tenants: only swim", out.stderr)

    def test_bad_queue_file_is_named(self):
        cases = [
            ("[queue.etl]\ncapacity = 120\n", "queue.etl"),
            ("[queue.etl]\ncapacity = 60\n[queue.adhoc]\ncapacity = 60\n", "100"),
            ("[queue.etl]\nparent = \"nowhere\"\n", "queue.etl"),
            ("[queue.etl]\ncapacity = \"lots\"\n", "queue.etl.capacity"),
            ("[scheduler]\npolicy = \"fair\"\n", "no [queue.NAME] table"),
        ]
        for text, needle in cases:
            with self.subTest(text=text):
                path = self.write_queues(text)
                out = run_trace(self.trace, "--queues", path)
                self.assertNotEqual(out.returncode, 0, "accepted")
                self.assertIn("--queues:", out.stderr)
                self.assertIn("locsched.toml", out.stderr)
                self.assertIn(needle, out.stderr)
                self.assertEqual(out.stdout, "")
        out = run_trace(self.trace, "--queues", self.path("missing.toml"))
        self.assertNotEqual(out.returncode, 0, "accepted")
        self.assertIn("missing.toml", out.stderr)

    def test_a_drawn_queue_the_tree_lacks_is_named(self):
        path = self.write_queues("[queue.etl]\ncapacity = 100\n"
                                 "[placement]\nrules = [\"explicit\", \"reject\"]\n"
                                 "default_queue = \"etl\"\n")
        out = run_trace(self.trace, "--queues", path, "--tenants", "etl:0.5,ml:0.5")
        self.assertNotEqual(out.returncode, 0, "accepted")
        self.assertIn("--queues: job", out.stderr)
        self.assertIn("ml", out.stderr)


if __name__ == "__main__":
    if len(sys.argv) < 2 or not os.access(sys.argv[1], os.X_OK):
        sys.exit(f"usage: {sys.argv[0]} /path/to/locsched-sim [unittest options]")
    SIM = os.path.abspath(sys.argv[1])
    unittest.main(argv=[sys.argv[0]] + sys.argv[2:], exit=True)
