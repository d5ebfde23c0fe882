#!/usr/bin/env python3
"""Generates a firmware plant configuration (C++ header) from a scenario TOML file.

Usage: scenario_to_plant_config.py SCENARIO.toml OUTPUT.hpp NAME

Writes `constexpr int k<Name>Elements`, `constexpr PlantMesh k<Name>Mesh` (belt.mesh: both are
template arguments of the plant) and `PlantConfig <name>PlantConfig(MotorMode mode)` in namespace
beltsim::fw. The firmware's plant (model/include/beltsim/system/plant.hpp) is a closed belt
around 2 to 8 pulleys of any kind a scenario has (speed, torque, fixed_axis, fixed, floating,
tensioner); pulley 1 is the motor of the images (kind "speed" or "torque": the file's kind is the
default motor mode, k<Name>MotorMode; an image may build the other). Every
other key of the scenario format is either mapped to the PlantConfig field `beltsim run` and
`beltsim hil` map it to (host_sim/scenario.cpp, host_sim/hil.cpp plantConfigFromScenario) or, if
the firmware plant cannot do what it asks, rejected with one line naming the key and its line.
Keys the file does not give keep the scenario format's defaults (PlantConfig's own defaults are
those of the paper's belt and contact; the solver's are set below as scenario.cpp sets them).
Numbers are written with repr(): the shortest decimal that reads back as the same double, so
the firmware and `beltsim hil` build bit-identical plants from one file (test
host_hil_scenario, FirmwareConfigs.*).

Exit status 0 and the header written, or 1 and one line on stderr, nothing written.
"""
import os
import re
import sys
import tomllib

import scenario_keys

KEYS = scenario_keys.load()


class ConfigError(Exception):
    pass


def key_line(text, table, key):
    """Line of `key` (bare or quoted) inside [table] ("" for the keys before any table; [[table]]
    occurrence `index` as "table#index"), for messages; a key the table lacks gets the table's
    header line, a table the file lacks 0."""
    name, _, index = table.partition("#")
    root = name.split(".")[0]  # [pulley.arm] belongs to the [[pulley]] before it
    occurrence = -1
    current = ""
    header_line = 0
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        header = re.match(r"^\[\[?\s*([A-Za-z0-9_.]+)\s*\]\]?", stripped)
        if header:
            current = header.group(1)
            if current == root and stripped.startswith("[["):
                occurrence += 1
            if current == name and (not index or occurrence == int(index)) and not header_line:
                header_line = number
            continue
        if current == name and (not index or occurrence == int(index)):
            if re.match(r'^("?)' + re.escape(key) + r"\1\s*=", stripped):
                return number
    return header_line


class Reader:
    """Reads one table's keys, checked against host_sim/scenario_keys.toml; remembers the used ones."""

    def __init__(self, path, text, table, data, prefix, line_table=None):
        self.path, self.text, self.table, self.data, self.prefix = path, text, table, data, prefix
        self.line_table = line_table or table
        self.used = set()

    def error(self, key, message, spelled=None):
        line = key_line(self.text, self.line_table, spelled or key)
        where = f"{self.path}:{line}" if line else self.path
        raise ConfigError(f"{where}: key '{self.prefix}{key}': {message}")

    def spelling(self, key):
        """How the file names the key: itself, its retired name (with the one line saying the new
        name), or None when absent. Both names given is an error."""
        alias = KEYS[(self.table, key)].get("alias")
        first = key not in self.used
        self.used.update({key, alias} - {None})
        if alias is None or alias not in self.data:
            return key if key in self.data else None
        if key in self.data:
            self.error(key, f"given twice: also as {self.prefix}{alias}, its old name, at line "
                            f"{key_line(self.text, self.line_table, alias)}")
        if first:
            print(f"{self.path}:{key_line(self.text, self.line_table, alias)}: {self.prefix}{alias} is now "
                  f"{self.prefix}{key}; read as such", file=sys.stderr)
        return alias

    def get(self, key):
        """The key's value, checked (type, range, choices), or None when the file does not give it."""
        spelled = self.spelling(key)
        if spelled is None:
            return None
        value = self.data[spelled]
        wrong = scenario_keys.problem(KEYS[(self.table, key)], value)
        if wrong:
            self.error(key, wrong, spelled)
        return value

    def default(self, key):
        """The scenario format's default of the key (host_sim/scenario_keys.toml)."""
        return KEYS[(self.table, key)]["default"]

    def unsupported(self, key, default, why):
        value = self.get(key)
        if value is not None and value != default:
            self.error(key, f"the firmware plant does not support it ({why})")

    def ignored(self, *keys):
        """Keys the firmware has no use for, checked all the same: a file beltsim refuses is refused."""
        for key in keys:
            self.get(key)

    def check_table(self, key, table, line_table):
        """A subtable the firmware has no use for ([output], a pulley's profiles), checked whole."""
        data = self.get(key)
        if data is not None:
            sub = Reader(self.path, self.text, table, data, f"{self.prefix}{key}.", line_table=line_table)
            sub.ignored(*[name for (t, name) in KEYS if t == table])
            sub.finish()

    def finish(self):
        for key in self.data:
            if key not in self.used:
                self.error(key, "unknown key")


