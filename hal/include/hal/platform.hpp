// The platform interface the application (firmware, tests) sees. One backend per build,
// chosen by BELTSIM_PLATFORM: `linux` (x86-64 host and aarch64) or `mps2_an500` (Cortex-M7,
// QEMU with semihosting). The application never talks to hardware directly.
#pragma once
#include <cstddef>

namespace hal {

// Initialise the platform before main() work (semihosting handles on the MPS2 board).
void init();

// Write bytes to the platform console (stdout on Linux, semihosting on the board).
void consoleWrite(const char* text, std::size_t length);
void consoleWrite(const char* text);  // zero-terminated

// End the program with an exit status that reaches the host (QEMU's exit code on the board).
[[noreturn]] void exitProgram(int status);

// Name of the platform backend, for logs.
const char* platformName();

}  // namespace hal
