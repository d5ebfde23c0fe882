// Injected faults scheduled in time (docs/injected_faults.md): what a test bench injects into the
// plant to see what a drive controller does when things go wrong. Not to be confused with the
// plant's own health fault (PlantFault in plant.hpp).
//
// A fault table acts on one target from `start` on: its level rises from 0 to 1 along a half
// cosine over `ramp` seconds, stays at 1 until `end`, and falls back to 0 over the next `ramp`
// seconds. The quantity it changes is nominal + level * (value - nominal), so a run with a fault
// starts and ends on the nominal value and never jumps.
//
// Plant kinds: kFriction, the friction coefficient mu of one pulley's contact pairs (a wet or
// oily pulley), or of all pulleys; kBeltStiffness, the belt's axial stiffness EA as a fraction of
// its own (a worn belt; the reference strain stays, so the pre-tension falls with it);
// kTensionerSpring, a tensioner arm's spring rate as a fraction of its own (the torque at the drawn
// position, k * preloadAngle, falls with it: a tired spring); kBearingDrag, an extra bearing torque on
// a pulley whose rotation is free (not speed-driven, not fixed): a Coulomb torque `value` (elasto-plastic, pulley_bodies.hpp, so a
// pulley can come to rest and stay there) and a viscous part `viscous`, both ramped in with the level.
// Sensor kinds act on what the controller reads, never on the plant (emulated_sensors.hpp): an
// encoder on a pulley, a load cell on a span. Stuck and reverse have no level in between: they act
// from the first step after `start` to the last step at or before `end` (no ramp). Fixed size: at
// most kMaxInjectedFaults tables, no heap.
#pragma once
#include <cstdint>

#include "beltsim/contact/bristle_friction.hpp"
#include "beltsim/core/status.hpp"
#include "beltsim/system/drive_parameters.hpp"
#include "beltsim/system/profiles.hpp"

