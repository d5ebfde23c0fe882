#!/usr/bin/env python3
"""A tired tensioner spring and a dragging bearing (issue 52; docs/injected_faults.md): the
tensioner_spring and bearing_drag faults scheduled in the accessory drive
(host_sim/scenarios/accessory_drive.toml, 120 elements). Standard library only.

tired spring: the drive at rest and without loads, so that the belt's tension is the same in every
  span once it settles: the crankshaft turns freely (fixed_axis, no speed profile), no torques, no
  dampers on the pulleys, no gravity, the arm without friction (its damper raised to 0.5 N m s/rad
  to settle sooner: neither changes where it rests). The spring to half its rate from 0.5 s (ramp
  0.05 s). Reference: the belt as a string on its path (tests/system/belt_path.py) with one
  tension T: the path's length at arm angle delta is L_drawn (1 + eps0 + T / EA) (the axial force
  EA (eps - eps0), docs/model_element.md §2.4), and the arm's spring balances the moment of the two spans'
  pull T (u_out - u_in) about the pivot: k (preload - delta) + (c - pivot) x T (u_out - u_in) = 0.
  Asserted: the change of the arm angle (mean over 1.0-1.5 s minus the mean over 0.3-0.5 s)
  within 2 % of the reference's, the two spans next to the arm within 2 % of its T.
  Measured: -1.4 % and -0.8 % at 120 elements (-1.0 %, -0.8 % at 240; at 60 elements the
  18.9-degree wrap of the 30 mm tensioner pulley is 10 mm, a third of an element, and the change
  is 9 % off: docs/injected_faults.md).

dragging bearing: the example as it runs (loads, gravity), with the motor-generator's reversal
  moved past the end (so the load stays steady), a bearing_drag on the back-side idler (pulley 4)
  from 1.0 s (ramp 0.05 s):
  - 1 N m, below what the belt's friction can carry over the idler's wrap: the idler's spans
    carry it, R_idler (dF_after - dF_before) within 3 % of 1 N m (the idler's own balance), and
    the crankshaft's torque rises by R_crank (dF_after - dF_before) within 3 % (the drive's), dF =
    F_in - F_out of the idler's spans (spans 3 and 4: span_force_2 and span_force_3), R the
    centreline radii (means over 0.8-1.0 s and 1.3-1.8 s); the idler keeps turning (every sample
    after 1.3 s at 90 % of its speed before or more);
  - 3 N m, more than the belt can carry: the belt slides over the idler, F_in / F_out within 3 %
    of exp(mu theta) (theta the idler's wrap on the drawn path), the crankshaft's torque rises as
    above, and the idler comes to rest: its speed below 1 % of its speed before the fault at every
    sample of 1.3-1.8 s.
load drag and seized load: the main job's scenario (host_sim/scenarios/realtime_belt_drive.toml:
  16 eulerian elements, 2e-4 s, five post-Newton passes a step; P1 speed-driven at
  12 rad/s, P2 with 25 N m and a 2 N m s/rad damper) with a bearing_drag on P2 from 1.8 s (ramp
  0.05 s), means over 2.3-2.8 s:
  - 10 N m and 0.5 N m s/rad: more than the belt's grip leaves: the belt slides over the whole
    wrap, F1 / F2 within 3 % of exp(mu pi) and omega_P2 within 5 % of P2's balance with the
    sliding belt (R (F1 + F2) tanh(mu pi / 2) - 25 - 10) / (2 + 0.5) (as tests/system/gross_slip.py);
  - 100 N m (a seized bearing): P2 at rest, below 1 % of its speed before the fault at every sample
    of 2.3-2.8 s, and F1 / F2 within 3 % of exp(mu pi);
  - 10 N m and 0.5 N m s/rad on 24 eulerian elements (host_sim/scenarios/eulerian_belt_drive.toml,
    the same drive at 0.1 ms with the reference stepping): the same two checks as the first.
In every run from the fault on: no model fault and never 10 flagged steps in a row (the issue's
riding through).

Usage: injected_plant_faults.py BELTSIM SOURCE_DIR OUTDIR   (OUTDIR is removed first)
"""
import json
import math
import os
import shutil
import subprocess
import sys
import tomllib
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from belt_path import belt_path, bisect  # noqa: E402
from injected_friction import mean, report, riding_through  # noqa: E402

SCENARIO = "host_sim/scenarios/accessory_drive.toml"
MAIN_JOB = "host_sim/scenarios/realtime_belt_drive.toml"
EULERIAN = "host_sim/scenarios/eulerian_belt_drive.toml"
SPRING_START, SPRING_END = 0.5, 1.5
DRAG_START, DRAG_END = 1.0, 1.8
IDLER, TENSIONER = 4, 6  # pulleys, from 1


