// A tensioner arm on the eulerian mesh (moving stations, docs/model_moving_stations.md): the
// three-pulley drive of test_tensioner_arm_drive.cpp (P1 at the origin, the arm's idler drawn at
// (0.2, 0.2), P3 at (0.4, 0)) with its nodes on stations that follow the arm. References: the
// moment balance of the arm about its pivot; the same drive on the material mesh (its statics
// converged at 120 elements); the Newton matrix against central differences of the residual.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>

#include "beltsim/stepping/reference_stepper.hpp"
#include "beltsim/stepping/static_equilibrium.hpp"
#include "beltsim/system/belt_drive.hpp"
#include "beltsim/system/belt_outputs.hpp"
#include "beltsim/system/energy.hpp"
#include "beltsim/system/eulerian_belt_drive.hpp"
#include "beltsim/system/eulerian_belt_outputs.hpp"
#include "beltsim/system/eulerian_stations.hpp"
#include "beltsim/system/paper_parameters.hpp"
#include "newton_column_check.hpp"
#include "sample_tensioner_arm.hpp"

namespace {
using namespace beltsim;
using beltsim::test::cross;

constexpr int kNP = 3, kNCS = 4;
constexpr double kRadius = 0.09995, kIdlerRadius = 0.04995, kPi = 3.14159265358979323846;

// The drive's pulleys and belt: gravity off, the arm without friction; P1 speed-driven.
struct ArmLayout {
  PulleyParameters circle[kNP];
  BeltParameters belt;
  ContactPerArea perArea;
  BeltPath<kNP> path;
  ArmLayout() {
    const Vector2 centres[kNP] = {Vector2(0.0, 0.0), Vector2(0.2, 0.2), Vector2(0.4, 0.0)};
    belt = paperBelt();
    belt.element.gravity = Vector2::Zero();
    PathCircle unused[kNP];
    beltsim::test::armDriveCircles(centres, kRadius, kIdlerRadius, belt.thickness, circle, unused);
    circle[0].kind = PulleyKind::kSpeedDriven;
    circle[1].kind = PulleyKind::kTensionerArm;
    circle[1].mass = 0.4;
    circle[1].arm = beltsim::test::sampleArm();
    circle[1].arm.frictionTorque[0] = circle[1].arm.frictionTorque[1] = 0.0;
    perArea.gapMeasure = SegmentGapMeasure::kArc;
    PathCircle onPath[kNP];
    for (int p = 0; p < kNP; ++p) onPath[p] = beltPathCircle(circle[p], belt);
    EXPECT_TRUE(buildBeltPath(onPath, kNP, path).ok());
  }
};

template <int NE>
struct EulerianArmDrive : ArmLayout {
  using Drive = EulerianBeltDrive<NE, kNP, kNCS>;
  using V = typename Drive::Vector;
  std::unique_ptr<Drive> drive = std::make_unique<Drive>();
  std::unique_ptr<ReferenceStepper<Drive>> stepper = std::make_unique<ReferenceStepper<Drive>>();
  V x;
  double station[NE] = {}, lengths[NE] = {};
  int parts[2 * kNP] = {};
  ContactParameters contact;

