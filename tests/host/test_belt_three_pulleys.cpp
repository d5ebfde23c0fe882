// A closed belt around three pulleys (issue 5 topologies: idlers included): driver P1, an idler
// P3 on the upper path, load P2. Static equilibrium carries the pre-tension everywhere; in motion
// the unloaded idler rolls with the belt, so its surface speed equals the driver's (no torque on
// the idler, hence no creep across it; docs/model_start_and_benchmark.md §9.6 check 3: omega R ~ v on a stick arc).
#include <gtest/gtest.h>

#include <cmath>

#include "beltsim/system/belt_drive.hpp"
#include "beltsim/system/belt_geometry.hpp"
#include "beltsim/system/paper_parameters.hpp"
#include "beltsim/stepping/static_equilibrium.hpp"

namespace {
using namespace beltsim;

constexpr int kNE = 60, kNP = 3, kNCS = 4;
using Drive = BeltDrive<kNE, kNP, kNCS>;

struct ThreePulleyDrive {
  Drive drive;
  Drive::Vector q = Drive::Vector::Zero();
  FrictionParameters friction;

  ThreePulleyDrive() {
    const double r = 0.09995, hb = 1e-4, R = r + hb / 2;
    // Travel order (clockwise): P1 (0, 0) -> idler P3 (0.2, 0.2) -> P2 (0.4, 0) -> P1.
    const Vector2 centres[3] = {Vector2(0.0, 0.0), Vector2(0.2, 0.2), Vector2(0.4, 0.0)};
    const PathCircle pc[3] = {{centres[0], R, 1}, {centres[1], R, 1}, {centres[2], R, 1}};
    BeltPath<3> path;
    EXPECT_TRUE(buildBeltPath(pc, 3, path).ok());
    const BeltParameters belt = paperBelt();  // the paper's belt, pulleys and contact values
    PulleyParameters c[3];
    for (int p = 0; p < 3; ++p) {
      c[p].centre = centres[p];
      c[p].radius = r;
      c[p].inertia = 0.25;
    }
    c[0].kind = PulleyKind::kSpeedDriven;
    c[0].speed = RampProfile{RampProfile::Shape::kLinear, 0.0, 0.2, 0.0, 5.0};
    c[1].inertia = 0.01;  // idler: light, no damper, no load
    c[2].rotationalDamping = 3.0;  // 15 N m at 5 rad/s: well below gross slip
    const double length = path.totalLength / kNE;
    const ContactParameters cp = contactFromPerArea(ContactPerArea{}, belt, length, kNCS);
    friction = cp.friction;
    EXPECT_TRUE(drive.setUp(belt, length, c, cp).ok());
    placeOnPath(drive, path, q);
  }
};

TEST(ThreePulleyBelt, StaticEquilibriumCarriesThePreTension) {
  // Frictionless static phase: N = -EA eps0 = 400 N along the whole belt, up to gravity
  // (rho A g times the height differences, < 3 N here) and contact penetration.
  static ThreePulleyDrive d;
  const StaticResult r = solveStaticEquilibrium(d.drive, d.q, StaticSettings{}, d.friction);
  ASSERT_EQ(r.status, Status::kOk);
  EXPECT_TRUE(r.converged);
  EXPECT_LT(r.residualNorm, 1e-6);
  for (int e = 0; e < kNE; ++e) {
    AncfCable2DSection<double> s;
    ASSERT_EQ(d.drive.element().section(d.drive.gatherElement(d.q, e), Eigen::Matrix<double, 8, 1>::Zero(),
                                        0.5 * d.drive.belt().element.length, s),
              Status::kOk);
    EXPECT_NEAR(s.axialForce, 400.0, 4.0) << "element " << e;
  }
}

TEST(ThreePulleyBelt, UnloadedIdlerRollsWithTheBelt) {
  static ThreePulleyDrive d;
  solveStaticEquilibrium(d.drive, d.q, StaticSettings{}, d.friction);
  static ReferenceStepper<Drive> integ;
  IntegratorSettings s;
  s.newmark = true;
  s.maxNewtonIterations = 8;
  s.absoluteTolerance = 1e-7;
  // Step 2e-4 s: the main job's (docs/validation_and_convergence.md, *The material mesh at the main
  // job's resolution*).
  ASSERT_TRUE(integ.setUp(s, 2e-4).ok());
  integ.initialize(d.q, Drive::Vector::Zero(), Drive::Vector::Zero(), 0.0);
  int newtonBound = 0;
  // Ramp to 5 rad/s in 0.2 s, then 0.3 s at speed. A lightly damped torsional mode (belt
  // stiffness against the pulley inertias, period ~0.15 s) remains, so compare speeds averaged
  // over the last 0.15 s.
  double sum1 = 0.0, sum2 = 0.0, sum3 = 0.0;
  int samples = 0;
  for (int i = 0; i < 2500; ++i) {
    const StepStatistics st = integ.step(d.drive);
    ASSERT_EQ(st.flags & kStepFault, 0) << "step " << i;
    if (st.flags & kStepNewtonNotConverged) ++newtonBound;
    if (i >= 2500 - 750) {
      sum1 += integ.velocities()(Drive::pulleyDof(0, 2));
      sum3 += integ.velocities()(Drive::pulleyDof(1, 2));
      sum2 += integ.velocities()(Drive::pulleyDof(2, 2));
      ++samples;
    }
  }
  EXPECT_EQ(newtonBound, 0);
  const double w1 = sum1 / samples, w3 = sum3 / samples, w2 = sum2 / samples;
  EXPECT_NEAR(w1, 5.0, 1e-9);
  // Equal radii: the unloaded idler on the tight side turns with the driver's surface speed
  // (P1's stick arc is at the tight-side entry); the load pulley is slower by the creep of the
  // transmitted torque, of the order of (F1 - F2)/EA.
  EXPECT_NEAR(w3 / w1, 1.0, 0.01);
  EXPECT_LT(w2, w1);
  EXPECT_GT(w2 / w1, 0.95);
}

}  // namespace
