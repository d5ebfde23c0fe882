#!/usr/bin/env python3
"""scripts/scenario_to_plant_config.py (firmware built from a scenario, issue 16): a file the
firmware plant cannot run is refused with one line naming the key (and its line), and nothing is
written; a valid file of another drive gives that drive's numbers. That the generated plant is
the scenario's plant bit for bit is host_hil_scenario (FirmwareConfigs.*).

Usage: scenario_to_plant_config_test.py SOURCE_DIR WORK_DIR
"""
import os
import re
import subprocess
import sys


def generate(source, text, work, name):
    path = os.path.join(work, name + ".toml")
    with open(path, "w") as f:
        f.write(text)
    out = os.path.join(work, name + ".hpp")
    if os.path.exists(out):
        os.remove(out)
    p = subprocess.run([sys.executable, os.path.join(source, "scripts", "scenario_to_plant_config.py"), path, out, "user"],
                       capture_output=True, text=True, timeout=60)
    return p, out


def main():
    source, work = sys.argv[1:3]
    os.makedirs(work, exist_ok=True)
    # The cases below add their own stepping keys and acceleration limits: the base is the
    # microcontroller drive on the material mesh (host_sim/scenarios/hil_belt_drive.toml) without
    # the ones it sets itself (TOML refuses a key twice).
    own = ("stepping", "fixed_newton_iterations", "frozen_state_iterations", "refresh_steps", "switch_columns",
           "refactor_pairs", "columns_after_refactor", "block_age_steps", "renewal_pairs", "fixed_residual_tolerance",
           "max_acceleration")
    base = "".join(line for line in open(os.path.join(source, "host_sim", "scenarios", "hil_belt_drive.toml"))
                   if line.split("=")[0].strip() not in own)
    eulerian = base.replace("elements = 24\n", "mesh = \"eulerian\"\nelements = 16\n")
    load = base[base.index('[[pulley]]\nname = "load"'):base.index("[solver]")]
    cases = [
        ("nine pulleys", base.replace("[solver]", load * 7 + "[solver]"),
         r":\d+: key 'pulley': the firmware plant takes 2 to 8 pulleys; this file has 9"),
        ("a motor that is not driven", base.replace('name = "motor"\nkind = "torque"', 'name = "motor"\nkind = "fixed_axis"'),
         r":\d+: key 'pulley\[0\].kind': pulley 1 is the motor of the firmware images"),
        ("a tensioner without its arm", base.replace('name = "load"\nkind = "fixed_axis"', 'name = "load"\nkind = "tensioner"'),
         r":\d+: key 'pulley\[1\].arm': a tensioner needs an \[pulley.arm\] table"),
        ("an arm without its pivot",
         base.replace('name = "load"\nkind = "fixed_axis"', 'name = "load"\nkind = "tensioner"').replace(
             "[solver]", "[pulley.arm]\nstiffness = 30.0\npreload_angle = 0.5\n\n[solver]"),
         r":(\d+): key 'pulley\[1\].arm.pivot': missing"),
        ("an open belt", base.replace("elements = 24\n", "elements = 24\nclosed = false\n"),
         r":\d+: key 'belt.closed': the firmware plant does not support it"),
        ("six contact segments", base.replace("segments_per_element = 4", "segments_per_element = 6"),
         r":\d+: key 'contact.segments_per_element': the firmware plant takes 1 to 4"),
        ("point-wise normals", base.replace("[friction]", "segment_normals = false\n\n[friction]"),
         r":\d+: key 'contact.segment_normals': the firmware plant does not support it \(point-wise normals\)"),
        ("an unknown key", base.replace("[solver]\n", "[solver]\nstep_sise = 1e-4\n"),
         r":(\d+): key 'solver.step_sise': unknown key"),
        ("a wrong type", base.replace("max_pns = 5", "max_pns = \"five\""), r"key 'solver.max_pns': expected an integer"),
        ("malformed TOML", "[belt\nelements = 24\n", r"error: .*user_\d+\.toml"),
        # The eulerian mesh's stepping and the material mesh's take their own keys, as beltsim
        # reads them.
        ("the material mesh's switch columns on the eulerian mesh",
         eulerian.replace("[solver]\n", "[solver]\nstepping = \"fixed_cost\"\nswitch_columns = 2\n"),
         r":\d+: key 'solver.switch_columns': applies to the material mesh only"),
        ("the eulerian mesh's passes on the material mesh", base.replace("[solver]\n", "[solver]\npost_newton_passes = 5\n"),
         r":\d+: key 'solver.post_newton_passes': applies to the eulerian mesh only"),
        ("the eulerian mesh's grading on the material mesh", base.replace("elements = 24\n", "elements = 24\nwrap_density = 2.0\n"),
         r":\d+: key 'belt.wrap_density': only the eulerian mesh"),
        ("an unknown stepping", base.replace("[solver]\n", "[solver]\nstepping = \"fast\"\n"),
         r":\d+: key 'solver.stepping': 'fast' is not one of: fixed_cost, reference"),
        ("a refresh longer than the mesh", base.replace("[solver]\n", "[solver]\nstepping = \"fixed_cost\"\nrefresh_steps = 30\n"),
         r":\d+: key 'solver.refresh_steps': more refresh steps than elements \(24\)"),
        ("more frozen-state iterations than iterations",
         base.replace("[solver]\n", "[solver]\nstepping = \"fixed_cost\"\nfixed_newton_iterations = 2\nfrozen_state_iterations = 3\n"),
         r":\d+: key 'solver.frozen_state_iterations': must be 0..fixed_newton_iterations \(2\)"),
        ("re-factorized pairs with a sliced refresh",
         base.replace("[solver]\n", "[solver]\nstepping = \"fixed_cost\"\nrefresh_steps = 4\nrefactor_pairs = 6\n"),
         r":\d+: key 'solver.refactor_pairs': needs refresh_steps = 1 \(the matrix rebuilt after every step\)"),
        ("an aged rebuild of no steps",
         base.replace("[solver]\n", "[solver]\nstepping = \"fixed_cost\"\nrefresh_steps = 1\nblock_age_steps = 0\n"),
         r":\d+: key 'solver.block_age_steps': out of range: 0 not in \[1, 64\]"),
        ("a stick memory of no known kind",
         base.replace("[friction]\n", "[friction]\nstick_memory = \"pulley\"\n"),
         r":\d+: key 'friction.stick_memory': 'pulley' is not one of: element, segment"),
        ("a contractivity limit of 0 (a new Newton matrix at every iteration is max_newton's job)",
         base.replace("[solver]\n", "[solver]\ncontractivity_limit = 0.0\n"),
         r":\d+: key 'solver.contractivity_limit': out of range: 0 not in \(0, 1\]"),
        ("more re-factorized pairs than a step may take",
         base.replace("[solver]\n", "[solver]\nstepping = \"fixed_cost\"\nrefresh_steps = 1\nrefactor_pairs = 99\n"),
         r":\d+: key 'solver.refactor_pairs': out of range: 99 not in \[0, 16\]"),
        ("an aged rebuild with a sliced refresh",
         base.replace("[solver]\n", "[solver]\nstepping = \"fixed_cost\"\nrefresh_steps = 4\nblock_age_steps = 4\n"),
         r":\d+: key 'solver.block_age_steps': needs refresh_steps = 1 \(the matrix rebuilt after every step\)"),
        ("an acceleration limit on the load pulley",
         base.replace('name = "load"\nkind = "fixed_axis"\n', 'name = "load"\nkind = "fixed_axis"\nmax_acceleration = 500.0\n'),
         r":\d+: key 'pulley\[1\].max_acceleration': only a motor \(kind = \"speed\" or \"torque\"\) has an acceleration limit"),
        ("a negative acceleration limit",
         base.replace('name = "motor"\nkind = "torque"\n', 'name = "motor"\nkind = "torque"\nmax_acceleration = -1.0\n'),
         r":\d+: key 'pulley\[0\].max_acceleration': out of range: -1 not in \[0, 1e\+09\]"),
    ]
    passed = failed = 0
    for i, (name, text, pattern) in enumerate(cases):
        p, out = generate(source, text, work, f"user_{i}")
        message = p.stderr.strip()
        problems = []
        if p.returncode == 0:
            problems.append("accepted")
        if not re.search(pattern, message):
            problems.append(f"message does not match '{pattern}'")
        if len(message.splitlines()) != 1:
            problems.append("not one line")
        if os.path.exists(out):
            problems.append("a header was written")
        if name == "an unknown key" and not problems:
            line = int(re.search(pattern, message).group(1))
            if "step_sise" not in text.splitlines()[line - 1]:
                problems.append(f"line {line} is not the key's line")
        if problems:
            print(f"FAILED {name}: {'; '.join(problems)}: {message}")
            failed += 1
        else:
            print(f"ok {name}: {message}")
            passed += 1
    # Another drive: its numbers reach the header (30 elements, a 1.5 N m s load damper, the
    # motor speed-driven).
    other = base.replace("elements = 24", "elements = 30").replace("damping = 2.0", "damping = 1.5") \
                .replace('kind = "torque"', 'kind = "speed"') \
                .replace("[solver]\n", "[solver]\nstepping = \"fixed_cost\"\nfixed_newton_iterations = 3\nfrozen_state_iterations = 1\nrefresh_steps = 5\n")
    accepted = [
        ("another drive", "its element count, damper, motor mode and stepping are in the header", other,
         ["constexpr int kUserElements = 30;", "c.pulley[1].rotationalDamping = 1.5;", "constexpr int kUserPulleys = 2;",
          "constexpr MotorMode kUserMotorMode = MotorMode::kSpeed;", "inline PlantConfig userPlantConfig(MotorMode mode)",
          "c.integrator.stepping = Stepping::kFixedCost;", "c.integrator.fixedNewtonIterations = 3;",
          "c.integrator.frozenStateIterations = 1;", "c.integrator.refreshSteps = 5;",
          "constexpr PlantMesh kUserMesh = PlantMesh::kMaterial;"]),
        # The shipped microcontroller configuration (with a grading of its own): the eulerian mesh
        # and its passes.
        ("the eulerian configuration", "its mesh, grading and passes are in the header",
         open(os.path.join(source, "firmware", "configs", "microcontroller.toml")).read().replace(
             "[belt]\n", "[belt]\nwrap_density = 2.5\n"),
         ["constexpr int kUserElements = 16;", "constexpr PlantMesh kUserMesh = PlantMesh::kEulerian;",
          '#define BELTSIM_USER_MESH_TEXT "eulerian"', "c.grading.wrapDensity = 2.5;",
          "c.integrator.postNewtonPasses = 3;", "c.integrator.passUpdatePairs = 8;"]),
    ]
    for k, (name, what, text, expected) in enumerate(accepted):
        p, out = generate(source, text, work, f"user_ok_{k}")
        header = open(out).read() if p.returncode == 0 and os.path.exists(out) else ""
        missing = [e for e in expected if e not in header]
        if missing:
            print(f"FAILED {name}: {p.stderr.strip()} missing {missing}")
            failed += 1
        else:
            print(f"ok {name}: {what}")
            passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
