#!/usr/bin/env python3
"""A worn belt (docs/injected_faults.md): a belt_stiffness fault scheduled in a scenario.
Standard library only.

The main job's scenario (host_sim/scenarios/realtime_belt_drive.toml: EA 8000 N, reference strain
-0.05, mu 0.5 on two equal pulleys, 25 N m on P2) with one [[fault]] table from 1.8 s (ramp 0.05 s):
EA to a fraction of itself; the reference strain stays, so the pre-tension falls with EA. Over
the last 0.5 s of a run to 2.8 s:
- 0.95: the belt still grips; its creep 1 - omega_P2 / omega_P1 follows the elastic strain
  difference (F1 - F2) / EA with the worn EA within 5 %;
- 0.8: the pre-tension no longer carries the load's torque: the belt slides, F1 / F2 = exp(mu pi)
  within 3 % and omega_P2 = (R (F1 + F2) tanh(mu pi / 2) - 25) / 2 (P2's balance with the
  sliding belt, as tests/system/gross_slip.py) within 5 %, on the main job's 16 eulerian elements
  with their fixed-cost stepping and on 24 (the 24-element material mesh fell 1-6 % short of
  exp(mu pi), a limit the eulerian mesh does not have: docs/injected_faults.md);
and in both: no model fault, never 10 flagged steps in a row, the timeseries' axial_stiffness at
the end the worn EA.

Usage: injected_belt_stiffness.py BELTSIM SOURCE_DIR OUTDIR   (OUTDIR is removed first)
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from injected_friction import mean, report, riding_through, run_all, run_with  # noqa: E402

START, RAMP, END_TIME = 1.8, 0.05, 2.8
LOAD, DAMPER = 25.0, 2.0  # P2's load (N m) and damper (N m s/rad) in the main job's scenario
CASES = [(0.95, 16), (0.8, 16), (0.8, 24)]  # fraction, eulerian elements


def table(fraction):
    return (f'\n[[fault]]\nkind = "belt_stiffness"\nstart = {START}\nramp = {RAMP}\nvalue = {fraction}\n')


def check(fraction, elements, result, ea, mu, radius):
    summary, rows = result
    tail = (END_TIME - 0.5, END_TIME)
    f0, f1 = mean(rows, "span_force_0", *tail), mean(rows, "span_force_1", *tail)
    tight, slack = max(f0, f1), min(f0, f1)
    worn = fraction * ea
    creep = 1 - mean(rows, "omega_p2", *tail) / mean(rows, "omega_p1", *tail)
    strain = (tight - slack) / worn
    checks = [(rows[-1]["axial_stiffness"] == worn, f"axial_stiffness at the end {rows[-1]['axial_stiffness']} N "
                                                    f"(worn EA {worn} N)")]
    if fraction >= 0.9:
        checks.append((abs(creep / strain - 1) <= 0.05,
                       f"creep {creep:.5f} against (F1 - F2)/EA {strain:.5f}: {100 * (creep / strain - 1):+.2f} % "
                       f"(limit 5 %)"))
    else:
        ratio, law = tight / slack, math.exp(mu * math.pi)
        omega = mean(rows, "omega_p2", *tail)
        balance = (radius * (tight + slack) * math.tanh(0.5 * mu * math.pi) - LOAD) / DAMPER
        lines = [(abs(ratio / law - 1) <= 0.03, f"F1/F2 {ratio:.4f} ({tight:.1f} / {slack:.1f} N) against exp(mu pi) "
                                                f"{law:.4f}: {100 * (ratio / law - 1):+.2f} % (limit 3 %)"),
                 (abs(omega / balance - 1) <= 0.05, f"omega_P2 {omega:.3f} rad/s (creep {creep:.4f}, elastic "
                                                    f"{strain:.4f}) against P2's balance with the sliding belt "
                                                    f"{balance:.3f}: {100 * (omega / balance - 1):+.2f} % (limit 5 %)")]
        checks += lines
    return report(f"EA to {fraction}, {elements} elements", checks + riding_through(summary, rows, START))


def main():
    def runner(beltsim, source, out, case):
        fraction, elements = case
        return run_with(beltsim, source, out, f"worn_{fraction}_{elements}", table(fraction), END_TIME,
                        (f"belt.elements={elements}",))

    def checker(case, result, sc, radius):
        return check(*case, result, sc["belt"]["axial_stiffness"], sc["friction"]["coefficient"], radius)

    return run_all(CASES, runner, checker, lambda c: f"EA to {c[0]}, {c[1]} elements")


if __name__ == "__main__":
    sys.exit(main())