def replaced(text, old, new):
    if text.count(old) != 1:
        raise SystemExit(f"FAIL {SCENARIO} no longer has '{old}' once: update this test")
    return text.replace(old, new)


def tired_spring_scenario(text):
    text = replaced(text, 'kind = "speed"', 'kind = "fixed_axis"')
    text = replaced(text, 'speed = { shape = "smooth", t0 = 0.05, t1 = 0.35, from = 0.0, to = 40.0 }', "")
    text = replaced(text, "gravity = [0.0, -9.81]", "gravity = [0.0, 0.0]")
    return text + (f'\n[[fault]]\nkind = "tensioner_spring"\npulley = {TENSIONER}\nstart = {SPRING_START}\n'
                   f'ramp = 0.05\nvalue = 0.5\n')


TIRED_SETS = ["pulley[2].torque.from=0.0", "pulley[2].torque.to=0.0", "pulley[4].torque.to=0.0",
              "pulley[5].arm.friction_torque_ccw=0", "pulley[5].arm.friction_torque_cw=0",
              "pulley[5].arm.damping=0.5"] + [f"pulley[{k}].damping=0" for k in range(6)]


def drag_scenario(text, torque):
    return text + (f'\n[[fault]]\nkind = "bearing_drag"\npulley = {IDLER}\nstart = {DRAG_START}\nramp = 0.05\n'
                   f'value = {torque}\n')


DRAG_SETS = ["pulley[2].torque.t0=5.0", "pulley[2].torque.t1=5.2"]
LOAD_START, LOAD_END, LOAD, DAMPER = 1.8, 2.8, 25.0, 2.0  # the main job's P2: N m, N m s/rad
CASES = [("tired spring", None), ("drag 1 N m", 1.0), ("drag 3 N m", 3.0), ("load drag", 10.0), ("seized load", 100.0),
         ("load drag, eulerian mesh", 10.0)]
LOAD_VISCOUS = {"load drag": 0.5, "seized load": 0.0, "load drag, eulerian mesh": 0.5}


def load_drag_scenario(text, torque, viscous):
    return text + (f'\n[[fault]]\nkind = "bearing_drag"\npulley = 2\nstart = {LOAD_START}\nramp = 0.05\n'
                   f'value = {torque}\nviscous = {viscous}\n')


def circles_of(sc, arm_angle=0.0):
    """The path's circles (centreline radius r + h/2), the tensioner's centre turned by arm_angle
    about its pivot from where it is drawn."""
    h = sc["belt"].get("thickness", 1e-4)
    circles = []
    for p in sc["pulley"]:
        centre = tuple(p["centre"])
        if "arm" in p:
            pivot = p["arm"]["pivot"]
            length = math.dist(centre, pivot)
            drawn = math.atan2(centre[1] - pivot[1], centre[0] - pivot[0])
            centre = (pivot[0] + length * math.cos(drawn + arm_angle), pivot[1] + length * math.sin(drawn + arm_angle))
        circles.append((centre, p["radius"] + 0.5 * h, p.get("side", 1)))
    return circles


def string_equilibrium(sc, stiffness):
    """(delta, T): the arm angle from the drawn position and the belt's uniform tension where the
    string on its path balances the arm's spring of rate `stiffness`."""
    ea = sc["belt"].get("axial_stiffness", 8000.0)
    eps0 = sc["belt"]["reference_strain"]
    t = TENSIONER - 1
    arm = sc["pulley"][t]["arm"]
    drawn_length = belt_path(circles_of(sc))[0]

    def tension(delta):
        return ea * (belt_path(circles_of(sc, delta))[0] / drawn_length - 1.0 - eps0)

    def moment(delta):
        circles = circles_of(sc, delta)
        _, spans, _ = belt_path(circles)
        u_in, u_out, f = spans[t - 1]["u"], spans[t]["u"], tension(delta)
        pull = (f * (u_out[0] - u_in[0]), f * (u_out[1] - u_in[1]))
        lever = (circles[t][0][0] - arm["pivot"][0], circles[t][0][1] - arm["pivot"][1])
        return stiffness * (arm["preload_angle"] - delta) + lever[0] * pull[1] - lever[1] * pull[0]

    delta = bisect(moment, -0.5, 0.6)
    return delta, tension(delta)


