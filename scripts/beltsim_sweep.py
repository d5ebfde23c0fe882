#!/usr/bin/env python3
"""Parameter sweeps over a scenario: expands a sweep spec into cases, runs each as its own
`beltsim run` (a deterministic process), and writes one table and plots (docs/suites_and_sweeps.md).

Usage:
  beltsim_sweep.py SPEC.toml --out DIR [--jobs N | --scheduler ADDRESS] [--beltsim PATH]

  --jobs N            run N cases at a time on this machine (default: its cores)
  --scheduler ADDR    run the cases on a Dask distributed cluster (tcp://host:8786); its workers need
                      the same Python and Dask as this client, the beltsim binary at PATH and the
                      scenario file at the same paths
  --beltsim PATH      the simulator (default: build/host/host_sim/beltsim of this repository)

A spec (TOML; paths relative to the spec's folder):

  scenario = "../host_sim/scenarios/paper_belt_drive.toml"
  outputs = ["omega_p2", "drive_torque", "span_force_tight", "span_force_slack"]  # summary tail means
  time_limit = 600                              # s per case (default 3600): killed and reported
  [set]                                         # --set keys of every case
  "belt.elements" = 24
  [vary]                                        # the cases: every combination, in this order
  "friction.coefficient" = [0.3, 0.4, 0.5]                   # a list
  "pulley[1].torque.to" = { from = 5.0, to = 25.0, count = 3 }  # evenly spaced, both ends
  "pulley[1].inertia" = { random = [0.2, 0.3], count = 4, seed = 1 }  # seeded uniform samples
  [[plot]]                                      # PNG plots of outputs against a varied key
  x = "friction.coefficient"
  y = "span_force_slack"

Keys are `beltsim run --set` keys ([[pulley]] entries by index from 0). Output DIR/sweep.csv has
one row per case in case order: the case number, the varied values, the outputs, the flagged
(non-converged) steps, whether the plant faulted and why, the exit status and the wall time. The
same spec gives the same table, bit for bit apart from the wall-time column, wherever and however
many at a time its cases ran. DIR/cases/NNNN/ keeps each case's own outputs.

A spec with an unknown key, a key to vary that the scenario format does not have, an empty range
or list, or a missing scenario file is refused with one line naming the spec, the key and its
line; nothing is run and nothing is written. Exit status: 0 when every case ran to its end, 1
when a case faulted, failed or timed out (its row says which), 2 for a refused spec.
"""
import argparse
import csv
import io
import itertools
import os
import random
import re
import shutil
import subprocess
import sys
import tomllib

import beltsim_cases as cases
from beltsim_cases import set_value
from scenario_to_plant_config import key_line

SPEC_KEYS = {"scenario", "outputs", "time_limit", "set", "vary", "plot"}
PLOT_KEYS = {"x", "y"}
# Columns every row has after the outputs.
HEALTH = ["nonconverged_steps", "faulted", "fault_reason", "exit_status", "wall_time_s"]


class SpecError(Exception):
    pass


def values_of(path, text, key, rule):
    """The values a [vary] entry stands for."""
    where = f"{path}:{key_line(text, 'vary', key)}: key 'vary.{key}'"
    if isinstance(rule, list):
        if not rule:
            raise SpecError(f"{where}: an empty list")
        return rule
    if isinstance(rule, dict):
        count = rule.get("count")
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise SpecError(f"{where}: 'count' must be a whole number >= 1")
        if set(rule) == {"from", "to", "count"}:
            a, b = float(rule["from"]), float(rule["to"])
            if count == 1 and a != b:
                raise SpecError(f"{where}: an empty range (one value between two different ends)")
            return [a] if count == 1 else [a + (b - a) * i / (count - 1) for i in range(count)]
        if set(rule) == {"random", "count", "seed"}:
            low, high = rule["random"]
            if not float(low) < float(high):
                raise SpecError(f"{where}: an empty range: random = [{low}, {high}]")
            generator = random.Random(rule["seed"])
            return [generator.uniform(float(low), float(high)) for _ in range(count)]
    raise SpecError(f"{where}: a list, {{ from, to, count }} or {{ random = [low, high], count, seed }}")


