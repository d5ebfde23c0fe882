// Cost and robustness of the fixed-cost stepping on the eulerian mesh (docs/model_element.md
// §2.11; a benchmark, not a test). The drive is the paper's, graded from its layout, as
// host_sim/scenarios/eulerian_belt_drive.toml builds it (tests/support/graded_paper_drive.hpp).
//
//   bench_eulerian [16|24] [paper|random] [--set name=value ...] [--seconds T] [--seeds A-B]
//                  [--intervals] [--error] [--callgrind FROM COUNT]
//   paper   the paper's scenario (2.45 s): steps flagged, the tail means of the span forces and of
//           P2's speed, the wall time per step (median, p99, worst; steady_clock on this machine).
//   random  the robustness bench's commands (tests/bench/bench_robustness.cpp: P1's speed steps to
//           a value drawn from 0..15 rad/s every 0.5 s, P2's load to 0..40 N m every 0.7 s, Knuth's
//           MMIX LCG) for T seconds (default 60) per seed (default 1-20): per seed the steps
//           flagged, the longest run of them and the first fault; then the median and worst seed.
//   names   the IntegratorSettings of the fixed-cost stepping: newton (fixedNewtonIterations),
//           frozen (frozenStateIterations), refresh (refreshSteps, default NE), passes
//           (postNewtonPasses), pairs (passUpdatePairs), tol (fixedResidualTolerance, N), rho
//           (generalized-alpha's spectral radius). Defaults: eulerian_belt_drive.toml's (newton 2,
//           frozen 0, passes 1, tol 5, rho 1: the trapezoidal rule).
//   --error  the run error instead: the same commands (the paper's scenario, or the random ones per
//           seed) given to the fixed-cost stepping and to the converged run (reference stepping,
//           tight tolerances, the same mesh and step); 10 ms window means of F1, F2, P1's drive
//           torque, P2's belt torque, omega_P2 and P2's hub load; per quantity the median, p99 and
//           worst window of |real-time - converged| in its scale (forces of the 400 N pre-tension,
//           torques of 50 N m, speed of 12 rad/s).
//   --intervals  random mode: one line per speed command (0.5 s): P1's command, the load, P2's
//           speed at its end and the steps flagged in it.
//   --callgrind FROM COUNT  under valgrind --tool=callgrind --instr-atstart=no --collect-atstart=no:
//           collect steps FROM..FROM+COUNT-1 only, one dump after each (paper mode);
//           scripts/instruction_budget.py --eulerian runs it and reads the dumps.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "beltsim/stepping/fixed_cost_stepper.hpp"
#include "graded_paper_drive.hpp"
#include "paper_scenario.hpp"
#include "random_commands.hpp"

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define BENCH_HAVE_CALLGRIND 1
#else
#define BENCH_HAVE_CALLGRIND 0
#endif

namespace {

using namespace beltsim;
using bench::Lcg;
constexpr double kStep = test::kGradedStep;

struct Options {
  int newton = 2, frozen = 0, refresh = 0, passes = 1, pairs = 4;
  double tol = 5.0;
  double rho = 1.0;  // generalized-alpha's spectral radius (1: the trapezoidal rule, the paper's)
  double seconds = 60.0;
  unsigned long long firstSeed = 1, lastSeed = 20;
  int callgrindFrom = 0, callgrindCount = 0;
  bool intervals = false;
};

template <int NE>
struct Bench : test::GradedPaperDriveOf<NE, FixedCostStepper> {
  PlantConfig config(const Options& o) const {
    PlantConfig c = test::eulerianPaperConfig(kStep);
    c.integrator.stepping = Stepping::kFixedCost;
    c.integrator.fixedNewtonIterations = o.newton;
    c.integrator.frozenStateIterations = o.frozen;
    c.integrator.refreshSteps = o.refresh > 0 ? o.refresh : NE;
    c.integrator.postNewtonPasses = o.passes;
    c.integrator.passUpdatePairs = o.pairs;
    c.integrator.fixedResidualTolerance = o.tol;
    c.integrator.spectralRadius = o.rho;
    return c;
  }
};

// The robustness bench's commands: P1's speed to a value drawn from 0..15 rad/s every 0.5 s, P2's
// braking load to 0..40 N m every 0.7 s.
struct RandomCommands {
  Lcg lcg;
  double speed = 0.0, load = 0.0;
  long speedEvery = std::lround(0.5 / kStep), loadEvery = std::lround(0.7 / kStep);  // steps
  // The commands of step k (from 1).
  BeltDriveInput<2> at(long k) {
    if ((k - 1) % speedEvery == 0) speed = 15.0 * lcg.uniform();
    if ((k - 1) % loadEvery == 0) load = 40.0 * lcg.uniform();
    BeltDriveInput<2> input;
    input.useCommand[0] = input.useCommand[1] = true;
    input.command[0] = speed;  // P1: speed, rad/s
    input.command[1] = -load;  // P2: braking load torque, N m
    return input;
  }
};

bool flaggedStep(const StepStatistics& s) {
  return (s.flags & (kStepNewtonNotConverged | kStepPnsNotConverged)) != 0;
}

void printQuantiles(const char* what, std::vector<double> v, const char* unit) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  std::printf("%s median %.2f %s, p99 %.2f %s, worst %.2f %s\n", what, v[(n - 1) / 2], unit,
              v[std::min(n - 1, (99 * n + 99) / 100 - 1)], unit, v[n - 1], unit);
}

