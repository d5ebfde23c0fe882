// The FMU of a user's scenario (BELTSIM_FMU_SCENARIO; the host preset builds the accessory drive's)
// loaded as an importer loads it (dlopen, every fmi3* symbol resolved) and run next to the
// firmware plant built from the same file (BeltDrivePlant with fmuScenarioPlantConfig, stepped
// directly): a speed ramp on the speed-driven pulley, a torque reversal on the torque-driven one
// (the motor-generator of the accessory drive: generating -> boosting), load torques on the
// others. Every output of the variable table must equal the plant's own quantity, bit for bit, at
// every communication point (10 model steps each); the plant's quantities are read here from its
// own interface, not through the FMU's model code. The hash of the outputs is a BITS record: the
// host and aarch64 libraries are compared bit for bit (fmu_scenario_bits_host_equals_aarch64).
// Built with BELTSIM_FMU_LIBRARY (path of the library as packaged) and BELTSIM_FMU_PC_CONFIG=2.
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "fmi3_api.h"
#include "fmu_loaded_library.hpp"
#include "fmu_build.hpp"

namespace {

using namespace beltsim;
using fmu::Model;
constexpr int kPulleys = fw::kFmuScenarioPulleys;

Model::Plant g_plant;  // static storage

double ramp(double t, double t0, double t1, double from, double to) {
  if (t <= t0) return from;
  if (t >= t1) return to;
  return from + (to - from) * (t - t0) / (t1 - t0);
}

// The stimulus of pulley p at time t, by the kind of its input.
double stimulus(const PlantConfig& c, int p, double t) {
  switch (inputOf(c.pulley[p].kind)) {
    case PulleyInput::kSpeed: return ramp(t, 0.0, 0.03, 0.0, 20.0);  // rad/s
    case PulleyInput::kTorque: return ramp(t, 0.04, 0.055, -3.0, 3.0);  // N m: generating -> boosting
    case PulleyInput::kLoadTorque: return p % 2 == 0 ? ramp(t, 0.015, 0.025, 0.0, 2.0) : 0.0;  // N m
    default: return 0.0;
  }
}

// The plant's own value of an output reference (fmu_variables.hpp: pulley k 1000 k + slot, span k
// 900 + k).
bool expected(std::uint32_t ref, const PlantOutput& o, double& value) {
  if (ref > fmu::kSpanRefBase && ref <= fmu::kSpanRefBase + kPulleys) {
    value = o.spanForce[ref - fmu::kSpanRefBase - 1];
    return true;
  }
  const int p = static_cast<int>(ref / fmu::kPulleyRefBase) - 1;
  if (p < 0 || p >= kPulleys) return false;
  const Vector2 hub = g_plant.drive().hubForce(p);
  switch (ref % fmu::kPulleyRefBase) {
    case fmu::kSlotAngle: value = o.angle[p]; return true;
    case fmu::kSlotSpeed: value = o.speed[p]; return true;
    case fmu::kSlotTorque: value = o.torque[p]; return true;
    case fmu::kSlotHubForceX: value = hub(0); return true;
    case fmu::kSlotHubForceY: value = hub(1); return true;
    case fmu::kSlotArmAngle: value = o.armAngle[p]; return true;
    case fmu::kSlotArmTorque:
      value = g_plant.drive().armState(p, g_plant.positions(), g_plant.velocities()).torque;
      return true;
    case fmu::kSlotHubLoad: value = hub.norm(); return true;
    default: return false;
  }
}

}  // namespace

