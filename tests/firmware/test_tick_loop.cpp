// The one tick loop (firmware/tick_loop.hpp) that the firmware images and `beltsim hil` share,
// through the real Linux HAL: the same commands as the scripted image's, as UDP-like datagrams
// (beltsim hil) and as a byte stream (the board's UART) must give the same output frames,
// counters included, but for the one difference docs/firmware.md (*HAL and platforms*) names;
// and the overrun rule blames compute alike wherever the HAL reports CPU time. If a host tool or
// an image grows a loop of its own again, these counts are where it shows.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include <sys/socket.h>
#include <unistd.h>

#include "frames.hpp"
#include "hal/linux_plant.hpp"
#include "hal/platform.hpp"
#include "input_script.hpp"
#include "plant_config.hpp"
#include "plant_loop.hpp"
#include "tick_loop.hpp"

namespace beltsim::fw {
namespace {

constexpr int kNE = kMicrocontrollerElements;
using Loop = PlantLoop<kNE, 2, kMicrocontrollerMesh>;
constexpr std::uint32_t kTicks = 300;         // past every scripted defect (input_script.hpp)
constexpr std::uint32_t kCorruptTick = 280;   // the scripted frame with a flipped bit

std::unique_ptr<Loop> startedLoop() {
  auto loop = std::make_unique<Loop>();
  EXPECT_TRUE(loop->setUp(microcontrollerPlantConfig(MotorMode::kSpeed), LoopOptions{}).ok());
  EXPECT_TRUE(loop->start(true).converged);
  return loop;
}

// Keeps every output frame; as the controller, writes tick k + 1's scripted frame into the
// plant's transport after tick k (the peer descriptor), or hands it over as the image's script.
class Recorder : public TickObserver {
 public:
  Recorder(const PlantConfig& config, int peer) : config_(config), peer_(peer) {}
  std::size_t scriptedCommand(std::uint32_t tick, std::uint8_t (&wire)[kCommandFrameSize]) const {
    return scriptedCommandBytes(tick, config_.stepSize, commandFrameFor(config_), true, wire);
  }
  void send(std::uint32_t tick) const {
    std::uint8_t wire[kCommandFrameSize];
    scriptedCommand(tick, wire);
    EXPECT_EQ(::write(peer_, wire, sizeof wire), static_cast<ssize_t>(sizeof wire));
  }
  void output(std::uint32_t, const std::uint8_t (&)[kOutputFrameSize], const OutputFrame& o) { frames.push_back(o); }
  void afterStep(std::uint32_t tick, const WorkTime&) const {
    if (peer_ >= 0 && tick < kTicks) send(tick + 1);
  }
  std::vector<OutputFrame> frames;

