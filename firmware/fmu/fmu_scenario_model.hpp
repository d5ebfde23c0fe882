// The model of an FMU built from a user's scenario (CMake option BELTSIM_FMU_SCENARIO;
// docs/fmu.md, *An FMU of your drive*): the closed belt drive of 2 to 8 pulleys that
// scripts/scenario_to_fmu.py generated into fmu_scenario_plant_config.hpp (the firmware
// generator's PlantConfig, the file's element count) and fmu_scenario_variables.hpp (the variable table, names from the pulleys' names).
//
// Value references (stable for a given scenario; scenario_to_fmu.py writes the same numbers):
//   the common variables of fmu_variables.hpp (time 0, friction_coefficient 13, ...);
//   pulley k (1-based, belt order): 1000 k + the PulleySlot below;
//   span k (from pulley k to pulley k+1, the last back to pulley 1): 900 + k, its load cell 920 + k;
//   injected fault table k (1-based, file order): 800 + 10 k + the FaultSlot (active, value,
//   current_value), tuned from the next model step (InjectedFault::tune: each change ramps).
// Every pulley's input means what its kind fixes (PulleyInput): a speed or torque command, or a
// braking load torque; a fixed pulley has none. The kinds are the file's; there is no mode switch.
#pragma once
#include <cstdint>

#include "fmu_instance.hpp"
#include "fmu_scenario_plant_config.hpp"
#include "fmu_scenario_variables.hpp"
#include "fmu_variables.hpp"
#include "beltsim/system/plant.hpp"

namespace beltsim::fmu {

template <int NE, int NP>
struct ScenarioModel {
  static constexpr int kElements = NE;
  using Plant = BeltDrivePlant<NE, NP, fw::kFmuScenarioMesh>;
  static constexpr const Variable (&kVariables)[sizeof(kScenarioVariables) / sizeof(Variable)] =
      kScenarioVariables;

  struct Values {
    double input[NP] = {};    // per pulley: the command its kind takes (0 for a fixed pulley)
    double inertia[NP] = {};  // kg m^2
    double damping[NP] = {};  // N m s/rad (pulleys that take a load torque)
    bool faultActive[kMaxInjectedFaults] = {};  // fault<k>.active
    double faultValue[kMaxInjectedFaults] = {};  // fault<k>.value (the file's value at the start)
  };

  static PlantConfig fileConfig() { return fw::fmuScenarioPlantConfig(fw::kFmuScenarioMotorMode); }

  static bool hasDamper(const PlantConfig& c, int p) { return inputOf(c.pulley[p].kind) == PulleyInput::kLoadTorque; }

  static void reset(Values& v) {
    v = Values{};
    const PlantConfig c = fileConfig();
    for (int p = 0; p < NP; ++p) {
      v.inertia[p] = c.pulley[p].inertia;
      v.damping[p] = c.pulley[p].rotationalDamping;
    }
    for (int k = 0; k < c.faults.count; ++k) {
      v.faultActive[k] = !c.faults.fault[k].live;  // a live table waits to be started (here: by the importer)
      v.faultValue[k] = c.faults.fault[k].value;
    }
  }

  static PlantConfig configure(const Values& v, const BuildConfiguration&) {
    PlantConfig c = fileConfig();
    for (int p = 0; p < NP; ++p) {
      c.pulley[p].inertia = v.inertia[p];
      c.pulley[p].rotationalDamping = v.damping[p];
    }
    // Fault parameters set before initialization: the value from the start, an inactive table off
    // from the start (its gate at 0 from t = 0: nothing to ramp from). In the FMU the importer
    // starts and clears every table, so none waits for a bench (a live one set active acts as
    // scheduled).
    for (int k = 0; k < c.faults.count; ++k) {
      InjectedFault& f = c.faults.fault[k];
      f.value = v.faultValue[k];
      f.live = false;
      if (!v.faultActive[k]) f.startCleared();
    }
    return c;
  }

  static PlantCommand command(const Values& v) {
    PlantCommand c;
    for (int p = 0; p < NP; ++p) c.input[p] = v.input[p];
    return c;
  }

  // Pulley index and slot of a pulley's reference; false for any other reference.
  static bool decode(std::uint32_t ref, int& p, std::uint32_t& slot) {
    if (ref < kPulleyRefBase || ref >= kPulleyRefBase * (NP + 1)) return false;
    p = static_cast<int>(ref / kPulleyRefBase) - 1;
    slot = ref % kPulleyRefBase;
    return true;
  }

