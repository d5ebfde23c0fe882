#!/usr/bin/env python3
"""Retired scenario key names (issue 50): a file with `belt.integration_scheme` and `solver.scheme`
(HIL recordings made before the rename embed such files) still runs, each old name printing one
line that names the new key, with outputs equal to the file with `belt.axial_rule` and
`solver.integrator`; `--set` with an old name does the same; a file giving a key under both
names is refused naming both; and scripts/scenario_to_plant_config.py reads the old names alike
(the same header, the same notices).

The renamed keys are set to values other than their defaults (axial rule "b", generalized-alpha),
so a retired name read as absent would change the outputs.

Usage: retired_scenario_keys.py BELTSIM SOURCE_DIR WORK_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys

BASE = "host_sim/scenarios/hil_belt_drive.toml"
END = "0.05"  # s: 50 steps of the HIL drive
HASHED = ("timeseries.csv", "belt_profile.csv", "summary.json")
NOTICE = r"^{file}:{line}: {old} is now {new}; read as such$"


def renamed(text, rule, integrator):
    """The base file with the two keys spelled `rule` and `integrator` (values "b", generalized-alpha)."""
    text, n1 = re.subn(r'(?m)^axial_rule = "c"', f'{rule} = "b"', text)
    text, n2 = re.subn(r'(?m)^integrator = "generalized_alpha"', f'{integrator} = "generalized_alpha"', text)
    if (n1, n2) != (1, 1):
        sys.exit(f"{BASE} no longer has axial_rule = \"c\" and integrator = \"generalized_alpha\" once each")
    return text


def line_of(text, key):
    return next(n for n, line in enumerate(text.splitlines(), 1) if line.startswith(key + " ="))


def outputs(folder):
    result = {}
    for name in HASHED:
        data = open(os.path.join(folder, name)).read()
        if name == "summary.json":  # without the wall-clock fields and the file's name
            data = {k: v for k, v in json.loads(data).items()
                    if "wall" not in k and not k.startswith("step_time_") and k != "scenario"}
        result[name] = data
    return result


def main():
    beltsim, source, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    base = open(os.path.join(source, BASE)).read()
    files = {"new": renamed(base, "axial_rule", "integrator"), "old": renamed(base, "integration_scheme", "scheme")}
    files["both"] = files["new"].replace('axial_rule = "b"', 'axial_rule = "b"\nintegration_scheme = "b"')
    paths = {}
    for label, text in files.items():
        paths[label] = os.path.join(work, label + ".toml")
        with open(paths[label], "w") as f:
            f.write(text)
    failures = []

    def run(label, path, *extra):
        out = os.path.join(work, "out_" + label)
        p = subprocess.run([beltsim, "run", path, "--quiet", "--out", out, "--set", f"solver.end_time={END}", *extra],
                           capture_output=True, text=True, timeout=600)
        if p.returncode != 0:
            failures.append(f"{label}: beltsim run failed ({p.returncode}): {p.stderr.strip()}")
            return p, None
        return p, outputs(out)

    new, new_outputs = run("new", paths["new"])
    old, old_outputs = run("old", paths["old"])
    if new.stderr.strip():
        failures.append(f"the new names print something: {new.stderr.strip()}")
    expected = [NOTICE.format(file=re.escape(paths["old"]), line=line_of(files["old"], "integration_scheme"),
                              old=re.escape("belt.integration_scheme"), new=re.escape("belt.axial_rule")),
                NOTICE.format(file=re.escape(paths["old"]), line=line_of(files["old"], "scheme"),
                              old=re.escape("solver.scheme"), new=re.escape("solver.integrator"))]
    lines = old.stderr.strip().splitlines()
    if len(lines) != 2 or not all(re.match(e, l) for e, l in zip(expected, lines)):
        failures.append(f"old names: expected one notice each ({expected}), got: {lines}")
    if new_outputs is not None and old_outputs is not None and new_outputs != old_outputs:
        failures.append("old names: outputs differ from the new names' ("
                        + ", ".join(n for n in HASHED if new_outputs[n] != old_outputs[n]) + ")")

    # --set with an old name: the notice (where: --set), the same outputs as the new name.
    default_rule = files["new"].replace('axial_rule = "b"\n', "")
    path = os.path.join(work, "default_rule.toml")
    with open(path, "w") as f:
        f.write(default_rule)
    set_new, set_new_outputs = run("set_new", path, "--set", "belt.axial_rule=b")
    set_old, set_old_outputs = run("set_old", path, "--set", "belt.integration_scheme=b")
    notice = f"{path}:--set: belt.integration_scheme is now belt.axial_rule; read as such"
    if set_old.stderr.strip() != notice:
        failures.append(f"--set belt.integration_scheme=b: expected the one line {notice!r}, got {set_old.stderr.strip()!r}")
    if set_new_outputs != set_old_outputs:
        failures.append("--set with the old name: outputs differ from --set with the new name")
    if set_new_outputs is not None and new_outputs is not None and set_new_outputs != new_outputs:
        failures.append("--set belt.axial_rule=b: outputs differ from the file giving it")
    # --set with the new name over a file with the old name: the override decides.
    p = subprocess.run([beltsim, "check", paths["old"], "--set", "belt.axial_rule=a", "--set", "solver.integrator=newmark"],
                       capture_output=True, text=True, timeout=60)
    if p.returncode != 0 or p.stderr.strip():
        failures.append(f"--set with the new names over the old ones: {p.returncode}, {p.stderr.strip()!r}")

    # Both names: refused, naming both.
    p = subprocess.run([beltsim, "check", paths["both"]], capture_output=True, text=True, timeout=60)
    if p.returncode == 0 or not re.search(r"key 'belt\.axial_rule': given twice: also as belt\.integration_scheme", p.stderr):
        failures.append(f"both names: expected a refusal naming both, got {p.returncode}: {p.stderr.strip()!r}")

    # The firmware's generator: the same header from both files, the same notices.
    generator = os.path.join(source, "scripts", "scenario_to_plant_config.py")
    headers = {}
    for label in ("new", "old"):
        out = os.path.join(work, label + ".hpp")
        g = subprocess.run([sys.executable, generator, paths[label], out, "user"], capture_output=True, text=True, timeout=60)
        if g.returncode != 0:
            failures.append(f"scenario_to_plant_config.py, {label} names: {g.stderr.strip()}")
            continue
        headers[label] = open(out).read().replace(os.path.basename(paths[label]), "FILE")
        if label == "old" and g.stderr.strip().splitlines() != lines:
            failures.append(f"scenario_to_plant_config.py, old names: notices {g.stderr.strip().splitlines()} "
                            f"are not beltsim's {lines}")
    if len(headers) == 2 and headers["new"] != headers["old"]:
        failures.append("scenario_to_plant_config.py: the old names give another header")
    g = subprocess.run([sys.executable, generator, paths["both"], os.path.join(work, "both.hpp"), "user"],
                       capture_output=True, text=True, timeout=60)
    if g.returncode == 0 or g.stderr.strip() != "error: " + p.stderr.strip().removeprefix("error: "):
        failures.append(f"scenario_to_plant_config.py, both names: {g.stderr.strip()!r} is not beltsim's {p.stderr.strip()!r}")

    for f in failures:
        print("FAILED", f)
    print("retired key names: " + ("ok" if not failures else f"{len(failures)} failures"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
