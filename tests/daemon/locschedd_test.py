#!/usr/bin/python3
"""Black-box tests of locschedd: each test starts the real daemon on sockets in
a temporary directory and talks to it over them.

Usage: locschedd_test.py /path/to/locschedd [unittest options]
LOCSCHED_SOURCE_DIR (set by CTest) locates docs/protocol.md for the replay test.
"""
import json
import os
import pathlib
import random
import signal
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import warnings

DAEMON = None  # set from the command line in __main__
SOURCE = pathlib.Path(os.environ.get("LOCSCHED_SOURCE_DIR",
                                     pathlib.Path(__file__).resolve().parents[2]))


def daemon_argv(event, control, *sets):
    """locschedd's command line on the given sockets, logging to stderr, plus `sets`
    (each a KEY=VALUE for --set)."""
    argv = [DAEMON, "--set", "sockets.event_path=" + event,
            "--set", "sockets.control_path=" + control, "--set", "log.target=stderr"]
    for s in sets:
        argv += ["--set", s]
    return argv


class Daemon:
    """A locschedd on temporary sockets; extra `--set` overrides in `sets`."""

    def __init__(self, sets=(), config=None):
        self.dir = tempfile.TemporaryDirectory(prefix="locschedd-test-")
        self.event = os.path.join(self.dir.name, "events.sock")
        self.control = os.path.join(self.dir.name, "control.sock")
        argv = daemon_argv(self.event, self.control, *sets)
        if config:
            argv += ["--config", config]
        self.stderr = open(os.path.join(self.dir.name, "stderr.log"), "w+")
        self.proc = subprocess.Popen(argv, stderr=self.stderr)
        self.wait_for(lambda: os.path.exists(self.control), "sockets to appear")

    def wait_for(self, cond, what, timeout=10):
        end = time.time() + timeout
        while time.time() < end:
            if cond():
                return
            if self.proc.poll() is not None:
                raise AssertionError("locschedd exited early: " + self.log())
            time.sleep(0.01)
        raise AssertionError("timed out waiting for " + what)

    def log(self):
        self.stderr.flush()
        self.stderr.seek(0)
        return self.stderr.read()

    def connect(self, control=False):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(10)
        s.connect(self.control if control else self.event)
        return Client(s)

    def stop(self):
        """Stops the daemon with SIGTERM; a non-zero exit (a sanitizer report,
        a leak) fails the test that owns it."""
        rc = None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            rc = self.proc.wait(timeout=10)
        log = self.log()
        self.stderr.close()
        self.dir.cleanup()
        if rc not in (None, 0):
            raise AssertionError("locschedd exited %d:\n%s" % (rc, log[-4000:]))


class Client:
    def __init__(self, sock):
        self.sock = sock
        self.buf = b""

    def send_raw(self, data):
        self.sock.sendall(data)

    def read_line(self):
        while b"\n" not in self.buf:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise EOFError("connection closed; buffered: %r" % self.buf[:200])
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def call(self, req):
        self.send_raw((req if isinstance(req, str) else json.dumps(req)).encode() + b"\n")
        return self.read_line()

    def close(self):
        self.sock.close()


class DirectoryEvents:
    """inotify on one directory: the names created in it or renamed into it."""
    IN_CREATE, IN_MOVED_TO = 0x100, 0x80

    def __init__(self, path):
        import ctypes
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.fd = self.libc.inotify_init1(os.O_NONBLOCK)
        assert self.fd >= 0 and self.libc.inotify_add_watch(
            self.fd, path.encode(), self.IN_CREATE | self.IN_MOVED_TO) >= 0
        self.seen = []

    def until(self, done, proc, timeout=10):
        end = time.time() + timeout
        while not done(self.seen):
            assert time.time() < end and proc.poll() is None, "events so far: %s" % self.seen
            try:
                data = os.read(self.fd, 4096)
            except BlockingIOError:
                time.sleep(0.005)
                continue
            while data:
                _, mask, _, size = struct.unpack_from("iIII", data)
                name = data[16:16 + size].rstrip(b"\0").decode()
                self.seen.append(("create" if mask & self.IN_CREATE else "moved_to", name))
                data = data[16 + size:]
        return self.seen

    def close(self):
        os.close(self.fd)


