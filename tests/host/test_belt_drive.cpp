// The assembled belt-drive system (issue 5) on small configurations with known answers: static
// equilibrium of the paper's drive (pre-tension, residual), rest stays rest, the speed drive
// follows its profile exactly, and the structured O(N) solve equals a dense LU of the same matrix.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstring>

#include "beltsim/system/belt_drive.hpp"
#include "beltsim/system/belt_geometry.hpp"
#include "beltsim/system/paper_parameters.hpp"
#include "beltsim/stepping/static_equilibrium.hpp"

namespace {
using namespace beltsim;

// 60 elements: at 24 the chord sag of a segment on the pulley (L_seg^2 / 8R = 2e-4 m) is ten times
// the contact penetration and the static solve of the paper's stiffness does not converge.
constexpr int kNE = 60, kNP = 2, kNCS = 4;
using Drive = BeltDrive<kNE, kNP, kNCS>;

// The paper's drive (docs/model_start_and_benchmark.md §9.1) at 60 elements; per-segment values from the per-area values of
// §9.1 times c_F = b L / n_cs, mu_v = sqrt(2 mu_k m_seg) as in the data (§9.2): paper_parameters.hpp.
struct PaperDrive {
  Drive drive;
  Drive::Vector q = Drive::Vector::Zero();
  FrictionParameters friction;
  double d = 0.1 * detmath::kPi;

  PaperDrive() {
    const double r = 0.09995, hb = 1e-4;
    const PathCircle pc[2] = {{Vector2(0, 0), r + hb / 2, 1}, {Vector2(d, 0), r + hb / 2, 1}};
    BeltPath<2> path;
    EXPECT_TRUE(buildBeltPath(pc, 2, path).ok());
    const BeltParameters belt = paperBelt();
    PulleyParameters c[2];
    c[0].kind = PulleyKind::kSpeedDriven;
    c[0].radius = r;
    c[0].inertia = 0.25;
    c[0].speed = RampProfile{RampProfile::Shape::kLinear, 0.05, 0.6, 0, 12};
    c[1].kind = PulleyKind::kFixedAxis;
    c[1].centre = Vector2(d, 0);
    c[1].radius = r;
    c[1].inertia = 0.25;
    c[1].rotationalDamping = 2;
    const double length = path.totalLength / kNE;
    const ContactParameters cp = contactFromPerArea(ContactPerArea{}, belt, length, kNCS);
    friction = cp.friction;
    EXPECT_TRUE(drive.setUp(belt, length, c, cp).ok());
    placeOnPath(drive, path, q);
  }

