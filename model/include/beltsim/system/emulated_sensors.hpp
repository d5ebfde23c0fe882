// The sensors a drive controller reads (docs/injected_faults.md, "Sensors"): an incremental
// encoder on every pulley and a load cell on every span, read once per step from the plant's
// truth, with the sensor kinds of the injected-fault schedule acting on the readings. The truth
// itself is never changed.
//
// Without a sensor fault on it, a reading is the quantised truth:
//   encoder count  floor(angle / (2 pi) * countsPerRevolution), saturated to 32 bits;
//   load cell      round(spanForce / resolution) * resolution (ties up).
// With one, the faults act on the quantised reading in this order:
//   encoder    1. the counter adds the truth's count increment of the step: encoder_stuck holds
//                 the output and loses the increment; encoder_reverse counts it backwards;
//                 encoder_dropout loses each count with probability level * rate (lost counts
//                 stay lost); 2. + round(level * offset); 3. + round(level * std * z);
//                 4. saturated to 32 bits.
//   load cell  load_cell_stuck holds the output; else ((q * gain) + level * offset) + level * std * z,
//                 gain = 1 + level * (value - 1) (value itself at level 1); no second quantising.
// z: a standard normal draw from the table's own sequence (seed), the sum of 12 uniform draws
// minus 6 (mean 0, variance exactly 1, tails cut at 6): + and * only, so the same bits on every
// target. Draws are taken only while the table acts, so a seed gives the same numbers whatever
// runs before the fault.
#pragma once
#include <cmath>
#include <cstdint>

#include "beltsim/core/detmath.hpp"
#include "beltsim/core/status.hpp"
#include "beltsim/system/injected_faults.hpp"

namespace beltsim {

struct SensorSettings {
  double encoderCountsPerRevolution = 65536.0;  // incremental encoder on each pulley (16 bit)
  double loadCellResolution = 0.5;              // N, span-force load cells

  ParameterError validate() const {
    if (!(isFinite(encoderCountsPerRevolution) && encoderCountsPerRevolution >= 1.0 &&
          encoderCountsPerRevolution <= 1e9))
      return ParameterError::invalid("encoder_counts_per_revolution");
    if (!(isFinite(loadCellResolution) && loadCellResolution > 0.0 && loadCellResolution <= 1e6))
      return ParameterError::invalid("load_cell_resolution");
    return ParameterError::success();
  }
};

// SplitMix64 (Steele, Lea and Flood 2014): a 64-bit counter passed through a mixing function.
// Integer arithmetic only; the same sequence on every target.
class SensorRandom {
 public:
  void seed(std::uint64_t s) { state_ = s; }
  std::uint64_t next() {
    state_ += 0x9E3779B97F4A7C15ull;
    std::uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1): the top 53 bits.
  double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
  // Mean 0, variance 1 (Irwin-Hall of 12).
  double standardNormal() {
    double sum = 0.0;
    for (int i = 0; i < 12; ++i) sum += uniform();
    return sum - 6.0;
  }

 private:
  std::uint64_t state_ = 0;
};

// NP: pulleys (and spans) compiled in.
template <int NP>
class EmulatedSensors {
 public:
  // Counts a dropout draws one by one in a step; beyond (a pulley turning faster than
  // kMaxDropoutDraws counts per step: 16-bit encoder, 1 ms, above 24 rad/s), the rest lose
  // round(level * rate * rest) counts. Bounds the tick's work: 256 draws per pulley.
  static constexpr std::int64_t kMaxDropoutDraws = 256;

  ParameterError setUp(const SensorSettings& settings, const InjectedFaultSchedule& schedule, int pulleyCount) {
    if (pulleyCount < 0 || pulleyCount > NP) return ParameterError::invalid("pulley_count");
    ParameterError e = settings.validate();
    if (!e.ok()) return e;
    e = schedule.validate(pulleyCount);
    if (!e.ok()) return e;
    settings_ = settings;
    schedule_ = schedule;
    schedule_.clearLiveTables();  // live tables wait for the bench (injected_faults.hpp)
    pulleyCount_ = pulleyCount;
    started_ = false;
    for (int p = 0; p < NP; ++p) {
      encoderFaulted_[p] = loadCellFaulted_[p] = false;
      encoder_[p] = 0;
      loadCell_[p] = 0.0;
      counter_[p] = lastTruth_[p] = 0;
    }
    for (int k = 0; k < schedule.count; ++k) {
      const InjectedFault& f = schedule.fault[k];
      if (isEncoderFault(f.kind)) encoderFaulted_[f.pulley] = true;
      if (isLoadCellFault(f.kind)) loadCellFaulted_[f.pulley] = true;
      random_[k].seed(f.seed);
    }
    return e;
  }

  // The readings at the step's end time t from the truth: angle[p] (rad, unwrapped) and
  // spanForce[k] (N, span k from pulley k to k + 1), both pulleyCount long. Once per step.
  void read(double t, const double* angle, const double* spanForce) {
    const double countsPerRadian = settings_.encoderCountsPerRevolution / (2.0 * detmath::kPi);
    for (int p = 0; p < pulleyCount_; ++p) {
      const double counts = std::floor(angle[p] * countsPerRadian);
      if (encoderFaulted_[p]) readFaultedEncoder(t, p, counts);
      else encoder_[p] = saturated(counts);
    }
    const double resolution = settings_.loadCellResolution;
    for (int k = 0; k < pulleyCount_; ++k) {
      const double quantised = std::floor(spanForce[k] / resolution + 0.5) * resolution;
      if (loadCellFaulted_[k]) readFaultedLoadCell(t, k, quantised);
      else loadCell_[k] = quantised;
    }
    started_ = true;
  }

