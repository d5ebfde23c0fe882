// Linux backend (x86-64 host, aarch64 boards and qemu-aarch64).
//   clock and tick   CLOCK_MONOTONIC; the tick sleeps to absolute deadlines (clock_nanosleep), so
//                    a late step does not shift the following ticks
//   plant I/O        file descriptors given by BELTSIM_PLANT_IN_FD / BELTSIM_PLANT_OUT_FD (none by
//                    default: reads return nothing, writes are dropped) or by
//                    attachPlantDescriptors (hal/linux_plant.hpp); a datagram socket is read one
//                    datagram a frame and answered to its controller, the one peer it locks to
//                    (datagrams from other addresses are dropped and counted)
//   CPU time         CLOCK_THREAD_CPUTIME_ID
//   trace            a POSIX file
//   watchdog         none (a supervisor process is the Linux way); feeding is a no-op
//   fault record     process memory only (a Linux process has no warm reset)
#include "hal/platform.hpp"
#include "hal/linux_plant.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

namespace hal {
namespace {

std::uint64_t nowRaw() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000u + static_cast<std::uint64_t>(ts.tv_nsec);
}

std::uint64_t g_start = 0;
std::uint64_t g_period = 0;    // ns; 0 = free-running
std::uint64_t g_deadline = 0;  // absolute, CLOCK_MONOTONIC ns
int g_plantIn = -1, g_plantOut = -1;
PlantFraming g_framing = PlantFraming::kByteStream;
sockaddr_storage g_peer{};  // datagram framing: the controller (or the last sender before the lock)
socklen_t g_peerLength = 0;
bool g_peerLocked = false;
std::uint32_t g_foreign = 0;  // datagrams from another address than the locked peer (and the bench)
sockaddr_storage g_bench{};  // the test bench (setPlantBench), if set
socklen_t g_benchLength = 0;
struct BenchSlot {
  std::uint8_t bytes[kBenchSlotBytes];
  std::size_t length;
};
BenchSlot g_benchQueue[kBenchQueueSlots];
int g_benchHead = 0, g_benchCount = 0;
std::uint32_t g_benchDropped = 0;
// A read drops at most this many before it returns (the socket's receive buffer holds fewer
// frames): a flood from another address cannot hide the controller's frame behind it.
constexpr int kMaxForeignPerRead = 4096;
int g_trace = -1;
FaultRecord g_record;

int fdFromEnvironment(const char* name) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return -1;
  char* end = nullptr;
  const long fd = std::strtol(text, &end, 10);
  return (end != nullptr && *end == '\0' && fd >= 0 && fd < 65536) ? static_cast<int>(fd) : -1;
}

bool writeAll(int fd, const std::uint8_t* data, std::size_t length) {
  while (length > 0) {
    const ssize_t n = ::write(fd, data, length);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    length -= static_cast<std::size_t>(n);
  }
  return true;
}

// A datagram socket keeps its message boundaries: each read is one frame.
PlantFraming framingOf(int fd) {
  int type = 0;
  socklen_t length = sizeof type;
  const bool datagram = fd >= 0 && ::getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) == 0 && type == SOCK_DGRAM;
  return datagram ? PlantFraming::kDatagram : PlantFraming::kByteStream;
}

bool samePeer(const sockaddr_storage& a, socklen_t aLength, const sockaddr_storage& b, socklen_t bLength) {
  return aLength == bLength && std::memcmp(&a, &b, aLength) == 0;
}

// The start of a command frame (firmware/frames.hpp): the datagram a controller sends.
bool looksLikeCommand(const std::uint8_t* data, std::size_t length) {
  return length >= 4 && data[0] == 'B' && data[1] == 'D' && data[3] == 1;
}

// The start of a test bench's frame (fault command or acknowledgement, types 3 and 4): before the
// lock, from any address but the bench's, it is foreign, never the datagram that picks the controller.
bool looksLikeBenchFrame(const std::uint8_t* data, std::size_t length) {
  return length >= 4 && data[0] == 'B' && data[1] == 'D' && (data[3] == 3 || data[3] == 4);
}

}  // namespace

