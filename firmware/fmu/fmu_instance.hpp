// One FMU instance's behaviour, independent of the C interface: which calls are allowed in which
// mode, input and parameter checks, the communication step as whole model steps, and the health
// outputs. beltsim_fmu.cpp wraps it in the fmi3* functions and the static pools.
//
// Decisions (docs/fmu.md, *Decisions*):
// - A communication step must be a whole multiple of the model step (fixedInternalStepSize);
//   anything else is fmi3Error and nothing is stepped.
// - Inputs hold their value between communication points. A NaN, Inf or out-of-range value, or a
//   call that sets a variable it may not set, is fmi3Error; no value of that call is applied and
//   the refusal is counted (output rejected_inputs). The model never sees such a value.
// - A model step that is not converged is used, as in the firmware loop: it is counted, logged in
//   the category logNonConverged and reported by the health outputs, and fmi3DoStep returns
//   fmi3OK (importers that stop at fmi3Warning would stop on a step the firmware accepts).
//   max_consecutive_non_converged (fixed parameter; default 10, the firmware loop's limit; 0 = no
//   limit) non-converged steps in a row, a model fault or an implausible state is a fault:
//   fmi3Error, and the instance only answers getters until fmi3Reset. A sudden loss of friction
//   (a wet belt slipping through) flags tens of steps in a row while the stick/slip pattern
//   settles; a test that wants to see it through sets the limit to 0 and reads the health outputs.
#pragma once
#include <cstdint>

#include "../frames.hpp"
#include "../plant_loop.hpp"
#include "fmu_variables.hpp"
#include "beltsim/system/plant.hpp"

namespace beltsim::fmu {

enum class Mode : std::uint8_t { kInstantiated, kInitialization, kStep, kTerminated, kFaulted };

enum class Result : std::uint8_t { kOk, kError };

// Where an instance reports (the importer's logger); categories are the modelDescription's.
enum class LogCategory : std::uint8_t { kStatusError, kStatusWarning, kNonConverged, kCount };
constexpr const char* kLogCategoryNames[] = {"logStatusError", "logStatusWarning", "logNonConverged"};

class Reporter {
 public:
  virtual void report(LogCategory category, const char* format, ...) __attribute__((format(printf, 3, 4))) = 0;

 protected:
  ~Reporter() = default;
};

// Everything fmi3GetFMUState saves: the model and the FMU's own variables. Copied by assignment
// (the eulerian mesh's pairs point at their own drive's carried anchors: its copy assignment points
// them again; fmu_build.hpp, kStateLayoutVersion).
// Model: the kind of FMU (PaperDriveModel, ScenarioModel): its plant, its variables and values.
template <class Model>
struct Simulation {
  Mode mode = Mode::kInstantiated;
  typename Model::Plant plant;
  double startTime = 0.0;  // s, FMU time of model step 0
  std::uint64_t steps = 0;  // model steps since initialization
  typename Model::Values values;  // the model's inputs and parameters as set
  std::int32_t maxConsecutiveNonConverged = 10;
  double frictionCoefficient = 0.0;
  bool tunablesChanged = false;  // applied before the next model step
  bool plantReady = false;       // set up and in static equilibrium with the current parameters
  PlantOutput last;
  // The emulated encoders and load cells (scenario FMUs read them): once per model step, from the
  // step's truth, with the configuration's sensor faults (beltsim/system/emulated_sensors.hpp).
  EmulatedSensors<Model::Plant::kPulleys> sensors;
  bool lastConverged = true;     // every step of the last communication step
  std::uint8_t fault = 0;        // fw::FaultCode
  std::uint32_t rejectedInputs = 0;
  std::uint32_t nonConvergedSteps = 0;
  std::uint32_t consecutiveNonConverged = 0;
};

// The plant configuration of this build and what the FMU may change of it.
struct BuildConfiguration {
  const char* modelIdentifier;
  PlantConfig (*plantConfig)(MotorMode);
};

// What a Model provides (static members): kElements; Plant; Values (trivially copyable);
// kVariables (its table, the common variables included); reset(Values&) to the start values;
// configure(Values, BuildConfiguration) -> the PlantConfig with its fixed parameters;
// command(Values); assign(Values&, ref, value) (true: a tunable changed); admits(ref, value) (a
// value in range that its variable still refuses); applyTunables(Plant&, Values) and
// tuneFaults(Sim&) (before the next model step); constant(BuildConfiguration, ref) and value(Sim,
// BuildConfiguration, ref) of its own variables.
template <class Model>
class Instance {
 public:
  using Sim = Simulation<Model>;

  // The pool constructs instances empty; bind() gives them the build's configuration.
  void bind(const BuildConfiguration& build) { build_ = &build; }