# [contact] penetration_compensation when a scenario does not give it (host_sim/scenario.hpp).
SCENARIO_PENETRATION_COMPENSATION = False
MAX_PULLEYS = 8  # beltsim::kMaxPlantPulleys: the HIL frames' pulley slots
KINDS = {"speed": "kSpeedDriven", "torque": "kTorqueDriven", "fixed_axis": "kFixedAxis", "fixed": "kFixed",
         "floating": "kFloating", "tensioner": "kTensionerArm"}
ARM_FIELDS = [("inertia", "inertia"), ("stiffness", "stiffness"), ("preload_angle", "preloadAngle"),
              ("damping", "damping"), ("friction_torque_ccw", "frictionTorque[0]"),
              ("friction_torque_cw", "frictionTorque[1]"), ("friction_stiffness", "frictionStiffness"),
              ("friction_damping_ratio", "frictionDampingRatio"), ("radial_stiffness", "radialStiffness"),
              ("radial_damping_ratio", "radialDampingRatio")]


def number(value):
    return repr(float(value))


def cpp_value(entry, value):
    """A checked value as C++ text, by the key's type."""
    return {"boolean": lambda: "true" if value else "false", "integer": lambda: str(value)}.get(
        entry["type"], lambda: number(value))()


MAX_INJECTED_FAULTS = 8  # beltsim::kMaxInjectedFaults


def overlap(a, b):
    """Whether two fault tables act on one target at once (InjectedFaultSchedule::overlap)."""
    if a["kind"] != b["kind"]:
        return False
    if a["pulley"] > 0 and b["pulley"] > 0 and a["pulley"] != b["pulley"]:
        return False
    a_first = a["end"] is not None and a["end"] + a["ramp"] <= b["start"]
    b_first = b["end"] is not None and b["end"] + b["ramp"] <= a["start"]
    return not (a_first or b_first)


# What each [[fault]] kind takes (host_sim/scenario.cpp's kFaultKinds, docs/injected_faults.md):
# C++ kind, target key, target required, amount key and its meaning, ramp, seed.
FAULT_KINDS = {
    "friction": ("kFriction", "pulley", False, "value", "the friction coefficient the fault goes to", True, False),
    "belt_stiffness": ("kBeltStiffness", "", False, "value",
                       "the fraction of the belt's axial stiffness the fault goes to", True, False),
    "encoder_stuck": ("kEncoderStuck", "pulley", True, "", "", False, False),
    "encoder_offset": ("kEncoderOffset", "pulley", True, "value", "the counts added to the reading", True, False),
    "encoder_noise": ("kEncoderNoise", "pulley", True, "std", "the noise's standard deviation, counts", True, True),
    "encoder_dropout": ("kEncoderDropout", "pulley", True, "rate", "the probability that a count is lost", True,
                        True),
    "encoder_reverse": ("kEncoderReverse", "pulley", True, "", "", False, False),
    "load_cell_stuck": ("kLoadCellStuck", "span", True, "", "", False, False),
    "load_cell_offset": ("kLoadCellOffset", "span", True, "value", "the force added to the reading, N", True, False),
    "load_cell_gain": ("kLoadCellGain", "span", True, "value", "the factor on the reading", True, False),
    "load_cell_noise": ("kLoadCellNoise", "span", True, "std", "the noise's standard deviation, N", True, True),
    "tensioner_spring": ("kTensionerSpring", "pulley", True, "value",
                         "the fraction of the arm's spring rate the fault goes to", True, False),
    "bearing_drag": ("kBearingDrag", "pulley", True, "value", "the Coulomb torque of the drag, N m", True, False),
}


