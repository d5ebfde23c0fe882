#!/usr/bin/env python3
"""One vocabulary: a name per concept in code, scenario keys and docs. The retired names
of the axial rule, the integrator and the stepping must not come back (CTest
`docs_vocabulary`, label `docs`).

Usage: check_vocabulary.py [REPO_ROOT]   (default: two folders above this script)

Scanned: the files tests/docs/check_doc_references.py scans. Retired, with the name now used:
  integration_scheme (scenario key)   belt.axial_rule
  solver.scheme, [solver] scheme =    solver.integrator
  IntegrationScheme                   AxialRule
  StepScheme                          Stepping
  SchemeCoefficients                  IntegratorCoefficients
  IntegratorSettings::scheme          IntegratorSettings::stepping (also `.integrator.scheme`)
  GeneralizedAlpha (the stepper)      ReferenceStepper (it also runs Newmark)
  CircleKind, CircleParameters        PulleyKind, PulleyParameters (the drive says pulley; only
  circleDof, circleCount, kCircles    the contact model, contact/, meets a circle)
  drive.circle(p), pulleys_.circle(p) drive.pulley(p)
  Mixed* (MixedBeltDrive, ...)        Eulerian* (the mesh users write as belt.mesh = "eulerian")
  mixed_belt_drive.hpp and the other  eulerian_belt_drive.hpp, eulerian_cable2d.hpp, ...
    mixed_*.hpp, standing_mesh_*.hpp
  "mesh that stands still", "form B"  the eulerian mesh
  material_flow_inertia.hpp,          flow_through_inertia.hpp, FlowThroughInertia (the retired
    MaterialFlowInertia, EulerianLoop   one-coordinate formulation of docs/model_element.md §2.10, tests
    test_eulerian_belt                  only; "eulerian" names the nodal-coordinate mesh alone)
The old key names stay where they are still read: the alias entries of host_sim/scenario_keys.toml
and the tests of the old names (ALIAS_TESTS).

Output: one line per retired name found ("path:line: 'old' is now 'new': text") and exit status 1,
or the number of files scanned and exit status 0.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_doc_references import read_text, text_files  # noqa: E402

RETIRED = (
    (r"\bintegration_scheme\b", "belt.axial_rule"),
    (r"\bsolver\.scheme\b", "solver.integrator"),
    (r"\bIntegrationScheme\b", "AxialRule"),
    (r"\bStepScheme\b", "Stepping"),
    (r"\bSchemeCoefficients\b", "IntegratorCoefficients"),
    (r"\bIntegratorSettings::scheme\b|\bintegrator\.scheme\b", "IntegratorSettings::stepping"),
    (r"\bGeneralizedAlpha\b", "ReferenceStepper"),
    (r"\bCircleKind\b", "PulleyKind"),
    (r"\bCircleParameters\b", "PulleyParameters"),
    (r"\bcircleDof\b", "pulleyDof"),
    (r"\bcircleCount\b", "pulleyCount"),
    (r"\bkCircles\b", "kPulleys"),
    (r"\b(?:drive|pulleys_?)\.circle\(|PulleyParameters& circle\(", "pulley(p)"),
    (r"\bMixed[A-Z]\w*", "Eulerian*"),
    (r"\bmixed_(?:belt|cable|flow|newton)\w*|\bstanding_?[mM]esh\w*|\bStandingMesh\w*", "eulerian_*"),
    (r"\bmesh that stands still\b|\bform B\b", "the eulerian mesh"),
    (r"\bmaterial_flow_inertia\b|\bMaterialFlow(?:Inertia|Terms)\b|\bEulerianLoop\b|\btest_eulerian_belt\b",
     "flow_through_* (the retired formulation of docs/model_element.md §2.10)"),
)
SELF = "tests/docs/check_vocabulary.py"
KEY_TABLE = "host_sim/scenario_keys.toml"
ALIAS_TESTS = ("tests/system/retired_scenario_keys.py",)


def retired_in(rel, text):
    errors = []
    table = ""
    for number, line in enumerate(text.splitlines(), 1):
        if rel == KEY_TABLE and re.match(r'^\s*alias\s*=', line):
            continue  # the retired names the readers still accept
        found = [(m.group(0), new) for pattern, new in RETIRED for m in re.finditer(pattern, line)]
        if rel.endswith(".toml"):
            header = re.match(r"^\s*\[+\s*([\w.]+)", line)
            table = header.group(1) if header else table
            if table == "solver" and re.match(r"^\s*scheme\s*=", line):
                found.append(("[solver] scheme", "integrator"))
        errors += [f"{rel}:{number}: '{old}' is now '{new}': {line.strip()[:100]}" for old, new in found]
    return errors


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
    errors, scanned = [], 0
    for rel in text_files(root):
        if rel == SELF or rel in ALIAS_TESTS:
            continue
        text = read_text(os.path.join(root, rel))
        if text is None:
            continue
        scanned += 1
        errors += retired_in(rel, text)
    for e in errors:
        print(e)
    if errors:
        print(f"{len(errors)} retired names in {scanned} files")
        return 1
    print(f"{scanned} files scanned, no retired names")
    return 0


if __name__ == "__main__":
    sys.exit(main())
