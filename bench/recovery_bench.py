#!/usr/bin/python3
"""Recovery time after kill -9 at 100,000 queued tasks (docs/benchmarks.md, section 7).

Starts locschedd with a journal in a temporary directory, registers 1,000 machines,
submits 1,000 jobs of 100 tasks (3 replicas each) and one heartbeat per machine,
kills the daemon with SIGKILL, restarts it on the same journal, and reports the
time from exec to the event socket accepting, and the daemon's own recovery line.

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
D=sys.argv[1]; d=tempfile.mkdtemp(prefix='locsched-recovery-')
args=[D,"--set","sockets.event_path=%s/e.sock"%d,"--set","sockets.control_path=%s/c.sock"%d,"--set","journal.path=%s/journal.log"%d,"--set","log.target=stderr"]
log=open(d+'/d.log','a')
p=subprocess.Popen(args,stderr=log)
while not os.path.exists(d+'/e.sock'): time.sleep(0.01)
s=socket.socket(socket.AF_UNIX); s.connect(d+'/e.sock'); f=s.makefile('rb')
def batch(lines):
    s.sendall(''.join(json.dumps(l)+'\n' for l in lines).encode())
    for _ in lines:
        r=json.loads(f.readline()); assert r['ok'], r
batch([{"op":"machine_up","machine":"n%d"%i,"slots":2} for i in range(1000)])
random.seed(1)
for j in range(1000):
    batch([{"op":"job_submit","id":"s%d"%j,"job":"job%d"%j,"tasks":[{"task":"t%d"%t,"replicas":["n%d"%m for m in random.sample(range(800),3)]} for t in range(100)]}])
batch([{"op":"heartbeat","id":"h%d"%i,"machine":"n%d"%i,"free_slots":1} for i in range(1000)])
p.kill(); p.wait()
size=os.path.getsize(d+'/journal.log')
t0=time.time(); p=subprocess.Popen(args,stderr=log)
while True:
    try:
        c=socket.socket(socket.AF_UNIX); c.connect(d+'/e.sock'); break
    except OSError: time.sleep(0.002)
ready=time.time()-t0
cf=c.makefile('rb'); c.sendall(b'{"op":"status"}\n'); st=json.loads(cf.readline())
p.terminate(); p.wait(); log.close()
line=[l for l in open(d+'/d.log') if 'recovered' in l][-1].strip()
print("journal %.1f MB; restart to ready %.0f ms; queued %d running %d" % (size/1e6, ready*1000, st['tasks']['queued'], st['tasks']['running']))
print(line)
