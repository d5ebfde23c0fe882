// The profiling images' side of model/include/beltsim/stepping/step_phase.hpp (compiled only
// with BELTSIM_STEP_PHASES): the clock read at each phase boundary of a fixed-cost step, summed
// per phase over the run and kept per phase for the slowest step. On the board under QEMU
// -icount shift=1 the clock counts instructions (2 ns each, read to one timer count = 40 ns);
// each boundary's own clock read (about 20 instructions) falls into the phase that begins.
// Defines beltsim::stepPhase: included by main.cpp, and only there.
#pragma once
#include <cstdint>

#include "beltsim/stepping/step_phase.hpp"
#include "hal/platform.hpp"
#include "text_format.hpp"

namespace beltsim {
namespace phases {

struct Profile {
  std::uint64_t total[kStepPhaseCount] = {};    // ns over the run
  std::uint64_t current[kStepPhaseCount] = {};  // ns in the step under way
  std::uint64_t worst[kStepPhaseCount] = {};    // ns in the slowest step
  std::uint64_t worstTotal = 0;
  std::uint64_t worstStep = 0;  // 1-based
  std::uint64_t steps = 0;
  std::uint64_t mark = 0;
  int phase = -1;  // the phase under way, -1 between steps
};
inline Profile g_profile;

inline const char* name(int phase) {
  static const char* const kNames[kStepPhaseCount] = {"predictor", "residual", "refactor", "columns",
                                                      "solve", "post_newton", "refresh"};
  return kNames[phase];
}

}  // namespace phases

void stepPhase(StepPhase phase) {
  phases::Profile& p = phases::g_profile;
  const std::uint64_t now = hal::monotonicNanoseconds();
  if (p.phase >= 0) p.current[p.phase] += now - p.mark;
  p.mark = now;
  if (phase != StepPhase::kEnd) {
    p.phase = static_cast<int>(phase);
    return;
  }
  p.phase = -1;
  ++p.steps;
  std::uint64_t sum = 0;
  for (int k = 0; k < kStepPhaseCount; ++k) sum += p.current[k];
  const bool slowest = sum > p.worstTotal;
  if (slowest) {
    p.worstTotal = sum;
    p.worstStep = p.steps;
  }
  for (int k = 0; k < kStepPhaseCount; ++k) {
    p.total[k] += p.current[k];
    if (slowest) p.worst[k] = p.current[k];
    p.current[k] = 0;
  }
}

namespace phases {

// Two lines: "phases mean ns: <phase> <ns> ..." (per step, over the run) and
// "phases worst ns (step S): <phase> <ns> ...".
template <typename Print>
void report(Print print) {
  fw::TextLine line;
  const Profile& p = g_profile;
  line.text("phases mean ns over ").u64(p.steps).text(" steps:");
  for (int k = 0; k < kStepPhaseCount; ++k) line.text(" ").text(name(k)).text(" ").u64(p.steps ? p.total[k] / p.steps : 0);
  print(line);
  line.text("phases worst ns (step ").u64(p.worstStep).text("):");
  for (int k = 0; k < kStepPhaseCount; ++k) line.text(" ").text(name(k)).text(" ").u64(p.worst[k]);
  print(line);
}

}  // namespace phases
}  // namespace beltsim
