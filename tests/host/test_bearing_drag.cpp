// Bearing drag (an injected fault, docs/injected_faults.md; model in pulley_bodies.hpp): the
// elasto-plastic Coulomb torque T plus a viscous part on a pulley's rotation. References: central
// differences of the drag's torque and of the pulley's residual row for its Newton matrix entries; a pulley spinning against a Coulomb torque alone
// slows down at T / J and stops at t = J omega0 / T (rigid-body dynamics), then stays at rest
// under any torque below T; the viscous part alone gives omega0 exp(-c t / J).
#include <gtest/gtest.h>

#include <cmath>

#include "beltsim/system/pulley_bodies.hpp"

namespace {
using namespace beltsim;
using Bodies = PulleyBodies<2, 1>;
using Layout = DriveLayout<2, 1>;
constexpr int kPhi = Layout::pulleyDof(0, 2);

Bodies freePulley(double inertia) {
  PulleyParameters c;
  c.kind = PulleyKind::kFixedAxis;
  c.radius = 0.035;
  c.inertia = inertia;
  Bodies bodies;
  bodies.setCount(1);
  EXPECT_TRUE(bodies.setUp(0, c).ok());
  return bodies;
}

// The pulley alone under its drag and a constant applied torque, Newmark's average acceleration
// (beta 1/4, gamma 1/2) with the post-Newton step as the drive runs it: each step's Newton
// iterations hold the anchor, the post-Newton step moves it, until it no longer moves (at most 5
// times). Returns omega after `steps` steps of h from omega0; `stopped` gets the first time omega
// stays within 1e-3 rad/s of 0.
double spinDown(Bodies& bodies, double inertia, double omega0, double applied, double h, int steps, double& stopped) {
  Layout::Vector q = Layout::Vector::Zero(), v = Layout::Vector::Zero();
  v(kPhi) = omega0;
  bodies.anchorArms(q, v, DriveMode::kDynamic);
  double k = 0.0, c = 0.0;
  double a = (bodies.bearingTorque(0, 0.0, omega0, k, c) + applied) / inertia;  // consistent with the start
  stopped = -1.0;
  for (int n = 0; n < steps; ++n) {
    const double q0 = q(kPhi), v0 = v(kPhi), a0 = a;
    bodies.beginStep();
    for (int pns = 0; pns < 5; ++pns) {
      for (int it = 0; it < 20; ++it) {
        q(kPhi) = q0 + h * v0 + 0.25 * h * h * (a0 + a);
        v(kPhi) = v0 + 0.5 * h * (a0 + a);
        double k = 0.0, c = 0.0;
        const double r = inertia * a - bodies.bearingTorque(0, q(kPhi), v(kPhi), k, c) - applied;
        if (std::fabs(r) < 1e-13) break;
        a -= r / (inertia + 0.25 * h * h * k + 0.5 * h * c);
      }
      double error = 0.0;
      bodies.postNewtonStep(q, v, DriveMode::kDynamic, error);
      if (error < 1e-9) break;
    }
    if (std::fabs(v(kPhi)) > 1e-3) stopped = -1.0;
    else if (stopped < 0.0) stopped = (n + 1) * h;
  }
  return v(kPhi);
}

TEST(BearingDrag, SlopesMatchCentralDifferences) {
  // Reference: -dM/dphi and -dM/domega by central differences (1e-9 rad, 1e-9 rad/s), once in
  // stick (the pulley 1e-5 rad from its anchor, slow) and once sliding (fast: a constant torque
  // plus the viscous part).
  Bodies bodies = freePulley(1e-4);
  ASSERT_TRUE(bodies.setBearingDrag(0, 0.5, 0.02).ok());
  Layout::Vector q = Layout::Vector::Zero(), v = Layout::Vector::Zero();
  bodies.anchorArms(q, v, DriveMode::kDynamic);  // anchor at phi = 0
  const double d = 1e-9;
  for (const double omega : {1e-4, 50.0}) {
    const double phi = 1e-5;
    double k = 0.0, c = 0.0, k2 = 0.0, c2 = 0.0;
    bodies.bearingTorque(0, phi, omega, k, c);
    const double dPhi =
        -(bodies.bearingTorque(0, phi + d, omega, k2, c2) - bodies.bearingTorque(0, phi - d, omega, k2, c2)) / (2 * d);
    const double dOmega =
        -(bodies.bearingTorque(0, phi, omega + d, k2, c2) - bodies.bearingTorque(0, phi, omega - d, k2, c2)) / (2 * d);
    EXPECT_NEAR(k, dPhi, 1e-6 * (1.0 + std::fabs(k))) << "omega " << omega;
    EXPECT_NEAR(c, dOmega, 1e-6 * (1.0 + std::fabs(c))) << "omega " << omega;
  }
  double k = 0.0, c = 0.0;
  EXPECT_EQ(bodies.bearingTorque(0, 0.0, 50.0, k, c), -0.5 - 0.02 * 50.0);  // sliding: -T - c_v omega
  EXPECT_EQ(k, 0.0);
}

// Collects addMatrix's entry on the pulley's rotation.
struct RotationEntry {
  double value = 0.0;
  void addEntry(int row, int col, double v) {
    if (row == kPhi && col == kPhi) value += v;
  }
};

TEST(BearingDrag, PulleyRowsMatchCentralDifferencesOfTheResidual) {
  // Reference: the rotation row of PulleyBodies::addResidual (J a + D v - applied - M_b) by central
  // differences in phi, omega and the acceleration (1e-9 each) against addMatrix's entry with the
  // factors (0, 1, 0), (0, 0, 1) and (1, 0, 0): the drive's Newton matrix sees the drag's slopes with
  // the residual's signs. Once sticking (1e-5 rad from the anchor, slow), once sliding (fast).
  Bodies bodies = freePulley(1e-4);
  ASSERT_TRUE(bodies.setBearingDrag(0, 0.5, 0.02).ok());
  Layout::Vector q = Layout::Vector::Zero(), v = Layout::Vector::Zero(), a = Layout::Vector::Zero();
  bodies.anchorArms(q, v, DriveMode::kDynamic);
  StaticPhase<Layout::Vector> phase;  // dynamic
  auto row = [&](const Layout::Vector& qq, const Layout::Vector& vv, const Layout::Vector& aa) {
    Layout::Vector r = Layout::Vector::Zero();
    bodies.addResidual(0, qq, vv, aa, 0.0, phase, r);
    return r(kPhi);
  };
  auto entry = [&](const Layout::Vector& qq, const Layout::Vector& vv, double m, double k, double c) {
    RotationEntry e;
    bodies.addMatrix(0, qq, vv, m, k, c, DriveMode::kDynamic, e);
    return e.value;
  };
  const double d = 1e-9;
  for (const double omega : {1e-4, 50.0}) {
    q(kPhi) = 1e-5;
    v(kPhi) = omega;
    a(kPhi) = 3.0;
    Layout::Vector qp = q, qm = q, vp = v, vm = v, ap = a, am = a;
    qp(kPhi) += d;
    qm(kPhi) -= d;
    vp(kPhi) += d;
    vm(kPhi) -= d;
    ap(kPhi) += d;
    am(kPhi) -= d;
    const double K = (row(qp, v, a) - row(qm, v, a)) / (2 * d);
    const double D = (row(q, vp, a) - row(q, vm, a)) / (2 * d);
    const double M = (row(q, v, ap) - row(q, v, am)) / (2 * d);
    EXPECT_NEAR(entry(q, v, 0.0, 1.0, 0.0), K, 1e-6 * (1.0 + std::fabs(K))) << "omega " << omega;
    EXPECT_NEAR(entry(q, v, 0.0, 0.0, 1.0), D, 1e-6 * (1.0 + std::fabs(D))) << "omega " << omega;
    EXPECT_NEAR(entry(q, v, 1.0, 0.0, 0.0), M, 1e-6 * (1.0 + std::fabs(M))) << "omega " << omega;
    if (omega < 1.0) {
      EXPECT_GT(K, 1e3);  // sticking: the stick stiffness is in the row
    }
  }
}

TEST(BearingDrag, CoulombTorqueStopsAPulleyWhereRigidBodyDynamicsSaysAndHoldsIt) {
  // J 1e-4 kg m^2 at 100 rad/s against T = 0.05 N m: omega = 100 - 500 t, at rest from t = 0.2 s;
  // then a torque of 0.8 T applied for good: the drag holds it (stick within T / k_b of the anchor).
  const double J = 1e-4, T = 0.05, omega0 = 100.0, h = 1e-4;
  Bodies bodies = freePulley(J);
  ASSERT_TRUE(bodies.setBearingDrag(0, T, 0.0).ok());
  double stopped = -1.0;
  const double half = spinDown(bodies, J, omega0, 0.0, h, 1000, stopped);
  EXPECT_NEAR(half, omega0 - T / J * 0.1, 1e-6 * omega0);  // t = 0.1 s: still sliding
  Bodies again = freePulley(J);
  ASSERT_TRUE(again.setBearingDrag(0, T, 0.0).ok());
  const double end = spinDown(again, J, omega0, 0.0, h, 4000, stopped);
  // Within 10 steps: the stick mode (sqrt(k_b / J) = 1e4 rad/s, damping ratio 0.707) rings down
  // below 1e-3 rad/s in about 8.
  EXPECT_NEAR(stopped, J * omega0 / T, 10 * h);
  EXPECT_LT(std::fabs(end), 1e-9);
  // At rest with 0.8 T applied: stays (a regularized sign function would creep).
  Bodies held = freePulley(J);
  ASSERT_TRUE(held.setBearingDrag(0, T, 0.0).ok());
  const double creep = spinDown(held, J, 0.0, 0.8 * T, h, 5000, stopped);
  EXPECT_LT(std::fabs(creep), 1e-9);
  EXPECT_LE(std::fabs(held.bearingAnchor(0)), 1e-12);  // never slipped: the anchor stayed at 0
  // 1.2 T applied: it turns, accelerating at 0.2 T / J.
  Bodies turned = freePulley(J);
  ASSERT_TRUE(turned.setBearingDrag(0, T, 0.0).ok());
  const double turning = spinDown(turned, J, 0.0, 1.2 * T, h, 1000, stopped);
  EXPECT_NEAR(turning, 0.2 * T / J * 0.1, 0.01 * 0.2 * T / J * 0.1);
}

TEST(BearingDrag, ViscousPartAloneDecaysExponentially) {
  // omega0 exp(-c t / J) at t = 0.1 s, c = 1e-3 N m s/rad, J = 1e-4: the trapezoidal rule's error
  // (h = 1e-4, c h / J = 1e-3) is far below the 1e-5 asked.
  const double J = 1e-4, c = 1e-3, omega0 = 100.0, h = 1e-4;
  Bodies bodies = freePulley(J);
  ASSERT_TRUE(bodies.setBearingDrag(0, 0.0, c).ok());
  double stopped = -1.0;
  const double omega = spinDown(bodies, J, omega0, 0.0, h, 1000, stopped);
  EXPECT_NEAR(omega / (omega0 * std::exp(-c * 0.1 / J)), 1.0, 1e-5);
}

TEST(BearingDrag, RefusedWherePulleyRotationIsPrescribed) {
  // docs/injected_faults.md: no drag on a speed-driven or a fixed pulley, no negative amounts.
  PulleyParameters c;
  c.kind = PulleyKind::kSpeedDriven;
  c.radius = 0.05;
  c.inertia = 0.1;
  Bodies bodies;
  bodies.setCount(1);
  ASSERT_TRUE(bodies.setUp(0, c).ok());
  EXPECT_FALSE(bodies.setBearingDrag(0, 1.0, 0.0).ok());
  Bodies free = freePulley(1e-4);
  EXPECT_FALSE(free.setBearingDrag(0, -1.0, 0.0).ok());
  EXPECT_FALSE(free.setBearingDrag(0, 1.0, -0.1).ok());
  EXPECT_FALSE(free.setArmStiffnessFactor(0, 0.5).ok());  // no arm on this pulley
  EXPECT_FALSE(free.hasBearingDrag(0));
}

}  // namespace
