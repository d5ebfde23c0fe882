// The paper's drive on a mesh that stands still (system/eulerian_belt_drive.hpp, docs/model.md
// §2.10): its Newton matrix is the derivative of its residual, and at 24 elements it runs the
// paper's scenario without the element-passing ripple of the material mesh, near the paper's
// Table 4.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "beltsim/stepping/reference_stepper.hpp"
#include "beltsim/system/eulerian_belt_drive.hpp"
#include "beltsim/system/plant.hpp"
#include "beltsim/system/profiles.hpp"
#include "centrifugal_check.hpp"
#include "gross_slip_check.hpp"
#include "paper_scenario.hpp"
#include "standing_mesh_stepping.hpp"

namespace {

using beltsim::Status;
constexpr int kElements = 24;
constexpr double kStep = 1e-4;  // s, the paper's
constexpr double kPi = 3.14159265358979323846;

// The paper's drive at NE elements with the arc gap (docs/model.md §4.2), statics by the material
// mesh, handed to the Eulerian drive. The gauge: node 3 NE / 4, where the belt leaves P1 (the
// driver) into the slack span in the static state (NE / 4 elements per span and per wrap: node 0
// sits where the belt enters P1 from the tight span, NE / 4 where it leaves P2, NE / 2 where it
// enters P2). Under the load the other nodes drift along the path (docs/model.md §2.10); held
// here, node 0 stays at P1's entry, where the sticking zone sets the creep. Newton's absolute
// tolerance is 1e-8 N: the Eulerian residual's round-off floor is about 2e-9 N (the material
// drive's tolerance, 1e-10 N, flags 14 % of the steps as not converged at unchanged results).
template <int NE>
struct EulerianPaperDriveOf {
  using Material = beltsim::BeltDrivePlant<NE>;
  using Drive = beltsim::EulerianBeltDrive<NE, 2, 4>;
  using Stepper = beltsim::ReferenceStepper<Drive>;
  using V = typename Drive::Vector;
  static constexpr int kGauge = 3 * NE / 4;

  std::unique_ptr<Material> material = std::make_unique<Material>();
  std::unique_ptr<Drive> drive = std::make_unique<Drive>();
  std::unique_ptr<Stepper> stepper = std::make_unique<Stepper>();
  double loadTorque = 25.0;  // N m on P2 from 1.0 to 1.5 s (the paper's)

  static beltsim::PlantConfig paperConfig() { return beltsim::test::standingMeshPaperConfig(kStep); }

  bool start(const beltsim::PlantConfig& config = paperConfig()) {
    if (!material->setUp(config).ok()) return false;
    const beltsim::StaticResult statics = material->start();
    if (statics.status != Status::kOk || !statics.converged) return false;
    const auto& m = material->drive();
    const beltsim::PulleyParameters circles[2] = {m.circle(0), m.circle(1)};
    if (!drive->setUp(m.belt(), m.belt().element.length, circles, 2, m.contact()).ok()) return false;
    V q = material->positions();
    drive->start(q, [&](int e, int p, int i) { return m.pair(e, p).history(i); }, kGauge);
    drive->setStepSize(kStep);
    return beltsim::test::startAtRest(*stepper, config, q);
  }

  beltsim::StepStatistics step(int k) {
    return beltsim::test::stepPaperScenario(*drive, *stepper, k, kStep, loadTorque);
  }

  // Axial force at node `node` (N), strain-rate damping on the material rate included.
  double nodeForce(int node) const {
    beltsim::AncfCable2D<double>::Section s;
    const V& q = stepper->positions();
    if (drive->element().section(drive->gatherElement(q, node), drive->materialRates(q, stepper->velocities(), node),
                                 0.0, s) != Status::kOk)
      return NAN;
    return s.axialForce;
  }
  double tightForce() const { return nodeForce(NE / 8); }      // mid tight span
  double slackForce() const { return nodeForce(5 * NE / 8); }  // mid slack span
};

using EulerianPaperDrive = EulerianPaperDriveOf<kElements>;
using Drive = EulerianPaperDrive::Drive;
using V = Drive::Vector;

}  // namespace

