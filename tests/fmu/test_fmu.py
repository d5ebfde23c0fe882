#!/usr/bin/env python3
"""Importer tests of beltsim's FMI 3.0 co-simulation FMUs (issue 17), as a tool would load them:
unzip, parse modelDescription.xml with a real XML parser, load the library with ctypes, run.

Usage (CTest, tests/fmu/fmu.cmake):
  test_fmu.py --mcu beltsim_mcu.fmu --pc beltsim_pc.fmu --reference fmu_reference_trace --work DIR [unittest args]

References:
- the firmware plant's trace: fmu_reference_trace (BeltDrivePlant with the firmware configuration,
  no FMU code) for the same inputs; the FMU must reproduce it bit for bit;
- FMI 3.0 (modelDescription schema: element order, causality/variability rules, ModelStructure);
- the capstan law F_tight / F_slack <= exp(mu phi) (paper [P], Sect. 2; wrap phi = pi for two equal
  pulleys) for the friction-coefficient step.
"""
import argparse
import ctypes
import math
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET
import zipfile

ARGS = None

fmi3OK, fmi3Warning, fmi3Discard, fmi3Error, fmi3Fatal = range(5)
LOGGER = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p)

# Every function that the FMI 3.0 C API declares (fmi3Functions.h): importers resolve all of them.
FMI3_FUNCTIONS = """
GetVersion SetDebugLogging InstantiateModelExchange InstantiateCoSimulation InstantiateScheduledExecution
FreeInstance EnterInitializationMode ExitInitializationMode EnterEventMode Terminate Reset
GetFloat32 GetFloat64 GetInt8 GetUInt8 GetInt16 GetUInt16 GetInt32 GetUInt32 GetInt64 GetUInt64 GetBoolean
GetString GetBinary GetClock SetFloat32 SetFloat64 SetInt8 SetUInt8 SetInt16 SetUInt16 SetInt32 SetUInt32
SetInt64 SetUInt64 SetBoolean SetString SetBinary SetClock GetNumberOfVariableDependencies
GetVariableDependencies GetFMUState SetFMUState FreeFMUState SerializedFMUStateSize SerializeFMUState
DeserializeFMUState GetDirectionalDerivative GetAdjointDerivative EnterConfigurationMode
ExitConfigurationMode GetIntervalDecimal GetIntervalFraction GetShiftDecimal GetShiftFraction
SetIntervalDecimal SetIntervalFraction SetShiftDecimal SetShiftFraction EvaluateDiscreteStates
UpdateDiscreteStates EnterContinuousTimeMode CompletedIntegratorStep SetTime SetContinuousStates
GetContinuousStateDerivatives GetEventIndicators GetContinuousStates GetNominalsOfContinuousStates
GetNumberOfEventIndicators GetNumberOfContinuousStates EnterStepMode GetOutputDerivatives DoStep
ActivateModelPartition""".split()

# The trace's columns: value references of the inputs and outputs, in the reference's order.
INPUT_REFS = [1, 3]
FLOAT_OUTPUTS = [30, 31, 32, 33, 34, 35, 36, 37]
HEALTH_INT = [41, 42]
HEALTH_FLOAT = [44, 45]


def unpack(fmu_path, into):
    with zipfile.ZipFile(fmu_path) as z:
        z.extractall(into)
    return ET.parse(os.path.join(into, "modelDescription.xml")).getroot()


def load_library(path):
    lib = ctypes.CDLL(path)
    c = ctypes
    lib.fmi3GetVersion.restype = c.c_char_p
    lib.fmi3InstantiateCoSimulation.restype = c.c_void_p
    lib.fmi3InstantiateCoSimulation.argtypes = [c.c_char_p, c.c_char_p, c.c_char_p, c.c_bool, c.c_bool, c.c_bool,
                                                c.c_bool, c.c_void_p, c.c_size_t, c.c_void_p, LOGGER, c.c_void_p]
    lib.fmi3FreeInstance.argtypes = [c.c_void_p]
    lib.fmi3FreeInstance.restype = None
    lib.fmi3EnterInitializationMode.argtypes = [c.c_void_p, c.c_bool, c.c_double, c.c_double, c.c_bool, c.c_double]
    for name in ["ExitInitializationMode", "Terminate", "Reset", "EnterEventMode", "EnterStepMode"]:
        getattr(lib, "fmi3" + name).argtypes = [c.c_void_p]
    for t, ct in [("Float64", c.c_double), ("Int32", c.c_int32), ("Boolean", c.c_bool)]:
        getattr(lib, "fmi3Get" + t).argtypes = [c.c_void_p, c.POINTER(c.c_uint32), c.c_size_t, c.POINTER(ct), c.c_size_t]
        getattr(lib, "fmi3Set" + t).argtypes = [c.c_void_p, c.POINTER(c.c_uint32), c.c_size_t, c.POINTER(ct), c.c_size_t]
    lib.fmi3DoStep.argtypes = [c.c_void_p, c.c_double, c.c_double, c.c_bool, c.POINTER(c.c_bool),
                               c.POINTER(c.c_bool), c.POINTER(c.c_bool), c.POINTER(c.c_double)]
    lib.fmi3GetFMUState.argtypes = [c.c_void_p, c.POINTER(c.c_void_p)]
    lib.fmi3SetFMUState.argtypes = [c.c_void_p, c.c_void_p]
    lib.fmi3FreeFMUState.argtypes = [c.c_void_p, c.POINTER(c.c_void_p)]
    lib.fmi3SerializedFMUStateSize.argtypes = [c.c_void_p, c.c_void_p, c.POINTER(c.c_size_t)]
    lib.fmi3SerializeFMUState.argtypes = [c.c_void_p, c.c_void_p, c.c_void_p, c.c_size_t]
    lib.fmi3DeserializeFMUState.argtypes = [c.c_void_p, c.c_void_p, c.c_size_t, c.POINTER(c.c_void_p)]
    lib.fmi3SetDebugLogging.argtypes = [c.c_void_p, c.c_bool, c.c_size_t, c.POINTER(c.c_char_p)]
    return lib


