#!/usr/bin/env python3
"""Recovery time after kill -9 at 100,000 queued tasks (docs/benchmarks.md, section 7).

Starts locschedd with a journal in a temporary directory (snapshots only on demand),
registers 1,000 machines, submits 1,000 jobs of 100 tasks (3 replicas each) and one
heartbeat per machine, then measures three things:
  1. kill -9 and restart: recovery by replaying the whole journal;
  2. a `snapshot` on the control socket: its duration and size;
  3. kill -9 and restart again: recovery from the snapshot (nothing left to replay).
"Restart to ready" is the time from exec to the event socket accepting.

Usage: recovery_bench.py /path/to/locschedd
"""
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time


class Daemon:
    def __init__(self, binary, tmp):
        self.tmp = tmp
        self.args = [binary, "--set", "sockets.event_path=%s/e.sock" % tmp,
                     "--set", "sockets.control_path=%s/c.sock" % tmp,
                     "--set", "journal.path=%s/journal.log" % tmp,
                     "--set", "journal.snapshot_mb=0", "--set", "log.target=stderr"]
        self.log = open(tmp + "/d.log", "a")
        self.proc = None

    def start(self):
        """Starts the daemon; returns (event socket file, seconds to ready)."""
        t0 = time.time()
        self.proc = subprocess.Popen(self.args, stderr=self.log)
        while True:
            try:
                s = socket.socket(socket.AF_UNIX)
                s.connect(self.tmp + "/e.sock")
                return s.makefile("rwb"), time.time() - t0
            except OSError:
                time.sleep(0.002)

    def kill(self):
        self.proc.kill()
        self.proc.wait()

    def last_log(self, word):
        self.log.flush()
        return [l.strip() for l in open(self.tmp + "/d.log") if word in l][-1]


def call(f, lines):
    f.write("".join(json.dumps(l) + "\n" for l in lines).encode())
    f.flush()
    replies = [json.loads(f.readline()) for _ in lines]
    for r in replies:
        assert r["ok"], r
    return replies


def load(f):
    call(f, [{"op": "machine_up", "machine": "n%d" % i, "slots": 2} for i in range(1000)])
    rng = random.Random(1)
    for j in range(1000):
        tasks = [{"task": "t%d" % t, "replicas": ["n%d" % m for m in rng.sample(range(800), 3)]}
                 for t in range(100)]
        call(f, [{"op": "job_submit", "id": "s%d" % j, "job": "job%d" % j, "tasks": tasks}])
    call(f, [{"op": "heartbeat", "id": "h%d" % i, "machine": "n%d" % i, "free_slots": 1}
             for i in range(1000)])


def state(f):
    st = call(f, [{"op": "status"}])[0]
    return "queued %d running %d" % (st["tasks"]["queued"], st["tasks"]["running"])


def main():
    tmp = tempfile.mkdtemp(prefix="locsched-recovery-")
    d = Daemon(sys.argv[1], tmp)
    f, _ = d.start()
    load(f)
    d.kill()
    size = os.path.getsize(tmp + "/journal.log")
    f, ready = d.start()
    print("journal %.1f MB; restart to ready %.0f ms; %s" % (size / 1e6, ready * 1000, state(f)))
    print(d.last_log("recovered"))

    c = socket.socket(socket.AF_UNIX)
    c.connect(tmp + "/c.sock")
    cf = c.makefile("rwb")
    snap = call(cf, [{"op": "snapshot"}])[0]
    print("snapshot: %d records, %.1f MB in %.0f ms (the journal was %.1f MB)" % (
        snap["records"], snap["bytes"] / 1e6, snap["ms"], snap["journal_bytes"] / 1e6))
    d.kill()
    f, ready = d.start()
    print("from the snapshot: restart to ready %.0f ms; %s" % (ready * 1000, state(f)))
    print(d.last_log("recovered"))
    d.proc.terminate()
    d.proc.wait()


if __name__ == "__main__":
    main()
