// The fixed-cost stepper of the real-time configurations: every step does the same
// work, fixed by the settings and not by the state, so that the worst step is the typical step.
//
// One step t -> t + h (IntegratorSettings: fixedNewtonIterations = n, refreshSteps = S,
// switchColumnsPerStep = K):
//   1. predictor (as the reference, reference_stepper.hpp);
//   2. n modified-Newton iterations on the kept Newton matrix. The first m of them
//      (frozenStateIterations) take the states committed by the last post-Newton pass, as the
//      reference's Newton does; every later residual decides every segment's contact and
//      stick/slip state at the iterate (BeltDrive::setDecideInNewton, the post-Newton step's own
//      rule applied inside Newton), so that no post-Newton loop runs around the iterations; then
//      the switches that stiffen the kept matrix (contact made, slip -> stick) since it was
//      built enter it: when they would need more than kRefactorAboveColumns columns and the step
//      has not done so yet, at most P contact pairs (refactorPairsPerStep) are evaluated again
//      and the factorization is redone from the first chain block they touch (a partial
//      re-factorization, BeltDrive::refactorSwitchedPairs); otherwise as low-rank columns, at
//      most K in the step, and at most K' (columnsAfterRefactor) after a re-factorization (the
//      rest wait for the next step or the refresh; K' = 0: a step does the larger of the two,
//      never both); then one solve and the update. The last residual's norm is reported; its
//      correction is applied unchecked;
//   3. one post-Newton pass at the accepted point commits states and anchors (its e_PNS: what
//      the last correction changed);
//   4. one refresh slice: NE / S elements and their contact pairs are evaluated at the accepted
//      state into the second matrix storage and their blocks eliminated; after S steps that
//      matrix is complete and becomes the active one.
// Why the partial re-factorization: in the steady state a whole slip arc on the load pulley
// starts sticking in one step now and then; as low-rank columns, one per segment, that step
// would cost far more than the median, while the same switches as a few pair blocks and the
// elimination from the first of them cost a fraction (docs/firmware.md, *Fixed-cost stepping*).
// Why the switch updates at all: a matrix kept without them diverges (a segment that starts
// sticking adds its bristle stiffness), and a post-Newton loop around a fixed number of
// iterations decides a switch one Newton solve late (docs/firmware.md, *Fixed-cost stepping*).
// A softening switch (stick -> slip, contact lost) leaves the stiffer state in the matrix until
// the refresh: the iteration then converges more slowly there but cannot overshoot (softening
// columns applied as well made steps fault).
// Flags: the reported residual above fixedResidualTolerance or e_PNS above it flag the step as
// not converged; a non-finite value or a singular matrix restores the start-of-step state and
// flags a fault.
//
// The System is a BeltDrive (the refresh and the switches need its contact pairs) or a
// EulerianBeltDrive (the eulerian mesh, docs/model_element.md §2.11), which declares
// kSwitchUpdates = false: its element-pulley pairs never change, and its kept matrix takes no
// switch columns and no partial re-factorization (the iterations decide the states, step 2, and
// the refresh, step 4, brings the matrix up to date; switchColumnsPerStep, refactorPairsPerStep,
// columnsAfterRefactor, blockAgeSteps and renewalPairsPerStep do not apply). It may take steps 2
// and 3 postNewtonPasses times, with the committed states, and before each later pass the pairs
// the last one switched go into the kept matrix (EulerianBeltDrive::updateSwitchedPairs, at most
// passUpdatePairs of them); the material mesh refuses more than one pass.
#pragma once
#include <type_traits>

#include <Eigen/Core>

#include "beltsim/core/status.hpp"
#include "beltsim/stepping/integrator_state.hpp"
#include "beltsim/stepping/reference_stepper.hpp"
#include "beltsim/stepping/step_phase.hpp"

namespace beltsim {

// Whether a System's kept matrix takes switch columns and partial re-factorizations (true unless
// it declares kSwitchUpdates = false).
template <typename System, typename = void>
struct TakesSwitchUpdates : std::true_type {};
template <typename System>
struct TakesSwitchUpdates<System, std::void_t<decltype(System::kSwitchUpdates)>>
    : std::bool_constant<System::kSwitchUpdates> {};

template <typename System>
class FixedCostStepper {
  static constexpr bool kSwitchUpdates = TakesSwitchUpdates<System>::value;