class Instance:
    """One FMU instance with a logger that keeps the messages."""

    def __init__(self, lib, token, name="plant", logging=True, event_mode=False):
        self.lib = lib
        self.messages = []
        self._logger = LOGGER(lambda env, status, category, message: self.messages.append(
            (status, category.decode(), message.decode())))
        self.handle = lib.fmi3InstantiateCoSimulation(name.encode() if name is not None else None,
                                                      token.encode(), b"", False, logging, event_mode, False,
                                                      None, 0, None, self._logger, None)
        self.time = 0.0

    def free(self):
        if self.handle:
            self.lib.fmi3FreeInstance(self.handle)
            self.handle = None

    def init(self, start=0.0):
        assert self.lib.fmi3EnterInitializationMode(self.handle, False, 0.0, start, False, 0.0) == fmi3OK
        status = self.lib.fmi3ExitInitializationMode(self.handle)
        self.time = start
        return status

    def set_f(self, refs, values):
        return self.lib.fmi3SetFloat64(self.handle, (ctypes.c_uint32 * len(refs))(*refs), len(refs),
                                       (ctypes.c_double * len(values))(*values), len(values))

    def set_i(self, refs, values):
        return self.lib.fmi3SetInt32(self.handle, (ctypes.c_uint32 * len(refs))(*refs), len(refs),
                                     (ctypes.c_int32 * len(values))(*values), len(values))

    def set_b(self, refs, values):
        return self.lib.fmi3SetBoolean(self.handle, (ctypes.c_uint32 * len(refs))(*refs), len(refs),
                                       (ctypes.c_bool * len(values))(*values), len(values))

    def get_f(self, refs):
        out = (ctypes.c_double * len(refs))()
        status = self.lib.fmi3GetFloat64(self.handle, (ctypes.c_uint32 * len(refs))(*refs), len(refs), out, len(refs))
        assert status == fmi3OK, (status, refs, self.messages[-3:])
        return list(out)

    def get_i(self, refs):
        out = (ctypes.c_int32 * len(refs))()
        status = self.lib.fmi3GetInt32(self.handle, (ctypes.c_uint32 * len(refs))(*refs), len(refs), out, len(refs))
        assert status == fmi3OK, (status, refs)
        return list(out)

    def get_b(self, refs):
        out = (ctypes.c_bool * len(refs))()
        status = self.lib.fmi3GetBoolean(self.handle, (ctypes.c_uint32 * len(refs))(*refs), len(refs), out, len(refs))
        assert status == fmi3OK, (status, refs)
        return list(out)

    def step(self, size, at=None):
        flags = [ctypes.c_bool() for _ in range(3)]
        last = ctypes.c_double()
        status = self.lib.fmi3DoStep(self.handle, self.time if at is None else at, size, False,
                                     *[ctypes.byref(f) for f in flags], ctypes.byref(last))
        if status == fmi3OK:
            self.time = last.value
        return status

    def row(self):
        """The trace columns the reference writes (without the inputs)."""
        return (self.get_f(FLOAT_OUTPUTS), self.get_b([40]) + self.get_i(HEALTH_INT), self.get_f(HEALTH_FLOAT))

    def get_state(self, state=None):
        s = ctypes.c_void_p(state)
        assert self.lib.fmi3GetFMUState(self.handle, ctypes.byref(s)) == fmi3OK, self.messages[-1:]
        return s.value

    def serialize(self, state):
        size = ctypes.c_size_t()
        assert self.lib.fmi3SerializedFMUStateSize(self.handle, state, ctypes.byref(size)) == fmi3OK
        buf = (ctypes.c_uint8 * size.value)()
        assert self.lib.fmi3SerializeFMUState(self.handle, state, buf, size.value) == fmi3OK
        return bytes(buf)

    def deserialize(self, data):
        buf = (ctypes.c_uint8 * max(len(data), 1)).from_buffer_copy(data if data else b"\0")
        s = ctypes.c_void_p()
        status = self.lib.fmi3DeserializeFMUState(self.handle, buf, len(data), ctypes.byref(s))
        return status, s.value

    def free_state(self, state):
        s = ctypes.c_void_p(state)
        assert self.lib.fmi3FreeFMUState(self.handle, ctypes.byref(s)) == fmi3OK


def bits(values):
    return [v.hex() if isinstance(v, float) else v for v in values]


def reference_trace(config, end_time, n):
    out = os.path.join(ARGS.work, f"reference_{config}_{end_time}_{n}.txt")
    # Kept between runs of the same build folder, but not across a rebuild of the reference program.
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(ARGS.reference):
        subprocess.run([ARGS.reference, config, str(end_time), str(n), out], check=True)
    rows = []
    with open(out) as f:
        for line in f:
            p = line.split()
            rows.append(([float.fromhex(x) for x in p[0:2]], [float.fromhex(x) for x in p[2:10]],
                         [bool(int(p[10])), int(p[11]), int(p[12])], [float.fromhex(x) for x in p[13:15]]))
    return rows


class Fmu:
    """An unpacked FMU: its description, library and token."""

    def __init__(self, path, name):
        self.dir = os.path.join(ARGS.work, name)
        shutil.rmtree(self.dir, ignore_errors=True)
        self.root = unpack(path, self.dir)
        self.id = self.root.find("CoSimulation").get("modelIdentifier")
        self.token = self.root.get("instantiationToken")
        self.library_path = os.path.join(self.dir, "binaries", "x86_64-linux", self.id + ".so")
        self.lib = load_library(self.library_path)
        self.step_size = float(self.root.find("CoSimulation").get("fixedInternalStepSize"))


FMUS = {}


def fmu(config):
    if config not in FMUS:
        FMUS[config] = Fmu({"mcu": ARGS.mcu, "pc": ARGS.pc, "scenario": ARGS.scenario}[config], config)
    return FMUS[config]


def run_against_reference(test, lib, token, h, config, end_time, n, instance_name="trace"):
    ref = reference_trace(config, end_time, n)
    inst = Instance(lib, token, instance_name)
    test.assertTrue(inst.handle)
    test.assertEqual(inst.init(), fmi3OK)
    for j, (inputs, outputs, health, health_f) in enumerate(ref, start=1):
        test.assertEqual(inst.set_f(INPUT_REFS, inputs), fmi3OK)
        test.assertEqual(inst.step(n * h, at=(j - 1) * n * h), fmi3OK, inst.messages[-2:])
        got_outputs, got_health, got_health_f = inst.row()
        test.assertEqual(bits(got_outputs), bits(outputs), f"outputs differ at communication point {j}")
        test.assertEqual(got_health, health, f"health differs at communication point {j}")
        test.assertEqual(bits(got_health_f), bits(health_f), f"residual / e_PNS differ at point {j}")
    inst.free()
    return len(ref)


