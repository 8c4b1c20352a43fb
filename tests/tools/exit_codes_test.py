#!/usr/bin/python3
"""Every program exits with exactly the codes docs/operations.md's "Exit codes"
table documents: each documented code is produced here by the real binary,
every code produced here is documented, and each program's --help lists the same.

Usage: exit_codes_test.py SOURCE_DIR LOCSCHEDD LOCSCHEDCTL LOCSCHED-AGENTS LOCSCHED-SIM
                          LOCSCHED-SOLVE LOCSCHED-TAIL [unittest options]
"""
import json
import os
import pathlib
import re
import shutil
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "daemon"))
import locschedd_test  # noqa: E402  (the Daemon harness)
import zookeeper  # noqa: E402  (a throwaway ZooKeeper server)

SOURCE = None
BIN = {}  # program name -> path


def documented_codes():
    """{program: {code, ...}} from the table under '## Exit codes'."""
    text = (SOURCE / "docs" / "operations.md").read_text()
    section = text.split("\n## Exit codes\n", 1)[1].split("\n## ", 1)[0]
    table = {}
    for row in re.findall(r"^\| `([a-z-]+)` \| (.*) \|$", section, re.M):
        table[row[0]] = {int(c) for c in re.findall(r"`(\d+)`", row[1])}
    return table


def run(program, *args, **kw):
    kw.setdefault("timeout", 120)
    return subprocess.run([BIN[program]] + list(args), capture_output=True, text=True, **kw)


def no_secret():
    """The environment without $LOCSCHED_SECRET_FILE: a tcp: address is refused (77)."""
    env = dict(os.environ)
    env.pop("LOCSCHED_SECRET_FILE", None)
    return env


def as_nobody():
    os.setgid(65534)
    os.setgroups([])
    os.setuid(65534)


