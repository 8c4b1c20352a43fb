#!/usr/bin/python3
"""High availability against a real ZooKeeper (Debian's zookeeper package,
standalone on loopback in a temporary folder) and three locschedd instances.

1. Failover under load, 10 times: job submits are pipelined to the active, it
   is killed with SIGKILL mid-batch, the client finds the new active and resends
   every unanswered event with its id. An independent recount at the end finds
   every acknowledged event applied exactly once (status counts, each job looked
   up), and the standbys agree. The failover time (kill to the first event
   acknowledged by the new active) is measured.
   Two snapshots with no entry between them are both acknowledged at one entry; a
   snapshot that never became whole, older than the newest whole one, goes at the
   next trim.
2. Split brain: the active is SIGSTOPped past its session timeout while a batch
   waits in its socket; a standby takes over; resumed, the old active
   acknowledges nothing, exits with code 3, and none of that batch exists.
3. ZooKeeper outage: the server is killed; the active holds the event in
   flight, refuses new ones with journal_unavailable naming ha.zookeeper, and
   acknowledges again once the server is back on the same data.
4. A standby answers reads, refuses writes with not_active naming the active;
   locschedctl finds the active from a list of instances.

5. locsched-tail, given the list of instances, follows a failover: it
   reconnects to the new active and resends with its ids; every line of its
   log is applied once.
6. locsched-agents (the cluster emulator) runs across a failover and drains:
   its own bookkeeping of every assignment and completion agrees with the
   scheduler's, and every task it submitted finishes.
7. Preemption across a failover, on two fresh instances with tenant queues and
   preemption.timeout_s: queue a fills the emulated cluster, queue b's job
   arrives, the active preempts two of a's runs and is killed with SIGKILL at
   once; the new active owes or has delivered the same stop orders, the agents
   stop exactly two runs, b's job finishes, and no run is lost or doubled.

Usage: ha_test.py LOCSCHEDD LOCSCHEDCTL LOCSCHED-TAIL LOCSCHED-AGENTS servers|clients
`servers` runs cases 1-4 and `clients` cases 5-7, each on a ZooKeeper and instances of
its own: CTest runs them as two tests (daemon/ha and daemon/ha_clients).
Prints the measured failover times (docs/benchmarks.md quotes them).
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import zookeeper  # noqa: E402
from preemption_test import CONFIG as PREEMPT_CONFIG  # noqa: E402  (two queues, preemption)

DAEMON, CTL, TAIL, AGENTS = sys.argv[1:5]
PART = sys.argv[5] if len(sys.argv) > 5 else ""
SESSION_MS = 2000
SECRET = "ha-test-secret-0123456789"
MACHINES = ["m%d" % i for i in range(8)]


def fail(msg):
    raise SystemExit("FAIL: " + msg)


class Instance:
    def __init__(self, tmp, n, zk_hosts, path="/test/cluster", config=None):
        self.tmp, self.n = tmp, n
        self.path, self.config = path, config
        self.port = zookeeper.free_port()
        self.address = "127.0.0.1:%d" % self.port
        self.zk_hosts = zk_hosts
        self.proc = None
        self.log = open(os.path.join(tmp, "locschedd-%d.log" % n), "a")

    def start(self):
        d = os.path.join(self.tmp, "i%d" % self.n)
        os.makedirs(d, exist_ok=True)
        self.proc = subprocess.Popen(
            [DAEMON, "--set", "sockets.event_path=%s/e.sock" % d,
             "--set", "sockets.control_path=%s/c.sock" % d,
             "--set", "ha.zookeeper=" + self.zk_hosts, "--set", "ha.path=" + self.path,
             "--set", "ha.instance=" + self.address,
             "--set", "ha.secret_file=" + os.path.join(self.tmp, "secret"),
             "--set", "ha.session_timeout_ms=%d" % SESSION_MS,
             "--set", "log.target=stderr"] + (["--config", self.config] if self.config else []),
            stderr=self.log)
        end = time.time() + 20
        while time.time() < end:
            if self.proc.poll() is not None:
                fail("locschedd %d exited: see %s" % (self.n, self.log.name))
            try:
                role = Conn(self.address).hello()["role"]
                if role != "starting":
                    return
            except OSError:
                pass
            time.sleep(0.02)
        fail("locschedd %d did not start" % self.n)

    def role(self):
        try:
            return Conn(self.address).hello().get("role")
        except OSError:
            return None


class Conn:
    def __init__(self, address, timeout=10):
        host, port = address.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=1)
        self.sock.settimeout(timeout)
        self.buf = b""

    def hello(self):
        self.send([{"op": "hello", "secret": SECRET}])
        r = self.replies(1)
        if not r:
            raise OSError("no hello reply")
        return r[0]

    def send(self, lines):
        self.sock.sendall(b"".join(json.dumps(l).encode() + b"\n" for l in lines))

    def replies(self, n):
        out = []
        while len(out) < n:
            while b"\n" not in self.buf:
                try:
                    chunk = self.sock.recv(1 << 16)
                except (ConnectionResetError, socket.timeout):
                    chunk = b""
                if not chunk:
                    return out
                self.buf += chunk
            line, self.buf = self.buf.split(b"\n", 1)
            out.append(json.loads(line))
        return out


def find_active(instances, timeout=15):
    end = time.time() + timeout
    while time.time() < end:
        for inst in instances:
            if inst.proc and inst.proc.poll() is None:
                try:
                    c = Conn(inst.address)
                    if c.hello().get("role") == "active":
                        return inst, c
                except OSError:
                    pass
        time.sleep(0.01)
    fail("no active instance within %d s" % timeout)


def submit(name, i):
    return {"op": "job_submit", "id": name, "job": name,
            "tasks": [{"task": name + "-t", "replicas": [MACHINES[i % 8], MACHINES[(i + 3) % 8]]}]}


def machines_up(instances):
    """The machines the cases' tasks list as replicas, 4 slots each."""
    _, conn = find_active(instances)
    conn.send([{"op": "machine_up", "machine": m, "slots": 4, "id": "up-" + m} for m in MACHINES])
    if not all(r["ok"] for r in conn.replies(len(MACHINES))):
        fail("machine_up refused")


