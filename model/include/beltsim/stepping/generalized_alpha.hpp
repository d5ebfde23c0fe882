// Implicit fixed-step time integration with bounded Newton and bounded post-Newton (PNS) loops
// (docs/model.md §7.2-7.3, §7.6-7.7, §7.11). Generalized-alpha in the Arnold-Bruls form with spectral
// radius rho_inf in [0, 1] (rho_inf = 1: the trapezoidal rule of the paper), or Newmark with
// given beta, gamma. Never shrinks the step, never retries: a step that does not converge within
// the bounds is completed, flagged and counted.
//
// The System supplies (all fixed-size, no heap):
//   static constexpr int kSize;  using Vector = Eigen::Matrix<double, kSize, 1>;
//   Status residual(const IterationPoint&, Vector& r)     r = M a + Q(q, v; D) - Q_ext(t)  (LHS, N)
//   Status factorize(const IterationPoint&, MatrixUpdate, bool& built)  builds and factors the Newton matrix
//        massFactor M + stiffnessFactor dQ/dq + dampingFactor dQ/dv (its own prescribed rows too);
//        MatrixUpdate::kChangedContacts allows it to re-evaluate only what the last PNS changed
//        (built = false: nothing changed, the last factorization holds)
//   Status solve(const Vector& r, Vector& delta)          delta = matrix^-1 (stiffnessFactor r)
//   void beginStep()                                      history: D0 := D
//   void rejectStep()                                     history: D := D0 (a faulted step)
//   Status postNewtonStep(const IterationPoint&, double& error)   updates D, returns e_PNS (N)
#pragma once
#include <cstdint>

#include <Eigen/Core>

#include "beltsim/core/status.hpp"

namespace beltsim {

// How much of the Newton matrix a factorization must re-evaluate. kChangedContacts is requested
// for a later post-Newton pass of a step that already built a matrix, and (reuseJacobian) at the
// start of a step that reuses an earlier step's: the System may then re-evaluate only the parts
// the PNS changed since its last build (the contact pairs whose stick/slip states changed) and
// keep the rest.
enum class MatrixUpdate : std::uint8_t { kFull, kChangedContacts };

// Which stepper runs the steps: the paper's Newton / post-Newton loops with their tolerances
// (GeneralizedAlpha below, the reference), or the fixed-cost stepper of the real-time
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
  // false (docs/model.md §7.3, the reference): every post-Newton pass restarts Newton from the predictor.
  // true: passes 2.. continue from the previous pass's solution (the equations are the same, only
  // the friction history changed), which needs fewer iterations; results agree to the Newton
  // tolerance, not bit for bit with the reference behaviour.
  bool warmStartPns = false;
  // false (docs/model.md §7.3, the reference): the predictor sets the end-of-step acceleration to 0.
  // true: to the start-of-step acceleration (a constant-acceleration predictor), which starts
  // Newton nearer to the solution when the belt moves smoothly (the PC configuration's settings
  // over the paper's scenario: 4.74 instead of 5.21 Newton iterations per step, the same tail
  // means) but not after a command step (the firmware's scripted stimulus: the same median step,
  // a worse worst step, so the configurations keep false); results agree to the Newton
  // tolerance, not bit for bit.
  bool constantAccelerationPredictor = false;
  // false (docs/model.md §7.11, the reference): the Newton matrix is rebuilt at the first iteration of
  // every Newton solve. true: the last factorization is kept across post-Newton passes and steps
  // (modified Newton) and rebuilt only when the contraction res_j / res_{j-1} exceeds
  // contractivityLimit or the previous solve did not converge. The step size is fixed, so the
  // integrator's factors in the matrix do not change; only the state it was built at is older.
  bool reuseJacobian = false;
  // false: every post-Newton pass builds the whole Newton matrix (docs/model.md §7.11). true (with
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
  // (the PC configuration: 5 % fewer instructions per step, 10 % off its worst step); results
  // agree with the whole border's to rounding, not bit for bit.
  bool compactBorder = false;
  // Fixed-cost stepping only (fixed_cost_stepper.hpp): Newton iterations per step (one residual,
  // one solve each, on the kept matrix), the number of steps over which the kept matrix is
  // rebuilt (one slice of the elements per step), the low-rank columns per step for switches
  // that stiffen it, and the force (N) above which the step's remaining residual or its
  // post-Newton error flags it as not converged (the configurations take about 1 % of the
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

// Per-step health, travelling with every output.
enum StepFlag : std::uint8_t {
  kStepNewtonNotConverged = 1u << 0,  // some Newton solve hit maxNewtonIterations
  kStepPnsNotConverged = 1u << 1,     // the PNS loop hit maxPnsIterations with e > tolerance
  kStepFault = 1u << 2,               // NaN/Inf or a singular matrix: state restored, model faulted
};

struct StepStatistics {
  int newtonIterations = 0;     // total over all PNS iterations
  int jacobianUpdates = 0;
  int pnsIterations = 0;
  double residualNorm = 0.0;    // unscaled |r| after the last Newton iteration, N
  double pnsError = 0.0;        // e_PNS of the last PNS, N
  std::uint8_t flags = 0;
  Status status = Status::kOk;  // why the step faulted, if it did
  bool converged() const { return flags == 0; }
};

// Coefficients of the integrator for step size h (docs/model.md §7.2-7.5).
struct IntegratorCoefficients {
  double alphaM = 0.5, alphaF = 0.5, beta = 0.25, gamma = 0.5;
  double massFactor = 1.0;       // (1 - alpha_m) / (1 - alpha_f)
  double stiffnessFactor = 0.0;  // beta h^2
  double dampingFactor = 0.0;    // gamma h
  double velocityFactor = 0.0;   // gamma' = gamma / (h beta): dv/d(delta)
  double accelerationFactor = 0.0;  // beta' = (1 - alpha_m) / (h^2 beta (1 - alpha_f))

