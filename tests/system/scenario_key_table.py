#!/usr/bin/env python3
"""One table of scenario keys (issue 50; host_sim/scenario_keys.toml): `beltsim check` and the
firmware's configuration generator (scripts/scenario_to_plant_config.py) refuse the same values
with the same line.

For every key of the table with a range, on a copy of the accessory drive (every table, a
tensioner arm and profiles) that gives the key that value:
- just outside the range (the next double beyond a closed end, an open end itself, the next
  integer): both refuse it, each with the one line `FILE:LINE: key 'PATH': out of range: ...`,
  and the two lines are the same;
- on a closed end: neither says the key is out of range.
For every key with choices, a value not among them, and for every key of a scalar or [x, y] type
a value of another kind (and NaN for a number): both refuse it with the same line.
And the readers hold no ranges or choices of their own: no reader call in host_sim/scenario.cpp
passes one, and scripts/scenario_to_plant_config.py words no range or choice message itself.

Usage: scenario_key_table.py BELTSIM SOURCE_DIR WORK_DIR
"""
import contextlib
import io
import math
import os
import re
import subprocess
import sys
import tomllib

BASE = "host_sim/scenarios/accessory_drive.toml"
TENSIONER = 5  # the accessory drive's pulley with an arm
PROFILE = 0    # the accessory drive's pulley with a speed profile


# Values of the wrong kind, by the key's type, and the message both readers give.
WRONG = {"number": [("text", "x", "expected a number"), ("nan", math.nan, "must be finite")],
         "integer": [("fraction", 1.5, "expected an integer")],
         "boolean": [("text", "x", "expected true or false")],
         "string": [("number", 1, "expected a string")],
         "vector2": [("one", [1.0], "expected [x, y]"), ("text", ["x", 1.0], "expected [x, y] of numbers")]}


