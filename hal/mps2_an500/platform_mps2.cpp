// MPS2-AN500 backend (Cortex-M7 under qemu-system-arm -M mps2-an500).
//   console, exit, trace   ARM semihosting (SYS_WRITE0, SYS_OPEN/WRITE/CLOSE, SYS_EXIT_EXTENDED);
//                          no stdio and no librdimon, both pull malloc into the image
//   clock                  CMSDK APB timer 1 free-running at the APB clock (25 MHz), 40 ns per count;
//                          no CPU time of its own (the core runs nothing else)
//   tick                   SysTick on the processor clock (25 MHz on this board), interrupt per tick
//   plant I/O              CMSDK APB UART0 at 0x40004000, polled; a byte stream
//   watchdog               CMSDK APB watchdog at 0x40008000 (NMI on the first expiry)
//   fault record           the last 64 bytes of data RAM, outside every section (survives a reset)
// Exit uses SYS_EXIT_EXTENDED, whose parameter block carries the status: on AArch32 the plain
// SYS_EXIT can only say "success" or "error". The test `exit_status_reaches_test_runner` pins it.
#include "hal/platform.hpp"
#include "semihosting.hpp"

namespace {

template <typename T = std::uint32_t>
volatile T& reg(std::uint32_t address) {
  return *reinterpret_cast<volatile T*>(address);
}

// SysTick (ARMv7-M architecture reference, B3.3).
constexpr std::uint32_t kSysTickCtrl = 0xE000E010u, kSysTickLoad = 0xE000E014u, kSysTickVal = 0xE000E018u;
constexpr std::uint32_t kSysTickEnable = 1u, kSysTickInterrupt = 2u, kSysTickProcessorClock = 4u;
constexpr std::uint32_t kProcessorClockHz = 25000000u;  // MPS2 FPGA images (and QEMU's model): 25 MHz
constexpr std::uint32_t kNanosecondsPerCount = 1000000000u / kProcessorClockHz;  // 40

// CMSDK APB UART0.
constexpr std::uint32_t kUartData = 0x40004000u, kUartState = 0x40004004u, kUartCtrl = 0x40004008u,
                        kUartBaudDiv = 0x40004010u;
constexpr std::uint32_t kUartTxFull = 1u, kUartRxFull = 2u;

// CMSDK APB watchdog.
constexpr std::uint32_t kWdogLoad = 0x40008000u, kWdogCtrl = 0x40008008u, kWdogIntClr = 0x4000800Cu,
                        kWdogLock = 0x40008C00u, kWdogPid0 = 0x40008FE0u;
constexpr std::uint32_t kWdogUnlockKey = 0x1ACCE551u;

// CMSDK APB timer 1: the clock, free-running from 0xFFFFFFFF down at the APB clock (25 MHz).
constexpr std::uint32_t kClockTimerCtrl = 0x40001000u, kClockTimerValue = 0x40001004u,
                        kClockTimerReload = 0x40001008u;

// System control block: application interrupt and reset control.
constexpr std::uint32_t kAircr = 0xE000ED0Cu;

std::uint32_t g_clockLow = 0;    // clock timer counts since init at the last read
std::uint32_t g_clockWraps = 0;  // wraps of the clock timer since init
volatile std::uint32_t g_ticks = 0;         // SysTick interrupts since the tick started
std::uint32_t g_ticksSeen = 0;               // value at the previous waitForTick
std::uint32_t g_reload = kProcessorClockHz / 1000u - 1u;  // counts per tick - 1
bool g_watchdog = false;
int g_traceHandle = -1;

// The fault record lives outside every section (linker symbol __fault_record__): a warm reset keeps it.
struct PersistentRecord {
  std::uint32_t magic;
  std::uint32_t check;  // ~magic ^ fields: detects a record left half-written
  hal::FaultRecord record;
};
constexpr std::uint32_t kRecordMagic = 0xB17DFA17u;
}  // namespace
extern "C" char __fault_record__[];  // linker script: 64 bytes at the top of the data RAM
namespace {
PersistentRecord& g_persistent = *reinterpret_cast<PersistentRecord*>(__fault_record__);

std::uint32_t recordCheck(const PersistentRecord& r) {
  return ~r.magic ^ r.record.resets ^ (r.record.faultCode * 2654435761u) ^ (r.record.step * 40503u);
}

}  // namespace