  // Back to the state after instantiation: every variable at its start value.
  void reset() {
    Sim& s = sim_;
    s.mode = Mode::kInstantiated;
    s.startTime = 0.0;
    s.steps = 0;
    Model::reset(s.values);
    s.maxConsecutiveNonConverged = static_cast<std::int32_t>(kMaxConsecutiveNonConvergedVariable.start);
    s.frictionCoefficient = kFrictionCoefficientVariable.start;
    s.tunablesChanged = false;
    s.plantReady = false;
    s.last = PlantOutput{};
    s.lastConverged = true;
    s.fault = 0;
    s.rejectedInputs = 0;
    s.nonConvergedSteps = s.consecutiveNonConverged = 0;
  }

  Mode mode() const { return sim_.mode; }
  Sim& simulation() { return sim_; }
  const Sim& simulation() const { return sim_; }
  double stepSize() const { return build_->plantConfig(MotorMode::kSpeed).stepSize; }
  double time() const { return sim_.startTime + static_cast<double>(sim_.steps) * stepSize(); }

  Result enterInitialization(double startTime, Reporter& log) {
    if (sim_.mode != Mode::kInstantiated) return wrongMode("fmi3EnterInitializationMode", log);
    if (!isFinite(startTime)) {
      log.report(LogCategory::kStatusError, "fmi3EnterInitializationMode: start time is not finite");
      return Result::kError;
    }
    sim_.startTime = startTime;
    sim_.mode = Mode::kInitialization;
    return Result::kOk;
  }

  // Leaves Initialization Mode with the plant in its static equilibrium at t = startTime.
  Result exitInitialization(Reporter& log) {
    if (sim_.mode != Mode::kInitialization) return wrongMode("fmi3ExitInitializationMode", log);
    if (!startPlant("fmi3ExitInitializationMode", log))
      return fault(static_cast<std::uint8_t>(fw::FaultCode::kNotStarted));
    sim_.tunablesChanged = false;
    sim_.mode = Mode::kStep;
    return Result::kOk;
  }

  // From step mode, or after a fault (importers terminate before they free an instance).
  Result terminate(Reporter& log) {
    if (sim_.mode != Mode::kStep && sim_.mode != Mode::kFaulted) return wrongMode("fmi3Terminate", log);
    sim_.mode = Mode::kTerminated;
    return Result::kOk;
  }

  // Runs communicationStep / h model steps from currentPoint (which must be the FMU's time).
  Result doStep(double currentPoint, double communicationStep, double& lastSuccessfulTime, Reporter& log) {
    lastSuccessfulTime = time();
    if (sim_.mode != Mode::kStep) return wrongMode("fmi3DoStep", log);
    const double h = stepSize();
    const double now = time();
    // Importers that add up their communication steps drift by round-off: 1e-6 of a step, or
    // 1e-9 of the time for long runs, is accepted as the same point.
    if (!(isFinite(currentPoint) && isFinite(communicationStep)) ||
        absOf(currentPoint - now) > 1e-6 * h + 1e-9 * absOf(now)) {
      log.report(LogCategory::kStatusError, "fmi3DoStep: communication point %.17g is not the FMU's time %.17g",
                 currentPoint, now);
      return Result::kError;
    }
    const double ratio = communicationStep / h;
    // The range is checked before the conversion: a huge or negative ratio does not fit an int64
    // (undefined behaviour, found by fuzz_fmu).
    const bool inRange = ratio >= 0.5 && ratio <= kMaxStepsPerCall;
    const double whole = inRange ? static_cast<double>(static_cast<std::int64_t>(ratio + 0.5)) : 0.0;
    if (!inRange || absOf(ratio - whole) > 1e-9 * whole) {
      log.report(LogCategory::kStatusError,
                 "fmi3DoStep: communication step %.17g s is not a whole multiple (1..%g) of the model step %g s",
                 communicationStep, kMaxStepsPerCall, h);
      return Result::kError;
    }
    applyTunables();
    const std::int64_t n = static_cast<std::int64_t>(whole);
    sim_.lastConverged = true;
    for (std::int64_t k = 0; k < n; ++k) {
      if (modelStep(log) != Result::kOk) return Result::kError;
      lastSuccessfulTime = time();
    }
    return Result::kOk;
  }