def toml_value(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return str(value)


def emit(doc):
    """TOML text of the document, every table as a [header] (no inline tables)."""
    out = [f"{k} = {toml_value(v)}" for k, v in doc.items() if not isinstance(v, (dict, list)) or
           (isinstance(v, list) and not (v and isinstance(v[0], dict)))]

    def table(header, data, array=False):
        out.append(f"\n[[{header}]]" if array else f"\n[{header}]")
        out.extend(f"{k} = {toml_value(v)}" for k, v in data.items() if not isinstance(v, dict))
        for k, v in data.items():
            if isinstance(v, dict):
                table(f"{header}.{k}", v)

    for k, v in doc.items():
        if isinstance(v, dict):
            table(k, v)
        elif isinstance(v, list) and v and isinstance(v[0], dict):
            for item in v:
                table(k, item, array=True)
    return "\n".join(out) + "\n"


def place(doc, table, name, value):
    """The document with table.name = value, and the key's path as the messages name it."""
    doc = tomllib.loads(emit(doc))  # a deep copy
    if table == "pulley":
        doc["pulley"][0][name] = value
        return doc, f"pulley[0].{name}"
    if table == "pulley.arm":
        doc["pulley"][TENSIONER]["arm"][name] = value
        return doc, f"pulley[{TENSIONER}].arm.{name}"
    if table == "profile":
        doc["pulley"][PROFILE]["speed"][name] = value
        if name == "value":  # a constant profile's
            doc["pulley"][PROFILE]["speed"]["shape"] = "constant"
        return doc, f"pulley[{PROFILE}].speed.{name}"
    if table == "fault":  # one fault of a kind that takes the key (docs/injected_faults.md)
        doc["fault"] = [{"kind": "friction", "pulley": 1, "start": 1.0, "value": 0.3}]
        if name in ("span", "std", "seed"):
            doc["fault"] = [{"kind": "load_cell_noise", "span": 1, "start": 1.0, "std": 2.0}]
        if name == "rate":
            doc["fault"] = [{"kind": "encoder_dropout", "pulley": 1, "start": 1.0, "rate": 0.1}]
        if name == "viscous":  # the accessory drive's idler
            doc["fault"] = [{"kind": "bearing_drag", "pulley": 4, "start": 1.0, "value": 1.0}]
        doc["fault"][0][name] = value
        return doc, f"fault[0].{name}"
    if table == "":
        doc[name] = value
        return doc, name
    doc.setdefault(table, {})[name] = value
    return doc, f"{table}.{name}"


def run_generator(path, output):
    """scripts/scenario_to_plant_config.py PATH OUTPUT user, run in this process (its main(), as its
    command line calls it): a new interpreter for each of the 418 values cost a minute of CI."""
    import scenario_to_plant_config
    stderr, argv = io.StringIO(), sys.argv
    sys.argv = ["scenario_to_plant_config.py", path, output, "user"]
    try:
        with contextlib.redirect_stderr(stderr):
            returncode = scenario_to_plant_config.main()
    finally:
        sys.argv = argv
    return subprocess.CompletedProcess(sys.argv, returncode, "", stderr.getvalue())


def run_both(beltsim, source, work, label, doc):
    path = os.path.join(work, label + ".toml")
    with open(path, "w") as f:
        f.write(emit(doc))
    host = subprocess.run([beltsim, "check", path], capture_output=True, text=True, timeout=60)
    firmware = run_generator(path, os.path.join(work, label + ".hpp"))
    return host, firmware


def outside_values(entry):
    low, high, integer = entry["min"], entry["max"], entry["type"] == "integer"
    if integer:
        return [("below", low - 1), ("above", high + 1)]
    below = float(low) if entry.get("min_open") else math.nextafter(float(low), -math.inf)
    return [("below", below), ("above", math.nextafter(float(high), math.inf))]


def boundary_values(entry):
    ends = [] if entry.get("min_open") else [("min", entry["min"])]
    ends.append(("max", entry["max"]))
    return [(name, value if entry["type"] == "integer" else float(value)) for name, value in ends]


def main():
    beltsim, source, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    sys.path.insert(0, os.path.join(source, "scripts"))
    import scenario_keys
    keys = scenario_keys.load(os.path.join(source, "host_sim", "scenario_keys.toml"))
    with open(os.path.join(source, BASE), "rb") as f:
        base = tomllib.load(f)
    # An element count every host preset compiles (host-debug builds only 24 and 60), so that
    # the base file is accepted wherever the test runs.
    base["belt"]["elements"] = 24
    failures, checked = [], 0

    host, firmware = run_both(beltsim, source, work, "base", base)
    if host.returncode != 0 or firmware.returncode != 0:
        failures.append(f"the base file is refused: {host.stderr.strip()} {firmware.stderr.strip()}")

    def refused_alike(label, path, host, firmware, expect):
        lines = [p.stderr.strip() for p in (host, firmware)]
        ok = all(p.returncode != 0 for p in (host, firmware)) and lines[0] == lines[1] and \
            len(lines[0].splitlines()) == 1 and re.search(rf":\d+: key '{re.escape(path)}': {expect}", lines[0])
        if not ok:
            failures.append(f"{label}: beltsim ({host.returncode}): {lines[0]!r}; "
                            f"scenario_to_plant_config.py ({firmware.returncode}): {lines[1]!r}")

    for (table, name), entry in keys.items():
        if "min" in entry:
            for side, value in outside_values(entry):
                doc, path = place(base, table, name, value)
                label = f"{table or 'top'}.{name}.{side}".replace(".", "_")
                refused_alike(f"{path} = {value!r} ({side} the range)", path, *run_both(beltsim, source, work, label, doc),
                              "out of range: ")
                checked += 1
            for end, value in boundary_values(entry):
                doc, path = place(base, table, name, value)
                label = f"{table or 'top'}.{name}.{end}".replace(".", "_")
                for tool, p in zip(("beltsim", "scenario_to_plant_config.py"), run_both(beltsim, source, work, label, doc)):
                    if f"key '{path}': out of range" in p.stderr:
                        failures.append(f"{path} = {value!r} (its {end}): {tool} refuses it: {p.stderr.strip()}")
                checked += 1
        for label, value, expect in WRONG.get(entry["type"], []):
            doc, path = place(base, table, name, value)
            refused_alike(f"{path} = {value!r} ({label})", path,
                          *run_both(beltsim, source, work, f"{table}_{name}_{label}".replace(".", "_"), doc),
                          re.escape(expect))
            checked += 1
        if "choices" in entry:
            doc, path = place(base, table, name, "none_of_these")
            refused_alike(f"{path} = none_of_these", path,
                          *run_both(beltsim, source, work, f"{table}_{name}_choice".replace(".", "_"), doc),
                          "'none_of_these' is not one of: ")
            checked += 1

    # No ranges or choices in the readers themselves.
    reader = open(os.path.join(source, "host_sim", "scenario.cpp")).read()
    for m in re.finditer(r"\b\w+\.(number|integer|text)\(\"\w+\", [^;]*?,[^;]*?\);", reader):
        line = reader.count("\n", 0, m.start()) + 1
        failures.append(f"host_sim/scenario.cpp:{line}: a range or choice list outside the key table: {m.group(0)}")
    generator = open(os.path.join(source, "scripts", "scenario_to_plant_config.py")).read()
    for m in re.finditer(r"out of range|is not one of|not in \[", generator):
        line = generator.count("\n", 0, m.start()) + 1
        failures.append(f"scripts/scenario_to_plant_config.py:{line}: words a range or choice check itself "
                        f"('{m.group(0)}'): scripts/scenario_keys.py does, from the table")

    for f in failures:
        print("FAILED", f)
    print(f"{checked} values checked on both readers, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