template <int NE>
int paper(const Options& o) {
  Bench<NE> d;
  if (!d.start(d.config(o))) {
    std::printf("%d elements: set-up or statics failed\n", NE);
    return 1;
  }
  const int steps = static_cast<int>(test::kPaperEndTime / kStep + 0.5);
  const int tail = static_cast<int>(test::kPaperTail / kStep + 0.5);
  const int speed = Bench<NE>::Drive::pulleyDof(1, 2);
  int flagged = 0;
  double f1 = 0.0, f2 = 0.0, omega2 = 0.0;
  std::vector<double> micros;
  micros.reserve(steps);
  for (int k = 1; k <= steps; ++k) {
    const bool measured = k >= o.callgrindFrom && k < o.callgrindFrom + o.callgrindCount;
#if BENCH_HAVE_CALLGRIND
    if (measured && k == o.callgrindFrom) CALLGRIND_START_INSTRUMENTATION;
    if (measured) CALLGRIND_TOGGLE_COLLECT;
#endif
    const auto before = std::chrono::steady_clock::now();
    const StepStatistics s = d.step(k);
    const auto after = std::chrono::steady_clock::now();
#if BENCH_HAVE_CALLGRIND
    if (measured) {
      CALLGRIND_TOGGLE_COLLECT;
      CALLGRIND_DUMP_STATS;
      if (k + 1 == o.callgrindFrom + o.callgrindCount) CALLGRIND_STOP_INSTRUMENTATION;
    }
#else
    (void)measured;
#endif
    micros.push_back(std::chrono::duration<double, std::micro>(after - before).count());
    if (s.status != Status::kOk) {
      std::printf("%d elements: fault at step %d (t = %.4f s), status %d\n", NE, k, k * kStep,
                  static_cast<int>(s.status));
      return 1;
    }
    flagged += flaggedStep(s);
    if (k > steps - tail) {
      f1 += d.tightForce() / tail;
      f2 += d.slackForce() / tail;
      omega2 += d.stepper->velocities()(speed) / tail;
    }
  }
  std::printf("%d elements, paper's scenario, %d steps: flagged %d; tail means F1 %.4f N, F2 %.4f N, "
              "omega_P2 %.6f rad/s\n", NE, steps, flagged, f1, f2, omega2);
  printQuantiles("  wall time per step:", micros, "us");
  return 0;
}


