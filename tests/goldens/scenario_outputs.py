#!/usr/bin/env python3
"""Golden outputs of every shipped scenario (tests/goldens/README.md).

  scenario_outputs.py check  BELTSIM REPO WORK   compare with scenario_outputs.json (CTest)
  scenario_outputs.py record BELTSIM REPO WORK   write scenario_outputs.json

For each scenario in host_sim/scenarios/ and firmware/configs/: a short `beltsim run` (end time
at most SHORT_END s) and the sha256 of timeseries.csv, belt_profile.csv and summary.json, the
last with its wall-clock fields removed; for the HIL recording of the suite: the replay's trace
hash. A scenario whose element count this build does not compile (`BELTSIM_HOST_ELEMENT_COUNTS`)
is reported as skipped, and the check requires at least one run. The host preset runs it (beltsim
is a PC program: the cross presets do not build it).
"""
import hashlib
import json
import pathlib
import re
import shutil
import subprocess
import sys

SHORT_END = 0.1  # s
SCENARIO_DIRS = ("host_sim/scenarios", "firmware/configs")
RECORDING = "tests/suite/data/hil_lockstep_speed_step.bin"
HASHED_FILES = ("timeseries.csv", "belt_profile.csv", "summary.json")


def wall_clock_key(key):
    return "wall" in key or key.startswith("step_time_")


def strip_wall_clock(value):
    if isinstance(value, dict):
        return {k: strip_wall_clock(v) for k, v in value.items() if not wall_clock_key(k)}
    if isinstance(value, list):
        return [strip_wall_clock(v) for v in value]
    return value


def sha256_of(path):
    data = path.read_bytes()
    if path.name == "summary.json":
        data = json.dumps(strip_wall_clock(json.loads(data)), sort_keys=True).encode()
    return hashlib.sha256(data).hexdigest()


def end_time_of(scenario):
    text = scenario.read_text()
    match = re.search(r"^\s*end_time\s*=\s*([0-9.eE+-]+)", text, re.MULTILINE)
    return float(match.group(1)) if match else SHORT_END


def run_scenario(beltsim, repo, scenario, work):
    rel = scenario.relative_to(repo).as_posix()
    out = work / rel.replace("/", "_").replace(".toml", "")
    shutil.rmtree(out, ignore_errors=True)
    end = min(end_time_of(scenario), SHORT_END)
    cmd = [beltsim, "run", rel, "--out", str(out), "--set", f"solver.end_time={end!r}"]
    proc = subprocess.run(cmd, cwd=repo, capture_output=True, text=True)
    if proc.returncode != 0 or not (out / "summary.json").exists():
        message = (proc.stderr + proc.stdout).strip().splitlines()
        if any("is not compiled in" in line for line in message):
            return rel, None
        sys.exit(f"{rel}: beltsim run failed ({proc.returncode}):\n" + "\n".join(message[-20:]))
    return rel, {name: sha256_of(out / name) for name in HASHED_FILES} | {"end_time": end}


def replay_hash(beltsim, repo, work):
    out = work / "hil_replay"
    shutil.rmtree(out, ignore_errors=True)
    proc = subprocess.run([beltsim, "replay", RECORDING, "--out", str(out)], cwd=repo, capture_output=True, text=True)
    match = re.search(r"trace hash (0x[0-9a-f]{16})", proc.stderr + proc.stdout)
    if proc.returncode != 0 or not match:
        sys.exit(f"{RECORDING}: beltsim replay failed ({proc.returncode}):\n{proc.stderr}")
    return match.group(1)


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in ("check", "record"):
        sys.exit(__doc__)
    mode, beltsim, repo, work = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3]).resolve(), pathlib.Path(sys.argv[4])
    work.mkdir(parents=True, exist_ok=True)
    golden_file = repo / "tests/goldens/scenario_outputs.json"
    results, skipped = {}, []
    for folder in SCENARIO_DIRS:
        for scenario in sorted((repo / folder).glob("*.toml")):
            rel, hashes = run_scenario(beltsim, repo, scenario, work)
            if hashes is None:
                skipped.append(rel)
            else:
                results[rel] = hashes
    results["replay " + RECORDING] = {"trace_hash": replay_hash(beltsim, repo, work)}
    if mode == "record":
        if skipped:
            sys.exit("record with a build that compiles every scenario's element count; skipped: " + ", ".join(skipped))
        golden_file.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
        print(f"recorded {len(results)} golden entries in {golden_file}")
        return
    golden = json.loads(golden_file.read_text())
    failures = []
    for name, hashes in results.items():
        if name not in golden:
            failures.append(f"{name}: no golden (a new scenario? record it: tests/goldens/README.md)")
            continue
        for key, value in hashes.items():
            if golden[name].get(key) != value:
                failures.append(f"{name}: {key} {value} differs from the golden {golden[name].get(key)}")
    for name in golden:
        if name not in results and name not in skipped:
            failures.append(f"{name}: in the goldens but no longer shipped (record again if it was removed on purpose)")
    for name in skipped:
        print(f"skipped {name}: its element count is not compiled in this build")
    for name in results:
        print(f"{'DIFFERS' if any(f.startswith(name + ':') for f in failures) else 'equal  '} {name}")
    if failures:
        sys.exit("\n".join(failures))
    print(f"{len(results)} of {len(golden)} golden entries checked, all equal")


if __name__ == "__main__":
    main()