  static IntegratorCoefficients make(const IntegratorSettings& s, double h) {
    IntegratorCoefficients c;
    if (s.newmark) {
      c.alphaM = 0.0;
      c.alphaF = 0.0;
      c.beta = s.newmarkBeta;
      c.gamma = s.newmarkGamma;
    } else {
      const double rho = s.spectralRadius;
      c.alphaM = (2.0 * rho - 1.0) / (rho + 1.0);
      c.alphaF = rho / (rho + 1.0);
      c.gamma = 0.5 + c.alphaF - c.alphaM;
      c.beta = 0.25 * (c.gamma + 0.5) * (c.gamma + 0.5);
    }
    c.massFactor = (1.0 - c.alphaM) / (1.0 - c.alphaF);
    c.stiffnessFactor = c.beta * h * h;
    c.dampingFactor = c.gamma * h;
    c.velocityFactor = c.gamma / (h * c.beta);
    c.accelerationFactor = c.massFactor / (h * h * c.beta);
    return c;
  }
};

// The state the System evaluates at: positions, velocities, accelerations at time t, and the
// Newton-matrix factors for this step.
template <typename Vector>
struct IterationPoint {
  const Vector* q;
  const Vector* v;
  const Vector* a;
  double time;
  const IntegratorCoefficients* coefficients;
};

// Predictor from the start-of-step state (docs/model.md §7.3 step 2; Newmark: alpha_m = alpha_f = 0):
// q, v, a and the algorithmic acceleration part aBarStar from q0, v0, a0, aBar0 with step h.
// The end-of-step acceleration a is predicted as 0 (the reference) or, with constantAcceleration,
// as a0; either way q and v follow from a by the integrator's relations
//   aBar = aBarStar + (1 - alpha_f)/(1 - alpha_m) a,
//   q = q0 + h v0 + h^2 ((1/2 - beta) aBar0 + beta aBar),  v = v0 + h ((1 - gamma) aBar0 + gamma aBar),
// so Newton's corrections keep them consistent from either start.
template <typename Vector>
void predictStep(const IntegratorCoefficients& c, double h, const Vector& q0, const Vector& v0, const Vector& a0,
                 const Vector& aBar0, Vector& q, Vector& v, Vector& a, Vector& aBarStar,
                 bool constantAcceleration = false) {
  q = q0 + h * v0 + (h * h * (0.5 - c.beta)) * aBar0;
  v = v0 + (h * (1.0 - c.gamma)) * aBar0;
  aBarStar = (c.alphaF * a0 - c.alphaM * aBar0) / (1.0 - c.alphaM);
  q += (h * h * c.beta) * aBarStar;
  v += (h * c.gamma) * aBarStar;
  if (!constantAcceleration) {
    a.setZero();
    return;
  }
  const double share = (1.0 - c.alphaF) / (1.0 - c.alphaM);
  q += (h * h * c.beta * share) * a0;
  v += (h * c.gamma * share) * a0;
  a = a0;
}

template <typename System>
class GeneralizedAlpha {
 public:
  using Vector = typename System::Vector;
  static constexpr int kSize = System::kSize;

