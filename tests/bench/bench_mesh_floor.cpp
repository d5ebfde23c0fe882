// How coarse can the microcontroller plant be? (issue 6, instruction budget; a benchmark, not a test)
//
// Runs the microcontroller drive on the material mesh (host_sim/scenarios/hil_belt_drive.toml, as the
// firmware's microcontroller configuration was until it moved to the eulerian mesh: 1 ms step, a
// tenth of the paper's contact and bristle stiffness) with 8 to 24 elements through the paper's
// scenario (paper [P] Sect. 4.3: P1 speed ramp 0 -> 12 rad/s over 0.05..0.6 s, load torque 0 ->
// 25 N m smoothly over 1.0..1.5 s, end 2.45 s) and prints the mean of the last 0.15 s against the
// paper's Table 4, the number of steps flagged as not converged and the wall time per step.
// Instruction counts come from scripts/instruction_budget.py (callgrind, QEMU -icount).
//
//   bench_mesh_floor [elements ...]     elements from {8, 12, 16, 24}; default all four
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "beltsim/system/profiles.hpp"
#include "material_microcontroller_plant_config.hpp"

namespace {

using beltsim::BeltDrivePlant;
using beltsim::MotorMode;
using beltsim::PlantCommand;
using beltsim::PlantFault;
using beltsim::PlantOutput;

// Paper Table 4 (paper [P]), steady state at t = 2.45 s.
constexpr double kPaperOmegaP2 = 11.3405;    // rad/s
constexpr double kPaperDriveTorque = 47.68;  // N m
constexpr double kPaperTightForce = 665.22;  // N
constexpr double kPaperSlackForce = 186.65;  // N

constexpr int kSteps = 2450;      // 2.45 s at 1 ms
constexpr int kTailSteps = 150;   // last 0.15 s
double stepNanoseconds[kSteps];   // static: no 20 KB on the stack

double percent(double value, double reference) { return 100.0 * (value / reference - 1.0); }

template <int NE>
int runMesh() {
  static BeltDrivePlant<NE> plant;
  const beltsim::PlantConfig config = beltsim::fw::materialMicrocontrollerPlantConfig(MotorMode::kSpeed);
  if (!plant.setUp(config).ok()) {
    std::printf("%3d elements: set-up rejected\n", NE);
    return 1;
  }
  if (!plant.start().converged) {
    std::printf("%3d elements: no static equilibrium\n", NE);
    return 1;
  }
  double omega = 0, torque = 0, tight = 0, slack = 0;
  int notConverged = 0;
  for (int k = 1; k <= kSteps; ++k) {
    const double t = k * config.stepSize;
    PlantCommand command;
    command.input[0] = beltsim::linearRamp(t, 0.05, 0.6, 0.0, 12.0);
    command.input[1] = beltsim::smoothStep(t, 1.0, 1.5, 0.0, 25.0);
    const auto begin = std::chrono::steady_clock::now();
    const PlantOutput out = plant.step(command);
    stepNanoseconds[k - 1] = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - begin).count();
    if (out.fault != PlantFault::kNone) {
      std::printf("%3d elements: fault %d at step %d\n", NE, static_cast<int>(out.fault), k);
      return 1;
    }
    if (!out.converged) ++notConverged;
    if (k > kSteps - kTailSteps) {
      omega += out.speed[1] / kTailSteps;
      torque += out.torque[0] / kTailSteps;
      tight += out.spanForce[0] / kTailSteps;
      slack += out.spanForce[1] / kTailSteps;
    }
  }
  std::sort(stepNanoseconds, stepNanoseconds + kSteps);
  std::printf("%3d elements: omega_P2 %8.4f (%+6.1f %%)  torque %7.3f (%+6.1f %%)  F1 %7.2f (%+6.1f %%)  "
              "F2 %7.2f (%+6.1f %%)  not converged %4d of %d  wall per step median %.0f us, max %.0f us\n",
              NE, omega, percent(omega, kPaperOmegaP2), torque, percent(torque, kPaperDriveTorque), tight,
              percent(tight, kPaperTightForce), slack, percent(slack, kPaperSlackForce), notConverged, kSteps,
              stepNanoseconds[kSteps / 2] / 1e3, stepNanoseconds[kSteps - 1] / 1e3);
  return 0;
}

int runElements(int elements) {
  switch (elements) {
    case 8: return runMesh<8>();
    case 12: return runMesh<12>();
    case 16: return runMesh<16>();
    case 24: return runMesh<24>();
    default: std::printf("%d elements: not built (8, 12, 16, 24)\n", elements); return 2;
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::printf("microcontroller configuration (1 ms, 4 segments per element), paper scenario to 2.45 s; "
              "deviations from the paper's Table 4\n");
  int status = 0;
  if (argc < 2) {
    for (int elements : {24, 16, 12, 8}) status |= runElements(elements);
  } else {
    for (int i = 1; i < argc; ++i) status |= runElements(std::atoi(argv[i]));
  }
  return status;
}