def failover_under_load(instances, ledger):
    """Returns the failover times in seconds."""
    times, duplicates, n, snapshots = [], 0, len(ledger), 0
    machines_up(instances)
    active, conn = find_active(instances)
    for cycle in range(10):
        # A few acknowledged batches, then one in flight when the active dies.
        for batch in range(4):
            lines = [submit("j%d" % (n + k), n + k) for k in range(100)]
            n += len(lines)
            conn.send(lines)
            for line, r in zip(lines, conn.replies(len(lines))):
                if not r.get("ok"):
                    fail("refused: %s" % r)
                ledger[line["id"]] = line
        if cycle % 3 == 1:  # a snapshot into ZooKeeper, trimming the log behind the one before
            admin = Conn(active.address)
            admin.send([{"op": "hello", "secret": SECRET, "socket": "control"},
                        {"op": "snapshot"}])
            snap = admin.replies(2)[1]
            if not snap.get("ok"):
                fail("snapshot refused: %s" % snap)
            snapshots += 1
        pending = [submit("j%d" % (n + k), n + k) for k in range(300)]
        n += len(pending)
        conn.send(pending)
        killed_at = time.time()
        active.proc.kill()
        active.proc.wait()
        got = conn.replies(len(pending))  # what the dying active got out
        for line, r in zip(pending, got):
            if r.get("ok"):
                ledger[line["id"]] = line
        unanswered = pending[len(got):]
        survivors = [i for i in instances if i is not active]
        new_active, conn = find_active(survivors)
        if new_active is active:
            fail("the killed instance is still active")
        # Resend what was not answered, with the same ids: each applies once.
        conn.send(unanswered)
        replies = conn.replies(len(unanswered))
        if len(replies) != len(unanswered):
            fail("the new active did not answer every resent event")
        times.append(time.time() - killed_at)
        for line, r in zip(unanswered, replies):
            if not r.get("ok"):
                fail("resent event refused by the new active: %s" % r)
            duplicates += bool(r.get("duplicate"))
            ledger[line["id"]] = line
        active.start()  # rejoins as a standby
        active = new_active
        print("cycle %d: failover %.2f s, %d events got no reply before the kill, %d of them "
              "had been applied (duplicate)" % (cycle + 1, times[-1], len(unanswered),
                                                sum(bool(r.get("duplicate")) for r in replies)))
    print("%d snapshots written into ZooKeeper (each trims the log behind the one before)" % snapshots)
    return times, duplicates


