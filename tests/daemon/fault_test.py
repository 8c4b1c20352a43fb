#!/usr/bin/python3
"""Fault-injection suite: the daemon under the failures a disk and a crash can
cause, each case ending with a recount of what was acknowledged (the driver's
own model of every job and task, as in crash_test.py) against the daemon's
view: 0 acknowledged events lost or duplicated.

Cases:
  kill9        kill -9 at random moments under load (interval sync: written, not yet synced)
  torn_tail    kill -9 (at random, or while a written batch waits for a failing
               fdatasync), then the journal torn at a random byte after the last
               acknowledged record (cut short, zeros, or garbage to the old end)
  enospc, eio  the journal's writes fail (ENOSPC, EIO), then its fdatasync (EIO):
               replies are held, new events refused with journal_unavailable,
               reads work; then space returns, or the daemon is killed meanwhile
  damage       a byte flipped in the middle of the journal: the start is refused
               (file and offset named, file unchanged); --recover keeps it aside,
               reports the lost record, and the daemon starts with the others
  bad_path     journal.path naming a directory or another program's file is refused
               at start naming the key, and left as it was
  snapshot     failing snapshots back off (few log lines under load) and show in
               status and metrics

Usage: fault_test.py /path/to/locschedd /path/to/liblocsched_fault_shim.so [case ...]
Kept on failure: the case's folder (journal files and daemon log).
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

DAEMON, SHIM = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
CASES = sys.argv[3:]
_argv, sys.argv = sys.argv, [sys.argv[0], DAEMON]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import crash_test  # noqa: E402  (the model, connections and check of the crash test)
sys.argv = _argv

Model, Conn, Ctl, MACHINES = crash_test.Model, crash_test.Conn, crash_test.Ctl, crash_test.MACHINES
STARTED = []  # every Daemon, so a failed case leaves no process behind


class Daemon:
    """locschedd on a journal in `tmp`, optionally with the fault shim preloaded."""

    def __init__(self, tmp, *settings, shim=False):
        self.tmp, self.settings, self.shim = tmp, settings, shim
        self.event = os.path.join(tmp, "e.sock")
        self.control = os.path.join(tmp, "c.sock")
        self.journal = os.path.join(tmp, "journal.log")
        self.fault = os.path.join(tmp, "fault")
        self.log = open(os.path.join(tmp, "daemon.log"), "a+")
        self.proc = None
        STARTED.append(self)

    def args(self):
        out = [DAEMON, "--set", "sockets.event_path=" + self.event,
               "--set", "sockets.control_path=" + self.control,
               "--set", "journal.path=" + self.journal, "--set", "log.target=stderr"]
        for s in self.settings:
            out += ["--set", s]
        return out

    def env(self):
        env = dict(os.environ)
        if self.shim:
            env["LD_PRELOAD"] = SHIM
            env["LOCSCHED_FAULT_PATH"] = os.path.realpath(self.journal)
            env["LOCSCHED_FAULT_CTL"] = self.fault
            # Under AddressSanitizer the preloaded shim comes before its runtime.
            env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0"
        return env

    def start(self):
        self.proc = subprocess.Popen(self.args(), stderr=self.log, env=self.env())
        while True:
            try:
                s = socket.socket(socket.AF_UNIX)
                s.connect(self.event)
                socket.socket(socket.AF_UNIX).connect(self.control)
                return Conn(s), Ctl(self.control)
            except OSError:
                if self.proc.poll() is not None:
                    raise AssertionError("locschedd exited (%d): see %s"
                                         % (self.proc.returncode, self.log.name))
                time.sleep(0.005)

    def run_to_exit(self, *extra):
        """Runs the binary to its end; (exit code, stdout + stderr)."""
        p = subprocess.run(self.args() + list(extra), capture_output=True, text=True,
                           env=self.env(), timeout=60)
        return p.returncode, p.stdout + p.stderr

    def set_fault(self, text):
        with open(self.fault, "w") as f:
            f.write(text)

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        assert self.proc.wait() == 0, "clean stop failed: see " + self.log.name

    def log_text(self):
        self.log.flush()
        with open(self.log.name, errors="replace") as f:
            return f.read()


def recount(model, ctl):
    """The daemon's view equals the acknowledgements, and its counters agree: nothing
    acknowledged is lost, nothing is applied twice."""
    crash_test.check(model, ctl)
    status = ctl.call({"op": "status"})
    done = sum(1 for tasks in model.jobs.values() for s in tasks.values() if s == "done")
    assert status["tasks"]["done"] == done, (status["tasks"], done)
    assert status["jobs"]["submitted"] == len(model.jobs), (status["jobs"], len(model.jobs))


def load(model, conn, rng, rounds):
    """`rounds` acknowledged batches of random events."""
    for _ in range(rounds):
        batch = [model.event(rng) for _ in range(rng.randint(1, 8))]
        conn.send(batch)
        for req, reply in zip(batch, conn.replies(len(batch))):
            model.apply(req, reply)


def machines_up(conn):
    conn.send([{"op": "machine_up", "machine": m, "slots": 2} for m in MACHINES])
    assert all(r["ok"] for r in conn.replies(len(MACHINES)))


def kill_with_pending(d, model, conn, rng):
    """Sends a batch, kills the daemon at a random moment, applies the replies that
    made it out; returns the events still unacknowledged."""
    pending = [model.event(rng) for _ in range(rng.randint(1, 8))]
    conn.send(pending)
    time.sleep(rng.random() * 0.002)
    d.kill()
    got = conn.replies(len(pending))
    for req, reply in zip(pending, got):
        model.apply(req, reply)
    return pending[len(got):]


def resend(model, conn, pending):
    """After a restart: the unacknowledged events again, same ids (applied at most once).
    Submits go first: a submit journaled before the crash is live again, and a heartbeat
    that changed nothing then (so was not journaled) runs afresh on resend and may start
    that job's tasks, which the model must know by then."""
    for req in sorted(pending, key=lambda r: r["op"] != "job_submit"):
        conn.send([req])
        model.apply(req, conn.replies(1)[0])


