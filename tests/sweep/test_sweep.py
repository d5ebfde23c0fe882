#!/usr/bin/env python3
"""scripts/beltsim_sweep.py (issue 36): a sweep is the same table wherever its cases ran, its
figures are those of single `beltsim run`s, and a case that goes wrong is reported, never lost.

Usage: test_sweep.py SOURCE_DIR BELTSIM WORK_DIR     (the Debian python3: Dask is python3-distributed)

References: determinism of the plant (same inputs, same bits: a case is a deterministic process),
and the single run of each case; the reasons come from beltsim's own messages.
"""
import csv
import os
import shutil
import subprocess
import sys
import threading
import time
import unittest

SOURCE = BELTSIM = WORK = None


def sweep(spec, out, *extra):
    shutil.rmtree(out, ignore_errors=True)
    return subprocess.run([sys.executable, os.path.join(SOURCE, "scripts", "beltsim_sweep.py"), spec, "--out", out,
                           "--beltsim", BELTSIM, *extra], capture_output=True, text=True, timeout=900)


def table(out, drop_wall=True):
    with open(os.path.join(out, "sweep.csv")) as f:
        rows = list(csv.reader(f))
    if drop_wall:
        rows = [r[:-1] for r in rows]  # the wall-time column
    return rows


def write(name, text):
    path = os.path.join(WORK, name)
    with open(path, "w") as f:
        f.write(text)
    return path


class Sweep(unittest.TestCase):
    SPEC = None

    @classmethod
    def setUpClass(cls):
        cls.SPEC = os.path.join(SOURCE, "tests", "sweep", "friction_load.toml")
        cls.one = sweep(cls.SPEC, os.path.join(WORK, "one"), "--jobs", "1")
        cls.two = sweep(cls.SPEC, os.path.join(WORK, "two"), "--jobs", "2")

    def test_twelve_cases_run_with_one_process(self):
        self.assertEqual(self.one.returncode, 0, self.one.stderr)
        rows = table(os.path.join(WORK, "one"))
        self.assertEqual(len(rows), 13)
        self.assertEqual(rows[0][:3], ["case", "friction.coefficient", "pulley[1].torque.to"])
        self.assertTrue(all(r[rows[0].index("faulted")] == "false" for r in rows[1:]))
        self.assertTrue(os.path.isfile(os.path.join(WORK, "one", "omega_p2_vs_friction_coefficient.png")))

    def test_two_processes_give_the_same_table(self):
        self.assertEqual(self.two.returncode, 0, self.two.stderr)
        self.assertEqual(table(os.path.join(WORK, "one")), table(os.path.join(WORK, "two")))

    def test_a_dask_cluster_of_two_workers_gives_the_same_table(self):
        from distributed import Client, LocalCluster
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
            p = sweep(self.SPEC, os.path.join(WORK, "dask"), "--scheduler", cluster.scheduler_address)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(table(os.path.join(WORK, "one")), table(os.path.join(WORK, "dask")))

    def test_the_figures_are_those_of_a_single_run(self):
        rows = table(os.path.join(WORK, "one"))
        header, row = rows[0], rows[8]  # case 7: mu 0.4, load -15 N m
        out = os.path.join(WORK, "single")
        shutil.rmtree(out, ignore_errors=True)
        command = [BELTSIM, "run", os.path.join(SOURCE, "host_sim", "scenarios", "paper_belt_drive.toml"), "--quiet",
                   "--out", out]
        for key, value in [("belt.elements", "24"), ("solver.step_size", "0.0001"), ("solver.end_time", "0.15"),
                           ("pulley[0].speed.t0", "0.0"), ("pulley[0].speed.t1", "0.08"), ("pulley[1].torque.t0", "0.0"),
                           ("pulley[1].torque.t1", "0.05"), ("friction.coefficient", "0.4"),
                           ("pulley[1].torque.to", "-15.0")]:
            command += ["--set", f"{key}={value}"]
        subprocess.run(command, check=True, capture_output=True)
        import json
        tail = json.load(open(os.path.join(out, "summary.json")))["tail_mean"]
        for name in ["omega_p2", "drive_torque", "span_force_tight", "span_force_slack"]:
            self.assertEqual(row[header.index(name)], repr(tail[name]), name)