namespace beltsim {

constexpr int kMaxInjectedFaults = 8;

enum class InjectedFaultKind : std::uint8_t {
  kFriction,
  kBeltStiffness,
  kEncoderStuck,
  kEncoderOffset,
  kEncoderNoise,
  kEncoderDropout,
  kEncoderReverse,
  kLoadCellStuck,
  kLoadCellOffset,
  kLoadCellGain,
  kLoadCellNoise,
  kTensionerSpring,
  kBearingDrag,
};

inline bool isEncoderFault(InjectedFaultKind k) {
  return k >= InjectedFaultKind::kEncoderStuck && k <= InjectedFaultKind::kEncoderReverse;
}
inline bool isLoadCellFault(InjectedFaultKind k) {
  return k >= InjectedFaultKind::kLoadCellStuck && k <= InjectedFaultKind::kLoadCellNoise;
}
// Kinds without a level in between (no ramp): on or off.
inline bool isSteppedFault(InjectedFaultKind k) {
  return k == InjectedFaultKind::kEncoderStuck || k == InjectedFaultKind::kEncoderReverse ||
         k == InjectedFaultKind::kLoadCellStuck;
}

// The kind's name in a scenario's [[fault]] tables (`kind = "..."`).
inline const char* injectedFaultKindName(InjectedFaultKind k) {
  switch (k) {
    case InjectedFaultKind::kFriction: return "friction";
    case InjectedFaultKind::kBeltStiffness: return "belt_stiffness";
    case InjectedFaultKind::kEncoderStuck: return "encoder_stuck";
    case InjectedFaultKind::kEncoderOffset: return "encoder_offset";
    case InjectedFaultKind::kEncoderNoise: return "encoder_noise";
    case InjectedFaultKind::kEncoderDropout: return "encoder_dropout";
    case InjectedFaultKind::kEncoderReverse: return "encoder_reverse";
    case InjectedFaultKind::kLoadCellStuck: return "load_cell_stuck";
    case InjectedFaultKind::kLoadCellOffset: return "load_cell_offset";
    case InjectedFaultKind::kLoadCellGain: return "load_cell_gain";
    case InjectedFaultKind::kLoadCellNoise: return "load_cell_noise";
    case InjectedFaultKind::kTensionerSpring: return "tensioner_spring";
    case InjectedFaultKind::kBearingDrag: return "bearing_drag";
  }
  return "unknown";
}
// Kinds that draw random numbers (their table's `seed`).
inline bool isSeededFault(InjectedFaultKind k) {
  return k == InjectedFaultKind::kEncoderNoise || k == InjectedFaultKind::kEncoderDropout ||
         k == InjectedFaultKind::kLoadCellNoise;
}

struct InjectedFault {
  InjectedFaultKind kind = InjectedFaultKind::kFriction;
  bool hasEnd = false;     // false: the fault stays to the end of the run
  // A live table (`live = true`): the test bench starts and clears it during a run (beltsim hil
  // --bench, docs/injected_faults.md, "Live faults"), with a value from liveMin to liveMax. It waits
  // for the bench: cleared from the start (startCleared) until a command starts it.
  bool live = false;
  // The target, from 0: a pulley (kFriction, -1: every pulley; the encoder kinds,
  // kTensionerSpring, kBearingDrag), a span (the load-cell kinds: span k runs from pulley k to
  // pulley k + 1), -1 for the belt (kBeltStiffness).
  int pulley = -1;
  std::uint32_t seed = 1;  // kEncoderNoise, kEncoderDropout, kLoadCellNoise: the random sequence
  double start = 0.0;      // s, the level starts to rise
  double end = 0.0;        // s, the level starts to fall (hasEnd only)
  double ramp = 0.0;       // s, the time the level takes to rise or fall (> 0; 0 for stepped kinds)
  // The faulted value: kFriction mu; kBeltStiffness a fraction of EA; kEncoderOffset counts;
  // kEncoderNoise and kLoadCellNoise the standard deviation (counts, N); kEncoderDropout the
  // probability that a count is lost; kLoadCellOffset N; kLoadCellGain a factor; kTensionerSpring
  // a fraction of the arm's spring rate; kBearingDrag the Coulomb torque, N m; stuck and reverse
  // none (0).
  double value = 0.0;
  double viscous = 0.0;  // kBearingDrag: the viscous torque per angular velocity, N m s/rad
  // Tuned during a run (tune(); the FMU's fault<k>.active and fault<k>.value, docs/fmu.md): a gate
  // on the level that moves from gateFrom to gateTo over `ramp` from gateSince, and the value that
  // moves from valueFrom to `value` over `ramp` from valueSince (stepped kinds: at once). A table
  // never tuned skips both, so its numbers are the schedule's to the bit.
  bool tuned = false;
  double gateFrom = 1.0, gateTo = 1.0, gateSince = 0.0;  // gate: 1 acts as scheduled, 0 off
  double valueFrom = 0.0, valueSince = 0.0;
  double liveMin = 0.0, liveMax = 0.0;  // a live table's range for the bench's values

  // The level in [0, 1] at time t.
  double level(double t) const {
    double scheduled = 0.0;
    if (isSteppedFault(kind)) {
      scheduled = t > start && (!hasEnd || t <= end) ? 1.0 : 0.0;
    } else {
      scheduled = smoothStep(t, start, start + ramp, 0.0, 1.0);
      if (hasEnd) scheduled *= smoothStep(t, end, end + ramp, 1.0, 0.0);
    }
    return tuned ? scheduled * gate(t) : scheduled;
  }
  // The faulted value at time t: `value`, or on its way there after a tune.
  double amount(double t) const {
    if (!tuned || isSteppedFault(kind)) return value;
    return smoothStep(t, valueSince, valueSince + ramp, valueFrom, value);
  }
  double gate(double t) const {
    if (isSteppedFault(kind)) return t > gateSince ? gateTo : gateFrom;
    return smoothStep(t, gateSince, gateSince + ramp, gateFrom, gateTo);
  }
  // From time t on: the table acts as scheduled (`active`) or not, with `newValue`; each change
  // starts from where the gate or the value is at t and takes `ramp`, so nothing jumps.
  void tune(double t, bool active, double newValue) {
    if (!tuned && active && newValue == value) return;  // nothing changes: the schedule's own bits
    if (!tuned) {
      tuned = true;
      gateFrom = gateTo = 1.0;
      gateSince = valueSince = t;
      valueFrom = value;
    }
    const double target = active ? 1.0 : 0.0;
    if (target != gateTo) {
      gateFrom = gate(t);
      gateTo = target;
      gateSince = t;
    }
    if (newValue != value) {
      valueFrom = amount(t);
      value = newValue;
      valueSince = t;
    }
  }
  // Off from t = 0 on, with nothing to ramp from: a live table before the bench starts it, an FMU
  // table whose active parameter is false at the start.
  void startCleared() {
    tuned = true;
    gateFrom = gateTo = 0.0;
    gateSince = valueSince = 0.0;
    valueFrom = value;
  }
  // The latest time at which the level is not 0 (hasEnd only).
  double clearedAt() const { return end + ramp; }
  bool targets(int p) const { return pulley < 0 || pulley == p; }
};

struct InjectedFaultSchedule {
  InjectedFault fault[kMaxInjectedFaults];
  int count = 0;