  StaticResult settle() {
    EXPECT_TRUE(eulerianStations(path, MeshGrading{}, station, lengths, parts).ok());
    const double contactLength = path.totalLength / NE;
    contact = contactFromPerArea(perArea, belt, contactLength, kNCS);
    EXPECT_TRUE(drive->setUp(belt, lengths, circle, kNP, contact, contactLength).ok());
    EXPECT_TRUE(drive->setUpMovingStations(path, parts).ok());
    placeOnStations(*drive, path, station, x);
    return solveStaticEquilibrium(*drive, x, StaticSettings{}, contact.friction);
  }
  Vector2 centre(const V& q) const { return Vector2(q(Drive::pulleyDof(1, 0)), q(Drive::pulleyDof(1, 1))); }
};

// The same layout on the material mesh.
template <int NE>
struct MaterialArmDrive : ArmLayout {
  using Drive = BeltDrive<NE, kNP, kNCS>;
  std::unique_ptr<Drive> drive = std::make_unique<Drive>();
  typename Drive::Vector q;
  StaticResult settle() {
    const double length = path.totalLength / NE;
    const ContactParameters cp = contactFromPerArea(perArea, belt, length, kNCS);
    EXPECT_TRUE(drive->setUp(belt, length, circle, kNP, cp).ok());
    placeOnPath(*drive, path, q);
    return solveStaticEquilibrium(*drive, q, StaticSettings{}, cp.friction);
  }
};

// The moment about the pivot of the two spans' forces on the arm's idler: each span's mean axial
// force (measureSpan) along its settled line, from the idler's tangent point toward the pulley it
// runs to.
template <class Fixture>
double spanMoment(const Fixture& d, const typename Fixture::V& q, double (&force)[2]) {
  const typename Fixture::V zero = Fixture::V::Zero();
  const BeltPath<kNP>& settled = d.drive->stations().path();
  const Vector2 pivot = d.circle[1].arm.pivot;
  force[0] = measureSpan(*d.drive, q, zero, d.path, 0).force;
  force[1] = measureSpan(*d.drive, q, zero, d.path, 1).force;
  const Vector2 in = (settled.departure[0] - settled.arrival[0]).normalized();
  const Vector2 out = (settled.arrival[1] - settled.departure[1]).normalized();
  return cross(settled.arrival[0] - pivot, force[0] * in) + cross(settled.departure[1] - pivot, force[1] * out);
}

}  // namespace

// Reference: the arm's moment balance about its pivot at rest (gravity off, arm friction 0): the
// spring torque k (preload - delta) and the moment of the two span forces on the idler sum to 0.
// The span forces are measured in the belt (the middle halves of the spans), not taken from the
// contact, so the test also holds the belt's force through the moving wrap. Within 0.5 % of the
// spring torque (the bound).
TEST(EulerianArmDrive, StaticSpringTorqueBalancesTheMomentOfTheArmsTwoSpans) {
  EulerianArmDrive<24> d;
  const StaticResult r = d.settle();
  ASSERT_EQ(r.status, Status::kOk);
  ASSERT_TRUE(r.converged) << "residual " << r.residualNorm;
  const auto zero = EulerianArmDrive<24>::V::Zero();
  const ArmForce arm = d.drive->armState(1, d.x, zero);
  double force[2];
  const double moment = spanMoment(d, d.x, force);
  std::printf("[figure] eulerian arm drive at rest (24 elements): arm angle %.5f rad, spring torque %.4f N m, "
              "span moment %.4f N m (%+.3f %%), spans %.2f / %.2f N\n",
              arm.angle, arm.springTorque, moment, 100.0 * (arm.springTorque + moment) / arm.springTorque, force[0],
              force[1]);
  EXPECT_GT(std::fabs(arm.angle), 0.01);  // the arm has swung from its drawn place
  EXPECT_LT(std::fabs(arm.springTorque + moment), 0.005 * std::fabs(arm.springTorque));
}

