#!/usr/bin/python3
"""Black-box test of the locsched-sim command line: runs the real binary.

Usage: sim_cli_test.py /path/to/locsched-sim [unittest options]
--chart uses the plot script in LOCSCHED_PLOT_SCRIPT if set (CTest sets it to
tools/sim/plot_sweep.py), else the one locsched-sim finds itself.
"""
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

SIM = None  # set from the command line in __main__
SMALL = {"--machines": "50", "--data-machines": "40", "--load": "20", "--slots": "2000"}
CSV_HEADER = ["policy", "load", "mean_tasks_in_system", "mean_jobs_in_system",
              "tasks_in_system_end", "stable", "stopped_early", "mean_job_delay",
              "mean_task_delay", "locality", "slots", "wall_seconds", "capacity"]


def run(*args, timeout=120, **flags):
    """Runs locsched-sim -q with the small model, flags overriding it (an
    underscore in a keyword stands for a dash), then args."""
    options = dict(SMALL)
    options.update({"--" + k.replace("_", "-"): v for k, v in flags.items()})
    argv = [SIM, "-q"] + [x for kv in options.items() for x in kv] + list(args)
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout)


def have_matplotlib():
    """Whether the python3 on PATH (the one --chart runs) has matplotlib."""
    return subprocess.run(["python3", "-c", "import matplotlib"],
                          capture_output=True).returncode == 0


class SinglePoint(unittest.TestCase):
    def test_json_has_the_figures(self):
        out = run("--json")
        self.assertEqual(out.returncode, 0, out.stderr)
        result = json.loads(out.stdout)
        for key in ("mean_tasks_in_system", "tasks_in_system_end", "stable", "mean_job_delay",
                    "mean_task_delay", "locality", "slots", "wall_seconds"):
            self.assertIn(key, result)
        self.assertIsInstance(result["stable"], bool)
        self.assertEqual(result["slots"], 2000)
        self.assertTrue(0 <= result["locality"] <= 1)
        # The lower bound on the mean job delay, its parts, and the run's ratio to it.
        bound = result["lower_bound_mean_job_delay"]
        self.assertGreaterEqual(bound, 1)  # every job takes a slot at least
        self.assertEqual(bound, max(result["lower_bound_critical_path"],
                                    result["lower_bound_srpt"]))
        self.assertGreaterEqual(result["mean_job_delay"], bound)
        self.assertAlmostEqual(result["mean_job_delay_over_bound"],
                               result["mean_job_delay"] / bound)
        self.assertGreaterEqual(result["weighted_mean_job_delay"],
                                result["lower_bound_weighted_mean_job_delay"])

    def test_same_seed_same_figures(self):
        a, b, c = (run("--json", seed=seed) for seed in ("7", "7", "8"))
        figures = []
        for out in (a, b, c):
            self.assertEqual(out.returncode, 0, out.stderr)
            result = json.loads(out.stdout)
            del result["wall_seconds"]
            figures.append(result)
        self.assertEqual(figures[0], figures[1])
        self.assertNotEqual(figures[0], figures[2], "the seed changes nothing")

    def test_weights_and_throughput(self):
        unit = json.loads(run("--json", seed="3").stdout)
        self.assertEqual(unit["weight_max"], 1)
        # with every weight 1 the weighted mean is the plain mean
        self.assertAlmostEqual(unit["weighted_mean_job_delay"], unit["mean_job_delay"], places=9)
        heavy = json.loads(run("--json", seed="3", weight_max="10").stdout)
        self.assertNotAlmostEqual(heavy["weighted_mean_job_delay"], heavy["mean_job_delay"],
                                  places=6)
        # weights change no other draw: the same jobs arrive and the same tasks finish
        self.assertEqual(heavy["jobs_arrived"], unit["jobs_arrived"])
        self.assertEqual(heavy["tasks_done"], unit["tasks_done"])
        self.assertTrue(0.9 * 20 < unit["throughput"] < 1.1 * 20, unit["throughput"])

    def test_priority_re_solves_the_lp_deterministically(self):
        flags = {"policy": "jsq-maxweight", "intra": "priority", "weight_max": "10", "slots": "600",
                 "lp_interval": "3"}
        a, b = (run("--json", **flags) for _ in range(2))
        fair = run("--json", policy="jsq-maxweight", intra="fair", weight_max="10", slots="600")
        figures = []
        for out in (a, b, fair):
            self.assertEqual(out.returncode, 0, out.stderr)
            result = json.loads(out.stdout)
            for key in ("wall_seconds", "lp_seconds"):
                del result[key]
            figures.append(result)
        self.assertEqual(figures[0], figures[1])
        self.assertEqual(figures[0]["intra"], "priority")
        self.assertTrue(100 < figures[0]["lp_solves"] <= 200)  # slots 0, 3, ..., 597 with a backlog
        self.assertEqual(figures[0]["lp_failures"], 0)
        self.assertEqual(figures[2]["lp_solves"], 0)
        self.assertNotEqual(figures[0]["weighted_mean_job_delay"],
                            figures[2]["weighted_mean_job_delay"], "the LP order changed nothing")

    def test_text_output(self):
        out = run()
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("locality", out.stdout)
        self.assertRegex(out.stdout, r"lower bound on mean job delay [0-9.]+ slots .*"
                                     r"mean [0-9.]+x bound")

    def test_help(self):
        out = subprocess.run([SIM, "--help"], capture_output=True, text=True, timeout=30)
        self.assertEqual(out.returncode, 0)
        self.assertIn("--policy", out.stdout)
        self.assertIn("--sweep", out.stdout)
        for flag in ("--weight-max", "--lp-interval", "priority"):
            self.assertIn(flag, out.stdout)


