#!/usr/bin/python3
"""The metrics the docs name against those the real daemon exposes, under each policy.

docs/operations.md's "Metrics" tables are the reference: the first column of each row
names metric families, and a row whose meaning says *Only with `KEY = VALUE`* or *Only
in high-availability mode* is conditional. For every scheduling policy (and once with
the LP off) the daemon is started on temporary sockets and its `metrics` scraped: each
family documented for that configuration is exposed, each one documented for another
is not, and nothing undocumented is exposed. Every `locsched_` name elsewhere in docs/
must be one of the documented families (or a prefix of some, written `locsched_lp_*`).

Usage: metrics_docs_test.py /path/to/locschedd [unittest options]
"""
import glob
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import daemon_harness  # noqa: E402

DAEMON = None
DOCS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs")
POLICIES = ("late-binding", "jsq-maxweight", "fair", "fifo", "delay", "balanced-pandas", "quincy",
            "capacity-scheduler", "fair-scheduler")
DEFAULTS = {"scheduler.policy": "late-binding", "lp.enabled": "true"}
NAME = re.compile(r"`(locsched_[a-z_]+)`")
ONLY_WITH = re.compile(r"\*Only with `([a-z_.]+) = ([a-z0-9_.-]+)`\*")
ONLY_HA = "*Only in high-availability mode*"


def documented():
    """{family: condition}: None, ("KEY", "VALUE") or "ha", from operations.md's tables."""
    with open(os.path.join(DOCS, "operations.md")) as f:
        text = f.read()
    section = text.split("\n## Metrics\n", 1)[1].split("\n## ", 1)[0]
    families = {}
    for line in section.splitlines():
        if not line.startswith("| `locsched_"):
            continue
        cells = line.split(" | ")
        match = ONLY_WITH.search(line)
        condition = (match.group(1), match.group(2)) if match else ("ha" if ONLY_HA in line
                                                                   else None)
        for name in NAME.findall(cells[0]):
            families[name] = condition
    return families


def applies(condition, settings):
    if condition is None:
        return True
    if condition == "ha":
        return False  # these runs are single-node
    key, value = condition
    return settings.get(key) == value


def exposed(settings):
    """The metric families (their # TYPE lines) of a daemon started with settings."""
    d = daemon_harness.Daemon(DAEMON, *("%s=%s" % kv for kv in settings.items()))
    try:
        reply = d.call({"op": "metrics"})
        assert reply["ok"], reply
    finally:
        assert d.stop() == 0, d.log_text()
    return {line.split()[2] for line in reply["text"].splitlines() if line.startswith("# TYPE ")}


class MetricsDocs(unittest.TestCase):
    def check(self, settings):
        docs = documented()
        seen = exposed(settings)
        for name, condition in sorted(docs.items()):
            with self.subTest(settings=settings, metric=name):
                self.assertEqual(name in seen, applies(condition, settings),
                                 "documented as %s" % (condition or "always exposed",))
        self.assertEqual(seen - set(docs), set(), "exposed under %s but not in "
                         "docs/operations.md's Metrics tables" % settings)

    def test_each_policy_exposes_exactly_what_the_docs_say(self):
        for policy in POLICIES:
            self.check(dict(DEFAULTS, **{"scheduler.policy": policy}))

    def test_without_the_lp_its_series_are_absent(self):
        self.check(dict(DEFAULTS, **{"lp.enabled": "false"}))

    def test_the_tables_mark_conditions_the_test_understands(self):
        docs = documented()
        self.assertGreater(len(docs), 40)
        self.assertEqual(docs["locsched_rebalance_runs_total"],
                         ("scheduler.policy", "jsq-maxweight"))
        self.assertEqual(docs["locsched_ha_epoch"], "ha")
        self.assertIsNone(docs["locsched_jobs_done_total"])

    def test_every_metric_named_elsewhere_in_docs_is_documented(self):
        families = set(documented())
        for path in sorted(glob.glob(os.path.join(DOCS, "*.md"))):
            with open(path) as f:
                text = f.read()
            for match in re.finditer(r"locsched_[a-z][a-z_]*", text):
                name, after = match.group(0), text[match.end():match.end() + 1]
                with self.subTest(doc=os.path.basename(path), name=name):
                    prefix = name.rstrip("_") + "_"
                    if after in "*`" and any(f.startswith(prefix) for f in families):
                        continue  # a prefix of families: locsched_lp_*, `locsched_lp`
                    base = re.sub(r"_(bucket|sum|count)$", "", name)
                    self.assertTrue(name in families or base in families,
                                    "not a documented metric family")


if __name__ == "__main__":
    DAEMON = sys.argv.pop(1)
    unittest.main()