class DaemonTest(unittest.TestCase):
    sets = ()

    def setUp(self):
        self.d = Daemon(self.sets)
        self.c = self.d.connect()

    def tearDown(self):
        self.c.close()
        self.d.stop()

    def ok(self, req, client=None):
        r = (client or self.c).call(req)
        self.assertTrue(r["ok"], "%s -> %s" % (req, r))
        return r

    def err(self, req, client=None):
        r = (client or self.c).call(req)
        self.assertFalse(r["ok"], "%s -> %s" % (req, r))
        return r["error"]


def transcript():
    """The request/reply pairs of docs/protocol.md, in order: '→ ' lines are
    sent on the event socket ('⇒ ' on the control socket), each followed by its
    '← ' reply. A reply value "<varies>" matches anything."""
    pairs, pending = [], None
    for raw in (SOURCE / "docs" / "protocol.md").read_text().splitlines():
        line = raw.strip()
        if line.startswith(("→ ", "⇒ ")):
            pending = (line.startswith("⇒"), line[2:])
        elif line.startswith("← "):
            assert pending, "a reply without a request: " + line
            pairs.append((pending[0], pending[1], json.loads(line[2:])))
            pending = None
    return pairs


def matches(expected, actual):
    if expected == "<varies>":
        return True
    if isinstance(expected, dict):
        return (isinstance(actual, dict) and expected.keys() == actual.keys()
                and all(matches(v, actual[k]) for k, v in expected.items()))
    if isinstance(expected, list):
        return (isinstance(actual, list) and len(expected) == len(actual)
                and all(matches(e, a) for e, a in zip(expected, actual)))
    return expected == actual


class ProtocolDoc(DaemonTest):
    sets = ("scheduler.policy=jsq-maxweight",)  # the conversation includes a rebalance

    def test_docs_examples_replay_verbatim(self):
        pairs = transcript()
        self.assertGreater(len(pairs), 15)
        ctl = self.d.connect(control=True)
        for control, request, expected in pairs:
            actual = (ctl if control else self.c).call(request)
            self.assertTrue(matches(expected, actual),
                            "\nrequest:  %s\nexpected: %s\nactual:   %s" % (
                                request, json.dumps(expected), json.dumps(actual)))
        ctl.close()


class Lifecycle(DaemonTest):
    def submit(self, job, n, replicas, kind="map"):
        tasks = [{"task": "t%d" % i, "replicas": replicas, "kind": kind} for i in range(n)]
        return self.ok({"op": "job_submit", "job": job, "tasks": tasks})

    def test_every_task_of_many_jobs_finishes_exactly_once(self):
        for m in range(4):
            self.ok({"op": "machine_up", "machine": "m%d" % m, "slots": 2})
        for j in range(10):
            self.submit("j%d" % j, 5, ["m%d" % (j % 4)])
        done = 0
        while done < 50:
            for m in range(4):
                r = self.ok({"op": "heartbeat", "machine": "m%d" % m, "free_slots": 2})
                for a in r["assign"]:
                    self.ok({"op": "task_done", "job": a["job"], "task": a["task"],
                             "machine": "m%d" % m})
                    done += 1
        s = self.ok({"op": "status"})
        self.assertEqual(s["jobs"]["done"], 10)
        self.assertEqual(s["tasks"]["done"], 50)
        self.assertEqual(s["tasks"]["queued"] + s["tasks"]["running"], 0)

    def test_machine_down_requeues_and_nothing_is_lost(self):
        self.ok({"op": "machine_up", "machine": "a", "slots": 3})
        self.ok({"op": "machine_up", "machine": "b", "slots": 3})
        self.submit("j", 3, ["a"])
        self.assertEqual(len(self.ok({"op": "heartbeat", "machine": "a", "free_slots": 3})["assign"]), 3)
        self.assertEqual(self.ok({"op": "machine_down", "machine": "a"})["requeued"], 3)
        got = self.ok({"op": "heartbeat", "machine": "b", "free_slots": 3})["assign"]
        self.assertEqual(sorted(a["task"] for a in got), ["t0", "t1", "t2"])

    def test_pipelined_requests_get_replies_in_order(self):
        lines = "".join(json.dumps({"op": "machine_up", "machine": "m%d" % i}) + "\n"
                        for i in range(2000))
        self.c.send_raw(lines.encode())
        for i in range(2000):
            self.assertEqual(self.c.read_line(), {"ok": True, "new": True})
        self.assertEqual(self.ok({"op": "status"})["machines"]["up"], 2000)


