#!/usr/bin/env python3
"""scripts/beltsim_suite.py (issue 36): the suite of tests/suite/suite.toml passes against its
committed goldens; one changed scenario key fails exactly the case it affects, with its figures
in the JUnit XML and the report; `bless` accepts the new results and the suite passes again; a
faulting case and a case over its time limit are failures, never passes; a bad suite is refused
with one line and nothing written.

Usage: test_suite.py SOURCE_DIR BELTSIM WORK_DIR
References: the goldens (made by bless from the same runs: the plant is deterministic), the
capstan law's direction for the friction change (less friction, more slip: the load pulley slower).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import unittest
import xml.etree.ElementTree as ET

SOURCE = BELTSIM = WORK = None


def suite(command, path, out, *extra):
    shutil.rmtree(out, ignore_errors=True)
    return subprocess.run([sys.executable, os.path.join(SOURCE, "scripts", "beltsim_suite.py"), command, path,
                           "--out", out, "--beltsim", BELTSIM, *extra], capture_output=True, text=True, timeout=900)


def junit(out):
    root = ET.parse(os.path.join(out, "junit.xml")).getroot()
    return {tc.get("name"): tc for tc in root.findall("testcase")}


def moved_suite(name, goldens, replace=None, extra=""):
    """tests/suite/suite.toml written to WORK with absolute paths, its goldens in `goldens`."""
    folder = os.path.join(SOURCE, "tests", "suite")
    text = open(os.path.join(folder, "suite.toml")).read()
    text = re.sub(r'(scenario|recording) = "([^"]+)"',
                  lambda m: f'{m.group(1)} = "{os.path.normpath(os.path.join(folder, m.group(2)))}"', text)
    text = text.replace('goldens = "goldens"', f'goldens = "{goldens}"')
    for old, new in (replace or {}).items():
        assert old in text, old
        text = text.replace(old, new)
    path = os.path.join(WORK, name)
    with open(path, "w") as f:
        f.write(text + extra)
    return path


class Suite(unittest.TestCase):
    def test_the_committed_suite_passes_against_its_goldens(self):
        out = os.path.join(WORK, "clean")
        p = suite("run", os.path.join(SOURCE, "tests", "suite", "suite.toml"), out)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        cases = junit(out)
        self.assertEqual(sorted(cases), ["accessory", "hil_replay", "open_conveyor", "paper_coarse"])
        self.assertTrue(all(len(tc) == 0 for tc in cases.values()), "no failure elements")

    def test_a_changed_friction_fails_exactly_its_case_and_bless_accepts_it(self):
        goldens = os.path.join(WORK, "goldens")
        shutil.rmtree(goldens, ignore_errors=True)
        shutil.copytree(os.path.join(SOURCE, "tests", "suite", "goldens"), goldens)
        scenario = os.path.join(SOURCE, "host_sim", "scenarios", "accessory_drive.toml")
        changed = os.path.join(WORK, "changed", "accessory_drive.toml")  # the same file name
        os.makedirs(os.path.dirname(changed), exist_ok=True)
        text = open(scenario).read()
        assert "coefficient = 0.5\n" in text
        with open(changed, "w") as f:
            f.write(text.replace("coefficient = 0.5\n", "coefficient = 0.45\n"))
        path = moved_suite("changed.toml", goldens, {scenario: changed})

        out = os.path.join(WORK, "changed_run")
        p = suite("run", path, out)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        cases = junit(out)
        failing = sorted(name for name, tc in cases.items() if len(tc))
        self.assertEqual(failing, ["accessory"])
        failure = cases["accessory"].find("failure")
        self.assertIsNotNone(failure)
        self.assertRegex(failure.text, r"omega: \[.*\], golden \[.*\]")
        report = open(os.path.join(out, "report.md")).read()
        self.assertIn("## accessory: fail", report)
        self.assertIn("accessory_omega_p5.png", report)
        self.assertTrue(os.path.isfile(os.path.join(out, "accessory_omega_p5.png")))

        p = suite("bless", path, os.path.join(WORK, "bless_run"))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stdout, r"accessory: changed: ")
        for name in ("paper_coarse", "open_conveyor", "hil_replay"):
            self.assertIn(f"{name}: unchanged", p.stdout)
        p = suite("run", path, os.path.join(WORK, "after_bless"))
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def one_case(self, name, file, settings, time_limit=3600):
        """A suite of one case of scenario `file` with the --set keys `settings` (a dict) and a golden
        made by hand (the run is not expected to give one); run; the case's JUnit testcase."""
        goldens = os.path.join(WORK, name + "_goldens")
        os.makedirs(goldens, exist_ok=True)
        overrides = [f"{k}={v}" for k, v in settings.items()]
        with open(os.path.join(goldens, name + ".json"), "w") as f:
            json.dump({"case": name, "source": {"kind": "scenario", "file": file, "set": overrides},
                       "quantities": {"steps": 0}, "timeseries": {}}, f)
        scenario = os.path.join(SOURCE, "host_sim", "scenarios", file)
        keys = ", ".join(f'"{k}" = {json.dumps(v)}' for k, v in settings.items())
        path = os.path.join(WORK, name + ".toml")
        with open(path, "w") as f:
            f.write(f'goldens = "{goldens}"\ntime_limit = {time_limit}\n[[case]]\nname = "{name}"\n'
                    f'scenario = "{scenario}"\nset = {{ {keys} }}\nquantities = ["steps"]\n')
        out = os.path.join(WORK, name + "_run")
        p = suite("run", path, out)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        return junit(out)[name]

    def test_a_faulting_case_fails_with_its_reason(self):
        case = self.one_case("diverging", "open_cantilever.toml",
                             {"belt.reference_strain": -0.05, "static.start": "rest", "solver.end_time": 0.05})
        failure = case.find("failure")
        self.assertIsNotNone(failure)
        self.assertRegex(failure.get("message"), r"the run failed: step \d+ \(t = ")

    def test_a_case_over_its_time_limit_is_killed_and_an_error(self):
        error = self.one_case("slow", "paper_belt_drive.toml", {"belt.elements": 60}, time_limit=1.0).find("error")
        self.assertIsNotNone(error)
        self.assertIn("time limit", error.get("message"))


