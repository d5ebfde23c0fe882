#!/usr/bin/env python3
"""Generates what an FMU of a user's drive is built from (CMake option BELTSIM_FMU_SCENARIO).

Usage: scenario_to_fmu.py SCENARIO.toml OUTPUT_DIR

Writes OUTPUT_DIR/fmu_scenario_plant_config.hpp (the firmware generator's plant configuration,
scenario_to_plant_config.py, as `fmuScenario`) and OUTPUT_DIR/fmu_scenario_variables.hpp (the
FMU's variable table), and prints the model identifier (beltsim_<file stem>). The FMU accepts
every scenario the firmware generator accepts, and refuses the others with the same line.

Variable names (modelDescription.xml, variableNamingConvention "structured"): a pulley's `name`
in lower case, every run of characters other than a-z and 0-9 written as one "_", no leading or
trailing "_", and "pulley_" in front of a name that starts with a digit ("A/C compressor" ->
a_c_compressor, "motor-generator" -> motor_generator); a pulley without a name is p<k> (k its
place in belt order, from 1). Each quantity follows after a dot: water_pump.speed. Two pulleys
whose names become the same are refused (one line naming both and their lines).

Value references (fmu_variables.hpp, fmu_scenario_model.hpp): pulley k has 1000 k + slot (1 its
command, 2 inertia, 3 damper; 10 angle, 11 speed, 12 torque, 13/14 hub force x/y, 15 encoder count;
tensioners 20 arm angle, 21 arm torque, 22 hub load), span k has 900 + k and its load cell 920 + k,
[[fault]] table k (from 1, file order) 800 + 10 k + slot (1 fault<k>.active, 2 fault<k>.value for the
kinds that take one, 3 fault<k>.current_value); the common variables keep the product FMUs'
numbers. They depend only on the pulleys' order and kinds and the fault tables' order and kinds,
so they are stable for a scenario.

Exit status 0 with both headers written, or 1 and one line on stderr, nothing written.
"""
import hashlib
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenario_to_plant_config as plant  # noqa: E402

# The plant's command limits (PlantLimits in model/include/beltsim/system/plant.hpp).
MAX_SPEED, MAX_TORQUE, MAX_LOAD_TORQUE = 630.0, 150.0, 150.0

COMMANDS = {  # kind -> (quantity, unit, limit, description)
    "speed": ("speed_command", "rad/s", MAX_SPEED,
              "Angular velocity command, counter-clockwise positive (the drive supplies the torque; rate-limited by "
              "the pulley's max_acceleration)"),
    "torque": ("torque_command", "N.m", MAX_TORQUE, "Motor torque on the pulley, counter-clockwise positive"),
}
LOAD = ("load_torque", "N.m", MAX_LOAD_TORQUE,
        "Braking load torque on the pulley (positive opposes positive rotation; 0 for a free idler)")


def variable_name(label, k):
    if label is None:
        return f"p{k}"
    name = re.sub(r"[^a-z0-9]+", "_", label.lower()).strip("_")
    if not name:
        return None
    return "pulley_" + name if name[0].isdigit() else name


def c_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def entry(ref, name, vtype, causality, variability, unit, start, low, high, description):
    return (f"    {{{ref}, {c_string(name)}, VarType::k{vtype}, Causality::k{causality}, Variability::k{variability}, "
            f"{c_string(unit)}, {plant.number(start)}, {plant.number(low)}, {plant.number(high)},\n"
            f"     {c_string(description)}}},")


# What a fault table's value is, its unit and its range (the readers' ranges of each kind,
# docs/injected_faults.md; where a kind takes values above 0 only, min is 0 and the FMU's
# admits() refuses 0 itself), and what current_value reads: kind -> (value meaning or None, unit,
# min, max, current_value meaning).
FAULT_VALUES = {
    "friction": ("the friction coefficient it goes to", "", 0.0, 10.0, "the friction coefficient now"),
    "belt_stiffness": ("the fraction of the belt's EA it goes to", "", 0.0, 1.0, "the fraction of EA now"),
    "tensioner_spring": ("the fraction of the arm's spring rate it goes to", "", 0.0, 1.0,
                         "the fraction of the spring rate now"),
    "bearing_drag": ("the Coulomb torque of the drag", "N.m", 0.0, 1e4, "the Coulomb torque now"),
    "encoder_stuck": (None, "", 0, 0, "1 while the encoder holds its count, else 0"),
    "encoder_reverse": (None, "", 0, 0, "1 while the encoder counts backwards, else 0"),
    "encoder_offset": ("the counts added (whole counts)", "", -1e9, 1e9, "the counts added now"),
    "encoder_noise": ("the noise's standard deviation, counts", "", 0.0, 1e6, "the standard deviation now"),
    "encoder_dropout": ("the probability that a count is lost", "", 0.0, 1.0, "the probability now"),
    "load_cell_stuck": (None, "", 0, 0, "1 while the load cell holds its reading, else 0"),
    "load_cell_offset": ("the force added", "N", -1e9, 1e9, "the force added now"),
    "load_cell_gain": ("the factor on the reading", "", 0.0, 1e3, "the factor now"),
    "load_cell_noise": ("the noise's standard deviation", "N", 0.0, 1e9, "the standard deviation now"),
}