  ParameterError setUp(const IntegratorSettings& settings, double stepSize) {
    const ParameterError e = validateIntegratorSettings(settings);
    if (!e.ok()) return e;
    if (!(isFinite(stepSize) && stepSize > 0.0)) return ParameterError::invalid("stepSize");
    settings_ = settings;
    h_ = stepSize;
    coefficients_ = IntegratorCoefficients::make(settings, stepSize);
    haveFactorization_ = false;
    return e;
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
    haveFactorization_ = false;  // the System may have changed mode or parameters since
  }

  const Vector& positions() const { return q_; }
  const Vector& velocities() const { return v_; }
  const Vector& accelerations() const { return a_; }
  double time() const { return time_; }
  long long stepIndex() const { return steps_; }
  double stepSize() const { return h_; }
  const IntegratorCoefficients& coefficients() const { return coefficients_; }

  // One step t -> t + h. Always returns after at most maxPns x maxNewton iterations.
  StepStatistics step(System& system) {
    StepStatistics stats;
    const Vector q0 = q_, v0 = v_, a0 = a_, aBar0 = aBar_;
    // t = step index * h, not an accumulated sum: no drift over long runs.
    const double tNext = startTime_ + static_cast<double>(steps_ + 1) * h_;
    system.beginStep();
    for (int k = 1; k <= settings_.maxPnsIterations; ++k) {
      stats.pnsIterations = k;
      if (k == 1 || !settings_.warmStartPns) predictor(q0, v0, a0, aBar0);
      // A later pass may update the pass-1 matrix only where the PNS changed the contacts.
      // With reuseJacobian, so may the first pass, relative to the last build of an earlier step.
      const bool laterPass = k > 1 && settings_.warmStartPns && stats.jacobianUpdates > 0;
      const bool reused = settings_.reuseJacobian && haveFactorization_;
      const MatrixUpdate firstBuild = settings_.updateChangedContactsOnly && (laterPass || reused)
                                          ? MatrixUpdate::kChangedContacts
                                          : MatrixUpdate::kFull;
      const bool newtonConverged = newton(system, tNext, firstBuild, stats);
      if (stats.status != Status::kOk) {
        // Fault: keep the start-of-step state, so the outputs stay finite and meaningful, and the
        // start-of-step contact history (an earlier pass of this step may have changed it).
        q_ = q0; v_ = v0; a_ = a0; aBar_ = aBar0;
        system.rejectStep();
        stats.flags |= kStepFault;
        haveFactorization_ = false;
        return stats;
      }
      if (!newtonConverged) stats.flags |= kStepNewtonNotConverged;
      double error = 0.0;
      const IterationPoint<Vector> point{&q_, &v_, &a_, tNext, &coefficients_};
      const Status pns = system.postNewtonStep(point, error);
      if (pns != Status::kOk) {  // non-finite, or a degenerate segment (|r'| = 0): a fault
        q_ = q0; v_ = v0; a_ = a0; aBar_ = aBar0;
        system.rejectStep();
        stats.status = pns;
        stats.flags |= kStepFault;
        return stats;
      }
      stats.pnsError = error;
      if (error <= settings_.pnsTolerance) break;
      if (k == settings_.maxPnsIterations) stats.flags |= kStepPnsNotConverged;  // accepted as is
    }
    // Algorithmic acceleration of the accepted solution (docs/model.md §7.3 step 4).
    aBar_ = aBarStar_ + (1.0 - coefficients_.alphaF) / (1.0 - coefficients_.alphaM) * a_;
    ++steps_;
    time_ = tNext;
    return stats;
  }

