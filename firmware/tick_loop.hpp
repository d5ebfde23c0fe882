// The tick loop, once for the firmware image (firmware/main.cpp) and for `beltsim hil`
// (host_sim/hil.cpp): wait for the tick or the controller's frame, apply the frames received,
// step the plant (PlantLoop), send the output frame, measure the work and feed the watchdog.
// Everything platform-bound goes through the HAL (hal/include/hal/platform.hpp): the clock, the
// tick, the plant I/O and its framing, the CPU time. What an application adds (trace, recording,
// a test hook, a stop request) it gives through an observer (TickObserver below), so host and
// board count overruns and rejected frames alike (docs/firmware.md, *One tick*; where transports
// count apart, *HAL and platforms*). No heap, every wait bounded by its limit, statuses returned.
#pragma once
#include <cstddef>
#include <cstdint>

#include "frames.hpp"
#include "hal/platform.hpp"
#include "plant_loop.hpp"
#include "timing_stats.hpp"

namespace beltsim::fw {

struct TickLoopSettings {
  std::uint32_t tickNanoseconds = 0;  // real time: the tick period; 0: free-running (virtual time)
  bool lockstep = false;              // one step per received frame, no tick
  bool scripted = false;              // commands from the observer's script, not the plant I/O
  std::uint32_t lockstepTimeoutMilliseconds = 0;  // longest wait for a frame; 0: no limit
};

enum class FrameWait : std::uint8_t { kFrame, kTimedOut, kStopped };
enum class RunEnd : std::uint8_t { kCompleted, kControllerSilent, kStopped };

// A tick's work as measured: wall time, and CPU time where the HAL reports it.
struct WorkTime {
  std::uint64_t wall = 0;
  std::uint64_t cpu = 0;
  bool cpuKnown = false;
};

// A late tick is the step's own fault if the previous tick's work took longer than a period in
// wall time and, where the HAL reports CPU time, in CPU time too: otherwise the machine caused it
// (a late wake-up, or the step preempted while it ran).
inline OverrunCause overrunCause(const WorkTime& previous, std::uint64_t period) {
  const bool computeTooLong = previous.wall > period && (!previous.cpuKnown || previous.cpu > period);
  return computeTooLong ? OverrunCause::kCompute : OverrunCause::kWakeUp;
}

// What an application hooks into the loop; the defaults do nothing. Derive and hide what you need
// (the loop calls the derived type's functions: no virtual calls).
struct TickObserver {
  void frame(std::uint32_t /*tick*/, const std::uint8_t* /*data*/, std::size_t /*length*/, DecodeError) {}
  void tick(std::uint32_t /*tick*/, std::uint32_t /*elapsed*/, OverrunCause) {}
  void output(std::uint32_t /*tick*/, const std::uint8_t (&)[kOutputFrameSize], const OutputFrame&) {}
  void beforeStep(std::uint32_t /*tick*/) {}
  void afterStep(std::uint32_t /*tick*/, const WorkTime&) {}
  bool stopRequested() const { return false; }
  std::size_t scriptedCommand(std::uint32_t /*tick*/, std::uint8_t (&)[kCommandFrameSize]) { return 0; }
};

template <int NE, int NP, class Observer, PlantMesh Mesh = PlantMesh::kMaterial>
class TickLoop {
 public:
  // A read holds more than a frame, so that an oversized datagram stays oversized when cut.
  static constexpr std::size_t kReadChunk = kCommandFrameSize + 8;
  static constexpr int kMaxReadsPerTick = 64;  // bounded: a flood cannot stall the tick
  static constexpr std::uint32_t kWaitSliceMicroseconds = 100000;  // a stop request ends a wait

  // All zero until setUp: an image's loop of static storage lands in .bss, not in .data (whose
  // initial values would take flash).
  constexpr TickLoop() = default;

  // Before the first tick: the plant loop, the observer, the mode, and the framing of the plant
  // I/O the HAL has by then.
  void setUp(PlantLoop<NE, NP, Mesh>& loop, Observer& observer, const TickLoopSettings& settings) {
    loop_ = &loop;
    observer_ = &observer;
    settings_ = settings;
    framing_ = hal::plantFraming();
  }

