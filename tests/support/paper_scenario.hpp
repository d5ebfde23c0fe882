// The paper's belt-drive scenario (paper [P] Sect. 4.3) through a BeltDrivePlant, for tests and
// benchmarks of the firmware configurations: P1's speed ramps 0 -> 12 rad/s over 0.05..0.6 s, the
// load torque on P2 rises smoothly 0 -> 25 N m over 1.0..1.5 s, end at 2.45 s; the tail means are
// taken over the last 0.15 s, as the paper's Table 4.
#pragma once
#include <cstdint>

#include "beltsim/system/plant.hpp"
#include "beltsim/system/profiles.hpp"

namespace beltsim::test {

// Paper Table 4 (paper [P]), 240 elements: means of the last 0.15 s (omega_P2, drive torque) and
// span forces at 2.45 s.
constexpr double kPaperOmegaP2 = 11.3405;    // rad/s
constexpr double kPaperDriveTorque = 47.68;  // N m
constexpr double kPaperTightForce = 665.22;  // N
constexpr double kPaperSlackForce = 186.65;  // N
constexpr double kPaperEndTime = 2.45;       // s
constexpr double kPaperTail = 0.15;          // s

inline PlantCommand paperCommand(double t) {
  PlantCommand c;
  c.input[0] = linearRamp(t, 0.05, 0.6, 0.0, 12.0);
  c.input[1] = smoothStep(t, 1.0, 1.5, 0.0, 25.0);
  return c;
}

struct PaperRun {
  int steps = 0;
  int flagged = 0;       // steps not converged (Newton or PNS flag)
  int faultStep = 0;     // first step with a fault, 0 if none
  double omegaP2 = 0.0;  // tail means
  double omegaP1 = 0.0;
  double driveTorque = 0.0;
  double tightForce = 0.0;
  double slackForce = 0.0;
  double maxResidual = 0.0;  // N, largest reported residual norm
  double maxPnsError = 0.0;  // N
};

// Runs the scenario from a started plant; `observe(k, out)` is called after every step k (1..).
template <typename Plant, typename Observer>
PaperRun runPaperScenario(Plant& plant, double stepSize, Observer&& observe) {
  PaperRun run;
  const int steps = static_cast<int>(kPaperEndTime / stepSize + 0.5);
  const int tail = static_cast<int>(kPaperTail / stepSize + 0.5);
  for (int k = 1; k <= steps; ++k) {
    const PlantOutput out = plant.step(paperCommand(k * stepSize));
    observe(k, out);
    run.steps = k;
    if (out.fault != PlantFault::kNone) {
      run.faultStep = k;
      return run;
    }
    if (!out.converged) ++run.flagged;
    if (out.residualNorm > run.maxResidual) run.maxResidual = out.residualNorm;
    if (out.pnsError > run.maxPnsError) run.maxPnsError = out.pnsError;
    if (k > steps - tail) {
      run.omegaP1 += out.speed[0] / tail;
      run.omegaP2 += out.speed[1] / tail;
      run.driveTorque += out.torque[0] / tail;
      run.tightForce += out.spanForce[0] / tail;
      run.slackForce += out.spanForce[1] / tail;
    }
  }
  return run;
}

template <typename Plant>
PaperRun runPaperScenario(Plant& plant, double stepSize) {
  return runPaperScenario(plant, stepSize, [](int, const PlantOutput&) {});
}

}  // namespace beltsim::test
