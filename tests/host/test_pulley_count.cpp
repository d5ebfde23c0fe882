// One compiled drive for every pulley count (issue 16): a BeltDrive<NE, NP, NCS> runs drives with
// fewer than NP circles; the unused ones keep fixed unknowns and take part in no contact. Also
// the fixed (non-turning) pulley and the hub force of a pulley.
#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <cstdio>
#include <vector>

#include "beltsim/system/belt_drive.hpp"
#include "beltsim/system/belt_geometry.hpp"
#include "beltsim/system/belt_outputs.hpp"
#include "beltsim/system/paper_parameters.hpp"
#include "beltsim/stepping/static_equilibrium.hpp"

namespace {
using namespace beltsim;

constexpr int kNE = 24, kNCS = 4;
constexpr double kRadius = 0.09995, kThickness = 1e-4;

// The paper's drive (P1 speed-driven, P2 loaded by a damper) or, with `idler`, a third pulley
// on the upper path. Circle parameters in travel order.
struct Layout {
  int count = 2;
  PulleyParameters circle[3];
  BeltPath<3> path;
};

Layout makeLayout(bool idler, PulleyKind idlerKind = PulleyKind::kFixedAxis) {
  Layout l;
  l.count = idler ? 3 : 2;
  const Vector2 centres3[3] = {Vector2(0.0, 0.0), Vector2(0.2, 0.2), Vector2(0.4, 0.0)};
  const Vector2 centres2[2] = {Vector2(0.0, 0.0), Vector2(0.3141592653589793, 0.0)};
  PathCircle pc[3];
  for (int p = 0; p < l.count; ++p) {
    PulleyParameters& c = l.circle[p];
    c.centre = idler ? centres3[p] : centres2[p];
    c.radius = kRadius;
    c.inertia = 0.25;
    pc[p] = PathCircle{c.centre, kRadius + 0.5 * kThickness, 1};
  }
  l.circle[0].kind = PulleyKind::kSpeedDriven;
  l.circle[0].speed = RampProfile{RampProfile::Shape::kLinear, 0.0, 0.1, 0.0, 5.0};
  l.circle[l.count - 1].rotationalDamping = 2.0;
  if (idler) {
    l.circle[1].kind = idlerKind;
    l.circle[1].inertia = 0.01;
  }
  EXPECT_TRUE(buildBeltPath(pc, l.count, l.path).ok());
  return l;
}

template <int NP>
struct DriveRun {
  using Drive = BeltDrive<kNE, NP, kNCS>;
  Drive drive;
  ReferenceStepper<Drive> integrator;
  typename Drive::Vector q = Drive::Vector::Zero();

  // Static equilibrium, then `steps` steps of 5e-4 s; false if anything failed.
  bool run(const Layout& l, int steps) {
    const BeltParameters belt = paperBelt();
    const double length = l.path.totalLength / kNE;
    const ContactParameters cp = contactFromPerArea(ContactPerArea{}, belt, length, kNCS);
    if (!drive.setUp(belt, length, l.circle, l.count, cp).ok()) return false;
    placeOnPath(drive, l.path, q);
    if (solveStaticEquilibrium(drive, q, StaticSettings{}, cp.friction).status != Status::kOk) return false;
    IntegratorSettings s;
    s.newmark = true;
    s.maxNewtonIterations = 8;
    s.absoluteTolerance = 1e-7;
    if (!integrator.setUp(s, 5e-4).ok()) return false;
    integrator.initialize(q, Drive::Vector::Zero(), Drive::Vector::Zero(), 0.0);
    for (int i = 0; i < steps; ++i)
      if (integrator.step(drive).flags & kStepFault) return false;
    return true;
  }
  // Unknowns of the belt and of the first `circles` circles, in the model's order.
  std::vector<double> state(int circles) const {
    const auto& x = integrator.positions();
    const auto& v = integrator.velocities();
    std::vector<double> out;
    for (int i = 0; i < 4 * Drive::kNodes; ++i) out.push_back(x(i)), out.push_back(v(i));
    for (int i = 0; i < 3 * circles; ++i)
      out.push_back(x(4 * Drive::kNodes + i)), out.push_back(v(4 * Drive::kNodes + i));
    return out;
  }
};

TEST(PulleyCount, UnusedCirclesDoNotChangeTheMotion) {
  // The paper's two-pulley drive compiled for 2 circles and for 4 circles with 2 in use: the
  // unused circles' rows are identities without coupling, so the motion is the same. Not bit for
  // bit: Eigen unrolls the solver's short reductions over the border (4 + 3 NP unknowns) as a
  // tree whose grouping depends on its length, so the round-off differs (the host simulator
  // therefore keeps a 2-circle build for two-pulley drives, whose bits stay those of the paper's
  // runs). Bound: 1e-9 of each quantity's scale after 200 steps through the speed ramp.
  static DriveRun<2> two;
  static DriveRun<4> four;
  const Layout l = makeLayout(false);
  ASSERT_TRUE(two.run(l, 200));
  ASSERT_TRUE(four.run(l, 200));
  EXPECT_GT(std::fabs(two.integrator.velocities()(DriveRun<2>::Drive::pulleyDof(1, 2))), 1.0);  // it moved
  const std::vector<double> a = two.state(2), b = four.state(2);
  ASSERT_EQ(a.size(), b.size());
  double worst = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::fabs(a[i] - b[i]));
  EXPECT_LT(worst, 1e-9);  // positions ~0.3 m, velocities ~0.5 m/s, slopes ~1
  EXPECT_NEAR(two.drive.driveTorque(0), four.drive.driveTorque(0), 1e-9 * std::fabs(two.drive.driveTorque(0)));
  EXPECT_EQ(four.integrator.positions()(DriveRun<4>::Drive::pulleyDof(3, 2)), 0.0);  // unused: fixed
  std::printf("largest difference of a coordinate or velocity: %.3g\n", worst);
}

