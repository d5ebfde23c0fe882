// The application loop's logic, shared by the Cortex-M7 image, the aarch64 and the host builds:
// per tick, validate the command, take one bounded model step, decide the plant's health and
// build the output frame. No hardware here: main.cpp drives it with the HAL's tick, clock and
// I/O, and tests drive it directly.
//
// Policies (documented in docs/firmware.md, *One tick*):
// - A command frame with a NaN/Inf value, a value outside PlantLimits, another pulley count or
//   input kinds than the plant's, or a stale sequence number is rejected before the model step: the last valid command is held and
//   the rejection counted in every following output frame. The model never sees it.
// - A step that does not converge is flagged (converged = 0) and used; after
//   `maxConsecutiveNonConverged` flagged steps in a row the loop enters the safe state.
// - Any model fault (non-finite state, singular matrix, implausible speeds or span forces) enters
//   the safe state at once.
// - No valid command for more than `maxHeldTicks` ticks after the first one (controller silent,
//   late or sending only bad frames): safe state (0 = hold for ever). A tick without any frame
//   counts as late.
// - Overrun (the tick came late: ticksElapsed > 1): counted, and counted apart when the caller
//   says the step's own compute caused it; with OverrunPolicy::kSafeState it also enters the
//   safe state. Rejected frames are counted by cause: corrupt, invalid, stale, superseded.
// - Safe state (latched until restart): the model is no longer stepped; every tick still answers
//   with an output frame whose physical values are 0 (speeds, torques, forces, angles), whose
//   fault code says why, with safe_state = 1 and the step counter and time still advancing.
#pragma once
#include <cmath>
#include <cstdint>

#include "frames.hpp"
#include "beltsim/system/plant.hpp"

namespace beltsim::fw {

enum class OverrunPolicy : std::uint8_t { kCountAndContinue, kSafeState };

// Why a tick came late (the caller knows: it measures its own step): the previous step's compute
// ran past the period, or the platform woke the loop up late (scheduler, interrupts, the host).
enum class OverrunCause : std::uint8_t { kWakeUp, kCompute };

struct LoopOptions {
  OverrunPolicy overrunPolicy = OverrunPolicy::kCountAndContinue;
  std::uint32_t maxConsecutiveNonConverged = 10;
  // Ticks the last valid command may be held without a fresh valid frame (controller silent or
  // late) before the safe state; 0 = hold for ever.
  std::uint32_t maxHeldTicks = 0;
};

enum class Rejection : std::uint8_t { kNone, kNotFinite, kOutOfRange, kWrongMode, kStale };

// The range of an input of the given kind (PlantLimits); 0 for a pulley without input.
inline double inputLimit(PulleyInput kind, const PlantLimits& l) {
  switch (kind) {
    case PulleyInput::kSpeed: return l.maxMotorSpeed;
    case PulleyInput::kTorque: return l.maxMotorTorque;
    case PulleyInput::kLoadTorque: return l.maxLoadTorque;
    default: return 0.0;
  }
}

// A command fits the plant if it names the plant's pulley count and every pulley's input kind
// (kWrongMode otherwise: the controller was built for another drive), and every value is finite
// and within its kind's range (slots beyond the pulley count and inputs of kind none: exactly 0).
inline Rejection validateCommand(const CommandFrame& f, const PlantConfig& config) {
  for (int i = 0; i < kFramePulleys; ++i)
    if (!isFinite(f.input[i])) return Rejection::kNotFinite;
  if (f.pulleyCount != config.pulleyCount) return Rejection::kWrongMode;
  for (int i = 0; i < kFramePulleys; ++i) {
    const PulleyInput kind = i < config.pulleyCount ? inputOf(config.pulley[i].kind) : PulleyInput::kNone;
    if (f.inputKind[i] != static_cast<std::uint8_t>(kind)) return Rejection::kWrongMode;
    const double limit = inputLimit(kind, config.limits);
    if (f.input[i] > limit || f.input[i] < -limit) return Rejection::kOutOfRange;
  }
  if (f.flags != 0) return Rejection::kOutOfRange;  // no flags defined in version 2
  return Rejection::kNone;
}

// A command frame for `config` with every input 0 (the plant's input kinds filled in).
inline CommandFrame commandFrameFor(const PlantConfig& config) {
  CommandFrame f;
  f.pulleyCount = static_cast<std::uint8_t>(config.pulleyCount);
  for (int i = 0; i < config.pulleyCount && i < kFramePulleys; ++i)
    f.inputKind[i] = static_cast<std::uint8_t>(inputOf(config.pulley[i].kind));
  return f;
}

template <int NE, int NP = 2, PlantMesh Mesh = PlantMesh::kMaterial>
class PlantLoop {
 public:
  using Plant = BeltDrivePlant<NE, NP, Mesh>;

