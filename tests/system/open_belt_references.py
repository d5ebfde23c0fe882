#!/usr/bin/env python3
"""Open belts through `beltsim run` (issue 16), each case against a closed-form reference.

Usage: open_belt_references.py BELTSIM SCENARIO_DIR WORK_DIR

Cases (one behaviour each; the reference is stated at each):
  cantilever_consistent  clamped cable under gravity, consistent loads: the Euler-Bernoulli
                         deflection w(x) = q x^2 (6 L^2 - 4 L x + x^2) / (24 EI) at the nodes
  cantilever_lumped      the same with lumped nodal loads (P = q L_e, P / 2 at the tip): the sum
                         of the point-load deflections P x_i^2 (3 x - x_i) / (6 EI) (x >= x_i)
  taut_string            pinned, pre-tensioned string: mid-span sag q L^2 / (8 N), N = -EA eps0
  free_fall_from_rest    free cable started at rest (static.start = rest): its consistent initial
                         acceleration is g everywhere, so y(t) = -g t^2 / 2 exactly (the
                         trapezoidal rule integrates a constant acceleration exactly); an initial
                         acceleration of 0 would be 5 % off at t = 2 ms
  pulley_centres_in_outputs  every pulley's centre in timeseries.csv and summary.json (fixed axes:
                         where the scenario draws them)
  bad_input              malformed open-belt scenarios: one line naming the key, nothing written
Cubic Hermite elements reproduce a beam loaded at its nodes exactly at the nodes, and the
consistent load of a uniform q exactly too (w is quartic, but the nodal values of the FE solution
are exact for the consistent load vector); the geometric nonlinearity is O((w/L)^2) ~ 1e-6.
"""
import json
import re
import math
import os
import shutil
import subprocess
import sys


def run(beltsim, scenario, out, *overrides, expect_ok=True):
    if os.path.exists(out):
        shutil.rmtree(out)
    args = [beltsim, "run", scenario, "--out", out, "--quiet"]
    for o in overrides:
        args += ["--set", o]
    p = subprocess.run(args, capture_output=True, text=True, timeout=600)
    if expect_ok and p.returncode != 0:
        raise AssertionError(f"beltsim failed ({p.returncode}): {p.stderr}")
    return p


def summary(out):
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)


def node(s, index):
    for n in s["nodes"]:
        if n["index"] == index:
            return n["position"]
    raise AssertionError(f"node {index} not in the summary")


def close(name, value, expected, rel):
    err = value / expected - 1.0
    print(f"  {name}: {value:.9e} (reference {expected:.9e}, {err:+.2e} rel, allowed {rel:.0e})")
    if not abs(err) <= rel:
        raise AssertionError(f"{name}: {value} vs {expected}: {err:+.3e} relative, allowed {rel}")


# The cantilever of open_cantilever.toml: L = 1 m, 24 elements, rho A = 1 kg/m, EI = 1000 N m^2.
L, NE, RHOA, EI, G = 1.0, 24, 1.0, 1000.0, 9.81


def cantilever_consistent(beltsim, scenarios, work):
    out = os.path.join(work, "cantilever_consistent")
    run(beltsim, os.path.join(scenarios, "open_cantilever.toml"), out)
    s = summary(out)
    q = RHOA * G
    for k in (12, 24):
        x = k * L / NE
        w = q * x * x * (6 * L * L - 4 * L * x + x * x) / (24 * EI)
        close(f"deflection at node {k}", -node(s, k)[1], w, 1e-4)


def cantilever_lumped(beltsim, scenarios, work):
    out = os.path.join(work, "cantilever_lumped")
    run(beltsim, os.path.join(scenarios, "open_cantilever.toml"), out, "belt.gravity_loads=lumped")
    s = summary(out)
    q, le = RHOA * G, L / NE
    consistent = q * L**4 / (8 * EI)
    for k in (12, 24):
        x = k * L / NE
        w = 0.0
        for i in range(1, NE + 1):
            xi = i * le
            p = q * le * (0.5 if i == NE else 1.0)
            a = min(x, xi)  # deflection at x of a point load at xi: x <= xi and x >= xi forms
            w += p * a * a * (3 * max(x, xi) - a) / (6 * EI)
        close(f"deflection at node {k}", -node(s, k)[1], w, 1e-5)
    # The two load models differ by more than the tolerance: the test tells them apart.
    tip = -node(s, 24)[1]
    print(f"  lumped vs consistent tip deflection: {tip / consistent - 1:+.2e} rel")
    if not abs(tip / consistent - 1) > 1e-4:
        raise AssertionError("lumped and consistent gravity loads give the same tip deflection")


def taut_string(beltsim, scenarios, work):
    out = os.path.join(work, "taut_string")
    run(beltsim, os.path.join(scenarios, "open_taut_string.toml"), out)
    s = summary(out)
    q, n = 0.1 * G, 1.0e4 * 0.01
    close("mid-span sag", -node(s, 12)[1], q * L * L / (8 * n), 5e-3)
    # At the pins the axial force carries the string's tension and half the weight:
    # sqrt(N^2 + (q L / 2)^2) (within the first segment's share of the load).
    close("axial force at the start", s["axial_force_start"], math.hypot(n, q * L / 2), 1e-3)


