#!/usr/bin/python3
"""Black-box test of locsched-solve's LP rows (synchpack and synchpack --paper,
synchpack1, synchpack1-single, psrs, mrs, jsq-mw, tetris): runs the real binary on
seeded random instances and checks every printed schedule independently (capacity
at every instant, placement and remote durations, releases, reduces after the maps
of their job; for the preemptive rows, pieces that add up to each task, never two
at once, on one machine unless migration is allowed), that the objective
is sum w_j C_j of the schedule and not below the LP lower bound, and every
error path (exit 2 with the field path, never a stack trace).

Usage: solve_lp_test.py /path/to/locsched-solve [unittest options]
"""
import json
import os
import random
import subprocess
import sys
import tempfile
import unittest

SOLVE = None  # set from the command line in __main__
SOLVERS = ("synchpack", "mrs", "jsq-mw", "tetris")  # and lp-bound, the LP alone
# Rows as argument lists; the preemptive ones use their own LP (LP1) as the bound.
NON_PREEMPTIVE = (("synchpack",), ("synchpack", "--paper"), ("mrs",), ("jsq-mw",), ("tetris",))
PREEMPTIVE = (("synchpack1",), ("psrs",))
EPS = 1e-7


def random_instance(rng, machines=3, jobs=4, max_tasks=3):
    caps = [rng.choice([1.0, 2.0]) for _ in range(machines)]
    out = {"machines": [{"capacity": c} for c in caps], "jobs": []}
    for _ in range(jobs):
        tasks = []
        for k in range(rng.randint(1, max_tasks)):
            task = {"demand": rng.choice([0.25, 0.5, 0.75, 1.0]) * min(caps),
                    "placement": sorted(set(rng.randrange(machines) for _ in range(rng.randint(1, 2)))),
                    "duration": rng.randint(1, 8)}
            if rng.random() < 0.5:
                task["remote_penalty"] = rng.choice([1.5, 2.0, 3.0])
            if k > 0 and rng.random() < 0.3:
                task["kind"] = "reduce"
                if rng.random() < 0.5:
                    task["shuffle"] = rng.choice([0.5, 1, 2])
            tasks.append(task)
        out["jobs"].append({"weight": rng.randint(1, 5), "release": rng.randint(0, 6), "tasks": tasks})
    return out


def check_pieces(test, pieces, migration):
    """A preempted task: pieces add up to it, never two at once, one machine unless migrating."""
    pieces.sort(key=lambda p: p[1]["start"])
    test.assertAlmostEqual(sum(share for share, _ in pieces), 1.0, delta=1e-6)
    for (_, a), (_, b) in zip(pieces, pieces[1:]):
        test.assertGreaterEqual(b["start"], a["end"] - EPS, f"two pieces at once: {a} {b}")
        if not migration:
            test.assertEqual(a["machine"], b["machine"], "a piece migrated")


def check_schedule(test, inst, result):
    """Independent feasibility check; returns sum w_j C_j."""
    jobs, caps = inst["jobs"], [m["capacity"] for m in inst["machines"]]
    preemption = result.get("preemption", "none")
    pieces = {}
    maps_end = [0.0] * len(jobs)
    for e in result["schedule"]:
        task = jobs[e["job"]]["tasks"][e["task"]]
        local = e["machine"] in task.get("placement", [])
        test.assertTrue(local or "remote_penalty" in task, f"placement violated: {e}")
        duration = task["duration"] * (1 if local else task["remote_penalty"])
        duration += task.get("shuffle", 0)  # run on the reduce's machine right before it
        if preemption == "none":
            test.assertNotIn((e["job"], e["task"]), pieces)
            if task.get("shuffle", 0) > 0:
                test.assertAlmostEqual(e["shuffle_end"], e["start"] + task["shuffle"], delta=1e-6)
            test.assertAlmostEqual(e["end"] - e["start"], duration, delta=1e-6)
        pieces.setdefault((e["job"], e["task"]), []).append(((e["end"] - e["start"]) / duration, e))
        test.assertGreaterEqual(e["start"], jobs[e["job"]]["release"] - EPS)
        if task.get("kind", "map") == "map":
            maps_end[e["job"]] = max(maps_end[e["job"]], e["end"])
    test.assertEqual(len(pieces), sum(len(j["tasks"]) for j in jobs), "a task is missing")
    if preemption != "none":
        for task_pieces in pieces.values():
            check_pieces(test, task_pieces, preemption == "migration")
    for e in result["schedule"]:
        if jobs[e["job"]]["tasks"][e["task"]].get("kind", "map") == "reduce":
            test.assertGreaterEqual(e["start"], maps_end[e["job"]] - EPS, f"reduce early: {e}")
    # Capacity: the usage only rises at starts, so checking at every start suffices.
    for e in result["schedule"]:
        used = sum(jobs[f["job"]]["tasks"][f["task"]]["demand"] for f in result["schedule"]
                   if f["machine"] == e["machine"] and f["start"] <= e["start"] + EPS
                   and e["start"] < f["end"] - EPS)
        test.assertLessEqual(used, caps[e["machine"]] + 1e-6, f"capacity exceeded at {e}")
    completion = [0.0] * len(jobs)
    for e in result["schedule"]:
        completion[e["job"]] = max(completion[e["job"]], e["end"])
    return sum(j["weight"] * c for j, c in zip(jobs, completion))