// The Newton matrix is the derivative of the residual along the integrator's consistent update
// (q += d, v += gamma' d, a += beta' d): for every unknown j, the solve of the central difference
// of the residual gives the unit vector e_j back within 1e-6 (measured 1e-8), at a running state
// (0.2 s: P1 at 3.3 rad/s, both wraps in contact, the material moving).
TEST(EulerianDrive, NewtonMatrixIsTheDerivativeOfTheResidual) {
  EulerianPaperDrive d;
  ASSERT_TRUE(d.start());
  for (int k = 1; k <= 2000; ++k) ASSERT_EQ(d.step(k).status, Status::kOk);
  V q = d.stepper->positions(), v = d.stepper->velocities(), a = d.stepper->accelerations();
  const beltsim::IntegratorCoefficients& c = d.stepper->coefficients();
  const double t = d.stepper->time();
  const beltsim::IterationPoint<V> point{&q, &v, &a, t, &c};
  bool built = false;
  ASSERT_EQ(d.drive->factorize(point, beltsim::MatrixUpdate::kFull, built), Status::kOk);
  double worst = 0.0;
  const double eps = 1e-7;
  for (int j = 0; j < Drive::kSize; ++j) {
    if (j > Drive::kTransport && j < 4 * (kElements + 1)) continue;  // node NE's unused slots
    V qp = q, vp = v, ap = a, qm = q, vm = v, am = a;
    qp(j) += eps;
    vp(j) += c.velocityFactor * eps;
    ap(j) += c.accelerationFactor * eps;
    qm(j) -= eps;
    vm(j) -= c.velocityFactor * eps;
    am(j) -= c.accelerationFactor * eps;
    V rp, rm, column;
    ASSERT_EQ(d.drive->residual({&qp, &vp, &ap, t, &c}, rp), Status::kOk);
    ASSERT_EQ(d.drive->residual({&qm, &vm, &am, t, &c}, rm), Status::kOk);
    ASSERT_EQ(d.drive->solve(V((rp - rm) / (2.0 * eps)), column), Status::kOk);
    column(j) -= 1.0;
    worst = std::max(worst, column.cwiseAbs().maxCoeff());
  }
  std::printf("[figure] Eulerian drive: worst |M^-1 c dr/dx_j - e_j| = %.2e\n", worst);
  EXPECT_LT(worst, 1e-6);
}

// The sticking arc on P1 (issue 51, "Creep and slip"): with the slip arc as the capstan law puts
// it, ln(F1/F2)/mu, the belt sticks over the rest of the wrap, pi - ln(F1/F2)/mu; at 24 elements
// the segments of P1 in contact and sticking, averaged over the last 0.15 s, cover that arc within
// one contact segment (measured 5.00 segments of 13.5 mm, 67.6 mm, against 62.7 mm). F1, F2 the
// mid-span forces, R the belt centre-line radius r + h/2.
TEST(EulerianDrive, StickingArcOnTheDriverIsWhatTheCapstanLawLeaves) {
  EulerianPaperDrive d;
  ASSERT_TRUE(d.start());
  const int steps = static_cast<int>(beltsim::test::kPaperEndTime / kStep + 0.5);
  const int tail = static_cast<int>(beltsim::test::kPaperTail / kStep + 0.5);
  const int segments = d.drive->pair(0, 0).parameters().segmentCount;
  double tight = 0.0, slack = 0.0, sticking = 0.0;
  for (int k = 1; k <= steps; ++k) {
    ASSERT_EQ(d.step(k).status, Status::kOk) << "step " << k;
    if (k <= steps - tail) continue;
    tight += d.tightForce() / tail;
    slack += d.slackForce() / tail;
    for (int e = 0; e < kElements; ++e)
      for (int i = 0; i < segments; ++i) {
        const beltsim::SegmentHistory& h = d.drive->pair(e, 0).history(i);
        if (h.gap <= 0.0 && h.state == beltsim::StickSlip::kStick) sticking += 1.0 / tail;
      }
  }
  const beltsim::BeltParameters& belt = d.drive->belt();
  const double mu = d.drive->pair(0, 0).parameters().friction.frictionCoefficient;
  const double radius = d.drive->pair(0, 0).parameters().radius + 0.5 * belt.thickness;
  const double expected = (kPi - std::log(tight / slack) / mu) * radius;  // m
  const double stretch = 1.0 + belt.element.referenceAxialStrain + tight / belt.element.EA;
  const double segment = belt.element.length / segments * stretch;  // m of belt in the sticking zone
  std::printf("[figure] Eulerian 24: sticking arc on P1 %.1f mm (%.2f segments of %.1f mm), capstan leaves %.1f mm\n",
              1e3 * sticking * segment, sticking, 1e3 * segment, 1e3 * expected);
  EXPECT_LT(std::abs(sticking * segment - expected), segment);
}

