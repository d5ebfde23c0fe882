#!/usr/bin/env python3
"""Gross slip obeys the capstan law (issue 49); standard library only.

The paper's drive (two equal pulleys, P1 speed-driven to 12 rad/s, P2 on a fixed axis with a
2 N m s/rad damper) with mu = 0.3 and a load of 30 N m from 1.0-1.5 s: more than friction can
carry, so the belt slides over P1's whole wrap. References:
- the capstan (Euler-Eytelwein) law over the whole wrap theta = pi: F1 / F2 = exp(mu theta);
- P2's balance with that belt torque: the belt turns P2 with R (F1 - F2) = R (F1 + F2) tanh(mu theta
  / 2) (the capstan ratio written with the span forces' sum, which the pre-tension sets), against
  the load and the damper: omega_P2 = (R (F1 + F2) tanh(mu theta / 2) - 30) / 2, R the belt
  centreline radius r + h / 2.
Tail means over the summary's tail window (the last 0.15 s of 2.45 s). Limits (the issue's): 3 % on
F1 / F2, 5 % on omega_P2, flagged steps while the belt slides (t >= 1.5 s, the load at 30 N m) under
1 %, never 10 flagged steps in a row (bounded from timeseries.csv: consecutive rows with flagged
steps, summed).

Cases: the shipped real-time settings at their own meshes and steps (the main job's scenario on 16
eulerian elements, the same drive on the material mesh at the main job's step,
firmware/configs/microcontroller.toml and pc.toml, both with P1 speed-driven as the firmware's
scripted test runs it), the paper's settings at 24 and 60 elements (1e-4 s), with either stick
memory at 24, and the eulerian mesh with its fixed-cost stepping (eulerian_belt_drive.toml,
measured F1/F2 -0.31 %, omega_P2 -2.64 %, no step flagged). Measured before the fix (the paper's sgn(0) = 0 for a segment anchored in its own
pass, bristle_friction.hpp): F1 / F2 2.98 (the main job, then on the material mesh), 3.13 (24 elements, whole-element memory),
omega_P2 6.5 and 7.35 rad/s instead of about 3.4; flagged while sliding 30 % (main job) and 17 %
(microcontroller) of the steps, as every segment landing on P1 counted its velocity penalty's excess
over mu |f_n| in the post-Newton error (circle_cable_contact.hpp).

Usage: gross_slip.py BELTSIM SOURCE_DIR OUTDIR   (OUTDIR is removed first)
"""
import json
import math
import os
import shutil
import subprocess
import sys
import tomllib
from concurrent.futures import ThreadPoolExecutor

MU, LOAD, DAMPER = 0.3, 30.0, 2.0
RATIO_LIMIT, SPEED_LIMIT = 0.03, 0.05
SLIDE_FROM = 1.5  # s
FLAG_LIMIT = 0.01
RUN_LIMIT = 10
SLIDE = ("friction.coefficient=0.3", "pulley[1].torque.to=-30")
# P1 speed-driven and P2's load as in the main job's scenario (the firmware configurations come
# with a torque-driven motor and no profiles: the commands come from the controller).
SCRIPTED = ("pulley[0].kind=speed", "pulley[0].speed.shape=linear", "pulley[0].speed.t0=0.05",
            "pulley[0].speed.t1=0.6", "pulley[0].speed.to=12", "pulley[1].torque.shape=smooth",
            "pulley[1].torque.t0=1.0", "pulley[1].torque.t1=1.5", "solver.end_time=2.45")
PAPER = ("solver.step_size=1e-4",)
CASES = [
    ("main job (eulerian, 5 passes, 16 el., 2e-4 s)", "host_sim/scenarios/realtime_belt_drive.toml", ()),
    ("material mesh at the main job's step (fixed-cost, 24 el., 2e-4 s)",
     "host_sim/scenarios/realtime_material_belt_drive.toml", ()),
    ("microcontroller (eulerian, 3 passes, 16 el., 1e-3 s)", "firmware/configs/microcontroller.toml", SCRIPTED),
    ("PC (eulerian, 2 passes, 16 el., 1e-4 s)", "firmware/configs/pc.toml", SCRIPTED),
    ("paper settings, 24 el., per-segment memory", "host_sim/scenarios/paper_belt_drive.toml",
     PAPER + ("belt.elements=24",)),
    ("paper settings, 24 el., whole-element memory", "host_sim/scenarios/paper_belt_drive.toml",
     PAPER + ("belt.elements=24", "friction.stick_memory=element")),
    ("paper settings, 60 el.", "host_sim/scenarios/paper_belt_drive.toml", PAPER + ("belt.elements=60",)),
    ("eulerian mesh (fixed-cost, 24 el., 1e-4 s)", "host_sim/scenarios/eulerian_belt_drive.toml",
     ("solver.stepping=fixed_cost",)),
]


