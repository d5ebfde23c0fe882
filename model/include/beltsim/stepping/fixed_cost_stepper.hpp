// The fixed-cost stepper of the real-time configurations: every step does the same
// work, fixed by the settings and not by the state, so that the worst step is the typical step.
//
// One step t -> t + h (IntegratorSettings: fixedNewtonIterations = n, refreshSteps = S):
//   1. predictor (as the reference, reference_stepper.hpp);
//   2. n modified-Newton iterations on the kept Newton matrix. The first m of them
//      (frozenStateIterations) take the states committed by the last post-Newton pass, as the
//      reference's Newton does; every later residual decides every segment's contact and
//      stick/slip state at the iterate (setDecideInNewton, the post-Newton step's own rule applied
//      inside Newton), so that no post-Newton loop runs around the iterations. After each
//      residual the kept matrix takes the switches its System can take (kept_matrix_updates.hpp);
//      then one solve and the update. The last residual's norm is reported; its correction is
//      applied unchecked;
//   3. one post-Newton pass at the accepted point commits states and anchors (its e_PNS: what
//      the last correction changed); a System that takes no switches within the iterations may
//      take 2 and 3 postNewtonPasses times, its kept matrix updated before each pass;
//   4. one refresh slice: NE / S elements and their contact pairs are evaluated at the accepted
//      state into the second matrix storage and their blocks eliminated; after S steps that
//      matrix is complete and becomes the active one.
// Flags: the reported residual above fixedResidualTolerance or e_PNS above it flag the step as
// not converged; a non-finite value or a singular matrix (in the passes or the refresh slice)
// restores the start-of-step state and flags a fault.
//
// The System is a BeltDrive or an EulerianBeltDrive; how each keeps its matrix up to date within
// a step is KeptMatrixUpdates<System> (kept_matrix_updates.hpp), chosen by its kSwitchUpdates.
#pragma once
#include <Eigen/Core>

#include "beltsim/core/status.hpp"
#include "beltsim/stepping/integrator_state.hpp"
#include "beltsim/stepping/kept_matrix_updates.hpp"
#include "beltsim/stepping/reference_stepper.hpp"
#include "beltsim/stepping/step_phase.hpp"

namespace beltsim {

template <typename System>
class FixedCostStepper : public SteppedState<typename System::Vector> {
  using SteppedState<typename System::Vector>::state_;
  using Updates = KeptMatrixUpdates<System>;

 public:
  using Vector = typename System::Vector;
  static constexpr int kSize = System::kSize;
  static constexpr int kElements = System::kElements;

  ParameterError setUp(const IntegratorSettings& settings, double stepSize) {
    const ParameterError e = validateIntegratorSettings(settings);
    if (!e.ok()) return e;
    if (!(isFinite(stepSize) && stepSize > 0.0)) return ParameterError::invalid("stepSize");
    if (settings.refreshSteps > kElements) return ParameterError::invalid("refreshSteps");
    const ParameterError u = Updates::check(settings);
    if (!u.ok()) return u;
    (void)state_.setUp(settings, stepSize);  // the step size is checked above
    settings_ = settings;
    haveMatrix_ = false;
    stepOpened_ = false;
    return e;
  }

  // Initial state (IntegratorState::initialize).
  void initialize(const Vector& q, const Vector& v, const Vector& a, double time) {
    state_.initialize(q, v, a, time);
    haveMatrix_ = false;
    stepOpened_ = false;
  }

  // Builds and factorizes the whole Newton matrix at the current state (start-up: the first
  // step does it otherwise, at the cost of a whole build). The matrix is the one the next step
  // solves with, so prepare opens that step first (System::beginStep, which the step then does
  // not repeat: on the eulerian mesh it carries the contact histories by the last step's travel).
  // There the step's start is where the contact anchors start to move with the material
  // (carried_histories.hpp); a matrix built before it lacks their columns (then the second step
  // diverged: a 4.4 kN residual, P1's torque -777 N m, at the microcontroller's step with S = 16).
  Status prepare(System& system) {
    const IterationPoint<Vector> point = state_.point(state_.time());
    if (!stepOpened_) system.beginStep();
    stepOpened_ = true;
    Updates::prepare(system, settings_);
    system.beginRefresh();
    Status s = system.refreshSlice(point, 0, kElements);
    if (s == Status::kOk) s = system.finishRefresh(point);
    haveMatrix_ = s == Status::kOk;
    slice_ = 0;
    if (haveMatrix_) system.beginRefresh();
    return s;
  }

