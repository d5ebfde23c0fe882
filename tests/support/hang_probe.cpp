// Never ends: the test `hanging_image_is_killed_by_timeout` checks that the runner's timeout
// kills such an image (under QEMU on the board) and reports a failure.
#include "hal/platform.hpp"

int main() {
  hal::init();
  hal::consoleWrite("hang_probe: spinning forever\n");
  volatile unsigned long counter = 0;
  for (;;) counter = counter + 1;  // deliberately unbounded: this image exists to hang
}