  // Fault table and slot of a fault reference; false for any other reference.
  static bool decodeFault(std::uint32_t ref, int& k, std::uint32_t& slot) {
    if (ref <= kFaultRefBase || ref >= kFaultRefBase + 10u * (kMaxInjectedFaults + 1)) return false;
    k = static_cast<int>((ref - kFaultRefBase) / 10u) - 1;
    slot = (ref - kFaultRefBase) % 10u;
    return k >= 0;
  }

  // A fault's value must be one its kind takes (above 0 for the fractions and the noises, an
  // encoder offset a whole count; the closed ranges are the variable's); every other value in
  // range is.
  static bool admits(std::uint32_t ref, double value) {
    int k = 0;
    std::uint32_t slot = 0;
    if (!decodeFault(ref, k, slot) || slot != kFaultValue) return true;
    const PlantConfig c = fileConfig();
    return k < c.faults.count && InjectedFaultSchedule::valueFits(c.faults.fault[k].kind, value);
  }

  // True when a tunable changed. Only references of the table reach it (settable()).
  static bool assign(Values& v, std::uint32_t ref, double value) {
    int k = 0;
    std::uint32_t faultSlot = 0;
    if (decodeFault(ref, k, faultSlot)) {
      if (faultSlot == kFaultActive) v.faultActive[k] = value != 0.0;
      if (faultSlot == kFaultValue) v.faultValue[k] = value;
      return true;
    }
    int p = 0;
    std::uint32_t slot = 0;
    if (!decode(ref, p, slot)) return false;
    switch (slot) {
      case kSlotCommand: v.input[p] = value; return false;
      case kSlotInertia: v.inertia[p] = value; return false;
      case kSlotDamping: v.damping[p] = value; return true;
      default: return false;
    }
  }

  static void applyTunables(Plant& plant, const Values& v) {
    const PlantConfig c = fileConfig();
    for (int p = 0; p < NP; ++p)
      if (hasDamper(c, p)) (void)plant.setPulleyDamping(p, v.damping[p]);  // range-checked by the setter
  }

  // The fault parameters from the next model step: the plant's and the sensors' copies of the
  // schedule alike (a table whose parameters did not change is not touched).
  template <class Sim>
  static void tuneFaults(Sim& s) {
    const PlantConfig c = fileConfig();
    for (int k = 0; k < c.faults.count; ++k) {
      // Checked by the setters (range and admits()): neither can refuse.
      (void)s.plant.tuneInjectedFault(k, s.values.faultActive[k], s.values.faultValue[k]);
      (void)s.sensors.tune(k, s.last.time, s.values.faultActive[k], s.values.faultValue[k]);
    }
  }

  static double constant(const BuildConfiguration&, std::uint32_t) { return 0.0; }  // none beyond the common

  template <class Sim>
  static double value(const Sim& s, const BuildConfiguration&, std::uint32_t ref) {
    const PlantOutput& o = s.last;
    if (ref > kSpanRefBase && ref <= kSpanRefBase + NP) return o.spanForce[ref - kSpanRefBase - 1];
    if (ref > kLoadCellRefBase && ref <= kLoadCellRefBase + NP) return s.sensors.loadCell(static_cast<int>(ref - kLoadCellRefBase - 1));
    int k = 0;
    std::uint32_t faultSlot = 0;
    if (decodeFault(ref, k, faultSlot)) {
      if (faultSlot == kFaultActive) return s.values.faultActive[k] ? 1.0 : 0.0;
      if (faultSlot == kFaultValue) return s.values.faultValue[k];
      return s.plantReady ? s.plant.injectedFaultValue(k) : 0.0;
    }
    int p = 0;
    std::uint32_t slot = 0;
    if (!decode(ref, p, slot)) return 0.0;
    const bool live = s.plantReady;  // the drive's own quantities exist once the plant is set up
    switch (slot) {
      case kSlotCommand: return s.values.input[p];
      case kSlotInertia: return s.values.inertia[p];
      case kSlotDamping: return s.values.damping[p];
      case kSlotAngle: return o.angle[p];
      case kSlotSpeed: return o.speed[p];
      case kSlotTorque: return o.torque[p];
      case kSlotHubForceX: return live ? s.plant.drive().hubForce(p)(0) : 0.0;
      case kSlotHubForceY: return live ? s.plant.drive().hubForce(p)(1) : 0.0;
      case kSlotArmAngle: return o.armAngle[p];
      case kSlotArmTorque:
        return live ? s.plant.drive().armState(p, s.plant.positions(), s.plant.velocities()).torque : 0.0;
      case kSlotHubLoad: return live ? s.plant.drive().hubForce(p).norm() : 0.0;
      case kSlotEncoder: return s.sensors.encoderCount(p);
      default: return 0.0;
    }
  }
};

}  // namespace beltsim::fmu