  // ---- Variables ---------------------------------------------------------------------------------
  // Set: every value checked first; any refusal applies nothing and counts once.
  Result setFloat64(const std::uint32_t* refs, std::size_t n, const double* values, Reporter& log) {
    for (std::size_t i = 0; i < n; ++i)
      if (!settable(refs[i], VarType::kFloat64, values[i], log)) return refuse();
    for (std::size_t i = 0; i < n; ++i) assign(refs[i], values[i]);
    return Result::kOk;
  }
  Result setInt32(const std::uint32_t* refs, std::size_t n, const std::int32_t* values, Reporter& log) {
    for (std::size_t i = 0; i < n; ++i)
      if (!settable(refs[i], VarType::kInt32, static_cast<double>(values[i]), log)) return refuse();
    for (std::size_t i = 0; i < n; ++i) assign(refs[i], static_cast<double>(values[i]));
    return Result::kOk;
  }
  Result setBoolean(const std::uint32_t* refs, std::size_t n, const bool* values, Reporter& log) {
    for (std::size_t i = 0; i < n; ++i)
      if (!settable(refs[i], VarType::kBoolean, values[i] ? 1.0 : 0.0, log)) return refuse();
    for (std::size_t i = 0; i < n; ++i) assign(refs[i], values[i] ? 1.0 : 0.0);
    return Result::kOk;
  }

  // Get: the value of a variable of the given type, or false (unknown reference, other type).
  // In Initialization Mode an output is computed from the parameters set so far (the static
  // equilibrium; false if that fails, with a log message).
  bool get(std::uint32_t ref, VarType type, double& value, Reporter& log) {
    const Variable* v = findIn(Model::kVariables, ref);
    if (v == nullptr || v->type != type) return false;
    if (v->causality == Causality::kOutput && sim_.mode == Mode::kInitialization &&
        !startPlant("get (Initialization Mode)", log))
      return false;
    value = valueOf(ref);
    return true;
  }

  static constexpr double kMaxStepsPerCall = 1e7;

 private:
  // Sets the plant up with the parameters as they are now and solves the static equilibrium,
  // unless that was done with the same parameters already (an output read in Initialization
  // Mode: the outputs are InitialUnknowns, so they are computed there too).
  bool startPlant(const char* call, Reporter& log) {
    if (!sim_.plantReady) {
      PlantConfig config = Model::configure(sim_.values, *build_);
      config.contact.frictionCoefficient = sim_.frictionCoefficient;
      const ParameterError e = sim_.plant.setUp(config);
      if (!e.ok()) {
        log.report(LogCategory::kStatusError, "%s: plant parameter %s is invalid", call, e.parameter);
        return false;
      }
      const StaticResult statics = sim_.plant.start();
      if (!sim_.plant.started()) {
        log.report(LogCategory::kStatusError, "%s: static equilibrium failed (status %d, residual %g N)", call,
                   static_cast<int>(statics.status), statics.residualNorm);
        return false;
      }
      if (!sim_.sensors.setUp(config.sensors, config.faults, config.pulleyCount).ok()) {
        log.report(LogCategory::kStatusError, "%s: the emulated sensors do not fit the plant", call);
        return false;
      }
      sim_.plantReady = true;
    }
    sim_.last = sim_.plant.currentOutput(Model::command(sim_.values));
    // The readings of the start (read again, unchanged, if asked again before the first step; no
    // fault acts at the start time); from then on one per model step, as the firmware's loop reads them.
    sim_.sensors.read(sim_.last.time, sim_.last.angle, sim_.last.spanForce);
    return true;
  }

  void applyTunables() {
    if (!sim_.tunablesChanged) return;
    // Both values were range-checked by the setter; the plant accepts every value in range.
    (void)sim_.plant.setFrictionCoefficient(sim_.frictionCoefficient);
    Model::applyTunables(sim_.plant, sim_.values);
    Model::tuneFaults(sim_);
    sim_.tunablesChanged = false;
  }

  Result modelStep(Reporter& log) {
    const PlantOutput out = sim_.plant.step(Model::command(sim_.values));
    ++sim_.steps;
    sim_.last = out;
    sim_.sensors.read(out.time, out.angle, out.spanForce);
    if (out.fault == PlantFault::kModelStatus) return faultAt(fw::FaultCode::kModelFault, "model fault", log);
    if (out.fault != PlantFault::kNone) return faultAt(fw::FaultCode::kImplausibleState, "implausible state", log);
    if (out.converged) {
      sim_.consecutiveNonConverged = 0;
      return Result::kOk;
    }
    sim_.lastConverged = false;
    ++sim_.nonConvergedSteps;
    ++sim_.consecutiveNonConverged;
    log.report(LogCategory::kNonConverged,
               "t = %.6f s: model step not converged (Newton %d, post-Newton %d, residual %g N, e_PNS %g N)", time(),
               out.newtonIterations, out.pnsIterations, out.residualNorm, out.pnsError);
    if (sim_.maxConsecutiveNonConverged > 0 &&
        sim_.consecutiveNonConverged >= static_cast<std::uint32_t>(sim_.maxConsecutiveNonConverged))
      return faultAt(fw::FaultCode::kNonConvergence, "too many non-converged steps in a row", log);
    return Result::kOk;
  }

