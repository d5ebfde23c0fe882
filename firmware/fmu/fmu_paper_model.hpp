// The product FMUs' model: the paper's two-pulley drive (motor P1, load P2) of a firmware
// configuration (beltsim_mcu.fmu, beltsim_pc.fmu). P1 is speed- or torque-driven as the fixed
// parameter motor_mode chooses (both commands exist; the mode picks one), P2 carries a braking load
// torque and a tunable damper. Variables: kPaperDriveVariables (fmu_variables.hpp).
#pragma once
#include <cstdint>

#include "fmu_instance.hpp"
#include "fmu_variables.hpp"
#include "beltsim/system/plant.hpp"

namespace beltsim::fmu {

template <int NE, PlantMesh Mesh>
struct PaperDriveModel {
  static constexpr int kElements = NE;
  using Plant = BeltDrivePlant<NE, 2, Mesh>;
  static constexpr const Variable (&kVariables)[sizeof(kPaperDriveVariables) / sizeof(Variable)] =
      kPaperDriveVariables;

  struct Values {
    double input[3] = {};  // motor speed command, motor torque command, load torque
    std::int32_t motorMode = 1;
    double inertia[2] = {};
    double loadDamping = 0.0;
  };

  static const Variable& variableOf(std::uint32_t ref) { return *findIn(kVariables, ref); }

  static void reset(Values& v) {
    v = Values{};
    v.motorMode = static_cast<std::int32_t>(variableOf(kMotorMode).start);
    v.inertia[0] = variableOf(kMotorPulleyInertia).start;
    v.inertia[1] = variableOf(kLoadPulleyInertia).start;
    v.loadDamping = variableOf(kLoadDamping).start;
  }

  static PlantConfig configure(const Values& v, const BuildConfiguration& build) {
    PlantConfig config = build.plantConfig(v.motorMode == 2 ? MotorMode::kTorque : MotorMode::kSpeed);
    config.pulley[0].inertia = v.inertia[0];
    config.pulley[1].inertia = v.inertia[1];
    config.pulley[1].rotationalDamping = v.loadDamping;
    return config;
  }

  static PlantCommand command(const Values& v) {
    PlantCommand c;
    c.input[0] = v.motorMode == 2 ? v.input[1] : v.input[0];
    c.input[1] = v.input[2];  // pulley 2: braking load torque
    return c;
  }

  // True when a tunable changed (applied before the next model step).
  static bool assign(Values& v, std::uint32_t ref, double value) {
    switch (ref) {
      case kMotorSpeedCommand: v.input[0] = value; return false;
      case kMotorTorqueCommand: v.input[1] = value; return false;
      case kLoadTorque: v.input[2] = value; return false;
      case kMotorMode: v.motorMode = static_cast<std::int32_t>(value); return false;
      case kMotorPulleyInertia: v.inertia[0] = value; return false;
      case kLoadPulleyInertia: v.inertia[1] = value; return false;
      case kLoadDamping: v.loadDamping = value; return true;
      default: return false;
    }
  }

  static void applyTunables(Plant& plant, const Values& v) {
    (void)plant.setLoadDamping(v.loadDamping);  // range-checked by the setter
  }
  // Every value in a variable's range is one the plant takes; the product FMUs have no injected
  // fault tables to tune.
  static bool admits(std::uint32_t, double) { return true; }
  template <class Sim>
  static void tuneFaults(Sim&) {}

  // The build's constants beyond the common ones.
  static double constant(const BuildConfiguration& build, std::uint32_t ref) {
    const PlantConfig c = build.plantConfig(MotorMode::kSpeed);
    if (ref == kPulleyRadius) return c.pulley[0].radius;
    if (ref == kCentreDistance) return (c.pulley[1].centre - c.pulley[0].centre).norm();
    return 0.0;
  }

  template <class Sim>
  static double value(const Sim& s, const BuildConfiguration& build, std::uint32_t ref) {
    const Values& v = s.values;
    const PlantOutput& o = s.last;
    switch (ref) {
      case kMotorSpeedCommand: return v.input[0];
      case kMotorTorqueCommand: return v.input[1];
      case kLoadTorque: return v.input[2];
      case kMotorMode: return v.motorMode;
      case kMotorPulleyInertia: return v.inertia[0];
      case kLoadPulleyInertia: return v.inertia[1];
      case kLoadDamping: return v.loadDamping;
      case kPulleyRadius:
      case kCentreDistance: return constant(build, ref);
      case kMotorPulleyAngle: return o.angle[0];
      case kLoadPulleyAngle: return o.angle[1];
      case kMotorPulleySpeed: return o.speed[0];
      case kLoadPulleySpeed: return o.speed[1];
      case kDriveTorque: return o.torque[0];
      case kBeltTorqueOnLoad: return s.plantReady ? s.plant.drive().beltTorque(1) : 0.0;
      case kTightSpanForce: return o.spanForce[0];
      case kSlackSpanForce: return o.spanForce[1];
      default: return 0.0;
    }
  }
};

}  // namespace beltsim::fmu
