// Scenario files of the host simulator: a TOML description of one belt drive and its run.
// Parsing checks every key against the schema below; any error names the file, the key and the
// line, and nothing is simulated. `--set KEY=VALUE` overrides are applied before the checks.
#pragma once
#include <string>
#include <vector>

#include "beltsim/system/belt_drive.hpp"
#include "beltsim/system/belt_geometry.hpp"
#include "beltsim/system/emulated_sensors.hpp"
#include "beltsim/system/injected_faults.hpp"
#include "beltsim/system/paper_parameters.hpp"
#include "beltsim/system/eulerian_stations.hpp"
#include "beltsim/stepping/static_equilibrium.hpp"

namespace beltsim::host {

// Pulleys a scenario may have (closed belt: 2 or more; open cable: 0 or more).
constexpr int kMaxPulleys = 8;

struct PulleySpec {
  std::string name;
  std::string kind;  // as written: speed, torque, fixed_axis, fixed, floating
  PulleyParameters circle;
  int line = 0;      // of its [[pulley]] table, for errors found after parsing
};

struct Scenario {
  std::string file;   // path it was read from
  std::string title;

  // [belt]
  int elements = 60;
  // mesh = "eulerian": the eulerian mesh (closed belts; docs/model_element.md §2.11); "material"
  // (default): elements that travel with the belt.
  bool eulerianMesh = false;
  // Its grading (`wrap_density`, `wrap_grading`; eulerian_stations.hpp): the program's
  // unless the file says more.
  MeshGrading grading;
  BeltParameters belt;  // belt.element.length comes from the geometry (closed) or the nodes (open)

  // [belt] of an open cable (closed = false): its initial nodes, elements + 1 of them, from
  // `start` and `end` (a straight cable) or from `nodes` (a polyline). Ends: belt.startEnd,
  // belt.finishEnd (`start_end`, `finish_end`: free, pinned = x and y held, clamped = x, y and
  // the slope held).
  std::vector<Vector2> cableNodes;

  // Per-area values of [contact] (stiffness_per_area, damping_per_area) and [friction]
  // (coefficient, bristle_stiffness_per_area, velocity_penalty_damping_ratio), kept in the model's
  // own type: `beltsim run` and `beltsim hil` both hand this to contactFromPerArea (per-segment =
  // per-area x width x L / segments, docs/model_start_and_benchmark.md §9.1), so the two cannot map them differently.
  ContactPerArea contactPerArea = scenarioContactDefaults();
  // Decision: scenarios measure gaps to the arc through each segment's ends unless they
  // ask for the paper's chord gap (the paper's validation does); the penetration compensation is
  // off (measured worse against the 240-element paper run: docs/validation_and_convergence.md,
  // *Segment geometry*).
  // scripts/scenario_to_plant_config.py keeps the same defaults.
  static ContactPerArea scenarioContactDefaults() {
    ContactPerArea c;
    c.gapMeasure = SegmentGapMeasure::kArc;  // [contact] segment_gap
    c.penetrationCompensation = false;       // [contact] penetration_compensation
    return c;
  }

  // [contact] (the per-area values are in contactPerArea)
  int segmentsPerElement = 4;
  double normalExponent = 1.0;
  bool useSegmentNormals = true;
  bool useBoundingBox = true;

  // [friction] (coefficient, bristle stiffness and damping ratio are in contactPerArea)
  TangentialLaw law = TangentialLaw::kBristle;
  double characteristicVelocity = 1e-3;

  // [[pulley]] in belt travel order (the belt runs clockwise around them), 2 to kMaxPulleys
  std::vector<PulleySpec> pulleys;

  // [solver]
  double stepSize = 5e-5;
  double endTime = 2.45;
  IntegratorSettings integrator;

  // [static]
  StaticSettings staticSettings;
  // start = "equilibrium" (default): the static equilibrium; "rest": the drawn configuration at
  // rest, with accelerations consistent with it (BeltDrive::consistentAccelerations).
  bool startAtRest = false;

  // [output]
  double sampleInterval = 1e-3;  // s, rows of timeseries.csv
  bool plots = true;
  std::vector<int> outputNodes;  // belt nodes whose positions are written (node_x_k, node_y_k)

  // [sensors]: the emulated encoders and load cells (given: their columns in timeseries.csv).
  SensorSettings sensors;
  bool hasSensors = false;

  // [[fault]] (docs/injected_faults.md): the injected faults in file order, and each table's line.
  InjectedFaultSchedule faults;
  int faultLine[kMaxInjectedFaults] = {};
};

// Whether a run emulates the encoders and load cells: [sensors] given or a sensor fault scheduled.
inline bool sensorsWanted(const Scenario& s) {
  for (int k = 0; k < s.faults.count; ++k)
    if (isEncoderFault(s.faults.fault[k].kind) || isLoadCellFault(s.faults.fault[k].kind)) return true;
  return s.hasSensors;
}

// Pulley p as the belt's path sees it (docs/model_start_and_benchmark.md §8.1): centreline radius r + h/2 on the belt's side.
PathCircle pathCircleOf(const Scenario& s, int p);

// Element counts compiled into the host build (the model's element count is a template
// parameter).
const std::vector<int>& supportedElementCounts();
// Those of the eulerian mesh.
const std::vector<int>& supportedEulerianElementCounts();

struct ParseResult {
  bool ok = false;
  std::string error;  // "FILE:LINE: key 'a.b': message"
};

// Reads `path`, applies `overrides` ("key.path=value"), checks everything.
ParseResult loadScenario(const std::string& path, const std::vector<std::string>& overrides, Scenario& out);

// The same from a TOML text in memory (`fileName` is used in error messages and Scenario::file).
ParseResult parseScenarioText(const std::string& text, const std::string& fileName,
                              const std::vector<std::string>& overrides, Scenario& out);

}  // namespace beltsim::host
