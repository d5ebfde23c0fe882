#!/usr/bin/env python3
"""Convergence table of the paper's belt drive (issue 5): omega_P2, drive torque, F1, F2 at
t = 2.45 s for element counts x step sizes, against a reference run, with wall time per
simulated second. Writes a Markdown table to stdout.
Usage: convergence_table.py BELTSIM SCENARIO WORKDIR [--elements 24,30,...] [--steps 5e-5,...]
                            [--reference-elements N --reference-step H] [--jobs 2]
"""
import argparse
import concurrent.futures
import json
import os
import subprocess


def run(beltsim, scenario, work, elements, step):
    out = os.path.join(work, f"ne{elements}_h{step:g}")
    summary = os.path.join(out, "summary.json")
    if not os.path.exists(summary):
        subprocess.run([beltsim, "run", scenario, "--quiet", "--out", out, "--set", f"belt.elements={elements}",
                        "--set", f"solver.step_size={step}", "--set", "output.plots=false"],
                       capture_output=True, text=True)
    if not os.path.exists(summary):
        return None
    with open(summary) as f:
        return json.load(f)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("beltsim")
    p.add_argument("scenario")
    p.add_argument("work")
    p.add_argument("--elements", default="24,30,60,120,240")
    p.add_argument("--steps", default="5e-5,1e-4,2e-4,5e-4,1e-3")
    p.add_argument("--reference-elements", type=int, default=240)
    p.add_argument("--reference-step", type=float, default=5e-5)
    p.add_argument("--jobs", type=int, default=2)
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    grid = [(n, float(h)) for n in map(int, a.elements.split(",")) for h in a.steps.split(",")]
    jobs = [(a.reference_elements, a.reference_step)] + [g for g in grid if g != (a.reference_elements, a.reference_step)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        results = dict(zip(jobs, pool.map(lambda j: run(a.beltsim, a.scenario, a.work, *j), jobs)))
    ref = results[(a.reference_elements, a.reference_step)]
    if ref is None:
        raise SystemExit("reference run failed")

    def values(s):
        return (s["tail_mean"]["omega_p2"], s["tail_mean"]["drive_torque"], s["span_force_tight"], s["span_force_slack"])

    rv = values(ref)
    print(f"Reference: {a.reference_elements} elements, step {a.reference_step:g} s: "
          f"omega_P2 {rv[0]:.5f} rad/s, drive torque {rv[1]:.3f} N m, F1 {rv[2]:.2f} N, F2 {rv[3]:.2f} N\n")
    print("| elements | step [s] | omega_P2 [rad/s] | drive torque [N m] | F1 [N] | F2 [N] | max dev. | "
          "flagged steps | wall s per sim. s |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n, h in grid:
        s = results.get((n, h))
        if s is None or s.get("faulted"):
            print(f"| {n} | {h:g} | failed | | | | | | |")
            continue
        # A run whose Newton solves hit their bound in more than 1 % of the steps has left the
        # regime where the step resolves the contact dynamics (the belt slips off): unstable.
        if s["newton_nonconverged_steps"] > 0.01 * s["steps"]:
            print(f"| {n} | {h:g} | unstable | | | | | {s['newton_nonconverged_steps']} of {s['steps']} (Newton) | |")
            continue
        v = values(s)
        dev = max(abs(x - r) / abs(r) for x, r in zip(v, rv))
        print(f"| {n} | {h:g} | {v[0]:.4f} | {v[1]:.3f} | {v[2]:.2f} | {v[3]:.2f} | {100 * dev:.2f} % | "
              f"{s['nonconverged_steps']} | {s['wall_time_s'] / s['end_time']:.2f} |")


if __name__ == "__main__":
    main()
