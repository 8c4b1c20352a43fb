#!/usr/bin/python3
"""High availability as an operator meets its errors, against a real ZooKeeper
(Debian's zookeeper package, standalone on loopback in a temporary folder) and
two locschedd instances: the first started is the active, the second a standby.

- A refused shared secret: locschedctl exits 77 with one clean line naming the
  file and $LOCSCHED_SECRET_FILE (no JSON); locsched-tail and locsched-agents
  exit 77 at once, without retrying for their whole retry window.
- A missing secret file, or no $LOCSCHED_SECRET_FILE: the message names both.
- A standby refusing a write names itself and the active.
- `locschedctl status` shows role, instance, active and epoch, without the local
  journal's snapshot line; the dashboard shows the role, the active and the epoch.
- ha.zookeeper_auth_file: the daemon's nodes get a digest ACL; zkCli.sh without
  the credential can neither read nor change them; another credential, or a bad
  credential file, stops the start naming the key.

Usage: ha_errors_test.py LOCSCHEDD LOCSCHEDCTL LOCSCHED-TAIL LOCSCHED-AGENTS [unittest options]
"""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import zookeeper  # noqa: E402

DAEMON = CTL = TAIL = AGENTS = None  # set from the command line in __main__
SECRET = "ha-errors-secret-0123456789"


def hello(address, secret=SECRET):
    """The instance's hello reply (a dict), or None if it does not answer."""
    host, port = address.rsplit(":", 1)
    try:
        with socket.create_connection((host, int(port)), timeout=2) as s:
            s.sendall(json.dumps({"op": "hello", "secret": secret}).encode() + b"\n")
            buf = b""
            while b"\n" not in buf:
                chunk = s.recv(4096)
                if not chunk:
                    return None
                buf += chunk
            return json.loads(buf.split(b"\n", 1)[0])
    except OSError:
        return None


class Instance:
    """One locschedd in high-availability mode on its own sockets and TCP port."""

    def __init__(self, tmp, n, zk_hosts, extra=(), path="/errors"):
        self.dir = os.path.join(tmp, "i%d" % n)
        os.makedirs(self.dir, exist_ok=True)
        self.address = "127.0.0.1:%d" % zookeeper.free_port()
        self.control = os.path.join(self.dir, "c.sock")
        self.http = "127.0.0.1:%d" % zookeeper.free_port()
        self.log = open(os.path.join(tmp, "locschedd-%d.log" % n), "a")
        argv = [DAEMON, "--set", "sockets.event_path=" + os.path.join(self.dir, "e.sock"),
                "--set", "sockets.control_path=" + self.control,
                "--set", "ha.zookeeper=" + zk_hosts, "--set", "ha.path=" + path,
                "--set", "ha.instance=" + self.address,
                "--set", "ha.secret_file=" + os.path.join(tmp, "secret"),
                "--set", "ha.session_timeout_ms=2000", "--set", "http.listen=" + self.http,
                "--set", "log.target=stderr"]
        for kv in extra:
            argv += ["--set", kv]
        self.proc = subprocess.Popen(argv, stderr=self.log)

    def wait_role(self, want, timeout=30):
        end = time.time() + timeout
        while time.time() < end:
            if self.proc.poll() is not None:
                raise AssertionError("locschedd exited %d: see %s" % (self.proc.returncode,
                                                                      self.log.name))
            r = hello(self.address)
            if r and r.get("role") == want:
                return
            time.sleep(0.05)
        raise AssertionError("%s did not become %s within %d s" % (self.address, want, timeout))

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


TMP = None  # the module's folder: the secret files, ZooKeeper's data, the instances'
ZK = None


def setUpModule():
    global TMP, ZK
    why = zookeeper.available()
    if why:
        raise SystemExit("ZooKeeper is not installed (tools/install-deps.sh installs it): " + why)
    TMP = tempfile.mkdtemp(prefix="locsched-ha-errors-")
    with open(os.path.join(TMP, "secret"), "w") as f:
        f.write(SECRET + "\n")
    ZK = zookeeper.ZooKeeper(TMP)
    ZK.start()


def tearDownModule():
    ZK.stop()
    shutil.rmtree(TMP, ignore_errors=True)