class LpResolve(DaemonTest):
    """resolve_lp solves on the worker thread; its order reaches the priority policy."""
    sets = ("scheduler.policy=jsq-maxweight", "scheduler.machine_queue_order=priority")

    def submit(self, job, n, weight):
        tasks = [{"task": "t%d" % i, "replicas": ["m0"]} for i in range(n)]
        return self.ok({"op": "job_submit", "job": job, "weight": weight, "tasks": tasks})

    def wait_solves(self, ctl, n):
        end = time.time() + 10
        while time.time() < end:
            lp = self.ok({"op": "status"}, ctl)["lp"]
            if lp["solves"] >= n and not lp["busy"]:
                return lp
            time.sleep(0.02)
        self.fail("no LP solve finished: %s" % lp)

    def test_resolve_lp_orders_a_small_heavy_job_first(self):
        for m in ("m0", "m1"):
            self.ok({"op": "machine_up", "machine": m})
        self.submit("big", 20, 1)
        self.submit("small", 2, 5)
        ctl = self.d.connect(control=True)
        r = self.ok({"op": "resolve_lp"}, ctl)
        self.assertTrue(r["started"])
        lp = self.wait_solves(ctl, 1)
        self.assertEqual(lp["ordered_jobs"], 2)
        self.assertTrue(lp["applied"])
        self.assertGreater(lp["columns"], 0)
        self.assertIsNotNone(lp["load"])
        got = self.ok({"op": "heartbeat", "machine": "m0", "free_slots": 1})["assign"]
        self.assertEqual([a["job"] for a in got], ["small"])
        text = self.ok({"op": "metrics"}, ctl)["text"]
        for name in ("locsched_lp_solve_seconds ", "locsched_lp_rows ", "locsched_lp_columns ",
                     "locsched_lp_objective ", "locsched_lp_order_age_seconds ",
                     "locsched_capacity_load "):
            self.assertIn(name, text)
        e = self.c.call({"op": "resolve_lp"})
        self.assertEqual(e["error"]["field"], "op")  # not on the event socket
        ctl.close()

    def test_resolve_lp_is_refused_when_the_lp_is_off(self):
        d = Daemon(["lp.enabled=false"])
        try:
            ctl = d.connect(control=True)
            e = ctl.call({"op": "resolve_lp"})
            self.assertEqual(e["error"]["field"], "lp.enabled")
            self.assertNotIn("lp", ctl.call({"op": "status"}))
            ctl.close()
        finally:
            d.stop()


