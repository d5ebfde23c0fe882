// Every status the post-Newton step or the friction set-up reports reaches the caller (issue 50):
// the reference stepper, the fixed-cost stepper and the static solve each fault on a degenerate
// segment (|r'| = 0, Status::kDegenerateState) reported by the post-Newton step, as they do on a
// non-finite value, and the static solve reports friction parameters the system refused. Before
// issue 50 the three acted only on kNonFiniteValue and the static solve ignored setFriction.
//
// The system is a mock with the interfaces of both steppers and of the static solve: two
// uncoupled linear springs (m a + k q = f), whose post-Newton step returns a chosen status.
#include "beltsim/solver/fixed_lu.hpp"
#include "beltsim/stepping/fixed_cost_stepper.hpp"
#include "beltsim/stepping/reference_stepper.hpp"
#include "beltsim/stepping/static_equilibrium.hpp"
#include "minitest.hpp"

namespace {

using beltsim::IterationPoint;
using beltsim::ParameterError;
using beltsim::Status;

struct SpringSystem {
  static constexpr int kSize = 2;
  static constexpr int kElements = 2;
  using Vector = Eigen::Matrix<double, kSize, 1>;
  using Matrix = Eigen::Matrix<double, kSize, kSize>;
  enum class Mode { kStatic, kDynamic };

  double mass = 1.0, stiffness = 100.0, force = 5.0;
  Status pnsStatus = Status::kOk;            // what the post-Newton step reports
  ParameterError frictionResult{};           // what setFriction reports
  int pnsCalls = 0;
  beltsim::FixedLu<kSize> lu;
  double stiffnessFactor = 1.0;

  Status residual(const IterationPoint<Vector>& p, Vector& r) const {
    for (int i = 0; i < kSize; ++i) r(i) = mass * (*p.a)(i) + stiffness * (*p.q)(i) - force;
    return Status::kOk;
  }
  Status build(const IterationPoint<Vector>& p) {
    const beltsim::IntegratorCoefficients& c = *p.coefficients;
    // The static solve's point carries an unused stepping (stiffness factor 0): a plain stiffness.
    stiffnessFactor = c.stiffnessFactor > 0.0 ? c.stiffnessFactor : 1.0;
    const double massFactor = c.stiffnessFactor > 0.0 ? c.massFactor : 0.0;
    const Matrix m = (massFactor * mass + stiffnessFactor * stiffness) * Matrix::Identity();
    return lu.compute(m);
  }
  Status solve(const Vector& r, Vector& delta) const {
    delta = lu.solve<1>(stiffnessFactor * r);
    return Status::kOk;
  }
  Status postNewtonStep(const IterationPoint<Vector>&, double& error) {
    ++pnsCalls;
    error = 0.0;
    return pnsStatus;
  }
  void beginStep() {}

