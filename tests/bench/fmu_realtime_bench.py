#!/usr/bin/env python3
"""How fast the accessory drive's FMU runs (a benchmark, not a test; docs/fmu.md, *Speed*).

Usage: fmu_realtime_bench.py SOURCE_DIR FMU WORK_DIR [--runs N] [--stop T] [--step-and-reversal]
                             [--instructions FROM COUNT]

FMU is the scenario FMU of host_sim/scenarios/accessory_drive_eulerian.toml (the host preset's
build/host/firmware/fmu/beltsim_accessory_drive_eulerian.fmu). The inputs are the scenario's own
schedule, written as an fmusim input file: the crankshaft's speed ramps 0 -> 40 rad/s (smooth,
0.05 to 0.35 s), the A/C compressor's load torque 0 -> 4 N m (0.5 to 0.6 s: the clutch), the
motor-generator's torque -3 -> +3 N m (0.9 to 1.1 s), held to the end (default 2 s). With
--step-and-reversal, the issue's harder commands instead: the crankshaft to 10 rad/s over 0.05 to
0.15 s, then 10 -> 40 rad/s in 50 ms from 0.3 s, and the motor-generator -10 -> +10 N m from 0.9 to
1.1 s. The schedule is sampled every 5 ms (fmusim interpolates linearly between rows).

Two measurements, communication step 1 ms (10 model steps of 1e-4 s):
- fmusim 0.0.39 (tests/fmu/fmusim_build.sh builds it from ../shared/tools), the whole run: wall
  time of each of N runs (default 5), median and worst;
- the same inputs through the library loaded with ctypes (tests/fmu/test_fmu.py's loader): the wall
  time of every fmi3DoStep (time.perf_counter_ns around the call): median, p99 and worst, and the
  FMU's own count of non-converged (flagged) steps.
With --instructions FROM COUNT, instead: x86-64 instructions of each of COUNT model steps from FROM
seconds on (callgrind, counting inside the FMU's model step only, a dump after each: the run up to
FROM at the 1 ms communication step, whose dumps are left out, then one fmi3DoStep per model step):
median, p99, worst and the worst step's time, over the window and over the whole run (each model
step of the run up to FROM has its dump too). Slow: callgrind runs the whole run.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fmu"))
import test_fmu  # noqa: E402  (the FMI loader of the FMU tests)

COMMUNICATION_STEP = 1e-3
SAMPLE = 5e-3


def smooth(t, t0, t1, a, b):
    """The scenario files' "smooth" ramp (cubic, zero slope at both ends)."""
    if t <= t0:
        return a
    if t >= t1:
        return b
    x = (t - t0) / (t1 - t0)
    return a + (b - a) * x * x * (3.0 - 2.0 * x)


def schedule(step_and_reversal):
    """(crankshaft speed rad/s, motor-generator torque N m, compressor load N m) as functions of t."""
    if step_and_reversal:
        crank = lambda t: smooth(t, 0.05, 0.15, 0.0, 10.0) if t < 0.3 else smooth(t, 0.3, 0.35, 10.0, 40.0)
        generator = lambda t: smooth(t, 0.9, 1.1, -10.0, 10.0)
    else:
        crank = lambda t: smooth(t, 0.05, 0.35, 0.0, 40.0)
        generator = lambda t: smooth(t, 0.9, 1.1, -3.0, 3.0)
    compressor = lambda t: smooth(t, 0.5, 0.6, 0.0, 4.0)
    return crank, generator, compressor


def write_inputs(path, stop, functions):
    crank, generator, compressor = functions
    with open(path, "w") as f:
        f.write("time,crankshaft.speed_command,motor_generator.torque_command,a_c_compressor.load_torque\n")
        for k in range(int(round(stop / SAMPLE)) + 1):
            t = k * SAMPLE
            f.write(f"{t:.6f},{crank(t):.17g},{generator(t):.17g},{compressor(t):.17g}\n")