def load_spec(path, beltsim):
    """The scenario path, fixed overrides, varied keys with their values, outputs, plots, time limit."""
    try:
        text = open(path, encoding="utf-8").read()
        spec = tomllib.loads(text)
    except OSError as e:
        raise SpecError(f"{path}: {e.strerror}")
    except tomllib.TOMLDecodeError as e:
        raise SpecError(f"{path}: {e}")
    for key in spec:
        if key not in SPEC_KEYS:
            raise SpecError(f"{path}:{key_line(text, '', key)}: key '{key}': unknown key (known: {', '.join(sorted(SPEC_KEYS))})")
    if not isinstance(spec.get("scenario"), str):
        raise SpecError(f"{path}:{key_line(text, '', 'scenario')}: key 'scenario': the scenario file is missing")
    scenario = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(path)), spec["scenario"]))
    if not os.path.isfile(scenario):
        raise SpecError(f"{path}:{key_line(text, '', 'scenario')}: key 'scenario': no such file: {scenario}")
    fixed = [f"{k}={set_value(v)}" for k, v in spec.get("set", {}).items()]
    vary = spec.get("vary", {})
    if not vary:
        raise SpecError(f"{path}: key 'vary': no key to vary")
    varied = [(key, values_of(path, text, key, rule)) for key, rule in vary.items()]
    # Every key and value through the scenario format, before anything runs.
    # The fixed keys together (a refusal names the [set] key that beltsim names, else the scenario),
    # then each varied key at its first value.
    fixed_keys = [o.split("=")[0] for o in fixed]
    checks = [(fixed, None, "set")] + [(fixed + [f"{k}={set_value(values[0])}"], k, "vary") for k, values in varied]
    for overrides, key, table in checks:
        p = subprocess.run([beltsim, "check", scenario, *[a for o in overrides for a in ("--set", o)]],
                           capture_output=True, text=True)
        if p.returncode != 0:
            reason = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit status {p.returncode}"
            reason = reason.removeprefix("error: ")
            if key is None:
                named = [k for k in fixed_keys if f"key '{k}'" in reason]
                if not named:
                    raise SpecError(f"{path}:{key_line(text, '', 'scenario')}: key 'scenario': {reason}")
                key = named[0]
            raise SpecError(f"{path}:{key_line(text, table, key)}: key '{table}.{key}': {reason}")
    outputs = spec.get("outputs", ["omega_p2", "drive_torque", "span_force_tight", "span_force_slack"])
    plots = spec.get("plot", [])
    for i, plot in enumerate(plots):
        for key in plot:
            if key not in PLOT_KEYS:
                raise SpecError(f"{path}:{key_line(text, f'plot#{i}', key)}: key 'plot[{i}].{key}': unknown key (known: x, y)")
        if plot.get("x") not in dict(varied) or plot.get("y") not in outputs:
            raise SpecError(f"{path}:{key_line(text, f'plot#{i}', 'x')}: key 'plot[{i}]': x must be a varied key and y "
                            "one of the outputs")
    return {"scenario": scenario, "fixed": fixed, "varied": varied, "outputs": outputs, "plots": plots,
            "time_limit": float(spec.get("time_limit", 3600))}


def row_of(case, values, result, outputs):
    s = result["summary"]
    tail = s.get("tail_mean", {})
    row = [case] + [repr(v) if isinstance(v, float) else v for v in values]
    for o in outputs:
        v = tail.get(o, s.get(o, ""))
        row.append(repr(v) if isinstance(v, float) else v)
    faulted = bool(s.get("faulted")) or result["status"] != 0
    row += [s.get("nonconverged_steps", ""), "true" if faulted else "false", result["reason"], result["status"],
            f"{result['wall']:.3f}"]
    return row


def run_sweep(spec, out, jobs, scheduler, beltsim):
    keys = [k for k, _ in spec["varied"]]
    combos = list(itertools.product(*[v for _, v in spec["varied"]]))
    tasks = []
    for case, values in enumerate(combos):
        arguments = ["run", spec["scenario"], "--quiet"]
        for o in spec["fixed"] + [f"{k}={set_value(v)}" for k, v in zip(keys, values)]:
            arguments += ["--set", o]
        tasks.append((beltsim, arguments, os.path.join(out, "cases", f"{case:04d}"), spec["time_limit"]))
    results = cases.run_all(tasks, jobs, scheduler)
    rows = [row_of(i, combos[i], results[i], spec["outputs"]) for i in range(len(tasks))]
    header = ["case"] + keys + spec["outputs"] + HEALTH
    return header, rows


def plot(out, spec, header, rows):
    """One PNG per [[plot]] (gnuplot): y against x, one line per combination of the other keys."""
    if not shutil.which("gnuplot"):
        print("plots skipped: gnuplot not found (scripts/setup.sh installs it)", file=sys.stderr)
        return
    keys = [k for k, _ in spec["varied"]]
    for i, p in enumerate(spec["plots"]):
        xi, yi = header.index(p["x"]), header.index(p["y"])
        others = [header.index(k) for k in keys if k != p["x"]]
        groups = {}
        for r in rows:
            if r[yi] != "":
                groups.setdefault(tuple(r[j] for j in others), []).append((float(r[xi]), float(r[yi])))
        data = os.path.join(out, f"plot_{i}.dat")
        with open(data, "w") as f:
            for g in groups.values():
                f.writelines(f"{x!r} {y!r}\n" for x, y in sorted(g))
                f.write("\n\n")
        titles = [", ".join(f"{keys[keys.index(header[j])]}={v}" for j, v in zip(others, g)) or p["y"]
                  for g in groups]
        name = re.sub(r"[^A-Za-z0-9]+", "_", f"{p['y']}_vs_{p['x']}")
        lines = ", ".join(f"'{data}' index {k} with linespoints title '{t}'" for k, t in enumerate(titles))
        script = (f"set terminal pngcairo noenhanced size 900,600\nset output '{os.path.join(out, name + '.png')}'\n"
                  f"set xlabel '{p['x']}'\nset ylabel '{p['y']}'\nset key outside\nplot {lines}\n")
        subprocess.run(["gnuplot"], input=script, text=True, check=False, capture_output=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("spec")
    cases.add_runner_arguments(parser)
    args = parser.parse_args()
    prepared = cases.prepare(args, lambda beltsim: load_spec(args.spec, beltsim), SpecError)
    if prepared is None:
        return 2
    beltsim, spec = prepared
    header, rows = run_sweep(spec, os.path.abspath(args.out), max(1, args.jobs), args.scheduler, beltsim)
    with open(os.path.join(args.out, "sweep.csv"), "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows([header] + rows)
    plot(args.out, spec, header, rows)
    failed = [r for r in rows if r[header.index("faulted")] == "true"]
    table = io.StringIO()
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header) - 3)]
    for r in [header] + rows:
        table.write("  ".join(str(c).rjust(w) for c, w in zip(r, widths)) + "\n")
    print(table.getvalue() + f"{len(rows)} cases, {len(failed)} failed; table: {os.path.join(args.out, 'sweep.csv')}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