extern "C" void SysTick_Handler(void) { g_ticks = g_ticks + 1u; }

// The watchdog's first expiry raises NMI: record it and reset (the record survives the reset).
extern "C" void NMI_Handler(void) {
  hal::FaultRecord r = hal::faultRecordRead();
  r.faultCode = 0xD06u;  // watchdog expired
  hal::faultRecordWrite(r);
  hal::systemReset();
  for (;;) {
  }
}

extern "C" std::uint32_t __stack_bottom__, __stack_top__;

namespace hal {

void init() {
  // FPSCR = 0: round to nearest, no flush-to-zero, no default NaN, exception flags clear.
  __asm__ volatile("vmsr fpscr, %0" : : "r"(0u) : "memory");
  // Reset reason: a valid record means a warm reset; otherwise power-on (RAM holds garbage).
  if (g_persistent.magic == kRecordMagic && g_persistent.check == recordCheck(g_persistent)) {
    g_persistent.record.resets += 1u;
  } else {
    g_persistent.record = FaultRecord{};
  }
  g_persistent.magic = kRecordMagic;
  g_persistent.check = recordCheck(g_persistent);
  // Plant UART: transmit and receive on (QEMU drops bytes while the UART is disabled).
  reg(kUartBaudDiv) = 16u;
  reg(kUartCtrl) = 3u;
  // The clock: timer 1 free-running from 0xFFFFFFFF (no interrupt).
  reg(kClockTimerCtrl) = 0u;
  reg(kClockTimerReload) = 0xFFFFFFFFu;
  reg(kClockTimerValue) = 0xFFFFFFFFu;
  reg(kClockTimerCtrl) = 1u;
  g_clockLow = 0u;
  g_clockWraps = 0u;
  startTick(1000000u);
}

bool floatingPointConfigured() {
  std::uint32_t fpscr;
  __asm__ volatile("vmrs %0, fpscr" : "=r"(fpscr));
  // Only the control bits (rounding mode, FZ, DN, AHP): the cumulative exception flags may be set.
  return (fpscr & 0x07C00000u) == 0u;
}

const char* platformName() { return "mps2-an500-cortex-m7"; }

std::size_t stackHighWaterBytes() {
  const std::uint32_t* p = &__stack_bottom__;
  const std::uint32_t* top = &__stack_top__;
  while (p < top && *p == 0xA5A5A5A5u) ++p;
  return static_cast<std::size_t>(reinterpret_cast<const char*>(top) - reinterpret_cast<const char*>(p));
}

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
  const std::uint32_t block[2] = {semihosting::kAdpStoppedApplicationExit, static_cast<std::uint32_t>(status)};
  semihosting::call(semihosting::kSysExitExtended, block);
  for (;;) {
    // Not reached under QEMU; on a board without a debugger, park the core.
    __asm__ volatile("wfi");
  }
}

std::uint64_t monotonicNanoseconds() {
  // The clock timer's 32-bit count (171.8 s per wrap) extended to 64 bits: a read below the
  // previous one's count has passed a wrap. Called at least once per tick, far more often than
  // one wrap. Not SysTick's ticks plus its counter: under QEMU -icount the counter shows a wrap
  // before its interrupt is taken, and such a clock stepped back by one period
  // (tests/support/clock_probe.cpp).
  const std::uint32_t elapsed = 0xFFFFFFFFu - reg(kClockTimerValue);
  if (elapsed < g_clockLow) ++g_clockWraps;
  g_clockLow = elapsed;
  const std::uint64_t counts = (static_cast<std::uint64_t>(g_clockWraps) << 32) | elapsed;
  return counts * kNanosecondsPerCount;
}

bool cpuNanoseconds(std::uint64_t&) { return false; }

bool startTick(std::uint32_t periodNanoseconds) {
  const std::uint32_t counts = periodNanoseconds / kNanosecondsPerCount;
  if (counts < 2u || counts > 0x01000000u) return false;  // 24-bit counter; no free-running mode here
  reg(kSysTickCtrl) = 0u;
  g_reload = counts - 1u;
  reg(kSysTickLoad) = g_reload;
  reg(kSysTickVal) = 0u;
  g_ticks = 0u;
  g_ticksSeen = 0u;
  reg(kSysTickCtrl) = kSysTickEnable | kSysTickInterrupt | kSysTickProcessorClock;
  return true;
}