def recount(instances, ledger):
    """Every acknowledged job exists exactly once on the active and on each standby."""
    active, conn = find_active(instances)
    names = sorted(ledger)
    conn.send([{"op": "job", "job": name} for name in names])
    missing = [name for name, r in zip(names, conn.replies(len(names))) if not r.get("ok")]
    if missing:
        fail("%d acknowledged jobs are missing on the active, e.g. %s" % (len(missing), missing[:3]))
    conn.send([{"op": "status"}])
    submitted = conn.replies(1)[0]["jobs"]["submitted"]
    if submitted != len(names):
        fail("the active counts %d submitted jobs, the client acknowledged %d"
             % (submitted, len(names)))
    for inst in instances:
        if inst is active:
            continue
        end = time.time() + 10
        while True:
            c = Conn(inst.address)
            c.hello()
            c.send([{"op": "status"}])
            seen = c.replies(1)[0]["jobs"]["submitted"]
            if seen == submitted:
                break
            if time.time() > end:
                fail("standby %s counts %d jobs, the active %d" % (inst.address, seen, submitted))
            time.sleep(0.05)
    print("recount: %d acknowledged jobs, each present once on the active; %d standbys agree"
          % (submitted, len(instances) - 1))


def snapshot_at_an_index_that_has_one(instances):
    """Regression: a snapshot asked for when no entry was appended since the last one
    (as right after a takeover) was refused with already_exists; it is the same state,
    so it succeeds at the same entry."""
    active, _ = find_active(instances)
    admin = Conn(active.address)
    admin.send([{"op": "hello", "secret": SECRET, "socket": "control"},
                {"op": "snapshot"}, {"op": "snapshot"}])
    first, second = admin.replies(3)[1:]
    if not first.get("ok") or not second.get("ok"):
        fail("a second snapshot at the same entry was refused: %s / %s" % (first, second))
    if first.get("entry") != second.get("entry"):
        fail("two snapshots with nothing between them name entries %s and %s"
             % (first.get("entry"), second.get("entry")))
    print("snapshot twice at entry %s: both acknowledged" % first.get("entry"))


def partial_snapshot_is_trimmed(instances, zk):
    """A snapshot that never became whole (its active was deposed mid-way) and is older
    than the newest whole one is deleted, chunks and node, at the next trim."""
    base = "/test/cluster/snapshots/"
    stale = base + "%020d" % 2
    zookeeper.cli(zk.hosts, ["create " + stale, "create %s/000000 x" % stale])
    if "%020d" % 2 not in zookeeper.cli(zk.hosts, ["ls " + base.rstrip("/")]):
        fail("could not plant a partial snapshot with zkCli.sh")
    active, conn = find_active(instances)
    conn.send([submit("partial-snapshot", 0)])
    if not conn.replies(1)[0].get("ok"):
        fail("submit refused before the trim")
    admin = Conn(active.address)
    admin.send([{"op": "hello", "secret": SECRET, "socket": "control"}, {"op": "snapshot"}])
    snap = admin.replies(2)[1]
    if not snap.get("ok"):
        fail("snapshot refused: %s" % snap)
    end = time.time() + 10
    while "%020d" % 2 in zookeeper.cli(zk.hosts, ["ls " + base.rstrip("/")]):
        if time.time() > end:
            fail("the partial snapshot at entry 2 is still in ZooKeeper after a trim")
        time.sleep(0.2)
    print("a partial snapshot older than the newest whole one was deleted at the next trim")


