// ARM semihosting calls (ARM IHI 0098 "Semihosting for AArch32 and AArch64"), as QEMU implements
// them with -semihosting-config enable=on,target=native. Only the calls the board backend needs.
#pragma once
#include <cstdint>

namespace hal::semihosting {

enum Operation : std::uint32_t {
  kSysOpen = 0x01,           // {path, mode, path length} -> handle or -1
  kSysClose = 0x02,          // {handle}
  kSysWrite0 = 0x04,         // write a zero-terminated string to the debug console
  kSysWrite = 0x05,          // {handle, data, length} -> bytes NOT written
  kSysExitExtended = 0x20,   // exit with a reason and a 32-bit status (semihosting v2)
};
constexpr std::uint32_t kAdpStoppedApplicationExit = 0x20026;
constexpr std::uint32_t kOpenModeWriteBinary = 5;  // fopen mode "wb"

inline std::uint32_t call(std::uint32_t operation, const void* argument) {
  register std::uint32_t r0 __asm__("r0") = operation;
  register const void* r1 __asm__("r1") = argument;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

}  // namespace hal::semihosting
