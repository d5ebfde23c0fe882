// A three-pulley drive whose middle pulley sits on a pivoting tensioner arm (issue 16, model in
// tensioner_arm.hpp; the arm alone: test_tensioner_arm.cpp). References: the moment balance of the
// arm about its pivot; the closed-path geometry (belt_geometry.hpp) for the arm angle's response
// to a change of belt length.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "beltsim/system/belt_drive.hpp"
#include "beltsim/system/belt_geometry.hpp"
#include "beltsim/system/belt_outputs.hpp"
#include "beltsim/system/paper_parameters.hpp"
#include "beltsim/stepping/static_equilibrium.hpp"
#include "beltsim/system/tensioner_arm.hpp"
#include "sample_tensioner_arm.hpp"

namespace {
using namespace beltsim;
using beltsim::test::cross;
using beltsim::test::sampleArm;

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
    beltsim::test::armDriveCircles(centres, kRadius, kIdlerRadius, kThickness, circle, pc);
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

