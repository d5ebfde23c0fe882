#!/usr/bin/env python3
"""Convergence table of the paper's belt drive (issue 5): omega_P2, drive torque, F1, F2 at
t = 2.45 s for element counts x step sizes, against a reference run, with wall time per
simulated second. Writes a Markdown table to stdout.
Usage: convergence_table.py BELTSIM SCENARIO WORKDIR [--elements 24,30,...] [--steps 5e-5,...]
                            [--reference-elements N --reference-step H] [--jobs 2]
                            [--set KEY=VALUE ...] [--reference-set KEY=VALUE ...]
--set applies to every run, --reference-set to the reference run only (instead of --set), so a
table of one geometry or element scheme can be measured against the paper's reference run.
Columns: the four quantities (tail means of omega_P2 and the drive torque over the last 0.15 s,
F1 and F2 as tail means too with --tail-forces), the largest deviation, flagged steps, the
capstan check over P1's slip arc and the creep (v1 - v2)/v1 against (F1 - F2)/EA (the paper's
check, limit 5 %) and against the steady-state relation of mass-flux conservation,
(F1 - F2)/EA / (1 + eps_ref + F1/EA) (docs/model_start_and_benchmark.md §9.6 check 3; eps_ref the belt's reference strain).
--ripple adds the ripple of the drive torque, F1, F2 and the tight span's speed: the standard
deviation of each time series over the last 0.65 s (1.8-2.45 s on the paper's drive, after the
load ramp has settled), in per cent of its mean (timeseries.csv, every sample).
"""
import argparse
import concurrent.futures
import json
import os
import statistics
import subprocess
import tomllib


def run(beltsim, scenario, work, elements, step, sets, tag=""):
    out = os.path.join(work, f"ne{elements}_h{step:g}{tag}")
    summary = os.path.join(out, "summary.json")
    if not os.path.exists(summary):
        extra = [a for kv in sets for a in ("--set", kv)]
        subprocess.run([beltsim, "run", scenario, "--quiet", "--out", out, "--set", f"belt.elements={elements}",
                        "--set", f"solver.step_size={step}", "--set", "output.plots=false"] + extra,
                       capture_output=True, text=True)
    if not os.path.exists(summary):
        return None
    with open(summary) as f:
        result = json.load(f)
    result["ripple"] = ripple(out)
    return result


RIPPLE_WINDOW = 0.65  # s before the end
RIPPLE_COLUMNS = ("torque_p1", "span_force_0", "span_force_1", "span_speed_0")