class HaErrors(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = TMP
        cls.secret = os.path.join(TMP, "secret")
        cls.wrong = os.path.join(TMP, "wrong-secret")
        with open(cls.wrong, "w") as f:
            f.write("not-the-cluster-secret-at-all\n")
        cls.instances = []
        try:
            cls.active = Instance(TMP, 0, ZK.hosts)
            cls.instances.append(cls.active)
            cls.active.wait_role("active")
            cls.standby = Instance(TMP, 1, ZK.hosts)
            cls.instances.append(cls.standby)
            cls.standby.wait_role("standby")
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        for inst in cls.instances:
            inst.stop()

    def env(self, secret_file):
        env = dict(os.environ)
        env.pop("LOCSCHED_SECRET_FILE", None)
        if secret_file is not None:
            env["LOCSCHED_SECRET_FILE"] = secret_file
        return env

    def tcp(self):
        return "tcp:" + self.active.address + "," + self.standby.address

    def ctl(self, secret_file, *args, socket_arg=None):
        return subprocess.run([CTL, "--socket", socket_arg or self.tcp()] + list(args),
                              env=self.env(secret_file), capture_output=True, text=True,
                              timeout=30)

    def assert_clean(self, text):
        """One human line: no JSON object in it."""
        self.assertNotIn("{", text)
        self.assertNotIn('"ok"', text)

    def test_ctl_wrong_secret_exits_77_with_a_clean_message(self):
        out = self.ctl(self.wrong, "status")
        self.assertEqual(out.returncode, 77, out.stderr)
        self.assertIn("refused the shared secret", out.stderr)
        self.assertIn(self.wrong, out.stderr)
        self.assertIn("LOCSCHED_SECRET_FILE", out.stderr)
        self.assert_clean(out.stderr)
        self.assertEqual(out.stdout, "")

    def test_ctl_missing_secret_file_names_the_file_and_the_variable(self):
        missing = os.path.join(self.tmp, "no-such-secret")
        out = self.ctl(missing, "status")
        self.assertEqual(out.returncode, 77, out.stderr)
        self.assertIn(missing, out.stderr)
        self.assertIn("LOCSCHED_SECRET_FILE", out.stderr)
        self.assertIn("No such file or directory", out.stderr)
        unset = self.ctl(None, "status")
        self.assertEqual(unset.returncode, 77, unset.stderr)
        self.assertIn("LOCSCHED_SECRET_FILE", unset.stderr)
        self.assertIn("is not set", unset.stderr)

    def test_tail_does_not_retry_a_wrong_secret(self):
        log = os.path.join(self.tmp, "events.jsonl")
        with open(log, "w") as f:
            f.write(json.dumps({"op": "machine_up", "machine": "t0", "slots": 1}) + "\n")
        start = time.time()
        try:
            out = subprocess.run([TAIL, "--format", "locsched", "--socket", self.tcp(),
                                  "--retry-for", "60", "-q", log], env=self.env(self.wrong),
                                 capture_output=True, text=True, timeout=20)
        except subprocess.TimeoutExpired:
            self.fail("locsched-tail kept retrying a refused secret (--retry-for 60)")
        self.assertEqual(out.returncode, 77, out.stderr)
        self.assertLess(time.time() - start, 10)
        self.assertIn("refused the shared secret in " + self.wrong, out.stderr)
        missing = subprocess.run([TAIL, "--format", "locsched", "--socket", self.tcp(),
                                  "--retry-for", "60", "-q", log], env=self.env(None),
                                 capture_output=True, text=True, timeout=20)
        self.assertEqual(missing.returncode, 77, missing.stderr)
        self.assertIn("LOCSCHED_SECRET_FILE: is not set", missing.stderr)

    def test_agents_exit_77_on_a_wrong_secret(self):
        try:
            out = subprocess.run([AGENTS, "--socket", self.tcp(), "--machines", "4",
                                  "--duration", "5", "-q"], env=self.env(self.wrong),
                                 capture_output=True, text=True, timeout=20)
        except subprocess.TimeoutExpired:
            self.fail("locsched-agents kept retrying a refused secret")
        self.assertEqual(out.returncode, 77, out.stderr)
        self.assertIn("refused the shared secret in " + self.wrong, out.stderr)
        self.assertIn("LOCSCHED_SECRET_FILE", out.stderr)
        self.assert_clean(out.stderr)

    def test_standby_names_itself_and_the_active(self):
        out = self.ctl(None, "machine_drain", "m0", socket_arg=self.standby.control)
        self.assertEqual(out.returncode, 1, out.stderr)
        want = "%s is a standby; the active is %s" % (self.standby.address, self.active.address)
        self.assertIn(want, out.stderr)
        self.assertNotIn("%s: " % self.active.address, out.stderr)

    def test_status_text_shows_role_active_and_epoch(self):
        status = json.loads(self.ctl(self.secret, "status", "--json").stdout)
        epoch = status["ha"]["epoch"]
        self.assertGreaterEqual(epoch, 1)
        out = self.ctl(self.secret, "status")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("ha         active at %s, epoch %d" % (self.active.address, epoch),
                      out.stdout)
        self.assertIn("committed to ZooKeeper", out.stdout)
        self.assertNotIn("snapshots since start", out.stdout)
        standby = self.ctl(None, "status", socket_arg=self.standby.control)
        self.assertEqual(standby.returncode, 0, standby.stderr)
        self.assertIn("ha         standby at %s; the active is %s" % (self.standby.address,
                                                                      self.active.address),
                      standby.stdout)
        self.assertNotIn("journal", standby.stdout)

    def test_dashboard_shows_role_active_and_epoch(self):
        browser = shutil.which("chromium")
        if not browser:
            self.skipTest("chromium is not installed (Debian package chromium)")
        status = json.loads(self.ctl(self.secret, "status", "--json").stdout)
        for inst, want in ((self.active, r"active %s · epoch %d" % (
                re.escape(self.active.address), status["ha"]["epoch"])),
                           (self.standby, r"standby %s · the active is %s" % (
                               re.escape(self.standby.address),
                               re.escape(self.active.address)))):
            profile = tempfile.mkdtemp(dir=self.tmp)
            with open(os.path.join(profile, "out"), "w+") as out:
                code = subprocess.run(
                    [browser, "--virtual-time-budget=3000", "--headless", "--no-sandbox",
                     "--disable-gpu", "--no-first-run", "--user-data-dir=" + profile,
                     "--dump-dom", "http://%s/" % inst.http],
                    stdout=out, stderr=subprocess.DEVNULL, timeout=120).returncode
                out.seek(0)
                dom = out.read()
            self.assertEqual(code, 0)
            self.assertRegex(dom, r'<span class="tag" id="ha" data-role="[a-z]+">' + want + "<",
                             dom[:1500])


def zk_cli(commands):
    """zkCli.sh's stdout and stderr (where it reports refusals) for `commands`."""
    r = subprocess.run(["/usr/share/zookeeper/bin/zkCli.sh", "-server", ZK.hosts],
                       input="\n".join(commands) + "\nquit\n", capture_output=True, text=True,
                       timeout=60)
    return r.stdout + r.stderr


class ZooKeeperAcl(unittest.TestCase):
    """ha.zookeeper_auth_file: the daemon's nodes carry a digest ACL; a ZooKeeper client
    without the credential can neither read nor change them; the folder above stays open."""
    ROOT = "/acl/cluster"

    def auth_file(self, name, text):
        path = os.path.join(TMP, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def start(self, n, auth_path):
        return Instance(TMP, n, ZK.hosts, path=self.ROOT,
                        extra=["ha.zookeeper_auth_file=" + auth_path])

    def test_nodes_refuse_a_client_without_the_credential(self):
        inst = self.start(10, self.auth_file("zk-auth", "locsched:zk-password-0123\n"))
        try:
            inst.wait_role("active")
            refused = zk_cli(["get %s/epoch" % self.ROOT, "ls %s" % self.ROOT,
                              "create %s/intruder x" % self.ROOT, "set %s/epoch 9" % self.ROOT,
                              "ls %s/log" % self.ROOT, "ls /acl"])
            for path in ("%s/epoch" % self.ROOT, self.ROOT, "%s/intruder" % self.ROOT,
                         "%s/log" % self.ROOT):
                self.assertIn("Insufficient permission : " + path, refused)
            self.assertIn("[cluster]", refused)  # the folder above is left open
            allowed = zk_cli(["addauth digest locsched:zk-password-0123", "ls " + self.ROOT,
                              "getAcl %s/log" % self.ROOT])
            self.assertIn("[election, epoch, log, snapshots]", allowed)
            self.assertIn("'digest,'locsched:", allowed)
            self.assertNotIn("'world,'anyone", allowed)
            # The instance still works under its ACL: a write is committed.
            out = subprocess.run([CTL, "--socket", inst.control, "snapshot"],
                                 capture_output=True, text=True, timeout=30)
            self.assertEqual(out.returncode, 0, out.stderr)
            # Another credential is refused at start, naming the key.
            other = self.start(11, self.auth_file("zk-other", "locsched:another-password\n"))
            self.assertEqual(other.proc.wait(timeout=30), 1)
            other.stop()
            with open(other.log.name) as f:
                log = f.read()
            self.assertIn("ha.zookeeper_auth_file", log)
            self.assertIn("ZooKeeper refused access", log)
        finally:
            inst.stop()

    def test_a_bad_credential_file_is_named(self):
        for name, text, want in (("zk-none", None, "No such file or directory"),
                                 ("zk-bad", "no-colon-here\n", "USER:PASSWORD"),
                                 ("zk-empty-password", "locsched:\n", "USER:PASSWORD")):
            path = os.path.join(TMP, name) if text is None else self.auth_file(name, text)
            inst = self.start(20, path)
            self.assertEqual(inst.proc.wait(timeout=30), 1)
            inst.stop()
            with open(inst.log.name) as f:
                log = f.read()
            self.assertIn("ha.zookeeper_auth_file: %s: " % path, log)
            self.assertIn(want, log)
            os.unlink(inst.log.name)


if __name__ == "__main__":
    if len(sys.argv) < 5:
        sys.exit("usage: ha_errors_test.py LOCSCHEDD LOCSCHEDCTL LOCSCHED-TAIL LOCSCHED-AGENTS "
                 "[unittest options]")
    DAEMON, CTL, TAIL, AGENTS = sys.argv[1:5]
    unittest.main(argv=[sys.argv[0]] + sys.argv[5:])
