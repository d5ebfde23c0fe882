// Centrifugal tension on the paper's drive, unloaded (tests/host/test_eulerian_drive.cpp and
// tests/host/test_eulerian_drive.cpp): the paper's two equal pulleys on fixed centres, no gravity, no
// damper on P2, P1 brought to 105 rad/s over 1 s (belt at 10.5 m/s: rho A v^2 = 91 N, more than a
// fifth of the 400 N pre-tension) and held; P2's hub load, tail mean over the last 0.1 s, against
// 2 (T0 - rho A v^2 / (1 + alpha)).
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "beltsim/system/plant.hpp"
#include "beltsim/system/profiles.hpp"

namespace beltsim::test {

constexpr double kSpinSpeed = 105.0;               // rad/s
constexpr double kSpinEnd = 1.3, kSpinTail = 0.1;  // s

inline PlantConfig spinningConfig(double stepSize) {
  PlantConfig config;
  config.stepSize = stepSize;
  config.contact.gapMeasure = SegmentGapMeasure::kArc;
  config.belt.element.gravity = Vector2::Zero();
  config.pulley[1].rotationalDamping = 0.0;
  config.limits.maxMotorSpeed = 120.0;
  return config;
}

inline double spinCommand(double t) { return linearRamp(t, 0.05, 1.05, 0.0, kSpinSpeed); }

// Hub load of a belt on two equal pulleys (fixed centres) running at the spatial speed v:
// 2 (T0 - rho A v^2 / (1 + alpha)), alpha = 2 pi EA / (L0 R k). The wraps' contact pressure is
// (T - rho A v^2) / R; the belt's length, fixed by the path, lets the span tension rise by only
// rho A v^2 alpha / (1 + alpha) as the pressure, and with it the penetration, falls. T0 the
// drive's own static span tension, rho A per current length (rho A0 / |r'|, |r'| = 1 + eps0 +
// T / EA in the span), R the belt's centre-line radius, k the contact stiffness per length.
inline double centrifugalHubLoad(const PlantConfig& config, double staticTension, double spanTension, double speed) {
  constexpr double kPi = 3.14159265358979323846;
  const auto& e = config.belt.element;
  const double radius = config.pulley[0].radius + 0.5 * config.belt.thickness;
  const double centres = (config.pulley[1].centre - config.pulley[0].centre).norm();
  const double length = 2.0 * centres + 2.0 * kPi * radius;  // L0: the path
  const double k = config.contact.stiffness * config.belt.width;
  const double alpha = 2.0 * kPi * e.EA / (length * radius * k);
  const double stretch = 1.0 + e.referenceAxialStrain + spanTension / e.EA;
  const double centrifugal = e.massPerLength / stretch * speed * speed;
  return 2.0 * (staticTension - centrifugal / (1.0 + alpha));
}

// The spin on a drive fixture (start(config), drive, stepper, tightForce(), slackForce()): P2's hub
// load within `bound` of the law; `label` names the mesh in the printed figure.
template <class Fixture>
void checkCentrifugalHubLoad(const char* label, double stepSize, double bound) {
  const PlantConfig config = spinningConfig(stepSize);
  const int steps = static_cast<int>(kSpinEnd / stepSize + 0.5), tail = static_cast<int>(kSpinTail / stepSize + 0.5);
  const double speed = kSpinSpeed * (config.pulley[0].radius + 0.5 * config.belt.thickness);
  Fixture d;
  ASSERT_TRUE(d.start(config));
  const double staticTension = 0.5 * (d.tightForce() + d.slackForce());
  double hub = 0.0, span = 0.0;
  for (int k = 1; k <= steps; ++k) {
    BeltDriveInput<2> input;
    input.useCommand[0] = input.useCommand[1] = true;
    input.command[0] = spinCommand(k * stepSize);
    input.command[1] = 0.0;
    d.drive->setInput(input);
    const StepStatistics st = d.stepper->step(*d.drive);
    ASSERT_EQ(st.status, Status::kOk) << "step " << k;
    if (k > steps - tail) {
      hub += d.drive->hubForce(1).norm() / tail;
      span += 0.5 * (d.tightForce() + d.slackForce()) / tail;
    }
  }
  const double law = centrifugalHubLoad(config, staticTension, span, speed);
  std::printf("[figure] centrifugal, %s: T0 %.2f N, span %.2f N, hub %.2f N, law %.2f N (%+.2f %%)\n", label,
              staticTension, span, hub, law, 100 * (hub / law - 1.0));
  EXPECT_LT(std::abs(hub / law - 1.0), bound);
}

}  // namespace beltsim::test
