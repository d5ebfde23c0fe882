// Timing statistics of the loop: step execution time and tick jitter. Fixed memory, O(1) per
// sample: exact count, min, max and mean, and a log-linear histogram (32 bins per power of two,
// so a percentile read from it is at most 1/32 above the true value) for median and p99: fine
// enough for a bound on the worst/median ratio.
// Readable at run time; printed at exit by the firmware.
#pragma once
#include <cstdint>

namespace beltsim::fw {

class TimingHistogram {
 public:
  static constexpr int kSubBinsLog2 = 5;
  static constexpr int kSubBins = 1 << kSubBinsLog2;  // per power of two
  static constexpr int kOctaves = 32;     // values up to 2^36 ns (69 s); longer ones in the last bin
  static constexpr int kBins = kSubBins * kOctaves;

  void add(std::uint64_t value) {
    ++count_;
    sum_ += value;
    if (count_ == 1 || value < min_) min_ = value;
    if (value > max_) {
      max_ = value;
      maxSample_ = count_;
    }
    ++bins_[binOf(value)];
  }

  std::uint64_t count() const { return count_; }
  std::uint64_t min() const { return count_ ? min_ : 0; }
  std::uint64_t max() const { return max_; }
  std::uint64_t maxSample() const { return maxSample_; }  // which sample (1-based) was the maximum
  std::uint64_t mean() const { return count_ ? sum_ / count_ : 0; }
  // Upper edge of the bin holding the q-quantile (q in [0, 1]), capped by the exact maximum.
  std::uint64_t quantile(double q) const {
    if (count_ == 0) return 0;
    std::uint64_t rank = static_cast<std::uint64_t>(q * static_cast<double>(count_));
    if (rank >= count_) rank = count_ - 1;
    std::uint64_t seen = 0;
    for (int b = 0; b < kBins; ++b) {
      seen += bins_[b];
      if (seen > rank) {
        const std::uint64_t edge = upperEdge(b);
        return edge < max_ ? edge : max_;
      }
    }
    return max_;
  }
  std::uint32_t bin(int b) const { return bins_[b]; }
  static std::uint64_t upperEdge(int b) {
    if (b < kSubBins) return static_cast<std::uint64_t>(b) + 1;  // 0..kSubBins-1 exact
    const int octave = b / kSubBins, sub = b % kSubBins;
    const std::uint64_t base = std::uint64_t{1} << (octave + kSubBinsLog2 - 1);
    return base + (base / kSubBins) * static_cast<std::uint64_t>(sub + 1);
  }
  static int binOf(std::uint64_t v) {
    if (v < static_cast<std::uint64_t>(kSubBins)) return static_cast<int>(v);
    int msb = 63;
    while (((v >> msb) & 1u) == 0) --msb;  // bounded: at most 63 iterations
    const int octave = msb - kSubBinsLog2 + 1;  // v in [2^msb, 2^(msb+1)): octave >= 1
    const int sub = static_cast<int>((v >> (msb - kSubBinsLog2)) & (kSubBins - 1));
    const int b = octave * kSubBins + sub;
    return b < kBins ? b : kBins - 1;
  }

 private:
  std::uint64_t count_ = 0, sum_ = 0, min_ = 0, max_ = 0, maxSample_ = 0;
  std::uint32_t bins_[kBins] = {};
};

struct LoopTiming {
  TimingHistogram stepTime;   // ns from the tick to the end of the output write
  TimingHistogram tickJitter; // |actual tick period - nominal| in ns
  // Overruns are counted once, by PlantLoop (overruns(), and in every output frame).
};

}  // namespace beltsim::fw