// Reference: the material mesh's statics at 240 elements (120 shown beside it). The eulerian mesh
// at 24 elements settles the arm within 0.1 degree of it (the bound), and its span forces
// within 1 %.
TEST(EulerianArmDrive, StaticArmAngleAgreesWithTheMaterialMesh) {
  EulerianArmDrive<24> d;
  ASSERT_TRUE(d.settle().converged);
  const double eulerianAngle = d.drive->armState(1, d.x, EulerianArmDrive<24>::V::Zero()).angle;
  double force[2];
  (void)spanMoment(d, d.x, force);
  auto m120 = std::make_unique<MaterialArmDrive<120>>();
  auto m240 = std::make_unique<MaterialArmDrive<240>>();
  ASSERT_TRUE(m120->settle().converged);
  ASSERT_TRUE(m240->settle().converged);
  const double angle120 = m120->drive->armState(1, m120->q, MaterialArmDrive<120>::Drive::Vector::Zero()).angle;
  const double angle240 = m240->drive->armState(1, m240->q, MaterialArmDrive<240>::Drive::Vector::Zero()).angle;
  for (int k = 0; k < 2; ++k) {
    const double f120 = measureSpan(*m120->drive, m120->q, MaterialArmDrive<120>::Drive::Vector::Zero(), m120->path, k).force;
    const double f240 = measureSpan(*m240->drive, m240->q, MaterialArmDrive<240>::Drive::Vector::Zero(), m240->path, k).force;
    std::printf("[figure] eulerian arm drive at rest: span %d %.3f N; material 240 %.3f N (%+.3f %%), 120 %.3f N\n", k,
                force[k], f240, 100.0 * (force[k] / f240 - 1.0), f120);
    EXPECT_LT(std::fabs(force[k] / f240 - 1.0), 0.01);
  }
  std::printf("[figure] eulerian arm drive at rest: arm angle %.4f deg; material 240 %.4f deg (%+.4f deg), 120 %.4f deg\n",
              eulerianAngle * 180.0 / kPi, angle240 * 180.0 / kPi, (eulerianAngle - angle240) * 180.0 / kPi,
              angle120 * 180.0 / kPi);
  EXPECT_LT(std::fabs(eulerianAngle - angle240) * 180.0 / kPi, 0.1);
}

// The Newton matrix against central differences of the residual along the integrator's update, at
// a running state (P1 brought to 5 rad/s in 0.05 s, then 0.05 s on): the solve of each column's
// difference gives the unit vector back within 1e-3 (measured 2.7e-4; the fixed-centre drive's
// matrix is exact to 1e-6). The matrix leaves out terms of the order of the centres' speeds and the
// tangential node forces' change with the centres (docs/model_moving_stations.md): a matrix Newton
// converges with, not an exact one.
TEST(EulerianArmDrive, NewtonMatrixIsNearTheDerivativeOfTheResidual) {
  using D = EulerianArmDrive<24>;
  using V = D::V;
  D d;
  ASSERT_TRUE(d.settle().converged);
  const double h = 1e-4;
  ASSERT_TRUE(d.drive->setStepSize(h).ok());
  IntegratorSettings settings;
  settings.absoluteTolerance = 1e-8;
  ASSERT_TRUE(d.stepper->setUp(settings, h).ok());
  d.stepper->initialize(d.x, V::Zero(), V::Zero(), 0.0);
  for (int k = 1; k <= 1000; ++k) {
    BeltDriveInput<kNP> input;
    input.useCommand[0] = true;
    input.command[0] = 5.0 * std::fmin(1.0, k * h / 0.05);
    d.drive->setInput(input);
    const StepStatistics st = d.stepper->step(*d.drive);
    ASSERT_EQ(st.status, Status::kOk) << "step " << k;
  }
  V q = d.stepper->positions(), v = d.stepper->velocities(), a = d.stepper->accelerations();
  const IntegratorCoefficients& c = d.stepper->coefficients();
  const double t = d.stepper->time();
  bool built = false;
  ASSERT_EQ(d.drive->factorize({&q, &v, &a, t, &c}, MatrixUpdate::kFull, built), Status::kOk);
  // Node NE's unused slots; the fixed centres of P1 and P3: prescribed unknowns, whose rows give
  // their update (0); the stations read them, but the matrix has no column for them.
  const auto skip = [](int j) {
    return (j >= 4 * 24 && j < 4 * 25) || j == D::Drive::pulleyDof(0, 0) || j == D::Drive::pulleyDof(0, 1) ||
           j == D::Drive::pulleyDof(2, 0) || j == D::Drive::pulleyDof(2, 1);
  };
  int worstColumn = -1;
  const double worst = beltsim::test::worstNewtonColumn(*d.drive, q, v, a, t, c, skip, worstColumn);
  ASSERT_GE(worstColumn, 0);
  std::printf("[figure] eulerian arm drive: worst |M^-1 c dr/dx_j - e_j| = %.2e (column %d; the arm's centre: %d, %d)\n",
              worst, worstColumn, D::Drive::pulleyDof(1, 0), D::Drive::pulleyDof(1, 1));
  EXPECT_LT(worst, 1e-3);
}

