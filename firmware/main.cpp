// Firmware entry point: the same loop on the Cortex-M7 board, aarch64 and the x86-64 host; only
// the HAL backend differs. Compiled once per configuration (BELTSIM_FW_PC_CONFIG 1: PC, 0:
// microcontroller; their mesh, element count and step are the files' in firmware/configs/); the
// image's behaviour comes from its kFirmwareOptions (firmware_options.hpp).
#include <cstdint>
#include <cstring>

#include "firmware_options.hpp"
#include "frames.hpp"
#include "hal/platform.hpp"
#include "input_script.hpp"
#include "plant_config.hpp"
#include "plant_loop.hpp"
#include "text_format.hpp"
#include "tick_loop.hpp"
#include "timing_stats.hpp"
#if defined(BELTSIM_STEP_PHASES)
#include "step_phases.hpp"
#endif

#ifndef BELTSIM_FW_PC_CONFIG
#define BELTSIM_FW_PC_CONFIG 0
#endif

namespace {

using namespace beltsim;
using namespace beltsim::fw;

constexpr int kElements = BELTSIM_FW_PC_CONFIG ? kPcElements : kMicrocontrollerElements;
constexpr int kPulleys = BELTSIM_FW_PC_CONFIG ? kPcPulleys : kMicrocontrollerPulleys;
constexpr PlantMesh kMesh = BELTSIM_FW_PC_CONFIG ? kPcMesh : kMicrocontrollerMesh;
constexpr std::uint32_t kTraceBatch = 8;  // frames per trace write (8 x 508 B of RAM)

// Everything big lives in static storage, not on the (64 KiB) stack.
PlantLoop<kElements, kPulleys, kMesh> g_loop;
std::uint8_t g_traceBuffer[kTraceBatch * kOutputFrameSize];
std::uint32_t g_traceFill = 0;
bool g_traceOk = false;

void print(TextLine& line) {
  line.text("\n");
  hal::consoleWrite(line.c_str(), line.size());
  line.clear();
}

// detmath must give the same bits everywhere; a wrong floating-point mode shows here first.
bool modelSelfCheck() {
  const double a = detmath::atan2(0.5, -1.25);
  std::uint64_t bits;
  std::memcpy(&bits, &a, 8);
  return bits == 0x400616b466d73d60ull;  // atan2(0.5, -1.25) = 2.7610862764774282
}

void traceFrame(const std::uint8_t (&frame)[kOutputFrameSize], bool flush) {
  if (!g_traceOk) return;
  std::memcpy(g_traceBuffer + g_traceFill * kOutputFrameSize, frame, kOutputFrameSize);
  ++g_traceFill;
  if (g_traceFill == kTraceBatch || flush) {
    g_traceOk = hal::traceWrite(g_traceBuffer, g_traceFill * kOutputFrameSize);
    g_traceFill = 0;
  }
}

// What this image adds to the shared tick loop (firmware/tick_loop.hpp): the scripted commands,
// the trace and its hash, the delay test hook and the step log.
class ImageObserver : public TickObserver {
 public:
  std::size_t scriptedCommand(std::uint32_t tick, std::uint8_t (&wire)[kCommandFrameSize]) const;
  void output(std::uint32_t tick, const std::uint8_t (&frame)[kOutputFrameSize], const OutputFrame&) {
    hash_.add(frame);
    traceFrame(frame, kFirmwareOptions.ticks != 0 && tick == kFirmwareOptions.ticks);
  }
  // The injected delay is compute of the tick's work (it runs after the work's clock started): it
  // spins until that much CPU time has passed where the HAL reports it, so that a loaded machine
  // cannot make it the wake-up's (the overrun rule, firmware/tick_loop.hpp), else wall time.
  void beforeStep(std::uint32_t tick) const {
    if (kFirmwareOptions.delayTick == 0 || tick != kFirmwareOptions.delayTick) return;
    std::uint64_t start = 0;
    const bool cpu = hal::cpuNanoseconds(start);
    if (!cpu) start = hal::monotonicNanoseconds();
    for (std::uint64_t now = start; now - start < kFirmwareOptions.delayNanoseconds;) {
      if (!cpu || !hal::cpuNanoseconds(now)) now = hal::monotonicNanoseconds();
    }
  }
  void afterStep(std::uint32_t tick, const WorkTime& work) const {
    if (tick <= kFirmwareOptions.stepLogSize)
      kFirmwareOptions.stepLog[tick - 1] = static_cast<std::uint32_t>(work.wall < 0xFFFFFFFFu ? work.wall : 0xFFFFFFFFu);
  }
  const TraceHash& hash() const { return hash_; }