  ParameterError setUp(const PlantConfig& config, const LoopOptions& options) {
    options_ = options;
    safe_ = false;
    fault_ = FaultCode::kNone;
    ParameterError e = plant_.setUp(config);
    if (e.ok()) e = sensors_.setUp(config.sensors, config.faults, config.pulleyCount);
    if (!e.ok()) enterSafeState(FaultCode::kNotStarted);
    return e;
  }

  // Start-up: the platform's self-check result (floating-point control register and the like)
  // and the static equilibrium. On failure the loop starts in the safe state.
  StaticResult start(bool platformSelfCheckPassed) {
    StaticResult statics;
    if (!platformSelfCheckPassed || safe_) {
      enterSafeState(FaultCode::kNotStarted);
      return statics;
    }
    statics = plant_.start();
    if (!plant_.started()) enterSafeState(FaultCode::kNotStarted);
    return statics;
  }

  // A frame the decoder refused (truncated, bad CRC, other version, ...): rejected as corrupt.
  void countUndecodableFrame() {
    ++rejected_;
    ++corrupt_;
    anyFrameThisTick_ = true;
  }

  // A decoded command frame, arriving between two ticks. Invalid ones are rejected and counted;
  // of several valid ones before the same tick the newest wins and the earlier are counted as
  // rejected (superseded).
  void receive(const CommandFrame& f) {
    anyFrameThisTick_ = true;
    Rejection r = validateCommand(f, plant_.config());
    if (r == Rejection::kNone && haveCommand_ && static_cast<std::int32_t>(f.sequence - commandSequence_) <= 0)
      r = Rejection::kStale;  // duplicated or out of order
    if (r != Rejection::kNone) {
      ++rejected_;
      ++(r == Rejection::kStale ? stale_ : invalid_);
      return;
    }
    if (validThisTick_) {  // superseded within the tick
      ++rejected_;
      ++superseded_;
    }
    for (int i = 0; i < kFramePulleys && i < kMaxPlantPulleys; ++i) command_.input[i] = f.input[i];
    commandSequence_ = f.sequence;
    haveCommand_ = true;
    validThisTick_ = true;
  }

  // A test bench's fault command (a datagram from the --bench address, docs/injected_faults.md,
  // "Live faults"): decoded, checked, and applied to both copies of the schedule (the plant's and
  // the sensors') from the next step on, or refused and counted. A start takes the command's value
  // (within the table's min..max); a clear keeps the table's value, whatever the command says. A
  // refused command changes nothing; a command never takes a step. The answer's foreign count is
  // the caller's.
  FaultAckFrame receiveFaultCommand(const std::uint8_t* data, std::size_t length) {
    FaultAckFrame ack;
    FaultCommandFrame f;
    FaultCommandResult r = FaultCommandResult::kAccepted;
    if (decodeFaultCommand(data, length, f) != DecodeError::kNone) {
      r = FaultCommandResult::kCorrupt;
    } else {
      ack.sequence = f.sequence;
      ack.table = f.table;
      ack.action = f.action;
      ack.value = f.value;
      const InjectedFaultSchedule& schedule = plant_.config().faults;
      if (haveFaultCommand_ && static_cast<std::int32_t>(f.sequence - faultSequence_) <= 0) r = FaultCommandResult::kStale;
      else if (f.table >= schedule.count) r = FaultCommandResult::kNoTable;
      else if (!schedule.fault[f.table].live) r = FaultCommandResult::kNotLive;
      else if (f.action > static_cast<std::uint8_t>(FaultAction::kStart)) r = FaultCommandResult::kBadAction;
      else if (f.action == static_cast<std::uint8_t>(FaultAction::kStart) && !schedule.admitsLive(f.table, f.value))
        r = FaultCommandResult::kOutOfRange;
      else if (safe_) r = FaultCommandResult::kSafeState;
    }
    if (r == FaultCommandResult::kAccepted) {
      const bool start = f.action == static_cast<std::uint8_t>(FaultAction::kStart);
      const double value = start ? f.value : plant_.injectedFaultTarget(f.table);
      ack.value = value;
      // Both copies at the model's time, the start of the next step. Neither can refuse: the table
      // exists and the value is admitsLive's or the table's own, all values its kind takes (validate()).
      (void)plant_.tuneInjectedFault(f.table, start, value);
      (void)sensors_.tune(f.table, plant_.time(), start, value);
      faultSequence_ = f.sequence;
      haveFaultCommand_ = true;
      ++faultAccepted_;
      ack.effectiveStep = step_ + 1;
    } else {
      ++faultRefused_;
    }
    ack.result = r;
    ack.injectedFaults = actingFaults_;
    ack.accepted = faultAccepted_;
    ack.refused = faultRefused_;
    ack.steps = step_;
    return ack;
  }
  std::uint32_t faultCommandsAccepted() const { return faultAccepted_; }
  // The injected fault tables acting after the last tick (bit k: table k, docs/injected_faults.md):
  // for the test bench (its acknowledgements, the recording, the summary), never in the frame
  // that the controller under test reads.
  std::uint8_t actingFaults() const { return actingFaults_; }
  std::uint32_t faultCommandsRefused() const { return faultRefused_; }