namespace {

// The arm drive without dissipation: P1 and P3 fixed, the arm without damping and friction, the belt
// without strain-rate damping, the contact without damping or friction (the chord gap, whose penalty
// energy is a potential of its force: energy.hpp). At rest after its statics, then the arm kicked.
struct ConservativeArmDrive : EulerianArmDrive<24> {
  EulerianCable2D elastic[24];
  EulerianFlowInertia flow[24];

  bool build() {
    circle[0].kind = circle[2].kind = PulleyKind::kFixed;
    circle[1].arm.damping = 0.0;
    belt.element.axialDamping = belt.element.bendingDamping = 0.0;
    perArea.gapMeasure = SegmentGapMeasure::kChord;
    perArea.damping = 0.0;
    perArea.bristleStiffness = 0.0;
    perArea.velocityPenalty = 0.0;
    perArea.frictionCoefficient = 0.0;
    if (!eulerianStations(path, MeshGrading{}, station, lengths, parts).ok()) return false;
    const double contactLength = path.totalLength / 24;
    contact = contactFromPerArea(perArea, belt, contactLength, kNCS);
    contact.compensatedTension = contact.radiusAllowance = 0.0;
    if (!drive->setUp(belt, lengths, circle, kNP, contact, contactLength).ok()) return false;
    if (!drive->setUpMovingStations(path, parts).ok()) return false;
    placeOnStations(*drive, path, station, x);
    const StaticResult r = solveStaticEquilibrium(*drive, x, StaticSettings{}, contact.friction);
    if (r.status != Status::kOk || !r.converged) return false;
    for (int e = 0; e < 24; ++e) {
      EulerianCable2D::Parameters p = belt.element;
      p.length = lengths[e];
      if (!elastic[e].setUp(p).ok() || !flow[e].setUp(lengths[e], belt.element.massPerLength).ok()) return false;
    }
    return true;
  }
  // The contact's rows on the material coordinates p_i (the pairs' forces on the material as it
  // slides through the mesh, EulerianMesh::materialRows) at the drive's last stations.
  Eigen::Matrix<double, 24, 1> contactMaterialRows(const V& q, const V& v) {
    Eigen::Matrix<double, 24, 1> rows = Eigen::Matrix<double, 24, 1>::Zero();
    for (int e = 0; e < 24; ++e) {
      const EulerianElementKinematics k = drive->mesh().kinematics(q, v, e);
      for (int p = 0; p < kNP; ++p) {
        if (!drive->paired(e, p)) continue;
        PairForces f;
        if (drive->pair(e, p).evaluateNewton(k.q, k.rates, drive->mesh().shapeTable(e), drive->circleState(q, v, p), f) !=
            Status::kOk)
          return rows * NAN;
        const auto r = Drive::Mesh::materialRows(k, Vector8(drive->mesh().stretch(e).kappa * f.element));
        rows(e) += r(8);
        rows((e + 1) % 24) += r(9);
      }
    }
    return rows;
  }
  // Kinetic energy of the belt's material and the arm, strain energy, the contact's penalty energy
  // (each element's pairs at kappa times the drawn segment's stiffness, at the gaps of the last
  // post-Newton step), the arm's springs. The drive's stations must be those of (q, v): the state of
  // its last post-Newton step.
  double energy(const V& q, const V& v) const {
    double total = 0.0;
    for (int e = 0; e < 24; ++e) {
      const EulerianElementKinematics k = drive->mesh().kinematics(q, v, e);
      double u = 0.0;
      if (elastic[e].elasticEnergy(k.q, (k.p(1) - k.p(0)) / lengths[e], u) != Status::kOk) return NAN;
      total += u + flow[e].kineticEnergy(k.q, k.v, k.p, k.pDot);
      for (int p = 0; p < kNP; ++p) {
        if (!drive->paired(e, p)) continue;
        for (int i = 0; i < kNCS; ++i) {
          const double g = drive->pair(e, p).history(i).gap;
          if (g <= 0.0) total += drive->mesh().stretch(e).kappa * contactPotential(drive->pair(e, p).parameters(), g);
        }
      }
    }
    const CircleState cs = drive->circleState(q, v, 1);
    const ArmGeometry& g = drive->armGeometryOf(1);
    const TensionerArm& arm = circle[1].arm;
    const ArmForce f = armForce(arm, g, cs.centre, Vector2::Zero(), false, 0.0);
    const double stretch = (cs.centre - arm.pivot).norm() - g.length, wind = arm.preloadAngle - f.angle;
    total += 0.5 * g.equivalentMass * cs.velocity.squaredNorm() + 0.5 * circle[1].inertia * cs.angularVelocity * cs.angularVelocity;
    total += 0.5 * arm.stiffness * wind * wind + 0.5 * arm.radialStiffness * stretch * stretch;
    return total;
  }
};

}  // namespace

