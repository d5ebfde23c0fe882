// Reads the HAL's monotonic clock back to back across many tick periods and ends with status 0
// only if it never went back in time and covered the ticks it waited for. On the board the
// clock is SysTick's tick count plus its down-counter; a counter that has wrapped while its
// interrupt is not yet taken read as the old tick made the clock step back by one period, which
// showed as one step of the firmware's step log one tick period (1 ms) too slow.
// Test: hal_monotonic_clock_never_steps_back (tests/CMakeLists.txt).
#include <cstdint>

#include "hal/platform.hpp"

namespace {
void report(const char* text, std::uint64_t value) {
  char digits[24];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + value % 10u);
    value /= 10u;
  } while (value != 0u && n < 20);
  hal::consoleWrite(text);
  char out[24];
  for (int k = 0; k < n; ++k) out[k] = digits[n - 1 - k];
  out[n] = '\n';
  hal::consoleWrite(out, static_cast<std::size_t>(n + 1));
}
}  // namespace

int main() {
  hal::init();
  constexpr std::uint32_t kPeriodNs = 20000;  // 20 us: 500 SysTick counts on the board
  constexpr std::uint32_t kTicks = 3000;
  if (!hal::startTick(kPeriodNs)) {
    hal::consoleWrite("clock_probe: tick period not supported\n");
    hal::exitProgram(2);
  }
  (void)hal::waitForTick();
  const std::uint64_t start = hal::monotonicNanoseconds();
  std::uint64_t previous = start;
  std::uint64_t reads = 0, backwards = 0, worstBack = 0;
  std::uint32_t ticks = 0;
  while (ticks < kTicks) {
    // Reads until the next tick has passed (bounded: a tick comes every period).
    for (int k = 0; k < 1000000; ++k) {
      const std::uint64_t now = hal::monotonicNanoseconds();
      ++reads;
      if (now < previous) {
        ++backwards;
        if (previous - now > worstBack) worstBack = previous - now;
      }
      previous = now;
      if (now - start >= std::uint64_t{ticks + 1u} * kPeriodNs) break;
    }
    ++ticks;
  }
  report("clock_probe: reads ", reads);
  report("clock_probe: steps back ", backwards);
  report("clock_probe: largest step back ns ", worstBack);
  report("clock_probe: ns covered ", previous - start);
  // At least the periods waited for must have passed on the clock.
  const bool ok = backwards == 0 && previous - start >= std::uint64_t{kTicks} * kPeriodNs;
  hal::consoleWrite(ok ? "clock_probe: OK\n" : "clock_probe: FAILED\n");
  hal::exitProgram(ok ? 0 : 1);
}