void lockPlantPeer(const sockaddr* address, socklen_t length) {
  if (address == nullptr || length == 0 || length > static_cast<socklen_t>(sizeof g_peer)) return;
  g_peer = sockaddr_storage{};
  std::memcpy(&g_peer, address, length);
  g_peerLength = length;
  g_peerLocked = true;
}

std::uint32_t plantForeignDatagrams() { return g_foreign; }

void setPlantBench(const sockaddr* address, socklen_t length) {
  if (address == nullptr || length == 0 || length > static_cast<socklen_t>(sizeof g_bench)) return;
  g_bench = sockaddr_storage{};
  std::memcpy(&g_bench, address, length);
  g_benchLength = length;
}

std::size_t benchRead(std::uint8_t* buffer, std::size_t capacity) {
  if (g_benchCount == 0) return 0;
  const BenchSlot& slot = g_benchQueue[g_benchHead];
  const std::size_t n = slot.length < capacity ? slot.length : capacity;
  std::memcpy(buffer, slot.bytes, n);
  g_benchHead = (g_benchHead + 1) % kBenchQueueSlots;
  --g_benchCount;
  return n;
}

void benchWrite(const std::uint8_t* data, std::size_t length) {
  if (g_plantOut >= 0 && g_benchLength > 0)
    ::sendto(g_plantOut, data, length, 0, reinterpret_cast<const sockaddr*>(&g_bench), g_benchLength);
}

std::uint32_t benchDroppedDatagrams() { return g_benchDropped; }

void attachPlantDescriptors(int inFd, int outFd) {
  g_plantIn = inFd;
  g_plantOut = outFd;
  g_framing = framingOf(inFd);
  g_peerLength = 0;
  g_peerLocked = false;
  g_foreign = 0;
  g_benchLength = 0;
  g_benchHead = g_benchCount = 0;
  g_benchDropped = 0;
  if (g_plantIn >= 0) ::fcntl(g_plantIn, F_SETFL, ::fcntl(g_plantIn, F_GETFL) | O_NONBLOCK);
}

void init() {
#if defined(__aarch64__)
  // FPCR = 0: round to nearest, no flush-to-zero, no default NaN, no alternative half precision.
  __asm__ volatile("msr fpcr, %0" : : "r"(std::uint64_t{0}) : "memory");
#elif defined(__x86_64__)
  _mm_setcsr(0x1F80u);  // all exceptions masked, round to nearest, no FTZ/DAZ
#endif
  g_start = nowRaw();
  attachPlantDescriptors(fdFromEnvironment("BELTSIM_PLANT_IN_FD"), fdFromEnvironment("BELTSIM_PLANT_OUT_FD"));
}

bool floatingPointConfigured() {
#if defined(__aarch64__)
  std::uint64_t fpcr;
  __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
  return (fpcr & 0x07C00000u) == 0u;  // AHP, DN, FZ, RMode
#elif defined(__x86_64__)
  return (_mm_getcsr() & 0xFFC0u) == 0x1F80u;  // masks, rounding, FTZ, DAZ (flags ignored)
#else
  return true;
#endif
}

const char* platformName() {
#if defined(__aarch64__)
  return "linux-aarch64";
#elif defined(__x86_64__)
  return "linux-x86_64";
#else
  return "linux";
#endif
}

std::size_t stackHighWaterBytes() { return 0; }

void consoleWrite(const char* text, std::size_t length) {
  writeAll(STDOUT_FILENO, reinterpret_cast<const std::uint8_t*>(text), length);
}

void consoleWrite(const char* text) { consoleWrite(text, std::strlen(text)); }

void exitProgram(int status) { std::exit(status); }

std::uint64_t monotonicNanoseconds() { return nowRaw() - g_start; }

