// Shared by the host tests of the Newton matrix: the microcontroller-sized drive (24 elements at
// 1 ms, trapezoidal rule, a tenth of the paper's contact and bristle stiffness; see
// firmware/plant_config.hpp) run into a state with sticking and slipping contacts, and the
// iteration point of that state.
#pragma once
#include <cmath>

#include "beltsim/system/plant.hpp"

namespace beltsim::test {

constexpr int kSmallDriveElements = 24;
using SmallPlant = BeltDrivePlant<kSmallDriveElements>;
using SmallDrive = SmallPlant::Drive;
using SmallVector = SmallDrive::Vector;

inline PlantConfig smallDriveConfig(bool changedContactsOnly = false, bool reuse = false) {
  PlantConfig c;
  c.pulley[0].kind = PulleyKind::kSpeedDriven;
  c.contact.stiffness = 4e8;
  c.contact.bristleStiffness = 5e8;
  c.contact.damping = 8e4;
  c.stepSize = 1e-3;
  c.integrator.newmark = true;
  c.integrator.maxNewtonIterations = 8;
  c.integrator.relativeTolerance = 1e-8;
  c.integrator.absoluteTolerance = 1e-7;
  c.integrator.warmStartPns = true;
  c.integrator.updateChangedContactsOnly = changedContactsOnly;
  c.integrator.reuseJacobian = reuse;
  return c;
}

inline PlantCommand rampCommand(int step) {
  PlantCommand cmd;
  cmd.input[0] = linearRamp(step * 1e-3, 0.05, 0.35, 0.0, 12.0);
  return cmd;
}

// A plant run 0.2 s into the ramp to 12 rad/s (built once).
inline SmallPlant& runningPlant() {
  static SmallPlant plant;
  static bool ready = false;
  if (!ready) {
    if (!plant.setUp(smallDriveConfig()).ok() || !plant.start().converged) return plant;
    for (int k = 1; k <= 200; ++k) plant.step(rampCommand(k));
    ready = true;
  }
  return plant;
}

// Newton direction of the drive's current matrix for a fixed right-hand side.
inline SmallVector solveWith(const SmallDrive& drive) {
  SmallVector rhs;
  for (int i = 0; i < SmallDrive::kSize; ++i) rhs(i) = std::sin(0.37 * i + 0.1);
  SmallVector x;
  if (drive.solve(rhs, x) != Status::kOk) x.setConstant(NAN);
  return x;
}

struct Point {
  SmallVector q, v, a;
  IntegratorCoefficients coefficients;
  IterationPoint<SmallVector> at(double t) const { return {&q, &v, &a, t, &coefficients}; }
};

inline Point pointOf(const SmallPlant& plant) {
  Point p;
  p.q = plant.positions();
  p.v = plant.velocities();
  p.a.setZero();
  IntegratorSettings s;
  s.newmark = true;
  p.coefficients = IntegratorCoefficients::make(s, 1e-3);
  return p;
}

}  // namespace beltsim::test