def fault_variables(k, fault, pulleys):
    """The three variables (two for kinds without a value) of [[fault]] table k (from 1)."""
    kind = fault["kind"]
    meaning, unit, low, high, now = FAULT_VALUES[kind]
    if fault["target_key"] == "span":
        target = f"span {fault['pulley']}"
    elif fault["target_key"] == "pulley" and fault["pulley"] > 0:
        target = pulleys[fault["pulley"] - 1]["name"] or f"pulley {fault['pulley']}"
    else:
        target = "the belt" if kind == "belt_stiffness" else "every pulley"
    what = f"Injected fault {k} ({kind}, {target})"
    base = 800 + 10 * k
    # A live table waits to be started (docs/injected_faults.md, "Live faults"): here by the importer.
    active = 0.0 if fault.get("live") else 1.0
    rows = [entry(base + 1, f"fault{k}.active", "Boolean", "Parameter", "Tunable", "", active, 0.0, 0.0,
                  f"{what}: acts as scheduled (true) or not; a change ramps from the next model step")]
    if meaning is not None:
        rows.append(entry(base + 2, f"fault{k}.value", "Float64", "Parameter", "Tunable", unit, fault["value"], low,
                          high, f"{what}: {meaning}; a change ramps from the next model step"))
    rows.append(entry(base + 3, f"fault{k}.current_value", "Float64", "Output", "Continuous", unit, 0.0, 0.0, 0.0,
                      f"{what}: {now}"))
    return rows


