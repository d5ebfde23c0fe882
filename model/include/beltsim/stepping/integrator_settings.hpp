// The stepping and the integrator a drive is run with, as a scenario's [solver] table sets them
// (docs/model_drive_and_solver.md §7.2-7.3, §7.6-7.7, §7.10), and their check.
#pragma once
#include <cstdint>

#include "beltsim/core/status.hpp"

namespace beltsim {

// Which stepper runs the steps: the paper's Newton / post-Newton loops with their tolerances
// (ReferenceStepper below, the reference), or the fixed-cost stepper of the real-time
// configurations (fixed_cost_stepper.hpp), whose work per step does not depend on the state.
enum class Stepping : std::uint8_t { kReference, kFixedCost };

struct IntegratorSettings {
  Stepping stepping = Stepping::kReference;
  bool newmark = false;          // true: Newmark with beta, gamma below; false: generalized-alpha
  double spectralRadius = 1.0;   // rho_inf (generalized-alpha); 1 = trapezoidal rule
  double newmarkBeta = 0.25;
  double newmarkGamma = 0.5;
  int maxNewtonIterations = 6;   // hard bound per Newton solve
  int maxPnsIterations = 5;      // hard bound of the discontinuous loop (paper: 5)
  double relativeTolerance = 1e-8;
  double absoluteTolerance = 1e-10;
  double pnsTolerance = 1e-3;    // N (paper: 1e-3)
  double contractivityLimit = 0.5;  // rebuild the Jacobian if res_j / res_{j-1} exceeds this
  // false (docs/model_drive_and_solver.md §7.3, the reference): every post-Newton pass restarts Newton from the predictor.
  // true: passes 2.. continue from the previous pass's solution (the equations are the same, only
  // the friction history changed), which needs fewer iterations; results agree to the Newton
  // tolerance, not bit for bit with the reference behaviour.
  bool warmStartPns = false;
  // false (docs/model_drive_and_solver.md §7.3, the reference): the predictor sets the end-of-step acceleration to 0.
  // true: to the start-of-step acceleration (a constant-acceleration predictor), which starts
  // Newton nearer to the solution when the belt moves smoothly (24 material elements, reference
  // stepping at 1e-4 s, over the paper's scenario: 4.74 instead of 5.21 Newton iterations per step, the same tail
  // means) but not after a command step (the firmware's scripted stimulus: the same median step,
  // a worse worst step, so the configurations keep false); results agree to the Newton
  // tolerance, not bit for bit.
  bool constantAccelerationPredictor = false;
  // false (docs/model_drive_and_solver.md §7.10, the reference): the Newton matrix is rebuilt at the first iteration of
  // every Newton solve. true: the last factorization is kept across post-Newton passes and steps
  // (modified Newton) and rebuilt only when the contraction res_j / res_{j-1} exceeds
  // contractivityLimit or the previous solve did not converge. The step size is fixed, so the
  // integrator's factors in the matrix do not change; only the state it was built at is older.
  bool reuseJacobian = false;
  // false: every post-Newton pass builds the whole Newton matrix (docs/model_drive_and_solver.md §7.10). true (with
  // warmStartPns): passes 2.. ask the System for MatrixUpdate::kChangedContacts, so only the
  // contact pairs whose stick/slip states the PNS changed are re-evaluated; the other blocks are
  // from pass 1 at a slightly different state (a modified Newton; the converged solution meets
  // the same tolerances). With reuseJacobian too, every Newton solve starts with such an update
  // of the last matrix (which the System skips if no contact changed).
  bool updateChangedContactsOnly = false;
  // Reference stepping: false (the paper's validation), the Newton matrix's factorization
  // eliminates every border unknown; true, the prescribed ones (fixed centres, a speed-driven
  // rotation), whose rows are the scaled identity, are solved apart (BeltDrive::setCompactBorder;
  // the fixed-cost stepping's kept matrix always does). The same matrix in fewer operations
  // (docs/firmware.md, *Compact border*); results agree with the whole border's to rounding, not
  // bit for bit.
  bool compactBorder = false;
  // Fixed-cost stepping only (fixed_cost_stepper.hpp): Newton iterations per step (one residual,
  // one solve each, on the kept matrix), the number of steps over which the kept matrix is
  // rebuilt (one slice of the elements per step), the low-rank columns per step for switches
  // that stiffen it, and the force (N) above which the step's remaining residual or its
  // post-Newton error flags it as not converged (the configurations take a small fraction of the
  // belt's pre-tension: docs/firmware.md, *Fixed-cost stepping*).
  int fixedNewtonIterations = 2;
  // Fixed-cost stepping only: the first frozenStateIterations of the n iterations evaluate the
  // residual with the states the last post-Newton pass committed (those the kept matrix was built
  // with when it is rebuilt after every step) instead of deciding them at the iterate. The
  // predictor is a poor place to decide stick/slip: after a speed step it leaves kilonewtons of
  // residual, and the states decided there send the iteration into switches that the kept
  // matrix lacks (docs/firmware.md, *Fixed-cost stepping*: 1 takes the microcontroller's
  // random-command run from a fault at 0.28 s to none in 60 s). 0: every iteration decides.
  int frozenStateIterations = 0;
  int refreshSteps = 8;
  int switchColumnsPerStep = 4;
  // Fixed-cost stepping, matrix rebuilt after every step (refreshSteps = 1) only: the contact pairs
  // that one partial re-factorization per step may evaluate again when a step's stiffening
  // switches would need many columns (fixed_cost_stepper.hpp); 0: columns only.
  int refactorPairsPerStep = 0;
  // Low-rank columns a step may still take after its partial re-factorization (0: none, so that
  // a step does one or the other and its worst case is the larger of the two; more keeps up with
  // gross slip, docs/firmware.md, *Fixed-cost stepping*).
  int columnsAfterRefactor = 0;
  // Aged refresh (fixed-cost stepping, refreshSteps = 1 only; kept_newton_matrix.hpp): the
  // rebuild after a step evaluates the element blocks of every blockAgeSteps-th element again (a
  // different share each step) and keeps the others' last blocks; of the contact-pair blocks it
  // evaluates every pair whose contact or stick/slip states changed, then, round robin, others
  // until renewalPairsPerStep evaluations are spent, less what the step's partial
  // re-factorization and switch columns cost. 1: every block at every rebuild (no ageing).
  int blockAgeSteps = 1;
  int renewalPairsPerStep = 8;
  double fixedResidualTolerance = 5.0;
  // Fixed-cost stepping on the eulerian mesh only (EulerianBeltDrive; the material mesh: 1):
  // the step's passes, each n iterations with the committed states and a post-Newton pass; before
  // each pass, the pairs whose states the last post-Newton pass changed (at most passUpdatePairs)
  // are evaluated again into the kept matrix (fixed_cost_stepper.hpp).
  int postNewtonPasses = 1;
  int passUpdatePairs = 4;
};

inline ParameterError validateIntegratorSettings(const IntegratorSettings& s) {
  if (!(isFinite(s.spectralRadius) && s.spectralRadius >= 0.0 && s.spectralRadius <= 1.0))
    return ParameterError::invalid("spectralRadius");
  if (!(isFinite(s.newmarkBeta) && s.newmarkBeta > 0.0 && s.newmarkBeta <= 0.5)) return ParameterError::invalid("newmarkBeta");
  if (!(isFinite(s.newmarkGamma) && s.newmarkGamma >= 0.5 && s.newmarkGamma <= 1.0)) return ParameterError::invalid("newmarkGamma");
  if (s.maxNewtonIterations < 1 || s.maxNewtonIterations > 50) return ParameterError::invalid("maxNewtonIterations");
  if (s.maxPnsIterations < 1 || s.maxPnsIterations > 50) return ParameterError::invalid("maxPnsIterations");
  if (!(isFinite(s.relativeTolerance) && s.relativeTolerance > 0.0)) return ParameterError::invalid("relativeTolerance");
  if (!(isFinite(s.absoluteTolerance) && s.absoluteTolerance > 0.0)) return ParameterError::invalid("absoluteTolerance");
  if (!(isFinite(s.pnsTolerance) && s.pnsTolerance > 0.0)) return ParameterError::invalid("pnsTolerance");
  if (!(isFinite(s.contractivityLimit) && s.contractivityLimit > 0.0)) return ParameterError::invalid("contractivityLimit");
  if (s.stepping != Stepping::kReference && s.stepping != Stepping::kFixedCost) return ParameterError::invalid("stepping");
  if (s.fixedNewtonIterations < 1 || s.fixedNewtonIterations > 8) return ParameterError::invalid("fixedNewtonIterations");
  if (s.postNewtonPasses < 1 || s.postNewtonPasses > 8) return ParameterError::invalid("postNewtonPasses");
  if (s.passUpdatePairs < 0 || s.passUpdatePairs > 16) return ParameterError::invalid("passUpdatePairs");
  if (s.frozenStateIterations < 0 || s.frozenStateIterations > s.fixedNewtonIterations)
    return ParameterError::invalid("frozenStateIterations");
  if (s.refreshSteps < 1 || s.refreshSteps > 64) return ParameterError::invalid("refreshSteps");
  if (s.switchColumnsPerStep < 0 || s.switchColumnsPerStep > 16) return ParameterError::invalid("switchColumnsPerStep");
  if (s.refactorPairsPerStep < 0 || s.refactorPairsPerStep > 16 || (s.refactorPairsPerStep > 0 && s.refreshSteps != 1))
    return ParameterError::invalid("refactorPairsPerStep");
  if (s.columnsAfterRefactor < 0 || s.columnsAfterRefactor > 16) return ParameterError::invalid("columnsAfterRefactor");
  if (s.blockAgeSteps < 1 || s.blockAgeSteps > 64 || (s.blockAgeSteps > 1 && s.refreshSteps != 1))
    return ParameterError::invalid("blockAgeSteps");
  if (s.renewalPairsPerStep < 0 || s.renewalPairsPerStep > 64) return ParameterError::invalid("renewalPairsPerStep");
  if (!(isFinite(s.fixedResidualTolerance) && s.fixedResidualTolerance > 0.0))
    return ParameterError::invalid("fixedResidualTolerance");
  return ParameterError::success();
}

}  // namespace beltsim