  bool empty() const { return count == 0; }
  bool hasKind(InjectedFaultKind kind) const {
    for (int k = 0; k < count; ++k)
      if (fault[k].kind == kind) return true;
    return false;
  }

  // The friction coefficient of circle p's pairs at time t, mu its nominal value. validate()
  // allows no two friction tables on one pulley at a time; where the tables' ramps would touch
  // (one ends as the next starts), the later table in the list wins.
  double frictionCoefficient(int p, double t, double nominal) const {
    double mu = nominal;
    for (int k = 0; k < count; ++k) {
      const InjectedFault& f = fault[k];
      if (f.kind != InjectedFaultKind::kFriction || !f.targets(p)) continue;
      const double level = f.level(t);
      if (level > 0.0) mu = nominal + level * (f.amount(t) - nominal);
    }
    return mu;
  }

  // The factor on the belt's EA at time t (1 without a belt_stiffness fault acting).
  double axialStiffnessFactor(double t) const {
    double factor = 1.0;
    for (int k = 0; k < count; ++k) {
      const InjectedFault& f = fault[k];
      if (f.kind != InjectedFaultKind::kBeltStiffness) continue;
      const double level = f.level(t);
      if (level > 0.0) factor = 1.0 + level * (f.amount(t) - 1.0);
    }
    return factor;
  }

  // The factor on tensioner p's spring rate at time t (1 without a tensioner_spring fault acting).
  double armStiffnessFactor(int p, double t) const {
    double factor = 1.0;
    for (int k = 0; k < count; ++k) {
      const InjectedFault& f = fault[k];
      if (f.kind != InjectedFaultKind::kTensionerSpring || f.pulley != p) continue;
      const double level = f.level(t);
      if (level > 0.0) factor = 1.0 + level * (f.amount(t) - 1.0);
    }
    return factor;
  }

  // Pulley p's extra bearing torque at time t: the Coulomb torque (N m) and the viscous
  // coefficient (N m s/rad), both 0 without a bearing_drag fault acting.
  void bearingDrag(int p, double t, double& torque, double& viscous) const {
    torque = viscous = 0.0;
    for (int k = 0; k < count; ++k) {
      const InjectedFault& f = fault[k];
      if (f.kind != InjectedFaultKind::kBearingDrag || f.pulley != p) continue;
      const double level = f.level(t);
      if (level > 0.0) {
        torque = level * f.amount(t);
        viscous = level * f.viscous;
      }
    }
  }