  // Ticks 1..ticks (0: for ever). A lockstep controller silent beyond the limit puts the plant in
  // the safe state (fault 6) and ends the run; so does the observer's stop request (no fault).
  RunEnd run(std::uint32_t ticks) {
    for (std::uint32_t tick = 1; ticks == 0 || tick <= ticks; ++tick) {
      if (observer_->stopRequested()) return RunEnd::kStopped;
      const FrameWait wait = awaitCommands(tick);
      if (wait == FrameWait::kStopped) return RunEnd::kStopped;
      if (wait == FrameWait::kTimedOut) {
        loop_->controllerSilent();
        return RunEnd::kControllerSilent;
      }
      observer_->beforeStep(tick);
      step(tick);
      observer_->afterStep(tick, lastWork_);
    }
    return RunEnd::kCompleted;
  }

  // Waits up to timeoutMilliseconds (0: no limit) for the next frame and applies it, feeding the
  // watchdog: the wait is the controller's. Datagram framing: any datagram, valid or not.
  [[gnu::noinline]] FrameWait awaitFrame(std::uint32_t tick, std::uint32_t timeoutMilliseconds) {
    const std::uint64_t start = hal::monotonicNanoseconds();
    const std::uint64_t limit = std::uint64_t{timeoutMilliseconds} * 1000000u;
    for (;;) {
      if (takeFrame(tick)) return FrameWait::kFrame;
      if (observer_->stopRequested()) return FrameWait::kStopped;
      const std::uint64_t waited = hal::monotonicNanoseconds() - start;
      if (limit != 0 && waited > limit) return FrameWait::kTimedOut;
      hal::plantWait(waitSlice(limit, waited));
      hal::watchdogFeed();
    }
  }

  // One received frame (a datagram, a frame the stream found, a scripted frame): decoded, then
  // validated and counted by PlantLoop; a frame the decoder refuses counts as corrupt.
  [[gnu::noinline]] void applyFrame(std::uint32_t tick, const std::uint8_t* data, std::size_t length) {
    CommandFrame command;
    const DecodeError e = decodeCommand(data, length, command);
    observer_->frame(tick, data, length, e);
    if (e == DecodeError::kNone) loop_->receive(command);
    else loop_->countUndecodableFrame();
  }

  // The tick itself, with the elapsed periods and overrun cause given (a replay gives recorded ones).
  const OutputFrame& stepWith(std::uint32_t tick, std::uint32_t elapsed, OverrunCause cause) {
    observer_->tick(tick, elapsed, cause);
    const OutputFrame& out = loop_->tick(elapsed, cause);
    emit(tick, out);
    return out;
  }

  const LoopTiming& timing() const { return timing_; }

 private:
  // Steps the plant with the tick's commands; the cause of an overrun follows from the previous
  // tick's work (overrunCause). The output frame goes to the plant I/O and the observer.
  void step(std::uint32_t tick) {
    const std::uint64_t period = settings_.lockstep ? 0 : settings_.tickNanoseconds;
    stepWith(tick, elapsed_, overrunCause(lastWork_, period));
    lastWork_.wall = hal::monotonicNanoseconds() - workStart_;
    std::uint64_t cpu = 0;
    lastWork_.cpuKnown = cpuKnownAtStart_ && hal::cpuNanoseconds(cpu);
    lastWork_.cpu = lastWork_.cpuKnown ? cpu - cpuStart_ : 0;
    timing_.stepTime.add(lastWork_.wall);
    hal::watchdogFeed();
  }

