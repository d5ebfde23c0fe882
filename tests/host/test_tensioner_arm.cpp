// Pivoting tensioner arm (issue 16, model in tensioner_arm.hpp): the arm's force on the pulley
// centre and its derivatives, and a three-pulley drive whose middle pulley sits on the arm.
// References: central differences for the Newton matrix entries; the moment balance of the arm
// about its pivot; the closed-path geometry (belt_geometry.hpp) for the arm angle's response to a
// change of belt length.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "beltsim/system/belt_drive.hpp"
#include "beltsim/system/belt_geometry.hpp"
#include "beltsim/system/belt_outputs.hpp"
#include "beltsim/system/paper_parameters.hpp"
#include "beltsim/stepping/static_equilibrium.hpp"
#include "beltsim/system/tensioner_arm.hpp"

namespace {
using namespace beltsim;

double cross(const Vector2& a, const Vector2& b) { return a(0) * b(1) - a(1) * b(0); }

TensionerArm sampleArm() {
  TensionerArm arm;
  arm.pivot = Vector2(0.3, 0.2);
  arm.inertia = 2e-3;
  arm.stiffness = 40.0;
  arm.preloadAngle = -0.6;
  arm.damping = 0.3;
  arm.frictionTorque[0] = 2.0;
  arm.frictionTorque[1] = 0.5;
  arm.radialStiffness = 1e7;
  return arm;
}

TEST(TensionerArm, ForceDerivativesMatchCentralDifferences) {
  // Reference: -d force / d c and -d force / d v by central differences (step 1e-7 m, 1e-7 m/s)
  // at a point off the drawn position, moving, with the radial spring active, once with the
  // friction sticking (anchor 1e-5 rad from the arm: its stiffness and damping count) and once
  // sliding (anchor 0.1 rad away: a constant torque). The position derivative leaves out how the
  // rate terms change with c (the arm's t / rho changes the angle rate): it is checked with zero
  // velocity, where that term vanishes.
  TensionerArm arm = sampleArm();
  arm.frictionTorque[0] = 20.0;
  arm.frictionTorque[1] = 10.0;
  const Vector2 drawn(0.2, 0.2);
  const ArmGeometry g = armGeometry(arm, drawn, 0.4);
  const Vector2 c(0.2031, 0.2117), v(0.0013, -0.0021);
  const double h = 1e-7;
  const double delta = armForce(arm, g, c, Vector2::Zero(), false, 0.0).angle;
  for (const double anchor : {delta + 1e-5, delta + 0.1}) {
    const ArmForce atRest = armForce(arm, g, c, Vector2::Zero(), true, anchor);
    const ArmForce moving = armForce(arm, g, c, v, true, anchor);
    for (int j = 0; j < 2; ++j) {
      Vector2 dc = Vector2::Zero();
      dc(j) = h;
      const Vector2 dK = -(armForce(arm, g, c + dc, Vector2::Zero(), true, anchor).force -
                           armForce(arm, g, c - dc, Vector2::Zero(), true, anchor).force) / (2 * h);
      const Vector2 dD =
          -(armForce(arm, g, c, v + dc, true, anchor).force - armForce(arm, g, c, v - dc, true, anchor).force) / (2 * h);
      for (int i = 0; i < 2; ++i) {
        EXPECT_NEAR(atRest.stiffness(i, j), dK(i), 1e-6 * atRest.stiffness.norm()) << anchor << ": " << i << "," << j;
        EXPECT_NEAR(moving.damping(i, j), dD(i), 1e-6 * moving.damping.norm()) << anchor << ": " << i << "," << j;
      }
    }
  }
  // The spring torque at the drawn position is k times the preload angle.
  EXPECT_DOUBLE_EQ(armForce(arm, g, drawn, Vector2::Zero(), false, 0.0).springTorque, arm.stiffness * arm.preloadAngle);
}

TEST(TensionerArm, FrictionTorqueIsBoundedByItsDirectionsValueAndMovesTheAnchorOnlyInSlip) {
  // Reference: the elasto-plastic friction torque (tensioner_arm.hpp) never exceeds T_ccw against
  // counter-clockwise motion nor T_cw against clockwise motion (asymmetric damping); the anchor
  // stays while the elastic torque is within the bounds and follows the arm at a lag of T / k_f
  // when it is not.
  TensionerArm arm = sampleArm();
  arm.stiffness = 0.0;
  arm.damping = 0.0;
  const Vector2 drawn(0.2, 0.2);
  const ArmGeometry g = armGeometry(arm, drawn, 0.4);
  const Vector2 t(0.0, -1.0);  // counter-clockwise tangent of the arm pointing in -x
  const double fast = 10.0;    // rad/s: c_f * rate far beyond both bounds
  EXPECT_DOUBLE_EQ(armForce(arm, g, drawn, fast * g.length * t, true, 0.0).torque, -arm.frictionTorque[0]);
  EXPECT_DOUBLE_EQ(armForce(arm, g, drawn, -fast * g.length * t, true, 0.0).torque, arm.frictionTorque[1]);
  // At rest 1e-5 rad from the anchor: the elastic torque k_f * 1e-5 = 0.1 N m, within both bounds.
  EXPECT_NEAR(armForce(arm, g, drawn, Vector2::Zero(), true, -1e-5).torque, -0.1, 1e-9);
  EXPECT_DOUBLE_EQ(updateArmAnchor(arm, -1e-5, 0.0), -1e-5);  // stick
  // 0.01 rad past the anchor counter-clockwise: elastic 100 N m > T_ccw: slip, anchor at T_ccw / k_f.
  EXPECT_DOUBLE_EQ(updateArmAnchor(arm, 0.0, 0.01), 0.01 - arm.frictionTorque[0] / arm.frictionStiffness);
  EXPECT_DOUBLE_EQ(updateArmAnchor(arm, 0.0, -0.01), -0.01 + arm.frictionTorque[1] / arm.frictionStiffness);
}

// ---- a three-pulley drive: P1 (0, 0), the tensioner P2 above the span, P3 (0.4, 0) --------------
constexpr int kNE = 60, kNP = 3, kNCS = 4;
using Drive = BeltDrive<kNE, kNP, kNCS>;
constexpr double kRadius = 0.09995, kIdlerRadius = 0.04995, kThickness = 1e-4;
const Vector2 kDrawnCentre(0.2, 0.2);

struct ArmDrive {
  Drive drive;
  Drive::Vector q;
  BeltPath<kNP> path;
  PulleyParameters circle[kNP];
  BeltParameters belt;

