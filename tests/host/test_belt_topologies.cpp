// Topologies and circle kinds of the belt-drive system (issue 5), one behaviour each, against a
// closed-form reference stated at each test:
//  * open cable clamped at one end, hanging under gravity: cantilever tip deflection q L^4 / (8 EI);
//  * open cable pinned at both ends, pre-tensioned, under gravity: taut-string sag q L^2 / (8 N);
//  * closed belt driven by a torque-driven pulley against a damped fixed-axis pulley: at steady
//    state the drive torque equals the damper torque d omega2, and the creep is (F1 - F2) / EA;
//  * closed belt with a floating pulley (tensioner) on a support spring: the static equilibrium
//    balances the spring force against the two span forces.
// The model objects are large: they are static, never on the stack.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>

#include "beltsim/system/belt_drive.hpp"
#include "beltsim/system/belt_geometry.hpp"
#include "beltsim/system/paper_parameters.hpp"
#include "beltsim/system/belt_outputs.hpp"
#include "beltsim/stepping/static_equilibrium.hpp"

namespace {
using namespace beltsim;
using Vector8d = Eigen::Matrix<double, 8, 1>;

double seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// ---- open cables: 24 elements of a 1 m cable along x from (0, 0), one circle far away -------------
constexpr int kOpenNE = 24, kOpenNCS = 4;
using OpenCable = BeltDrive<kOpenNE, 1, kOpenNCS>;
constexpr double kOpenLength = 1.0;
constexpr double kOpenElement = kOpenLength / kOpenNE;

// A fixed-axis circle 10 m away: every contact pair stays clear of it.
PulleyParameters farCircle() {
  PulleyParameters c;
  c.kind = PulleyKind::kFixedAxis;
  c.centre = Vector2(10.0, 10.0);
  c.radius = 0.1;
  c.inertia = 1.0;
  return c;
}

ContactParameters openContact() {
  ContactParameters cp;
  cp.segmentCount = kOpenNCS;
  cp.contactStiffness = 1e5;
  return cp;
}

// Straight reference configuration: node k at (k L, 0) with slope (1, 0); the circle at its centre.
void straightCable(const OpenCable& drive, OpenCable::Vector& q) {
  q.setZero();
  for (int k = 0; k <= kOpenNE; ++k) {
    q(OpenCable::nodeDof(k, 0)) = k * kOpenElement;
    q(OpenCable::nodeDof(k, 2)) = 1.0;
  }
  q(OpenCable::pulleyDof(0, 0)) = drive.pulley(0).centre(0);
  q(OpenCable::pulleyDof(0, 1)) = drive.pulley(0).centre(1);
}

AncfCable2DSection<double> openSection(const OpenCable& drive, const OpenCable::Vector& q, int e, double x) {
  AncfCable2DSection<double> s;
  EXPECT_EQ(drive.element().section(drive.gatherElement(q, e), Vector8d::Zero(), x, s), Status::kOk);
  return s;
}

TEST(BeltTopologies, ClampedCantileverTipDeflectionUnderGravity) {
  // Reference: Euler-Bernoulli cantilever under a uniform load q = rho A g, tip deflection
  // w = q L^4 / (8 EI) and tip rotation q L^3 / (6 EI). Linear regime: w / L = 1.2e-3, so the
  // geometric nonlinearity is O((w/L)^2) ~ 1e-6; cubic Hermite elements with consistent loads
  // reproduce the quartic deflection at the nodes, so the discretization error is small too.
  static OpenCable drive;
  static OpenCable::Vector q;
  const double rhoA = 1.0, g = 9.81, EI = 1000.0;
  BeltParameters belt;
  belt.closed = false;
  belt.startEnd = CableEnd::kClamped;
  belt.finishEnd = CableEnd::kFree;
  belt.element.massPerLength = rhoA;
  belt.element.EA = 1e7;
  belt.element.EI = EI;
  belt.element.gravity = Eigen::Vector2d(0.0, -g);
  const PulleyParameters c = farCircle();
  ASSERT_TRUE(drive.setUp(belt, kOpenElement, &c, openContact()).ok());
  straightCable(drive, q);
  const auto start = std::chrono::steady_clock::now();
  const StaticResult r = solveStaticEquilibrium(drive, q, StaticSettings{}, FrictionParameters{});
  const double time = seconds(start);
  EXPECT_EQ(r.status, Status::kOk);
  EXPECT_TRUE(r.converged);
  EXPECT_LT(r.residualNorm, 1e-6);

  const double q0 = rhoA * g;
  const double expected = q0 * std::pow(kOpenLength, 4) / (8.0 * EI);
  const double tip = -q(OpenCable::nodeDof(kOpenNE, 1));
  const double rotation = -std::atan2(q(OpenCable::nodeDof(kOpenNE, 3)), q(OpenCable::nodeDof(kOpenNE, 2)));
  const double expectedRotation = q0 * std::pow(kOpenLength, 3) / (6.0 * EI);
  std::printf("cantilever: tip deflection %.9e m (formula %.9e, %+.2e rel), tip rotation %.9e rad (formula %.9e, %+.2e rel), %.3f s\n",
              tip, expected, tip / expected - 1.0, rotation, expectedRotation, rotation / expectedRotation - 1.0, time);
  EXPECT_NEAR(tip, expected, 1e-3 * expected);
  EXPECT_NEAR(rotation, expectedRotation, 1e-3 * expectedRotation);
  // Clamp held exactly; the circle untouched (no pair ever flagged).
  EXPECT_EQ(q(OpenCable::nodeDof(0, 0)), 0.0);
  EXPECT_EQ(q(OpenCable::nodeDof(0, 1)), 0.0);
  EXPECT_EQ(q(OpenCable::nodeDof(0, 3)), 0.0);
  for (int e = 0; e < kOpenNE; ++e) EXPECT_FALSE(drive.pair(e, 0).anyFlagged()) << "element " << e;
}

TEST(BeltTopologies, PinnedPreTensionedCableSagsLikeATautString) {
  // Reference: taut string under a uniform load q = rho A g with tension N: mid-span sag
  // q L^2 / (8 N). Pre-stretch eps0 = -0.01 held between the pins gives N = -EA eps0 = 100 N; the
  // sag (1.2 mm) adds a strain of 8/3 (w/L)^2 ~ 4e-6 (0.04 N). The beam's bending correction
  // (q EI / N^2 ~ 1e-8 m) and the load per reference rather than per projected length (O((w/L)^2))
  // are negligible.
  static OpenCable drive;
  static OpenCable::Vector q;
  const double rhoA = 0.1, g = 9.81, EA = 1e4, eps0 = -0.01;
  BeltParameters belt;
  belt.closed = false;
  belt.startEnd = CableEnd::kPinned;
  belt.finishEnd = CableEnd::kPinned;
  belt.element.massPerLength = rhoA;
  belt.element.EA = EA;
  belt.element.EI = 1e-4;
  belt.element.referenceAxialStrain = eps0;
  belt.element.gravity = Eigen::Vector2d(0.0, -g);
  const PulleyParameters c = farCircle();
  ASSERT_TRUE(drive.setUp(belt, kOpenElement, &c, openContact()).ok());
  straightCable(drive, q);
  const auto start = std::chrono::steady_clock::now();
  const StaticResult r = solveStaticEquilibrium(drive, q, StaticSettings{}, FrictionParameters{});
  const double time = seconds(start);
  EXPECT_EQ(r.status, Status::kOk);
  EXPECT_TRUE(r.converged);
  EXPECT_LT(r.residualNorm, 1e-6);

  const double sag = -q(OpenCable::nodeDof(kOpenNE / 2, 1));
  const double force = openSection(drive, q, kOpenNE / 2, 0.0).axialForce;
  const double nominal = -EA * eps0;
  const double q0 = rhoA * g;
  const double withMeasured = q0 * kOpenLength * kOpenLength / (8.0 * force);
  const double withNominal = q0 * kOpenLength * kOpenLength / (8.0 * nominal);
  std::printf("pinned string: sag %.9e m; formula with N_mid = %.6f N: %.9e m (%+.2e rel); with N = -EA eps0 = %.1f N: %.9e m (%+.2e rel), %.3f s\n",
              sag, force, withMeasured, sag / withMeasured - 1.0, nominal, withNominal, sag / withNominal - 1.0, time);
  EXPECT_NEAR(force, nominal, 0.1);
  EXPECT_NEAR(sag, withMeasured, 5e-3 * withMeasured);
  EXPECT_NEAR(sag, withNominal, 5e-3 * withNominal);
  // Symmetric: the pins stay where they are, the mid node does not move sideways.
  EXPECT_NEAR(q(OpenCable::nodeDof(0, 0)), 0.0, 1e-15);
  EXPECT_NEAR(q(OpenCable::nodeDof(kOpenNE, 0)), kOpenLength, 1e-15);
  EXPECT_NEAR(q(OpenCable::nodeDof(kOpenNE / 2, 0)), 0.5 * kOpenLength, 1e-9);
}

// ---- closed belts on two pulleys: the paper's drive geometry at 60 elements -------------------------
// (60 elements: at 24 the static solve of the paper's contact stiffness does not converge, see
// test_belt_drive.cpp.)
constexpr int kBeltNE = 60, kBeltNP = 2, kBeltNCS = 4;
using Drive = BeltDrive<kBeltNE, kBeltNP, kBeltNCS>;
constexpr double kPulleyRadius = 0.09995, kBeltThickness = 1e-4;
constexpr double kCentreDistance = 0.1 * detmath::kPi;
constexpr double kEA = 8000.0, kMassPerLength = 0.8288, kPreStrain = -0.05;

// The paper's belt and contact (docs/model_start_and_benchmark.md §9.1-9.2, per-segment values from the per-area values) on
// pulleys of the given kinds; P1 at (0, 0), P2 at (d, 0).
struct TwoPulleyBelt {
  Drive drive;
  Drive::Vector q = Drive::Vector::Zero();
  FrictionParameters friction;
  BeltPath<2> path;

