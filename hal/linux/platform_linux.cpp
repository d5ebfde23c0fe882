// Linux backend (x86-64 host, aarch64 boards and qemu-aarch64).
#include "hal/platform.hpp"

#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace hal {

void init() {}

void consoleWrite(const char* text, std::size_t length) {
  while (length > 0) {
    const ssize_t written = ::write(STDOUT_FILENO, text, length);
    if (written <= 0) return;  // console gone: nothing useful left to do
    text += written;
    length -= static_cast<std::size_t>(written);
  }
}

void consoleWrite(const char* text) { consoleWrite(text, std::strlen(text)); }

void exitProgram(int status) { std::exit(status); }

const char* platformName() {
#if defined(__aarch64__)
  return "linux-aarch64";
#elif defined(__x86_64__)
  return "linux-x86_64";
#else
  return "linux";
#endif
}

}  // namespace hal