std::uint32_t waitForTick() {
  // Interrupts masked between the check and WFI, so a tick cannot slip in unseen; WFI still wakes
  // on the pending SysTick, which runs as soon as the mask is lifted.
  for (;;) {
    __asm__ volatile("cpsid i" ::: "memory");
    if (g_ticks != g_ticksSeen) {
      __asm__ volatile("cpsie i" ::: "memory");
      break;
    }
    __asm__ volatile("wfi\n\tcpsie i\n\tisb" ::: "memory");
  }
  const std::uint32_t now = g_ticks;
  const std::uint32_t elapsed = now - g_ticksSeen;
  g_ticksSeen = now;
  return elapsed;
}

PlantFraming plantFraming() { return PlantFraming::kByteStream; }

// Polled: the caller's wait loop spins on this (and feeds the watchdog) instead of sleeping.
bool plantWait(std::uint32_t) { return (reg(kUartState) & kUartRxFull) != 0u; }

std::size_t plantRead(std::uint8_t* buffer, std::size_t capacity) {
  std::size_t n = 0;
  while (n < capacity && (reg(kUartState) & kUartRxFull) != 0u) buffer[n++] = static_cast<std::uint8_t>(reg(kUartData));
  return n;
}

void plantWrite(const std::uint8_t* data, std::size_t length) {
  for (std::size_t i = 0; i < length; ++i) {
    while ((reg(kUartState) & kUartTxFull) != 0u) {
    }
    reg(kUartData) = data[i];
  }
}

bool traceOpen(const char* path) {
  std::uint32_t length = 0;
  while (path[length] != '\0' && length < 255u) ++length;
  const std::uint32_t block[3] = {reinterpret_cast<std::uint32_t>(path), semihosting::kOpenModeWriteBinary, length};
  const std::uint32_t handle = semihosting::call(semihosting::kSysOpen, block);
  g_traceHandle = handle == 0xFFFFFFFFu ? -1 : static_cast<int>(handle);
  return g_traceHandle >= 0;
}

bool traceWrite(const std::uint8_t* data, std::size_t length) {
  if (g_traceHandle < 0) return false;
  const std::uint32_t block[3] = {static_cast<std::uint32_t>(g_traceHandle), reinterpret_cast<std::uint32_t>(data),
                                  static_cast<std::uint32_t>(length)};
  return semihosting::call(semihosting::kSysWrite, block) == 0u;
}

void traceClose() {
  if (g_traceHandle < 0) return;
  const std::uint32_t block[1] = {static_cast<std::uint32_t>(g_traceHandle)};
  semihosting::call(semihosting::kSysClose, block);
  g_traceHandle = -1;
}

bool watchdogStart(std::uint32_t timeoutMicroseconds) {
  // CMSDK peripheral ID 0 of the watchdog is 0x24; anything else: no watchdog on this board.
  if ((reg(kWdogPid0) & 0xFFu) != 0x24u) return false;
  reg(kWdogLock) = kWdogUnlockKey;
  reg(kWdogLoad) = timeoutMicroseconds * (kProcessorClockHz / 1000000u);
  reg(kWdogCtrl) = 3u;  // interrupt (NMI) on expiry, reset on the second
  reg(kWdogLock) = 0u;
  g_watchdog = true;
  return true;
}

void watchdogFeed() {
  if (!g_watchdog) return;
  reg(kWdogLock) = kWdogUnlockKey;
  reg(kWdogIntClr) = 1u;  // clears the interrupt and reloads the counter
  reg(kWdogLock) = 0u;
}

FaultRecord faultRecordRead() { return g_persistent.record; }

void faultRecordWrite(const FaultRecord& record) {
  g_persistent.record = record;
  g_persistent.magic = kRecordMagic;
  g_persistent.check = recordCheck(g_persistent);
}

void systemReset() {
  __asm__ volatile("dsb" ::: "memory");
  reg(kAircr) = 0x05FA0004u;  // VECTKEY | SYSRESETREQ
  __asm__ volatile("dsb" ::: "memory");
  for (;;) {
  }
}

}  // namespace hal

// The startup code ends main() through here.
extern "C" [[noreturn]] void beltsim_exit(int status) { hal::exitProgram(status); }
