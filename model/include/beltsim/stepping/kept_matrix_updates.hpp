// How the fixed-cost stepper (fixed_cost_stepper.hpp) brings its kept Newton matrix up to date
// within a step: the one capability in which its Systems differ, chosen by the System's trait
// kSwitchUpdates (true unless the System declares it false).
//
// kSwitchUpdates = true (BeltDrive, the material mesh): the element-pulley pairs change as the
// belt travels. Within the iterations, the switches that stiffen the kept matrix (contact made,
// slip -> stick) since it was built enter it: when they would need more than
// kRefactorAboveColumns columns and the step has not done so yet, at most P contact pairs
// (refactorPairsPerStep) are evaluated again and the factorization is redone from the first chain
// block they touch (a partial re-factorization, BeltDrive::refactorSwitchedPairs); otherwise as
// low-rank columns, at most K (switchColumnsPerStep) in the step, and at most K'
// (columnsAfterRefactor) after a re-factorization (the rest wait for the next step or the
// refresh; K' = 0: a step does the larger of the two, never both). An aged refresh spends on pair
// renewals what the step's re-factorization and columns did not (renewalPairsPerStep). One
// post-Newton pass.
// Why the partial re-factorization: in the steady state a whole slip arc on the load pulley
// starts sticking in one step now and then; as low-rank columns, one per segment, that step would
// cost far more than the median, while the same switches as a few pair blocks and the elimination
// from the first of them cost a fraction (docs/firmware.md, *Fixed-cost stepping*). Why the switch
// updates at all: a matrix kept without them diverges (a segment that starts sticking adds its
// bristle stiffness), and a post-Newton loop around a fixed number of iterations decides a switch
// one Newton solve late. A softening switch (stick -> slip, contact lost) leaves the stiffer state
// in the matrix until the refresh: the iteration then converges more slowly there but cannot
// overshoot (softening columns applied as well made steps fault).
//
// kSwitchUpdates = false (EulerianBeltDrive, docs/model_element.md §2.11): its element-pulley
// pairs never change, and its kept matrix takes no switch columns and no partial
// re-factorization within the iterations (switchColumnsPerStep, refactorPairsPerStep,
// columnsAfterRefactor, blockAgeSteps and renewalPairsPerStep do not apply). A step may take the
// iterations and the post-Newton pass postNewtonPasses times; before each pass the pairs the last
// post-Newton pass switched (the last step's, before the first) go into the kept matrix
// (EulerianBeltDrive::updateSwitchedPairs, at most passUpdatePairs of them): the anchors carried
// within the step (carried_anchor.hpp) tie a sticking segment's material to its pulley, and a
// matrix that lacks a switch of that tie for the NE steps of a refresh lets the iterations diverge.
#pragma once
#include <type_traits>

#include "beltsim/core/status.hpp"
#include "beltsim/stepping/integrator_settings.hpp"
#include "beltsim/stepping/reference_stepper.hpp"
#include "beltsim/stepping/step_phase.hpp"

namespace beltsim {

template <typename System, typename = void>
struct TakesSwitchUpdates : std::true_type {};
template <typename System>
struct TakesSwitchUpdates<System, std::void_t<decltype(System::kSwitchUpdates)>>
    : std::bool_constant<System::kSwitchUpdates> {};

template <typename System, bool = TakesSwitchUpdates<System>::value>
class KeptMatrixUpdates;

// The material mesh: switch columns and partial re-factorizations within the iterations.
template <typename System>
class KeptMatrixUpdates<System, true> {
 public:
  using Vector = typename System::Vector;
  // A step whose stiffening switches need more columns than this re-factorizes instead (when
  // refactorPairsPerStep > 0); a higher threshold flags about the same steps (docs/firmware.md,
  // *Fixed-cost stepping*).
  static constexpr int kRefactorAboveColumns = 2;
  // Chain blocks eliminated again that cost about one contact pair's evaluation, with the compact
  // border (docs/firmware.md, *Compact border*).
  static constexpr int kBlocksPerPair = 7;