def fmusim_runs(source, fmu, work, inputs, stop, runs):
    build = os.path.join(source, "tests", "fmu", "fmusim_build.sh")
    r = subprocess.run(["bash", "-c", f'source "{build}"; fmusim_build "{source}" "{work}" >&2; echo "$fmusim"'],
                       capture_output=True, text=True)
    fmusim = r.stdout.strip().splitlines()[-1] if r.returncode == 0 and r.stdout.strip() else None
    if fmusim is None:
        print(f"fmusim not built ({r.returncode}): {r.stderr.strip()[-300:]}")
        return None
    walls = []
    for k in range(runs):
        out = os.path.join(work, f"fmusim_out_{k}.csv")
        t0 = time.perf_counter()
        p = subprocess.run([fmusim, "--interface-type", "cs", "--output-interval", str(COMMUNICATION_STEP),
                            "--input-file", inputs, "--stop-time", str(stop), "--output-file", out, fmu],
                           capture_output=True, text=True)
        walls.append(time.perf_counter() - t0)
        if p.returncode != 0:
            print(f"fmusim stopped (exit {p.returncode}): {p.stdout[-300:]} {p.stderr[-300:]}")
            return None
    return walls


def started_instance(fmu, directory, name):
    """The FMU unpacked into directory, its library loaded and one instance initialized: (instance,
    value references by name, the three input references, the model step)."""
    shutil.rmtree(directory, ignore_errors=True)
    root = test_fmu.unpack(fmu, directory)
    model_id = root.find("CoSimulation").get("modelIdentifier")
    lib = test_fmu.load_library(os.path.join(directory, "binaries", "x86_64-linux", model_id + ".so"))
    refs = {v.get("name"): int(v.get("valueReference")) for v in root.find("ModelVariables")}
    inputs = [refs["crankshaft.speed_command"], refs["motor_generator.torque_command"],
              refs["a_c_compressor.load_torque"]]
    inst = test_fmu.Instance(lib, root.get("instantiationToken"), name, logging=False)
    if inst.init() != test_fmu.fmi3OK:
        raise SystemExit("the FMU did not initialize")
    return inst, refs, inputs, float(root.find("CoSimulation").get("fixedInternalStepSize"))


def do_step_times(fmu, work, stop, functions):
    inst, refs, inputs, _ = started_instance(fmu, os.path.join(work, "unpacked"), "bench")
    crank, generator, compressor = functions
    times, flagged_at, flagged = [], [], 0
    steps = int(round(stop / COMMUNICATION_STEP))
    for k in range(steps):
        t = k * COMMUNICATION_STEP
        inst.set_f(inputs, [crank(t), generator(t), compressor(t)])
        t0 = time.perf_counter_ns()
        status = inst.step(COMMUNICATION_STEP)
        times.append((time.perf_counter_ns() - t0) / 1e3)
        if status != test_fmu.fmi3OK:
            raise SystemExit(f"fmi3DoStep returned {status} at t = {t} s")
        count = inst.get_i([refs["non_converged_steps"]])[0]
        if count != flagged:
            flagged_at.append(round(t + COMMUNICATION_STEP, 6))
            flagged = count
    arm = inst.get_f([refs["tensioner.arm_angle"]])[0]
    inst.free()
    return times, flagged, flagged_at, arm


