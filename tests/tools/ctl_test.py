#!/usr/bin/python3
"""Black-box tests of locschedctl against a real locschedd on temporary sockets.

Usage: ctl_test.py /path/to/locschedctl /path/to/locschedd [unittest options]
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "daemon"))
import locschedd_test  # noqa: E402  (the Daemon harness)

CTL = None


class Ctl(unittest.TestCase):
    def setUp(self):
        self.d = locschedd_test.Daemon()
        c = self.d.connect()
        for i in range(3):
            c.call({"op": "machine_up", "machine": "n%d" % i, "slots": 2})
        c.call({"op": "job_submit", "job": "wc", "tasks": [
            {"task": "t%d" % i, "replicas": ["n%d" % (i % 3)]} for i in range(6)]})
        c.call({"op": "heartbeat", "machine": "n0", "free_slots": 1})
        c.close()

    def tearDown(self):
        self.d.stop()

    def ctl(self, *args):
        return subprocess.run([CTL, "--socket", self.d.control] + list(args),
                              capture_output=True, text=True, timeout=20)

    def test_status_table_and_json(self):
        r = self.ctl("status")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("5 queued, 1 running", r.stdout)
        j = json.loads(self.ctl("--json", "status").stdout)
        self.assertEqual(j["tasks"]["queued"], 5)

    def test_every_read_verb_renders(self):
        for verb in (["machine-queues", "--top", "2"], ["jobs"], ["job", "wc"], ["machines"], ["help"],
                     ["help", "--command", "heartbeat"], ["metrics"]):
            r = self.ctl(*verb)
            self.assertEqual(r.returncode, 0, "%s: %s" % (verb, r.stderr))
            self.assertTrue(r.stdout.strip(), verb)
        self.assertIn("locsched_tasks_queued 5", self.ctl("metrics").stdout)

    def test_job_shows_where_finished_tasks_ran(self):
        tasks = json.loads(self.ctl("--json", "job", "wc").stdout)["task_list"]
        running = [t for t in tasks if t["state"] == "running"]
        self.assertEqual(len(running), 1, tasks)
        c = self.d.connect()
        r = c.call({"op": "task_done", "job": "wc", "task": running[0]["task"], "machine": "n0"})
        c.close()
        self.assertTrue(r["ok"], r)
        out = self.ctl("job", "wc")
        self.assertEqual(out.returncode, 0, out.stderr)
        row = [line.split() for line in out.stdout.splitlines()
               if line.split()[:1] == [running[0]["task"]]]
        self.assertEqual(row, [[running[0]["task"], "map", "done", "1", "n0",
                                running[0]["local"] and "yes" or "no"]], out.stdout)

    def test_json_may_follow_the_verb(self):
        j = json.loads(self.ctl("status", "--json").stdout)
        self.assertEqual(j["tasks"]["queued"], 5)

    def test_snapshot_needs_a_journal_and_then_writes_one(self):
        r = self.ctl("snapshot")
        self.assertEqual(r.returncode, 1)
        self.assertIn("journal.path: no journal to snapshot", r.stderr)
        tmp = tempfile.TemporaryDirectory(prefix="ctl-test-journal-")
        d = locschedd_test.Daemon(sets=["journal.path=" + os.path.join(tmp.name, "j.log")])
        try:
            r = subprocess.run([CTL, "--socket", d.control, "snapshot"], capture_output=True,
                               text=True, timeout=20)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("generation: 1", r.stdout)
            self.assertTrue(os.path.exists(os.path.join(tmp.name, "j.log.snap")))
        finally:
            d.stop()
            tmp.cleanup()

    def test_drain_and_undrain_change_the_machine(self):
        self.assertEqual(self.ctl("drain", "n1").returncode, 0)
        m = json.loads(self.ctl("--json", "machines").stdout)["machines"]
        self.assertTrue([x for x in m if x["machine"] == "n1"][0]["draining"])
        self.assertEqual(self.ctl("undrain", "n1").returncode, 0)
        m = json.loads(self.ctl("--json", "machines").stdout)["machines"]
        self.assertFalse([x for x in m if x["machine"] == "n1"][0]["draining"])

    def test_errors_and_exit_codes(self):
        r = self.ctl("job", "nope")
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stderr.strip(), "locschedctl: job: unknown job 'nope'")
        r = subprocess.run([CTL, "--socket", self.d.control + ".missing", "status"],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 69)
        self.assertIn("locschedd is not running", r.stderr)
        r = self.ctl("machine-queues", "--top", "many")
        self.assertEqual(r.returncode, 2)
        self.assertIn("top", r.stderr)
        for retired in (["queues"], ["queues", "--top", "2"], ["help", "queues"]):
            r = self.ctl(*retired)
            self.assertEqual(r.returncode, 2, retired)
            self.assertEqual(r.stdout, "", retired)
            self.assertIn("per-machine queues are `machine_queues`, tenant queues are `queue`",
                          r.stderr)
        r = self.ctl("reload")  # started without --config
        self.assertEqual(r.returncode, 1)
        self.assertIn("without --config", r.stderr)
        for out in (r.stdout, r.stderr):
            self.assertNotIn("Traceback", out)

    def test_one_name_per_verb_with_dashes_and_earlier_spellings(self):
        self.assertEqual(self.ctl("machine-drain", "n1").returncode, 0)
        m = json.loads(self.ctl("--json", "machines").stdout)["machines"]
        self.assertTrue([x for x in m if x["machine"] == "n1"][0]["draining"])
        self.assertEqual(self.ctl("machine_undrain", "n1").returncode, 0)
        m = json.loads(self.ctl("--json", "machines").stdout)["machines"]
        self.assertFalse([x for x in m if x["machine"] == "n1"][0]["draining"])
        # resolve-lp is resolve_lp: the daemon answers, not the command-line parser.
        for spelling in ("resolve-lp", "resolve_lp"):
            r = self.ctl("--json", spelling)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertTrue(json.loads(r.stdout)["ok"])
        help_text = self.ctl("--help").stdout
        for gone in (" drain ", " undrain ", " cancel ", "resolve-lp"):
            self.assertNotIn(gone, help_text)

    def test_nested_values_render_as_tables(self):
        d = locschedd_test.Daemon(sets=["lp.enabled=true"])
        try:
            r = subprocess.run([CTL, "--socket", d.control, "resolve_lp"], capture_output=True,
                               text=True, timeout=20)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertNotIn("{", r.stdout)
            self.assertIn("\nlp:\n", r.stdout)
            self.assertRegex(r.stdout, r"\nsolves +\d+\n")
        finally:
            d.stop()

    def test_unknown_verbs_get_the_closest_name(self):
        for typo, hint in (("machin-drain", "machine_drain"), ("resolv_lp", "resolve_lp"),
                           ("stauts", "status")):
            r = self.ctl(typo, "n1")
            self.assertEqual(r.returncode, 2, typo)
            self.assertIn("did you mean '%s'?" % hint, r.stderr)
            self.assertNotIn("subcommand is required", r.stderr)

    def test_version(self):
        r = subprocess.run([CTL, "--version"], capture_output=True, text=True, timeout=20)
        self.assertEqual(r.returncode, 0)
        self.assertRegex(r.stdout, r"^locschedctl \d+\.\d+\.\d+")

    def test_a_reload_refused_for_a_bad_value_exits_1(self):
        tmp = tempfile.TemporaryDirectory(prefix="ctl-test-reload-")
        path = os.path.join(tmp.name, "locsched.toml")
        with open(path, "w") as f:
            f.write("[scheduler]\nalpha = 0.8\n")
        d = locschedd_test.Daemon(config=path)
        try:
            # The file locschedctl reads its socket from now holds a value the daemon refuses.
            with open(path, "w") as f:
                f.write('[sockets]\ncontrol_path = "%s"\n[scheduler]\nalpha = -1\n' % d.control)
            r = subprocess.run([CTL, "--config", path, "reload"], capture_output=True, text=True,
                               timeout=20)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn("scheduler.alpha", r.stderr)
        finally:
            d.stop()
            tmp.cleanup()

    def test_watch_refreshes(self):
        r = self.ctl("watch", "--count", "2", "--interval", "0.1")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.count("events "), 2)

    def test_operations_md_lists_exactly_the_admin_commands(self):
        table = json.loads(self.ctl("--json", "help").stdout)["commands"]
        admin = {c["command"] for c in table if c["admin"]}
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs",
                               "operations.md")) as f:
            doc = f.read()
        match = re.search(r"Admin commands\**\s*\(([^)]*)\)", doc)
        self.assertIsNotNone(match, "operations.md has no 'Admin commands (...)' list")
        listed = match.group(1)
        names = set(re.findall(r"`([a-z_]+)`", listed))
        # machine_undrain is locschedctl's spelling of machine_drain --drain false.
        self.assertEqual(names - {"machine_undrain"}, admin)

    def test_submit_sends_a_job_on_the_event_socket(self):
        r = self.ctl("submit", "hand", "--replicas", "n0,n1", "--tasks", "3", "--reduces", "1",
                     "--duration", "5", "--event-socket", self.d.event)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "job hand submitted: 4 tasks\n")
        job = json.loads(self.ctl("--json", "job", "hand").stdout)
        self.assertEqual([(t["task"], t["kind"]) for t in job["task_list"]],
                         [("m0", "map"), ("m1", "map"), ("m2", "map"), ("r0", "reduce")])
        # The event socket from the config file when no --event-socket is given.
        config = os.path.join(self.d.dir.name, "ctl.toml")
        with open(config, "w") as f:
            f.write('[sockets]\nevent_path = "%s"\ncontrol_path = "%s"\n'
                    % (self.d.event, self.d.control))
        run = lambda *a: subprocess.run([CTL, "--config", config, *a], capture_output=True,  # noqa
                                        text=True, timeout=20)
        r = run("submit", "again", "--replicas", "n2", "--id", "hand-1")
        self.assertEqual(r.returncode, 0, r.stderr)
        r = run("--json", "submit", "again", "--replicas", "n2", "--id", "hand-1")
        self.assertTrue(json.loads(r.stdout)["duplicate"], r.stdout)
        r = run("submit", "again", "--replicas", "n2", "--id", "hand-1")
        self.assertIn("answered as a duplicate", r.stdout)
        self.assertEqual(json.loads(self.ctl("--json", "job", "again").stdout)["tasks"], 1)

    def test_submit_errors(self):
        ev = ("--event-socket", self.d.event)
        r = self.ctl("submit", "x", "--replicas", "n0,,n1", *ev)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--replicas", r.stderr)
        r = self.ctl("submit", "x", "--replicas", "n0", "--tasks", "0", *ev)
        self.assertEqual(r.returncode, 2, r.stderr)
        r = self.ctl("submit", "x", *ev)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--replicas", r.stderr)
        r = self.ctl("submit", "x", "--replicas", "nowhere", *ev)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("nowhere", r.stderr)
        r = self.ctl("submit", "wc", "--replicas", "n0", *ev)  # live already
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("already live", r.stderr)
        r = self.ctl("submit", "x", "--replicas", "n0", "--event-socket", self.d.event + ".gone")
        self.assertEqual(r.returncode, 69, r.stderr)

    def test_verbs_and_completion_come_from_the_command_table(self):
        help_text = subprocess.run([CTL, "--help"], capture_output=True, text=True).stdout
        table = json.loads(self.ctl("--json", "help").stdout)["commands"]
        control = [c["command"] for c in table if "control" in c["sockets"]]
        completion = self.ctl("completion").stdout
        for name in control:
            self.assertIn(name, help_text)
            self.assertIn(" %s) " % name, completion)
        self.assertNotIn("job_submit", help_text)  # event-socket only

    def test_help_lists_only_what_it_runs_and_describes_each(self):
        listing = self.ctl("help")
        self.assertEqual(listing.returncode, 0, listing.stderr)
        listed = [line.split()[0] for line in listing.stdout.splitlines()[1:] if line.strip()]
        table = json.loads(self.ctl("--json", "help").stdout)["commands"]
        control = {c["command"] for c in table if "control" in c["sockets"]}
        for name in ("job_submit", "heartbeat", "machine_up", "task_done", "task_add"):
            self.assertNotIn(name, listed)  # agents' commands: the CLI refuses them
        self.assertLessEqual(control, set(listed))
        for name in ("machine_undrain", "watch", "completion"):
            self.assertIn(name, listed)
        for name in listed:  # `help X` works for each, and so does `help --command X`
            r = self.ctl("help", name)
            self.assertEqual(r.returncode, 0, "help %s: %s" % (name, r.stderr))
            self.assertTrue(r.stdout.strip(), name)
            self.assertEqual(self.ctl(name, "--help").returncode, 0, name)
        self.assertIn("drain", self.ctl("help", "machine_drain").stdout)  # its fields
        self.assertIn("--interval", self.ctl("help", "watch").stdout)
        # An agent's command is described, saying the CLI does not send it.
        r = self.ctl("help", "job_submit")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("tasks_total", r.stdout)
        self.assertIn("not a locschedctl verb: agents send job_submit on the event socket",
                      r.stdout)
        r = self.ctl("help", "stauts")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("'stauts' is not a locschedctl command (did you mean 'status'?)", r.stderr)

    def test_every_admin_op_leaves_an_audit_line_with_its_peer(self):
        table = json.loads(self.ctl("--json", "help").stdout)["commands"]
        admin = {c["command"] for c in table if c["admin"]}
        runs = {"machine_drain": ["n1"], "machine_undrain": ["n1"], "machine_down": ["n2"],
                "machine_lost": ["n0"], "job_cancel": ["wc"], "reload": [], "snapshot": [],
                "rebalance": [], "resolve_lp": []}
        self.assertLessEqual(admin, set(runs), "an admin op this test does not run")
        expected = {"machine_drain": ' machine="n1" drain=true',
                    "machine_undrain": ' machine="n1" drain=false',
                    "machine_down": ' machine="n2"', "machine_lost": ' machine="n0"',
                    "job_cancel": ' job="wc"'}
        for verb, args in runs.items():
            proc = subprocess.Popen([CTL, "--socket", self.d.control, verb] + args,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            proc.communicate(timeout=20)
            op = "machine_drain" if verb == "machine_undrain" else verb
            line = "audit op=%s%s socket=control uid=%d pid=%d result=" % (
                op, expected.get(verb, ""), os.getuid(), proc.pid)
            self.d.wait_for(lambda: line in self.d.log(), "the audit line of " + verb)
            outcome = self.d.log().split(line)[1].split()[0]
            self.assertEqual(outcome == "ok", proc.returncode == 0, (verb, outcome))
        # Reads and agents' events are not audited.
        self.assertEqual(self.d.log().count("audit op="), len(runs))


if __name__ == "__main__":
    CTL = sys.argv.pop(1)
    locschedd_test.DAEMON = sys.argv.pop(1)
    unittest.main()