class BadInput(DaemonTest):
    sets = ("limits.max_line_bytes=4096", "limits.max_clients=16")

    def test_each_bad_line_gets_an_error_naming_the_field(self):
        cases = [
            ("{not json", "request", "request: is not valid JSON"),
            ("{}", "op", "op: is required"),
            ('{"op":"hearbeat"}', "op",
             "op: unknown operation 'hearbeat'; did you mean 'heartbeat'?"),
            ('{"op":"queues","top":2}', "op", "op: `queues` was split: per-machine queues are "
             "`machine_queues`, tenant queues are `queue`"),
            ('{"op":"heartbeat","machine":"a"}', "free_slots", "free_slots: is required"),
            ('{"op":"heartbeat","machine":"a","free_slots":"2"}', "free_slots", None),
            ('{"op":"heartbeat","machine":"nope","free_slots":1}', "machine",
             "machine: unknown machine 'nope'"),
            ('{"op":"task_done","job":"nope","task":"x"}', "job", "job: unknown job 'nope'"),
            ('{"op":"job_cancel","job":"nope"}', "job", None),
            ('[1,2,3]', "request", None),
            ('"just a string"', "request", None),
            ('{"op":"status","op":"status"}', "op", "op: appears twice"),
            ('{"op":"heartbeat","machine":"a","machine":"b","free_slots":1}', "machine", None),
        ]
        for line, field, message in cases:
            e = self.err(line)
            self.assertEqual(e["field"], field, line)
            if message:
                self.assertEqual(e["message"], message, line)
        self.ok({"op": "status"})  # the connection is still usable

    def test_duplicate_task_ids_and_unknown_replicas(self):
        self.ok({"op": "machine_up", "machine": "a"})
        e = self.err({"op": "job_submit", "job": "j", "tasks": [
            {"task": "x", "replicas": ["a"]}, {"task": "x", "replicas": ["a"]}]})
        self.assertEqual(e["message"], "tasks[1].task: duplicate task 'x'")
        e = self.err({"op": "job_submit", "job": "j", "tasks": [{"task": "x", "replicas": ["b"]}]})
        self.assertEqual(e["field"], "tasks[0].replicas[0]")
        self.assertEqual(self.ok({"op": "status"})["jobs"]["live"], 0)  # nothing half-applied

    def test_an_oversized_line_is_refused_and_the_next_line_served(self):
        self.c.send_raw(b'{"op":"status","pad":"' + b"x" * 100000 + b'"}\n')
        e = self.c.read_line()["error"]
        self.assertEqual(e["field"], "limits.max_line_bytes")
        self.assertIn("4096", e["message"])
        self.ok({"op": "status"})

    def test_binary_garbage_and_nul_bytes(self):
        self.c.send_raw(bytes(range(256)).replace(b"\n", b"") + b"\n")
        self.assertEqual(self.c.read_line()["error"]["field"], "request")
        self.c.send_raw(b'{"op":"status"}\x00\n')
        self.assertFalse(self.c.read_line()["ok"])
        self.ok({"op": "status"})

    def test_a_flood_of_clients_is_refused_past_the_limit(self):
        clients = [self.d.connect() for _ in range(15)]  # 16 with self.c
        extra = self.d.connect()
        e = extra.read_line()["error"]
        self.assertEqual(e["field"], "limits.max_clients")
        for c in clients:
            self.ok({"op": "status"}, c)
        for c in clients:
            c.close()
        # The daemon sees the closes when its loop next runs: retry until it has.
        end = time.time() + 10
        while True:
            again = self.d.connect()
            try:
                r = again.call({"op": "status"})
            except (OSError, EOFError) as e:  # refused and closed before the request went
                r = {"ok": False, "error": {"field": "limits.max_clients", "raised": str(e)}}
            again.close()
            if r["ok"] or time.time() > end:
                break
            self.assertEqual(r["error"]["field"], "limits.max_clients")
            time.sleep(0.02)
        self.assertTrue(r["ok"], r)

    def test_a_client_that_never_reads_does_not_stall_others(self):
        hog = self.d.connect()
        hog.sock.setblocking(False)
        line = (json.dumps({"op": "help"}) + "\n").encode() * 2000
        sent = 0
        try:
            for _ in range(2000):  # until its socket buffers are full
                sent += hog.sock.send(line)
        except BlockingIOError:
            pass
        self.assertGreater(sent, 0)
        start = time.time()
        self.ok({"op": "status"})
        self.assertLess(time.time() - start, 2.0)
        hog.close()
        self.ok({"op": "status"})

    def test_abrupt_disconnects_mid_line(self):
        for _ in range(50):
            c = self.d.connect()
            c.send_raw(b'{"op":"job_submit","job":"j","tas')
            c.close()
        self.ok({"op": "status"})


