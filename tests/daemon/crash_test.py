#!/usr/bin/python3
"""Crash test: kill -9 locschedd at random moments under load, restart it on the
same journal, and check that every acknowledged event is there exactly once and
nothing was invented. The driver keeps its own model of every task; after each
restart it re-sends the events whose replies it never got (same ids, so each
applies at most once) and compares the daemon's view with the model.

Usage: crash_test.py /path/to/locschedd [cycles]
"""
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

DAEMON = sys.argv[1]
CYCLES = int(sys.argv[2]) if len(sys.argv) > 2 else 20
MACHINES = ["m%d" % i for i in range(8)]


class Daemon:
    def __init__(self, tmp):
        self.tmp = tmp
        self.event = os.path.join(tmp, "e.sock")
        self.control = os.path.join(tmp, "c.sock")
        self.log = open(os.path.join(tmp, "daemon.log"), "a")
        self.proc = None

    def start(self):
        start = time.time()
        self.proc = subprocess.Popen(
            [DAEMON, "--set", "sockets.event_path=" + self.event,
             "--set", "sockets.control_path=" + self.control,
             "--set", "journal.path=" + os.path.join(self.tmp, "journal.log"),
             # Rebalances (not journaled) run often under the load: replay must not mind.
             "--set", "rebalance.enabled=true", "--set", "rebalance.base_interval_ms=20",
             "--set", "rebalance.max_share=0.5",
             "--set", "log.target=stderr"], stderr=self.log)
        while True:
            try:
                s = socket.socket(socket.AF_UNIX)
                s.connect(self.event)
                # The control socket is bound just after the event socket.
                socket.socket(socket.AF_UNIX).connect(self.control)
                return s, time.time() - start
            except OSError:
                if self.proc.poll() is not None:
                    raise SystemExit("locschedd exited: see " + self.log.name)
                time.sleep(0.005)


class Conn:
    def __init__(self, sock):
        sock.settimeout(10)  # a daemon that stops answering fails the test instead of hanging it
        self.sock, self.buf = sock, b""

    def send(self, lines):
        self.sock.sendall(b"".join(json.dumps(l).encode() + b"\n" for l in lines))

    def replies(self, n):
        out = []
        while len(out) < n:
            while b"\n" not in self.buf:
                try:
                    chunk = self.sock.recv(1 << 16)
                except ConnectionResetError:
                    chunk = b""
                if not chunk:
                    return out
                self.buf += chunk
            line, self.buf = self.buf.split(b"\n", 1)
            out.append(json.loads(line))
        return out


class Model:
    """What the acknowledgements say: job -> {task: state}."""

    def __init__(self):
        self.jobs, self.sent_jobs, self.next_id = {}, set(), 0
        self.reserved = set()  # tasks with a task_done in flight

    def submit(self, rng):
        """A job_submit of 1-5 tasks: an event the daemon always journals."""
        self.next_id += 1
        job = "job%d" % self.next_id
        self.sent_jobs.add(job)
        return {"op": "job_submit", "id": "ev%d" % self.next_id, "job": job, "tasks": [
            {"task": "t%d" % k, "replicas": rng.sample(MACHINES, 2)}
            for k in range(rng.randint(1, 5))]}

    def event(self, rng):
        running = [(j, t, s[8:]) for j, ts in self.jobs.items() for t, s in ts.items()
                   if s.startswith("running@") and (j, t) not in self.reserved]
        roll = rng.random()
        if roll < 0.25 or not self.jobs:
            return self.submit(rng)
        self.next_id += 1
        eid = "ev%d" % self.next_id
        if roll < 0.6 or not running:
            return {"op": "heartbeat", "id": eid, "machine": rng.choice(MACHINES), "free_slots": 2}
        job, task, machine = rng.choice(running)
        self.reserved.add((job, task))
        return {"op": "task_done", "id": eid, "job": job, "task": task, "machine": machine}

    def apply(self, req, reply):
        if not reply.get("ok"):
            raise AssertionError("refused: %s -> %s" % (req, reply))
        if req["op"] == "job_submit":
            self.jobs[req["job"]] = {t["task"]: "queued" for t in req["tasks"]}
        elif req["op"] == "heartbeat":
            for a in reply["assign"]:
                assert self.jobs[a["job"]][a["task"]] == "queued", (a, self.jobs[a["job"]])
                self.jobs[a["job"]][a["task"]] = "running@" + req["machine"]
        elif req["op"] == "task_done":
            self.jobs[req["job"]][req["task"]] = "done"
            self.reserved.discard((req["job"], req["task"]))