  // The buffers of frames in and out live in the frames of the functions below, never inlined: on
  // the stack only while they run, never below the model's step (docs/firmware.md, *Budgets*:
  // RAM counts the deepest stack path).
  // Lockstep: the controller's next frame. Scripted: the tick, then the script's frame. Real
  // time: the tick, then every frame that arrived since the previous one (newest valid wins).
  [[gnu::noinline]] FrameWait awaitCommands(std::uint32_t tick) {
    if (settings_.lockstep) {
      const FrameWait wait = awaitFrame(tick, settings_.lockstepTimeoutMilliseconds);
      if (wait != FrameWait::kFrame) return wait;
      elapsed_ = 1;
    } else if (settings_.scripted) {
      elapsed_ = hal::waitForTick();
      std::uint8_t wire[kCommandFrameSize] = {};  // a script may leave it (length 0: refused)
      const std::size_t length = observer_->scriptedCommand(tick, wire);
      applyFrame(tick, wire, length);
    } else {
      elapsed_ = hal::waitForTick();
      for (int reads = 0; reads < kMaxReadsPerTick && takeFrame(tick); ++reads) {
      }
    }
    beginWork();
    return FrameWait::kFrame;
  }

  // The next frame the transport delivers, applied; false if none is complete yet.
  [[gnu::noinline]] bool takeFrame(std::uint32_t tick) {
    std::uint8_t chunk[kReadChunk];
    if (framing_ == hal::PlantFraming::kDatagram) {
      const std::size_t n = hal::plantRead(chunk, sizeof chunk);
      if (n == 0) return false;
      applyFrame(tick, chunk, n);
      return true;
    }
    std::uint8_t wire[kCommandFrameSize];
    if (!stream_.pop(wire)) {
      const std::size_t n = hal::plantRead(chunk, sizeof chunk);
      if (n > 0) stream_.push(chunk, n);
      if (!stream_.pop(wire)) return false;
    }
    // A stretch of bytes that belonged to no frame counts as one rejected frame, when the frame
    // after it is found (docs/firmware.md, *HAL and platforms*).
    if (stream_.garbageBytes() != garbageSeen_) {
      garbageSeen_ = stream_.garbageBytes();
      loop_->countUndecodableFrame();
    }
    applyFrame(tick, wire, kCommandFrameSize);
    return true;
  }

  // The output frame to the plant I/O and the observer.
  [[gnu::noinline]] void emit(std::uint32_t tick, const OutputFrame& out) {
    std::uint8_t frame[kOutputFrameSize];
    encodeOutput(out, frame);
    hal::plantWrite(frame, kOutputFrameSize);
    observer_->output(tick, frame, out);
  }

  static std::uint32_t waitSlice(std::uint64_t limit, std::uint64_t waited) {
    if (limit == 0 || limit - waited > std::uint64_t{kWaitSliceMicroseconds} * 1000u) return kWaitSliceMicroseconds;
    return static_cast<std::uint32_t>((limit - waited) / 1000u) + 1u;
  }

  // The tick's work starts once its commands are in; the tick jitter is measured here.
  void beginWork() {
    std::uint64_t cpu = 0;
    cpuKnownAtStart_ = hal::cpuNanoseconds(cpu);
    cpuStart_ = cpu;
    const std::uint64_t now = hal::monotonicNanoseconds();
    const std::uint64_t period = settings_.lockstep ? 0 : settings_.tickNanoseconds;
    if (period > 0 && ticking_) {
      const std::uint64_t interval = now - previousTick_, nominal = period * elapsed_;
      timing_.tickJitter.add(interval > nominal ? interval - nominal : nominal - interval);
    }
    previousTick_ = now;
    ticking_ = true;
    workStart_ = now;
  }

  PlantLoop<NE, NP, Mesh>* loop_ = nullptr;
  Observer* observer_ = nullptr;
  TickLoopSettings settings_;
  hal::PlantFraming framing_ = hal::PlantFraming::kByteStream;
  CommandStream stream_;
  std::uint32_t garbageSeen_ = 0;
  std::uint32_t elapsed_ = 0;  // set by awaitCommands before each step
  bool ticking_ = false;
  bool cpuKnownAtStart_ = false;
  std::uint64_t cpuStart_ = 0, workStart_ = 0, previousTick_ = 0;
  WorkTime lastWork_;
  LoopTiming timing_;
};

}  // namespace beltsim::fw
