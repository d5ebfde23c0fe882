// The reference stepper: implicit fixed-step time integration with bounded Newton and bounded post-Newton (PNS) loops
// (docs/model_drive_and_solver.md §7.2-7.3, §7.6-7.7, §7.10). Generalized-alpha in the Arnold-Bruls form with spectral
// radius rho_inf in [0, 1] (rho_inf = 1: the trapezoidal rule of the paper), or Newmark with
// given beta, gamma. Never shrinks the step, never retries: a step that does not converge within
// the bounds is completed, flagged and counted.
// The System's interface: system_interface.hpp.
#pragma once
#include <cmath>
#include <cstdint>

#include <Eigen/Core>

#include "beltsim/core/status.hpp"
#include "beltsim/stepping/integrator_coefficients.hpp"
#include "beltsim/stepping/integrator_settings.hpp"
#include "beltsim/stepping/integrator_state.hpp"
#include "beltsim/stepping/step_statistics.hpp"
#include "beltsim/stepping/system_interface.hpp"

namespace beltsim {

template <typename System>
class ReferenceStepper : public SteppedState<typename System::Vector> {
  using SteppedState<typename System::Vector>::state_;

 public:
  using Vector = typename System::Vector;
  static constexpr int kSize = System::kSize;

  ParameterError setUp(const IntegratorSettings& settings, double stepSize) {
    ParameterError e = validateIntegratorSettings(settings);
    if (e.ok()) e = state_.setUp(settings, stepSize);
    if (!e.ok()) return e;
    settings_ = settings;
    haveFactorization_ = false;
    return e;
  }

  // Initial state (IntegratorState::initialize).
  void initialize(const Vector& q, const Vector& v, const Vector& a, double time) {
    state_.initialize(q, v, a, time);
    haveFactorization_ = false;  // the System may have changed mode or parameters since
  }

  // One step t -> t + h. Always returns after at most maxPns x maxNewton iterations.
  StepStatistics step(System& system) {
    StepStatistics stats;
    const typename IntegratorState<Vector>::StepStart start = state_.start();
    const double tNext = state_.nextTime();
    system.beginStep();
    for (int k = 1; k <= settings_.maxPnsIterations; ++k) {
      stats.pnsIterations = k;
      if (k == 1 || !settings_.warmStartPns) state_.predict(start, settings_.constantAccelerationPredictor);
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
        state_.restore(start);
        system.rejectStep();
        stats.flags |= kStepFault;
        haveFactorization_ = false;
        return stats;
      }
      if (!newtonConverged) stats.flags |= kStepNewtonNotConverged;
      double error = 0.0;
      const Status pns = system.postNewtonStep(state_.point(tNext), error);
      if (pns != Status::kOk) {  // non-finite, or a degenerate segment (|r'| = 0): a fault
        state_.restore(start);
        system.rejectStep();
        stats.status = pns;
        stats.flags |= kStepFault;
        return stats;
      }
      stats.pnsError = error;
      if (error <= settings_.pnsTolerance) break;
      if (k == settings_.maxPnsIterations) stats.flags |= kStepPnsNotConverged;  // accepted as is
    }
    state_.accept(tNext);
    return stats;
  }

 private:

  // Newton with at most maxNewtonIterations updates. Jacobian at the first iteration of every
  // Newton solve (the contact set may have changed in the PNS, docs/model_drive_and_solver.md §7.10) unless reuseJacobian
  // keeps the last one, and again whenever the contraction is poor. Returns true if converged.
  // Never inlined into step(): its frame and the matrix build's stay apart, which keeps the
  // Cortex-M7 image's stack bound (docs/firmware.md, *Measured figures*) lowest.
  [[gnu::noinline]] bool newton(System& system, double t, MatrixUpdate firstBuild, StepStatistics& stats) {
    const IterationPoint<Vector> point = state_.point(t);
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
      state_.correct(delta);
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

  IntegratorSettings settings_;
  bool haveFactorization_ = false;  // the System holds a factorization valid for these coefficients
};

}  // namespace beltsim