def check(model, ctl):
    """The daemon's view equals the model; no job it was never sent."""
    jobs = ctl.call({"op": "jobs"})
    live = {j["job"] for j in jobs["jobs"]}
    assert live <= model.sent_jobs, live - model.sent_jobs
    for job, tasks in model.jobs.items():
        detail = ctl.call({"op": "job", "job": job})
        assert detail["ok"], detail
        if all(s == "done" for s in tasks.values()):
            assert detail["state"] == "done", detail
            continue
        got = {}
        for t in detail["task_list"]:
            got[t["task"]] = "running@" + t["machine"] if t["state"] == "running" else t["state"]
        assert got == tasks, "job %s: daemon %s, acknowledged %s" % (job, got, tasks)


class Ctl:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX)
        self.s.settimeout(10)
        self.s.connect(path)
        self.f = self.s.makefile("rb")

    def call(self, req):
        self.s.sendall(json.dumps(req).encode() + b"\n")
        return json.loads(self.f.readline())


def main():
    tmp = tempfile.mkdtemp(prefix="locsched-crash-")
    d = Daemon(tmp)
    try:
        run(d)
    except BaseException:
        # Keep the folder (journal, snapshots, daemon log) for the post-mortem.
        d.log.flush()
        with open(d.log.name, errors="replace") as log:
            tail = log.readlines()[-40:]
        sys.stderr.write("crash test failed; kept %s; daemon log tail:\n%s" % (tmp, "".join(tail)))
        raise
    finally:  # a failed check must not leave the daemon holding CTest's output open
        if d.proc and d.proc.poll() is None:
            d.proc.kill()
            d.proc.wait()
    shutil.rmtree(tmp)


def run(d):
    rng = random.Random(42)
    model = Model()
    recoveries = []
    sock, _ = d.start()
    conn, ctl = Conn(sock), Ctl(d.control)
    conn.send([{"op": "machine_up", "machine": m, "slots": 2} for m in MACHINES])
    conn.replies(len(MACHINES))
    pending = []
    snapshots = 0
    for cycle in range(CYCLES):
        # Run until a random kill with events in flight; now and then a
        # snapshot truncates the journal, sometimes just before the kill.
        for _ in range(rng.randint(5, 60)):
            batch = [model.event(rng) for _ in range(rng.randint(1, 8))]
            conn.send(batch)
            for req, reply in zip(batch, conn.replies(len(batch))):
                model.apply(req, reply)
            if rng.random() < 0.05:
                reply = ctl.call({"op": "snapshot"})
                assert reply["ok"], reply
                snapshots += 1
        pending = [model.event(rng) for _ in range(rng.randint(1, 8))]
        conn.send(pending)
        if rng.random() < 0.3:
            ctl.s.sendall(b'{"op":"snapshot"}\n')  # the kill may land in the middle of it
        time.sleep(rng.random() * 0.002)
        d.proc.send_signal(signal.SIGKILL)
        d.proc.wait()
        got = conn.replies(len(pending))  # whatever made it out before the kill
        for req, reply in zip(pending, got):
            model.apply(req, reply)
        pending = pending[len(got):]
        sock, seconds = d.start()
        recoveries.append(seconds)
        conn = Conn(sock)
        ctl = Ctl(d.control)
        for req in pending:  # the daemon answers a retried id with the first outcome
            conn.send([req])
            model.apply(req, conn.replies(1)[0])
        pending = []
        check(model, ctl)
    # A clean stop leaves a snapshot; the next start must come back the same.
    d.proc.send_signal(signal.SIGTERM)
    assert d.proc.wait() == 0
    d.start()
    check(model, Ctl(d.control))
    d.proc.send_signal(signal.SIGTERM)
    assert d.proc.wait() == 0
    tasks = sum(len(t) for t in model.jobs.values())
    print("crash test: %d kill -9 cycles, %d snapshots, %d jobs, %d tasks consistent; restart "
          "to ready max %.0f ms" % (CYCLES, snapshots, len(model.jobs), tasks,
                                    1000 * max(recoveries)))


if __name__ == "__main__":
    main()