  // Checks what the model needs: every table's numbers finite, ramp > 0 (0 for stepped kinds),
  // end after start, a target the drive has (none for the belt's stiffness, one for the sensor
  // kinds), a value in its kind's range (valueFits), and no two tables of one kind acting on one
  // target at the same time. The scenario reader checks the same with the key and the line.
  ParameterError validate(int pulleyCount) const {
    if (count < 0 || count > kMaxInjectedFaults) return ParameterError::invalid("injected_faults.count");
    for (int k = 0; k < count; ++k) {
      const InjectedFault& f = fault[k];
      if (!(isFinite(f.start) && f.start >= 0.0)) return ParameterError::invalid("injected_fault.start");
      const bool stepped = isSteppedFault(f.kind);
      if (!(isFinite(f.ramp) && (stepped ? f.ramp == 0.0 : f.ramp > 0.0)))
        return ParameterError::invalid("injected_fault.ramp");
      if (f.hasEnd && !(isFinite(f.end) && (stepped ? f.end > f.start : f.end >= f.start + f.ramp)))
        return ParameterError::invalid("injected_fault.end");
      const bool stiffness = f.kind == InjectedFaultKind::kBeltStiffness;
      const bool named = f.kind != InjectedFaultKind::kFriction && !stiffness;  // every other kind names its target
      if (f.pulley < -1 || f.pulley >= pulleyCount || (stiffness && f.pulley != -1) || (named && f.pulley < 0))
        return ParameterError::invalid("injected_fault.pulley");
      if (!valueFits(f.kind, f.value)) return ParameterError::invalid("injected_fault.value");
      const bool drag = f.kind == InjectedFaultKind::kBearingDrag;
      if (!(isFinite(f.viscous) && f.viscous >= 0.0 && f.viscous <= 1e4) || (!drag && f.viscous != 0.0))
        return ParameterError::invalid("injected_fault.viscous");
      // A live table's range holds its value and only values its kind takes.
      if (f.live && !(f.liveMin <= f.value && f.value <= f.liveMax && valueFits(f.kind, f.liveMin) &&
                      valueFits(f.kind, f.liveMax)))
        return ParameterError::invalid("injected_fault.live_range");
      for (int j = 0; j < k; ++j)
        if (overlap(fault[j], f)) return ParameterError::invalid("injected_fault.overlap");
    }
    return ParameterError::success();
  }

  // Tunes table k from time t on (InjectedFault::tune); a table the schedule lacks or a value
  // outside its kind's range changes nothing.
  ParameterError tune(int k, double t, bool active, double value) {
    if (k < 0 || k >= count) return ParameterError::invalid("injected_fault.index");
    if (!isFinite(t) || !valueFits(fault[k].kind, value)) return ParameterError::invalid("injected_fault.value");
    fault[k].tune(t, active, value);
    return ParameterError::success();
  }

  // Live tables wait for the bench: each one not tuned yet starts cleared (startCleared). Both
  // copies of a schedule (the plant's, the sensors') call it when they are set up.
  void clearLiveTables() {
    for (int k = 0; k < count; ++k)
      if (fault[k].live && !fault[k].tuned) fault[k].startCleared();
  }

  // Whether the bench may set table k to (active, value): a live table, and a value within its
  // liveMin..liveMax (a value its kind takes, validate()). Not finite: never.
  bool admitsLive(int k, double value) const {
    if (k < 0 || k >= count || !fault[k].live) return false;
    return isFinite(value) && value >= fault[k].liveMin && value <= fault[k].liveMax;
  }

  // What table k's quantity is at time t: nominal + level (value - nominal), the nominal value
  // being mu (`nominalFriction`) for friction, 1 for the fractions and the gain, 0 for the
  // additive kinds and the drag; the stepped kinds give their level (1 while they act).
  double currentValue(int k, double t, double nominalFriction) const {
    const InjectedFault& f = fault[k];
    const double level = f.level(t);
    if (isSteppedFault(f.kind)) return level;
    double nominal = 0.0;
    if (f.kind == InjectedFaultKind::kFriction) nominal = nominalFriction;
    if (f.kind == InjectedFaultKind::kBeltStiffness || f.kind == InjectedFaultKind::kTensionerSpring ||
        f.kind == InjectedFaultKind::kLoadCellGain)
      nominal = 1.0;
    return nominal + level * (f.amount(t) - nominal);
  }

