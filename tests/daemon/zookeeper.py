"""A throwaway ZooKeeper for tests: the server from Debian's zookeeper package,
standalone, on a free loopback port, with its data in a temporary folder. Java
takes a second or two to start; start() waits until the server answers `ruok`.

    zk = ZooKeeper(tmpdir); zk.start(); ... zk.stop() / zk.pause() / zk.resume()
    cli(zk.hosts, ["ls /"])  # zkCli.sh, to look at or plant nodes
"""
import os
import signal
import socket
import subprocess
import time

CLASSPATH = "/etc/zookeeper/conf:/usr/share/java/zookeeper.jar"
MAIN = "org.apache.zookeeper.server.quorum.QuorumPeerMain"


def available():
    """'' if a ZooKeeper server and java are installed, else why not."""
    if not os.path.exists("/usr/share/java/zookeeper.jar"):
        return "/usr/share/java/zookeeper.jar is missing (Debian package zookeeper)"
    if not os.path.exists("/usr/bin/java"):
        return "/usr/bin/java is missing"
    return ""


def cli(hosts, commands, timeout=60):
    """Runs Debian's zkCli.sh against `hosts` with `commands`, one a line; returns what
    it printed (each `ls` as "[a, b]")."""
    r = subprocess.run(["/usr/share/zookeeper/bin/zkCli.sh", "-server", hosts],
                       input="\n".join(commands) + "\nquit\n", capture_output=True,
                       text=True, timeout=timeout)
    return r.stdout


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class ZooKeeper:
    def __init__(self, tmp, tick_ms=250):
        self.dir = os.path.join(tmp, "zookeeper")
        os.makedirs(os.path.join(self.dir, "data"), exist_ok=True)
        self.port = free_port()
        self.tick_ms = tick_ms
        self.proc = None

    @property
    def hosts(self):
        return "127.0.0.1:%d" % self.port

    def start(self, timeout=60):
        cfg = os.path.join(self.dir, "zoo.cfg")
        with open(cfg, "w") as f:
            # minSessionTimeout = 2 ticks: the tests use sessions of a second or two.
            f.write("tickTime=%d\ndataDir=%s\nclientPort=%d\nclientPortAddress=127.0.0.1\n"
                    "admin.enableServer=false\nmaxClientCnxns=0\n"
                    "4lw.commands.whitelist=ruok,srvr\n"
                    % (self.tick_ms, os.path.join(self.dir, "data"), self.port))
        log = open(os.path.join(self.dir, "server.log"), "a")
        self.proc = subprocess.Popen(
            ["/usr/bin/java", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
             "-Dzookeeper.log.dir=" + self.dir, "-cp", CLASSPATH, MAIN, cfg],
            stdout=log, stderr=subprocess.STDOUT)
        end = time.time() + timeout
        while time.time() < end:
            if self.proc.poll() is not None:
                raise SystemExit("ZooKeeper exited: see " + log.name)
            if self.ruok():
                return
            time.sleep(0.1)
        raise SystemExit("ZooKeeper did not answer ruok within %d s" % timeout)

    def ruok(self):
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                s.sendall(b"ruok")
                return s.recv(16) == b"imok"
        except OSError:
            return False

    def pause(self):
        """An outage that keeps the sessions: the server stops answering."""
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self):
        self.proc.send_signal(signal.SIGCONT)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.kill()
            self.proc.wait()
