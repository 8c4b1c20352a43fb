#!/usr/bin/python3
"""The dashboard at GET / in headless Chromium, while locsched-agents runs.

Usage: dashboard_test.py /path/to/locschedd /path/to/locsched-agents [unittest options]

Loads the page twice with `chromium --headless --dump-dom` while the emulator
keeps the daemon busy, and checks that the page polled the daemon, drew every
panel, and that its numbers changed between the two loads; then saves a
screenshot (to $LOCSCHED_DASHBOARD_PNG when set, as docs/dashboard.png is made;
else to a temporary file). Skipped, with a message, only where Chromium (Debian
package chromium) is not installed.
"""
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import daemon_harness  # noqa: E402

DAEMON = None  # set from the command line in __main__
AGENTS = None


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Dashboard(unittest.TestCase):
    def setUp(self):
        self.browser = chromium()
        if not self.browser:
            self.skipTest("chromium is not installed (Debian package chromium): "
                          "the dashboard was not loaded")
        self.port = free_port()
        self.daemon = daemon_harness.Daemon(DAEMON, "http.listen=127.0.0.1:%d" % self.port)
        self.profile = tempfile.mkdtemp(prefix="locsched-chromium-")
        self.agents = subprocess.Popen(
            [AGENTS, "--socket", self.daemon.event, "--machines", "200", "--slots", "2",
             "--load", "60", "--job-size-mean", "10", "--speed", "10", "--heartbeat", "0.5",
             "--duration", "3000", "-q"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def tearDown(self):
        self.agents.terminate()
        self.agents.wait(timeout=30)
        self.agents.stderr.close()
        self.assertEqual(self.daemon.stop(), 0)
        shutil.rmtree(self.profile, ignore_errors=True)

    def headless(self, budget_ms, *args):
        """Runs Chromium once on the page, with a profile of its own; (code, stdout, stderr).
        Output goes through files: a helper process Chromium leaves behind may keep a
        pipe open long after the page is done."""
        profile = tempfile.mkdtemp(dir=self.profile)
        argv = [self.browser, "--virtual-time-budget=%d" % budget_ms, "--headless", "--no-sandbox", "--disable-gpu",
                "--no-first-run", "--user-data-dir=" + profile,
                "--window-size=1280,1000"] + list(args)
        argv.append("http://127.0.0.1:%d/" % self.port)
        with open(os.path.join(profile, "out"), "w+") as out, \
                open(os.path.join(profile, "err"), "w+") as err:
            code = subprocess.run(argv, stdout=out, stderr=err, timeout=120).returncode
            out.seek(0)
            err.seek(0)
            return code, out.read(), err.read()

    def load(self):
        """The page's text figures after it polled for a few (virtual) seconds."""
        code, dom, err = self.headless(4000, "--dump-dom")
        self.assertEqual(code, 0, err[-2000:])
        polls = re.search(r'data-polls="(\d+)"', dom)
        self.assertTrue(polls and int(polls.group(1)) >= 1, dom[:2000])
        self.assertIn('id="state">live<', dom)
        figures = dict(re.findall(r'id="([a-z-]+)">([0-9][0-9,.]*)<', dom))
        for name in ("machines-up", "slots-total", "tasks-done", "jobs-done", "remote-queue"):
            self.assertIn(name, figures, dom[:3000])
        self.assertEqual(figures["machines-up"], "200")
        for level in ("node", "rack", "off_rack"):
            self.assertIn('data-level="%s"' % level, dom)
        self.assertIn("rates.alpha", dom)
        self.assertRegex(dom, r"200 machines; longest local queue")
        return figures

    def test_the_page_polls_and_its_numbers_change(self):
        deadline = time.monotonic() + 30
        while self.daemon.status()["tasks"]["done"] == 0:  # the emulator is running
            if time.monotonic() > deadline:
                self.agents.terminate()
                self.fail("the emulator finished no task: " + self.agents.stderr.read().decode())
            time.sleep(0.1)
        first = self.load()
        time.sleep(1)
        second = self.load()
        number = lambda s: float(s.replace(",", ""))  # noqa: E731
        self.assertGreater(number(second["tasks-done"]), number(first["tasks-done"]))
        self.assertGreater(number(second["jobs-done"]), number(first["jobs-done"]))
        png = os.environ.get("LOCSCHED_DASHBOARD_PNG") or os.path.join(self.profile, "shot.png")
        code, _, err = self.headless(20000, "--screenshot=" + os.path.abspath(png))
        self.assertEqual(code, 0, err[-2000:])
        self.assertGreater(os.path.getsize(png), 10000)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: dashboard_test.py LOCSCHEDD LOCSCHED-AGENTS [unittest options]")
    DAEMON, AGENTS = sys.argv[1], sys.argv[2]
    unittest.main(argv=[sys.argv[0]] + sys.argv[3:])
