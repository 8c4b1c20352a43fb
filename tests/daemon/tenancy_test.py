#!/usr/bin/python3
"""Tenant queues, black box: the real locschedd and locschedctl with a queue tree.

Submits jobs with users and checks each placement rule and each refusal by its error
code and message (an ACL, an unknown queue, a queue that is not a leaf, a stopped
queue); the `queue` op and `locschedctl queue`; a reload with an invalid tree refused
with the old tree kept, and one that stops a queue; `kill -9` and a restart that keep
each job's queue and the queues' state; a restart whose config dropped a queue that
still holds jobs, from the journal alone and from a snapshot, keeping it stopped and
saying so in the log.

Usage: tenancy_test.py /path/to/locschedd /path/to/locschedctl [unittest options]
"""
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import daemon_harness  # noqa: E402

DAEMON = CTL = None

# Users no system database knows: their groups come from [groups].
TREE = """
[placement]
rules = ["explicit", "user", "primary_group", "default"]
default_queue = "adhoc"

[groups]
analytics = ["tq-alice", "tq-bob"]

[queue.etl]
capacity = 50
submit_users = ["tq-etl"]

[queue.adhoc]
capacity = 30
maximum_capacity = 50
submit_users = ["*"]

[queue.analytics]
capacity = 10
submit_groups = ["analytics"]

[queue.tq-carol]
capacity = 5

[queue.frozen]
capacity = 5
state = "stopped"
"""