class BadValues(unittest.TestCase):
    # (the flag the message must name, the flags given)
    CASES = [
        ("--policy", {"policy": "bogus"}),
        ("--machines", {"machines": "0"}),
        ("--data-machines", {"data_machines": "60"}),
        ("--alpha", {"alpha": "0"}),
        ("--alpha", {"alpha": "1.5"}),
        ("--gamma", {"alpha": "0.5", "gamma": "0.6"}),
        ("--load", {"load": "-1"}),
        ("--load", {"load": "abc"}),
        ("--slots", {"slots": "0"}),
        ("--slots", {"slots": "-3"}),
        ("--job-size-dist", {"job_size_dist": "bogus"}),
        ("--pareto-shape", {"job_size_dist": "pareto", "pareto_shape": "1"}),
        ("--warmup", {"warmup": "1"}),
        ("--sweep", {"sweep": "5:1:1"}),
        ("--sweep", {"sweep": "a,b"}),
        ("--csv", {"csv": os.devnull}),
        ("--intra", {"intra": "bogus"}),
        ("--intra", {"intra": "priority", "policy": "fair"}),  # only JSQ+MaxWeight has ranks
        ("--intra", {"intra": "priority", "policy": "jsq-maxweight,fair", "sweep": "20"}),
        ("--weight-max", {"weight_max": "0"}),
        ("--lp-interval", {"policy": "jsq-maxweight", "intra": "priority", "lp_interval": "0"}),
        ("--lp-classes", {"policy": "jsq-maxweight", "intra": "priority", "lp_classes": "0"}),
        ("--lp-max-jobs", {"policy": "jsq-maxweight", "intra": "priority", "lp_max_jobs": "0"}),
        ("--lp-epsilon", {"policy": "jsq-maxweight", "intra": "priority", "lp_epsilon": "0"}),
        ("--policy", {"policy": "jsq-maxweight,fair"}),  # a list needs --sweep
    ]

    def test_each_bad_value_fails_naming_its_flag(self):
        for flag, flags in self.CASES:
            with self.subTest(flags=flags):
                out = run(timeout=20, **flags)  # --slots -3 once ran for ever
                self.assertNotEqual(out.returncode, 0, "accepted")
                # the flag itself, not --slots inside --slots-per-machine
                self.assertRegex(out.stderr, r"(?<![\w-])" + re.escape(flag) + r"(?![\w-])")
                self.assertEqual(out.stdout, "")


def run_trace(trace, *args, timeout=60):
    """Runs locsched-sim -q --trace TRACE with args."""
    argv = [SIM, "-q", "--trace", trace] + list(args)
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout)