def records(path):
    """(offset, end, payload) of each valid record at the start of a journal file."""
    import struct
    out, at = [], 0
    with open(path, "rb") as f:
        data = f.read()
    while at + 8 <= len(data):
        n, _crc = struct.unpack_from("<II", data, at)
        if at + 8 + n > len(data):
            break
        out.append((at, at + 8 + n, data[at + 8:at + 8 + n]))
        at += 8 + n
    return out, data


def event_id(payload):
    """The id of the event a journal record holds (None for a header)."""
    record = json.loads(payload)
    return json.loads(record["line"]).get("id") if "line" in record else None


def big_jobs(model, conn, count, tasks):
    """`count` acknowledged jobs of `tasks` tasks each (a journal that grows fast)."""
    for _ in range(count):
        model.next_id += 1
        job = "big%d" % model.next_id
        model.sent_jobs.add(job)
        req = {"op": "job_submit", "id": "ev%d" % model.next_id, "job": job, "tasks": [
            {"task": "t%d" % k, "replicas": MACHINES[k % 8:k % 8 + 2]} for k in range(tasks)]}
        conn.send([req])
        model.apply(req, conn.replies(1)[0])


def case_kill9(tmp, rng):
    d = Daemon(tmp, "journal.sync=interval", "journal.interval_ms=50")
    model = Model()
    conn, ctl = d.start()
    machines_up(conn)
    for _ in range(12):
        load(model, conn, rng, rng.randint(5, 40))
        pending = kill_with_pending(d, model, conn, rng)
        conn, ctl = d.start()
        resend(model, conn, pending)
        recount(model, ctl)
    d.stop()
    return "12 kill -9 cycles, %d jobs" % len(model.jobs)


def hold_and_kill(d, model, conn, rng):
    """Written but never synced: with the journal's fdatasync failing, a batch is
    written, its replies held; then kill -9. Returns the unacknowledged events."""
    d.set_fault("sync EIO")
    # A submit first: a heartbeat that assigns nothing is not journaled, so a batch of only
    # such heartbeats never reached the failing fdatasync (it happened under load, when
    # the acknowledged state left nothing queued to assign).
    pending = [model.submit(rng)] + [model.event(rng) for _ in range(rng.randint(0, 7))]
    conn.send(pending)
    # A fresh control connection each time: a reply that shares the failed burst
    # (a read included) is held with it.
    deadline = time.time() + 5
    while not Ctl(d.control).call({"op": "status"})["daemon"]["journal"]["unavailable"]:
        assert time.time() < deadline, "the failed fdatasync did not hold the journal"
        time.sleep(0.01)
    d.kill()
    d.set_fault("")
    assert conn.replies(len(pending)) == [], "acknowledged without a sync"
    return pending