  void setUp(const PulleyParameters& p1, const PulleyParameters& p2, bool gravity) {
    const PathCircle pc[2] = {{p1.centre, kPulleyRadius + kBeltThickness / 2, 1},
                              {p2.centre, kPulleyRadius + kBeltThickness / 2, 1}};
    ASSERT_TRUE(buildBeltPath(pc, 2, path).ok());
    BeltParameters belt = paperBelt();
    if (!gravity) belt.element.gravity = Eigen::Vector2d::Zero();
    const double length = path.totalLength / kBeltNE;
    const ContactParameters cp = contactFromPerArea(ContactPerArea{}, belt, length, kBeltNCS);
    friction = cp.friction;
    const PulleyParameters c[2] = {p1, p2};
    ASSERT_TRUE(drive.setUp(belt, length, c, cp).ok());
    placeOnPath(drive, path, q);
  }
};

PulleyParameters pulley(PulleyKind kind, double x) {
  PulleyParameters c;
  c.kind = kind;
  c.centre = Vector2(x, 0.0);
  c.radius = kPulleyRadius;
  c.inertia = 0.25;
  return c;
}

IntegratorSettings trapezoidal() {
  IntegratorSettings s;
  s.newmark = true;
  s.maxNewtonIterations = 8;
  s.absoluteTolerance = 1e-7;  // above the contact forces' round-off floor (see test_belt_drive.cpp)
  return s;
}

TEST(BeltTopologies, TorqueDrivenPulleyReachesTheSpeedWhereTheDamperTakesTheTorque) {
  // Reference: at steady state both pulleys turn at constant speed, so the belt's torque on P2
  // equals the damper's d omega2, and on P1 the applied torque T; both are (F1 - F2) r of the same
  // two spans, hence T = d omega2 whatever the losses in the belt.
  // Set-up: P1 torque-driven (motor inertia 0.05 kg m^2, no damping), T = 40 N m commanded through
  // BeltDriveInput (the controller-in-the-loop path), raised smoothly over 0.05 s; P2 on a fixed
  // axis, J = 0.05 kg m^2, d = 4 N m s/rad. Expected: omega2 = T / d = 10 rad/s (belt speed
  // 1 m/s), F1 - F2 = T / r = 400 N (F1 / F2 ~ 2.8 < e^(mu pi) = 4.8: a stick arc remains).
  // Time constant (J1 + J2 + belt) / d = 28 ms; the torsional mode of the pulleys on the spans
  // (~23 Hz) is damped by P2's damper (zeta ~ 0.14). End time 0.35 s: 11 time constants after the
  // ramp, and P1 has turned ~3 rad, so belt material has passed through the stick arcs (~1 rad).
  // Creep: the spans carry material at v = (1 + eps) x (constant material flux), so
  // (v1 - v2) / v1 = (eps1 - eps2) / (1 + eps1), eps = eps0 + F / EA (exact at steady state).
  // Pulley speeds: the classic creep law (Grashof/Reynolds: each pulley's surface moves with the
  // belt in its stick arc) gives (w1 - w2) / w1 = (F1 - F2) / EA. The discretized contact does not
  // reach it at 60 elements: measured -13 %; the authors' own 60-element data of the paper drive
  // (shared/reference/paper_belt_drive, wheel0/1angVel and beamForce, nn1) give -11.8 %, their
  // 120-element data -9.1 %, this model at 240 elements -3.7 % (docs/validation_and_convergence.md,
  // *Validation*). Asserted within 20 %.
  static TwoPulleyBelt b;
  const double torque = 40.0, damping = 4.0, inertia = 0.05;
  PulleyParameters p1 = pulley(PulleyKind::kTorqueDriven, 0.0);
  p1.inertia = inertia;
  PulleyParameters p2 = pulley(PulleyKind::kFixedAxis, kCentreDistance);
  p2.inertia = inertia;
  p2.rotationalDamping = damping;
  b.setUp(p1, p2, true);
  const StaticResult sr = solveStaticEquilibrium(b.drive, b.q, StaticSettings{}, b.friction);
  ASSERT_EQ(sr.status, Status::kOk);
  ASSERT_TRUE(sr.converged);

  static ReferenceStepper<Drive> integ;
  const double h = 2e-4, endTime = 0.35, window = 0.05;
  ASSERT_TRUE(integ.setUp(trapezoidal(), h).ok());
  integ.initialize(b.q, Drive::Vector::Zero(), Drive::Vector::Zero(), 0.0);
  const int steps = static_cast<int>(endTime / h + 0.5);
  const int windowSteps = static_cast<int>(window / h + 0.5);
  double omega1 = 0.0, omega2 = 0.0, beltTorque1 = 0.0, beltTorque2 = 0.0;
  double force1 = 0.0, force2 = 0.0, speed1 = 0.0, speed2 = 0.0;
  int newtonBound = 0, pnsBound = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < steps; ++i) {
    BeltDriveInput<kBeltNP> input;
    input.useCommand[0] = true;
    input.command[0] = smoothStep(integ.time() + h, 0.0, 0.05, 0.0, torque);
    b.drive.setInput(input);
    const StepStatistics st = integ.step(b.drive);
    ASSERT_EQ(st.flags & kStepFault, 0) << "step " << i;
    if (st.flags & kStepNewtonNotConverged) ++newtonBound;
    if (st.flags & kStepPnsNotConverged) ++pnsBound;
    if (i >= steps - windowSteps) {
      const Drive::Vector& q = integ.positions();
      const Drive::Vector& v = integ.velocities();
      omega1 += v(Drive::pulleyDof(0, 2)) / windowSteps;
      omega2 += v(Drive::pulleyDof(1, 2)) / windowSteps;
      beltTorque1 += b.drive.beltTorque(0) / windowSteps;
      beltTorque2 += b.drive.beltTorque(1) / windowSteps;
      const SpanMeasure top = measureSpan(b.drive, q, v, b.path, 0);
      const SpanMeasure bottom = measureSpan(b.drive, q, v, b.path, 1);
      ASSERT_GT(top.samples, 0);
      ASSERT_GT(bottom.samples, 0);
      force1 += top.force / windowSteps;
      force2 += bottom.force / windowSteps;
      speed1 += top.speed / windowSteps;
      speed2 += bottom.speed / windowSteps;
    }
  }
  const double time = seconds(start);
  const double creep = (omega1 - omega2) / omega1;
  const double creepTheory = (force1 - force2) / kEA;
  // Spans: steady flow of material, v / (1 + eps) equal in both spans, eps = eps0 + F / EA.
  const double strain1 = kPreStrain + force1 / kEA, strain2 = kPreStrain + force2 / kEA;
  const double spanCreep = (speed1 - speed2) / speed1;
  const double spanCreepTheory = (strain1 - strain2) / (1.0 + strain1);
  std::printf("torque drive (means over the last %.2f s of %.2f s; %d steps of %.0e s, %d Newton-bound, %d PNS-bound; %.2f s wall):\n"
              "  omega1 %.6f rad/s, omega2 %.6f rad/s, T = %.4f N m vs d omega2 = %.4f N m (%+.2e rel)\n"
              "  belt torque on P1 %.4f N m, on P2 %.4f N m; spans: F1 %.3f N, F2 %.3f N, (F1 - F2) r = %.4f N m (%+.2e rel)\n"
              "  creep from pulley speeds (w1 - w2)/w1 = %.5f vs (F1 - F2)/EA = %.5f (%+.2e rel)\n"
              "  span speeds v1 %.6f m/s, v2 %.6f m/s (w1 R %.6f, w2 R %.6f): (v1 - v2)/v1 = %.5f vs (eps1 - eps2)/(1 + eps1) = %.5f (%+.2e rel)\n",
              window, endTime, steps, h, newtonBound, pnsBound, time, omega1, omega2, torque, damping * omega2,
              damping * omega2 / torque - 1.0, beltTorque1, beltTorque2, force1, force2,
              (force1 - force2) * kPulleyRadius, (force1 - force2) * kPulleyRadius / torque - 1.0, creep, creepTheory,
              creep / creepTheory - 1.0, speed1, speed2, omega1 * (kPulleyRadius + kBeltThickness / 2),
              omega2 * (kPulleyRadius + kBeltThickness / 2), spanCreep, spanCreepTheory, spanCreep / spanCreepTheory - 1.0);
  EXPECT_EQ(newtonBound, 0);
  EXPECT_LT(pnsBound, steps / 100);  // accepted and counted, as in the reference (tolerance 1e-3 N)
  EXPECT_NEAR(damping * omega2, torque, 0.01 * torque);
  EXPECT_NEAR(beltTorque1, -torque, 0.01 * torque);           // belt holds P1 against the motor
  EXPECT_NEAR(beltTorque2, damping * omega2, 0.01 * torque);  // belt drives P2 against its damper
  EXPECT_NEAR((force1 - force2) * kPulleyRadius, torque, 0.02 * torque);
  EXPECT_NEAR(spanCreep, spanCreepTheory, 0.03 * spanCreepTheory);
  EXPECT_GT(creep, 0.0);
  EXPECT_NEAR(creep, creepTheory, 0.2 * creepTheory);
}