 public:
  using Vector = typename System::Vector;
  static constexpr int kSize = System::kSize;
  static constexpr int kElements = System::kElements;

  ParameterError setUp(const IntegratorSettings& settings, double stepSize) {
    const ParameterError e = validateIntegratorSettings(settings);
    if (!e.ok()) return e;
    if (!(isFinite(stepSize) && stepSize > 0.0)) return ParameterError::invalid("stepSize");
    if (settings.refreshSteps > kElements) return ParameterError::invalid("refreshSteps");
    if (kSwitchUpdates && settings.postNewtonPasses != 1) return ParameterError::invalid("postNewtonPasses");
    (void)state_.setUp(settings, stepSize);  // the step size is checked above
    settings_ = settings;
    haveMatrix_ = false;
    return e;
  }

  // Initial state (IntegratorState::initialize).
  void initialize(const Vector& q, const Vector& v, const Vector& a, double time) {
    state_.initialize(q, v, a, time);
    haveMatrix_ = false;
  }

  // Builds and factorizes the whole Newton matrix at the current state (start-up: the first
  // step does it otherwise, at the cost of a whole build).
  Status prepare(System& system) {
    const IterationPoint<Vector> point = state_.point(state_.time());
    if constexpr (kSwitchUpdates) {
      system.setStiffenOnly(true);
      system.setAnchorlessRenewing(true);
      system.setBlockAge(settings_.blockAgeSteps);
    }
    system.beginRefresh();
    Status s = system.refreshSlice(point, 0, kElements);
    if (s == Status::kOk) s = system.finishRefresh(point);
    haveMatrix_ = s == Status::kOk;
    slice_ = 0;
    if (haveMatrix_) system.beginRefresh();
    return s;
  }

  const Vector& positions() const { return state_.positions(); }
  const Vector& velocities() const { return state_.velocities(); }
  const Vector& accelerations() const { return state_.accelerations(); }
  double time() const { return state_.time(); }
  long long stepIndex() const { return state_.stepIndex(); }
  double stepSize() const { return state_.stepSize(); }
  const IntegratorCoefficients& coefficients() const { return state_.coefficients(); }

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
    switchColumns_ = 0;
    refactoredPairs_ = 0;
    system.beginStep();
    state_.predict(start, settings_.constantAccelerationPredictor);

    // 2. Newton iterations with the states decided at each residual, 3. the post-Newton pass
    // commits the states at the accepted point; on the eulerian mesh both again, after
    // an update of the pairs the pass switched (postNewtonPasses).
    Status s = Status::kOk;
    double error = 0.0;
    for (int pass = 1; pass <= settings_.postNewtonPasses && s == Status::kOk; ++pass) {
      if constexpr (!kSwitchUpdates) {
        if (pass > 1) {
          stepPhase(StepPhase::kRefactor);
          int updated = 0;
          s = system.updateSwitchedPairs(point, settings_.passUpdatePairs, updated, pendingSwitches_);
          refactoredPairs_ += updated;
        }
      }
      if (s == Status::kOk) s = iterate(system, point, stats);
      stepPhase(StepPhase::kPostNewton);
      if (s == Status::kOk) s = system.postNewtonStep(point, error);  // non-finite or degenerate: a fault
      stats.pnsIterations = pass;
    }
    if (s != Status::kOk) {
      system.rejectStep();
      state_.restore(start);
      return fault(stats, s);
    }
    stats.pnsError = error;
    if (stats.residualNorm > settings_.fixedResidualTolerance) stats.flags |= kStepNewtonNotConverged;
    if (stats.pnsError > settings_.fixedResidualTolerance) stats.flags |= kStepPnsNotConverged;

