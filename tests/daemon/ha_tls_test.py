#!/usr/bin/python3
"""TLS on the TCP listener of high-availability mode, against a real ZooKeeper
(Debian's zookeeper package, standalone on loopback) and two locschedd
instances whose ha.tls_certificate and ha.tls_key come from a throwaway CA made
here with the openssl CLI (the server certificate names IP:127.0.0.1 and
DNS:localhost).

- locschedctl over tls: with the CA (from $LOCSCHED_TLS_CA or --tls-ca) reads
  the active's status, by IP address or by DNS name; given only the standby, it
  follows the active the standby names, still over TLS; locsched-tail and
  locsched-agents work over tls: too.
- The shared secret never crosses the wire in the clear: a relay between
  locschedctl and the daemon records every byte, and the secret is not in them.
- No CA, an unreadable CA, a wrong CA, or a certificate naming another host:
  exit 77 with one clean line naming the CA file and the reason.
- A plaintext client (tcp:) is refused with a line saying the listener speaks
  TLS only (exit 69), the daemon logs it with the peer's address, and a client
  that connects and says nothing does not hold up the others.
- A certificate without its key, an unreadable certificate, or a key that does
  not match stops the start (exit 1), naming the key and the file.

Usage: ha_tls_test.py LOCSCHEDD LOCSCHEDCTL LOCSCHED-TAIL LOCSCHED-AGENTS [unittest options]
"""
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import zookeeper  # noqa: E402

DAEMON = CTL = TAIL = AGENTS = None  # set from the command line in __main__
SECRET = "ha-tls-secret-0123456789abcdef"
TMP = None
ZK = None


def openssl(*args):
    subprocess.run(["openssl"] + list(args), check=True, capture_output=True, timeout=30)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def make_ca(name):
    """A self-signed CA in TMP: (certificate, key)."""
    cnf = write(os.path.join(TMP, name + ".cnf"),
                "[req]\ndistinguished_name = dn\nprompt = no\n[dn]\nCN = %s\n"
                "[v3_ca]\nbasicConstraints = critical,CA:TRUE\n"
                "keyUsage = critical,keyCertSign,cRLSign\n"
                "subjectKeyIdentifier = hash\n" % name)
    cert, key = os.path.join(TMP, name + ".pem"), os.path.join(TMP, name + ".key")
    openssl("req", "-x509", "-config", cnf, "-extensions", "v3_ca", "-newkey", "ec",
            "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", cert,
            "-days", "2")
    return cert, key


def make_server_cert(name, ca, san):
    """A server certificate signed by `ca` naming `san`: (certificate, key)."""
    cnf = write(os.path.join(TMP, name + ".cnf"),
                "[req]\ndistinguished_name = dn\nprompt = no\n[dn]\nCN = %s\n"
                "[v3_srv]\nbasicConstraints = CA:FALSE\nkeyUsage = critical,digitalSignature\n"
                "extendedKeyUsage = serverAuth\nsubjectAltName = %s\n" % (name, san))
    cert, key = os.path.join(TMP, name + ".pem"), os.path.join(TMP, name + ".key")
    csr = os.path.join(TMP, name + ".csr")
    openssl("req", "-new", "-config", cnf, "-newkey", "ec", "-pkeyopt",
            "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", csr)
    openssl("x509", "-req", "-in", csr, "-CA", ca[0], "-CAkey", ca[1], "-set_serial", "1",
            "-days", "2", "-out", cert, "-extfile", cnf, "-extensions", "v3_srv")
    return cert, key


