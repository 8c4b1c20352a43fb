#!/usr/bin/python3
"""Black-box test of "why is this task waiting?": a real locschedd (late binding, its
default policy) fed by hand over the event socket, read back with locschedctl: `job`
shows each waiting task's holders and the reason, `jobs` and `machines` filter and sort
(and name a bad field), and `jobs --finished` lists the finished jobs with their
completion time and locality.

Usage: ctl_why_waiting_test.py /path/to/locschedctl /path/to/locschedd [unittest options]
"""
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "daemon"))
import locschedd_test  # noqa: E402  (the Daemon harness)

CTL = None


class WhyWaiting(unittest.TestCase):
    def setUp(self):
        self.d = locschedd_test.Daemon(sets=["history.finished_jobs=5"])
        self.c = self.d.connect()
        for m in ("n0", "n1", "n2"):
            self.ok({"op": "machine_up", "machine": m, "slots": 1})
        # n0 runs busy/t; wait/w is held by n0 only, while n1 and n2 are free.
        self.ok({"op": "job_submit", "job": "busy", "tasks": [{"task": "t", "replicas": ["n0"]}]})
        self.assertEqual(len(self.ok({"op": "heartbeat", "machine": "n0",
                                      "free_slots": 1})["assign"]), 1)
        self.ok({"op": "job_submit", "job": "wait", "tasks": [
            {"task": "w", "replicas": ["n0"]},
            {"task": "r", "replicas": ["n1"], "kind": "reduce"}]})

    def tearDown(self):
        self.c.close()
        self.d.stop()

    def ok(self, req):
        r = self.c.call(req)
        self.assertTrue(r["ok"], "%s -> %s" % (req, r))
        return r

    def ctl(self, *args):
        return subprocess.run([CTL, "--socket", self.d.control] + list(args),
                              capture_output=True, text=True, timeout=20)

    def test_job_shows_holders_and_why_each_task_waits(self):
        r = self.ctl("--json", "job", "wait")
        self.assertEqual(r.returncode, 0, r.stderr)
        tasks = {t["task"]: t for t in json.loads(r.stdout)["task_list"]}
        self.assertEqual(tasks["w"]["holders"], [
            {"machine": "n0", "state": "up", "slots": 1, "running": 1, "free": 0}])
        # Late binding keeps w for n0: one task ahead there (1/alpha = 1.25 s) is sooner
        # than the remote threshold 1/gamma - 1/alpha (3.75 s) with the default rates.
        self.assertEqual(tasks["w"]["wait"]["reason"], "remote_rule")
        self.assertAlmostEqual(tasks["w"]["wait"]["expected_wait_s"], 1.25)
        self.assertAlmostEqual(tasks["w"]["wait"]["remote_wait_s"], 3.75)
        self.assertEqual(tasks["r"]["wait"]["reason"], "blocked_by_maps")
        # The free machine indeed leaves w alone.
        self.assertEqual(self.ok({"op": "heartbeat", "machine": "n1",
                                  "free_slots": 1})["assign"], [])
        text = self.ctl("job", "wait")
        self.assertEqual(text.returncode, 0, text.stderr)
        self.assertIn("waiting tasks:", text.stdout)
        waiting = text.stdout.split("waiting tasks:")[1]
        row = [line for line in waiting.splitlines() if line.startswith("w ")]
        self.assertEqual(len(row), 1, text.stdout)
        self.assertIn("n0 up 0/1 free", row[0])
        self.assertIn("remote_rule", row[0])
        self.assertIn("does not pay for a slower run elsewhere", row[0])

    def test_jobs_and_machines_filter_and_sort(self):
        self.ok({"op": "job_submit", "job": "more", "tasks": [
            {"task": "a", "replicas": ["n0"]}, {"task": "b", "replicas": ["n0"]}]})
        r = self.ctl("--json", "jobs", "--state", "queued", "--sort", "-queued", "--limit", "1")
        self.assertEqual(r.returncode, 0, r.stderr)
        j = json.loads(r.stdout)
        self.assertEqual([x["job"] for x in j["jobs"]], ["more"])
        self.assertEqual((j["count"], j["truncated"]), (2, True))
        self.assertEqual(self.ctl("machine_drain", "n2").returncode, 0)
        r = self.ctl("machines", "--state", "draining", "--sort", "free")
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = [line.split() for line in r.stdout.splitlines()[1:]]
        self.assertEqual([row[:2] for row in rows], [["n2", "draining"]], r.stdout)
        r = self.ctl("machines", "--sort", "-fre")
        self.assertEqual(r.returncode, 1)
        self.assertIn("sort: unknown field 'fre'; did you mean 'free'? (one of: machine, slots, "
                      "running, free, local_queue)", r.stderr)

    def test_finished_jobs_are_kept_with_completion_time_and_locality(self):
        self.ok({"op": "task_done", "job": "busy", "task": "t", "machine": "n0"})
        r = self.ctl("--json", "jobs", "--finished")
        self.assertEqual(r.returncode, 0, r.stderr)
        j = json.loads(r.stdout)
        self.assertEqual(j["kept"], 5)
        self.assertEqual([(x["job"], x["state"], x["locality"]) for x in j["jobs"]],
                         [("busy", "done", 1)])
        self.assertGreaterEqual(j["jobs"][0]["seconds"], 0)
        text = self.ctl("jobs", "--finished")
        self.assertEqual(text.returncode, 0, text.stderr)
        self.assertEqual(text.stdout.splitlines()[1].split()[:2], ["busy", "done"])
        self.assertIn("100.0%", text.stdout)


if __name__ == "__main__":
    CTL = sys.argv.pop(1)
    locschedd_test.DAEMON = sys.argv.pop(1)
    unittest.main()
