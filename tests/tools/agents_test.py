#!/usr/bin/python3
"""Black-box test of locsched-agents against the real locschedd.

Usage: agents_test.py /path/to/locschedd /path/to/locsched-agents [unittest options]

Each test class starts its own daemon on sockets in a temporary directory, runs
the emulator for a few emulated seconds, and checks the emulator's summary
against the daemon's own status (read here over the control socket).
"""
import json
import subprocess
import sys
import time
import unittest

import daemon_harness

DAEMON = None  # set from the command line in __main__
AGENTS = None
SMALL = ["--machines", "20", "--slots", "2", "--load", "15", "--job-size-mean", "8",
         "--speed", "40", "--heartbeat", "0.2", "-q"]


def Daemon(*settings):
    """A locschedd on temporary sockets; `settings` are KEY=VALUE overrides."""
    return daemon_harness.Daemon(DAEMON, *settings)


def in_system(daemon):
    """Tasks queued, running or blocked, by the daemon's own count."""
    t = daemon.status()["tasks"]
    return t["queued"] + t["running"] + t["blocked"]


def agents(daemon, *args, timeout=120):
    argv = [AGENTS, "--socket", daemon.event] + SMALL + list(args)
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout)


class AgainstTheDaemon(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.daemon = Daemon()

    @classmethod
    def tearDownClass(cls):
        # The daemon must also stop cleanly after the runs.
        code = cls.daemon.stop()
        assert code == 0, "locschedd exited with %s on SIGTERM" % code

    def run_json(self, *args):
        before = in_system(self.daemon)
        out = agents(self.daemon, "--json", *args)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr + self.daemon.log_text())
        result = json.loads(out.stdout)
        return before, result

    def test_tasks_complete_locally_and_none_are_lost(self):
        before, r = self.run_json("--duration", "40", "--prefix", "a-")
        self.assertGreater(r["tasks_done"], 100, r)
        self.assertGreater(r["jobs_done"], 5, r)
        self.assertGreater(r["locality"], 0, r)
        self.assertEqual(r["anomalies"], 0, r)
        self.assertEqual(r["lost"], 0, r)
        # The daemon holds exactly what was submitted and not reported done (tasks
        # left by the other tests' runs that this run finished count against it).
        left = r["tasks_submitted"] - r["tasks_done"] - r["foreign_done"]
        self.assertEqual(in_system(self.daemon) - before, left, r)
        self.assertEqual(r["daemon"]["running"], self.daemon.status()["tasks"]["running"], r)

    def test_drain_leaves_nothing_behind(self):
        before, r = self.run_json("--duration", "20", "--drain", "--reduces", "1", "--prefix", "b-")
        self.assertGreater(r["tasks_done"], 50, r)
        self.assertEqual(r["tasks_done"], r["tasks_submitted"], r)
        self.assertEqual(r["jobs_done"], r["jobs_submitted"], r)
        self.assertEqual(in_system(self.daemon), before - r["foreign_done"], r)

    def test_task_count_stops_the_run(self):
        _, r = self.run_json("--duration", "1000", "--tasks", "60", "--prefix", "c-")
        self.assertGreaterEqual(r["tasks_done"], 60, r)
        self.assertLess(r["emulated_seconds"], 1000, r)

    def test_live_lines_and_text_summary(self):
        out = subprocess.run([AGENTS, "--socket", self.daemon.event, "--machines", "10",
                              "--load", "5", "--speed", "20", "--duration", "20",
                              "--report", "0.2", "--prefix", "d-"],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertRegex(out.stdout, r"t=\s*[0-9.]+s\s+done\s+\d+ \(\s*[0-9.]+ tasks/s\)\s+locality\s+[0-9.]+%\s+queued")
        self.assertIn("mean job delay", out.stdout)
        self.assertIn("lost 0", out.stdout)


class RefusedRequests(unittest.TestCase):
    def test_a_refused_job_is_a_clear_error(self):
        daemon = Daemon("limits.max_tasks_per_job=1")
        try:
            out = agents(daemon, "--reduces", "1", "--duration", "30")  # every job has 2+ tasks
        finally:
            daemon.stop()
        self.assertEqual(out.returncode, 1, out.stdout)
        self.assertIn('"op":"job_submit"', out.stderr)
        self.assertIn("resource_exhausted", out.stderr)


class CommandLine(unittest.TestCase):
    def test_a_cancelled_job_drops_its_running_tasks_and_the_run_goes_on(self):
        daemon = Daemon("scheduler.alpha=0.5", "scheduler.gamma=0.5")
        try:
            # Two machines run a 40-task job, two tasks at a time, each about 2 s long.
            run = subprocess.Popen(
                [AGENTS, "--socket", daemon.event, "--no-jobs", "--machines", "2", "--alpha",
                 "0.5", "--gamma", "0.5", "--data-machines", "1", "--replicas", "1",
                 "--heartbeat", "0.2", "--speed", "1", "--duration", "8", "--json", "-q"],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            deadline = time.time() + 20
            while daemon.status()["machines"]["up"] < 2:
                self.assertLess(time.time(), deadline, "the emulator did not register")
                time.sleep(0.05)
            tasks = [{"task": "t%d" % i, "replicas": ["m%d" % (i % 2)]} for i in range(40)]
            self.assertTrue(daemon.call({"op": "job_submit", "job": "j602", "tasks": tasks},
                                        control=False)["ok"])
            while daemon.status()["tasks"]["running"] < 2:
                self.assertLess(time.time(), deadline, "no task started")
                time.sleep(0.02)
            self.assertTrue(daemon.call({"op": "job_cancel", "job": "j602"})["ok"])
            out, err = run.communicate(timeout=60)
            self.assertEqual(run.returncode, 0, out + err)
            r = json.loads(out)
            self.assertGreaterEqual(r["tasks_dropped"], 1, r)
            self.assertEqual(r["cancelled_jobs"], ["j602"])
            self.assertIn("dropped %d running tasks of jobs cancelled meanwhile: 'j602'"
                          % r["tasks_dropped"], err)
        finally:
            daemon.stop()

    def test_bad_rack_values_name_the_flag(self):
        for flag, value in (("--beta", "5"), ("--racks", "1000")):
            out = subprocess.run([AGENTS, "--socket", "/tmp/x.sock", flag, value],
                                 capture_output=True, text=True, timeout=30)
            self.assertEqual(out.returncode, 2, (flag, value, out.stderr))
            self.assertIn(flag, out.stderr, (flag, value))

    def test_help(self):
        out = subprocess.run([AGENTS, "--help"], capture_output=True, text=True, timeout=30)
        self.assertEqual(out.returncode, 0)
        for flag in ("--socket", "--machines", "--slots", "--load", "--job-size-mean",
                     "--data-machines", "--alpha", "--gamma", "--speed", "--duration",
                     "--tasks", "--report", "--json", "--seed", "--no-jobs"):
            self.assertIn(flag, out.stdout)

    def test_no_daemon_names_the_socket(self):
        path = "/nonexistent-dir/ev.sock"
        out = subprocess.run([AGENTS, "--socket", path, "-q"], capture_output=True, text=True,
                             timeout=30)
        self.assertEqual(out.returncode, 1)
        self.assertIn(path, out.stderr)

    def test_bad_values_name_the_flag(self):
        for flag, value in (("--data-machines", "0"), ("--data-machines", "0.01"),
                            ("--gamma", "0"), ("--speed", "0"), ("--load", "-1"),
                            ("--machines", "abc")):
            out = subprocess.run([AGENTS, "--socket", "/tmp/x.sock", flag, value],
                                 capture_output=True, text=True, timeout=30)
            self.assertEqual(out.returncode, 2, (flag, value, out.stderr))
            self.assertIn(flag, out.stderr, (flag, value))


class WithRacks(unittest.TestCase):
    """Machines in racks: the daemon counts the starts the emulator runs rack-locally."""

    def test_rack_local_starts_are_counted_by_both(self):
        daemon = Daemon("scheduler.policy=fifo")  # FIFO runs tasks off their holders at once
        try:
            # Replicas only on the first half of the machines (racks r0 and r1 of four): the
            # rest of r0 and r1 run them rack-locally, r2 and r3 off-rack.
            out = agents(daemon, "--json", "--duration", "30", "--racks", "4",
                         "--data-machines", "0.5")
            self.assertEqual(out.returncode, 0, out.stdout + out.stderr + daemon.log_text())
            r = json.loads(out.stdout)
            self.assertEqual(r["anomalies"], 0, r)
            assigned = daemon.status()["assigned"]
            self.assertGreater(assigned["rack"], 0, assigned)
            self.assertEqual(assigned["rack"], r["rack_assigned"], (assigned, r))
            self.assertEqual(assigned["rack"] + assigned["off_rack"], assigned["remote"])
            self.assertEqual(r["racks"], 4)
        finally:
            self.assertEqual(daemon.stop(), 0)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: agents_test.py LOCSCHEDD LOCSCHED-AGENTS [unittest options]")
    DAEMON, AGENTS = sys.argv[1], sys.argv[2]
    unittest.main(argv=[sys.argv[0]] + sys.argv[3:])
