// Gross slip on an eulerian mesh, for the drive fixtures of tests/host/test_eulerian_drive.cpp
// and tests/host/test_eulerian_drive.cpp: the paper's drive with mu = 0.3 and 30 N m on P2 from 1.0 to
// 1.5 s, more than friction can carry, so the belt slides over P1's whole wrap (the law as in
// tests/system/gross_slip.py). Over the last 0.15 s F1/F2 within `bound` of e^(0.3 pi) = 2.566; while
// the belt slides (from 1.5 s) under 1 % of the steps flagged, never 10 in a row. omega_P2 is printed
// against P2's balance (R (F1 + F2) tanh(0.15 pi) - 30) / 2.
// Fixture: loadTorque, paperConfig(), start(config), step(k), stepper, tightForce(), slackForce(),
// Drive::pulleyDof.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "paper_scenario.hpp"

namespace beltsim::test {

template <class Fixture>
void checkGrossSlip(const char* label, double stepSize, double bound) {
  constexpr double kMu = 0.3, kLoad = 30.0, kDamper = 2.0, kTheta = 3.14159265358979323846;
  Fixture d;
  d.loadTorque = kLoad;
  PlantConfig config = Fixture::paperConfig();
  config.contact.frictionCoefficient = kMu;
  ASSERT_TRUE(d.start(config));
  const int steps = static_cast<int>(kPaperEndTime / stepSize + 0.5);
  const int tail = static_cast<int>(kPaperTail / stepSize + 0.5);
  const int slideFrom = static_cast<int>(1.5 / stepSize + 0.5);
  double omega = 0.0, tight = 0.0, slack = 0.0;
  int flagged = 0, run = 0, longestRun = 0;
  for (int k = 1; k <= steps; ++k) {
    const StepStatistics st = d.step(k);
    ASSERT_EQ(st.status, Status::kOk) << "step " << k;
    if (k > slideFrom) {
      const bool f = (st.flags & (kStepNewtonNotConverged | kStepPnsNotConverged)) != 0;
      flagged += f ? 1 : 0;
      run = f ? run + 1 : 0;
      longestRun = std::max(longestRun, run);
    }
    if (k > steps - tail) {
      omega += d.stepper->velocities()(Fixture::Drive::pulleyDof(1, 2)) / tail;
      tight += d.tightForce() / tail;
      slack += d.slackForce() / tail;
    }
  }
  const double capstan = std::exp(kMu * kTheta);
  const double radius = config.pulley[0].radius + 0.5 * config.belt.thickness;
  const double omegaLaw = (radius * (tight + slack) * std::tanh(0.5 * kMu * kTheta) - kLoad) / kDamper;
  std::printf("[figure] gross slip, %s: F1/F2 %.4f against e^(mu pi) %.4f (%+.2f %%), omega_P2 %.3f against "
              "%.3f (%+.2f %%), flagged %d of %d sliding steps, longest run %d\n",
              label, tight / slack, capstan, 100 * (tight / slack / capstan - 1.0), omega, omegaLaw,
              100 * (omega / omegaLaw - 1.0), flagged, steps - slideFrom, longestRun);
  EXPECT_LT(std::abs(tight / slack / capstan - 1.0), bound);
  EXPECT_LT(flagged, (steps - slideFrom) / 100);
  EXPECT_LT(longestRun, 10);
}

}  // namespace beltsim::test
