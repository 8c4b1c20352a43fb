#!/usr/bin/python3
"""Black-box test of locschedd's HTTP listener (http.listen) on loopback.

Usage: http_test.py /path/to/locschedd /path/to/locsched-agents [unittest options]

Starts the real daemon with the listener on a free loopback port, drives it with
locsched-agents, scrapes GET /metrics twice and checks that the counters and
histograms moved, that `promtool check metrics` accepts the text (skipped, with a
message, only where Debian's prometheus package is not installed), that /status
and /machine-queues answer the control ops' JSON, and the listener's bounds: 404/405, a
request too large, the connection cap, idle timeouts, and that a client stuck
half-way through a request stalls neither the Unix sockets nor other HTTP clients.
"""
import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import daemon_harness  # noqa: E402

DAEMON = None  # set from the command line in __main__
AGENTS = None


def free_port():
    """A loopback port nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(port, path, method="GET"):
    """(status, headers, body) of one request on a new connection."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request(method, path)
        r = conn.getresponse()
        return r.status, dict(r.getheaders()), r.read().decode()
    finally:
        conn.close()


def samples(text):
    """{'name{labels}': value} of a Prometheus text exposition."""
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            key, value = line.rsplit(" ", 1)
            out[key] = float(value)
    return out


class Listener(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.port = free_port()
        cls.daemon = daemon_harness.Daemon(
            DAEMON, "http.listen=127.0.0.1:%d" % cls.port, "http.timeout_ms=2000")

    @classmethod
    def tearDownClass(cls):
        code = cls.daemon.stop()
        assert code == 0, "locschedd exited with %s on SIGTERM" % code

    def agents(self, seconds):
        argv = [AGENTS, "--socket", self.daemon.event, "--machines", "30", "--slots", "2",
                "--load", "20", "--job-size-mean", "6", "--speed", "20", "--heartbeat", "0.2",
                "--duration", str(seconds), "--drain", "-q", "--prefix", "h%d-" % time.time_ns()]
        out = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr + self.daemon.log_text())

    def test_metrics_move_with_the_workload_and_pass_promtool(self):
        status, headers, before_text = get(self.port, "/metrics")
        self.assertEqual(status, 200)
        self.assertTrue(headers["Content-Type"].startswith("text/plain; version=0.0.4"))
        self.agents(40)
        after_text = get(self.port, "/metrics")[2]
        before, after = samples(before_text), samples(after_text)
        for name in ("locsched_tasks_done_total", "locsched_jobs_done_total",
                     'locsched_tasks_started_total{locality="node"}',
                     "locsched_heartbeat_assignment_latency_seconds_count",
                     "locsched_job_completion_time_seconds_count",
                     'locsched_requests_total{op="heartbeat"}'):
            self.assertGreater(after[name], before.get(name, 0), name)
        for level in ("rack", "off_rack"):  # YARN's levels; no racks here: rack stays 0
            self.assertIn('locsched_tasks_started_total{locality="%s"}' % level, after)
        self.assertEqual(after['locsched_tasks_started_total{locality="rack"}'], 0)
        self.assertEqual(after['locsched_tasks_started_total{locality="off_rack"}'],
                         after["locsched_assigned_remote_total"])
        self.assertEqual(after['locsched_heartbeat_assignment_latency_seconds_bucket{le="+Inf"}'],
                         after["locsched_heartbeat_assignment_latency_seconds_count"])
        self.assertEqual(after["locsched_job_completion_time_seconds_count"],
                         after["locsched_jobs_done_total"])
        info = [k for k in after if k.startswith("locsched_build_info{")]
        self.assertEqual(len(info), 1, info)
        _, _, status_body = get(self.port, "/status")
        self.assertIn('policy="%s"' % json.loads(status_body)["policy"], info[0])
        self.assertEqual(after[info[0]], 1)
        # The control socket's metrics command serves the same families.
        text = self.daemon.call({"op": "metrics"})["text"]
        self.assertEqual({k.split("{")[0] for k in samples(text)},
                         {k.split("{")[0] for k in after})
        promtool = shutil.which("promtool")
        if not promtool:
            self.skipTest("promtool is not installed (Debian package prometheus): "
                          "the exposition format was not checked")
        check = subprocess.run([promtool, "check", "metrics"], input=after_text,
                               capture_output=True, text=True, timeout=60)
        self.assertEqual(check.returncode, 0, check.stdout + check.stderr)

    def test_status_and_queues_are_the_control_ops_json(self):
        status, headers, body = get(self.port, "/status")
        self.assertEqual((status, headers["Content-Type"]), (200, "application/json"))
        over_http = json.loads(body)
        over_socket = self.daemon.status()
        self.assertEqual(over_http.keys(), over_socket.keys())
        self.assertEqual(over_http["policy"], over_socket["policy"])
        status, _, body = get(self.port, "/machine-queues?top=3")
        self.assertEqual(status, 200)
        self.assertEqual(json.loads(body).keys(),
                         self.daemon.call({"op": "machine_queues"}).keys())
        self.assertEqual(get(self.port, "/machine-queues?top=x")[0], 400)
        status, _, body = get(self.port, "/queues")
        self.assertEqual(status, 410)
        self.assertIn("machine_queues", body)

    def test_dashboard_and_errors(self):
        status, headers, body = get(self.port, "/")
        self.assertEqual(status, 200)
        self.assertIn("text/html", headers["Content-Type"])
        self.assertIn("/dashboard.js", body)
        self.assertEqual(get(self.port, "/dashboard.js")[0], 200)
        self.assertEqual(get(self.port, "/no/such/page")[0], 404)
        status, headers, _ = get(self.port, "/metrics", method="POST")
        self.assertEqual((status, headers.get("Allow")), (405, "GET"))

    def test_keep_alive_serves_several_requests(self):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        for _ in range(3):
            conn.request("GET", "/status")
            r = conn.getresponse()
            self.assertEqual(r.status, 200)
            r.read()
        conn.close()

    def test_a_request_too_large_is_refused(self):
        with socket.create_connection(("127.0.0.1", self.port), timeout=10) as s:
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 20000 + b"\r\n\r\n")
            reply = s.recv(4096)
        self.assertTrue(reply.startswith(b"HTTP/1.1 413"), reply[:100])

    def test_a_stuck_client_stalls_nobody_and_is_closed_after_the_timeout(self):
        stuck = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        stuck.sendall(b"GET /metr")  # and nothing more
        start = time.monotonic()
        self.assertEqual(self.daemon.status()["ok"], True)
        self.assertEqual(get(self.port, "/status")[0], 200)
        self.assertLess(time.monotonic() - start, 1.5, "the stuck client held others up")
        self.assertEqual(stuck.recv(100), b"")  # http.timeout_ms (2 s) closes it
        self.assertLess(time.monotonic() - start, 9)
        stuck.close()