  // Checks each table's target against the drive's pulleys (validate first): a tensioner_spring
  // on a tensioner arm, a bearing_drag on a pulley with a torque input (not speed-driven, not fixed).
  ParameterError validateTargets(const PulleyParameters circles[], int pulleyCount) const {
    for (int k = 0; k < count; ++k) {
      const InjectedFault& f = fault[k];
      if (f.kind != InjectedFaultKind::kTensionerSpring && f.kind != InjectedFaultKind::kBearingDrag) continue;
      if (f.pulley < 0 || f.pulley >= pulleyCount) return ParameterError::invalid("injected_fault.pulley");
      const PulleyKind kind = circles[f.pulley].kind;
      if (f.kind == InjectedFaultKind::kTensionerSpring && kind != PulleyKind::kTensionerArm)
        return ParameterError::invalid("injected_fault.pulley");
      if (f.kind == InjectedFaultKind::kBearingDrag && (kind == PulleyKind::kSpeedDriven || kind == PulleyKind::kFixed))
        return ParameterError::invalid("injected_fault.pulley");
    }
    return ParameterError::success();
  }

  // A kind's range of values (the scenario keys' ranges, docs/injected_faults.md).
  static bool valueFits(InjectedFaultKind kind, double v) {
    if (!isFinite(v)) return false;
    switch (kind) {
      case InjectedFaultKind::kFriction: return v >= 0.0 && v <= 10.0;
      case InjectedFaultKind::kBeltStiffness: return v > 0.0 && v <= 1.0;
      case InjectedFaultKind::kTensionerSpring: return v > 0.0 && v <= 1.0;
      case InjectedFaultKind::kBearingDrag: return v >= 0.0 && v <= 1e4;
      case InjectedFaultKind::kEncoderOffset:  // whole counts
        return v >= -1e9 && v <= 1e9 && v == static_cast<double>(static_cast<std::int64_t>(v));
      case InjectedFaultKind::kEncoderNoise: return v > 0.0 && v <= 1e6;
      case InjectedFaultKind::kEncoderDropout: return v >= 0.0 && v <= 1.0;
      case InjectedFaultKind::kLoadCellOffset: return v >= -1e9 && v <= 1e9;
      case InjectedFaultKind::kLoadCellGain: return v >= 0.0 && v <= 1e3;
      case InjectedFaultKind::kLoadCellNoise: return v > 0.0 && v <= 1e9;
      default: return v == 0.0;  // stuck and reverse take no value
    }
  }

  // Whether two tables act on one target at once: the same kind, a common pulley and active
  // times (from start to the level's return to 0) that overlap.
  static bool overlap(const InjectedFault& a, const InjectedFault& b) {
    if (a.kind != b.kind) return false;
    if (a.pulley >= 0 && b.pulley >= 0 && a.pulley != b.pulley) return false;
    const bool aBeforeB = a.hasEnd && a.clearedAt() <= b.start;
    const bool bBeforeA = b.hasEnd && b.clearedAt() <= a.start;
    return !(aBeforeB || bBeforeA);
  }
};

// What a schedule does to a drive as the run goes: before each step the caller hands it the
// step's end time, and it sets what differs from what the drive has: each pulley's friction
// (setFriction(friction, pulley)), the belt's EA (setAxialStiffness), a tensioner's spring rate
// (setArmStiffnessFactor(pulley, factor)) and a pulley's bearing drag (setBearingDrag(pulley,
// torque, viscous)). A schedule without a kind never touches what that kind changes, so a run
// without [[fault]] tables keeps its bits. NP: the pulleys compiled in.
template <int NP>
class InjectedFaultApplier {
 public:
  // `circles`: the drive's pulleys (their kinds decide which targets a table may name).
  ParameterError setUp(const InjectedFaultSchedule& schedule, const FrictionParameters& nominal, double axialStiffness,
                       const PulleyParameters circles[], int pulleyCount) {
    if (pulleyCount < 0 || pulleyCount > NP) return ParameterError::invalid("pulley_count");
    ParameterError e = schedule.validate(pulleyCount);
    if (e.ok()) e = schedule.validateTargets(circles, pulleyCount);
    if (!e.ok()) return e;
    if (!(isFinite(axialStiffness) && axialStiffness > 0.0)) return ParameterError::invalid("EA");
    schedule_ = schedule;
    schedule_.clearLiveTables();
    pulleyCount_ = pulleyCount;
    nominalEA_ = axialStiffness;
    EA_ = axialStiffness;
    for (int p = 0; p < NP; ++p) {
      armFactor_[p] = 1.0;
      dragTorque_[p] = dragViscous_[p] = 0.0;
    }
    setNominal(nominal);
    return e;
  }
  // The friction every pulley has without a fault (a tunable coefficient changed it on all pairs):
  // the next applyAt sets the faulted pulleys again.
  void setNominal(const FrictionParameters& nominal) {
    nominal_ = nominal;
    for (int p = 0; p < NP; ++p) mu_[p] = nominal.frictionCoefficient;
  }