  // The reference stepper.
  Status factorize(const IterationPoint<Vector>& p, beltsim::MatrixUpdate, bool& built) {
    built = true;
    return build(p);
  }
  // The static solve.
  Status factorize(const IterationPoint<Vector>& p) { return build(p); }
  ParameterError setFriction(const beltsim::FrictionParameters&) const { return frictionResult; }
  void setMode(Mode) {}
  void initializeContactHistory(const Vector&, const Vector&) {}
  void setStaticLoad(double, double, const Vector&, const Vector&) {}
  // The fixed-cost stepper: a kept matrix without contact pairs.
  void setStiffenOnly(bool) {}
  void setAnchorlessRenewing(bool) {}
  void setBlockAge(int) {}
  void setDecideInNewton(bool) {}
  void beginRefresh() {}
  Status refreshSlice(const IterationPoint<Vector>&, int, int, int = 0) { return Status::kOk; }
  Status finishRefresh(const IterationPoint<Vector>& p) { return build(p); }
  Status updateSwitches(const IterationPoint<Vector>&, int, int& columns, int& pending) {
    columns = pending = 0;
    return Status::kOk;
  }
  Status refactorSwitchedPairs(const IterationPoint<Vector>&, int, int, int& pairs, int& left) {
    pairs = 0;
    left = 0;
    return Status::kOk;
  }
  int refactoredBlocks() const { return 0; }
  int rejected = 0;  // rejectStep calls: the contact history back to its start-of-step values
  void rejectStep() { ++rejected; }
};

using Vector = SpringSystem::Vector;

beltsim::IntegratorSettings settingsFor(beltsim::Stepping stepping) {
  beltsim::IntegratorSettings s;
  s.stepping = stepping;
  s.newmark = true;
  s.refreshSteps = 1;
  return s;
}

// Steps a stepper three times, then once with the post-Newton step reporting `status`: the last
// step must fault with that status, keep the state it started from and reject the step's
// contact history (before issue 50 the reference stepper kept what its passes had written).
template <typename Stepper>
bool faultsOnPostNewtonStatus(beltsim::Stepping stepping, Status status) {
  SpringSystem system;
  Stepper stepper;
  if (!stepper.setUp(settingsFor(stepping), 1e-3).ok()) return false;
  stepper.initialize(Vector::Zero(), Vector::Zero(), Vector::Zero(), 0.0);
  for (int k = 0; k < 3; ++k) {
    const beltsim::StepStatistics st = stepper.step(system);
    if (st.flags & beltsim::kStepFault) return false;  // the mock's steps are sound
  }
  const Vector before = stepper.positions();
  if (before.norm() == 0.0) return false;  // the springs moved: a restore is visible
  system.pnsStatus = status;
  const beltsim::StepStatistics st = stepper.step(system);
  return (st.flags & beltsim::kStepFault) != 0 && st.status == status && stepper.positions() == before &&
         system.rejected == 1;
}

}  // namespace

MT_TEST(reference_stepper_faults_a_step_whose_post_newton_step_reports_a_degenerate_segment) {
  MT_EXPECT((faultsOnPostNewtonStatus<beltsim::ReferenceStepper<SpringSystem>>(beltsim::Stepping::kReference,
                                                                               Status::kDegenerateState)));
  MT_EXPECT((faultsOnPostNewtonStatus<beltsim::ReferenceStepper<SpringSystem>>(beltsim::Stepping::kReference,
                                                                               Status::kNonFiniteValue)));
}

MT_TEST(fixed_cost_stepper_faults_a_step_whose_post_newton_step_reports_a_degenerate_segment) {
  MT_EXPECT((faultsOnPostNewtonStatus<beltsim::FixedCostStepper<SpringSystem>>(beltsim::Stepping::kFixedCost,
                                                                               Status::kDegenerateState)));
  MT_EXPECT((faultsOnPostNewtonStatus<beltsim::FixedCostStepper<SpringSystem>>(beltsim::Stepping::kFixedCost,
                                                                               Status::kNonFiniteValue)));
}

MT_TEST(static_solve_reports_a_degenerate_segment_from_its_post_newton_step) {
  SpringSystem system;
  beltsim::StaticSettings settings;
  Vector q = Vector::Zero();
  const beltsim::StaticResult sound = beltsim::solveStaticEquilibrium(system, q, settings, {});
  MT_EXPECT(sound.status == Status::kOk && sound.converged);
  MT_EXPECT_NEAR(q(0), system.force / system.stiffness, 1e-9);  // k q = f
  system.pnsStatus = Status::kDegenerateState;
  q.setZero();
  const beltsim::StaticResult degenerate = beltsim::solveStaticEquilibrium(system, q, settings, {});
  MT_EXPECT(degenerate.status == Status::kDegenerateState);
  MT_EXPECT(!degenerate.converged);
}

MT_TEST(static_solve_reports_friction_parameters_the_system_refused) {
  SpringSystem system;
  system.frictionResult = ParameterError::invalid("bristleStiffness");
  Vector q = Vector::Zero();
  const beltsim::StaticResult r = beltsim::solveStaticEquilibrium(system, q, beltsim::StaticSettings{}, {});
  MT_EXPECT(r.status == Status::kInvalidParameter);
  MT_EXPECT(!r.converged);
  MT_EXPECT(system.pnsCalls == 0);  // refused before any solve
}
