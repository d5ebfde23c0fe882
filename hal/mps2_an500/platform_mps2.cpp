// MPS2-AN500 backend (Cortex-M7): console and exit through ARM semihosting.
// Exit uses SYS_EXIT_EXTENDED, whose parameter block carries the status: on AArch32 the plain
// SYS_EXIT can only say "success" or "error", and QEMU would turn every failure into status 1.
// The test `semihosting_exit_status_reaches_qemu` pins that a status of 42 arrives as 42.
// No stdio and no librdimon: both pull malloc into the image.
#include "hal/platform.hpp"
#include "semihosting.hpp"

namespace hal {

void init() {}

void consoleWrite(const char* text, std::size_t length) {
  char chunk[129];
  while (length > 0) {
    const std::size_t n = length < 128u ? length : 128u;
    for (std::size_t i = 0; i < n; ++i) chunk[i] = text[i];
    chunk[n] = '\0';
    semihosting::call(semihosting::kSysWrite0, chunk);
    text += n;
    length -= n;
  }
}

void consoleWrite(const char* text) { semihosting::call(semihosting::kSysWrite0, text); }

void exitProgram(int status) {
  const std::uint32_t block[2] = {semihosting::kAdpStoppedApplicationExit,
                                  static_cast<std::uint32_t>(status)};
  semihosting::call(semihosting::kSysExitExtended, block);
  for (;;) {
    // Not reached under QEMU; on a board without a debugger, park the core.
    __asm__ volatile("wfi");
  }
}

const char* platformName() { return "mps2-an500-cortex-m7"; }

}  // namespace hal

// The startup code ends main() through here.
extern "C" [[noreturn]] void beltsim_exit(int status) { hal::exitProgram(status); }