def run(beltsim, scenario, out, sets):
    args = [beltsim, "run", scenario, "--quiet", "--out", out]
    for s in sets + SLIDE:
        args += ["--set", s]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        return None, f"beltsim failed ({r.returncode}): {r.stderr.strip()}"
    with open(f"{out}/summary.json") as f:
        summary = json.load(f)
    with open(f"{out}/timeseries.csv") as f:
        header = f.readline().strip().split(",")
        rows = [dict(zip(header, map(float, line.split(",")))) for line in f if line.strip()]
    return (summary, rows), None


def check(name, scenario, result):
    summary, rows = result
    with open(scenario, "rb") as f:
        sc = tomllib.load(f)
    p1, p2 = sc["pulley"][0], sc["pulley"][1]
    if p1["radius"] != p2["radius"]:
        print(f"FAIL {name}: the pulleys differ; the wrap is not pi")
        return 1
    radius = p1["radius"] + 0.5 * sc["belt"].get("thickness", 1e-4)
    theta = math.pi
    tail = summary["tail_mean"]
    f1, f2, omega = tail["span_force_tight"], tail["span_force_slack"], tail["omega_p2"]
    ratio, law = f1 / f2, math.exp(MU * theta)
    balance = (radius * (f1 + f2) * math.tanh(0.5 * MU * theta) - LOAD) / DAMPER
    stepping = summary["stepping"]
    slide = [r for r in rows if r["time"] > SLIDE_FROM + 1e-12]
    flagged = sum(r["flagged_steps"] for r in slide)
    steps = round((rows[-1]["time"] - SLIDE_FROM) / summary["step_size"])
    longest = run_length = 0
    for r in slide:
        run_length = run_length + r["flagged_steps"] if r["flagged_steps"] > 0 else 0
        longest = max(longest, run_length)
    failed = 0
    for ok, line in (
            (abs(ratio / law - 1) <= RATIO_LIMIT,
             f"F1/F2 {ratio:.4f} ({f1:.1f} / {f2:.1f} N) against exp(mu pi) {law:.4f}: "
             f"{100 * (ratio / law - 1):+.2f} % (limit {100 * RATIO_LIMIT:.0f} %)"),
            (abs(omega / balance - 1) <= SPEED_LIMIT,
             f"omega_P2 {omega:.3f} rad/s against P2's balance {balance:.3f} rad/s: "
             f"{100 * (omega / balance - 1):+.2f} % (limit {100 * SPEED_LIMIT:.0f} %)"),
            (flagged <= FLAG_LIMIT * steps,
             f"flagged while sliding {int(flagged)} of {steps} steps = {100 * flagged / steps:.2f} % "
             f"(limit {100 * FLAG_LIMIT:.0f} %, {stepping} stepping)"),
            (longest < RUN_LIMIT, f"longest run of flagged steps at most {int(longest)} (limit below {RUN_LIMIT})")):
        failed += not ok
        print(f"{'PASS' if ok else 'FAIL'} {name}: {line}")
    return failed


def main():
    beltsim, source, out = sys.argv[1:4]
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)

    def one(k):
        name, scenario, sets = CASES[k]
        return run(beltsim, os.path.join(source, scenario), f"{out}/case{k}", sets)

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(one, range(len(CASES))))
    failed = 0
    for (name, scenario, _), (result, error) in zip(CASES, results):
        if result is None:
            print(f"FAIL {name}: {error}")
            failed += 1
            continue
        failed += check(name, os.path.join(source, scenario), result)
    print(f"{failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
