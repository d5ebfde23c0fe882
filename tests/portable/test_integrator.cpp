// The fixed-step integrator (docs/model_drive_and_solver.md §7.2-7.3, §7.10) on systems with known answers: linear
// oscillators (discrete dispersion of the trapezoidal rule, order of accuracy, high-frequency
// damping of generalized-alpha), and mock systems that pin the hard bounds of Newton and PNS.
#include <cmath>

#include "beltsim/solver/fixed_lu.hpp"
#include "beltsim/stepping/reference_stepper.hpp"
#include "minitest.hpp"

namespace {

using beltsim::IterationPoint;
using beltsim::Status;

// m a + c v + k q + k3 q^3 = 0 per coordinate; optional mock PNS errors and a NaN trap.
struct OscillatorSystem {
  static constexpr int kSize = 2;
  using Vector = Eigen::Matrix<double, kSize, 1>;
  using Matrix = Eigen::Matrix<double, kSize, kSize>;
  Vector mass = Vector::Ones(), damping = Vector::Zero(), stiffness = Vector::Ones(), cubic = Vector::Zero();
  Vector force = Vector::Zero();  // constant external force
  double pnsErrors[8] = {0, 0, 0, 0, 0, 0, 0, 0};  // error returned by PNS call i of a step
  int pnsCalls = 0;
  double nanAbove = 1e300;  // residual becomes NaN when |q| exceeds this
  beltsim::FixedLu<kSize> lu;
  double stiffnessFactor = 0.0;

  Status residual(const IterationPoint<Vector>& p, Vector& r) const {
    for (int i = 0; i < kSize; ++i) {
      const double q = (*p.q)(i);
      r(i) = mass(i) * (*p.a)(i) + damping(i) * (*p.v)(i) + stiffness(i) * q + cubic(i) * q * q * q - force(i);
      if (std::fabs(q) > nanAbove) r(i) = std::nan("");
    }
    return Status::kOk;
  }
  Status factorize(const IterationPoint<Vector>& p, beltsim::MatrixUpdate, bool& built) {
    built = true;
    const beltsim::IntegratorCoefficients& c = *p.coefficients;
    Matrix m = Matrix::Zero();
    for (int i = 0; i < kSize; ++i) {
      const double q = (*p.q)(i);
      m(i, i) = c.massFactor * mass(i) + c.stiffnessFactor * (stiffness(i) + 3.0 * cubic(i) * q * q) +
                c.dampingFactor * damping(i);
    }
    stiffnessFactor = c.stiffnessFactor;
    return lu.compute(m);
  }
  Status solve(const Vector& r, Vector& delta) const {
    delta = lu.solve<1>(stiffnessFactor * r);
    return Status::kOk;
  }
  void beginStep() { pnsCalls = 0; }
  void rejectStep() {}
  Status postNewtonStep(const IterationPoint<Vector>&, double& error) {
    error = pnsErrors[pnsCalls < 8 ? pnsCalls : 7];
    ++pnsCalls;
    return Status::kOk;
  }
};

using Integrator = beltsim::ReferenceStepper<OscillatorSystem>;

beltsim::IntegratorSettings trapezoidal() {
  beltsim::IntegratorSettings s;
  s.newmark = true;  // beta = 1/4, gamma = 1/2
  return s;
}

// Runs an undamped oscillator omega from q = 1, v = 0 (consistent a = -omega^2) for n steps.
double runOscillator(const beltsim::IntegratorSettings& settings, double omega, double h, int n) {
  OscillatorSystem sys;
  sys.stiffness = OscillatorSystem::Vector::Constant(omega * omega);
  Integrator integrator;
  if (!integrator.setUp(settings, h).ok()) return 1e300;
  const OscillatorSystem::Vector q0 = OscillatorSystem::Vector::Ones();
  integrator.initialize(q0, OscillatorSystem::Vector::Zero(), -omega * omega * q0, 0.0);
  for (int i = 0; i < n; ++i) integrator.step(sys);
  return integrator.positions()(0);
}

}  // namespace