class Sockets(unittest.TestCase):
    def test_modes_are_applied_and_files_removed_on_stop(self):
        d = Daemon(["sockets.event_mode=0620", "sockets.control_mode=0600"])
        self.assertEqual(stat.S_IMODE(os.stat(d.event).st_mode), 0o620)
        self.assertEqual(stat.S_IMODE(os.stat(d.control).st_mode), 0o600)
        d.proc.send_signal(signal.SIGTERM)
        self.assertEqual(d.proc.wait(timeout=10), 0)
        self.assertFalse(os.path.exists(d.event))
        d.stop()

    def test_a_second_daemon_on_the_same_socket_is_refused(self):
        d = Daemon()
        try:
            r = subprocess.run(daemon_argv(d.event, d.control + "2"),
                               capture_output=True, text=True, timeout=10)
            self.assertEqual(r.returncode, 1)
            self.assertIn("sockets.event_path", r.stderr)
            self.assertIn("in use", r.stderr)
            d.connect().call({"op": "status"})  # the first one is unharmed
        finally:
            d.stop()

    def test_a_stale_socket_file_is_replaced(self):
        d = Daemon()
        d.proc.kill()
        d.proc.wait()
        self.assertTrue(os.path.exists(d.event))  # left behind by kill -9
        d2 = subprocess.Popen(daemon_argv(d.event, d.control), stderr=subprocess.PIPE)
        try:
            deadline = time.time() + 10
            while True:
                try:
                    c = d.connect()
                    self.assertTrue(c.call({"op": "status"})["ok"])
                    break
                except (ConnectionRefusedError, FileNotFoundError):
                    self.assertLess(time.time(), deadline)
                    time.sleep(0.02)
        finally:
            d2.terminate()
            d2.wait(timeout=10)
            d.stop()

    def test_control_socket_refused_a_client_that_found_its_file(self):
        """Regression: the socket file appeared at bind, before listen and chmod,
        so a client that waited for the file could be refused. Each socket now
        enters its directory by a rename, never by a create."""
        tmp = tempfile.TemporaryDirectory(prefix="locschedd-test-")
        names = DirectoryEvents(tmp.name)
        event, control = os.path.join(tmp.name, "e.sock"), os.path.join(tmp.name, "c.sock")
        proc = subprocess.Popen(daemon_argv(event, control), stderr=subprocess.DEVNULL)
        try:
            seen = names.until(lambda got: ("moved_to", "c.sock") in got, proc)
            self.assertNotIn(("create", "e.sock"), seen)
            self.assertNotIn(("create", "c.sock"), seen)
            self.assertIn(("moved_to", "e.sock"), seen)
            self.assertEqual(sorted(os.listdir(tmp.name)), ["c.sock", "e.sock"])
        finally:
            proc.terminate()
            self.assertEqual(proc.wait(timeout=10), 0)
            names.close()
            tmp.cleanup()

    def test_a_socket_that_cannot_get_its_group_leaves_no_file(self):
        tmp = tempfile.TemporaryDirectory(prefix="locschedd-test-")
        r = subprocess.run(daemon_argv(tmp.name + "/e.sock", tmp.name + "/c.sock",
                                       "sockets.event_group=no-such-group-locsched"),
                           capture_output=True, text=True, timeout=10)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("sockets.event_group", r.stderr)
        self.assertEqual(os.listdir(tmp.name), [])
        tmp.cleanup()

    def test_a_socket_path_past_103_bytes_is_refused_naming_the_key(self):
        tmp = tempfile.TemporaryDirectory(prefix="locschedd-test-")
        long_path = os.path.join(tmp.name, "c" * (104 - len(tmp.name) - 1))
        self.assertEqual(len(long_path), 104)
        r = subprocess.run(daemon_argv(tmp.name + "/e.sock", long_path),
                           capture_output=True, text=True, timeout=10)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("sockets.control_path", r.stderr)
        self.assertIn("103 bytes", r.stderr)
        self.assertEqual(os.listdir(tmp.name), [])
        tmp.cleanup()

    @unittest.skipUnless(os.geteuid() == 0, "needs root to connect as another uid")
    def test_admin_commands_need_an_authorized_peer(self):
        """One rule per op: an admin op the event socket accepts (job_cancel,
        machine_drain, machine_down) is refused to a peer that is no operator there
        too, while its events and reads are served."""
        d = Daemon(["sockets.event_mode=0666"])
        os.chmod(d.dir.name, 0o755)
        try:
            d.connect().call({"op": "machine_up", "machine": "m0"})
            script = ("import socket,os;os.setuid(65534);s=socket.socket(socket.AF_UNIX);"
                      "s.connect(%r);s.sendall(b'{\"op\":\"job_cancel\",\"job\":\"x\"}\\n"
                      "{\"op\":\"machine_drain\",\"machine\":\"m0\"}\\n"
                      "{\"op\":\"machine_down\",\"machine\":\"m0\"}\\n"
                      "{\"op\":\"status\"}\\n');import time;time.sleep(0.3);"
                      "print(s.recv(65536).decode())" % d.event)
            out = subprocess.run([sys.executable, "-c", script], capture_output=True,
                                 text=True, timeout=10).stdout.splitlines()
            for line in out[:3]:
                self.assertEqual(json.loads(line)["error"]["code"], "permission_denied", line)
            self.assertTrue(json.loads(out[3])["ok"])
            self.assertEqual(json.loads(out[3])["machines"]["up"], 1)
            e = d.connect().call({"op": "job_cancel", "job": "x"})
            self.assertEqual(e["error"]["code"], "not_found")  # root passes the check
        finally:
            d.stop()