def free_fall_from_rest(beltsim, scenarios, work):
    out = os.path.join(work, "free_fall")
    run(beltsim, os.path.join(scenarios, "open_cantilever.toml"), out, "belt.start_end=free", "static.start=rest")
    s = summary(out)
    t = s["time"]
    for k in (12, 24):
        close(f"fall of node {k} at t = {t:g} s", -node(s, k)[1], 0.5 * G * t * t, 1e-9)
        close(f"x of node {k}", node(s, k)[0], k * L / NE, 1e-12)


def pulley_centres_in_outputs(beltsim, scenarios, work):
    # Every pulley's centre in timeseries.csv and summary.json under the closed belts' names
    # (issue 35): the conveyor's two rollers turn on fixed axes, so their centres stay where the
    # scenario draws them, in every row.
    import csv
    import tomllib
    path = os.path.join(scenarios, "open_conveyor.toml")
    with open(path, "rb") as f:
        drawn = [p["centre"] for p in tomllib.load(f)["pulley"]]
    out = os.path.join(work, "conveyor_centres")
    run(beltsim, path, out, "solver.end_time=0.002")
    with open(os.path.join(out, "timeseries.csv")) as f:
        rows = list(csv.DictReader(f))
    for p, (x, y) in enumerate(drawn, start=1):
        for row in rows:
            if float(row[f"centre_x_p{p}"]) != x or float(row[f"centre_y_p{p}"]) != y:
                raise AssertionError(f"pulley {p}: centre ({row[f'centre_x_p{p}']}, {row[f'centre_y_p{p}']}) "
                                     f"at t = {row['time']} s, drawn at ({x}, {y})")
        if summary(out)["pulleys"][p - 1]["centre"] != [x, y]:
            raise AssertionError(f"pulley {p}: summary centre {summary(out)['pulleys'][p - 1]['centre']}")
    print(f"  {len(drawn)} pulley centres in {len(rows)} rows and the summary")


def bad_input(beltsim, scenarios, work):
    base = open(os.path.join(scenarios, "open_cantilever.toml")).read()
    cases = [
        ("nodes of the wrong length",
         base.replace("start = [0.0, 0.0]\nend = [1.0, 0.0]\n", "nodes = [[0.0, 0.0], [0.5, 0.0], [1.0, 0.0]]\n"),
         [], r"key 'belt.nodes': has 3 points; 24 elements need 25"),
        ("coincident nodes",
         base.replace("start = [0.0, 0.0]\nend = [1.0, 0.0]\n",
                      "nodes = [" + ", ".join(f"[{min(k, 23) / 24}, 0.0]" for k in range(25)) + "]\n"),
         [], r"key 'belt.nodes': points 23 and 24 coincide"),
        ("start and nodes together",
         base.replace("end = [1.0, 0.0]\n",
                      "end = [1.0, 0.0]\nnodes = [" + ", ".join(f"[{k / 24}, 0.0]" for k in range(25)) + "]\n"),
         [], r"key 'belt.nodes': give either nodes or start and end"),
        ("an open belt without its line", base.replace("end = [1.0, 0.0]\n", ""), [],
         r"key 'belt.start': an open belt needs start"),
        ("cable ends on a closed belt", base.replace("closed = false\n", "closed = true\n"), [],
         r"key 'belt.start_end': only an open belt"),
        ("unknown end kind", base, ["belt.finish_end=welded"], r"key 'belt.finish_end': 'welded' is not one of"),
        ("node inside a pulley",
         base + '\n[[pulley]]\nname = "roller"\ncentre = [0.5, -0.01]\nradius = 0.05\ninertia = 0.01\n', [],
         r"key 'pulley\[0\]' \(roller\): node 11 of the belt starts inside this pulley"),
        ("output node out of range", base.replace("nodes = [12, 24]", "nodes = [12, 25]"), [],
         r"key 'output.nodes': expected node indices in \[0, 24\]"),
        ("both velocity penalties", base + "\n[friction]\nvelocity_penalty = 10.0\nvelocity_penalty_damping_ratio = 0.5\n",
         [], r"key 'friction.velocity_penalty': give either"),
        ("static equilibrium of a free cable", base, ["belt.start_end=free"],
         r"static equilibrium did not converge \(residual [0-9.e+-]+ N after"),
    ]
    for i, (name, text, overrides, pattern) in enumerate(cases):
        path = os.path.join(work, f"bad_{i}.toml")
        with open(path, "w") as f:
            f.write(text)
        out = os.path.join(work, f"bad_out_{i}")
        p = run(beltsim, path, out, *overrides, expect_ok=False)
        message = p.stderr.strip()
        if p.returncode == 0:
            raise AssertionError(f"{name}: accepted")
        if not re.search(pattern, message):
            raise AssertionError(f"{name}: message does not match '{pattern}':\n{message}")
        if os.path.exists(out):
            raise AssertionError(f"{name}: the output folder was written")
        if len(message.splitlines()) != 1:
            raise AssertionError(f"{name}: more than one line:\n{message}")
        print(f"  {name}: rejected: {message}")


def main():
    beltsim, scenarios, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    cases = [cantilever_consistent, cantilever_lumped, taut_string, free_fall_from_rest, pulley_centres_in_outputs,
             bad_input]
    passed = failed = 0
    for case in cases:
        print(f"[ {case.__name__} ]")
        try:
            case(beltsim, scenarios, work)
            passed += 1
        except AssertionError as e:
            print(f"  FAILED: {e}")
            failed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