  // Static equilibrium of the drive with the belt's stress-free length changed by the factor
  // (1 + lengthChange) (through the reference strain). Returns the static result.
  StaticResult settle(double lengthChange) {
    const Vector2 centres[kNP] = {Vector2(0.0, 0.0), kDrawnCentre, Vector2(0.4, 0.0)};
    PathCircle pc[kNP];
    for (int p = 0; p < kNP; ++p) {
      PulleyParameters& c = circle[p];
      c = PulleyParameters{};
      c.centre = centres[p];
      c.radius = p == 1 ? kIdlerRadius : kRadius;
      c.inertia = p == 1 ? 1e-3 : 0.25;
      pc[p] = PathCircle{c.centre, c.radius + 0.5 * kThickness, 1};
    }
    circle[1].kind = PulleyKind::kTensionerArm;
    circle[1].mass = 0.4;
    circle[1].arm = sampleArm();
    EXPECT_TRUE(buildBeltPath(pc, kNP, path).ok());
    belt = paperBelt();
    belt.element.gravity = Vector2::Zero();
    belt.element.referenceAxialStrain = (1.0 + belt.element.referenceAxialStrain) * (1.0 + lengthChange) - 1.0;
    const double length = path.totalLength / kNE;
    const ContactParameters cp = contactFromPerArea(ContactPerArea{}, belt, length, kNCS);
    EXPECT_TRUE(drive.setUp(belt, length, circle, kNP, cp).ok());
    placeOnPath(drive, path, q);
    return solveStaticEquilibrium(drive, q, StaticSettings{}, cp.friction);
  }
  Vector2 centre() const { return Vector2(q(Drive::pulleyDof(1, 0)), q(Drive::pulleyDof(1, 1))); }
};

// The drive's geometry with the arm turned by delta from the drawn position: path length and the
// moment about the pivot of the hub load per newton of belt tension (both spans pulling).
struct ArmGeometryPoint {
  double pathLength = 0.0;
  double momentPerTension = 0.0;
  Vector2 inward, outward;  // unit directions in which span 0 and span 1 pull on the tensioner
};

ArmGeometryPoint pathWithArmAt(const ArmDrive& d, double delta) {
  const TensionerArm& arm = d.circle[1].arm;
  const ArmGeometry g = armGeometry(arm, kDrawnCentre, d.circle[1].mass);
  const double angle = g.drawnAngle + delta;
  PathCircle pc[kNP];
  for (int p = 0; p < kNP; ++p) pc[p] = PathCircle{d.circle[p].centre, d.circle[p].radius + 0.5 * kThickness, 1};
  pc[1].centre = arm.pivot + g.length * Vector2(std::cos(angle), std::sin(angle));
  BeltPath<kNP> path;
  EXPECT_TRUE(buildBeltPath(pc, kNP, path).ok());
  const Vector2 in = (path.departure[0] - path.arrival[0]).normalized();   // span 0 pulls back to P1
  const Vector2 out = (path.arrival[1] - path.departure[1]).normalized();  // span 1 pulls on to P3
  return ArmGeometryPoint{path.totalLength, cross(pc[1].centre - arm.pivot, in + out), in, out};
}

// Geometric equilibrium of the arm for a belt of uniform tension T = EA (l(delta) / L_ref - 1 -
// eps0) (frictionless static belt: one tension all round): k (preload - delta) + T m(delta) = 0,
// solved by bisection on [-0.5, 0.5] rad around the drawn position.
double geometricArmAngle(const ArmDrive& d, double referenceLength) {
  const TensionerArm& arm = d.circle[1].arm;
  const auto balance = [&](double delta) {
    const ArmGeometryPoint g = pathWithArmAt(d, delta);
    const double tension = d.belt.element.EA * (g.pathLength / referenceLength - 1.0 - d.belt.element.referenceAxialStrain);
    return arm.stiffness * (arm.preloadAngle - delta) + tension * g.momentPerTension;
  };
  double lo = -0.5, hi = 0.5;
  const double fLo = balance(lo);
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (lo + hi);
    if ((balance(mid) > 0.0) == (fLo > 0.0)) lo = mid; else hi = mid;
  }
  return 0.5 * (lo + hi);
}