MT_TEST(trapezoidal_rule_follows_its_discrete_dispersion_exactly) {
  // The trapezoidal rule maps (q, v/omega) by a rotation of theta = 2 atan(omega h / 2) per
  // step (Cayley transform of the oscillator's skew matrix): q_n = cos(n theta), no decay.
  const double omega = 2.0 * 3.14159265358979323846, h = 0.05;
  const int n = 200;
  const double theta = 2.0 * std::atan(omega * h / 2.0);
  MT_EXPECT_NEAR(runOscillator(trapezoidal(), omega, h, n), std::cos(n * theta), 1e-10);
}

MT_TEST(generalized_alpha_with_rho_one_is_the_trapezoidal_rule) {
  // docs/model_drive_and_solver.md §7.3: rho_inf = 1 gives alpha_m = alpha_f = 1/2, beta = 1/4, gamma = 1/2.
  beltsim::IntegratorSettings ga;
  ga.spectralRadius = 1.0;
  const double omega = 5.0, h = 0.01;
  MT_EXPECT_NEAR(runOscillator(ga, omega, h, 300), runOscillator(trapezoidal(), omega, h, 300), 1e-10);
}

MT_TEST(generalized_alpha_is_second_order_accurate) {
  // Global error at t = 1 of q'' = -omega^2 q against cos(omega t) drops by 4 when h halves.
  beltsim::IntegratorSettings ga;
  ga.spectralRadius = 0.8;
  const double omega = 3.0;
  const double e1 = std::fabs(runOscillator(ga, omega, 0.01, 100) - std::cos(omega));
  const double e2 = std::fabs(runOscillator(ga, omega, 0.005, 200) - std::cos(omega));
  const double order = std::log(e1 / e2) / std::log(2.0);
  MT_EXPECT_NEAR(order, 2.0, 0.15);
}

MT_TEST(generalized_alpha_damps_unresolved_frequencies_and_trapezoidal_does_not) {
  // omega h = 1e3: rho_inf = 0.6 shrinks the amplitude by about 0.6 per step (spectral radius
  // at infinity); the trapezoidal rule keeps |q| = 1 (|cos(n theta)| over the steps).
  beltsim::IntegratorSettings ga;
  ga.spectralRadius = 0.6;
  const double omega = 1e5, h = 1e-2;
  MT_EXPECT(std::fabs(runOscillator(ga, omega, h, 60)) < 1e-6);
  const double theta = 2.0 * std::atan(omega * h / 2.0);
  MT_EXPECT_NEAR(runOscillator(trapezoidal(), omega, h, 61), std::cos(61 * theta), 1e-9);
}

MT_TEST(constant_acceleration_predictor_reaches_the_same_solution) {
  // The predictor only chooses Newton's starting point: q and v follow from the predicted
  // acceleration by the scheme's own relations, so on a linear oscillator (Newton exact in one
  // iteration from any start) both predictors give the same trajectory up to round-off.
  beltsim::IntegratorSettings zero;
  zero.spectralRadius = 0.8;
  beltsim::IntegratorSettings constant = zero;
  constant.constantAccelerationPredictor = true;
  const double omega = 3.0, h = 0.01;
  const double a = runOscillator(zero, omega, h, 300), b = runOscillator(constant, omega, h, 300);
  MT_EXPECT_NEAR(a, b, 1e-12);
  MT_EXPECT(std::fabs(a - std::cos(omega * 3.0)) < 1e-3);  // and it is the oscillator's
}