class Reload(unittest.TestCase):
    def write(self, text):
        pathlib.Path(self.cfg).write_text(text)

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.cfg = os.path.join(self.tmp.name, "locsched.toml")
        self.write("[limits]\nmax_line_bytes = 4096\n")
        self.d = Daemon(config=self.cfg)

    def tearDown(self):
        self.d.stop()
        self.tmp.cleanup()

    def test_sighup_applies_a_reloadable_key(self):
        c = self.d.connect()
        big = '{"op":"status","pad":"' + "x" * 5000 + '"}'
        self.assertEqual(c.call(big)["error"]["field"], "limits.max_line_bytes")
        self.write("[limits]\nmax_line_bytes = 65536\n")
        self.d.proc.send_signal(signal.SIGHUP)
        self.d.wait_for(lambda: "reloaded" in self.d.log(), "the reload")
        self.assertEqual(c.call(big)["error"]["field"], "pad")  # now past the limit check

    def test_reload_refuses_a_non_reloadable_change_and_keeps_running(self):
        ctl = self.d.connect(control=True)
        self.write("[scheduler]\npolicy = \"fifo\"\n")
        e = ctl.call({"op": "reload"})["error"]
        self.assertIn("scheduler.policy", e["message"])
        self.write("[scheduler]\nalpha = 0.9\n")
        changed = ctl.call({"op": "reload"})["changed"]
        self.assertEqual(sorted(changed), ["limits.max_line_bytes", "scheduler.alpha"])
        self.assertAlmostEqual(ctl.call({"op": "status"})["rates"]["alpha"], 0.9)

    def test_every_refused_reload_is_logged_with_the_key(self):
        ctl = self.d.connect(control=True)
        self.write("[limits]\ndedupe_window = 5\n")
        self.assertIn("limits.dedupe_window", ctl.call({"op": "reload"})["error"]["message"])
        self.d.wait_for(lambda: "reload refused: limits.dedupe_window" in self.d.log(),
                        "the refusal in the log")
        self.write("[scheduler]\nalpha = 2e9\n")
        self.d.proc.send_signal(signal.SIGHUP)
        self.d.wait_for(lambda: "reload refused: " in self.d.log() and
                        "scheduler.alpha" in self.d.log(), "the SIGHUP refusal in the log")

    def test_a_broken_file_is_refused_with_its_position(self):
        ctl = self.d.connect(control=True)
        self.write("[scheduler]\nalpah = 0.9\n")
        e = ctl.call({"op": "reload"})["error"]
        self.assertIn("scheduler.alpah: unknown key; did you mean 'scheduler.alpha'?", e["message"])
        self.assertTrue(ctl.call({"op": "status"})["ok"])


class CheckConfig(unittest.TestCase):
    def test_non_regular_files_are_refused_at_once(self):
        tmp = tempfile.TemporaryDirectory()
        fifo = os.path.join(tmp.name, "fifo")
        os.mkfifo(fifo)
        for path, what in (("/tmp", "is a directory"), ("/dev/zero", "is a character device"),
                           (fifo, "is a FIFO")):
            out = subprocess.run([DAEMON, "--check-config", path], capture_output=True,
                                 text=True, timeout=10)
            self.assertEqual(out.returncode, 1, out.stdout)
            self.assertIn(path + ": " + what, out.stderr)
        tmp.cleanup()

    def test_a_world_writable_control_socket_is_refused(self):
        out = subprocess.run([DAEMON, "--set", "sockets.control_mode=0777"],
                             capture_output=True, text=True, timeout=10)
        self.assertEqual(out.returncode, 1)
        self.assertIn("sockets.control_mode", out.stderr)


