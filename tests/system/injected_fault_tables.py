#!/usr/bin/env python3
"""[[fault]] tables of a scenario (issue 52; docs/injected_faults.md): what both readers refuse, and
that they refuse it alike. `beltsim check` (host_sim/scenario.cpp) and the firmware's configuration
generator (scripts/scenario_to_plant_config.py) each print one line `FILE:LINE: key 'fault[k]...':
...`, the same line, and neither writes anything; a file with valid tables is accepted by both and
the generator writes every table into the plant configuration. Ranges and types of each key are
scenario_key_table.py's; these are the checks across keys and tables.

Usage: injected_fault_tables.py BELTSIM SOURCE_DIR WORK_DIR
"""
import os
import re
import subprocess
import sys

BASE = "host_sim/scenarios/paper_belt_drive.toml"  # two pulleys, a mesh the firmware plant takes


def table(**keys):
    lines = ["", "[[fault]]"]
    for k, v in keys.items():
        text = f'"{v}"' if isinstance(v, str) else ("true" if v else "false") if isinstance(v, bool) else v
        lines.append(f"{k} = {text}")
    return "\n".join(lines) + "\n"


WET = dict(kind="friction", pulley=1, start=1.8, value=0.3)
CASES = [  # name, tables, expected message (after FILE:LINE: ), the line of that key or table
    ("no kind", table(pulley=1, start=1.8, value=0.3),
     r"key 'fault\[0\].kind': missing \(one of: bearing_drag, belt_stiffness, encoder_dropout, .*, friction, "
     r"load_cell_gain, .*load_cell_stuck, tensioner_spring\)"),
    ("an unknown kind", table(**{**WET, "kind": "rain"}),
     r"key 'fault\[0\].kind': 'rain' is not one of: bearing_drag, belt_stiffness, encoder_dropout, .*, load_cell_stuck, "
     r"tensioner_spring$"),
    ("no start", table(kind="friction", value=0.3), r"key 'fault\[0\].start': missing"),
    ("no value", table(kind="friction", start=1.0), r"key 'fault\[0\].value': missing \(the friction coefficient"),
    ("a pulley the drive lacks", table(**{**WET, "pulley": 3}),
     r"key 'fault\[0\].pulley': the drive has 2 pulleys \(1 to 2\)"),
    ("an end before the ramp is done", table(**WET, ramp=0.1, end=1.85),
     r"key 'fault\[0\].end': must be at least start \+ ramp \(1.9 s\)"),
    ("a negative friction coefficient", table(**{**WET, "value": -0.1}),
     r"key 'fault\[0\].value': a friction coefficient is from 0 to 10"),
    ("a key friction does not take", table(**WET, viscous=1.0),
     r"key 'fault\[0\].viscous': friction does not take it \(its keys: kind, pulley, start, end, ramp, value, live, "
     r"min, max\)"),
    ("a bearing drag on the speed-driven pulley", table(kind="bearing_drag", pulley=1, start=1.0, value=1.0),
     r"key 'fault\[0\].pulley': pulley 1 \(P1\) is a speed pulley \(its rotation is prescribed\); bearing_drag "
     r"acts on a pulley that turns freely or under a torque$"),
    ("a tired spring where there is no arm", table(kind="tensioner_spring", pulley=2, start=1.0, value=0.5),
     r"key 'fault\[0\].pulley': pulley 2 \(P2\) is a fixed_axis pulley; tensioner_spring acts on a tensioner's arm$"),
    ("a negative drag", table(kind="bearing_drag", pulley=2, start=1.0, value=-1.0),
     r"key 'fault\[0\].value': a drag torque is from 0 to 10000 N m$"),
    ("a negative viscous drag", table(kind="bearing_drag", pulley=2, start=1.0, value=1.0, viscous=-0.1),
     r"key 'fault\[0\].viscous': "),
    ("a viscous part on a spring fault", table(kind="tensioner_spring", pulley=2, start=1.0, value=0.5, viscous=0.1),
     r"key 'fault\[0\].viscous': tensioner_spring does not take it \(its keys: kind, pulley, start, end, ramp, "
     r"value, live, min, max\)$"),
    ("two on one pulley at once", table(**WET, end=2.0) + table(kind="friction", pulley=1, start=2.0, value=0.2),
     r"key 'fault\[1\]': acts on what fault\[0\] \(friction, pulley 1\) changes at the same time"),
    ("every pulley and one pulley at once", table(kind="friction", start=1.0, value=0.4) +
     table(kind="friction", pulley=2, start=2.0, value=0.2),
     r"key 'fault\[1\]': acts on what fault\[0\] \(friction, every pulley\) changes at the same time"),
    ("a pulley's belt stiffness", table(kind="belt_stiffness", pulley=1, start=1.0, value=0.9),
     r"key 'fault\[0\].pulley': belt_stiffness does not take it \(its keys: kind, start, end, ramp, value, live, "
     r"min, max\)"),
    ("a stiffer belt", table(kind="belt_stiffness", start=1.0, value=1.1),
     r"key 'fault\[0\].value': a fraction of the axial stiffness is above 0 and at most 1"),
    ("two stiffness faults at once", table(kind="belt_stiffness", start=1.0, value=0.9) +
     table(kind="belt_stiffness", start=2.0, value=0.8),
     r"key 'fault\[1\]': acts on what fault\[0\] \(belt_stiffness, the belt\) changes at the same time"),
    ("a ramp on a stuck encoder", table(kind="encoder_stuck", pulley=1, start=1.0, ramp=0.1),
     r"key 'fault\[0\].ramp': encoder_stuck does not take it \(its keys: kind, pulley, start, end, live\)"),
    ("a stuck encoder that ends as it starts", table(kind="encoder_stuck", pulley=1, start=1.0, end=1.0),
     r"key 'fault\[0\].end': must be after start \(1 s\)"),
    ("an encoder fault without a pulley", table(kind="encoder_offset", start=1.0, value=10),
     r"key 'fault\[0\].pulley': missing \(the pulley, from 1\)"),
    ("a load cell named by its pulley", table(kind="load_cell_gain", pulley=1, start=1.0, value=0.9),
     r"key 'fault\[0\].pulley': load_cell_gain does not take it \(its keys: kind, span, start, end, ramp, value, "
     r"live, min, max\)"),
    ("a span the drive lacks", table(kind="load_cell_stuck", span=3, start=1.0),
     r"key 'fault\[0\].span': the drive has 2 spans \(1 to 2\)"),
    ("a fraction of a count", table(kind="encoder_offset", pulley=2, start=1.0, value=2.5),
     r"key 'fault\[0\].value': an encoder offset is a whole number of counts"),
    ("noise without its size", table(kind="load_cell_noise", span=1, start=1.0, seed=3),
     r"key 'fault\[0\].std': missing \(the noise's standard deviation, N\)"),
    ("a friction fault with a seed", table(**WET, seed=3),
     r"key 'fault\[0\].seed': friction does not take it"),
    ("two stuck load cells on one span at once", table(kind="load_cell_stuck", span=2, start=1.0) +
     table(kind="load_cell_stuck", span=2, start=1.5, end=2.0),
     r"key 'fault\[1\]': acts on what fault\[0\] \(load_cell_stuck, span 2\) changes at the same time"),
    # Live tables (the test bench's, docs/injected_faults.md, "Live faults"): a range for the bench.
    ("a range on a table that is not live", table(**WET, min=0.2),
     r"key 'fault\[0\].min': only a live table \(live = true\) takes it: the bench's range$"),
    ("a live value below its range", table(kind="friction", pulley=1, live=True, value=0.3, min=0.35, max=0.5),
     r"key 'fault\[0\].min': must be at most the table's value \(value = 0.3\)$"),
    ("a live value above its range", table(kind="load_cell_noise", span=1, live=True, std=3.0, max=2.0),
     r"key 'fault\[0\].max': must be at least the table's std \(std = 3\)$"),
    ("a live range the kind does not take", table(kind="friction", pulley=1, live=True, value=0.3, max=11.0),
     r"key 'fault\[0\].max': a friction coefficient is from 0 to 10$"),
    ("a live noise that could vanish", table(kind="encoder_noise", pulley=1, live=True, std=3.0, min=0.0),
     r"key 'fault\[0\].min': a standard deviation is above 0$"),
    ("a live dropout beyond certainty", table(kind="encoder_dropout", pulley=2, live=True, rate=0.1, max=2.0),
     r"key 'fault\[0\].max': a rate is from 0 to 1$"),
    ("a range on a stuck encoder", table(kind="encoder_stuck", pulley=1, live=True, max=1.0),
     r"key 'fault\[0\].max': encoder_stuck does not take it \(its keys: kind, pulley, start, end, live\)$"),
    ("nine tables", "".join(table(kind="friction", pulley=1, start=float(k), end=k + 0.5, value=0.3)
                            for k in range(9)), r"key 'fault\[8\]': at most 8 injected faults"),
]
# Accepted: P1 wet from 1.0 s to 1.5 s (dry at 1.51 s), wet again from 1.51 s, P2 oily from 1.2 s,
# the belt worn to 90 % of its stiffness from 1.1 s, P1's encoder noisy and span 2's load cell
# stuck from 1.3 s (both acting with P1's friction fault on P1: other kinds), P2's bearing dragging
# from 1.4 s; span 1's load cell offset live (the bench's, -20..20 N).
VALID = (table(kind="friction", pulley=1, start=1.0, end=1.5, value=0.3) +
         table(kind="friction", pulley=1, start=1.51, ramp=0.05, value=0.35) +
         table(kind="friction", pulley=2, start=1.2, value=0.25) +
         table(kind="belt_stiffness", start=1.1, value=0.9) +
         table(kind="encoder_noise", pulley=1, start=1.3, std=2.0, seed=9) +
         table(kind="load_cell_stuck", span=2, start=1.3) +
         table(kind="bearing_drag", pulley=2, start=1.4, value=2.5, viscous=0.02) +
         table(kind="load_cell_offset", span=1, live=True, value=5.0, min=-20.0, max=20.0))