  Result faultAt(fw::FaultCode code, const char* what, Reporter& log) {
    log.report(LogCategory::kStatusError, "fmi3DoStep: %s at t = %.6f s (fault %d); fmi3Reset recovers", what,
               time(), static_cast<int>(code));
    return fault(static_cast<std::uint8_t>(code));
  }

  Result fault(std::uint8_t code) {
    sim_.fault = code;
    sim_.lastConverged = false;
    sim_.mode = Mode::kFaulted;
    return Result::kError;
  }

  Result wrongMode(const char* call, Reporter& log) {
    static constexpr const char* kModeNames[] = {"instantiated", "initialization mode", "step mode", "terminated",
                                                 "faulted (call fmi3Reset)"};
    log.report(LogCategory::kStatusError, "%s is not allowed when the instance is %s", call,
               kModeNames[static_cast<int>(sim_.mode)]);
    return Result::kError;
  }

  Result refuse() {
    ++sim_.rejectedInputs;
    return Result::kError;
  }

  bool settable(std::uint32_t ref, VarType type, double value, Reporter& log) const {
    const Variable* v = findIn(Model::kVariables, ref);
    if (v == nullptr || v->type != type) {
      log.report(LogCategory::kStatusError, "set: no variable of this type with value reference %u", ref);
      return false;
    }
    const Mode m = sim_.mode;
    bool allowed = false;
    if (v->causality == Causality::kInput || v->variability == Variability::kTunable)
      allowed = m == Mode::kInstantiated || m == Mode::kInitialization || m == Mode::kStep;
    else if (v->causality == Causality::kParameter)
      allowed = m == Mode::kInstantiated || m == Mode::kInitialization;
    if (!allowed) {
      log.report(LogCategory::kStatusError, "set: %s cannot be set %s", v->name,
                 v->causality == Causality::kParameter ? "after initialization (fixed parameter)" : "(not an input or parameter)");
      return false;
    }
    const bool inRange = v->type == VarType::kBoolean || (value >= v->min && value <= v->max);
    if (!(isFinite(value) && inRange)) {
      log.report(LogCategory::kStatusError, "set: %s = %g is outside [%g, %g] or not finite; the value %g is kept",
                 v->name, value, v->min, v->max, valueOf(ref));
      return false;
    }
    if (!Model::admits(ref, value)) {
      log.report(LogCategory::kStatusError, "set: %s = %g is not a value its kind takes; the value %g is kept", v->name,
                 value, valueOf(ref));
      return false;
    }
    return true;
  }

  void assign(std::uint32_t ref, double value) {
    const Variable* v = findIn(Model::kVariables, ref);
    if (v != nullptr && v->causality == Causality::kParameter && sim_.mode != Mode::kStep) sim_.plantReady = false;
    switch (ref) {
      case kMaxConsecutiveNonConverged: sim_.maxConsecutiveNonConverged = static_cast<std::int32_t>(value); break;
      case kFrictionCoefficient: sim_.frictionCoefficient = value; sim_.tunablesChanged = true; break;
      default:  // settable() admitted it: one of the model's inputs or parameters
        if (Model::assign(sim_.values, ref, value)) sim_.tunablesChanged = true;
        break;
    }
  }

  double valueOf(std::uint32_t ref) const {
    const Sim& s = sim_;
    const PlantOutput& o = s.last;
    switch (ref) {
      case kTime: return time();
      case kMaxConsecutiveNonConverged: return s.maxConsecutiveNonConverged;
      case kFrictionCoefficient: return s.frictionCoefficient;
      case kElementCount: return Model::kElements;
      case kInternalStepSize: return stepSize();
      case kConverged: return s.lastConverged ? 1.0 : 0.0;
      case kNewtonIterations: return o.newtonIterations;
      case kPnsIterations: return o.pnsIterations;
      case kFaultCode: return s.fault;
      case kResidualNorm: return o.residualNorm;
      case kPnsError: return o.pnsError;
      case kRejectedInputs: return s.rejectedInputs;
      case kNonConvergedSteps: return s.nonConvergedSteps;
      default: return Model::value(s, *build_, ref);
    }
  }

  const BuildConfiguration* build_ = nullptr;
  Sim sim_;
};

// The input ranges of the table are the plant's limits (PlantLimits in plant.hpp).
static_assert(PlantLimits{}.maxMotorSpeed == 630.0 && PlantLimits{}.maxMotorTorque == 150.0 &&
                  PlantLimits{}.maxLoadTorque == 150.0,
              "fmu_variables.hpp: update the input ranges to PlantLimits");
static_assert(fw::LoopOptions{}.maxConsecutiveNonConverged == 10,
              "fmu_variables.hpp: max_consecutive_non_converged starts at the firmware loop's limit");

}  // namespace beltsim::fmu