def fault_keys_of(kind):
    _, target, _, amount, _, ramp, seed = FAULT_KINDS[kind]
    keys = ["kind"] + ([target] if target else []) + ["start", "end"] + (["ramp"] if ramp else [])
    keys += ([amount] if amount else []) + (["viscous"] if kind == "bearing_drag" else []) + (["seed"] if seed else [])
    keys += ["live"] + (["min", "max"] if amount else [])
    return ", ".join(keys)


def fault_value_problem(kind, v):
    """A value the key's range allows but the kind does not (None: fits)."""
    if kind == "friction" and not 0.0 <= v <= 10.0:
        return "a friction coefficient is from 0 to 10"
    if kind == "belt_stiffness" and not 0.0 < v <= 1.0:
        return "a fraction of the axial stiffness is above 0 and at most 1"
    if kind == "encoder_offset" and v != int(v):
        return "an encoder offset is a whole number of counts"
    if kind == "encoder_noise" and v > 1e6:
        return "an encoder's noise is at most 1e6 counts"
    if kind == "load_cell_gain" and not 0.0 <= v <= 1e3:
        return "a gain is from 0 to 1000"
    if kind == "tensioner_spring" and not 0.0 < v <= 1.0:
        return "a fraction of the spring rate is above 0 and at most 1"
    if kind == "bearing_drag" and not 0.0 <= v <= 1e4:
        return "a drag torque is from 0 to 10000 N m"
    return None