class WhatGoesWrong(unittest.TestCase):
    def test_a_faulting_and_a_refused_case_are_failures_with_their_reasons(self):
        # The cantilever pre-stretched (reference strain -0.05: issue 35's diverging run) is stopped
        # by beltsim's run guard; mu = -1 is refused by beltsim itself.
        spec = write("wrong.toml", f"""scenario = "{SOURCE}/host_sim/scenarios/open_cantilever.toml"
outputs = []
[set]
"static.start" = "rest"
"solver.end_time" = 0.05
[vary]
"belt.reference_strain" = [0.0, -0.05]
"friction.coefficient" = [0.5, -1.0]
""")
        p = sweep(spec, os.path.join(WORK, "wrong"))
        self.assertEqual(p.returncode, 1, p.stderr)
        rows = table(os.path.join(WORK, "wrong"))
        h = rows[0]
        by_case = {r[0]: r for r in rows[1:]}
        self.assertEqual(len(by_case), 4)
        self.assertEqual(by_case["0"][h.index("faulted")], "false")
        self.assertEqual(by_case["2"][h.index("faulted")], "true")
        self.assertRegex(by_case["2"][h.index("fault_reason")], r"^step \d+ \(t = .* s\): ")
        self.assertEqual(by_case["1"][h.index("faulted")], "true")
        self.assertIn("key 'friction.coefficient'", by_case["1"][h.index("fault_reason")])

    def test_a_case_over_its_time_limit_is_killed_and_reported(self):
        spec = write("slow.toml", f"""scenario = "{SOURCE}/host_sim/scenarios/paper_belt_drive.toml"
time_limit = 1.0
[set]
"belt.elements" = 60
"solver.end_time" = 2.45
[vary]
"friction.coefficient" = [0.5]
""")
        start = time.monotonic()
        p = sweep(spec, os.path.join(WORK, "slow"))
        self.assertLess(time.monotonic() - start, 60.0)
        self.assertEqual(p.returncode, 1, p.stderr)
        row = table(os.path.join(WORK, "slow"))[1]
        header = table(os.path.join(WORK, "slow"))[0]
        self.assertEqual(row[header.index("exit_status")], "timeout")
        self.assertIn("time limit", row[header.index("fault_reason")])

    def test_a_worker_that_dies_mid_case_leaves_no_case_missing(self):
        from distributed import Client, LocalCluster
        # The example's cases made four times longer (0.6 s simulated, about a second each), so that
        # a case is surely running when the worker is killed.
        text = open(os.path.join(SOURCE, "tests", "sweep", "friction_load.toml")).read()
        assert '"solver.end_time" = 0.15' in text
        spec = write("long_cases.toml", text.replace('"solver.end_time" = 0.15', '"solver.end_time" = 0.6').replace(
            'scenario = "../../host_sim/', f'scenario = "{SOURCE}/host_sim/'))
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
            result = {}
            runner = threading.Thread(target=lambda: result.update(p=sweep(
                spec, os.path.join(WORK, "killed"), "--scheduler", cluster.scheduler_address)))
            runner.start()
            with Client(cluster.scheduler_address) as client:
                # Kill one worker process while it runs a case (its nanny starts a new one).
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline and not any(client.processing().values()):
                    time.sleep(0.05)
                busy = [w for w, tasks in client.processing().items() if tasks]
                self.assertTrue(busy, "no case was running")
                try:
                    client.run(os._exit, 1, workers=busy[:1])
                except Exception:  # the worker does not answer: it is gone
                    pass
            runner.join(900)
        p = result["p"]
        self.assertIn(p.returncode, (0, 1), p.stderr)
        rows = table(os.path.join(WORK, "killed"))
        self.assertEqual([r[0] for r in rows[1:]], [str(i) for i in range(12)], "every case has its row")
        # Re-run: the undisturbed run's figures; otherwise reported as an error.
        status = rows[0].index("exit_status")
        undisturbed = sweep(spec, os.path.join(WORK, "undisturbed"), "--jobs", "2")
        self.assertEqual(undisturbed.returncode, 0)
        for r, reference in zip(rows[1:], table(os.path.join(WORK, "undisturbed"))[1:]):
            self.assertTrue(r == reference or r[status] == "error", r)


class BadSpec(unittest.TestCase):
    CASES = [
        ("unknown key", 'scenario = "{s}"\ncolour = "red"\n[vary]\n"friction.coefficient" = [0.5]\n',
         r"bad\.toml:2: key 'colour': unknown key"),
        ("a key the scenario format lacks", 'scenario = "{s}"\n[vary]\n"friction.stickiness" = [0.5]\n',
         r"bad\.toml:3: key 'vary\.friction\.stickiness': .*key 'friction\.stickiness': unknown key"),
        ("an empty range", 'scenario = "{s}"\n[vary]\n"friction.coefficient" = {{ random = [0.5, 0.5], count = 2, seed = 1 }}\n',
         r"bad\.toml:3: key 'vary\.friction\.coefficient': an empty range"),
        ("an empty list", 'scenario = "{s}"\n[vary]\n"friction.coefficient" = []\n',
         r"bad\.toml:3: key 'vary\.friction\.coefficient': an empty list"),
        ("a missing scenario", 'scenario = "no_such.toml"\n[vary]\n"friction.coefficient" = [0.5]\n',
         r"bad\.toml:1: key 'scenario': no such file"),
        ("a pulley the scenario lacks", 'scenario = "{s}"\n[vary]\n"pulley[7].inertia" = [0.5]\n',
         r"bad\.toml:3: key 'vary\.pulley\[7\]\.inertia': .*the file has 2 \[\[pulley\]\] entries"),
    ]

    def test_a_bad_spec_is_refused_with_one_line_and_nothing_written(self):
        scenario = os.path.join(SOURCE, "host_sim", "scenarios", "paper_belt_drive.toml")
        for name, text, pattern in self.CASES:
            with self.subTest(name):
                spec = write("bad.toml", text.format(s=scenario))
                out = os.path.join(WORK, "bad_out")
                p = sweep(spec, out)
                self.assertEqual(p.returncode, 2)
                lines = p.stderr.strip().splitlines()
                self.assertEqual(len(lines), 1, p.stderr)
                self.assertRegex(lines[0], pattern)
                self.assertFalse(os.path.exists(out), "nothing written")


if __name__ == "__main__":
    SOURCE, BELTSIM, WORK = (os.path.abspath(a) for a in sys.argv[1:4])
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    unittest.main(argv=[sys.argv[0]] + sys.argv[4:], verbosity=2)
