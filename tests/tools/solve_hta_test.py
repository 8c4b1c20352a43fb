#!/usr/bin/python3
"""Black-box test of `locsched-solve hta`: runs the real binary on instance files.

Usage: solve_hta_test.py /path/to/locsched-solve [unittest options]
Checks the three algorithms' answers against each other and against a brute-force
optimum computed here, and that every bad input exits 2 naming its field.
"""
import itertools
import json
import os
import random
import subprocess
import sys
import tempfile
import unittest

SOLVE = None  # set from the command line in __main__


def run(*args, stdin=None):
    return subprocess.run([SOLVE, "hta"] + list(args), capture_output=True, text=True,
                          input=stdin, timeout=120)


class Instance:
    """A temporary instance file holding `content` (a dict, or raw text)."""

    def __init__(self, content):
        self.content = content

    def __enter__(self):
        fd, self.path = tempfile.mkstemp(suffix=".json")
        with os.fdopen(fd, "w") as f:
            f.write(self.content if isinstance(self.content, str) else json.dumps(self.content))
        return self.path

    def __exit__(self, *exc):
        os.unlink(self.path)


def solve(instance, algorithm):
    with Instance(instance) as path:
        out = run("--instance", path, "--algorithm", algorithm, "--json")
    if out.returncode != 0:
        raise AssertionError(f"{algorithm} failed: {out.stderr}")
    return json.loads(out.stdout)


def w_rem(instance, r):
    w = instance["w_rem"]
    return w if not isinstance(w, list) else w[min(r, len(w) - 1)]


def max_load(instance, assignment):
    """The objective, computed independently of the solver."""
    n, w_loc = instance["servers"], instance.get("w_loc", 1)
    remote = [s not in replicas for s, replicas in zip(assignment, instance["tasks"])]
    cost = w_rem(instance, sum(remote))
    loads = [0.0] * n
    for s, is_remote in zip(assignment, remote):
        loads[s] += cost if is_remote else w_loc
    return max(loads, default=0.0)


def brute_force(instance):
    """(optimum, fewest remote tasks among optima) over all n^m assignments."""
    best, fewest = None, None
    n = instance["servers"]
    for a in itertools.product(range(n), repeat=len(instance["tasks"])):
        load = max_load(instance, a)
        remote = sum(s not in r for s, r in zip(a, instance["tasks"]))
        if best is None or load < best - 1e-9:
            best, fewest = load, remote
        elif load <= best + 1e-9:
            fewest = min(fewest, remote)
    return best, fewest


def random_instance(rng, n, m, table):
    tasks = [rng.sample(range(n), rng.randint(1, min(3, n))) for _ in range(m)]
    cost = [2 + rng.randint(0, 2) * 0.5 for _ in range(m + 1)]
    return {"servers": n, "w_loc": 1, "w_rem": sorted(cost) if table else 3, "tasks": tasks}


class GoodOutput(unittest.TestCase):
    SMALL = {"servers": 3, "w_loc": 1, "w_rem": 3, "tasks": [[0], [0], [0], [0, 1], [2]]}

    def check_answer(self, instance, answer):
        for key in ("max_load", "local_tasks", "remote_tasks", "lower_bound", "assignment",
                    "loads", "algorithm"):
            self.assertIn(key, answer)
        a = answer["assignment"]
        self.assertEqual(len(a), len(instance["tasks"]))
        self.assertTrue(all(0 <= s < instance["servers"] for s in a))
        self.assertAlmostEqual(answer["max_load"], max_load(instance, a))
        local = sum(s in r for s, r in zip(a, instance["tasks"]))
        self.assertEqual(answer["local_tasks"], local)
        self.assertEqual(answer["remote_tasks"], len(a) - local)
        self.assertLessEqual(answer["lower_bound"], answer["max_load"] + 1e-9)

    def test_three_algorithms_agree_with_brute_force(self):
        rng = random.Random(5)
        for i in range(40):
            n, m = rng.randint(1, 3), rng.randint(0, 6)
            instance = random_instance(rng, n, m, table=i % 2 == 1)
            with self.subTest(instance=instance):
                best, fewest = brute_force(instance)
                answers = {alg: solve(instance, alg) for alg in ("flow", "round-robin", "exact")}
                for answer in answers.values():
                    self.check_answer(instance, answer)
                    self.assertGreaterEqual(answer["max_load"], best - 1e-9)
                    self.assertLessEqual(answer["lower_bound"], best + 1e-9)
                self.assertAlmostEqual(answers["exact"]["max_load"], best)
                self.assertEqual(answers["exact"]["min_remote_tasks"], fewest)
                bound = 0 if n <= 1 else (1 - 1 / (n - 1)) * w_rem(instance, fewest)
                self.assertLessEqual(answers["flow"]["max_load"], best + bound + 1e-9)

    def test_flow_beats_round_robin_on_the_example(self):
        flow, rr = solve(self.SMALL, "flow"), solve(self.SMALL, "round-robin")
        self.assertLess(flow["max_load"], rr["max_load"])
        self.assertIn("tau", flow)

    def test_default_algorithm_is_flow_and_text_output(self):
        with Instance(self.SMALL) as path:
            out = run("--instance", path)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("hta flow", out.stdout)
        self.assertIn("max load", out.stdout)
        self.assertIn("lower bound", out.stdout)

    def test_stdin_and_w_loc_default(self):
        instance = dict(self.SMALL)
        del instance["w_loc"]
        out = run("--instance", "-", "--json", stdin=json.dumps(instance))
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(json.loads(out.stdout)["max_load"], 3)

    def test_larger_instance_flow(self):
        rng = random.Random(9)
        instance = {"servers": 200, "w_rem": [2, 2, 3], "tasks": [
            rng.sample(range(200), 3) for _ in range(3000)]}
        answer = solve(instance, "flow")
        self.check_answer(instance, answer)
        self.assertLessEqual(answer["max_load"], solve(instance, "round-robin")["max_load"])

    def test_help(self):
        out = run("--help")
        self.assertEqual(out.returncode, 0)
        for word in ("--instance", "--algorithm", "--json", "round-robin", "exact", "w_rem"):
            self.assertIn(word, out.stdout)
        top = subprocess.run([SOLVE, "--help"], capture_output=True, text=True, timeout=30)
        self.assertEqual(top.returncode, 0)
        self.assertIn("hta", top.stdout)


