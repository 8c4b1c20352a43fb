#!/usr/bin/python3
"""Preemption, black box: the real locschedd with two tenant queues and
preemption.timeout_s, and locsched-agents running what it is given.

Queue a fills every slot with tasks that outlast the test; queue b's job arrives and
waits. Past the timeout the daemon preempts two of a's runs (b's guarantee is half the
cluster); the agents hear the stop orders in their heartbeat replies, stop exactly those
runs, confirm each with task_preempted, and run b's tasks in the freed slots until b's job
is done. No task runs twice: a's tasks running plus queued add up, and the agents' count
of stopped runs equals the daemon's. A kill -9 and restart keep every count.

Usage: preemption_test.py /path/to/locschedd /path/to/locsched-agents [unittest options]
"""
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import daemon_harness  # noqa: E402
from daemon_harness import wait_for  # noqa: E402

DAEMON = AGENTS = None
MACHINES = 2
SLOTS = 2

CONFIG = """
[preemption]
timeout_s = 1

[placement]
rules = ["explicit"]

[queue.a]
capacity = 50

[queue.b]
capacity = 50
"""


class Preemption(unittest.TestCase):
    def setUp(self):
        self.dir = os.path.realpath(
            subprocess.check_output(["mktemp", "-d", "/tmp/locsched-preempt-XXXXXX"],
                                    text=True).strip())
        self.config = os.path.join(self.dir, "locsched.toml")
        with open(self.config, "w") as f:
            f.write(CONFIG)
        self.daemon = daemon_harness.Daemon(
            DAEMON, "journal.path=" + os.path.join(self.dir, "journal.log"),
            "machines.expiry_s=600", directory=self.dir, config=self.config)
        self.agents = None

    def tearDown(self):
        if self.agents and self.agents.poll() is None:
            self.agents.kill()
            self.agents.wait()
        log = self.daemon.log_text()
        self.assertEqual(self.daemon.stop(), 0, log)
        subprocess.run(["rm", "-rf", self.dir], check=False)

    def submit(self, job, queue, tasks, replicas):
        reply = self.daemon.call({"op": "job_submit", "job": job, "queue": queue, "tasks": [
            {"task": "t%d" % i, "replicas": replicas} for i in range(tasks)]}, control=False)
        self.assertTrue(reply["ok"], reply)

    def status_when(self, what, check, timeout):
        return wait_for(what, lambda: (lambda s: s if check(s) else None)(self.daemon.status()),
                        timeout)

    def test_agents_stop_exactly_the_preempted_runs_and_the_starved_queue_runs(self):
        # m9 holds a's input and is down: a's tasks run off their holder, at gamma
        # (outlasting the test); b's run on their holders at alpha (fast).
        self.daemon.call({"op": "machine_up", "machine": "m9"}, control=False)
        self.daemon.call({"op": "machine_down", "machine": "m9"})
        argv = [AGENTS, "--socket", self.daemon.event, "--no-jobs", "--machines", str(MACHINES),
                "--slots", str(SLOTS), "--replicas", "1", "--speed", "1", "--alpha", "20", "--gamma", "0.0001",
                "--keepalive", "0.3", "--duration", "600", "--json"]
        with open(os.path.join(self.dir, "agents.json"), "w") as out, \
                open(os.path.join(self.dir, "agents.log"), "a") as log:
            self.agents = subprocess.Popen(argv, stdout=out, stderr=log)
        self.status_when("machines up", lambda s: s["machines"]["up"] == MACHINES, 20)
        self.submit("big", "a", 8, ["m9"])
        self.status_when("a fills the cluster",
                         lambda s: s["tasks"]["running"] == MACHINES * SLOTS, 20)
        self.submit("late", "b", 2, ["m0", "m1"])
        s = self.status_when("b's job done", lambda s: s["jobs"]["done"] == 1, 30)
        self.assertEqual(s["tasks"]["preempted"], 2, s)  # b's deficit, never more
        s = self.status_when("both stops confirmed",
                             lambda s: s["tasks"]["preempt_reports"] == 2, 10)
        self.assertEqual(s["tasks"]["failed"], 0, s)
        big = self.daemon.call({"op": "job", "job": "big"})
        states = [t["state"] for t in big["task_list"]]
        self.assertEqual(states.count("running"), MACHINES * SLOTS, big)
        self.assertEqual(states.count("queued"), 4, big)
        for t in big["task_list"]:
            if t["state"] == "queued":
                self.assertEqual(t["attempts"], 0, t)  # preempted runs used no retry
        metrics = self.daemon.call({"op": "metrics"})["text"]
        self.assertIn("locsched_tasks_preempted_total 2\n", metrics)

        self.agents.send_signal(2)
        self.assertEqual(self.agents.wait(timeout=20), 0)
        with open(os.path.join(self.dir, "agents.json")) as f:
            summary = json.load(f)
        self.assertEqual(summary["tasks_preempted"], 2, summary)
        self.assertEqual(summary["foreign_done"], 2, summary)
        self.assertEqual(summary["anomalies"], 0, summary)

        before = self.daemon.status()
        self.daemon.kill()
        self.daemon.start()
        after = self.daemon.status()
        for key in ("preempted", "preempt_reports", "done", "running", "queued"):
            self.assertEqual(after["tasks"][key], before["tasks"][key], (before, after))
        self.assertIn("preempted 2 running tasks", self.daemon.log_text())


if __name__ == "__main__":
    DAEMON, AGENTS = sys.argv[1], sys.argv[2]
    unittest.main(argv=[sys.argv[0]] + sys.argv[3:])
