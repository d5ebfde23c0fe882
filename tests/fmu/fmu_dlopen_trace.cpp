// The FMU library loaded as an importer loads it (dlopen, every fmi3* symbol resolved), run over
// the first second of the paper's scenario next to the firmware plant (BeltDrivePlant with the same
// configuration, stepped directly). Every output of every step must be bit-identical; the hash of
// the trace is a BITS record, so the host and aarch64 libraries are compared bit for bit too
// (test fmu_library_bits_host_equals_aarch64). Runs on every Linux preset, under ASan/UBSan in
// host-debug and under qemu-aarch64 in aarch64.
// Built with BELTSIM_FMU_LIBRARY (path of the library as packaged) and BELTSIM_FMU_PC_CONFIG.
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "fmi3_api.h"
#include "fmu_loaded_library.hpp"
#include "fmu_build.hpp"
#include "paper_scenario.hpp"

namespace {

constexpr const char* kFmi3Functions[] = {
    "GetVersion", "SetDebugLogging", "InstantiateModelExchange", "InstantiateCoSimulation",
    "InstantiateScheduledExecution", "FreeInstance", "EnterInitializationMode", "ExitInitializationMode",
    "EnterEventMode", "Terminate", "Reset", "GetFloat32", "GetFloat64", "GetInt8", "GetUInt8", "GetInt16",
    "GetUInt16", "GetInt32", "GetUInt32", "GetInt64", "GetUInt64", "GetBoolean", "GetString", "GetBinary",
    "GetClock", "SetFloat32", "SetFloat64", "SetInt8", "SetUInt8", "SetInt16", "SetUInt16", "SetInt32",
    "SetUInt32", "SetInt64", "SetUInt64", "SetBoolean", "SetString", "SetBinary", "SetClock",
    "GetNumberOfVariableDependencies", "GetVariableDependencies", "GetFMUState", "SetFMUState", "FreeFMUState",
    "SerializedFMUStateSize", "SerializeFMUState", "DeserializeFMUState", "GetDirectionalDerivative",
    "GetAdjointDerivative", "EnterConfigurationMode", "ExitConfigurationMode", "GetIntervalDecimal",
    "GetIntervalFraction", "GetShiftDecimal", "GetShiftFraction", "SetIntervalDecimal", "SetIntervalFraction",
    "SetShiftDecimal", "SetShiftFraction", "EvaluateDiscreteStates", "UpdateDiscreteStates",
    "EnterContinuousTimeMode", "CompletedIntegratorStep", "SetTime", "SetContinuousStates",
    "GetContinuousStateDerivatives", "GetEventIndicators", "GetContinuousStates", "GetNominalsOfContinuousStates",
    "GetNumberOfEventIndicators", "GetNumberOfContinuousStates", "EnterStepMode", "GetOutputDerivatives", "DoStep",
    "ActivateModelPartition"};

beltsim::fmu::Model::Plant g_plant;  // static storage: the FMU's plant (its elements and mesh)

}  // namespace

int main() {
  if (!beltsim::test::loadFmuLibrary(BELTSIM_FMU_LIBRARY)) return 1;
  int missing = 0;
  for (const char* name : kFmi3Functions)
    if (beltsim::test::resolveFmi3<void>(name) == nullptr) {
      std::printf("FAIL fmi3%s is not exported\n", name);
      ++missing;
    }
  if (missing != 0) return 1;

  const beltsim::test::CoSimulation calls;

  using namespace beltsim;
  const PlantConfig config = fmu::kBuild.plantConfig(MotorMode::kSpeed);
  if (!g_plant.setUp(config).ok() || (g_plant.start(), !g_plant.started())) return 1;
  fmi3Instance fmu = calls.start("trace", fmu::kInstantiationToken);
  if (fmu == nullptr) return 1;

  const fmi3ValueReference inputs[] = {fmu::kMotorSpeedCommand, fmu::kLoadTorque};
  const fmi3ValueReference outputs[] = {fmu::kMotorPulleyAngle, fmu::kLoadPulleyAngle, fmu::kMotorPulleySpeed,
                                        fmu::kLoadPulleySpeed, fmu::kDriveTorque, fmu::kBeltTorqueOnLoad,
                                        fmu::kTightSpanForce, fmu::kSlackSpanForce, fmu::kResidualNorm,
                                        fmu::kPnsError};
  constexpr int kOutputs = sizeof outputs / sizeof outputs[0];
  const double h = config.stepSize;
  const int steps = static_cast<int>(1.0 / h + 0.5);
  std::uint64_t hash = 14695981039346656037ull;
  for (int k = 1; k <= steps; ++k) {
    const PlantCommand command = test::paperCommand(k * h);
    const double u[2] = {command.input[0], command.input[1]};
    const PlantOutput o = g_plant.step(command);
    double got[kOutputs];
    bool flags[3];
    double reached = 0.0;
    if (calls.setFloat64(fmu, inputs, 2, u, 2) != fmi3OK ||
        calls.doStep(fmu, (k - 1) * h, h, false, &flags[0], &flags[1], &flags[2], &reached) != fmi3OK ||
        calls.getFloat64(fmu, outputs, kOutputs, got, kOutputs) != fmi3OK) {
      std::printf("FAIL fmi3 call at step %d\n", k);
      return 1;
    }
    const double expected[kOutputs] = {o.angle[0],    o.angle[1],
                                       o.speed[0],    o.speed[1],
                                       o.torque[0], g_plant.drive().beltTorque(1),
                                       o.spanForce[0], o.spanForce[1],
                                       o.residualNorm, o.pnsError};
    if (std::memcmp(got, expected, sizeof got) != 0) {
      for (int i = 0; i < kOutputs; ++i)
        if (std::memcmp(&got[i], &expected[i], sizeof(double)) != 0)
          std::printf("FAIL step %d output %u: FMU %.17g, plant %.17g\n", k, outputs[i], got[i], expected[i]);
      return 1;
    }
    const unsigned char* bytes = reinterpret_cast<const unsigned char*>(got);
    for (std::size_t i = 0; i < sizeof got; ++i) hash = (hash ^ bytes[i]) * 1099511628211ull;
  }
  calls.freeInstance(fmu);
  std::printf("%d steps: FMU == firmware plant, bit for bit\n", steps);
  std::printf("BITS fmu_library_trace_hash_%s %016llx\n", fmu::kBuild.modelIdentifier,
              static_cast<unsigned long long>(hash));
  return 0;
}