class Tenancy(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="locsched-tenancy-")
        self.config = os.path.join(self.dir, "locsched.toml")
        self.write(TREE)
        self.d = daemon_harness.Daemon(
            DAEMON, "journal.path=" + os.path.join(self.dir, "journal.log"),
            directory=self.dir, config=self.config)
        for m in range(4):
            self.ok({"op": "machine_up", "machine": "m%d" % m, "slots": 2})

    def tearDown(self):
        log = self.d.log_text()
        self.assertEqual(self.d.stop(), 0, log)
        subprocess.run(["rm", "-rf", self.dir], check=False)

    def write(self, text):
        with open(self.config + ".new", "w") as f:
            f.write(text)
        os.replace(self.config + ".new", self.config)

    def ok(self, request, control=False):
        reply = self.d.call(request, control=control)
        self.assertTrue(reply["ok"], reply)
        return reply

    def err(self, request, control=False):
        reply = self.d.call(request, control=control)
        self.assertFalse(reply["ok"], reply)
        return reply["error"]

    def submit(self, job, user=None, queue=None, tasks=2):
        req = {"op": "job_submit", "job": job,
               "tasks": [{"task": "t%d" % i, "replicas": ["m%d" % (i % 4)]} for i in range(tasks)]}
        if user is not None:
            req["user"] = user
        if queue is not None:
            req["queue"] = queue
        return self.d.call(req, control=False)

    def queue_of(self, job):
        j = self.ok({"op": "job", "job": job}, control=True)
        return j["queue"], j["user"]

    def queues(self):
        return {q["queue"]: q for q in self.ok({"op": "queue"}, control=True)["queues"]}

    def ctl(self, *args):
        return subprocess.run([CTL, "--socket", self.d.control] + list(args),
                              capture_output=True, text=True, timeout=30)

    def test_placement_rules_and_refusals(self):
        self.assertTrue(self.submit("e1", user="tq-etl", queue="etl")["ok"])
        self.assertTrue(self.submit("a1", user="tq-alice")["ok"])   # primary group
        self.assertTrue(self.submit("c1", user="tq-carol")["ok"])   # a leaf named after the user
        self.assertTrue(self.submit("x1", user="tq-eve")["ok"])     # the default
        self.assertTrue(self.submit("n1")["ok"])                    # no user: the default
        self.assertEqual(self.queue_of("e1"), ("etl", "tq-etl"))
        self.assertEqual(self.queue_of("a1"), ("analytics", "tq-alice"))
        self.assertEqual(self.queue_of("c1"), ("tq-carol", "tq-carol"))
        self.assertEqual(self.queue_of("x1"), ("adhoc", "tq-eve"))
        self.assertEqual(self.queue_of("n1"), ("adhoc", None))
        listed = {j["job"]: (j["queue"], j["user"])
                  for j in self.ok({"op": "jobs"}, control=True)["jobs"]}
        self.assertEqual(listed["a1"], ("analytics", "tq-alice"))

        e = self.submit("r1", user="tq-eve", queue="etl")["error"]
        self.assertEqual(e["code"], "permission_denied", e)
        self.assertIn("tq-eve", e["message"])
        self.assertIn("etl", e["message"])
        e = self.submit("r2", user="tq-eve", queue="analytics")["error"]
        self.assertEqual(e["code"], "permission_denied", e)
        e = self.submit("r3", user="tq-eve", queue="nope")["error"]
        self.assertIn(e["code"], ("not_found", "invalid_argument"), e)
        self.assertIn("nope", e["message"])
        e = self.submit("r4", user="tq-eve", queue="root")["error"]
        self.assertIn(e["code"], ("invalid_argument", "not_found"), e)
        self.assertIn("root", e["message"])
        e = self.submit("r5", user="tq-eve", queue="frozen")["error"]
        self.assertEqual(e["code"], "failed_precondition", e)
        self.assertIn("frozen", e["message"])
        # A refused job left nothing behind: its name is free, nothing is queued for it.
        self.assertEqual(self.err({"op": "job", "job": "r1"}, control=True)["code"], "not_found")
        self.assertEqual(self.queues()["etl"]["running_jobs"], 1)
        # A job sent in parts is refused at its first part.
        e = self.d.call({"op": "job_submit", "job": "p1", "user": "tq-eve", "queue": "etl",
                         "tasks_total": 3, "tasks": [{"task": "t0", "replicas": ["m0"]}]},
                        control=False)["error"]
        self.assertEqual(e["code"], "permission_denied", e)

    def test_queue_view_and_ctl(self):
        self.assertTrue(self.submit("e1", user="tq-etl", queue="etl", tasks=4)["ok"])
        self.assertTrue(self.submit("x1", user="tq-eve", tasks=3)["ok"])
        for m in range(4):
            self.ok({"op": "heartbeat", "machine": "m%d" % m, "free_slots": 2})
        q = self.queues()
        self.assertEqual(set(q), {"root", "etl", "adhoc", "analytics", "tq-carol", "frozen"})
        self.assertAlmostEqual(q["etl"]["guarantee"], 0.5)
        self.assertAlmostEqual(q["adhoc"]["maximum"], 0.5)
        self.assertEqual(q["frozen"]["state"], "stopped")
        self.assertEqual(q["etl"]["running_tasks"] + q["etl"]["pending_tasks"], 4)
        self.assertEqual(q["adhoc"]["running_tasks"] + q["adhoc"]["pending_tasks"], 3)
        self.assertEqual(q["root"]["running_tasks"], 7)
        self.assertAlmostEqual(q["etl"]["share"], q["etl"]["running_tasks"] / 8)
        self.assertEqual(q["adhoc"]["users"], 1)
        one = self.ok({"op": "queue", "queue": "adhoc"}, control=True)["queues"]
        self.assertEqual([x["queue"] for x in one], ["adhoc"])
        self.assertEqual(self.err({"op": "queue", "queue": "nope"}, control=True)["code"],
                         "not_found")
        self.assertTrue(self.ok({"op": "status"}, control=True)["tenancy"]["enabled"])
        r = self.ctl("queue")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("etl", r.stdout)
        self.assertIn("50.0%", r.stdout)
        r = self.ctl("queue", "adhoc")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("etl", r.stdout)
        self.assertEqual(self.ctl("queue", "nope").returncode, 1)
        metrics = self.ok({"op": "metrics"}, control=True)["text"]
        self.assertIn('locsched_queue_guaranteed_ratio{queue="etl"} 0.5', metrics)
        self.assertIn('locsched_queue_stopped{queue="frozen"} 1', metrics)

    def reload(self):
        return self.d.call({"op": "reload"}, control=True)

    def test_reload_refuses_an_invalid_tree_and_keeps_the_old(self):
        self.assertTrue(self.submit("a1", user="tq-alice")["ok"])
        before = self.queues()
        bad_trees = [
            (TREE.replace("capacity = 50", "capacity = 90"), "100"),          # over 100 %
            (TREE + '\n[queue.orphan]\nparent = "nowhere"\n', "nowhere"),     # unknown parent
            (TREE.replace("[queue.analytics]\ncapacity = 10\n",
                          "[queue.other]\ncapacity = 10\n"), "analytics"),    # holds a job
        ]
        for text, named in bad_trees:
            self.write(text)
            r = self.reload()
            self.assertFalse(r["ok"], text)
            self.assertIn(named, r["error"]["message"])
            self.assertEqual(self.queues().keys(), before.keys())
        self.assertIn("reload", self.d.log_text())
        # A tree that stops adhoc: new jobs there are refused, the others still run.
        self.assertTrue(self.submit("x1", user="tq-eve")["ok"])
        self.write(TREE.replace('maximum_capacity = 50\n', 'maximum_capacity = 50\nstate = "stopped"\n'))
        r = self.reload()
        self.assertTrue(r["ok"], r)
        self.assertIn("queue", r["changed"])
        self.assertEqual(self.queues()["adhoc"]["state"], "stopped")
        self.assertEqual(self.submit("x2", user="tq-eve")["error"]["code"], "failed_precondition")
        self.assertEqual(self.queue_of("x1"), ("adhoc", "tq-eve"))

    def test_kill_and_restart_keep_queues_and_state(self):
        self.assertTrue(self.submit("e1", user="tq-etl", queue="etl")["ok"])
        self.assertTrue(self.submit("a1", user="tq-alice")["ok"])
        self.write(TREE.replace('maximum_capacity = 50\n', 'maximum_capacity = 50\nstate = "stopped"\n'))
        self.assertTrue(self.reload()["ok"])
        # Placement rules changed before the crash: replay must not ask them again.
        self.write(TREE.replace('maximum_capacity = 50\n', 'maximum_capacity = 50\nstate = "stopped"\n')
                   .replace('submit_groups = ["analytics"]', 'submit_groups = ["nobody"]'))
        self.d.kill()
        self.d.start()
        self.assertEqual(self.queue_of("e1"), ("etl", "tq-etl"))
        self.assertEqual(self.queue_of("a1"), ("analytics", "tq-alice"))
        q = self.queues()
        self.assertEqual(q["adhoc"]["state"], "stopped")
        self.assertEqual(q["analytics"]["running_jobs"], 1)
        self.assertEqual(self.submit("x1", user="tq-eve")["error"]["code"], "failed_precondition")

    def dropped_analytics(self):
        return TREE.replace("[queue.analytics]\ncapacity = 10\nsubmit_groups = [\"analytics\"]\n",
                            "")

    def check_kept(self):
        q = self.queues()
        self.assertEqual(q["analytics"]["state"], "stopped")
        self.assertFalse(q["analytics"]["configured"])
        self.assertEqual(self.queue_of("a1"), ("analytics", "tq-alice"))
        self.assertRegex(self.d.log_text(), r"queue 'analytics' is not in the config")
        e = self.submit("a2", user="tq-alice", queue="analytics")["error"]
        self.assertEqual(e["code"], "failed_precondition", e)
        # Its job finishes there; the queue goes at the next reload.
        for m in range(4):
            for a in self.ok({"op": "heartbeat", "machine": "m%d" % m, "free_slots": 2})["assign"]:
                self.ok({"op": "task_done", "job": a["job"], "task": a["task"]})
        self.assertEqual(self.ok({"op": "job", "job": "a1"}, control=True)["state"], "done")
        self.assertTrue(self.reload()["ok"])
        self.assertNotIn("analytics", self.queues())

    def test_restart_from_the_journal_keeps_a_dropped_queue_stopped(self):
        self.assertTrue(self.submit("a1", user="tq-alice")["ok"])
        self.d.kill()
        self.write(self.dropped_analytics())
        self.d.start()
        self.check_kept()

    def test_restart_from_a_snapshot_keeps_a_dropped_queue_stopped(self):
        self.assertTrue(self.submit("a1", user="tq-alice")["ok"])
        self.ok({"op": "snapshot"}, control=True)
        self.d.kill()
        self.write(self.dropped_analytics())
        self.d.start()
        self.check_kept()


class TenancyOff(unittest.TestCase):
    """Without [queue.*]: every job is in default, queue and user fields change nothing."""

    def test_default_queue(self):
        d = daemon_harness.Daemon(DAEMON)
        try:
            self.assertTrue(d.call({"op": "machine_up", "machine": "m0"}, control=False)["ok"])
            r = d.call({"op": "job_submit", "job": "j", "user": "u", "queue": "etl",
                        "tasks": [{"task": "t", "replicas": ["m0"]}]}, control=False)
            self.assertTrue(r["ok"], r)
            j = d.call({"op": "job", "job": "j"})
            self.assertEqual((j["queue"], j["user"]), ("default", "u"))
            q = d.call({"op": "queue"})
            self.assertFalse(q["tenancy"])
            self.assertEqual([(x["queue"], x["pending_tasks"], x["users"]) for x in q["queues"]],
                             [("default", 1, 1)])
            self.assertFalse(d.status()["tenancy"]["enabled"])
        finally:
            self.assertEqual(d.stop(), 0)


if __name__ == "__main__":
    DAEMON, CTL = sys.argv[1], sys.argv[2]
    unittest.main(argv=sys.argv[:1] + sys.argv[3:])