// Energy: the drive without dissipation at rest, its arm kicked across its lever at 0.1 m/s (the
// belt's nodes moving with their stations), over 1 s with the trapezoidal rule at 1e-4 s. Its energy
// changes only by the work the contact's rows on the material coordinates do as the material slides
// through the mesh (the pairs' forces act on the material, EulerianMesh::materialRows, also where
// no pulley moves; docs/model_moving_stations.md): energy plus that work stays within 1 % of the
// kick's energy (measured 0.09 %; the energy alone moves by 20 % of the kick, in step with the
// arm's angle). The balance closes only if the moving centre's rows carry the generalized forces
// of the moving stations (the parts' kappa rows, the contact energy's share, the nodes' tangential
// forces): they are the reactions through which the belt does work on the arm.
TEST(EulerianArmDrive, AKickedArmKeepsTheDrivesEnergy) {
  using V = ConservativeArmDrive::V;
  auto d = std::make_unique<ConservativeArmDrive>();
  ASSERT_TRUE(d->build());
  const double h = 1e-4;
  ASSERT_TRUE(d->drive->setStepSize(h).ok());
  const V zero = V::Zero();
  const double rest = d->energy(d->x, zero);
  // The kick: the arm's centre across its lever; every node with its station's velocity.
  const Vector2 lever = d->centre(d->x) - d->circle[1].arm.pivot;
  const Vector2 kick = 0.1 * Vector2(-lever(1), lever(0)) / lever.norm();
  V v = zero;
  v(ConservativeArmDrive::Drive::pulleyDof(1, 0)) = kick(0);
  v(ConservativeArmDrive::Drive::pulleyDof(1, 1)) = kick(1);
  for (int i = 0; i < 24; ++i) v.segment<2>(4 * i) = d->drive->stations().positionByCentre(i, 1) * kick;
  IntegratorSettings settings;
  settings.newmark = true;  // the trapezoidal rule
  settings.absoluteTolerance = 1e-8;
  ASSERT_TRUE(d->stepper->setUp(settings, h).ok());
  d->stepper->initialize(d->x, v, zero, 0.0);
  double error = 0.0;
  ASSERT_EQ(d->drive->postNewtonStep({&d->x, &v, &zero, 0.0, &d->stepper->coefficients()}, error), Status::kOk);
  const double start = d->energy(d->x, v), kickEnergy = start - rest;
  double drift = 0.0, swing = 0.0, work = 0.0, driftWithWork = 0.0;
  const double angle0 = d->drive->armState(1, d->x, zero).angle;
  Eigen::Matrix<double, 24, 1> pRows = d->contactMaterialRows(d->x, v), pBefore;
  for (int i = 0; i < 24; ++i) pBefore(i) = d->x(ConservativeArmDrive::Drive::materialDof(i));
  const int steps = static_cast<int>(1.0 / h + 0.5);
  for (int k = 1; k <= steps; ++k) {
    const StepStatistics st = d->stepper->step(*d->drive);
    ASSERT_EQ(st.status, Status::kOk) << "step " << k;
    const V& q = d->stepper->positions();
    const double now = d->energy(q, d->stepper->velocities());
    drift = std::fmax(drift, std::fabs(now - start));
    {
      const Eigen::Matrix<double, 24, 1> rowsNow = d->contactMaterialRows(q, d->stepper->velocities());
      Eigen::Matrix<double, 24, 1> pNow;
      for (int i = 0; i < 24; ++i) pNow(i) = q(ConservativeArmDrive::Drive::materialDof(i));
      work += 0.5 * (rowsNow + pRows).dot(pNow - pBefore);
      pRows = rowsNow;
      pBefore = pNow;
      driftWithWork = std::fmax(driftWithWork, std::fabs(now - start + work));
    }
    swing = std::fmax(swing, std::fabs(d->drive->armState(1, q, zero).angle - angle0));
  }
  std::printf("[figure] eulerian arm drive kicked: kick energy %.4e J, worst drift over 1 s %.3e J (%.3f %% of the "
              "kick), with the contact's work on p %.3e J (%.3f %%), arm swing %.3f deg\n",
              kickEnergy, drift, 100.0 * drift / kickEnergy, driftWithWork, 100.0 * driftWithWork / kickEnergy, swing * 180.0 / kPi);
  EXPECT_GT(kickEnergy, 0.0);
  EXPECT_GT(swing, 0.1 * kPi / 180.0);  // the arm did swing
  EXPECT_LT(driftWithWork, 0.01 * kickEnergy);
}

