// Cost and robustness of the fixed-cost stepping on the eulerian mesh (docs/model_element.md
// §2.11; a benchmark, not a test). The drive is the paper's, graded from its layout, as
// host_sim/scenarios/eulerian_belt_drive.toml builds it (tests/support/graded_paper_drive.hpp).
//
//   bench_eulerian [16|24] [paper|random|slip|fault] [--config pc|main|mcu] [--set name=value ...]
//                  [--seconds T] [--speed-max W] [--seeds A-B] [--intervals] [--error|--one-step] [--dump FILE]
//                  [--require-flag]
//                  [--callgrind FROM COUNT]
//   paper   the paper's scenario (2.45 s): steps flagged, the tail means of the span forces and of
//           P2's speed, the wall time per step (median, p99, worst; steady_clock on this machine).
//   random  the robustness bench's commands (tests/bench/bench_robustness.cpp: P1's speed steps to
//           a value drawn from 0..15 rad/s (0..W with --speed-max W) every 0.5 s, P2's load to
//           0..40 N m every 0.7 s, Knuth's MMIX LCG) for T seconds (default 60) per seed (default
//           1-20): per seed the steps flagged, the longest run of them and the first fault; then the
//           median and worst seed.
//   slip, fault  (error modes only) gross slip: mu 0.3 and 30 N m on P2; a friction fault: the
//           paper's scenario with P1's mu 0.25 from 1.6 to 2.0 s (10 ms ramps).
//   --config  a product's step, integrator and contact values (pc: 1e-4 s, trapezoidal rule,
//           4e9/5e9 N/m^3; main: 2e-4 s, generalized-alpha 0.6, 4e9/5e9; mcu: 1e-3 s,
//           generalized-alpha 0.6, 4e8/5e8; in pc and mcu P1's speed moves to its command at
//           500 rad/s^2). Default: 1e-4 s, generalized-alpha at rho 1, 4e9/5e9.
//   names   the IntegratorSettings of the fixed-cost stepping: newton (fixedNewtonIterations),
//           frozen (frozenStateIterations), refresh (refreshSteps, default NE), passes
//           (postNewtonPasses), pairs (passUpdatePairs), tol (fixedResidualTolerance, N), rho
//           (generalized-alpha's spectral radius, over the configuration's). Defaults:
//           eulerian_belt_drive.toml's (newton 2, frozen 0, passes 1, tol 5).
//   --error  the run error: the same commands given to the fixed-cost stepping and to the converged
//           run (reference stepping, tight tolerances, the same mesh, step and configuration); 10 ms
//           window means of F1, F2, P1's drive torque, P2's belt torque, omega_P2 and P2's hub load;
//           per quantity the median, p99 and worst window of |real-time - converged| in its scale
//           (forces of the 400 N pre-tension, torques of 50 N m, speed of 12 rad/s).
//   --one-step  the one-step error: at every step, the converged step from the fixed-cost run's
//           own start state against the fixed-cost step, the same quantities and scales (median,
//           p99 and worst step), and how the current flag marks the steps above 0.1 % and 1 %.
//   --dump FILE  --one-step: a CSV line per step (its flags, residual, e_PNS and errors); --error: a
//           line per window (steps flagged in each run, the commands, both runs' means).
//   --require-flag  --one-step: exit 1 unless the flag marks at least 99 % of the steps whose one-step
//           error exceeds 1 % of its scale (at least 20 such steps) and at most 0.5 % of all steps
//           below it (the health flag's contract, docs/firmware.md, *The health flag*).
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
#include "beltsim/system/injected_faults.hpp"
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

