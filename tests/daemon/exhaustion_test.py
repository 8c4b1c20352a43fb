#!/usr/bin/python3
"""Fault tests of locschedd's connections: running out of file descriptors, clients
that never read, idle clients, and each socket's own client limit. Each starts the real
daemon (tests/daemon/locschedd_test.py's rig) and checks, from outside, that nobody is
locked out, nothing spins and memory stays bounded.

Usage: exhaustion_test.py /path/to/locschedd [unittest options]
"""
import json
import os
import resource
import socket
import subprocess
import sys
import time
import unittest

import locschedd_test as rig


def cpu_seconds(pid):
    """User plus system CPU time of process pid so far."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class LimitedDaemon(rig.Daemon):
    """The rig's daemon started under RLIMIT_NOFILE = nofile (soft and hard)."""

    def __init__(self, sets=(), nofile=None):
        if nofile is None:
            super().__init__(sets)
            return
        real_popen = subprocess.Popen

        def popen(argv, **kw):
            kw["preexec_fn"] = lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
            return real_popen(argv, **kw)
        subprocess.Popen = popen
        try:
            super().__init__(sets)
        finally:
            subprocess.Popen = real_popen


def send(sock, data):
    """Sends what the peer still takes: a refused client may be closed before it writes."""
    try:
        sock.sendall(data)
    except (BrokenPipeError, ConnectionResetError):
        pass


def answer(sock, timeout=10):
    """The first reply line on sock, parsed, or None if it closed without one."""
    sock.settimeout(timeout)
    data = b""
    while b"\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return None
        data += chunk
    return json.loads(data.split(b"\n", 1)[0])


class ClientLimits(unittest.TestCase):
    def test_operators_reach_the_control_socket_while_the_event_socket_is_full(self):
        d = rig.Daemon(["limits.max_clients=3", "limits.max_control_clients=2"])
        try:
            agents = [d.connect() for _ in range(3)]
            for a in agents:
                self.assertTrue(a.call({"op": "status"})["ok"])
            extra = d.connect()
            e = extra.read_line()
            self.assertEqual(e["error"]["field"], "limits.max_clients")
            self.assertIn("event socket", e["error"]["message"])
            ctl = d.connect(control=True)
            s = ctl.call({"op": "status"})
            self.assertEqual(s["daemon"]["clients"], 4)
            ctl2 = d.connect(control=True)
            self.assertTrue(ctl2.call({"op": "status"})["ok"])
            e = d.connect(control=True).read_line()
            self.assertEqual(e["error"]["field"], "limits.max_control_clients")
            # A freed event slot is served again.
            agents.pop().close()
            d.wait_for(lambda: ctl.call({"op": "status"})["daemon"]["clients"] == 4, "a close")
            self.assertTrue(d.connect().call({"op": "status"})["ok"])
        finally:
            d.stop()


