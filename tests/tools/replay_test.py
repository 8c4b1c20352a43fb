#!/usr/bin/python3
"""End to end: locsched-tail replays part of a real SWIM FB-2009 hour, and the Hadoop
JobHistory sample with its SPLITS hosts renamed onto the emulated machines
(--map-hosts), into locschedd while locsched-agents --no-jobs plays the cluster and
runs what the daemon assigns. Checks that the machine names line up (no job refused),
that every job and task the tailer sent is done, and that the emulator's job
completion times are the daemon's own submit-to-done times, scaled by the speed.

Usage: replay_test.py LOCSCHEDD LOCSCHED-AGENTS LOCSCHED-TAIL TRACES_DIR [unittest options]
"""
import json
import os
import subprocess
import sys
import time
import unittest

import daemon_harness

DAEMON = AGENTS = TAIL = TRACES = None  # set from the command line in __main__


def trace_path(name):
    """`name` under TRACES; skips the calling test when the public traces are absent."""
    return daemon_harness.trace_path(TRACES, name)
MACHINES = 20
SPEED = 200
# The emulated cluster: local tasks Exp(0.8), remote Exp(0.2), a heartbeat every second.
CLUSTER = ["--machines", str(MACHINES), "--data-machines", "1", "--alpha", "0.8", "--gamma",
           "0.2", "--heartbeat", "1", "--speed", str(SPEED)]


class Daemon(daemon_harness.Daemon):
    """A locschedd on temporary sockets, its rate prior scaled to the emulator's speed."""

    def __init__(self):
        super().__init__(DAEMON, "scheduler.alpha=%g" % (0.8 * SPEED),
                         "scheduler.gamma=%g" % (0.2 * SPEED))

    def wait_machines(self, n):
        deadline = time.time() + 20
        while self.call({"op": "status"})["machines"]["up"] < n:
            if time.time() > deadline:
                raise RuntimeError("the emulator did not register %d machines" % n)
            time.sleep(0.02)


def swim_excerpt(path, seconds):
    """The rows of a SWIM TSV submitted in its first `seconds`, written to `path`."""
    source = trace_path("swim-fb/FB-2009_samples_24_times_1hr_0.tsv")
    rows = []
    with open(source, encoding="utf-8") as f:
        for line in f:
            fields = line.split("\t")
            if float(fields[1]) < seconds:
                rows.append(line)
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(rows)
    return [r.split("\t")[0] for r in rows]