// A step in which the material would travel a whole contact segment or more cannot carry the
// contact histories (anchor_transport.hpp): it is a fault (kInvalidParameter), never a silently
// wrong step, and the state stays at the step's start.
TEST(EulerianDrive, AStepThatCannotCarryTheHistoriesFaults) {
  EulerianPaperDrive d;
  ASSERT_TRUE(d.start());
  for (int k = 1; k <= 2000; ++k) ASSERT_EQ(d.step(k).status, Status::kOk);  // belt at 0.33 m/s
  const V before = d.stepper->positions();
  d.drive->setStepSize(1.0);  // the transport's step: 0.33 m of travel, segments of 13 mm
  const beltsim::StepStatistics st = d.step(2001);
  EXPECT_EQ(st.status, Status::kInvalidParameter);
  EXPECT_NE(st.flags & beltsim::kStepFault, 0u);
  EXPECT_EQ(d.stepper->positions(), before);
}

// The paper's scenario (P1 to 12 rad/s, 25 N m on P2 from 1.0 to 1.5 s, end 2.45 s) at 24
// Eulerian elements with the reference stepping at 1e-4 s. Against the paper's Table 4 (240
// material elements; tests/support/paper_scenario.hpp), tail means over the last 0.15 s:
// omega_P2 within 0.3 % and the slip s = 1 - omega_P2 / omega_P1 within 2 % of Table 4's (the
// creep; measured +0.11 % and -1.8 %), drive torque and F1 within 0.5 %, F2 within 2 % (measured
// +0.40 %, -0.12 %, +1.2 %: F2 is this mesh's weak figure, docs/model.md §2.10). The relative
// spread (standard deviation over mean) of the drive torque and both span forces from 1.95 s on
// below 0.1 % (measured 0.06 % or less; a material mesh of 24 elements shakes the torque by about
// 2 % as its elements pass the pulleys). No step flagged as not converged in Newton, PNS flags
// under 1 % of the steps.
TEST(EulerianDrive, PaperScenarioAt24ElementsRunsWithoutTheElementPassingRipple) {
  EulerianPaperDrive d;
  ASSERT_TRUE(d.start());
  const int steps = static_cast<int>(beltsim::test::kPaperEndTime / kStep + 0.5);
  const int tail = static_cast<int>(beltsim::test::kPaperTail / kStep + 0.5);
  double omega = 0.0, torque = 0.0, tight = 0.0, slack = 0.0;
  int newtonFlags = 0, pnsFlags = 0;
  std::vector<double> torques, tights, slacks;
  for (int k = 1; k <= steps; ++k) {
    const beltsim::StepStatistics st = d.step(k);
    ASSERT_EQ(st.status, Status::kOk) << "step " << k;
    if (st.flags & beltsim::kStepNewtonNotConverged) ++newtonFlags;
    if (st.flags & beltsim::kStepPnsNotConverged) ++pnsFlags;
    const double w = d.stepper->velocities()(Drive::pulleyDof(1, 2));
    const double tau = d.drive->driveTorque(0);
    const double f1 = d.tightForce(), f2 = d.slackForce();
    if (k * kStep > 1.95) {
      torques.push_back(tau);
      tights.push_back(f1);
      slacks.push_back(f2);
    }
    if (k > steps - tail) {
      omega += w / tail;
      torque += tau / tail;
      tight += f1 / tail;
      slack += f2 / tail;
    }
  }
  namespace paper = beltsim::test;
  const double eOmega = omega / paper::kPaperOmegaP2 - 1.0, eTorque = torque / paper::kPaperDriveTorque - 1.0;
  const double eTight = tight / paper::kPaperTightForce - 1.0, eSlack = slack / paper::kPaperSlackForce - 1.0;
  std::printf("[figure] Eulerian 24: omega_P2 %.4f (%+.2f %%), torque %.3f (%+.2f %%), F1 %.2f (%+.2f %%), F2 %.2f (%+.2f %%)\n",
              omega, 100 * eOmega, torque, 100 * eTorque, tight, 100 * eTight, slack, 100 * eSlack);
  std::printf("[figure] Eulerian 24: spread from 1.95 s: torque %.4f %%, F1 %.4f %%, F2 %.4f %%; flags Newton %d, PNS %d of %d steps\n",
              100 * beltsim::test::relativeSpread(torques), 100 * beltsim::test::relativeSpread(tights), 100 * beltsim::test::relativeSpread(slacks), newtonFlags,
              pnsFlags, steps);
  const double slip = 1.0 - omega / 12.0, paperSlip = 1.0 - paper::kPaperOmegaP2 / 12.0;
  std::printf("[figure] Eulerian 24: slip %.5f against %.5f (%+.2f %%)\n", slip, paperSlip,
              100 * (slip / paperSlip - 1.0));
  EXPECT_LT(std::abs(eOmega), 0.003);
  EXPECT_LT(std::abs(slip / paperSlip - 1.0), 0.02);
  EXPECT_LT(std::abs(eTorque), 0.005);
  EXPECT_LT(std::abs(eTight), 0.005);
  EXPECT_LT(std::abs(eSlack), 0.02);
  EXPECT_LT(beltsim::test::relativeSpread(torques), 0.001);
  EXPECT_LT(beltsim::test::relativeSpread(tights), 0.001);
  EXPECT_LT(beltsim::test::relativeSpread(slacks), 0.001);
  EXPECT_EQ(newtonFlags, 0);
  EXPECT_LT(pnsFlags, steps / 100);
}