def check_tired_spring(sc, summary, rows):
    arm = sc["pulley"][TENSIONER - 1]["arm"]
    drawn = math.pi  # the arm points to -x when drawn (pivot to the right of the pulley)
    before, after = (0.3, SPRING_START), (1.0, SPRING_END)
    d0, _ = string_equilibrium(sc, arm["stiffness"])
    d1, tension = string_equilibrium(sc, 0.5 * arm["stiffness"])
    a0 = mean(rows, f"arm_angle_p{TENSIONER}", *before) - drawn
    a1 = mean(rows, f"arm_angle_p{TENSIONER}", *after) - drawn
    change, reference = a1 - a0, d1 - d0
    checks = [(abs(change / reference - 1) <= 0.02,
               f"arm angle {a0:.5f} -> {a1:.5f} rad (string {d0:.5f} -> {d1:.5f}): change {change:.5f} against "
               f"{reference:.5f} rad, {100 * (change / reference - 1):+.2f} % (limit 2 %)"),
              (rows[-1][f"spring_rate_p{TENSIONER}"] == 0.5 * arm["stiffness"],  # the output reached the table
               f"spring_rate_p{TENSIONER} at the end {rows[-1][f'spring_rate_p{TENSIONER}']} N m/rad")]
    for k in (TENSIONER - 2, TENSIONER - 1):  # the spans into and out of the arm's pulley
        f = mean(rows, f"span_force_{k}", *after)
        checks.append((abs(f / tension - 1) <= 0.02, f"span_force_{k} {f:.2f} N against the string's tension "
                                                      f"{tension:.2f} N: {100 * (f / tension - 1):+.2f} % (limit 2 %)"))
    return report("tired spring", checks + riding_through(summary, rows, SPRING_START))


def check_drag(sc, torque, summary, rows):
    before, after = (0.8, DRAG_START), (1.3, DRAG_END)
    h = sc["belt"].get("thickness", 1e-4)
    crank = sc["pulley"][0]["radius"] + 0.5 * h
    fin, fout = f"span_force_{IDLER - 2}", f"span_force_{IDLER - 1}"
    pull = [mean(rows, fin, *w) - mean(rows, fout, *w) for w in (before, after)]
    rise = mean(rows, "torque_p1", *after) - mean(rows, "torque_p1", *before)
    expected = crank * (pull[1] - pull[0])
    label = f"drag {torque:g} N m"
    checks = [(abs(rise / expected - 1) <= 0.03,
               f"crankshaft torque rises {rise:.4f} N m against R_crank (dF after - dF before) = {crank:.5f} * "
               f"({pull[1]:.2f} - {pull[0]:.2f}) = {expected:.4f} N m: {100 * (rise / expected - 1):+.2f} % "
               f"(limit 3 %)")]
    omega0 = abs(mean(rows, f"omega_p{IDLER}", *before))
    speeds = [abs(r[f"omega_p{IDLER}"]) for r in rows if after[0] < r["time"] <= after[1]]
    slowest, fastest = min(speeds), max(speeds)
    radius = sc["pulley"][IDLER - 1]["radius"] + 0.5 * h
    capacity = radius * mean(rows, fout, *after) * (math.exp(sc["friction"]["coefficient"] *
                                                             belt_path(circles_of(sc))[2][IDLER - 1]) - 1)
    print(f"     {label}: the belt can carry about {capacity:.3f} N m over the idler; R dF after = "
          f"{radius * pull[1]:.4f} N m; idler {omega0:.2f} rad/s before, {slowest:.4f} to {fastest:.4f} rad/s after")
    if torque * 1.1 > capacity:
        wrap = belt_path(circles_of(sc))[2][IDLER - 1]
        law = math.exp(sc["friction"]["coefficient"] * wrap)
        ratio = mean(rows, fin, *after) / mean(rows, fout, *after)
        checks += [(abs(ratio / law - 1) <= 0.03,
                    f"F_in / F_out {ratio:.4f} against exp(mu theta) {law:.4f} (wrap {math.degrees(wrap):.2f} deg): "
                    f"{100 * (ratio / law - 1):+.2f} % (limit 3 %)"),
                   (fastest < 0.01 * omega0, f"the idler at rest: at most {fastest:.4f} rad/s over 1.3-1.8 s "
                                             f"(limit 1 % of {omega0:.2f} rad/s)")]
    else:
        carried = radius * (pull[1] - pull[0])
        checks += [(abs(carried / torque - 1) <= 0.03,
                    f"R_idler (dF after - dF before) = {carried:.4f} N m against the drag {torque:g} N m: "
                    f"{100 * (carried / torque - 1):+.2f} % (limit 3 %)"),
                   (slowest > 0.9 * omega0, f"the idler keeps turning: at least {slowest:.2f} rad/s "
                                            f"(limit {0.9 * omega0:.2f} rad/s)")]
    return report(label, checks + riding_through(summary, rows, DRAG_START))


