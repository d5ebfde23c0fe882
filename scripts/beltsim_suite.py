#!/usr/bin/env python3
"""Regression suites: a set of scenarios and recordings with their golden results, run on every
change and compared (docs/suites_and_sweeps.md).

Usage:
  beltsim_suite.py run   SUITE.toml --out DIR [--jobs N | --scheduler ADDRESS] [--beltsim PATH]
  beltsim_suite.py bless SUITE.toml --out DIR [--jobs N | --scheduler ADDRESS] [--beltsim PATH]

`run` runs every case and compares it with its golden; it writes DIR/junit.xml (JUnit XML, one
testcase per case), DIR/report.md (each failing case's figures, and a PNG of each compared time
series against its golden) and prints a table. Exit status 0 when every case passes, 1 when a case
fails, errors, faults or times out (a faulted run is a failure with its reason, never a pass), 2
for a refused suite. `bless` runs every case and writes the results as the new goldens, saying
what changed against the old ones (it also makes the first goldens).

A suite (TOML; paths relative to the suite's folder):

  goldens = "goldens"          # folder of the goldens: one NAME.json per case
  time_limit = 600             # s per case (default 3600)
  [[case]]
  name = "paper_coarse"        # letters, digits, _ and -
  scenario = "../host_sim/scenarios/paper_belt_drive.toml"   # or: recording = "run/recording.bin"
  set = { "belt.elements" = 24, "solver.end_time" = 0.2 }    # beltsim run --set keys (scenarios)
  quantities = ["tail_mean.omega_p2", "span_force_slack", "nonconverged_steps"]  # summary.json paths
  timeseries = ["omega_p2"]    # timeseries.csv columns compared sample by sample (optional)
  tolerance = { default = "exact", "tail_mean.omega_p2" = { relative = 1e-6 }, "span_force_slack" = { absolute = 0.01 } }

A quantity is a dotted path into the case's summary.json (list entries by index: pulleys.1.omega).
Tolerances: "exact" (the same bits: the plant is deterministic), { relative = r } or
{ absolute = a }; "default" applies where a quantity has none (default "exact"); time series take
the tolerance of their column name, else the default.

Refused with one line naming the suite file, the key and its line, nothing run and nothing
written: an unknown key, a case without a scenario or recording (or with both), a missing file,
a quantity or tolerance of the wrong form, a golden that is missing (for `run`) or that was made
from another source (scenario or recording file name, or --set keys).
"""
import argparse
import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET

import beltsim_cases as cases
from beltsim_cases import set_value
from scenario_to_plant_config import key_line

SUITE_KEYS = {"goldens", "time_limit", "case"}
CASE_KEYS = {"name", "scenario", "recording", "set", "quantities", "timeseries", "tolerance"}


class SuiteError(Exception):
    pass


def tolerance_of(tolerances, name):
    return tolerances.get(name, tolerances.get("default", "exact"))


def check_tolerance(rule):
    if rule == "exact":
        return True
    return isinstance(rule, dict) and len(rule) == 1 and next(iter(rule)) in ("relative", "absolute") and \
        isinstance(next(iter(rule.values())), (int, float)) and next(iter(rule.values())) >= 0


def describe(source):
    if not isinstance(source, dict):
        return "an unknown source"
    settings = source.get("set") or []
    return f"{source.get('kind')} {source.get('file')}" + (f" with --set {', '.join(settings)}" if settings else "")


