// Robustness of the firmware configurations under random commands (issue 15, "Robustness"; a
// benchmark, not a test: a minute of simulated time takes minutes at the PC configuration).
//
// The plant of a firmware configuration with a speed-driven motor runs for SECONDS of simulated
// time; every 0.5 s the motor's speed command steps to a new value drawn uniformly from 0..15
// rad/s, every 0.7 s the load torque on P2 to a new value from 0..40 N m (a 64-bit LCG with the
// given seed: the same seed, the same run on every machine). Prints the steps taken, the first
// fault (the plant's PlantFault and its time), non-finite outputs, the steps flagged as not
// converged (Newton or post-Newton) with their share, the largest residual and post-Newton error
// reported, and the wall time per step (median, p99, worst; steady_clock on this machine).
//
//   bench_robustness [mcu|pc] [SECONDS] [SEED|FIRST-LAST] [reference|fixed] [MAX_LOAD]
//   defaults: mcu 60 1 reference 40 (MAX_LOAD: the load steps' upper end, N m)
// A range of seeds (for example 1-20) runs each of them and ends with a summary: in how many runs
// the plant faulted, in how many the firmware loop's safe state would have been reached, and the
// flagged shares. Whether a single run faults flips with small changes of the settings
// (docs/firmware.md, *Robustness over 20 seeds*), so compare settings over a range, not over one
// seed.
// The fixed-cost settings can be overridden for experiments with the environment variables
// BENCH_NEWTON, BENCH_FROZEN, BENCH_REFRESH, BENCH_COLUMNS, BENCH_PAIRS and BENCH_AFTER
// (IntegratorSettings' fixedNewtonIterations, frozenStateIterations, refreshSteps,
// switchColumnsPerStep, refactorPairsPerStep, columnsAfterRefactor); BENCH_RHO=r runs generalized-alpha with spectral radius r instead of the
// configuration's scheme, BENCH_NEWMARK=1 the paper's trapezoidal rule; BENCH_ACCEL=a sets the motor's acceleration limit (pulley[0].max_acceleration,
// rad/s^2: the plant reaches each new speed command at a instead of at once; 0: the jumps).
// BENCH_TRACE=k prints the first 40 steps, every 200th and the 80 after step k; BENCH_STEP=w replaces
// the random commands by one speed step from rest to w rad/s with no load (the load pulley overtakes
// the motor and the slip arc on it reverses: BENCH_NEWMARK=1 BENCH_STEP=8 BENCH_ACCEL=360
// bench_robustness mcu 0.5 1 fixed faults at 0.103 s with the trapezoidal rule, the configuration's
// generalized-alpha runs it with 3 flagged steps, docs/firmware.md, *Why generalized-α*).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "plant_config.hpp"
#include "plant_loop.hpp"
#include "random_commands.hpp"