TEST(BeltTopologies, FloatingTensionerSettlesWhereTheSpringCarriesBothSpans) {
  // Reference: P2 floats on a support spring k (rest position at the reeving centre distance d);
  // the pre-stretched belt (400 N in the reeving geometry) pulls it towards P1 by Dx. Both spans
  // are horizontal (equal pulleys), so the balance of P2 is k Dx = F_top + F_bottom (~2 N), and
  // the belt, shorter by 2 Dx, carries N = EA (-eps0 - 2 Dx / l_b): hence
  // Dx = 2 EA (-eps0) / (k + 4 EA / l_b) (contact penetration and the EI of the bent arcs aside).
  // No gravity: the tensioner's y stays at 0 by symmetry (up to the discretization).
  static TwoPulleyBelt b;
  const double k = 1e5;
  const PulleyParameters p1 = pulley(PulleyKind::kFixedAxis, 0.0);
  PulleyParameters p2 = pulley(PulleyKind::kFloating, kCentreDistance);
  p2.mass = 1.0;
  p2.supportStiffness = k;
  p2.supportDamping = 100.0;
  b.setUp(p1, p2, false);
  const auto start = std::chrono::steady_clock::now();
  const StaticResult r = solveStaticEquilibrium(b.drive, b.q, StaticSettings{}, b.friction);
  const double time = seconds(start);
  EXPECT_EQ(r.status, Status::kOk);
  EXPECT_TRUE(r.converged);
  EXPECT_LT(r.residualNorm, 1e-6);

  const Drive::Vector zero = Drive::Vector::Zero();
  const double dx = kCentreDistance - b.q(Drive::pulleyDof(1, 0));
  const double dy = b.q(Drive::pulleyDof(1, 1));
  const SpanMeasure top = measureSpan(b.drive, b.q, zero, b.path, 0);
  const SpanMeasure bottom = measureSpan(b.drive, b.q, zero, b.path, 1);
  const double lb = b.path.totalLength;
  const double expectedDx = 2.0 * kEA * (-kPreStrain) / (k + 4.0 * kEA / lb);
  std::printf("tensioner: Dx = %.6e m (formula %.6e, %+.2e rel), y = %.2e m; spring %.4f N vs spans %.4f + %.4f = %.4f N (%+.2e rel), %.3f s\n",
              dx, expectedDx, dx / expectedDx - 1.0, dy, k * dx, top.force, bottom.force, top.force + bottom.force,
              k * dx / (top.force + bottom.force) - 1.0, time);
  ASSERT_GT(top.samples, 0);
  ASSERT_GT(bottom.samples, 0);
  EXPECT_NEAR(k * dx, top.force + bottom.force, 0.02 * k * dx);
  EXPECT_NEAR(dx, expectedDx, 0.03 * expectedDx);
  EXPECT_NEAR(top.force, bottom.force, 0.01 * top.force);  // symmetric drive
  EXPECT_LT(std::fabs(dy), 1e-5);  // measured 4e-7 m: the node layout is not exactly symmetric
}

}  // namespace
