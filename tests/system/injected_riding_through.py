#!/usr/bin/env python3
"""Riding through injected faults in the firmware's two configurations (issue 52;
docs/injected_faults.md, "Riding through"). Standard library only.

The two-pulley drives of firmware/configs/microcontroller.toml (16 eulerian elements, 1 ms, three
post-Newton passes) and firmware/configs/pc.toml (16 eulerian elements, 0.1 ms, two passes), run by
`beltsim run` with the firmware scripted run's stimulus in place of its commands (the motor
speed-driven from 0 to 12 rad/s over 0.05-0.35 s, 25 N m on the load from 0.4-0.5 s), and from
1.0 s (ramp 0.05 s) one plant kind each:
  friction        P1's mu 0.5 -> 0.3 (the belt slides under the load),
  bearing_drag    a seized load bearing, 100 N m and 1 N m s/rad on P2,
  belt_stiffness  EA to 0.8 (the pre-tension falls; the belt slides),
with two sensor kinds beside it (dropouts of P2's encoder at rate 0.1, noise of 2 N on span 1's
load cell). Asserted to 2.0 s: no model fault (codes 2, 4 in the firmware) and never 10 flagged
steps in a row; the seized load at rest (below 1 % of its speed before the fault) from 1.5 s on.
The motor is speed-driven, so nothing runs away behind the seized load.

Usage: injected_riding_through.py BELTSIM SOURCE_DIR OUTDIR   (OUTDIR is removed first)
"""
import os
import shutil
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from injected_friction import mean, report, riding_through  # noqa: E402
from injected_plant_faults import replaced, run_scenario  # noqa: E402

CONFIGS = ["microcontroller", "pc"]
PLANT = {
    "friction": 'kind = "friction"\npulley = 1\nvalue = 0.3',
    "bearing_drag": 'kind = "bearing_drag"\npulley = 2\nvalue = 100.0\nviscous = 1.0',
    "belt_stiffness": 'kind = "belt_stiffness"\nvalue = 0.8',
}
SENSORS = ('\n[[fault]]\nkind = "encoder_dropout"\npulley = 2\nrate = 0.1\nstart = 1.0\n'
           '\n[[fault]]\nkind = "load_cell_noise"\nspan = 1\nstd = 2.0\nstart = 1.0\n')
START, END = 1.0, 2.0


def scenario(text, kind):
    text = replaced(text, 'kind = "torque"', 'kind = "speed"\nspeed = { shape = "smooth", t0 = 0.05, t1 = 0.35, '
                                             'from = 0.0, to = 12.0 }')
    text = replaced(text, "damping = 2.0", 'damping = 2.0\ntorque = { shape = "smooth", t0 = 0.4, t1 = 0.5, '
                                           'from = 0.0, to = -25.0 }')
    return text + f"\n[[fault]]\n{PLANT[kind]}\nstart = {START}\nramp = 0.05\n" + SENSORS


def main():
    beltsim, source, out = sys.argv[1:4]
    shutil.rmtree(out, ignore_errors=True)
    cases = [(config, kind) for config in CONFIGS for kind in PLANT]
    texts = {}
    for config in CONFIGS:
        with open(os.path.join(source, "firmware", "configs", config + ".toml")) as f:
            texts[config] = f.read()

    def run(case):
        config, kind = case
        return run_scenario(beltsim, os.path.join(out, f"{config}_{kind}"), scenario(texts[config], kind), END, [])

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(run, cases))
    failed = 0
    for (config, kind), (result, error) in zip(cases, results):
        label = f"{config} configuration, {kind}"
        if result is None:
            print(f"FAIL {label}: {error}")
            failed += 1
            continue
        summary, rows = result
        checks = riding_through(summary, rows, START)
        flagged = sum(r["flagged_steps"] for r in rows if r["time"] > START)
        steps = round((END - START) / summary["step_size"])
        print(f"     {label}: {int(flagged)} of {steps} steps flagged from the fault on")
        if kind == "bearing_drag":
            before = abs(mean(rows, "omega_p2", 0.8, START))
            slowest = max(abs(r["omega_p2"]) for r in rows if r["time"] > 1.5)
            checks.append((slowest < 0.01 * before, f"the seized load at rest: at most {slowest:.4f} rad/s from 1.5 s "
                                                    f"(limit 1 % of {before:.3f} rad/s)"))
        failed += report(label, checks)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
