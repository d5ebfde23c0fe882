// What a drive fixture of an eulerian mesh needs (tests/host/test_eulerian_drive.cpp): the
// paper's configuration with the arc gap, the reference stepper's start at rest, one step of the
// paper's scenario, and the spread of a record.
#pragma once
#include <cmath>
#include <vector>

#include "beltsim/stepping/reference_stepper.hpp"
#include "beltsim/system/plant.hpp"
#include "paper_scenario.hpp"

namespace beltsim::test {

// The paper's drive with the arc gap (docs/model_contact.md §4.2) at the given step.
inline PlantConfig eulerianPaperConfig(double stepSize) {
  PlantConfig config;
  config.stepSize = stepSize;
  config.contact.gapMeasure = SegmentGapMeasure::kArc;
  return config;
}

// The stepper at rest at x: Newton's absolute tolerance 1e-8 N, the round-off floor of these
// drives' residuals being about 2e-9 N (docs/model_element.md §2.11).
template <class Stepper, class Vector>
bool startAtRest(Stepper& stepper, const PlantConfig& config, const Vector& x) {
  IntegratorSettings settings = config.integrator;
  settings.absoluteTolerance = 1e-8;
  if (!stepper.setUp(settings, config.stepSize).ok()) return false;
  stepper.initialize(x, Vector::Zero(), Vector::Zero(), 0.0);
  return true;
}

// The commands of step k of the paper's scenario: P1's speed profile, P2 braked by loadTorque
// from 1.0 to 1.5 s.
inline BeltDriveInput<2> paperScenarioInput(long k, double stepSize, double loadTorque) {
  const double t = k * stepSize;
  BeltDriveInput<2> input;
  input.useCommand[0] = input.useCommand[1] = true;
  input.command[0] = paperCommand(t).input[0];                   // P1: speed
  input.command[1] = -smoothStep(t, 1.0, 1.5, 0.0, loadTorque);  // P2: load torque, braking
  return input;
}

// Step k of the paper's scenario.
template <class Drive, class Stepper>
StepStatistics stepPaperScenario(Drive& drive, Stepper& stepper, int k, double stepSize, double loadTorque) {
  drive.setInput(paperScenarioInput(k, stepSize, loadTorque));
  return stepper.step(drive);
}

// Standard deviation over mean of a steady-state record (a test-side figure; std::vector is fine here).
inline double relativeSpread(const std::vector<double>& x) {
  double mean = 0.0, square = 0.0;
  for (double y : x) mean += y / x.size();
  for (double y : x) square += (y - mean) * (y - mean) / x.size();
  return std::sqrt(square) / std::abs(mean);
}

}  // namespace beltsim::test
