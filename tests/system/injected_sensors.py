#!/usr/bin/env python3
"""Sensor faults in `beltsim run` (issue 52; docs/injected_faults.md, "Sensors"): the encoder and
load-cell columns of timeseries.csv, the faults acting on them as stated, and the truth untouched.
Standard library only.

The main job's scenario (host_sim/scenarios/realtime_belt_drive.toml) to 0.6 s, three runs:
- plain: no [sensors], no [[fault]];
- read: [sensors] with 8192 counts per revolution and 0.25 N: the columns encoder_p1..2 and
  load_cell_1..2 (load_cell_k reads span k, span_force_<k-1> in timeseries.csv);
- faulted: the same with encoder_stuck on P1 and encoder_offset (-300 counts) on P2 from 0.3001 s,
  load_cell_gain (0.9) and load_cell_offset (+15 N) on span 1 and load_cell_noise (std 4 N,
  seed 5) on span 2 from 0.2001 s (ramps 1e-6 s: at level 1 from the next step).
References (each from the readings' definition, system/emulated_sensors.hpp):
- summary.json of faulted lists the five tables by kind and target (span for the load cells, the
  noise's seed);
- every truth column of plain, read and faulted equal, character for character (the sensors
  never reach the model);
- read: encoder_pk within one count of floor(angle_pk / 2 pi * 8192) (the CSV's 10 digits of the
  angle can move floor across an integer), load_cell_k within 0.125 N of span_force_<k-1>;
- faulted, against read, in every row after the fault starts: P1's count equals read's count at
  0.3 s (the last step before 0.3001 s); P2's is read's - 300 exactly; span 1's is
  0.9 * read's + 15 (to the CSV's 10 digits); span 2's difference from read's has mean 0 within
  5 standard errors and a standard deviation within 5 % of 4 N; before the faults, equal.

Usage: injected_sensors.py BELTSIM SOURCE_DIR OUTDIR   (OUTDIR is removed first)
"""
import math
import os
import shutil
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from injected_friction import report, run_with  # noqa: E402

END_TIME = 0.6
CPR = 8192.0
SENSORS = "\n[sensors]\nencoder_counts_per_revolution = 8192\nload_cell_resolution = 0.25\n"
FAULTS = """
[[fault]]
kind = "encoder_stuck"
pulley = 1
start = 0.3001

[[fault]]
kind = "encoder_offset"
pulley = 2
start = 0.3001
ramp = 1e-6
value = -300

[[fault]]
kind = "load_cell_gain"
span = 1
start = 0.2001
ramp = 1e-6
value = 0.9

[[fault]]
kind = "load_cell_offset"
span = 1
start = 0.2001
ramp = 1e-6
value = 15.0

[[fault]]
kind = "load_cell_noise"
span = 2
start = 0.2001
ramp = 1e-6
std = 4.0
seed = 5
"""
SENSOR_COLUMNS = ("encoder_p", "load_cell_", "injected_faults")


def truth_columns(header):
    return [c for c in header if not c.startswith(SENSOR_COLUMNS) and not c.startswith("step_")]


def read_csv(out):
    with open(os.path.join(out, "timeseries.csv")) as f:
        header = f.readline().strip().split(",")
        return header, [line.strip().split(",") for line in f if line.strip()]