class TraceMode(unittest.TestCase):
    # Two jobs of one task each at time 0, both held only by m0, in locsched's own format.
    JOBS = ['{"op":"job_submit","job":"a","tasks":[{"task":"t0","replicas":["m0"]}]}',
            '{"op":"job_submit","job":"b","tasks":[{"task":"t0","replicas":["m0"]}]}']
    HAND = ["--format", "locsched", "--machines", "2", "--fixed-durations", "--local-mean", "10",
            "--heartbeat", "3", "--json"]

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)
        self.trace = os.path.join(self.dir.name, "two.jsonl")
        with open(self.trace, "w") as f:
            f.write("\n".join(self.JOBS) + "\n")

    def figures(self, *args):
        out = run_trace(self.trace, *self.HAND, *args)
        self.assertEqual(out.returncode, 0, out.stderr)
        return json.loads(out.stdout)

    def test_hand_worked_jcts(self):
        # m0 asks at 1.5 s and runs a locally until 11.5 s. m1 asks at 3 s: FIFO runs b
        # there, remote, 4 x 10 s, until 43 s.
        fifo = self.figures("--policy", "fifo")
        self.assertEqual(fifo["jobs_done"], 2)
        self.assertAlmostEqual(fifo["mean_jct_s"], (11.5 + 43) / 2)
        self.assertAlmostEqual(fifo["p95_jct_s"], 43)
        self.assertAlmostEqual(fifo["mean_task_wait_s"], (1.5 + 3) / 2)
        self.assertAlmostEqual(fifo["locality"], 0.5)
        self.assertEqual(fifo["policy"], "fifo")
        # The bound: each job needs its 10 s task (critical path 10 s). Only m0 holds them:
        # m0 runs them at full speed, m1 at a quarter, so one server 1.25 times a slot's
        # speed ends them at 8 and 16 s (SRPT 12 s).
        # FIFO is 27.25 / 12 from the bound.
        self.assertAlmostEqual(fifo["lower_bound_critical_path_s"], 10)
        self.assertAlmostEqual(fifo["lower_bound_srpt_s"], 12)
        self.assertAlmostEqual(fifo["lower_bound_mean_jct_s"], 12)
        self.assertAlmostEqual(fifo["mean_jct_over_bound"], 27.25 / 12)
        self.assertAlmostEqual(fifo["lower_bound_weighted_jct"], 20)
        self.assertAlmostEqual(fifo["lower_bound_weighted_mean_jct_s"], 10)
        self.assertAlmostEqual(fifo["lower_bound_weighted_completion"], 20)
        # Delay scheduling waiting 20 s: b passes m1 over at 3, 6 and 9 s and runs on m0 when
        # a ends at 11.5 s, until 21.5 s. Waiting 5 s: b runs remote on m1 at 6 s, until 46 s.
        self.assertAlmostEqual(
            self.figures("--policy", "delay", "--delay-wait", "20")["mean_jct_s"], (11.5 + 21.5) / 2)
        self.assertAlmostEqual(
            self.figures("--policy", "delay", "--delay-wait", "5")["mean_jct_s"], (11.5 + 46) / 2)
        # With half the remote slowdown, b's remote run takes 20 s.
        half = self.figures("--policy", "fifo", "--remote-slowdown", "2")
        self.assertAlmostEqual(half["mean_jct_s"], (11.5 + 23) / 2)

    def test_job_order_reaches_trace_mode(self):
        # One machine holds everything: job a (2 tasks) and job b (1 task) at time 0. m0 asks
        # at 3 s; each task takes 10 s and the next starts when one ends. In arrival order
        # (fair: fewest running, ties oldest) a runs 3-13-23 and b 23-33: mean (23 + 33) / 2.
        # Shortest remaining first runs b 3-13, then a 13-23-33: mean (13 + 33) / 2.
        with open(self.trace, "w") as f:
            f.write('{"op":"job_submit","job":"a","tasks":[{"task":"t0","replicas":["m0"]},'
                    '{"task":"t1","replicas":["m0"]}]}\n' + self.JOBS[1] + "\n")
        hand = ["--format", "locsched", "--machines", "1", "--fixed-durations", "--local-mean",
                "10", "--heartbeat", "3", "--json", "--policy", "late-binding"]
        for order, mean in (("fair", 28), ("srpt", 23)):
            out = run_trace(self.trace, *hand, "--job-order", order)
            self.assertEqual(out.returncode, 0, out.stderr)
            result = json.loads(out.stdout)
            self.assertEqual(result["job_order"], order)
            self.assertAlmostEqual(result["mean_jct_s"], mean)

    def test_json_has_the_figures(self):
        result = self.figures("--racks", "2", "--policy", "jsq-maxweight")
        for key in ("jobs_done", "mean_jct_s", "p95_jct_s", "mean_task_wait_s", "locality",
                    "node_local", "rack_local", "off_rack", "policy", "idle_holder_task_s",
                    "throughput", "stable", "jct_buckets", "delay_wait_s"):
            self.assertIn(key, result)
        self.assertEqual([b["tasks"] for b in result["jct_buckets"]],
                         ["1", "2-10", "11-100", "101-1000", ">1000"])
        self.assertEqual(result["jct_buckets"][0]["jobs"], 2)
        # m0 and m1 are in different racks: JSQ+MaxWeight runs b off-rack.
        self.assertAlmostEqual(result["off_rack"], 0.5)

    def test_racks_run_rack_local_tasks_at_the_rack_slowdown(self):
        # One job of three tasks held by m0, four machines in two racks (m0 m1 | m2 m3),
        # heartbeats at 0.75, 1.5, 2.25 s. FIFO runs one task on m0 (10 s), one on m1 in m0's
        # rack (by default sqrt(4) = 2 times slower: 1.5-21.5 s) and one on m2, off-rack
        # (4 times slower: 2.25-42.25 s).
        with open(self.trace, "w") as f:
            f.write('{"op":"job_submit","job":"a","tasks":[' + ",".join(
                '{"task":"t%d","replicas":["m0"]}' % i for i in range(3)) + "]}\n")
        hand = ["--format", "locsched", "--machines", "4", "--fixed-durations", "--local-mean",
                "10", "--heartbeat", "3", "--json", "--policy", "fifo"]
        out = run_trace(self.trace, *hand, "--racks", "2")
        self.assertEqual(out.returncode, 0, out.stderr)
        result = json.loads(out.stdout)
        self.assertEqual(result["racks"], 2)
        self.assertEqual(result["rack_slowdown"], 2)
        self.assertAlmostEqual(result["locality_rack"], 1 / 3)
        self.assertAlmostEqual(result["locality"], 1 / 3)
        self.assertAlmostEqual(result["off_rack"], 1 / 3)
        self.assertAlmostEqual(result["mean_jct_s"], 42.25)
        self.assertEqual(result["learnt_rates"]["rack_done"], 1)
        self.assertAlmostEqual(result["learnt_rates"]["beta"], 1 / 20, delta=0.01)
        # One rack is no topology: the same run as without --racks.
        one = run_trace(self.trace, *hand, "--racks", "1")
        none = run_trace(self.trace, *hand)
        one, none = json.loads(one.stdout), json.loads(none.stdout)
        self.assertIsNone(one["rack_slowdown"])
        self.assertEqual(one["locality_rack"], 0)
        for key in ("mean_jct_s", "locality", "off_rack", "jct_buckets"):
            self.assertEqual(one[key], none[key], key)
        # A rack slowdown beyond the remote one is refused, naming the flag.
        bad = run_trace(self.trace, *hand, "--racks", "2", "--rack-slowdown", "5")
        self.assertNotEqual(bad.returncode, 0)
        self.assertIn("--rack-slowdown", bad.stderr)

    def test_same_seed_same_figures(self):
        runs = []
        for seed in ("3", "3", "4"):
            out = run_trace(self.trace, "--format", "locsched", "--machines", "2", "--seed", seed,
                            "--json")
            self.assertEqual(out.returncode, 0, out.stderr)
            result = json.loads(out.stdout)
            del result["wall_seconds"]
            runs.append(result)
        self.assertEqual(runs[0], runs[1])
        self.assertNotEqual(runs[0]["mean_jct_s"], runs[2]["mean_jct_s"], "the seed changes nothing")
        # The bound follows each seed's drawn work, and no run goes below its own.
        self.assertNotEqual(runs[0]["lower_bound_mean_jct_s"], runs[2]["lower_bound_mean_jct_s"])
        for r in runs:
            self.assertGreater(r["lower_bound_mean_jct_s"], 0)
            self.assertGreaterEqual(r["mean_jct_s"], r["lower_bound_mean_jct_s"])
            self.assertGreaterEqual(r["mean_jct_over_bound"], 1)

    def test_lists_run_each_combination(self):
        out = run_trace(self.trace, *self.HAND, "--policy", "fifo,delay", "--delay-wait", "5,20",
                        "--remote-slowdown", "4,2")
        self.assertEqual(out.returncode, 0, out.stderr)
        runs = [json.loads(line) for line in out.stdout.splitlines()]
        self.assertEqual([(r["remote_slowdown"], r["policy"], r["delay_wait_s"]) for r in runs],
                         [(4, "fifo", None), (4, "delay", 5), (4, "delay", 20),
                          (2, "fifo", None), (2, "delay", 5), (2, "delay", 20)])
        self.assertAlmostEqual(runs[1]["mean_jct_s"], (11.5 + 46) / 2)
        self.assertAlmostEqual(runs[4]["mean_jct_s"], (11.5 + 26) / 2)  # remote 20 s from 6 s

    def test_yarn_models_count_missed_opportunities(self):
        # m0 runs a from 1.5 s to 11.5 s; m1 offers b its slot at 3, 6, 9 s. One rack, so a
        # rack-local run is any run off m0: remote, 40 s.
        out = run_trace(self.trace, *self.HAND, "--policy", "capacity-scheduler",
                        "--node-locality-delay", "0,1,2,40", "--rack-locality-delay", "5")
        self.assertEqual(out.returncode, 0, out.stderr)
        runs = [json.loads(line) for line in out.stdout.splitlines()]
        self.assertEqual([r["node_locality_delay"] for r in runs], [0, 1, 2, 40])
        self.assertEqual({r["rack_locality_delay"] for r in runs}, {5})
        self.assertEqual({r["locality_threshold_node"] for r in runs}, {None})
        # b declines delay offers, then runs on the next: at 3, 6, 9 s; 40 is capped at the
        # 2 machines.
        self.assertEqual([r["mean_jct_s"] for r in runs],
                         [(11.5 + 43) / 2, (11.5 + 46) / 2, (11.5 + 49) / 2, (11.5 + 49) / 2])
        # The derived off-rack delay (-1): 1 queued task x min(1, 3 locations / 2 machines)
        # = 1, so b runs off its holder once it has missed 2 offers, at 6 s, whatever the
        # node-locality-delay.
        derived = self.figures("--policy", "capacity-scheduler", "--node-locality-delay", "40")
        self.assertAlmostEqual(derived["mean_jct_s"], (11.5 + 46) / 2)
        # fair-scheduler: threshold 0.5 of 2 machines is 1 missed offer: rack level at 6 s.
        # Off (-1): at once, at 3 s.
        out = run_trace(self.trace, *self.HAND, "--policy", "fair-scheduler",
                        "--locality-threshold-node", "-1,0.5", "--locality-threshold-rack", "0.5")
        self.assertEqual(out.returncode, 0, out.stderr)
        runs = [json.loads(line) for line in out.stdout.splitlines()]
        self.assertEqual([r["locality_threshold_node"] for r in runs], [-1, 0.5])
        self.assertEqual([r["mean_jct_s"] for r in runs], [(11.5 + 43) / 2, (11.5 + 46) / 2])

    def test_utilization_sizes_the_cluster(self):
        # Two tasks of 10 s of work over a span of 10 s (the local mean: both arrive at 0)
        # fill half of 4 machines.
        out = run_trace(self.trace, "--format", "locsched", "--local-mean", "10",
                        "--utilization", "0.5", "--json")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(json.loads(out.stdout)["machines"], 4)
        both = run_trace(self.trace, "--format", "locsched", "--utilization", "0.5",
                         "--machines", "3")
        self.assertNotEqual(both.returncode, 0)
        self.assertIn("--utilization", both.stderr)

    def test_rebalance_and_lp_priority(self):
        # 20 jobs of 5 tasks at time 0 on 4 machines: a backlog for both to work on.
        with open(self.trace, "w") as f:
            for j in range(20):
                tasks = ",".join('{"task":"t%d","replicas":["m%d"]}' % (i, (j + i) % 3)
                                 for i in range(5))
                f.write('{"op":"job_submit","job":"j%d","tasks":[%s]}\n' % (j, tasks))
        args = ["--format", "locsched", "--machines", "4", "--json", "--policy", "jsq-maxweight"]
        plain = json.loads(run_trace(self.trace, *args).stdout)
        self.assertFalse(plain["rebalance"])
        self.assertFalse(plain["lp_priority"])
        runs = []
        for _ in range(2):
            out = run_trace(self.trace, *args, "--rebalance", "--lp-priority", "--lp-every", "2")
            self.assertEqual(out.returncode, 0, out.stderr)
            result = json.loads(out.stdout)
            del result["wall_seconds"]
            runs.append(result)
        self.assertEqual(runs[0], runs[1])  # deterministic with both on
        self.assertTrue(runs[0]["rebalance"])
        self.assertTrue(runs[0]["lp_priority"])
        self.assertGreater(runs[0]["rebalance_runs"], 0)
        self.assertGreater(runs[0]["lp_solves"], 0)
        self.assertEqual(runs[0]["jobs_done"], 20)
        for flag, extra in (("--rebalance", ["--rebalance"]), ("--lp-priority", ["--lp-priority"]),
                            ("--rebalance-every", ["--rebalance", "--rebalance-every", "0"]),
                            ("--lp-every", ["--lp-priority", "--lp-every", "-1"])):
            with self.subTest(flag=flag):
                policy = "fair" if extra == [flag] else "jsq-maxweight"
                out = run_trace(self.trace, "--format", "locsched", "--policy", policy, *extra)
                self.assertNotEqual(out.returncode, 0, "accepted")
                self.assertIn(flag + ":", out.stderr)

    def test_late_binding_rebalance_lp_and_weights(self):
        # One job of 40 tasks held by m0 and m1, then 20 small ones, on 8 machines.
        with open(self.trace, "w") as f:
            tasks = ",".join('{"task":"t%d","replicas":["m%d"]}' % (i, i % 2) for i in range(40))
            f.write('{"op":"job_submit","job":"big","tasks":[%s]}\n' % tasks)
            for j in range(20):
                f.write('{"op":"job_submit","job":"j%d","tasks":[{"task":"t0","replicas":["m%d"]}]}\n'
                        % (j, j % 8))
        args = ["--format", "locsched", "--machines", "8", "--json", "--policy", "late-binding"]
        plain = json.loads(run_trace(self.trace, *args).stdout)
        self.assertEqual(plain["weights"], "equal")
        self.assertAlmostEqual(plain["weighted_jct"], plain["mean_jct_s"] * 21, places=6)
        runs = []
        for _ in range(2):
            out = run_trace(self.trace, *args, "--rebalance", "--rebalance-big-job", "30",
                            "--lp-priority", "--lp-every", "2", "--weights", "priority",
                            "--hot-share", "0.5")
            self.assertEqual(out.returncode, 0, out.stderr)
            result = json.loads(out.stdout)
            del result["wall_seconds"]
            runs.append(result)
        self.assertEqual(runs[0], runs[1])  # deterministic with both on
        r = runs[0]
        self.assertEqual(r["job_order"], "lp")
        self.assertTrue(r["rebalance"])
        self.assertGreater(r["rebalance_runs"], 0)
        self.assertGreater(r["rebalance_permits"], 0)
        self.assertGreater(r["lp_solves"], 0)
        self.assertEqual(r["jobs_done"], 21)
        self.assertEqual(r["weights"], "priority")
        self.assertEqual(r["hot_share"], 0.5)
        for flag, extra in (("--weights", ["--weights", "heavy"]),
                            ("--hot-share", ["--hot-share", "0"]),
                            ("--hot-share", ["--hot-share", "1.5"]),
                            ("--rebalance-big-job", ["--rebalance", "--rebalance-big-job", "0"])):
            with self.subTest(args=extra):
                out = run_trace(self.trace, *args, *extra)
                self.assertNotEqual(out.returncode, 0, "accepted")
                self.assertIn(flag + ":", out.stderr)

    def test_text_output(self):
        out = run_trace(self.trace, "--format", "locsched", "--machines", "2")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("JCT mean", out.stdout)
        self.assertRegex(out.stdout, r"lower bound on mean JCT [0-9.]+ s .*mean [0-9.]+x bound")

    def test_list_policies(self):
        out = subprocess.run([SIM, "--list-policies"], capture_output=True, text=True, timeout=30)
        self.assertEqual(out.returncode, 0, out.stderr)
        names = out.stdout.split()
        for name in ("jsq-maxweight", "fair", "fifo", "delay"):
            self.assertIn(name, names)

    def test_bad_values_name_their_flag(self):
        cases = [
            ("--format", ["--format", "bogus"]),
            ("--hour", ["--format", "swim", "--hour", "30"]),
            ("--hour", ["--format", "locsched", "--hour", "1"]),  # only swim has hours
            ("--remote-slowdown", ["--format", "locsched", "--remote-slowdown", "0.5"]),
            ("--delay-wait", ["--format", "locsched", "--policy", "delay", "--delay-wait", "-1"]),
            ("--machines", ["--format", "locsched", "--machines", "0"]),
            ("--node-locality-delay", ["--format", "locsched", "--node-locality-delay", "-1"]),
            ("--rack-locality-delay", ["--format", "locsched", "--rack-locality-delay", "0,-2"]),
            ("--locality-threshold-node",
             ["--format", "locsched", "--locality-threshold-node", "1.5"]),
            ("--locality-threshold-rack",
             ["--format", "locsched", "--locality-threshold-rack", "nan"]),
            ("--racks", ["--format", "locsched", "--machines", "2", "--racks", "3"]),
            ("--heartbeat", ["--format", "locsched", "--heartbeat", "0"]),
            ("--load", ["--format", "locsched", "--load", "5"]),  # the slotted model's flag
            ("--sweep", ["--format", "locsched", "--sweep", "1,2"]),
            ("--intra", ["--format", "locsched", "--intra", "priority"]),
            ("--policy", ["--format", "locsched", "--policy", "bogus"]),
        ]
        for flag, args in cases:
            with self.subTest(args=args):
                out = run_trace(self.trace, *args, timeout=20)
                self.assertNotEqual(out.returncode, 0, "accepted")
                self.assertRegex(out.stderr, r"(?<![\w-])" + re.escape(flag) + r"(?![\w-])")
                self.assertEqual(out.stdout, "")

    def test_trace_only_flags_need_trace(self):
        for flag in ("--format", "--remote-slowdown", "--racks"):
            with self.subTest(flag=flag):
                out = run(flag, "2")
                self.assertNotEqual(out.returncode, 0, "accepted")
                self.assertIn(flag + ": needs --trace", out.stderr)

    def test_unreadable_trace_names_the_file(self):
        out = run_trace(os.path.join(self.dir.name, "missing.tsv"), "--format", "swim")
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("missing.tsv", out.stderr)

    def test_skip_count_is_gone(self):
        out = run("--delay-skips", "5")
        self.assertNotEqual(out.returncode, 0, "accepted")
        self.assertIn("--delay-skips", out.stderr)