def read_faults(path, text, doc, top, pulley_tables, set_):
    """[[fault]]: injected faults (docs/injected_faults.md), checked as host_sim/scenario.cpp's
    readFaults checks them, in the same order and words, into c.faults. `pulley_tables`: the
    scenario's [[pulley]] tables."""
    pulleys = len(pulley_tables)
    faults = doc.get("fault")
    top.used.add("fault")
    if faults is None:
        return
    if not isinstance(faults, list) or not all(isinstance(f, dict) for f in faults):
        raise ConfigError(f"{path}:{key_line(text, '', 'fault')}: key 'fault': expected [[fault]] tables")
    read = []
    for k, table in enumerate(faults):
        prefix = f"fault[{k}]."
        r = Reader(path, text, "fault", table, prefix, line_table=f"fault#{k}")
        if k == MAX_INJECTED_FAULTS:
            header = key_line(text, f"fault#{k}", "")
            raise ConfigError(f"{path}:{header}: key 'fault[{k}]': at most {MAX_INJECTED_FAULTS} injected faults")
        if "kind" not in table:
            r.error("kind", "missing (one of: " + ", ".join(sorted(KEYS[("fault", "kind")]["choices"])) + ")", "")
        kind = r.get("kind")
        cpp_kind, target_key, target_required, amount, meaning, takes_ramp, takes_seed = FAULT_KINDS[kind]
        for key in ("pulley", "span", "ramp", "value", "std", "rate", "seed", "viscous", "min", "max"):
            takes = (key in (target_key, amount) or (key == "ramp" and takes_ramp) or (key == "seed" and takes_seed)
                     or (key == "viscous" and kind == "bearing_drag") or (key in ("min", "max") and bool(amount)))
            if key in table and not takes:
                r.error(key, f"{kind} does not take it (its keys: {fault_keys_of(kind)})")
        target = 0
        if target_key:
            if target_required and target_key not in table:
                r.error(target_key, "missing (the span, from 1: span k runs from pulley k to pulley k + 1)"
                        if target_key == "span" else "missing (the pulley, from 1)", "")
            target = r.get(target_key) or 0
            if target > pulleys:
                r.error(target_key, f"the drive has {pulleys} {target_key}s (1 to {pulleys})")
            if target >= 1 and kind in ("tensioner_spring", "bearing_drag"):
                named = pulley_tables[target - 1]
                pk = named.get("kind", KEYS[("pulley", "kind")]["default"])
                label = named.get("name") or f"pulley[{target - 1}]"  # beltsim's name of an unnamed pulley
                what = f"pulley {target} ({label}) is a {pk} pulley"
                if kind == "tensioner_spring" and pk != "tensioner":
                    r.error(target_key, f"{what}; tensioner_spring acts on a tensioner's arm")
                if kind == "bearing_drag" and pk in ("speed", "fixed"):
                    r.error(target_key, f"{what} (its rotation is prescribed); bearing_drag acts on a pulley that "
                                        f"turns freely or under a torque")
                if kind == "bearing_drag" and target == 1:  # the generator's own rule (beltsim run takes it)
                    r.error(target_key, "pulley 1 is the motor, speed- or torque-driven as the firmware build or the "
                                        "FMU chooses; bearing_drag acts on the other pulleys there")
        # A live table waits for the bench; `start` (default 0 there) is the earliest it may act.
        live = bool(r.get("live"))
        if not live and "start" not in table:
            r.error("start", "missing (the time the fault begins, s)", "")
        start = r.get("start") or 0.0
        ramp = 0.0
        if takes_ramp:
            ramp = r.get("ramp")
            if ramp is None:
                ramp = r.default("ramp")
        end = r.get("end")
        if end is not None and not takes_ramp and end <= start:
            r.error("end", f"must be after start ({start:g} s)")
        if end is not None and end < start + ramp:
            r.error("end", f"must be at least start + ramp ({start + ramp:g} s)")
        value = 0.0
        if amount:
            if amount not in table:
                r.error(amount, f"missing ({meaning})", "")
            value = r.get(amount)
            problem = fault_value_problem(kind, value)
            if problem:
                r.error(amount, problem)
        # A live table's range for the bench's values: the file's value unless min and max say more.
        bounds = {"min": value, "max": value}
        for bound in ("min", "max"):
            if bound not in table:
                continue
            bounds[bound] = r.get(bound)  # its type and range first, as for every key
            if not live:
                r.error(bound, "only a live table (live = true) takes it: the bench's range")
            b = bounds[bound]
            # The amount's own key range as well (a standard deviation above 0, a rate from 0 to 1).
            problem = ("a standard deviation is above 0" if amount == "std" and not b > 0.0
                       else "a rate is from 0 to 1" if amount == "rate" and not 0.0 <= b <= 1.0
                       else fault_value_problem(kind, b))
            if problem:
                r.error(bound, problem)
        if bounds["min"] > value:
            r.error("min", f"must be at most the table's {amount} ({amount} = {value:g})")
        if bounds["max"] < value:
            r.error("max", f"must be at least the table's {amount} ({amount} = {value:g})")
        viscous = r.get("viscous") if kind == "bearing_drag" else None
        seed = None
        if takes_seed:
            seed = r.get("seed")
        r.finish()
        this = {"kind": kind, "pulley": target, "start": start, "end": end, "ramp": ramp, "value": value,
                "target_key": target_key, "live": live}
        for j, other in enumerate(read):
            if overlap(other, this):
                where = ("the belt" if not target_key else "every pulley" if other["pulley"] == 0
                         else f"{target_key} {other['pulley']}")
                header = key_line(text, f"fault#{k}", "")
                raise ConfigError(f"{path}:{header}: key 'fault[{k}]': acts on what fault[{j}] ({kind}, "
                                  f"{where}) changes at the same time; let one end (end + ramp) before the other "
                                  f"starts")
        read.append(this)
        pre = f"faults.fault[{k}]"
        set_(f"{pre}.kind", f"InjectedFaultKind::{cpp_kind}")
        set_(f"{pre}.pulley", str(target - 1))
        set_(f"{pre}.start", number(start))
        set_(f"{pre}.ramp", number(ramp))
        if end is not None:
            set_(f"{pre}.hasEnd", "true")
            set_(f"{pre}.end", number(end))
        set_(f"{pre}.value", number(value))
        if viscous is not None:
            set_(f"{pre}.viscous", number(viscous))
        if seed is not None:
            set_(f"{pre}.seed", f"{seed}u")
        if live:
            set_(f"{pre}.live", "true")
            set_(f"{pre}.liveMin", number(bounds["min"]))
            set_(f"{pre}.liveMax", number(bounds["max"]))
    if read:
        set_("faults.count", str(len(read)))
    return read