 private:
  void predictor(const Vector& q0, const Vector& v0, const Vector& a0, const Vector& aBar0) {
    predictStep(coefficients_, h_, q0, v0, a0, aBar0, q_, v_, a_, aBarStar_, settings_.constantAccelerationPredictor);
  }

  // Newton with at most maxNewtonIterations updates. Jacobian at the first iteration of every
  // Newton solve (the contact set may have changed in the PNS, docs/model.md §7.11) unless reuseJacobian
  // keeps the last one, and again whenever the contraction is poor. Returns true if converged.
  bool newton(System& system, double t, MatrixUpdate firstBuild, StepStatistics& stats) {
    const IterationPoint<Vector> point{&q_, &v_, &a_, t, &coefficients_};
    Vector r;
    Status s = system.residual(point, r);
    if (s != Status::kOk || !allFinite(r)) {
      stats.status = s != Status::kOk ? s : Status::kNonFiniteValue;
      return false;
    }
    double res = r.norm();
    double initial = res > settings_.absoluteTolerance ? res : 2.0 * settings_.absoluteTolerance;
    double last = res;
    stats.residualNorm = res;
    if (res <= settings_.absoluteTolerance) return true;
    // Reused matrices are still brought up to date where the contacts changed, if so configured.
    bool rebuild = !(settings_.reuseJacobian && haveFactorization_) || firstBuild == MatrixUpdate::kChangedContacts;
    for (int j = 1; j <= settings_.maxNewtonIterations; ++j) {
      if (rebuild) {
        haveFactorization_ = false;
        bool built = false;
        s = system.factorize(point, j == 1 ? firstBuild : MatrixUpdate::kFull, built);
        if (s != Status::kOk) {
          stats.status = s;
          return false;
        }
        haveFactorization_ = true;
        if (built) ++stats.jacobianUpdates;
        rebuild = false;
      }
      Vector delta;
      s = system.solve(r, delta);
      if (s != Status::kOk) {
        stats.status = s;
        return false;
      }
      q_ -= delta;
      v_ -= coefficients_.velocityFactor * delta;
      a_ -= coefficients_.accelerationFactor * delta;
      ++stats.newtonIterations;
      s = system.residual(point, r);
      if (s != Status::kOk || !allFinite(r)) {
        stats.status = s != Status::kOk ? s : Status::kNonFiniteValue;
        return false;
      }
      res = r.norm();
      stats.residualNorm = res;
#ifdef BELTSIM_TRACE_NEWTON
      std::printf("    newton j=%d res=%.3e initial=%.3e\n", j, res, initial);
#endif
      // The predictor's residual can be tiny (a = 0 at rest): adopt the first update's as scale.
      if (j == 1 && res > initial) initial = res;
      if (res / initial <= settings_.relativeTolerance || res <= settings_.absoluteTolerance) return true;
      if (res / last > settings_.contractivityLimit) rebuild = true;
      last = res;
    }
    haveFactorization_ = false;  // not converged: the next solve starts with a fresh matrix
    return false;
  }

  static bool allFinite(const Vector& x) {
    for (int i = 0; i < kSize; ++i)
      if (!isFinite(x(i))) return false;
    return true;
  }

  IntegratorSettings settings_;
  IntegratorCoefficients coefficients_;
  double h_ = 1e-4;
  double time_ = 0.0;
  double startTime_ = 0.0;
  long long steps_ = 0;
  bool haveFactorization_ = false;  // the System holds a factorization valid for these coefficients
  Vector q_ = Vector::Zero(), v_ = Vector::Zero(), a_ = Vector::Zero();
  Vector aBar_ = Vector::Zero(), aBarStar_ = Vector::Zero();
};

}  // namespace beltsim
