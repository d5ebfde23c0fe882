// Where a fixed-cost step spends its time, for a profiling build only (the Cortex-M7's
// per-step breakdown). FixedCostStepper calls stepPhase(p) where phase p of a step begins and
// stepPhase(kEnd) where the step ends. A build that defines BELTSIM_STEP_PHASES supplies the
// function (the firmware's profiling images: firmware/step_phases.hpp reads the clock at each
// call); in every other build the calls are empty inline functions and compile to nothing.
#pragma once
#include <cstdint>

namespace beltsim {

enum class StepPhase : std::uint8_t {
  kPredictor,   // the predictor, copies of the start-of-step state
  kResidual,    // BeltDrive::residual (elements, contact pairs, circles, prescribed rows)
  kRefactor,    // partial re-factorization: switched pairs evaluated again, chain eliminated again
  kColumns,     // switch columns: low-rank updates of the kept factorization
  kSolve,       // the solve with the kept matrix (and its low-rank corrections), the update
  kPostNewton,  // the post-Newton pass
  kRefresh,     // the rebuild: element and pair blocks, chain elimination, corner
  kEnd          // the step is over (not a phase: the number of phases)
};
constexpr int kStepPhaseCount = static_cast<int>(StepPhase::kEnd);

#if defined(BELTSIM_STEP_PHASES)
void stepPhase(StepPhase phase);
#else
inline void stepPhase(StepPhase) {}
#endif

}  // namespace beltsim