def ripple(out):
    """Standard deviation over |mean| of RIPPLE_COLUMNS over the last RIPPLE_WINDOW s, or None."""
    path = os.path.join(out, "timeseries.csv")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        header = f.readline().strip().split(",")
        rows = [dict(zip(header, map(float, line.split(",")))) for line in f if line.strip()]
    if not rows:
        return None
    start = rows[-1]["time"] - RIPPLE_WINDOW - 1e-9
    window = [r for r in rows if r["time"] >= start]
    values = []
    for column in RIPPLE_COLUMNS:
        series = [r[column] for r in window]
        mean = statistics.fmean(series)
        values.append(statistics.pstdev(series) / abs(mean) if mean != 0.0 else float("nan"))
    return values


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
    p.add_argument("--set", action="append", default=[], dest="sets")
    p.add_argument("--reference-set", action="append", default=None, dest="reference_sets")
    p.add_argument("--tail-forces", action="store_true", help="F1, F2 as tail means (default: at the end)")
    p.add_argument("--ripple", action="store_true",
                   help="columns with the ripple of the drive torque, F1, F2 and the tight span's speed")
    p.add_argument("--axial-stiffness", type=float, default=None,
                   help="EA of the creep column [N] (default: the scenario's belt.axial_stiffness)")
    a = p.parse_args()
    with open(a.scenario, "rb") as f:
        belt = tomllib.load(f)["belt"]
    if a.axial_stiffness is None:
        a.axial_stiffness = float(belt["axial_stiffness"])
    reference_strain = float(belt.get("reference_strain", 0.0))
    os.makedirs(a.work, exist_ok=True)
    grid = [(n, float(h)) for n in map(int, a.elements.split(",")) for h in a.steps.split(",")]
    # The reference run first; with its own overrides it is a run of its own (folder suffix _ref),
    # otherwise it is also the grid's entry of the same mesh and step.
    ref_key = (a.reference_elements, a.reference_step)
    separate_ref = a.reference_sets is not None
    jobs = [(ref_key, a.reference_sets if separate_ref else a.sets, "_ref" if separate_ref else "")]
    jobs += [(g, a.sets, "") for g in grid if separate_ref or g != ref_key]
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        runs = list(pool.map(lambda j: run(a.beltsim, a.scenario, a.work, *j[0], j[1], j[2]), jobs))
    ref = runs[0]
    results = {key: r for (key, _, tag), r in zip(jobs, runs) if not tag}
    if ref is None:
        raise SystemExit("reference run failed")

    def values(s):
        t = s["tail_mean"]
        forces = (t["span_force_tight"], t["span_force_slack"]) if a.tail_forces else \
            (s["span_force_tight"], s["span_force_slack"])
        return (t["omega_p2"], t["drive_torque"]) + forces

    def creep(s):
        t = s["tail_mean"]
        measured = (t["span_speed_tight"] - t["span_speed_slack"]) / t["span_speed_tight"]
        predicted = (t["span_force_tight"] - t["span_force_slack"]) / a.axial_stiffness
        consistent = predicted / (1.0 + reference_strain + t["span_force_tight"] / a.axial_stiffness)
        return (f"{measured:.4f} vs {predicted:.4f} ({100 * abs(measured - predicted) / predicted:.1f} %) "
                f"/ {consistent:.4f} ({100 * abs(measured - consistent) / consistent:.1f} %)")

    rv = values(ref)
    print(f"Reference: {a.reference_elements} elements, step {a.reference_step:g} s: "
          f"omega_P2 {rv[0]:.5f} rad/s, drive torque {rv[1]:.3f} N m, F1 {rv[2]:.2f} N, F2 {rv[3]:.2f} N\n")
    extra = " ripple of τ, F1, F2, v1 |" if a.ripple else ""
    print("| elements | step [s] | omega_P2 [rad/s] | drive torque [N m] | F1 [N] | F2 [N] | max dev. | "
          "flagged steps | wall s per sim. s | capstan (slip arc) | capstan (tail) | creep vs strain / consistent |"
          + extra)
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|" + ("---:|" if a.ripple else ""))
    blank = " |" if a.ripple else ""
    for n, h in grid:
        s = results.get((n, h))
        if s is None or s.get("faulted"):
            print(f"| {n} | {h:g} | failed | | | | | | | | | |{blank}")
            continue
        # A run whose Newton solves hit their bound in more than 1 % of the steps has left the
        # regime where the step resolves the contact dynamics (the belt slips off): unstable.
        if s["newton_nonconverged_steps"] > 0.01 * s["steps"]:
            print(f"| {n} | {h:g} | unstable | | | | | {s['newton_nonconverged_steps']} of {s['steps']} (Newton) | | | | |"
                  f"{blank}")
            continue
        v = values(s)
        dev = max(abs(x - r) / abs(r) for x, r in zip(v, rv))
        print(f"| {n} | {h:g} | {v[0]:.4f} | {v[1]:.3f} | {v[2]:.2f} | {v[3]:.2f} | {100 * dev:.2f} % | "
              f"{s['nonconverged_steps']} of {s['steps']} | {s['wall_time_s'] / s['end_time']:.2f} | "
              f"{100 * s['capstan_max_rel_error']:.2f} % | {100 * s['capstan_tail_max_rel_error']:.2f} % | {creep(s)} |"
              + (" " + " / ".join(f"{100 * x:.2f}" for x in s["ripple"]) + " % |" if a.ripple and s["ripple"] else blank))


if __name__ == "__main__":
    main()
