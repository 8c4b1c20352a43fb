#!/usr/bin/python3
"""Dead machines are noticed: the real locschedd and locsched-agents, then kill -9.

Usage: dead_machines_test.py /path/to/locschedd /path/to/locsched-agents [unittest options]

The emulator registers four machines and runs a job's long tasks; `kill -9` of the
emulator leaves them silent. Within machines.expiry_s and a margin, `status` must show
every machine lost, nothing running and every task queued again; the log and /metrics'
text name them. A new emulator registers the machines again (machine_up brings them
back), runs the requeued tasks, and the job finishes. Every wait polls for its condition
with a deadline.
"""
import json
import os
import signal
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import daemon_harness  # noqa: E402
from daemon_harness import wait_for  # noqa: E402

DAEMON = None  # set from the command line in __main__
AGENTS = None
EXPIRY_S = 2
MACHINES = 4
TASKS = 6


class DeadMachines(unittest.TestCase):
    def setUp(self):
        self.daemon = daemon_harness.Daemon(DAEMON, "machines.expiry_s=%d" % EXPIRY_S)
        self.agents = []

    def tearDown(self):
        for p in self.agents:
            if p.poll() is None:
                p.kill()
            p.wait()
        code = self.daemon.stop()
        self.assertEqual(code, 0, "locschedd exited with %s on SIGTERM" % code)

    def start_agents(self, rate):
        """An emulator that submits nothing and runs what it is given: tasks last Exp(rate)
        seconds (speed 1); every machine heartbeats at least every 0.5 s."""
        argv = [AGENTS, "--socket", self.daemon.event, "--no-jobs", "--machines", str(MACHINES),
                "--slots", "2", "--speed", "1", "--alpha", str(rate), "--gamma", str(rate),
                "--keepalive", "0.5", "--duration", "600", "-q"]
        with open(os.path.join(self.daemon.dir, "agents.log"), "a") as log:
            p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=log)
        self.agents.append(p)
        return p

    def status_when(self, what, check, timeout):
        return wait_for(what, lambda: (lambda s: s if check(s) else None)(self.daemon.status()),
                        timeout)

    def test_killed_agents_machines_are_lost_and_their_tasks_requeued(self):
        first = self.start_agents(rate=0.001)  # tasks that outlast the test
        self.status_when("machines up", lambda s: s["machines"]["up"] == MACHINES, 20)
        tasks = [{"task": "t%d" % i, "replicas": ["m%d" % (i % MACHINES)]} for i in range(TASKS)]
        reply = self.daemon.call({"op": "job_submit", "job": "j", "tasks": tasks}, control=False)
        self.assertTrue(reply["ok"], reply)
        self.status_when("tasks running", lambda s: s["tasks"]["running"] == TASKS, 20)

        first.send_signal(signal.SIGKILL)
        first.wait()
        killed = time.monotonic()
        s = self.status_when("machines lost, nothing running",
                             lambda s: s["machines"].get("lost") == MACHINES
                             and s["tasks"]["running"] == 0, EXPIRY_S + 4)
        self.assertLess(time.monotonic() - killed, EXPIRY_S + 4)
        self.assertEqual(s["machines"]["up"], 0, s)
        self.assertEqual(s["tasks"]["queued"], TASKS, s)
        self.assertEqual(s["tasks"]["requeued"], TASKS, s)
        self.assertEqual(s["slots"]["busy"], 0, s)
        machines = self.daemon.call({"op": "machines"})["machines"]
        self.assertEqual([m["state"] for m in machines], ["lost"] * MACHINES, machines)
        metrics = self.daemon.call({"op": "metrics"})["text"]
        self.assertIn('locsched_machines{state="lost"} %d\n' % MACHINES, metrics)
        self.assertIn("locsched_machines_lost_total %d\n" % MACHINES, metrics)
        log = self.daemon.log_text()
        for m in range(MACHINES):
            self.assertIn("machine 'm%d' lost" % m, log)

        # The cluster comes back: machine_up brings each machine back, the tasks run again
        # and the job finishes, its lost starts not counted against its retries.
        self.start_agents(rate=20)
        s = self.status_when("job done", lambda s: s["jobs"]["done"] == 1, 30)
        self.assertEqual(s["machines"]["lost"], 0, s)
        self.assertEqual(s["machines"]["up"], MACHINES, s)
        self.assertEqual(s["tasks"]["done"], TASKS, s)
        self.assertEqual(s["tasks"]["failed"], 0, s)

    def test_full_and_idle_machines_stay_alive(self):
        # Every slot busy (tasks outlast the test) or idle: keepalives hold every machine up
        # across several expiries.
        self.start_agents(rate=0.001)
        self.status_when("machines up", lambda s: s["machines"]["up"] == MACHINES, 20)
        tasks = [{"task": "t%d" % i, "replicas": ["m0"]} for i in range(2)]
        reply = self.daemon.call({"op": "job_submit", "job": "full", "tasks": tasks},
                                 control=False)
        self.assertTrue(reply["ok"], reply)
        self.status_when("m0 full", lambda s: s["tasks"]["running"] == 2, 20)
        end = time.monotonic() + 3 * EXPIRY_S
        while time.monotonic() < end:
            s = self.daemon.status()
            self.assertEqual(s["machines"]["lost"], 0, s)
            self.assertEqual(s["tasks"]["running"], 2, s)
            time.sleep(0.2)


if __name__ == "__main__":
    DAEMON, AGENTS = sys.argv[1], sys.argv[2]
    del sys.argv[1:3]
    unittest.main()