class ModelDescription(unittest.TestCase):
    """modelDescription.xml against FMI 3.0's schema rules, and the zip layout."""

    def check(self, config):
        f = fmu(config)
        root = f.root
        self.assertEqual(root.tag, "fmiModelDescription")
        for attribute in ["fmiVersion", "modelName", "instantiationToken"]:
            self.assertTrue(root.get(attribute), attribute)
        self.assertEqual(root.get("fmiVersion"), "3.0")
        order = ["ModelExchange", "CoSimulation", "ScheduledExecution", "UnitDefinitions", "TypeDefinitions",
                 "LogCategories", "DefaultExperiment", "VendorAnnotations", "ModelVariables", "ModelStructure"]
        tags = [child.tag for child in root]
        self.assertEqual(tags, sorted(tags, key=order.index), "element order of fmi3ModelDescription.xsd")
        self.assertIn("ModelVariables", tags)
        self.assertIn("ModelStructure", tags)
        cs = root.find("CoSimulation")
        self.assertEqual(cs.get("canGetAndSetFMUState"), "true")
        self.assertEqual(cs.get("canSerializeFMUState"), "true")
        self.assertGreater(float(cs.get("fixedInternalStepSize")), 0.0)
        self.assertTrue(os.path.isfile(f.library_path), "binaries/x86_64-linux/<modelIdentifier>.so")
        self.assertTrue(os.path.isfile(os.path.join(f.dir, "sources", "buildDescription.xml")))

        units = {u.get("name") for u in root.find("UnitDefinitions")}
        variables = list(root.find("ModelVariables"))
        refs = [int(v.get("valueReference")) for v in variables]
        self.assertEqual(len(refs), len(set(refs)), "value references are unique")
        independents = [v for v in variables if v.get("causality") == "independent"]
        self.assertEqual([v.get("name") for v in independents], ["time"])
        self.assertIsNone(independents[0].get("start"))
        allowed = {"parameter": {"fixed", "tunable"}, "input": {"discrete", "continuous"},
                   "output": {"constant", "discrete", "continuous"}, "local": {"constant", "fixed", "tunable",
                   "discrete", "continuous"}, "independent": {"continuous"}}
        for v in variables:
            self.assertIn(v.tag, {"Float64", "Int32", "Boolean"})
            causality, variability = v.get("causality", "local"), v.get("variability")
            self.assertIn(variability, allowed[causality], v.get("name"))
            if v.get("unit") is not None:
                self.assertIn(v.get("unit"), units, v.get("name"))
            needs_start = causality in ("input", "parameter") or variability == "constant"
            self.assertEqual(v.get("start") is not None, needs_start, v.get("name"))
            if v.tag == "Float64" and v.get("min") is not None:
                self.assertLessEqual(float(v.get("min")), float(v.get("start")))
                self.assertLessEqual(float(v.get("start")), float(v.get("max")))
        outputs = [int(v.get("valueReference")) for v in variables if v.get("causality") == "output"]
        structure = root.find("ModelStructure")
        kinds = [c.tag for c in structure]
        self.assertEqual(kinds, sorted(kinds, key=["Output", "ContinuousStateDerivative", "ClockedState",
                                                    "InitialUnknown", "EventIndicator"].index))
        self.assertEqual([int(o.get("valueReference")) for o in structure.findall("Output")], outputs)
        self.assertEqual([int(o.get("valueReference")) for o in structure.findall("InitialUnknown")], outputs)
        categories = {c.get("name") for c in root.find("LogCategories")}
        self.assertEqual(categories, {"logStatusError", "logStatusWarning", "logNonConverged"})

    def test_microcontroller_description_follows_the_schema(self):
        self.check("mcu")

    def test_pc_description_follows_the_schema(self):
        self.check("pc")

    def test_every_value_reference_answers_with_its_declared_type(self):
        f = fmu("mcu")
        inst = Instance(f.lib, f.token, "types")
        getters = {"Float64": inst.get_f, "Int32": inst.get_i, "Boolean": inst.get_b}
        for v in f.root.find("ModelVariables"):
            ref = int(v.get("valueReference"))
            value = getters[v.tag]([ref])[0]
            if v.get("start") is not None and v.tag != "Boolean":
                self.assertEqual(value, float(v.get("start")) if v.tag == "Float64" else int(v.get("start")),
                                 v.get("name"))
            other = inst.get_i if v.tag != "Int32" else inst.get_f
            with self.assertRaises(AssertionError):
                other([ref])  # the same reference through another type's getter is fmi3Error
        inst.free()

    def test_the_library_exports_every_fmi3_function(self):
        for config in ("mcu", "pc"):
            lib = fmu(config).lib
            missing = [n for n in FMI3_FUNCTIONS if not hasattr(lib, "fmi3" + n)]
            self.assertEqual(missing, [], config)
            self.assertEqual(lib.fmi3GetVersion(), b"3.0")

    def test_the_library_imports_no_allocator(self):
        # No heap: the linked library must not even import malloc & co. or operator new/delete.
        for config in ("mcu", "pc"):
            out = subprocess.run(["nm", "-D", "--undefined-only", fmu(config).library_path], check=True,
                                 capture_output=True, text=True).stdout
            imported = {line.split()[-1].split("@")[0] for line in out.splitlines() if line.strip()}
            allocators = {"malloc", "calloc", "realloc", "free", "aligned_alloc", "posix_memalign", "_Znwm",
                          "_Znam", "_ZdlPv", "_ZdaPv", "_ZdlPvm", "_ZnwmRKSt9nothrow_t"}
            self.assertEqual(imported & allocators, set(), config)
            self.assertIn("memcpy", imported)  # the listing is real

    def test_model_exchange_and_scheduled_execution_are_refused_with_a_message(self):
        lib = fmu("mcu").lib
        messages = []
        logger = LOGGER(lambda e, s, c, m: messages.append((s, m)))
        lib.fmi3InstantiateModelExchange.restype = ctypes.c_void_p
        handle = lib.fmi3InstantiateModelExchange(b"me", fmu("mcu").token.encode(), b"", False, True, None, logger)
        self.assertIsNone(handle)
        self.assertEqual(messages[-1][0], fmi3Error)


class Trace(unittest.TestCase):
    """The FMU computes the firmware plant's trace bit for bit."""

    def test_microcontroller_fmu_reproduces_the_firmware_plant_over_the_paper_scenario(self):
        f = fmu("mcu")
        points = run_against_reference(self, f.lib, f.token, f.step_size, "mcu", 2.45, 1)
        self.assertEqual(points, 2450)

    def test_pc_fmu_reproduces_the_firmware_plant_with_ten_model_steps_per_communication_step(self):
        f = fmu("pc")
        points = run_against_reference(self, f.lib, f.token, f.step_size, "pc", 0.8, 10)
        self.assertEqual(points, 800)

    def test_sources_compile_alone_following_the_build_description(self):
        f = fmu("mcu")
        lib = compile_sources(self, f)
        run_against_reference(self, lib, f.token, f.step_size, "mcu", 0.6, 1)