MT_TEST(constant_acceleration_predictor_is_exact_under_a_constant_force) {
  // m a = F: the exact motion has a constant acceleration F/m. Started at it, the constant-
  // acceleration predictor lands on the step's solution (residual 0, no Newton iteration) and
  // the position after n steps is q0 + F t^2 / (2 m); the reference predictor (a = 0) needs one.
  for (bool constantAcceleration : {false, true}) {
    OscillatorSystem sys;
    sys.stiffness = OscillatorSystem::Vector::Zero();
    sys.force = OscillatorSystem::Vector::Constant(2.0);
    beltsim::IntegratorSettings s;
    s.spectralRadius = 0.6;
    s.absoluteTolerance = 1e-12;
    s.constantAccelerationPredictor = constantAcceleration;
    Integrator integrator;
    MT_EXPECT(integrator.setUp(s, 0.01).ok());
    integrator.initialize(OscillatorSystem::Vector::Zero(), OscillatorSystem::Vector::Zero(),
                          OscillatorSystem::Vector::Constant(2.0), 0.0);
    int iterations = 0;
    for (int i = 0; i < 100; ++i) iterations += integrator.step(sys).newtonIterations;
    MT_EXPECT(constantAcceleration ? iterations == 0 : iterations >= 100);
    MT_EXPECT_NEAR(integrator.positions()(0), 1.0, 1e-12);  // F t^2 / (2 m) at t = 1 s
  }
}

MT_TEST(a_kept_matrix_is_rebuilt_when_an_iteration_contracts_less_than_the_limit) {
  // With reuseJacobian the Newton matrix of an earlier state is kept: a modified Newton, which
  // converges linearly at a rate set by how far the tangent moved since the build. An iteration
  // whose residual shrinks by less than contractivityLimit asks for a new matrix. On a hardening
  // spring (q'' + q + 50 q^3 = 0 from q = 1, 50 steps of 0.1 s: the tangent's stiffness part swings
  // between 0.25 % and 38 % of its mass part) a limit of 0.05 builds more often and needs fewer
  // iterations than a limit of 1 (a new matrix only when the residual grows; measured 249
  // iterations and 43 builds against 531 and 1), and both reach the same trajectory within the
  // Newton tolerance.
  int iterations[2] = {0, 0}, builds[2] = {0, 0};
  double position[2] = {0.0, 0.0};
  const double limits[2] = {1.0, 0.05};
  for (int run = 0; run < 2; ++run) {
    OscillatorSystem sys;
    sys.cubic = OscillatorSystem::Vector::Constant(50.0);
    beltsim::IntegratorSettings s = trapezoidal();
    s.reuseJacobian = true;
    s.maxNewtonIterations = 50;
    s.relativeTolerance = 1e-10;
    s.absoluteTolerance = 1e-10;
    s.contractivityLimit = limits[run];
    Integrator integrator;
    MT_EXPECT(integrator.setUp(s, 0.1).ok());
    const OscillatorSystem::Vector q0 = OscillatorSystem::Vector::Ones();
    integrator.initialize(q0, OscillatorSystem::Vector::Zero(), -51.0 * q0, 0.0);
    for (int i = 0; i < 50; ++i) {
      const beltsim::StepStatistics st = integrator.step(sys);
      MT_EXPECT(st.converged());
      iterations[run] += st.newtonIterations;
      builds[run] += st.jacobianUpdates;
    }
    position[run] = integrator.positions()(0);
  }
  MT_EXPECT(builds[1] > builds[0]);
  MT_EXPECT(iterations[1] < iterations[0]);
  MT_EXPECT_NEAR(position[1], position[0], 1e-9);
}

MT_TEST(newton_stops_at_its_bound_and_flags_the_step) {
  // A stiff cubic spring needs several Newton iterations; with a bound of 1 the step is
  // completed, flagged, and time still advances by exactly h.
  OscillatorSystem sys;
  sys.cubic = OscillatorSystem::Vector::Constant(1e6);
  beltsim::IntegratorSettings s = trapezoidal();
  s.maxNewtonIterations = 1;
  Integrator integrator;
  MT_EXPECT(integrator.setUp(s, 1e-2).ok());
  integrator.initialize(OscillatorSystem::Vector::Ones(), OscillatorSystem::Vector::Zero(),
                        OscillatorSystem::Vector::Zero(), 0.0);
  const beltsim::StepStatistics st = integrator.step(sys);
  MT_EXPECT((st.flags & beltsim::kStepNewtonNotConverged) != 0);
  MT_EXPECT(st.newtonIterations == 1);
  MT_EXPECT(integrator.stepIndex() == 1);
  MT_EXPECT_NEAR(integrator.time(), 1e-2, 0.0);
}