class Stop(unittest.TestCase):
    def test_sigterm_answers_what_was_sent_then_exits_zero(self):
        d = Daemon()
        c = d.connect()
        c.send_raw(b"".join(json.dumps({"op": "machine_up", "machine": "m%d" % i}).encode() + b"\n"
                            for i in range(500)))
        self.assertTrue(c.read_line()["ok"])
        d.proc.send_signal(signal.SIGTERM)
        self.assertEqual(d.proc.wait(timeout=10), 0)
        self.assertIn("stopping", d.log())
        d.stop()

    def test_sigterm_with_a_client_that_never_reads_still_exits(self):
        d = Daemon()
        hog = d.connect()
        hog.sock.setblocking(False)
        try:
            for _ in range(5000):
                hog.sock.send((json.dumps({"op": "help"}) + "\n").encode() * 100)
        except BlockingIOError:
            pass
        start = time.time()
        d.proc.send_signal(signal.SIGTERM)
        self.assertEqual(d.proc.wait(timeout=10), 0)
        self.assertLess(time.time() - start, 5)
        d.stop()


class Systemd(unittest.TestCase):
    """sd_notify over a NOTIFY_SOCKET of our own, as systemd would provide it."""

    def test_ready_status_watchdog_and_stopping_are_notified(self):
        tmp = tempfile.TemporaryDirectory()
        path = os.path.join(tmp.name, "notify.sock")
        sink = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sink.bind(path)
        sink.settimeout(10)
        env = dict(os.environ, NOTIFY_SOCKET=path, WATCHDOG_USEC="200000")
        ev, ctl = os.path.join(tmp.name, "e.sock"), os.path.join(tmp.name, "c.sock")
        proc = subprocess.Popen(daemon_argv(ev, ctl), env=env, stderr=subprocess.DEVNULL)
        messages = []

        def until(word, times=1):
            while sum(word in m for m in messages) < times:
                messages.append(sink.recv(4096).decode())

        try:
            until("READY=1")
            self.assertTrue(any("STATUS=queued 0" in m for m in messages), messages)
            start = time.time()
            until("WATCHDOG=1", times=3)  # every 100 ms: half of WATCHDOG_USEC
            self.assertGreater(time.time() - start, 0.15)
            proc.send_signal(signal.SIGTERM)
            until("STOPPING=1")
            self.assertEqual(proc.wait(timeout=10), 0)
        finally:
            if proc.poll() is None:
                proc.kill()
            sink.close()
            tmp.cleanup()