  static ParameterError check(const IntegratorSettings& settings) {
    return settings.postNewtonPasses != 1 ? ParameterError::invalid("postNewtonPasses") : ParameterError::success();
  }
  // Before the whole build: the kept matrix stiffens only, renewing segments pull with the velocity
  // penalty alone, its pair blocks age after blockAgeSteps.
  static void prepare(System& system, const IntegratorSettings& settings) {
    system.setStiffenOnly(true);
    system.setAnchorlessRenewing(true);
    system.setBlockAge(settings.blockAgeSteps);
  }
  void beginStep() {
    switchColumns_ = 0;
    refactoredPairs_ = 0;
  }
  Status beforePass(System&, const IterationPoint<Vector>&, const IntegratorSettings&) { return Status::kOk; }

  // Iteration j's switches into the kept matrix: a partial re-factorization or low-rank columns.
  Status afterResidual(System& system, const IterationPoint<Vector>& point, const IntegratorSettings& settings,
                       int j) {
    Status s = Status::kOk;
    // Stiffening switches the matrix still lacks (-1: not counted here, updateSwitches counts
    // them). After a re-factorization a step takes at most columnsAfterRefactor columns (0: its
    // work is the larger of the two, never both, and it does not look at the switches again).
    int left = -1;
    if (refactoredPairs_ == 0 && settings.refactorPairsPerStep > 0 && j > settings.frozenStateIterations) {
      stepPhase(StepPhase::kRefactor);
      s = system.refactorSwitchedPairs(point, settings.refactorPairsPerStep, kRefactorAboveColumns + 1,
                                       refactoredPairs_, left);
      if (s != Status::kOk) return s;
    } else if (refactoredPairs_ > 0 && settings.columnsAfterRefactor == 0) {
      left = pendingSwitches_;
    }
    const int budget =
        (refactoredPairs_ > 0 ? settings.columnsAfterRefactor : settings.switchColumnsPerStep) - switchColumns_;
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

  // The refresh slice of elements [first, last), with the pair evaluations an aged refresh may
  // spend: what the step's partial re-factorization and switch columns did not.
  Status refreshSlice(System& system, const IterationPoint<Vector>& point, const IntegratorSettings& settings,
                      int first, int last) const {
    int budget = settings.renewalPairsPerStep - refactoredPairs_ - switchColumns_;
    if (refactoredPairs_ > 0) budget -= (system.refactoredBlocks() + kBlocksPerPair - 1) / kBlocksPerPair;
    return system.refreshSlice(point, first, last, budget);
  }

  // Of the last step: low-rank columns added, contact pairs evaluated again by the partial
  // re-factorization, stiffening switches left for later steps.
  int switchColumns() const { return switchColumns_; }
  int refactoredPairs() const { return refactoredPairs_; }
  int pendingSwitches() const { return pendingSwitches_; }

 private:
  int switchColumns_ = 0;
  int pendingSwitches_ = 0;
  int refactoredPairs_ = 0;
};

// The eulerian mesh: the pairs the last post-Newton pass switched, before each pass.
template <typename System>
class KeptMatrixUpdates<System, false> {
 public:
  using Vector = typename System::Vector;

  static ParameterError check(const IntegratorSettings&) { return ParameterError::success(); }
  static void prepare(System&, const IntegratorSettings&) {}
  void beginStep() { updatedPairs_ = 0; }
  Status beforePass(System& system, const IterationPoint<Vector>& point, const IntegratorSettings& settings) {
    stepPhase(StepPhase::kRefactor);
    int updated = 0;
    const Status s = system.updateSwitchedPairs(point, settings.passUpdatePairs, updated, pendingSwitches_);
    updatedPairs_ += updated;
    return s;
  }
  Status afterResidual(System&, const IterationPoint<Vector>&, const IntegratorSettings&, int) { return Status::kOk; }
  static Status refreshSlice(System& system, const IterationPoint<Vector>& point, const IntegratorSettings&,
                             int first, int last) {
    return system.refreshSlice(point, first, last);
  }

  int switchColumns() const { return 0; }
  int refactoredPairs() const { return updatedPairs_; }  // pairs updated between the passes
  int pendingSwitches() const { return pendingSwitches_; }

 private:
  int pendingSwitches_ = 0;
  int updatedPairs_ = 0;
};

}  // namespace beltsim
