// The state a stepper advances (docs/model_drive_and_solver.md §7.2-7.3): positions q, velocities
// v, accelerations a and the generalized-alpha algorithmic acceleration aBar at the time of the
// step count, and what a step does to them: predict from the start of the step, correct by a
// Newton update, accept the end of the step or go back to its start (a faulted step). Both
// steppers keep one (SteppedState, below: reference_stepper.hpp, fixed_cost_stepper.hpp) and add
// only their loops.
#pragma once
#include "beltsim/core/status.hpp"
#include "beltsim/stepping/integrator_coefficients.hpp"
#include "beltsim/stepping/integrator_settings.hpp"
#include "beltsim/stepping/system_interface.hpp"

namespace beltsim {

// Whether every entry of x is finite (a residual or a state a stepper takes).
template <typename Vector>
bool allFinite(const Vector& x) {
  for (int i = 0; i < Vector::RowsAtCompileTime; ++i)
    if (!isFinite(x(i))) return false;
  return true;
}

template <typename Vector>
class IntegratorState {
 public:
  // The start of a step, kept by the stepper while the step runs.
  struct StepStart {
    Vector q, v, a, aBar;
  };

  // The coefficients of step size h (s); the settings are checked by the stepper
  // (validateIntegratorSettings).
  ParameterError setUp(const IntegratorSettings& settings, double stepSize) {
    if (!(isFinite(stepSize) && stepSize > 0.0)) return ParameterError::invalid("stepSize");
    h_ = stepSize;
    coefficients_ = IntegratorCoefficients::make(settings, stepSize);
    return ParameterError::success();
  }

  // Initial state; the accelerations should be consistent (a = M^-1 (Q_ext - Q)); at a static
  // equilibrium they are 0. The algorithmic acceleration starts equal to a.
  void initialize(const Vector& q, const Vector& v, const Vector& a, double time) {
    q_ = q;
    v_ = v;
    a_ = a;
    aBar_ = a;
    time_ = time;
    startTime_ = time;
    steps_ = 0;
  }

  const Vector& positions() const { return q_; }
  const Vector& velocities() const { return v_; }
  const Vector& accelerations() const { return a_; }
  double time() const { return time_; }
  long long stepIndex() const { return steps_; }
  double stepSize() const { return h_; }
  const IntegratorCoefficients& coefficients() const { return coefficients_; }
  // The end time of the next step: step index times h, not an accumulated sum (no drift).
  double nextTime() const { return startTime_ + static_cast<double>(steps_ + 1) * h_; }
  // The point the System evaluates at: the current q, v, a at time t.
  IterationPoint<Vector> point(double t) const { return {&q_, &v_, &a_, t, &coefficients_}; }

  StepStart start() const { return {q_, v_, a_, aBar_}; }
  // The predictor from the step's start (integrator_coefficients.hpp, predictStep; a0 kept as the
  // predicted acceleration with constantAcceleration, else 0).
  void predict(const StepStart& s, bool constantAcceleration) {
    predictStep(coefficients_, h_, s.q, s.v, s.a, s.aBar, q_, v_, a_, aBarStar_, constantAcceleration);
  }
  // A Newton update delta of the positions, with the velocities and accelerations it implies.
  void correct(const Vector& delta) {
    q_ -= delta;
    v_ -= coefficients_.velocityFactor * delta;
    a_ -= coefficients_.accelerationFactor * delta;
  }
  // Back to the step's start (a faulted step keeps finite, meaningful outputs).
  void restore(const StepStart& s) {
    q_ = s.q;
    v_ = s.v;
    a_ = s.a;
    aBar_ = s.aBar;
  }
  // The accepted end of the step at tNext: its algorithmic acceleration (docs/model_drive_and_solver.md
  // §7.3 step 4), the step count and the time.
  void accept(double tNext) {
    aBar_ = aBarStar_ + (1.0 - coefficients_.alphaF) / (1.0 - coefficients_.alphaM) * a_;
    ++steps_;
    time_ = tNext;
  }

 private:
  IntegratorCoefficients coefficients_;
  double h_ = 1e-4;
  double time_ = 0.0;
  double startTime_ = 0.0;
  long long steps_ = 0;
  Vector q_ = Vector::Zero(), v_ = Vector::Zero(), a_ = Vector::Zero();
  Vector aBar_ = Vector::Zero(), aBarStar_ = Vector::Zero();
};

// What a stepper shows of the state it advances: both steppers derive from it (reference_stepper.hpp,
// fixed_cost_stepper.hpp) and advance state_ with their own loops.
template <typename Vector>
class SteppedState {
 public:
  const Vector& positions() const { return state_.positions(); }
  const Vector& velocities() const { return state_.velocities(); }
  const Vector& accelerations() const { return state_.accelerations(); }
  double time() const { return state_.time(); }
  long long stepIndex() const { return state_.stepIndex(); }
  double stepSize() const { return state_.stepSize(); }
  const IntegratorCoefficients& coefficients() const { return state_.coefficients(); }
  // Takes over another stepper's state (time, q, v, a and the integrator's own history) to step on
  // from it, e.g. the converged step from a real-time step's start (tests/bench/bench_eulerian.cpp).
  // The coefficients come with it: both must be set up with the same step and spectral radius.
  void continueFrom(const SteppedState& other) { state_ = other.state_; }

 protected:
  IntegratorState<Vector> state_;
};

}  // namespace beltsim
