// Entry point of every portable test image (host, aarch64, Cortex-M7).
#include "hal/platform.hpp"
#include "minitest.hpp"

#ifndef MINITEST_SUITE_NAME
#define MINITEST_SUITE_NAME "portable"
#endif

int main() {
  hal::init();
  const int failed = minitest::runAll(MINITEST_SUITE_NAME);
  return failed == 0 ? 0 : 1;
}
