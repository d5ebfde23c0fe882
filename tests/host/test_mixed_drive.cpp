// The paper's drive on the mixed Eulerian-Lagrangian mesh (system/mixed_belt_drive.hpp,
// docs/model.md §2.11): its Newton matrix is the derivative of its residual, and it runs the
// paper's scenario with every node held where it started on the path.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

#include "beltsim/stepping/reference_stepper.hpp"
#include "beltsim/system/mixed_belt_drive.hpp"
#include "beltsim/system/plant.hpp"
#include "beltsim/system/profiles.hpp"
#include "paper_scenario.hpp"

namespace {

using beltsim::Status;
constexpr double kStep = 1e-4;  // s, the paper's

// The paper's drive at NE elements with the arc gap (docs/model.md §4.2), statics by the material
// mesh, handed to the mixed drive: node 0 where the belt enters P1 from the tight span, NE / 4
// where it leaves P2, NE / 2 where it enters P2, 3 NE / 4 where it leaves P1. Newton's absolute
// tolerance 1e-8 N, as for the one-transport-coordinate mesh (docs/model.md §2.10).
template <int NE>
struct MixedPaperDriveOf {
  using Material = beltsim::BeltDrivePlant<NE>;
  using Drive = beltsim::MixedBeltDrive<NE, 2, 4>;
  using Stepper = beltsim::ReferenceStepper<Drive>;
  using V = typename Drive::Vector;

  std::unique_ptr<Material> material = std::make_unique<Material>();
  std::unique_ptr<Drive> drive = std::make_unique<Drive>();
  std::unique_ptr<Stepper> stepper = std::make_unique<Stepper>();
  double loadTorque = 25.0;  // N m on P2 from 1.0 to 1.5 s (the paper's)

  static beltsim::PlantConfig paperConfig() {
    beltsim::PlantConfig config;
    config.stepSize = kStep;
    config.contact.gapMeasure = beltsim::SegmentGapMeasure::kArc;
    return config;
  }

  bool start(const beltsim::PlantConfig& config = paperConfig()) {
    if (!material->setUp(config).ok()) return false;
    const beltsim::StaticResult statics = material->start();
    if (statics.status != Status::kOk || !statics.converged) return false;
    const auto& m = material->drive();
    const beltsim::PulleyParameters circles[2] = {m.circle(0), m.circle(1)};
    if (!drive->setUp(m.belt(), m.belt().element.length, circles, 2, m.contact()).ok()) return false;
    const V q = drive->start(material->positions(), [&](int e, int p, int i) { return m.pair(e, p).history(i); });
    drive->setStepSize(kStep);
    beltsim::IntegratorSettings settings = config.integrator;
    settings.absoluteTolerance = 1e-8;
    if (!stepper->setUp(settings, kStep).ok()) return false;
    stepper->initialize(q, V::Zero(), V::Zero(), 0.0);
    return true;
  }

  beltsim::StepStatistics step(int k) {
    const double t = k * kStep;
    const beltsim::PlantCommand command = beltsim::test::paperCommand(t);
    beltsim::BeltDriveInput<2> input;
    input.useCommand[0] = input.useCommand[1] = true;
    input.command[0] = command.input[0];                                      // P1: speed
    input.command[1] = -beltsim::smoothStep(t, 1.0, 1.5, 0.0, loadTorque);  // P2: load torque, braking
    drive->setInput(input);
    return stepper->step(*drive);
  }

  // Axial force of the material at node `node` (N), strain-rate damping included.
  double nodeForce(int node) const {
    return drive->axialForce(stepper->positions(), stepper->velocities(), node, 0.0);
  }
  double tightForce() const { return nodeForce(NE / 8); }      // mid tight span
  double slackForce() const { return nodeForce(5 * NE / 8); }  // mid slack span
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
// of the residual gives the unit vector e_j back within 1e-6, at a running state (0.2 s: P1 at
// 3.3 rad/s, both wraps in contact, the material moving).
TEST(MixedDrive, NewtonMatrixIsTheDerivativeOfTheResidual) {
  using D = MixedPaperDriveOf<24>;
  using V = D::V;
  D d;
  ASSERT_TRUE(d.start());
  for (int k = 1; k <= 2000; ++k) ASSERT_EQ(d.step(k).status, Status::kOk) << "step " << k;
  V q = d.stepper->positions(), v = d.stepper->velocities(), a = d.stepper->accelerations();
  const beltsim::IntegratorCoefficients& c = d.stepper->coefficients();
  const double t = d.stepper->time();
  const beltsim::IterationPoint<V> point{&q, &v, &a, t, &c};
  bool built = false;
  ASSERT_EQ(d.drive->factorize(point, beltsim::MatrixUpdate::kFull, built), Status::kOk);
  double worst = 0.0;
  int worstColumn = -1;
  const double eps = 1e-7;
  for (int j = 0; j < D::Drive::kSize; ++j) {
    if (j >= 4 * 24 && j < 4 * 25) continue;  // node NE's unused slots
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
    if (column.cwiseAbs().maxCoeff() > worst) {
      worst = column.cwiseAbs().maxCoeff();
      worstColumn = j;
    }
  }
  std::printf("[figure] mixed drive: worst |M^-1 c dr/dx_j - e_j| = %.2e (column %d)\n", worst, worstColumn);
  EXPECT_LT(worst, 1e-6);
}

// The paper's scenario at NE elements against Table 4; figures printed.
template <int NE>
void runPaperScenario(double omegaBound, double torqueBound, double tightBound, double slackBound) {
  MixedPaperDriveOf<NE> d;
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
    const double w = d.stepper->velocities()(MixedPaperDriveOf<NE>::Drive::pulleyDof(1, 2));
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
  const double slip = 1.0 - omega / 12.0, paperSlip = 1.0 - paper::kPaperOmegaP2 / 12.0;
  std::printf("[figure] mixed %d: omega_P2 %.4f (%+.2f %%), slip %+.2f %%, torque %.3f (%+.2f %%), F1 %.2f (%+.2f %%), "
              "F2 %.2f (%+.2f %%)\n",
              NE, omega, 100 * eOmega, 100 * (slip / paperSlip - 1.0), torque, 100 * eTorque, tight, 100 * eTight,
              slack, 100 * eSlack);
  std::printf("[figure] mixed %d: spread from 1.95 s: torque %.4f %%, F1 %.4f %%, F2 %.4f %%; flags Newton %d, PNS %d "
              "of %d steps\n",
              NE, 100 * relativeSpread(torques), 100 * relativeSpread(tights), 100 * relativeSpread(slacks),
              newtonFlags, pnsFlags, steps);
  EXPECT_LT(std::abs(eOmega), omegaBound);
  EXPECT_LT(std::abs(eTorque), torqueBound);
  EXPECT_LT(std::abs(eTight), tightBound);
  EXPECT_LT(std::abs(eSlack), slackBound);
  EXPECT_EQ(newtonFlags, 0);
}

TEST(MixedDrive, PaperScenarioAt24Elements) { runPaperScenario<24>(0.003, 0.005, 0.005, 0.02); }
