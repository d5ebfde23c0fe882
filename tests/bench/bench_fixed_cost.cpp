// Accuracy and wall time of the reference and the material mesh's fixed-cost stepping (switch
// columns, partial re-factorization) over the paper's scenario (a benchmark, not a test;
// instruction counts come from scripts/instruction_budget.py): mcu is the microcontroller drive on
// the material mesh (host_sim/scenarios/hil_belt_drive.toml), pc the firmware's PC configuration
// while it runs that mesh. The eulerian mesh's forms: bench_eulerian.
//
//   bench_fixed_cost [mcu|pc] [reference|fixed] [--set name=value ...]
// names: newton, frozen, refresh, columns, pairs, after (columns after a re-factorization), tol (the fixed-cost settings), rho (generalized-
// alpha with this spectral radius instead of the configuration's scheme), maxpns, pnstol,
// kc, kb (contact and bristle stiffness), segments (contact segments per element), arc (1: the
// arc gap, 0: the paper's chord gap), compensation (1/0: the penetration compensation).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "paper_scenario.hpp"
#include "material_microcontroller_plant_config.hpp"
#include "plant_config.hpp"

namespace {

using namespace beltsim;

double percent(double value, double reference) { return 100.0 * (value / reference - 1.0); }

template <int NE>
int run(const char* name, PlantConfig config) {
  static BeltDrivePlant<NE> plant;
  if (!plant.setUp(config).ok()) {
    std::printf("%s: set-up rejected\n", name);
    return 1;
  }
  if (!plant.start().converged) {
    std::printf("%s: no static equilibrium\n", name);
    return 1;
  }
  std::vector<double> micros;
  int columnSteps[BeltDrivePlant<NE>::Drive::kMaxLowRankColumns + 1] = {};  // steps by switch columns
  int pairSteps[NE + 1] = {};  // steps by contact pairs evaluated again in a partial re-factorization
  auto last = std::chrono::steady_clock::now();
  const bool trace = std::getenv("BENCH_TRACE") != nullptr;
  const test::PaperRun r = test::runPaperScenario(plant, config.stepSize, [&](int k, const PlantOutput& o) {
    if (trace || o.fault != PlantFault::kNone)
      std::printf("%d %.4f |r| %.3e pns %.3e w %.4f %.4f F %.2f %.2f T %.3f nit %d fault %d status %d\n", k, o.time, o.residualNorm,
                  o.pnsError, o.speed[0], o.speed[1], o.spanForce[0], o.spanForce[1], o.torque[0], o.newtonIterations, static_cast<int>(o.fault), static_cast<int>(o.status));
    ++columnSteps[plant.integrator().fixedCostStepper().switchColumns()];
    ++pairSteps[std::min(NE, plant.integrator().fixedCostStepper().refactoredPairs())];
    if (std::getenv("BENCH_CAP") && plant.integrator().fixedCostStepper().switchColumns() >= 12)
      std::printf("cap %d t %.3f cols %d pending %d |r| %.2e pns %.2e w %.3f %.3f\n", k, o.time, plant.integrator().fixedCostStepper().switchColumns(),
                  plant.integrator().fixedCostStepper().pendingSwitches(), o.residualNorm, o.pnsError, o.speed[0], o.speed[1]);
    const auto now = std::chrono::steady_clock::now();
    micros.push_back(std::chrono::duration<double, std::micro>(now - last).count());
    last = now;
  });
  std::sort(micros.begin(), micros.end());
  const size_t n = micros.size();
  std::printf("%s: %s omega_P2 %.4f (%+.2f %%) torque %.3f (%+.2f %%) F1 %.2f (%+.2f %%) F2 %.2f (%+.2f %%) "
              "creep %.5f m/s flagged %d of %d, max |r| %.3g N, max e_PNS %.3g N; wall us median %.1f p99 %.1f max %.1f\n",
              name, r.faultStep ? "FAULT" : "", r.omegaP2, percent(r.omegaP2, test::kPaperOmegaP2), r.driveTorque,
              percent(r.driveTorque, test::kPaperDriveTorque), r.tightForce, percent(r.tightForce, test::kPaperTightForce),
              r.slackForce, percent(r.slackForce, test::kPaperSlackForce), 0.09995 * (r.omegaP1 - r.omegaP2), r.flagged,
              r.steps, r.maxResidual, r.maxPnsError, micros[n / 2], micros[n * 99 / 100], micros[n - 1]);
  if (r.faultStep) std::printf("  fault at step %d\n", r.faultStep);
  if (config.integrator.stepping == Stepping::kFixedCost) {
    std::printf("  steps by switch columns:");
    for (int k = 0; k <= BeltDrivePlant<NE>::Drive::kMaxLowRankColumns; ++k) std::printf(" %d", columnSteps[k]);
    std::printf("\n  steps by contact pairs evaluated again:");
    for (int k = 0; k <= 8; ++k) std::printf(" %d", pairSteps[k]);
    std::printf("\n");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const bool pc = argc > 1 && std::strcmp(argv[1], "pc") == 0;
  const bool fixed = argc > 2 && std::strcmp(argv[2], "fixed") == 0;
  if (pc && fw::kPcMesh != PlantMesh::kMaterial) {
    std::fprintf(stderr, "the PC configuration runs the eulerian mesh: bench_eulerian --config pc\n");
    return 2;
  }
  PlantConfig c = pc ? fw::pcPlantConfig(MotorMode::kSpeed) : fw::materialMicrocontrollerPlantConfig(MotorMode::kSpeed);
  c.integrator.stepping = fixed ? Stepping::kFixedCost : Stepping::kReference;
  for (int i = 3; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--set") != 0) continue;
    char key[64];
    double value = 0;
    if (std::sscanf(argv[i + 1], "%63[^=]=%lf", key, &value) != 2) continue;
    if (!std::strcmp(key, "newton")) c.integrator.fixedNewtonIterations = static_cast<int>(value);
    if (!std::strcmp(key, "frozen")) c.integrator.frozenStateIterations = static_cast<int>(value);
    if (!std::strcmp(key, "maxpns")) c.integrator.maxPnsIterations = static_cast<int>(value);
    if (!std::strcmp(key, "pnstol")) c.integrator.pnsTolerance = value;
    if (!std::strcmp(key, "refresh")) c.integrator.refreshSteps = static_cast<int>(value);
    if (!std::strcmp(key, "tol")) c.integrator.fixedResidualTolerance = value;
    if (!std::strcmp(key, "rho")) {
      c.integrator.newmark = false;
      c.integrator.spectralRadius = value;
    }
    if (!std::strcmp(key, "pairs")) c.integrator.refactorPairsPerStep = static_cast<int>(value);
    if (!std::strcmp(key, "age")) c.integrator.blockAgeSteps = static_cast<int>(value);
    if (!std::strcmp(key, "renew")) c.integrator.renewalPairsPerStep = static_cast<int>(value);
    if (!std::strcmp(key, "after")) c.integrator.columnsAfterRefactor = static_cast<int>(value);
    if (!std::strcmp(key, "columns")) c.integrator.switchColumnsPerStep = static_cast<int>(value);
    if (!std::strcmp(key, "kc")) c.contact.stiffness = value;
    if (!std::strcmp(key, "kb")) c.contact.bristleStiffness = value;
    if (!std::strcmp(key, "segments")) c.segmentsPerElement = static_cast<int>(value);
    if (!std::strcmp(key, "arc")) c.contact.gapMeasure = value != 0.0 ? SegmentGapMeasure::kArc : SegmentGapMeasure::kChord;
    if (!std::strcmp(key, "compensation")) c.contact.penetrationCompensation = value != 0.0;
  }
  const char* name = pc ? (fixed ? "pc fixed-cost" : "pc reference") : (fixed ? "mcu fixed-cost" : "mcu reference");
  return pc ? run<fw::kPcElements>(name, c) : run<fw::kMaterialMicrocontrollerElements>(name, c);
}