class BadInput(unittest.TestCase):
    GOOD = {"servers": 5, "w_loc": 1, "w_rem": [2, 3], "tasks": [[0], [1, 2], [3], [4, 0]]}

    def with_change(self, **fields):
        instance = json.loads(json.dumps(self.GOOD))
        for key, value in fields.items():
            if value is None:
                del instance[key]
            else:
                instance[key] = value
        return instance

    def expect_error(self, content, *needles, args=()):
        with Instance(content) as path:
            out = run("--instance", path, "--json", *args)
        self.assertEqual(out.returncode, 2, out.stdout + out.stderr)
        self.assertEqual(out.stdout, "")
        for needle in needles:
            self.assertIn(needle, out.stderr)
        for crash in ("terminate", "what()", "Traceback", "Aborted"):
            self.assertNotIn(crash, out.stderr)

    def test_field_errors(self):
        cases = [
            ({"servers": None}, "servers: missing"),
            ({"servers": "5"}, "servers: expected an integer"),
            ({"servers": 2.5}, "servers: expected an integer"),
            ({"servers": 0}, "servers: must be in"),
            ({"servers": 10**7}, "servers: must be in [1, 1000000]"),
            ({"w_loc": "1"}, "w_loc: expected a number"),
            ({"w_loc": 0}, "w_loc: must be"),
            ({"w_rem": None}, "w_rem: missing"),
            ({"w_rem": "3"}, "w_rem: expected a number or an array"),
            ({"w_rem": []}, "w_rem: the table is empty"),
            ({"w_rem": [2, "x"]}, "w_rem[1]: expected a number"),
            ({"w_rem": [2, 3, 2.5]}, "w_rem[2]: w_rem(r) must be nondecreasing"),
            ({"w_rem": 0.5}, "w_rem[0]: a remote task may not cost less than w_loc"),
            ({"tasks": None}, "tasks: missing"),
            ({"tasks": {"0": [1]}}, "tasks: expected an array"),
            ({"tasks": [[0], 1]}, "tasks[1]: expected an array of server ids"),
            ({"tasks": [[0], ["a"]]}, "tasks[1][0]: expected a server id"),
            ({"tasks": [[0], [1], [2], [3, 9]]}, "tasks[3][1]: server 9 out of range [0, 5)"),
            ({"tasks": [[0], [-1]]}, "tasks[1][0]: server -1 out of range [0, 5)"),
            ({"tasks": [[0], []]}, "tasks[1]: no server holds its data"),
            ({"tasks": [[0, 0]]}, "tasks[0][1]: server 0 listed twice"),
            ({"extra": 1}, "extra: unknown key"),
        ]
        for change, needle in cases:
            with self.subTest(change=change):
                self.expect_error(self.with_change(**change), needle)

    def test_not_json_or_not_an_object(self):
        self.expect_error("{\"servers\": 3,", "(json)")
        self.expect_error("[1, 2]", "(root): expected a JSON object")

    def test_missing_file(self):
        out = run("--instance", "/nonexistent/instance.json")
        self.assertEqual(out.returncode, 2)
        self.assertIn("/nonexistent/instance.json: cannot open", out.stderr)

    def test_exact_refuses_large_instances(self):
        big = {"servers": 10, "w_rem": 3, "tasks": [[t % 10] for t in range(41)]}
        self.expect_error(big, "exact solver's limit of 400", args=("--algorithm", "exact"))
        self.assertEqual(solve(big, "flow")["max_load"], 5)  # 41 tasks on 10 servers

    def test_exact_time_limit_exits_1(self):
        rng = random.Random(3)  # 21 tasks on 19 servers: GLPK needs well over 1 ms
        hard = {"servers": 19, "w_rem": 3, "tasks": [rng.sample(range(19), 2) for _ in range(21)]}
        with Instance(hard) as path:
            out = run("--instance", path, "--algorithm", "exact", "--time-limit", "1")
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        self.assertIn("did not prove optimality within 1 ms", out.stderr)
        self.assertEqual(out.stdout, "")

    def test_usage_errors(self):
        for args, needle in ((["--algorithm", "bogus", "--instance", "x"], "--algorithm"),
                             ([], "--instance is required"),
                             (["--instance"], "--instance"),
                             (["--instance", "x", "--time-limit", "0"], "--time-limit")):
            with self.subTest(args=args):
                out = run(*args)
                self.assertEqual(out.returncode, 2)
                self.assertIn(needle, out.stderr)


if __name__ == "__main__":
    if len(sys.argv) < 2 or not os.access(sys.argv[1], os.X_OK):
        sys.exit(f"usage: {sys.argv[0]} /path/to/locsched-solve [unittest options]")
    SOLVE = os.path.abspath(sys.argv[1])
    unittest.main(argv=[sys.argv[0]] + sys.argv[2:], exit=True)