def split_brain(instances):
    active, _ = find_active(instances)
    conn = Conn(active.address)
    conn.hello()
    active.proc.send_signal(signal.SIGSTOP)
    stopped_at = time.time()
    batch = [submit("sb%d" % k, k) for k in range(50)]
    conn.send(batch)  # waits in the frozen instance's socket
    survivors = [i for i in instances if i is not active]
    new_active, new_conn = find_active(survivors)
    took_over = time.time() - stopped_at
    active.proc.send_signal(signal.SIGCONT)
    acked = [r for r in conn.replies(len(batch)) if r.get("ok")]
    if acked:
        fail("the deposed active acknowledged %d events after the takeover" % len(acked))
    try:
        code = active.proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        fail("the deposed active did not exit")
    if code != 3:
        fail("the deposed active exited with %d, not 3 (its log: %s)" % (code, active.log.name))
    new_conn.send([{"op": "job", "job": l["job"]} for l in batch])
    present = [r for r in new_conn.replies(len(batch)) if r.get("ok")]
    if present:
        fail("%d events sent to the deposed active exist on the new one" % len(present))
    print("split brain: takeover %.2f s after SIGSTOP; the resumed old active acknowledged "
          "nothing and exited with code 3" % took_over)
    active.start()


def zookeeper_outage(instances, zk):
    active, conn = find_active(instances)
    zk.stop()
    time.sleep(0.5)
    conn.send([submit("outage-a", 1)])
    conn.sock.settimeout(1.0)
    early = conn.replies(1)
    if early:
        fail("an event was answered while ZooKeeper was down: %s" % early)
    other = Conn(active.address)
    other.hello()
    other.send([submit("outage-b", 2), {"op": "status"}])
    refused, status = other.replies(2)
    err = refused.get("error", {})
    if refused.get("ok") or "journal_unavailable" not in err.get("message", "") or \
            "ha.zookeeper" not in err.get("message", ""):
        fail("during the outage a new event got %s" % refused)
    if not status.get("ok"):
        fail("reads must still work during the outage: %s" % status)
    down_for = time.time()
    zk.start()
    conn.sock.settimeout(15)
    late = conn.replies(1)
    if not late or not late[0].get("ok"):
        fail("the held event was not acknowledged after ZooKeeper came back: %s" % late)
    resumed = time.time() - down_for
    other.send([submit("outage-b", 2)])
    if not other.replies(1)[0].get("ok"):
        fail("events are still refused after ZooKeeper came back")
    if find_active(instances)[0] is not active:
        fail("the active changed although its session survived the outage")
    print("zookeeper outage: held 1 event, refused new ones with: %s; acknowledged %.2f s after "
          "the server restarted" % (err["message"], resumed))


def settled_standby(instances, timeout=15):
    """The active, and a standby whose hello names it, with that connection. A standby
    learns who is active from ZooKeeper: right after an outage (the case before this one)
    it may still name the previous active until its session reconnects, and under load
    that takes a while, so this polls (the test failed on the first answer)."""
    end = time.time() + timeout
    while True:
        active, _ = find_active(instances)
        standby = next(i for i in instances if i is not active and i.proc.poll() is None)
        c = Conn(standby.address)
        hello = c.hello()
        if hello["role"] == "standby" and hello["active"] == active.address:
            return active, standby, c
        if time.time() > end:
            fail("standby hello: %s (the active is %s)" % (hello, active.address))
        time.sleep(0.05)


