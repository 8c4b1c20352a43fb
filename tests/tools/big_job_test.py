#!/usr/bin/python3
"""Jobs of any real size, end to end: locsched-tail replays a synthesized SWIM trace whose
first job has 200,000 maps (far past limits.max_line_bytes as one line) into locschedd,
in parts (job_submit with tasks_total, then task_add), while locsched-agents --no-jobs
runs what the daemon assigns; every job of the trace must end done. Also: a job half
sent survives a kill -9 (its parts are journaled), the tailer keeps its lines within
--max-line-bytes, and it exits 1 when the daemon refuses a request.

Usage: big_job_test.py LOCSCHEDD LOCSCHED-AGENTS LOCSCHED-TAIL [unittest options]
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import daemon_harness

DAEMON = AGENTS = TAIL = None  # set from the command line in __main__
MACHINES = 40
SPEED = 50
BLOCK = 64 * 1024 * 1024  # the SWIM parser's block: one map per 64 MiB of input


def swim_trace(path, jobs):
    """A SWIM TSV of (name, submit s, maps, reduces) rows."""
    with open(path, "w", encoding="utf-8") as f:
        for name, at, maps, reduces in jobs:
            f.write("%s\t%d\t0\t%d\t%d\t0\n" % (name, at, maps * BLOCK, reduces * 1024 ** 3))


class BigJobTest(unittest.TestCase):
    def setUp(self):
        self.daemon = None

    def tearDown(self):
        if self.daemon:
            self.assertEqual(self.daemon.stop(), 0, "locschedd failed on SIGTERM")

    def scratch(self):
        """A temporary folder removed after the test (the journal outlives a daemon)."""
        path = tempfile.mkdtemp(prefix="locsched-big-")
        self.addCleanup(shutil.rmtree, path, True)
        return path

    def start(self, *settings, directory=None):
        self.daemon = daemon_harness.Daemon(
            DAEMON, "scheduler.alpha=%g" % SPEED, "scheduler.gamma=%g" % (SPEED / 4), *settings,
            directory=directory)
        return self.daemon

    def tail(self, trace, *args):
        argv = [TAIL, "--format", "swim", "--machines", str(MACHINES), "--socket",
                self.daemon.event, "--json", "-q", *args, trace]
        return subprocess.run(argv, capture_output=True, text=True, timeout=60)

    def test_a_trace_with_a_200000_task_job_completes_every_job(self):
        d = self.start("journal.path=" + os.path.join(self.scratch(), "journal"))
        trace = os.path.join(d.dir, "big.tsv")
        swim_trace(trace, [("big", 0, 200000, 0), ("small1", 1, 2, 1), ("small2", 2, 45, 0)])
        # 4,000 slots; each task lasts Exp(1) emulated seconds (50 per wall second). The
        # emulator runs until the daemon has done every job, then is interrupted: a fixed
        # --duration raced the tailer (a job still arriving in parts holds no task yet, so
        # a short run could end drained before the big job was whole, as under ASan).
        agents = subprocess.Popen(
            [AGENTS, "--socket", d.event, "--no-jobs", "--machines", str(MACHINES), "--slots",
             "100", "--data-machines", "1", "--alpha", "1", "--gamma", "0.25", "--heartbeat",
             "0.5", "--speed", str(SPEED), "--duration", "6000", "-q", "--json"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 20
        while d.call({"op": "status"})["machines"]["up"] < MACHINES:
            self.assertLess(time.time(), deadline, "the emulator did not register its machines")
            time.sleep(0.02)
        sent = self.tail(trace)
        self.assertEqual(sent.returncode, 0, sent.stderr)
        t = json.loads(sent.stdout)
        self.assertEqual((t["jobs"], t["rejected"]), (3, 0), t)
        self.assertGreater(t["requests"], 3, t)  # the big job went in parts
        deadline = time.time() + 100
        while d.call({"op": "status"})["jobs"]["done"] < 3 and agents.poll() is None:
            self.assertLess(time.time(), deadline, "the jobs did not finish")
            time.sleep(0.1)
        agents.send_signal(signal.SIGINT)
        out, err = agents.communicate(timeout=60)
        self.assertEqual(agents.returncode, 0, err)
        a = json.loads(out)
        self.assertTrue(a["interrupted"], a)  # it ran until the jobs were done
        total = 200000 + 3 + 45
        self.assertEqual((a["foreign_jobs_done"], a["foreign_done"], a["anomalies"]),
                         (3, total, 0), a)
        s = d.call({"op": "status"})
        self.assertEqual((s["jobs"]["done"], s["jobs"]["live"], s["tasks"]["done"]),
                         (3, 0, total), s)
        self.assertEqual(s["daemon"]["assembling"], 0, s)

    def test_a_job_half_sent_survives_a_kill(self):
        d = self.start("journal.path=" + os.path.join(self.scratch(), "journal"))
        d.call({"op": "machine_up", "machine": "m0", "slots": 4}, control=False)

        def part(op, first, n, **extra):
            tasks = [{"task": "t%d" % i, "replicas": ["m0"]} for i in range(first, first + n)]
            return dict({"op": op, "id": "%s-%d" % (op, first), "job": "j", "tasks": tasks},
                        **extra)
        self.assertEqual(d.call(part("job_submit", 0, 3, tasks_total=9), control=False)
                         ["pending"], 6)
        self.assertEqual(d.call(part("task_add", 3, 3), control=False)["pending"], 3)
        d.kill()
        d.start()
        self.assertEqual(d.call({"op": "status"})["daemon"]["assembling"], 1)
        again = d.call(part("task_add", 3, 3), control=False)
        self.assertTrue(again.get("duplicate"), again)
        last = d.call(part("task_add", 6, 3), control=False)
        self.assertTrue(last["submitted"], last)
        self.assertEqual(d.call({"op": "status"})["tasks"]["queued"], 9)

    def test_parts_stay_within_max_line_bytes(self):
        d = self.start("limits.max_line_bytes=65536")
        for m in range(MACHINES):
            d.call({"op": "machine_up", "machine": "m%d" % m}, control=False)
        trace = os.path.join(d.dir, "t.tsv")
        swim_trace(trace, [("wide", 0, 5000, 3)])
        sent = self.tail(trace, "--max-line-bytes", "60000")
        self.assertEqual(sent.returncode, 0, sent.stderr)
        summary = json.loads(sent.stdout)
        self.assertEqual(summary["rejected"], 0, sent.stdout)
        # A replay names its jobs JOB@RUN (docs/tail.md, "Runs").
        self.assertEqual(d.call({"op": "job", "job": "wide@" + summary["run"]})["tasks"], 5003)
        # Parts larger than the daemon's limit are refused, and the tailer says so.
        sent = self.tail(trace, "--max-line-bytes", "200000")
        self.assertEqual(sent.returncode, 1, sent.stderr)
        self.assertIn("limits.max_line_bytes", sent.stderr)
        self.assertIn("refused", sent.stderr)

    def test_the_tailer_exits_1_when_a_request_is_refused(self):
        d = self.start()
        trace = os.path.join(d.dir, "t.tsv")
        swim_trace(trace, [("a", 0, 3, 0)])  # no machine is up: unknown replicas
        sent = self.tail(trace)
        self.assertEqual(sent.returncode, 1, sent.stderr)
        self.assertEqual(json.loads(sent.stdout)["rejected"], 1, sent.stdout)
        self.assertIn("the daemon refused 1 requests", sent.stderr)


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit("usage: big_job_test.py LOCSCHEDD LOCSCHED-AGENTS LOCSCHED-TAIL")
    DAEMON, AGENTS, TAIL = sys.argv[1:4]
    unittest.main(argv=[sys.argv[0]] + sys.argv[4:])
