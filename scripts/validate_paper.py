#!/usr/bin/env python3
"""Validation against the paper's belt drive (paper [P] Sect. 4, Table 4; docs/model_start_and_benchmark.md §9.6).

Runs host_sim/scenarios/paper_belt_drive.toml (240 elements, step 5e-5 s, 2.45 s) with beltsim
and checks the summary:
  span forces F1, F2 within 1 % of 665.22 N and 186.65 N;
  drive torque (mean over the last 0.15 s, as Table 4) within 1 % of 47.68 N m;
  omega_P2 (mean over the last 0.15 s) within 0.3 % of 11.3405 rad/s;
  torque balance (F1 - F2) R against the drive torque within 1 % (R = 0.1 m, as the paper);
  creep (v1 - v2) / v1 against (F1 - F2) / EA within 5 % (the paper finds 3.3 %), and against the
  steady-state relation of mass-flux conservation (F1 - F2) / EA / (1 + eps_ref + F1 / EA) within
  1 % (docs/model_start_and_benchmark.md §9.6 check 3: 0.0579; eps_ref = -0.05, the belt's reference strain);
  axial force over P1's slip arc against the capstan law F2 exp(mu phi), phi the wrap angle of each
  sample's position about P1's centre: at most 3 %, on the profile at the end and on the mean force
  of the last 0.15 s (summary.json's capstan_tail: F exp(-mu phi) averaged in bins of 0.02 rad
  against the tail mean of F2).
Usage: validate_paper.py BELTSIM SCENARIO OUTDIR   (OUTDIR must not exist or be empty)
"""
import json
import subprocess
import sys


def main() -> int:
    beltsim, scenario, out = sys.argv[1:4]
    run = subprocess.run([beltsim, "run", scenario, "--quiet", "--out", out], capture_output=True, text=True)
    if run.returncode != 0:
        print(f"paper run failed ({run.returncode}):\n{run.stderr}")
        return 1
    with open(f"{out}/summary.json") as f:
        s = json.load(f)
    f1, f2 = s["span_force_tight"], s["span_force_slack"]
    v1, v2 = s["span_speed_tight"], s["span_speed_slack"]
    tau, w2 = s["tail_mean"]["drive_torque"], s["tail_mean"]["omega_p2"]
    ea, reference_strain = 8000.0, -0.05
    creep = (v1 - v2) / v1
    strain_difference = (f1 - f2) / ea
    mass_flux_creep = strain_difference / (1.0 + reference_strain + f1 / ea)
    checks = [
        ("F1 tight span force [N]", f1, 665.22, 0.01),
        ("F2 slack span force [N]", f2, 186.65, 0.01),
        ("drive torque [N m]", tau, 47.68, 0.01),
        ("omega_P2 [rad/s]", w2, 11.3405, 0.003),
        ("torque balance (F1-F2) R vs drive torque [N m]", (f1 - f2) * 0.1, tau, 0.01),
        ("creep (v1-v2)/v1 vs (F1-F2)/EA", creep, strain_difference, 0.05),
        ("creep (v1-v2)/v1 vs (F1-F2)/EA / (1 + eps_ref + F1/EA)", creep, mass_flux_creep, 0.01),
    ]
    failed = 0
    for name, value, reference, tolerance in checks:
        error = abs(value - reference) / abs(reference)
        ok = error <= tolerance
        failed += not ok
        print(f"{'PASS' if ok else 'FAIL'} {name}: {value:.6g} vs {reference:.6g} "
              f"(rel. error {100 * error:.3f} %, limit {100 * tolerance:.2f} %)")
    # The capstan law on the end profile ("capstan") and on the tail window's mean force
    # ("capstan_tail"), each at most 3 % over its measured slip arc.
    for key, what in (("capstan", ""), ("capstan_tail", " on the mean force of the last 0.15 s")):
        error = s[f"{key}_max_rel_error"]
        ok = 0.0 <= error <= 0.03
        failed += not ok
        print(f"{'PASS' if ok else 'FAIL'} capstan law over P1's slip arc{what} ({s[f'{key}_slip_arc_angle']:.3f} rad): "
              f"max rel. error {100 * error:.2f} % (limit 3 %; over the full wrap angle "
              f"{s[f'{key}_wrap_angle']:.3f} rad: {100 * s[f'{key}_max_rel_error_full_wrap']:.2f} %)")
    print(f"steps {s['steps']}, non-converged {s['nonconverged_steps']} (Newton {s['newton_nonconverged_steps']}, "
          f"PNS {s['pns_nonconverged_steps']}), wall time {s['wall_time_s']:.1f} s, "
          f"step time median {s['step_time_us_median']:.0f} us, max {s['step_time_us_max']:.0f} us")
    print(f"{len(checks) + 2 - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