class CommandLine(unittest.TestCase):
    def test_check_config_explains_a_good_file(self):
        r = subprocess.run([DAEMON, "--check-config", str(SOURCE / "config" / "locsched.toml")],
                           capture_output=True, text=True, timeout=10)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("scheduler.alpha", r.stdout)

    def test_check_config_names_the_bad_key(self):
        with tempfile.NamedTemporaryFile("w", suffix=".toml") as f:
            f.write("[limits]\nmax_clients = -1\n")
            f.flush()
            r = subprocess.run([DAEMON, "--check-config", f.name], capture_output=True, text=True)
        self.assertEqual(r.returncode, 1)
        self.assertIn("limits.max_clients", r.stderr)

    def test_set_with_an_unknown_key_suggests_one(self):
        r = subprocess.run([DAEMON, "--set", "scheduler.alpah=0.5"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 1)
        self.assertIn("did you mean 'scheduler.alpha'?", r.stderr)

    def test_help_lists_the_flags(self):
        r = subprocess.run([DAEMON, "--help"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0)
        for flag in ("--config", "--set", "--check-config"):
            self.assertIn(flag, r.stdout)


class Rebalance(DaemonTest):
    sets = ("scheduler.policy=jsq-maxweight", "rebalance.enabled=true",
            "rebalance.base_interval_ms=20", "rebalance.big_job_tasks=100",
            "rebalance.max_share=0.5")

    def runs(self):
        return self.ok({"op": "status"})["rebalance"]["runs"]

    def test_forced_and_big_job_rebalances_keep_every_task_exactly_once(self):
        rng = random.Random(5)
        for m in range(8):
            self.ok({"op": "machine_up", "machine": "m%d" % m, "slots": 2})
        tasks = [{"task": "t%d" % i, "replicas": ["m%d" % r for r in rng.sample(range(8), 2)]}
                 for i in range(300)]
        self.ok({"op": "job_submit", "job": "big", "tasks": tasks})  # a big job: a run follows
        last = lambda: self.ok({"op": "status"})["rebalance"]["last"]
        self.d.wait_for(lambda: last()["trigger"] == "big_job", "a rebalance after the big job")
        self.assertEqual(last()["backlog"], 300)
        ctl = self.d.connect(control=True)
        before = self.runs()
        r = self.ok({"op": "rebalance"}, ctl)
        self.assertIn("started", r)
        self.d.wait_for(lambda: self.runs() > before, "the forced rebalance to end")
        self.assertEqual(self.err({"op": "rebalance"})["code"], "failed_precondition")  # event socket
        s = self.ok({"op": "status"})
        self.assertEqual(s["tasks"]["queued"], 300)
        self.assertEqual(s["rebalance"]["last"]["backlog"], 300)
        q = self.ok({"op": "machine_queues", "top": 8})
        self.assertEqual(q["remote"] + sum(e["length"] for e in q["longest"]), 300)
        metrics = self.ok({"op": "metrics"})["text"]
        self.assertIn("locsched_rebalance_runs_total", metrics)
        self.assertIn("locsched_rebalance_locality_after", metrics)
        # Every task runs once, local wherever its queue said so.
        done = set()
        while len(done) < 300:
            for m in range(8):
                for a in self.ok({"op": "heartbeat", "machine": "m%d" % m, "free_slots": 2})["assign"]:
                    self.assertNotIn(a["task"], done)
                    done.add(a["task"])
                    self.ok({"op": "task_done", "job": a["job"], "task": a["task"]})
        self.assertEqual(self.ok({"op": "status"})["jobs"]["done"], 1)
        ctl.close()


class RebalanceOtherPolicy(DaemonTest):
    sets = ("scheduler.policy=fair",)

    def test_rebalance_needs_jsq_maxweight(self):
        ctl = self.d.connect(control=True)
        e = self.err({"op": "rebalance"}, ctl)
        self.assertEqual(e["field"], "scheduler.policy")
        self.assertNotIn("rebalance", self.ok({"op": "status"}))
        ctl.close()


class Journal(unittest.TestCase):
    def test_a_journal_past_snapshot_mb_is_snapshotted_and_recovers(self):
        """The commit step syncs each pipelined burst once, snapshots when the
        journal passes journal.snapshot_mb, and a killed daemon recovers it all."""
        tmp = tempfile.TemporaryDirectory(prefix="locschedd-journal-")
        sets = ("journal.path=" + os.path.join(tmp.name, "journal"), "journal.snapshot_mb=1")
        d = Daemon(sets)
        c = d.connect()
        c.call({"op": "machine_up", "machine": "m0", "slots": 4})
        pad = "x" * 200  # about 300 bytes a record: 1 MiB in about 3,500 events
        for burst in range(10):
            lines = [json.dumps({"op": "job_submit", "id": "b%d-%d" % (burst, i),
                                 "job": "j%d-%d-%s" % (burst, i, pad),
                                 "tasks": [{"task": "t", "replicas": ["m0"]}]})
                     for i in range(500)]
            c.send_raw(("\n".join(lines) + "\n").encode())
            for _ in lines:
                self.assertTrue(c.read_line()["ok"])
        d.wait_for(lambda: "snapshot 1:" in d.log(), "an automatic snapshot")
        before = c.call({"op": "status"})
        c.close()
        d.proc.kill()  # no clean-stop snapshot: recovery needs the journal after it
        d.proc.wait()
        d.stderr.close()
        d.dir.cleanup()
        d2 = Daemon(sets)
        try:
            c2 = d2.connect()
            after = c2.call({"op": "status"})
            self.assertEqual(after["jobs"], before["jobs"])
            self.assertEqual(after["tasks"], before["tasks"])
            again = c2.call({"op": "job_submit", "id": "b0-0", "job": "j0-0-" + pad,
                             "tasks": [{"task": "t", "replicas": ["m0"]}]})
            self.assertTrue(again.get("duplicate"), again)
            c2.close()
        finally:
            d2.stop()
            tmp.cleanup()


if __name__ == "__main__":
    DAEMON = sys.argv.pop(1)
    warnings.simplefilter("ignore", ResourceWarning)  # sockets the daemon closes under us
    unittest.main()