bool cpuNanoseconds(std::uint64_t& nanoseconds) {
  timespec ts{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return false;
  nanoseconds = static_cast<std::uint64_t>(ts.tv_sec) * 1000000000u + static_cast<std::uint64_t>(ts.tv_nsec);
  return true;
}

bool startTick(std::uint32_t periodNanoseconds) {
  g_period = periodNanoseconds;
  g_deadline = nowRaw() + g_period;
  return true;
}

std::uint32_t waitForTick() {
  if (g_period == 0) return 1;
  const std::uint64_t now = nowRaw();
  if (now >= g_deadline) {
    // Late: count the periods that passed and keep the deadline grid.
    const std::uint64_t missed = (now - g_deadline) / g_period + 1;
    g_deadline += missed * g_period;
    return static_cast<std::uint32_t>(missed);
  }
  timespec ts;
  ts.tv_sec = static_cast<time_t>(g_deadline / 1000000000u);
  ts.tv_nsec = static_cast<long>(g_deadline % 1000000000u);
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
  g_deadline += g_period;
  return 1;
}

PlantFraming plantFraming() { return g_framing; }

std::size_t plantRead(std::uint8_t* buffer, std::size_t capacity) {
  if (g_plantIn < 0) return 0;
  if (g_framing == PlantFraming::kByteStream) {
    const ssize_t n = ::read(g_plantIn, buffer, capacity);
    return n > 0 ? static_cast<std::size_t>(n) : 0;
  }
  // MSG_TRUNC: the datagram's real length, so that an oversized one stays oversized when cut.
  for (int dropped = 0; dropped < kMaxForeignPerRead; ++dropped) {
    sockaddr_storage from{};
    socklen_t fromLength = sizeof from;
    const ssize_t n = ::recvfrom(g_plantIn, buffer, capacity, MSG_TRUNC, reinterpret_cast<sockaddr*>(&from), &fromLength);
    if (n <= 0) return 0;
    const std::size_t length = static_cast<std::size_t>(n) < capacity ? static_cast<std::size_t>(n) : capacity;
    if (g_benchLength > 0 && samePeer(from, fromLength, g_bench, g_benchLength)) {
      // The bench's: queued for benchRead, never the controller's frame.
      if (g_benchCount == kBenchQueueSlots) {
        ++g_benchDropped;
        continue;
      }
      BenchSlot& slot = g_benchQueue[(g_benchHead + g_benchCount) % kBenchQueueSlots];
      slot.length = length < kBenchSlotBytes ? length : kBenchSlotBytes;
      std::memcpy(slot.bytes, buffer, slot.length);
      ++g_benchCount;
      continue;
    }
    const bool peer = g_peerLocked ? samePeer(from, fromLength, g_peer, g_peerLength) : !looksLikeBenchFrame(buffer, length);
    if (!peer) {
      ++g_foreign;  // another party: neither obeyed nor answered
      continue;
    }
    g_peer = from;
    g_peerLength = fromLength;
    if (!g_peerLocked && looksLikeCommand(buffer, length)) g_peerLocked = true;
    return length;
  }
  return 0;
}

bool plantWait(std::uint32_t timeoutMicroseconds) {
  const timespec timeout{static_cast<time_t>(timeoutMicroseconds / 1000000u),
                         static_cast<long>(timeoutMicroseconds % 1000000u) * 1000};
  if (g_plantIn < 0) {  // nothing can arrive: sleep the wait out (a signal ends it early)
    ::nanosleep(&timeout, nullptr);
    return false;
  }
  pollfd p{g_plantIn, POLLIN, 0};
  return ::ppoll(&p, 1, &timeout, nullptr) > 0;
}

void plantWrite(const std::uint8_t* data, std::size_t length) {
  if (g_plantOut < 0) return;
  if (g_framing == PlantFraming::kByteStream) {
    writeAll(g_plantOut, data, length);
    return;
  }
  if (g_peerLength > 0)
    ::sendto(g_plantOut, data, length, 0, reinterpret_cast<const sockaddr*>(&g_peer), g_peerLength);
}

bool traceOpen(const char* path) {
  traceClose();
  g_trace = ::open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  return g_trace >= 0;
}

bool traceWrite(const std::uint8_t* data, std::size_t length) { return g_trace >= 0 && writeAll(g_trace, data, length); }

void traceClose() {
  if (g_trace >= 0) ::close(g_trace);
  g_trace = -1;
}

bool watchdogStart(std::uint32_t) { return false; }
void watchdogFeed() {}

FaultRecord faultRecordRead() { return g_record; }
void faultRecordWrite(const FaultRecord& record) { g_record = record; }
void systemReset() {}

}  // namespace hal
