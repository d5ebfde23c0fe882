// Scenario files of the host simulator: a TOML description of one belt drive and its run.
// Parsing checks every key against the schema below; any error names the file, the key and the
// line, and nothing is simulated. `--set KEY=VALUE` overrides are applied before the checks.
#pragma once
#include <string>
#include <vector>

#include "beltsim/belt_drive.hpp"
#include "beltsim/static_equilibrium.hpp"

namespace beltsim::host {

struct PulleySpec {
  std::string name;
  CircleParameters circle;
};

struct Scenario {
  std::string file;   // path it was read from
  std::string title;

  // [belt]
  int elements = 60;
  BeltParameters belt;  // belt.element.length comes from the geometry

  // [contact] (per-area values; per-segment = per-area x width x L / segments, spec §9.1)
  int segmentsPerElement = 4;
  double contactStiffnessPerArea = 4e9;  // N/m^3
  double contactDampingPerArea = 8e4;    // N s/m^3
  double normalExponent = 1.0;
  bool useSegmentNormals = true;
  bool useBoundingBox = true;

  // [friction]
  double frictionCoefficient = 0.5;
  double bristleStiffnessPerArea = 5e9;  // N/m^3
  // mu_v per segment = 2 zeta sqrt(mu_k m_seg); zeta = 1/sqrt(2) is what the paper's data used.
  double velocityPenaltyDampingRatio = 0.7071067811865476;
  TangentialLaw law = TangentialLaw::kBristle;
  double characteristicVelocity = 1e-3;

  // [[pulley]] in belt travel order (the belt runs clockwise around them)
  std::vector<PulleySpec> pulleys;

  // [solver]
  double stepSize = 5e-5;
  double endTime = 2.45;
  IntegratorSettings integrator;

  // [static]
  StaticSettings staticSettings;

  // [output]
  double sampleInterval = 1e-3;  // s, rows of timeseries.csv
  bool plots = true;
};

// Element counts compiled into the host build (the model's element count is a template
// parameter).
const std::vector<int>& supportedElementCounts();

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
