#!/usr/bin/python3
"""The lean journal against the real daemon: heartbeats that change nothing add no
journal bytes, and a daemon killed with -9 and started again from such a journal
shows the state it had.

Usage: lean_journal_test.py /path/to/locschedd [unittest options]
"""
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import daemon_harness  # noqa: E402

DAEMON = None


def view(d):
    """What a reader sees, minus the wall clock and this process' own counters."""
    v = {}
    for op in ("status", "jobs", "machines", "machine_queues"):
        r = d.call({"op": op})
        assert r["ok"], r
        r.pop("uptime_s", None)
        r.pop("daemon", None)
        if isinstance(r.get("jobs"), list):
            for job in r["jobs"]:
                job.pop("age_s", None)
        v[op] = r
    return v


class LeanJournal(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="locsched-lean-")
        self.journal = os.path.join(self.dir, "journal.log")
        self.d = daemon_harness.Daemon(DAEMON, "journal.path=" + self.journal,
                                       directory=self.dir)

    def tearDown(self):
        code = self.d.stop()
        shutil.rmtree(self.dir, ignore_errors=True)
        self.assertEqual(code, 0)

    def event(self, request):
        r = self.d.call(request, control=False)
        self.assertTrue(r["ok"], "%s -> %s" % (request, r))
        return r

    def test_heartbeats_that_change_nothing_add_no_journal_bytes(self):
        for m in ("m0", "m1", "m2"):
            self.event({"op": "machine_up", "machine": m, "slots": 2})
        self.event({"op": "job_submit", "job": "j", "tasks": [
            {"task": "t%d" % i, "replicas": ["m0"]} for i in range(4)]})
        first = self.event({"op": "heartbeat", "machine": "m0", "free_slots": 2})["assign"]
        self.assertEqual(len(first), 2)
        before = os.path.getsize(self.journal)
        # Full machines, with and without ids: a reply comes only once the journal is
        # synced, so the file is final here.
        for i in range(500):
            self.event({"op": "heartbeat", "machine": "m%d" % (i % 3), "free_slots": 0})
            self.event({"op": "heartbeat", "machine": "m0", "free_slots": 0, "id": "b%d" % i})
        self.assertEqual(os.path.getsize(self.journal), before)
        # A heartbeat that assigns is journaled, and so is every other event.
        self.event({"op": "task_done", "job": "j", "task": first[0]["task"]})
        after_done = os.path.getsize(self.journal)
        self.assertGreater(after_done, before)
        self.assertEqual(len(self.event({"op": "heartbeat", "machine": "m0",
                                         "free_slots": 1})["assign"]), 1)
        self.assertGreater(os.path.getsize(self.journal), after_done)
        self.assertEqual(self.d.status()["daemon"]["journal"]["skipped_heartbeats"], 1000)

        # kill -9 and start again from the lean journal: the same state, going on alike.
        live = view(self.d)
        self.d.kill()
        self.d.start()
        self.assertEqual(view(self.d), live)
        self.assertEqual(len(self.event({"op": "heartbeat", "machine": "m0",
                                         "free_slots": 2})["assign"]), 0)  # m0 is full
        self.event({"op": "task_done", "job": "j", "task": first[1]["task"]})
        self.assertEqual(len(self.event({"op": "heartbeat", "machine": "m0",
                                         "free_slots": 1})["assign"]), 1)  # the last one


if __name__ == "__main__":
    DAEMON = sys.argv.pop(1)
    unittest.main()