class BadSuite(unittest.TestCase):
    def refused(self, text, pattern, command="run"):
        path = os.path.join(WORK, "bad.toml")
        with open(path, "w") as f:
            f.write(text)
        out = os.path.join(WORK, "bad_out")
        p = suite(command, path, out)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        lines = p.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertRegex(lines[0], pattern)
        self.assertFalse(os.path.exists(out), "nothing written")

    def test_an_unknown_key_is_named_with_its_line(self):
        goldens = os.path.join(SOURCE, "tests", "suite", "goldens")
        self.refused(f'goldens = "{goldens}"\ncolour = "red"\n', r"bad\.toml:2: key 'colour': unknown key")
        scenario = os.path.join(SOURCE, "host_sim", "scenarios", "paper_belt_drive.toml")
        self.refused(f'[[case]]\nname = "x"\nscenario = "{scenario}"\nquantity = ["steps"]\n',
                     r"bad\.toml:4: key 'case\[0\]\.quantity': unknown key")

    def test_a_missing_golden_is_refused_for_run(self):
        scenario = os.path.join(SOURCE, "host_sim", "scenarios", "paper_belt_drive.toml")
        self.refused(f'goldens = "{WORK}/none"\n[[case]]\nname = "paper"\nscenario = "{scenario}"\n'
                     'set = { "belt.elements" = 24 }\nquantities = ["steps"]\n',
                     r"bad\.toml:3: key 'case\[0\]\.name': no golden: .*paper\.json")

    def test_a_golden_of_another_scenario_is_refused(self):
        goldens = os.path.join(SOURCE, "tests", "suite", "goldens")
        scenario = os.path.join(SOURCE, "host_sim", "scenarios", "realtime_belt_drive.toml")
        self.refused(f'goldens = "{goldens}"\n[[case]]\nname = "paper_coarse"\nscenario = "{scenario}"\n'
                     'quantities = ["steps"]\n',
                     r"bad\.toml:4: key 'case\[0\]\.scenario': its golden .*paper_coarse\.json was made from "
                     r"scenario paper_belt_drive\.toml with --set belt\.elements=24, .*, this case is scenario "
                     r"realtime_belt_drive\.toml$", command="bless")


if __name__ == "__main__":
    SOURCE, BELTSIM, WORK = (os.path.abspath(a) for a in sys.argv[1:4])
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    unittest.main(argv=[sys.argv[0]] + sys.argv[4:], verbosity=2)