class ExitCodes(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="exit-codes-")
        cls.dir = pathlib.Path(cls.tmp.name)
        os.chmod(cls.dir, 0o755)
        cls.seen = {}  # program -> codes produced

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def file(self, name, text):
        path = self.dir / name
        path.write_text(text)
        return str(path)

    def expect(self, code, out, program, why):
        self.assertEqual(out.returncode, code, "%s %s: %s%s" % (program, why, out.stdout[-2000:],
                                                              out.stderr[-2000:]))
        self.seen.setdefault(program, set()).add(code)

    def test_locschedd(self):
        good = self.file("good.toml", "[scheduler]\nalpha = 0.9\n")
        bad = self.file("bad.toml", "[limits]\nmax_clients = -1\n")
        self.expect(0, run("locschedd", "--check-config", good), "locschedd", "good file")
        self.expect(1, run("locschedd", "--check-config", bad), "locschedd", "bad file")
        self.expect(1, run("locschedd", "--set", "sockets.event_path=/nonexistent/dir/e.sock",
                           "--set", "sockets.control_path=" + str(self.dir / "c.sock")),
                    "locschedd", "socket cannot be bound")
        self.expect(2, run("locschedd", "--no-such-flag"), "locschedd", "unknown flag")
        self.expect(2, run("locschedd", "--config", "/nonexistent.toml"), "locschedd",
                    "missing --config file")
        d = locschedd_test.Daemon()
        d.proc.send_signal(signal.SIGTERM)
        self.expect(0, subprocess.CompletedProcess([], d.proc.wait(timeout=10), "", d.log()),
                    "locschedd", "SIGTERM")
        d.stop()
        self.expect_deposed()

    def expect_deposed(self):
        """3: in high-availability mode, frozen past its ZooKeeper session timeout."""
        zk = zookeeper.ZooKeeper(str(self.dir))
        proc = None
        try:
            zk.start()
            secret = self.file("secret", "0123456789abcdef\n")
            proc = subprocess.Popen(
                [BIN["locschedd"], "--set", "sockets.event_path=" + str(self.dir / "ha-e.sock"),
                 "--set", "sockets.control_path=" + str(self.dir / "ha-c.sock"),
                 "--set", "ha.zookeeper=" + zk.hosts, "--set", "ha.secret_file=" + secret,
                 "--set", "ha.instance=127.0.0.1:%d" % zookeeper.free_port(),
                 "--set", "ha.session_timeout_ms=2000"], stderr=subprocess.PIPE, text=True)
            for _ in range(400):
                if (self.dir / "ha-c.sock").exists() or proc.poll() is not None:
                    break
                time.sleep(0.05)
            proc.send_signal(signal.SIGSTOP)
            time.sleep(3.5)  # ZooKeeper expires the 2 s session meanwhile
            proc.send_signal(signal.SIGCONT)
            code = proc.wait(timeout=30)
            self.expect(3, subprocess.CompletedProcess([], code, "", proc.stderr.read()),
                        "locschedd", "deposed in high-availability mode")
        finally:
            if proc and proc.poll() is None:
                proc.kill()
                proc.wait()
            zk.stop()

    def test_locschedctl(self):
        d = locschedd_test.Daemon(["sockets.control_mode=0600"])
        try:
            ctl = ("locschedctl", "--socket", d.control)
            self.expect(0, run(*ctl, "status"), "locschedctl", "status")
            self.expect(1, run(*ctl, "job", "nope"), "locschedctl", "unknown job")
            self.expect(2, run(*ctl, "stauts"), "locschedctl", "unknown verb")
            self.expect(2, run(*ctl, "machine-queues", "--top", "many"), "locschedctl", "bad value")
            self.expect(69, run("locschedctl", "--socket", d.control + ".missing", "status"),
                        "locschedctl", "no daemon")
            if os.geteuid() != 0:
                self.skipTest("exit 77 needs root, to connect as another user")
            os.chmod(d.dir.name, 0o755)
            # A copy another user can run wherever the build tree is.
            shutil.copy(BIN["locschedctl"], self.dir / "locschedctl")
            nobody_ctl = [str(self.dir / "locschedctl"), "--socket", d.control]
            self.expect(77, subprocess.run(nobody_ctl + ["status"], capture_output=True,
                                           text=True, timeout=20, preexec_fn=as_nobody),
                        "locschedctl", "socket mode 0600, another user")
        finally:
            d.stop()
        # A world-writable control socket is refused, so another user reaches an admin
        # command through a world-writable event socket, where admin commands are checked too.
        d = locschedd_test.Daemon(["sockets.event_mode=0666"])
        try:
            os.chmod(d.dir.name, 0o755)
            nobody_ctl[2] = d.event
            self.expect(77, subprocess.run(nobody_ctl + ["machine_drain", "m5"], capture_output=True,
                                           text=True, timeout=20, preexec_fn=as_nobody),
                        "locschedctl", "admin command, another user")
        finally:
            d.stop()

    def test_locsched_agents(self):
        d = locschedd_test.Daemon()
        try:
            self.expect(0, run("locsched-agents", "--socket", d.event, "--machines", "4",
                               "--load", "2", "--speed", "50", "--duration", "5", "--report", "0"),
                        "locsched-agents", "a short run")
        finally:
            d.stop()
        self.expect(1, run("locsched-agents", "--socket", str(self.dir / "none.sock"),
                           "--duration", "5"), "locsched-agents", "no daemon")
        self.expect(2, run("locsched-agents", "--no-such-flag"), "locsched-agents", "unknown flag")
        self.expect(77, run("locsched-agents", "--socket", "tcp:127.0.0.1:%d" %
                            zookeeper.free_port(), "--duration", "5", env=no_secret()),
                    "locsched-agents", "tcp: without $LOCSCHED_SECRET_FILE")

    def test_locsched_sim(self):
        self.expect(0, run("locsched-sim", "--list-policies"), "locsched-sim", "--list-policies")
        self.expect(1, run("locsched-sim", "--sweep", "100", "--csv", "/nonexistent/dir/x.csv",
                           "--quiet"), "locsched-sim", "--csv cannot be written")
        self.expect(2, run("locsched-sim", "--no-such-flag"), "locsched-sim", "unknown flag")
        self.expect(2, run("locsched-sim", "--policy", "nope"), "locsched-sim", "unknown policy")

    def test_locsched_solve(self):
        ok = self.file("hta.json", '{"servers": 2, "w_rem": 3, "tasks": [[0], [1], [0]]}')
        # 21 tasks on 19 servers: the exact MIP needs well over 1 ms.
        rng = random.Random(3)
        hard = self.file("hard.json", '{"servers": 19, "w_rem": 3, "tasks": %s}' %
                         [rng.sample(range(19), 2) for _ in range(21)])
        self.expect(0, run("locsched-solve", "hta", "--instance", ok), "locsched-solve", "hta")
        self.expect(1, run("locsched-solve", "hta", "--instance", hard, "--algorithm", "exact",
                           "--time-limit", "1"), "locsched-solve", "exact past --time-limit")
        self.expect(2, run("locsched-solve", "hat"), "locsched-solve", "unknown command")
        self.expect(2, run("locsched-solve", "hta", "--instance", self.file("x.json", "{")),
                    "locsched-solve", "bad instance")

    def test_locsched_tail(self):
        swim = self.file("ok.tsv", "job0\t0\t0\t1000\t10\t10\njob1\t5\t5\t2000\t10\t10\n")
        junk = self.file("junk.tsv", "not a swim line\nnor this\n")
        self.expect(0, run("locsched-tail", "--check", "--format", "swim", swim), "locsched-tail",
                    "--check a good file")
        self.expect(1, run("locsched-tail", "--check", "--format", "swim", junk), "locsched-tail",
                    "--check, every record malformed")
        self.expect(1, run("locsched-tail", "--check", "--format", "swim", "/nonexistent.tsv"),
                    "locsched-tail", "unreadable file")
        self.expect(2, run("locsched-tail", "--no-such-flag"), "locsched-tail", "unknown flag")
        self.expect(77, run("locsched-tail", "--format", "swim", "--socket",
                            "tcp:127.0.0.1:%d" % zookeeper.free_port(), swim, env=no_secret()),
                    "locsched-tail", "tcp: without $LOCSCHED_SECRET_FILE")
        d = locschedd_test.Daemon()
        try:
            c = d.connect()
            for m in ("m0", "m1", "m2"):
                self.assertTrue(c.call({"op": "machine_up", "machine": m})["ok"])
            c.close()
            one = self.file("one.tsv", "job0\t0\t0\t1000\t10\t10\n")
            tail = ("locsched-tail", "--format", "swim", "--machines", "3", "--socket", d.event,
                    "--json", "-q")
            first = run(*tail, one)
            self.expect(0, first, "locsched-tail", "a replay")
            self.expect(3, run(*tail, "--resume", json.loads(first.stdout)["run"], one),
                        "locsched-tail", "a resumed replay the daemon had applied in full")
        finally:
            d.stop()

    def test_help_lists_the_documented_codes(self):
        table = documented_codes()
        for program in BIN:
            out = run(program, "--help")
            self.assertEqual(out.returncode, 0, program)
            listed = out.stdout.split("\nExit codes:\n", 1)[1]
            codes = {int(c) for c in re.findall(r"^  (\d+) {2,}\S", listed, re.M)}
            self.assertEqual(codes, table[program], program + " --help")

    def test_zz_every_documented_code_is_produced_and_no_other(self):
        table = documented_codes()
        self.assertEqual(set(table), set(BIN), "programs in the Exit codes table")
        for program, codes in self.seen.items():
            if program == "locschedctl" and os.geteuid() != 0:
                codes = codes | {77}  # skipped above
            self.assertEqual(codes, table[program], program)
        self.assertEqual(set(self.seen), set(BIN), "a program's test did not run")


if __name__ == "__main__":
    SOURCE = pathlib.Path(sys.argv.pop(1))
    for path in sys.argv[1:7]:
        BIN[os.path.basename(path)] = path
    locschedd_test.DAEMON = BIN["locschedd"]
    del sys.argv[1:7]
    unittest.main()