  // One tick with the command received since the previous tick (or the held one).
  // `ticksElapsed`: tick periods since the previous tick (> 1: overrun, for `cause`).
  // Lockstep: the controller sent no frame within the wait limit (firmware/main.cpp). The same
  // fault as a real-time command held beyond maxHeldTicks.
  void controllerSilent() { enterSafeState(FaultCode::kControllerSilent); }

  // Never inlined, so that a profiler can count one tick (instruction_budget.py's callgrind
  // toggle) at -O3 as well; one call per tick.
  [[gnu::noinline]] const OutputFrame& tick(std::uint32_t ticksElapsed, OverrunCause cause = OverrunCause::kWakeUp) {
    if (ticksElapsed > 1) {
      overruns_ += ticksElapsed - 1;
      if (cause == OverrunCause::kCompute) computeOverruns_ += ticksElapsed - 1;
      if (options_.overrunPolicy == OverrunPolicy::kSafeState) enterSafeState(FaultCode::kOverrun);
    }
    if (!anyFrameThisTick_) ++late_;
    heldTicks_ = validThisTick_ ? 0 : heldTicks_ + 1;
    anyFrameThisTick_ = validThisTick_ = false;
    // The hold limit runs from the first valid command on (before it, the plant waits at rest).
    if (options_.maxHeldTicks > 0 && haveCommand_ && heldTicks_ > options_.maxHeldTicks)
      enterSafeState(FaultCode::kControllerSilent);
    ++step_;
    OutputFrame& o = output_;
    o = OutputFrame{};
    o.sequence = ++frameSequence_;
    o.step = step_;
    const PlantConfig& config = plant_.config();
    o.pulleyCount = static_cast<std::uint8_t>(config.pulleyCount);
    for (int i = 0; i < config.pulleyCount; ++i) o.inputKind[i] = static_cast<std::uint8_t>(inputOf(config.pulley[i].kind));
    o.commandSequence = commandSequence_;
    if (!safe_) {
      const PlantOutput p = plant_.step(command_);
      copyPlantOutput(p, o);
      consecutiveNonConverged_ = p.converged ? 0 : consecutiveNonConverged_ + 1;
      if (p.fault == PlantFault::kModelStatus) enterSafeState(FaultCode::kModelFault);
      else if (p.fault == PlantFault::kImplausibleState) enterSafeState(FaultCode::kImplausibleState);
      else if (p.fault != PlantFault::kNone) enterSafeState(FaultCode::kNotStarted);
      else if (consecutiveNonConverged_ >= options_.maxConsecutiveNonConverged)
        enterSafeState(FaultCode::kNonConvergence);
    }
    if (safe_) applySafeValues(o);
    emulateSensors(o);
    actingFaults_ = plant_.activeInjectedFaults(o.time);
    o.overruns = overruns_;
    o.rejectedFrames = rejected_;
    o.lateFrames = late_;
    o.corruptFrames = corrupt_;
    o.invalidFrames = invalid_;
    o.staleFrames = stale_;
    o.supersededFrames = superseded_;
    o.computeOverruns = computeOverruns_;
    return o;
  }