def compile_sources(test, f):
    """The FMU's library compiled from its sources/ alone, as buildDescription.xml says."""
    src = os.path.join(f.dir, "sources")
    build = ET.parse(os.path.join(src, "buildDescription.xml")).getroot()
    config = build.find("BuildConfiguration")
    test.assertEqual(config.get("modelIdentifier"), f.id)
    fileset = config.find("SourceFileSet")
    command = [os.environ.get("CXX", "c++")] + fileset.get("compilerOptions").split() + ["-shared", "-fPIC"]
    for d in fileset.findall("PreprocessorDefinition"):
        command.append("-D" + d.get("name") + ("=" + d.get("value") if d.get("value") is not None else ""))
    for d in fileset.findall("IncludeDirectory"):
        command.append("-I" + os.path.join(src, d.get("name")))
    command += [os.path.join(src, s.get("name")) for s in fileset.findall("SourceFile")]
    # Only sources/: the copy is moved away from the build tree it came from.
    library = os.path.join(ARGS.work, "from_sources", f.id + ".so")
    os.makedirs(os.path.dirname(library), exist_ok=True)
    subprocess.run(command + ["-o", library], check=True, cwd=ARGS.work)
    return load_library(library)


@unittest.skipUnless("--scenario" in sys.argv, "no scenario FMU (BELTSIM_FMU_SCENARIO)")
class ScenarioFmu(unittest.TestCase):
    """The FMU of the accessory drive (host_sim/scenarios/accessory_drive_eulerian.toml, the host preset's
    BELTSIM_FMU_SCENARIO): its description, names and value references (scripts/scenario_to_fmu.py),
    and its tunable dampers. Its trace against the firmware plant: fmu_scenario_matches_the_firmware_plant."""

    # The file's pulleys in belt order: the names as the FMU writes them, and the quantity of the input.
    PULLEYS = [("crankshaft", "speed_command"), ("water_pump", "load_torque"), ("motor_generator", "torque_command"),
               ("idler", "load_torque"), ("a_c_compressor", "load_torque"), ("tensioner", "load_torque")]

    def variables(self):
        return {v.get("name"): v for v in fmu("scenario").root.find("ModelVariables")}

    def test_description_follows_the_schema(self):
        ModelDescription.check(self, "scenario")
        root = fmu("scenario").root
        self.assertEqual(root.get("variableNamingConvention"), "structured")
        self.assertEqual(int(self.variables()["element_count"].get("start")), 24)  # the file's belt.elements

    def test_every_pulley_has_its_input_and_outputs_under_its_name(self):
        v = self.variables()
        import re
        for k, (name, command) in enumerate(self.PULLEYS, 1):
            self.assertEqual(int(v[f"{name}.{command}"].get("valueReference")), 1000 * k + 1)
            self.assertEqual(v[f"{name}.{command}"].get("causality"), "input")
            for slot, quantity in [(10, "angle"), (11, "speed"), (12, "torque"), (13, "hub_force_x"), (14, "hub_force_y")]:
                self.assertEqual(int(v[f"{name}.{quantity}"].get("valueReference")), 1000 * k + slot, name)
            self.assertEqual(f"{name}.damping" in v, command == "load_torque", name)
            self.assertEqual(int(v[f"{name}.encoder_count"].get("valueReference")), 1000 * k + 15, name)
        for quantity, slot in [("arm_angle", 20), ("arm_torque", 21), ("hub_load", 22)]:
            self.assertEqual(int(v[f"tensioner.{quantity}"].get("valueReference")), 6000 + slot)
        for k in range(1, 7):
            self.assertEqual(int(v[f"span{k}.force"].get("valueReference")), 900 + k)
            self.assertEqual(int(v[f"span{k}.load_cell"].get("valueReference")), 920 + k)
        # FMI 3.0 structured names: identifiers joined by dots.
        for name in v:
            self.assertRegex(name, r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")

    def test_every_value_reference_answers_with_its_declared_type(self):
        f = fmu("scenario")
        inst = Instance(f.lib, f.token, "types")
        getters = {"Float64": inst.get_f, "Int32": inst.get_i, "Boolean": inst.get_b}
        for v in f.root.find("ModelVariables"):
            value = getters[v.tag]([int(v.get("valueReference"))])[0]
            if v.get("start") is not None and v.tag != "Boolean":
                self.assertEqual(value, float(v.get("start")) if v.tag == "Float64" else int(v.get("start")),
                                 v.get("name"))
        inst.free()

    def run_compressor(self, damping_at=None):
        """0.02 s with the crankshaft at 5 rad/s; the compressor's damper set to 5 N m s/rad at
        `damping_at` (s) if given. Returns the compressor's speed after each millisecond."""
        f = fmu("scenario")
        v = self.variables()
        crank = int(v["crankshaft.speed_command"].get("valueReference"))
        damper = int(v["a_c_compressor.damping"].get("valueReference"))
        speed = int(v["a_c_compressor.speed"].get("valueReference"))
        inst = Instance(f.lib, f.token, "damper", logging=False)
        self.assertEqual(inst.init(), fmi3OK)
        self.assertEqual(inst.set_f([crank], [5.0]), fmi3OK)
        speeds = []
        for k in range(20):
            if damping_at is not None and abs(k * 1e-3 - damping_at) < 1e-9:
                self.assertEqual(inst.set_f([damper], [5.0]), fmi3OK, "a tunable is set in step mode")
            self.assertEqual(inst.step(10 * f.step_size), fmi3OK)
            speeds.append(inst.get_f([speed])[0])
        inst.free()
        return speeds

    def test_sources_compile_alone_and_give_the_packaged_librarys_bits(self):
        f = fmu("scenario")
        built = compile_sources(self, f)
        v = self.variables()
        crank, generator = (int(v[n].get("valueReference")) for n in ("crankshaft.speed_command",
                                                                       "motor_generator.torque_command"))
        outputs = [int(x.get("valueReference")) for x in v.values() if x.get("causality") == "output"
                   and x.tag == "Float64"]
        traces = []
        for lib in (f.lib, built):
            inst = Instance(lib, f.token, "sources", logging=False)
            self.assertEqual(inst.init(), fmi3OK)
            rows = []
            for k in range(20):
                self.assertEqual(inst.set_f([crank, generator], [5.0, -3.0 if k < 10 else 3.0]), fmi3OK)
                self.assertEqual(inst.step(10 * f.step_size), fmi3OK)
                rows.append(bits(inst.get_f(outputs)))
            inst.free()
            traces.append(rows)
        self.assertEqual(traces[0], traces[1])

    def test_encoders_and_load_cells_read_the_quantised_truth(self):
        # docs/injected_faults.md, "Sensors": without sensor faults an encoder reads
        # floor(angle / 2 pi * 65536) and a load cell round(force / 0.5) * 0.5 (the defaults), exactly.
        f = fmu("scenario")
        v = self.variables()
        ref = lambda name: int(v[name].get("valueReference"))
        inst = Instance(f.lib, f.token, "sensors", logging=False)
        self.assertEqual(inst.init(), fmi3OK)
        self.assertEqual(inst.set_f([ref("crankshaft.speed_command")], [5.0]), fmi3OK)
        names = [name for name, _ in self.PULLEYS]
        counts_per_radian = 65536.0 / (2.0 * 3.14159265358979323846)
        turned = 0
        for _ in range(10):
            self.assertEqual(inst.step(10 * f.step_size), fmi3OK)
            angles = inst.get_f([ref(f"{n}.angle") for n in names])
            counts = inst.get_i([ref(f"{n}.encoder_count") for n in names])
            self.assertEqual(list(counts), [math.floor(a * counts_per_radian) for a in angles])
            forces = inst.get_f([ref(f"span{k}.force") for k in range(1, 7)])
            cells = inst.get_f([ref(f"span{k}.load_cell") for k in range(1, 7)])
            self.assertEqual(list(cells), [math.floor(x / 0.5 + 0.5) * 0.5 for x in forces])
            turned = max(turned, abs(counts[0]))
        inst.free()
        self.assertGreater(turned, 100, "the crankshaft turned: the counts are not all zero")

    def test_a_fault_table_is_tunable_and_each_change_ramps_from_the_next_step(self):
        # docs/fmu.md, "Injected faults"; docs/injected_faults.md: the file's [[fault]] (span 5's load
        # cell 20 N high from 0.2 s, ramp 0.05 s) as fault1.active / fault1.value / fault1.current_value.
        # A load cell reads round(F / 0.5) * 0.5 + level * value, so each figure below is exact: the
        # value at 20 N, moved to 50 N (half way 35 N after half the ramp, 50 N after it), the table
        # switched off (0 N after the ramp); a NaN and a value beyond the kind's range refused and
        # counted; a saved state restored and switched off again repeats the same bits; set before
        # initialization, a value holds from the start and an inactive table never acts.
        f = fmu("scenario")
        v = self.variables()
        ref = lambda name: int(v[name].get("valueReference"))
        self.assertEqual([ref(f"fault1.{q}") for q in ("active", "value", "current_value")], [811, 812, 813])
        self.assertEqual(v["fault1.active"].get("start"), "true")
        self.assertEqual(float(v["fault1.value"].get("start")), 20.0)
        inst = Instance(f.lib, f.token, "faults", logging=False)
        self.assertEqual(inst.init(), fmi3OK)
        self.assertEqual(inst.set_f([ref("crankshaft.speed_command")], [5.0]), fmi3OK)
        h = f.step_size
        quantities = [ref("span5.force"), ref("span5.load_cell"), ref("fault1.current_value")]

        def run_to(t, inst=inst, raw=False):
            while inst.time < t - 0.5 * h:
                self.assertEqual(inst.step(10 * h), fmi3OK, inst.messages[-3:])
            force, cell, now = inst.get_f(quantities)
            return (force, cell, now) if raw else (cell - math.floor(force / 0.5 + 0.5) * 0.5, now)

        self.assertEqual(run_to(0.15), (0.0, 0.0))  # before the table's start
        self.assertEqual(run_to(0.3), (20.0, 20.0))
        self.assertEqual(inst.set_f([ref("fault1.value")], [50.0]), fmi3OK)  # at 0.3 s: ramps over 0.3-0.35 s
        offset, now = run_to(0.325)
        self.assertAlmostEqual(now, 35.0, delta=1e-12)
        self.assertAlmostEqual(offset, 35.0, delta=1e-9)
        self.assertEqual(run_to(0.36), (50.0, 50.0))
        rejected = inst.get_i([ref("rejected_inputs")])[0]
        self.assertEqual(inst.set_f([ref("fault1.value")], [float("nan")]), fmi3Error)
        self.assertEqual(inst.set_f([ref("fault1.value")], [2e9]), fmi3Error)  # the kind's range: +-1e9 N
        self.assertEqual(inst.get_i([ref("rejected_inputs")])[0], rejected + 2)
        self.assertEqual(inst.get_f([ref("fault1.value")]), [50.0])
        state = inst.get_state()
        t_saved = inst.time
        self.assertEqual(inst.set_b([ref("fault1.active")], [False]), fmi3OK)  # off over 0.36-0.41 s
        self.assertEqual(inst.get_b([ref("fault1.active")]), [False])
        half = run_to(0.385, raw=True)  # half way out
        first = run_to(0.42)
        self.assertEqual(first, (0.0, 0.0))
        self.assertEqual(inst.lib.fmi3SetFMUState(inst.handle, state), fmi3OK)
        inst.time = t_saved
        self.assertEqual(inst.get_b([ref("fault1.active")]), [True])  # the state holds the parameters too
        self.assertEqual(inst.set_b([ref("fault1.active")], [False]), fmi3OK)
        self.assertEqual(bits(run_to(0.385, raw=True)), bits(half))  # the same change, the same bits
        self.assertEqual(inst.lib.fmi3SetFMUState(inst.handle, state), fmi3OK)
        inst.time = t_saved
        self.assertEqual(run_to(0.42), (50.0, 50.0))  # not switched off this time
        inst.free()
        # Before initialization: the value from the start; an inactive table never acts.
        for active, value, expected in [(True, 30.0, (30.0, 30.0)), (False, 20.0, (0.0, 0.0))]:
            early = Instance(f.lib, f.token, "faults early", logging=False)
            self.assertEqual(early.set_f([ref("fault1.value")], [value]), fmi3OK)
            self.assertEqual(early.set_b([ref("fault1.active")], [active]), fmi3OK)
            self.assertEqual(early.init(), fmi3OK)
            self.assertEqual(early.set_f([ref("crankshaft.speed_command")], [5.0]), fmi3OK)
            self.assertEqual(run_to(0.26, inst=early), expected)
            early.free()

    def test_a_pulley_damper_is_tunable_and_applies_from_the_next_step(self):
        plain = self.run_compressor()
        damped = self.run_compressor(damping_at=0.01)
        self.assertEqual(bits(plain[:10]), bits(damped[:10]), "nothing changes before the damper is set")
        # A damper on the turning compressor takes torque from it: it turns slower from then on.
        self.assertGreater(plain[9], 1.0)
        self.assertLess(damped[19], plain[19])


class State(unittest.TestCase):
    """Snapshots: get/set and serialize/deserialize rewind bit for bit; foreign states are refused."""

    def run_to(self, inst, end, h, speed=12.0, load=20.0):
        inst.set_f([1, 3], [speed, load])
        while inst.time < end - 0.5 * h:
            self.assertEqual(inst.step(10 * h), fmi3OK, inst.messages[-3:])
        return inst.row()

    def started(self, name, end, speed, load=0.0):
        """A microcontroller-FMU instance initialized and run to end; (instance, model step)."""
        f = fmu("mcu")
        inst = Instance(f.lib, f.token, name)
        inst.init()
        self.run_to(inst, end, f.step_size, speed=speed, load=load)
        return inst, f.step_size

    def rewind(self, inst, state, t, end, h, first):
        """Restores state (saved at t), runs to end again and checks it ends on the row first."""
        self.assertEqual(inst.lib.fmi3SetFMUState(inst.handle, state), fmi3OK)
        inst.time = t
        self.assertEqual(self.run_to(inst, end, h), first)

    def test_a_restored_state_reruns_bit_for_bit(self):
        inst, h = self.started("state", 0.3, speed=8.0)
        t1 = inst.time
        state = inst.get_state()
        first = self.run_to(inst, 0.5, h)
        self.rewind(inst, state, t1, 0.5, h, first)
        data = inst.serialize(state)
        status, restored = inst.deserialize(data)
        self.assertEqual(status, fmi3OK)
        self.rewind(inst, restored, t1, 0.5, h, first)
        inst.free_state(state)
        inst.free_state(restored)
        inst.free()

    def test_outputs_are_initial_unknowns_computed_in_initialization_mode(self):
        # FMI 3.0: the outputs listed as InitialUnknown have values in Initialization Mode, computed
        # from the parameters set so far; here the static equilibrium of the pre-tensioned belt.
        f = fmu("mcu")
        inst = Instance(f.lib, f.token, "initial")
        self.assertEqual(inst.lib.fmi3EnterInitializationMode(inst.handle, False, 0.0, 0.0, False, 0.0), fmi3OK)
        self.assertEqual(inst.set_f([11], [0.3]), fmi3OK)
        during = inst.row()
        self.assertGreater(min(during[0][6:8]), 100.0)  # both spans carry the pre-tension (N)
        self.assertEqual(inst.set_f([12], [0.3]), fmi3OK)  # a parameter changed after the read
        self.assertEqual(inst.lib.fmi3ExitInitializationMode(inst.handle), fmi3OK)
        self.assertEqual(inst.row(), during)  # inertias do not move the static equilibrium
        self.assertEqual(inst.step(f.step_size), fmi3OK)
        inst.free()

    def test_a_foreign_truncated_or_corrupted_state_is_refused_and_changes_nothing(self):
        mcu, pc = fmu("mcu"), fmu("pc")
        other = Instance(pc.lib, pc.token, "pc")
        other.init()
        foreign = other.serialize(other.get_state())
        other.free()
        inst = Instance(mcu.lib, mcu.token, "refuses")
        inst.init()
        self.run_to(inst, 0.1, mcu.step_size, speed=5.0)
        good = inst.serialize(inst.get_state())
        before = inst.row()
        corrupted = bytearray(good)
        corrupted[len(good) // 2] ^= 0x01
        for name, data in [("foreign", foreign), ("truncated", good[:-8]), ("header only", good[:40]),
                           ("empty", b""), ("corrupted", bytes(corrupted))]:
            status, state = inst.deserialize(data)
            self.assertEqual(status, fmi3Error, name)
            self.assertIsNone(state, name)
            self.assertEqual(inst.messages[-1][0], fmi3Error)
            self.assertEqual(inst.row(), before, name)
        self.assertEqual(inst.step(mcu.step_size), fmi3OK)
        inst.free()


    def test_an_importer_passing_the_state_itself_to_free_gets_it_freed_with_a_warning(self):
        # Decision (issue 35): fmusim 0.0.39 (the Reference-FMUs' importer) calls
        # fmi3FreeFMUState(instance, state) when it saves or restores a state file, where FMI 3.0
        # passes the address of the variable holding the state. A pointer that is one of this
        # instance's states in use is freed, with a warning and fmi3OK; a pool state that is freed
        # or another instance's stays fmi3Error and changes nothing; the standard's call is unchanged.
        inst, h = self.started("importer", 0.2, speed=6.0)
        before = inst.row()
        state = inst.get_state()
        as_fmusim_calls = ctypes.cast(ctypes.c_void_p(state), ctypes.POINTER(ctypes.c_void_p))
        self.assertEqual(inst.lib.fmi3FreeFMUState(inst.handle, as_fmusim_calls), fmi3OK)
        self.assertEqual(inst.messages[-1][0], fmi3Warning)
        self.assertIn("instead of its address", inst.messages[-1][2])
        self.assertEqual(inst.lib.fmi3SetFMUState(inst.handle, state), fmi3Error)  # it is freed
        self.assertEqual(inst.lib.fmi3FreeFMUState(inst.handle, as_fmusim_calls), fmi3Error)  # stale
        self.assertEqual(inst.row(), before)
        f = fmu("mcu")
        other = Instance(f.lib, f.token, "other")
        other.init()
        theirs = other.get_state()
        theirs_as_fmusim_calls = ctypes.cast(ctypes.c_void_p(theirs), ctypes.POINTER(ctypes.c_void_p))
        self.assertEqual(inst.lib.fmi3FreeFMUState(inst.handle, theirs_as_fmusim_calls), fmi3Error)
        held = ctypes.c_void_p(theirs)
        self.assertEqual(inst.lib.fmi3FreeFMUState(inst.handle, ctypes.byref(held)), fmi3Error)
        self.assertEqual(held.value, theirs)
        self.assertEqual(inst.row(), before)
        other.free_state(theirs)  # still the other instance's own
        other.free()
        t = inst.time
        saved = inst.get_state()
        self.rewind(inst, saved, t, 0.3, h, self.run_to(inst, 0.3, h))
        inst.free_state(saved)
        inst.free()


class Tunable(unittest.TestCase):
    """A friction-coefficient step during the run (a wet belt), against the capstan law."""

    def dry_state(self, limit):
        """The paper's scenario to t = 2 s (steady, mu = 0.5), with the given flagged-step limit."""
        f = fmu("mcu")
        inst = Instance(f.lib, f.token, "belt")
        self.assertEqual(inst.set_i([15], [limit]), fmi3OK)
        inst.init()
        for inputs, _, _, _ in reference_trace("mcu", 2.45, 1)[:2000]:
            inst.set_f(INPUT_REFS, inputs)
            self.assertEqual(inst.step(f.step_size), fmi3OK)
        return inst, inst.get_state()

    def test_lower_friction_limits_the_transmissible_torque_as_the_capstan_law_predicts(self):
        h = fmu("mcu").step_size
        inst, dry = self.dry_state(10)  # the firmware's flagged-step limit: no fault through the slip
        results = {}
        for mu in (0.5, 0.45, 0.3):
            self.assertEqual(inst.lib.fmi3SetFMUState(inst.handle, dry), fmi3OK)
            inst.time = 2.0
            flagged_before = inst.get_i([47])[0]
            self.assertEqual(inst.set_f([13], [mu]), fmi3OK)
            samples = []
            for k in range(150):  # 1.5 s; the last 0.5 s is averaged
                self.assertEqual(inst.step(10 * h), fmi3OK)
                if k >= 100:
                    samples.append(inst.get_f([33, 34, 36, 37]))
            speed, torque, tight, slack = [sum(c) / len(c) for c in zip(*samples)]
            # Capstan law with F_tight + F_slack = 2 F0 (constant belt length): the largest torque the
            # belt carries over a wrap of pi is r (F_tight + F_slack) tanh(mu pi / 2).
            capacity = 0.09995 * (tight + slack) * math.tanh(mu * math.pi / 2)
            results[mu] = (speed, torque, tight / slack, capacity, inst.get_i([47])[0] - flagged_before)
        speed_dry = results[0.5][0]
        demand = 25.0 + 2.0 * speed_dry  # load torque + damper (2 N m s/rad) at the dry speed
        # mu = 0.45: the capacity still exceeds the demand: the belt transmits, only its slip arc grows.
        self.assertGreater(results[0.45][3], demand)
        self.assertAlmostEqual(results[0.45][0], speed_dry, delta=0.02 * speed_dry)
        self.assertLessEqual(results[0.45][2], math.exp(0.45 * math.pi))
        # mu = 0.3: capacity below the demand: the belt slips through, P2 slows down until load and
        # damper fit the capacity, and the drive torque settles at the capacity.
        speed_wet, torque_wet, ratio_wet, capacity_wet, flagged_wet = results[0.3]
        self.assertLess(capacity_wet, demand)
        self.assertAlmostEqual(torque_wet, capacity_wet, delta=0.05 * capacity_wet)
        self.assertAlmostEqual(speed_wet, (capacity_wet - 25.0) / 2.0, delta=0.5)
        # Slipping over the whole wrap, the span forces follow the capstan law itself
        # (measured: 2.565 against 2.566).
        self.assertAlmostEqual(ratio_wet, math.exp(0.3 * math.pi), delta=0.02 * math.exp(0.3 * math.pi))
        # The eulerian mesh's three passes carry the transition with at most 1 % of its 1,500 steps
        # flagged and never 10 in a row (every step above returned fmi3OK with the limit of 10), as
        # CTest beltsim_gross_slip_capstan asks of the other configurations (measured: 9 flagged; the
        # five passes the configuration had before: none; the material mesh's fixed-cost stepping
        # flagged 290 and faulted).
        self.assertLess(flagged_wet, 15)
        inst.free()

    def test_flagged_steps_are_logged_and_more_in_a_row_than_the_limit_are_a_fault(self):
        # The belt loses all grip at once (friction coefficient 0.5 -> 0) while 30 N m drive and
        # a 20 N m load act: the steps of the release carry more than the three passes converge
        # (measured: 28 flagged in 0.1 s against the 2 N threshold; docs/fmu.md, the flag's limit;
        # docs/firmware.md, *The health flag*). Before it, 200 steps from rest under that drive and
        # load flag nothing (60 N m and 40 N m at once from rest flag 7 steps, 6 of them in a row).
        h = fmu("mcu").step_size
        for limit in (0, 1):
            inst = Instance(fmu("mcu").lib, fmu("mcu").token, "limit %d" % limit)
            self.assertEqual(inst.set_i([15, 10], [limit, 2]), fmi3OK)  # torque-driven motor
            inst.init()
            inst.set_f([2, 3], [30.0, 20.0])
            loaded = [inst.step(h) for _ in range(200)]
            self.assertEqual(loaded, [fmi3OK] * 200)
            self.assertEqual(inst.get_i([47]), [0])  # loaded and gripping: nothing flagged
            self.assertEqual(inst.set_f([13], [0.0]), fmi3OK)
            statuses = [inst.step(h) for _ in range(100)]
            if limit == 0:  # no limit: counted, each logged in its own category, no fault
                self.assertEqual(statuses, [fmi3OK] * 100)
                self.assertGreater(inst.get_i([47])[0], 0)
                self.assertEqual(inst.get_i([43]), [0])
                self.assertTrue(any(c == "logNonConverged" and s == fmi3OK for s, c, _ in inst.messages))
            else:
                self.assertIn(fmi3Error, statuses)
                self.assertEqual(inst.get_i([43]), [4])
                self.assertTrue(any("in a row" in m for s, _, m in inst.messages if s == fmi3Error))
                self.assertEqual(inst.step(h), fmi3Error)  # faulted until fmi3Reset
            inst.free()


class Instances(unittest.TestCase):
    def test_two_instances_in_one_process_give_the_traces_of_separate_runs(self):
        f = fmu("mcu")
        h = f.step_size
        a = Instance(f.lib, f.token, "a")
        b = Instance(f.lib, f.token, "b")
        a.init()
        b.init()
        rows_a, rows_b = [], []
        for k in range(300):
            a.set_f([1, 3], [min(k * 0.05, 10.0), 0.0])
            b.set_f([1, 3], [min(k * 0.03, 6.0), 5.0])
            self.assertEqual(a.step(h), fmi3OK)
            self.assertEqual(b.step(h), fmi3OK)
            rows_a.append(a.row())
            rows_b.append(b.row())
        a.free()
        b.free()
        for inputs, rows in [(lambda k: [min(k * 0.05, 10.0), 0.0], rows_a),
                             (lambda k: [min(k * 0.03, 6.0), 5.0], rows_b)]:
            alone = Instance(f.lib, f.token, "alone")
            alone.init()
            for k in range(300):
                alone.set_f([1, 3], inputs(k))
                alone.step(h)
                self.assertEqual(alone.row(), rows[k], f"step {k}")
            alone.free()
        self.assertNotEqual(rows_a[-1], rows_b[-1])

    def test_a_full_pool_refuses_another_instance_with_a_message(self):
        f = fmu("mcu")
        held = [Instance(f.lib, f.token, f"pool{i}") for i in range(4)]
        self.assertTrue(all(i.handle for i in held))
        extra = Instance(f.lib, f.token, "one too many")
        self.assertIsNone(extra.handle)
        self.assertIn("pool", extra.messages[-1][2])
        for i in held:
            i.free()
        again = Instance(f.lib, f.token, "after free")
        self.assertTrue(again.handle)
        again.free()


class BadInput(unittest.TestCase):
    def setUp(self):
        self.f = fmu("mcu")
        self.inst = Instance(self.f.lib, self.f.token, "bad")

    def tearDown(self):
        self.inst.free()

    def test_non_finite_or_out_of_range_inputs_are_refused_and_never_reach_the_model(self):
        inst, h = self.inst, self.f.step_size
        inst.init()
        clean = Instance(self.f.lib, self.f.token, "clean")
        clean.init()
        for k in range(50):
            for i in (inst, clean):
                self.assertEqual(i.set_f([1, 3], [0.1 * k, 1.0]), fmi3OK)
            if k % 10 == 5:
                for bad in (float("nan"), float("inf"), -float("inf"), 630.5, -1e9):
                    self.assertEqual(inst.set_f([3, 1], [2.0, bad]), fmi3Error)
                    self.assertEqual(inst.get_f([1, 3]), [0.1 * k, 1.0], "no value of a refused call applies")
                # The range's ends (an engine's crankshaft at 6,000 rpm) are taken; the step's values set again.
                for end in (630.0, -630.0):
                    self.assertEqual(inst.set_f([1], [end]), fmi3OK)
                self.assertEqual(inst.set_f([1, 3], [0.1 * k, 1.0]), fmi3OK)
                self.assertEqual(inst.set_f([13], [float("nan")]), fmi3Error)
                self.assertEqual(inst.set_f([14], [-1.0]), fmi3Error)
                self.assertEqual(inst.set_i([10], [3]), fmi3Error)
            self.assertEqual(inst.step(h), fmi3OK)
            self.assertEqual(clean.step(h), fmi3OK)
            self.assertEqual(inst.row(), clean.row())
        self.assertEqual(inst.get_i([46]), [5 * 8])
        clean.free()

    def test_calls_in_the_wrong_state_unknown_references_and_null_instances_are_errors(self):
        inst, lib, h = self.inst, self.f.lib, self.f.step_size
        self.assertEqual(inst.step(h), fmi3Error)  # before initialization
        self.assertIn("not allowed", inst.messages[-1][2])
        self.assertEqual(inst.set_f([999], [1.0]), fmi3Error)
        self.assertEqual(inst.set_f([30], [1.0]), fmi3Error)  # an output
        self.assertEqual(inst.set_f([21], [1.0]), fmi3Error)  # a constant
        self.assertEqual(inst.set_i([10], [2]), fmi3OK)  # fixed parameter before initialization
        self.assertEqual(inst.set_i([10], [1]), fmi3OK)
        self.assertEqual(inst.init(), fmi3OK)
        self.assertEqual(inst.set_i([10], [2]), fmi3Error)  # fixed parameter after it
        self.assertIn("fixed parameter", inst.messages[-1][2])
        self.assertEqual(inst.set_f([13], [0.4]), fmi3OK)  # tunable: allowed
        self.assertEqual(inst.step(1.5 * h), fmi3Error)  # not a whole multiple
        self.assertIn("whole multiple", inst.messages[-1][2])
        self.assertEqual(inst.step(h, at=inst.time + 0.5), fmi3Error)  # wrong communication point
        self.assertEqual(inst.step(h), fmi3OK)
        self.assertEqual(lib.fmi3EnterEventMode(inst.handle), fmi3Error)
        self.assertEqual(lib.fmi3ExitInitializationMode(None), fmi3Error)
        self.assertEqual(lib.fmi3DoStep(None, 0.0, h, False, None, None, None, None), fmi3Error)
        out = (ctypes.c_double * 1)()
        self.assertEqual(lib.fmi3GetFloat64(None, (ctypes.c_uint32 * 1)(30), 1, out, 1), fmi3Error)
        categories = (ctypes.c_char_p * 1)(b"logNoSuchCategory")
        self.assertEqual(lib.fmi3SetDebugLogging(inst.handle, True, 1, categories), fmi3Error)
        self.assertEqual(lib.fmi3Terminate(inst.handle), fmi3OK)
        self.assertEqual(inst.step(h), fmi3Error)

    def test_a_wrong_token_or_event_mode_instantiates_nothing(self):
        wrong = Instance(self.f.lib, fmu("pc").token, "wrong token")
        self.assertIsNone(wrong.handle)
        self.assertIn("token", wrong.messages[-1][2])
        events = Instance(self.f.lib, self.f.token, "events", event_mode=True)
        self.assertIsNone(events.handle)

    def test_a_fault_is_an_error_and_reset_recovers(self):
        inst, h = self.inst, self.f.step_size
        self.assertEqual(inst.set_i([10], [2]), fmi3OK)  # torque-driven motor
        self.assertEqual(inst.init(), fmi3OK)
        # Full torque, no load: runs away past the plausibility limit (2000 rad/s, PlantLimits) within
        # 10 s (at 150 N m on P1's 0.25 kg m^2 alone, 600 rad/s^2).
        inst.set_f([2, 3], [150.0, 0.0])
        status = fmi3OK
        for _ in range(1000):
            status = inst.step(10 * h)
            if status != fmi3OK:
                break
        self.assertEqual(status, fmi3Error)
        self.assertIn(inst.get_i([43])[0], (2, 3, 4))
        self.assertEqual(inst.messages[-1][0], fmi3Error)
        self.assertEqual(inst.step(h), fmi3Error)  # faulted: no more steps
        self.assertEqual(inst.lib.fmi3Terminate(inst.handle), fmi3OK)  # importers terminate before freeing
        self.assertEqual(inst.step(h), fmi3Error)
        self.assertEqual(inst.lib.fmi3Reset(inst.handle), fmi3OK)
        self.assertEqual(inst.get_i([43, 10]), [0, 1])
        self.assertEqual(inst.init(), fmi3OK)
        inst.set_f([1, 3], [5.0, 0.0])
        self.assertEqual(inst.step(10 * h), fmi3OK)
        self.assertGreater(inst.get_f([32])[0], 0.0)


def main():
    global ARGS
    parser = argparse.ArgumentParser()
    parser.add_argument("--mcu", required=True)
    parser.add_argument("--pc", required=True)
    parser.add_argument("--reference", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--scenario", help="the FMU of host_sim/scenarios/accessory_drive_eulerian.toml (BELTSIM_FMU_SCENARIO)")
    ARGS, rest = parser.parse_known_args()
    os.makedirs(ARGS.work, exist_ok=True)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
