// Pieces shared by the closed-drive run (simulation_impl.hpp) and the open-belt run
// (open_cable_impl.hpp): contact values from the scenario, the static start, the torque output
// of a pulley and the fixed-step loop.
#pragma once
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "beltsim/system/paper_parameters.hpp"
#include "beltsim/stepping/static_equilibrium.hpp"
#include "beltsim/stepping/time_stepper.hpp"
#include "output_files.hpp"
#include "simulation.hpp"

namespace beltsim::host {

constexpr int kMaxSegments = 8;  // contact.segments_per_element may be 1..8 at run time

// Per-segment contact values from the per-area values (docs/model_start_and_benchmark.md §9.1: c_F = b L / n_cs) and the
// scenario's contact and friction options.
inline ContactParameters contactParametersOf(const Scenario& sc, double elementLength) {
  ContactParameters contact = contactFromPerArea(sc.contactPerArea, sc.belt, elementLength, sc.segmentsPerElement);
  contact.normalExponent = sc.normalExponent;
  contact.useSegmentNormals = sc.useSegmentNormals;
  contact.useBoundingBox = sc.useBoundingBox;
  contact.friction.law = sc.law;
  contact.friction.characteristicVelocity = sc.characteristicVelocity;
  return contact;
}

// The static equilibrium (docs/model_start_and_benchmark.md §8.3-8.4) from q. A solve that fails or does not converge says so
// with its residual and returns false: the run stops before anything is written.
template <typename Drive>
bool staticStart(const Scenario& sc, Drive& drive, typename Drive::Vector& q, const FrictionParameters& friction,
                 bool& converged, double& residual, int& iterations, const RunOptions& options) {
  const StaticResult statics = solveStaticEquilibrium(drive, q, sc.staticSettings, friction);
  converged = statics.converged;
  residual = statics.residualNorm;
  iterations = statics.newtonIterations;
  if (statics.status != Status::kOk) {
    // A degenerate or non-finite state stops the solve before a residual is known.
    std::fprintf(stderr,
                 "%s: static equilibrium failed: the state became %s after %d Newton iterations; nothing written. "
                 "Check the layout (a pulley pushed far into the belt, a slack belt), or start = \"rest\"\n",
                 sc.file.c_str(), statics.status == Status::kDegenerateState ? "degenerate" : "non-finite",
                 statics.newtonIterations);
    return false;
  }
  if (!statics.converged) {
    std::fprintf(stderr,
                 "%s: static equilibrium did not converge (residual %.3e N after %d Newton iterations, required "
                 "%.1e N); nothing written. Try [static] load_steps or max_newton, or start = \"rest\"\n",
                 sc.file.c_str(), statics.residualNorm, statics.newtonIterations, sc.staticSettings.equilibriumTolerance);
    return false;
  }
  if (options.progress) {
    std::fprintf(stderr, "static equilibrium: converged, %d Newton iterations, residual %.3e N\n",
                 statics.newtonIterations, statics.residualNorm);
  }
  return true;
}

// Sets up the model and the stepper; false (with the message on stderr) if a parameter is invalid.
template <typename Drive>
bool setUpRun(const Scenario& sc, Drive& drive, TimeStepper<Drive>& integrator, double elementLength,
              const PulleyParameters* circles, int pulleyCount, const ContactParameters& contact) {
  ParameterError e = drive.setUp(sc.belt, elementLength, circles, pulleyCount, contact);
  if (!e.ok()) {
    std::fprintf(stderr, "%s: invalid model parameter '%s'\n", sc.file.c_str(), e.parameter);
    return false;
  }
  e = integrator.setUp(sc.integrator, sc.stepSize);
  if (!e.ok()) {
    std::fprintf(stderr, "%s: key 'solver': invalid setting '%s'\n", sc.file.c_str(), e.parameter);
    return false;
  }
  return true;
}

// The initial state from the drawn configuration q: the static equilibrium (q moves to it, a = 0)
// or, with static.start = "rest", q at rest with consistent accelerations a. False (with the
// message on stderr) if neither can be had: the run stops before anything is written.
template <typename Drive>
bool startState(const Scenario& sc, Drive& drive, typename Drive::Vector& q, typename Drive::Vector& a,
                const FrictionParameters& friction, bool& converged, double& residual, int& iterations,
                const RunOptions& options) {
  using Vector = typename Drive::Vector;
  a.setZero();
  if (!sc.startAtRest) return staticStart(sc, drive, q, friction, converged, residual, iterations, options);
  const Vector zero = Vector::Zero();
  const IntegratorCoefficients coefficients = IntegratorCoefficients::make(sc.integrator, sc.stepSize);
  const IterationPoint<Vector> point{&q, &zero, &zero, 0.0, &coefficients};
  const Status s = drive.consistentAccelerations(point, a);
  if (s != Status::kOk) {
    std::fprintf(stderr, "%s: the initial accelerations could not be computed (status %d); nothing written\n",
                 sc.file.c_str(), static_cast<int>(s));
    return false;
  }
  return true;
}

// Creates the output folder (only now: nothing is written for a run that cannot start) and starts
// the stepper at (q, 0, a). Returns 0, or the exit status of beltsim run (message on stderr).
template <typename Stepper, typename Drive>
int beginRun(const RunOptions& options, OutputFiles& out, Stepper& integrator, Drive& drive,
             const typename Drive::Vector& q, const typename Drive::Vector& a) {
  std::string error;
  if (!out.open(options.outputDirectory, error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 2;
  }
  integrator.initialize(q, Drive::Vector::Zero(), a, 0.0);
  const Status prepared = integrator.prepare(drive);
  if (prepared != Status::kOk) {
    std::fprintf(stderr, "Newton matrix at the initial state failed: status %d\n", static_cast<int>(prepared));
    return 3;
  }
  return 0;
}

// The torque of what drives or loads pulley p: a speed drive's reaction, else the applied torque
// (profile and command); a fixed pulley's axle holds the belt's torque.
template <typename Drive>
double pulleyTorque(const Drive& drive, int p, double t) {
  const PulleyKind kind = drive.pulley(p).kind;
  return kind == PulleyKind::kSpeedDriven ? drive.driveTorque(p)
         : kind == PulleyKind::kFixed     ? -drive.beltTorque(p)
                                          : drive.appliedTorque(p, t);
}

// What a run may reach before it counts as diverged (docs/host_simulator.md, "A run that
// goes wrong"). The position bound comes from the scenario's start: ten times the distance of its
// farthest node or pulley centre from the origin plus the belt's length (a belt cannot get
// farther while it is attached to anything). The speeds are fixed: a belt drive runs at some m/s
// and some 100 rad/s, these are orders of magnitude beyond. Steps whose Newton did not converge
// are accepted and flagged (the paper's practice); this many in a row stop the run.
struct RunLimits {
  double position = 0.0;            // m, |x| and |y| of every node and pulley centre
  double nodeSpeed = 1.0e3;         // m/s, |v| of every node
  double pulleySpeed = 1.0e4;       // rad/s, every pulley
  long long newtonFailuresInARow = 200;
};

template <typename Drive>
RunLimits runLimits(const Drive& drive, const typename Drive::Vector& q) {
  RunLimits limits;
  double farthest = 0.0;
  for (int k = 0; k < Drive::kNodes; ++k)
    farthest = std::max(farthest, std::hypot(q(Drive::nodeDof(k, 0)), q(Drive::nodeDof(k, 1))));
  for (int p = 0; p < drive.pulleyCount(); ++p)
    farthest = std::max(farthest, std::hypot(q(Drive::pulleyDof(p, 0)), q(Drive::pulleyDof(p, 1))));
  limits.position = 10.0 * (farthest + Drive::kElements * drive.belt().element.length);
  return limits;
}

// Empty if the state is within the limits, else one phrase naming what is not.
template <typename Drive>
std::string implausibility(const Drive& drive, const typename Drive::Vector& q, const typename Drive::Vector& v,
                           const RunLimits& limits) {
  char text[200];
  for (int i = 0; i < Drive::kSize; ++i) {
    if (!std::isfinite(q(i)) || !std::isfinite(v(i))) {
      std::snprintf(text, sizeof text, "a non-finite coordinate or velocity (entry %d of the state)", i);
      return text;
    }
  }
  for (int k = 0; k < Drive::kNodes; ++k) {
    const double x = q(Drive::nodeDof(k, 0)), y = q(Drive::nodeDof(k, 1));
    if (std::fabs(x) > limits.position || std::fabs(y) > limits.position) {
      std::snprintf(text, sizeof text, "node %d at (%.6g, %.6g) m, beyond the plausible %.6g m", k, x, y,
                    limits.position);
      return text;
    }
    const double speed = std::hypot(v(Drive::nodeDof(k, 0)), v(Drive::nodeDof(k, 1)));
    if (speed > limits.nodeSpeed) {
      std::snprintf(text, sizeof text, "node %d moving at %.6g m/s, beyond the plausible %.6g m/s", k, speed,
                    limits.nodeSpeed);
      return text;
    }
  }
  for (int p = 0; p < drive.pulleyCount(); ++p) {
    const double x = q(Drive::pulleyDof(p, 0)), y = q(Drive::pulleyDof(p, 1));
    if (std::fabs(x) > limits.position || std::fabs(y) > limits.position) {
      std::snprintf(text, sizeof text, "pulley %d's centre at (%.6g, %.6g) m, beyond the plausible %.6g m", p + 1, x,
                    y, limits.position);
      return text;
    }
    const double omega = v(Drive::pulleyDof(p, 2));
    if (std::fabs(omega) > limits.pulleySpeed) {
      std::snprintf(text, sizeof text, "pulley %d turning at %.6g rad/s, beyond the plausible %.6g rad/s", p + 1,
                    omega, limits.pulleySpeed);
      return text;
    }
  }
  return std::string();
}

// The fixed-step run to sc.endTime: beforeStep(t) before each step to t (the injected faults,
// simulation_impl.hpp), afterStep(t) after each step the run keeps (the emulated sensors),
// sample(t, health) at t = 0, every output.sample_interval and at the end (health: what the
// steps since the previous sample accepted). Returns false if
// the model faulted, the state left RunLimits or Newton failed RunLimits::newtonFailuresInARow
// steps in a row: the run stops there (one line on stderr, totals.faultReason), the samples so
// far kept.
template <typename Stepper, typename Drive, typename BeforeStep, typename AfterStep, typename Sample>
bool runSteps(const Scenario& sc, Stepper& integrator, Drive& drive, BeforeStep&& beforeStep, AfterStep&& afterStep,
              Sample&& sample, std::vector<float>& stepMicros, RunTotals& totals, const RunOptions& options) {
  const auto wallStart = std::chrono::steady_clock::now();
  const long long steps = static_cast<long long>(std::llround(sc.endTime / sc.stepSize));
  const long long sampleEvery = std::max<long long>(1, std::llround(sc.sampleInterval / sc.stepSize));
  stepMicros.reserve(static_cast<size_t>(steps));
  IntervalHealth interval;
  sample(0.0, interval);
  const RunLimits limits = runLimits(drive, integrator.positions());
  long long newtonFailures = 0;  // in a row
  int lastPercent = -1;
  for (long long i = 0; i < steps; ++i) {
    // The faults at the step's end time t + h (the time its equations hold at).
    const ParameterError applied = beforeStep(integrator.time() + sc.stepSize);
    if (!applied.ok()) {
      char where[120];
      std::snprintf(where, sizeof where, "step %lld (t = %.6f s): injected fault refused ('%s')", i + 1,
                    integrator.time(), applied.parameter);
      totals.faultReason = where;
      std::fprintf(stderr, "run stopped at %s\n", where);
      totals.faulted = true;
      break;
    }
    const auto t0 = std::chrono::steady_clock::now();
    const StepStatistics st = integrator.step(drive);
    const auto t1 = std::chrono::steady_clock::now();
    stepMicros.push_back(static_cast<float>(std::chrono::duration<double, std::micro>(t1 - t0).count()));
    totals.add(st);
    interval.add(st);
    std::string reason;
    if (st.flags & kStepFault) {
      reason = "model fault (status " + std::to_string(static_cast<int>(st.status)) + ")";
    } else {
      reason = implausibility(drive, integrator.positions(), integrator.velocities(), limits);
      newtonFailures = (st.flags & kStepNewtonNotConverged) ? newtonFailures + 1 : 0;
      if (reason.empty() && newtonFailures >= limits.newtonFailuresInARow)
        reason = std::to_string(newtonFailures) + " steps in a row whose Newton did not converge";
    }
    if (!reason.empty()) {
      char where[80];
      std::snprintf(where, sizeof where, "step %lld (t = %.6f s)", i + 1, integrator.time());
      totals.faultReason = std::string(where) + ": " + reason;
      std::fprintf(stderr, "run stopped at %s\n", totals.faultReason.c_str());
      totals.faulted = true;
      break;
    }
    afterStep(integrator.time());
    if ((i + 1) % sampleEvery == 0 || i + 1 == steps) {
      sample(integrator.time(), interval);
      interval = IntervalHealth{};
    }
    const int percent = static_cast<int>(100 * (i + 1) / steps);
    if (options.progress && percent != lastPercent && percent % 5 == 0) {
      const double wall = std::chrono::duration<double>(t1 - wallStart).count();
      std::fprintf(stderr, "\r  t = %.3f s (%3d %%), wall %.1f s, non-converged steps %lld   ", integrator.time(),
                   percent, wall, totals.all.flaggedSteps);
      lastPercent = percent;
    }
  }
  if (options.progress) std::fprintf(stderr, "\n");
  return !totals.faulted;
}

}  // namespace beltsim::host