def case_torn_tail(tmp, rng):
    d = Daemon(tmp, shim=True)
    model = Model()
    conn, ctl = d.start()
    machines_up(conn)
    torn = 0
    for cycle in range(12):
        load(model, conn, rng, rng.randint(5, 30))
        # Half the kills land at random; the other half while a written batch
        # waits for its sync, so there is always an unsynced tail to tear.
        pending = (hold_and_kill(d, model, conn, rng) if cycle % 2
                   else kill_with_pending(d, model, conn, rng))
        unacked = {e["id"] for e in pending}
        recs, data = records(d.journal)
        # The tear may only touch records nobody was told about.
        boundary = max([end for _, end, payload in recs if event_id(payload) not in unacked]
                       or [0])
        if boundary < len(data):
            cut = rng.randint(boundary, len(data) - 1)
            kind = rng.choice(["short", "zeros", "garbage"])
            rest = len(data) - cut
            tail = {"short": b"", "zeros": b"\0" * rest,
                    "garbage": bytes(rng.randrange(256) for _ in range(rest))}[kind]
            with open(d.journal, "r+b") as f:
                f.truncate(cut)
                f.seek(cut)
                f.write(tail)
            torn += 1
        conn, ctl = d.start()
        resend(model, conn, pending)
        recount(model, ctl)
    kept = len([f for f in os.listdir(tmp) if ".tail." in f])
    d.stop()
    assert torn >= 6, torn
    return "12 kills, %d journals torn after the last acknowledged record, %d tails kept" % (
        torn, kept)


def case_journal_error(tmp, rng, fault):
    d = Daemon(tmp, shim=True)
    model = Model()
    conn, ctl = d.start()
    machines_up(conn)
    load(model, conn, rng, 20)
    cause = "No space left on device" if "ENOSPC" in fault else "Input/output error"
    for round_ in range(3):
        d.set_fault(fault)
        held = [model.event(rng) for _ in range(rng.randint(1, 5))]
        conn.send(held)
        conn.sock.settimeout(0.3)
        try:
            early = conn.replies(len(held))
        except socket.timeout:
            early = []
        conn.sock.settimeout(10)
        assert early == [], "acknowledged while the journal failed: %s" % early
        # Another client: refused with the cause, reads still answered.
        other = Conn(socket.socket(socket.AF_UNIX))
        other.sock.connect(d.event)
        probe = {"op": "machine_up", "id": "probe%d" % round_, "machine": "probe"}
        other.send([probe])
        refused = other.replies(1)[0]
        assert not refused["ok"], refused
        assert refused["error"]["code"] == "io_error", refused
        assert "journal_unavailable" in refused["error"]["message"], refused
        assert cause in refused["error"]["message"], refused
        status = ctl.call({"op": "status"})
        assert cause in (status["daemon"]["journal"]["unavailable"] or ""), status["daemon"]
        metrics = ctl.call({"op": "metrics"})["text"]
        assert "locsched_journal_unavailable 1" in metrics
        if round_ < 2:
            d.set_fault("")  # space returns: the held replies go out
            for req, reply in zip(held, conn.replies(len(held))):
                model.apply(req, reply)
            other.send([probe])
            assert other.replies(1)[0]["ok"]
            load(model, conn, rng, 10)
            recount(model, ctl)
        else:
            d.kill()  # killed while held: nothing of the held batch was acknowledged
            d.set_fault("")
            conn, ctl = d.start()
            resend(model, conn, held)
            recount(model, ctl)
    log = d.log_text()
    assert log.count("journal write failed") <= 12, "one line per failure, not per retry"
    assert "journal writable again" in log
    d.stop()
    return "3 rounds of %s: held, refused with the cause, resumed (twice) and killed (once)" % fault


