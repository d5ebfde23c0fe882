#!/usr/bin/env python3
"""An FMU of a user's scenario refuses what it cannot build (issue 35), with one line and nothing
written:
- two pulleys whose names become the same FMU variable name (scripts/scenario_to_fmu.py's rule):
  the line names both pulleys and their lines;
- a scenario the firmware generator refuses: the configure step with -DBELTSIM_FMU_SCENARIO stops
  with the same line that scripts/scenario_to_plant_config.py gives for the file;
and that a live [[fault]] table's fault<k>.active starts false.

Usage: scenario_fmu_bad_input.py SOURCE_DIR WORK_DIR CMAKE_GENERATOR
"""
import os
import shutil
import subprocess
import sys


def run(command, **kw):
    return subprocess.run(command, capture_output=True, text=True, timeout=300, **kw)


def main():
    source, work, generator = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    accessory = open(os.path.join(source, "host_sim", "scenarios", "accessory_drive.toml")).read()
    failures = 0

    # 1. "Water Pump!" (the idler renamed) and "water pump" are both water_pump.
    renamed = accessory.replace('name = "idler"', 'name = "Water Pump!"')
    assert renamed != accessory
    path = os.path.join(work, "same_names.toml")
    open(path, "w").write(renamed)
    out = os.path.join(work, "generated")
    p = run([sys.executable, os.path.join(source, "scripts", "scenario_to_fmu.py"), path, out])
    line_idler = 1 + renamed[:renamed.index('name = "Water Pump!"')].count("\n")
    line_pump = 1 + renamed[:renamed.index('name = "water pump"')].count("\n")
    expected = (f"{path}:{line_idler}: key 'pulley[3].name': 'Water Pump!' and 'water pump' (line {line_pump}) "
                "are both 'water_pump' in the FMU's variable names; rename one")
    lines = p.stderr.strip().splitlines()
    if p.returncode != 1 or lines != ["error: " + expected] or os.path.exists(out):
        print(f"FAIL same names: exit {p.returncode}, stderr {p.stderr!r}, written: {os.path.exists(out)}")
        failures += 1
    else:
        print("PASS same names:", lines[0])

    # 2. An open belt: the firmware generator's refusal, word for word, from the FMU's configure.
    open_belt = accessory.replace("[belt]\n", "[belt]\nclosed = false\n", 1)
    path = os.path.join(work, "open_belt.toml")
    open(path, "w").write(open_belt)
    p = run([sys.executable, os.path.join(source, "scripts", "scenario_to_plant_config.py"), path,
             os.path.join(work, "plant.hpp"), "user"])
    firmware_line = p.stderr.strip()
    build = os.path.join(work, "build")
    c = run(["cmake", "-S", source, "-B", build, "-G", generator, f"-DBELTSIM_FMU_SCENARIO={path}"])
    written = os.path.exists(os.path.join(build, "generated", "fmu_scenario"))
    if (p.returncode != 1 or "key 'belt.closed'" not in firmware_line or c.returncode == 0 or written
            or f"FMU scenario (BELTSIM_FMU_SCENARIO): {firmware_line}" not in " ".join(c.stderr.split())):
        print(f"FAIL refused scenario: generator {p.returncode} {firmware_line!r}; configure exit {c.returncode}, "
              f"generated folder written: {written}; stderr:\n{c.stderr}")
        failures += 1
    else:
        print("PASS refused scenario:", firmware_line)

    # 3. Not a refusal: a live table (docs/injected_faults.md, "Live faults") waits to be started, in
    # the FMU by the importer: its fault<k>.active starts false, the scheduled table's true, and the
    # plant configuration carries the live range.
    live = accessory + ('\n[[fault]]\nkind = "load_cell_gain"\nspan = 2\nlive = true\nvalue = 1.0\nmin = 0.5\n'
                        'max = 2.0\n')
    path = os.path.join(work, "live.toml")
    open(path, "w").write(live)
    out = os.path.join(work, "generated_live")
    p = run([sys.executable, os.path.join(source, "scripts", "scenario_to_fmu.py"), path, out])
    variables = open(os.path.join(out, "fmu_scenario_variables.hpp")).read() if p.returncode == 0 else ""
    config = open(os.path.join(out, "fmu_scenario_plant_config.hpp")).read() if p.returncode == 0 else ""
    ok = ('{811, "fault1.active", VarType::kBoolean, Causality::kParameter, Variability::kTunable, "", 1.0,'
          in variables and
          '{821, "fault2.active", VarType::kBoolean, Causality::kParameter, Variability::kTunable, "", 0.0,'
          in variables and "faults.fault[1].live = true;" in config and "faults.fault[1].liveMin = 0.5;" in config
          and "faults.fault[0].live" not in config)
    if not ok:
        print(f"FAIL live table: exit {p.returncode}, stderr {p.stderr!r}")
        failures += 1
    else:
        print("PASS live table: fault2.active starts false, fault1.active true; the live range in the configuration")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
