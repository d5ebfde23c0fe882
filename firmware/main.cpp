// Firmware entry point: the same main on Cortex-M7, aarch64 and the host.
#include "hal/platform.hpp"

int main() {
  hal::init();
  hal::consoleWrite("beltsim firmware on ");
  hal::consoleWrite(hal::platformName());
  hal::consoleWrite("\n");
  return 0;
}