  double axialForceAt(const Drive::Vector& x, int e) const {
    AncfCable2DSection<double> s;
    EXPECT_EQ(drive.element().section(drive.gatherElement(x, e), Eigen::Matrix<double, 8, 1>::Zero(),
                                      0.5 * drive.belt().element.length, s),
              Status::kOk);
    return s.axialForce;
  }
};

IntegratorSettings paperIntegrator() {
  IntegratorSettings s;
  s.newmark = true;  // trapezoidal rule, as the paper
  s.maxNewtonIterations = 8;
  s.absoluteTolerance = 1e-7;  // above the round-off floor k_c ulp(r) sqrt(#segments) ~ 1e-10 N
  return s;
}

TEST(BeltDrive, StaticEquilibriumCarriesThePreTensionAndHasASmallResidual) {
  // docs/model_start_and_benchmark.md §8.2: N = -EA eps0 = 400 N in the reference geometry; the equilibrium changes it by
  // about 1 N (contact penetration, gravity: rho A g times the 0.2 m height difference = 1.6 N).
  static PaperDrive p;
  const StaticResult r = solveStaticEquilibrium(p.drive, p.q, StaticSettings{}, p.friction);
  EXPECT_EQ(r.status, Status::kOk);
  EXPECT_TRUE(r.converged);
  EXPECT_LT(r.residualNorm, 1e-6);
  for (int e = 0; e < kNE; ++e) EXPECT_NEAR(p.axialForceAt(p.q, e), 400.0, 3.0) << "element " << e;
  // Gravity: the top span hangs on the bottom span through the arcs, N_top - N_bottom = rho A g dy.
  const double top = p.axialForceAt(p.q, 7), bottom = p.axialForceAt(p.q, 37);
  EXPECT_NEAR(top - bottom, 0.8288 * 9.81 * 0.2, 0.3);
}

TEST(BeltDrive, BeltAtRestInEquilibriumStaysAtRest) {
  // With the drive speed 0 until t0 = 0.05 s, 200 steps of 5e-5 s must not move the belt. The
  // only imbalance is the reaction of the static phase's lock on node 0's x (docs/model_start_and_benchmark.md §8.3; a few mN
  // from gravity on the frictionless belt), which the bristle springs take up: the belt settles
  // within micrometres, against a belt speed of 1.2 m/s in operation.
  static PaperDrive p;
  solveStaticEquilibrium(p.drive, p.q, StaticSettings{}, p.friction);
  // The dynamic residual of the static solution is that lock reaction alone.
  const Drive::Vector zero = Drive::Vector::Zero();
  const IntegratorCoefficients sc = IntegratorCoefficients::make(paperIntegrator(), 5e-5);
  Drive::Vector r;
  ASSERT_EQ(p.drive.residual(IterationPoint<Drive::Vector>{&p.q, &zero, &zero, 0.0, &sc}, r), Status::kOk);
  EXPECT_LT(r.norm(), 0.02);
  EXPECT_NEAR(std::fabs(r(Drive::nodeDof(0, 0))), r.norm(), 1e-6);
  static ReferenceStepper<Drive> integ;
  ASSERT_TRUE(integ.setUp(paperIntegrator(), 5e-5).ok());
  integ.initialize(p.q, Drive::Vector::Zero(), Drive::Vector::Zero(), 0.0);
  for (int i = 0; i < 200; ++i) {
    const StepStatistics st = integ.step(p.drive);
    ASSERT_TRUE(st.converged()) << "step " << i << " flags " << int(st.flags);
  }
  EXPECT_LT(integ.velocities().cwiseAbs().maxCoeff(), 1e-4);
  EXPECT_LT((integ.positions() - p.q).cwiseAbs().maxCoeff(), 1e-6);
}

// Every fault setter checks what it would write before writing any of it: given invalid values
// mid-run (the belt running up, t = 0.06 s) it refuses them all, and the run goes on bit for bit
// as a run that was never given them.
TEST(BeltDrive, InvalidFaultValuesMidRunChangeNothing) {
  static PaperDrive clean, probed;
  ASSERT_EQ(solveStaticEquilibrium(clean.drive, clean.q, StaticSettings{}, clean.friction).status, Status::kOk);
  ASSERT_EQ(solveStaticEquilibrium(probed.drive, probed.q, StaticSettings{}, probed.friction).status, Status::kOk);
  static ReferenceStepper<Drive> a, b;
  ASSERT_TRUE(a.setUp(paperIntegrator(), 5e-5).ok());
  ASSERT_TRUE(b.setUp(paperIntegrator(), 5e-5).ok());
  a.initialize(clean.q, Drive::Vector::Zero(), Drive::Vector::Zero(), 0.0);
  b.initialize(probed.q, Drive::Vector::Zero(), Drive::Vector::Zero(), 0.0);
  for (int i = 0; i < 1200; ++i) {
    a.step(clean.drive);
    b.step(probed.drive);
  }
  FrictionParameters negative = probed.friction;
  negative.frictionCoefficient = -0.1;
  FrictionParameters notFinite = probed.friction;
  notFinite.bristleStiffness = std::nan("");
  EXPECT_FALSE(probed.drive.setFriction(negative).ok());
  EXPECT_FALSE(probed.drive.setFriction(notFinite, 1).ok());
  EXPECT_FALSE(probed.drive.setFriction(probed.friction, 2).ok());  // no pulley 2
  EXPECT_FALSE(probed.drive.setAxialStiffness(-1.0).ok());
  EXPECT_FALSE(probed.drive.setAxialStiffness(std::nan("")).ok());
  EXPECT_FALSE(probed.drive.setBearingDrag(1, -1.0, 0.0).ok());
  EXPECT_FALSE(probed.drive.setBearingDrag(0, 1.0, 0.0).ok());  // the speed-driven pulley takes none
  EXPECT_FALSE(probed.drive.setArmStiffnessFactor(1, 0.5).ok());  // not a tensioner
  for (int i = 0; i < 400; ++i) {
    a.step(clean.drive);
    b.step(probed.drive);
  }
  EXPECT_EQ(std::memcmp(a.positions().data(), b.positions().data(), sizeof(double) * Drive::kSize), 0);
  EXPECT_EQ(std::memcmp(a.velocities().data(), b.velocities().data(), sizeof(double) * Drive::kSize), 0);
  EXPECT_GT(a.velocities()(Drive::pulleyDof(1, 2)), 0.1);  // the belt runs: a real run
}

TEST(BeltDrive, SpeedDrivenPulleyFollowsItsProfileExactly) {
  // The prescribed row sets omega(t_{n+1}) exactly (docs/model_drive_and_solver.md §7.11 elimination).
  static PaperDrive p;
  solveStaticEquilibrium(p.drive, p.q, StaticSettings{}, p.friction);
  static ReferenceStepper<Drive> integ;
  ASSERT_TRUE(integ.setUp(paperIntegrator(), 5e-5).ok());
  integ.initialize(p.q, Drive::Vector::Zero(), Drive::Vector::Zero(), 0.0);
  double previousTorque = 0.0;
  for (int i = 0; i < 2000; ++i) {  // to t = 0.1 s
    previousTorque = p.drive.driveTorque(0);
    integ.step(p.drive);
  }
  const double expected = 12.0 * (0.1 - 0.05) / 0.55;
  EXPECT_NEAR(integ.velocities()(Drive::pulleyDof(0, 2)), expected, 1e-9);
  // Trapezoidal rule: the angle is the integral of the (piecewise linear) speed, exact here.
  EXPECT_NEAR(integ.positions()(Drive::pulleyDof(0, 2)), 0.5 * expected * 0.05, 1e-9);
  // The drive torque accelerates P2 and the belt: positive, and of the size J2 alpha + d w.
  EXPECT_GT(p.drive.driveTorque(0), 0.0);
  // ... and it is smooth from step to step: the trapezoidal rule's end-point acceleration of P1
  // alternates by +-alpha after the kink of the ramp at 0.05 s (+-J alpha = 5.45 N m here); the
  // reported torque uses the step's mean acceleration.
  EXPECT_LT(std::fabs(p.drive.driveTorque(0) - previousTorque), 0.1);
}

}  // namespace