// The configurations the products run (docs/host_simulator.md, *The eulerian mesh*), and the
// bench's own default: 1e-4 s, generalized-alpha at rho 1, the paper's contact values.
struct Configuration {
  const char* name;
  double step;     // s
  bool newmark;    // the trapezoidal rule as Newmark's (else generalized-alpha at rho)
  double rho;
  double contact;  // k_c per area, N/m^3
  double bristle;  // mu_k per area, N/m^3
  double maxAcceleration;  // rad/s^2: P1's speed moves towards its command at most this fast (0: at once)
};
constexpr Configuration kDefaultConfiguration = {"default", 1e-4, false, 1.0, 4e9, 5e9, 0.0};
constexpr Configuration kConfigurations[] = {
    {"pc", 1e-4, true, 1.0, 4e9, 5e9, 500.0},     // firmware/configs/pc.toml
    {"main", 2e-4, false, 0.6, 4e9, 5e9, 0.0},    // host_sim/scenarios/realtime_belt_drive.toml
    {"mcu", 1e-3, false, 0.6, 4e8, 5e8, 500.0},   // firmware/configs/microcontroller.toml
};

// The cases of the error modes: the paper's scenario; the random commands; gross slip (mu 0.3 and
// 30 N m on P2 from 1.0 to 1.5 s, tests/support/gross_slip_check.hpp); a friction fault (the
// paper's scenario with P1 wet, mu 0.25, from 1.6 to 2.0 s, ramps of 10 ms: the belt slides over
// P1's wrap).
enum class Case { kPaper, kRandom, kSlip, kFault };
constexpr double kSlipFriction = 0.3, kSlipLoad = 30.0;
constexpr double kWetFriction = 0.25, kWetFrom = 1.6, kWetUntil = 2.0, kWetRamp = 0.01;  // -, s, s, s
const char* caseName(Case c) {
  switch (c) {
    case Case::kPaper: return "paper's scenario";
    case Case::kRandom: return "random commands";
    case Case::kSlip: return "gross slip";
    case Case::kFault: return "friction fault";
  }
  return "?";
}

struct Options {
  int newton = 2, frozen = 0, refresh = 0, passes = 1, pairs = 4;
  double tol = 5.0;
  double rho = -1.0;  // generalized-alpha's spectral radius; negative: the configuration's
  Configuration configuration = kDefaultConfiguration;
  Case kase = Case::kPaper;
  double seconds = 60.0;
  double speedMax = 15.0;  // rad/s: random mode's P1 speeds are drawn from 0..speedMax
  unsigned long long firstSeed = 1, lastSeed = 20;
  int callgrindFrom = 0, callgrindCount = 0;
  bool intervals = false;
  const char* dump = nullptr;  // --dump FILE (error modes): a CSV line per step or per window
  bool requireFlag = false;    // --require-flag (one-step mode): the flag's catch and false-flag rates
};

double stepOf(const Options& o) { return o.configuration.step; }

// The drive's configuration at the options' step, integrator and contact values (any stepping).
PlantConfig configFor(const Options& o) {
  const Configuration& k = o.configuration;
  PlantConfig c = test::eulerianPaperConfig(k.step);
  c.integrator.newmark = k.newmark;
  c.integrator.spectralRadius = o.rho >= 0.0 ? o.rho : k.rho;
  c.contact.stiffness = k.contact;
  c.contact.bristleStiffness = k.bristle;
  if (o.kase == Case::kSlip) c.contact.frictionCoefficient = kSlipFriction;
  return c;
}

template <int NE>
struct Bench : test::GradedPaperDriveOf<NE, FixedCostStepper> {
  PlantConfig config(const Options& o) const {
    PlantConfig c = configFor(o);
    c.integrator.stepping = Stepping::kFixedCost;
    c.integrator.fixedNewtonIterations = o.newton;
    c.integrator.frozenStateIterations = o.frozen;
    c.integrator.refreshSteps = o.refresh > 0 ? o.refresh : NE;
    c.integrator.postNewtonPasses = o.passes;
    c.integrator.passUpdatePairs = o.pairs;
    c.integrator.fixedResidualTolerance = o.tol;
    return c;
  }
};