def generate(path):
    info = {}
    config = plant.generate(path, "fmuScenario", info)
    pulleys = info["pulleys"]
    names = []
    for k, p in enumerate(pulleys, 1):
        name = variable_name(p["name"], k)
        if name is None:
            raise plant.ConfigError(f"{path}:{p['line']}: key 'pulley[{k - 1}].name': '{p['name']}' has no letter or "
                                    "digit for the FMU's variable names")
        for j, other in enumerate(names):
            if other == name:
                first = pulleys[j]
                raise plant.ConfigError(
                    f"{path}:{p['line']}: key 'pulley[{k - 1}].name': '{p['name']}' and '{first['name']}' (line "
                    f"{first['line']}) are both '{name}' in the FMU's variable names; rename one")
        names.append(name)

    rows = ["    kTimeVariable,", "    kFrictionCoefficientVariable,", "    kMaxConsecutiveNonConvergedVariable,",
            "    kElementCountVariable,", "    kInternalStepSizeVariable,"]
    count = len(pulleys)
    for k, (p, name) in enumerate(zip(pulleys, names), 1):
        label = p["name"] or f"pulley {k}"
        base = 1000 * k
        kind = p["kind"]
        command = COMMANDS.get(kind, None if kind == "fixed" else LOAD)
        if command is not None:
            quantity, unit, limit, text = command
            rows.append(entry(base + 1, f"{name}.{quantity}", "Float64", "Input", "Continuous", unit, 0.0, -limit,
                              limit, f"{label}: {text}"))
        if kind != "fixed":
            inertia = float(p["inertia"])
            rows.append(entry(base + 2, f"{name}.inertia", "Float64", "Parameter", "Fixed", "kg.m2", inertia,
                              min(1e-4, inertia), max(100.0, inertia), f"{label}: moment of inertia"))
        if command is LOAD:
            damping = float(p["damping"])
            rows.append(entry(base + 3, f"{name}.damping", "Float64", "Parameter", "Tunable", "N.m.s/rad", damping, 0.0,
                              max(1000.0, damping),
                              f"{label}: viscous damper on the pulley; a change applies from the next model step"))
        for slot, quantity, unit, text in [
                (10, "angle", "rad", "angle (unwrapped), counter-clockwise positive"),
                (11, "speed", "rad/s", "angular velocity, counter-clockwise positive"),
                (12, "torque", "N.m", "torque its drive, load or holder applies to it, counter-clockwise positive"),
                (13, "hub_force_x", "N", "x component of the belt's force on the pulley (what its axle carries)"),
                (14, "hub_force_y", "N", "y component of the belt's force on the pulley")]:
            rows.append(entry(base + slot, f"{name}.{quantity}", "Float64", "Output", "Continuous", unit, 0.0, 0.0, 0.0,
                              f"{label}: {text}"))
        rows.append(entry(base + 15, f"{name}.encoder_count", "Int32", "Output", "Discrete", "", 0.0, 0.0, 0.0,
                          f"{label}: the emulated incremental encoder's count (floor(angle / 2 pi * counts per "
                          "revolution), the scenario's sensor faults acting on it)"))
        if kind == "tensioner":
            for slot, quantity, unit, text in [
                    (20, "arm_angle", "rad", "tensioner arm's angle from its drawn position, counter-clockwise"),
                    (21, "arm_torque", "N.m", "torque of the arm's spring, damper and friction about its pivot"),
                    (22, "hub_load", "N", "magnitude of the belt's force on the tensioner pulley")]:
                rows.append(entry(base + slot, f"{name}.{quantity}", "Float64", "Output", "Continuous", unit, 0.0, 0.0,
                                  0.0, f"{label}: {text}"))
    for k in range(1, count + 1):
        a, b = pulleys[k - 1]["name"] or f"pulley {k}", pulleys[k % count]["name"] or f"pulley {k % count + 1}"
        rows.append(entry(900 + k, f"span{k}.force", "Float64", "Output", "Continuous", "N", 0.0, 0.0, 0.0,
                          f"Axial force in the middle of span {k}, from {a} to {b}"))
    for k in range(1, count + 1):
        rows.append(entry(920 + k, f"span{k}.load_cell", "Float64", "Output", "Discrete", "N", 0.0, 0.0, 0.0,
                          f"The emulated load cell of span {k}: its force rounded to the resolution, the scenario's "
                          "sensor faults acting on it"))
    for k, f in enumerate(info["faults"], 1):
        rows += fault_variables(k, f, pulleys)
    rows += ["    kConvergedVariable,", "    kNewtonIterationsVariable,", "    kPnsIterationsVariable,",
             "    kFaultCodeVariable,", "    kResidualNormVariable,", "    kPnsErrorVariable,",
             "    kRejectedInputsVariable,", "    kNonConvergedStepsVariable,"]

    stem = re.sub(r"[^a-z0-9]+", "_", os.path.splitext(os.path.basename(path))[0].lower()).strip("_") or "scenario"
    identifier = f"beltsim_{stem}"
    elements = re.search(r"kFmuScenarioElements = (\d+);", config).group(1)
    mesh = re.search(r'BELTSIM_FMUSCENARIO_MESH_TEXT "(\w+)"', config).group(1)
    title = info["title"] or os.path.basename(path)
    summary = (f"{title}: belt drive of {count} pulleys with ANCF belt, penalty contact and bristle friction, "
               f"{elements} {mesh} elements (from {os.path.basename(path)})")
    body = "\n".join(rows)
    # The token changes with anything generated from the file.
    digest = hashlib.sha256((config + body).encode()).hexdigest()[:12]
    variables = f"""// Generated by scripts/scenario_to_fmu.py from {os.path.basename(path)}: do not edit; edit the
// scenario file. Names and value references: scripts/scenario_to_fmu.py.
#pragma once
#include "fmu_variables.hpp"

#define BELTSIM_FMU_SCENARIO_TOKEN "{stem}-{digest}"

namespace beltsim::fmu {{

constexpr const char* kScenarioModelIdentifier = {c_string(identifier)};
constexpr const char* kScenarioSummary = {c_string(summary)};
constexpr double kScenarioStopTime = {plant.number(info["end_time"])};  // s, the file's end_time

constexpr Variable kScenarioVariables[] = {{
{body}
}};

}}  // namespace beltsim::fmu
"""
    return identifier, config, variables


def write_if_changed(path, text):
    if not os.path.exists(path) or open(path).read() != text:
        with open(path, "w") as f:
            f.write(text)


def main():
    if len(sys.argv) != 3:
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 2
    path, out = sys.argv[1:3]
    try:
        identifier, config, variables = generate(path)
    except (plant.ConfigError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    os.makedirs(out, exist_ok=True)
    write_if_changed(os.path.join(out, "fmu_scenario_plant_config.hpp"), config)
    write_if_changed(os.path.join(out, "fmu_scenario_variables.hpp"), variables)
    print(identifier)
    return 0


if __name__ == "__main__":
    sys.exit(main())