def standby_and_ctl(instances):
    active, standby, c = settled_standby(instances)
    c.send([{"op": "status"}, {"op": "machine_up", "machine": "x", "slots": 1}])
    status, refused = c.replies(2)
    if not status.get("ok") or status["ha"]["role"] != "standby":
        fail("a standby must answer status: %s" % status)
    if refused["error"]["code"] != "not_active" or refused["error"]["active"] != active.address:
        fail("a standby must refuse writes with not_active naming the active: %s" % refused)
    for inst, want in ((active, 1), (standby, 0)):
        m = Conn(inst.address)
        m.hello()
        m.send([{"op": "metrics"}])
        text = m.replies(1)[0]["text"]
        if "locsched_ha_active %d\n" % want not in text:
            fail("metrics of %s lack locsched_ha_active %d" % (inst.address, want))
        if shutil.which("promtool"):
            check = subprocess.run(["promtool", "check", "metrics"], input=text,
                                   capture_output=True, text=True)
            if check.returncode != 0:
                fail("promtool check metrics: %s%s" % (check.stdout, check.stderr))
    listed = ",".join(i.address for i in instances)
    env = dict(os.environ, LOCSCHED_SECRET_FILE=os.path.join(os.path.dirname(
        instances[0].log.name), "secret"))
    out = subprocess.run([CTL, "--socket", "tcp:" + listed, "status", "--json"], env=env,
                         capture_output=True, text=True, timeout=30)
    if out.returncode != 0 or json.loads(out.stdout)["ha"]["role"] != "active":
        fail("locschedctl over TCP: %s %s" % (out.stdout[:300], out.stderr))
    print("standby: reads answered, writes refused with not_active naming %s; locsched_ha_* "
          "metrics on both; locschedctl found the active among %s" % (active.address, listed))


