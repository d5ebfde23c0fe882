// The FMU's variables: one table per kind of FMU that both the library (value references, types,
// which calls may set what) and the description writer (modelDescription.xml) read, so the two
// cannot disagree. Value references are stable across releases; new variables get new numbers.
// Every FMU has the common variables below (time, friction, the fault limit, the build's
// constants and the health outputs, same references); the product FMUs (the paper's two-pulley
// drive) add the table kPaperDriveVariables, an FMU built from a scenario the per-pulley table of
// fmu_scenario_model.hpp.
#pragma once
#include <cstddef>
#include <cstdint>

namespace beltsim::fmu {

enum class VarType : std::uint8_t { kFloat64, kInt32, kBoolean };
enum class Causality : std::uint8_t { kIndependent, kInput, kParameter, kOutput, kLocal };
enum class Variability : std::uint8_t { kConstant, kFixed, kTunable, kDiscrete, kContinuous };

// Value references (FMI: fmi3ValueReference).
enum Ref : std::uint32_t {
  kTime = 0,
  // Inputs, held between communication points; checked on every fmi3Set call.
  kMotorSpeedCommand = 1,   // rad/s, used when motor_mode = 1
  kMotorTorqueCommand = 2,  // N m, used when motor_mode = 2
  kLoadTorque = 3,          // N m, braking torque on the load pulley
  // Parameters.
  kMotorMode = 10,           // fixed: 1 speed-driven, 2 torque-driven
  kMotorPulleyInertia = 11,  // fixed, kg m^2
  kLoadPulleyInertia = 12,   // fixed, kg m^2
  kFrictionCoefficient = 13, // tunable: Coulomb coefficient of belt on both pulleys
  kLoadDamping = 14,         // tunable, N m s/rad: viscous damper on the load pulley
  kMaxConsecutiveNonConverged = 15,  // fixed: fault after this many flagged steps in a row (0: never)
  // Structural constants of the build.
  kElementCount = 20,
  kInternalStepSize = 21,
  kPulleyRadius = 22,
  kCentreDistance = 23,
  // Outputs: physics.
  kMotorPulleyAngle = 30,
  kLoadPulleyAngle = 31,
  kMotorPulleySpeed = 32,
  kLoadPulleySpeed = 33,
  kDriveTorque = 34,
  kBeltTorqueOnLoad = 35,
  kTightSpanForce = 36,
  kSlackSpanForce = 37,
  // Outputs: health of the last model step.
  kConverged = 40,
  kNewtonIterations = 41,
  kPnsIterations = 42,
  kFaultCode = 43,
  kResidualNorm = 44,
  kPnsError = 45,
  kRejectedInputs = 46,
  kNonConvergedSteps = 47,
};

// References of an FMU built from a scenario (fmu_scenario_model.hpp): pulley k (1-based) has
// pulleyRef(k, slot), span k has kSpanRefBase + k and its load cell kLoadCellRefBase + k.
constexpr std::uint32_t kPulleyRefBase = 1000;
constexpr std::uint32_t kSpanRefBase = 900;
constexpr std::uint32_t kLoadCellRefBase = 920;  // span k's load cell: kLoadCellRefBase + k
enum PulleySlot : std::uint32_t {
  kSlotCommand = 1,    // input: speed or torque command, or braking load torque (by the pulley's kind)
  kSlotInertia = 2,    // fixed parameter, kg m^2
  kSlotDamping = 3,    // tunable parameter, N m s/rad (pulleys that take a load torque)
  kSlotAngle = 10,     // outputs
  kSlotSpeed = 11,
  kSlotTorque = 12,
  kSlotHubForceX = 13,
  kSlotHubForceY = 14,
  kSlotEncoder = 15,   // the emulated encoder's count (Int32)
  kSlotArmAngle = 20,  // tensioner pulleys only
  kSlotArmTorque = 21,
  kSlotHubLoad = 22,
};
constexpr std::uint32_t pulleyRef(int k, PulleySlot slot) { return kPulleyRefBase * static_cast<std::uint32_t>(k) + slot; }
// Injected fault table k (1-based, the scenario's [[fault]] tables in file order):
// faultRef(k, slot) = kFaultRefBase + 10 k + slot.
constexpr std::uint32_t kFaultRefBase = 800;
enum FaultSlot : std::uint32_t {
  kFaultActive = 1,        // Boolean tunable parameter: the table acts as scheduled (true) or not
  kFaultValue = 2,         // tunable parameter: the table's value (kinds that take one)
  kFaultCurrentValue = 3,  // output: the quantity the table changes, now
};
constexpr std::uint32_t faultRef(int k, FaultSlot slot) { return kFaultRefBase + 10u * static_cast<std::uint32_t>(k) + slot; }

struct Variable {
  std::uint32_t ref;
  const char* name;
  VarType type;
  Causality causality;
  Variability variability;
  const char* unit;         // "" for none
  double start;             // inputs, parameters, constants (ignored otherwise)
  double min, max;          // inputs and parameters: admissible range (checked by the setters)
  const char* description;
};

constexpr double kNoLimit = 0.0;  // min == max == kNoLimit: no range

// Constants and ranges the setters check. The input ranges are PlantLimits' (plant.hpp).
// Common to every FMU.
constexpr Variable kTimeVariable{kTime, "time", VarType::kFloat64, Causality::kIndependent, Variability::kContinuous, "s", 0, 0, 0,
     "Simulation time"};
constexpr Variable kFrictionCoefficientVariable{kFrictionCoefficient, "friction_coefficient", VarType::kFloat64, Causality::kParameter, Variability::kTunable,
     "", 0.5, 0.0, 2.0, "Coulomb friction coefficient of the belt on every pulley; a change applies from the next model step"};
constexpr Variable kMaxConsecutiveNonConvergedVariable{kMaxConsecutiveNonConverged, "max_consecutive_non_converged", VarType::kInt32, Causality::kParameter,
     Variability::kFixed, "", 10, 0, 1000000,
     "Non-converged model steps in a row that make a fault (fmi3Error); 10 as the firmware loop, 0 = never"};
constexpr Variable kElementCountVariable{kElementCount, "element_count", VarType::kInt32, Causality::kLocal, Variability::kConstant, "", 0, 0, 0,
     "ANCF cable elements of the belt (fixed by the build)"};
constexpr Variable kInternalStepSizeVariable{kInternalStepSize, "internal_step_size", VarType::kFloat64, Causality::kLocal, Variability::kConstant, "s", 0,
     0, 0, "Fixed model step (fixed by the build; = fixedInternalStepSize)"};
constexpr Variable kConvergedVariable{kConverged, "converged", VarType::kBoolean, Causality::kOutput, Variability::kDiscrete, "", 0, 0, 0,
     "Every model step of the last communication step met the Newton and post-Newton tolerances"};
constexpr Variable kNewtonIterationsVariable{kNewtonIterations, "newton_iterations", VarType::kInt32, Causality::kOutput, Variability::kDiscrete, "", 0, 0,
     0, "Newton iterations of the last model step"};
constexpr Variable kPnsIterationsVariable{kPnsIterations, "pns_iterations", VarType::kInt32, Causality::kOutput, Variability::kDiscrete, "", 0, 0, 0,
     "Post-Newton passes of the last model step"};
constexpr Variable kFaultCodeVariable{kFaultCode, "fault_code", VarType::kInt32, Causality::kOutput, Variability::kDiscrete, "", 0, 0, 0,
     "The firmware's fault codes: 0 none, 1 start-up (static equilibrium) failed, 2 model fault (non-finite or singular), 3 implausible state, 4 too many non-converged steps in a row"};
constexpr Variable kResidualNormVariable{kResidualNorm, "residual_norm", VarType::kFloat64, Causality::kOutput, Variability::kDiscrete, "N", 0, 0, 0,
     "Norm of the last model step's last Newton residual"};
constexpr Variable kPnsErrorVariable{kPnsError, "pns_error", VarType::kFloat64, Causality::kOutput, Variability::kDiscrete, "N", 0, 0, 0,
     "Post-Newton error e_PNS of the last model step's last pass"};
constexpr Variable kRejectedInputsVariable{kRejectedInputs, "rejected_inputs", VarType::kInt32, Causality::kOutput, Variability::kDiscrete, "", 0, 0, 0,
     "Set calls refused since instantiation (NaN, Inf or out of range; the previous value was kept)"};
constexpr Variable kNonConvergedStepsVariable{kNonConvergedSteps, "non_converged_steps", VarType::kInt32, Causality::kOutput, Variability::kDiscrete, "", 0,
     0, 0, "Model steps flagged as not converged since initialization"};

// The product FMUs: the paper's two-pulley drive (motor P1, load P2).
constexpr Variable kPaperDriveVariables[] = {
    kTimeVariable,
    {kMotorSpeedCommand, "motor_speed_command", VarType::kFloat64, Causality::kInput, Variability::kContinuous,
     "rad/s", 0.0, -630.0, 630.0, "Angular velocity command of the motor pulley P1 (motor_mode = 1), counter-clockwise positive"},
    {kMotorTorqueCommand, "motor_torque_command", VarType::kFloat64, Causality::kInput, Variability::kContinuous,
     "N.m", 0.0, -150.0, 150.0, "Motor torque on the motor pulley P1 (motor_mode = 2), counter-clockwise positive"},
    {kLoadTorque, "load_torque", VarType::kFloat64, Causality::kInput, Variability::kContinuous, "N.m", 0.0, -150.0,
     150.0, "Braking torque on the load pulley P2 (the applied torque is its negative)"},
    {kMotorMode, "motor_mode", VarType::kInt32, Causality::kParameter, Variability::kFixed, "", 1, 1, 2,
     "How P1 is driven: 1 = speed command (the drive supplies the torque), 2 = torque command"},
    {kMotorPulleyInertia, "motor_pulley_inertia", VarType::kFloat64, Causality::kParameter, Variability::kFixed,
     "kg.m2", 0.25, 1e-4, 100.0, "Moment of inertia of P1 (with the motor's in torque mode)"},
    {kLoadPulleyInertia, "load_pulley_inertia", VarType::kFloat64, Causality::kParameter, Variability::kFixed,
     "kg.m2", 0.25, 1e-4, 100.0, "Moment of inertia of P2 and its load"},
    kFrictionCoefficientVariable,
    {kLoadDamping, "load_damping", VarType::kFloat64, Causality::kParameter, Variability::kTunable, "N.m.s/rad",
     2.0, 0.0, 1000.0, "Viscous damper on P2; a change applies from the next model step"},
    kMaxConsecutiveNonConvergedVariable,
    kElementCountVariable,
    kInternalStepSizeVariable,
    {kPulleyRadius, "pulley_radius", VarType::kFloat64, Causality::kLocal, Variability::kConstant, "m", 0, 0, 0,
     "Contact radius of both pulleys (fixed by the build)"},
    {kCentreDistance, "centre_distance", VarType::kFloat64, Causality::kLocal, Variability::kConstant, "m", 0, 0, 0,
     "Distance of the pulley centres (fixed by the build)"},
    {kMotorPulleyAngle, "motor_pulley_angle", VarType::kFloat64, Causality::kOutput, Variability::kContinuous,
     "rad", 0, 0, 0, "Angle of P1 (unwrapped)"},
    {kLoadPulleyAngle, "load_pulley_angle", VarType::kFloat64, Causality::kOutput, Variability::kContinuous, "rad",
     0, 0, 0, "Angle of P2 (unwrapped)"},
    {kMotorPulleySpeed, "motor_pulley_speed", VarType::kFloat64, Causality::kOutput, Variability::kContinuous,
     "rad/s", 0, 0, 0, "Angular velocity of P1"},
    {kLoadPulleySpeed, "load_pulley_speed", VarType::kFloat64, Causality::kOutput, Variability::kContinuous,
     "rad/s", 0, 0, 0, "Angular velocity of P2"},
    {kDriveTorque, "drive_torque", VarType::kFloat64, Causality::kOutput, Variability::kContinuous, "N.m", 0, 0, 0,
     "Torque the drive applies to P1: the reaction of the speed command (motor_mode = 1) or the torque command"},
    {kBeltTorqueOnLoad, "belt_torque_on_load", VarType::kFloat64, Causality::kOutput, Variability::kContinuous,
     "N.m", 0, 0, 0, "Torque of the belt's contact forces on P2, counter-clockwise positive"},
    {kTightSpanForce, "tight_span_force", VarType::kFloat64, Causality::kOutput, Variability::kContinuous, "N", 0,
     0, 0, "Axial force in the middle of span 1 (P1 -> P2; the tight span when P1 drives)"},
    {kSlackSpanForce, "slack_span_force", VarType::kFloat64, Causality::kOutput, Variability::kContinuous, "N", 0,
     0, 0, "Axial force in the middle of span 2 (P2 -> P1; the slack span when P1 drives)"},
    kConvergedVariable,
    kNewtonIterationsVariable,
    kPnsIterationsVariable,
    kFaultCodeVariable,
    kResidualNormVariable,
    kPnsErrorVariable,
    kRejectedInputsVariable,
    kNonConvergedStepsVariable,
};

// The entry of `ref` in a table, or nullptr.
template <std::size_t N>
const Variable* findIn(const Variable (&table)[N], std::uint32_t ref) {
  for (std::size_t i = 0; i < N; ++i)
    if (table[i].ref == ref) return &table[i];
  return nullptr;
}

}  // namespace beltsim::fmu