namespace {

// The material mesh at 60 elements: at 24 its hub load is 2.5 % above the law (its span tension
// rises by 5 N as its coarse elements pass the wraps at speed).
constexpr int kMaterialSpinElements = 60;

}  // namespace

// Centrifugal tension (issue 51): the hub load of P2 on the unloaded drive at 105 rad/s, tail mean
// over the last 0.1 s, within 1 % of 2 (T0 - rho A v^2 / (1 + alpha)) on the material mesh at 60
// elements and the Eulerian mesh at 24 (reference stepping, 1e-4 s, arc gap; measured -0.02 % and
// -0.12 %). Without the centrifugal term the hub load would stay 2 T0, 29 % higher; on the
// Eulerian mesh the term is the material flow's v^2 (B1 - M2) q in the wraps (docs/model.md
// §2.10).
TEST(EulerianDrive, CentrifugalTensionLowersTheHubLoadOnBothMeshes) {
  using beltsim::test::kSpinEnd;
  using beltsim::test::kSpinSpeed;
  using beltsim::test::kSpinTail;
  const beltsim::PlantConfig config = beltsim::test::spinningConfig(kStep);
  const int steps = static_cast<int>(kSpinEnd / kStep + 0.5), tail = static_cast<int>(kSpinTail / kStep + 0.5);
  const double speed = kSpinSpeed * (config.pulley[0].radius + 0.5 * config.belt.thickness);

  // Material mesh.
  auto material = std::make_unique<beltsim::BeltDrivePlant<kMaterialSpinElements>>();
  ASSERT_TRUE(material->setUp(config).ok());
  const beltsim::StaticResult statics = material->start();
  ASSERT_TRUE(statics.converged);
  double staticTension = 0.0, hub = 0.0, span = 0.0;
  for (int k = 1; k <= steps; ++k) {
    beltsim::PlantCommand command;
    command.input[0] = beltsim::test::spinCommand(k * kStep);
    const beltsim::PlantOutput out = material->step(command);
    ASSERT_EQ(out.fault, beltsim::PlantFault::kNone) << "step " << k;
    if (k == 1) staticTension = 0.5 * (out.spanForce[0] + out.spanForce[1]);  // still at rest (ramp from 0.05 s)
    if (k > steps - tail) {
      hub += material->drive().hubForce(1).norm() / tail;
      span += 0.5 * (out.spanForce[0] + out.spanForce[1]) / tail;
    }
  }
  const double materialLaw = beltsim::test::centrifugalHubLoad(config, staticTension, span, speed);
  std::printf("[figure] centrifugal, material %d: T0 %.2f N, span %.2f N, hub %.2f N, law %.2f N (%+.2f %%), 2 T0 %.2f N\n",
              kMaterialSpinElements, staticTension, span, hub, materialLaw, 100 * (hub / materialLaw - 1.0),
              2 * staticTension);
  EXPECT_LT(std::abs(hub / materialLaw - 1.0), 0.01);

  // Eulerian mesh, from the same static state.
  beltsim::test::checkCentrifugalHubLoad<EulerianPaperDrive>("Eulerian 24", kStep, 0.01);
}


// Gross slip as the capstan law says (issue 51; the law as in tests/system/gross_slip.py): over the
// last 0.15 s F1/F2 within 3 % of e^(0.3 pi) = 2.566 (measured -1.5 %; the material mesh at 24
// elements -0.55 %), and while the belt slides (from 1.5 s) under 1 % of the steps flagged, never
// 10 in a row (measured none), at 24 Eulerian elements. omega_P2 is printed against P2's balance
// (R (F1 + F2) tanh(0.15 pi) - 30) / 2 (measured -5.4 %: the belt torque is 1 % short, and the
// balance multiplies that by five). At 16 elements F1/F2 is -3.3 % (docs/model.md §2.10).
TEST(EulerianDrive, GrossSlipFollowsTheCapstanLawAt24Elements) {
  beltsim::test::checkGrossSlip<EulerianPaperDriveOf<24>>("Eulerian 24", kStep, 0.03);
}