TEST(TensionerArm, StaticArmTorqueBalancesTheHubLoadTimesItsLever) {
  // Reference: moment balance of the arm about its pivot in static equilibrium: the spring torque
  // k (preload - delta) equals minus the moment of the belt's hub load, (c - pivot) x F_hub,
  // within 1e-6 relative (the radial arm force passes through the pivot). The hub load is the
  // vector sum of the two adjacent span forces (within 1 %, as for the idler in
  // test_pulley_count.cpp), and the arm keeps its length within k_r's compliance.
  static ArmDrive d;
  const StaticResult r = d.settle(0.0);
  ASSERT_EQ(r.status, Status::kOk);
  ASSERT_TRUE(r.converged) << "residual " << r.residualNorm;
  const Drive::Vector zero = Drive::Vector::Zero();
  const ArmForce arm = d.drive.armState(1, d.q, zero);
  const Vector2 hub = d.drive.hubForce(1);
  const Vector2 lever = d.centre() - d.circle[1].arm.pivot;
  const double moment = cross(lever, hub);
  const SpanMeasure in = measureSpan(d.drive, d.q, zero, d.path, 0);
  const SpanMeasure out = measureSpan(d.drive, d.q, zero, d.path, 1);
  ASSERT_GT(in.samples, 0);
  ASSERT_GT(out.samples, 0);
  // Span directions of the settled geometry (the arm has turned by its angle).
  const ArmGeometryPoint settled = pathWithArmAt(d, arm.angle);
  const Vector2 spanSum = in.force * settled.inward + out.force * settled.outward;
  std::printf("arm angle %.6f rad, spring torque %.6f N m, hub (%.4f, %.4f) N, moment %.6f N m (%+.2e rel); "
              "spans %.3f / %.3f N, span sum (%.4f, %.4f) N; arm length %.9f m (drawn %.9f)\n",
              arm.angle, arm.springTorque, hub(0), hub(1), moment, (arm.springTorque + moment) / arm.springTorque,
              in.force, out.force, spanSum(0), spanSum(1), lever.norm(), d.drive.armGeometryOf(1).length);
  EXPECT_LT(std::fabs(arm.springTorque + moment), 1e-6 * std::fabs(arm.springTorque));
  EXPECT_LT((hub - spanSum).norm(), 0.01 * hub.norm());
  // Radial compliance: |F_hub| / k_r.
  EXPECT_LT(std::fabs(lever.norm() - d.drive.armGeometryOf(1).length), 2.0 * hub.norm() / d.circle[1].arm.radialStiffness);
}

TEST(TensionerArm, ArmAngleFollowsABeltLengthChangeAsTheGeometryPredicts) {
  // Reference: a 0.2 % longer stress-free belt lets the arm swing further into the belt; the
  // closed-path geometry with one uniform tension (geometricArmAngle) predicts the change of the
  // arm angle. The finite-element belt bends over the arcs and sinks into the pulleys by its
  // contact penetration; the geometry has neither. Measured at 60 elements: change -0.2 %,
  // angle +0.9 % (at 24 elements, whose 50 mm elements are as long as the idler's radius: -3.3 %
  // and +8 %). Asserted: the change within 1 %, the angle itself within 2 %.
  static ArmDrive a, b;
  const double change = 2e-3;
  ASSERT_TRUE(a.settle(0.0).converged);
  ASSERT_TRUE(b.settle(change).converged);
  const Drive::Vector zero = Drive::Vector::Zero();
  const double deltaA = a.drive.armState(1, a.q, zero).angle;
  const double deltaB = b.drive.armState(1, b.q, zero).angle;
  const double referenceLength = a.path.totalLength;  // the belt's reference length (placed on the drawn path)
  const double geoA = geometricArmAngle(a, referenceLength);
  const double geoB = geometricArmAngle(b, referenceLength);
  std::printf("arm angle: model %.6f -> %.6f rad (change %.6f), geometry %.6f -> %.6f rad (change %.6f, %+.2e rel)\n",
              deltaA, deltaB, deltaB - deltaA, geoA, geoB, geoB - geoA, (deltaB - deltaA) / (geoB - geoA) - 1.0);
  ASSERT_GT(std::fabs(geoB - geoA), 1e-3);
  EXPECT_NEAR(deltaB - deltaA, geoB - geoA, 0.01 * std::fabs(geoB - geoA));
  EXPECT_NEAR(deltaA, geoA, 0.02 * std::fabs(geoA));
}

}  // namespace