def main():
    beltsim, source, outdir = sys.argv[1:4]
    shutil.rmtree(outdir, ignore_errors=True)
    cases = [("plain", "", END_TIME), ("read", SENSORS, END_TIME), ("faulted", SENSORS + FAULTS, END_TIME)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda c: run_with(beltsim, source, outdir, c[0], c[1], c[2]), cases))
    failed = [(False, f"{name}: {error}") for (name, _, _), (_, error) in zip(cases, results) if error]
    if failed:
        return 1 + report("sensors", failed)
    checks = []
    # summary.json lists the tables as read: kind, target key (a span for load cells), seed where drawn.
    listed = results[2][0][0].get("injected_faults", [])
    want = [("encoder_stuck", "pulley", 1), ("encoder_offset", "pulley", 2), ("load_cell_gain", "span", 1),
            ("load_cell_offset", "span", 1), ("load_cell_noise", "span", 2)]
    got = [(t.get("kind"), "span" if "span" in t else "pulley", t.get("span", t.get("pulley"))) for t in listed]
    checks.append(("summary.json lists the five tables by kind and target", got == want and listed[4].get("seed") == 5,
                   f"{got}"))
    text = {name: read_csv(os.path.join(outdir, name)) for name, _, _ in cases}
    (hp, plain), (hr, read), (hf, faulted) = text["plain"], text["read"], text["faulted"]
    checks.append(("plain has no sensor columns", not any(c.startswith(SENSOR_COLUMNS[:2]) for c in hp), ""))
    wanted = ["encoder_p1", "encoder_p2", "load_cell_1", "load_cell_2"]
    checks.append(("read and faulted have the sensor columns", all(c in hr and c in hf for c in wanted), ""))
    # The truth: the same text in every column the sensors do not write.
    columns = truth_columns(hp)
    same = all(truth_columns(h) == columns for h in (hr, hf))
    for h, rows in ((hr, read), (hf, faulted)):
        index = [h.index(c) for c in columns]
        base = [hp.index(c) for c in columns]
        same = same and len(rows) == len(plain) and all(
            [r[i] for i in index] == [p[i] for i in base] for r, p in zip(rows, plain))
    checks.append(("the truth columns are the same text in all three runs", same, f"{len(columns)} columns"))

    def col(h, rows, name):
        i = h.index(name)
        return [float(r[i]) for r in rows]

    t = col(hr, read, "time")
    worst_count = max(abs(e - math.floor(a / (2 * math.pi) * CPR)) for p in (1, 2)
                      for a, e in zip(col(hr, read, f"angle_p{p}"), col(hr, read, f"encoder_p{p}")))
    checks.append(("read: encoders within a count of floor(angle / 2 pi * 8192)", worst_count <= 1,
                   f"worst {worst_count:g} counts"))
    worst_load = max(abs(c - f) for k in (1, 2)
                     for f, c in zip(col(hr, read, f"span_force_{k - 1}"), col(hr, read, f"load_cell_{k}")))
    checks.append(("read: load cells within 0.125 N of the span forces", worst_load <= 0.125 + 1e-9,
                   f"worst {worst_load:.4f} N"))

    e1r, e1f = col(hr, read, "encoder_p1"), col(hf, faulted, "encoder_p1")
    e2r, e2f = col(hr, read, "encoder_p2"), col(hf, faulted, "encoder_p2")
    l1r, l1f = col(hr, read, "load_cell_1"), col(hf, faulted, "load_cell_1")
    l2r, l2f = col(hr, read, "load_cell_2"), col(hf, faulted, "load_cell_2")
    held = e1r[min(range(len(t)), key=lambda i: abs(t[i] - 0.3))]
    after_enc = [i for i in range(len(t)) if t[i] > 0.3001]
    after_load = [i for i in range(len(t)) if t[i] > 0.2001]
    before = [i for i in range(len(t)) if t[i] < 0.2]
    checks.append(("before the faults the readings are read's",
                   all(e1f[i] == e1r[i] and e2f[i] == e2r[i] and l1f[i] == l1r[i] and l2f[i] == l2r[i] for i in before),
                   f"{len(before)} rows"))
    stuck_ok = all(e1f[i] == held for i in after_enc) and e1r[-1] - held > 1000
    checks.append(("encoder_stuck: P1 reads its count at 0.3 s from then on", stuck_ok,
                   f"held {held:.0f}, the truth moved on by {e1r[-1] - held:.0f} counts"))
    checks.append(("encoder_offset: P2 reads read's count - 300 exactly",
                   all(e2f[i] == e2r[i] - 300 for i in after_enc), f"{len(after_enc)} rows"))
    worst_gain = max(abs(l1f[i] - (0.9 * l1r[i] + 15.0)) / abs(0.9 * l1r[i] + 15.0) for i in after_load)
    checks.append(("load_cell_gain and offset: span 1 reads 0.9 x read's + 15 N", worst_gain < 1e-9,
                   f"worst relative difference {worst_gain:.1e} (the CSV's 10 digits)"))
    noise = [l2f[i] - l2r[i] for i in after_load]
    n = len(noise)
    m = sum(noise) / n
    sd = math.sqrt(sum((x - m) ** 2 for x in noise) / n)
    checks.append(("load_cell_noise: mean 0 within 5 standard errors", abs(m) < 5 * 4.0 / math.sqrt(n),
                   f"mean {m:+.3f} N over {n} rows"))
    checks.append(("load_cell_noise: standard deviation within 5 % of 4 N", abs(sd - 4.0) < 0.05 * 4.0,
                   f"{sd:.3f} N"))
    return 1 if report("sensors", [(ok, f"{what} ({detail})" if detail else what) for what, ok, detail in checks]) else 0


if __name__ == "__main__":
    sys.exit(main())