def load_suite(path, need_goldens, beltsim):
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        suite = tomllib.loads(text)
    except OSError as e:
        raise SuiteError(f"{path}: {e.strerror}")
    except tomllib.TOMLDecodeError as e:
        raise SuiteError(f"{path}: {e}")
    folder = os.path.dirname(os.path.abspath(path))
    for key in suite:
        if key not in SUITE_KEYS:
            raise SuiteError(f"{path}:{key_line(text, '', key)}: key '{key}': unknown key (known: {', '.join(sorted(SUITE_KEYS))})")
    goldens = os.path.normpath(os.path.join(folder, suite.get("goldens", "goldens")))
    entries = suite.get("case", [])
    if not entries:
        raise SuiteError(f"{path}: key 'case': no [[case]]")
    out = []
    names = set()
    for i, c in enumerate(entries):
        def fail(key, message):
            raise SuiteError(f"{path}:{key_line(text, f'case#{i}', key)}: key 'case[{i}].{key}': {message}")
        for key in c:
            if key not in CASE_KEYS:
                fail(key, f"unknown key (known: {', '.join(sorted(CASE_KEYS))})")
        name = c.get("name")
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_-]+", name):
            fail("name", "a name of letters, digits, _ and - is needed")
        if name in names:
            fail("name", f"'{name}' names two cases")
        names.add(name)
        if ("scenario" in c) == ("recording" in c):
            fail("scenario", "a case runs either a scenario or a recording")
        kind = "scenario" if "scenario" in c else "recording"
        source = os.path.normpath(os.path.join(folder, str(c[kind])))
        if not os.path.isfile(source):
            fail(kind, f"no such file: {source}")
        overrides = [f"{k}={set_value(v)}" for k, v in c.get("set", {}).items()]
        if overrides and kind == "recording":
            fail("set", "a recording replays as recorded (no --set)")
        quantities = c.get("quantities", [])
        series = c.get("timeseries", [])
        if not isinstance(quantities, list) or not all(isinstance(q, str) and q for q in quantities):
            fail("quantities", "a list of summary.json paths")
        if not isinstance(series, list) or not all(isinstance(q, str) and q for q in series):
            fail("timeseries", "a list of timeseries.csv columns")
        if not quantities and not series:
            fail("quantities", "nothing to compare")
        tolerances = c.get("tolerance", {})
        for q, rule in tolerances.items():
            if not check_tolerance(rule):
                fail("tolerance", f"'{q}': \"exact\", {{ relative = r }} or {{ absolute = a }}")
        golden_path = os.path.join(goldens, name + ".json")
        source_id = {"kind": kind, "file": os.path.basename(source), "set": overrides}
        golden = None
        if os.path.isfile(golden_path):
            with open(golden_path) as f:
                golden = json.load(f)
            if golden.get("source") != source_id:
                fail(kind, f"its golden {golden_path} was made from {describe(golden.get('source'))}, this case is "
                           f"{describe(source_id)}")
        elif need_goldens:
            fail("name", f"no golden: {golden_path} (make it with: beltsim_suite.py bless)")
        if kind == "scenario":
            arguments = ["run", source, "--quiet"] + [a for o in overrides for a in ("--set", o)]
            p = subprocess.run([beltsim, "check", source] + [a for o in overrides for a in ("--set", o)],
                               capture_output=True, text=True)
            if p.returncode != 0:
                lines = p.stderr.strip().splitlines()
                fail("set" if overrides else "scenario",
                     (lines[-1] if lines else f"exit status {p.returncode}").removeprefix("error: "))
        else:
            arguments = ["replay", source]
        out.append({"name": name, "arguments": arguments, "quantities": quantities, "timeseries": series,
                    "tolerances": tolerances, "golden": golden, "golden_path": golden_path, "source": source_id})
    return {"cases": out, "time_limit": float(suite.get("time_limit", 3600)), "goldens": goldens}


def lookup(summary, path):
    node = summary
    for part in path.split("."):
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return None
    return node


def read_series(folder, columns):
    try:
        with open(os.path.join(folder, "timeseries.csv")) as f:
            rows = list(csv.DictReader(f))
    except OSError:
        return {}
    time_column = "time" if rows and "time" in rows[0] else None
    series = {}
    for c in columns:
        if rows and c in rows[0]:
            series[c] = {"time": [float(r[time_column]) for r in rows] if time_column else list(range(len(rows))),
                         "values": [float(r[c]) for r in rows]}
    return series


def results_of(case, result, folder):
    return {"source": case["source"],
            "quantities": {q: lookup(result["summary"], q) for q in case["quantities"]},
            "timeseries": read_series(folder, case["timeseries"])}