def tail_follows_failover(instances, tmp):
    """The tailer replays 3,000 job_submits across a failover; returns the jobs' names."""
    log = os.path.join(tmp, "events.jsonl")
    names = ["tail%d" % k for k in range(3000)]
    with open(log, "w") as f:
        for k, name in enumerate(names):
            f.write(json.dumps(submit(name, k)) + "\n")
    active, conn = find_active(instances)
    env = dict(os.environ, LOCSCHED_SECRET_FILE=os.path.join(tmp, "secret"))
    # One event in flight at a time, so the log takes a while; the kill lands once the
    # active has applied a tenth of it, however fast this machine commits.
    tail = subprocess.Popen(
        [TAIL, "--format", "locsched", "--socket", "tcp:" + ",".join(i.address for i in instances),
         "--window", "1", "--retry-for", "30", "--json", "-q", log],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # A replay names its jobs JOB@RUN; the tailer says its run before it sends.
    run = re.search(r"replay run (\S+) ", tail.stderr.readline()).group(1)
    names = [name + "@" + run for name in names]
    applied = lambda: (conn.send([{"op": "job", "job": names[len(names) // 10]}]) or  # noqa: E731
                       conn.replies(1)[0].get("ok"))
    end = time.time() + 30
    while not applied():
        if tail.poll() is not None or time.time() > end:
            fail("the tailer's events did not reach the active in time (tail exit %s): %s"
                 % (tail.poll(), tail.stderr.read()[-2000:] if tail.poll() is not None else ""))
        time.sleep(0.005)
    if tail.poll() is not None:
        fail("the tailer sent the whole log before the kill: nothing to fail over")
    active.proc.kill()
    active.proc.wait()
    out, err = tail.communicate(timeout=60)
    if tail.returncode != 0:
        fail("locsched-tail exited %d: %s" % (tail.returncode, err[-2000:]))
    summary = json.loads(out)
    if summary["reconnects"] < 1 or summary["accepted"] != len(names):
        fail("locsched-tail across a failover: %s" % summary)
    _, conn = find_active(instances)
    conn.send([{"op": "job", "job": name} for name in names])
    missing = [n for n, r in zip(names, conn.replies(len(names))) if not r.get("ok")]
    if missing:
        fail("%d jobs the tailer sent are missing after the failover" % len(missing))
    print("locsched-tail: %d events across a failover, %d reconnects, %d duplicates recognised, "
          "all applied once" % (summary["accepted"], summary["reconnects"],
                                summary["duplicates"]))
    active.start()
    return names


def agents_follow_failover(instances, tmp, names):
    active, conn = find_active(instances)
    # The earlier cases' jobs would keep the emulated machines busy: cancel them.
    conn.send([{"op": "job_cancel", "job": name} for name in names])
    if not all(r.get("ok") for r in conn.replies(len(names))):
        fail("job_cancel refused")
    env = dict(os.environ, LOCSCHED_SECRET_FILE=os.path.join(tmp, "secret"))
    agents = subprocess.Popen(
        [AGENTS, "--socket", "tcp:" + ",".join(i.address for i in instances), "--machines", "20",
         "--slots", "2", "--load", "15", "--job-size-mean", "8", "--speed", "10",
         "--heartbeat", "0.2", "--duration", "40", "--drain", "--prefix", "ag-", "--json", "-q"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)
    active.proc.kill()
    active.proc.wait()
    out, err = agents.communicate(timeout=120)
    if agents.returncode != 0:
        fail("locsched-agents across a failover exited %d: %s" % (agents.returncode, err[-3000:]))
    if "finding the active again" not in err:
        fail("locsched-agents did not see the failover: %s" % err[-2000:])
    summary = json.loads(out)
    print("locsched-agents: ran and drained across a failover (%s)" % ", ".join(
        "%s %s" % (k, summary[k]) for k in ("tasks_submitted", "tasks_done") if k in summary))
    active.start()




def call(instances, request):
    """One request to whichever instance is active; its reply."""
    _, conn = find_active(instances)
    conn.send([request])
    return conn.replies(1)[0]


def wait_status(instances, what, check, timeout):
    end = time.time() + timeout
    while time.time() < end:
        try:
            s = call(instances, {"op": "status"})
            if s.get("ok") and check(s):
                return s
        except (OSError, IndexError):
            pass
        time.sleep(0.05)
    fail("%s: not within %d s" % (what, timeout))


def preemption_follows_failover(tmp, zk):
    config = os.path.join(tmp, "preempt.toml")
    with open(config, "w") as f:
        f.write(PREEMPT_CONFIG)
    instances = [Instance(tmp, n, zk.hosts, "/test/preempt", config) for n in (3, 4)]
    agents = None
    try:
        for inst in instances:
            inst.start()
        # a's input is on m9, which is down: its runs are remote and outlast the test; b's
        # are local on m0/m1 and fast (alpha).
        for r in ({"op": "machine_up", "machine": "m9"}, {"op": "machine_down", "machine": "m9"}):
            if not call(instances, r).get("ok"):
                fail("setting up m9 refused")
        env = dict(os.environ, LOCSCHED_SECRET_FILE=os.path.join(tmp, "secret"))
        agents = subprocess.Popen(
            [AGENTS, "--socket", "tcp:" + ",".join(i.address for i in instances), "--no-jobs",
             "--machines", "2", "--slots", "2", "--replicas", "1", "--alpha", "20",
             "--gamma", "0.0001", "--speed", "1", "--keepalive", "0.3", "--duration", "600",
             "--json", "-q"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_status(instances, "emulated machines up", lambda s: s["machines"]["up"] == 2, 20)
        job = lambda name, queue, n, replicas: {  # noqa: E731
            "op": "job_submit", "id": name, "job": name, "queue": queue,
            "tasks": [{"task": "t%d" % i, "replicas": replicas} for i in range(n)]}
        if not call(instances, job("big", "a", 8, ["m9"])).get("ok"):
            fail("job big refused")
        wait_status(instances, "a fills the cluster", lambda s: s["tasks"]["running"] == 4, 20)
        if not call(instances, job("late", "b", 2, ["m0", "m1"])).get("ok"):
            fail("job late refused")
        wait_status(instances, "a round of preemption", lambda s: s["tasks"]["preempted"] > 0, 20)
        active, _ = find_active(instances)
        active.proc.kill()
        active.proc.wait()
        s = wait_status(instances, "b's job done after the failover",
                        lambda s: s["jobs"]["done"] == 1, 30)
        if s["tasks"]["preempted"] != 2:
            fail("the new active counts %d preempted runs, not 2: %s" % (
                s["tasks"]["preempted"], s["tasks"]))
        big = call(instances, {"op": "job", "job": "big"})
        states = [t["state"] for t in big["task_list"]]
        if states.count("running") != 4 or states.count("queued") != 4:
            fail("big's tasks after the failover: %s" % states)
        agents.send_signal(signal.SIGINT)
        out, err = agents.communicate(timeout=30)
        summary = json.loads(out)
        if summary["tasks_preempted"] != 2 or summary["foreign_done"] != 2 or summary["anomalies"]:
            fail("locsched-agents across the failover: %s\n%s" % (summary, err[-2000:]))
        print("preemption: 2 runs stopped across a failover, the starved queue's job done")
    finally:
        if agents and agents.poll() is None:
            agents.kill()
            agents.wait()
        for inst in instances:
            if inst.proc and inst.proc.poll() is None:
                inst.proc.kill()
                inst.proc.wait()


def print_log_tails(instances, lines=40):
    """On a failure, each instance's last log lines (a sanitizer's or an assertion's report
    is there), so that CI's output says why without the kept folder."""
    for inst in instances:
        inst.log.flush()
        with open(inst.log.name, errors="replace") as f:
            tail = f.readlines()[-lines:]
        print("---- last %d lines of %s" % (len(tail), inst.log.name))
        sys.stdout.write("".join(tail))


def servers(instances, zk):
    """Cases 1-4: failover under load, split brain, a ZooKeeper outage, the standby."""
    ledger = {}
    times, duplicates = failover_under_load(instances, ledger)
    recount(instances, ledger)
    print("failover: %d kills, mean %.2f s, max %.2f s (session timeout %.1f s); %d resent "
          "events were recognised as duplicates" % (len(times), sum(times) / len(times),
                                                    max(times), SESSION_MS / 1000, duplicates))
    if max(times) > 2 + SESSION_MS / 1000:
        fail("failover took %.2f s, over 2 s + the session timeout" % max(times))
    snapshot_at_an_index_that_has_one(instances)
    partial_snapshot_is_trimmed(instances, zk)
    split_brain(instances)
    zookeeper_outage(instances, zk)
    standby_and_ctl(instances)
    return 4


def clients(instances, tmp, zk):
    """Cases 5-7: the tailer, the emulator and preemption across failovers."""
    machines_up(instances)
    names = tail_follows_failover(instances, tmp)
    agents_follow_failover(instances, tmp, names)
    for inst in instances:  # the last case runs on instances of its own
        inst.proc.kill()
        inst.proc.wait()
    preemption_follows_failover(tmp, zk)
    return 3


def main():
    if PART not in ("servers", "clients"):
        fail("the fifth argument is servers or clients, not %r" % PART)
    why = zookeeper.available()
    if why:
        fail("ZooKeeper is not installed (tools/install-deps.sh installs it): " + why)
    tmp = tempfile.mkdtemp(prefix="locsched-ha-")
    zk = zookeeper.ZooKeeper(tmp)
    instances = []
    ok = False
    try:
        with open(os.path.join(tmp, "secret"), "w") as f:
            f.write(SECRET + "\n")
        zk.start()
        instances = [Instance(tmp, n, zk.hosts) for n in range(3)]
        for inst in instances:
            inst.start()
        passed = servers(instances, zk) if PART == "servers" else clients(instances, tmp, zk)
        ok = True
        print("%d passed, 0 failed" % passed)
    finally:
        for inst in instances:
            if inst.proc and inst.proc.poll() is None:
                inst.proc.send_signal(signal.SIGCONT)
                inst.proc.kill()
                inst.proc.wait()
        zk.stop()
        if ok:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print_log_tails(instances)
            print("logs kept in " + tmp)


if __name__ == "__main__":
    main()