  // Tunes table k of the sensors' copy of the schedule from time t on (the plant's copy gets the
  // same call: InjectedFaultApplier::tune).
  ParameterError tune(int k, double t, bool active, double value) { return schedule_.tune(k, t, active, value); }

  std::int32_t encoderCount(int p) const { return encoder_[p]; }
  double loadCell(int k) const { return loadCell_[k]; }
  const SensorSettings& settings() const { return settings_; }

 private:
  static std::int32_t saturated(double counts) {
    if (!(counts == counts)) return 0;  // NaN (a faulted step's truth): no conversion of it
    return counts > 2147483647.0 ? 2147483647 : counts < -2147483648.0 ? (-2147483647 - 1) : static_cast<std::int32_t>(counts);
  }
  // A count as an integer, clamped to +-2^53 (where doubles stop counting every integer).
  static std::int64_t wholeCounts(double counts) {
    const double limit = 9007199254740992.0;
    if (!(counts == counts)) return 0;  // NaN
    return static_cast<std::int64_t>(counts > limit ? limit : counts < -limit ? -limit : counts);
  }
  static double rounded(double x) { return std::floor(x + 0.5); }

  void readFaultedEncoder(double t, int p, double counts) {
    const std::int64_t truth = wholeCounts(counts);
    std::int64_t increment = started_ ? truth - lastTruth_[p] : 0;
    if (!started_) counter_[p] = truth;
    lastTruth_[p] = truth;
    bool stuck = false, reverse = false;
    double offset = 0.0, noise = 0.0;
    for (int k = 0; k < schedule_.count; ++k) {
      const InjectedFault& f = schedule_.fault[k];
      if (!isEncoderFault(f.kind) || f.pulley != p) continue;
      const double level = f.level(t);
      if (!(level > 0.0)) continue;
      switch (f.kind) {
        case InjectedFaultKind::kEncoderStuck: stuck = true; break;
        case InjectedFaultKind::kEncoderReverse: reverse = true; break;
        case InjectedFaultKind::kEncoderOffset: offset = rounded(level * f.amount(t)); break;
        case InjectedFaultKind::kEncoderNoise: noise = rounded(level * f.amount(t) * random_[k].standardNormal()); break;
        case InjectedFaultKind::kEncoderDropout: increment -= lostCounts(increment, level * f.amount(t), random_[k]); break;
        default: break;
      }
    }
    if (stuck && started_) return;  // the output holds; the step's counts are lost
    counter_[p] += reverse ? -increment : increment;
    encoder_[p] = saturated(static_cast<double>(counter_[p]) + offset + noise);
  }

  // Of |increment| counts, how many a dropout at `rate` loses, with the increment's sign.
  static std::int64_t lostCounts(std::int64_t increment, double rate, SensorRandom& random) {
    const std::int64_t n = increment < 0 ? -increment : increment;
    const std::int64_t drawn = n < kMaxDropoutDraws ? n : kMaxDropoutDraws;
    std::int64_t lost = 0;
    for (std::int64_t i = 0; i < drawn; ++i)
      if (random.uniform() < rate) ++lost;
    lost += static_cast<std::int64_t>(rounded(rate * static_cast<double>(n - drawn)));
    return increment < 0 ? -lost : lost;
  }

  void readFaultedLoadCell(double t, int span, double quantised) {
    bool stuck = false;
    double gain = 1.0, offset = 0.0, noise = 0.0;
    for (int k = 0; k < schedule_.count; ++k) {
      const InjectedFault& f = schedule_.fault[k];
      if (!isLoadCellFault(f.kind) || f.pulley != span) continue;
      const double level = f.level(t);
      if (!(level > 0.0)) continue;
      switch (f.kind) {
        case InjectedFaultKind::kLoadCellStuck: stuck = true; break;
        case InjectedFaultKind::kLoadCellGain: gain = level >= 1.0 ? f.amount(t) : 1.0 + level * (f.amount(t) - 1.0); break;
        case InjectedFaultKind::kLoadCellOffset: offset = level * f.amount(t); break;
        case InjectedFaultKind::kLoadCellNoise: noise = level * f.amount(t) * random_[k].standardNormal(); break;
        default: break;
      }
    }
    if (stuck && started_) return;  // the output holds
    loadCell_[span] = quantised * gain + offset + noise;
  }

  SensorSettings settings_;
  InjectedFaultSchedule schedule_;
  int pulleyCount_ = 0;
  bool started_ = false;
  bool encoderFaulted_[NP] = {};
  bool loadCellFaulted_[NP] = {};
  std::int32_t encoder_[NP] = {};
  double loadCell_[NP] = {};
  std::int64_t counter_[NP] = {};    // the encoder's counter (faulted pulleys only)
  std::int64_t lastTruth_[NP] = {};  // the truth's count at the previous read (faulted pulleys only)
  SensorRandom random_[kMaxInjectedFaults];
};

}  // namespace beltsim