// At rest the arm's row is the derivative of the drive's potential (strain, contact at kappa times
// the drawn segments' stiffness, the arm's springs) along the arm's swing with every node following
// its station: the row's stations terms are the reactions of the moving stations (central
// difference of 1e-7 m, within 1e-5 of the row; measured 2e-6).
TEST(EulerianArmDrive, TheArmsRowIsTheDerivativeOfThePotentialAlongItsSwing) {
  using V = ConservativeArmDrive::V;
  using Drive = ConservativeArmDrive::Drive;
  auto d = std::make_unique<ConservativeArmDrive>();
  ASSERT_TRUE(d->build());
  ASSERT_TRUE(d->drive->setStepSize(1e-4).ok());
  ASSERT_TRUE(d->stepper->setUp(IntegratorSettings{}, 1e-4).ok());
  const V zero = V::Zero();
  const IntegratorCoefficients& c = d->stepper->coefficients();
  V r;
  ASSERT_EQ(d->drive->residual({&d->x, &zero, &zero, 0.0, &c}, r), Status::kOk);
  const Vector2 lever = d->centre(d->x) - d->circle[1].arm.pivot;
  const Vector2 swing = Vector2(-lever(1), lever(0)) / lever.norm();
  const double row = r(Drive::pulleyDof(1, 0)) * swing(0) + r(Drive::pulleyDof(1, 1)) * swing(1);
  const double eps = 1e-7;
  double potential[2];
  for (int side = 0; side < 2; ++side) {
    const double step = side == 0 ? eps : -eps;
    V x = d->x;
    x(Drive::pulleyDof(1, 0)) += step * swing(0);
    x(Drive::pulleyDof(1, 1)) += step * swing(1);
    for (int i = 0; i < 24; ++i) {
      const Vector2 t = d->drive->mesh().tangents()[i];
      x.segment<2>(4 * i) += step * t.dot(d->drive->stations().positionByCentre(i, 1) * swing) * t;
    }
    V unused;
    ASSERT_EQ(d->drive->residual({&x, &zero, &zero, 0.0, &c}, unused), Status::kOk);  // the stations at x
    double error = 0.0;
    ASSERT_EQ(d->drive->postNewtonStep({&x, &zero, &zero, 0.0, &c}, error), Status::kOk);  // the gaps at x
    potential[side] = d->energy(x, zero);
  }
  const double derivative = (potential[0] - potential[1]) / (2.0 * eps);
  std::printf("[figure] eulerian arm drive at rest: the arm's row along its swing %.7f N, the potential's derivative "
              "%.7f N\n",
              row, derivative);
  EXPECT_GT(std::fabs(row), 0.01);  // the rest state of the statics' contact states is not this drive's minimum
  EXPECT_LT(std::fabs(row - derivative), 1e-5 * std::fabs(row) + 1e-9);
}
