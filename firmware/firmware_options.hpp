// Build-time options of one firmware image. main.cpp is compiled once per configuration (the
// element count is a template argument); each image adds a small options.cpp compiled with its
// own definitions (see firmware/CMakeLists.txt and options.cpp for the list).
#pragma once
#include <cstdint>

namespace beltsim {
enum class MotorMode : std::uint8_t;  // system/plant.hpp: kSpeed = 1, kTorque = 2
}

namespace beltsim::fw {

// Where an image's commands come from (BELTSIM_FW_SCRIPTED: 0, 1, 2).
enum class CommandSource : std::uint8_t {
  kPlantIo = 0,      // command frames through the HAL's plant I/O (the product)
  kTestScript = 1,   // input_script.hpp's test sequence, with its bad frames
  kPaperScript = 2,  // input_script.hpp's paper scenario (paper [P] Sect. 4.3)
};

struct FirmwareOptions {
  std::uint32_t ticks;           // ticks to run; 0 = forever (the product)
  std::uint32_t tickNanoseconds; // tick period; 0 = free-running virtual time (Linux only)
  CommandSource commands;
  bool lockstep;                 // one step per received command frame (virtual time), no tick
  MotorMode motorMode;           // how pulley 1 is driven (BELTSIM_FW_MOTOR_MODE: 1 speed, 2 torque)
  std::uint32_t holdTicks;       // real time: ticks without a valid frame before the safe state (0: hold)
  bool overrunEntersSafeState;   // overrun policy
  std::uint32_t delayTick;       // test hook: stretch this tick's step ...
  std::uint32_t delayNanoseconds;  // ... by this much
  int maxNewtonIterations;       // test hook: > 0 overrides the configuration's Newton bound and
                                 // sets the reference tolerances 1e-8 / 1e-7 N (main.cpp)
  std::uint8_t expectedFault;    // the fault code the run must end with (0: none)
  const char* traceFile;         // binary trace of the output frames ("" = none)
  // Benchmark images: each of the first stepLogSize ticks' step time (ns, as the step histogram)
  // is kept here and printed after the run, so that scripts/instruction_budget.py reads exact
  // quantiles instead of histogram bins; null (no memory) in the product.
  std::uint32_t* stepLog;
  std::uint32_t stepLogSize;
  // Lockstep: the longest wait for the controller's next frame (ms of the HAL's clock) before the
  // run ends in the safe state "controller silent" (0: no limit). Under QEMU -icount the clock
  // counts the polling loop's instructions, so the limit is far above any controller's reply.
  std::uint32_t lockstepTimeoutMilliseconds;
  // Test hook: a friction fault on P1 (docs/injected_faults.md) from this time on (s, ramp 0.05 s)
  // to this coefficient, added to the configuration's faults with, from the same time, a bearing
  // drag on P2 and noise and dropouts of two sensors (firmware/main.cpp); a negative start: none.
  double frictionFaultStart;
  double frictionFaultValue;
};

extern const FirmwareOptions kFirmwareOptions;

}  // namespace beltsim::fw