class TraceSharedInputs(unittest.TestCase):
    """SWIM's with-input-paths rows: FB-2010's 3000 machines by default, jobs reading one
    input on its blocks' holders; --new-rack-share adds machines that hold nothing."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def write(self, name, inputs):
        """60 one-map jobs a second apart, job j reading inputs(j), SWIM's 9 fields."""
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            for j in range(60):
                f.write("job%d\t%d\t1\t1000\t0\t0\t%s\t\t\n" % (j, j, inputs(j)))
        return path

    def run_json(self, path, *args):
        out = run_trace(path, "--format", "swim", "--fixed-durations", "--policy", "delay",
                        "--delay-wait", "100000", "--json", *args)
        self.assertEqual(out.returncode, 0, out.stderr)
        result = json.loads(out.stdout)
        del result["wall_seconds"]
        return result

    def test_an_hour_without_jobs_runs_none_and_says_so(self):
        path = self.write("hour0.tsv", lambda j: "inputPath1")  # every job in hour 0
        out = run_trace(path, "--format", "swim", "--hour", "1", "--machines", "40", "--json")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(json.loads(out.stdout)["jobs"], 0)
        self.assertIn("--hour 1: %s has no jobs submitted in that hour" % path, out.stderr)
        out = run_trace(path, "--format", "swim", "--hour", "0", "--machines", "40", "--json")
        self.assertEqual(json.loads(out.stdout)["jobs"], 60)
        self.assertNotIn("warning", out.stderr)

    def test_racks_hold_a_machine_each_when_utilization_sizes_the_cluster(self):
        # Regression: an hour without jobs sized to one machine, and --racks 4 then failed
        # ("must be at most machines (1)"), stopping a league run with --sim-args "--racks 4".
        path = self.write("hour0.tsv", lambda j: "inputPath%d" % j)
        empty = run_trace(path, "--format", "swim", "--hour", "1", "--utilization", "0.5",
                          "--racks", "4", "--json")
        self.assertEqual(empty.returncode, 0, empty.stderr)
        result = json.loads(empty.stdout)
        self.assertEqual((result["jobs"], result["machines"]), (0, 4))
        # 60 tasks of 25 s over 59 s at 50% need 51 machines: 60 racks get one each.
        sized = self.run_json(path, "--hour", "0", "--utilization", "0.5")
        self.assertEqual(sized["machines"], 51)
        self.assertEqual(self.run_json(path, "--hour", "0", "--utilization", "0.5",
                                       "--racks", "8")["machines"], 51)
        many = self.run_json(path, "--hour", "0", "--utilization", "0.5", "--racks", "60")
        self.assertEqual((many["machines"], many["racks"], many["jobs"]), (60, 60, 60))

    def test_fb2010_format_runs_on_3000_machines_unless_told(self):
        path = self.write("shared.tsv", lambda j: "inputPath1")
        self.assertEqual(self.run_json(path)["machines"], 3000)
        self.assertEqual(self.run_json(path, "--machines", "40")["machines"], 40)

    def test_readers_of_one_input_queue_on_its_holders(self):
        # Delay scheduling that waits for ever runs every task on a holder: 60 tasks of 25 s
        # on one input's 3 holders take at least 20 x 25 s; on 60 inputs, about 25 s each.
        shared = self.write("shared.tsv", lambda j: "inputPath1")
        spread = self.write("spread.tsv", lambda j: "inputPath%d" % j)
        a = self.run_json(shared, "--machines", "40")
        self.assertEqual(a, self.run_json(shared, "--machines", "40"))  # deterministic
        b = self.run_json(spread, "--machines", "40")
        self.assertEqual((a["locality"], b["locality"]), (1, 1))
        self.assertGreaterEqual(a["makespan_s"], 20 * 25)
        self.assertLess(b["makespan_s"], 59 + 3 * 25)
        self.assertGreater(a["mean_jct_s"], 5 * b["mean_jct_s"])

    def test_new_rack_share_adds_machines_that_hold_nothing(self):
        path = self.write("spread.tsv", lambda j: "inputPath%d" % j)
        r = self.run_json(path, "--machines", "40", "--racks", "4", "--new-rack-share", "0.25")
        self.assertEqual((r["machines"], r["racks"], r["data_machines"]), (50, 5, 40))
        self.assertEqual(r["new_rack_share"], 0.25)
        self.assertEqual(r["locality"], 1)  # waiting for holders: nothing runs on the new rack
        flat = self.run_json(path, "--machines", "40", "--new-rack-share", "0.1")
        self.assertEqual((flat["machines"], flat["data_machines"]), (44, 40))
        for extra, what in ((["--new-rack-share", "-1"], "(0, 10]"),
                            (["--new-rack-share", "11"], "(0, 10]"),
                            (["--racks", "7", "--new-rack-share", "0.5"], "multiple")):
            with self.subTest(args=extra):
                out = run_trace(path, "--format", "swim", "--machines", "40", *extra)
                self.assertEqual(out.returncode, 2, out.stderr)
                self.assertIn("--new-rack-share:", out.stderr)
                self.assertIn(what, out.stderr)
        out = subprocess.run([SIM, "--new-rack-share", "0.1"], capture_output=True, text=True,
                             timeout=30)
        self.assertIn("--new-rack-share: needs --trace", out.stderr)


