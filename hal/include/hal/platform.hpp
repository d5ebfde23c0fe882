// The platform interface the application (firmware loop, tests) sees. One backend per build,
// chosen by BELTSIM_PLATFORM: `linux` (x86-64 host and aarch64) or `mps2_an500` (Cortex-M7 board
// under qemu-system-arm). The application never touches hardware; the model never includes this.
//
//   start-up    init, floating-point control register, console, exit
//   clock       monotonic nanoseconds (a free-running APB timer on the board: with QEMU -icount shift=S one
//               instruction is 2^S ns of virtual time, so the clock counts instructions); the
//               thread's CPU time where the platform knows it (Linux)
//   tick        periodic tick at the model rate (SysTick interrupt / absolute-time sleeps)
//   plant I/O   raw bytes of input and output frames (CMSDK UART0 / file descriptors, a UDP
//               socket for `beltsim hil`), and the transport's framing
//   trace       binary step records to a file (semihosting / POSIX file)
//   watchdog    start and feed
//   fault record  survives a warm reset (RAM outside .bss on the board)
#pragma once
#include <cstddef>
#include <cstdint>

namespace hal {

// ---- start-up -------------------------------------------------------------------------------------
// Initialise the platform: sets the floating-point control register to round-to-nearest, no
// flush-to-zero, no default-NaN (FPSCR = 0 on Cortex-M, FPCR = 0 on aarch64, MXCSR = 0x1F80 on
// x86-64), so every target computes IEEE-754 double arithmetic the same way.
void init();
// True if the control register holds the value init() set (start-up self-check).
bool floatingPointConfigured();
// Name of the platform backend, for logs.
const char* platformName();
// Deepest stack use so far in bytes (board: the start-up code paints the stack, this finds the
// lowest overwritten word); 0 where the platform cannot tell (Linux).
std::size_t stackHighWaterBytes();

// ---- console and exit -----------------------------------------------------------------------------
void consoleWrite(const char* text, std::size_t length);
void consoleWrite(const char* text);  // zero-terminated
// End the program with an exit status that reaches the host (QEMU's exit code on the board).
[[noreturn]] void exitProgram(int status);

// ---- clock ------------------------------------------------------------------------------------------
// Monotonic time in nanoseconds since init(), never stepping back (board: resolution one timer
// count, 40 ns; tests/support/clock_probe.cpp).
std::uint64_t monotonicNanoseconds();
// CPU time of the calling thread in nanoseconds: what a step computed, without the time the
// machine gave to others while it ran (a VM's steal, a higher-priority process). False where the
// platform cannot tell (board: the core runs nothing else, so wall time is CPU time).
bool cpuNanoseconds(std::uint64_t& nanoseconds);

// ---- periodic tick -------------------------------------------------------------------------------
// Start the tick with the given period; 0 = free-running (waitForTick returns at once: virtual
// time, for tests and lockstep runs; not available on the board, which always has SysTick).
bool startTick(std::uint32_t periodNanoseconds);
// Blocks until the next tick and returns how many tick periods have passed since the previous
// call (1 on time; k > 1 means k - 1 ticks were missed: an overrun).
std::uint32_t waitForTick();

// ---- plant I/O ------------------------------------------------------------------------------------
// How the transport delimits frames (docs/firmware.md, *HAL and platforms*): a byte stream
// (UART, pipe, TCP) carries frames back to back and the reader resynchronises; a datagram
// transport (UDP) carries one frame per datagram, whatever its bytes.
enum class PlantFraming : std::uint8_t { kByteStream, kDatagram };
PlantFraming plantFraming();
// Non-blocking: copies up to `capacity` received bytes, returns how many (0: nothing waiting).
// Datagram framing: one datagram per call; a longer one is cut to `capacity` bytes.
std::size_t plantRead(std::uint8_t* buffer, std::size_t capacity);
// Waits up to `timeoutMicroseconds` for received bytes without spinning where the platform can
// sleep (Linux: poll; a signal ends the wait early); true if some may be waiting. The board
// returns at once (its UART is polled): the caller's wait loop spins there.
bool plantWait(std::uint32_t timeoutMicroseconds);
// Sends `length` bytes (blocking until the transmitter took them). Datagram framing: one datagram
// to the last sender (dropped before anyone sent).
void plantWrite(const std::uint8_t* data, std::size_t length);

// ---- trace sink ------------------------------------------------------------------------------------
// Binary step records to a host file (semihosting on the board). Returns false if not possible.
bool traceOpen(const char* path);
bool traceWrite(const std::uint8_t* data, std::size_t length);
void traceClose();

// ---- watchdog --------------------------------------------------------------------------------------
// Starts the watchdog with the given timeout; false if the platform has none (then feeding is a
// no-op). The board resets if it is not fed in time.
bool watchdogStart(std::uint32_t timeoutMicroseconds);
void watchdogFeed();

// ---- persistent fault / reset-reason record ----------------------------------------------------
struct FaultRecord {
  std::uint32_t resets = 0;     // warm resets seen since power-on
  std::uint32_t faultCode = 0;  // last fault the application recorded (0: none)
  std::uint32_t step = 0;       // step index at which it was recorded
};
// The record left by the previous run of this power cycle (zeros after power-on).
FaultRecord faultRecordRead();
void faultRecordWrite(const FaultRecord& record);
// Warm reset of the system (the fault record survives). Not available on Linux: returns.
void systemReset();

}  // namespace hal
