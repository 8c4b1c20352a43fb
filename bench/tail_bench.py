#!/usr/bin/env python3
"""Throughput of locsched-tail -> locschedd at full speed (replay, --speed 0).

Usage: tail_bench.py LOCSCHED-TAIL LOCSCHEDD TRACES_DIR [runs]

Two inputs, each replayed into a fresh daemon (no journal, then a batched
journal): the SWIM FB-2009 day (5,894 job_submit requests carrying 427,900
tasks; replicas placed on 600 machines, registered by --announce-machines), and
a generated locsched JSON-lines log of 100,000 one-task job_submit requests.
The daemon accepts lines up to 64 MiB (the largest SWIM job is an ~8 MB line).
Prints one line per run: input, journal, requests, seconds, requests/s, tasks/s.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time


def daemon(d, journal):
    ev, ctl = os.path.join(d, "ev.sock"), os.path.join(d, "ctl.sock")
    argv = [DAEMON, "--set", "sockets.event_path=" + ev, "--set", "sockets.control_path=" + ctl,
            "--set", "log.target=stderr", "--set", "log.level=warn",
            "--set", "limits.max_line_bytes=67108864"]  # the largest SWIM job has 112,523 maps
    if journal:
        argv += ["--set", "journal.path=" + os.path.join(d, "journal")]
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while not os.path.exists(ctl):
        time.sleep(0.02)
    return p, ev


def jsonl(path, n, machines=100):
    with open(path, "w") as f:
        for i in range(machines):
            f.write(json.dumps({"op": "machine_up", "machine": "m%d" % i}) + "\n")
        for i in range(n):
            f.write(json.dumps({"op": "job_submit", "job": "j%d" % i, "tasks": [
                {"task": "t0", "replicas": ["m%d" % (i % machines), "m%d" % ((i + 1) % machines)]}]},
                separators=(",", ":")) + "\n")


def run(fmt, path, tasks, journal, extra):
    d = tempfile.mkdtemp(prefix="locsched-tail-bench-")
    p, ev = daemon(d, journal)
    try:
        out = subprocess.run([TAIL, "--format", fmt, "--socket", ev, "--json", "-q", *extra, path],
                             capture_output=True, text=True, check=True)
        s = json.loads(out.stdout)
        assert s["rejected"] == 0, out.stderr
        print("%-9s journal=%-5s requests=%7d  %6.2f s  %8.0f requests/s  %9.0f tasks/s" % (
            fmt, "on" if journal else "off", s["requests"], s["seconds"], s["requests_per_s"],
            tasks / s["seconds"]), flush=True)
    finally:
        p.send_signal(signal.SIGTERM)
        p.wait()
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    TAIL, DAEMON, TRACES = sys.argv[1:4]
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    swim = os.path.join(TRACES, "swim-fb/FB-2009_samples_24_times_1hr_0.tsv")
    tmp = tempfile.mkdtemp()
    lines = os.path.join(tmp, "jobs.jsonl")
    jsonl(lines, 100_000)
    for journal in (False, True):
        for _ in range(runs):
            run("swim", swim, 427_900, journal, ["--machines", "600", "--announce-machines"])
        for _ in range(runs):
            run("locsched", lines, 100_000, journal, [])
    shutil.rmtree(tmp)
