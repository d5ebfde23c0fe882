// The scripted command sequence of the firmware test images: the controller's part,
// played from a table instead of received. Pulley 1's input ramps 0 -> 12 (rad/s or N m, as its
// kind) over t = 0.05..0.35 s, then the first load-torque input after it steps to 25 N m at
// t = 0.45 s; every other input stays 0; a few bad frames in between that the loop must
// reject without effect on the model (each is followed by a valid frame one tick later).
// A second script plays the paper's scenario (paper [P] Sect. 4.3, tests/support/paper_scenario.hpp)
// for the instruction budget over its 2.45 s.
#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>

#include "frames.hpp"
#include "beltsim/system/profiles.hpp"

namespace beltsim::fw {

enum class ScriptedDefect : std::uint8_t { kNone, kNaN, kInfinity, kOutOfRange, kWrongMode, kDuplicate, kBadCrc };

// Which defect the script injects at tick k (1-based). The schedule is part of the test's
// expectation: 6 rejected frames when the run lasts at least 300 ticks.
inline ScriptedDefect scriptedDefectAt(std::uint32_t tick) {
  switch (tick) {
    case 100: return ScriptedDefect::kNaN;
    case 150: return ScriptedDefect::kInfinity;
    case 200: return ScriptedDefect::kOutOfRange;
    case 250: return ScriptedDefect::kWrongMode;
    case 260: return ScriptedDefect::kDuplicate;
    case 280: return ScriptedDefect::kBadCrc;
    default: return ScriptedDefect::kNone;
  }
}
constexpr std::uint32_t kScriptedDefectCount = 6;

// The first input after pulley 1's that is a load torque (kFramePulleys if there is none).
inline int firstLoadInput(const CommandFrame& f) {
  int load = 1;
  while (load < kFramePulleys && f.inputKind[load] != 3) ++load;  // 3: PulleyInput::kLoadTorque
  return load;
}

// The encoded command frame for tick k (the command for the step ending at t = k h), for a plant
// whose zero command is `base` (commandFrameFor its configuration).
inline std::size_t scriptedCommandBytes(std::uint32_t tick, double stepSize, const CommandFrame& base, bool withDefects,
                                        std::uint8_t (&out)[kCommandFrameSize]) {
  const double t = static_cast<double>(tick) * stepSize;
  CommandFrame f = base;
  f.sequence = tick;
  f.input[0] = linearRamp(t, 0.05, 0.35, 0.0, 12.0);
  const int load = firstLoadInput(f);
  if (load < kFramePulleys) f.input[load] = t >= 0.45 ? 25.0 : 0.0;
  const ScriptedDefect d = withDefects ? scriptedDefectAt(tick) : ScriptedDefect::kNone;
  switch (d) {
    case ScriptedDefect::kNaN: f.input[0] = std::numeric_limits<double>::quiet_NaN(); break;
    case ScriptedDefect::kInfinity: f.input[load < kFramePulleys ? load : 0] = std::numeric_limits<double>::infinity(); break;
    case ScriptedDefect::kOutOfRange: f.input[0] = 1e3; break;
    case ScriptedDefect::kWrongMode: f.inputKind[0] = static_cast<std::uint8_t>(f.inputKind[0] == 1 ? 2 : 1); break;
    case ScriptedDefect::kDuplicate: f.sequence = tick - 1; f.input[0] = -5.0; break;
    default: break;
  }
  encodeCommand(f, out);
  if (d == ScriptedDefect::kBadCrc) out[20] ^= 0x40u;  // a flipped bit on the wire
  return kCommandFrameSize;
}

// The paper's scenario as command frames, no defects: pulley 1's input ramps 0 -> 12 over
// t = 0.05..0.6 s, the first load-torque input rises smoothly 0 -> 25 N m over 1.0..1.5 s.
// Never inlined (as GCC chose while main.cpp called it): inlined into the tick loop, its cosine
// calls moved GCC's inlining of the model in the same unit (2.6 KB more flash on the Cortex-M7).
[[gnu::noinline]] inline std::size_t paperCommandBytes(std::uint32_t tick, double stepSize, const CommandFrame& base,
                                     std::uint8_t (&out)[kCommandFrameSize]) {
  CommandFrame f = base;
  f.sequence = tick;
  const double t = static_cast<double>(tick) * stepSize;
  f.input[0] = linearRamp(t, 0.05, 0.6, 0.0, 12.0);
  const int load = firstLoadInput(f);
  if (load < kFramePulleys) f.input[load] = smoothStep(t, 1.0, 1.5, 0.0, 25.0);
  encodeCommand(f, out);
  return kCommandFrameSize;
}

}  // namespace beltsim::fw
