// The options of one firmware image, from its compile definitions (firmware/CMakeLists.txt).
#include "firmware_options.hpp"

#ifndef BELTSIM_FW_TICKS
#define BELTSIM_FW_TICKS 600
#endif
#ifndef BELTSIM_FW_TICK_NS
#define BELTSIM_FW_TICK_NS 0
#endif
#ifndef BELTSIM_FW_SCRIPTED
#define BELTSIM_FW_SCRIPTED 1
#endif
#ifndef BELTSIM_FW_LOCKSTEP
#define BELTSIM_FW_LOCKSTEP 0
#endif
#ifndef BELTSIM_FW_MOTOR_MODE
#define BELTSIM_FW_MOTOR_MODE 1
#endif
#ifndef BELTSIM_FW_HOLD_TICKS
#define BELTSIM_FW_HOLD_TICKS 0
#endif
#ifndef BELTSIM_FW_OVERRUN_SAFE
#define BELTSIM_FW_OVERRUN_SAFE 0
#endif
#ifndef BELTSIM_FW_DELAY_TICK
#define BELTSIM_FW_DELAY_TICK 0
#endif
#ifndef BELTSIM_FW_DELAY_NS
#define BELTSIM_FW_DELAY_NS 0
#endif
#ifndef BELTSIM_FW_MAX_NEWTON
#define BELTSIM_FW_MAX_NEWTON 0
#endif
#ifndef BELTSIM_FW_EXPECT_FAULT
#define BELTSIM_FW_EXPECT_FAULT 0
#endif
#ifndef BELTSIM_FW_TRACE
#define BELTSIM_FW_TRACE "firmware_trace.bin"
#endif

#ifndef BELTSIM_FW_STEP_LOG
#define BELTSIM_FW_STEP_LOG 0
#endif
#ifndef BELTSIM_FW_LOCKSTEP_TIMEOUT_MS
#define BELTSIM_FW_LOCKSTEP_TIMEOUT_MS 10000
#endif
#ifndef BELTSIM_FW_FRICTION_FAULT_START
#define BELTSIM_FW_FRICTION_FAULT_START -1.0
#endif
#ifndef BELTSIM_FW_FRICTION_FAULT_VALUE
#define BELTSIM_FW_FRICTION_FAULT_VALUE 0.0
#endif

namespace beltsim::fw {

#if BELTSIM_FW_STEP_LOG > 0
namespace {
std::uint32_t g_stepLog[BELTSIM_FW_STEP_LOG];
}
#define BELTSIM_FW_STEP_LOG_BUFFER g_stepLog
#else
#define BELTSIM_FW_STEP_LOG_BUFFER nullptr
#endif

const FirmwareOptions kFirmwareOptions = {
    BELTSIM_FW_TICKS,
    BELTSIM_FW_TICK_NS,
    static_cast<CommandSource>(BELTSIM_FW_SCRIPTED),
    BELTSIM_FW_LOCKSTEP != 0,
    static_cast<MotorMode>(BELTSIM_FW_MOTOR_MODE),
    BELTSIM_FW_HOLD_TICKS,
    BELTSIM_FW_OVERRUN_SAFE != 0,
    BELTSIM_FW_DELAY_TICK,
    BELTSIM_FW_DELAY_NS,
    BELTSIM_FW_MAX_NEWTON,
    BELTSIM_FW_EXPECT_FAULT,
    BELTSIM_FW_TRACE,
    BELTSIM_FW_STEP_LOG_BUFFER,
    BELTSIM_FW_STEP_LOG,
    BELTSIM_FW_LOCKSTEP_TIMEOUT_MS,
    BELTSIM_FW_FRICTION_FAULT_START,
    BELTSIM_FW_FRICTION_FAULT_VALUE,
};

}  // namespace beltsim::fw