int main() {
  if (!beltsim::test::loadFmuLibrary(BELTSIM_FMU_LIBRARY)) return 1;
  const beltsim::test::CoSimulation calls;

  const PlantConfig config = Model::fileConfig();
  if (!g_plant.setUp(config).ok() || (g_plant.start(), !g_plant.started())) return 1;
  fmi3Instance fmu = calls.start("scenario", fmu::kInstantiationToken);
  if (fmu == nullptr) return 1;

  // The inputs and outputs of the table; the table's inputs are the pulleys' command slots.
  fmi3ValueReference inputs[kPulleys];
  int inputPulley[kPulleys];
  int nInputs = 0;
  fmi3ValueReference outputs[sizeof(fmu::kVariables) / sizeof(fmu::Variable)];
  int nOutputs = 0;
  for (const fmu::Variable& v : fmu::kVariables) {
    if (v.causality == fmu::Causality::kInput) {
      inputs[nInputs] = v.ref;
      inputPulley[nInputs++] = static_cast<int>(v.ref / fmu::kPulleyRefBase) - 1;
    } else if (v.causality == fmu::Causality::kOutput && v.type == fmu::VarType::kFloat64 && v.ref >= fmu::kSpanRefBase &&
               !(v.ref > fmu::kLoadCellRefBase && v.ref < fmu::kPulleyRefBase)) {
      // The plant's quantities; the emulated sensors' readings are test_fmu.py's (ScenarioFmu).
      outputs[nOutputs++] = v.ref;
    }
  }
  const double h = config.stepSize;
  constexpr int kStepsPerPoint = 10;
  const int points = static_cast<int>(0.06 / (kStepsPerPoint * h) + 0.5);  // 0.06 s
  int reversals = 0;
  double lastTorque = 0.0;
  std::uint64_t hash = 14695981039346656037ull;  // FNV-1a of every output at every point
  for (int k = 0; k < points; ++k) {
    const double t = k * kStepsPerPoint * h;
    PlantCommand command;
    double u[kPulleys];
    for (int p = 0; p < kPulleys; ++p) command.input[p] = stimulus(config, p, t);
    for (int i = 0; i < nInputs; ++i) u[i] = command.input[inputPulley[i]];
    PlantOutput o;
    for (int s = 0; s < kStepsPerPoint; ++s) o = g_plant.step(command);
    bool flags[3];
    double reached = 0.0;
    double got[sizeof outputs / sizeof outputs[0]];
    if (calls.setFloat64(fmu, inputs, nInputs, u, nInputs) != fmi3OK ||
        calls.doStep(fmu, t, kStepsPerPoint * h, false, &flags[0], &flags[1], &flags[2], &reached) != fmi3OK ||
        calls.getFloat64(fmu, outputs, nOutputs, got, nOutputs) != fmi3OK) {
      std::printf("FAIL fmi3 call at point %d\n", k);
      return 1;
    }
    for (int i = 0; i < nOutputs; ++i) {
      double want = 0.0;
      if (!expected(outputs[i], o, want)) {
        std::printf("FAIL output %u has no plant quantity in this test\n", outputs[i]);
        return 1;
      }
      if (std::memcmp(&got[i], &want, sizeof want) != 0) {
        std::printf("FAIL t = %.4f s output %u: FMU %.17g, plant %.17g\n", t, outputs[i], got[i], want);
        return 1;
      }
    }
    const unsigned char* bytes = reinterpret_cast<const unsigned char*>(got);
    for (std::size_t i = 0; i < nOutputs * sizeof(double); ++i) hash = (hash ^ bytes[i]) * 1099511628211ull;
    for (int p = 0; p < kPulleys; ++p)
      if (inputOf(config.pulley[p].kind) == PulleyInput::kTorque) {
        if (lastTorque < 0.0 && o.torque[p] > 0.0) ++reversals;
        lastTorque = o.torque[p];
      }
  }
  calls.freeInstance(fmu);
  std::printf("%d communication points of %d model steps, %d outputs each: FMU == firmware plant, bit for bit; "
              "torque reversals seen: %d\n",
              points, kStepsPerPoint, nOutputs, reversals);
  std::printf("BITS fmu_scenario_trace_hash_%s %016llx\n", fmu::kBuild.modelIdentifier,
              static_cast<unsigned long long>(hash));
  return reversals == 1 ? 0 : 1;
}