namespace {

using namespace beltsim;

using bench::Lcg;

// What one run ended with, for the summary over a range of seeds.
struct RunResult {
  bool setUpFailed = false;
  bool fault = false;          // the plant's own fault, or a non-finite output
  bool safeState = false;      // LoopOptions::maxConsecutiveNonConverged flagged steps in a row
  double flaggedPercent = 0.0;  // of the steps taken
};

template <int NE, PlantMesh Mesh>
RunResult run(const char* name, const PlantConfig& config, double seconds, std::uint64_t seed, double maxLoad) {
  static BeltDrivePlant<NE, 2, Mesh> plant;  // static: the model's state
  RunResult result;
  if (!plant.setUp(config).ok() || !plant.start().converged) {
    std::printf("%s: set-up or static equilibrium failed\n", name);
    result.setUpFailed = true;
    return result;
  }
  const double h = config.stepSize;
  const long steps = std::lround(seconds / h);
  const long speedEvery = std::lround(0.5 / h), loadEvery = std::lround(0.7 / h);
  Lcg random{seed};
  PlantCommand command;
  const double stepTo = std::getenv("BENCH_STEP") ? std::atof(std::getenv("BENCH_STEP")) : -1.0;  // rad/s
  const bool trace = std::getenv("BENCH_TRACE") != nullptr;
  const long traceFrom = trace ? std::atol(std::getenv("BENCH_TRACE")) : 0;
  std::vector<float> micros;
  micros.reserve(static_cast<std::size_t>(steps));
  long flagged = 0, nonFinite = 0, faultStep = 0;
  // Flagged steps by the time since the command last changed (speed or load), and by what flagged
  // them (the residual or the post-Newton error above the limit the stepping flags at, or both).
  long flaggedAfter[3] = {}, flaggedBy[3] = {}, sinceChange = 0;
  // Runs of flagged steps: the firmware loop (PlantLoop) enters its safe state (fault 4) after
  // LoopOptions::maxConsecutiveNonConverged of them in a row, which the plant alone does not report.
  const long safeStateRun = static_cast<long>(fw::LoopOptions{}.maxConsecutiveNonConverged);
  long run = 0, longestRun = 0, safeStateStep = 0;
  const bool fixedCost = config.integrator.stepping == Stepping::kFixedCost;
  const double residualLimit = fixedCost ? config.integrator.fixedResidualTolerance : config.integrator.absoluteTolerance;
  const double pnsLimit = fixedCost ? config.integrator.fixedResidualTolerance : config.integrator.pnsTolerance;
  PlantFault fault = PlantFault::kNone;
  double maxResidual = 0.0, maxPnsError = 0.0;
  for (long k = 1; k <= steps; ++k) {
    const PlantCommand previous = command;
    if ((k - 1) % speedEvery == 0) command.input[0] = 15.0 * random.uniform();
    if ((k - 1) % loadEvery == 0) command.input[1] = maxLoad * random.uniform();
    if (stepTo >= 0.0) {  // BENCH_STEP: one speed step from rest, no load
      command.input[0] = stepTo;
      command.input[1] = 0.0;
    }
    const bool changed = k == 1 || command.input[0] != previous.input[0] || command.input[1] != previous.input[1];
    sinceChange = changed ? 0 : sinceChange + 1;
    const auto t0 = std::chrono::steady_clock::now();
    const PlantOutput o = plant.step(command);
    micros.push_back(std::chrono::duration<float, std::micro>(std::chrono::steady_clock::now() - t0).count());
    bool finite = std::isfinite(o.residualNorm) && std::isfinite(o.pnsError);
    for (int p = 0; p < o.pulleyCount; ++p)
      finite = finite && std::isfinite(o.speed[p]) && std::isfinite(o.torque[p]) && std::isfinite(o.spanForce[p]);
    if (trace && (k < 40 || k % 200 == 0 || (k > traceFrom && k <= traceFrom + 80)))
      std::printf("%ld t %.4f cmd %.3f w %.4f %.4f |r| %.3e pns %.3e flags %d nit %d\n", k, o.time, command.input[0], o.speed[0],
                  o.speed[1], o.residualNorm, o.pnsError, o.converged ? 0 : 1, o.newtonIterations);
    if (!finite) ++nonFinite;
    run = o.converged ? 0 : run + 1;
    longestRun = std::max(longestRun, run);
    if (run == safeStateRun && safeStateStep == 0) safeStateStep = k;
    if (!o.converged) {
      ++flagged;
      const double since = sinceChange * h;
      ++flaggedAfter[since < 0.05 ? 0 : since < 0.2 ? 1 : 2];
      const bool byResidual = o.residualNorm > residualLimit, byPns = o.pnsError > pnsLimit;
      ++flaggedBy[byResidual && byPns ? 2 : byResidual ? 0 : 1];
    }
    maxResidual = std::max(maxResidual, o.residualNorm);
    maxPnsError = std::max(maxPnsError, o.pnsError);
    if (o.fault != PlantFault::kNone) {
      fault = o.fault;
      faultStep = k;
      break;
    }
  }
  const long taken = static_cast<long>(micros.size());
  std::vector<float> sorted = micros;
  std::sort(sorted.begin(), sorted.end());
  auto quantile = [&](double q) { return sorted[std::min<std::size_t>(sorted.size() - 1, static_cast<std::size_t>(q * sorted.size()))]; };
  std::printf("%s, %d elements, h %g s, seed %llu, loads up to %g N m, motor acceleration limit %g rad/s^2 "
              "(0: none): %ld of %ld steps (%.2f s)\n", name, NE, h, static_cast<unsigned long long>(seed), maxLoad,
              config.pulley[0].maxAcceleration, taken, steps, taken * h);
  std::printf("  fault: %s", fault == PlantFault::kNone ? "none" : "YES");
  if (fault != PlantFault::kNone) std::printf(" (code %d at step %ld, t = %.3f s)", static_cast<int>(fault), faultStep, faultStep * h);
  std::printf("; non-finite outputs: %ld\n", nonFinite);
  result.flaggedPercent = 100.0 * static_cast<double>(flagged) / static_cast<double>(std::max(1L, taken));
  std::printf("  flagged (not converged): %ld = %.3f %% of the steps taken (issue 15: at most 0.1 %%)\n", flagged,
              result.flaggedPercent);
  std::printf("  flagged steps 0-50 ms / 50-200 ms / later after a command change: %ld / %ld / %ld; by the "
              "residual / the post-Newton error / both: %ld / %ld / %ld\n", flaggedAfter[0], flaggedAfter[1],
              flaggedAfter[2], flaggedBy[0], flaggedBy[1], flaggedBy[2]);
  std::printf("  longest run of flagged steps: %ld; the firmware loop's safe state (%ld in a row): ", longestRun,
              safeStateRun);
  if (safeStateStep > 0) {
    std::printf("first reached at t = %.3f s\n", safeStateStep * h);
  } else {
    std::printf("not reached\n");
  }
  std::printf("  largest reported residual %.3e N, post-Newton error %.3e N\n", maxResidual, maxPnsError);
  std::printf("  wall time per step: median %.1f us, p99 %.1f us, p99.9 %.1f us, worst %.1f us\n", quantile(0.5),
              quantile(0.99), quantile(0.999), sorted.back());
  result.fault = fault != PlantFault::kNone || nonFinite != 0;
  result.safeState = safeStateStep > 0;
  return result;
}

template <int NE, PlantMesh Mesh>
int runSeeds(const char* name, const PlantConfig& config, double seconds, std::uint64_t first, std::uint64_t last,
             double maxLoad) {
  std::vector<RunResult> results;
  for (std::uint64_t seed = first; seed <= last; ++seed) {
    results.push_back(run<NE, Mesh>(name, config, seconds, seed, maxLoad));
    if (results.back().setUpFailed) return 1;
  }
  if (first == last) return results[0].fault ? 3 : 0;
  int safeStates = 0;
  std::vector<double> shares;
  std::vector<std::uint64_t> faulted;
  for (std::size_t k = 0; k < results.size(); ++k) {
    if (results[k].fault) faulted.push_back(first + k);
    safeStates += results[k].safeState ? 1 : 0;
    shares.push_back(results[k].flaggedPercent);
  }
  const int faults = static_cast<int>(faulted.size());
  std::sort(shares.begin(), shares.end());
  std::printf("summary over seeds %llu-%llu, %g s each:\n  plant faults in %d of %zu runs", static_cast<unsigned long long>(first),
              static_cast<unsigned long long>(last), seconds, faults, results.size());
  for (std::size_t k = 0; k < faulted.size(); ++k)
    std::printf("%s%llu", k == 0 ? " (seeds " : ", ", static_cast<unsigned long long>(faulted[k]));
  std::printf("%s\n  the firmware loop's safe state reached in %d of %zu runs\n", faulted.empty() ? "" : ")", safeStates,
              results.size());
  std::printf("  flagged share of the steps taken: min %.3f %%, median %.3f %%, max %.3f %%\n", shares.front(),
              shares[(shares.size() - 1) / 2], shares.back());
  return faults == 0 ? 0 : 3;
}

}  // namespace

