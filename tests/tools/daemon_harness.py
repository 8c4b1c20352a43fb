"""A real locschedd on temporary sockets, for the black-box tests in tests/tools.

Used by agents_test.py, replay_test.py and tail_test.py: each starts the daemon
binary given on its command line, talks to it over its sockets and stops it
with SIGTERM (a non-zero exit code fails the test). Not thread-safe.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import unittest


def wait_for(what, condition, timeout):
    """Polls condition() until it returns a true value (returned) or fails at the deadline."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        last = condition()
        if last:
            return last
        time.sleep(0.05)
    raise AssertionError("%s: not within %.1f s" % (what, timeout))


def trace_path(traces, name):
    """`name` under the public traces folder `traces`; skips the calling test when the
    traces are absent (a clone without ../shared)."""
    path = os.path.join(traces, name)
    if not os.path.exists(path):
        raise unittest.SkipTest("%s is absent (the public traces are not beside the repository)"
                                % path)
    return path


class Daemon:
    """locschedd with `settings` (KEY=VALUE overrides) on sockets in `directory`
    (a new temporary one, removed by stop(), when not given), reading the file
    `config` first when given (so `reload` has a file to re-read)."""

    def __init__(self, binary, *settings, directory=None, config=None):
        self.binary = binary
        self.settings = settings
        self.config = config
        self.owns_dir = directory is None
        self.dir = directory or tempfile.mkdtemp(prefix="locsched-test-")
        self.event = os.path.join(self.dir, "ev.sock")
        self.control = os.path.join(self.dir, "ctl.sock")
        self.log = open(os.path.join(self.dir, "daemon.log"), "a+")
        self.proc = None
        self.start()

    def start(self):
        """Starts the daemon and waits until both sockets exist."""
        argv = [self.binary, "--set", "sockets.event_path=" + self.event,
                "--set", "sockets.control_path=" + self.control, "--set", "log.target=stderr"]
        if self.config:
            argv += ["--config", self.config]
        for s in self.settings:
            argv += ["--set", s]
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=self.log)
        deadline = time.time() + 20
        while not (os.path.exists(self.event) and os.path.exists(self.control)):
            if self.proc.poll() is not None or time.time() > deadline:
                raise RuntimeError("locschedd did not start:\n" + self.log_text())
            time.sleep(0.02)

    def log_text(self):
        """Everything the daemon logged so far."""
        self.log.seek(0)
        return self.log.read()

    def call(self, request, control=True):
        """One request (a dict) on the control socket, or the event socket; its reply."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(10)
            s.connect(self.control if control else self.event)
            s.sendall((json.dumps(request) + "\n").encode())
            data = b""
            while not data.endswith(b"\n"):
                chunk = s.recv(1 << 20)
                if not chunk:
                    break
                data += chunk
        return json.loads(data)

    def status(self):
        """The status reply, which must be ok."""
        reply = self.call({"op": "status"})
        assert reply["ok"], reply
        return reply

    def kill(self):
        """kill -9, leaving the journal as a crash would; start() brings it back."""
        self.proc.kill()
        self.proc.wait()
        for p in (self.event, self.control):
            if os.path.exists(p):
                os.unlink(p)

    def stop(self):
        """SIGTERM and wait (kill after 20 s); returns the exit code."""
        code = self.proc.poll()
        if code is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                code = self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                code = self.proc.wait()
        self.log.close()
        if self.owns_dir:
            shutil.rmtree(self.dir, ignore_errors=True)
        return code