def check_load_drag(main, name, torque, summary, rows):
    viscous = LOAD_VISCOUS[name]
    before, after = (1.6, LOAD_START), (LOAD_END - 0.5, LOAD_END)
    mu = main["friction"]["coefficient"]
    radius = main["pulley"][0]["radius"] + 0.5 * main["belt"].get("thickness", 1e-4)
    f0, f1 = mean(rows, "span_force_0", *after), mean(rows, "span_force_1", *after)
    tight, slack = max(f0, f1), min(f0, f1)
    law = math.exp(mu * math.pi)
    checks = [(abs(tight / slack / law - 1) <= 0.03,
               f"F1/F2 {tight / slack:.4f} ({tight:.1f} / {slack:.1f} N) against exp(mu pi) {law:.4f}: "
               f"{100 * (tight / slack / law - 1):+.2f} % (limit 3 %)")]
    omega0 = mean(rows, "omega_p2", *before)
    if torque < 50.0:
        omega = mean(rows, "omega_p2", *after)
        balance = (radius * (tight + slack) * math.tanh(0.5 * mu * math.pi) - LOAD - torque) / (DAMPER + viscous)
        checks.append((abs(omega / balance - 1) <= 0.05,
                       f"omega_P2 {omega:.3f} rad/s (before {omega0:.3f}) against P2's balance with the sliding belt "
                       f"{balance:.3f}: {100 * (omega / balance - 1):+.2f} % (limit 5 %)"))
    else:
        slowest = max(abs(r["omega_p2"]) for r in rows if after[0] < r["time"] <= after[1])
        checks.append((slowest < 0.01 * abs(omega0), f"P2 at rest: at most {slowest:.4f} rad/s over 2.3-2.8 s "
                                                     f"(limit 1 % of {omega0:.3f} rad/s)"))
    return report(f"{name} ({torque:g} N m, {viscous:g} N m s/rad on P2)",
                  checks + riding_through(summary, rows, LOAD_START))


def main():
    beltsim, source, out = sys.argv[1:4]
    shutil.rmtree(out, ignore_errors=True)
    with open(os.path.join(source, SCENARIO)) as f:
        text = f.read()
    with open(os.path.join(source, SCENARIO), "rb") as f:
        sc = tomllib.load(f)
    with open(os.path.join(source, MAIN_JOB)) as f:
        main_text = f.read()
    with open(os.path.join(source, EULERIAN)) as f:
        eulerian_text = f.read()
    with open(os.path.join(source, MAIN_JOB), "rb") as f:
        main = tomllib.load(f)

    def run(case):
        name, torque = case
        work = os.path.join(out, name.replace(" ", "_").replace(",", ""))
        if torque is None:
            scenario, sets, end = tired_spring_scenario(text), TIRED_SETS, SPRING_END
        elif name in LOAD_VISCOUS:
            base = eulerian_text if "eulerian" in name else main_text
            scenario, sets, end = load_drag_scenario(base, torque, LOAD_VISCOUS[name]), [], LOAD_END
        else:
            scenario, sets, end = drag_scenario(text, torque), DRAG_SETS, DRAG_END
        return run_scenario(beltsim, work, scenario, end, sets)

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(run, CASES))
    failed = 0
    for (name, torque), (result, error) in zip(CASES, results):
        if result is None:
            print(f"FAIL {name}: {error}")
            failed += 1
        elif torque is None:
            failed += check_tired_spring(sc, *result)
        elif name in LOAD_VISCOUS:
            failed += check_load_drag(main, name, torque, *result)
        else:
            failed += check_drag(sc, torque, *result)
    return 1 if failed else 0


def run_scenario(beltsim, work, scenario, end_time, sets):
    """beltsim run of the scenario text to end_time with `sets`: ((summary, rows), None) or (None, error)."""
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, "scenario.toml")
    with open(path, "w") as f:
        f.write(scenario)
    args = [beltsim, "run", path, "--quiet", "--out", os.path.join(work, "out"), "--set", f"solver.end_time={end_time}"]
    for s in sets:
        args += ["--set", s]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        return None, f"beltsim failed ({r.returncode}): {r.stderr.strip()}"
    with open(os.path.join(work, "out", "summary.json")) as f:
        summary = json.load(f)
    with open(os.path.join(work, "out", "timeseries.csv")) as f:
        header = f.readline().strip().split(",")
        rows = [dict(zip(header, map(float, line.split(",")))) for line in f if line.strip()]
    return (summary, rows), None


if __name__ == "__main__":
    sys.exit(main())