def instructions(a, functions):
    """Runs this script under callgrind (--inner-callgrind) and reads one dump per model step."""
    dumps = os.path.join(os.path.abspath(a.work), "callgrind")
    shutil.rmtree(dumps, ignore_errors=True)
    os.makedirs(dumps)
    # The model step's function as callgrind names it (--dump-after takes no wildcards): the scenario
    # FMU's model at its element and pulley counts (firmware/fmu/fmu_scenario_model.hpp).
    root = test_fmu.unpack(a.fmu, os.path.join(a.work, "description"))
    names = [v.get("name") for v in root.find("ModelVariables")]
    elements = next(v.get("start") for v in root.find("ModelVariables") if v.get("name") == "element_count")
    pulleys = sum(1 for name in names if name.startswith("span") and name.endswith(".force"))
    h = float(root.find("CoSimulation").get("fixedInternalStepSize"))
    model_step = (f"beltsim::fmu::Instance<beltsim::fmu::ScenarioModel<{elements}, {pulleys}> >::modelStep"
                  "(beltsim::fmu::Reporter&)")
    command = ["valgrind", "--tool=callgrind", "--collect-atstart=no", f"--toggle-collect={model_step}",
               f"--dump-after={model_step}",
               f"--callgrind-out-file={dumps}/cg.out", sys.executable, os.path.abspath(__file__), a.source, a.fmu,
               a.work, "--inner-callgrind", str(a.instructions[0]), str(a.instructions[1])]
    if a.step_and_reversal:
        command.append("--step-and-reversal")
    r = subprocess.run(command, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"valgrind failed ({r.returncode}): {r.stderr[-500:]}")
    counts = []
    for name in os.listdir(dumps):
        with open(os.path.join(dumps, name)) as f:
            for line in f:
                if line.startswith("summary:") or line.startswith("totals:"):
                    value = int(line.split()[1])
                    if value > 0:
                        counts.append((int(name.rsplit(".", 1)[-1]) if name.rsplit(".", 1)[-1].isdigit() else 0,
                                       value))
                    break
    counts.sort()  # dump k (from 1) is model step k: one dump a model step, the run up to FROM included
    if len(counts) < a.instructions[1]:
        raise SystemExit("fewer callgrind dumps with instructions than steps in the window")
    for label, part, first in (("the window", counts[-a.instructions[1]:], len(counts) - a.instructions[1]),
                               ("the whole run", counts, 0)):
        values = sorted(v for _, v in part)
        worst = max(range(len(part)), key=lambda k: part[k][1])
        p99 = values[min(len(values) - 1, int(0.99 * len(values)))]
        print(f"x86-64 instructions per model step over {label} ({len(values)} steps, callgrind): median "
              f"{statistics.median(values):,.0f}, p99 {p99:,}, worst {values[-1]:,} (model step {first + worst + 1}, "
              f"ending at t = {(first + worst + 1) * h:.4f} s), mean {sum(values) / len(values):,.0f}")


def inner_callgrind(a, functions):
    """Under callgrind: the run up to FROM, then COUNT single model steps."""
    start, count = float(a.inner_callgrind[0]), int(a.inner_callgrind[1])
    inst, _, inputs, h = started_instance(a.fmu, os.path.join(a.work, "unpacked_callgrind"), "callgrind")
    crank, generator, compressor = functions
    for k in range(int(round(start / COMMUNICATION_STEP))):
        t = k * COMMUNICATION_STEP
        inst.set_f(inputs, [crank(t), generator(t), compressor(t)])
        inst.step(COMMUNICATION_STEP)
    for k in range(count):
        t = start + k * h
        inst.set_f(inputs, [crank(t), generator(t), compressor(t)])
        if inst.step(h) != test_fmu.fmi3OK:
            raise SystemExit(f"fmi3DoStep failed at t = {t} s")
    inst.free()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("source")
    parser.add_argument("fmu")
    parser.add_argument("work")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--stop", type=float, default=2.0)
    parser.add_argument("--step-and-reversal", action="store_true")
    parser.add_argument("--instructions", nargs=2, type=float, metavar=("FROM", "COUNT"))
    parser.add_argument("--inner-callgrind", nargs=2, help=argparse.SUPPRESS)
    a = parser.parse_args()
    os.makedirs(a.work, exist_ok=True)
    functions = schedule(a.step_and_reversal)
    if a.inner_callgrind:
        inner_callgrind(a, functions)
        return 0
    if a.instructions:
        a.instructions = (a.instructions[0], int(a.instructions[1]))
        instructions(a, functions)
        return 0
    inputs = os.path.join(a.work, "inputs.csv")
    write_inputs(inputs, a.stop, functions)
    walls = fmusim_runs(os.path.abspath(a.source), os.path.abspath(a.fmu), os.path.abspath(a.work), inputs, a.stop,
                        a.runs)
    if walls is not None:
        print(f"fmusim, {a.stop} s at a {COMMUNICATION_STEP * 1e3:.0f} ms communication step, {a.runs} runs: "
              f"wall median {statistics.median(walls):.2f} s, worst {max(walls):.2f} s")
    times, flagged, flagged_at, arm = do_step_times(a.fmu, a.work, a.stop, functions)
    ordered = sorted(times)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    print(f"fmi3DoStep of {COMMUNICATION_STEP * 1e3:.0f} ms ({len(times)} calls): median {statistics.median(times):.0f} us, "
          f"p99 {p99:.0f} us, worst {max(times):.0f} us; in all {sum(times) / 1e6:.2f} s; "
          f"non-converged (flagged) steps {flagged} (in the communication steps ending at {flagged_at[:10]} s); arm angle at the end {arm:.4f} rad")
    return 0


if __name__ == "__main__":
    sys.exit(main())