// The robustness bench's commands: P1's speed to a value drawn from 0..speedMax (15 rad/s unless
// --speed-max) every 0.5 s, P2's braking load to 0..40 N m every 0.7 s.
struct RandomCommands {
  Lcg lcg;
  double speedMax = 15.0;  // rad/s
  double speed = 0.0, load = 0.0;
  long speedEvery = std::lround(0.5 / kStep), loadEvery = std::lround(0.7 / kStep);  // steps (set for other steps)
  // The commands of step k (from 1).
  BeltDriveInput<2> at(long k) {
    if ((k - 1) % speedEvery == 0) speed = speedMax * lcg.uniform();
    if ((k - 1) % loadEvery == 0) load = 40.0 * lcg.uniform();
    BeltDriveInput<2> input;
    input.useCommand[0] = input.useCommand[1] = true;
    input.command[0] = speed;  // P1: speed, rad/s
    input.command[1] = -load;  // P2: braking load torque, N m
    return input;
  }
};

// The commands of a case, step by step (k from 1): P1's speed, P2's load torque and P1's friction
// coefficient.
struct CaseCommands {
  // Seed's commands of the options' case at their configuration's step.
  static CaseCommands of(const Options& o, unsigned long long seed) {
    const double h = stepOf(o);
    CaseCommands c;
    c.kase = o.kase;
    c.h = h;
    c.random = RandomCommands{Lcg{seed}};
    c.random.speedMax = o.speedMax;
    c.maxAcceleration = o.configuration.maxAcceleration;
    c.random.speedEvery = std::lround(0.5 / h);
    c.random.loadEvery = std::lround(0.7 / h);
    if (o.kase == Case::kFault) {  // a scenario's [[fault]] table: P1 wet, default ramps
      InjectedFault& wet = c.faults.fault[c.faults.count++];
      wet.kind = InjectedFaultKind::kFriction;
      wet.pulley = 0;
      wet.start = kWetFrom;
      wet.hasEnd = true;
      wet.end = kWetUntil;
      wet.ramp = kWetRamp;
      wet.value = kWetFriction;
    }
    return c;
  }
  Case kase = Case::kPaper;
  double h = kStep;
  RandomCommands random;
  double maxAcceleration = 0.0;  // rad/s^2, the configuration's (0: none)
  double appliedSpeed = 0.0;     // rad/s, P1's speed given at the last step
  InjectedFaultSchedule faults;  // the friction fault's table (kFault)
  // P1's speed for this step: the command, or the last one moved towards it by at most
  // maxAcceleration h (BeltDrivePlant::appliedSpeed, plant.hpp: what the products do).
  BeltDriveInput<2> limited(BeltDriveInput<2> input) {
    if (maxAcceleration > 0.0) {
      const double reach = maxAcceleration * h;
      double next = input.command[0];
      if (next > appliedSpeed + reach) next = appliedSpeed + reach;
      if (next < appliedSpeed - reach) next = appliedSpeed - reach;
      input.command[0] = next;
    }
    appliedSpeed = input.command[0];
    return input;
  }
  long steps(const Options& o) const {
    return std::lround((kase == Case::kRandom ? o.seconds : test::kPaperEndTime) / h);
  }
  BeltDriveInput<2> at(long k) {
    if (kase == Case::kRandom) return limited(random.at(k));
    return limited(test::paperScenarioInput(k, h, kase == Case::kSlip ? kSlipLoad : 25.0));
  }
  // P1's mu at step k, as the plant's injected faults give it (injected_faults.hpp).
  double frictionP1(long k, double nominal) const { return faults.frictionCoefficient(0, k * h, nominal); }
};

bool flaggedStep(const StepStatistics& s) {
  return (s.flags & (kStepNewtonNotConverged | kStepPnsNotConverged)) != 0;
}

struct Quantiles {
  double median, p99, worst;
};
Quantiles quantiles(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return {v[(n - 1) / 2], v[std::min(n - 1, (99 * n + 99) / 100 - 1)], v[n - 1]};
}

void printQuantiles(const char* what, const std::vector<double>& v, const char* unit) {
  const Quantiles q = quantiles(v);
  std::printf("%s median %.2f %s, p99 %.2f %s, worst %.2f %s\n", what, q.median, unit, q.p99, unit, q.worst, unit);
}