class Instance:
    """One locschedd in high-availability mode with TLS on its TCP listener."""

    def __init__(self, n, cert, key, extra=()):
        self.dir = os.path.join(TMP, "i%d" % n)
        os.makedirs(self.dir, exist_ok=True)
        self.port = zookeeper.free_port()
        self.address = "127.0.0.1:%d" % self.port
        self.control = os.path.join(self.dir, "c.sock")
        self.log_path = os.path.join(TMP, "locschedd-%d.log" % n)
        self.log = open(self.log_path, "a")
        argv = [DAEMON, "--set", "sockets.event_path=" + os.path.join(self.dir, "e.sock"),
                "--set", "sockets.control_path=" + self.control,
                "--set", "ha.zookeeper=" + ZK.hosts, "--set", "ha.path=/tls",
                "--set", "ha.instance=" + self.address,
                "--set", "ha.secret_file=" + os.path.join(TMP, "secret"),
                "--set", "ha.session_timeout_ms=2000", "--set", "log.target=stderr"]
        if cert is not None:
            argv += ["--set", "ha.tls_certificate=" + cert]
        if key is not None:
            argv += ["--set", "ha.tls_key=" + key]
        for kv in extra:
            argv += ["--set", kv]
        self.proc = subprocess.Popen(argv, stderr=self.log)

    def wait_role(self, want, timeout=30):
        """Asks over the Unix control socket until this instance has role `want`."""
        end = time.time() + timeout
        while time.time() < end:
            if self.proc.poll() is not None:
                raise AssertionError("locschedd exited %d: see %s" % (self.proc.returncode,
                                                                      self.log_path))
            out = subprocess.run([CTL, "--socket", self.control, "status", "--json"],
                                 capture_output=True, text=True, timeout=10)
            if out.returncode == 0 and json.loads(out.stdout).get("ha", {}).get("role") == want:
                return
            time.sleep(0.05)
        raise AssertionError("%s did not become %s within %d s" % (self.address, want, timeout))

    def log_text(self):
        self.log.flush()
        with open(self.log_path) as f:
            return f.read()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


class Relay:
    """A TCP relay on loopback that records every byte the client sends."""

    def __init__(self, target_port):
        self.target = ("127.0.0.1", target_port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.sent = bytearray()
        self.lock = threading.Lock()
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            threading.Thread(target=self.pump, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self.pump, args=(upstream, client, False),
                             daemon=True).start()

    def pump(self, src, dst, record):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                if record:
                    with self.lock:
                        self.sent += data
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self):
        self.listener.close()


def setUpModule():
    global TMP, ZK
    why = zookeeper.available()
    if why:
        raise SystemExit("ZooKeeper is not installed (tools/install-deps.sh installs it): " + why)
    if shutil.which("openssl") is None:
        raise SystemExit("the openssl CLI is not installed (tools/install-deps.sh installs it)")
    TMP = tempfile.mkdtemp(prefix="locsched-ha-tls-")
    write(os.path.join(TMP, "secret"), SECRET + "\n")
    ZK = zookeeper.ZooKeeper(TMP)
    ZK.start()


def tearDownModule():
    ZK.stop()
    shutil.rmtree(TMP, ignore_errors=True)


