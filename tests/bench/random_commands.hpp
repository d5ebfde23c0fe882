// The robustness benchmarks' random numbers (bench_robustness.cpp, bench_eulerian.cpp): Knuth's
// MMIX LCG, the top 53 bits as a double in [0, 1); the same seed gives the same commands on every
// machine.
#pragma once
#include <cstdint>

namespace beltsim::bench {

struct Lcg {
  std::uint64_t state;
  double uniform() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state >> 11) * (1.0 / 9007199254740992.0);
  }
};

}  // namespace beltsim::bench
