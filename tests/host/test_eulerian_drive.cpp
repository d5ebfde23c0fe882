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
#include "paper_scenario.hpp"

namespace {

using beltsim::Status;
constexpr int kElements = 24;
using Material = beltsim::BeltDrivePlant<kElements>;
using Drive = beltsim::EulerianBeltDrive<kElements, 2, 4>;
using Stepper = beltsim::ReferenceStepper<Drive>;
using V = Drive::Vector;

// Node 6 is where the belt leaves P2 (the driven pulley) into the tight span in the static state
// of the 24-element mesh (node 0 sits where it enters P1 from there, 6 elements per span and per
// wrap).
constexpr int kGaugeAtP2Exit = 6;
constexpr double kStep = 1e-4;  // s, the paper's

// The paper's drive at 24 elements with the arc gap (docs/model.md §4.2), statics by the material
// mesh, handed to the Eulerian drive. Newton's absolute tolerance is 1e-8 N: the Eulerian
// residual's round-off floor is about 2e-9 N (the material drive's tolerance, 1e-10 N, flags
// 14 % of the steps as not converged at unchanged results).
struct EulerianPaperDrive {
  std::unique_ptr<Material> material = std::make_unique<Material>();
  std::unique_ptr<Drive> drive = std::make_unique<Drive>();
  std::unique_ptr<Stepper> stepper = std::make_unique<Stepper>();

  bool start() {
    beltsim::PlantConfig config;
    config.stepSize = kStep;
    config.contact.gapMeasure = beltsim::SegmentGapMeasure::kArc;
    if (!material->setUp(config).ok()) return false;
    const beltsim::StaticResult statics = material->start();
    if (statics.status != Status::kOk || !statics.converged) return false;
    const auto& m = material->drive();
    const beltsim::PulleyParameters circles[2] = {m.circle(0), m.circle(1)};
    if (!drive->setUp(m.belt(), m.belt().element.length, circles, 2, m.contact()).ok()) return false;
    V q = material->positions();
    drive->start(q, [&](int e, int p, int i) { return m.pair(e, p).history(i); }, kGaugeAtP2Exit);
    drive->setStepSize(kStep);
    beltsim::IntegratorSettings settings = config.integrator;
    settings.absoluteTolerance = 1e-8;
    if (!stepper->setUp(settings, kStep).ok()) return false;
    stepper->initialize(q, V::Zero(), V::Zero(), 0.0);
    return true;
  }

  beltsim::StepStatistics step(int k) {
    const beltsim::PlantCommand command = beltsim::test::paperCommand(k * kStep);
    beltsim::BeltDriveInput<2> input;
    input.useCommand[0] = input.useCommand[1] = true;
    input.command[0] = command.input[0];   // P1: speed
    input.command[1] = -command.input[1];  // P2: load torque, braking
    drive->setInput(input);
    return stepper->step(*drive);
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
};

double relativeSpread(const std::vector<double>& x) {
  double mean = 0.0, square = 0.0;
  for (double y : x) mean += y / x.size();
  for (double y : x) square += (y - mean) * (y - mean) / x.size();
  return std::sqrt(square) / std::abs(mean);
}

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
// omega_P2 within 0.75 %, drive torque and F1 within 0.5 %, F2 within 3 % (measured +0.62 %,
// +0.02 %, +0.13 %, +2.2 %: omega_P2, that is the creep, and F2 are this mesh's weak figures,
// docs/model.md §2.10; omega_P2 was +0.81 % while material entering a contact took the deflection
// of the material ahead of it, anchor_transport.hpp). The relative spread (standard
// deviation over mean) of the drive torque and both span forces from 1.95 s on below 0.1 %
// (measured 0.035 % or less; a material mesh of 24 elements shakes the torque by about 2 % as its
// elements pass the pulleys). No step flagged as not converged in Newton, PNS flags under 1 % of
// the steps.
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
    const double f1 = d.nodeForce(3), f2 = d.nodeForce(15);  // mid-spans: top (tight), bottom
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
              100 * relativeSpread(torques), 100 * relativeSpread(tights), 100 * relativeSpread(slacks), newtonFlags,
              pnsFlags, steps);
  EXPECT_LT(std::abs(eOmega), 0.0075);
  EXPECT_LT(std::abs(eTorque), 0.005);
  EXPECT_LT(std::abs(eTight), 0.005);
  EXPECT_LT(std::abs(eSlack), 0.03);
  EXPECT_LT(relativeSpread(torques), 0.001);
  EXPECT_LT(relativeSpread(tights), 0.001);
  EXPECT_LT(relativeSpread(slacks), 0.001);
  EXPECT_EQ(newtonFlags, 0);
  EXPECT_LT(pnsFlags, steps / 100);
}