TEST(PulleyCount, SetUpRejectsACircleCountOutsideOneToNp) {
  BeltDrive<kNE, 2, kNCS> drive;
  const Layout l = makeLayout(false);
  const BeltParameters belt = paperBelt();
  const ContactParameters cp = contactFromPerArea(ContactPerArea{}, belt, 0.05, kNCS);
  EXPECT_FALSE(drive.setUp(belt, 0.05, l.circle, 3, cp).ok());
  EXPECT_FALSE(drive.setUp(belt, 0.05, l.circle, 0, cp).ok());
  EXPECT_TRUE(drive.setUp(belt, 0.05, l.circle, 2, cp).ok());
}

TEST(PulleyCount, FixedPulleyDoesNotTurnAndTakesTheBeltsFriction) {
  // A blocked idler on the upper path: the belt slides over it, so its angle stays exactly zero
  // while the friction of the sliding belt acts on it as a torque of the order of mu times its
  // hub load times its radius.
  static DriveRun<3> run;
  const Layout l = makeLayout(true, PulleyKind::kFixed);
  ASSERT_TRUE(run.run(l, 300));
  using Drive = DriveRun<3>::Drive;
  EXPECT_EQ(run.integrator.positions()(Drive::pulleyDof(1, 2)), 0.0);
  EXPECT_EQ(run.integrator.velocities()(Drive::pulleyDof(1, 2)), 0.0);
  const double hub = run.drive.hubForce(1).norm();
  const double torque = std::fabs(run.drive.beltTorque(1));
  EXPECT_GT(hub, 100.0);
  EXPECT_GT(torque, 0.1 * 0.5 * hub * kRadius);
  EXPECT_LT(torque, 1.05 * 0.5 * hub * kRadius);  // at most mu N r: Coulomb
}

TEST(PulleyCount, HubForceIsTheVectorSumOfTheAdjacentSpanForces) {
  // Static equilibrium of the three-pulley drive: the belt pulls the idler along both of its
  // spans, F_in (-u_in) + F_out u_out with u the spans' unit directions (a free body of the
  // wrapped arc; gravity on the arc's belt mass, 0.8288 kg/m x 0.1 m x 9.81 ~ 0.8 N, and the
  // bending stiffness stay below 1 %).
  static DriveRun<3> run;
  const Layout l = makeLayout(true);
  ASSERT_TRUE(run.run(l, 0));
  using Drive = DriveRun<3>::Drive;
  typename Drive::Vector r;
  const typename Drive::Vector zero = Drive::Vector::Zero();
  IntegratorCoefficients c;
  c.dampingFactor = 1.0;  // prescribed rows divide by it; their values are not used here
  IterationPoint<Drive::Vector> point{&run.q, &zero, &zero, 0.0, &c};
  ASSERT_EQ(run.drive.residual(point, r), Status::kOk);
  const SpanMeasure in = measureSpan(run.drive, run.q, zero, l.path, 0);
  const SpanMeasure out = measureSpan(run.drive, run.q, zero, l.path, 1);
  ASSERT_GT(in.samples, 0);
  ASSERT_GT(out.samples, 0);
  const Vector2 uIn = (l.path.arrival[0] - l.path.departure[0]).normalized();
  const Vector2 uOut = (l.path.arrival[1] - l.path.departure[1]).normalized();
  const Vector2 expected = -in.force * uIn + out.force * uOut;
  const Vector2 hub = run.drive.hubForce(1);
  EXPECT_LT((hub - expected).norm(), 0.01 * expected.norm()) << "hub " << hub.transpose() << " expected "
                                                             << expected.transpose();
}

}  // namespace