  template <class Drive>
  ParameterError applyAt(Drive& drive, double t) {
    if (schedule_.hasKind(InjectedFaultKind::kBeltStiffness)) {
      const double EA = nominalEA_ * schedule_.axialStiffnessFactor(t);
      if (EA != EA_) {
        const ParameterError e = drive.setAxialStiffness(EA);
        if (!e.ok()) return e;
        EA_ = EA;
      }
    }
    if (schedule_.hasKind(InjectedFaultKind::kTensionerSpring)) {
      for (int p = 0; p < pulleyCount_; ++p) {
        const double factor = schedule_.armStiffnessFactor(p, t);
        if (factor == armFactor_[p]) continue;
        const ParameterError e = drive.setArmStiffnessFactor(p, factor);
        if (!e.ok()) return e;
        armFactor_[p] = factor;
      }
    }
    if (schedule_.hasKind(InjectedFaultKind::kBearingDrag)) {
      for (int p = 0; p < pulleyCount_; ++p) {
        double torque = 0.0, viscous = 0.0;
        schedule_.bearingDrag(p, t, torque, viscous);
        if (torque == dragTorque_[p] && viscous == dragViscous_[p]) continue;
        const ParameterError e = drive.setBearingDrag(p, torque, viscous);
        if (!e.ok()) return e;
        dragTorque_[p] = torque;
        dragViscous_[p] = viscous;
      }
    }
    if (!schedule_.hasKind(InjectedFaultKind::kFriction)) return ParameterError::success();
    for (int p = 0; p < pulleyCount_; ++p) {
      const double mu = schedule_.frictionCoefficient(p, t, nominal_.frictionCoefficient);
      if (mu == mu_[p]) continue;
      FrictionParameters changed = nominal_;
      changed.frictionCoefficient = mu;
      const ParameterError e = drive.setFriction(changed, p);
      if (!e.ok()) return e;
      mu_[p] = mu;
    }
    return ParameterError::success();
  }

  // The friction coefficient pulley p has now, and the belt's EA (N).
  double frictionCoefficient(int p) const { return mu_[p]; }
  double axialStiffness() const { return EA_; }
  // Tunes table k from time t on (InjectedFaultSchedule::tune): the next applyAt follows it.
  ParameterError tune(int k, double t, bool active, double value) { return schedule_.tune(k, t, active, value); }
  // Table k's quantity at time t (InjectedFaultSchedule::currentValue).
  double currentValue(int k, double t) const {
    return schedule_.currentValue(k, t, nominal_.frictionCoefficient);
  }
  // Pulley p's spring-rate factor (a tensioner) and bearing drag now: N m and N m s/rad.
  double armStiffnessFactor(int p) const { return armFactor_[p]; }
  double bearingDragTorque(int p) const { return dragTorque_[p]; }
  double bearingDragViscous(int p) const { return dragViscous_[p]; }
  // Bit k set: table k's level at t is above 0.
  std::uint8_t activeMask(double t) const {
    std::uint8_t mask = 0;
    for (int k = 0; k < schedule_.count; ++k)
      if (schedule_.fault[k].level(t) > 0.0) mask = static_cast<std::uint8_t>(mask | (1u << k));
    return mask;
  }
  const InjectedFaultSchedule& schedule() const { return schedule_; }

 private:
  InjectedFaultSchedule schedule_;
  FrictionParameters nominal_;
  int pulleyCount_ = 0;
  double mu_[NP] = {};
  double nominalEA_ = 0.0, EA_ = 0.0;
  double armFactor_[NP] = {};
  double dragTorque_[NP] = {}, dragViscous_[NP] = {};
};

}  // namespace beltsim