template <int NE>
int paper(const Options& o) {
  const double h = stepOf(o);
  Bench<NE> d;
  d.stepSize = h;
  if (!d.start(d.config(o))) {
    std::printf("%d elements: set-up or statics failed\n", NE);
    return 1;
  }
  const int steps = static_cast<int>(test::kPaperEndTime / h + 0.5);
  const int tail = static_cast<int>(test::kPaperTail / h + 0.5);
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
      std::printf("%d elements: fault at step %d (t = %.4f s), status %d\n", NE, k, k * h,
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
  const double h = stepOf(o);
  const long steps = std::lround(o.seconds / h);
  std::vector<double> shares;
  int faults = 0;
  for (unsigned long long seed = o.firstSeed; seed <= o.lastSeed; ++seed) {
    Bench<NE> d;
    d.stepSize = h;
    if (!d.start(d.config(o))) {
      std::printf("%d elements: set-up or statics failed\n", NE);
      return 1;
    }
    CaseCommands commands = CaseCommands::of(o, seed);
    long flagged = 0, run = 0, longest = 0, taken = 0, inInterval = 0;
    bool fault = false;
    for (long k = 1; k <= steps && !fault; ++k) {
      if (o.intervals && (k - 1) % commands.random.speedEvery == 0 && k > 1) {
        std::printf("    %.1f s: P1 %.2f rad/s, load %.1f N m, P2 %.3f rad/s, flagged %ld\n", k * h,
                    commands.random.speed, commands.random.load,
                    d.stepper->velocities()(Bench<NE>::Drive::pulleyDof(1, 2)), inInterval);
        inInterval = 0;
      }
      d.drive->setInput(commands.at(k));
      const StepStatistics s = d.stepper->step(*d.drive);
      ++taken;
      if (s.status != Status::kOk) {
        std::printf("  seed %llu: fault at t = %.4f s, status %d\n", seed, k * h, static_cast<int>(s.status));
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

// The converged stepping of the same mesh and step: reference stepping with tight tolerances
// (Newton to 1e-8 N absolute, 1e-10 relative, post-Newton to 1e-3 N, up to 20 of each).
PlantConfig convergedConfig(const Options& o) {
  PlantConfig c = configFor(o);
  c.integrator.stepping = Stepping::kReference;
  c.integrator.maxNewtonIterations = 20;
  c.integrator.maxPnsIterations = 20;
  c.integrator.relativeTolerance = 1e-10;
  return c;
}
template <int NE>
using Converged = test::GradedPaperDriveOf<NE>;

// What a controller reads, each in its scale: the span forces and P2's hub load in units of the
// pre-tension (400 N), P1's drive torque and P2's belt torque in units of the drive's friction
// capacity at mu 0.5 (50 N m, also the bench's largest load), omega_P2 in units of the paper's
// speed (12 rad/s, the belt at 1.2 m/s).
constexpr int kQuantities = 6;
constexpr const char* kQuantityName[kQuantities] = {"F1", "F2", "torque P1", "torque P2", "omega_P2", "hub P2"};
constexpr double kQuantityScale[kQuantities] = {400.0, 400.0, 50.0, 50.0, 12.0, 400.0};
// Of `drive` stepped by `stepper` (a fixture's own, or a copy of them), on fixture f's mesh.
template <class Fixture, class Drive, class Stepper>
void readQuantities(const Fixture& f, const Drive& drive, const Stepper& stepper, double (&out)[kQuantities]) {
  out[0] = f.spanForceOf(0, drive, stepper.positions(), stepper.velocities());
  out[1] = f.spanForceOf(1, drive, stepper.positions(), stepper.velocities());
  out[2] = drive.driveTorque(0);
  out[3] = drive.beltTorque(1);
  out[4] = stepper.velocities()(Drive::pulleyDof(1, 2));
  out[5] = drive.hubForce(1).norm();
}

// Gives a fixture's drive the commands of step k (and P1's friction where it changes).
template <class Fixture>
void command(Fixture& f, CaseCommands& commands, const BeltDriveInput<2>& input, long k) {
  f.drive->setInput(input);
  FrictionParameters friction = f.material->drive().contact().friction;
  const double nominal = friction.frictionCoefficient;
  const double mu = commands.frictionP1(k, nominal);
  if (mu != commands.frictionP1(k - 1, nominal)) {
    friction.frictionCoefficient = mu;
    (void)f.drive->setFriction(friction, 0);
  }
}

// The run error or the one-step error of the fixed-cost form against the converged stepping, both
// given the same commands (a benchmark, not a test).
//   run error: 10 ms window means of each quantity, the fixed-cost run against the converged run
//     (per quantity the median, p99 and worst window of |real-time - converged| in its scale);
//   one-step error (oneStep): at every step, from the fixed-cost run's own start state (a copy of
//     its drive, its integrator state taken over by the converged stepper), the converged step
//     against the fixed-cost step; per quantity the median, p99 and worst step, and how the
//     steps whose largest error exceeds 0.1 % and 1 % of its scale were flagged.
constexpr long kFlagContractSteps = 20;  // --require-flag: steps above 1 % the run must have
template <int NE>
int errors(const Options& o, bool oneStep) {
  using Drive = typename Bench<NE>::Drive;
  const double h = stepOf(o);
  const long window = std::lround(0.01 / h);  // steps: 10 ms
  std::vector<double> errors[kQuantities], largest;
  std::vector<unsigned char> flags;
  long referenceFlagged = 0;
  std::FILE* dump = o.dump != nullptr ? std::fopen(o.dump, "w") : nullptr;
  if (dump != nullptr && oneStep)
    std::fprintf(dump, "seed,step,flags,residual,pns_error,F1,F2,torque_P1,torque_P2,omega_P2,hub_P2\n");
  if (dump != nullptr && !oneStep)  // the window means, real-time and converged
    std::fprintf(dump, "seed,end_time,flagged,converged_flagged,speed_command,load,F1,F1_converged,F2,F2_converged,torque_P1,torque_P1_converged,torque_P2,"
                       "torque_P2_converged,omega_P2,omega_P2_converged,hub_P2,hub_P2_converged\n");
  const bool seeds = o.kase == Case::kRandom;
  for (unsigned long long seed = seeds ? o.firstSeed : 0; seed <= (seeds ? o.lastSeed : 0); ++seed) {
    Bench<NE> real;
    real.stepSize = h;
    std::unique_ptr<Converged<NE>> converged;  // the run error's converged run
    ReferenceStepper<Drive> convergedStep;      // the one-step error's stepper, set up once
    std::unique_ptr<Drive> scratch;             // the one-step error's copy of the drive
    if (!real.start(real.config(o))) {
      std::printf("%d elements: set-up or statics failed\n", NE);
      return 1;
    }
    if (oneStep) {
      if (!test::startAtRest(convergedStep, convergedConfig(o), real.stepper->positions())) return 1;
      scratch = std::make_unique<Drive>(*real.drive);
    } else {
      converged = std::make_unique<Converged<NE>>();
      converged->stepSize = h;
      if (!converged->start(convergedConfig(o))) return 1;
    }
    CaseCommands commands = CaseCommands::of(o, seed);
    const long steps = commands.steps(o);
    double sums[2][kQuantities] = {};
    long windowFlagged[2] = {};  // steps flagged in the window: real-time, converged
    for (long k = 1; k <= steps; ++k) {
      const BeltDriveInput<2> input = commands.at(k);
      command(real, commands, input, k);
      double qa[kQuantities] = {}, qb[kQuantities] = {};
      StepStatistics a, b;
      if (oneStep) {
        *scratch = *real.drive;
        ReferenceStepper<Drive> stepper = convergedStep;
        stepper.continueFrom(*real.stepper);
        b = stepper.step(*scratch);
        if (b.status == Status::kOk) readQuantities(real, *scratch, stepper, qb);
      } else {
        command(*converged, commands, input, k);
        b = converged->stepper->step(*converged->drive);
        if (b.status == Status::kOk) readQuantities(*converged, *converged->drive, *converged->stepper, qb);
      }
      a = real.stepper->step(*real.drive);
      if (a.status != Status::kOk || b.status != Status::kOk) {
        std::printf("  seed %llu: fault at t = %.4f s (real-time %d, converged %d)\n", seed, k * h,
                    static_cast<int>(a.status), static_cast<int>(b.status));
        return 1;
      }
      readQuantities(real, *real.drive, *real.stepper, qa);
      referenceFlagged += flaggedStep(b);
      if (oneStep) {
        double worst = 0.0;
        for (int j = 0; j < kQuantities; ++j) {
          errors[j].push_back(std::abs(qa[j] - qb[j]) / kQuantityScale[j]);
          worst = std::max(worst, errors[j].back());
        }
        largest.push_back(worst);
        flags.push_back(flaggedStep(a) ? 1 : 0);
        if (dump != nullptr) {
          std::fprintf(dump, "%llu,%ld,%u,%.6g,%.6g", seed, k, a.flags, a.residualNorm, a.pnsError);
          for (int j = 0; j < kQuantities; ++j) std::fprintf(dump, ",%.6g", errors[j].back());
          std::fprintf(dump, "\n");
        }
        continue;
      }
      flags.push_back(flaggedStep(a) ? 1 : 0);
      windowFlagged[0] += flaggedStep(a);
      windowFlagged[1] += flaggedStep(b);
      for (int j = 0; j < kQuantities; ++j) {
        sums[0][j] += qa[j];
        sums[1][j] += qb[j];
      }
      if (k % window == 0) {
        if (dump != nullptr) {
          std::fprintf(dump, "%llu,%.3f,%ld,%ld,%.4g,%.4g", seed, k * h, windowFlagged[0], windowFlagged[1],
                       input.command[0], -input.command[1]);
          windowFlagged[0] = windowFlagged[1] = 0;
          for (int j = 0; j < kQuantities; ++j) std::fprintf(dump, ",%.6g,%.6g", sums[0][j] / window, sums[1][j] / window);
          std::fprintf(dump, "\n");
        }
        for (int j = 0; j < kQuantities; ++j) {
          errors[j].push_back(std::abs(sums[0][j] - sums[1][j]) / window / kQuantityScale[j]);
          sums[0][j] = sums[1][j] = 0.0;
        }
      }
    }
  }
  if (dump != nullptr) std::fclose(dump);
  long flagged = 0;
  for (unsigned char f : flags) flagged += f;
  std::printf("%d elements, %s error against the converged stepping, %s, step %.0e s, %zu steps%s: real-time "
              "flagged %ld, converged flagged %ld\n", NE, oneStep ? "one-step" : "run", caseName(o.kase), h,
              flags.size(), oneStep ? "" : " (windows of 10 ms)", flagged, referenceFlagged);
  for (int j = 0; j < kQuantities; ++j) {
    const Quantiles q = quantiles(errors[j]);
    std::printf("  %-9s (of %3.0f): median %.4f %%, p99 %.4f %%, worst %.4f %%\n", kQuantityName[j],
                kQuantityScale[j], 100 * q.median, 100 * q.p99, 100 * q.worst);
  }
  int result = 0;
  if (oneStep) {
    for (double bound : {1e-3, 1e-2}) {
      long above = 0, caught = 0, wrong = 0;
      for (std::size_t i = 0; i < largest.size(); ++i) {
        above += largest[i] > bound;
        caught += largest[i] > bound && flags[i];
        wrong += largest[i] <= bound && flags[i];
      }
      std::printf("  steps with an error above %.1f %% of its scale: %ld (%.3f %%), flagged %ld of them; flagged "
                  "below it %ld (%.3f %% of steps)\n", 100 * bound, above, 100.0 * above / largest.size(), caught,
                  wrong, 100.0 * wrong / largest.size());
      if (o.requireFlag && bound == 1e-2) {
        const bool enough = above >= kFlagContractSteps;
        const bool catches = enough && caught >= 0.99 * static_cast<double>(above);
        const bool spares = wrong <= 0.005 * static_cast<double>(largest.size());
        std::printf("  flag contract (>= 99 %% of >= %ld steps above 1 %% marked, <= 0.5 %% of steps marked below "
                    "it): %s\n", kFlagContractSteps, catches && spares ? "PASS" : (enough ? "FAIL" : "FAIL (too few steps above 1 %)"));
        if (!(catches && spares)) result = 1;
      }
    }
  }
  return result;
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
  bool errorMode = false, oneStepMode = false;
  Options o;
  const auto usage = [] {
    std::fprintf(stderr, "usage: bench_eulerian [16|24] [paper|random|slip|fault] [--config pc|main|mcu] "
                         "[--set name=value ...] [--seconds T] [--speed-max W] [--seeds A-B] [--intervals] [--error|--one-step] "
                         "[--dump FILE] [--require-flag] [--callgrind FROM COUNT]\n");
    return 2;
  };
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (std::strcmp(a, "16") == 0 || std::strcmp(a, "24") == 0) {
      elements = std::atoi(a);
    } else if (std::strcmp(a, "paper") == 0) {
      o.kase = Case::kPaper;
    } else if (std::strcmp(a, "random") == 0) {
      o.kase = Case::kRandom;
    } else if (std::strcmp(a, "slip") == 0) {
      o.kase = Case::kSlip;
    } else if (std::strcmp(a, "fault") == 0) {
      o.kase = Case::kFault;
    } else if (std::strcmp(a, "--error") == 0) {
      errorMode = true;
    } else if (std::strcmp(a, "--one-step") == 0) {
      oneStepMode = true;
    } else if (std::strcmp(a, "--config") == 0 && i + 1 < argc) {
      const char* name = argv[++i];
      bool found = false;
      for (const Configuration& c : kConfigurations)
        if (std::strcmp(c.name, name) == 0) o.configuration = c, found = true;
      if (!found) {
        std::fprintf(stderr, "bench_eulerian: unknown configuration '%s' (pc, main, mcu)\n", name);
        return 2;
      }
    } else if (std::strcmp(a, "--set") == 0 && i + 1 < argc) {
      if (!parseSet(argv[++i], o)) {
        std::fprintf(stderr, "bench_eulerian: unknown setting '%s'\n", argv[i]);
        return 2;
      }
    } else if (std::strcmp(a, "--require-flag") == 0) {
      o.requireFlag = true;
    } else if (std::strcmp(a, "--intervals") == 0) {
      o.intervals = true;
    } else if (std::strcmp(a, "--dump") == 0 && i + 1 < argc) {
      o.dump = argv[++i];
    } else if (std::strcmp(a, "--speed-max") == 0 && i + 1 < argc) {
      o.speedMax = std::atof(argv[++i]);
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
      return usage();
    }
  }
  const bool measuresError = errorMode || oneStepMode;
  if ((errorMode && oneStepMode) || (o.requireFlag && !oneStepMode) ||
      (!measuresError && (o.kase == Case::kSlip || o.kase == Case::kFault)))
    return usage();
  const PlantConfig shown = configFor(o);
  std::printf("configuration %s: step %.0e s, %s, contact %.0e / %.0e N/m^3; settings: newton %d, frozen %d, "
              "refresh %d, passes %d, pairs %d, tol %.3g N\n", o.configuration.name, stepOf(o),
              shown.integrator.newmark ? "trapezoidal rule (Newmark)" : "generalized-alpha", o.configuration.contact,
              o.configuration.bristle, o.newton, o.frozen, o.refresh > 0 ? o.refresh : elements, o.passes, o.pairs,
              o.tol);
  if (!shown.integrator.newmark) std::printf("  spectral radius %.2f\n", shown.integrator.spectralRadius);
  if (measuresError) return elements == 16 ? errors<16>(o, oneStepMode) : errors<24>(o, oneStepMode);
  const bool randomMode = o.kase == Case::kRandom;
  if (elements == 16) return randomMode ? random<16>(o) : paper<16>(o);
  return randomMode ? random<24>(o) : paper<24>(o);
}