int main(int argc, char** argv) {
  const char* which = argc > 1 ? argv[1] : "mcu";
  const double seconds = argc > 2 ? std::atof(argv[2]) : 60.0;
  std::uint64_t firstSeed = 1u, lastSeed = 1u;
  if (argc > 3) {
    char* end = nullptr;
    firstSeed = lastSeed = std::strtoull(argv[3], &end, 10);
    if (*end == '-') lastSeed = std::strtoull(end + 1, &end, 10);
    if (*end != '\0' || lastSeed < firstSeed || lastSeed - firstSeed >= 1000u) {
      std::fprintf(stderr, "bench_robustness: SEED must be a number or a range FIRST-LAST of at most 1000 seeds, not '%s'\n",
                   argv[3]);
      return 2;
    }
  }
  const bool fixed = argc > 4 && std::strcmp(argv[4], "fixed") == 0;
  const double maxLoad = argc > 5 ? std::atof(argv[5]) : 40.0;
  if ((std::strcmp(which, "mcu") != 0 && std::strcmp(which, "pc") != 0) || !(seconds > 0.0) || !(maxLoad >= 0.0)) {
    std::fprintf(stderr, "usage: bench_robustness [mcu|pc] [SECONDS] [SEED|FIRST-LAST] [reference|fixed] [MAX_LOAD]\n");
    return 2;
  }
  const bool pc = std::strcmp(which, "pc") == 0;
  PlantConfig config = pc ? fw::pcPlantConfig(MotorMode::kSpeed) : fw::microcontrollerPlantConfig(MotorMode::kSpeed);
  config.integrator.stepping = fixed ? Stepping::kFixedCost : Stepping::kReference;
  if (const char* v = std::getenv("BENCH_NEWTON")) config.integrator.fixedNewtonIterations = std::atoi(v);
  if (const char* v = std::getenv("BENCH_FROZEN")) config.integrator.frozenStateIterations = std::atoi(v);
  if (const char* v = std::getenv("BENCH_REFRESH")) config.integrator.refreshSteps = std::atoi(v);
  if (const char* v = std::getenv("BENCH_COLUMNS")) config.integrator.switchColumnsPerStep = std::atoi(v);
  if (const char* v = std::getenv("BENCH_PAIRS")) config.integrator.refactorPairsPerStep = std::atoi(v);
  if (const char* v = std::getenv("BENCH_AGE")) config.integrator.blockAgeSteps = std::atoi(v);
  if (const char* v = std::getenv("BENCH_RENEW")) config.integrator.renewalPairsPerStep = std::atoi(v);
  if (const char* v = std::getenv("BENCH_AFTER")) config.integrator.columnsAfterRefactor = std::atoi(v);
  if (const char* v = std::getenv("BENCH_ACCEL")) config.pulley[0].maxAcceleration = std::atof(v);
  if (const char* v = std::getenv("BENCH_H")) config.stepSize = std::atof(v);
  if (const char* v = std::getenv("BENCH_RHO")) {
    config.integrator.newmark = false;
    config.integrator.spectralRadius = std::atof(v);
  }
  if (std::getenv("BENCH_NEWMARK")) config.integrator.newmark = true;  // the trapezoidal rule, as the paper
  return pc ? runSeeds<fw::kPcElements, fw::kPcMesh>("PC configuration", config, seconds, firstSeed, lastSeed, maxLoad)
            : runSeeds<fw::kMicrocontrollerElements, fw::kMicrocontrollerMesh>("microcontroller configuration", config,
                                                                              seconds, firstSeed, lastSeed, maxLoad);
}