def read_sensors(path, text, doc, top, set_):
    """[sensors]: the emulated encoders' and load cells' resolution, into c.sensors."""
    sensors = top.get("sensors")
    if sensors is None:
        return
    r = Reader(path, text, "sensors", sensors, "sensors.")
    for key, field in [("encoder_counts_per_revolution", "encoderCountsPerRevolution"),
                       ("load_cell_resolution", "loadCellResolution")]:
        v = r.get(key)
        if v is not None:
            set_(f"sensors.{field}", number(v))
    r.finish()


def generate(path, name, info=None):
    """The header's text. `info`, a dict if given, receives what an FMU generator needs besides:
    'pulleys' (per pulley: name or None, the line naming it, kind, inertia, damping), 'title',
    'end_time'."""
    with open(path, "rb") as f:
        raw = f.read()
    text = raw.decode("utf-8")
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: {e}")
    lines = []  # assignments in the generated function

    def set_(field, value):
        lines.append(f"  c.{field} = {value};")

    top = Reader(path, text, "", doc, "")
    top.ignored("title")
    top.check_table("output", "output", "output")
    elements = 60
    belt = doc.get("belt", {})
    top.used.add("belt")
    r = Reader(path, text, "belt", belt, "belt.")
    if r.get("elements") is not None:
        elements = r.get("elements")
        if elements > 2000:  # the firmware's largest element count (host_sim/CMakeLists.txt's too)
            r.error("elements", "the firmware plant takes 1 to 2000")
    r.unsupported("closed", True, "an open belt")
    # The belt's mesh is a template argument of the plant, as the element count is
    # (BeltDrivePlant<NE, NP, Mesh>, model/include/beltsim/system/plant.hpp).
    mesh = r.get("mesh") or r.default("mesh")
    eulerian = mesh == "eulerian"
    for key, field in [("wrap_density", "grading.wrapDensity"), ("wrap_grading", "grading.gradingStep")]:
        v = r.get(key)
        if v is not None and not eulerian:
            r.error(key, "only the eulerian mesh (mesh = \"eulerian\") has it")
        if v is not None:
            set_(field, number(v))
    for key in ("start_end", "finish_end", "start", "end", "nodes"):
        if r.get(key) is not None:
            r.error(key, "only an open belt (closed = false) has it")
    for key, field in [("mass_per_length", "belt.element.massPerLength"), ("axial_stiffness", "belt.element.EA"),
                       ("bending_stiffness", "belt.element.EI"), ("reference_strain", "belt.element.referenceAxialStrain"),
                       ("reference_curvature", "belt.element.referenceCurvature"),
                       ("axial_damping", "belt.element.axialDamping"), ("bending_damping", "belt.element.bendingDamping"),
                       ("thickness", "belt.thickness"), ("width", "belt.width")]:
        v = r.get(key)
        if v is not None:
            set_(field, number(v))
    g = r.get("gravity")
    if g is not None:
        set_("belt.element.gravity", f"Eigen::Vector2d({number(g[0])}, {number(g[1])})")
    rule = r.get("axial_rule")
    if rule is not None:
        set_("belt.element.axialRule", f"AxialRule::k{rule.upper()}")
    loads = r.get("gravity_loads")
    if loads is not None:
        set_("belt.element.lumpedGravity", "true" if loads == "lumped" else "false")
    r.finish()

    contact = doc.get("contact", {})
    top.used.add("contact")
    r = Reader(path, text, "contact", contact, "contact.")
    segments = r.get("segments_per_element")
    if segments is not None:
        if not 1 <= segments <= 4:
            r.error("segments_per_element", "the firmware plant takes 1 to 4")
        set_("segmentsPerElement", str(segments))
    for key, field in [("stiffness_per_area", "contact.stiffness"), ("damping_per_area", "contact.damping")]:
        v = r.get(key)
        if v is not None:
            set_(field, number(v))
    r.unsupported("normal_exponent", 1.0, "a nonlinear normal law")
    r.unsupported("segment_normals", True, "point-wise normals")
    r.unsupported("bounding_box", True, "contact without the bounding-box pre-check")
    # Segment geometry (issue 33), with the scenario defaults of host_sim/scenario.hpp.
    gap = r.get("segment_gap") or r.default("segment_gap")
    set_("contact.gapMeasure", "SegmentGapMeasure::kArc" if gap == "arc" else "SegmentGapMeasure::kChord")
    compensation = r.get("penetration_compensation")
    if compensation is None:
        compensation = SCENARIO_PENETRATION_COMPENSATION
    set_("contact.penetrationCompensation", "true" if compensation else "false")
    r.finish()

    friction = doc.get("friction", {})
    top.used.add("friction")
    r = Reader(path, text, "friction", friction, "friction.")
    for key, field in [("coefficient", "contact.frictionCoefficient"),
                       ("bristle_stiffness_per_area", "contact.bristleStiffness"),
                       ("velocity_penalty_damping_ratio", "contact.velocityPenaltyDampingRatio"),
                       ("velocity_penalty", "contact.velocityPenalty")]:
        v = r.get(key)
        if v is not None:
            set_(field, number(v))
    friction_reader = r
    memory = r.get("stick_memory") or r.default("stick_memory")
    set_("contact.stickMemory", "StickMemory::kWholeElement" if memory == "element" else "StickMemory::kSegment")
    r.unsupported("law", "bristle", "the continuous friction law")
    r.unsupported("characteristic_velocity", 1e-3, "the continuous friction law")
    r.finish()

    pulleys = doc.get("pulley", [])
    top.used.add("pulley")
    if not isinstance(pulleys, list) or not 2 <= len(pulleys) <= MAX_PULLEYS:
        count = len(pulleys) if isinstance(pulleys, list) else 0
        headers = [n for n, line in enumerate(text.splitlines(), 1) if re.match(r"^\s*\[\[\s*pulley\s*\]\]", line)]
        # the first pulley too many, or the file
        where = f"{path}:{headers[MAX_PULLEYS]}" if count > MAX_PULLEYS and len(headers) > MAX_PULLEYS else path
        raise ConfigError(f"{where}: key 'pulley': the firmware plant takes 2 to {MAX_PULLEYS} pulleys; "
                          f"this file has {count}")
    set_("pulleyCount", str(len(pulleys)))
    motor_mode = None
    for p, pulley in enumerate(pulleys):
        r = Reader(path, text, "pulley", pulley, f"pulley[{p}].", line_table=f"pulley#{p}")
        r.ignored("name")
        for profile in ("speed", "torque"):  # the firmware's commands come from the controller
            r.check_table(profile, "profile", f"pulley.{profile}#{p}")
        kind = r.get("kind") or r.default("kind")
        if info is not None:
            label = r.get("name")
            info.setdefault("pulleys", []).append({
                "name": label, "line": key_line(text, f"pulley#{p}", "name"), "kind": kind,
                "inertia": pulley.get("inertia", 0.0), "damping": pulley.get("damping", 0.0)})
        if p == 0:
            if kind not in ("speed", "torque"):
                r.error("kind", "pulley 1 is the motor of the firmware images: \"speed\" or \"torque\"")
            motor_mode = "MotorMode::kSpeed" if kind == "speed" else "MotorMode::kTorque"
        for key in ("centre", "radius", "inertia"):
            if key not in pulley:
                r.error(key, "missing (the firmware plant needs it)")
        pre = f"pulley[{p}]"
        set_(pre, "PulleyParameters{}")
        set_(f"{pre}.kind", f"PulleyKind::{KINDS[kind]}")
        centre = r.get("centre")
        set_(f"{pre}.centre", f"Vector2({number(centre[0])}, {number(centre[1])})")
        for key, field in [("radius", "radius"), ("inertia", "inertia"), ("damping", "rotationalDamping"),
                           ("mass", "mass"), ("support_stiffness", "supportStiffness"),
                           ("support_damping", "supportDamping"), ("max_acceleration", "maxAcceleration")]:
            v = r.get(key)
            if v is not None:
                set_(f"{pre}.{field}", number(v))
        side = r.get("side")
        if side is not None:
            if side not in (1, -1):
                r.error("side", "must be +1 or -1")
            set_(f"{pre}.side", str(side))
        acceleration = r.get("max_acceleration")
        if acceleration and kind not in ("speed", "torque"):
            r.error("max_acceleration", "only a motor (kind = \"speed\" or \"torque\") has an acceleration limit")
        if kind == "floating" and not (r.get("mass") or 0.0) > 0.0:
            r.error("mass", "a floating pulley needs a mass > 0")
        arm = r.get("arm")
        if arm is not None and kind != "tensioner":
            r.error("arm", "only a pulley of kind = \"tensioner\" has an arm")
        if kind == "tensioner":
            if arm is None:
                r.error("arm", "a tensioner needs an [pulley.arm] table (pivot, stiffness, preload_angle)")
            a = Reader(path, text, "pulley.arm", arm, f"pulley[{p}].arm.", line_table=f"pulley.arm#{p}")
            for key in ("pivot", "stiffness", "preload_angle"):
                if key not in arm:
                    a.error(key, "missing (a tensioner arm needs it)")
            pivot = a.get("pivot")
            set_(f"{pre}.arm.pivot", f"Vector2({number(pivot[0])}, {number(pivot[1])})")
            for key, field in ARM_FIELDS:
                v = a.get(key)
                if v is not None:
                    set_(f"{pre}.arm.{field}", number(v))
            a.finish()
        r.finish()

    solver = doc.get("solver", {})
    top.used.add("solver")
    r = Reader(path, text, "solver", solver, "solver.")
    r.get("end_time")  # checked; the firmware runs until stopped
    step = r.get("step_size")
    set_("stepSize", number(step if step is not None else 5e-5))
    integrator = r.get("integrator") or r.default("integrator")
    set_("integrator.newmark", "true" if integrator == "newmark" else "false")
    for key, field in [("spectral_radius", "spectralRadius"), ("newmark_beta", "newmarkBeta"),
                       ("newmark_gamma", "newmarkGamma"), ("max_newton", "maxNewtonIterations"),
                       ("max_pns", "maxPnsIterations"), ("relative_tolerance", "relativeTolerance"),
                       ("absolute_tolerance", "absoluteTolerance"), ("pns_tolerance", "pnsTolerance"),
                       ("warm_start_pns", "warmStartPns"),
                       ("constant_acceleration_predictor", "constantAccelerationPredictor"),
                       ("update_changed_contacts_only", "updateChangedContactsOnly"),
                       ("reuse_jacobian", "reuseJacobian"), ("contractivity_limit", "contractivityLimit"),
                       ("compact_border", "compactBorder"), ("fixed_newton_iterations", "fixedNewtonIterations"),
                       ("frozen_state_iterations", "frozenStateIterations"), ("refresh_steps", "refreshSteps"),
                       ("switch_columns", "switchColumnsPerStep"), ("refactor_pairs", "refactorPairsPerStep"),
                       ("columns_after_refactor", "columnsAfterRefactor"), ("block_age_steps", "blockAgeSteps"),
                       ("renewal_pairs", "renewalPairsPerStep"),
                       ("fixed_residual_tolerance", "fixedResidualTolerance")]:
        v = r.get(key)
        if v is None:
            v = KEYS[("solver", key)].get("default")  # the scenario's defaults over IntegratorSettings'
        if v is None:
            continue
        set_(f"integrator.{field}", cpp_value(KEYS[("solver", key)], v))
    for key, field in [("post_newton_passes", "postNewtonPasses"), ("pass_update_pairs", "passUpdatePairs")]:
        v = r.get(key)
        if v is not None and not eulerian:
            r.error(key, "applies to the eulerian mesh only (belt.mesh = \"eulerian\")")
        if v is not None:
            set_(f"integrator.{field}", str(v))
    stepping = r.get("stepping") or r.default("stepping")
    if eulerian and stepping == "fixed_cost":
        # The kept matrix's switch updates and aged refresh are the material mesh's (as beltsim reads them).
        for key in ("switch_columns", "refactor_pairs", "columns_after_refactor", "block_age_steps", "renewal_pairs"):
            if key in solver:
                r.error(key, "applies to the material mesh only (belt.mesh = \"material\")")
    frozen, newton = solver.get("frozen_state_iterations", 0), solver.get("fixed_newton_iterations", 2)
    if not 0 <= frozen <= newton:
        r.error("frozen_state_iterations", f"must be 0..fixed_newton_iterations ({newton})")
    if solver.get("refactor_pairs", 0) > 0 and solver.get("refresh_steps", 8) != 1:
        r.error("refactor_pairs", "needs refresh_steps = 1 (the matrix rebuilt after every step)")
    if solver.get("block_age_steps", 1) > 1 and solver.get("refresh_steps", 8) != 1:
        r.error("block_age_steps", "needs refresh_steps = 1 (the matrix rebuilt after every step)")
    if stepping == "fixed_cost":
        set_("integrator.stepping", "Stepping::kFixedCost")
        refresh = solver.get("refresh_steps", 8)
        if refresh > elements:
            r.error("refresh_steps" if "refresh_steps" in solver else "stepping",
                    f"more refresh steps than elements ({elements})")
    r.finish()

    if info is not None:
        info["title"] = doc.get("title", "") if isinstance(doc.get("title", ""), str) else ""
        info["end_time"] = solver.get("end_time", 2.45)
    statics = doc.get("static", {})
    top.used.add("static")
    r = Reader(path, text, "static", statics, "static.")
    for key, field in [("load_steps", "loadSteps"), ("load_range", "loadRange"), ("stabilizer", "stabilizer"),
                       ("max_newton", "maxNewtonIterations")]:
        v = r.get(key)
        if v is not None:
            set_(f"statics.{field}", cpp_value(KEYS[("static", key)], v))
    r.unsupported("start", "equilibrium", "a start from rest")
    r.finish()
    read_sensors(path, text, doc, top, set_)
    faults = read_faults(path, text, doc, top, pulleys, set_)
    if info is not None:
        info["faults"] = faults or []
    top.finish()

    upper = name[0].upper() + name[1:]
    body = "\n".join(lines)
    return f"""// Generated by scripts/scenario_to_plant_config.py from {os.path.basename(path)}: do not edit; edit the
// scenario file (its comments give the reasons for the values).
#pragma once
#include "beltsim/system/plant.hpp"

// The element count as text, for strings composed at compile time (the FMUs' descriptions).
#define BELTSIM_{name.upper()}_ELEMENTS_TEXT "{elements}"
#define BELTSIM_{name.upper()}_MESH_TEXT "{mesh}"

namespace beltsim::fw {{

constexpr int k{upper}Elements = {elements};
constexpr int k{upper}Pulleys = {len(pulleys)};
constexpr MotorMode k{upper}MotorMode = {motor_mode};  // pulley 1's kind in the file
constexpr PlantMesh k{upper}Mesh = PlantMesh::k{mesh.capitalize()};  // belt.mesh

// `mode` chooses how pulley 1 (the motor) is driven; everything else is the file's.
inline PlantConfig {name}PlantConfig(MotorMode mode) {{
  PlantConfig c;  // the paper's belt and contact, the default static settings (as a scenario)
{body}
  c.pulley[0].kind = mode == MotorMode::kSpeed ? PulleyKind::kSpeedDriven : PulleyKind::kTorqueDriven;
  return c;
}}

}}  // namespace beltsim::fw
"""


def main():
    if len(sys.argv) != 4:
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 2
    path, output, name = sys.argv[1:4]
    try:
        header = generate(path, name)
    except (ConfigError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    scenario_keys.write_if_changed(output, header)
    return 0


if __name__ == "__main__":
    sys.exit(main())