MT_TEST(pns_loop_repeats_until_the_error_is_below_tolerance) {
  OscillatorSystem sys;
  sys.pnsErrors[0] = 5.0;   // first PNS: a contact state changed
  sys.pnsErrors[1] = 1e-4;  // second: settled (tolerance 1e-3)
  Integrator integrator;
  MT_EXPECT(integrator.setUp(trapezoidal(), 1e-3).ok());
  integrator.initialize(OscillatorSystem::Vector::Ones(), OscillatorSystem::Vector::Zero(),
                        -OscillatorSystem::Vector::Ones(), 0.0);
  const beltsim::StepStatistics st = integrator.step(sys);
  MT_EXPECT(st.pnsIterations == 2);
  MT_EXPECT(st.flags == 0);
  MT_EXPECT_NEAR(st.pnsError, 1e-4, 0.0);
}

MT_TEST(pns_loop_stops_at_its_bound_and_flags_the_step) {
  OscillatorSystem sys;
  for (double& e : sys.pnsErrors) e = 1.0;  // never settles
  beltsim::IntegratorSettings s = trapezoidal();
  s.maxPnsIterations = 3;
  Integrator integrator;
  MT_EXPECT(integrator.setUp(s, 1e-3).ok());
  integrator.initialize(OscillatorSystem::Vector::Ones(), OscillatorSystem::Vector::Zero(),
                        -OscillatorSystem::Vector::Ones(), 0.0);
  const beltsim::StepStatistics st = integrator.step(sys);
  MT_EXPECT(st.pnsIterations == 3);
  MT_EXPECT((st.flags & beltsim::kStepPnsNotConverged) != 0);
  MT_EXPECT(sys.pnsCalls == 3);
}

MT_TEST(non_finite_residual_faults_the_step_and_keeps_the_start_state) {
  OscillatorSystem sys;
  sys.nanAbove = 0.5;  // the start state q = 0.4 is fine; the predicted q = 0.4 + 100 h is not
  Integrator integrator;
  MT_EXPECT(integrator.setUp(trapezoidal(), 1e-2).ok());
  const OscillatorSystem::Vector q0 = OscillatorSystem::Vector::Constant(0.4);
  integrator.initialize(q0, OscillatorSystem::Vector::Constant(100.0), -q0, 0.0);
  const beltsim::StepStatistics st = integrator.step(sys);
  MT_EXPECT((st.flags & beltsim::kStepFault) != 0);
  MT_EXPECT(st.status == Status::kNonFiniteValue);
  MT_EXPECT_NEAR(integrator.positions()(0), 0.4, 0.0);
  MT_EXPECT(integrator.stepIndex() == 0);
}

MT_TEST(integrator_settings_out_of_range_are_rejected_by_name) {
  Integrator integrator;
  beltsim::IntegratorSettings s;
  s.spectralRadius = 1.5;
  MT_EXPECT(integrator.setUp(s, 1e-3).status == Status::kInvalidParameter);
  s = beltsim::IntegratorSettings{};
  s.maxNewtonIterations = 0;
  const beltsim::ParameterError e = integrator.setUp(s, 1e-3);
  MT_EXPECT(e.parameter[0] == 'm' && e.parameter[3] == 'N');  // "maxNewtonIterations"
  MT_EXPECT(integrator.setUp(beltsim::IntegratorSettings{}, std::nan("")).status == Status::kInvalidParameter);
}