  StepStatistics step(System& system) {
    StepStatistics stats;
    stepPhase(StepPhase::kPredictor);
    if (!haveMatrix_) {
      const Status s = prepare(system);
      if (s != Status::kOk) return fault(stats, s);
    }
    const typename IntegratorState<Vector>::StepStart start = state_.start();
    const double tNext = state_.nextTime();
    const IterationPoint<Vector> point = state_.point(tNext);
    updates_.beginStep();
    if (!stepOpened_) system.beginStep();  // prepare() opened it otherwise
    stepOpened_ = false;
    state_.predict(start, settings_.constantAccelerationPredictor);

    // 2. Newton iterations with the states decided at each residual, 3. the post-Newton pass
    // commits the states at the accepted point (again, postNewtonPasses).
    Status s = Status::kOk;
    double error = 0.0;
    for (int pass = 1; pass <= settings_.postNewtonPasses && s == Status::kOk; ++pass) {
      s = updates_.beforePass(system, point, settings_);
      if (s == Status::kOk) s = iterate(system, point, stats);
      stepPhase(StepPhase::kPostNewton);
      if (s == Status::kOk) s = system.postNewtonStep(point, error);  // non-finite or degenerate: a fault
      stats.pnsIterations = pass;
    }
    if (s != Status::kOk) return fault(stats, s, system, start);
    stats.pnsError = error;
    if (stats.residualNorm > settings_.fixedResidualTolerance) stats.flags |= kStepNewtonNotConverged;
    if (stats.pnsError > settings_.fixedResidualTolerance) stats.flags |= kStepPnsNotConverged;

    // 4. One slice of the matrix refresh, at the accepted state.
    stepPhase(StepPhase::kRefresh);
    const int firstElement = slice_ * kElements / settings_.refreshSteps;
    const int lastElement = (slice_ + 1) * kElements / settings_.refreshSteps;
    s = updates_.refreshSlice(system, point, settings_, firstElement, lastElement);
    if (s == Status::kOk && slice_ + 1 == settings_.refreshSteps) s = system.finishRefresh(point);
    if (s != Status::kOk) return fault(stats, s, system, start);
    if (++slice_ == settings_.refreshSteps) {
      slice_ = 0;
      system.beginRefresh();
      ++stats.jacobianUpdates;
    }

    state_.accept(tNext);
    stepPhase(StepPhase::kEnd);
    return stats;
  }

  // Of the last step: low-rank columns added, contact pairs evaluated again (a partial
  // re-factorization, or the updates between passes), stiffening switches left for later steps.
  int switchColumns() const { return updates_.switchColumns(); }
  int refactoredPairs() const { return updates_.refactoredPairs(); }
  int pendingSwitches() const { return updates_.pendingSwitches(); }

 private:
  Status iterate(System& system, const IterationPoint<Vector>& point, StepStatistics& stats) {
    Status s = Status::kOk;
    for (int j = 1; j <= settings_.fixedNewtonIterations && s == Status::kOk; ++j) {
      // The first frozenStateIterations keep the committed states; the later ones decide.
      system.setDecideInNewton(j > settings_.frozenStateIterations);
      stepPhase(StepPhase::kResidual);
      Vector r;
      s = system.residual(point, r);
      if (s == Status::kOk && !allFinite(r)) s = Status::kNonFiniteValue;
      if (s != Status::kOk) break;
      stats.residualNorm = r.norm();
      s = updates_.afterResidual(system, point, settings_, j);
      stepPhase(StepPhase::kSolve);
      Vector delta;
      if (s == Status::kOk) s = system.solve(r, delta);
      if (s != Status::kOk) break;
      state_.correct(delta);
      ++stats.newtonIterations;
    }
    system.setDecideInNewton(false);
    return s;
  }

  // A step that faults after its start: the System's start-of-step histories (which a retry's
  // beginStep opens again without carrying them twice) and the state at the step's start.
  StepStatistics fault(StepStatistics& stats, Status s, System& system,
                       const typename IntegratorState<Vector>::StepStart& start) {
    system.rejectStep();
    state_.restore(start);
    return fault(stats, s);
  }
  StepStatistics fault(StepStatistics& stats, Status s) {
    stepPhase(StepPhase::kEnd);
    stats.status = s;
    stats.flags |= kStepFault;
    haveMatrix_ = false;  // the next step starts with a whole build
    return stats;
  }

  IntegratorSettings settings_;
  bool haveMatrix_ = false;
  int slice_ = 0;
  bool stepOpened_ = false;  // prepare() has called System::beginStep for the next step
  Updates updates_;
};

}  // namespace beltsim