def run_both(beltsim, source, work, label, text):
    path = os.path.join(work, label + ".toml")
    with open(path, "w") as f:
        f.write(text)
    header = os.path.join(work, label + ".hpp")
    if os.path.exists(header):
        os.remove(header)
    host = subprocess.run([beltsim, "check", path], capture_output=True, text=True, timeout=60)
    firmware = subprocess.run([sys.executable, os.path.join(source, "scripts", "scenario_to_plant_config.py"), path,
                               header, "user"], capture_output=True, text=True, timeout=60)
    return host, firmware, header


def main():
    beltsim, source, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(source, BASE)) as f:
        base = f.read()
    failures = []
    for name, tables, expected in CASES:
        label = re.sub(r"\W+", "_", name)
        host, firmware, header = run_both(beltsim, source, work, label, base + tables)
        lines = [p.stderr.strip() for p in (host, firmware)]
        ok = (host.returncode != 0 and firmware.returncode != 0 and not os.path.exists(header) and
              lines[0] == lines[1] and len(lines[0].splitlines()) == 1 and
              re.search(rf"{label}\.toml:\d+: {expected}", lines[0]))
        print(f"{'PASS' if ok else 'FAIL'} {name}: beltsim {lines[0]!r}" + ("" if ok else f"; generator {lines[1]!r}"))
        if not ok:
            failures.append(name)
    host, firmware, header = run_both(beltsim, source, work, "valid", base + VALID)
    generated = open(header).read() if os.path.exists(header) else ""
    ok = (host.returncode == 0 and firmware.returncode == 0 and "c.faults.count = 8;" in generated and
          "c.faults.fault[7].live = true;" in generated and "c.faults.fault[7].liveMin = -20.0;" in generated and
          "c.faults.fault[7].liveMax = 20.0;" in generated and "c.faults.fault[7].start = 0.0;" in generated and
          "c.faults.fault[6].live" not in generated and
          "c.faults.fault[6].kind = InjectedFaultKind::kBearingDrag;" in generated and
          "c.faults.fault[6].viscous = 0.02;" in generated and "c.faults.fault[6].value = 2.5;" in generated and
          "c.faults.fault[4].seed = 9u;" in generated and "c.faults.fault[4].value = 2.0;" in generated and
          "c.faults.fault[5].kind = InjectedFaultKind::kLoadCellStuck;" in generated and
          "c.faults.fault[5].ramp = 0.0;" in generated and "c.faults.fault[5].pulley = 1;" in generated and
          "c.faults.fault[3].kind = InjectedFaultKind::kBeltStiffness;" in generated and
          "c.faults.fault[1].start = 1.51;" in generated and "c.faults.fault[2].pulley = 1;" in generated and
          "c.faults.fault[0].end = 1.5;" in generated and "c.faults.fault[1].hasEnd" not in generated)
    print(f"{'PASS' if ok else 'FAIL'} eight valid tables (one live): accepted by both and written into the plant "
          f"configuration"
          + ("" if ok else f": beltsim {host.stderr.strip()!r}, generator {firmware.stderr.strip()!r}"))
    if not ok:
        failures.append("valid")
    print(f"{len(CASES) + 1} cases, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