template <int NE>
int random(const Options& o) {
  const long steps = std::lround(o.seconds / kStep);
  std::vector<double> shares;
  int faults = 0;
  for (unsigned long long seed = o.firstSeed; seed <= o.lastSeed; ++seed) {
    Bench<NE> d;
    if (!d.start(d.config(o))) {
      std::printf("%d elements: set-up or statics failed\n", NE);
      return 1;
    }
    RandomCommands commands{Lcg{seed}};
    long flagged = 0, run = 0, longest = 0, taken = 0, inInterval = 0;
    bool fault = false;
    for (long k = 1; k <= steps && !fault; ++k) {
      if (o.intervals && (k - 1) % commands.speedEvery == 0 && k > 1) {
        std::printf("    %.1f s: P1 %.2f rad/s, load %.1f N m, P2 %.3f rad/s, flagged %ld\n", k * kStep,
                    commands.speed, commands.load,
                    d.stepper->velocities()(Bench<NE>::Drive::pulleyDof(1, 2)), inInterval);
        inInterval = 0;
      }
      d.drive->setInput(commands.at(k));
      const StepStatistics s = d.stepper->step(*d.drive);
      ++taken;
      if (s.status != Status::kOk) {
        std::printf("  seed %llu: fault at t = %.4f s, status %d\n", seed, k * kStep, static_cast<int>(s.status));
        fault = true;
        ++faults;
      }
      const bool bad = flaggedStep(s);
      flagged += bad;
      inInterval += bad;
      run = bad ? run + 1 : 0;
      longest = std::max(longest, run);
    }
    const double share = 100.0 * flagged / taken;
    shares.push_back(share);
    std::printf("  seed %llu: %ld steps, flagged %ld (%.3f %%), longest run %ld%s\n", seed, taken, flagged, share,
                longest, fault ? ", fault" : "");
    std::fflush(stdout);
  }
  std::sort(shares.begin(), shares.end());
  std::printf("%d elements, random commands, %zu seeds x %.0f s: faults %d; flagged median %.3f %%, worst %.3f %%\n",
              NE, shares.size(), o.seconds, faults, shares[(shares.size() - 1) / 2], shares.back());
  return faults > 0 ? 1 : 0;
}

// The converged run of the same mesh, step and commands: reference stepping with tight
// tolerances (Newton to 1e-8 N absolute, 1e-10 relative, post-Newton to 1e-3 N, up to 20 of each).
template <int NE>
struct Converged : test::GradedPaperDriveOf<NE> {
  static PlantConfig config(const Options& o) {
    PlantConfig c = test::eulerianPaperConfig(kStep);
    c.integrator.spectralRadius = o.rho;
    c.integrator.maxNewtonIterations = 20;
    c.integrator.maxPnsIterations = 20;
    c.integrator.relativeTolerance = 1e-10;
    return c;
  }
};

// What a controller reads, each in its scale: the span forces and P2's hub load in units of the
// pre-tension (400 N), P1's drive torque and P2's belt torque in units of the drive's friction
// capacity at mu 0.5 (50 N m), omega_P2 in units of the paper's speed (12 rad/s).
constexpr int kQuantities = 6;
constexpr const char* kQuantityName[kQuantities] = {"F1", "F2", "torque P1", "torque P2", "omega_P2", "hub P2"};
constexpr double kQuantityScale[kQuantities] = {400.0, 400.0, 50.0, 50.0, 12.0, 400.0};
template <class D>
void readQuantities(const D& d, double (&out)[kQuantities]) {
  out[0] = d.tightForce();
  out[1] = d.slackForce();
  out[2] = d.drive->driveTorque(0);
  out[3] = d.drive->beltTorque(1);
  out[4] = d.stepper->velocities()(D::Drive::pulleyDof(1, 2));
  out[5] = d.drive->hubForce(1).norm();
}

// The run error (a benchmark, not a test): the fixed-cost form against the converged run, both
// given the same commands, as 10 ms window means of each quantity; per quantity the median, p99 and
// worst window of |real-time - converged| in its scale.
template <int NE>
int runError(const Options& o, bool randomCommands) {
  constexpr int kWindow = 100;  // steps: 10 ms at 1e-4 s
  std::vector<double> errors[kQuantities];
  long flagged = 0, referenceFlagged = 0, taken = 0;
  const unsigned long long first = randomCommands ? o.firstSeed : 0, last = randomCommands ? o.lastSeed : 0;
  for (unsigned long long seed = first; seed <= last; ++seed) {
    Bench<NE> real;
    Converged<NE> converged;
    if (!real.start(real.config(o)) || !converged.start(Converged<NE>::config(o))) {
      std::printf("%d elements: set-up or statics failed\n", NE);
      return 1;
    }
    RandomCommands commands{Lcg{seed}};
    const long steps = randomCommands ? std::lround(o.seconds / kStep) : std::lround(test::kPaperEndTime / kStep);
    double sums[2][kQuantities] = {};
    for (long k = 1; k <= steps; ++k) {
      StepStatistics a, b;
      if (randomCommands) {
        const BeltDriveInput<2> input = commands.at(k);
        real.drive->setInput(input);
        converged.drive->setInput(input);
        a = real.stepper->step(*real.drive);
        b = converged.stepper->step(*converged.drive);
      } else {
        a = real.step(static_cast<int>(k));
        b = converged.step(static_cast<int>(k));
      }
      if (a.status != Status::kOk || b.status != Status::kOk) {
        std::printf("  seed %llu: fault at t = %.4f s (real-time %d, converged %d)\n", seed, k * kStep,
                    static_cast<int>(a.status), static_cast<int>(b.status));
        return 1;
      }
      ++taken;
      flagged += flaggedStep(a);
      referenceFlagged += flaggedStep(b);
      double qa[kQuantities], qb[kQuantities];
      readQuantities(real, qa);
      readQuantities(converged, qb);
      for (int j = 0; j < kQuantities; ++j) {
        sums[0][j] += qa[j];
        sums[1][j] += qb[j];
      }
      if (k % kWindow == 0) {
        for (int j = 0; j < kQuantities; ++j) {
          errors[j].push_back(std::abs(sums[0][j] - sums[1][j]) / kWindow / kQuantityScale[j]);
          sums[0][j] = sums[1][j] = 0.0;
        }
      }
    }
  }
  std::printf("%d elements, run error against the converged run, %s, %ld steps (%zu windows of 10 ms): real-time "
              "flagged %ld, converged flagged %ld\n", NE, randomCommands ? "random commands" : "paper's scenario",
              taken, errors[0].size(), flagged, referenceFlagged);
  for (int j = 0; j < kQuantities; ++j) {
    std::vector<double> e = errors[j];
    for (double& x : e) x *= 100.0;
    std::printf("  %-9s (of %.0f): ", kQuantityName[j], kQuantityScale[j]);
    printQuantiles("", e, "%");
  }
  return 0;
}