 private:
  const PlantConfig& config_;
  int peer_;
};

// kTicks free-running ticks of the scripted commands: from the script (peer -1) or through a
// socket pair of the given type attached as the HAL's plant I/O.
std::vector<OutputFrame> run(int socketType) {
  hal::init();
  const std::unique_ptr<Loop> loop = startedLoop();
  int pair[2] = {-1, -1};
  if (socketType != 0) {
    EXPECT_EQ(::socketpair(AF_UNIX, socketType, 0, pair), 0);
  }
  hal::attachPlantDescriptors(pair[0], -1);
  Recorder recorder(loop->plant().config(), pair[1]);
  TickLoopSettings settings;
  settings.scripted = socketType == 0;
  EXPECT_TRUE(hal::startTick(0));
  TickLoop<kNE, 2, Recorder, kMicrocontrollerMesh> tickLoop;
  tickLoop.setUp(*loop, recorder, settings);
  if (socketType != 0) recorder.send(1);
  EXPECT_EQ(tickLoop.run(kTicks), RunEnd::kCompleted);
  hal::attachPlantDescriptors(-1, -1);
  for (const int fd : pair)
    if (fd >= 0) ::close(fd);
  return recorder.frames;
}

std::vector<std::uint8_t> bytes(const OutputFrame& o) {
  std::uint8_t b[kOutputFrameSize];
  encodeOutput(o, b);
  return std::vector<std::uint8_t>(b, b + kOutputFrameSize);
}

TEST(TickLoop, DatagramsCountAsTheScriptedImageDoes) {
  const std::vector<OutputFrame> scripted = run(0), datagrams = run(SOCK_DGRAM);
  ASSERT_EQ(scripted.size(), kTicks);
  ASSERT_EQ(datagrams.size(), kTicks);
  for (std::uint32_t k = 0; k < kTicks; ++k) ASSERT_EQ(bytes(scripted[k]), bytes(datagrams[k])) << "tick " << k + 1;
  EXPECT_EQ(datagrams.back().rejectedFrames, kScriptedDefectCount);
  EXPECT_EQ(datagrams.back().corruptFrames, 1u);
  EXPECT_EQ(datagrams.back().lateFrames, 0u);
}

// A byte stream finds the corrupt frame's end only with the next frame: its tick has no frame
// (late) and the rejection is counted one tick later. Everything else is equal, bit for bit.
TEST(TickLoop, AByteStreamCountsACorruptFrameWithTheNextOne) {
  const std::vector<OutputFrame> datagrams = run(SOCK_DGRAM), stream = run(SOCK_STREAM);
  ASSERT_EQ(stream.size(), kTicks);
  for (std::uint32_t k = 0; k < kTicks; ++k) {
    const std::uint32_t tick = k + 1;
    OutputFrame expected = datagrams[k];
    if (tick == kCorruptTick) {
      --expected.rejectedFrames;
      --expected.corruptFrames;
    }
    if (tick >= kCorruptTick) ++expected.lateFrames;
    ASSERT_EQ(bytes(expected), bytes(stream[k])) << "tick " << tick;
  }
  EXPECT_EQ(stream.back().rejectedFrames, kScriptedDefectCount);
}

// The overrun rule is one function: wall time alone where the HAL has no CPU time (board), both
// where it has (Linux: a preempted step is the machine's fault, not the plant's).
TEST(TickLoop, TheOverrunRuleTakesCpuTimeWhereTheHalReportsIt) {
  const std::uint64_t period = 1000000;
  EXPECT_EQ(overrunCause(WorkTime{2 * period, 0, false}, period), OverrunCause::kCompute);
  EXPECT_EQ(overrunCause(WorkTime{2 * period, period / 2, true}, period), OverrunCause::kWakeUp);
  EXPECT_EQ(overrunCause(WorkTime{2 * period, 2 * period, true}, period), OverrunCause::kCompute);
  EXPECT_EQ(overrunCause(WorkTime{period / 2, 2 * period, true}, period), OverrunCause::kWakeUp);
  std::uint64_t cpu = 0;
  EXPECT_TRUE(hal::cpuNanoseconds(cpu));  // the Linux backend reports it
}

// A real 2 ms tick and one tick whose work spins for 20 ms of CPU time: the ticks it made late
// are counted and blamed on compute, as the board counts them.
class Stretcher : public TickObserver {
 public:
  void beforeStep(std::uint32_t tick) const {
    if (tick != 3) return;
    std::uint64_t start = 0, now = 0;
    ASSERT_TRUE(hal::cpuNanoseconds(start));
    while (hal::cpuNanoseconds(now) && now - start < 20000000u) {
    }
  }
};

TEST(TickLoop, AStretchedStepsOverrunsAreBlamedOnCompute) {
  hal::init();
  hal::attachPlantDescriptors(-1, -1);
  const std::unique_ptr<Loop> loop = startedLoop();
  Stretcher stretcher;
  TickLoopSettings settings;
  settings.tickNanoseconds = 2000000;
  ASSERT_TRUE(hal::startTick(settings.tickNanoseconds));
  TickLoop<kNE, 2, Stretcher, kMicrocontrollerMesh> tickLoop;
  tickLoop.setUp(*loop, stretcher, settings);
  EXPECT_EQ(tickLoop.run(6), RunEnd::kCompleted);
  const OutputFrame& last = loop->tick(1);
  EXPECT_GE(last.computeOverruns, 9u);
  EXPECT_GE(last.overruns, last.computeOverruns);
}

}  // namespace
}  // namespace beltsim::fw