TEST(BeltDrive, ResidualMemoAndHandedOverKinematicsKeepTheFullEvaluationsBits) {
  // BeltDrive::ResidualMemo is an exact shortcut: at the same q, v, a a second residual takes the
  // element forces and the unchanged pairs' forces from the last one, and the post-Newton step
  // takes that residual's segment points and kinematics. Reference: the same drive with the memo
  // invalidated (setFriction with the same friction), which evaluates everything; both must agree
  // to the bit. The point is a step's predictor (q + h v, a = 0) on the belt accelerating at
  // 0.1 s with the load pulley turned 2 mrad further, so that the post-Newton step changes
  // stick/slip states.
  static PaperDrive p;
  solveStaticEquilibrium(p.drive, p.q, StaticSettings{}, p.friction);
  static ReferenceStepper<Drive> integ;
  ASSERT_TRUE(integ.setUp(paperIntegrator(), 5e-5).ok());
  integ.initialize(p.q, Drive::Vector::Zero(), Drive::Vector::Zero(), 0.0);
  for (int i = 0; i < 2000; ++i) integ.step(p.drive);
  static Drive withMemo, full;
  withMemo = p.drive;
  full = p.drive;
  Drive::Vector q = integ.positions() + 5e-5 * integ.velocities();
  q(Drive::pulleyDof(1, 2)) += 2e-3;  // P2 turned by 0.2 mm at its rim: its bristles give way
  const Drive::Vector v = integ.velocities();
  const Drive::Vector a = Drive::Vector::Zero();
  const IntegratorCoefficients sc = IntegratorCoefficients::make(paperIntegrator(), 5e-5);
  const IterationPoint<Drive::Vector> point{&q, &v, &a, integ.time() + 5e-5, &sc};
  const auto sameBits = [](const Drive::Vector& x, const Drive::Vector& y) {
    return std::memcmp(x.data(), y.data(), sizeof(double) * Drive::kSize) == 0;
  };
  Drive::Vector before, reused, reference;
  withMemo.beginStep();
  full.beginStep();
  ASSERT_EQ(withMemo.residual(point, before), Status::kOk);
  ASSERT_TRUE(full.setFriction(p.friction).ok());  // forgets the memo, keeps the histories
  double errorWithMemo = 0.0, errorFull = 0.0;
  ASSERT_EQ(withMemo.postNewtonStep(point, errorWithMemo), Status::kOk);
  ASSERT_EQ(full.postNewtonStep(point, errorFull), Status::kOk);
  EXPECT_EQ(std::memcmp(&errorWithMemo, &errorFull, sizeof(double)), 0);
  int changedPairs = 0;
  for (int e = 0; e < kNE; ++e)
    for (int c = 0; c < kNP; ++c)
      for (int i = 0; i < kNCS; ++i) {
        const SegmentHistory& x = withMemo.pair(e, c).history(i);
        const SegmentHistory& y = full.pair(e, c).history(i);
        EXPECT_TRUE(std::memcmp(&x.gap, &y.gap, sizeof(double)) == 0 && x.state == y.state &&
                    std::memcmp(&x.stickingPosition, &y.stickingPosition, sizeof(double)) == 0)
            << "element " << e << " circle " << c << " segment " << i;
      }
  for (int e = 0; e < kNE; ++e)
    for (int c = 0; c < kNP; ++c)
      for (int i = 0; i < kNCS; ++i)
        if (withMemo.pair(e, c).history(i).state != p.drive.pair(e, c).history(i).state) {
          ++changedPairs;
          break;
        }
  EXPECT_GT(changedPairs, 0);  // the post-Newton step changed states: the memo had work to skip
  ASSERT_TRUE(full.setFriction(p.friction).ok());
  ASSERT_EQ(withMemo.residual(point, reused), Status::kOk);
  ASSERT_EQ(full.residual(point, reference), Status::kOk);
  EXPECT_TRUE(sameBits(reused, reference));
  EXPECT_FALSE(sameBits(reused, before));
}