def run(*args):
    return subprocess.run([SOLVE, *args], capture_output=True, text=True, timeout=120)


class Scratch(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write(self, content, name="instance.json"):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            f.write(content if isinstance(content, str) else json.dumps(content))
        return path


class Schedules(Scratch):
    def test_random_instances_are_feasible_and_above_the_bound(self):
        rng = random.Random(6)
        for case in range(12):
            inst = random_instance(rng, machines=rng.randint(1, 4), jobs=rng.randint(2, 6))
            path = self.write(inst)
            for rows in (NON_PREEMPTIVE, PREEMPTIVE):
                bounds = set()
                for args in rows:
                    out = run(*args, "--instance", path, "--json")
                    self.assertEqual(out.returncode, 0, out.stderr)
                    result = json.loads(out.stdout)
                    objective = check_schedule(self, inst, result)
                    self.assertAlmostEqual(result["objective"], objective, delta=1e-6 * objective)
                    self.assertGreaterEqual(result["objective"],
                                            result["lower_bound"] * (1 - 1e-7))
                    self.assertGreater(result["lower_bound"], 0)
                    self.assertAlmostEqual(result["ratio"], objective / result["lower_bound"],
                                           places=6)
                    bounds.add(round(result["lower_bound"], 6))
                self.assertEqual(len(bounds), 1, f"{rows} report different LP bounds")

    def test_single_machine_variant(self):
        rng = random.Random(9)
        for case in range(6):
            inst = random_instance(rng, machines=rng.randint(1, 3), jobs=rng.randint(2, 5))
            for job in inst["jobs"]:
                for task in job["tasks"]:
                    task["placement"] = task["placement"][:1]
                    task.pop("remote_penalty", None)
            path = self.write(inst)
            out = run("synchpack1-single", "--instance", path, "--json")
            self.assertEqual(out.returncode, 0, out.stderr)
            result = json.loads(out.stdout)
            self.assertEqual(result["preemption"], "same-machine")
            objective = check_schedule(self, inst, result)
            self.assertGreaterEqual(objective, result["lower_bound"] * (1 - 1e-7))
        inst["jobs"][0]["tasks"][0]["placement"] = [0, 1] if len(inst["machines"]) > 1 else [0]
        inst["jobs"][0]["tasks"][0]["remote_penalty"] = 2.0
        out = run("synchpack1-single", "--instance", self.write(inst))
        self.assertEqual(out.returncode, 2)
        self.assertIn("jobs[0].tasks[0].placement", out.stderr)

    def test_issue_example_and_text_output(self):
        inst = {"machines": [{"capacity": 1.0}] * 4,
                "jobs": [{"weight": 2, "release": 0, "tasks": [
                    {"demand": 0.5, "placement": [0, 3], "duration": 4, "remote_penalty": 2.5,
                     "kind": "map"}]}]}
        path = self.write(inst)
        out = run("mrs", "--instance", path, "--json")
        self.assertEqual(out.returncode, 0, out.stderr)
        result = json.loads(out.stdout)
        check_schedule(self, inst, result)
        self.assertIn("width", result)
        out = run("synchpack", "--instance", path)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("lower bound", out.stdout)

    def test_lp_bound_row_matches_the_solvers_bound(self):
        inst = random_instance(random.Random(3))
        path = self.write(inst)
        bound = json.loads(run("lp-bound", "--instance", path, "--json").stdout)
        solved = json.loads(run("synchpack", "--instance", path, "--json").stdout)
        self.assertAlmostEqual(bound["lower_bound"], solved["lower_bound"], places=6)
        self.assertNotIn("schedule", bound)
        self.assertEqual(len(bound["lp_completion"]), len(inst["jobs"]))

    def test_class_lp_rows_are_feasible_and_not_above_the_per_task_bound(self):
        rng = random.Random(12)
        for case in range(6):
            inst = random_instance(rng, machines=rng.randint(1, 4), jobs=rng.randint(2, 6))
            path = self.write(inst)
            per_task = json.loads(run("lp-bound", "--instance", path, "--json").stdout)
            for args in (("synchpack", "--lp", "classes"), ("tetris", "--lp", "classes"),
                         ("synchpack", "--lp", "classes", "--groups", "1",
                          "--per-class-completion")):
                out = run(*args, "--instance", path, "--json")
                self.assertEqual(out.returncode, 0, out.stderr)
                result = json.loads(out.stdout)
                self.assertEqual(result["lp"], "classes")
                objective = check_schedule(self, inst, result)
                self.assertGreaterEqual(objective, result["lower_bound"] * (1 - 1e-7))
                self.assertLessEqual(result["lower_bound"],
                                     per_task["lower_bound"] * (1 + 1e-7) + 1e-7)
        out = run("synchpack", "--instance", path, "--lp", "rows")
        self.assertEqual(out.returncode, 2)
        self.assertIn("--lp", out.stderr)
        out = run("synchpack", "--paper", "--lp", "classes", "--instance", path)
        self.assertEqual(out.returncode, 2)
        self.assertIn("--paper", out.stderr)

    def test_separate_shuffle_row(self):
        rng = random.Random(14)
        for case in range(6):
            inst = random_instance(rng, machines=rng.randint(1, 3), jobs=rng.randint(2, 5))
            path = self.write(inst)
            out = run("mrs", "--separate-shuffle", "--instance", path, "--json")
            self.assertEqual(out.returncode, 0, out.stderr)
            result = json.loads(out.stdout)
            self.assertEqual(result["shuffle"], "separate")
            together = json.loads(run("mrs", "--instance", path, "--json").stdout)
            # The same MRS schedule, read in the separate model, against a lower bound.
            self.assertAlmostEqual(result["objective"], together["objective"], places=6)
            self.assertLessEqual(result["lower_bound"], together["lower_bound"] * (1 + 1e-7))
            self.assertGreaterEqual(result["objective"], result["lower_bound"] * (1 - 1e-7))

    def test_help_lists_the_rows_and_flags(self):
        out = run("--help")
        self.assertEqual(out.returncode, 0)
        for solver in SOLVERS + ("lp-bound", "synchpack1", "synchpack1-single", "psrs"):
            self.assertIn(solver, out.stdout)
        out = run("synchpack", "--help")
        self.assertEqual(out.returncode, 0)
        for flag in ("--instance", "--json", "--epsilon", "--max-columns", "--paper"):
            self.assertIn(flag, out.stdout)


class Errors(Scratch):
    GOOD_TASK = {"demand": 0.5, "placement": [0], "duration": 2}

    def instance_with(self, **task_fields):
        task = dict(self.GOOD_TASK)
        task.update(task_fields)
        return {"machines": [{"capacity": 1.0}, {"capacity": 1.0}],
                "jobs": [{"weight": 1, "tasks": [self.GOOD_TASK]},
                         {"weight": 1, "tasks": [self.GOOD_TASK, task]}]}

    def expect_error(self, content, needle, *extra):
        out = run("tetris", "--instance", self.write(content), *extra)
        self.assertEqual(out.returncode, 2, out.stdout + out.stderr)
        self.assertIn(needle, out.stderr)
        self.assertNotIn("Traceback", out.stderr)
        self.assertNotIn("terminate", out.stderr)
        self.assertEqual(out.stdout, "")

    def test_bad_task_fields_name_their_path(self):
        cases = [
            ({"demand": 2.0}, "jobs[1].tasks[1].demand: must be in (0, capacity]"),
            ({"demand": 0}, "jobs[1].tasks[1].demand"),
            ({"demand": "big"}, "jobs[1].tasks[1].demand: must be a number"),
            ({"duration": -1}, "jobs[1].tasks[1].duration"),
            ({"placement": [5]}, "jobs[1].tasks[1].placement[0]"),
            ({"placement": [4294967296]}, "jobs[1].tasks[1].placement[0]: no such machine"),
            ({"placement": "0"}, "jobs[1].tasks[1].placement"),
            ({"placement": []}, "jobs[1].tasks[1].placement"),
            ({"remote_penalty": 0.5}, "jobs[1].tasks[1].remote_penalty"),
            ({"kind": "shuffle"}, "jobs[1].tasks[1].kind"),
            ({"durration": 3}, "jobs[1].tasks[1].durration: unknown field"),
            ({"shuffle": 1}, "jobs[1].tasks[1].shuffle: only a reduce has a shuffle"),
            ({"shuffle": -1, "kind": "reduce"}, "jobs[1].tasks[1].shuffle: must be >= 0"),
        ]
        for fields, needle in cases:
            with self.subTest(fields=fields):
                self.expect_error(self.instance_with(**fields), needle)

    def test_bad_document_fields(self):
        self.expect_error("{not json", "not valid JSON")
        self.expect_error("[1, 2]", "instance: must be an object")
        self.expect_error({"machines": [{"capacity": 1}], "jobs": [], "extra": 1}, "extra: unknown field")
        self.expect_error({"jobs": []}, "machines")
        self.expect_error({"machines": [{"capacity": 0}], "jobs": []}, "machines[0].capacity")
        self.expect_error({"machines": [{"capacity": 1}], "jobs": []}, "jobs: must not be empty")
        self.expect_error({"machines": [{"capacity": 1}], "jobs": [{"weight": -1, "tasks": [
            self.GOOD_TASK]}]}, "jobs[0].weight")
        self.expect_error({"machines": [{"capacity": 1}], "jobs": [{"release": -3, "tasks": [
            self.GOOD_TASK]}]}, "jobs[0].release")
        self.expect_error({"machines": [{"capacity": 1}], "jobs": [{"tasks": []}]}, "jobs[0].tasks")

    def test_bad_flags_and_files(self):
        good = self.write(self.instance_with())
        self.expect_error(self.instance_with(), "--epsilon", "--epsilon", "0")
        out = run("tetris")
        self.assertEqual(out.returncode, 2)
        self.assertIn("--instance", out.stderr)
        out = run("tetris", "--instance", os.path.join(self.dir.name, "missing.json"))
        self.assertEqual(out.returncode, 2)
        self.assertIn("missing.json", out.stderr)
        out = run("synchpak", "--instance", good)
        self.assertEqual(out.returncode, 2)
        self.assertIn("did you mean 'synchpack'", out.stderr)

    def test_lp_size_limit(self):
        rng = random.Random(1)
        inst = random_instance(rng, machines=4, jobs=30, max_tasks=6)
        self.expect_error(inst, "more than --max-columns 500", "--max-columns", "500",
                          "--lp", "per-task")
        self.expect_error(inst, "--max-columns", "--max-columns", "100000000")
        # --lp auto (the default of the rows with --lp) falls back to the class LP.
        out = run("synchpack", "--instance", self.write(inst), "--max-columns", "500", "--json")
        self.assertEqual(out.returncode, 0, out.stderr)
        result = json.loads(out.stdout)
        self.assertEqual(result["lp"], "classes")
        check_schedule(self, inst, result)

    def test_lp_auto_picks_what_it_reports(self):
        # Over the class LP's column budget, auto folds the machines into one group, bounds
        # C_j per class and coarsens epsilon; the same knobs given by hand give the same LP.
        rng = random.Random(1)
        path = self.write(random_instance(rng, machines=4, jobs=30, max_tasks=6))
        small = ("--max-columns", "500", "--json")
        plain = json.loads(run("lp-bound", "--instance", path, *small).stdout)
        self.assertEqual((plain["lp_step"], plain["groups"], plain["per_class_completion"]),
                         ("classes", 0, False))
        auto = run("lp-bound", "--instance", path, "--class-budget", "50", *small)
        self.assertEqual(auto.returncode, 0, auto.stderr)
        auto = json.loads(auto.stdout)
        self.assertEqual(auto["lp"], "classes")
        self.assertTrue(auto["lp_step"].startswith("classes-fast"), auto["lp_step"])
        self.assertEqual((auto["groups"], auto["per_class_completion"]), (1, True))
        self.assertIn(auto["epsilon"], (1, 2, 3))
        by_hand = json.loads(run("lp-bound", "--instance", path, "--lp", "classes", "--groups",
                                 "1", "--per-class-completion", "--epsilon",
                                 str(auto["epsilon"]), "--json").stdout)
        self.assertAlmostEqual(by_hand["lower_bound"], auto["lower_bound"])
        self.assertEqual(by_hand["lp_columns"], auto["lp_columns"])
        self.assertLessEqual(auto["lower_bound"], plain["lower_bound"] * (1 + 1e-7))
        # Knobs given are kept.
        kept = json.loads(run("lp-bound", "--instance", path, "--class-budget", "50",
                              "--epsilon", "1", "--groups", "2", *small).stdout)
        self.assertEqual((kept["epsilon"], kept["groups"], kept["per_class_completion"]),
                         (1, 2, True))
        self.assertEqual(kept["lp_step"], "classes-fast")


if __name__ == "__main__":
    SOLVE = sys.argv.pop(1)
    unittest.main()