class TraceListPolicies(unittest.TestCase):
    # Two one-task jobs at 0 s held only by m0, on two machines; a task takes 10 s on m0 and
    # 40 s on m1 (locsched's own format, fixed durations).
    JOBS = TraceMode.JOBS
    HAND = ["--format", "locsched", "--machines", "2", "--fixed-durations", "--local-mean", "10",
            "--json"]

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)
        self.trace = os.path.join(self.dir.name, "two.jsonl")
        with open(self.trace, "w") as f:
            f.write("\n".join(self.JOBS) + "\n")

    def rows(self, *args):
        out = run_trace(self.trace, *self.HAND, *args)
        self.assertEqual(out.returncode, 0, out.stderr)
        return [json.loads(line) for line in out.stdout.splitlines()]

    def test_hand_worked_and_weighted(self):
        # Online SynchPack keeps the second task on m0 (10 then 20 s); Tetris and the list
        # JSQ+MaxWeight start it on m1 at once (40 s). Equal weights: sum w JCT = 2 x mean.
        rows = self.rows("--policy", "synchpack,tetris,jsq-mw")
        self.assertEqual([r["policy"] for r in rows], ["synchpack", "tetris", "jsq-mw"])
        for r, worse in zip(rows, (20, 40, 40)):
            self.assertEqual(r["jobs_done"], 2)
            self.assertAlmostEqual(r["mean_jct_s"], (10 + worse) / 2)
            self.assertAlmostEqual(r["weighted_jct"], 10 + worse)
            self.assertAlmostEqual(r["weighted_mean_jct_s"], (10 + worse) / 2)
            self.assertAlmostEqual(r["weighted_completion"], 10 + worse)
            self.assertEqual(r["weights"], "equal")
            # m0 alone holds both: SRPT at 1.25 slots' speed ends them at 8 and 16 s.
            self.assertAlmostEqual(r["lower_bound_mean_jct_s"], 12)
            self.assertAlmostEqual(r["mean_jct_over_bound"], (10 + worse) / 2 / 12)
        self.assertGreaterEqual(rows[0]["resolves"], 1)
        # Weights drawn per seed: the same seed, the same sums; the core's policies get them too.
        a = self.rows("--policy", "synchpack,fifo", "--weights", "uniform", "--seed", "3")
        b = self.rows("--policy", "synchpack,fifo", "--weights", "uniform", "--seed", "3")
        self.assertEqual([r["weighted_jct"] for r in a], [r["weighted_jct"] for r in b])
        self.assertEqual(a[1]["policy"], "fifo")

    def test_time_scale_and_bad_values(self):
        self.assertEqual(self.rows("--policy", "tetris", "--time-scale", "0.5")[0]["time_scale"],
                         0.5)
        for args, flag in ((("--weights", "google"), "--weights"),
                           (("--time-scale", "0"), "--time-scale"),
                           (("--resolve-growth", "0.5"), "--resolve-growth"),
                           (("--policy", "synchpak"), "--policy")):
            base = [] if "--policy" in args else ["--policy", "synchpack"]
            out = run_trace(self.trace, *self.HAND, *base, *args)
            self.assertEqual(out.returncode, 2, out.stdout)
            self.assertIn(flag, out.stderr)
        out = subprocess.run([SIM, "-q", "--weights", "priority"], capture_output=True,
                             text=True, timeout=60)
        self.assertEqual(out.returncode, 2)
        self.assertIn("--weights", out.stderr)