// The residual memo holds at one revision of the drive's parameters (PulleysAndPairs::revision,
// residual_memo.hpp): after a fault changes EA or the friction, a residual at the same point is the
// full evaluation with the new value, to the bit. Reference: a copy of the drive given the value
// before any residual. The point is the static state with the load pulley turned 2 mrad, so that
// the bristles carry load and the friction's stiffness shows in the residual.
TEST(BeltDrive, AChangedParameterActsOnTheNextResidualAtTheSamePoint) {
  static PaperDrive p;
  solveStaticEquilibrium(p.drive, p.q, StaticSettings{}, p.friction);
  Drive::Vector q = p.q;
  q(Drive::pulleyDof(1, 2)) += 2e-3;
  const Drive::Vector v = Drive::Vector::Zero(), a = Drive::Vector::Zero();
  const IntegratorCoefficients sc = IntegratorCoefficients::make(paperIntegrator(), 5e-5);
  const IterationPoint<Drive::Vector> point{&q, &v, &a, 0.0, &sc};
  const auto sameBits = [](const Drive::Vector& x, const Drive::Vector& y) {
    return std::memcmp(x.data(), y.data(), sizeof(double) * Drive::kSize) == 0;
  };
  static Drive memoized, fresh;
  memoized = p.drive;
  memoized.beginStep();
  Drive::Vector before, after, reference;
  ASSERT_EQ(memoized.residual(point, before), Status::kOk);

  fresh = p.drive;
  fresh.beginStep();
  const double EA = 1.1 * p.drive.belt().element.EA;
  ASSERT_TRUE(memoized.setAxialStiffness(EA).ok());
  ASSERT_TRUE(fresh.setAxialStiffness(EA).ok());
  ASSERT_EQ(memoized.residual(point, after), Status::kOk);
  ASSERT_EQ(fresh.residual(point, reference), Status::kOk);
  EXPECT_TRUE(sameBits(after, reference));
  EXPECT_FALSE(sameBits(after, before));

  FrictionParameters stiffer = p.friction;
  stiffer.bristleStiffness *= 2.0;
  fresh = p.drive;
  fresh.beginStep();
  ASSERT_TRUE(fresh.setAxialStiffness(EA).ok());
  ASSERT_TRUE(fresh.setFriction(stiffer).ok());
  ASSERT_TRUE(memoized.setFriction(stiffer).ok());
  before = after;
  ASSERT_EQ(memoized.residual(point, after), Status::kOk);
  ASSERT_EQ(fresh.residual(point, reference), Status::kOk);
  EXPECT_TRUE(sameBits(after, reference));
  EXPECT_FALSE(sameBits(after, before));
}

// Friction parameters a pair refuses (a negative coefficient) are reported by name and change
// nothing: the residual at the static state keeps its bits (issue 50; before, setFriction
// ignored the pairs' set-up result, so a caller was not told that the friction stayed as it was).
TEST(BeltDrive, FrictionItCannotSetIsReportedAndChangesNothing) {
  static PaperDrive p;
  const StaticResult r = solveStaticEquilibrium(p.drive, p.q, StaticSettings{}, p.friction);
  ASSERT_EQ(r.status, Status::kOk);
  const Drive::Vector v = Drive::Vector::Zero(), a = Drive::Vector::Zero();
  const IntegratorCoefficients sc = IntegratorCoefficients::make(paperIntegrator(), 5e-5);
  const IterationPoint<Drive::Vector> point{&p.q, &v, &a, 0.0, &sc};
  Drive::Vector before, after;
  ASSERT_EQ(p.drive.residual(point, before), Status::kOk);
  FrictionParameters wrong = p.friction;
  wrong.frictionCoefficient = -0.1;
  const ParameterError e = p.drive.setFriction(wrong);
  EXPECT_EQ(e.status, Status::kInvalidParameter);
  EXPECT_STREQ(e.parameter, "frictionCoefficient");
  EXPECT_EQ(p.drive.pair(0, 0).parameters().friction.frictionCoefficient, p.friction.frictionCoefficient);
  ASSERT_EQ(p.drive.residual(point, after), Status::kOk);
  EXPECT_EQ(std::memcmp(before.data(), after.data(), sizeof(double) * Drive::kSize), 0);
}
