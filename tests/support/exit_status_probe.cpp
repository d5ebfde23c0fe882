// Ends with status 42 through the HAL, so a test can check that statuses reach the host intact
// (on the board: semihosting SYS_EXIT_EXTENDED -> QEMU's exit code).
#include "hal/platform.hpp"

int main() {
  hal::init();
  hal::consoleWrite("exit_status_probe: exiting with 42\n");
  hal::exitProgram(42);
}