class Sweep(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def test_csv_and_json_lines(self):
        path = os.path.join(self.dir.name, "sweep.csv")
        out = run("--json", sweep="20,30", policy="jsq-maxweight,fair", csv=path)
        self.assertEqual(out.returncode, 0, out.stderr)
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
        self.assertEqual(rows[0], CSV_HEADER)
        self.assertEqual(len(rows), 5)
        points = {(r[0], float(r[1])) for r in rows[1:]}
        self.assertEqual(points, {(p, l) for p in ("jsq-maxweight", "fair") for l in (20, 30)})
        for r in rows[1:]:
            self.assertIn(r[5], ("0", "1"))  # stable
            self.assertIn(r[6], ("0", "1"))  # stopped_early
            self.assertEqual(float(r[12]), 40 * 0.8 + 10 * 0.2)  # capacity
        lines = out.stdout.splitlines()
        self.assertEqual(len(lines), 4)
        self.assertEqual({(j["policy"], j["load"]) for j in map(json.loads, lines)}, points)

    def test_range(self):
        out = run("--json", sweep="20:30:5")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual([json.loads(l)["load"] for l in out.stdout.splitlines()], [20, 25, 30])

    @unittest.skipIf(have_matplotlib(), "the python3 on PATH has matplotlib")
    def test_chart_without_matplotlib_says_so_and_keeps_the_data(self):
        png = os.path.join(self.dir.name, "sweep.png")
        out = run(sweep="20,30", policy="jsq-maxweight,fair", chart=png)
        self.assertEqual(out.returncode, 1)
        self.assertIn("python3-matplotlib", out.stderr)
        self.assertTrue(os.path.exists(png + ".csv"), "no CSV next to the chart")

    @unittest.skipUnless(have_matplotlib(), "the python3 on PATH has no matplotlib")
    def test_chart_is_a_png(self):
        png = os.path.join(self.dir.name, "sweep.png")
        out = run(sweep="20,30", policy="jsq-maxweight,fair", chart=png)
        self.assertEqual(out.returncode, 0, out.stderr)
        with open(png, "rb") as f:
            data = f.read()
        self.assertGreater(len(data), 1000)
        self.assertEqual(data[:8], b"\x89PNG\r\n\x1a\n")
        self.assertTrue(os.path.exists(png + ".csv"), "no CSV next to the chart")


if __name__ == "__main__":
    if len(sys.argv) < 2 or not os.access(sys.argv[1], os.X_OK):
        sys.exit(f"usage: {sys.argv[0]} /path/to/locsched-sim [unittest options]")
    SIM = os.path.abspath(sys.argv[1])
    unittest.main(argv=[sys.argv[0]] + sys.argv[2:], exit=True)