class FdExhaustion(unittest.TestCase):
    def test_low_ulimit_clamps_the_limits_then_exhaustion_backs_off(self):
        """Under RLIMIT_NOFILE 64 the limits are clamped with a warning and 80 clients are
        each served or refused. Then the limit is cut below what is open: new clients get
        EMFILE at accept, and the daemon refuses them one by one without spinning, logging
        once per interval, and serves again once descriptors are back."""
        d = LimitedDaemon(nofile=64)
        try:
            self.assertIn("RLIMIT_NOFILE is 64", d.log())
            socks, served, refused = [], 0, 0
            for _ in range(80):
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(d.event)
                send(s, b'{"op":"status"}\n')
                socks.append(s)
            for s in socks:
                r = answer(s)
                self.assertIsNotNone(r)
                if r["ok"]:
                    served += 1
                else:
                    self.assertEqual(r["error"]["code"], "resource_exhausted", r)
                    refused += 1
            self.assertEqual(served + refused, 80)
            self.assertGreater(served, 0)
            self.assertGreater(refused, 0)
            # The daemon closes each refused client after its reply; wait for those closes
            # (EOF here), or descriptors freed after the cut let a late client in.
            for s in socks[served:]:
                s.settimeout(10)
                try:
                    self.assertEqual(s.recv(65536), b"", "a refused client was not closed")
                except ConnectionResetError:
                    pass  # closed with its request unread: closed all the same
            # Cut the descriptor limit to what is open now: the next accept fails.
            open_fds = len(os.listdir("/proc/%d/fd" % d.proc.pid))
            resource.prlimit(d.proc.pid, resource.RLIMIT_NOFILE, (open_fds, 64))
            for s in socks[served:]:
                s.close()  # the refused ones are closed by the daemon already
            cpu_before = cpu_seconds(d.proc.pid)
            start = time.time()
            late = []
            for _ in range(30):
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(d.event)
                send(s, b'{"op":"status"}\n')
                late.append(s)
            outcomes = [answer(s) for s in late]
            for r in outcomes:
                self.assertIsNotNone(r)
                self.assertFalse(r["ok"], r)
                self.assertEqual(r["error"]["field"], "RLIMIT_NOFILE", r)
            time.sleep(1)  # nothing queued now: an idle loop, not a spinning one
            elapsed = time.time() - start
            cpu = cpu_seconds(d.proc.pid) - cpu_before
            self.assertLess(cpu, 0.25 * elapsed, "%.2f s of CPU in %.2f s" % (cpu, elapsed))
            reports = d.log().count("cannot accept clients")
            self.assertGreaterEqual(reports, 1)
            self.assertLessEqual(reports, 1 + int(elapsed / 10))
            if os.environ.get("LOCSCHED_TEST_VERBOSE"):
                print("\nfd exhaustion: %d served, %d refused under 64 fds; 30 late clients "
                      "refused; %.3f s CPU in %.2f s; %d log reports"
                      % (served, refused, cpu, elapsed, reports), file=sys.stderr)
            # Descriptors back: served again.
            resource.prlimit(d.proc.pid, resource.RLIMIT_NOFILE, (64, 64))
            for s in late + socks[:served]:
                s.close()
            self.assertTrue(d.connect(control=True).call({"op": "status"})["ok"])
        finally:
            d.stop()


class SlowClients(unittest.TestCase):
    def test_a_client_that_never_reads_stalls_only_itself(self):
        d = rig.Daemon(["limits.client_buffer_bytes=65536", "limits.idle_timeout_s=2"])
        try:
            other = d.connect()
            other.call({"op": "status"})
            rss_before = rss_kib(d.proc.pid)
            hog = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            hog.connect(d.event)
            hog.setblocking(False)
            sent, request = 0, b'{"op":"help"}\n' * 200  # each reply is kilobytes
            deadline = time.time() + 1.5
            while time.time() < deadline:  # until the socket buffers are full
                try:
                    sent += hog.send(request)
                except BlockingIOError:
                    time.sleep(0.01)
            self.assertGreater(sent, 0)
            # The others are served while the hog is stuck.
            worst = 0
            for _ in range(100):
                t0 = time.time()
                self.assertTrue(other.call({"op": "status"})["ok"])
                worst = max(worst, time.time() - t0)
            self.assertLess(worst, 1.0)
            grown = rss_kib(d.proc.pid) - rss_before
            self.assertLess(grown, 32 * 1024, "RSS grew by %d KiB" % grown)
            if os.environ.get("LOCSCHED_TEST_VERBOSE"):
                print("\nslow client: %d bytes sent unread; others' worst reply %.1f ms over 100 "
                      "calls; RSS grew %d KiB" % (sent, worst * 1000, grown), file=sys.stderr)
            # The hog's write never completes: limits.idle_timeout_s closes it.
            d.wait_for(lambda: other.call({"op": "status"})["daemon"]["clients"] == 1,
                       "the stuck client to be closed", timeout=10)
            hog.close()
        finally:
            d.stop()

    def test_an_idle_client_is_closed_after_idle_timeout(self):
        d = rig.Daemon(["limits.idle_timeout_s=1"])
        try:
            idle = d.connect()
            idle.sock.settimeout(5)
            t0 = time.time()
            self.assertEqual(idle.sock.recv(100), b"")  # closed without a reply line
            self.assertGreater(time.time() - t0, 0.8)
            # A busy one is not: each request restarts its clock. Requests 0.25 s apart
            # over 2 s leave 0.75 s for a stalled machine.
            busy = d.connect()
            for _ in range(8):
                self.assertTrue(busy.call({"op": "status"})["ok"])
                time.sleep(0.25)
        finally:
            d.stop()


if __name__ == "__main__":
    rig.DAEMON = sys.argv.pop(1)
    unittest.main(warnings="ignore")  # sockets the daemon closes under us