def case_damage(tmp, rng):
    d = Daemon(tmp)
    model = Model()
    conn, ctl = d.start()
    machines_up(conn)
    load(model, conn, rng, 40)
    d.kill()
    recs, data = records(d.journal)
    victim = rng.randrange(len(recs) // 3, 2 * len(recs) // 3)
    start, end, _ = recs[victim]
    at = rng.randrange(start, end)
    bad = bytearray(data)
    bad[at] ^= 1 << rng.randrange(8)
    with open(d.journal, "wb") as f:
        f.write(bad)
    code, out = d.run_to_exit()
    assert code != 0, out
    assert "damaged at byte %d" % start in out and d.journal in out and "--recover" in out, out
    with open(d.journal, "rb") as f:
        assert f.read() == bytes(bad), "a refused start changed the journal"
    code, out = d.run_to_exit("--recover")
    assert code == 0, out
    assert "lost bytes %d..%d" % (start, end) in out and "1 records lost" in out, out
    with open(d.journal + ".damaged.1", "rb") as f:
        assert f.read() == bytes(bad), "the damaged journal was not kept as it was"
    after, _ = records(d.journal)
    assert [p for _, _, p in after] == [p for i, (_, _, p) in enumerate(recs) if i != victim]
    conn, ctl = d.start()
    assert ctl.call({"op": "status"})["ok"]
    d.stop()
    return "byte %d of record %d of %d: refused, kept aside, %d records salvaged" % (
        at, victim, len(recs), len(after))


def case_bad_path(tmp, rng):
    d = Daemon(tmp)
    os.mkdir(d.journal)
    code, out = d.run_to_exit()
    assert code != 0 and "journal.path" in out and "is a directory" in out, out
    assert os.path.isdir(d.journal) and not os.path.exists(d.journal + ".prev"), os.listdir(tmp)
    os.rmdir(d.journal)
    with open(d.journal, "w") as f:
        f.write("# someone's notes\n")
    code, out = d.run_to_exit()
    assert code != 0 and "journal.path" in out and "holds no journal record" in out, out
    with open(d.journal) as f:
        assert f.read() == "# someone's notes\n"
    return "a directory and a foreign file refused, both left as they were"


def case_snapshot(tmp, rng):
    d = Daemon(tmp, "journal.snapshot_mb=1")
    model = Model()
    conn, ctl = d.start()
    machines_up(conn)
    os.mkdir(d.journal + ".snap.tmp")  # every snapshot now fails to create its file
    reply = ctl.call({"op": "snapshot"})
    assert not reply["ok"], reply
    big_jobs(model, conn, 20, 2000)  # past journal.snapshot_mb: every burst wants one
    assert os.path.getsize(d.journal) > 1 << 20
    deadline = time.time() + 2.5
    while time.time() < deadline:  # hundreds of bursts
        load(model, conn, rng, 20)
    # An attempt may fall due between two of these reads: bracket them.
    journal = ctl.call({"op": "status"})["daemon"]["journal"]
    metrics = ctl.call({"op": "metrics"})["text"]
    failures = d.log_text().count("snapshot failed")
    last = ctl.call({"op": "status"})["daemon"]["journal"]["snapshot_failures"]
    first = journal["snapshot_failures"]
    assert 2 <= first <= 5, "%d failed snapshots in 2.5 s of load" % first
    assert first <= failures <= last, "one log line per attempt: %d lines, %d..%d failures" % (
        failures, first, last)
    assert "snap.tmp" in journal["last_snapshot_error"], journal
    assert journal["next_snapshot_in_s"] > 0, journal
    counted = int(metrics.split("\nlocsched_snapshot_failures ")[1].split()[0])
    assert first <= counted <= last, metrics
    os.rmdir(d.journal + ".snap.tmp")
    assert ctl.call({"op": "snapshot"})["ok"]
    assert ctl.call({"op": "status"})["daemon"]["journal"]["snapshot_failures"] == 0
    recount(model, ctl)
    d.kill()
    conn, ctl = d.start()
    recount(model, ctl)
    d.stop()
    return "%d failed snapshots logged in 2.5 s of load, then one that worked" % failures


ALL = {
    "kill9": case_kill9,
    "torn_tail": case_torn_tail,
    "enospc": lambda tmp, rng: case_journal_error(tmp, rng, "write ENOSPC"),
    "eio": lambda tmp, rng: case_journal_error(tmp, rng, "write EIO"),
    "eio_sync": lambda tmp, rng: case_journal_error(tmp, rng, "sync EIO"),
    "damage": case_damage,
    "bad_path": case_bad_path,
    "snapshot": case_snapshot,
}


def main():
    seed = int(os.environ.get("LOCSCHED_FAULT_SEED", "7"))
    failed = []
    for name in CASES or ALL:
        tmp = tempfile.mkdtemp(prefix="locsched-fault-%s-" % name)
        start = time.time()
        try:
            what = ALL[name](tmp, random.Random("%s-%d" % (name, seed)))
        except BaseException as e:  # keep the folder for the post-mortem
            failed.append(name)
            log = os.path.join(tmp, "daemon.log")
            tail = open(log, errors="replace").readlines()[-30:] if os.path.exists(log) else []
            print("FAIL %s (seed %d): %r; kept %s; daemon log tail:\n%s"
                  % (name, seed, e, tmp, "".join(tail)))
            for line in ["%s" % s for s in __import__("traceback").format_exc().splitlines()]:
                print("  " + line)
            continue
        finally:
            for d in STARTED:
                if d.proc and d.proc.poll() is None:
                    d.proc.kill()
                    d.proc.wait()
            del STARTED[:]
        print("ok   %-9s %5.1f s  %s" % (name, time.time() - start, what))
        shutil.rmtree(tmp)
    if failed:
        sys.exit("fault cases failed: " + ", ".join(failed))


if __name__ == "__main__":
    main()