class HaTls(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.ca = make_ca("ca")
        cls.wrong_ca = make_ca("wrong-ca")
        cls.server = make_server_cert("server", cls.ca, "IP:127.0.0.1,DNS:localhost")
        cls.instances = []
        try:
            cls.active = Instance(0, *cls.server)
            cls.instances.append(cls.active)
            cls.active.wait_role("active")
            cls.standby = Instance(1, *cls.server)
            cls.instances.append(cls.standby)
            cls.standby.wait_role("standby")
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        for inst in cls.instances:
            inst.stop()
        for inst in cls.instances:  # a clean stop: no sanitizer report, no crash
            with open(inst.log_path) as f:
                log = f.read()
            if inst.proc.returncode != 0 or "Sanitizer" in log or "runtime error" in log:
                raise AssertionError("locschedd at %s exited %d: see %s" % (
                    inst.address, inst.proc.returncode, inst.log_path))

    def env(self, ca):
        env = dict(os.environ)
        env["LOCSCHED_SECRET_FILE"] = os.path.join(TMP, "secret")
        env.pop("LOCSCHED_TLS_CA", None)
        if ca is not None:
            env["LOCSCHED_TLS_CA"] = ca
        return env

    def ctl(self, socket_arg, *args, ca=None):
        return subprocess.run([CTL, "--socket", socket_arg] + list(args), env=self.env(ca),
                              capture_output=True, text=True, timeout=30)

    def assert_clean(self, text):
        """One human line: no JSON object in it."""
        self.assertNotIn("{", text)
        self.assertEqual(text.strip().count("\n"), 0, text)

    def assert_active_status(self, out):
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(json.loads(out.stdout)["ha"]["role"], "active")

    def test_ctl_over_tls_with_the_ca_reads_the_status(self):
        self.assert_active_status(
            self.ctl("tls:" + self.active.address, "status", "--json", ca=self.ca[0]))
        self.assert_active_status(
            self.ctl("tls:localhost:%d" % self.active.port, "status", "--json", ca=self.ca[0]))
        self.assert_active_status(self.ctl("tls:" + self.active.address, "--tls-ca", self.ca[0],
                                           "status", "--json"))

    def test_ctl_follows_the_standby_to_the_active_over_tls(self):
        out = self.ctl("tls:" + self.standby.address, "status", "--json", ca=self.ca[0])
        self.assert_active_status(out)
        self.assertEqual(json.loads(out.stdout)["ha"]["instance"], self.active.address)

    def test_the_secret_never_crosses_the_wire_in_the_clear(self):
        relay = Relay(self.active.port)
        try:
            self.assert_active_status(self.ctl("tls:127.0.0.1:%d" % relay.port, "status",
                                               "--json", ca=self.ca[0]))
            with relay.lock:
                sent = bytes(relay.sent)
        finally:
            relay.close()
        self.assertGreater(len(sent), 0)
        self.assertEqual(sent[0], 0x16, "the client's first byte is not a TLS handshake record")
        self.assertNotIn(SECRET.encode(), sent)
        self.assertNotIn(b'"op":"hello"', sent)

    def test_no_ca_exits_77_naming_the_variable(self):
        out = self.ctl("tls:" + self.active.address, "status")
        self.assertEqual(out.returncode, 77, out.stderr)
        self.assertIn("LOCSCHED_TLS_CA: is not set", out.stderr)
        self.assert_clean(out.stderr)
        missing = os.path.join(TMP, "no-such-ca.pem")
        out = self.ctl("tls:" + self.active.address, "status", ca=missing)
        self.assertEqual(out.returncode, 77, out.stderr)
        self.assertIn(missing + ": cannot read the CA certificate", out.stderr)

    def test_a_wrong_ca_exits_77_naming_the_file_and_the_reason(self):
        start = time.time()
        out = self.ctl("tls:" + self.active.address + "," + self.standby.address, "status",
                       ca=self.wrong_ca[0])
        self.assertEqual(out.returncode, 77, out.stderr)
        self.assertIn("certificate failed verification against the CA in " + self.wrong_ca[0],
                      out.stderr)
        self.assertIn("unable to get local issuer certificate", out.stderr)
        self.assert_clean(out.stderr)
        self.assertLess(time.time() - start, 10)
        self.assertIn("TLS handshake with 127.0.0.1:", self.active.log_text())

    def test_a_certificate_naming_another_host_exits_77(self):
        elsewhere = make_server_cert("elsewhere", self.ca, "DNS:elsewhere.example")
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*elsewhere)
        listener = socket.create_server(("127.0.0.1", 0))
        port = listener.getsockname()[1]

        def serve():
            conn, _ = listener.accept()
            try:
                with context.wrap_socket(conn, server_side=True) as tls:
                    tls.recv(1)
            except (OSError, ssl.SSLError):
                pass

        server = threading.Thread(target=serve, daemon=True)
        server.start()
        try:
            out = self.ctl("tls:127.0.0.1:%d" % port, "status", ca=self.ca[0])
        finally:
            listener.close()
        self.assertEqual(out.returncode, 77, out.stderr)
        self.assertIn("IP address mismatch", out.stderr)
        self.assert_clean(out.stderr)

    def test_a_plaintext_client_is_refused_cleanly(self):
        silent = socket.create_connection(("127.0.0.1", self.active.port))  # never says a word
        try:
            out = self.ctl("tcp:" + self.active.address, "status")
            self.assertEqual(out.returncode, 69, out.stderr)
            self.assertIn("this listener speaks TLS only", out.stderr)
            self.assert_clean(out.stderr)
            with socket.create_connection(("127.0.0.1", self.active.port), timeout=10) as raw:
                raw.sendall(json.dumps({"op": "hello", "secret": SECRET}).encode() + b"\n")
                reply = b""
                while True:
                    chunk = raw.recv(4096)
                    if not chunk:
                        break
                    reply += chunk
            answer = json.loads(reply.split(b"\n", 1)[0])
            self.assertFalse(answer["ok"])
            self.assertNotIn("role", answer)
            self.assertIn("speaks TLS only", answer["error"]["message"])
            self.assert_active_status(self.ctl("tls:" + self.active.address, "status", "--json",
                                               ca=self.ca[0]))
        finally:
            silent.close()
        self.assertIn("refused a plaintext client at 127.0.0.1:", self.active.log_text())

    def test_tail_and_agents_work_over_tls(self):
        log = write(os.path.join(TMP, "events.jsonl"),
                    json.dumps({"op": "machine_up", "machine": "tls0", "slots": 1}) + "\n")
        address = "tls:" + self.standby.address + "," + self.active.address
        out = subprocess.run([TAIL, "--format", "locsched", "--socket", address, "--tls-ca",
                              self.ca[0], "-q", log], env=self.env(None), capture_output=True,
                             text=True, timeout=30)
        self.assertEqual(out.returncode, 0, out.stderr)
        out = subprocess.run([AGENTS, "--socket", address, "--machines", "4", "--duration", "2",
                              "--prefix", "tls-", "-q"], env=self.env(self.ca[0]),
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        wrong = subprocess.run([AGENTS, "--socket", address, "--machines", "4", "--duration",
                                "2", "-q"], env=self.env(self.wrong_ca[0]), capture_output=True,
                               text=True, timeout=30)
        self.assertEqual(wrong.returncode, 77, wrong.stderr)


class BadTlsFiles(unittest.TestCase):
    def start(self, n, cert, key):
        inst = Instance(n, cert, key)
        try:
            inst.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            inst.stop()
            self.fail("locschedd started with a bad TLS configuration")
        inst.stop()
        with open(inst.log_path) as f:
            return inst.proc.returncode, f.read()

    def test_a_certificate_without_its_key_is_refused_naming_the_key(self):
        cert, _ = make_server_cert("lonely", make_ca("ca-lonely"), "IP:127.0.0.1")
        rc, log = self.start(10, cert, None)
        self.assertEqual(rc, 1, log)
        self.assertIn("ha.tls_key: is required when ha.tls_certificate is set", log)

    def test_an_unreadable_or_mismatched_file_stops_the_start(self):
        ca = make_ca("ca-bad")
        cert, key = make_server_cert("bad", ca, "IP:127.0.0.1")
        _, other_key = make_server_cert("other", ca, "IP:127.0.0.1")
        missing = os.path.join(TMP, "missing.pem")
        rc, log = self.start(11, missing, key)
        self.assertEqual(rc, 1, log)
        self.assertIn("ha.tls_certificate: %s: cannot read" % missing, log)
        garbage = write(os.path.join(TMP, "garbage.pem"), "not a certificate\n")
        rc, log = self.start(12, garbage, key)
        self.assertEqual(rc, 1, log)
        self.assertIn("ha.tls_certificate: %s: not a usable PEM certificate chain" % garbage, log)
        rc, log = self.start(13, cert, other_key)
        self.assertEqual(rc, 1, log)
        self.assertIn("ha.tls_key: %s: does not match the certificate in %s" % (other_key, cert),
                      log)


if __name__ == "__main__":
    DAEMON, CTL, TAIL, AGENTS = sys.argv[1:5]
    unittest.main(argv=sys.argv[:1] + sys.argv[5:])