bool parseSet(const char* assignment, Options& o) {
  const char* eq = std::strchr(assignment, '=');
  if (eq == nullptr) return false;
  const std::size_t n = static_cast<std::size_t>(eq - assignment);
  const double value = std::atof(eq + 1);
  const auto is = [&](const char* name) { return std::strlen(name) == n && std::strncmp(assignment, name, n) == 0; };
  if (is("newton")) o.newton = static_cast<int>(value);
  else if (is("frozen")) o.frozen = static_cast<int>(value);
  else if (is("refresh")) o.refresh = static_cast<int>(value);
  else if (is("passes")) o.passes = static_cast<int>(value);
  else if (is("pairs")) o.pairs = static_cast<int>(value);
  else if (is("tol")) o.tol = value;
  else if (is("rho")) o.rho = value;
  else return false;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  int elements = 24;
  bool randomMode = false, errorMode = false;
  Options o;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (std::strcmp(a, "16") == 0 || std::strcmp(a, "24") == 0) {
      elements = std::atoi(a);
    } else if (std::strcmp(a, "paper") == 0 || std::strcmp(a, "random") == 0) {
      randomMode = a[0] == 'r';
    } else if (std::strcmp(a, "--error") == 0) {
      errorMode = true;
    } else if (std::strcmp(a, "--set") == 0 && i + 1 < argc) {
      if (!parseSet(argv[++i], o)) {
        std::fprintf(stderr, "bench_eulerian: unknown setting '%s'\n", argv[i]);
        return 2;
      }
    } else if (std::strcmp(a, "--intervals") == 0) {
      o.intervals = true;
    } else if (std::strcmp(a, "--seconds") == 0 && i + 1 < argc) {
      o.seconds = std::atof(argv[++i]);
    } else if (std::strcmp(a, "--seeds") == 0 && i + 1 < argc) {
      const char* range = argv[++i];
      o.firstSeed = std::strtoull(range, nullptr, 10);
      const char* dash = std::strchr(range, '-');
      o.lastSeed = dash != nullptr ? std::strtoull(dash + 1, nullptr, 10) : o.firstSeed;
    } else if (std::strcmp(a, "--callgrind") == 0 && i + 2 < argc) {
      o.callgrindFrom = std::atoi(argv[++i]);
      o.callgrindCount = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: bench_eulerian [16|24] [paper|random] [--set name=value ...] [--seconds T] "
                           "[--seeds A-B] [--intervals] [--error] [--callgrind FROM COUNT]\n");
      return 2;
    }
  }
  std::printf("settings: newton %d, frozen %d, refresh %d, passes %d, pairs %d, tol %.3g N, rho %.2f\n", o.newton, o.frozen,
              o.refresh > 0 ? o.refresh : elements, o.passes, o.pairs, o.tol, o.rho);
  if (errorMode) return elements == 16 ? runError<16>(o, randomMode) : runError<24>(o, randomMode);
  if (elements == 16) return randomMode ? random<16>(o) : paper<16>(o);
  return randomMode ? random<24>(o) : paper<24>(o);
}