def differs(rule, got, want):
    """Why got is not within the rule of want, or None."""
    if got is None or want is None:
        return None if got == want else "missing" if got is None else "not in the golden"
    if isinstance(want, list) and isinstance(got, list) and len(got) == len(want):
        for k, (g, w) in enumerate(zip(got, want)):
            why = differs(rule, g, w)
            if why:
                return f"entry {k}: {why}"
        return None
    if isinstance(want, (int, float)) and not isinstance(want, bool) and isinstance(got, (int, float)):
        if rule == "exact":
            return None if float(got).hex() == float(want).hex() else "not the same bits"
        limit = rule.get("absolute", 0.0) + rule.get("relative", 0.0) * abs(want)
        error = abs(got - want)
        return None if error <= limit and math.isfinite(got) else f"off by {error:.6g} (allowed {limit:.6g})"
    return None if got == want else "different"


def compare(case, new):
    failures = []
    for q in case["quantities"]:
        why = differs(tolerance_of(case["tolerances"], q), new["quantities"].get(q), case["golden"]["quantities"].get(q))
        if why:
            failures.append(f"{q}: {new['quantities'].get(q)!r}, golden {case['golden']['quantities'].get(q)!r} ({why})")
    for c in case["timeseries"]:
        got, want = new["timeseries"].get(c), case["golden"]["timeseries"].get(c)
        if got is None or want is None or len(got["values"]) != len(want["values"]):
            failures.append(f"timeseries {c}: {len(got['values']) if got else 0} samples, golden "
                            f"{len(want['values']) if want else 0}")
            continue
        rule = tolerance_of(case["tolerances"], c)
        for k, (g, w) in enumerate(zip(got["values"], want["values"])):
            why = differs(rule, g, w)
            if why:
                failures.append(f"timeseries {c}: first at t = {got['time'][k]!r}: {g!r}, golden {w!r} ({why})")
                break
    return failures


def plot_series(out, name, column, got, want):
    if not shutil.which("gnuplot"):
        return None
    data = os.path.join(out, f"{name}_{column}.dat")
    with open(data, "w") as f:
        for t, v in zip(want["time"], want["values"]):
            f.write(f"{t!r} {v!r}\n")
        f.write("\n\n")
        for t, v in zip(got["time"], got["values"]):
            f.write(f"{t!r} {v!r}\n")
    png = os.path.join(out, f"{name}_{column}.png")
    script = (f"set terminal pngcairo noenhanced size 900,500\nset output '{png}'\nset xlabel 'time [s]'\n"
              f"set ylabel '{column}'\nplot '{data}' index 0 with lines title 'golden', "
              f"'{data}' index 1 with lines title 'this run'\n")
    subprocess.run(["gnuplot"], input=script, text=True, capture_output=True, check=False)
    return os.path.basename(png) if os.path.isfile(png) else None


def run_suite(suite, out, jobs, scheduler, beltsim):
    tasks = [(beltsim, c["arguments"], os.path.join(out, "cases", c["name"]), suite["time_limit"])
             for c in suite["cases"]]
    return cases.run_all(tasks, jobs, scheduler)


def faulted(summary):
    """A run's own fault: beltsim run's "faulted", a replay's plant "fault" code."""
    return bool(summary.get("faulted")) or summary.get("fault", 0) != 0


def verdict(case, result, folder):
    """pass / fail / error, with the messages."""
    if result["status"] == "timeout":
        return "error", [result["reason"]]
    if result["status"] != 0 or faulted(result["summary"]):
        return "fail", [f"the run failed: {result['reason'] or 'the plant faulted (fault ' + str(result['summary'].get('fault')) + ')'}"]
    new = results_of(case, result, folder)
    failures = compare(case, new)
    return ("fail" if failures else "pass"), failures