  // Both in one: the frame for this tick (nullptr: none arrived), then the tick.
  const OutputFrame& tick(const CommandFrame* received, std::uint32_t ticksElapsed,
                          OverrunCause cause = OverrunCause::kWakeUp) {
    if (received != nullptr) receive(*received);
    return tick(ticksElapsed, cause);
  }

  bool safeState() const { return safe_; }
  FaultCode fault() const { return fault_; }
  std::uint32_t rejectedFrames() const { return rejected_; }
  std::uint32_t overruns() const { return overruns_; }
  std::uint32_t lateFrames() const { return late_; }
  std::uint32_t steps() const { return step_; }
  const PlantCommand& heldCommand() const { return command_; }
  const Plant& plant() const { return plant_; }

 private:
  static void copyPlantOutput(const PlantOutput& p, OutputFrame& o) {
    o.time = p.time;
    for (int i = 0; i < p.pulleyCount && i < kFramePulleys; ++i) {
      o.angle[i] = p.angle[i];
      o.speed[i] = p.speed[i];
      o.torque[i] = p.torque[i];
      o.spanForce[i] = p.spanForce[i];
      o.armAngle[i] = p.armAngle[i];
    }
    o.converged = p.converged ? 1 : 0;
    o.newtonIterations = p.newtonIterations;
    o.pnsIterations = p.pnsIterations;
    o.modelStatus = static_cast<std::uint8_t>(p.status);
    o.residualNorm = p.residualNorm;
    o.pnsError = p.pnsError;
  }

  // Sensors see the (possibly safe-state) ground truth of the frame, with the scheduled sensor
  // faults acting on the readings (beltsim/system/emulated_sensors.hpp). Once per tick.
  void emulateSensors(OutputFrame& o) {
    sensors_.read(o.time, o.angle, o.spanForce);
    for (int i = 0; i < plant_.config().pulleyCount; ++i) {
      o.encoderCount[i] = sensors_.encoderCount(i);
      o.loadCell[i] = sensors_.loadCell(i);
    }
  }

  void applySafeValues(OutputFrame& o) const {
    o.time = static_cast<double>(step_) * plant_.config().stepSize;
    for (int i = 0; i < kFramePulleys; ++i) o.angle[i] = o.speed[i] = o.torque[i] = o.spanForce[i] = o.armAngle[i] = 0.0;
    o.converged = 0;
    o.fault = fault_;
    o.safeState = 1;
  }

  void enterSafeState(FaultCode code) {
    if (safe_) return;  // the first cause stays
    safe_ = true;
    fault_ = code;
  }

  Plant plant_;
  EmulatedSensors<NP> sensors_;
  LoopOptions options_;
  PlantCommand command_;
  OutputFrame output_;
  bool haveCommand_ = false;
  bool anyFrameThisTick_ = false;
  bool validThisTick_ = false;
  bool safe_ = false;
  FaultCode fault_ = FaultCode::kNone;
  std::uint32_t commandSequence_ = 0;
  std::uint32_t frameSequence_ = 0;
  std::uint32_t step_ = 0;
  std::uint32_t rejected_ = 0;
  std::uint32_t corrupt_ = 0;
  std::uint32_t invalid_ = 0;
  std::uint32_t stale_ = 0;
  std::uint32_t superseded_ = 0;
  std::uint32_t overruns_ = 0;
  std::uint32_t computeOverruns_ = 0;
  std::uint32_t late_ = 0;
  std::uint32_t heldTicks_ = 0;
  std::uint32_t consecutiveNonConverged_ = 0;
  // The test bench's fault commands (receiveFaultCommand).
  bool haveFaultCommand_ = false;
  std::uint8_t actingFaults_ = 0;  // bit k: injected fault table k acts after the last tick
  std::uint32_t faultSequence_ = 0;
  std::uint32_t faultAccepted_ = 0;
  std::uint32_t faultRefused_ = 0;
};

}  // namespace beltsim::fw