 private:
  TraceHash hash_;
};

// Static storage, zero until set up (.bss).
ImageObserver g_observer;
TickLoop<kElements, kPulleys, ImageObserver, kMesh> g_tickLoop;

// The scripted command for tick k (test and benchmark images), for the plant as set up.
std::size_t ImageObserver::scriptedCommand(std::uint32_t tick, std::uint8_t (&wire)[kCommandFrameSize]) const {
  const PlantConfig& config = g_loop.plant().config();
  const CommandFrame zero = commandFrameFor(config);
  return kFirmwareOptions.commands == CommandSource::kPaperScript
             ? paperCommandBytes(tick, config.stepSize, zero, wire)
             : scriptedCommandBytes(tick, config.stepSize, zero, true, wire);
}

void printHistogram(const char* name, const TimingHistogram& h) {
  TextLine line;
  line.text("timing ").text(name).text(" ns: n ").u64(h.count()).text(" min ").u64(h.min()).text(" median ")
      .u64(h.quantile(0.5)).text(" p99 ").u64(h.quantile(0.99)).text(" max ").u64(h.max()).text(" mean ").u64(h.mean()).text(" (max at sample ").u64(h.maxSample()).text(")");
  print(line);
}

}  // namespace

int main() {
  hal::init();
  TextLine line;
  const hal::FaultRecord previous = hal::faultRecordRead();
  line.text("beltsim firmware on ").text(hal::platformName()).text(": ").u64(kElements)
      .text(kMesh == PlantMesh::kEulerian ? " eulerian elements, " : " material elements, ")
      .u64(kPulleys).text(" pulleys, ")
      .text(BELTSIM_FW_PC_CONFIG ? "PC" : "microcontroller").text(" configuration; resets ").u64(previous.resets)
      .text(", last fault ").u64(previous.faultCode);
  print(line);
  if (previous.resets > 0 && previous.faultCode != 0) {
    line.text("reset reason: fault ").u64(previous.faultCode).text(" at step ").u64(previous.step).text("; stopping");
    print(line);
    return 3;
  }

  // ---- configuration and start-up ------------------------------------------------------------------
  const FirmwareOptions& opt = kFirmwareOptions;
  const MotorMode mode = opt.motorMode;
  PlantConfig config = BELTSIM_FW_PC_CONFIG ? pcPlantConfig(mode) : microcontrollerPlantConfig(mode);
  const std::uint32_t ticks = opt.ticks;
  if (opt.maxNewtonIterations > 0) {
    // Forced non-convergence (test hook): a tight Newton bound with the reference tolerances,
    // which one iteration cannot meet once the belt moves (the configuration's 1e-3 it can); in
    // the fixed-cost stepping as many iterations and one post-Newton pass, flagged above the same
    // 1e-7 N, which one pass cannot meet once the belt moves either.
    config.integrator.maxNewtonIterations = opt.maxNewtonIterations;
    config.integrator.relativeTolerance = 1e-8;
    config.integrator.absoluteTolerance = 1e-7;
    config.integrator.fixedNewtonIterations = opt.maxNewtonIterations;
    if (config.integrator.frozenStateIterations > opt.maxNewtonIterations)
      config.integrator.frozenStateIterations = opt.maxNewtonIterations;
    config.integrator.postNewtonPasses = 1;
    config.integrator.fixedResidualTolerance = 1e-7;
  }
  if (opt.frictionFaultStart >= 0.0 && config.faults.count < kMaxInjectedFaults) {
    // A wet motor pulley (test hook): P1's friction coefficient ramps to the hook's value,
    InjectedFault& wet = config.faults.fault[config.faults.count++];
    wet.kind = InjectedFaultKind::kFriction;
    wet.pulley = 0;
    wet.start = opt.frictionFaultStart;
    wet.ramp = 0.05;
    wet.value = opt.frictionFaultValue;
    // and from the same time a dragging load bearing (5 N m, 0.2 N m s/rad on P2) and the sensors'
    // random kinds, whose draws every target must repeat: noise on span 1's load cell (std 2 N),
    // dropouts of P2's encoder counts (rate 0.05).
    if (config.faults.count + 3 <= kMaxInjectedFaults) {
      // Each from the wet pulley's start, with its ramp.
      auto alsoAt = [&](InjectedFaultKind kind, int target, double value, std::uint32_t seed) -> InjectedFault& {
        InjectedFault& f = config.faults.fault[config.faults.count++];
        f = wet;
        f.kind = kind;
        f.pulley = target;
        f.value = value;
        f.seed = seed;
        return f;
      };
      alsoAt(InjectedFaultKind::kBearingDrag, 1, 5.0, 1).viscous = 0.2;
      alsoAt(InjectedFaultKind::kLoadCellNoise, 0, 2.0, 3);
      alsoAt(InjectedFaultKind::kEncoderDropout, 1, 0.05, 4);
    }
  }
  LoopOptions options;
  options.overrunPolicy = opt.overrunEntersSafeState ? OverrunPolicy::kSafeState : OverrunPolicy::kCountAndContinue;
  options.maxHeldTicks = opt.lockstep ? 0 : opt.holdTicks;
  const ParameterError setup = g_loop.setUp(config, options);
  const bool selfCheck = hal::floatingPointConfigured() && modelSelfCheck() && setup.ok();
  const std::uint64_t startBegin = hal::monotonicNanoseconds();
  const StaticResult statics = g_loop.start(selfCheck);
  const std::uint64_t startEnd = hal::monotonicNanoseconds();
  line.text("self-check ").text(selfCheck ? "passed" : "FAILED").text("; static equilibrium ")
      .text(statics.converged ? "converged" : "NOT converged").text(", ").u64(static_cast<std::uint64_t>(statics.newtonIterations))
      .text(" Newton iterations, ").u64(startEnd - startBegin).text(" ns");
  print(line);

  g_traceOk = opt.traceFile[0] != '\0' && hal::traceOpen(opt.traceFile);
  const bool watchdog = hal::watchdogStart(200000u);  // 200 ms: far above the worst step bound
  line.text("watchdog ").text(watchdog ? "running (200 ms)" : "not available on this platform");
  print(line);

  // ---- the loop ------------------------------------------------------------------------------------------
  if (!opt.lockstep && !hal::startTick(opt.tickNanoseconds)) {
    line.text("tick period ").u64(opt.tickNanoseconds).text(" ns not supported by this platform");
    print(line);
    return 2;
  }
  TickLoopSettings settings;
  settings.tickNanoseconds = opt.tickNanoseconds;
  settings.lockstep = opt.lockstep;
  settings.scripted = opt.commands != CommandSource::kPlantIo;
  settings.lockstepTimeoutMilliseconds = opt.lockstepTimeoutMilliseconds;
  g_tickLoop.setUp(g_loop, g_observer, settings);
  if (g_tickLoop.run(ticks) == RunEnd::kControllerSilent) {
    // The wait is the controller's (the watchdog was fed while it lasted); a controller silent
    // for longer ends the run in the safe state, reported like a silent controller in real time.
    line.text("lockstep: no command frame for ").u64(opt.lockstepTimeoutMilliseconds)
        .text(" ms before tick ").u64(g_loop.steps() + 1).text(": safe state (controller silent)");
    print(line);
  }
  hal::traceClose();

  // ---- report ----------------------------------------------------------------------------------------------
  const OutputFrame& last = g_loop.tick(1);  // one more frame: the state after the run
  line.text("final: t ").fixed(last.time, 4).text(" s, omega P1 ").fixed(last.speed[0], 6).text(" omega P2 ")
      .fixed(last.speed[1], 6).text(" rad/s, motor torque ").fixed(last.torque[0], 4).text(" N m, spans ")
      .fixed(last.spanForce[0], 3).text(" / ").fixed(last.spanForce[1], 3).text(" N");
  print(line);
  line.text("health: safe state ").u64(last.safeState).text(", fault ").u64(static_cast<std::uint64_t>(last.fault))
      .text(", rejected frames ").u64(last.rejectedFrames).text(" (corrupt ").u64(last.corruptFrames).text(", invalid ")
      .u64(last.invalidFrames).text(", stale ").u64(last.staleFrames).text(", superseded ").u64(last.supersededFrames)
      .text("), overruns ").u64(last.overruns).text(" (compute ").u64(last.computeOverruns).text(")");
  print(line);
  printHistogram("step", g_tickLoop.timing().stepTime);
#if defined(BELTSIM_STEP_PHASES)
  phases::report([](TextLine& l) { print(l); });
#endif
  // The step log (benchmark images), 10 ticks per line: "steplog <first tick> <ns> ...".
  const std::uint32_t logged = ticks < opt.stepLogSize ? ticks : opt.stepLogSize;
  for (std::uint32_t first = 0; first < logged; first += 10) {
    line.text("steplog ").u64(first + 1);
    for (std::uint32_t k = first; k < first + 10 && k < logged; ++k) line.text(" ").u64(opt.stepLog[k]);
    print(line);
  }
  if (opt.tickNanoseconds > 0 && !opt.lockstep) printHistogram("tick_jitter", g_tickLoop.timing().tickJitter);
  line.text("stack high-water mark ").u64(hal::stackHighWaterBytes()).text(" bytes");
  print(line);
  line.text("BITS firmware_trace_hash_").text(BELTSIM_FW_PC_CONFIG ? "pc" : "mcu").text(" ").hex64(g_observer.hash().value);
  print(line);
  line.text("BITS firmware_trace_frames_").text(BELTSIM_FW_PC_CONFIG ? "pc" : "mcu").text(" ").u64(g_observer.hash().frames);
  print(line);

  const FaultCode expected = static_cast<FaultCode>(opt.expectedFault);
  bool ok = g_loop.fault() == expected && (expected != FaultCode::kNone) == g_loop.safeState();
  if (expected == FaultCode::kNone && ticks >= 300 && opt.commands == CommandSource::kTestScript &&
      last.rejectedFrames != kScriptedDefectCount)
    ok = false;
  // The injected delay is part of the tick's work: its overrun must be seen and blamed on compute.
  if (opt.delayTick != 0 && !opt.overrunEntersSafeState && last.computeOverruns == 0) ok = false;
  line.text(ok ? "firmware run: PASS" : "firmware run: FAIL").text(" (expected fault ").u64(opt.expectedFault)
      .text(", got ").u64(static_cast<std::uint64_t>(g_loop.fault())).text(")");
  print(line);
  return ok ? 0 : 1;
}
