#!/usr/bin/python3
"""Black-box tests of the journal lock: one locschedd per journal.path. A second
daemon (or --recover) on a journal in use is refused with exit 1, naming the
journal and the holder's pid, and touches none of its files; the first one's
acknowledged events survive its kill -9; a lock left by a killed daemon never
blocks a start.

Usage: journal_lock_test.py /path/to/locschedd [unittest options]
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import daemon_harness  # noqa: E402

DAEMON = None  # set from the command line in __main__


def journal_files(d):
    """The files beside the journal with their inode and size (sockets and the log left out)."""
    out = {}
    for name in sorted(os.listdir(d)):
        if name.startswith("journal"):
            st = os.stat(os.path.join(d, name))
            out[name] = (st.st_ino, st.st_size)
    return out


class JournalLockTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="locsched-lock-test-")
        self.journal = os.path.join(self.dir, "journal")
        self.other = tempfile.mkdtemp(prefix="locsched-lock-other-")
        self.a = daemon_harness.Daemon(DAEMON, "journal.path=" + self.journal,
                                       directory=self.dir)

    def tearDown(self):
        self.a.stop()
        shutil.rmtree(self.dir, ignore_errors=True)
        shutil.rmtree(self.other, ignore_errors=True)

    def send(self, request):
        reply = self.a.call(request, control=False)
        self.assertTrue(reply.get("ok"), reply)

    def restart(self):
        """Starts A again after a stop (which closed its log)."""
        self.a.log = open(os.path.join(self.dir, "daemon.log"), "a+")
        self.a.start()

    def machine_up(self):
        self.send({"op": "machine_up", "id": "up-m0", "machine": "m0"})

    def submit(self, job, machine):
        self.send({"op": "job_submit", "id": "s-" + job, "job": job,
                   "tasks": [{"task": "t", "replicas": [machine]}]})

    def second(self, *args):
        """locschedd on A's journal with its own sockets: its exit code and stderr.
        One still running after 10 s was not refused: it is stopped and the test fails."""
        argv = [DAEMON, *args, "--set", "journal.path=" + self.journal,
                "--set", "sockets.event_path=" + os.path.join(self.other, "ev.sock"),
                "--set", "sockets.control_path=" + os.path.join(self.other, "ctl.sock"),
                "--set", "log.target=stderr"]
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            out, err = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.terminate()
            out, err = proc.communicate()
            self.fail("a second locschedd on %s ran instead of being refused:\n%s"
                      % (self.journal, err))
        return proc.returncode, out + err

    def test_second_daemon_is_refused_and_the_first_keeps_every_acknowledged_event(self):
        self.machine_up()
        for job in ("j0", "j1"):
            self.submit(job, "m0")
        before = journal_files(self.dir)
        code, text = self.second()
        self.assertEqual(code, 1, text)
        self.assertIn(self.journal, text)
        self.assertIn("pid %d" % self.a.proc.pid, text)
        # Refused before reading anything: no snapshot, no new journal, no file changed.
        self.assertEqual(journal_files(self.dir), before)
        self.assertFalse(os.path.exists(os.path.join(self.other, "ev.sock")))
        self.send({"op": "machine_up", "id": "up-m1", "machine": "m1"})
        for job in ("j2", "j3"):
            self.submit(job, "m1")
        self.a.kill()
        self.a.start()  # the lock the killed daemon held does not block its restart
        status = self.a.status()
        self.assertEqual(status["machines"]["up"], 2, status)
        self.assertEqual(status["jobs"]["live"], 4, status)
        for job in ("j0", "j1", "j2", "j3"):
            reply = self.a.call({"op": "job", "job": job})
            self.assertTrue(reply.get("ok"), reply)
        with open(self.journal + ".lock") as f:
            self.assertEqual(f.read().strip(), str(self.a.proc.pid))

    def test_recover_is_refused_while_the_daemon_runs(self):
        self.machine_up()
        code, text = self.second("--recover")
        self.assertEqual(code, 1, text)
        self.assertIn("pid %d" % self.a.proc.pid, text)
        self.assertEqual(self.a.stop(), 0)
        code, text = self.second("--recover")
        self.assertEqual(code, 0, text)
        self.restart()  # for tearDown

    def test_check_config_needs_no_lock(self):
        config = os.path.join(self.other, "locsched.toml")
        with open(config, "w") as f:
            f.write('[journal]\npath = "%s"\n' % self.journal)
        done = subprocess.run([DAEMON, "--check-config", config], capture_output=True, text=True,
                              timeout=10)
        self.assertEqual(done.returncode, 0, done.stderr)

    def test_a_stale_lock_file_with_a_dead_pid_does_not_block_a_start(self):
        self.machine_up()
        self.assertEqual(self.a.stop(), 0)
        dead = subprocess.Popen(["true"])
        dead.wait()
        with open(self.journal + ".lock", "w") as f:
            f.write("%d\n" % dead.pid)
        self.restart()
        self.assertEqual(self.a.status()["machines"]["up"], 1)
        with open(self.journal + ".lock") as f:
            self.assertEqual(f.read().strip(), str(self.a.proc.pid))

    def test_a_lock_path_that_is_a_directory_is_refused_and_left_alone(self):
        self.assertEqual(self.a.stop(), 0)
        os.unlink(self.journal + ".lock")
        os.mkdir(self.journal + ".lock")
        code, text = self.second()
        self.assertEqual(code, 1, text)
        self.assertIn(self.journal + ".lock", text)
        self.assertIn("not a regular file", text)
        self.assertTrue(os.path.isdir(self.journal + ".lock"))
        os.rmdir(self.journal + ".lock")
        self.restart()  # for tearDown


if __name__ == "__main__":
    DAEMON = sys.argv.pop(1)
    unittest.main()
