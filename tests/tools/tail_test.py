#!/usr/bin/python3
"""Black-box tests of locsched-tail: --check on every format of the real traces
(counted independently here), its error paths, and replay and follow mode
against the real locschedd (rotation, truncation, partial lines, restart from
the checkpoint, a daemon restart mid-stream).

Usage: tail_test.py /path/to/locsched-tail /path/to/locschedd TRACES_DIR [unittest options]
"""
import glob
import gzip
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import daemon_harness

TAIL = DAEMON = TRACES = None  # set from the command line in __main__


def trace_path(name):
    """`name` under TRACES; skips the calling test when the public traces are absent."""
    return daemon_harness.trace_path(TRACES, name)
MACHINES = 20


def run_tail(*args, timeout=60):
    return subprocess.run([TAIL, *args], capture_output=True, text=True, timeout=timeout)


def check(fmt, *files):
    out = run_tail("--format", fmt, "--check", *files)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def read_text(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        return f.read()


class CheckTest(unittest.TestCase):
    """--check on the real traces: counts match what this file counts itself."""

    def test_jobhistory(self):
        path = trace_path("hadoop-rumen/sample-job-tracker-logs.gz")
        text = read_text(path)
        jobs = set(re.findall(r'^Job JOBID="([^"]+)"[^\n]* SUBMIT_TIME=', text, re.M))
        tasks = set(re.findall(r'^Task TASKID="([^"]+)" TASK_TYPE="(?:MAP|REDUCE)" START_TIME=',
                               text, re.M))
        attempts = set(re.findall(r'^(?:Map|Reduce)Attempt TASK_TYPE="(?:MAP|REDUCE)" [^\n]*'
                                  r'TASK_ATTEMPT_ID="([^"]+)" START_TIME=', text, re.M))
        got = check("jobhistory", path)
        self.assertEqual((got["jobs"], got["tasks"], got["attempts"], got["malformed"]),
                         (len(jobs), len(tasks), len(attempts), 0))
        # What a replay sends: each task as its own job, SPLITS' last path layer as hosts.
        starts = re.findall(r'^Task TASKID="[^"]+" TASK_TYPE="(?:MAP|REDUCE)" START_TIME="(\d+)"'
                            r'(?: SPLITS="([^"]*)")?', text, re.M)
        splits = [re.sub(r"\\(.)", r"\1", s) for _, s in starts]  # JobHistory escapes '.'
        hosts = {h.rsplit("/", 1)[-1] for s in splits for h in s.split(",")} - {""}
        times = [int(t) / 1000 for t, _ in starts]
        self.assertEqual((got["submits"], got["hosts"]), (len(tasks), len(hosts)))
        self.assertAlmostEqual(got["span"], max(times) - min(times), places=3)

    def test_rumen(self):
        path = trace_path("hadoop-rumen/input-trace.json")
        text, dec, i = read_text(path), json.JSONDecoder(), 0
        jobs = tasks = attempts = with_tasks = 0
        hosts = set()
        while text[i:].strip():
            job, i = dec.raw_decode(text, len(text) - len(text[i:].lstrip()))
            jobs += 1
            with_tasks += bool(job["mapTasks"] + job["reduceTasks"])  # the rest are not sent
            for t in job["mapTasks"] + job["reduceTasks"]:
                tasks += 1
                attempts += len(t["attempts"])
                hosts.update(loc["layers"][-1] for loc in t.get("preferredLocations") or [])
        got = check("rumen", path)
        self.assertEqual((got["jobs"], got["tasks"], got["attempts"], got["malformed"]),
                         (jobs, tasks, attempts, 0))
        self.assertEqual((got["submits"], got["hosts"]), (with_tasks, len(hosts)))

    def test_swim(self):
        path = trace_path("swim-fb/FB-2009_samples_24_times_1hr_1.tsv")
        rows = [l for l in read_text(path).splitlines() if l.strip()]
        got = check("swim", path)
        self.assertEqual((got["jobs"], got["events"], got["attempts"], got["malformed"]),
                         (len(rows), len(rows), 0, 0))

    def test_swim_fb2010_with_input_paths_on_3000_machines(self):
        path = trace_path("swim-fb/FB-2010_withInputPaths_0_hours00-11.tsv")
        rows = [l for l in read_text(path).splitlines() if l.strip()]
        got = check("swim", path)
        self.assertEqual((got["jobs"], got["malformed"], got["machines"]), (len(rows), 0, 3000))
        out = run_tail("--format", "swim", "--check", "--machines", "700", path)
        self.assertEqual(json.loads(out.stdout)["machines"], 700)  # a flag overrides

    def test_machines_default_follows_the_first_row(self):
        with tempfile.TemporaryDirectory() as d:
            fb2010, fb2009 = os.path.join(d, "a.tsv"), os.path.join(d, "b.tsv")
            with open(fb2010, "w") as f:
                f.write("job0\t1\t1\t5\t0\t0\tinputPath1\t\t\n")
            with open(fb2009, "w") as f:
                f.write("job0\t1\t1\t5\t0\t0\n")
            self.assertEqual(check("swim", fb2010)["machines"], 3000)
            self.assertEqual(check("swim", fb2009)["machines"], 600)
            self.assertEqual(check("swim", fb2009, fb2010)["machines"], 600)  # the first file

    def test_google(self):
        events = trace_path("google-clusterdata-2011-2/job_events")
        files = sorted(glob.glob(os.path.join(events, "*.gz")))
        self.assertEqual(len(files), 10)
        submits = sum(1 for f in files for l in read_text(f).splitlines()
                      if l.split(",")[3] == "0")
        got = check("google", *files)
        self.assertEqual((got["files"], got["jobs"], got["malformed"]), (10, submits, 0))

    def test_locsched_lines_and_malformed_lines_name_file_and_line(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "events.jsonl")
            with open(path, "w") as f:
                f.write('{"op":"machine_up","machine":"m0"}\n{"op":"job_submit","job":"j",\n'
                        '{"op":"job_submit","job":"k","tasks":[{"task":"t","replicas":["m0"]}]}\n'
                        '{"op":"hearbeat"}')
            out = run_tail("--format", "locsched", "--check", path)
            self.assertEqual(out.returncode, 0, out.stderr)
            got = json.loads(out.stdout)
            self.assertEqual((got["jobs"], got["tasks"], got["events"], got["malformed"]),
                             (1, 1, 2, 2))
            self.assertIn(path + ":2: malformed", out.stderr)
            self.assertIn(path + ":4: malformed", out.stderr)
            self.assertIn("did you mean 'heartbeat'", out.stderr)


class ErrorTest(unittest.TestCase):
    def test_bad_flags_exit_2_and_name_the_flag(self):
        for args, flag in ((["--format", "csv", "--check", "x"], "--format"),
                           (["--format", "swim", "x"], "--socket"),
                           (["--format", "swim", "--check", "--follow", "x"], "--follow"),
                           (["--format", "swim", "--check", "--window", "0", "x"], "--window"),
                           (["--format", "swim", "--socket", "s", "--checkpoint", "c", "x"],
                            "--checkpoint"),
                           (["--format", "swim", "--socket", "s", "-f", "--speed", "2", "x"],
                            "--speed"),
                           (["--format", "swim", "--check", "--bogus", "x"], "--bogus"),
                           (["--format", "rumen", "--socket", "s", "-f", "--map-hosts", "x"],
                            "--map-hosts"),
                           (["--check", "x"], "--format")):
            out = run_tail(*args)
            self.assertEqual(out.returncode, 2, (args, out.stderr))
            self.assertIn(flag, out.stderr, args)

    def test_check_fails_when_every_record_is_malformed(self):
        with tempfile.TemporaryDirectory() as d:
            rumen = os.path.join(d, "trace.json")
            with open(rumen, "w") as f:  # Rumen-like JSON read as SWIM
                f.write('{"jobID": "job_1", "submitTime": 1}\n{"jobID": "job_2"}\n')
            out = run_tail("--format", "swim", "--check", rumen)
            self.assertEqual(out.returncode, 1, out.stderr)
            self.assertEqual(json.loads(out.stdout)["malformed"], 2)
            self.assertIn("every one of the 2 records is malformed", out.stderr)
            mixed = os.path.join(d, "mixed.tsv")
            with open(mixed, "w") as f:
                f.write("job0\t0\t0\t100\t0\t10\nnot a row\n")
            out = run_tail("--format", "swim", "--check", mixed)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertEqual(json.loads(out.stdout)["malformed"], 1)

    def test_missing_file_is_a_clear_error(self):
        out = run_tail("--format", "swim", "--check", "/nonexistent/trace.tsv")
        self.assertEqual(out.returncode, 1)
        self.assertIn("/nonexistent/trace.tsv: No such file or directory", out.stderr)

    def test_truncated_and_corrupt_gzip(self):
        with tempfile.TemporaryDirectory() as d:
            with open(trace_path("hadoop-rumen/sample-job-tracker-logs.gz"), "rb") as f:
                data = f.read()
            cut, bad = os.path.join(d, "cut.gz"), os.path.join(d, "bad.gz")
            with open(cut, "wb") as f:
                f.write(data[:len(data) // 2])
            with open(bad, "wb") as f:
                f.write(data[:100] + bytes(b ^ 0xFF for b in data[100:200]) + data[200:])
            out = run_tail("--format", "jobhistory", "--check", cut)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertGreaterEqual(json.loads(out.stdout)["malformed"], 1)
            self.assertIn("truncated", out.stderr)
            out = run_tail("--format", "jobhistory", "--check", bad)
            self.assertEqual(out.returncode, 1)
            self.assertIn(bad + ": corrupt gzip data", out.stderr)

    def test_help_lists_formats_and_modes(self):
        out = run_tail("--help")
        self.assertEqual(out.returncode, 0)
        for word in ("jobhistory", "rumen", "swim", "google", "locsched", "--check", "--follow",
                     "--checkpoint", "--speed"):
            self.assertIn(word, out.stdout)

    def test_unreachable_daemon_is_reported(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "a.tsv")
            with open(path, "w") as f:
                f.write("job0\t1\t1\t1\t0\t0\n")
            out = run_tail("--format", "swim", "--socket", os.path.join(d, "none.sock"),
                           "--retry-for", "0.3", "-q", path)
            self.assertEqual(out.returncode, 1)
            self.assertIn("none.sock", out.stderr)


class Daemon(daemon_harness.Daemon):
    """A locschedd on sockets in `d` with a journal there, restartable in place."""

    def __init__(self, d):
        super().__init__(DAEMON, "journal.path=" + os.path.join(d, "journal"), directory=d)

    def submitted(self):
        return self.call({"op": "status"})["jobs"]["submitted"]

    def machines_up(self, n):
        for i in range(n):
            assert self.call({"op": "machine_up", "machine": "m%d" % i}, control=False)["ok"]


def swim_rows(first, count, tag="job"):
    """SWIM rows with small inputs (one to three maps) and distinct job names."""
    return "".join("%s%d\t%d\t1\t%d\t0\t0\n" % (tag, i, i, (i % 3 + 1) * 60_000_000)
                   for i in range(first, first + count))


def wait_until(cond, what, timeout=15):
    deadline = time.time() + timeout
    while not cond():
        if time.time() > deadline:
            raise AssertionError("timed out waiting for " + what)
        time.sleep(0.05)


class SendTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="locsched-tail-test-")
        self.d = Daemon(self.dir)
        self.d.machines_up(MACHINES)
        self.log = os.path.join(self.dir, "jobs.tsv")
        self.ckpt = os.path.join(self.dir, "tail.ckpt")
        self.tailer = None

    def tearDown(self):
        if self.tailer and self.tailer.poll() is None:
            self.tailer.kill()
            self.tailer.communicate()
        self.d.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def append(self, text, path=None):
        with open(path or self.log, "a") as f:
            f.write(text)

    def follow(self):
        self.tailer = subprocess.Popen(
            [TAIL, "--format", "swim", "--machines", str(MACHINES), "--follow", "--socket",
             self.d.event, "--checkpoint", self.ckpt, "--poll", "0.05", "--json", self.log],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def stop_follow(self):
        self.tailer.send_signal(signal.SIGTERM)
        out, err = self.tailer.communicate(timeout=20)
        self.assertEqual(self.tailer.returncode, 0, err)
        return json.loads(out)

    def replay(self, *args):
        """A replay of self.log at full speed: (exit code, summary or None, stderr)."""
        out = run_tail("--format", "swim", "--machines", str(MACHINES), "--socket", self.d.event,
                       "--json", "-q", *args, self.log)
        return out.returncode, json.loads(out.stdout) if out.stdout else None, out.stderr

    def live_jobs(self):
        return {j["job"] for j in self.d.call({"op": "jobs"})["jobs"]}

    def test_replaying_a_file_twice_runs_every_job_twice_under_distinct_names(self):
        self.append(swim_rows(0, 200))
        runs = []
        for _ in range(2):
            code, s, err = self.replay()
            self.assertEqual(code, 0, err)
            self.assertEqual((s["requests"], s["accepted"], s["duplicates"], s["rejected"]),
                             (200, 200, 0, 0), s)
            runs.append(s.get("run"))
            self.assertIn("replay run %s " % runs[-1], err)
        self.assertNotEqual(runs[0], runs[1])
        self.assertEqual(self.d.submitted(), 400)
        self.assertEqual(self.live_jobs(), {"job%d@%s" % (i, r) for i in range(200) for r in runs})

    def test_a_replay_killed_midway_and_resumed_sends_each_job_once(self):
        self.append(swim_rows(0, 300))
        self.tailer = subprocess.Popen(
            [TAIL, "--format", "swim", "--machines", str(MACHINES), "--socket", self.d.event,
             "--speed", "100", "--json", "-q", self.log],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        run = re.search(r"replay run (\S+) ", self.tailer.stderr.readline()).group(1)
        wait_until(lambda: self.d.submitted() >= 50, "some jobs")
        self.tailer.kill()  # mid-run: no summary, some requests unanswered
        self.tailer.communicate()
        before = self.d.submitted()
        self.assertLess(before, 300)
        code, s, err = self.replay("--resume", run)
        self.assertEqual(code, 0, err)
        self.assertIn("resuming replay run " + run, err)
        self.assertEqual(s["run"], run)
        self.assertEqual((s["requests"], s["rejected"]), (300, 0), s)
        # What the killed run had applied came back as duplicates; the rest applied once.
        self.assertGreaterEqual(s["duplicates"], before, s)
        self.assertEqual(self.d.submitted(), 300)
        self.assertEqual(self.live_jobs(), {"job%d@%s" % (i, run) for i in range(300)})

    def test_a_replay_that_applies_nothing_says_so_and_exits_3(self):
        self.append(swim_rows(0, 20))
        code, s, err = self.replay()
        self.assertEqual(code, 0, err)
        code, again, err = self.replay("--resume", s["run"])
        self.assertEqual(code, 3, err)
        self.assertEqual((again["accepted"], again["duplicates"]), (20, 20), again)
        self.assertIn("every one of the 20 requests was answered as a duplicate", err)
        self.assertIn("applied nothing", err)
        self.assertEqual(self.d.submitted(), 20)

    def test_resume_flag_errors(self):
        self.append(swim_rows(0, 1))
        for args, words in ((["--resume", "a b"], "--resume: a run id is made of"),
                            (["--resume", ""], "--resume: a run id has 1 to 64"),
                            (["--resume", "x", "--follow"], "--resume: applies to replays")):
            out = run_tail("--format", "swim", "--socket", self.d.event, *args, self.log)
            self.assertEqual(out.returncode, 2, out.stderr)
            self.assertIn(words, out.stderr)

    def test_replay_of_shared_inputs_is_accepted(self):
        # Jobs reading inputPath1 and inputPath2 (9 fields): every holder is a machine up.
        self.append("".join("j%d\t%d\t1\t%d\t0\t0\tinputPath%d\t\t\n"
                            % (i, i, (i % 3 + 1) * 60_000_000, i % 2 + 1) for i in range(40)))
        out = run_tail("--format", "swim", "--machines", str(MACHINES), "--socket",
                       self.d.event, "--json", "-q", self.log)
        self.assertEqual(out.returncode, 0, out.stderr)
        s = json.loads(out.stdout)
        self.assertEqual((s["requests"], s["accepted"], s["rejected"]), (40, 40, 0))
        self.assertEqual(self.d.submitted(), 40)

    def test_follow_partial_lines_rotation_truncation_and_checkpoint_restart(self):
        self.follow()  # the file does not exist yet
        time.sleep(0.3)
        self.append(swim_rows(0, 50)[:-5])  # the last line is partial
        wait_until(lambda: self.d.submitted() == 49, "the 49 whole lines")
        time.sleep(0.3)
        self.assertEqual(self.d.submitted(), 49)
        self.append(swim_rows(49, 1)[-5:])  # completes it
        wait_until(lambda: self.d.submitted() == 50, "the completed line")
        os.rename(self.log, self.log + ".1")  # rotation by rename
        self.append(swim_rows(50, 30))
        wait_until(lambda: self.d.submitted() == 80, "the rotated-in file")
        shutil.copy(self.log, self.log + ".2")  # copy-truncate
        with open(self.log, "r+") as f:
            f.truncate(0)
        time.sleep(0.3)  # let the tailer see the file shrink
        self.append(swim_rows(80, 20))
        wait_until(lambda: self.d.submitted() == 100, "the truncated file's new lines")
        s = self.stop_follow()
        self.assertEqual((s["rejected"], s["duplicates"], s["rotations"]), (0, 0, 2))
        self.append(swim_rows(100, 10))  # written while the tailer is down
        self.follow()
        wait_until(lambda: self.d.submitted() == 110, "the lines written while down")
        s = self.stop_follow()
        self.assertEqual((s["requests"], s["duplicates"], s["rejected"]), (10, 0, 0))

    def test_two_followed_logs_with_one_basename_do_not_share_ids(self):
        a, b = os.path.join(self.dir, "a"), os.path.join(self.dir, "b")
        os.mkdir(a)
        os.mkdir(b)
        self.append(swim_rows(0, 20, "a"), os.path.join(a, "jobs.tsv"))
        self.append(swim_rows(0, 30, "b"), os.path.join(b, "jobs.tsv"))
        self.tailer = subprocess.Popen(
            [TAIL, "--format", "swim", "--machines", str(MACHINES), "--follow", "--socket",
             self.d.event, "--idle-exit", "0.5", "--poll", "0.05", "--json",
             os.path.join(a, "jobs.tsv"), os.path.join(b, "jobs.tsv")],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out, err = self.tailer.communicate(timeout=30)
        self.assertEqual(self.tailer.returncode, 0, err)
        s = json.loads(out)
        self.assertEqual((s["requests"], s["accepted"], s["duplicates"]), (50, 50, 0))
        self.assertEqual(self.d.submitted(), 50)

    def test_kill_9_then_restart_loses_nothing_and_doubles_nothing(self):
        self.append(swim_rows(0, 300))
        self.follow()
        wait_until(lambda: self.d.submitted() >= 50, "some jobs")
        self.tailer.kill()  # no chance to save: the checkpoint may lag
        self.tailer.communicate()
        self.append(swim_rows(300, 100))
        self.follow()
        wait_until(lambda: self.d.submitted() >= 400, "every job")
        s = self.stop_follow()
        self.assertEqual(s["rejected"], 0)
        self.assertEqual(self.d.submitted(), 400)  # resent ones were duplicates, not new jobs

    def test_daemon_restart_mid_stream(self):
        self.append(swim_rows(0, 300))
        proc = subprocess.Popen(
            [TAIL, "--format", "swim", "--machines", str(MACHINES), "--socket", self.d.event,
             "--speed", "100", "--retry-for", "20", "--json", "-q", self.log],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.tailer = proc
        wait_until(lambda: self.d.submitted() >= 40, "the replay to start")
        self.d.kill()
        self.d.start()  # replays its journal: the machines and the jobs come back
        out, err = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 0, err)
        s = json.loads(out)
        self.assertGreaterEqual(s["reconnects"], 1, err)
        self.assertEqual((s["requests"], s["rejected"]), (300, 0), err)
        self.assertEqual(self.d.submitted(), 300)


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit("usage: tail_test.py LOCSCHED-TAIL LOCSCHEDD TRACES_DIR [unittest options]")
    TAIL, DAEMON, TRACES = sys.argv[1:4]
    unittest.main(argv=[sys.argv[0]] + sys.argv[4:])