    // 4. One slice of the matrix refresh, at the accepted state.
    stepPhase(StepPhase::kRefresh);
    const int firstElement = slice_ * kElements / settings_.refreshSteps;
    const int lastElement = (slice_ + 1) * kElements / settings_.refreshSteps;
    // The pair evaluations the rebuild may spend (aged refresh): what the step's partial
    // re-factorization and switch columns did not.
    int refreshBudget = settings_.renewalPairsPerStep - refactoredPairs_ - switchColumns_;
    if constexpr (kSwitchUpdates) {
      if (refactoredPairs_ > 0) refreshBudget -= (system.refactoredBlocks() + kBlocksPerPair - 1) / kBlocksPerPair;
    }
    s = system.refreshSlice(point, firstElement, lastElement, refreshBudget);
    if (s == Status::kOk && slice_ + 1 == settings_.refreshSteps) s = system.finishRefresh(point);
    if (s != Status::kOk) return fault(stats, s);
    if (++slice_ == settings_.refreshSteps) {
      slice_ = 0;
      system.beginRefresh();
      ++stats.jacobianUpdates;
    }

    state_.accept(tNext);
    stepPhase(StepPhase::kEnd);
    return stats;
  }

  // A step whose stiffening switches need more columns than this re-factorizes instead (when
  // refactorPairsPerStep > 0); a higher threshold flags about the same steps (docs/firmware.md,
  // *Fixed-cost stepping*).
  static constexpr int kRefactorAboveColumns = 2;

  // Of the last step: low-rank columns added, contact pairs evaluated again by the partial
  // re-factorization, stiffening switches left for later steps.
  int switchColumns() const { return switchColumns_; }
  int refactoredPairs() const { return refactoredPairs_; }
  // Chain blocks eliminated again that cost about one contact pair's evaluation, with the compact
  // border (docs/firmware.md, *Compact border*).
  static constexpr int kBlocksPerPair = 7;
  int pendingSwitches() const { return pendingSwitches_; }

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
      if constexpr (kSwitchUpdates) s = applySwitches(system, point, j);
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

  // Iteration j's switches into the kept matrix: a partial re-factorization or low-rank columns.
  Status applySwitches(System& system, const IterationPoint<Vector>& point, int j) {
    Status s = Status::kOk;
    // Stiffening switches the matrix still lacks (-1: not counted here, updateSwitches counts
    // them). After a re-factorization a step takes at most columnsAfterRefactor columns (0: its
    // work is the larger of the two, never both, and it does not look at the switches again).
    int left = -1;
    if (refactoredPairs_ == 0 && settings_.refactorPairsPerStep > 0 && j > settings_.frozenStateIterations) {
      stepPhase(StepPhase::kRefactor);
      s = system.refactorSwitchedPairs(point, settings_.refactorPairsPerStep, kRefactorAboveColumns + 1,
                                       refactoredPairs_, left);
      if (s != Status::kOk) return s;
    } else if (refactoredPairs_ > 0 && settings_.columnsAfterRefactor == 0) {
      left = pendingSwitches_;
    }
    const int budget = (refactoredPairs_ > 0 ? settings_.columnsAfterRefactor : settings_.switchColumnsPerStep) -
                       switchColumns_;
    if (left < 0 || (left > 0 && budget > 0)) {
      stepPhase(StepPhase::kColumns);
      int columns = 0;
      s = system.updateSwitches(point, budget, columns, pendingSwitches_);
      switchColumns_ += columns;
    } else {
      pendingSwitches_ = left;
    }
    return s;
  }

  StepStatistics fault(StepStatistics& stats, Status s) {
    stepPhase(StepPhase::kEnd);
    stats.status = s;
    stats.flags |= kStepFault;
    haveMatrix_ = false;  // the next step starts with a whole build
    return stats;
  }

  static bool allFinite(const Vector& x) {
    for (int i = 0; i < kSize; ++i)
      if (!isFinite(x(i))) return false;
    return true;
  }

  IntegratorSettings settings_;
  IntegratorState<Vector> state_;
  bool haveMatrix_ = false;
  int slice_ = 0;
  int switchColumns_ = 0;
  int pendingSwitches_ = 0;
  int refactoredPairs_ = 0;
};

}  // namespace beltsim