class ReplayTest(unittest.TestCase):
    def setUp(self):
        self.daemon = Daemon()
        self.trace = os.path.join(self.daemon.dir, "excerpt.tsv")

    def tearDown(self):
        code = self.daemon.stop()
        self.assertEqual(code, 0, "locschedd exited with %s on SIGTERM" % code)

    def start_agents(self, *args):
        argv = [AGENTS, "--socket", self.daemon.event, "--no-jobs", *CLUSTER, "-q", "--json",
                *args]
        return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def tail(self, *args, fmt="swim", trace=None):
        argv = [TAIL, "--format", fmt, "--socket", self.daemon.event, "--json", "-q", *args,
                trace or self.trace]
        return subprocess.run(argv, capture_output=True, text=True, timeout=60)

    def check(self, fmt, trace, *args):
        """locsched-tail --check's counts."""
        done = subprocess.run([TAIL, "--format", fmt, "--check", *args, trace],
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, 0, done.stderr)
        return json.loads(done.stdout)

    def test_a_replayed_excerpt_runs_to_the_end_timed_by_the_daemon(self):
        names = swim_excerpt(self.trace, 1500)
        self.assertGreater(len(names), 20)
        counts = json.loads(subprocess.run([TAIL, "--format", "swim", "--check", self.trace],
                                           capture_output=True, text=True, timeout=60).stdout)
        # The tailer starts a moment after the emulator's clock: 600 emulated s (3 wall s)
        # of slack keep its last job inside the emulator's --duration.
        agents = self.start_agents("--duration", "2100", "--drain")
        self.daemon.wait_machines(MACHINES)
        sent = self.tail("--machines", str(MACHINES), "--speed", str(SPEED))
        self.assertEqual(sent.returncode, 0, sent.stderr)
        out, err = agents.communicate(timeout=60)
        self.assertEqual(agents.returncode, 0, err + self.daemon.log_text())
        t, a = json.loads(sent.stdout), json.loads(out)
        # The names line up: the daemon took every job; the emulator ran every task.
        self.assertEqual((t["jobs"], t["rejected"]), (len(names), 0), t)
        self.assertEqual(a["jobs_submitted"], 0, a)
        self.assertEqual(a["anomalies"], 0, a)
        self.assertEqual(a["foreign_done"], counts["tasks"], a)
        self.assertEqual(a["foreign_jobs_done"], len(names), a)
        self.assertEqual(a["foreign_jobs_unmeasured"], 0, a)
        self.assertGreater(a["all_locality"], 0, a)
        status = self.daemon.call({"op": "status"})
        self.assertEqual(status["jobs"]["done"], len(names), status)
        self.assertEqual(status["tasks"]["done"], counts["tasks"], status)
        self.assertEqual(status["tasks"]["queued"] + status["tasks"]["running"], 0, status)
        # Job completion times: the daemon's submit-to-done seconds times the speed.
        seconds = []
        for name in names:  # a replay names its jobs JOB@RUN (docs/tail.md, "Runs")
            job = self.daemon.call({"op": "job", "job": name + "@" + t["run"]})
            self.assertEqual(job.get("state"), "done", job)
            seconds.append(job["seconds"] * SPEED)
        self.assertAlmostEqual(a["foreign_mean_job_delay"], sum(seconds) / len(seconds),
                               places=6)
        seconds.sort()
        p95 = seconds[max(0, -(-95 * len(seconds) // 100) - 1)]  # nearest rank
        self.assertAlmostEqual(a["foreign_p95_job_delay"], p95, places=6)

    def test_replicas_beyond_the_emulated_cluster_are_refused(self):
        swim_excerpt(self.trace, 600)
        agents = self.start_agents("--duration", "1")
        out, err = agents.communicate(timeout=30)
        self.assertEqual(agents.returncode, 0, err)
        # The emulator named its machines m0..m19; a tailer placing on 40 misses half.
        sent = self.tail("--machines", str(2 * MACHINES))
        # (A one-map job whose three replicas all fall on m0..m19 still gets in.)
        self.assertGreater(json.loads(sent.stdout)["rejected"], 0, sent.stdout)
        self.assertEqual(sent.returncode, 1, sent.stderr)  # a refused request fails the tailer
        self.assertIn("unknown machine", sent.stderr)

    def test_a_jobhistory_log_runs_to_the_end_on_its_mapped_hosts(self):
        log = trace_path("hadoop-rumen/sample-job-tracker-logs.gz")
        counts = self.check("jobhistory", log)
        hosts = counts["hosts"]
        # Every task is sent as a one-task job; a cluster as large as the trace's host list.
        self.assertEqual(counts["submits"], counts["tasks"], counts)
        self.assertGreaterEqual(hosts, 3, counts)
        # Speed: the log spans counts["span"] s; the emulator's clock starts first.
        speed = max(SPEED, counts["span"] / 10)
        agents = subprocess.Popen(
            [AGENTS, "--socket", self.daemon.event, "--no-jobs", "--machines", str(hosts),
             "--data-machines", "1", "--alpha", "0.8", "--gamma", "0.2", "--heartbeat", "1",
             "--speed", "%g" % speed, "--duration", "%g" % (counts["span"] + 6 * speed),
             "--drain", "-q", "--json"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.daemon.wait_machines(hosts)
        sent = self.tail("--map-hosts", "--machines", str(hosts), "--speed", "%g" % speed,
                         fmt="jobhistory", trace=log)
        self.assertEqual(sent.returncode, 0, sent.stderr)
        out, err = agents.communicate(timeout=60)
        self.assertEqual(agents.returncode, 0, err + self.daemon.log_text())
        t, a = json.loads(sent.stdout), json.loads(out)
        self.assertEqual((t["requests"], t["accepted"], t["rejected"]),
                         (counts["submits"], counts["submits"], 0), t)
        self.assertEqual(a["anomalies"], 0, a)
        self.assertEqual(a["foreign_done"], counts["tasks"], a)
        self.assertEqual(a["foreign_jobs_done"], counts["submits"], a)
        status = self.daemon.call({"op": "status"})
        self.assertEqual((status["jobs"]["done"], status["jobs"]["live"]),
                         (counts["submits"], 0), status)
        self.assertEqual(status["tasks"]["done"], counts["tasks"], status)
        self.assertGreater(a["all_locality"], 0, a)

    def test_jobhistory_hosts_are_refused_unless_mapped_onto_enough_machines(self):
        log = trace_path("hadoop-rumen/sample-job-tracker-logs.gz")
        hosts = self.check("jobhistory", log)["hosts"]
        agents = self.start_agents("--duration", "1")
        agents.communicate(timeout=30)
        # Unmapped, the trace's own host names are unknown to the daemon: refused, said so.
        sent = self.tail("--machines", str(MACHINES), fmt="jobhistory", trace=log)
        self.assertGreater(json.loads(sent.stdout)["rejected"], 0, sent.stdout)
        self.assertIn("unknown machine", sent.stderr)
        # Mapped onto fewer machines than it has hosts: an error naming the flag, nothing lost
        # silently (--check says the same before anything is sent).
        for argv in ([TAIL, "--format", "jobhistory", "--check"],
                     [TAIL, "--format", "jobhistory", "--socket", self.daemon.event, "-q"]):
            done = subprocess.run(argv + ["--map-hosts", "--machines", str(hosts - 1), log],
                                  capture_output=True, text=True, timeout=60)
            self.assertEqual(done.returncode, 1, done.stderr)
            self.assertIn("--map-hosts: the trace names more than --machines = %d" % (hosts - 1),
                          done.stderr)

    def test_without_jobs_an_idle_emulator_drains_at_once(self):
        agents = self.start_agents("--duration", "50", "--drain")
        out, err = agents.communicate(timeout=30)
        self.assertEqual(agents.returncode, 0, err)
        a = json.loads(out)
        self.assertEqual((a["foreign_done"], a["foreign_jobs_done"]), (0, 0), a)
        self.assertLess(a["emulated_seconds"], 60, a)
        self.assertIsNone(a["lost"], a)


if __name__ == "__main__":
    if len(sys.argv) < 5:
        sys.exit("usage: replay_test.py LOCSCHEDD LOCSCHED-AGENTS LOCSCHED-TAIL TRACES_DIR")
    DAEMON, AGENTS, TAIL, TRACES = sys.argv[1:5]
    unittest.main(argv=[sys.argv[0]] + sys.argv[5:])