def write_reports(out, outcomes):
    root = ET.Element("testsuite", name="beltsim_suite", tests=str(len(outcomes)),
                      failures=str(sum(o["verdict"] == "fail" for o in outcomes)),
                      errors=str(sum(o["verdict"] == "error" for o in outcomes)))
    for o in outcomes:
        tc = ET.SubElement(root, "testcase", classname="beltsim_suite", name=o["name"], time=f"{o['wall']:.3f}")
        if o["verdict"] != "pass":
            e = ET.SubElement(tc, "failure" if o["verdict"] == "fail" else "error",
                              message=o["messages"][0] if o["messages"] else o["verdict"])
            e.text = "\n".join(o["messages"])
    ET.ElementTree(root).write(os.path.join(out, "junit.xml"), encoding="utf-8", xml_declaration=True)
    lines = ["# beltsim suite report", "", "| case | result | wall time [s] |", "|---|---|---:|"]
    lines += [f"| {o['name']} | {o['verdict']} | {o['wall']:.2f} |" for o in outcomes]
    for o in outcomes:
        if o["verdict"] == "pass":
            continue
        lines += ["", f"## {o['name']}: {o['verdict']}", ""] + [f"- {m}" for m in o["messages"]]
        lines += [line for p in o["plots"] for line in ("", f"![{p}]({p})")]
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


def command_run(suite, args, beltsim):
    out = os.path.abspath(args.out)
    results = run_suite(suite, out, args.jobs, args.scheduler, beltsim)
    outcomes = []
    for case, result in zip(suite["cases"], results):
        folder = os.path.join(out, "cases", case["name"])
        v, messages = verdict(case, result, folder)
        plots = []
        if v == "fail" and result["status"] == 0:
            new = results_of(case, result, folder)
            for c in case["timeseries"]:
                if c in new["timeseries"] and c in case["golden"]["timeseries"]:
                    png = plot_series(out, case["name"], c, new["timeseries"][c], case["golden"]["timeseries"][c])
                    if png:
                        plots.append(png)
        outcomes.append({"name": case["name"], "verdict": v, "messages": messages, "plots": plots,
                         "wall": result["wall"]})
    write_reports(out, outcomes)
    width = max(len(o["name"]) for o in outcomes)
    for o in outcomes:
        print(f"{o['name']:<{width}}  {o['verdict']:<5}  {o['wall']:7.2f} s  {o['messages'][0] if o['messages'] else ''}")
    bad = [o for o in outcomes if o["verdict"] != "pass"]
    print(f"{len(outcomes)} cases, {len(outcomes) - len(bad)} passed, {len(bad)} failed or errors; "
          f"{os.path.join(out, 'junit.xml')}, {os.path.join(out, 'report.md')}")
    return 1 if bad else 0


def command_bless(suite, args, beltsim):
    out = os.path.abspath(args.out)
    results = run_suite(suite, out, args.jobs, args.scheduler, beltsim)
    refused = [(c["name"], r["reason"] or "faulted") for c, r in zip(suite["cases"], results)
               if r["status"] != 0 or faulted(r["summary"])]
    if refused:
        for name, reason in refused:
            print(f"error: case {name}: the run failed ({reason}); no golden written", file=sys.stderr)
        return 1
    os.makedirs(suite["goldens"], exist_ok=True)
    for case, result in zip(suite["cases"], results):
        new = results_of(case, result, os.path.join(out, "cases", case["name"]))
        old = case["golden"]
        if old is None:
            print(f"{case['name']}: new golden")
        else:
            changed = compare(case, new)
            print(f"{case['name']}: " + ("unchanged" if not changed else "changed: " + "; ".join(changed)))
        with open(case["golden_path"], "w") as f:
            json.dump({"case": case["name"], **new}, f, indent=1, sort_keys=True)
            f.write("\n")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["run", "bless"])
    parser.add_argument("suite")
    cases.add_runner_arguments(parser)
    args = parser.parse_args()
    prepared = cases.prepare(args, lambda beltsim: load_suite(args.suite, args.command == "run", beltsim), SuiteError)
    if prepared is None:
        return 2
    beltsim, suite = prepared
    return command_run(suite, args, beltsim) if args.command == "run" else command_bless(suite, args, beltsim)


if __name__ == "__main__":
    sys.exit(main())