class ConnectionCap(unittest.TestCase):
    def test_connections_past_the_cap_are_closed(self):
        port = free_port()
        daemon = daemon_harness.Daemon(DAEMON, "http.listen=%d" % port,
                                       "http.max_connections=2", "http.timeout_ms=60000")
        try:
            held = []
            for _ in range(2):  # each answered once, so the daemon surely holds it
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                conn.request("GET", "/status")
                conn.getresponse().read()
                held.append(conn)
            with socket.create_connection(("127.0.0.1", port), timeout=10) as extra:
                self.assertEqual(extra.recv(100), b"")
            for conn in held:
                conn.close()
            # Once they are gone, new clients are served again.
            deadline = time.monotonic() + 10
            while True:
                try:
                    if get(port, "/status")[0] == 200:
                        break
                except (ConnectionError, http.client.HTTPException):
                    pass
                self.assertLess(time.monotonic(), deadline)
                time.sleep(0.05)
        finally:
            self.assertEqual(daemon.stop(), 0)


class Configuration(unittest.TestCase):
    def start_fails(self, value):
        argv = [DAEMON, "--set", "http.listen=" + value, "--set", "log.target=stderr",
                "--set", "sockets.event_path=/nonexistent/e", "--set",
                "sockets.control_path=/nonexistent/c"]
        return subprocess.run(argv, capture_output=True, text=True, timeout=30)

    def test_bad_addresses_name_the_key(self):
        for value in ("127.0.0.1", "127.0.0.1:0", "127.0.0.1:65536", "example.org:80",
                      "::1:80", "1.2.3:80"):
            out = self.start_fails(value)
            self.assertNotEqual(out.returncode, 0, value)
            self.assertIn("http.listen", out.stderr, value)

    def test_a_port_in_use_names_the_key(self):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            s.listen()
            port = s.getsockname()[1]
            with self.assertRaises(RuntimeError) as err:
                daemon_harness.Daemon(DAEMON, "http.listen=127.0.0.1:%d" % port)
            self.assertIn("http.listen: 127.0.0.1:%d" % port, str(err.exception))

    def test_off_by_default(self):
        d = daemon_harness.Daemon(DAEMON)
        try:
            self.assertNotIn("HTTP on", d.log_text())
        finally:
            self.assertEqual(d.stop(), 0)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: http_test.py LOCSCHEDD LOCSCHED-AGENTS [unittest options]")
    DAEMON, AGENTS = sys.argv[1], sys.argv[2]
    unittest.main(argv=[sys.argv[0]] + sys.argv[3:])
